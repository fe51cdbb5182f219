//! Every error code of SPEC section 10, provoked over HTTP, each time checking that the refused
//! request changed nothing: the set, both games (all but the running clock), balances and counts.

mod common;
use common::paths;

use common::errors::{assert_error, empty_cell, fixture, fixture_with, set_count};
use common::{Spawn, TestApp, spawn_app, spawn_with};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// The bots `GET /v1/bots` lists: every bot, retired ones too (up to 1000).
async fn bot_count(app: &TestApp) -> usize {
    let r = app.list_bots("").await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    r.body["bots"].as_array().map_or(0, Vec::len)
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
    // A field unknown inside `clock` is named by its whole path, with what `clock` allows,
    // on every request that takes a clock; so is a value of the wrong type there.
    let allowed = json!(["initial_s", "increment_s"]);
    for (body, field, message) in [
        (
            json!({"game": "hex", "clock": {"initial": 60}}),
            "clock.initial",
            "unknown field 'clock.initial'",
        ),
        (
            json!({"game": "hex", "clock": {"initial_s": "60"}}),
            "clock.initial_s",
            "'clock.initial_s' must be an integer",
        ),
        (
            json!({"game": "hex", "clock": 60}),
            "clock",
            "'clock' must be a JSON object",
        ),
    ] {
        let r = f.app.create_set(Some(&f.alpha), body.clone()).await;
        assert_error(&r, StatusCode::BAD_REQUEST, "bad_request");
        assert_eq!(r.body["error"]["details"]["field"], field, "{body}");
        assert_eq!(r.body["error"]["message"], message, "{body}");
    }
    let r = f
        .app
        .create_practice_set(Some(&f.alpha), json!({"clock": {"initial": 60}}))
        .await;
    assert_error(&r, StatusCode::BAD_REQUEST, "bad_request");
    assert_eq!(r.body["error"]["details"]["field"], "clock.initial");
    assert_eq!(r.body["error"]["details"]["allowed"], allowed);
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
    // An error about the body itself names it (its pointer is empty) and says what a move is.
    let r = f.bravo_plays(json!("e5")).await;
    assert_error(&r, StatusCode::BAD_REQUEST, "invalid_move");
    let message = r.body["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("move does not match move_schema: the move: \"e5\" is not of type")
            && message.ends_with(r#"a move is {"cell": [row, col]} or {"swap": true}"#),
        "{message}"
    );
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
    assert_eq!(bot_count(&f.app).await, 2);
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
    // The refusal says what is allowed: an unstaked set.
    assert_eq!(
        r.body["error"]["details"]["allowed_stake"], 0,
        "{:?}",
        r.body
    );
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
    // A set nobody has accepted (it has no games yet).
    let open = f
        .app
        .create_set(Some(&f.alpha), json!({"game": "hex", "stake": 0}))
        .await;
    assert_eq!(open.status, StatusCode::CREATED, "{}", open.body);
    let open_id = open.body["id"].as_str().expect("set id").to_string();
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
    // The message names what is missing: the set, or the game of a set that exists.
    let r = f.app.play(&f.bravo, missing, 1, mv.clone(), None).await;
    assert_error(&r, StatusCode::NOT_FOUND, "not_found");
    assert_eq!(
        r.body["error"]["message"],
        format!("no set '{missing}'"),
        "{}",
        r.body
    );
    let r = f.app.play(&f.bravo, &f.set_id, 3, mv, None).await;
    assert_error(&r, StatusCode::NOT_FOUND, "not_found");
    assert_eq!(
        r.body["error"]["message"],
        format!("no game 3 in set '{}'", f.set_id),
        "{}",
        r.body
    );
    // The open set's games do not exist yet: the message says when they will.
    let r = f
        .app
        .play(&f.bravo, &open_id, 1, json!({"cell": [0, 0]}), None)
        .await;
    assert_error(&r, StatusCode::NOT_FOUND, "not_found");
    assert_eq!(
        r.body["error"]["message"],
        format!("no game 1 in set '{open_id}': its games start when it is accepted")
    );
    assert_eq!(r.body["error"]["details"]["set_status"], "open");
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
    // Once cancelled, the open set never will have games: the message says so instead.
    let r = f.app.cancel_set(Some(&f.alpha), &open_id, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let r = f
        .app
        .play(&f.bravo, &open_id, 2, json!({"cell": [0, 0]}), None)
        .await;
    assert_error(&r, StatusCode::NOT_FOUND, "not_found");
    assert_eq!(
        r.body["error"]["message"],
        format!("no game 2 in set '{open_id}': it was never played: the set is cancelled")
    );
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
    assert_eq!(
        r.body["error"]["message"],
        "the other seat is on move (seat 1, after 0 moves); wait for your turn"
    );
    let r = f
        .app
        .play(&f.alpha, &f.set_id, 1, mv.clone(), Some(1))
        .await;
    assert_error(&r, StatusCode::CONFLICT, "not_your_turn");
    // Another ply is `stale_ply` (SPEC 5), whose message says first whose turn it is: "this
    // move would be ply 1, not 2" sent a bot author's bot to retry at ply 1, out of turn.
    for k in [2, 5] {
        let r = f
            .app
            .play(&f.alpha, &f.set_id, 1, mv.clone(), Some(k))
            .await;
        assert_error(&r, StatusCode::CONFLICT, "stale_ply");
        assert_eq!(r.body["error"]["details"]["to_move"], 1, "?ply={k}");
        assert_eq!(
            r.body["error"]["message"],
            format!(
                "the other seat is on move (seat 1, after 0 moves): wait for your turn; \
                 ply {k} is not the next ply either"
            )
        );
    }
    // Game 2 has not started: the same details, with nothing played and no seat on move.
    let r = f.app.play(&f.alpha, &f.set_id, 2, mv.clone(), None).await;
    assert_error(&r, StatusCode::CONFLICT, "not_your_turn");
    assert_eq!(
        r.body["error"]["details"],
        json!({"to_move": null, "ply": 0, "started": false})
    );
    let r = f.app.resign(Some(&f.alpha), &f.set_id, 2, json!({})).await;
    assert_error(&r, StatusCode::CONFLICT, "not_your_turn");
    assert_eq!(r.body["error"]["details"]["started"], false);
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
        assert_eq!(r.body["error"]["details"]["given_ply"], k, "?ply={k}");
        assert_eq!(r.body["error"]["details"]["ply"], 0, "?ply={k}");
        assert_eq!(
            r.body["error"]["details"].get("to_move"),
            None,
            "on move: ?ply={k}"
        );
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
async fn a_stone_on_a_taken_cell_is_occupied() {
    let f = fixture().await;
    let opening = f.app.state(&f.set_id, 1).await["opening"].clone();
    let before = f.snapshot().await;
    for stone in opening.as_array().expect("opening") {
        let r = f.bravo_plays(json!({"cell": stone})).await;
        assert_error(&r, StatusCode::UNPROCESSABLE_ENTITY, "occupied");
        assert_eq!(
            r.body["error"]["message"],
            format!(
                "the cell already holds a stone: [{}, {}]",
                stone[0], stone[1]
            )
        );
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
    // A parameter given twice is named too (an outside tester's F8: `details` was empty).
    for path in [
        paths::with_query(paths::sets(), "limit=2&limit=3"),
        paths::with_query(paths::tournaments(), "limit=2&limit=3"),
    ] {
        let r = f.app.get(&path).await;
        assert_error(&r, StatusCode::BAD_REQUEST, "bad_request");
        assert_eq!(r.body["error"]["details"]["field"], "limit", "{path}");
        let msg = r.body["error"]["message"].as_str().expect("message");
        assert!(msg.contains("'limit'"), "{path}: {msg}");
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

/// A NUL character (U+0000) in an id, a name or a parameter: PostgreSQL refuses it in any text,
/// even one it only compares, and answered 500 there (an outside tester's case, stop 33). A
/// path or query that encodes one is a 400 on every backend; a body that holds one is refused
/// as what it names (no such bot) on SQLite and as a bad request on PostgreSQL. Never a 5xx,
/// and nothing changes.
#[tokio::test]
async fn a_nul_character_in_a_path_a_query_or_a_body_is_refused_and_changes_nothing() {
    let f = fixture().await;
    let before = f.snapshot().await;
    let nul_set = format!("{}%00", f.set_id);
    for path in [
        paths::game(&nul_set, 1),
        paths::game_events(&nul_set, 1),
        paths::set(&nul_set),
        paths::bot("a%00b"),
        paths::bot_ratings("a%00b"),
        paths::with_query(paths::sets(), "bot=%00"),
        paths::tournament("x%00"),
        format!("/sets/{nul_set}"),
        "/bots/a%00b".to_string(),
    ] {
        let r = f.app.get(&path).await;
        assert_error(&r, StatusCode::BAD_REQUEST, "bad_request");
        assert!(
            r.body["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("NUL")),
            "{path}: {:?}",
            r.body
        );
    }
    let mv = empty_cell(&f).await;
    let url = format!("{}?ply=1", paths::moves(&nul_set, 1));
    let r = f.app.post(&url, Some(&f.alpha), mv).await;
    assert_error(&r, StatusCode::BAD_REQUEST, "bad_request");

    let postgres = common::pg_admin_url().is_some();
    let body = json!({"game": "hex", "stake": 10, "opponent": "a\u{0}b"});
    for r in [
        f.app.create_set(Some(&f.alpha), body).await,
        f.app
            .post(
                &paths::practice(),
                Some(&f.alpha),
                json!({"opponent": "a\u{0}b"}),
            )
            .await,
    ] {
        if postgres {
            assert_error(&r, StatusCode::BAD_REQUEST, "bad_request");
        } else {
            assert_error(&r, StatusCode::NOT_FOUND, "not_found");
        }
    }
    assert_eq!(f.snapshot().await, before);
}

/// A grant names its player by id or by a name no one else has: PTS minted for a name two
/// players share used to go silently to the older one (a first-time operator's finding), and
/// is now a 400 listing both ids that changes no balance.
#[tokio::test]
async fn a_grant_to_a_name_two_players_share_is_refused_and_names_them() {
    let app = spawn_app().await;
    let (older, older_pt) = app.player("Twin").await;
    let (younger, younger_pt) = app.player("Twin").await;
    let (_, single_pt) = app.player("Single").await;
    let before = [app.balance(&older_pt).await, app.balance(&younger_pt).await];
    let r = app
        .create_grant(Some("op-secret"), json!({"player": "Twin", "amount": 5}))
        .await;
    assert_eq!(
        (r.status, r.body["error"]["details"]["field"].clone()),
        (StatusCode::BAD_REQUEST, json!("player")),
        "{:?}",
        r.body
    );
    assert_eq!(
        r.body["error"]["details"]["players"],
        json!([older.clone(), younger.clone()])
    );
    assert_eq!(
        [app.balance(&older_pt).await, app.balance(&younger_pt).await],
        before,
        "a refused grant changes nothing"
    );
    let r = app
        .create_grant(Some("op-secret"), json!({"player": younger, "amount": 5}))
        .await;
    assert_eq!(
        (r.status, r.body["balance"].as_i64()),
        (StatusCode::OK, Some(before[1] + 5)),
        "{:?}",
        r.body
    );
    let single_before = app.balance(&single_pt).await;
    let r = app
        .create_grant(Some("op-secret"), json!({"player": "Single", "amount": 7}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(app.balance(&single_pt).await, single_before + 7);
}
