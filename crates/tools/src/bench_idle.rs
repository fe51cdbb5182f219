//! `hexarena bench-idle`: what an idle arena costs (the issue-9 targets for many waiting bots).
//!
//! Starts `--games` unstaked sets between two bots of one player and plays both first moves in
//! each (so every game waits on a 600 s clock rather than a 30 s first-move deadline), then
//! opens `--streams` public game streams spread over those games and lets the arena sit. It
//! reads the server's resident memory and CPU time from `GET /metrics` before and after, and
//! prints a table and, as its last line, one JSON object: `games`, `streams`,
//! `server_rss_kib_before`, `server_rss_kib_games`, `server_rss_kib_streams`,
//! `bytes_per_game`, `bytes_per_stream`, `idle_cpu_percent`, `seconds`.
//!
//! The server needs limits that allow this many sets from one bot, e.g.
//! `ARENA_SETS_PER_MIN=1000000`, and a file-descriptor limit above `--streams`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hexarena_client::{EventStream, Transport};
use reqwest::Method;
use serde::Serialize;
use serde_json::{Value, json};

/// Arguments of `hexarena bench-idle`.
#[derive(Debug, Clone, clap::Args)]
pub struct IdleArgs {
    /// Base URL of the arena.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    pub url: String,
    /// Active games to hold.
    #[arg(long, default_value_t = 10_000)]
    pub games: usize,
    /// Public game streams to keep open.
    #[arg(long, default_value_t = 10_000)]
    pub streams: usize,
    /// How long the arena sits idle while its CPU time is measured, seconds.
    #[arg(long, default_value_t = 30)]
    pub seconds: u64,
    /// Requests in flight while setting up.
    #[arg(long, default_value_t = 32)]
    pub concurrency: usize,
}

/// The figures of one run.
#[derive(Debug, Clone, Serialize)]
pub struct IdleReport {
    pub games: usize,
    pub streams: usize,
    pub server_rss_kib_before: u64,
    pub server_rss_kib_games: u64,
    pub server_rss_kib_streams: u64,
    pub bytes_per_game: u64,
    pub bytes_per_stream: u64,
    pub idle_cpu_percent: f64,
    pub seconds: u64,
}

/// `GET path` (no body) or `POST path` with `body`, as JSON.
async fn call(
    http: &Transport,
    path: String,
    token: Option<&str>,
    body: Option<Value>,
) -> anyhow::Result<Value> {
    let method = if body.is_some() {
        Method::POST
    } else {
        Method::GET
    };
    let r = http
        .call::<Value>(method, &path, token, body.as_ref(), None)
        .await?;
    Ok(r.body.unwrap_or(Value::Null))
}

/// `process_resident_memory_bytes` (KiB) and `process_cpu_seconds_total` from `/metrics`.
async fn server_usage(http: &Transport) -> anyhow::Result<(u64, f64)> {
    let (_, text) = http.get_text("/metrics").await?;
    let value = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name) && l[name.len()..].starts_with(' '))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<f64>().ok())
    };
    let rss = value("process_resident_memory_bytes")
        .ok_or_else(|| anyhow::anyhow!("no process_resident_memory_bytes in /metrics"))?;
    let cpu = value("process_cpu_seconds_total")
        .ok_or_else(|| anyhow::anyhow!("no process_cpu_seconds_total in /metrics"))?;
    Ok(((rss / 1024.0) as u64, cpu))
}

/// One game: created, accepted, both first moves played. Returns the set id.
async fn start_game(
    http: &Transport,
    a: &str,
    (b, b_name): (&str, &str),
) -> anyhow::Result<String> {
    let set = call(
        http,
        "/v1/sets".to_string(),
        Some(a),
        Some(json!({"game": "hex", "stake": 0, "opponent": b_name,
                    "clock": {"initial_s": 600, "increment_s": 0}})),
    )
    .await?;
    let id = set["id"]
        .as_str()
        .ok_or_else(|| anyhow::anyhow!("no set id"))?
        .to_string();
    call(
        http,
        format!("/v1/sets/{id}/accept"),
        Some(b),
        Some(json!({})),
    )
    .await?;
    // Game 1 seats the acceptor (b) first.
    let mut state = call(http, format!("/v1/sets/{id}/games/1"), None, None).await?;
    for token in [b, a] {
        let mv = state["legal_moves"][0].clone();
        let ply = state["ply"].as_i64().unwrap_or(0) + 1;
        state = call(
            http,
            format!("/v1/sets/{id}/games/1/moves?ply={ply}"),
            Some(token),
            Some(mv),
        )
        .await?;
    }
    Ok(id)
}

