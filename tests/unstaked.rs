//! Unstaked sets (SPEC 14): `stake: 0` means no escrow and no settlement, `rated` is the
//! creator's choice (default false), and `same_owner` applies to staked sets only.

mod common;

use common::{TestApp, spawn_app};
use reqwest::StatusCode;
use serde_json::json;

/// Resigns both games for the acceptor (seat 1 of game 1, seat 2 of game 2): the creator wins 2-0.
async fn acceptor_resigns_both(app: &TestApp, set: &str, acceptor: &str) {
    for n in [1, 2] {
        let r = app.resign(Some(acceptor), &set, &n, json!({})).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    }
}

async fn profile(app: &TestApp, name: &str) -> serde_json::Value {
    let r = app.get_bot(&name).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    r.body
}

#[tokio::test]
async fn two_bots_of_one_owner_play_an_unstaked_unrated_set_that_moves_no_points_or_ratings() {
    let app = spawn_app().await;
    let (_, owner, one) = app.player_with_bot("VersionOne").await;
    let two = app.bot(&owner, "VersionTwo").await;
    let r = app
        .create_set(
            Some(&one),
            json!({"game": "hex", "stake": 0, "opponent": "VersionTwo"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    assert_eq!(r.body["stake"], 0);
    assert_eq!(r.body["rated"], false);
    assert_eq!(r.body["staked"], false);
    let set = r.body["id"].as_str().expect("id").to_string();
    let r = app.accept_set(Some(&two), &set, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(app.balance(&owner).await, 1000, "no escrow");
    acceptor_resigns_both(&app, &set, &two).await;
    let s = app.get_set(&set).await.body;
    assert_eq!(s["status"], "finished");
    assert_eq!(s["result"], "VersionOne wins");
    assert_eq!(s["points"], json!([2, 0]));
    assert_eq!(s["settlement"], serde_json::Value::Null);
    assert_eq!(app.balance(&owner).await, 1000);
    for name in ["VersionOne", "VersionTwo"] {
        let p = profile(&app, name).await;
        assert_eq!(
            (
                p["rating"].clone(),
                p["sets"].clone(),
                p["w"].clone(),
                p["l"].clone()
            ),
            (json!(1200), json!(0), json!(0), json!(0)),
            "{name}"
        );
    }
}

#[tokio::test]
async fn an_unstaked_set_with_rated_true_moves_ratings_but_no_points() {
    let app = spawn_app().await;
    let (_, alice_owner, alice) = app.player_with_bot("Alice").await;
    let (_, bob_owner, bob) = app.player_with_bot("Bob").await;
    let set = app
        .start_set(&alice, &bob, json!({"stake": 0, "rated": true}))
        .await;
    let s = app.get_set(&set).await.body;
    assert_eq!(
        (s["rated"].clone(), s["stake"].clone()),
        (json!(true), json!(0))
    );
    acceptor_resigns_both(&app, &set, &bob).await;
    assert_eq!(app.balance(&alice_owner).await, 1000);
    assert_eq!(app.balance(&bob_owner).await, 1000);
    let a = profile(&app, "Alice").await;
    let b = profile(&app, "Bob").await;
    // Elo with K = 32 from 1200 each: the winner gains 16, the loser loses 16.
    assert_eq!(
        (a["rating"].clone(), a["w"].clone(), a["won"].clone()),
        (json!(1216), json!(1), json!(0))
    );
    assert_eq!(
        (b["rating"].clone(), b["l"].clone(), b["net"].clone()),
        (json!(1184), json!(1), json!(0))
    );
    assert_eq!(
        app.get_set(&set).await.body["settlement"],
        serde_json::Value::Null
    );
}

#[tokio::test]
async fn stakes_between_zero_and_ten_and_unrated_staked_sets_are_refused() {
    let app = spawn_app().await;
    let (_, owner, alice) = app.player_with_bot("Alice").await;
    app.bot(&owner, "AliceToo").await;
    for (body, field) in [
        (json!({"game": "hex", "stake": 5}), "stake"),
        (json!({"game": "hex", "stake": -1}), "stake"),
        (json!({"game": "hex", "stake": 50, "rated": false}), "rated"),
        (json!({"game": "hex", "stake": 0, "rated": "yes"}), "rated"),
    ] {
        let r = app.create_set(Some(&alice), body.clone()).await;
        assert_eq!(
            (r.status, r.code()),
            (StatusCode::BAD_REQUEST, "bad_request"),
            "{body}"
        );
        assert_eq!(r.body["error"]["details"]["field"], field, "{body}");
    }
    // A staked challenge to a bot of the same owner is still refused.
    let r = app
        .create_set(
            Some(&alice),
            json!({"game": "hex", "stake": 10, "opponent": "AliceToo"}),
        )
        .await;
    assert_eq!((r.status, r.code()), (StatusCode::FORBIDDEN, "same_owner"));
    let r = app.list_sets("status=open").await;
    assert_eq!(
        r.body["sets"],
        json!([]),
        "a refused request changes nothing"
    );
}

#[tokio::test]
async fn an_operator_pairing_may_be_unstaked_between_bots_of_one_owner() {
    let app = spawn_app().await;
    let (_, owner, _one) = app.player_with_bot("OpOne").await;
    app.bot(&owner, "OpTwo").await;
    let r = app
        .create_operator_set(
            Some("op-secret"),
            json!({"bots": ["OpOne", "OpTwo"], "stake": 0}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    assert_eq!(r.body["status"], "active");
    assert_eq!(
        (r.body["stake"].clone(), r.body["rated"].clone()),
        (json!(0), json!(false))
    );
    let r = app
        .create_operator_set(
            Some("op-secret"),
            json!({"bots": ["OpOne", "OpTwo"], "stake": 10}),
        )
        .await;
    assert_eq!((r.status, r.code()), (StatusCode::FORBIDDEN, "same_owner"));
    let r = app
        .create_operator_set(
            Some("op-secret"),
            json!({"bots": ["OpOne", "OpTwo"], "stake": 3}),
        )
        .await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::BAD_REQUEST, "bad_request")
    );
}
