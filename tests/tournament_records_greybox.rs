//! Issue 18, part A: a round robin of three test bots (a steady one, one that crashes
//! mid-game, one that sends refused moves) on a fake clock. Tournament sets are not practice,
//! link back to their tournament and count in the bots' records; the crashed bot's losses on
//! time say `offline`; refused attempts show on the bot and in the standings; the SGF
//! collection carries EV, RO, TM, OT and each move's time left.
//!
//! Grey-box (issue 19): the crashed bot's games are ended on time by calling the arena's expiry
//! sweep in-process (`app.arena.expire`) after advancing the fake clock. Moved here from
//! tournament_records.rs.

mod common;
use common::paths;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Spawn, TestApp, spawn_with};
use hexarena::arena::clock::FakeTime;
use reqwest::StatusCode;
use serde_json::{Value, json};

const OP: &str = "op-secret";

/// A 0 s long-poll: the bot's turn if it has one (and it counts as online for 60 s).
async fn turn(app: &TestApp, token: &str) -> Option<Value> {
    let r = app.get_turn(Some(token), "wait_s=0").await;
    (r.status == StatusCode::OK).then_some(r.body)
}

/// The first legal placement of a state.
fn first_cell(s: &Value) -> Value {
    s["legal_moves"]
        .as_array()
        .and_then(|l| l.iter().find(|m| m.get("cell").is_some()))
        .cloned()
        .expect("a legal cell")
}

