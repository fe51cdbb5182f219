//! Hostile and buggy clients: odd `Last-Event-ID` values, racing commands, malformed queries and
//! paths. Each test keeps one kind of fault found by trying to break the server.

mod common;
use common::paths;

use std::time::Duration;

use common::sse::EventStream;
use common::{TestApp, seat_tokens, spawn_app};
use reqwest::StatusCode;
use serde_json::{Value, json};

fn cell(r: u8, c: u8) -> Value {
    json!({"cell": [r, c]})
}

/// Two bots and an active 9x9 set without random stones; returns (set id, [seat 1, seat 2]
/// tokens of game 1).
async fn game(app: &TestApp) -> (String, [String; 2]) {
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    let set = app
        .start_set(
            &alpha,
            &bravo,
            json!({"options": {"size": 9, "random_stones": 0}}),
        )
        .await;
    let st = app.state(&set, 1).await;
    let [a, b] = seat_tokens(&st, &[("Alpha", &alpha), ("Bravo", &bravo)]);
    (set, [a.to_string(), b.to_string()])
}

#[tokio::test]
async fn a_game_stream_resumed_from_an_id_beyond_the_newest_event_still_gets_live_states() {
    let app = spawn_app().await;
    let (set, seats) = game(&app).await;
    let path = paths::game_events(&set, 1);
    // An id from another server's life (the database was reset), or simply made up.
    let mut s = EventStream::open(&app, &path, None, Some("999999999")).await;
    let r = app.play(&seats[0], &set, 1, cell(4, 4), Some(1)).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let (_, kind, state) = s
        .next_event_within(Duration::from_secs(3))
        .await
        .expect("the move's state reaches a stream resumed from a future id");
    assert_eq!((kind.as_str(), state["ply"].as_i64()), ("state", Some(1)));
}

#[tokio::test]
async fn a_bot_stream_resumed_from_an_id_beyond_the_newest_event_still_gets_its_turns() {
    let app = spawn_app().await;
    let (set, seats) = game(&app).await;
    let r = app.play(&seats[0], &set, 1, cell(4, 4), Some(1)).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let mut s = EventStream::open(
        &app,
        &paths::bot_events(),
        Some(&seats[0]),
        Some("999999999"),
    )
    .await;
    let r = app.play(&seats[1], &set, 1, cell(0, 0), Some(2)).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let (_, kind, data) = s
        .next_event_within(Duration::from_secs(3))
        .await
        .expect("seat 1's turn reaches a stream resumed from a future id");
    assert_eq!(
        (kind.as_str(), data["state"]["ply"].as_i64()),
        ("your_turn", Some(2))
    );
}

#[tokio::test]
async fn a_negative_or_garbage_last_event_id_is_harmless() {
    let app = spawn_app().await;
    let (set, seats) = game(&app).await;
    app.play(&seats[0], &set, 1, cell(4, 4), Some(1)).await;
    app.play(&seats[1], &set, 1, cell(0, 0), Some(2)).await;
    let path = paths::game_events(&set, 1);
    // Negative: every stored state of the game, in order, once.
    let mut s = EventStream::open(&app, &path, None, Some("-5")).await;
    let mut plies = vec![];
    let mut last = i64::MIN;
    while let Some((id, kind, st)) = s.next_event_within(Duration::from_millis(700)).await {
        assert_eq!(kind, "state");
        assert!(id > last, "ids increase: {last} then {id}");
        last = id;
        plies.push(st["ply"].as_i64().expect("ply"));
    }
    assert_eq!(plies, vec![0, 1, 2]);
    // Not a number: a fresh connection (the current state first).
    for garbage in ["abc", "1e3", "99999999999999999999999", " "] {
        let mut s = EventStream::open(&app, &path, None, Some(garbage)).await;
        let (_, kind, st) = s.next_event().await;
        assert_eq!((kind.as_str(), st["ply"].as_i64()), ("state", Some(2)));
    }
}

