//! Declared accepts and capacity (issue 20): `PATCH /v1/bots/me`, and the 422 `not_accepted`
//! refusals of challenges aimed at a bot and accepts of its open challenges, which create
//! nothing and move no PTS.

mod common;
use common::paths;

use common::{TestApp, spawn_app};
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn patch(app: &TestApp, token: &str, body: Value) -> common::Resp {
    app.declare_bot(Some(token), body).await
}

async fn set_count(app: &TestApp) -> usize {
    let r = app.list_sets("limit=100").await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    r.body["sets"].as_array().map_or(0, Vec::len)
}

#[tokio::test]
async fn the_declared_accepts_and_capacity_are_stored_and_shown_on_the_profile() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let p = app.get_bot("Alpha").await.body;
    assert_eq!(
        p["accepts"],
        json!({"sizes": [9, 19], "random_stones": [0, 10], "initial_s": [10, 600],
               "increment_s": [0, 10], "stake": [0, 1000]})
    );
    assert_eq!(p["max_concurrent_sets"], Value::Null);

    let r = patch(
        &app,
        &alpha,
        json!({"accepts": {"sizes": [11, 13], "stake": [0, 50]}, "max_concurrent_sets": 2}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["accepts"]["sizes"], json!([11, 13]));
    assert_eq!(r.body["accepts"]["stake"], json!([0, 50]));
    assert_eq!(r.body["accepts"]["initial_s"], json!([10, 600]));
    assert_eq!(r.body["max_concurrent_sets"], 2);
    // A field left out keeps its value; null clears.
    let r = patch(&app, &alpha, json!({"max_concurrent_sets": null})).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["max_concurrent_sets"], Value::Null);
    assert_eq!(r.body["accepts"]["sizes"], json!([11, 13]));
    let me = app.get_current_bot(Some(&alpha)).await.body;
    assert_eq!(me["accepts"]["stake"], json!([0, 50]));
}

