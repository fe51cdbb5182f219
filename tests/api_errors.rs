//! Every error code of SPEC section 10, provoked over HTTP, each time checking that the refused
//! request changed nothing: the set, both games (all but the running clock), balances and counts.

mod common;
use common::paths;

use common::{Resp, Spawn, TestApp, spawn_app, spawn_with};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// Two bots of different owners with one active set between them (creator Alpha, acceptor
/// Bravo; Bravo is seat 1 of game 1).
struct Fixture {
    app: TestApp,
    alpha_pt: String,
    alpha: String,
    bravo_pt: String,
    bravo: String,
    set_id: String,
}

async fn fixture_with(app: TestApp, options: Value) -> Fixture {
    let (_, alpha_pt, alpha) = app.player_with_bot("Alpha").await;
    let (_, bravo_pt, bravo) = app.player_with_bot("Bravo").await;
    let set_id = app
        .start_set(&alpha, &bravo, json!({"options": options, "stake": 25}))
        .await;
    Fixture {
        app,
        alpha_pt,
        alpha,
        bravo_pt,
        bravo,
        set_id,
    }
}

async fn fixture() -> Fixture {
    fixture_with(spawn_app().await, json!({"size": 11, "random_stones": 4})).await
}

impl Fixture {
    /// Everything a refused request must leave alone (clocks excluded: they run).
    async fn snapshot(&self) -> Value {
        let app = &self.app;
        let set = app.get_set(&self.set_id).await.body;
        let mut games = vec![];
        for n in 1..=2 {
            let mut s = app.state(&self.set_id, n).await;
            s.as_object_mut().expect("state object").remove("clock");
            games.push(s);
        }
        json!({
            "set": set,
            "games": games,
            "balances": [app.balance(&self.alpha_pt).await, app.balance(&self.bravo_pt).await],
            "sets": set_count(app).await,
        })
    }

    fn moves_url(&self, game_no: i64) -> String {
        paths::moves(&self.set_id, game_no)
    }

    /// A move by Bravo (seat 1 of game 1) in game 1.
    async fn bravo_plays(&self, mv: Value) -> Resp {
        self.app.play(&self.bravo, &self.set_id, 1, mv, None).await
    }
}

async fn set_count(app: &TestApp) -> usize {
    let r = app.list_sets("limit=100").await;
    r.body["sets"].as_array().map_or(0, Vec::len)
}

async fn count_rows(app: &TestApp, table: &str) -> i64 {
    sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM {table}")))
        .fetch_one(&app.arena.store.pool)
        .await
        .expect("count")
}

fn assert_error(r: &Resp, status: StatusCode, code: &str) {
    assert_eq!(r.status, status, "expected {code}, got {:?}", r.body);
    assert_eq!(r.code(), code, "{:?}", r.body);
    assert!(
        r.body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "a message: {:?}",
        r.body
    );
    assert!(
        r.body["error"]["details"].is_object(),
        "details is an object: {:?}",
        r.body
    );
}

/// A cell of game 1 that is still empty.
async fn empty_cell(f: &Fixture) -> Value {
    f.app.state(&f.set_id, 1).await["legal_moves"][0].clone()
}

#[tokio::test]
async fn malformed_json_is_a_bad_request_and_changes_nothing() {
    let f = fixture().await;
    let before = f.snapshot().await;
    let r = f
        .app
        .post_raw(&f.moves_url(1), Some(&f.bravo), b"{\"cell\": [1, ".to_vec())
        .await;
    assert_error(&r, StatusCode::BAD_REQUEST, "bad_request");
    let r = f
        .app
        .post_raw(&f.moves_url(1), Some(&f.bravo), b"[1, 2]".to_vec())
        .await;
    // Well-formed JSON that is not an object breaks move_schema: invalid_move, at the root.
    assert_error(&r, StatusCode::BAD_REQUEST, "invalid_move");
    assert_eq!(r.body["error"]["details"]["instance_path"], "");
    let r = f
        .app
        .create_set_raw(Some(&f.alpha), b"{game: hex}".to_vec())
        .await;
    assert_error(&r, StatusCode::BAD_REQUEST, "bad_request");
    let r = f.app.create_player_raw(b"{\"name\": \"x\"".to_vec()).await;
    assert_error(&r, StatusCode::BAD_REQUEST, "bad_request");
    assert_eq!(f.snapshot().await, before);
    assert_eq!(count_rows(&f.app, "players").await, 2);
}

