//! Whole sets over HTTP (SPEC sections 2, 5, 6, 8): games won by connection and by resignation,
//! the seat swap between the two games, the shared opening, the seed reveal, the swap rule and
//! the idempotent retry of a move.

mod common;

use common::{Resp, TestApp, seat_tokens, spawn_app};
use reqwest::StatusCode;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

fn cell(r: u8, c: u8) -> Value {
    json!({"cell": [r, c]})
}

/// Plays seat 1's and seat 2's cells alternately (seat 1 first) until the game ends; returns the
/// final state. Panics if a move is refused or the lists run out before the game ends.
async fn play_until_over(
    app: &TestApp,
    tokens: [&str; 2],
    set_id: &str,
    game_no: i64,
    seat1: &[(u8, u8)],
    seat2: &[(u8, u8)],
) -> Value {
    let mut lists = [seat1.iter(), seat2.iter()];
    let mut state = app.state(set_id, game_no).await;
    while state["status"] == "active" {
        let seat = state["to_move"].as_u64().expect("someone on move") as usize;
        let &(r, c) = lists[seat - 1]
            .next()
            .expect("the game ends before the move lists run out");
        let ply = state["ply"].as_i64().expect("ply") + 1;
        let resp = app
            .play(tokens[seat - 1], set_id, game_no, cell(r, c), Some(ply))
            .await;
        assert_eq!(
            resp.status,
            StatusCode::OK,
            "move [{r},{c}] refused: {:?}",
            resp.body
        );
        state = resp.body;
    }
    state
}

fn column(c: u8, rows: std::ops::Range<u8>) -> Vec<(u8, u8)> {
    rows.map(|r| (r, c)).collect()
}

fn row(r: u8, cols: std::ops::Range<u8>) -> Vec<(u8, u8)> {
    cols.map(|c| (r, c)).collect()
}

fn cells_of(state: &Value) -> Value {
    state["board"]["cells"].clone()
}

async fn get_set(app: &TestApp, id: &str) -> Value {
    let r = app.get_set(&id).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    r.body
}

async fn resign(app: &TestApp, token: &str, set_id: &str, game_no: i64) -> Resp {
    app.resign(Some(token), &set_id, &game_no, json!({})).await
}

