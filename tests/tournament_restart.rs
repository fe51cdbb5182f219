//! A Swiss survives a hard restart (issue 12): the `hexarena` binary is killed with SIGKILL in
//! the middle of round 1, started again on the same database, and the tournament continues
//! without any round paired twice.

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

mod common;
use common::paths;

use common::process::Server;
use reqwest::StatusCode;
use serde_json::{Value, json};

const OP: &str = "op-restart-secret";

async fn serve(dir: &Path) -> Server {
    Server::start(
        dir,
        0,
        &["--house-bots", "false"],
        &[("ARENA_OPERATOR_TOKEN", OP)],
    )
    .await
}

async fn call(
    url: &str,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Value,
) -> (StatusCode, Value) {
    let http = reqwest::Client::new();
    let mut rb = if method == "POST" {
        http.post(format!("{url}{path}")).json(&body)
    } else {
        http.get(format!("{url}{path}"))
    };
    if let Some(t) = token {
        rb = rb.bearer_auth(t);
    }
    let r = rb.send().await.expect("request sent");
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// One pass over the bots: each on move plays the first legal cell, or at ply 2 the higher
/// seed resigns. Returns whether anything was done.
async fn step(url: &str, bots: &[(String, String)]) -> bool {
    let seed = |n: &str| n[2..].parse::<u32>().expect("seed");
    let mut acted = false;
    for (_, tok) in bots {
        let (status, s) = call(
            url,
            "GET",
            &paths::with_query(paths::turn(), "wait_s=0"),
            Some(tok),
            json!({}),
        )
        .await;
        if status != StatusCode::OK {
            continue;
        }
        let set_id = s["set_id"].as_str().expect("set").to_string();
        let game_no = s["game_no"].as_i64().expect("game");
        let ply = s["ply"].as_i64().expect("ply");
        let (_, set) = call(url, "GET", &paths::set(&set_id), None, json!({})).await;
        let (c, a) = (
            set["creator"].as_str().expect("creator").to_string(),
            set["acceptor"].as_str().expect("acceptor").to_string(),
        );
        let loser = if seed(&c) > seed(&a) { c } else { a };
        let (status, body) = if ply >= 2 {
            let t = &bots.iter().find(|(n, _)| *n == loser).expect("loser").1;
            call(
                url,
                "POST",
                &paths::resign(&set_id, game_no),
                Some(t),
                json!({}),
            )
            .await
        } else {
            let mv = s["legal_moves"]
                .as_array()
                .and_then(|l| l.iter().find(|m| m.get("cell").is_some()))
                .cloned()
                .expect("a legal cell");
            call(
                url,
                "POST",
                &paths::with_query(paths::moves(&set_id, game_no), &format!("ply={}", ply + 1)),
                Some(tok),
                mv,
            )
            .await
        };
        // A move racing the restart may meet a finished game; anything else is a failure.
        assert!(
            status.is_success() || status == StatusCode::CONFLICT,
            "{status} {body}"
        );
        acted = true;
    }
    acted
}

async fn tournament(url: &str, id: &str) -> Value {
    call(url, "GET", &paths::tournament(id), None, json!({}))
        .await
        .1
}

#[tokio::test]
async fn a_swiss_killed_in_the_middle_of_a_round_continues_after_a_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = serve(dir.path()).await;
    let url = server.url.clone();
    let mut bots = vec![];
    for i in 0..5 {
        let name = format!("Sw{i}");
        let (_, p) = call(
            &url,
            "POST",
            &paths::players(),
            None,
            json!({"name": format!("owner {i}")}),
        )
        .await;
        let pt = p["token"].as_str().expect("player token").to_string();
        let (_, b) = call(
            &url,
            "POST",
            &paths::bots(),
            Some(&pt),
            json!({"name": name}),
        )
        .await;
        bots.push((name, b["token"].as_str().expect("bot token").to_string()));
    }
    let names: Vec<&str> = bots.iter().map(|(n, _)| n.as_str()).collect();
    step(&url, &bots).await; // every bot polls once: all online
    let (status, t) = call(
        &url,
        "POST",
        &paths::tournaments(),
        Some(OP),
        json!({"name": "Restart", "format": "swiss", "rounds": 3, "participants": names,
               "options": {"size": 9, "random_stones": 0}, "max_concurrent": 1}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{t}");
    let id = t["id"].as_str().expect("id").to_string();
    call(
        &url,
        "POST",
        &paths::start_tournament(&id),
        Some(OP),
        json!({}),
    )
    .await;
    // Play until round 1 has one set finished and the other not yet.
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(Instant::now() < until, "round 1 never got halfway");
        let t = tournament(&url, &id).await;
        let done = t["rounds_played"][0]["pairings"]
            .as_array()
            .map_or(0, |ps| {
                ps.iter().filter(|p| p["status"] == "finished").count()
            });
        if done == 1 {
            break;
        }
        if !step(&url, &bots).await {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    drop(server); // SIGKILL
    let server = serve(dir.path()).await;
    let url = server.url.clone();
    let until = Instant::now() + Duration::from_secs(120);
    let t = loop {
        assert!(
            Instant::now() < until,
            "the tournament never finished after the restart"
        );
        let t = tournament(&url, &id).await;
        if t["status"] == "finished" {
            break t;
        }
        if !step(&url, &bots).await {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    let rounds = t["rounds_played"].as_array().expect("rounds");
    assert_eq!(rounds.len(), 3, "{t}");
    let mut sets = HashSet::new();
    let mut byes = HashSet::new();
    for r in rounds {
        let ps = r["pairings"].as_array().expect("pairings");
        assert_eq!(ps.len(), 2, "{r}");
        for p in ps {
            assert_eq!(p["status"], "finished");
            assert!(sets.insert(p["set_id"].as_str().expect("set id").to_string()));
        }
        assert!(
            byes.insert(r["bye"].as_str().expect("a bye").to_string()),
            "two byes for one bot"
        );
    }
    assert_eq!(t["standings"][0]["bot"], "Sw0");
    assert_eq!(t["standings"][0]["points"], 3.0);
}

/// Opens `token`'s event stream on `url` and keeps it open (the bot is present) while held.
async fn hold_stream(url: &str, token: &str) -> reqwest::Response {
    let r = reqwest::Client::new()
        .get(format!("{}{}", url, paths::bot_events()))
        .bearer_auth(token)
        .send()
        .await
        .expect("stream opens");
    assert_eq!(r.status(), StatusCode::OK);
    r
}

#[tokio::test]
async fn a_bot_present_before_a_crash_wins_the_forfeit_and_the_downtime_counts_toward_no_window() {
    const WINDOW_S: u64 = 10;
    // A presence window far shorter than the downtime, so only the fix keeps "Here" present.
    let envs = [
        ("ARENA_OPERATOR_TOKEN", OP),
        ("ARENA_PRESENCE_WINDOW_MS", "2000"),
    ];
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Server::start(dir.path(), 0, &["--house-bots", "false"], &envs).await;
    let url = server.url.clone();
    let mut tokens = vec![];
    for name in ["Here", "Away"] {
        let (_, p) = call(&url, "POST", &paths::players(), None, json!({"name": name})).await;
        let pt = p["token"].as_str().expect("player token").to_string();
        let (_, b) = call(
            &url,
            "POST",
            &paths::bots(),
            Some(&pt),
            json!({"name": name}),
        )
        .await;
        tokens.push(b["token"].as_str().expect("bot token").to_string());
    }
    let stream = hold_stream(&url, &tokens[0]).await;
    let (status, t) = call(
        &url,
        "POST",
        &paths::tournaments(),
        Some(OP),
        json!({"name": "Crash", "format": "gauntlet", "participants": ["Here", "Away"],
               "absent": "forfeit", "forfeit_after_s": WINDOW_S, "stake": 0}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{t}");
    let id = t["id"].as_str().expect("id").to_string();
    let started = Instant::now();
    call(
        &url,
        "POST",
        &paths::start_tournament(&id),
        Some(OP),
        json!({}),
    )
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let t = tournament(&url, &id).await;
    assert_eq!(
        t["rounds_played"][0]["pairings"][0]["status"], "pending",
        "{t}"
    );
    drop(server); // SIGKILL
    let used = started.elapsed();
    drop(stream);
    // Down for longer than what was left of the window and than the presence window.
    tokio::time::sleep(Duration::from_secs(WINDOW_S)).await;
    let server = Server::start(dir.path(), 0, &["--house-bots", "false"], &envs).await;
    let url = server.url.clone();
    let back = Instant::now();
    let _stream = hold_stream(&url, &tokens[0]).await;
    let until = Instant::now() + Duration::from_secs(40);
    let t = loop {
        assert!(Instant::now() < until, "the pairing was never forfeited");
        let t = tournament(&url, &id).await;
        if t["status"] == "finished" {
            break t;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let after = back.elapsed();
    let p = &t["rounds_played"][0]["pairings"][0];
    assert_eq!(p["status"], "forfeit", "{t}");
    assert_eq!(p["result"], "Here wins by forfeit", "{t}");
    assert_eq!(p["points"], json!([1.0, 0.0]), "{t}");
    let left = Duration::from_secs(WINDOW_S).saturating_sub(used);
    eprintln!(
        "window used before the crash {used:?}; forfeit {after:?} after the restart (left {left:?})"
    );
    // Generous: the restart's own start-up and the driver's tick blur it by well under 1 s.
    assert!(
        after + Duration::from_secs(1) >= left,
        "forfeit {after:?} after the restart, but {left:?} of the window was left"
    );
}
