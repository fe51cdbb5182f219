//! `hexarena bench`: load on a running arena (SPEC section 14, "Operations"; issue 9).
//!
//! One run, one HTTP client (one connection pool, a [`Transport`] of the client library per
//! instance), four phases:
//! 1. setup: registers two players per `--games-per-pair` games and one bot per game on each
//!    side (staked sets between bots of one owner are refused, so every game has two owners);
//! 2. moves: `--games` tasks, each playing set after set between its two bots with random legal
//!    moves (the client keeps the empty cells of the first state and reads only `ply`, `status`
//!    and `to_move` of each answer), posted with `?ply=`, as fast as the server answers; the
//!    latency of every acknowledged move is recorded on the client side;
//! 3. reads: the same number of tasks `GET /v1/sets/{id}/games/{n}` of the games left active;
//! 4. ceiling: the same number of tasks `GET /healthz`;
//! 5. lone: one game alone for `--lone-seconds` (a lone game's move latency);
//!
//! `/metrics` is scraped for the server's CPU time around the move phase (CPU per move) and
//! for its resident memory at the end. It prints a table, then as its
//! last line one JSON object ([`Report`]). Errors from the server are counted and reported.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Args;
use hexarena_client::Transport;
use serde::Serialize;

/// Options of `hexarena bench`.
#[derive(Debug, Clone, Args)]
pub struct BenchArgs {
    /// Base URL of the arena; repeat (or separate with commas) to spread the games over
    /// several instances sharing one database: the two bots of game `g` talk to instances
    /// `g` and `g + 1` (mod the count), so with two or more every move crosses instances.
    #[arg(
        long = "url",
        env = "HEXARENA_URL",
        value_delimiter = ',',
        default_value = "http://127.0.0.1:8080"
    )]
    pub urls: Vec<String>,
    /// Concurrent games (one task each); also the concurrency of the read phases.
    #[arg(long, default_value_t = 8)]
    pub games: usize,
    /// Length of the move phase, seconds.
    #[arg(long, default_value_t = 10)]
    pub seconds: u64,
    /// Length of each read phase (game state GETs, then `/healthz`), seconds.
    #[arg(long, default_value_t = 3)]
    pub read_seconds: u64,
    /// Board size of the sets played.
    #[arg(long, default_value_t = 11)]
    pub size: u8,
    /// Stake of each set (PTS); the arena refuses below 10 until unstaked sets exist.
    #[arg(long, default_value_t = 10)]
    pub stake: i64,
    /// Games played by the bots of one pair of players (bounds each player's escrow to
    /// `stake` x this, and the bots one player creates).
    #[arg(long, default_value_t = 16)]
    pub games_per_pair: usize,
    /// Length of the last phase, seconds: one game alone (the first game's bots), for the
    /// latency of a lone game's moves (`lone_p99_ms`); 0 skips it.
    #[arg(long, default_value_t = 3)]
    pub lone_seconds: u64,
    /// The server's SQLite database file, when it is on this machine and the server does not
    /// expose `hexarena_database_bytes` (older than issue 22's third pass): `bytes_per_move` is
    /// then the growth of this file and its `-wal` over the move phase, divided by the moves.
    #[arg(long)]
    pub db_file: Option<std::path::PathBuf>,
}

/// The last line of the output: the run's figures.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Acknowledged moves per second over the move phase.
    pub moves_per_s: f64,
    /// `GET /healthz` answered per second, same client and concurrency.
    pub healthz_rps: f64,
    /// `moves_per_s / healthz_rps`.
    pub ratio: f64,
    /// `GET /v1/sets/{id}/games/{n}` of active games answered per second.
    pub state_get_rps: f64,
    /// Client-side move latency percentiles and maximum, milliseconds.
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// The server's resident memory at the end (`process_resident_memory_bytes` / 1024), if
    /// `/metrics` exposes it.
    pub server_rss_kib: Option<u64>,
    /// Concurrent games.
    pub games: usize,
    /// Moves acknowledged in the move phase.
    pub moves: u64,
    /// Server CPU time (user and system) per acknowledged move over the move phase,
    /// microseconds: the growth of `process_cpu_seconds_total` in `/metrics`, summed over the
    /// instances, divided by the moves (null if `/metrics` lacks it). Set creation and the
    /// scrapes are included.
    pub server_cpu_us_per_move: Option<f64>,
    /// The part of `server_cpu_us_per_move` spent by the servers' analysts on the games the
    /// bench finished (`hexarena_analysis_cpu_seconds_total`, issue 21), microseconds per move;
    /// the rest is the move path's. Null when a server does not expose it.
    pub analysis_cpu_us_per_move: Option<f64>,
    /// Growth of the data in the database over the move phase per acknowledged move, bytes:
    /// the servers' `hexarena_database_bytes` (the write-ahead log, a journal reused after
    /// each checkpoint, is not data), else the growth of `--db-file` and its `-wal`; null when
    /// neither is at hand.
    pub bytes_per_move: Option<f64>,
    /// Client-side latency of the moves of one game playing alone (`--lone-seconds`),
    /// milliseconds (null when skipped or no move was played).
    pub lone_p50_ms: Option<f64>,
    pub lone_p99_ms: Option<f64>,
    /// Moves acknowledged in the lone phase.
    pub lone_moves: u64,
}

