//! The arena's analysis of every finished game (issue 21): one background analyst per process
//! walks the finished games without an analysis, oldest first, and judges each position with
//! the house's search ([`hex_search::analysis`], pure). It never takes time from house bots on
//! the clock: it runs on one OS thread at the lowest scheduling priority (`nice` 19 on Linux),
//! pauses (between positions and every few dozen playouts) while the house's thinking pool has
//! a job waiting or keeps every core busy, and spends a fixed number of playouts per position.
//!
//! Results are stored (`analyses`, `mistakes`), so a restart loses none and picks up what was
//! pending: a finished game without a row is pending. Each stored analysis sends an `analysis`
//! event on the game's public stream.
//!
//! Several instances on one PostgreSQL database share the work: each takes the pending games
//! whose hash falls to its place among the live instances ([`owner_of`]), and any instance
//! takes a game still pending [`ORPHAN_MS`] after it finished (its owner may have died or the
//! instances changed). Should two still analyse one game, the first to store it wins.
//!
//! While the arena is busy (at least [`BUSY_MOVES_PER_S`] moves a second here), the analyst
//! keeps to a tenth of its time, resting [`REST_PER_WORK`] times as long as it works
//! ([`Pacer`]): the moves are on the clock, the analyses are not, and at such a rate games
//! end faster than any analyst keeps up with, so a full core would only buy a slower-growing
//! backlog at the moves' expense. The backlog is analysed once the rate falls (issue 22).
//!
//! The analyst reads pending games from a watermark that trails the newest game it analysed by
//! [`LATE_MS`] (a game may be stored after another with an earlier finishing time: another
//! instance's clock, a slow commit), and from the start every [`FULL_LOOK_S`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use hex::{Cell, Move};
use hex_search::analysis::{AnalysisError, GameAnalysis, analyse_game};
use rand_core::SeedableRng;
use serde_json::{Value, json};

use super::error::{ArenaError, ArenaResult, Code};
use super::play::Effects;
use super::{Arena, Change, views};
use crate::store::analysis::{self as store, AnalysisRow, MistakeRow};
use crate::store::status::GameStatus;
use crate::store::{games, sets};

/// The analyst's settings.
#[derive(Debug, Clone, Copy)]
pub struct AnalysisConfig {
    /// Whether finished games are analysed at all.
    pub enabled: bool,
    /// Playouts per position; 0 picks the house strong bot's budget for the board size
    /// ([`hex_search::strong_budget_for`]).
    pub playouts: u32,
}

impl Default for AnalysisConfig {
    fn default() -> Self {
        AnalysisConfig {
            enabled: true,
            playouts: 0,
        }
    }
}

/// Playouts per position on a `size` board under `cfg`.
#[must_use]
pub fn playouts_for(cfg: AnalysisConfig, size: u8) -> u32 {
    if cfg.playouts > 0 {
        cfg.playouts
    } else {
        hex_search::strong_budget_for(size)
    }
}

/// The engine's name as `engine` shows it.
#[must_use]
pub fn engine_name(playouts: u32) -> String {
    format!("hex-search mcts-rave, {playouts} playouts per position")
}

/// Owned games read per look for pending work (times the live instances).
const BATCH: i64 = 16;
/// With nothing pending, look again after this long even if no game ended here (another
/// instance may have finished one), s.
const IDLE_LOOK_S: u64 = 30;
/// While the house thinks, the analyst looks again this often, ms.
const PAUSE_MS: u64 = 10;
/// The watermark trails the newest finishing time analysed here by this much, ms.
pub const LATE_MS: i64 = 5 * 60 * 1000;
/// Every this often the analyst looks for pending games from the start, s.
pub const FULL_LOOK_S: u64 = 600;
/// A game pending this long after it finished is taken by any instance, ms.
pub const ORPHAN_MS: i64 = 2 * 60 * 1000;

/// Moves a second on this instance, over a [`RATE_WINDOW_MS`] window, from which the arena
/// counts as busy and the analyst keeps to a tenth of its time. At 11x11's default budget one
/// game's analysis takes seconds of CPU, so from a few dozen moves a second games end faster
/// than the analyst could keep up with; this is well above that, where the move path's own
/// CPU starts to matter.
pub const BUSY_MOVES_PER_S: u64 = 200;
/// While the arena is busy the analyst rests this many times as long as it worked: it keeps
/// to a tenth of its time.
pub const REST_PER_WORK: u32 = 9;
/// Work between two rests while the arena is busy, ms.
const SLICE_MS: u64 = 50;
/// The move rate is measured over windows of this length, ms.
const RATE_WINDOW_MS: u64 = 500;