#[tokio::test]
async fn malformed_long_poll_queries_and_paths_are_json_errors() {
    let app = spawn_app().await;
    let (set, seats) = game(&app).await;
    for q in [
        "wait_s=-1",
        "wait_s=abc",
        "after_ply=x",
        "after_ply=1&after_ply=2",
    ] {
        let r = app.poll_game(&set, 1, q).await;
        assert_eq!(
            (r.status, r.code()),
            (StatusCode::BAD_REQUEST, "bad_request"),
            "{q}"
        );
    }
    // An integer beyond 64 bits is still an integer: `wait_s` is clamped (issue 10, as
    // openapi.yaml says), and without `after_ply` the state comes at once.
    let r = app
        .poll_game(&set, 1, "wait_s=99999999999999999999999")
        .await;
    assert_eq!(
        (r.status, r.body["ply"].as_i64()),
        (StatusCode::OK, Some(0))
    );
    for n in ["0", "3", "-1", "99999999999999999999", "abc", "1.0"] {
        let r = app.get_game(&set, &n).await;
        assert_eq!(
            (r.status, r.code()),
            (StatusCode::NOT_FOUND, "not_found"),
            "game {n}"
        );
    }
    let r = app.get_turn(Some(&seats[0]), "wait_s=-3").await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::BAD_REQUEST, "bad_request")
    );
    // Moves with a bad ply query (one beyond 64 bits is a ply far ahead: 409 `stale_ply`,
    // checked in tests/hardening.rs).
    for q in ["ply=abc", "ply=1.5", "ply="] {
        let r = app.post_move(Some(&seats[0]), &set, 1, q, cell(4, 4)).await;
        assert_eq!(
            (r.status, r.code()),
            (StatusCode::BAD_REQUEST, "bad_request"),
            "{q}"
        );
    }
    assert_eq!(app.state(&set, 1).await["ply"], 0, "nothing was played");
}