#[tokio::test]
async fn a_set_played_to_the_end_by_connection_swaps_seats_for_game_two_and_pays_the_winner() {
    let app = spawn_app().await;
    let (_, alpha_pt, alpha) = app.player_with_bot("Alpha").await;
    let (_, bravo_pt, bravo) = app.player_with_bot("Bravo").await;
    let bots = [("Alpha", alpha.as_str()), ("Bravo", bravo.as_str())];
    let id = app
        .start_set(
            &alpha,
            &bravo,
            json!({"options": {"size": 9, "random_stones": 0}, "stake": 50}),
        )
        .await;
    assert_eq!(
        app.balance(&alpha_pt).await,
        950,
        "the creator's stake is in escrow"
    );
    assert_eq!(
        app.balance(&bravo_pt).await,
        950,
        "the acceptor's stake is in escrow"
    );

    // Game 1 seats the acceptor (Bravo) as seat 1; game 2 waits.
    let g1 = app.state(&id, 1).await;
    assert_eq!(g1["status"], "active");
    assert_eq!(
        (
            g1["seats"][0]["bot"].as_str(),
            g1["seats"][1]["bot"].as_str()
        ),
        (Some("Bravo"), Some("Alpha"))
    );
    assert_eq!(g1["seats"][0]["edges"], "top-bottom");
    assert_eq!(g1["seats"][1]["edges"], "left-right");
    assert_eq!(g1["to_move"], 1);
    assert_eq!(app.state(&id, 2).await["status"], "pending");

    // Bravo (seat 1) fills column 0 from top to bottom; Alpha plays column 8 and never connects.
    let end1 = play_until_over(
        &app,
        seat_tokens(&g1, &bots),
        &id,
        1,
        &column(0, 0..9),
        &column(8, 0..9),
    )
    .await;
    assert_eq!(end1["status"], "finished");
    assert_eq!(end1["ply"], 17, "9 stones of seat 1 and 8 of seat 2");
    assert_eq!(
        end1["result"],
        json!({"winner": 1, "winner_bot": "Bravo", "reason": "connection"})
    );
    assert_eq!(end1["to_move"], Value::Null);
    assert_eq!(end1["legal_moves"], json!([]));
    let path: Vec<Value> = (0..9).map(|r| json!([r, 0])).collect();
    assert_eq!(end1["board"]["winning_path"], json!(path));

    // Game 2 started at once, creator (Alpha) now seat 1.
    let g2 = app.state(&id, 2).await;
    assert_eq!(g2["status"], "active");
    assert_eq!(
        (
            g2["seats"][0]["bot"].as_str(),
            g2["seats"][1]["bot"].as_str()
        ),
        (Some("Alpha"), Some("Bravo"))
    );
    assert_eq!(g2["to_move"], 1);
    assert_eq!(g2["ply"], 0);
    let mid = get_set(&app, &id).await;
    assert_eq!(mid["status"], "active");
    assert_eq!(
        mid["points"],
        json!([0, 1]),
        "points are [creator, acceptor]"
    );
    assert_eq!(mid["result"], Value::Null);

    // Bravo (seat 2 now) fills row 8 from left to right; Alpha wastes moves on row 0.
    let end2 = play_until_over(
        &app,
        seat_tokens(&g2, &bots),
        &id,
        2,
        &row(0, 0..9),
        &row(8, 0..9),
    )
    .await;
    assert_eq!(end2["ply"], 18);
    assert_eq!(
        end2["result"],
        json!({"winner": 2, "winner_bot": "Bravo", "reason": "connection"})
    );
    let path: Vec<Value> = (0..9).map(|c| json!([8, c])).collect();
    assert_eq!(end2["board"]["winning_path"], json!(path));

    let set = get_set(&app, &id).await;
    assert_eq!(set["status"], "finished");
    assert_eq!(set["points"], json!([0, 2]));
    assert_eq!(set["result"], "Bravo wins");
    assert_eq!(set["winner"], "Bravo");
    assert_eq!(set["games"][0]["winner_bot"], "Bravo");
    assert_eq!(set["games"][0]["moves_used"], json!([9, 8]));
    assert_eq!(set["games"][1]["winner"], 2);
    assert_eq!(set["games"][1]["moves_used"], json!([9, 9]));
    assert_eq!(set["settlement"]["pot"], 100);
    assert_eq!(set["settlement"]["fee"], 0);
    assert!(set["finished_at"].is_string());
    assert_eq!(
        app.balance(&alpha_pt).await,
        950,
        "the loser's stake is gone"
    );
    assert_eq!(
        app.balance(&bravo_pt).await,
        1050,
        "the winner took the pot"
    );

    let row = app.list_sets("status=finished").await;
    assert_eq!(row.body["sets"][0]["id"], id.as_str());
    assert_eq!(row.body["sets"][0]["result"], "Bravo wins");
    let bravo_profile = app.get_bot("Bravo").await.body;
    assert_eq!(
        (
            bravo_profile["w"].as_i64(),
            bravo_profile["won"].as_i64(),
            bravo_profile["net"].as_i64()
        ),
        (Some(1), Some(50), Some(50))
    );
    assert!(bravo_profile["rating"].as_i64().expect("rating") > 1200);
    let alpha_profile = app.get_bot("Alpha").await.body;
    assert_eq!(
        (alpha_profile["l"].as_i64(), alpha_profile["net"].as_i64()),
        (Some(1), Some(-50))
    );
}

