//! Grey-box tests of outside engines as house rungs (issue 23): they watch the house's outside
//! processes in-process (`app.arena.house`: which run, how often one was restarted), which no
//! route shows. The engine is the project's own `hexarena gtp`, alone or behind a wrapper
//! script that makes its first process crash or hang mid-game. Moved here (issue 19) from
//! house_engines.rs.

mod common;

use std::time::{Duration, Instant};

use common::{Spawn, TestApp, spawn_with};
use reqwest::StatusCode;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_hexarena");

/// The project's own engine, a fast rung (a fixed 20 ms a move).
fn own_engine() -> String {
    format!("'{BIN}' gtp --strategy house-novice --move-time-ms 20")
}

/// The arena with the house on and outside engines `engines` (no lobby takeovers).
async fn arena_with(engines: Vec<String>) -> TestApp {
    spawn_with(Spawn {
        house_bots: true,
        house_lobby_wait_ms: -1,
        house_engines: engines,
        ..Spawn::default()
    })
    .await
}

/// A script (in `dir`) whose first run forwards `lines` commands (line by line: `head` would
/// hold them in its buffer) to the own engine and then
/// `then` (`exit`: the engine's input ends and it quits, as a crash; `hang`: its input stays
/// open and nothing more is answered); later runs are the own engine as it is.
fn flaky_engine(dir: &std::path::Path, lines: usize, then: &str) -> String {
    let marker = dir.join("first-run-done");
    let after = match then {
        "exit" => "",
        _ => "; exec sleep 60",
    };
    let script = format!(
        "#!/bin/sh\nif [ ! -e '{m}' ]; then\n  touch '{m}'\n  {{ i=0; while [ $i -lt {lines} ] && IFS= read -r l; do printf '%s\\n' \"$l\"; i=$((i+1)); done{after}; }} | {own}\n  exit 1\nfi\nexec {own}\n",
        m = marker.display(),
        own = own_engine(),
    );
    let path = dir.join("flaky-engine.sh");
    std::fs::write(&path, script).expect("script written");
    let mut perms = std::fs::metadata(&path).expect("script").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&path, perms).expect("executable");
    format!("'{}'", path.display())
}

/// Our bot's move in a game state: the swap when it is allowed and `swap` says so, else the
/// first legal cell.
fn our_move(state: &Value, swap: bool) -> Value {
    let legal = state["legal_moves"].as_array().expect("legal moves");
    if swap && legal.contains(&json!({"swap": true})) {
        return json!({"swap": true});
    }
    legal
        .iter()
        .find(|m| m.get("cell").is_some())
        .cloned()
        .expect("a legal cell")
}