#[tokio::test]
async fn out_of_range_stakes_clocks_and_queries_are_bad_requests_naming_the_field() {
    let f = fixture().await;
    let mv = empty_cell(&f).await;
    let before = f.snapshot().await;
    for (body, field) in [
        (json!({"game": "hex", "stake": 5}), "stake"),
        (json!({"game": "hex", "stake": 1001}), "stake"),
        (
            json!({"game": "hex", "clock": {"initial_s": 5}}),
            "clock.initial_s",
        ),
        (
            json!({"game": "hex", "clock": {"initial_s": 60, "increment_s": 11}}),
            "clock.increment_s",
        ),
    ] {
        let r = f.app.create_set(Some(&f.alpha), body.clone()).await;
        assert_error(&r, StatusCode::BAD_REQUEST, "bad_request");
        assert_eq!(
            r.body["error"]["details"]["field"], field,
            "{body}: {:?}",
            r.body
        );
    }
    let r = f
        .app
        .create_set(Some(&f.alpha), json!({"game": "hex", "stakes": 10}))
        .await;
    assert_error(&r, StatusCode::BAD_REQUEST, "bad_request");
    let url = format!("{}?ply=one", f.moves_url(1));
    let r = f.app.post(&url, Some(&f.bravo), mv).await;
    assert_error(&r, StatusCode::BAD_REQUEST, "bad_request");
    assert_eq!(f.snapshot().await, before);
}

#[tokio::test]
async fn a_move_against_move_schema_is_invalid_move_with_the_instance_path() {
    let f = fixture().await;
    let before = f.snapshot().await;
    for (mv, path) in [
        (json!({"cell": [1]}), "/cell"),
        (json!({"cell": [1, 2, 3]}), "/cell"),
        (json!({"cell": "a1"}), "/cell"),
        (json!({"cell": [1, 19]}), "/cell/1"),
        (json!({"cell": [-1, 2]}), "/cell/0"),
        (json!({"cell": [1.5, 2]}), "/cell/0"),
        (json!({"swap": false}), "/swap"),
        (json!({"pass": true}), ""),
    ] {
        let r = f.bravo_plays(mv.clone()).await;
        assert_error(&r, StatusCode::BAD_REQUEST, "invalid_move");
        assert_eq!(
            r.body["error"]["details"]["instance_path"], path,
            "{mv}: {:?}",
            r.body
        );
    }
    // The schema alone accepts these two; the server requires exactly one of cell or swap.
    for mv in [json!({}), json!({"cell": [1, 2], "swap": true})] {
        let r = f.bravo_plays(mv.clone()).await;
        assert_error(&r, StatusCode::BAD_REQUEST, "invalid_move");
    }
    // An empty body reads as {} and is no move either.
    let r = f
        .app
        .post_raw(&f.moves_url(1), Some(&f.bravo), vec![])
        .await;
    assert_error(&r, StatusCode::BAD_REQUEST, "invalid_move");
    assert_eq!(f.snapshot().await, before);
}

#[tokio::test]
async fn set_options_against_options_schema_are_invalid_options_with_the_instance_path() {
    let f = fixture().await;
    let before = f.snapshot().await;
    for (options, path) in [
        (json!({"size": 8}), "/size"),
        (json!({"size": 20}), "/size"),
        (json!({"size": "11"}), "/size"),
        (json!({"random_stones": 11}), "/random_stones"),
        (json!({"random_stones": -1}), "/random_stones"),
        (json!({"colour": "red"}), ""),
        (json!([11]), ""),
    ] {
        let r = f
            .app
            .create_set(
                Some(&f.alpha),
                json!({"game": "hex", "options": options.clone()}),
            )
            .await;
        assert_error(&r, StatusCode::BAD_REQUEST, "invalid_options");
        assert_eq!(
            r.body["error"]["details"]["instance_path"], path,
            "{options}: {:?}",
            r.body
        );
    }
    let r = f
        .app
        .create_practice_set(Some(&f.alpha), json!({"options": {"size": 7}}))
        .await;
    assert_error(&r, StatusCode::BAD_REQUEST, "invalid_options");
    assert_eq!(f.snapshot().await, before);
}