#[tokio::test]
async fn a_set_level_on_points_goes_to_the_bot_that_needed_fewer_moves() {
    let app = spawn_app().await;
    let (_, alpha_pt, alpha) = app.player_with_bot("Alpha").await;
    let (_, bravo_pt, bravo) = app.player_with_bot("Bravo").await;
    let bots = [("Alpha", alpha.as_str()), ("Bravo", bravo.as_str())];
    let id = app
        .start_set(
            &alpha,
            &bravo,
            json!({"options": {"size": 9, "random_stones": 0}}),
        )
        .await;

    // Game 1: Bravo (seat 1) wastes two moves, then fills column 0: 11 moves.
    let g1 = app.state(&id, 1).await;
    let mut bravo_moves = vec![(0, 4), (0, 5)];
    bravo_moves.extend(column(0, 0..9));
    let mut alpha_moves = column(8, 0..9);
    alpha_moves.push((8, 7));
    let end1 = play_until_over(
        &app,
        seat_tokens(&g1, &bots),
        &id,
        1,
        &bravo_moves,
        &alpha_moves,
    )
    .await;
    assert_eq!(
        (end1["ply"].as_i64(), end1["result"]["winner_bot"].as_str()),
        (Some(21), Some("Bravo"))
    );

    // Game 2: Alpha (seat 1) fills column 0 in 9 moves.
    let g2 = app.state(&id, 2).await;
    let end2 = play_until_over(
        &app,
        seat_tokens(&g2, &bots),
        &id,
        2,
        &column(0, 0..9),
        &column(8, 0..9),
    )
    .await;
    assert_eq!(
        (end2["ply"].as_i64(), end2["result"]["winner_bot"].as_str()),
        (Some(17), Some("Alpha"))
    );

    let set = get_set(&app, &id).await;
    assert_eq!(set["points"], json!([1, 1]));
    assert_eq!(set["result"], "Alpha wins on the tiebreak");
    assert_eq!(set["winner"], "Alpha");
    assert_eq!(app.balance(&alpha_pt).await, 1010);
    assert_eq!(app.balance(&bravo_pt).await, 990);
}

#[tokio::test]
async fn a_set_ended_by_resignation_in_both_games_goes_to_the_bot_that_never_resigned() {
    let app = spawn_app().await;
    let (_, alpha_pt, alpha) = app.player_with_bot("Alpha").await;
    let (_, bravo_pt, bravo) = app.player_with_bot("Bravo").await;
    let id = app.start_set(&alpha, &bravo, json!({"stake": 20})).await;

    // Game 1: Bravo (seat 1) plays once, then Alpha (seat 2, on move) resigns.
    let first = app.state(&id, 1).await["legal_moves"][0].clone();
    let r = app.play(&bravo, &id, 1, first, Some(1)).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let r = resign(&app, &alpha, &id, 1).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["status"], "finished");
    assert_eq!(
        r.body["result"],
        json!({"winner": 1, "winner_bot": "Bravo", "reason": "resignation"})
    );
    assert_eq!(
        r.body["board"]["winning_path"],
        Value::Null,
        "nobody connected"
    );

    // Game 2: Alpha (seat 1, on move) resigns at once.
    let g2 = app.state(&id, 2).await;
    assert_eq!(g2["status"], "active");
    assert_eq!(g2["seats"][0]["bot"], "Alpha");
    let r = resign(&app, &alpha, &id, 2).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(
        r.body["result"],
        json!({"winner": 2, "winner_bot": "Bravo", "reason": "resignation"})
    );

    let set = get_set(&app, &id).await;
    assert_eq!(set["status"], "finished");
    assert_eq!(set["points"], json!([0, 2]));
    assert_eq!(set["result"], "Bravo wins");
    assert_eq!(set["games"][0]["reason"], "resignation");
    assert_eq!(set["games"][1]["reason"], "resignation");
    assert_eq!(app.balance(&alpha_pt).await, 980);
    assert_eq!(app.balance(&bravo_pt).await, 1020);

    // Resigning a finished game is refused at once.
    let r = resign(&app, &bravo, &id, 2).await;
    assert_eq!((r.status, r.code()), (StatusCode::CONFLICT, "game_over"));
    assert_eq!(
        r.body["error"]["details"]["result"]["reason"],
        "resignation"
    );
}

