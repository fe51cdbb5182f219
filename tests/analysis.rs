//! Issue 21, the API half: what a bot thought of its move (`Hexarena-Info`), the arena's
//! analysis of every finished game, and what a bot author learns from it (a bot's mistakes, a
//! bot's games as one SGF collection). Black-box, over HTTP.

mod common;
use common::paths;

use std::time::{Duration, Instant};

use common::sse::EventStream;
use common::{Spawn, TestApp, round_trip, seat_tokens, spawn_app, spawn_with};
use hexarena_contract::{Analysis, AnalysisStatus, BotMistakes, GameState, MoveInfo};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Two bots in a started set: (set id, [(name, token); 2]).
async fn started(app: &TestApp, options: Value) -> (String, [(String, String); 2]) {
    let (_, _, a) = app.player_with_bot("Thinker").await;
    let (_, _, b) = app.player_with_bot("Blunder").await;
    let set = app
        .start_set(&a, &b, json!({"stake": 0, "options": options}))
        .await;
    (set, [("Thinker".into(), a), ("Blunder".into(), b)])
}

/// The tokens of the seats of game `n`.
async fn tokens<'a>(
    app: &TestApp,
    set: &str,
    n: i64,
    bots: &'a [(String, String); 2],
) -> [&'a str; 2] {
    let s = app.state(set, n).await;
    let pairs: Vec<(&str, &str)> = bots.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    seat_tokens(&s, &pairs)
}

/// The state without its clock (which moves with time), to compare before and after.
fn without_clock(mut s: Value) -> Value {
    if let Some(o) = s.as_object_mut() {
        o.remove("clock");
    }
    s
}

#[tokio::test]
async fn a_move_info_is_stored_served_in_the_state_and_written_into_the_sgf() {
    let app = spawn_app().await;
    let (set, bots) = started(&app, json!({"size": 11, "random_stones": 0})).await;
    let t = tokens(&app, &set, 1, &bots).await;
    let info = r#"{"comment": "take the centre", "pv": ["F6", "g5"], "eval": 0.625, "depth": 3, "nodes": 1200}"#;
    let r = app
        .play_with_info(t[0], &set, 1, json!({"cell": [5, 5]}), Some(1), info)
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let stored = json!({"eval": 0.625, "pv": ["f6", "g5"], "depth": 3, "nodes": 1200, "comment": "take the centre"});
    assert_eq!(r.body["moves"][0]["info"], stored);
    // A move without the header has no `info` at all.
    let r = app
        .play(t[1], &set, 1, json!({"cell": [4, 6]}), Some(2))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert!(
        r.body["moves"][1].get("info").is_none(),
        "{}",
        r.body["moves"][1]
    );

    // The same from a fresh read, through the contract's types.
    let s = app.state(&set, 1).await;
    let typed: GameState = round_trip(&s);
    assert_eq!(
        typed.moves[0].info,
        Some(MoveInfo {
            eval: Some(0.625),
            pv: Some(vec!["f6".into(), "g5".into()]),
            depth: Some(3),
            nodes: Some(1200),
            comment: Some("take the centre".into()),
        })
    );
    assert_eq!(typed.moves[1].info, None);

    let (status, sgf) = app.game_sgf_text(&set, 1).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        sgf.contains(";B[f6]C[eval 0.625 depth 3 nodes 1200 pv f6 g5: take the centre];W[g5])"),
        "{sgf}"
    );
}