mod http;
mod measure;
mod play;
mod setup;

use http::Http;
use measure::{database_bytes, db_bytes, percentile_ms, server_cpu_s, server_rss_kib};
use play::{Played, play, read_rate};
use setup::register;

/// The data in the database now, bytes: the servers' gauge, else `--db-file`'s size.
async fn stored_bytes(http: &Http, args: &BenchArgs) -> Option<f64> {
    match database_bytes(http).await {
        Some(b) => Some(b),
        None => args.db_file.as_deref().map(|p| db_bytes(p) as f64),
    }
}

/// Runs the whole benchmark and returns its figures; the table goes to stdout as it runs.
pub async fn run(args: BenchArgs) -> anyhow::Result<Report> {
    anyhow::ensure!(args.games >= 1, "--games must be at least 1");
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .tcp_nodelay(true)
        .pool_idle_timeout(Duration::from_secs(60))
        .build()?;
    let http = Arc::new(Http {
        bases: args
            .urls
            .iter()
            .map(|u| Transport::with_client(client.clone(), u))
            .collect(),
        errors: Mutex::new(BTreeMap::new()),
    });
    anyhow::ensure!(!http.bases.is_empty(), "give at least one --url");
    for at in 0..http.bases.len() {
        if !http.get_ok(at, "/healthz").await {
            anyhow::bail!("no answer from {}/healthz", http.base(at).base());
        }
    }
    let mut pairs = register(&http, &args).await?;
    for (g, (a, b)) in pairs.iter_mut().enumerate() {
        a.at = g;
        b.at = g + 1;
    }
    let lone_pair = pairs.first().cloned();

    let cpu_before = server_cpu_s(&http).await;
    let db_before = stored_bytes(&http, &args).await;
    let start = Instant::now();
    let deadline = start + Duration::from_secs(args.seconds);
    let tasks: Vec<_> = pairs
        .into_iter()
        .map(|(a, b)| tokio::spawn(play(http.clone(), a, b, args.clone(), deadline)))
        .collect();
    let mut all = Played::default();
    let mut paths = vec![];
    for t in tasks {
        let p = t
            .await
            .map_err(|e| anyhow::anyhow!("a game task failed: {e}"))?;
        all.latencies_us.extend(p.latencies_us);
        all.moves += p.moves;
        all.games_finished += p.games_finished;
        all.sets_started += p.sets_started;
        if let Some((s, n)) = p.last_game {
            paths.push(format!("/v1/sets/{s}/games/{n}"));
        }
    }
    let move_s = start.elapsed().as_secs_f64();
    let cpu_after = server_cpu_s(&http).await;
    let db_after = stored_bytes(&http, &args).await;
    let read = Duration::from_secs(args.read_seconds);
    let state_get_rps = read_rate(&http, &paths, args.games, read).await;
    let healthz_rps = read_rate(&http, &["/healthz".to_string()], args.games, read).await;
    let rss = server_rss_kib(&http).await;
    let mut lone = match lone_pair {
        Some((a, b)) if args.lone_seconds > 0 => {
            let until = Instant::now() + Duration::from_secs(args.lone_seconds);
            play(http.clone(), a, b, args.clone(), until).await
        }
        _ => Played::default(),
    };
    lone.latencies_us.sort_unstable();
    let per_move = |x: f64| (all.moves > 0).then(|| x / all.moves as f64);

    all.latencies_us.sort_unstable();
    let l = &all.latencies_us;
    let moves_per_s = all.moves as f64 / move_s;
    let report = Report {
        moves_per_s,
        healthz_rps,
        ratio: if healthz_rps > 0.0 {
            moves_per_s / healthz_rps
        } else {
            0.0
        },
        state_get_rps,
        p50_ms: percentile_ms(l, 50.0),
        p90_ms: percentile_ms(l, 90.0),
        p99_ms: percentile_ms(l, 99.0),
        max_ms: l.last().map_or(0.0, |m| *m as f64 / 1000.0),
        server_rss_kib: rss,
        games: args.games,
        moves: all.moves,
        server_cpu_us_per_move: cpu_before
            .zip(cpu_after)
            .and_then(|(b, a)| per_move((a.0 - b.0) * 1e6)),
        analysis_cpu_us_per_move: cpu_before
            .and_then(|b| b.1)
            .zip(cpu_after.and_then(|a| a.1))
            .and_then(|(b, a)| per_move((a - b) * 1e6)),
        bytes_per_move: db_before
            .zip(db_after)
            .and_then(|(b, a)| per_move((a - b).max(0.0))),
        lone_p50_ms: (!lone.latencies_us.is_empty())
            .then(|| percentile_ms(&lone.latencies_us, 50.0)),
        lone_p99_ms: (!lone.latencies_us.is_empty())
            .then(|| percentile_ms(&lone.latencies_us, 99.0)),
        lone_moves: lone.moves,
    };
    let errors = http.errors.lock().map(|m| m.clone()).unwrap_or_default();
    print_table(&args, &report, &all, move_s, &errors);
    Ok(report)
}