#[tokio::test]
async fn requests_without_a_valid_token_are_unauthorized_and_change_nothing() {
    let f = fixture().await;
    let mv = empty_cell(&f).await;
    let before = f.snapshot().await;
    let url = f.moves_url(1);
    for token in [None, Some("hxb_0000"), Some(f.bravo_pt.as_str()), Some("")] {
        let r = f
            .app
            .call(Method::POST, &url, token, Some(mv.clone()))
            .await;
        assert_error(&r, StatusCode::UNAUTHORIZED, "unauthorized");
    }
    let r = f.app.resign(None, &f.set_id, 1, json!({})).await;
    assert_error(&r, StatusCode::UNAUTHORIZED, "unauthorized");
    let r = f.app.create_set(None, json!({"game": "hex"})).await;
    assert_error(&r, StatusCode::UNAUTHORIZED, "unauthorized");
    let r = f
        .app
        .create_bot(Some(&f.bravo), json!({"name": "Charlie"}))
        .await;
    assert_error(&r, StatusCode::UNAUTHORIZED, "unauthorized");
    let r = f.app.get_player(Some(&f.alpha)).await;
    assert_error(&r, StatusCode::UNAUTHORIZED, "unauthorized");
    let r = f
        .app
        .create_grant(Some(&f.alpha_pt), json!({"player": "x", "amount": 5}))
        .await;
    assert_error(&r, StatusCode::UNAUTHORIZED, "unauthorized");
    assert_eq!(f.snapshot().await, before);
    assert_eq!(count_rows(&f.app, "bots").await, 2);
}

#[tokio::test]
async fn acting_on_a_set_that_is_not_yours_to_touch_is_forbidden() {
    let f = fixture().await;
    let (_, _, charlie) = f.app.player_with_bot("Charlie").await;
    // An open lobby set of Alpha and a private challenge from Alpha to Bravo.
    let lobby = f
        .app
        .create_set(Some(&f.alpha), json!({"game": "hex"}))
        .await
        .body["id"]
        .as_str()
        .expect("id")
        .to_string();
    let private = f
        .app
        .create_set(Some(&f.alpha), json!({"game": "hex", "opponent": "Bravo"}))
        .await
        .body["id"]
        .as_str()
        .expect("id")
        .to_string();
    let open_before = [
        f.app.get_set(&lobby).await.body,
        f.app.get_set(&private).await.body,
    ];
    let before = f.snapshot().await;

    let r = f.app.accept_set(Some(&f.alpha), &lobby, json!({})).await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    let r = f.app.accept_set(Some(&charlie), &private, json!({})).await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    let r = f.app.cancel_set(Some(&f.bravo), &lobby, json!({})).await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
    let r = f.app.decline_set(Some(&charlie), &private, json!({})).await;
    assert_error(&r, StatusCode::FORBIDDEN, "forbidden");

    assert_eq!(f.snapshot().await, before);
    let open_after = [
        f.app.get_set(&lobby).await.body,
        f.app.get_set(&private).await.body,
    ];
    assert_eq!(open_after, open_before);
    assert_eq!(open_after[0]["status"], "open");
    assert_eq!(open_after[1]["acceptor"], Value::Null);
}

#[tokio::test]
async fn a_bot_without_a_seat_in_the_game_gets_not_your_seat() {
    let f = fixture().await;
    let (_, _, charlie) = f.app.player_with_bot("Charlie").await;
    let mv = empty_cell(&f).await;
    let before = f.snapshot().await;
    let r = f.app.play(&charlie, &f.set_id, 1, mv, Some(1)).await;
    assert_error(&r, StatusCode::FORBIDDEN, "not_your_seat");
    let r = f.app.resign(Some(&charlie), &f.set_id, 1, json!({})).await;
    assert_error(&r, StatusCode::FORBIDDEN, "not_your_seat");
    assert_eq!(f.snapshot().await, before);
}

