//! The arena's operational metrics (SPEC section 14, "Operations"; issue 9), kept in one
//! [`Metrics`] registry shared through the [`Arena`](crate::arena::Arena) and served by
//! `GET /metrics` in the Prometheus text format.
//!
//! Who records what:
//! - the HTTP middleware ([`crate::api::metrics::track`]) calls [`Metrics::http_request`];
//! - the move path calls [`Metrics::move_played`] once per stored move;
//! - long-polls and event streams hold an [`InFlight`] guard from [`Metrics::long_poll_started`]
//!   and [`Metrics::stream_opened`] for as long as they wait or stay connected;
//! - the SQLite group-commit writer calls [`Metrics::commit_batch`] once per commit;
//! - whoever knows the number of active games calls [`Metrics::set_active_games`];
//! - resident memory is read at scrape time by [`Metrics::encode`] (Linux only).
//!
//! Metrics never fail a request: recording is a few atomic operations and never returns errors.

use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// The name of the analyst's thread (`arena::analysis`), whose CPU time `/metrics` reports
/// apart. Defined here so the metrics need nothing of the arena.
pub const ANALYST_THREAD: &str = "analyst";
/// Labels of `hexarena_http_requests_total`.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct HttpLabels {
    /// The route pattern (`/v1/sets/{id}/games/{n}`), or `unmatched`; never the raw path.
    route: String,
    /// One of the standard methods, or `OTHER`.
    method: &'static str,
    /// The response status code.
    status: u16,
}

/// Upper bounds of the move latency buckets, seconds: 0.25 ms doubling up to about 1 s.
fn move_latency_buckets_s() -> impl Iterator<Item = f64> {
    exponential_buckets(0.000_25, 2.0, 13)
}

/// Upper bounds of the commit batch size buckets: 1, 2, 4, ... 1024 writes per commit.
fn commit_batch_buckets() -> impl Iterator<Item = f64> {
    exponential_buckets(1.0, 2.0, 11)
}

/// A gauge held up while a long-poll waits or an event stream is open: incremented when made,
/// decremented when dropped, so an early return or a dropped connection is never miscounted.
#[must_use = "the gauge goes back down as soon as the guard is dropped"]
#[derive(Debug)]
pub struct InFlight(Gauge);