#[tokio::test]
async fn the_swap_is_legal_once_at_ply_two_without_random_stones_and_exchanges_the_edges() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    let id = app
        .start_set(
            &alpha,
            &bravo,
            json!({"options": {"size": 11, "random_stones": 0}}),
        )
        .await;
    // Game 1: Bravo seat 1, Alpha seat 2.
    let s0 = app.state(&id, 1).await;
    assert_eq!(s0["opening"], json!([]));
    assert!(
        !s0["legal_moves"]
            .as_array()
            .expect("legal moves")
            .contains(&json!({"swap": true})),
        "no swap at ply 1"
    );
    assert_eq!(s0["legal_moves"].as_array().map(Vec::len), Some(121));

    // Seat 1 may not swap at its first move.
    let r = app
        .play(&bravo, &id, 1, json!({"swap": true}), Some(1))
        .await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "swap_not_allowed")
    );
    assert_eq!(app.state(&id, 1).await["ply"], 0);

    let s1 = app.play(&bravo, &id, 1, cell(2, 7), Some(1)).await.body;
    assert_eq!(s1["board"]["cells"][2][7], 1);
    let legal = s1["legal_moves"].as_array().expect("legal moves");
    assert!(
        legal.contains(&json!({"swap": true})),
        "swap offered at ply 2"
    );
    assert!(!legal.contains(&json!({"cell": [2, 7]})));
    assert_eq!(legal.len(), 120 + 1);

    let r = app
        .play(&alpha, &id, 1, json!({"swap": true}), Some(2))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let s2 = r.body;
    assert_eq!(s2["ply"], 2);
    assert_eq!(
        s2["board"]["cells"][2][7], 2,
        "the stone stays and becomes seat 2's"
    );
    let stones: usize = s2["board"]["cells"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| {
            row.as_array()
                .expect("row")
                .iter()
                .filter(|v| **v != 0)
                .count()
        })
        .sum();
    assert_eq!(stones, 1, "a swap places no new stone");
    assert_eq!(s2["seats"][0]["edges"], "left-right");
    assert_eq!(s2["seats"][1]["edges"], "top-bottom");
    assert_eq!(
        (
            s2["seats"][0]["bot"].as_str(),
            s2["seats"][1]["bot"].as_str()
        ),
        (Some("Bravo"), Some("Alpha")),
        "bots keep their seats"
    );
    assert_eq!(s2["to_move"], 1);
    assert_eq!(s2["moves"][1]["swap"], true);
    assert_eq!(s2["moves"][1]["name"], "swap");
    assert_eq!(s2["moves"][1]["seat"], 2);
    assert_eq!(s2["moves"][1]["ply"], 2);
    assert!(
        !s2["legal_moves"]
            .as_array()
            .expect("legal")
            .contains(&json!({"swap": true}))
    );

    // After the swap it is never legal again.
    let r = app
        .play(&bravo, &id, 1, json!({"swap": true}), Some(3))
        .await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "swap_not_allowed")
    );
    let r = app.play(&bravo, &id, 1, cell(5, 5), Some(3)).await;
    assert_eq!(r.status, StatusCode::OK);
    let r = app
        .play(&alpha, &id, 1, json!({"swap": true}), Some(4))
        .await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "swap_not_allowed")
    );
    let after = app.state(&id, 1).await;
    assert_eq!(after["ply"], 3);
    assert_eq!(after["to_move"], 2);
    assert_eq!(after["board"]["cells"][5][5], 1);
}

#[tokio::test]
async fn the_swap_is_refused_when_the_opening_has_random_stones() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    let id = app.start_set(&alpha, &bravo, json!({})).await;
    let s0 = app.state(&id, 1).await;
    assert_eq!(s0["options"], json!({"size": 11, "random_stones": 4}));
    let first = s0["legal_moves"][0].clone();
    let r = app.play(&bravo, &id, 1, first, Some(1)).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert!(
        !r.body["legal_moves"]
            .as_array()
            .expect("legal")
            .contains(&json!({"swap": true}))
    );
    let before = app.state(&id, 1).await;
    let r = app
        .play(&alpha, &id, 1, json!({"swap": true}), Some(2))
        .await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "swap_not_allowed")
    );
    let after = app.state(&id, 1).await;
    assert_eq!(after["ply"], 1);
    assert_eq!(after["board"], before["board"]);
    assert_eq!(after["seats"], before["seats"]);
}

