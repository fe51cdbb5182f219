//! End to end: the real `hexarena` binary serves an arena, and two example clients run as their
//! own processes, the Python bot (`examples/python_bot.py`) and `hexarena play`, until their
//! staked set is settled. Then the set, both balances, the ledgers and the leaderboard must tell
//! the same story (SPEC sections 5, 6, 8, 13).

use std::process::Command;
use std::time::{Duration, Instant};

mod common;
use common::paths;

use common::process::{Proc, Server};
use reqwest::StatusCode;
use serde_json::{Value, json};

const STAKE: i64 = 50;

struct Http {
    url: String,
    client: reqwest::Client,
}

impl Http {
    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut rb = self
            .client
            .request(method, format!("{}{path}", self.url))
            .timeout(Duration::from_secs(10));
        if let Some(t) = token {
            rb = rb.bearer_auth(t);
        }
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        let r = rb.send().await.expect("request sent");
        let status = r.status();
        let text = r.text().await.expect("body read");
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    async fn get(&self, path: &str, token: Option<&str>) -> Value {
        let (status, body) = self.call(reqwest::Method::GET, path, token, None).await;
        assert_eq!(status, StatusCode::OK, "GET {path}: {body}");
        body
    }

    async fn post(&self, path: &str, token: Option<&str>, body: Value) -> Value {
        let (status, body) = self
            .call(reqwest::Method::POST, path, token, Some(body))
            .await;
        assert_eq!(status, StatusCode::CREATED, "POST {path}: {body}");
        body
    }
}

/// The set's result as agents.md section 7 defines it, from its games alone:
/// (result text, winner's name or None for a draw, points [creator, acceptor]).
fn expected_result(set: &Value) -> (String, Option<String>, [f64; 2]) {
    let names = [
        set["creator"].as_str().expect("creator"),
        set["acceptor"].as_str().expect("acceptor"),
    ];
    let mut points = [0.0; 2];
    let mut moves_not_lost = [0i64; 2];
    for g in set["games"].as_array().expect("games") {
        for seat in 0..2 {
            let bot = g["seats"][seat]["bot"].as_str().expect("seat bot");
            let side = names
                .iter()
                .position(|n| *n == bot)
                .expect("a bot of the set");
            let lost = g["winner_bot"].as_str().is_some_and(|w| w != bot);
            match g["winner_bot"].as_str() {
                Some(w) if w == bot => points[side] += 1.0,
                Some(_) => {}
                None => points[side] += 0.5,
            }
            if !lost {
                moves_not_lost[side] += g["moves_used"][seat].as_i64().expect("moves_used");
            }
        }
    }
    let winner = if points[0] != points[1] {
        Some((if points[0] > points[1] { 0 } else { 1 }, false))
    } else if moves_not_lost[0] != moves_not_lost[1] {
        Some((
            if moves_not_lost[0] < moves_not_lost[1] {
                0
            } else {
                1
            },
            true,
        ))
    } else {
        None
    };
    match winner {
        Some((side, false)) => (
            format!("{} wins", names[side]),
            Some(names[side].to_string()),
            points,
        ),
        Some((side, true)) => (
            format!("{} wins on the tiebreak", names[side]),
            Some(names[side].to_string()),
            points,
        ),
        None => ("draw".to_string(), None, points),
    }
}

