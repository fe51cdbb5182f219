//! The GTP bridge end to end (issue 10): the real server, and two `hexarena play --gtp` clients
//! whose engines are `hexarena gtp` child processes, play a staked 9x9 set without opening
//! stones. Game 1 contains a swap (the random engine opens inside the board, the strong one
//! swaps); in game 2 the strong bot's engine is killed mid-game, so that bot resigns the game
//! and its bridge finishes the set.

use std::process::Command;
use std::time::{Duration, Instant};

mod common;
use common::paths;

use common::process::{Proc, Server};
use reqwest::StatusCode;
use serde_json::{Value, json};

const STAKE: i64 = 20;

/// The live child processes of `pid` (all its threads' children, from /proc).
fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return out;
    };
    for t in tasks.flatten() {
        let text = std::fs::read_to_string(t.path().join("children")).unwrap_or_default();
        for c in text
            .split_whitespace()
            .filter_map(|c| c.parse::<u32>().ok())
        {
            let stat = std::fs::read_to_string(format!("/proc/{c}/stat")).unwrap_or_default();
            // the state follows the command name in parentheses; Z = already dead
            let state = stat.rsplit(')').next().unwrap_or_default().trim_start();
            if !state.starts_with('Z') && !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

async fn get(client: &reqwest::Client, url: &str) -> Value {
    let r = client.get(url).send().await.expect("request sent");
    let status = r.status();
    let body: Value = r.json().await.unwrap_or(Value::Null);
    assert_eq!(status, StatusCode::OK, "GET {url}: {body}");
    body
}

/// The body of a GET, or `None` for a 404 (a game of a set not yet accepted).
async fn get_if_there(client: &reqwest::Client, url: &str) -> Option<Value> {
    let r = client.get(url).send().await.expect("request sent");
    if r.status() == StatusCode::NOT_FOUND {
        return None;
    }
    assert_eq!(r.status(), StatusCode::OK, "GET {url}");
    Some(r.json().await.expect("json body"))
}

async fn post(client: &reqwest::Client, url: &str, token: Option<&str>, body: Value) -> Value {
    let mut rb = client.post(url).json(&body);
    if let Some(t) = token {
        rb = rb.bearer_auth(t);
    }
    let r = rb.send().await.expect("request sent");
    assert_eq!(r.status(), StatusCode::CREATED, "POST {url}");
    r.json().await.expect("json body")
}

#[tokio::test]
async fn two_gtp_engines_play_a_staked_set_with_a_swap_and_an_engine_killed_mid_game() {
    let started = Instant::now();
    let dir = tempfile::tempdir().expect("temp dir");
    let bin = env!("CARGO_BIN_EXE_hexarena");
    let client = reqwest::Client::new();
    let server = Server::start(dir.path(), 0, &["--house-bots", "false"], &[]).await;
    let url = server.url.clone();
    let mut tokens = Vec::new();
    for (owner, bot) in [("strong-owner", "GtpStrong"), ("random-owner", "GtpRandom")] {
        let p = post(
            &client,
            &format!("{}{}", url, paths::players()),
            None,
            json!({"name": owner}),
        )
        .await;
        let b = post(
            &client,
            &format!("{}{}", url, paths::bots()),
            p["token"].as_str(),
            json!({"name": bot}),
        )
        .await;
        tokens.push(b["token"].as_str().expect("bot token").to_string());
    }

    // The random engine's first move with seed 1 on 9x9 is c2, off the outer ring, which the
    // strong engine swaps.
    let mut random = Proc::spawn(
        "random_bridge",
        dir.path(),
        Command::new(bin)
            .args(["play", "--url", &url, "--token", &tokens[1]])
            .args(["--gtp", &format!("{bin} gtp --strategy random --seed 1")])
            .args(["--accept-open", "--sets", "1"])
            .env("RUST_LOG", "info"),
    );
    let mut strong = Proc::spawn(
        "strong_bridge",
        dir.path(),
        Command::new(bin)
            .args(["play", "--url", &url, "--token", &tokens[0]])
            .args([
                "--gtp",
                &format!("'{bin}' gtp --strategy strong --budget 200 --seed 5"),
            ])
            .args(["--create", "--stake", &STAKE.to_string()])
            .args([
                "--opponent",
                "GtpRandom",
                "--size",
                "9",
                "--random-stones",
                "0",
            ])
            .args(["--sets", "1"])
            .env("RUST_LOG", "info"),
    );

    // Find the set, wait for the strong bot's first move of game 2, then kill its engine.
    let set_id = loop {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no set created"
        );
        let list = get(
            &client,
            &format!(
                "{}{}",
                url,
                paths::with_query(paths::sets(), "bot=GtpStrong")
            ),
        )
        .await;
        if let Some(id) = list["sets"][0]["id"].as_str() {
            break id.to_string();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let killed = loop {
        assert!(
            started.elapsed() < Duration::from_secs(150),
            "game 2 never reached ply 1"
        );
        // the games exist once the challenge is accepted
        let Some(g2) = get_if_there(&client, &format!("{}{}", url, paths::game(&set_id, 2))).await
        else {
            tokio::time::sleep(Duration::from_millis(30)).await;
            continue;
        };
        assert_ne!(g2["status"], "finished", "game 2 ended before the kill");
        if g2["status"] == "active" && g2["ply"].as_i64().unwrap_or_default() >= 1 {
            let engines = children(strong.id());
            if !engines.is_empty() {
                for pid in &engines {
                    let status = Command::new("kill")
                        .args(["-9", &pid.to_string()])
                        .status()
                        .expect("kill runs");
                    assert!(status.success(), "kill -9 {pid}");
                }
                break engines;
            }
        }
        tokio::time::sleep(Duration::from_millis(30)).await;
    };
    // one engine per game; game 1's may still be on its way out
    assert!(
        (1..=2).contains(&killed.len()),
        "one engine per game: {killed:?}"
    );

    let (mut s_exit, mut r_exit) = (None, None);
    while s_exit.is_none() || r_exit.is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(240),
            "the bridges did not finish (strong {s_exit:?}, random {r_exit:?})"
        );
        s_exit = s_exit.or_else(|| strong.try_wait());
        r_exit = r_exit.or_else(|| random.try_wait());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        s_exit.is_some_and(|s| s.success()),
        "strong bridge {s_exit:?}"
    );
    assert!(
        r_exit.is_some_and(|s| s.success()),
        "random bridge {r_exit:?}"
    );
    let strong_log = strong.log();
    assert!(
        strong_log.contains("resigning: engine died"),
        "strong log:\n{strong_log}"
    );
    assert!(
        strong_log.contains("set finished"),
        "strong log:\n{strong_log}"
    );

    let set = get(&client, &format!("{}{}", url, paths::set(&set_id))).await;
    assert_eq!(set["status"], "finished", "{set}");
    assert_eq!(set["stake"], STAKE);
    assert_eq!(set["options"], json!({"size": 9, "random_stones": 0}));

    // Game 1: the random bot (acceptor, seat 1) opened c2, the strong bot swapped, the game
    // was played out to a connection.
    let g1 = get(&client, &format!("{}{}", url, paths::game(&set_id, 1))).await;
    assert_eq!(g1["seats"][0]["bot"], "GtpRandom");
    assert_eq!(g1["moves"][0]["cell"], json!([1, 2]), "{}", g1["moves"]);
    assert_eq!(g1["moves"][1]["swap"], true, "{}", g1["moves"]);
    assert_eq!(g1["result"]["reason"], "connection", "{}", g1["result"]);
    // Issue 21: the strong engine (it offers kata-genmove_analyze) reported its searched
    // moves, which went with them as their info; the random engine's moves carry none.
    let moves = g1["moves"].as_array().expect("moves");
    let reported: Vec<&Value> = moves
        .iter()
        .filter(|m| m["seat"] == 2 && m["info"].is_object())
        .collect();
    assert!(
        reported.iter().any(|m| m["info"]["nodes"] == 200),
        "no searched move was reported: {moves:?}"
    );
    for m in &reported {
        let info = &m["info"];
        let eval = info["eval"].as_f64().expect("an eval");
        assert!((0.0..=1.0).contains(&eval), "{m}");
        // the search's 200 playouts, or none for a move that wins at once (win rate 1)
        assert!(
            info["nodes"] == 200 || (info["nodes"] == 0 && eval == 1.0),
            "{m}"
        );
        assert_eq!(
            info["pv"][0], m["name"],
            "the line starts with the move: {m}"
        );
    }
    assert!(
        moves.iter().all(|m| m["seat"] == 2 || m["info"].is_null()),
        "{moves:?}"
    );
    let sgf = client
        .get(format!("{}{}", url, paths::game_sgf(&set_id, 1)))
        .send()
        .await
        .expect("sgf")
        .text()
        .await
        .expect("sgf text");
    assert!(sgf.contains(";B[c2];W[swap-pieces];W["), "{sgf}");
    let back = hex::sgf::parse(&sgf).expect("our SGF reads back");
    let pos = back.replay().expect("legal game");
    let winner = pos.outcome().and_then(|o| o.winner()).map(|s| s.number());
    assert_eq!(json!(winner), g1["result"]["winner"]);

    // Game 2: the strong bot (creator, seat 1) lost its engine and resigned.
    let g2 = get(&client, &format!("{}{}", url, paths::game(&set_id, 2))).await;
    assert_eq!(g2["seats"][0]["bot"], "GtpStrong");
    assert_eq!(g2["result"]["reason"], "resignation", "{}", g2["result"]);
    assert_eq!(g2["result"]["winner_bot"], "GtpRandom");

    // The stakes were settled: the whole pot paid out (a win or a refunded draw).
    let mut total = 0;
    let settlement = &set["settlement"];
    assert_eq!(settlement["pot"], 2 * STAKE, "{set}");
    for p in settlement["payouts"].as_array().expect("payouts") {
        total += p["amount"].as_i64().unwrap_or_default();
    }
    assert_eq!(total, 2 * STAKE, "{settlement}");
    eprintln!(
        "gtp bridge: {} in {:.1}s",
        set["result"],
        started.elapsed().as_secs_f64()
    );
}

#[tokio::test]
async fn a_bridge_whose_engine_refuses_the_board_size_declines_the_private_challenge() {
    let started = Instant::now();
    let dir = tempfile::tempdir().expect("temp dir");
    let bin = env!("CARGO_BIN_EXE_hexarena");
    let client = reqwest::Client::new();
    let server = Server::start(dir.path(), 0, &["--house-bots", "false"], &[]).await;
    let url = server.url.clone();
    let mut tokens = Vec::new();
    for (owner, bot) in [("c-owner", "Challenger"), ("s-owner", "SmallBoards")] {
        let p = post(
            &client,
            &format!("{}{}", url, paths::players()),
            None,
            json!({"name": owner}),
        )
        .await;
        let b = post(
            &client,
            &format!("{}{}", url, paths::bots()),
            p["token"].as_str(),
            json!({"name": bot}),
        )
        .await;
        tokens.push(b["token"].as_str().expect("bot token").to_string());
    }
    // An engine that refuses every command, boardsize included.
    let _bridge = Proc::spawn(
        "refusing_bridge",
        dir.path(),
        Command::new(bin)
            .args([
                "play",
                "--url",
                &url,
                "--token",
                &tokens[1],
                "--accept-open",
            ])
            .args([
                "--gtp",
                r#"sh -c 'while read -r line; do printf "? unacceptable size\n\n"; done'"#,
            ])
            .env("RUST_LOG", "info"),
    );
    let set = post(
        &client,
        &format!("{}{}", url, paths::sets()),
        Some(&tokens[0]),
        json!({"game": "hex", "opponent": "SmallBoards", "options": {"size": 13}}),
    )
    .await;
    let id = set["id"].as_str().expect("set id");
    loop {
        let s = get(&client, &format!("{}{}", url, paths::set(id))).await;
        if s["status"] == "declined" {
            break;
        }
        assert_eq!(s["status"], "open", "{s}");
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the challenge was not declined"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