impl InFlight {
    fn new(gauge: &Gauge) -> InFlight {
        gauge.inc();
        InFlight(gauge.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// The house's thinking pool, read at scrape time.
#[derive(Debug, Default)]
struct HouseGauges {
    threads: Gauge,
    queued: Gauge,
    in_play: Gauge,
    load: Gauge<f64, std::sync::atomic::AtomicU64>,
    limit: Gauge<f64, std::sync::atomic::AtomicU64>,
    moves: Gauge,
    cheap: Gauge,
    knowledge: Gauge,
    max_wait_ms: Gauge,
    max_wait_clock_ms: Gauge,
    max_think_ms: Gauge,
    min_margin_ms: Gauge,
    min_stored_margin_ms: Gauge,
    overhead_ms: Gauge,
    max_overhead_ms: Gauge,
    time_losses: Counter,
    engine_failures: Counter,
}

impl HouseGauges {
    fn register(registry: &mut Registry) -> HouseGauges {
        let g = HouseGauges::default();
        for (name, help, gauge) in [
            (
                "hexarena_house_threads",
                "Worker threads of the house bots' thinking pool",
                &g.threads,
            ),
            (
                "hexarena_house_queued_moves",
                "House moves waiting for a worker now",
                &g.queued,
            ),
            (
                "hexarena_house_games_in_play",
                "House games in play held by this instance",
                &g.in_play,
            ),
            (
                "hexarena_house_moves_thought",
                "House moves thought by the pool since start",
                &g.moves,
            ),
            (
                "hexarena_house_cheap_moves",
                "House moves played cheap (near the flag or under heavy load) since start",
                &g.cheap,
            ),
            (
                "hexarena_house_knowledge_moves",
                "House moves thought with Hex knowledge (house-master's H-search to closure near the root) since start",
                &g.knowledge,
            ),
            (
                "hexarena_house_max_wait_ms",
                "Longest wait of a house move for a worker since start, ms",
                &g.max_wait_ms,
            ),
            (
                "hexarena_house_max_think_ms",
                "Longest thinking time of one house move since start, ms",
                &g.max_think_ms,
            ),
            (
                "hexarena_house_max_wait_clock_ms",
                "Longest wait of a house move on the clock (not a free first move) for a worker since start, ms",
                &g.max_wait_clock_ms,
            ),
            (
                "hexarena_house_min_margin_ms",
                "Least time left before its flag on a house clock when a house move was ready since start, ms (negative: past the flag; 0 before the first)",
                &g.min_margin_ms,
            ),
            (
                "hexarena_house_min_stored_margin_ms",
                "Least time left on a house clock when a house move was stored since start, ms (negative: past the flag; 0 before the first)",
                &g.min_stored_margin_ms,
            ),
            (
                "hexarena_house_move_overhead_ms",
                "Moving average of what a house move costs its clock besides thinking (queue, commit, scheduling), ms; the house plans its thinking with it",
                &g.overhead_ms,
            ),
            (
                "hexarena_house_max_move_overhead_ms",
                "Largest cost of one house move on the clock besides thinking since start, ms",
                &g.max_overhead_ms,
            ),
        ] {
            registry.register(name, help, gauge.clone());
        }
        registry.register(
            "hexarena_house_time_losses",
            "House games lost on time (clock or first move) committed by this instance since start",
            g.time_losses.clone(),
        );
        registry.register(
            "hexarena_house_engine_failures",
            "Outside house engine processes that died, hung or answered no legal move (their games resigned) since start",
            g.engine_failures.clone(),
        );
        registry.register(
            "hexarena_house_load",
            "House games in play weighted by their clocks, in games at 10+0",
            g.load.clone(),
        );
        registry.register(
            "hexarena_house_load_limit",
            "House load above which new house games are refused (house_busy), in games at 10+0",
            g.limit.clone(),
        );
        g
    }
}

/// Figures of the house's thinking pool since it started (`arena::house::pool::Pool::stats`),
/// which [`Metrics::set_house`] exports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Worker threads.
    pub threads: usize,
    /// Jobs answered.
    pub jobs: u64,
    /// Jobs answered with a cheap move.
    pub cheap: u64,
    /// Jobs answered by a search with Hex knowledge (house-master's H-search to closure).
    pub knowledge: u64,
    /// Longest wait in the queue, ms.
    pub max_wait_ms: u64,
    /// Longest wait in the queue of a move on the clock (not a free first move), ms.
    pub max_wait_clock_ms: u64,
    /// Sum of the waits, ms.
    pub total_wait_ms: u64,
    /// Longest thinking time of one job, ms.
    pub max_think_ms: u64,
    /// Sum of the thinking times, ms.
    pub total_think_ms: u64,
    /// Smallest time left before a flag when an answer was ready, ms (`i64::MAX` before
    /// the first job).
    pub min_margin_ms: i64,
    /// Smallest time left on a house clock when its move was stored, ms (negative: past
    /// the flag; `i64::MAX` before the first).
    pub min_stored_margin_ms: i64,
    /// The moving average of a move's cost besides thinking, ms (`Pool::overhead_ms`).
    pub overhead_ms: u64,
    /// Largest cost besides thinking of one move on the clock, ms.
    pub max_overhead_ms: u64,
    /// Jobs waiting now.
    pub queued: usize,
}

/// The registry and every metric family of the arena. Cheap to record into from any thread.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    http_requests: Family<HttpLabels, Counter>,
    moves: Counter,
    move_latency_s: Histogram,
    active_games: Gauge,
    long_polls: Gauge,
    streams: Gauge,
    commit_batch: Histogram,
    commit_batch_s: Histogram,
    checkpoint_s: Histogram,
    database_bytes: Gauge,
    listener_connections: Counter,
    notices: Counter,
    notices_left_out: Counter,
    games_caught_up: Counter,
    games_loaded: Counter,
    analysis_rest_seconds: Counter<f64, std::sync::atomic::AtomicU64>,
    resident_memory_bytes: Option<Gauge>,
    house: HouseGauges,
    /// CPU time of the process (user + system), advanced to `/proc/self/stat` at scrape time.
    cpu_seconds: Option<Counter<f64, std::sync::atomic::AtomicU64>>,
    /// The part of it spent by the analyst's thread (issue 21), advanced the same way.
    analysis_cpu_seconds: Option<Counter<f64, std::sync::atomic::AtomicU64>>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// A fresh registry with every family registered (and zero).
    pub fn new() -> Metrics {
        let mut registry = Registry::default();
        let http_requests = Family::<HttpLabels, Counter>::default();
        registry.register(
            "hexarena_http_requests",
            "HTTP requests answered, by route pattern (unmatched for unknown paths), method and status",
            http_requests.clone(),
        );
        let moves = Counter::default();
        registry.register(
            "hexarena_moves",
            "Moves stored (acknowledged to the bot that made them)",
            moves.clone(),
        );
        let move_latency_s = Histogram::new(move_latency_buckets_s());
        registry.register(
            "hexarena_move_duration_seconds",
            "Time to handle a move in the arena, from the parsed request to the committed new state, in seconds",
            move_latency_s.clone(),
        );
        let active_games = Gauge::default();
        registry.register(
            "hexarena_active_games",
            "Games in progress (status active) known to this instance",
            active_games.clone(),
        );
        let long_polls = Gauge::default();
        registry.register(
            "hexarena_waiting_long_polls",
            "Long-polls waiting now (GET /v1/bots/me/turn and GET /v1/sets/{id}/games/{n} with wait_s)",
            long_polls.clone(),
        );
        let streams = Gauge::default();
        registry.register(
            "hexarena_open_event_streams",
            "Server-sent event streams open now (bot streams and public game streams)",
            streams.clone(),
        );
        let commit_batch = Histogram::new(commit_batch_buckets());
        registry.register(
            "hexarena_commit_batch_size",
            "Writes committed together by one database commit (group commit)",
            commit_batch.clone(),
        );
        let commit_batch_s = Histogram::new(move_latency_buckets_s());
        registry.register(
            "hexarena_commit_batch_duration_seconds",
            "Wall time of one group commit of moves, from taking the batch off the queue to \
             answering its moves (waits for the CPU and the database included)",
            commit_batch_s.clone(),
        );
        let checkpoint_s = Histogram::new(move_latency_buckets_s());
        registry.register(
            "hexarena_sqlite_checkpoint_duration_seconds",
            "Wall time of one background checkpoint of SQLite's write-ahead log (beside the \
             writer, not on a commit's path)",
            checkpoint_s.clone(),
        );
        let database_bytes = Gauge::default();
        registry.register(
            "hexarena_database_bytes",
            "Bytes of data in the database, read when scraped: SQLite's pages in use times its \
             page size (the write-ahead log not counted), PostgreSQL's pg_database_size",
            database_bytes.clone(),
        );
        let listener_connections = Counter::default();
        registry.register(
            "hexarena_change_listener_connections",
            "Times this instance opened its PostgreSQL change-listening connection (more than one: it was lost and re-opened)",
            listener_connections.clone(),
        );
        let notices = Counter::default();
        registry.register(
            "hexarena_change_notices_received",
            "Change notices received from other instances over PostgreSQL LISTEN/NOTIFY",
            notices.clone(),
        );
        let notices_left_out = Counter::default();
        registry.register(
            "hexarena_change_notices_left_out",
            "Change notices this instance left out because no other instance was alive to hear \
             them (PostgreSQL; issue 22)",
            notices_left_out.clone(),
        );
        let games_caught_up = Counter::default();
        registry.register(
            "hexarena_games_caught_up",
            "Held games brought up to their row by reading only the moves another instance added",
            games_caught_up.clone(),
        );
        let games_loaded = Counter::default();
        registry.register(
            "hexarena_games_loaded",
            "Games loaded whole from the database into memory (set, game, moves, names)",
            games_loaded.clone(),
        );
        let analysis_rest_seconds = Counter::<f64, std::sync::atomic::AtomicU64>::default();
        registry.register(
            "hexarena_analysis_rest_seconds",
            "Time the analyst rested to leave the CPU to a busy move path (issue 22), in seconds",
            analysis_rest_seconds.clone(),
        );
        let house = HouseGauges::register(&mut registry);
        let resident_memory_bytes = resident_memory_bytes().map(|_| {
            let g = Gauge::default();
            registry.register(
                "process_resident_memory_bytes",
                "Resident memory size of the server process in bytes, read at scrape time",
                g.clone(),
            );
            g
        });
        let cpu_seconds = cpu_seconds().map(|_| {
            let c = Counter::<f64, std::sync::atomic::AtomicU64>::default();
            registry.register(
                "process_cpu_seconds",
                "CPU time (user and system) of the server process in seconds, read at scrape time",
                c.clone(),
            );
            c
        });
        let analysis_cpu_seconds = cpu_seconds.as_ref().map(|_| {
            let c = Counter::<f64, std::sync::atomic::AtomicU64>::default();
            registry.register(
                "hexarena_analysis_cpu_seconds",
                "CPU time (user and system) of the analyst thread in seconds, read at scrape \
                 time: the part of process_cpu_seconds spent analysing finished games",
                c.clone(),
            );
            c
        });
        Metrics {
            registry,
            http_requests,
            moves,
            move_latency_s,
            active_games,
            long_polls,
            streams,
            commit_batch,
            commit_batch_s,
            checkpoint_s,
            database_bytes,
            listener_connections,
            notices,
            notices_left_out,
            games_caught_up,
            games_loaded,
            analysis_rest_seconds,
            resident_memory_bytes,
            house,
            cpu_seconds,
            analysis_cpu_seconds,
        }
    }

    /// Counts an outside engine's game resigned because the engine gave no legal move in time
    /// (`hexarena_house_engine_failures_total`, issue 23).
    pub fn house_engine_failure(&self) {
        self.house.engine_failures.inc();
    }

    /// Counts a house game lost on time (`hexarena_house_time_losses_total`).
    pub fn house_time_loss(&self) {
        self.house.time_losses.inc();
    }

    /// The house's figures as of now (set at scrape time, issue 11): the pool's `stats`,
    /// `in_play` games, their `load` and its `limit` (in games at 10+0 on 11x11).
    pub fn set_house(&self, stats: &PoolStats, in_play: usize, load: f64, limit: f64) {
        let g = &self.house;
        let int = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        g.threads.set(int(stats.threads as u64));
        g.queued.set(int(stats.queued as u64));
        g.in_play.set(int(in_play as u64));
        g.load.set(load);
        g.limit.set(limit);
        g.moves.set(int(stats.jobs));
        g.cheap.set(int(stats.cheap));
        g.knowledge.set(int(stats.knowledge));
        g.max_wait_ms.set(int(stats.max_wait_ms));
        g.max_think_ms.set(int(stats.max_think_ms));
        g.max_wait_clock_ms.set(int(stats.max_wait_clock_ms));
        let margin = |m: i64| if m == i64::MAX { 0 } else { m };
        g.min_margin_ms.set(margin(stats.min_margin_ms));
        g.min_stored_margin_ms
            .set(margin(stats.min_stored_margin_ms));
        g.overhead_ms.set(int(stats.overhead_ms));
        g.max_overhead_ms.set(int(stats.max_overhead_ms));
    }

    /// Counts one answered HTTP request. `route` is the matched pattern (None: `unmatched`).
    pub fn http_request(&self, route: Option<&str>, method: &str, status: u16) {
        const METHODS: [&str; 9] = [
            "GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "CONNECT", "TRACE",
        ];
        let method = METHODS
            .iter()
            .copied()
            .find(|m| *m == method)
            .unwrap_or("OTHER");
        let labels = HttpLabels {
            route: route.unwrap_or("unmatched").to_string(),
            method,
            status,
        };
        self.http_requests.get_or_create(&labels).inc();
    }

    /// Counts one stored move and its latency (arena side: from the parsed request to the
    /// committed state). Call once per acknowledged move, not for idempotent retries.
    pub fn move_played(&self, latency: Duration) {
        self.moves.inc();
        self.move_latency_s.observe(latency.as_secs_f64());
    }

    /// Sets the number of active games (the size of the active-games map, or the scheduler's
    /// count of pending deadlines).
    pub fn set_active_games(&self, n: usize) {
        self.active_games.set(i64::try_from(n).unwrap_or(i64::MAX));
    }

    /// Sets the bytes of data in the database (see `Store::database_bytes`).
    pub fn set_database_bytes(&self, bytes: i64) {
        self.database_bytes.set(bytes);
    }

    /// A long-poll starts waiting; the gauge goes down when the guard is dropped.
    pub fn long_poll_started(&self) -> InFlight {
        InFlight::new(&self.long_polls)
    }

    /// An event stream opens; keep the guard for as long as the connection lives.
    pub fn stream_opened(&self) -> InFlight {
        InFlight::new(&self.streams)
    }

    /// Records one database commit holding `n` writes (the group-commit writer's batch size).
    pub fn commit_batch(&self, n: usize) {
        // Precision loss above 2^53 writes is irrelevant here.
        #[allow(clippy::cast_precision_loss)]
        self.commit_batch.observe(n as f64);
    }

    /// Records the wall time of one group commit of moves (the writer's batch).
    pub fn commit_batch_took(&self, took: Duration) {
        self.commit_batch_s.observe(took.as_secs_f64());
    }

    /// A background WAL checkpoint (SQLite) took `took`.
    pub fn checkpoint_took(&self, took: Duration) {
        self.checkpoint_s.observe(took.as_secs_f64());
    }

    /// The change listener (PostgreSQL) opened its connection.
    pub fn listener_connected(&self) {
        self.listener_connections.inc();
    }

    /// A change notice came from another instance.
    pub fn notice_received(&self) {
        self.notices.inc();
    }

    /// `n` change notices left out: no other instance was alive to hear them.
    pub fn notices_left_out(&self, n: usize) {
        self.notices_left_out.inc_by(n as u64);
    }

    /// A held game brought up to its row by the moves after its ply (PostgreSQL, issue 22).
    pub fn game_caught_up(&self) {
        self.games_caught_up.inc();
    }

    /// A game loaded whole from the database.
    pub fn game_loaded(&self) {
        self.games_loaded.inc();
    }

    /// The analyst rested `d` for a busy move path.
    pub fn analysis_rested(&self, d: std::time::Duration) {
        self.analysis_rest_seconds.inc_by(d.as_secs_f64());
    }

    /// Times the change listener connected (tests read it).
    pub fn listener_connections(&self) -> u64 {
        self.listener_connections.get()
    }

    /// Moves counted so far (tests and the bench read it).
    pub fn moves_total(&self) -> u64 {
        self.moves.get()
    }

    /// Long-polls waiting now.
    pub fn waiting_long_polls(&self) -> i64 {
        self.long_polls.get()
    }

    /// Event streams open now.
    pub fn open_event_streams(&self) -> i64 {
        self.streams.get()
    }

    /// The exposition text (OpenMetrics text 1.0, which Prometheus also reads as its text
    /// format), with resident memory read now.
    pub fn encode(&self) -> Result<String, std::fmt::Error> {
        if let (Some(g), Some(bytes)) = (&self.resident_memory_bytes, resident_memory_bytes()) {
            g.set(i64::try_from(bytes).unwrap_or(i64::MAX));
        }
        let advance = |c: &Counter<f64, std::sync::atomic::AtomicU64>, now: f64| {
            let ahead = now - c.get();
            if ahead > 0.0 {
                c.inc_by(ahead);
            }
        };
        if let (Some(c), Some(now)) = (&self.cpu_seconds, cpu_seconds()) {
            advance(c, now);
        }
        if let Some(c) = &self.analysis_cpu_seconds {
            advance(c, thread_cpu_seconds(ANALYST_THREAD));
        }
        let mut out = String::with_capacity(4096);
        prometheus_client::encoding::text::encode(&mut out, &self.registry)?;
        Ok(out)
    }
}

/// CPU time of this process in seconds: `utime` + `stime` of `/proc/self/stat` in clock ticks
/// (`USER_HZ`, 100 on Linux). None where there is no `/proc`.
pub fn cpu_seconds() -> Option<f64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    stat_cpu_seconds(&std::fs::read_to_string("/proc/self/stat").ok()?)
}

