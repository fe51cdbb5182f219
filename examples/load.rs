//! Load command: move round trips over loopback against an in-process arena.
//!
//! `cargo run --release --example load -- [PAIRS] [SETS_PER_PAIR] [DATABASE_URL]`
//! (defaults: 8 pairs, 5 sets each, a temporary SQLite file). Each pair of bots plays whole
//! sets with random legal moves; the command prints moves per second and the latency
//! percentiles of `POST .../moves` as the client sees them.

use std::sync::Arc;
use std::time::{Duration, Instant};

use hexarena::arena::clock::SteadyTime;
use hexarena::config::ServeConfig;
use rand::seq::IndexedRandom;
use serde_json::{Value, json};

async fn post(http: &reqwest::Client, url: String, token: &str, body: Value) -> (u16, Value) {
    let r = http
        .post(url)
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .expect("request");
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

async fn register(http: &reqwest::Client, base: &str, name: &str) -> String {
    let (_, p) = post(
        http,
        format!("{base}/v1/players"),
        "",
        json!({"name": name}),
    )
    .await;
    let pt = p["token"].as_str().expect("player token").to_string();
    let (_, b) = post(http, format!("{base}/v1/bots"), &pt, json!({"name": name})).await;
    b["token"].as_str().expect("bot token").to_string()
}

#[tokio::main]
async fn main() {
    // RUST_LOG=sqlx=debug shows each statement with its time.
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let args: Vec<String> = std::env::args().collect();
    let pairs: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(8);
    let sets: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(5);
    let dir = tempfile::tempdir().expect("temp dir");
    let db = args
        .get(3)
        .cloned()
        .unwrap_or_else(|| format!("sqlite://{}/load.db", dir.path().display()));
    let cfg = ServeConfig {
        database_url: db,
        house_bots: false,
        register_per_min: 1_000_000,
        sets_per_min: 1_000_000,
        ..ServeConfig::default()
    };
    let running = hexarena::start(&cfg, Arc::new(SteadyTime::new()))
        .await
        .expect("arena starts");
    let base = format!("http://{}", running.addr);
    tokio::spawn(running.server);
    let http = reqwest::Client::new();
    let t0 = Instant::now();
    let mut tasks = vec![];
    for p in 0..pairs {
        let (http, base) = (http.clone(), base.clone());
        tasks.push(tokio::spawn(async move {
            let a = register(&http, &base, &format!("LoadA{p}")).await;
            let b = register(&http, &base, &format!("LoadB{p}")).await;
            let mut latencies = vec![];
            for _ in 0..sets {
                let (_, set) = post(
                    &http,
                    format!("{base}/v1/sets"),
                    &a,
                    json!({"game": "hex", "stake": 10}),
                )
                .await;
                let id = set["id"].as_str().expect("set id").to_string();
                post(&http, format!("{base}/v1/sets/{id}/accept"), &b, json!({})).await;
                for game_no in 1..=2 {
                    let mut state: Value = http
                        .get(format!("{base}/v1/sets/{id}/games/{game_no}"))
                        .send()
                        .await
                        .expect("state")
                        .json()
                        .await
                        .expect("json");
                    while state["status"] == "active" {
                        let seat = state["to_move"].as_u64().expect("on move") as usize;
                        let me = if state["seats"][seat - 1]["bot"]
                            .as_str()
                            .unwrap_or("")
                            .starts_with("LoadA")
                        {
                            &a
                        } else {
                            &b
                        };
                        let moves = state["legal_moves"].as_array().cloned().unwrap_or_default();
                        let mv = moves
                            .choose(&mut rand::rng())
                            .cloned()
                            .expect("a legal move");
                        let ply = state["ply"].as_i64().unwrap_or(0) + 1;
                        let t = Instant::now();
                        let (status, next) = post(
                            &http,
                            format!("{base}/v1/sets/{id}/games/{game_no}/moves?ply={ply}"),
                            me,
                            mv,
                        )
                        .await;
                        latencies.push(t.elapsed());
                        assert_eq!(status, 200, "{next}");
                        state = next;
                    }
                }
            }
            latencies
        }));
    }
    let mut all: Vec<Duration> = vec![];
    for t in tasks {
        all.extend(t.await.expect("pair task"));
    }
    let elapsed = t0.elapsed();
    all.sort();
    let pct = |p: f64| all[((all.len() as f64 - 1.0) * p) as usize];
    println!(
        "{} moves in {:.2} s: {:.0} moves/s; latency p50 {:?} p90 {:?} p99 {:?} max {:?}",
        all.len(),
        elapsed.as_secs_f64(),
        all.len() as f64 / elapsed.as_secs_f64(),
        pct(0.5),
        pct(0.9),
        pct(0.99),
        all[all.len() - 1]
    );
}