#[tokio::test]
async fn both_games_of_a_set_share_the_opening_with_the_seats_swapped() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    let id = app
        .start_set(
            &alpha,
            &bravo,
            json!({"options": {"size": 13, "random_stones": 5}}),
        )
        .await;
    let set = get_set(&app, &id).await;
    let opening = set["opening"]
        .as_array()
        .expect("opening once started")
        .clone();
    assert_eq!(opening.len(), 10, "5 stones per seat");

    let g1 = app.state(&id, 1).await;
    assert_eq!(g1["opening"], json!(opening));
    assert_eq!(g1["ply"], 0);
    for (i, c) in opening.iter().enumerate() {
        let (r, col) = (
            c[0].as_u64().expect("row") as usize,
            c[1].as_u64().expect("col") as usize,
        );
        let seat = if i % 2 == 0 { 1 } else { 2 };
        assert_eq!(
            g1["board"]["cells"][r][col], seat,
            "opening stone {i} belongs to seat {seat}"
        );
    }
    let cells1 = cells_of(&g1);

    let r = resign(&app, &bravo, &id, 1).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let g2 = app.state(&id, 2).await;
    assert_eq!(g2["opening"], json!(opening));
    assert_eq!(g2["ply"], 0);
    assert_eq!(
        cells_of(&g2),
        cells1,
        "game 2 starts from game 1's opening board"
    );
    assert_eq!(g2["seats"][0]["bot"], g1["seats"][1]["bot"]);
    assert_eq!(g2["seats"][1]["bot"], g1["seats"][0]["bot"]);
    assert_eq!(g2["seats"][0]["bot"], "Alpha");
}