fn print_table(
    args: &BenchArgs,
    r: &Report,
    all: &Played,
    move_s: f64,
    errors: &BTreeMap<String, u64>,
) {
    let rss = r.server_rss_kib.map_or("n/a".to_string(), |k| {
        format!("{:.1} MiB", k as f64 / 1024.0)
    });
    println!(
        "hexarena bench: {} concurrent games of size {} on {} instance(s), {:.1} s of moves, {} s per read phase",
        args.games,
        args.size,
        args.urls.len(),
        move_s,
        args.read_seconds
    );
    println!("  {:<28} {:>12}", "figure", "value");
    let rows = [
        ("moves/s", format!("{:.0}", r.moves_per_s)),
        ("moves", r.moves.to_string()),
        ("sets started", all.sets_started.to_string()),
        ("games finished", all.games_finished.to_string()),
        ("move p50 ms", format!("{:.2}", r.p50_ms)),
        ("move p90 ms", format!("{:.2}", r.p90_ms)),
        ("move p99 ms", format!("{:.2}", r.p99_ms)),
        ("move max ms", format!("{:.2}", r.max_ms)),
        ("GET game state/s", format!("{:.0}", r.state_get_rps)),
        ("GET /healthz/s", format!("{:.0}", r.healthz_rps)),
        ("moves/s / healthz/s", format!("{:.3}", r.ratio)),
        ("server RSS", rss),
        (
            "server CPU us/move",
            r.server_cpu_us_per_move
                .map_or("n/a".to_string(), |c| format!("{c:.0}")),
        ),
        (
            "  of which analysis",
            r.analysis_cpu_us_per_move
                .map_or("n/a".to_string(), |c| format!("{c:.0}")),
        ),
        (
            "bytes stored/move",
            r.bytes_per_move
                .map_or("n/a".to_string(), |b| format!("{b:.0}")),
        ),
        ("lone game moves", r.lone_moves.to_string()),
        (
            "lone move p50 ms",
            r.lone_p50_ms
                .map_or("n/a".to_string(), |p| format!("{p:.2}")),
        ),
        (
            "lone move p99 ms",
            r.lone_p99_ms
                .map_or("n/a".to_string(), |p| format!("{p:.2}")),
        ),
        ("errors", errors.values().sum::<u64>().to_string()),
    ];
    for (k, v) in rows {
        println!("  {k:<28} {v:>12}");
    }
    for (k, n) in errors {
        println!("    error {k}: {n}");
    }
}

/// `hexarena bench`: runs on its own multi-threaded runtime (the binary's own runtime is
/// single-threaded), prints the table and then the [`Report`] as the last line.
pub async fn command(args: BenchArgs) -> anyhow::Result<()> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let result = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(anyhow::Error::from)
            .and_then(|rt| rt.block_on(run(args)));
        let _ = tx.send(result);
    });
    let report = rx
        .await
        .map_err(|_| anyhow::anyhow!("the bench thread stopped"))??;
    println!("{}", serde_json::to_string(&report)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank_in_milliseconds() {
        let us: Vec<u64> = (1..=100).map(|i| i * 1000).collect();
        assert_eq!(percentile_ms(&us, 50.0), 50.0);
        assert_eq!(percentile_ms(&us, 90.0), 90.0);
        assert_eq!(percentile_ms(&us, 99.0), 99.0);
        assert_eq!(percentile_ms(&[1500], 99.0), 1.5);
        assert_eq!(percentile_ms(&[], 50.0), 0.0);
    }

    #[test]
    fn the_report_has_exactly_the_documented_keys() {
        let r = Report {
            moves_per_s: 1.0,
            healthz_rps: 2.0,
            ratio: 0.5,
            state_get_rps: 3.0,
            p50_ms: 1.0,
            p90_ms: 2.0,
            p99_ms: 3.0,
            max_ms: 4.0,
            server_rss_kib: None,
            games: 8,
            moves: 10,
            server_cpu_us_per_move: Some(90.0),
            analysis_cpu_us_per_move: Some(10.0),
            bytes_per_move: None,
            lone_p50_ms: Some(0.5),
            lone_p99_ms: Some(1.5),
            lone_moves: 100,
        };
        let v = serde_json::to_value(&r).expect("serializes");
        let keys: Vec<&str> = v
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        let mut want = vec![
            "moves_per_s",
            "healthz_rps",
            "ratio",
            "state_get_rps",
            "p50_ms",
            "p90_ms",
            "p99_ms",
            "max_ms",
            "server_rss_kib",
            "games",
            "moves",
            "server_cpu_us_per_move",
            "analysis_cpu_us_per_move",
            "bytes_per_move",
            "lone_p50_ms",
            "lone_p99_ms",
            "lone_moves",
        ];
        want.sort_unstable();
        assert_eq!(keys, want);
    }
}
