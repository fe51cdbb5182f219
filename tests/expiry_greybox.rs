//! Grey-box tests of expiry: instead of waiting for the arena's own sweeps, they advance a fake
//! clock and call the sweeps in-process (`Arena::expire`, `Arena::expire_challenges` through
//! `app.arena`), then check the outcome over HTTP. Gathered here (issue 19) because they reach
//! into the server; the black-box tests of the same areas are in api_sets.rs and unstaked.rs.

mod common;
use common::paths;

use std::sync::Arc;

use common::{Spawn, TestApp, spawn_with};
use hexarena::arena::clock::FakeTime;
use reqwest::StatusCode;
use serde_json::json;

async fn profile(app: &TestApp, name: &str) -> serde_json::Value {
    let r = app.get_bot(name).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    r.body
}

#[tokio::test]
async fn a_challenge_nobody_accepts_within_the_ttl_expires_and_tells_its_bots() {
    use hexarena::arena::clock::FakeTime;
    let time = std::sync::Arc::new(FakeTime::new(1_800_000_000_000));
    let app = common::spawn_with(common::Spawn {
        time: time.clone(),
        ..common::Spawn::default()
    })
    .await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    let lobby = app.create_set(Some(&alpha), json!({"game": "hex"})).await;
    let private = app
        .create_set(
            Some(&alpha),
            json!({"game": "hex", "opponent": "Bravo", "stake": 10}),
        )
        .await;
    let (lobby, private) = (
        lobby.body["id"].as_str().expect("id").to_string(),
        private.body["id"].as_str().expect("id").to_string(),
    );
    // Half an hour on: nothing expires (the default TTL is an hour).
    time.advance(1_800_000);
    assert_eq!(app.arena.expire_challenges().await.expect("sweep"), 0);
    let fresh = app.create_set(Some(&bravo), json!({"game": "hex"})).await;
    let fresh = fresh.body["id"].as_str().expect("id").to_string();
    // Past the hour for the first two, not for the fresh one. (The arena's own sweep may
    // run at the same moment: what counts is the sets' status.)
    time.advance(1_800_001);
    app.arena.expire_challenges().await.expect("sweep");
    for (id, status) in [(&lobby, "expired"), (&private, "expired"), (&fresh, "open")] {
        let r = app.get_set(&id).await;
        assert_eq!(r.body["status"], status, "{id}: {:?}", r.body);
    }
    let listed = app.list_sets("status=expired").await;
    assert_eq!(listed.status, StatusCode::OK, "{:?}", listed.body);
    assert_eq!(listed.body["sets"].as_array().map(Vec::len), Some(2));
    // Accepting an expired challenge is the usual 409 with the status.
    let r = app
        .call(
            reqwest::Method::POST,
            &paths::accept(&private),
            Some(&bravo),
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert_eq!(r.code(), "set_not_open");
    assert_eq!(r.body["error"]["details"]["status"], "expired");
    // The named opponent's stream, replayed from its start, tells of the expiry.
    let mut s =
        common::sse::EventStream::open(&app, &paths::bot_events(), Some(&bravo), Some("0")).await;
    let mut closed = None;
    while let Some((_, kind, data)) = s
        .next_event_within(std::time::Duration::from_secs(10))
        .await
    {
        if kind == "set_closed" {
            closed = Some(data);
            break;
        }
    }
    let closed = closed.expect("a set_closed event for the private challenge");
    assert_eq!(
        (&closed["set"]["id"], &closed["set"]["status"]),
        (&json!(private), &json!("expired"))
    );
}

#[tokio::test]
async fn a_missed_first_move_in_an_unstaked_set_records_no_strike() {
    let time = Arc::new(FakeTime::new(1_800_000_000_000));
    let app = spawn_with(Spawn {
        time: time.clone(),
        ..Spawn::default()
    })
    .await;
    let (_, _, alice) = app.player_with_bot("Alice").await;
    let (_, _, bob) = app.player_with_bot("Bob").await;
    let set = app
        .start_set(&alice, &bob, json!({"stake": 0, "rated": true}))
        .await;
    time.advance(30_001);
    assert!(app.arena.expire(&set, 1).await.expect("expire"));
    let g = app.state(&set, 1).await;
    assert_eq!(g["result"]["reason"], "first_move_timeout");
    assert_eq!(profile(&app, "Bob").await["strikes"], json!([]));
}