/// CPU time in seconds of this process's threads named `name` (their `comm`), summed: 0 when
/// none is running (or where there is no `/proc`).
pub fn thread_cpu_seconds(name: &str) -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0.0;
    };
    tasks
        .flatten()
        .filter(|t| {
            std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.trim_end() == name)
        })
        .filter_map(|t| stat_cpu_seconds(&std::fs::read_to_string(t.path().join("stat")).ok()?))
        .sum()
}

/// `utime` + `stime` of a `stat` line (process or thread) in seconds.
fn stat_cpu_seconds(stat: &str) -> Option<f64> {
    // Fields after the command name (which may hold spaces) start at field 3 (`state`).
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    let mut f = rest.split_whitespace().skip(11);
    let utime: u64 = f.next()?.parse().ok()?;
    let stime: u64 = f.next()?.parse().ok()?;
    const USER_HZ: f64 = 100.0;
    Some((utime + stime) as f64 / USER_HZ)
}

/// Resident set size of this process in bytes: the second field of `/proc/self/statm` (pages)
/// times the page size. None where there is no `/proc` (not Linux).
pub fn resident_memory_bytes() -> Option<u64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages.saturating_mul(page_size_bytes()))
}

/// The page size from the auxiliary vector (`AT_PAGESZ` in `/proc/self/auxv`), read once;
/// 4096 if it cannot be read.
fn page_size_bytes() -> u64 {
    static PAGE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *PAGE.get_or_init(|| {
        const AT_PAGESZ: u64 = 6;
        const WORD: usize = std::mem::size_of::<usize>();
        let word = |b: &[u8]| -> Option<u64> {
            let a: [u8; WORD] = b.try_into().ok()?;
            u64::try_from(usize::from_ne_bytes(a)).ok()
        };
        std::fs::read("/proc/self/auxv")
            .ok()
            .and_then(|auxv| {
                auxv.chunks_exact(2 * WORD).find_map(|pair| {
                    let (k, v) = pair.split_at(WORD);
                    (word(k)? == AT_PAGESZ).then(|| word(v)).flatten()
                })
            })
            .filter(|p| *p > 0)
            .unwrap_or(4096)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_is_exposed_with_help_text() {
        let m = Metrics::new();
        m.http_request(Some("/v1/sets/{id}"), "GET", 200);
        m.http_request(None, "BREW", 404);
        m.move_played(Duration::from_micros(700));
        m.commit_batch(3);
        m.commit_batch_took(Duration::from_micros(1500));
        m.set_active_games(5);
        let text = m.encode().expect("encodes");
        for needle in [
            "# HELP hexarena_http_requests HTTP requests",
            r#"hexarena_http_requests_total{route="/v1/sets/{id}",method="GET",status="200"} 1"#,
            r#"hexarena_http_requests_total{route="unmatched",method="OTHER",status="404"} 1"#,
            "hexarena_moves_total 1",
            r#"hexarena_move_duration_seconds_bucket{le="0.001"} 1"#,
            r#"hexarena_move_duration_seconds_bucket{le="0.0005"} 0"#,
            "hexarena_move_duration_seconds_count 1",
            "hexarena_active_games 5",
            "hexarena_waiting_long_polls 0",
            "hexarena_open_event_streams 0",
            r#"hexarena_commit_batch_size_bucket{le="4.0"} 1"#,
            "# HELP hexarena_commit_batch_size",
            r#"hexarena_commit_batch_duration_seconds_bucket{le="0.002"} 1"#,
            r#"hexarena_commit_batch_duration_seconds_bucket{le="0.001"} 0"#,
        ] {
            assert!(text.contains(needle), "{needle:?} missing from\n{text}");
        }
    }

    #[test]
    fn guards_hold_their_gauge_up_until_dropped() {
        let m = Metrics::new();
        let a = m.long_poll_started();
        let b = m.long_poll_started();
        let s = m.stream_opened();
        assert_eq!(m.waiting_long_polls(), 2);
        assert_eq!(m.open_event_streams(), 1);
        drop(a);
        assert_eq!(m.waiting_long_polls(), 1);
        drop((b, s));
        assert_eq!(m.waiting_long_polls(), 0);
        assert_eq!(m.open_event_streams(), 0);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn resident_memory_is_read_from_proc_in_bytes() {
        let page = page_size_bytes();
        assert!(page.is_power_of_two() && page >= 4096, "page size {page}");
        let rss = resident_memory_bytes().expect("linux has /proc/self/statm");
        // A test binary is resident with more than 1 MiB and less than 64 GiB.
        assert!((1 << 20..64 << 30).contains(&rss), "rss {rss}");
        let text = Metrics::new().encode().expect("encodes");
        let line = text
            .lines()
            .find(|l| l.starts_with("process_resident_memory_bytes "))
            .expect("rss line");
        let v: u64 = line
            .rsplit(' ')
            .next()
            .and_then(|v| v.parse().ok())
            .expect("a number");
        assert!(v >= 1 << 20, "{line}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_named_threads_cpu_time_is_read_from_proc_and_exposed() {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let theirs = stop.clone();
        let burner = std::thread::Builder::new()
            .name("hx-burner".into())
            .spawn(move || {
                let mut x = 0u64;
                while !theirs.load(std::sync::atomic::Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
                }
                x
            })
            .expect("thread");
        // Clock ticks are 10 ms; a busy machine gives the burner less than its core, so wait
        // (up to 20 s) for 50 ms of its CPU time to show.
        let t0 = std::time::Instant::now();
        let mut burned = 0.0;
        while burned < 0.05 && t0.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(10));
            burned = thread_cpu_seconds("hx-burner");
        }
        let process = cpu_seconds().expect("linux");
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        burner.join().expect("joined");
        assert!(burned >= 0.05, "burned {burned}");
        assert!(burned <= process, "burned {burned}, process {process}");
        assert_eq!(thread_cpu_seconds("no-such-thread"), 0.0);
        let text = Metrics::new().encode().expect("encodes");
        assert!(
            text.lines()
                .any(|l| l.starts_with("hexarena_analysis_cpu_seconds_total ")),
            "{text}"
        );
    }
}