/// Keeps the analyst to a tenth of its time ([`REST_PER_WORK`]) while this instance's moves
/// come at [`BUSY_MOVES_PER_S`] or more. Pure: the caller passes the time and the move count
/// (`hexarena_moves_total`) and does the resting.
#[derive(Debug, Clone)]
pub struct Pacer {
    window_start: Instant,
    window_moves: u64,
    busy: bool,
    worked: Duration,
    resumed: Instant,
}

impl Pacer {
    /// A pacer that starts idle at `now` with `moves` counted so far.
    #[must_use]
    pub fn new(now: Instant, moves: u64) -> Pacer {
        Pacer {
            window_start: now,
            window_moves: moves,
            busy: false,
            worked: Duration::ZERO,
            resumed: now,
        }
    }

    /// Work (re)starts at `now`: the time since the last call was not the analyst's.
    pub fn resume(&mut self, now: Instant) {
        self.resumed = now;
    }

    /// At a pause point at `now` with `moves` counted: how long to rest before working on
    /// ([`Duration::ZERO`] while the arena is not busy). The caller calls [`Pacer::resume`]
    /// after resting.
    pub fn rest(&mut self, now: Instant, moves: u64) -> Duration {
        self.worked += now.saturating_duration_since(self.resumed);
        self.resumed = now;
        let span = now.saturating_duration_since(self.window_start);
        if span >= Duration::from_millis(RATE_WINDOW_MS) {
            let counted = moves.saturating_sub(self.window_moves);
            self.busy =
                u128::from(counted) * 1000 >= u128::from(BUSY_MOVES_PER_S) * span.as_millis();
            self.window_start = now;
            self.window_moves = moves;
        }
        if !self.busy {
            self.worked = Duration::ZERO;
            return Duration::ZERO;
        }
        let slice = Duration::from_millis(SLICE_MS);
        if self.worked < slice {
            return Duration::ZERO;
        }
        // Wall time: at `nice` 19 under load, part of it was spent preempted, not working, so
        // a long stretch rests no more than a slice's worth (and a rest never outlasts a
        // busy spell by seconds).
        let rest = self.worked.min(slice) * REST_PER_WORK;
        self.worked = Duration::ZERO;
        rest
    }

    /// Whether the last window counted the arena as busy.
    #[must_use]
    pub fn busy(&self) -> bool {
        self.busy
    }
}

/// This instance's place among the live instances: `(index, count)`, `(0, 1)` alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Share {
    /// Its index in the live instances' ids, sorted.
    pub index: usize,
    /// How many instances are live (at least 1).
    pub count: usize,
}

/// The index (of `count` live instances) of the instance that analyses game `game_no` of
/// `set_id`: a fixed hash (FNV-1a), so every instance computes the same owner.
#[must_use]
pub fn owner_of(set_id: &str, game_no: i64, count: usize) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in set_id.bytes().chain(game_no.to_le_bytes()) {
        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    usize::try_from(h % count.max(1) as u64).unwrap_or(0)
}

/// Whether this instance analyses a game now: it owns it, or the game is an orphan.
fn mine(share: Share, set_id: &str, game_no: i64, finished_ms: i64, now_ms: i64) -> bool {
    share.count <= 1
        || owner_of(set_id, game_no, share.count) == share.index
        || now_ms - finished_ms >= ORPHAN_MS
}

/// One game to analyse, as read from the store.
struct Job {
    set_id: String,
    game_no: i64,
    size: u8,
    opening: Vec<Cell>,
    moves: Vec<Move>,
    seats: [String; 2],
    playouts: u32,
}

/// The analyst thread's name, by which `/metrics` finds its CPU time.
pub const THREAD_NAME: &str = crate::metrics::ANALYST_THREAD;

