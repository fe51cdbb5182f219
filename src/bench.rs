//! `hexarena bench`: load on a running arena (SPEC section 14, "Operations"; issue 9).
//!
//! One run, one HTTP client (one connection pool), four phases:
//! 1. setup: registers two players per `--games-per-pair` games and one bot per game on each
//!    side (staked sets between bots of one owner are refused, so every game has two owners);
//! 2. moves: `--games` tasks, each playing set after set between its two bots with random legal
//!    moves (from the last state's `legal_moves`, posted with `?ply=`), as fast as the server
//!    answers; the latency of every acknowledged move is recorded on the client side;
//! 3. reads: the same number of tasks `GET /v1/sets/{id}/games/{n}` of the games left active;
//! 4. ceiling: the same number of tasks `GET /healthz`;
//!
//! then `/metrics` is scraped for the server's resident memory. It prints a table, then as its
//! last line one JSON object ([`Report`]). Errors from the server are counted and reported.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Args;
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde_json::{Value, json};

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
}

/// Why a request did not give the expected answer.
#[derive(Debug)]
enum Failure {
    /// A non-success status with the envelope's `error.code` and any `Retry-After`, seconds.
    Status {
        status: StatusCode,
        code: String,
        retry_after_s: Option<u64>,
    },
    /// No answer, or an answer that could not be read.
    Transport(String),
}

impl Failure {
    fn key(&self) -> String {
        match self {
            Failure::Status { status, code, .. } => format!("{} {code}", status.as_u16()),
            Failure::Transport(e) => format!("transport: {e}"),
        }
    }
}

/// The shared client, the base URL and the error counts of the run.
struct Http {
    client: reqwest::Client,
    /// Base URLs of the instances (at least one).
    bases: Vec<String>,
    errors: Mutex<BTreeMap<String, u64>>,
}

impl Http {
    async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Result<Value, Failure> {
        self.call_at(0, method, path, token, body).await
    }

    /// The base URL of instance `at` (mod the count).
    fn base(&self, at: usize) -> &str {
        &self.bases[at % self.bases.len()]
    }

    /// As `call`, on instance `at`.
    async fn call_at(
        &self,
        at: usize,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Result<Value, Failure> {
        let mut rq = self
            .client
            .request(method, format!("{}{path}", self.base(at)));
        if let Some(t) = token {
            rq = rq.bearer_auth(t);
        }
        if let Some(b) = body {
            rq = rq.json(b);
        }
        let res = rq
            .send()
            .await
            .map_err(|e| Failure::Transport(without_url(&e)))?;
        let status = res.status();
        let retry_after_s = res
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse().ok());
        let bytes = res
            .bytes()
            .await
            .map_err(|e| Failure::Transport(without_url(&e)))?;
        if status.is_success() {
            if bytes.is_empty() {
                return Ok(Value::Null);
            }
            return serde_json::from_slice(&bytes)
                .map_err(|e| Failure::Transport(format!("bad JSON: {e}")));
        }
        let code = serde_json::from_slice::<Value>(&bytes)
            .ok()
            .and_then(|v| v["error"]["code"].as_str().map(str::to_string))
            .unwrap_or_else(|| "no_envelope".into());
        Err(Failure::Status {
            status,
            code,
            retry_after_s,
        })
    }

    /// `GET path`, counting 2xx; used by the read phases, which ignore the bodies.
    async fn get_ok(&self, at: usize, path: &str) -> bool {
        let r = self
            .client
            .get(format!("{}{path}", self.base(at)))
            .send()
            .await;
        match r {
            Ok(res) => {
                let status = res.status();
                let read = res.bytes().await;
                if status.is_success() && read.is_ok() {
                    return true;
                }
                self.count(&Failure::Status {
                    status,
                    code: "read".into(),
                    retry_after_s: None,
                });
            }
            Err(e) => self.count(&Failure::Transport(without_url(&e))),
        }
        false
    }

    fn count(&self, f: &Failure) {
        if let Ok(mut m) = self.errors.lock() {
            *m.entry(f.key()).or_default() += 1;
        }
    }

    /// Counts the failure, then waits before the caller retries: `Retry-After` for 429 (at
    /// most until `deadline`), a short pause otherwise.
    async fn back_off(&self, f: &Failure, deadline: Instant) {
        self.count(f);
        let pause = match f {
            Failure::Status {
                retry_after_s: Some(s),
                ..
            } => Duration::from_secs(*s),
            _ => Duration::from_millis(50),
        };
        let left = deadline.saturating_duration_since(Instant::now());
        tokio::time::sleep(pause.min(left)).await;
    }
}

/// A transport error without the URL (the table stays short and groups by cause).
fn without_url(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timeout"
    } else if e.is_connect() {
        "connect"
    } else if e.is_body() || e.is_decode() {
        "body"
    } else {
        "request"
    };
    kind.to_string()
}

/// A bot's name and token.
#[derive(Debug, Clone)]
struct Bot {
    name: String,
    token: String,
    /// The instance this bot talks to (index into the `--url`s, mod their count).
    at: usize,
}