#[tokio::test]
async fn a_bad_patch_body_is_a_400_naming_the_field_and_changes_nothing() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let r = patch(&app, &alpha, json!({"accepts": {"sizes": [11, 13]}})).await;
    assert_eq!(r.status, StatusCode::OK);
    for (body, field) in [
        (json!({"accepts": {"sizes": [13, 11]}}), "accepts.sizes"),
        (json!({"accepts": {"sizes": [7, 11]}}), "accepts.sizes"),
        (json!({"accepts": {"stake": [0, 5000]}}), "accepts.stake"),
        (
            json!({"accepts": {"initial_s": [5, 60]}}),
            "accepts.initial_s",
        ),
        (
            json!({"accepts": {"increment_s": [0]}}),
            "accepts.increment_s",
        ),
        (
            json!({"accepts": {"random_stones": ["a", 2]}}),
            "accepts.random_stones",
        ),
        (json!({"accepts": {"colour": [0, 1]}}), "accepts.colour"),
        (json!({"accepts": [9, 11]}), "accepts"),
        (json!({"max_concurrent_sets": 0}), "max_concurrent_sets"),
        (json!({"max_concurrent_sets": "two"}), "max_concurrent_sets"),
        (json!({"name": "Renamed"}), "name"),
    ] {
        let r = patch(&app, &alpha, body.clone()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}: {:?}", r.body);
        assert_eq!(r.body["error"]["details"]["field"], field, "{body}");
    }
    let p = app.get_bot("Alpha").await.body;
    assert_eq!(p["accepts"]["sizes"], json!([11, 13]));
    assert_eq!(p["name"], "Alpha");
    let r = patch(&app, "hxb_nope", json!({})).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_challenge_outside_the_challenged_bots_accepts_is_refused_and_creates_nothing() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, bravo_pt, bravo) = app.player_with_bot("Bravo").await;
    let r = patch(
        &app,
        &alpha,
        json!({"accepts": {"sizes": [11, 13], "random_stones": [0, 4], "initial_s": [30, 120],
                           "increment_s": [1, 5], "stake": [0, 50]}}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    let before = (set_count(&app).await, app.balance(&bravo_pt).await);
    for (extra, option, value) in [
        (json!({"options": {"size": 15}}), "sizes", 15),
        (json!({"options": {"random_stones": 6}}), "random_stones", 6),
        (json!({"clock": {"initial_s": 300}}), "initial_s", 300),
        (json!({"clock": {"increment_s": 0}}), "increment_s", 0),
        (json!({"stake": 100}), "stake", 100),
    ] {
        let mut body = json!({"game": "hex", "opponent": "Alpha", "stake": 10});
        for (k, v) in extra.as_object().expect("object") {
            body[k] = v.clone();
        }
        let r = app.create_set(Some(&bravo), body).await;
        assert_eq!(
            r.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{option}: {:?}",
            r.body
        );
        assert_eq!(r.code(), "not_accepted");
        assert_eq!(r.body["error"]["details"]["option"], option);
        assert_eq!(r.body["error"]["details"]["value"], value);
        assert_eq!(r.body["error"]["details"]["bot"], "Alpha");
    }
    assert_eq!(
        (set_count(&app).await, app.balance(&bravo_pt).await),
        before
    );
    // Within every range: created.
    let r = app
        .create_set(
            Some(&bravo),
            json!({"game": "hex", "opponent": "Alpha", "stake": 50,
                   "options": {"size": 13, "random_stones": 0},
                   "clock": {"initial_s": 120, "increment_s": 1}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    // Alpha's own challenge outside its own ranges could never be accepted: refused at once.
    let r = app
        .create_set(
            Some(&alpha),
            json!({"game": "hex", "stake": 10, "options": {"size": 19}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{:?}", r.body);
    assert_eq!(r.body["error"]["details"]["bot"], "Alpha");
    assert_eq!(r.body["error"]["details"]["option"], "sizes");
    let r = app
        .create_set(
            Some(&alpha),
            json!({"game": "hex", "stake": 10, "options": {"size": 11, "random_stones": 2},
                   "clock": {"initial_s": 60, "increment_s": 2}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
}

#[tokio::test]
async fn an_accept_of_an_open_challenge_its_creator_no_longer_accepts_is_refused() {
    let app = spawn_app().await;
    let (_, alpha_pt, alpha) = app.player_with_bot("Alpha").await;
    let (_, bravo_pt, bravo) = app.player_with_bot("Bravo").await;
    let r = app
        .create_set(
            Some(&alpha),
            json!({"game": "hex", "stake": 100, "options": {"size": 15}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
    let id = r.body["id"].as_str().expect("id").to_string();
    // Alpha declares after creating it: the accept is checked against what it declares now.
    let r = patch(&app, &alpha, json!({"accepts": {"stake": [0, 50]}})).await;
    assert_eq!(r.status, StatusCode::OK);
    let r = app.accept_set(Some(&bravo), &id, json!({})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{:?}", r.body);
    assert_eq!(r.body["error"]["details"]["option"], "stake");
    assert_eq!(r.body["error"]["details"]["accepts"], json!([0, 50]));
    assert_eq!(app.get_set(&id).await.body["status"], "open");
    assert_eq!(app.balance(&alpha_pt).await, 1000);
    assert_eq!(app.balance(&bravo_pt).await, 1000);
    // Declared again to take it: accepted.
    let r = patch(&app, &alpha, json!({"accepts": {}})).await;
    assert_eq!(r.status, StatusCode::OK);
    let r = app.accept_set(Some(&bravo), &id, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(app.balance(&bravo_pt).await, 900);
}

#[tokio::test]
async fn a_bot_at_its_capacity_is_refused_new_sets_started_by_others() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, bravo_pt, bravo) = app.player_with_bot("Bravo").await;
    let (_, _, charlie) = app.player_with_bot("Charlie").await;
    let r = patch(&app, &alpha, json!({"max_concurrent_sets": 1})).await;
    assert_eq!(r.status, StatusCode::OK);
    let running = app.start_set(&bravo, &alpha, json!({"stake": 10})).await;

    let before = (set_count(&app).await, app.balance(&bravo_pt).await);
    let r = app
        .create_set(
            Some(&bravo),
            json!({"game": "hex", "opponent": "Alpha", "stake": 10}),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{:?}", r.body);
    assert_eq!(r.code(), "not_accepted");
    assert_eq!(r.body["error"]["details"]["option"], "max_concurrent_sets");
    assert_eq!(r.body["error"]["details"]["limit"], 1);
    assert_eq!(r.body["error"]["details"]["value"], 1);
    assert_eq!(
        (set_count(&app).await, app.balance(&bravo_pt).await),
        before
    );

    // Alpha's open challenge taken while it plays at capacity: refused, still open.
    let r = patch(&app, &alpha, json!({"max_concurrent_sets": 2})).await;
    assert_eq!(r.status, StatusCode::OK);
    let r = app
        .create_set(Some(&alpha), json!({"game": "hex", "stake": 10}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
    let lobby = r.body["id"].as_str().expect("id").to_string();
    let r = patch(&app, &alpha, json!({"max_concurrent_sets": 1})).await;
    assert_eq!(r.status, StatusCode::OK);
    let r = app.accept_set(Some(&charlie), &lobby, json!({})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{:?}", r.body);
    assert_eq!(r.body["error"]["details"]["option"], "max_concurrent_sets");
    assert_eq!(app.get_set(&lobby).await.body["status"], "open");

    // The running set ends (Bravo resigns both games): room again.
    app.lose_set(&alpha, &bravo, &running).await;
    let r = app.accept_set(Some(&charlie), &lobby, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
}

#[tokio::test]
async fn accepts_racing_for_a_bots_last_place_start_one_set_only() {
    let app = spawn_app().await;
    let (_, alpha_pt, alpha) = app.player_with_bot("Alpha").await;
    let mut sets = vec![];
    for _ in 0..4 {
        let r = app
            .create_set(Some(&alpha), json!({"game": "hex", "stake": 10}))
            .await;
        assert_eq!(r.status, StatusCode::CREATED);
        sets.push(r.body["id"].as_str().expect("id").to_string());
    }
    let r = patch(&app, &alpha, json!({"max_concurrent_sets": 1})).await;
    assert_eq!(r.status, StatusCode::OK);
    let mut takers = vec![];
    for i in 0..4 {
        takers.push(app.player_with_bot(&format!("Taker{i}")).await.2);
    }
    let urls: Vec<String> = sets.iter().map(paths::accept).collect();
    let answers = futures_util::future::join_all(
        urls.iter()
            .zip(&takers)
            .map(|(p, t)| app.post(p, Some(t), json!({}))),
    )
    .await;
    let ok = answers
        .iter()
        .filter(|r| r.status == StatusCode::OK)
        .count();
    let refused = answers
        .iter()
        .filter(|r| r.status == StatusCode::UNPROCESSABLE_ENTITY && r.code() == "not_accepted")
        .count();
    assert_eq!((ok, refused), (1, 3), "{answers:?}");
    let active = app.list_sets("status=active").await.body["sets"]
        .as_array()
        .map_or(0, Vec::len);
    assert_eq!(active, 1);
    assert_eq!(app.balance(&alpha_pt).await, 990);
}

#[tokio::test]
async fn a_bot_with_max_stake_0_that_leaves_out_the_stake_is_told_to_send_stake_0() {
    let app = spawn_app().await;
    let (_, owner) = app.player("Unstaked owner").await;
    let r = app
        .create_bot(Some(&owner), json!({"name": "NoStakes", "max_stake": 0}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let token = r.body["token"].as_str().expect("token").to_string();
    // A challenge without `stake` is staked at the default 10: refused, nothing created.
    let r = app.create_set(Some(&token), json!({"game": "hex"})).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::BAD_REQUEST, "bad_request"),
        "{:?}",
        r.body
    );
    assert_eq!(
        r.body["error"]["details"],
        json!({"field": "stake", "min": 10, "max": 0})
    );
    let msg = r.body["error"]["message"].as_str().expect("message");
    assert!(msg.contains("send \"stake\": 0"), "{msg}");
    assert_eq!(set_count(&app).await, 0);
    // Sent as the message says, the challenge is made.
    let r = app
        .create_set(Some(&token), json!({"game": "hex", "stake": 0}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
}