#[tokio::test]
async fn a_bot_with_three_strikes_in_a_day_is_suspended_from_staked_sets() {
    let f = fixture().await;
    let (_, _, charlie) = f.app.player_with_bot("Charlie").await;
    let lobby = f
        .app
        .create_set(Some(&f.alpha), json!({"game": "hex"}))
        .await
        .body["id"]
        .as_str()
        .expect("id")
        .to_string();
    let charlie_id = f.app.get_bot("Charlie").await.body["id"]
        .as_str()
        .expect("bot id")
        .to_string();
    let now = f.app.arena.now_ms();
    for i in 0..3_i64 {
        sqlx::query("INSERT INTO strikes (bot_id, set_id, game_no, at_ms) VALUES ($1, $2, $3, $4)")
            .bind(&charlie_id)
            .bind(format!("set_earlier{i}"))
            .bind(1_i64)
            .bind(now - 3_600_000 * (3 - i))
            .execute(&f.app.arena.store.pool)
            .await
            .expect("strike inserted");
    }
    let profile = f.app.get_bot("Charlie").await.body;
    assert_eq!(profile["strikes"].as_array().map(Vec::len), Some(3));
    assert!(profile["suspended_until"].is_string(), "{profile}");
    let before = f.snapshot().await;
    let lobby_before = f.app.get_set(&lobby).await.body;

    let r = f
        .app
        .create_set(Some(&charlie), json!({"game": "hex", "stake": 10}))
        .await;
    assert_error(&r, StatusCode::FORBIDDEN, "suspended");
    let r = f.app.accept_set(Some(&charlie), &lobby, json!({})).await;
    assert_error(&r, StatusCode::FORBIDDEN, "suspended");

    assert_eq!(f.snapshot().await, before);
    assert_eq!(f.app.get_set(&lobby).await.body, lobby_before);
    // Two strikes are not enough: Bravo with two may still accept.
    let bravo_id = f.app.get_bot("Bravo").await.body["id"]
        .as_str()
        .expect("bot id")
        .to_string();
    for i in 0..2_i64 {
        sqlx::query("INSERT INTO strikes (bot_id, set_id, game_no, at_ms) VALUES ($1, $2, $3, $4)")
            .bind(&bravo_id)
            .bind(format!("set_earlier{i}"))
            .bind(2_i64)
            .bind(now - 1000)
            .execute(&f.app.arena.store.pool)
            .await
            .expect("strike inserted");
    }
    let r = f.app.accept_set(Some(&f.bravo), &lobby, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
}

#[tokio::test]
async fn bots_of_one_owner_may_not_play_a_staked_set_against_each_other() {
    let f = fixture().await;
    let sibling = f.app.bot(&f.alpha_pt, "AlphaTwo").await;
    let lobby = f
        .app
        .create_set(Some(&f.alpha), json!({"game": "hex", "stake": 30}))
        .await
        .body["id"]
        .as_str()
        .expect("id")
        .to_string();
    let before = f.snapshot().await;
    let lobby_before = f.app.get_set(&lobby).await.body;

    let r = f
        .app
        .create_set(Some(&sibling), json!({"game": "hex", "opponent": "Alpha"}))
        .await;
    assert_error(&r, StatusCode::FORBIDDEN, "same_owner");
    let r = f.app.accept_set(Some(&sibling), &lobby, json!({})).await;
    assert_error(&r, StatusCode::FORBIDDEN, "same_owner");

    assert_eq!(f.snapshot().await, before);
    let lobby_after = f.app.get_set(&lobby).await.body;
    assert_eq!(lobby_after, lobby_before);
    assert_eq!(lobby_after["status"], "open");
}

#[tokio::test]
async fn unknown_sets_games_bots_and_routes_are_not_found() {
    let f = fixture().await;
    let mv = empty_cell(&f).await;
    let before = f.snapshot().await;
    let missing = "set_01J000000000000000000000";
    for path in [
        paths::set(missing),
        paths::game(missing, 1),
        paths::game(&f.set_id, 3),
        paths::game(&f.set_id, 0),
        paths::game(&f.set_id, "x"),
        paths::bot("NoSuchBot"),
        paths::not_a_route(),
        paths::game_contract("chess"),
    ] {
        let r = f.app.get(&path).await;
        assert_error(&r, StatusCode::NOT_FOUND, "not_found");
    }
    let r = f.app.play(&f.bravo, missing, 1, mv.clone(), None).await;
    assert_error(&r, StatusCode::NOT_FOUND, "not_found");
    let r = f.app.play(&f.bravo, &f.set_id, 3, mv, None).await;
    assert_error(&r, StatusCode::NOT_FOUND, "not_found");
    let r = f.app.accept_set(Some(&f.bravo), &missing, json!({})).await;
    assert_error(&r, StatusCode::NOT_FOUND, "not_found");
    let r = f
        .app
        .create_set(Some(&f.alpha), json!({"game": "hex", "opponent": "Nobody"}))
        .await;
    assert_error(&r, StatusCode::NOT_FOUND, "not_found");
    let r = f
        .app
        .create_set(Some(&f.alpha), json!({"game": "chess"}))
        .await;
    assert_error(&r, StatusCode::NOT_FOUND, "not_found");
    assert_eq!(f.snapshot().await, before);
}

#[tokio::test]
async fn moving_out_of_turn_is_not_your_turn() {
    let f = fixture().await;
    let mv = empty_cell(&f).await;
    let before = f.snapshot().await;
    // Alpha is seat 2 of game 1, and game 2 has not started.
    let r = f.app.play(&f.alpha, &f.set_id, 1, mv.clone(), None).await;
    assert_error(&r, StatusCode::CONFLICT, "not_your_turn");
    assert_eq!(r.body["error"]["details"]["to_move"], 1);
    let r = f
        .app
        .play(&f.alpha, &f.set_id, 1, mv.clone(), Some(1))
        .await;
    assert_error(&r, StatusCode::CONFLICT, "not_your_turn");
    let r = f.app.play(&f.alpha, &f.set_id, 2, mv.clone(), None).await;
    assert_error(&r, StatusCode::CONFLICT, "not_your_turn");
    let r = f.app.resign(Some(&f.alpha), &f.set_id, 2, json!({})).await;
    assert_error(&r, StatusCode::CONFLICT, "not_your_turn");
    assert_eq!(f.snapshot().await, before);
}

#[tokio::test]
async fn a_move_for_another_ply_is_stale_ply() {
    let f = fixture().await;
    let mv = empty_cell(&f).await;
    let before = f.snapshot().await;
    for k in [0, 2, 3, -1] {
        let r = f
            .app
            .play(&f.bravo, &f.set_id, 1, mv.clone(), Some(k))
            .await;
        assert_error(&r, StatusCode::CONFLICT, "stale_ply");
        assert_eq!(r.body["error"]["details"]["expected_ply"], 1, "?ply={k}");
    }
    assert_eq!(f.snapshot().await, before);
    // The right number goes through.
    let r = f.app.play(&f.bravo, &f.set_id, 1, mv, Some(1)).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
}

#[tokio::test]
async fn a_move_or_resignation_after_the_game_ended_is_game_over_with_the_result() {
    let f = fixture().await;
    let r = f.app.resign(Some(&f.bravo), &f.set_id, 1, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let mv = r.body["board"]["cells"]
        .as_array()
        .and_then(|rows| {
            rows.iter().enumerate().find_map(|(i, row)| {
                row.as_array()?
                    .iter()
                    .position(|v| *v == 0)
                    .map(|j| json!({"cell": [i, j]}))
            })
        })
        .expect("an empty cell");
    let before = f.snapshot().await;
    for (token, ply) in [(&f.bravo, None), (&f.alpha, None), (&f.bravo, Some(1))] {
        let r = f.app.play(token, &f.set_id, 1, mv.clone(), ply).await;
        assert_error(&r, StatusCode::CONFLICT, "game_over");
        assert_eq!(r.body["error"]["details"]["result"]["winner"], 2);
        assert_eq!(
            r.body["error"]["details"]["result"]["reason"],
            "resignation"
        );
    }
    let r = f.app.resign(Some(&f.alpha), &f.set_id, 1, json!({})).await;
    assert_error(&r, StatusCode::CONFLICT, "game_over");
    assert_eq!(r.body["error"]["details"]["result"]["winner_bot"], "Alpha");
    assert_eq!(f.snapshot().await, before);
}

#[tokio::test]
async fn accepting_or_closing_a_set_that_is_not_open_is_set_not_open() {
    let f = fixture().await;
    let (_, _, charlie) = f.app.player_with_bot("Charlie").await;
    let cancelled = f
        .app
        .create_set(Some(&f.alpha), json!({"game": "hex"}))
        .await
        .body["id"]
        .as_str()
        .expect("id")
        .to_string();
    let r = f
        .app
        .cancel_set(Some(&f.alpha), &cancelled, json!({}))
        .await;
    assert_eq!(r.body["status"], "cancelled");
    let before = f.snapshot().await;
    let cancelled_before = f.app.get_set(&cancelled).await.body;

    let r = f.app.accept_set(Some(&charlie), &f.set_id, json!({})).await;
    assert_error(&r, StatusCode::CONFLICT, "set_not_open");
    assert_eq!(r.body["error"]["details"]["status"], "active");
    let r = f.app.cancel_set(Some(&f.alpha), &f.set_id, json!({})).await;
    assert_error(&r, StatusCode::CONFLICT, "set_not_open");
    let r = f
        .app
        .accept_set(Some(&charlie), &cancelled, json!({}))
        .await;
    assert_error(&r, StatusCode::CONFLICT, "set_not_open");
    // The creator repeating its cancel is a retry (SPEC 14): the same success, nothing changes.
    let r = f
        .app
        .cancel_set(Some(&f.alpha), &cancelled, json!({}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["status"], "cancelled");

    assert_eq!(f.snapshot().await, before);
    assert_eq!(f.app.get_set(&cancelled).await.body, cancelled_before);
}

#[tokio::test]
async fn a_stake_above_an_owners_balance_is_insufficient_balance() {
    let app = spawn_with(Spawn {
        starting_balance: 100,
        ..Spawn::default()
    })
    .await;
    let f = fixture_with(app, json!({})).await;
    assert_eq!(f.app.balance(&f.alpha_pt).await, 75, "25 in escrow");
    let (rich_id, rich_pt, rich) = f.app.player_with_bot("Rich").await;
    let r = f
        .app
        .create_grant(Some("op-secret"), json!({"player": rich_id, "amount": 900}))
        .await;
    assert_eq!(r.body["balance"], 1000, "{:?}", r.body);
    let open = f
        .app
        .create_set(Some(&rich), json!({"game": "hex", "stake": 300}))
        .await
        .body["id"]
        .as_str()
        .expect("id")
        .to_string();
    let before = f.snapshot().await;
    let open_before = f.app.get_set(&open).await.body;

    // At creation: the creator's owner has 75.
    let r = f
        .app
        .create_set(Some(&f.alpha), json!({"game": "hex", "stake": 80}))
        .await;
    assert_error(&r, StatusCode::CONFLICT, "insufficient_balance");
    // At acceptance: the acceptor's owner has 75 < 300.
    let r = f.app.accept_set(Some(&f.bravo), &open, json!({})).await;
    assert_error(&r, StatusCode::CONFLICT, "insufficient_balance");

    assert_eq!(f.snapshot().await, before);
    assert_eq!(f.app.get_set(&open).await.body, open_before);
    assert_eq!(
        f.app.balance(&rich_pt).await,
        1000,
        "nothing left in escrow"
    );
}

#[tokio::test]
async fn a_body_over_sixteen_kib_is_payload_too_large() {
    let f = fixture().await;
    let mv = empty_cell(&f).await;
    let before = f.snapshot().await;
    let url = f.moves_url(1);
    let mut big = serde_json::to_vec(&mv).expect("json");
    big.resize(16 * 1024 + 1, b' ');
    let r = f.app.post_raw(&url, Some(&f.bravo), big).await;
    assert_error(&r, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
    let name = "n".repeat(20_000);
    let r = f.app.create_player(json!({ "name": name })).await;
    assert_error(&r, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
    assert_eq!(f.snapshot().await, before);
    assert_eq!(count_rows(&f.app, "players").await, 2);

    // Exactly 16 KiB is still accepted.
    let mut fits = serde_json::to_vec(&mv).expect("json");
    fits.resize(16 * 1024, b' ');
    let r = f.app.post_raw(&url, Some(&f.bravo), fits).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["ply"], 1);
}

#[tokio::test]
async fn a_stone_on_a_taken_cell_is_occupied() {
    let f = fixture().await;
    let opening = f.app.state(&f.set_id, 1).await["opening"].clone();
    let before = f.snapshot().await;
    for stone in opening.as_array().expect("opening") {
        let r = f.bravo_plays(json!({"cell": stone})).await;
        assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "occupied");
    }
    assert_eq!(f.snapshot().await, before);
    // A stone played in the game blocks its cell too.
    let mv = empty_cell(&f).await;
    assert_eq!(f.bravo_plays(mv.clone()).await.status, StatusCode::OK);
    let before = f.snapshot().await;
    let r = f.app.play(&f.alpha, &f.set_id, 1, mv, Some(2)).await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "occupied");
    assert_eq!(f.snapshot().await, before);
}

#[tokio::test]
async fn a_cell_that_passes_the_schema_but_lies_outside_the_board_is_off_board() {
    let f = fixture().await;
    let before = f.snapshot().await;
    for c in [[11, 0], [0, 11], [18, 18], [10, 11]] {
        let r = f.bravo_plays(json!({"cell": c})).await;
        assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "off_board");
    }
    assert_eq!(f.snapshot().await, before);
}

#[tokio::test]
async fn a_swap_outside_seat_twos_first_move_without_random_stones_is_swap_not_allowed() {
    let f = fixture_with(spawn_app().await, json!({"size": 9, "random_stones": 0})).await;
    let before = f.snapshot().await;
    let r = f.bravo_plays(json!({"swap": true})).await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "swap_not_allowed");
    assert_eq!(f.snapshot().await, before);
    // With random stones (the default) the swap is never allowed.
    let g = fixture().await;
    assert_eq!(
        g.bravo_plays(empty_cell(&g).await).await.status,
        StatusCode::OK
    );
    let before = g.snapshot().await;
    let r = g
        .app
        .play(&g.alpha, &g.set_id, 1, json!({"swap": true}), Some(2))
        .await;
    assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "swap_not_allowed");
    assert_eq!(g.snapshot().await, before);
}