/// Retries a setup call through rate limits for up to 70 s (one minute's quota refills).
async fn setup_call(
    http: &Http,
    path: &str,
    token: Option<&str>,
    body: &Value,
) -> anyhow::Result<Value> {
    let until = Instant::now() + Duration::from_secs(70);
    loop {
        match http.call(Method::POST, path, token, Some(body)).await {
            Ok(v) => return Ok(v),
            Err(f @ Failure::Status { status, .. })
                if status == StatusCode::TOO_MANY_REQUESTS && Instant::now() < until =>
            {
                eprintln!(
                    "bench: rate limited on POST {path}; waiting (start the server with a higher \
                     ARENA_REGISTER_PER_MIN to avoid this)"
                );
                http.back_off(&f, until).await;
            }
            Err(f) => anyhow::bail!("setup: POST {path} failed: {}", f.key()),
        }
    }
}

/// Registers the players and bots: pair `p` plays games `p * games_per_pair ..`; returns one
/// (bot of the pair's first player, bot of its second player) per game.
async fn register(http: &Http, args: &BenchArgs) -> anyhow::Result<Vec<(Bot, Bot)>> {
    let run: String = (0..6)
        .map(|_| char::from(b'a' + rand::random_range(0..26u8)))
        .collect();
    let per_pair = args.games_per_pair.max(1);
    let mut out = Vec::with_capacity(args.games);
    let mut pair = 0;
    while out.len() < args.games {
        let in_pair = per_pair.min(args.games - out.len());
        let mut sides: [Vec<Bot>; 2] = [vec![], vec![]];
        for (side, bots) in sides.iter_mut().enumerate() {
            let p = setup_call(
                http,
                "/v1/players",
                None,
                &json!({"name": format!("bench {run} {pair}{side}")}),
            )
            .await?;
            let Some(ptoken) = p["token"].as_str() else {
                anyhow::bail!("setup: player without token: {p}");
            };
            for i in 0..in_pair {
                let name = format!("b{run}{pair}{}{i}", ["a", "b"][side]);
                let b = setup_call(
                    http,
                    "/v1/bots",
                    Some(ptoken),
                    &json!({"name": name, "max_stake": args.stake.clamp(0, 1000)}),
                )
                .await?;
                let Some(token) = b["token"].as_str() else {
                    anyhow::bail!("setup: bot without token: {b}");
                };
                bots.push(Bot {
                    name,
                    token: token.to_string(),
                    at: 0,
                });
            }
        }
        let [a, b] = sides;
        out.extend(a.into_iter().zip(b));
        pair += 1;
    }
    Ok(out)
}

/// What one game task did.
#[derive(Default)]
struct Played {
    /// Client-side latency of each acknowledged move, microseconds.
    latencies_us: Vec<u64>,
    moves: u64,
    games_finished: u64,
    sets_started: u64,
    /// The last game this task played: (set id, game number).
    last_game: Option<(String, i64)>,
}

/// A game's state, waiting (briefly polling) while it is `pending`. None at the deadline.
async fn started_state(
    http: &Http,
    at: usize,
    set_id: &str,
    game_no: i64,
    deadline: Instant,
) -> Option<Value> {
    let path = format!("/v1/sets/{set_id}/games/{game_no}");
    while Instant::now() < deadline {
        match http.call_at(at, Method::GET, &path, None, None).await {
            Ok(s) if s["status"] != "pending" => return Some(s),
            Ok(_) => tokio::time::sleep(Duration::from_millis(2)).await,
            Err(f) => http.back_off(&f, deadline).await,
        }
    }
    None
}