/// Runs the measurement. Errors: the server refused the setup, or `/metrics` lacks a figure.
pub async fn run(args: IdleArgs) -> anyhow::Result<IdleReport> {
    let pool = reqwest::Client::builder()
        .pool_max_idle_per_host(args.concurrency)
        .build()?;
    let http = Transport::with_client(pool, &args.url);
    let p = call(
        &http,
        "/v1/players".to_string(),
        None,
        Some(json!({"name": "idle bench"})),
    )
    .await?;
    let pt = p["token"].as_str().unwrap_or_default().to_string();
    let ulid = ulid::Ulid::generate().to_string();
    let suffix = ulid.get(ulid.len() - 8..).unwrap_or("0");
    let names = [format!("IdleA{suffix}"), format!("IdleB{suffix}")];
    let mut tokens = vec![];
    for name in &names {
        let bot = call(
            &http,
            "/v1/bots".to_string(),
            Some(&pt),
            Some(json!({"name": name})),
        )
        .await?;
        tokens.push(bot["token"].as_str().unwrap_or_default().to_string());
    }
    let (before_kib, _) = server_usage(&http).await?;

    let started = Instant::now();
    let next = Arc::new(AtomicUsize::new(0));
    let mut workers = vec![];
    for _ in 0..args.concurrency.max(1) {
        let (http, next) = (http.clone(), next.clone());
        let (a, b, b_name) = (tokens[0].clone(), tokens[1].clone(), names[1].clone());
        let n = args.games;
        workers.push(tokio::spawn(async move {
            let mut ids = vec![];
            while next.fetch_add(1, Ordering::Relaxed) < n {
                ids.push(start_game(&http, &a, (&b, &b_name)).await?);
            }
            Ok::<Vec<String>, anyhow::Error>(ids)
        }));
    }
    let mut ids = vec![];
    for w in workers {
        ids.extend(w.await??);
    }
    let setup_s = started.elapsed().as_secs_f64();
    let (games_kib, _) = server_usage(&http).await?;

    // Streams: each reads its first event (the state on connect), then holds on.
    let stream_http = Transport::with_client(reqwest::Client::builder().build()?, &args.url);
    let connected = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(tokio::sync::Notify::new());
    let mut streams = vec![];
    for i in 0..args.streams {
        let Some(id) = ids.get(i % ids.len().max(1)) else {
            break;
        };
        let path = format!("/v1/sets/{id}/games/1/events");
        let (http, connected, stop) = (stream_http.clone(), connected.clone(), stop.clone());
        streams.push(tokio::spawn(async move {
            // A refusal (429 when a cap on held connections is below --streams) is not a stream.
            let idle = Duration::from_secs(3600);
            let Ok(mut s) = EventStream::open(&http, &path, None, None, idle).await else {
                return;
            };
            if s.next().await.is_ok() {
                connected.fetch_add(1, Ordering::Relaxed);
            }
            loop {
                tokio::select! {
                    _ = stop.notified() => return,
                    e = s.next() => if e.is_err() { return },
                }
            }
        }));
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    while connected.load(Ordering::Relaxed) < streams.len() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let open = connected.load(Ordering::Relaxed);
    // Let the connection burst settle before measuring.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (streams_kib, cpu0) = server_usage(&http).await?;
    let t0 = Instant::now();
    tokio::time::sleep(Duration::from_secs(args.seconds)).await;
    let (_, cpu1) = server_usage(&http).await?;
    let idle_cpu_percent = (cpu1 - cpu0) / t0.elapsed().as_secs_f64() * 100.0;
    stop.notify_waiters();
    for s in streams {
        s.abort();
    }
    let report = IdleReport {
        games: ids.len(),
        streams: open,
        server_rss_kib_before: before_kib,
        server_rss_kib_games: games_kib,
        server_rss_kib_streams: streams_kib,
        bytes_per_game: (games_kib.saturating_sub(before_kib) * 1024) / ids.len().max(1) as u64,
        bytes_per_stream: (streams_kib.saturating_sub(games_kib) * 1024) / open.max(1) as u64,
        idle_cpu_percent: (idle_cpu_percent * 100.0).round() / 100.0,
        seconds: args.seconds,
    };
    println!("games started      {} in {setup_s:.1} s", report.games);
    println!("streams open       {}", report.streams);
    println!(
        "server RSS         {} KiB before, {} KiB with the games, {} KiB with the streams",
        before_kib, games_kib, streams_kib
    );
    println!("memory per game    {} bytes", report.bytes_per_game);
    println!("memory per stream  {} bytes", report.bytes_per_stream);
    println!(
        "idle server CPU    {:.2}% of one core over {} s",
        report.idle_cpu_percent, args.seconds
    );
    Ok(report)
}

/// `hexarena bench-idle`: runs [`run`] and prints its JSON line last.
pub async fn command(args: IdleArgs) -> anyhow::Result<()> {
    let report = run(args).await?;
    println!("{}", serde_json::to_string(&report)?);
    Ok(())
}