#[tokio::test]
async fn registering_too_often_is_rate_limited_with_retry_after() {
    let app = spawn_with(Spawn {
        register_per_min: 2,
        ..Spawn::default()
    })
    .await;
    app.player("one").await;
    app.player("two").await;
    let r = app.create_player(json!({"name": "three"})).await;
    assert_error(&r, StatusCode::TOO_MANY_REQUESTS, "rate_limited");
    assert_eq!(r.body["error"]["details"]["limit"], "register");
    let retry = r
        .headers
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    assert!(
        retry.is_some_and(|s| (1..=60).contains(&s)),
        "Retry-After in seconds: {:?}",
        r.headers
    );
    assert_eq!(
        count_rows(&app, "players").await,
        2,
        "the refused registration created nobody"
    );
}

#[tokio::test]
async fn creating_sets_too_often_is_rate_limited_per_bot() {
    let app = spawn_with(Spawn {
        sets_per_min: 2,
        ..Spawn::default()
    })
    .await;
    let (_, pt, alpha) = app.player_with_bot("Alpha").await;
    for _ in 0..2 {
        assert_eq!(
            app.create_set(Some(&alpha), json!({"game": "hex"}))
                .await
                .status,
            StatusCode::CREATED
        );
    }
    let balance = app.balance(&pt).await;
    let r = app.create_set(Some(&alpha), json!({"game": "hex"})).await;
    assert_error(&r, StatusCode::TOO_MANY_REQUESTS, "rate_limited");
    assert_eq!(r.body["error"]["details"]["limit"], "create_set");
    assert!(r.headers.get("retry-after").is_some());
    assert_eq!(set_count(&app).await, 2);
    assert_eq!(app.balance(&pt).await, balance);
    // The limit is per bot: another bot still creates sets.
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    assert_eq!(
        app.create_set(Some(&bravo), json!({"game": "hex"}))
            .await
            .status,
        StatusCode::CREATED
    );
}

