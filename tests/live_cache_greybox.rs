//! The games held in memory are a cache over the database (SPEC section 12): a command is never
//! applied to a copy that another writer made stale, and every state served equals the state
//! rebuilt from the stored moves.
//!
//! Grey-box: these tests reach into the server (`app.arena`: the live cache's `sets_held` and
//! `forget_set`, and the stored rows through `app.arena.store.pool`) to compare the cache with
//! the database, which no route shows.

mod common;

use common::{seat_tokens, spawn_app};
use reqwest::StatusCode;
use serde_json::{Value, json};

fn cell(r: u8, c: u8) -> Value {
    json!({"cell": [r, c]})
}

/// Plays `mv` for seat 2 directly in the database, as another instance would: the move row and
/// the game row (board, ply, seat on move, clock, version) in one transaction, with no word to
/// this server.
async fn play_behind_the_servers_back(app: &common::TestApp, set_id: &str, r: u8, c: u8) {
    let pool = &app.arena.store.pool;
    let mut tx = pool.begin().await.expect("begin");
    let row: (String, String, String, i64, i64) = sqlx::query_as(
        "SELECT board, seat1_id, seat2_id, ply, version FROM games WHERE set_id = $1 AND game_no = 1",
    )
    .bind(set_id)
    .fetch_one(&mut *tx)
    .await
    .expect("game row");
    let (board, seat1, _seat2, ply, version) = row;
    let mut pos = hex::Position::from_compact(&board).expect("board");
    pos.play(hex::Move::Place(hex::Cell::new(r, c)))
        .expect("a legal move");
    let now = chrono::Utc::now().timestamp_millis();
    sqlx::query(
        "INSERT INTO moves (set_num, game_no, ply, seat, cell_row, cell_col, swap, elapsed_ms, at_ms) \
         VALUES ((SELECT num FROM sets WHERE sets.id = $1), 1, $2, 2, $3, $4, 0, 0, $5)",
    )
    .bind(set_id)
    .bind(ply + 1)
    .bind(i64::from(r))
    .bind(i64::from(c))
    .bind(now)
    .execute(&mut *tx)
    .await
    .expect("move row");
    let n = sqlx::query(
        "UPDATE games SET board = $1, ply = $2, to_move_id = $3, first2 = 0, turn_started_ms = $4, \
         deadline_ms = $5, version = $6 WHERE set_id = $7 AND game_no = 1 AND version = $8",
    )
    .bind(pos.to_compact())
    .bind(ply + 1)
    .bind(&seat1)
    .bind(now)
    .bind(now + 60_000)
    .bind(version + 1)
    .bind(set_id)
    .bind(version)
    .execute(&mut *tx)
    .await
    .expect("game row update")
    .rows_affected();
    assert_eq!(n, 1);
    tx.commit().await.expect("commit");
}

#[tokio::test]
async fn a_move_is_never_applied_to_a_copy_that_another_writer_made_stale() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    let set = app
        .start_set(
            &alpha,
            &bravo,
            json!({"options": {"size": 9, "random_stones": 0}}),
        )
        .await;
    let s = app.state(&set, 1).await;
    let [t1, t2] = seat_tokens(&s, &[("Alpha", &alpha), ("Bravo", &bravo)]);
    let r = app.play(t1, &set, 1, cell(4, 4), Some(1)).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    // The server now holds the game at ply 1 with seat 2 on move. Another writer plays seat 2's
    // move at ply 2 in the database.
    play_behind_the_servers_back(&app, &set, 0, 0).await;

    // Seat 2 moving again, as the stale copy would allow, is refused from the row as it is.
    let r = app.play(t2, &set, 1, cell(8, 8), None).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{:?}", r.body);
    assert_eq!(r.code(), "not_your_turn");
    assert_eq!(r.body["error"]["details"]["ply"], 2);
    // A move on the cell the other writer took is occupied.
    let r = app.play(t1, &set, 1, cell(0, 0), Some(3)).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{:?}", r.body);
    assert_eq!(r.code(), "occupied");
    // Seat 1's move is applied on the new row: three moves, the middle one from elsewhere.
    let r = app.play(t1, &set, 1, cell(5, 5), Some(3)).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let names: Vec<&str> = r.body["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m["name"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(names, ["e5", "a1", "f6"]);
    assert_eq!(r.body["board"]["cells"][0][0], 2);
    assert_eq!(r.body["to_move"], 2);
    let stored: (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM moves WHERE set_num = (SELECT num FROM sets WHERE sets.id = $1) AND game_no = 1")
            .bind(&set)
            .fetch_one(&app.arena.store.pool)
            .await
            .expect("count");
    assert_eq!(stored.0, 3);
}

#[tokio::test]
async fn every_state_served_equals_the_state_rebuilt_from_the_stored_moves() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    let set = app
        .start_set(&alpha, &bravo, json!({"options": {"size": 9}}))
        .await;
    let mut served = vec![];
    for _ in 0..12 {
        let s = app.state(&set, 1).await;
        let [t1, t2] = seat_tokens(&s, &[("Alpha", &alpha), ("Bravo", &bravo)]);
        let to_move = s["to_move"].as_u64().expect("on move");
        let token = if to_move == 1 { t1 } else { t2 };
        let k = s["ply"].as_i64().expect("ply");
        let legal = s["legal_moves"].as_array().expect("legal moves");
        let mv = legal[(k as usize * 7) % legal.len()].clone();
        let r = app.play(token, &set, 1, mv, Some(k + 1)).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        served.push(r.body);
    }
    // Forget the copies in memory; the state read back from the row and the moves is the same.
    app.arena.live.forget_set(&set);
    let rebuilt = app.state(&set, 1).await;
    let last = served.last().expect("a move");
    for key in [
        "moves",
        "board",
        "legal_moves",
        "seats",
        "opening",
        "ply",
        "to_move",
        "status",
    ] {
        assert_eq!(rebuilt[key], last[key], "{key} differs after a reload");
    }
    // The running clock counts down between the two answers; its deadline and the other
    // seat's clock do not.
    assert_eq!(rebuilt["clock"]["deadline"], last["clock"]["deadline"]);
    let idle = 2 - last["to_move"].as_u64().expect("on move") as usize;
    assert_eq!(
        rebuilt["clock"]["remaining_ms"][idle], last["clock"]["remaining_ms"][idle],
        "the clocks as stored"
    );
    // Each served state's board is its move list replayed through the engine.
    for s in &served {
        let opening: Vec<hex::Cell> = serde_json::from_value::<Vec<[u8; 2]>>(s["opening"].clone())
            .expect("opening")
            .into_iter()
            .map(hex::Cell::from)
            .collect();
        let mut pos = hex::Position::with_opening(9, &opening).expect("opening");
        for m in s["moves"].as_array().expect("moves") {
            let c = &m["cell"];
            let mv = hex::Move::Place(hex::Cell::new(
                c[0].as_u64().expect("row") as u8,
                c[1].as_u64().expect("col") as u8,
            ));
            pos.play(mv).expect("a stored move replays");
        }
        assert_eq!(json!(pos.cells()), s["board"]["cells"]);
    }
}

#[tokio::test]
async fn asking_for_games_that_do_not_exist_leaves_nothing_in_memory() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let held = app.arena.live.sets_held();
    for i in 0..40 {
        let r = app.get_game(&format!("set_nope{i}"), 1).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND);
        let r = app
            .play(&alpha, &format!("set_nope{i}"), 2, cell(0, 0), None)
            .await;
        assert_eq!(r.status, StatusCode::NOT_FOUND);
    }
    assert_eq!(app.arena.live.sets_held(), held);
}