/// Starts the analyst (nothing when `cfg.enabled` is false). Errors: its thread could not
/// start.
pub fn spawn(arena: Arc<Arena>, cfg: AnalysisConfig) -> anyhow::Result<()> {
    if !cfg.enabled {
        return Ok(());
    }
    type Done = tokio::sync::oneshot::Sender<(Job, Result<GameAnalysis, AnalysisError>)>;
    let (tx, rx) = std::sync::mpsc::channel::<(Job, Done)>();
    let a = arena.clone();
    std::thread::Builder::new()
        .name(THREAD_NAME.into())
        .spawn(move || {
            lowest_priority();
            let mut pacer = Pacer::new(Instant::now(), a.metrics.moves_total());
            while let Ok((job, done)) = rx.recv() {
                pacer.resume(Instant::now());
                let r = run_job(&a, &job, &mut pacer);
                let _ = done.send((job, r));
            }
        })?;
    tokio::spawn(async move {
        let mut newest_ms = 0;
        let mut full_look = tokio::time::Instant::now();
        let mut skip: std::collections::HashSet<(String, i64)> = Default::default();
        let mut changes = arena.changes.subscribe_listed();
        loop {
            if arena.is_stopping() {
                return;
            }
            let from_ms = if full_look.elapsed() >= Duration::from_secs(FULL_LOOK_S) {
                full_look = tokio::time::Instant::now();
                0
            } else {
                (newest_ms - LATE_MS).max(0)
            };
            let found = match next_jobs(&arena, cfg, from_ms, &skip).await {
                Ok(found) => found,
                Err(e) => {
                    tracing::warn!(error = %e, "analysis: reading pending games failed");
                    vec![]
                }
            };
            if found.is_empty() {
                // Wait for a game to end (or the idle look, or the stop).
                let until = tokio::time::Instant::now() + Duration::from_secs(IDLE_LOOK_S);
                loop {
                    tokio::select! {
                        () = arena.stopped() => return,
                        () = tokio::time::sleep_until(until) => break,
                        c = changes.recv() => match c {
                            Ok(c) if c.listed() => break,
                            Ok(_) => continue,
                            Err(_) => break,
                        },
                    }
                }
                continue;
            }
            for (job, finished_ms) in found {
                let key = (job.set_id.clone(), job.game_no);
                let (back, wait) = tokio::sync::oneshot::channel();
                if tx.send((job, back)).is_err() {
                    return;
                }
                let Ok((job, result)) = wait.await else {
                    return;
                };
                newest_ms = newest_ms.max(finished_ms);
                match result {
                    Ok(a) => {
                        if let Err(e) = store_result(&arena, &job, &a).await {
                            tracing::warn!(error = %e.message, set_id = %job.set_id, game_no = job.game_no, "analysis not stored");
                            skip.insert(key);
                        }
                    }
                    Err(AnalysisError::Stopped) => return,
                    Err(e) => {
                        tracing::warn!(?e, set_id = %job.set_id, game_no = job.game_no, "game not analysable");
                        skip.insert(key);
                    }
                }
            }
        }
    });
    Ok(())
}

/// Lowers the calling thread to the lowest scheduling priority (Linux: each thread has its own
/// nice value). Best effort.
fn lowest_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority only reads its integer arguments; `who` 0 is the calling thread.
    unsafe {
        let _ = libc::setpriority(libc::PRIO_PROCESS, 0, 19);
    }
}

/// Whether the house's thinking pool needs the machine: a job waits for a thread, or as many
/// jobs think as the machine has cores. Otherwise a core is free and the analyst (at the
/// lowest priority) takes only that.
fn house_busy(arena: &Arena) -> bool {
    // Read once: `available_parallelism` reads cgroup files on every call.
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from));
    arena.house.get().is_some_and(|h| {
        let (waiting, thinking) = h.pool.load();
        waiting > 0 || thinking >= cores
    })
}