#[tokio::test]
async fn concurrent_identical_moves_store_one_move_and_all_succeed() {
    let app = spawn_app().await;
    let (set, seats) = game(&app).await;
    let mut hs = vec![];
    for _ in 0..16 {
        let http = app.http.clone();
        let url = format!(
            "{}{}",
            app.url,
            paths::with_query(paths::moves(&set, 1), "ply=1")
        );
        let t = seats[0].clone();
        hs.push(tokio::spawn(async move {
            http.post(url)
                .bearer_auth(t)
                .json(&cell(4, 4))
                .send()
                .await
                .expect("sent")
                .status()
        }));
    }
    for h in hs {
        assert_eq!(h.await.expect("joined"), StatusCode::OK);
    }
    let st = app.state(&set, 1).await;
    assert_eq!(st["ply"], 1);
    assert_eq!(st["moves"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn concurrent_different_moves_at_one_ply_store_exactly_one() {
    let app = spawn_app().await;
    let (set, seats) = game(&app).await;
    let mut hs = vec![];
    for i in 0..9u8 {
        let http = app.http.clone();
        let url = format!(
            "{}{}",
            app.url,
            paths::with_query(paths::moves(&set, 1), "ply=1")
        );
        let t = seats[0].clone();
        hs.push(tokio::spawn(async move {
            http.post(url)
                .bearer_auth(t)
                .json(&cell(i, i))
                .send()
                .await
                .expect("sent")
                .status()
        }));
    }
    let mut ok = 0;
    for h in hs {
        match h.await.expect("joined") {
            StatusCode::OK => ok += 1,
            StatusCode::CONFLICT => {}
            s => panic!("unexpected status {s}"),
        }
    }
    assert_eq!(ok, 1);
    let st = app.state(&set, 1).await;
    assert_eq!(st["ply"], 1);
}

#[tokio::test]
async fn a_move_racing_a_resignation_leaves_one_consistent_ending() {
    let app = spawn_app().await;
    let (set, seats) = game(&app).await;
    let mv = {
        let http = app.http.clone();
        let url = format!(
            "{}{}",
            app.url,
            paths::with_query(paths::moves(&set, 1), "ply=1")
        );
        let t = seats[0].clone();
        tokio::spawn(async move {
            http.post(url)
                .bearer_auth(t)
                .json(&cell(4, 4))
                .send()
                .await
                .expect("sent")
                .status()
        })
    };
    let rs = {
        let http = app.http.clone();
        let url = format!("{}{}", app.url, paths::resign(&set, 1));
        let t = seats[1].clone();
        tokio::spawn(async move {
            http.post(url)
                .bearer_auth(t)
                .send()
                .await
                .expect("sent")
                .status()
        })
    };
    let (m, r) = (mv.await.expect("joined"), rs.await.expect("joined"));
    assert_eq!(r, StatusCode::OK);
    let st = app.state(&set, 1).await;
    assert_eq!(st["status"], "finished");
    assert_eq!(st["result"]["reason"], "resignation");
    assert_eq!(st["result"]["winner"], 1);
    let expected_ply = if m == StatusCode::OK { 1 } else { 0 };
    assert_eq!(st["ply"], expected_ply, "move answered {m}");
    let g2 = app.state(&set, 2).await;
    assert_eq!(g2["status"], "active");
}

/// Every event of a stream, read until it stays quiet for `quiet`.
async fn drain(s: &mut EventStream, quiet: Duration) -> Vec<(i64, String, Value)> {
    let mut out = vec![];
    while let Some(e) = s.next_event_within(quiet).await {
        out.push(e);
    }
    out
}

#[tokio::test]
async fn a_game_stream_resumed_at_every_event_id_gets_exactly_the_events_after_it() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    // Watch game 1 live from before the set exists is impossible (404), so record the whole
    // history by resuming from 0 once it is over, and compare with the live recording.
    let set = app
        .start_set(
            &alpha,
            &bravo,
            json!({"options": {"size": 9, "random_stones": 0}}),
        )
        .await;
    let path = paths::game_events(&set, 1);
    let mut live = EventStream::open(&app, &path, None, None).await;
    let (first, _, s0) = live.next_event().await;
    assert_eq!(s0["ply"], 0);
    let st = app.state(&set, 1).await;
    let seats = seat_tokens(&st, &[("Alpha", &alpha), ("Bravo", &bravo)]);
    let mut moves = vec![cell(4, 4), json!({"swap": true})];
    for c in 0..9u8 {
        moves.push(cell(0, c));
        if c < 8 {
            moves.push(cell(8, c));
        }
    }
    app.play_moves(seats, &set, 1, &moves).await;
    let recorded = drain(&mut live, Duration::from_millis(800)).await;
    assert_eq!(recorded.len(), moves.len(), "one state per move");
    assert_eq!(
        recorded.last().map(|e| e.2["status"].clone()),
        Some(json!("finished"))
    );
    drop(live);
    let ids: Vec<i64> = std::iter::once(first)
        .chain(recorded.iter().map(|e| e.0))
        .collect();
    for (i, id) in ids.iter().enumerate() {
        let mut s = EventStream::open(&app, &path, None, Some(&id.to_string())).await;
        let got = drain(&mut s, Duration::from_millis(300)).await;
        let want = &recorded[i..];
        assert_eq!(
            got.iter().map(|e| e.0).collect::<Vec<_>>(),
            want.iter().map(|e| e.0).collect::<Vec<_>>(),
            "ids after {id}"
        );
        for (g, w) in got.iter().zip(want) {
            assert_eq!(g.2, w.2, "state of event {} resumed after {id}", w.0);
        }
    }
}

#[tokio::test]
async fn a_bot_stream_resumed_at_every_event_id_gets_exactly_the_events_after_it() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    let mut live = EventStream::open(&app, &paths::bot_events(), Some(&alpha), None).await;
    app.play_whole_set(&alpha, &bravo).await;
    let recorded = drain(&mut live, Duration::from_millis(800)).await;
    drop(live);
    let kinds: Vec<&str> = recorded.iter().map(|e| e.1.as_str()).collect();
    assert!(kinds.contains(&"set_started"), "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"set_finished"), "{kinds:?}");
    for (i, (id, ..)) in recorded.iter().enumerate() {
        let mut s = EventStream::open(
            &app,
            &paths::bot_events(),
            Some(&alpha),
            Some(&id.to_string()),
        )
        .await;
        let got = drain(&mut s, Duration::from_millis(300)).await;
        let want = &recorded[i + 1..];
        assert_eq!(
            got.iter().map(|e| (e.0, e.1.as_str())).collect::<Vec<_>>(),
            want.iter().map(|e| (e.0, e.1.as_str())).collect::<Vec<_>>(),
            "events after {id}"
        );
        for (g, w) in got.iter().zip(want) {
            assert_eq!(g.2, w.2, "{} event {} resumed after {id}", w.1, w.0);
        }
    }
}

#[tokio::test]
async fn a_staked_tournament_whose_pairings_could_never_start_is_refused_at_creation() {
    let app = spawn_app().await;
    let (_, owner) = app.player("Owner of two").await;
    app.bot(&owner, "Twin1").await;
    app.bot(&owner, "Twin2").await;
    let (_, _, _) = app.player_with_bot("Other").await;
    let (_, small) = app.player("Cautious owner").await;
    let r = app
        .create_bot(Some(&small), json!({"name": "Cautious", "max_stake": 20}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let before = app.list_tournaments("").await.body["tournaments"]
        .as_array()
        .map(Vec::len);
    // Two bots of one owner would meet in a staked set: same_owner, for ever.
    let r = app
        .create_tournament(
            Some("op-secret"),
            json!({"name": "T", "format": "round_robin", "stake": 10,
                   "participants": ["Twin1", "Other", "Twin2"]}),
        )
        .await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::FORBIDDEN, "same_owner"),
        "{:?}",
        r.body
    );
    // A stake above a participant's max_stake: refused by every pairing of that bot.
    let r = app
        .create_tournament(
            Some("op-secret"),
            json!({"name": "T", "format": "round_robin", "stake": 50,
                   "participants": ["Cautious", "Other"]}),
        )
        .await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::BAD_REQUEST, "bad_request"),
        "{:?}",
        r.body
    );
    assert_eq!(r.body["error"]["details"]["field"], "stake");
    let after = app.list_tournaments("").await.body["tournaments"]
        .as_array()
        .map(Vec::len);
    assert_eq!(before, after, "nothing was created");
    // Unstaked, the same bots are fine.
    let r = app
        .create_tournament(
            Some("op-secret"),
            json!({"name": "T", "format": "round_robin", "stake": 0,
                   "participants": ["Twin1", "Other", "Twin2", "Cautious"]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
}

#[tokio::test]
async fn a_tournament_cancelled_mid_round_starts_nothing_more_and_still_reads() {
    let app = spawn_app().await;
    let mut toks = vec![];
    for n in ["Tea", "Teb", "Tec", "Ted"] {
        let (_, _, t) = app.player_with_bot(n).await;
        toks.push(t);
    }
    for t in &toks {
        app.get_turn(Some(t), "wait_s=0").await; // online
    }
    let r = app
        .create_tournament(
            Some("op-secret"),
            json!({"name": "Cut short", "format": "round_robin", "max_concurrent": 1,
                   "participants": ["Tea", "Teb", "Tec", "Ted"],
                   "options": {"size": 9, "random_stones": 0}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    let r = app
        .start_tournament(Some("op-secret"), &id, json!({}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    // Wait for the first set to start.
    let mut playing = None;
    for _ in 0..50 {
        for t in &toks {
            let r = app.get_turn(Some(t), "wait_s=0").await;
            if r.status == StatusCode::OK {
                playing = Some((t.clone(), r.body));
            }
        }
        if playing.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (tok, st) = playing.expect("a pairing started");
    let set = st["set_id"].as_str().expect("set").to_string();
    let r = app
        .cancel_tournament(Some("op-secret"), &id, json!({}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["status"], "cancelled");
    // The set in play ends; nothing else starts.
    for g in [1, 2] {
        let st = app.state(&set, g).await;
        let on_move = st["to_move"].as_u64().expect("on move") as usize;
        let name = st["seats"][on_move - 1]["bot"].as_str().expect("bot");
        let me = app.get_current_bot(Some(&tok)).await.body["name"].clone();
        let resigner = if me == name {
            tok.clone()
        } else {
            // the other seat's token
            let mut other = None;
            for t in &toks {
                if app.get_current_bot(Some(t)).await.body["name"] == name {
                    other = Some(t.clone());
                }
            }
            other.expect("seat token")
        };
        let r = app.resign(Some(&resigner), &set, &g, json!({})).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    }
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let active = app.list_sets("status=active").await;
    assert_eq!(active.status, StatusCode::OK);
    assert_eq!(
        active.body["sets"].as_array().map(Vec::len),
        Some(0),
        "{:?}",
        active.body
    );
    let t = app.get_tournament(&id).await;
    assert_eq!(t.status, StatusCode::OK);
    assert_eq!(t.body["status"], "cancelled");
    for (suffix, path) in [
        ("standings.csv", paths::standings_csv(&id)),
        ("crosstable.csv", paths::crosstable_csv(&id)),
        ("games.sgf", paths::tournament_games_sgf(&id)),
    ] {
        let r = app.get(&path).await;
        assert_eq!(r.status, StatusCode::OK, "{suffix}");
    }
    for (action, path) in [
        ("start", paths::start_tournament(&id)),
        ("pause", paths::pause_tournament(&id)),
        ("resume", paths::resume_tournament(&id)),
        ("cancel", paths::cancel_tournament(&id)),
    ] {
        let r = app.post(&path, Some("op-secret"), json!({})).await;
        assert_eq!(
            (r.status, r.code()),
            (StatusCode::CONFLICT, "tournament_state"),
            "{action}"
        );
    }
}

#[tokio::test]
async fn a_retried_match_accept_or_cancel_is_the_same_success() {
    let app = spawn_app().await;
    let (_, mine, _) = app.player_with_bot("Mine").await;
    let (_, theirs, _) = app.player_with_bot("Theirs").await;
    let (_, stranger, _) = app.player_with_bot("Stranger").await;
    let r = app
        .create_match(Some(&mine), json!({"bots": ["Mine", "Theirs"], "sets": 2}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    assert_eq!(r.body["status"], "proposed");
    let id = r.body["id"].as_str().expect("id").to_string();
    // Accepted, and the answer lost: the retry is the same success.
    for _ in 0..2 {
        let r = app.accept_match(Some(&theirs), &id, json!({})).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        assert_eq!(r.body["status"], "running");
    }
    // Nobody else may accept it, retry or not.
    let r = app.accept_match(Some(&stranger), &id, json!({})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{:?}", r.body);
    for _ in 0..2 {
        let r = app.cancel_match(Some(&mine), &id, json!({})).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        assert_eq!(r.body["status"], "cancelled");
    }
    let r = app.cancel_match(Some(&stranger), &id, json!({})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{:?}", r.body);
    // A cancelled match cannot be accepted any more.
    let r = app.accept_match(Some(&theirs), &id, json!({})).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::CONFLICT, "tournament_state")
    );
}

#[tokio::test]
async fn a_match_cannot_be_driven_through_the_tournament_routes() {
    let app = spawn_app().await;
    let (_, mine, _) = app.player_with_bot("Mine").await;
    app.bot(&mine, "Mine2").await;
    let r = app
        .create_match(Some(&mine), json!({"bots": ["Mine", "Mine2"], "sets": 2}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    for (action, path) in [
        ("pause", paths::pause_tournament(&id)),
        ("cancel", paths::cancel_tournament(&id)),
    ] {
        let r = app.post(&path, Some("op-secret"), json!({})).await;
        assert_eq!(
            (r.status, r.code()),
            (StatusCode::NOT_FOUND, "not_found"),
            "{action}"
        );
    }
    let m = app.get_match(&id).await;
    assert_eq!(m.body["status"], "running", "nothing happened to the match");
}

#[tokio::test]
async fn concurrent_resignations_by_both_seats_end_the_game_once() {
    let app = spawn_app().await;
    let (set, seats) = game(&app).await;
    let mut hs = vec![];
    for i in 0..10 {
        let http = app.http.clone();
        let url = format!("{}{}", app.url, paths::resign(&set, 1));
        let t = seats[i % 2].clone();
        hs.push(tokio::spawn(async move {
            let r = http.post(url).bearer_auth(t).send().await.expect("sent");
            let status = r.status();
            let body: Value = r.json().await.expect("JSON");
            (i % 2, status, body)
        }));
    }
    let mut answers = vec![];
    for h in hs {
        answers.push(h.await.expect("joined"));
    }
    let st = app.state(&set, 1).await;
    assert_eq!(st["result"]["reason"], "resignation");
    let winner = st["result"]["winner"].as_u64().expect("winner") as usize;
    let loser_seat = 2 - winner; // index into seats: the seat that resigned
    for (seat, status, body) in answers {
        if seat == loser_seat {
            // The resigning seat, first or retrying: the same success.
            assert_eq!(status, StatusCode::OK, "{body}");
            assert_eq!(body["result"], st["result"]);
        } else {
            assert_eq!(status, StatusCode::CONFLICT, "{body}");
            assert_eq!(body["error"]["code"], "game_over");
        }
    }
    assert_eq!(app.state(&set, 2).await["status"], "active");
}
