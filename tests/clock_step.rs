//! A stepped wall clock charges no bot (SPEC 7; docs/fair-time.md). An outside tester of stop
//! 35 stepped one server's wall clock with libfaketime while a seat was on move: 15 s forward
//! ended its 10 s game on time after 2 s, and a step back charged the mover nothing and the
//! opponent 16 s for one. The arena's clock now runs on the monotonic clock from the wall
//! clock read at start-up (`arena::clock::SteadyTime`). This test runs `hexarena serve` under
//! libfaketime (Debian's `libfaketime`, installed by `.ci/run`; skipped, saying so, without),
//! whose offset file moves the process's wall clock and leaves its monotonic clock alone.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::paths;
use common::process::Server;
use common::skew::quiet_move;
use reqwest::StatusCode;
use serde_json::{Value, json};

const LIBFAKETIME: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

/// A bare HTTP client of one server process.
struct Client {
    url: String,
    http: reqwest::Client,
}

impl Client {
    async fn call(
        &self,
        post: bool,
        path: &str,
        token: Option<&str>,
        body: Value,
    ) -> (StatusCode, Value) {
        let url = format!("{}{path}", self.url);
        let mut req = if post {
            self.http.post(url).json(&body)
        } else {
            self.http.get(url)
        };
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        let r = req.send().await.expect("the server answers");
        let status = r.status();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    /// A new player with one bot named `bot`; returns the bot's token.
    async fn bot(&self, bot: &str) -> String {
        let (s, p) = self
            .call(
                true,
                &paths::players(),
                None,
                json!({"name": format!("owner of {bot}")}),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{p}");
        let pt = p["token"].as_str().expect("player token");
        let (s, b) = self
            .call(true, &paths::bots(), Some(pt), json!({"name": bot}))
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        b["token"].as_str().expect("bot token").to_string()
    }

    /// A 9x9 set at 10 + 0 s between two new bots named `a` (creator) and `b`, its game 1
    /// past both first moves, so each seat is on its 10 s clock; returns the set's id and the
    /// bots' tokens by seat.
    async fn set_past_first_moves(&self, a: &str, b: &str) -> (String, [String; 2]) {
        let (alpha, beta) = (self.bot(a).await, self.bot(b).await);
        let (s, set) = self
            .call(
                true,
                &paths::sets(),
                Some(&alpha),
                json!({"game": "hex", "options": {"size": 9, "random_stones": 0},
                       "clock": {"initial_s": 10, "increment_s": 0}, "stake": 0}),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{set}");
        let set_id = set["id"].as_str().expect("set id").to_string();
        let (s, body) = self
            .call(true, &paths::accept(&set_id), Some(&beta), json!({}))
            .await;
        assert_eq!(s, StatusCode::OK, "{body}");
        let (_, state) = self
            .call(false, &paths::game(&set_id, 1), None, Value::Null)
            .await;
        let tokens = common::seat_tokens(&state, &[(a, alpha.as_str()), (b, beta.as_str())]);
        let tokens = [tokens[0].to_string(), tokens[1].to_string()];
        for ply in 1..=2 {
            let (s, body) = self
                .play(&set_id, &tokens[usize::from(ply % 2 == 0)], ply)
                .await;
            assert_eq!(s, StatusCode::OK, "ply {ply}: {body}");
        }
        (set_id, tokens)
    }

    /// Plays `ply` of game 1 as `token`; returns the status and the body.
    async fn play(&self, set_id: &str, token: &str, ply: i64) -> (StatusCode, Value) {
        let path = paths::with_query(paths::moves(set_id, 1), &format!("ply={ply}"));
        self.call(true, &path, Some(token), quiet_move(ply)).await
    }
}

/// Moves the server's wall clock to `offset` from the real one (libfaketime's syntax: "+15s").
fn step(file: &Path, offset: &str) {
    std::fs::write(file, format!("{offset}\n")).expect("offset file");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wall_clock_stepped_either_way_while_a_seat_is_on_move_changes_no_charge() {
    if !Path::new(LIBFAKETIME).exists() {
        eprintln!("SKIPPED the stepped-clock test: missing {LIBFAKETIME}. `.ci/run` installs it.");
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let offset = dir.path().join("faketime.txt");
    step(&offset, "+0s");
    let offset_text = offset.display().to_string();
    let server = Server::start(
        dir.path(),
        0,
        &["--house-bots", "false"],
        &[
            ("LD_PRELOAD", LIBFAKETIME),
            ("FAKETIME_TIMESTAMP_FILE", &offset_text),
            ("FAKETIME_NO_CACHE", "1"),
            ("FAKETIME_DONT_FAKE_MONOTONIC", "1"),
        ],
    )
    .await;
    let c = Client {
        url: server.url.clone(),
        http: reqwest::Client::new(),
    };
    // Both first moves: from ply 3 on, each seat runs on its 10 s clock.
    let (set_id, tokens) = c.set_past_first_moves("StepAlpha", "StepBeta").await;
    let tokens = [tokens[0].as_str(), tokens[1].as_str()];

    // 15 s forward while seat 1 is on move, 1 s into its turn.
    let turn = Instant::now();
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    step(&offset, "+15s");
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let (_, state) = c
        .call(false, &paths::game(&set_id, 1), None, Value::Null)
        .await;
    assert_eq!(state["status"], "active", "ended by the step: {state}");
    let (s, body) = c.play(&set_id, tokens[0], 3).await;
    let took = i64::try_from(turn.elapsed().as_millis()).expect("ms");
    assert_eq!(
        s,
        StatusCode::OK,
        "the forward step lost the game on time: {body}"
    );
    let charged = body["moves"][2]["elapsed_ms"].as_i64().expect("elapsed_ms");
    eprintln!("15 s forward: charged {charged} ms for {took} ms on move");
    assert!(
        (charged - took).abs() < 1_000,
        "charged {charged} ms for {took} ms"
    );

    // Now 15 s back from the real time (30 s back from the last step) while seat 2 is on move.
    let turn = Instant::now();
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    step(&offset, "-15s");
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let (s, body) = c.play(&set_id, tokens[1], 4).await;
    let took = i64::try_from(turn.elapsed().as_millis()).expect("ms");
    assert_eq!(s, StatusCode::OK, "{body}");
    let charged = body["moves"][3]["elapsed_ms"].as_i64().expect("elapsed_ms");
    eprintln!("30 s back: charged {charged} ms for {took} ms on move");
    assert!(
        (charged - took).abs() < 1_000,
        "charged {charged} ms for {took} ms"
    );
    // And the next turn, wholly after the step, is charged its own time too.
    let turn = Instant::now();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (s, body) = c.play(&set_id, tokens[0], 5).await;
    let took = i64::try_from(turn.elapsed().as_millis()).expect("ms");
    assert_eq!(s, StatusCode::OK, "{body}");
    let charged = body["moves"][4]["elapsed_ms"].as_i64().expect("elapsed_ms");
    assert!(
        (charged - took).abs() < 1_000,
        "charged {charged} ms for {took} ms"
    );
    server.kill();
}

/// A crash after the wall clock was stepped back is credited like any crash (found by an
/// outside tester, stop 49): a process that ran 60 s ahead left heartbeats "in the future",
/// the newest of which the next restart's downtime was measured from, so a crash 60 s later
/// credited nothing and the seat on move lost on time at the restart. Heartbeats and turns
/// stamped after now are left out of the downtime's start now.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_after_the_wall_clock_stepped_back_is_credited_as_any_crash() {
    if !Path::new(LIBFAKETIME).exists() {
        eprintln!("SKIPPED the stepped-clock test: missing {LIBFAKETIME}. `.ci/run` installs it.");
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let offset = dir.path().join("faketime.txt");
    let offset_text = offset.display().to_string();
    let port = common::process::free_port();
    let envs = [
        ("LD_PRELOAD", LIBFAKETIME),
        ("FAKETIME_TIMESTAMP_FILE", offset_text.as_str()),
        ("FAKETIME_NO_CACHE", "1"),
        ("FAKETIME_DONT_FAKE_MONOTONIC", "1"),
    ];
    let start = || Server::start(dir.path(), port, &["--house-bots", "false"], &envs);
    // A first process 60 s ahead: its heartbeats are stamped a minute in the future.
    step(&offset, "+60s");
    let ahead = start().await;
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    ahead.kill();
    // The clock is set right (60 s back) and the arena starts again.
    step(&offset, "+0s");
    let server = start().await;
    let c = Client {
        url: server.url.clone(),
        http: reqwest::Client::new(),
    };
    let (set_id, tokens) = c.set_past_first_moves("BackAlpha", "BackBeta").await;
    let tokens = [tokens[0].as_str(), tokens[1].as_str()];
    // Seat 1 is on move on its 10 s clock; 1 s in, the arena crashes for 12 s.
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    server.kill();
    tokio::time::sleep(Duration::from_secs(12)).await;
    let server = start().await;
    let (_, state) = c
        .call(false, &paths::game(&set_id, 1), None, Value::Null)
        .await;
    assert_eq!(state["status"], "active", "lost during the crash: {state}");
    let left = state["clock"]["remaining_ms"][0].as_i64().expect("ms");
    eprintln!("a 12 s crash after a 60 s step back: seat 1 has {left} ms of 10 000");
    // 1 s used before the crash, up to about 1 s more (the heartbeat's period), and the
    // restart's own start-up after the credit.
    assert!(left >= 6_500, "{state}");
    let (s, body) = c.play(&set_id, tokens[0], 3).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    server.kill();
}