#[tokio::test]
async fn a_malformed_oversized_or_unknown_info_is_refused_and_plays_nothing() {
    let app = spawn_app().await;
    let (set, bots) = started(&app, json!({"size": 11, "random_stones": 0})).await;
    let t = tokens(&app, &set, 1, &bots).await;
    let before = without_clock(app.state(&set, 1).await);
    let big = format!(r#"{{"comment": "{}"}}"#, "x".repeat(1100));
    let cases: Vec<(&str, Value)> = vec![
        ("{\"eval\": ", Value::Null),
        ("[0.5]", Value::Null),
        ("not json", Value::Null),
        (big.as_str(), Value::Null),
        (r#"{"eval": 1.5}"#, json!("eval")),
        (r#"{"eval": "good"}"#, json!("eval")),
        (r#"{"pv": ["f6", "z30"]}"#, json!("pv")),
        (r#"{"pv": "f6"}"#, json!("pv")),
        (r#"{"depth": -2}"#, json!("depth")),
        (r#"{"nodes": 3.5}"#, json!("nodes")),
        (r#"{"comment": "bell\u0007"}"#, json!("comment")),
        (r#"{"score": 12}"#, json!("score")),
    ];
    for (value, field) in cases {
        let r = app
            .play_with_info(t[0], &set, 1, json!({"cell": [5, 5]}), Some(1), value)
            .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{value}: {:?}", r.body);
        assert_eq!(r.code(), "invalid_info", "{value}: {:?}", r.body);
        assert_eq!(r.body["error"]["details"]["field"], field, "{value}");
        assert_eq!(r.body["error"]["details"]["header"], "Hexarena-Info");
        assert_eq!(
            without_clock(app.state(&set, 1).await),
            before,
            "{value} changed the game"
        );
    }
    // A comment of exactly 140 characters and a 16-cell line are fine.
    let pv: Vec<String> = (0..16)
        .map(|i| format!("{}{}", (b'a' + (i % 11) as u8) as char, 1 + i / 11))
        .collect();
    let ok = json!({"comment": "y".repeat(140), "pv": pv}).to_string();
    let r = app
        .play_with_info(t[0], &set, 1, json!({"cell": [5, 5]}), Some(1), &ok)
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(
        r.body["moves"][0]["info"]["pv"].as_array().map(Vec::len),
        Some(16)
    );
}

#[tokio::test]
async fn a_retried_move_keeps_the_info_of_its_first_post() {
    let app = spawn_app().await;
    let (set, bots) = started(&app, json!({"size": 9, "random_stones": 0})).await;
    let t = tokens(&app, &set, 1, &bots).await;
    let r = app
        .play_with_info(
            t[0],
            &set,
            1,
            json!({"cell": [4, 4]}),
            Some(1),
            r#"{"eval": 0.5}"#,
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let r = app
        .play_with_info(
            t[0],
            &set,
            1,
            json!({"cell": [4, 4]}),
            Some(1),
            r#"{"eval": 0.9}"#,
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["ply"], 1);
    assert_eq!(
        app.state(&set, 1).await["moves"][0]["info"],
        json!({"eval": 0.5})
    );
}

/// A small deterministic generator for random play.
struct Lcg(u64);
impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n.max(1) as u64) as usize
    }
}

/// Plays random legal moves in game `n` until it ends; returns the final state.
async fn play_randomly(
    app: &TestApp,
    set: &str,
    n: i64,
    t: [&str; 2],
    first: Option<Value>,
    rng: &mut Lcg,
) -> Value {
    let mut forced = first.into_iter().collect::<Vec<_>>();
    forced.reverse();
    loop {
        let s = app.state(set, n).await;
        if s["status"] == "finished" {
            return s;
        }
        let seat = s["to_move"].as_u64().expect("on move") as usize;
        let legal = s["legal_moves"].as_array().expect("legal moves").clone();
        let mv = forced.pop().unwrap_or_else(|| {
            let places: Vec<&Value> = legal.iter().filter(|m| m.get("cell").is_some()).collect();
            places[rng.below(places.len())].clone()
        });
        let ply = s["ply"].as_i64().expect("ply") + 1;
        let r = app.play(t[seat - 1], set, n, mv.clone(), Some(ply)).await;
        assert_eq!(r.status, StatusCode::OK, "{mv}: {:?}", r.body);
    }
}

/// Polls the analysis of a game until it is ready (at most 90 s).
async fn ready_analysis(app: &TestApp, set: &str, n: i64) -> Value {
    let until = Instant::now() + Duration::from_secs(90);
    loop {
        let r = app.analysis(set, n).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        if r.body["status"] == "ready" {
            return r.body;
        }
        assert_eq!(r.body["status"], "pending", "{:?}", r.body);
        assert!(
            Instant::now() < until,
            "analysis of {set} game {n} never ready"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Checks an analysis against the game it is of: one value per position, each in 0..1, the
/// last exact for a game won by connection, mistakes on real moves of their seat.
fn check_analysis(a: &Value, state: &Value) {
    let moves = state["moves"].as_array().expect("moves");
    let wp: Vec<f64> = a["win_prob"]
        .as_array()
        .expect("win_prob")
        .iter()
        .map(|v| v.as_f64().expect("number"))
        .collect();
    assert_eq!(wp.len(), moves.len() + 1, "{a}");
    assert!(wp.iter().all(|p| (0.0..=1.0).contains(p)), "{wp:?}");
    if state["result"]["reason"] == "connection" {
        let winner = state["result"]["winner"].as_u64().expect("winner");
        assert_eq!(
            wp.last().copied(),
            Some(if winner == 1 { 1.0 } else { 0.0 }),
            "{wp:?}"
        );
    }
    for m in a["mistakes"].as_array().expect("mistakes") {
        let ply = m["ply"].as_u64().expect("ply") as usize;
        assert!((1..=moves.len()).contains(&ply), "{m}");
        let played = &moves[ply - 1];
        assert_eq!(m["seat"], played["seat"], "{m}");
        let drop = m["drop"].as_f64().expect("drop");
        assert!(drop > 0.0 && drop <= 1.0, "{m}");
        // The drop is what the mover's probability fell by (rounded to 3 decimals each).
        let mine = |p: f64| if played["seat"] == 1 { p } else { 1.0 - p };
        assert!(
            (mine(wp[ply - 1]) - mine(wp[ply]) - drop).abs() < 0.0021,
            "{m} vs {wp:?}"
        );
        let best = m["best"].as_str().expect("best");
        assert_ne!(best, played["name"].as_str().expect("name"), "{m}");
        // The mistake names the move played, as the game state does.
        assert_eq!(m["played"], played["name"], "{m}");
    }
}

#[tokio::test]
async fn a_finished_game_is_analysed_with_one_value_per_position_and_the_mistakes_of_random_play() {
    let app = spawn_with(Spawn {
        analysis: true,
        analysis_playouts: 300,
        ..Spawn::default()
    })
    .await;
    let (set, bots) = started(&app, json!({"size": 9, "random_stones": 2})).await;
    // Not finished yet: 409, and unknown games 404.
    let r = app.analysis(&set, 1).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::CONFLICT, "game_not_finished"),
        "{:?}",
        r.body
    );
    let r = app.analysis(&set, 3).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{:?}", r.body);
    assert_eq!(
        r.body["error"]["message"],
        format!("no game 3 in set '{set}'")
    );
    // An unknown set says so, not that the set lacks the game (a bot author read it so).
    let r = app.analysis("set_nope", 1).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{:?}", r.body);
    assert_eq!(r.body["error"]["message"], "no set 'set_nope'");

    let mut stream = EventStream::open(&app, &paths::game_events(&set, 1), None, None).await;
    let t = tokens(&app, &set, 1, &bots).await;
    let mut rng = Lcg(21);
    let end = play_randomly(&app, &set, 1, t, None, &mut rng).await;
    assert_eq!(end["result"]["reason"], "connection");
    let a = ready_analysis(&app, &set, 1).await;
    assert!(
        a["engine"]
            .as_str()
            .is_some_and(|e| e.contains("300 playouts")),
        "{a}"
    );
    assert!(a["analysed_at"].as_str().is_some(), "{a}");
    check_analysis(&a, &end);
    // The contract crate's type reads it whole and writes it back unchanged.
    let typed: Analysis = round_trip(&a);
    assert_eq!(typed.status, AnalysisStatus::Ready);
    assert_eq!(
        typed.win_prob.len(),
        end["moves"].as_array().map_or(0, Vec::len) + 1
    );
    assert!(
        !a["mistakes"].as_array().expect("mistakes").is_empty(),
        "random play without a mistake: {a}"
    );

    // The game's stream says when it is ready.
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, kind, data) = stream
            .next_event_within(until.saturating_duration_since(Instant::now()))
            .await
            .expect("an analysis event");
        if kind == "analysis" {
            assert_eq!(
                data,
                json!({"set_id": set, "game_no": 1, "status": "ready"})
            );
            break;
        }
    }
    // The same answer on every read (it is stored).
    assert_eq!(app.analysis(&set, 1).await.body, a);
}

#[tokio::test]
async fn after_a_swap_the_win_probability_still_ends_at_the_winner_by_seat() {
    let app = spawn_with(Spawn {
        analysis: true,
        analysis_playouts: 200,
        ..Spawn::default()
    })
    .await;
    let (set, bots) = started(&app, json!({"size": 9, "random_stones": 0})).await;
    let t = tokens(&app, &set, 1, &bots).await;
    let mut rng = Lcg(5);
    // Seat 1 opens in the centre, seat 2 swaps; then random play.
    let s = app.state(&set, 1).await;
    assert_eq!(s["to_move"], 1);
    let r = app
        .play(t[0], &set, 1, json!({"cell": [4, 4]}), Some(1))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let end = play_randomly(&app, &set, 1, t, Some(json!({"swap": true})), &mut rng).await;
    assert_eq!(end["moves"][1]["swap"], true);
    let a = ready_analysis(&app, &set, 1).await;
    check_analysis(&a, &end);
}

#[tokio::test]
async fn a_bot_s_mistakes_come_worst_first_with_the_position_and_its_games_as_one_sgf() {
    let app = spawn_with(Spawn {
        analysis: true,
        analysis_playouts: 200,
        ..Spawn::default()
    })
    .await;
    let (set, bots) = started(&app, json!({"size": 9, "random_stones": 1})).await;
    let mut rng = Lcg(77);
    let t1 = tokens(&app, &set, 1, &bots).await;
    play_randomly(&app, &set, 1, t1, None, &mut rng).await;
    let t2 = tokens(&app, &set, 2, &bots).await;
    play_randomly(&app, &set, 2, t2, None, &mut rng).await;
    let a1 = ready_analysis(&app, &set, 1).await;
    let a2 = ready_analysis(&app, &set, 2).await;

    // Every mistake of Blunder in either analysis, and only those, worst first.
    let mut expected = 0;
    for (n, a) in [(1, &a1), (2, &a2)] {
        let s = app.state(&set, n).await;
        for m in a["mistakes"].as_array().expect("mistakes") {
            let seat = m["seat"].as_u64().expect("seat") as usize;
            if s["seats"][seat - 1]["bot"] == "Blunder" {
                expected += 1;
            }
        }
    }
    let r = app.get_bot_mistakes("Blunder", "limit=100").await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["bot"], "Blunder");
    let list = r.body["mistakes"].as_array().expect("mistakes").clone();
    assert_eq!(list.len(), expected, "{:?}", r.body);
    let typed: BotMistakes = round_trip(&r.body);
    assert_eq!(typed.mistakes.len(), expected);
    assert!(expected > 0, "random play without a mistake");
    let drops: Vec<f64> = list
        .iter()
        .map(|m| m["drop"].as_f64().expect("drop"))
        .collect();
    assert!(drops.windows(2).all(|w| w[0] >= w[1]), "{drops:?}");
    for m in &list {
        let n = m["game_no"].as_i64().expect("game");
        let s = app.state(&set, n).await;
        let ply = m["ply"].as_u64().expect("ply") as usize;
        let names: Vec<&str> = s["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|v| v["name"].as_str().expect("name"))
            .collect();
        assert_eq!(m["set_id"], set);
        assert_eq!(m["moves"], json!(names[..ply - 1]), "{m}");
        assert_eq!(m["played"], names[ply - 1], "{m}");
        assert_ne!(m["best"], m["played"], "{m}");
        assert_eq!(m["opening"], s["opening"], "{m}");
        assert_eq!(m["size"], 9);
        let seat = m["seat"].as_u64().expect("seat") as usize;
        assert_eq!(s["seats"][seat - 1]["bot"], "Blunder", "{m}");
    }
    let r = app.get_bot_mistakes("Blunder", "limit=1").await;
    assert_eq!(r.body["mistakes"].as_array().map(Vec::len), Some(1));
    assert_eq!(r.body["mistakes"][0], list[0]);
    let r = app.get_bot_mistakes("NoSuchBot", "").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);

    // The games as one collection: both games, each as its own export writes it.
    let (status, all) = app.bot_games_sgf_text("Thinker", "").await;
    assert_eq!(status, StatusCode::OK);
    let (_, g1) = app.game_sgf_text(&set, 1).await;
    let (_, g2) = app.game_sgf_text(&set, 2).await;
    assert_eq!(all, format!("{g1}{g2}"));
    assert_eq!(all.matches("(;FF[4]GM[11]").count(), 2);
    let (status, none) = app
        .bot_games_sgf_text("Thinker", "since=2999-01-01T00:00:00Z")
        .await;
    assert_eq!((status, none.as_str()), (StatusCode::OK, ""));
    let (status, since_old) = app
        .bot_games_sgf_text("Thinker", "since=2000-01-01T00:00:00%2B02:00")
        .await;
    assert_eq!((status, since_old), (StatusCode::OK, all));
    let r = app.get_bot_games_sgf("Thinker", "since=yesterday").await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::BAD_REQUEST, "bad_request")
    );
    let r = app.get_bot_games_sgf("NoSuchBot", "").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn hexarena_play_on_a_house_strategy_sends_what_its_search_knew_with_each_move() {
    use hexarena_client::contract::{NewSet, OptionsRequest};
    use hexarena_client::{Choice, Client, FnBot, PlayConfig, run};
    let app = spawn_app().await;
    let (_, _, a) = app.player_with_bot("SearchLib").await;
    let (_, _, b) = app.player_with_bot("PlainLib").await;
    let searcher = Client::new(&app.url, &a).expect("client");
    let plain = Client::new(&app.url, &b).expect("client");
    let rung = hex_search::ladder::rung("house-novice").expect("a rung");
    let accept = PlayConfig {
        sets: 1,
        accept_open: true,
        ..PlayConfig::default()
    };
    let first_legal = FnBot(|s: &GameState| {
        s.legal_moves
            .first()
            .copied()
            .map_or_else(|| Choice::Resign("no legal move".into()), Choice::Move)
    });
    let acceptor = tokio::spawn(run(plain, first_legal, accept));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let create = PlayConfig {
        sets: 1,
        create: Some(NewSet {
            options: OptionsRequest {
                size: Some(9),
                random_stones: Some(2),
            },
            stake: Some(0),
            opponent: Some("PlainLib".into()),
            ..NewSet::default()
        }),
        ..PlayConfig::default()
    };
    let done = tokio::time::timeout(
        Duration::from_secs(120),
        run(searcher, hexarena_tools::play::RungBot { rung }, create),
    )
    .await
    .expect("in time")
    .expect("the run");
    let _ = tokio::time::timeout(Duration::from_secs(30), acceptor).await;
    let set = &done.finished[0];
    let mut with_info = 0;
    for n in [1, 2] {
        let s: GameState = app.game(set, n).await;
        let mine = s
            .seats
            .iter()
            .find(|v| v.bot == "SearchLib")
            .map(|v| v.seat)
            .expect("seated");
        for m in &s.moves {
            if m.seat != mine {
                assert_eq!(m.info, None, "the plain bot sent nothing");
                continue;
            }
            if let Some(info) = &m.info {
                with_info += 1;
                let eval = info.eval.expect("eval");
                assert!((0.0..=1.0).contains(&eval), "{info:?}");
                let pv = info.pv.as_ref().expect("a line");
                assert_eq!(pv.first(), Some(&m.name), "the line starts with the move");
                assert!(info.nodes.is_some());
            }
        }
    }
    assert!(with_info > 0, "no move carried the search's info");
}

/// One HTTP call to a server process: (status, JSON body or Null).
async fn call(
    url: &str,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let http = reqwest::Client::new();
    let mut rb = match body {
        Some(b) => http.post(format!("{url}{path}")).json(&b),
        None => http.get(format!("{url}{path}")),
    };
    if let Some(t) = token {
        rb = rb.bearer_auth(t);
    }
    let r = rb.send().await.expect("request sent");
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_game_that_ended_while_the_analyst_was_off_is_analysed_after_a_restart() {
    use common::process::{Server, free_port};
    let dir = tempfile::tempdir().expect("dir");
    let port = free_port();
    // Off, as every server process of the tests starts unless asked.
    let s = Server::start(dir.path(), port, &["--house-bots", "false"], &[]).await;
    let mut tokens = vec![];
    for name in ["RestartA", "RestartB"] {
        let (_, p) = call(
            &s.url,
            &paths::players(),
            None,
            Some(json!({"name": format!("owner of {name}")})),
        )
        .await;
        let pt = p["token"].as_str().expect("player token").to_string();
        let (_, b) = call(
            &s.url,
            &paths::bots(),
            Some(&pt),
            Some(json!({"name": name})),
        )
        .await;
        tokens.push(b["token"].as_str().expect("bot token").to_string());
    }
    let (status, set) = call(
        &s.url,
        &paths::sets(),
        Some(&tokens[0]),
        Some(json!({"game": "hex", "stake": 0, "options": {"size": 9, "random_stones": 2}})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{set}");
    let set = set["id"].as_str().expect("id").to_string();
    let (status, _) = call(
        &s.url,
        &paths::accept(&set),
        Some(&tokens[1]),
        Some(json!({})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    // Game 1 seats the acceptor first: it moves, then resigns.
    let (_, g) = call(&s.url, &paths::game(&set, 1), None, None).await;
    let first = g["legal_moves"][0].clone();
    let (status, _) = call(
        &s.url,
        &paths::with_query(paths::moves(&set, 1), "ply=1"),
        Some(&tokens[1]),
        Some(first),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = call(
        &s.url,
        &paths::resign(&set, 1),
        Some(&tokens[1]),
        Some(json!({})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, a) = call(&s.url, &paths::analysis(&set, 1), None, None).await;
    assert_eq!(a["status"], "pending", "{a}");
    s.kill();

    let s = Server::start(
        dir.path(),
        port,
        &["--house-bots", "false"],
        &[
            ("ARENA_ANALYSIS", "true"),
            ("ARENA_ANALYSIS_PLAYOUTS", "100"),
        ],
    )
    .await;
    let until = Instant::now() + Duration::from_secs(60);
    let a = loop {
        let (status, a) = call(&s.url, &paths::analysis(&set, 1), None, None).await;
        assert_eq!(status, StatusCode::OK, "{a}");
        if a["status"] == "ready" {
            break a;
        }
        assert!(Instant::now() < until, "never analysed: {a}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(a["win_prob"].as_array().map(Vec::len), Some(2), "{a}");
    assert!(
        a["engine"]
            .as_str()
            .is_some_and(|e| e.contains("100 playouts")),
        "{a}"
    );
    s.kill();
}

/// With house bots on, each instance also keeps a house row in `instances` (`<id>/house`): it
/// is not another instance, so a lone instance analyses every game itself. Counted as one, it
/// left about half the games to an analyst that does not exist, for the two minutes after
/// which a game counts as orphaned (PostgreSQL; SQLite has one instance by construction).
#[tokio::test]
async fn with_house_bots_on_every_finished_game_is_analysed_promptly() {
    let app = spawn_with(Spawn {
        analysis: true,
        analysis_playouts: 100,
        house_bots: true,
        ..Spawn::default()
    })
    .await;
    let mut rng = Lcg(7);
    let mut games = Vec::new();
    for i in 0..2 {
        let names = [format!("Prompt{i}a"), format!("Prompt{i}b")];
        let (_, _, a) = app.player_with_bot(&names[0]).await;
        let (_, _, b) = app.player_with_bot(&names[1]).await;
        let set = app
            .start_set(
                &a,
                &b,
                json!({"stake": 0, "options": {"size": 9, "random_stones": 0}}),
            )
            .await;
        let bots = [(names[0].clone(), a), (names[1].clone(), b)];
        for n in 1..=2 {
            let t = tokens(&app, &set, n, &bots).await;
            play_randomly(&app, &set, n, t, None, &mut rng).await;
            games.push((set.clone(), n));
        }
    }
    let until = Instant::now() + Duration::from_secs(30);
    for (set, n) in &games {
        loop {
            let r = app.analysis(set, *n).await;
            assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
            if r.body["status"] == "ready" {
                break;
            }
            assert!(
                Instant::now() < until,
                "{set} game {n} still not analysed after 30 s"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}