/// Plays `bot`'s side of a set until it is finished (at most `secs`); returns the set.
async fn play_out(app: &TestApp, token: &str, bot: &str, set_id: &str, secs: u64) -> Value {
    let until = Instant::now() + Duration::from_secs(secs);
    loop {
        let set = app.get_set(&set_id).await.body;
        if set["status"] == "finished" {
            return set;
        }
        for n in 1..=2 {
            let st = app.state(set_id, n).await;
            let Some(to_move) = st["to_move"].as_u64() else {
                continue;
            };
            if st["status"] != "active" || st["seats"][to_move as usize - 1]["bot"] != bot {
                continue;
            }
            let ply = st["ply"].as_i64().expect("ply");
            let mv = our_move(&st, ply == 1);
            let r = app.play(token, set_id, n, mv.clone(), Some(ply + 1)).await;
            assert!(
                r.status == StatusCode::OK || r.code() == "game_over",
                "our move {mv} refused: {:?}",
                r.body
            );
        }
        assert!(Instant::now() < until, "set {set_id} not finished: {set}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A game's state once it shows finished (the set's row may say so a moment before the
/// game's state held in memory does), at most 5 s.
async fn finished_game(app: &TestApp, set_id: &str, game_no: i64) -> Value {
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let st = app.state(set_id, game_no).await;
        if st["status"] == "finished" {
            return st;
        }
        assert!(Instant::now() < until, "game {game_no} not finished: {st}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The moves of a game made by `bot` (by the seats' bots).
fn moves_by(state: &Value, bot: &str) -> usize {
    state["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .filter(|m| {
            let seat = m["seat"].as_u64().expect("seat") as usize;
            state["seats"][seat - 1]["bot"] == bot
        })
        .count()
}

/// Waits until no outside engine process runs (the games ended), at most 5 s.
async fn engines_stopped(app: &TestApp) {
    let house = app.arena.house.get().expect("the house runs");
    let until = Instant::now() + Duration::from_secs(5);
    while !house.outside.is_empty() {
        assert!(Instant::now() < until, "engines still running");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn an_outside_engine_is_a_house_bot_that_says_so_and_plays_a_practice_set_to_the_end() {
    let app = arena_with(vec![format!("gtp={}", own_engine())]).await;
    let p = app.get_bot("house-gtp").await;
    assert_eq!(p.status, StatusCode::OK, "{:?}", p.body);
    assert_eq!(p.body["house"], true);
    assert_eq!(p.body["ladder"], Value::Null);
    // The program's file name only: never its directory or arguments.
    assert_eq!(
        p.body["engine"],
        json!({"outside": true, "protocol": "gtp", "command_name": "hexarena"})
    );
    assert_eq!(p.body["rating"], 1500);
    assert_eq!(p.body["glicko_rating"], 1500.0);
    assert_eq!(p.body["provisional"], true);
    assert_eq!(p.body["owner_name"], "House of gtp");
    let typed: hexarena_contract::BotProfile = p.typed();
    assert_eq!(
        typed.engine,
        Some(hexarena_contract::HouseEngine {
            outside: true,
            protocol: "gtp".into(),
            command_name: "hexarena".into(),
        })
    );
    // A rung of the ladder is not an outside engine.
    assert_eq!(
        app.get_bot("house-novice").await.body["engine"],
        Value::Null
    );
    let listed = app.list_bots("").await.body;
    assert!(
        listed["bots"]
            .as_array()
            .expect("bots")
            .iter()
            .any(|b| b["name"] == "house-gtp" && b["house"] == true),
        "{listed}"
    );

    let (_, _, token) = app.player_with_bot("Visitor").await;
    // No opening stones: game 1 (the engine opens) is swapped by us, so the engine plays on
    // as White after `swap-pieces`.
    let r = app
        .create_practice_set(
            Some(&token),
            json!({"opponent": "House-GTP", "options": {"size": 9, "random_stones": 0},
                   "clock": {"initial_s": 60, "increment_s": 0}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    assert_eq!(r.body["acceptor"], "house-gtp");
    let id = r.body["id"].as_str().expect("id").to_string();
    let set = play_out(&app, &token, "Visitor", &id, 120).await;
    for n in 1..=2 {
        let st = finished_game(&app, &id, n).await;
        // Our first-legal-cell bot is no match: the engine wins each game on the board.
        assert_eq!(st["result"]["winner_bot"], "house-gtp", "game {n}: {st}");
        assert_eq!(st["result"]["reason"], "connection", "game {n}: {st}");
        assert!(moves_by(&st, "house-gtp") >= 4, "game {n}: {st}");
        let path = st["board"]["winning_path"].as_array().expect("a path");
        assert!(path.len() >= 9, "game {n}: {st}");
    }
    let game1 = app.state(&id, 1).await;
    assert_eq!(game1["moves"][1]["swap"], true, "{game1}");
    assert_eq!(set["result"], "house-gtp wins", "{set}");
    engines_stopped(&app).await;
    // A private challenge to it is accepted at once, as by a rung.
    let r = app
        .create_set(
            Some(&token),
            json!({"game": "hex", "opponent": "house-gtp", "stake": 0}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let challenge = r.body["id"].as_str().expect("id").to_string();
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let s = app.get_set(&challenge).await.body;
        if s["status"] == "active" {
            assert_eq!(s["acceptor"], "house-gtp", "{s}");
            break;
        }
        assert!(Instant::now() < until, "not accepted: {s}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Plays a practice set against an engine whose first process fails mid-game 1; checks that
/// game 1 was resigned by the arena and that game 2 was played to the end by a new process.
async fn a_failing_engine_is_resigned_and_restarted(then: &str, within_s: u64) {
    let dir = tempfile::tempdir().expect("temp dir");
    // Game 1, the engine on move first: list_commands, boardsize, 4 x play (the opening),
    // 2 x time_left, genmove (9 lines), then per move play, 2 x time_left, genmove (4): its
    // third move finds no engine after 13 lines.
    let engine = flaky_engine(dir.path(), 13, then);
    let app = arena_with(vec![format!("flaky={engine}")]).await;
    let (_, _, token) = app.player_with_bot("Prober").await;
    let r = app
        .create_practice_set(
            Some(&token),
            json!({"opponent": "house-flaky", "options": {"size": 9, "random_stones": 2},
                   "clock": {"initial_s": 10, "increment_s": 0}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    let started = Instant::now();
    let set = play_out(&app, &token, "Prober", &id, 120).await;
    let game1 = finished_game(&app, &id, 1).await;
    assert_eq!(game1["result"]["winner_bot"], "Prober", "{game1}");
    assert_eq!(game1["result"]["reason"], "resignation", "{game1}");
    // It played its first two moves, then failed on the third: resigned, never lost on time.
    assert_eq!(moves_by(&game1, "house-flaky"), 2, "{game1}");
    let game2 = finished_game(&app, &id, 2).await;
    assert_eq!(game2["result"]["winner_bot"], "house-flaky", "{game2}");
    assert_eq!(game2["result"]["reason"], "connection", "{game2}");
    assert!(moves_by(&game2, "house-flaky") >= 4, "{game2}");
    assert_eq!(set["status"], "finished");
    assert!(
        started.elapsed() < Duration::from_secs(within_s),
        "{:?}",
        started.elapsed()
    );
    let house = app.arena.house.get().expect("the house runs");
    assert_eq!(
        house
            .outside_restarts
            .load(std::sync::atomic::Ordering::Relaxed),
        1
    );
    let metrics = app.metrics_text().await;
    assert!(
        metrics
            .lines()
            .any(|l| l == "hexarena_house_engine_failures_total 1"),
        "{metrics}"
    );
    engines_stopped(&app).await;
}

#[tokio::test]
async fn an_engine_that_crashes_mid_game_has_that_game_resigned_and_a_new_process_for_the_next() {
    a_failing_engine_is_resigned_and_restarted("exit", 60).await;
}

#[tokio::test]
async fn an_engine_that_hangs_mid_game_is_resigned_before_its_flag_and_restarted() {
    a_failing_engine_is_resigned_and_restarted("hang", 60).await;
}