#[tokio::test]
async fn the_python_bot_and_the_rust_client_play_a_staked_set_against_the_real_server() {
    let started = Instant::now();
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Server::start(dir.path(), 0, &[], &[]).await;
    let url = server.url.clone();
    let bin = env!("CARGO_BIN_EXE_hexarena");
    let root = env!("CARGO_MANIFEST_DIR");
    let http = Http {
        url: url.clone(),
        client: reqwest::Client::new(),
    };

    // Two owners, one bot each, registered over HTTP.
    let py_owner = http
        .post(&paths::players(), None, json!({"name": "py-owner"}))
        .await;
    let rs_owner = http
        .post(&paths::players(), None, json!({"name": "rs-owner"}))
        .await;
    assert_eq!(
        (py_owner["balance"].as_i64(), rs_owner["balance"].as_i64()),
        (Some(1000), Some(1000))
    );
    let py_token = py_owner["token"].as_str().expect("player token");
    let rs_token = rs_owner["token"].as_str().expect("player token");
    let py_bot = http
        .post(&paths::bots(), Some(py_token), json!({"name": "PyBot"}))
        .await;
    let rs_bot = http
        .post(&paths::bots(), Some(rs_token), json!({"name": "RustBot"}))
        .await;

    // The Python bot posts an open 50-PTS challenge; the Rust client accepts it from its stream.
    let mut python = Proc::spawn(
        "python_bot",
        dir.path(),
        Command::new("python3")
            .arg(format!("{root}/examples/python_bot.py"))
            .args([
                "--url",
                &url,
                "--token",
                py_bot["token"].as_str().expect("bot token"),
            ])
            .args(["--create-stake", &STAKE.to_string(), "--games", "1"]),
    );
    let mut rust = Proc::spawn(
        "hexarena_play",
        dir.path(),
        Command::new(bin)
            .args([
                "play",
                "--url",
                &url,
                "--token",
                rs_bot["token"].as_str().expect("bot token"),
            ])
            .args(["--accept-open", "--sets", "1", "--strategy", "strong"])
            .env("RUST_LOG", "info"),
    );
    let (mut py_exit, mut rs_exit) = (None, None);
    while py_exit.is_none() || rs_exit.is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the clients did not finish within 120 s (python {py_exit:?}, rust {rs_exit:?})"
        );
        py_exit = py_exit.or_else(|| python.try_wait());
        rs_exit = rs_exit.or_else(|| rust.try_wait());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        py_exit.is_some_and(|s| s.success()),
        "python bot exit {py_exit:?}"
    );
    assert!(
        rs_exit.is_some_and(|s| s.success()),
        "hexarena play exit {rs_exit:?}"
    );
    let (py_log, rs_log) = (python.log(), rust.log());
    assert!(
        py_log.contains("set finished") && py_log.contains("opening verified"),
        "python log:\n{py_log}"
    );
    assert!(
        rs_log.contains("set finished") && rs_log.contains("opening verified"),
        "rust log:\n{rs_log}"
    );
    assert!(
        rs_log.contains(" accepted from PyBot (stake 50)"),
        "rust log:\n{rs_log}"
    );

    // The set: finished, both games decided, the result as the rules compute it.
    let list = http
        .get(
            &paths::with_query(paths::sets(), "bot=PyBot&status=finished"),
            None,
        )
        .await;
    let rows = list["sets"].as_array().expect("sets");
    assert_eq!(rows.len(), 1, "{list}");
    let id = rows[0]["id"].as_str().expect("set id");
    let set = http.get(&paths::set(id), None).await;
    assert_eq!(set["status"], "finished");
    assert_eq!(
        (set["creator"].as_str(), set["acceptor"].as_str()),
        (Some("PyBot"), Some("RustBot"))
    );
    assert_eq!(set["stake"], STAKE);
    assert_eq!(set["rated"], true);
    for (i, g) in set["games"].as_array().expect("games").iter().enumerate() {
        assert_eq!(g["status"], "finished", "game {}", i + 1);
        assert_eq!(
            g["reason"],
            "connection",
            "game {} ended by connection, not on time",
            i + 1
        );
        assert!(g["winner_bot"].is_string());
    }
    assert_eq!(
        set["games"][0]["seats"][0]["bot"], "RustBot",
        "the acceptor is seat 1 of game 1"
    );
    assert_eq!(
        set["games"][1]["seats"][0]["bot"], "PyBot",
        "the creator is seat 1 of game 2"
    );
    let (result, winner, points) = expected_result(&set);
    assert_eq!(set["result"], result.as_str());
    assert_eq!(set["winner"], json!(winner));
    let got: Vec<f64> = set["points"]
        .as_array()
        .expect("points")
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    assert_eq!(got, points.to_vec(), "points [creator, acceptor]");
    let seed =
        hex::parse_seed_hex(set["seed"].as_str().expect("seed revealed")).expect("64 hex digits");
    let opening = hex::opening(&seed, 11, 4).expect("opening");
    assert_eq!(
        set["opening"],
        json!(opening.iter().map(|c| [c.row, c.col]).collect::<Vec<_>>())
    );

    // Money: the winner's owner takes the pot (fee 0), a draw returns both stakes.
    let py_me = http.get(&paths::player_me(), Some(py_token)).await;
    let rs_me = http.get(&paths::player_me(), Some(rs_token)).await;
    let (py_id, rs_id) = (
        py_owner["id"].as_str().expect("id"),
        rs_owner["id"].as_str().expect("id"),
    );
    let delta = |bot: &str| match winner.as_deref() {
        Some(w) if w == bot => STAKE,
        Some(_) => -STAKE,
        None => 0,
    };
    assert_eq!(py_me["balance"].as_i64(), Some(1000 + delta("PyBot")));
    assert_eq!(rs_me["balance"].as_i64(), Some(1000 + delta("RustBot")));
    assert_eq!(
        py_me["balance"]
            .as_i64()
            .zip(rs_me["balance"].as_i64())
            .map(|(a, b)| a + b),
        Some(2000)
    );
    assert_eq!(
        (py_me["escrow"].as_i64(), rs_me["escrow"].as_i64()),
        (Some(0), Some(0))
    );
    let payouts = match winner.as_deref() {
        Some(w) => {
            let (owner, name) = if w == "PyBot" {
                (py_id, "py-owner")
            } else {
                (rs_id, "rs-owner")
            };
            json!([{"player": owner, "player_name": name, "kind": "payout", "amount": 2 * STAKE}])
        }
        None => {
            json!([{"player": py_id, "player_name": "py-owner", "kind": "refund", "amount": STAKE},
                   {"player": rs_id, "player_name": "rs-owner", "kind": "refund", "amount": STAKE}])
        }
    };
    assert_eq!(
        set["settlement"],
        json!({"pot": 2 * STAKE, "fee": 0, "payouts": payouts})
    );

    // Ledgers, newest first: the grant, the escrow, and the payout or refund if any.
    for (token, bot, me) in [(py_token, "PyBot", &py_me), (rs_token, "RustBot", &rs_me)] {
        let ledger = http.get(&paths::ledger(), Some(token)).await;
        let postings: Vec<(String, i64, Value)> = ledger["postings"]
            .as_array()
            .expect("postings")
            .iter()
            .map(|p| {
                (
                    p["kind"].as_str().unwrap_or_default().to_string(),
                    p["amount"].as_i64().unwrap_or_default(),
                    p["set_id"].clone(),
                )
            })
            .collect();
        let mut expected = vec![];
        match winner.as_deref() {
            Some(w) if w == bot => expected.push(("payout".to_string(), 2 * STAKE, json!(id))),
            Some(_) => {}
            None => expected.push(("refund".to_string(), STAKE, json!(id))),
        }
        expected.push(("escrow".to_string(), -STAKE, json!(id)));
        expected.push(("grant".to_string(), 1000, Value::Null));
        assert_eq!(postings, expected, "{bot}'s ledger");
        assert_eq!(ledger["balance"], me["balance"]);
        assert_eq!(
            postings.iter().map(|p| p.1).sum::<i64>(),
            me["balance"].as_i64().expect("balance")
        );
    }

    // Leaderboard: one rated set each, Elo (K = 32) from 1200.
    let board = http
        .get(
            &paths::with_query(paths::leaderboard(), "game=hex&limit=10"),
            None,
        )
        .await;
    let rows = board["rows"].as_array().expect("rows");
    let row = |bot: &str| {
        rows.iter()
            .find(|r| r["bot"] == bot)
            .cloned()
            .unwrap_or_else(|| panic!("{bot} missing: {board}"))
    };
    for (bot, owner) in [("PyBot", py_id), ("RustBot", rs_id)] {
        let r = row(bot);
        let (rating, wdl, won, net) = match winner.as_deref() {
            Some(w) if w == bot => (1216, [1, 0, 0], STAKE, STAKE),
            Some(_) => (1184, [0, 0, 1], 0, -STAKE),
            None => (1200, [0, 1, 0], 0, 0),
        };
        assert_eq!(
            (
                r["rating"].as_i64(),
                r["sets"].as_i64(),
                [r["w"].as_i64(), r["d"].as_i64(), r["l"].as_i64()],
                r["won"].as_i64(),
                r["net"].as_i64()
            ),
            (Some(rating), Some(1), wdl.map(Some), Some(won), Some(net)),
            "{bot}: {r}"
        );
        assert_eq!(r["owner"], owner);
    }
    let ranks: Vec<i64> = rows.iter().filter_map(|r| r["rank"].as_i64()).collect();
    assert_eq!(ranks, (1..=rows.len() as i64).collect::<Vec<_>>());
    assert!(
        rows.windows(2)
            .all(|w| w[0]["rating"].as_i64() >= w[1]["rating"].as_i64()),
        "ordered by rating: {board}"
    );
    eprintln!(
        "e2e: {result} {points:?} in {:.1}s",
        started.elapsed().as_secs_f64()
    );
}