/// Plays sets between `a` and `b` (creators alternating) until `deadline`.
async fn play(http: Arc<Http>, a: Bot, b: Bot, args: BenchArgs, deadline: Instant) -> Played {
    let mut out = Played::default();
    let set_body = |opponent: &str| {
        json!({"game": "hex", "options": {"size": args.size, "random_stones": 4},
               "clock": {"initial_s": 600, "increment_s": 10}, "stake": args.stake,
               "opponent": opponent})
    };
    let mut k = 0u64;
    'sets: while Instant::now() < deadline {
        let (creator, acceptor) = if k.is_multiple_of(2) {
            (&a, &b)
        } else {
            (&b, &a)
        };
        k += 1;
        let body = set_body(&acceptor.name);
        let set = match http
            .call_at(
                creator.at,
                Method::POST,
                "/v1/sets",
                Some(&creator.token),
                Some(&body),
            )
            .await
        {
            Ok(s) => s,
            Err(f) => {
                http.back_off(&f, deadline).await;
                continue;
            }
        };
        let Some(set_id) = set["id"].as_str().map(str::to_string) else {
            http.back_off(&Failure::Transport("set without id".into()), deadline)
                .await;
            continue;
        };
        let accept = format!("/v1/sets/{set_id}/accept");
        if let Err(f) = http
            .call_at(
                acceptor.at,
                Method::POST,
                &accept,
                Some(&acceptor.token),
                None,
            )
            .await
        {
            http.back_off(&f, deadline).await;
            continue;
        }
        out.sets_started += 1;
        for game_no in 1..=2 {
            let Some(mut state) =
                started_state(&http, acceptor.at, &set_id, game_no, deadline).await
            else {
                break 'sets;
            };
            out.last_game = Some((set_id.clone(), game_no));
            let moves_path = format!("/v1/sets/{set_id}/games/{game_no}/moves");
            while state["status"] == "active" {
                if Instant::now() >= deadline {
                    break 'sets;
                }
                let seat = state["to_move"].as_u64().unwrap_or(0) as usize;
                let on_move = state["seats"][seat.saturating_sub(1)]["bot"].as_str();
                let mover = [&a, &b]
                    .into_iter()
                    .find(|bot| Some(bot.name.as_str()) == on_move);
                let token = mover.map(|bot| bot.token.as_str());
                let at = mover.map_or(0, |bot| bot.at);
                let legal = state["legal_moves"].as_array().filter(|l| !l.is_empty());
                let (Some(token), Some(legal), Some(ply)) = (token, legal, state["ply"].as_i64())
                else {
                    let f = Failure::Transport("active state without a move".into());
                    http.back_off(&f, deadline).await;
                    continue 'sets;
                };
                let mv = legal[rand::random_range(0..legal.len())].clone();
                // `ply` names the number the move will have: the state's ply + 1.
                let path = format!("{moves_path}?ply={}", ply + 1);
                let t0 = Instant::now();
                match http
                    .call_at(at, Method::POST, &path, Some(token), Some(&mv))
                    .await
                {
                    Ok(next) => {
                        let us = t0.elapsed().as_micros();
                        out.latencies_us.push(u64::try_from(us).unwrap_or(u64::MAX));
                        out.moves += 1;
                        state = next;
                    }
                    Err(f) => {
                        http.back_off(&f, deadline).await;
                        match started_state(&http, at, &set_id, game_no, deadline).await {
                            Some(s) => state = s,
                            None => break 'sets,
                        }
                    }
                }
            }
            if state["status"] == "finished" {
                out.games_finished += 1;
            }
        }
    }
    out
}

/// `concurrency` tasks GET `paths` round robin for `dur`; returns answers per second.
async fn read_rate(http: &Arc<Http>, paths: &[String], concurrency: usize, dur: Duration) -> f64 {
    if paths.is_empty() || concurrency == 0 {
        return 0.0;
    }
    let start = Instant::now();
    let until = start + dur;
    let tasks: Vec<_> = (0..concurrency)
        .map(|i| {
            let http = http.clone();
            let path = paths[i % paths.len()].clone();
            tokio::spawn(async move {
                let mut ok = 0u64;
                while Instant::now() < until {
                    if http.get_ok(i, &path).await {
                        ok += 1;
                    }
                }
                ok
            })
        })
        .collect();
    let mut total = 0u64;
    for t in tasks {
        total += t.await.unwrap_or(0);
    }
    total as f64 / start.elapsed().as_secs_f64()
}

/// The servers' `process_resident_memory_bytes` from `/metrics`, in KiB, summed over the
/// instances that expose it.
async fn server_rss_kib(http: &Http) -> Option<u64> {
    let mut total = None;
    for at in 0..http.bases.len() {
        if let Some(k) = instance_rss_kib(http, at).await {
            total = Some(total.unwrap_or(0) + k);
        }
    }
    total
}

async fn instance_rss_kib(http: &Http, at: usize) -> Option<u64> {
    let res = http
        .client
        .get(format!("{}/metrics", http.base(at)))
        .send()
        .await
        .ok()?;
    let text = res.text().await.ok()?;
    let bytes: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("process_resident_memory_bytes "))?
        .trim()
        .parse()
        .ok()?;
    Some((bytes / 1024.0) as u64)
}

/// Nearest-rank percentile of sorted microseconds, in milliseconds.
fn percentile_ms(sorted_us: &[u64], p: f64) -> f64 {
    if sorted_us.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted_us.len() as f64).ceil() as usize;
    let i = rank.clamp(1, sorted_us.len()) - 1;
    sorted_us[i] as f64 / 1000.0
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
        client,
        bases: args
            .urls
            .iter()
            .map(|u| u.trim_end_matches('/').to_string())
            .collect(),
        errors: Mutex::new(BTreeMap::new()),
    });
    anyhow::ensure!(!http.bases.is_empty(), "give at least one --url");
    for at in 0..http.bases.len() {
        if !http.get_ok(at, "/healthz").await {
            anyhow::bail!("no answer from {}/healthz", http.base(at));
        }
    }
    let mut pairs = register(&http, &args).await?;
    for (g, (a, b)) in pairs.iter_mut().enumerate() {
        a.at = g;
        b.at = g + 1;
    }

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
    let read = Duration::from_secs(args.read_seconds);
    let state_get_rps = read_rate(&http, &paths, args.games, read).await;
    let healthz_rps = read_rate(&http, &["/healthz".to_string()], args.games, read).await;
    let rss = server_rss_kib(&http).await;

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
        ];
        want.sort_unstable();
        assert_eq!(keys, want);
    }
}