#[tokio::test]
async fn a_round_robin_with_a_crashing_and_a_fumbling_bot_keeps_records_reasons_and_exports() {
    let fake = Arc::new(FakeTime::new(chrono::Utc::now().timestamp_millis()));
    let app = spawn_with(Spawn {
        time: fake.clone(),
        ..Spawn::default()
    })
    .await;
    let mut tokens: HashMap<&str, String> = HashMap::new();
    for name in ["Steady", "Crasher", "Fumbler"] {
        let (_, _, t) = app.player_with_bot(name).await;
        turn(&app, &t).await;
        tokens.insert(name, t);
    }
    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "Course week 3", "format": "round_robin",
                   "participants": ["Steady", "Crasher", "Fumbler"],
                   "options": {"size": 9, "random_stones": 2},
                   "clock": {"initial_s": 60, "increment_s": 2},
                   "absent": "forfeit", "forfeit_after_s": 0}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    let r = app.start_tournament(Some(OP), &id, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);

    let mut crashed: Option<String> = None; // the set the crasher walked away from
    let mut crasher_moves = 0;
    let mut refused = 0; // the fumbler's refused attempts, as sent
    let start = Instant::now();
    let t = loop {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "tournament did not finish"
        );
        let t = app.get_tournament(&id).await.body;
        if t["status"] == "finished" {
            break t;
        }
        let mut acted = false;
        for name in ["Steady", "Crasher", "Fumbler"] {
            if name == "Crasher" && crashed.is_some() {
                continue; // gone: no stream, no long-poll, no moves
            }
            let tok = tokens[name].clone();
            let Some(s) = turn(&app, &tok).await else {
                continue;
            };
            let set_id = s["set_id"].as_str().expect("set_id").to_string();
            let game_no = s["game_no"].as_i64().expect("game_no");
            let ply = s["ply"].as_i64().expect("ply");
            if name == "Crasher" && game_no == 1 && crasher_moves == 1 {
                crashed = Some(set_id);
                continue;
            }
            if name == "Fumbler" {
                // A move for a ply long past, then onto an opening stone: both refused.
                let r = app
                    .play(&tok, &set_id, game_no, first_cell(&s), Some(ply + 3))
                    .await;
                assert_eq!(r.code(), "stale_ply", "{:?}", r.body);
                let stone = s["opening"][0].clone();
                let r = app
                    .play(
                        &tok,
                        &set_id,
                        game_no,
                        json!({"cell": stone}),
                        Some(ply + 1),
                    )
                    .await;
                assert_eq!(r.code(), "occupied", "{:?}", r.body);
                refused += 2;
            }
            let r = app
                .play(&tok, &set_id, game_no, first_cell(&s), Some(ply + 1))
                .await;
            assert_eq!(r.status, StatusCode::OK, "{name}: {:?}", r.body);
            if name == "Crasher" && game_no == 1 {
                crasher_moves += 1;
            }
            acted = true;
        }
        if acted {
            continue;
        }
        // Everyone waits for the crasher: let its clock (and its presence) run out.
        if let Some(set_id) = &crashed {
            for game_no in [1, 2] {
                let g = app.state(set_id, game_no).await;
                if g["status"] == "active" && g["clock"]["deadline"].is_string() {
                    let on_move = g["to_move"].as_u64().expect("to_move") as usize;
                    if g["seats"][on_move - 1]["bot"] == "Crasher" {
                        fake.advance(65_000);
                        // The others are still here (the next round pairs them).
                        turn(&app, &tokens["Steady"]).await;
                        turn(&app, &tokens["Fumbler"]).await;
                        app.arena.expire(set_id, game_no).await.expect("expire");
                    }
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(30)).await;
    };
    let crashed = crashed.expect("the crasher played and crashed");

    // Sets played, with the tournament they belong to.
    let mut played: Vec<(String, i64, i64)> = vec![];
    for round in t["rounds_played"].as_array().expect("rounds") {
        for p in round["pairings"].as_array().expect("pairings") {
            if let Some(s) = p["set_id"].as_str() {
                played.push((
                    s.to_string(),
                    round["round"].as_i64().expect("round"),
                    p["board"].as_i64().expect("board"),
                ));
            }
        }
    }
    assert_eq!(played.len(), 2, "{t}"); // the crasher's second pairing is a forfeit
    let mut record: HashMap<String, [i64; 4]> = HashMap::new();
    for (set_id, round, board) in &played {
        let set = app.get_set(&set_id).await.body;
        assert_eq!(set["status"], "finished", "{set}");
        assert_eq!(set["practice"], false, "{set}");
        assert_eq!(set["rated"], false, "{set}");
        assert_eq!(
            set["tournament"],
            json!({"id": id, "name": "Course week 3", "format": "round_robin",
                   "round": round, "board": board, "url": format!("/tournaments/{id}")}),
        );
        assert_eq!(set["match"], Value::Null);
        for side in ["creator", "acceptor"] {
            let bot = set[side].as_str().expect("bot").to_string();
            let r = record.entry(bot.clone()).or_default();
            r[0] += 1;
            match set["winner"].as_str() {
                None => r[2] += 1,
                Some(w) if w == bot => r[1] += 1,
                Some(_) => r[3] += 1,
            }
        }
    }
    for name in ["Steady", "Crasher", "Fumbler"] {
        let b = app.get_bot(&name).await.body;
        let want = record.get(name).copied().unwrap_or_default();
        assert_eq!(
            [&b["sets"], &b["w"], &b["d"], &b["l"]].map(|v| v.as_i64()),
            want.map(Some),
            "{name}: {b}"
        );
        // Unrated: the record moves, the rating does not.
        assert_eq!(b["rating"], 1200, "{name}");
        let want_refused = if name == "Fumbler" { refused } else { 0 };
        assert_eq!(b["refused_moves"], want_refused, "{name}");
    }
    assert_eq!(record["Crasher"], [1, 0, 0, 1]);

    // The crashed set: both games lost on time by a bot that had gone away.
    let set = app.get_set(&crashed).await.body;
    assert_eq!(set["games"][0]["reason"], "timeout", "{set}");
    assert_eq!(set["games"][0]["offline"], true, "{set}");
    let g1 = app.state(&crashed, 1).await;
    assert_eq!(g1["result"]["reason"], "timeout");
    assert_eq!(g1["result"]["offline"], true, "{g1}");
    assert_ne!(g1["result"]["winner_bot"], "Crasher");
    let g2 = app.state(&crashed, 2).await;
    assert_eq!(g2["result"]["reason"], "first_move_timeout", "{g2}");
    assert_eq!(g2["result"]["offline"], true, "{g2}");

    // Refused attempts in the standings and per game.
    let standing = |name: &str| {
        t["standings"]
            .as_array()
            .and_then(|s| s.iter().find(|r| r["bot"] == name))
            .cloned()
            .expect("standing")
    };
    assert!(refused >= 2);
    assert_eq!(standing("Fumbler")["refused_moves"], refused);
    assert_eq!(standing("Steady")["refused_moves"], 0);
    assert_eq!(standing("Crasher")["refused_moves"], 0);

    // The SGF collection: every game has the event, its round, the time limit, the increment
    // and the time left after each move.
    let r = app
        .http
        .get(format!("{}{}", app.url, paths::tournament_games_sgf(&id)))
        .send()
        .await
        .expect("sgf");
    let sgf = r.text().await.expect("text");
    let games: Vec<&str> = sgf.split("(;FF[4]").skip(1).collect();
    assert_eq!(games.len(), 4, "{sgf}");
    for g in &games {
        assert!(g.contains("EV[Course week 3]"), "{g}");
        assert!(g.contains("TM[60]OT[Fischer +2.000 s per move]"), "{g}");
        assert!(g.contains("L[60.000]"), "{g}"); // a first move is free: 60 s left after it
        assert!(g.contains("Clock left at the end of the game"), "{g}");
    }
    for (set_id, round, board) in &played {
        let n = games
            .iter()
            .filter(|g| g.contains(&format!("GN[{set_id} game")))
            .filter(|g| g.contains(&format!("RO[{round} (board {board})]")))
            .count();
        assert_eq!(n, 2, "{set_id}");
    }
    let crashed_g1 = games
        .iter()
        .find(|g| g.contains(&format!("GN[{crashed} game 1]")))
        .expect("crashed game");
    assert!(
        crashed_g1.contains("Result: timeout (the loser had gone away"),
        "{crashed_g1}"
    );
    // Moves took no (fake) time: after a seat's first move, each one earns the increment.
    assert!(games.iter().any(|g| g.contains("L[62.000]")), "{sgf}");
}