/// Sleeps `d` in steps of at most [`PAUSE_MS`], so a stop is seen; whether the arena stops.
fn sleep_unless_stopping(arena: &Arena, d: Duration) -> bool {
    let until = Instant::now() + d;
    loop {
        if arena.is_stopping() {
            return true;
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        std::thread::sleep(left.min(Duration::from_millis(PAUSE_MS)));
    }
}

/// Runs one analysis on the analyst's thread, pausing while the house thinks and resting
/// as `pacer` says while the arena is busy.
fn run_job(arena: &Arena, job: &Job, pacer: &mut Pacer) -> Result<GameAnalysis, AnalysisError> {
    // Seeded by the game, so the same game gives the same analysis.
    let seed = job
        .set_id
        .bytes()
        .fold(u64::try_from(job.game_no).unwrap_or(0), |h, b| {
            h.wrapping_mul(0x100_0000_01b3).wrapping_add(u64::from(b))
        });
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut pause = || {
        let rest = pacer.rest(Instant::now(), arena.metrics.moves_total());
        if !rest.is_zero() {
            if sleep_unless_stopping(arena, rest) {
                return true;
            }
            arena.metrics.analysis_rested(rest);
        }
        while house_busy(arena) && !arena.is_stopping() {
            std::thread::sleep(Duration::from_millis(PAUSE_MS));
        }
        pacer.resume(Instant::now());
        arena.is_stopping()
    };
    analyse_game(
        job.size,
        &job.opening,
        &job.moves,
        job.playouts,
        &mut rng,
        &mut pause,
    )
}

/// The next pending games (at most [`BATCH`]) with their finishing times.
async fn next_jobs(
    arena: &Arena,
    cfg: AnalysisConfig,
    from_ms: i64,
    skip: &std::collections::HashSet<(String, i64)>,
) -> ArenaResult<Vec<(Job, i64)>> {
    let share = share(arena).await?;
    let now = arena.now_ms();
    let mut c = arena.store.conn().await?;
    let limit = BATCH * share.count as i64 + skip.len() as i64;
    let pending = store::pending(&mut c, from_ms, limit).await?;
    let mut out = vec![];
    for (set_id, game_no, finished_ms) in pending {
        if skip.contains(&(set_id.clone(), game_no))
            || !mine(share, &set_id, game_no, finished_ms, now)
        {
            continue;
        }
        let (Some(set), Some(g)) = (
            sets::get(&mut c, &set_id, "").await?,
            games::get(&mut c, &set_id, game_no, "").await?,
        ) else {
            continue;
        };
        let moves = games::moves(&mut c, &set_id, game_no)
            .await?
            .iter()
            .map(views::move_of_row)
            .collect::<Option<Vec<Move>>>()
            .ok_or_else(|| ArenaError::internal("a stored move without a cell"))?;
        let size = u8::try_from(set.size).unwrap_or(11);
        out.push((
            Job {
                opening: views::opening_of(&set)
                    .iter()
                    .map(|[r, c]| Cell::new(*r, *c))
                    .collect(),
                moves,
                seats: [g.seat1_id.clone(), g.seat2_id.clone()],
                playouts: playouts_for(cfg, size),
                size,
                set_id,
                game_no,
            },
            finished_ms,
        ));
        if out.len() as i64 >= BATCH {
            break;
        }
    }
    Ok(out)
}

/// This instance's [`Share`] of the live instances (alone on SQLite). An instance whose own
/// heartbeat the others no longer see still counts itself; a game that falls between their
/// two views is an orphan after [`ORPHAN_MS`].
async fn share(arena: &Arena) -> ArenaResult<Share> {
    if arena.store.backend != crate::store::Backend::Postgres {
        return Ok(Share { index: 0, count: 1 });
    }
    let mut ids: Vec<String> = super::scheduler::others_alive(arena)
        .await?
        .into_iter()
        .collect();
    ids.push(arena.instance_id.clone());
    ids.sort();
    ids.dedup();
    Ok(ids.iter().position(|id| *id == arena.instance_id).map_or(
        Share { index: 0, count: 1 },
        |index| Share {
            index,
            count: ids.len(),
        },
    ))
}

/// A probability rounded to 3 decimals (what is stored and served).
fn round3(p: f64) -> f64 {
    (p * 1000.0).round() / 1000.0
}

/// The move's name as the API shows it.
fn move_name(mv: Move) -> String {
    match mv {
        Move::Place(c) => hex::cell_name(c),
        Move::Swap => "swap".into(),
    }
}

/// Stores an analysis and its `analysis` event.
async fn store_result(arena: &Arena, job: &Job, a: &GameAnalysis) -> ArenaResult<()> {
    let now = arena.now_ms();
    let win_prob: Vec<f64> = a.win_prob.iter().copied().map(round3).collect();
    let mistakes: Vec<Value> = a
        .mistakes
        .iter()
        .map(|m| json!({"ply": m.ply, "seat": m.seat, "drop": round3(m.drop), "best": move_name(m.best)}))
        .collect();
    let row = AnalysisRow {
        engine: engine_name(job.playouts),
        win_prob: serde_json::to_string(&win_prob).map_err(ArenaError::internal)?,
        mistakes: serde_json::to_string(&mistakes).map_err(ArenaError::internal)?,
        done_ms: now,
    };
    let rows: Vec<MistakeRow> = a
        .mistakes
        .iter()
        .map(|m| MistakeRow {
            set_id: job.set_id.clone(),
            game_no: job.game_no,
            ply: i64::from(m.ply),
            bot_id: job.seats[usize::from(m.seat.clamp(1, 2) - 1)].clone(),
            seat: i64::from(m.seat),
            drop_ppm: (m.drop * 1e6).round() as i64,
            best: move_name(m.best),
        })
        .collect();
    let mut tx = arena.store.begin_write().await?;
    if !store::insert(&mut tx, &job.set_id, job.game_no, &row, &rows).await? {
        return Ok(()); // stored by another instance meanwhile
    }
    let mut fx = Effects::default();
    fx.event(
        None,
        &job.set_id,
        Some(job.game_no),
        "analysis",
        json!({"set_id": job.set_id, "game_no": job.game_no, "status": "ready"}),
    );
    fx.change(Change {
        set_id: job.set_id.clone(),
        game_no: Some(job.game_no),
        ..Change::default()
    });
    fx.commit(tx, arena, now).await
}

impl Arena {
    /// The body of `GET /v1/sets/{id}/games/{n}/analysis`: `{"status": "ready", "engine",
    /// "win_prob", "mistakes": [{"ply", "seat", "drop", "played", "best"}], "analysed_at"}`,
    /// or `{"status": "pending", "engine", "win_prob": [], "mistakes": [], "analysed_at":
    /// null}` for a finished game not analysed yet.
    ///
    /// Errors: 404 for an unknown set or game; 409 `game_not_finished` for a game still
    /// pending or in play.
    pub async fn game_analysis(&self, set_id: &str, game_no: i64) -> ArenaResult<Value> {
        let cfg = self.config.analysis;
        let mut c = self.store.conn().await?;
        let Some(set) = sets::get(&mut c, set_id, "").await? else {
            // An unknown set is not a wrong game number (a bot author read it so).
            return Err(ArenaError::not_found(format!("no set '{set_id}'")));
        };
        let Some(g) = games::get(&mut c, set_id, game_no, "").await? else {
            return Err(ArenaError::not_found(format!(
                "no game {game_no} in set '{set_id}'"
            )));
        };
        if g.status != GameStatus::Finished {
            return Err(ArenaError::new(
                Code::GameNotFinished,
                "a game is analysed once it is finished",
            )
            .with_details(json!({"status": g.status})));
        }
        Ok(match store::get(&mut c, set_id, game_no).await? {
            Some(a) => {
                let mut mistakes =
                    serde_json::from_str::<Value>(&a.mistakes).map_err(ArenaError::internal)?;
                // Each mistake names the move played beside the one preferred (read from the
                // moves, so analyses stored before this field have it too).
                if let Some(list) = mistakes.as_array_mut().filter(|l| !l.is_empty()) {
                    let moves = games::moves(&mut c, set_id, game_no).await?;
                    for m in list.iter_mut().filter_map(Value::as_object_mut) {
                        // Move rows count plies from 1 after the opening, as mistakes do.
                        let played = m
                            .get("ply")
                            .and_then(Value::as_i64)
                            .and_then(|ply| {
                                let row = moves.get(usize::try_from(ply - 1).ok()?)?;
                                (row.ply == ply).then_some(row)
                            })
                            .and_then(views::move_of_row)
                            .map(move_name);
                        m.insert("played".into(), json!(played));
                    }
                }
                json!({
                    "status": "ready",
                    "engine": a.engine,
                    "win_prob": serde_json::from_str::<Value>(&a.win_prob).map_err(ArenaError::internal)?,
                    "mistakes": mistakes,
                    "analysed_at": views::rfc3339(a.done_ms),
                })
            }
            None => json!({
                "status": "pending",
                "engine": engine_name(playouts_for(cfg, u8::try_from(set.size).unwrap_or(11))),
                "win_prob": [],
                "mistakes": [],
                "analysed_at": null,
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{
        BUSY_MOVES_PER_S, ORPHAN_MS, Pacer, RATE_WINDOW_MS, SLICE_MS, Share, mine, owner_of,
    };
    use std::time::{Duration, Instant};

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn while_moves_flow_fast_the_analyst_rests_nine_times_its_work_and_not_when_they_slow() {
        let t0 = Instant::now();
        let mut p = Pacer::new(t0, 1_000);
        // The first window: 1 ms of work at a time, nothing rests until the rate is known.
        let mut t = t0;
        let mut moves = 1_000;
        for _ in 0..RATE_WINDOW_MS {
            t += MS;
            moves += 1; // 1,000 moves a second
            assert_eq!(p.rest(t, moves), Duration::ZERO);
        }
        assert!(p.busy(), "1,000 moves a second is busy");
        // Busy from the ms that closed the window on: work under a slice rests nothing, the
        // ms that completes one rests nine slices.
        let slice = Duration::from_millis(SLICE_MS);
        for _ in 0..SLICE_MS - 2 {
            t += MS;
            moves += 1;
            assert_eq!(p.rest(t, moves), Duration::ZERO);
        }
        t += MS;
        moves += 1;
        assert_eq!(p.rest(t, moves), 9 * slice);
        // The rest itself (and any other wait before `resume`) is not counted as work; the
        // moves go on at 1,000 a second meanwhile.
        t += 9 * slice;
        moves += 9 * SLICE_MS;
        p.resume(t);
        t += slice - MS;
        moves += SLICE_MS - 1;
        assert_eq!(p.rest(t, moves), Duration::ZERO);
        t += MS;
        moves += 1;
        assert_eq!(p.rest(t, moves), 9 * slice);
        assert!(p.busy());
        p.resume(t);
        // A stretch of 3 s between two pause points (the analyst was preempted) rests no more
        // than a slice's worth.
        t += 3_000 * MS;
        moves += 3_000;
        assert_eq!(p.rest(t, moves), 9 * slice);
        p.resume(t);
        // The moves stop: once a window has passed with too few, no more rests.
        let window = Duration::from_millis(RATE_WINDOW_MS);
        let quiet_moves = BUSY_MOVES_PER_S * RATE_WINDOW_MS / 4_000; // a quarter of the threshold
        t += window;
        assert_eq!(p.rest(t, moves + quiet_moves), Duration::ZERO);
        assert!(!p.busy());
        for _ in 0..50 {
            t += MS;
            assert_eq!(p.rest(t, moves + quiet_moves), Duration::ZERO);
        }
    }

    #[test]
    fn a_rate_just_under_the_threshold_is_quiet_and_one_at_it_is_busy() {
        let t0 = Instant::now();
        let half = BUSY_MOVES_PER_S / 2; // moves in half a second at the threshold
        let mut under = Pacer::new(t0, 0);
        under.rest(t0 + 500 * MS, half - 1);
        assert!(!under.busy());
        let mut at = Pacer::new(t0, 0);
        at.rest(t0 + 500 * MS, half);
        assert!(at.busy());
        // A long window (the analyst was away) is judged by its length, not as 0.5 s.
        let mut long = Pacer::new(t0, 0);
        long.rest(t0 + 5_000 * MS, half * 2);
        assert!(!long.busy(), "{} moves over 5 s", half * 2);
    }

    #[test]
    fn every_game_has_one_owner_and_the_games_spread_over_the_instances() {
        for count in 1..=4 {
            let mut per = vec![0usize; count];
            for i in 0..400 {
                let set = format!("set_{i:04}");
                for n in 1..=2 {
                    let owner = owner_of(&set, n, count);
                    assert!(owner < count);
                    assert_eq!(owner, owner_of(&set, n, count), "the same on every call");
                    let owners = (0..count)
                        .filter(|&index| mine(Share { index, count }, &set, n, 0, 0))
                        .count();
                    assert_eq!(owners, 1, "{set} game {n} of {count}");
                    per[owner] += 1;
                }
            }
            // 800 games: each instance gets at least a half of its fair share.
            assert!(per.iter().all(|&k| k * count * 2 >= 800), "{per:?}");
        }
    }

    #[test]
    fn a_game_left_pending_is_taken_by_anyone_after_the_orphan_time() {
        let count = 3;
        let owner = owner_of("set_x", 1, count);
        let other = Share {
            index: (owner + 1) % count,
            count,
        };
        assert!(!mine(other, "set_x", 1, 1_000, 1_000 + ORPHAN_MS - 1));
        assert!(mine(other, "set_x", 1, 1_000, 1_000 + ORPHAN_MS));
        // Alone, every game is one's own.
        assert!(mine(Share { index: 0, count: 1 }, "set_x", 1, 0, 0));
    }
}