#[tokio::test]
async fn each_bad_query_parameter_is_a_400_naming_that_parameter_and_what_it_takes() {
    let f = fixture().await;
    let mv = empty_cell(&f).await;
    let before = f.snapshot().await;
    let moves = f.moves_url(1);
    for (q, field, expected) in [
        ("ply=4.0", "ply", "an integer"),
        ("ply=two", "ply", "an integer"),
        ("ply=", "ply", "an integer"),
    ] {
        let r = f
            .app
            .post(&format!("{moves}?{q}"), Some(&f.bravo), mv.clone())
            .await;
        assert_error(&r, StatusCode::BAD_REQUEST, "bad_request");
        assert_eq!(r.body["error"]["details"]["field"], field, "{q}");
        assert_eq!(r.body["error"]["details"]["expected"], expected, "{q}");
        let msg = r.body["error"]["message"].as_str().expect("message");
        assert!(msg.contains(&format!("'{field}'")), "{q}: {msg}");
        assert!(!msg.contains("wait_s"), "{q}: {msg}");
    }
    let game = paths::game(&f.set_id, 1);
    for (path, field, expected) in [
        (
            paths::with_query(paths::leaderboard(), "provisional=yes"),
            "provisional",
            "true or false",
        ),
        (
            paths::with_query(paths::bots(), "online=1"),
            "online",
            "true or false",
        ),
        (
            format!("{game}?wait_s=-1"),
            "wait_s",
            "a non-negative integer",
        ),
        (format!("{game}?after_ply=x"), "after_ply", "an integer"),
        (
            paths::with_query(paths::sets(), "limit=ten"),
            "limit",
            "an integer",
        ),
    ] {
        let r = f.app.get(&path).await;
        assert_error(&r, StatusCode::BAD_REQUEST, "bad_request");
        assert_eq!(r.body["error"]["details"]["field"], field, "{path}");
        assert_eq!(r.body["error"]["details"]["expected"], expected, "{path}");
        let msg = r.body["error"]["message"].as_str().expect("message");
        assert!(msg.contains(&format!("'{field}'")), "{path}: {msg}");
    }
    assert_eq!(f.snapshot().await, before);
}