#[tokio::test]
async fn the_seed_stays_hidden_until_the_set_ends_then_matches_its_hash_and_the_opening() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    let r = app
        .create_set(
            Some(&alpha),
            json!({"game": "hex", "options": {"size": 11, "random_stones": 4}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    let sha = r.body["seed_sha256"]
        .as_str()
        .expect("seed_sha256 from the start")
        .to_string();
    assert_eq!(sha.len(), 64);
    assert!(sha.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(r.body["seed"], Value::Null);
    assert_eq!(
        r.body["opening"],
        Value::Null,
        "no opening before the set starts"
    );

    let r = app.accept_set(Some(&bravo), &id, json!({})).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["seed"], Value::Null);
    assert_eq!(r.body["seed_sha256"], sha.as_str());
    let opening = r.body["opening"].clone();
    assert_eq!(opening.as_array().map(Vec::len), Some(8));

    assert_eq!(resign(&app, &alpha, &id, 1).await.status, StatusCode::OK);
    assert_eq!(
        get_set(&app, &id).await["seed"],
        Value::Null,
        "still hidden while game 2 runs"
    );
    assert_eq!(resign(&app, &alpha, &id, 2).await.status, StatusCode::OK);

    let set = get_set(&app, &id).await;
    assert_eq!(set["status"], "finished");
    let seed_hex = set["seed"].as_str().expect("seed revealed once finished");
    let seed = hexcode::decode(seed_hex).expect("seed is hex");
    assert_eq!(seed.len(), 32);
    assert_eq!(hexcode::encode(Sha256::digest(&seed)), sha);
    let seed = hex::parse_seed_hex(seed_hex).expect("64 hex digits");
    let cells = hex::opening(&seed, 11, 4).expect("opening");
    let expected: Vec<Value> = cells.iter().map(|c| json!([c.row, c.col])).collect();
    assert_eq!(set["opening"], json!(expected));
    assert_eq!(set["opening"], opening);
}

#[tokio::test]
async fn a_retried_move_at_the_same_ply_is_accepted_once_and_a_different_one_is_stale() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    let id = app
        .start_set(
            &alpha,
            &bravo,
            json!({"options": {"size": 11, "random_stones": 0}}),
        )
        .await;

    let first = app.play(&bravo, &id, 1, cell(4, 4), Some(1)).await;
    assert_eq!(first.status, StatusCode::OK, "{:?}", first.body);
    assert_eq!(first.body["ply"], 1);
    assert_eq!(
        first.body["moves"].as_array().map(Vec::len),
        Some(1),
        "the first move is listed once"
    );
    let retry = app.play(&bravo, &id, 1, cell(4, 4), Some(1)).await;
    assert_eq!(retry.status, StatusCode::OK, "{:?}", retry.body);
    assert_eq!(retry.body["ply"], 1, "the retry changed nothing");
    assert_eq!(retry.body["moves"].as_array().map(Vec::len), Some(1));
    assert_eq!(retry.body["board"], first.body["board"]);
    assert_eq!(retry.body["to_move"], 2);

    // A different move claiming the same ply is stale.
    let stale = app.play(&bravo, &id, 1, cell(5, 5), Some(1)).await;
    assert_eq!(
        (stale.status, stale.code()),
        (StatusCode::CONFLICT, "stale_ply")
    );
    assert_eq!(stale.body["error"]["details"]["expected_ply"], 2);
    // So is the opponent's move with the old number, and a number from the future.
    let stale = app.play(&alpha, &id, 1, cell(6, 6), Some(1)).await;
    assert_eq!(
        (stale.status, stale.code()),
        (StatusCode::CONFLICT, "stale_ply")
    );
    let stale = app.play(&alpha, &id, 1, cell(6, 6), Some(5)).await;
    assert_eq!(
        (stale.status, stale.code()),
        (StatusCode::CONFLICT, "stale_ply")
    );
    let s = app.state(&id, 1).await;
    assert_eq!(s["ply"], 1);
    assert_eq!(s["board"]["cells"][5][5], 0);
    assert_eq!(s["board"]["cells"][6][6], 0);

    // After the opponent moved, the same retry still answers 200 with the current state.
    assert_eq!(
        app.play(&alpha, &id, 1, cell(6, 6), Some(2)).await.status,
        StatusCode::OK
    );
    let late = app.play(&bravo, &id, 1, cell(4, 4), Some(1)).await;
    assert_eq!(late.status, StatusCode::OK, "{:?}", late.body);
    assert_eq!(late.body["ply"], 2);
    assert_eq!(late.body["to_move"], 1);
    assert_eq!(
        app.state(&id, 1).await["moves"].as_array().map(Vec::len),
        Some(2)
    );
}

#[tokio::test]
async fn two_copies_of_a_move_sent_at_once_are_played_once() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    let id = app
        .start_set(
            &alpha,
            &bravo,
            json!({"options": {"size": 11, "random_stones": 0}}),
        )
        .await;
    let (a, b) = tokio::join!(
        app.play(&bravo, &id, 1, cell(3, 3), Some(1)),
        app.play(&bravo, &id, 1, cell(3, 3), Some(1)),
    );
    assert_eq!(
        (a.status, b.status),
        (StatusCode::OK, StatusCode::OK),
        "{:?} {:?}",
        a.body,
        b.body
    );
    let s = app.state(&id, 1).await;
    assert_eq!(s["ply"], 1);
    assert_eq!(s["moves"].as_array().map(Vec::len), Some(1));

    // Two different moves for the same ply: exactly one is played, the other is stale.
    let (a, b) = tokio::join!(
        app.play(&alpha, &id, 1, cell(4, 4), Some(2)),
        app.play(&alpha, &id, 1, cell(5, 5), Some(2)),
    );
    let mut statuses = [a.status, b.status];
    statuses.sort();
    assert_eq!(
        statuses,
        [StatusCode::OK, StatusCode::CONFLICT],
        "{:?} {:?}",
        a.body,
        b.body
    );
    let loser = if a.status == StatusCode::CONFLICT {
        &a
    } else {
        &b
    };
    assert_eq!(loser.code(), "stale_ply");
    let s = app.state(&id, 1).await;
    assert_eq!(s["ply"], 2);
    let taken = [&s["board"]["cells"][4][4], &s["board"]["cells"][5][5]];
    assert_eq!(
        taken.iter().filter(|v| ***v == 2).count(),
        1,
        "one of the two stones is on the board"
    );
}
