//! House bots (SPEC section 9, issue 11): the ladder and its profiles, practice against any
//! rung, busy refusals, lobby challenges taken after the wait, and the demo's pairings.

mod common;
use common::paths;

use std::time::{Duration, Instant};

use common::{Spawn, TestApp, spawn_with};
use hex_search::ladder::LADDER;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Polls a set until `done` holds for it (at most `secs`); returns the set.
async fn wait_set(app: &TestApp, id: &str, secs: u64, done: impl Fn(&Value) -> bool) -> Value {
    let until = Instant::now() + Duration::from_secs(secs);
    loop {
        let s = app.get_set(&id).await.body;
        if done(&s) {
            return s;
        }
        assert!(Instant::now() < until, "set {id} stayed {s}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn sets_of(app: &TestApp, bot: &str) -> usize {
    let r = app.list_sets(&format!("bot={bot}&limit=100")).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    r.body["sets"].as_array().map_or(0, Vec::len)
}

#[tokio::test]
async fn every_rung_of_the_ladder_is_a_house_bot_that_says_what_it_is_and_can_be_practised() {
    let app = spawn_with(Spawn {
        house_bots: true,
        house_lobby_wait_ms: -1,
        ..Spawn::default()
    })
    .await;
    let (_, _, token) = app.player_with_bot("Climber").await;
    let listed = app.list_bots("").await.body;
    let house: Vec<&str> = listed["bots"]
        .as_array()
        .expect("bots")
        .iter()
        .filter(|b| b["house"] == true)
        .filter_map(|b| b["name"].as_str())
        .collect();
    for (i, rung) in LADDER.iter().enumerate() {
        assert!(
            house.contains(&rung.name),
            "{} not listed: {house:?}",
            rung.name
        );
        let p = app.get_bot(&rung.name).await;
        assert_eq!(p.status, StatusCode::OK);
        assert_eq!(p.body["house"], true);
        assert_eq!(
            p.body["ladder"],
            json!({"rung": i + 1, "rungs": LADDER.len(), "summary": rung.summary}),
            "{}",
            rung.name
        );
        // Practice against any rung by name (case does not matter).
        let r = app
            .create_practice_set(Some(&token), json!({"opponent": rung.name.to_uppercase()}))
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}: {:?}", rung.name, r.body);
        assert_eq!(r.body["acceptor"], rung.name);
    }
    assert_eq!(house.len(), LADDER.len());
    // A bot of ours is not on the ladder.
    assert_eq!(app.get_bot("Climber").await.body["ladder"], Value::Null);
    // The default practice opponent is still the weakest.
    let r = app.create_practice_set(Some(&token), json!({})).await;
    assert_eq!(r.body["acceptor"], "house-random", "{:?}", r.body);
    // A bot that is not a house bot cannot be practised against, and nothing is created.
    let before = sets_of(&app, "Climber").await;
    let r = app
        .create_practice_set(Some(&token), json!({"opponent": "Climber"}))
        .await;
    assert_eq!((r.status, r.code()), (StatusCode::NOT_FOUND, "not_found"));
    assert_eq!(sets_of(&app, "Climber").await, before);
}

#[tokio::test]
async fn in_practice_a_searching_house_bot_shows_what_it_thought_of_each_move() {
    let app = spawn_with(Spawn {
        house_bots: true,
        house_lobby_wait_ms: -1,
        ..Spawn::default()
    })
    .await;
    // A random rung searches nothing; in a set that counts the line would be a hint.
    for (rung, practice, shown, student) in [
        ("house-club", true, true, "StudentA"),
        ("house-random", true, false, "StudentB"),
        ("house-club", false, false, "StudentC"),
    ] {
        let (_, _, token) = app.player_with_bot(student).await;
        let r = if practice {
            app.create_practice_set(Some(&token), json!({"opponent": rung}))
                .await
        } else {
            let body = json!({"game": "hex", "opponent": rung, "stake": 0});
            app.create_set(Some(&token), body).await
        };
        assert_eq!(r.status, StatusCode::CREATED, "{rung}: {:?}", r.body);
        // Our turn comes after the house bot's first move (it sits in seat 1 of game 1); we
        // answer twice to see two more of its moves.
        let mut house_moves = vec![];
        for _ in 0..3 {
            let t = app.get_turn(Some(&token), "wait_s=30").await;
            assert_eq!(t.status, StatusCode::OK, "{rung}: {:?}", t.body);
            let moves = t.body["moves"].as_array().expect("moves").clone();
            let last = moves.last().expect("the house moved").clone();
            assert_eq!(last["seat"], 1, "{rung}: {last}");
            house_moves.push(last);
            let k = t.body["ply"].as_i64().expect("ply");
            let mv = t.body["legal_moves"][0].clone();
            let set = t.body["set_id"].as_str().expect("set id").to_string();
            let game_no = t.body["game_no"].as_i64().expect("game");
            let r = app.play(&token, &set, game_no, mv, Some(k + 1)).await;
            assert_eq!(r.status, StatusCode::OK, "{rung}: {:?}", r.body);
        }
        for m in &house_moves {
            let info = &m["info"];
            if !shown {
                assert_eq!(*info, Value::Null, "{rung}: {m}");
                continue;
            }
            let eval = info["eval"].as_f64().expect("eval");
            assert!((0.0..=1.0).contains(&eval), "{m}");
            assert!(info["nodes"].as_u64().expect("nodes") > 0, "{m}");
            // The line starts with the move itself.
            assert_eq!(info["pv"][0], m["name"], "{m}");
        }
    }
}

#[tokio::test]
async fn a_busy_house_refuses_new_practice_and_private_challenges_with_503_and_creates_nothing() {
    // One thread, one game at 10+0 per thread: the first house game at 10+0 fills the house.
    let app = spawn_with(Spawn {
        house_bots: true,
        house_threads: Some(1),
        house_games_per_thread: 1,
        house_lobby_wait_ms: 200,
        ..Spawn::default()
    })
    .await;
    let (_, owner, token) = app.player_with_bot("Eager").await;
    let fast = json!({"initial_s": 10, "increment_s": 0});
    let first = app
        .create_practice_set(Some(&token), json!({"clock": fast}))
        .await;
    assert_eq!(first.status, StatusCode::CREATED, "{:?}", first.body);
    let before = sets_of(&app, "Eager").await;
    let balance = app.balance(&owner).await;

    let r = app
        .create_practice_set(Some(&token), json!({"opponent": "house-master"}))
        .await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::SERVICE_UNAVAILABLE, "house_busy"),
        "{:?}",
        r.body
    );
    assert_eq!(
        r.headers.get("retry-after").and_then(|v| v.to_str().ok()),
        Some("30")
    );
    assert_eq!(
        r.body["error"]["details"],
        json!({"reason": "games", "in_play": 1, "pending": 0, "load": 1.0, "limit": 1.0,
               "threads": 1, "retry_after_s": 30})
    );
    for stake in [0, 50] {
        let r = app
            .create_set(
                Some(&token),
                json!({"game": "hex", "opponent": "house-club", "stake": stake}),
            )
            .await;
        assert_eq!(
            (r.status, r.code()),
            (StatusCode::SERVICE_UNAVAILABLE, "house_busy"),
            "stake {stake}: {:?}",
            r.body
        );
        assert!(r.headers.contains_key("retry-after"));
    }
    assert_eq!(sets_of(&app, "Eager").await, before, "nothing created");
    let m = app.metrics_text().await;
    for line in [
        "hexarena_house_games_in_play 1",
        "hexarena_house_load 1.0",
        "hexarena_house_load_limit 1.0",
        "hexarena_house_threads 1",
    ] {
        assert!(m.lines().any(|l| l == line), "{line} not in:\n{m}");
    }
    assert_eq!(app.balance(&owner).await, balance, "nothing escrowed");

    // A lobby challenge may still be made, but no house bot takes it while the house is busy.
    let r = app
        .create_set(Some(&token), json!({"game": "hex", "stake": 0}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let lobby = r.body["id"].as_str().expect("id").to_string();
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert_eq!(app.get_set(&lobby).await.body["status"], "open");

    // Once the house game ends, there is room again: the lobby challenge (60+2, about a
    // eighteenth of a 10+0 game) is taken; then a practice set at 10+0 no longer fits.
    let set = first.body["id"].as_str().expect("id");
    for game_no in [1, 2] {
        let r = app.resign(Some(&token), &set, &game_no, json!({})).await;
        assert_eq!(r.status, StatusCode::OK, "game {game_no}: {:?}", r.body);
    }
    let s = wait_set(&app, &lobby, 10, |s| s["status"] != "open").await;
    assert_eq!(s["status"], "active", "{s}");
    let r = app
        .create_practice_set(Some(&token), json!({"clock": fast}))
        .await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::SERVICE_UNAVAILABLE, "house_busy"),
        "{:?}",
        r.body
    );
    // A slow clock still fits beside the lobby set.
    let r = app
        .create_practice_set(
            Some(&token),
            json!({"clock": {"initial_s": 600, "increment_s": 10}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_for_the_last_house_rooms_admit_exactly_the_limit() {
    // One thread, 4 games at 10+0 (11x11) per thread: 4 rooms. 12 bots ask at once, half
    // for practice, half with a staked private challenge (accepted at once, so counted as
    // load while still open).
    let app = std::sync::Arc::new(
        spawn_with(Spawn {
            house_bots: true,
            house_threads: Some(1),
            house_games_per_thread: 4,
            house_lobby_wait_ms: -1,
            ..Spawn::default()
        })
        .await,
    );
    let mut askers = vec![];
    for i in 0..12 {
        let name = format!("Rush{i:02}");
        let (_, owner, token) = app.player_with_bot(&name).await;
        askers.push((name, owner, token, i % 2 == 1));
    }
    let clock = json!({"initial_s": 10, "increment_s": 0});
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(askers.len()));
    let tasks: Vec<_> = askers
        .iter()
        .cloned()
        .map(|(_, _, token, private)| {
            let (app, barrier, clock) = (app.clone(), barrier.clone(), clock.clone());
            tokio::spawn(async move {
                barrier.wait().await;
                if private {
                    app.create_set(
                        Some(&token),
                        json!({"game": "hex", "opponent": "house-random", "stake": 50,
                               "clock": clock}),
                    )
                    .await
                } else {
                    app.create_practice_set(
                        Some(&token),
                        json!({"opponent": "house-random", "clock": clock}),
                    )
                    .await
                }
            })
        })
        .collect();
    let mut admitted = 0;
    for ((name, owner, _, private), t) in askers.iter().zip(tasks) {
        let r = t.await.expect("request task");
        if r.status == StatusCode::CREATED {
            admitted += 1;
            continue;
        }
        assert_eq!(
            (r.status, r.code()),
            (StatusCode::SERVICE_UNAVAILABLE, "house_busy"),
            "{name}: {:?}",
            r.body
        );
        assert_eq!(
            r.headers.get("retry-after").and_then(|v| v.to_str().ok()),
            Some("30")
        );
        assert_eq!(
            r.body["error"]["details"]["reason"], "games",
            "{:?}",
            r.body
        );
        assert_eq!(sets_of(&app, name).await, 0, "{name}: nothing created");
        if *private {
            assert_eq!(app.balance(owner).await, 1000, "{name}: nothing escrowed");
        }
    }
    assert_eq!(admitted, 4, "exactly the house's 4 rooms are taken");
    // A fifth, asked alone, is refused too, and counts the 4 (played or about to be).
    let (_, _, token) = app.player_with_bot("Late").await;
    let r = app
        .create_practice_set(Some(&token), json!({"clock": clock}))
        .await;
    assert_eq!(r.code(), "house_busy", "{:?}", r.body);
    let d = &r.body["error"]["details"];
    assert_eq!(
        d["in_play"].as_u64().unwrap_or(0) + d["pending"].as_u64().unwrap_or(0),
        4,
        "{d}"
    );
    assert_eq!(d["load"], 4.0, "{d}");
}

#[tokio::test]
async fn a_clock_too_fast_for_the_board_is_refused_for_a_house_bot_and_creates_nothing() {
    let app = spawn_with(Spawn {
        house_bots: true,
        house_lobby_wait_ms: -1,
        ..Spawn::default()
    })
    .await;
    let (_, owner, token) = app.player_with_bot("Hasty").await;
    let fast = json!({"initial_s": 10, "increment_s": 0});
    // 10+0 on 19x19: up to 181 house moves at 80 ms each is 14.5 s, more than the clock.
    let practice = app
        .create_practice_set(
            Some(&token),
            json!({"opponent": "house-master", "clock": fast, "options": {"size": 19}}),
        )
        .await;
    let private = app
        .create_set(
            Some(&token),
            json!({"game": "hex", "opponent": "house-club", "stake": 50, "clock": fast,
                   "options": {"size": 19}}),
        )
        .await;
    for r in [&practice, &private] {
        assert_eq!(
            (r.status, r.code()),
            (StatusCode::UNPROCESSABLE_ENTITY, "clock_too_fast_for_house"),
            "{:?}",
            r.body
        );
        assert_eq!(
            r.body["error"]["details"],
            json!({"size": 19, "initial_ms": 10_000, "increment_ms": 0, "house_moves": 181,
                   "floor_ms": 80, "needed_ms": 14_480, "clock_ms": 10_000,
                   "largest_size": 15})
        );
    }
    assert_eq!(sets_of(&app, "Hasty").await, 0, "nothing created");
    assert_eq!(app.balance(&owner).await, 1000, "nothing escrowed");
    // The same clock is fine on 11x11 (and on 15x15, the largest it pays for); 19x19 with an
    // increment is fine too.
    for (size, clock) in [
        (11, fast.clone()),
        (15, fast.clone()),
        (19, json!({"initial_s": 10, "increment_s": 1})),
    ] {
        let r = app
            .create_practice_set(
                Some(&token),
                json!({"opponent": "house-random", "clock": clock, "options": {"size": size}}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{size}: {:?}", r.body);
    }
    // A bot that is not the house's plays any clock on any board.
    app.player_with_bot("Patient").await;
    let r = app
        .create_set(
            Some(&token),
            json!({"game": "hex", "opponent": "Patient", "clock": fast, "options": {"size": 19}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
}

#[tokio::test]
async fn lobby_challenges_nobody_takes_are_accepted_by_the_nearest_rated_house_bot_after_the_wait()
{
    let app = spawn_with(Spawn {
        house_bots: true,
        house_lobby_wait_ms: 1_000,
        ..Spawn::default()
    })
    .await;
    let (_, owner, token) = app.player_with_bot("Lonely").await;
    let balance = app.balance(&owner).await;
    let t0 = Instant::now();
    let unstaked = app
        .create_set(Some(&token), json!({"game": "hex", "stake": 0}))
        .await;
    assert_eq!(unstaked.status, StatusCode::CREATED, "{:?}", unstaked.body);
    let staked = app
        .create_set(Some(&token), json!({"game": "hex", "stake": 100}))
        .await;
    assert_eq!(staked.status, StatusCode::CREATED, "{:?}", staked.body);
    tokio::time::sleep(Duration::from_millis(300)).await;
    for r in [&unstaked, &staked] {
        let id = r.body["id"].as_str().expect("id");
        assert_eq!(
            app.get_set(&id).await.body["status"],
            "open",
            "not before the wait"
        );
    }
    for r in [&unstaked, &staked] {
        let id = r.body["id"].as_str().expect("id");
        let s = wait_set(&app, id, 10, |s| s["status"] != "open").await;
        assert!(t0.elapsed() >= Duration::from_millis(1_000));
        assert_eq!(s["status"], "active", "{s}");
        // House bots start from the ladder's measured ratings: house-novice (1220) is the
        // nearest to a new bot's 1200.
        assert_eq!(s["acceptor"], "house-novice", "{s}");
    }
    for (name, seed) in hexarena::arena::house::SEED_RATINGS {
        let p = app.get_bot(&name).await.body;
        assert_eq!(p["rating_exact"], json!(seed), "{name}");
    }
    // The staked one escrowed the stake.
    assert_eq!(app.balance(&owner).await, balance - 100);
    // Nothing is left open in the lobby.
    let open = app.list_sets("status=open").await.body;
    assert_eq!(open["sets"], json!([]), "{open}");
}

#[tokio::test]
async fn the_demo_pairs_house_bots_of_neighbouring_rungs() {
    let app = spawn_with(Spawn {
        house_bots: true,
        demo: true,
        demo_think_ms: 50,
        house_lobby_wait_ms: -1,
        ..Spawn::default()
    })
    .await;
    let rung_of = |name: &str| LADDER.iter().position(|r| r.name == name);
    let until = Instant::now() + Duration::from_secs(10);
    let set = loop {
        let rows = app.list_sets("status=active").await.body;
        if let Some(s) = rows["sets"].as_array().and_then(|a| a.first()) {
            break s.clone();
        }
        assert!(Instant::now() < until, "no demo set started");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let a = rung_of(set["creator"].as_str().expect("creator")).expect("a rung");
    let b = rung_of(set["acceptor"].as_str().expect("acceptor")).expect("a rung");
    assert_eq!(a.abs_diff(b), 1, "{set}");
    assert_eq!(set["stake"], 10);
    // Paced: each house move took at least the demo's least think time.
    let id = set["id"].as_str().expect("id");
    let until = Instant::now() + Duration::from_secs(10);
    let g = loop {
        let g = app.state(id, 1).await;
        if g["ply"].as_i64().unwrap_or(0) >= 4 {
            break g;
        }
        assert!(Instant::now() < until, "the demo game did not move: {g}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    for m in g["moves"].as_array().into_iter().flatten().skip(2) {
        assert!(m["elapsed_ms"].as_i64().unwrap_or(0) >= 50, "{m}");
    }
}

#[tokio::test]
async fn two_instances_on_postgresql_share_the_house_games_and_think_each_move_once() {
    let Some(db) = common::fresh_pg_db().await else {
        return;
    };
    let spawn = |db: String| {
        spawn_with(Spawn {
            house_bots: true,
            house_lobby_wait_ms: -1,
            database_url: Some(db),
            ..Spawn::default()
        })
    };
    let a = spawn(db.clone()).await;
    let b = spawn(db).await;
    // Both instances see each other (heartbeats every second, peers read every second; on a
    // loaded machine a fixed wait was sometimes too short, and one instance took every set).
    let until = Instant::now() + Duration::from_secs(30);
    while [&a, &b]
        .iter()
        .any(|app| app.arena.house.get().map_or(0, |h| h.peer_count()) < 2)
    {
        assert!(
            Instant::now() < until,
            "the two instances never saw each other"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let apps = [&a, &b];
    let mut sets = vec![];
    for i in 0..10 {
        let app = apps[i % 2];
        let (_, _, token) = app.player_with_bot(&format!("Twin{i}")).await;
        let r = app
            .create_practice_set(
                Some(&token),
                json!({"opponent": "house-club", "clock": {"initial_s": 10, "increment_s": 0},
                       "options": {"size": 9}}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
        sets.push((i, r.body["id"].as_str().expect("id").to_string(), token));
    }
    // Each opponent answers at once, through either instance.
    let mut tasks = vec![];
    for (i, id, token) in sets.clone() {
        let app = apps[(i + 1) % 2];
        let (url, http) = (app.url.clone(), app.http.clone());
        tasks.push(tokio::spawn(async move {
            let until = Instant::now() + Duration::from_secs(90);
            loop {
                assert!(Instant::now() < until, "set {id} did not finish");
                let r = http
                    .get(format!(
                        "{}{}",
                        url,
                        paths::with_query(paths::turn(), "wait_s=2")
                    ))
                    .bearer_auth(&token)
                    .send()
                    .await
                    .expect("turn");
                if r.status() == StatusCode::NO_CONTENT {
                    let s: Value = http
                        .get(format!("{}{}", url, paths::set(&id)))
                        .send()
                        .await
                        .expect("set")
                        .json()
                        .await
                        .expect("json");
                    if s["status"] == "finished" {
                        return;
                    }
                    continue;
                }
                let st: Value = r.json().await.expect("state");
                let Some(mv) = st["legal_moves"]
                    .as_array()
                    .and_then(|l| l.first())
                    .cloned()
                else {
                    continue;
                };
                let ply = st["ply"].as_i64().expect("ply") + 1;
                http.post(format!(
                    "{}{}",
                    url,
                    paths::with_query(
                        paths::moves(st["set_id"].as_str().expect("set"), &st["game_no"]),
                        &format!("ply={ply}")
                    )
                ))
                .bearer_auth(&token)
                .json(&mv)
                .send()
                .await
                .expect("move");
            }
        }));
    }
    for t in tasks {
        t.await.expect("opponent");
    }
    let mut house_moves = 0u64;
    for (_, id, _) in &sets {
        for game_no in [1, 2] {
            let g = a.state(id, game_no).await;
            let reason = g["result"]["reason"].as_str().unwrap_or("").to_string();
            assert!(
                g["result"]["winner_bot"] == "house-club"
                    || !["timeout", "first_move_timeout"].contains(&reason.as_str()),
                "house lost on time: {g}"
            );
            let seat = if g["seats"][0]["bot"] == "house-club" {
                1
            } else {
                2
            };
            house_moves += g["moves"]
                .as_array()
                .map_or(0, |m| m.iter().filter(|m| m["seat"] == seat).count())
                as u64;
        }
    }
    // Moves thought by each instance's pool, as its /metrics says.
    let mut jobs: Vec<u64> = vec![];
    for app in apps {
        let thought = app
            .metric("hexarena_house_moves_thought")
            .await
            .expect("hexarena_house_moves_thought");
        jobs.push(thought as u64);
    }
    // Each instance thought for its share of the sets, and no move was thought twice.
    assert!(jobs.iter().all(|j| *j > 0), "{jobs:?}");
    assert!(
        jobs.iter().sum::<u64>() <= house_moves,
        "{jobs:?} jobs for {house_moves} house moves"
    );
}