#[tokio::test]
async fn a_different_move_for_a_ply_already_played_says_that_ply_was_played_and_by_what() {
    let f = fixture().await;
    let first = empty_cell(&f).await;
    let r = f
        .app
        .play(&f.bravo, &f.set_id, 1, first.clone(), Some(1))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let second = empty_cell(&f).await;
    let r = f
        .app
        .play(&f.alpha, &f.set_id, 1, second.clone(), Some(2))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let before = f.snapshot().await;
    // Bravo (seat 1, on move at ply 3) resends ply 1 with another cell.
    let third = empty_cell(&f).await;
    let r = f.app.play(&f.bravo, &f.set_id, 1, third, Some(1)).await;
    assert_error(&r, StatusCode::CONFLICT, "stale_ply");
    let d = &r.body["error"]["details"];
    assert_eq!(
        (d["expected_ply"].as_i64(), d["ply"].as_i64()),
        (Some(3), Some(2))
    );
    assert_eq!(d["played"]["ply"], 1);
    assert_eq!(d["played"]["seat"], 1);
    assert_eq!(d["played"]["move"], first);
    let msg = r.body["error"]["message"].as_str().expect("message");
    assert!(
        msg.starts_with("ply 1 was already played (seat 1 played "),
        "{msg}"
    );
    assert!(msg.ends_with("the next move is ply 3"), "{msg}");
    assert_eq!(f.snapshot().await, before);
}
