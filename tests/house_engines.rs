//! Outside engines as house rungs (issue 23): `--house-engine NAME=COMMAND` plays a GTP engine
//! as the house bot `house-NAME`, admitted like the built-in rungs, and no longer offered once
//! unconfigured. The engine here is the project's own `hexarena gtp`. The tests that watch the
//! engine processes are in house_engines_greybox.rs.

mod common;
use common::paths;

use common::{Spawn, spawn_with};
use reqwest::StatusCode;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_hexarena");

/// The project's own engine, a fast rung (a fixed 20 ms a move).
fn own_engine() -> String {
    format!("'{BIN}' gtp --strategy house-novice --move-time-ms 20")
}

#[tokio::test]
async fn an_outside_engine_is_admitted_like_the_built_in_rungs() {
    let app = spawn_with(Spawn {
        house_bots: true,
        house_threads: Some(1),
        house_games_per_thread: 1,
        house_lobby_wait_ms: -1,
        house_engines: vec![format!("gtp={}", own_engine())],
        ..Spawn::default()
    })
    .await;
    let (_, owner, token) = app.player_with_bot("Queued").await;
    // A clock that cannot pay the house's floor on the board is refused as for a rung.
    let fast = json!({"initial_s": 10, "increment_s": 0});
    let r = app
        .create_practice_set(
            Some(&token),
            json!({"opponent": "house-gtp", "clock": fast, "options": {"size": 19}}),
        )
        .await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "clock_too_fast_for_house"),
        "{:?}",
        r.body
    );
    assert_eq!(r.body["error"]["details"]["largest_size"], 15);
    // One game at 10+0 fills this house; the next house game, the engine's included, waits.
    let first = app
        .create_practice_set(
            Some(&token),
            json!({"opponent": "house-gtp", "clock": fast}),
        )
        .await;
    assert_eq!(first.status, StatusCode::CREATED, "{:?}", first.body);
    let before = app.list_sets("bot=Queued&limit=100").await.body["sets"]
        .as_array()
        .map_or(0, Vec::len);
    for (path, body) in [
        (&paths::practice(), json!({"opponent": "house-gtp"})),
        (&paths::practice(), json!({"opponent": "house-random"})),
        (
            &paths::sets(),
            json!({"game": "hex", "opponent": "house-gtp", "stake": 50}),
        ),
    ] {
        let r = app.post(path, Some(&token), body.clone()).await;
        assert_eq!(
            (r.status, r.code()),
            (StatusCode::SERVICE_UNAVAILABLE, "house_busy"),
            "{body}: {:?}",
            r.body
        );
        assert_eq!(r.body["error"]["details"]["in_play"], 1, "{:?}", r.body);
    }
    let after = app.list_sets("bot=Queued&limit=100").await.body["sets"]
        .as_array()
        .map_or(0, Vec::len);
    assert_eq!(after, before, "nothing created");
    assert_eq!(app.balance(&owner).await, 1000, "nothing escrowed");
}

#[tokio::test]
async fn an_outside_engine_no_longer_configured_is_not_offered_for_practice() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = format!("sqlite://{}/arena.db", dir.path().display());
    let first = spawn_with(Spawn {
        house_bots: true,
        house_lobby_wait_ms: -1,
        database_url: Some(db.clone()),
        house_engines: vec![format!("gone={}", own_engine())],
        ..Spawn::default()
    })
    .await;
    let (_, _, token) = first.player_with_bot("Returning").await;
    assert_eq!(
        first.get_bot("house-gone").await.body["engine"]["outside"],
        true
    );
    drop(first);
    let app = spawn_with(Spawn {
        house_bots: true,
        house_lobby_wait_ms: -1,
        database_url: Some(db),
        ..Spawn::default()
    })
    .await;
    // Its bot stays (its record is history); nothing plays for it here now.
    let p = app.get_bot("house-gone").await;
    assert_eq!(
        (p.body["house"].clone(), p.body["engine"].clone()),
        (json!(true), Value::Null)
    );
    let r = app
        .create_practice_set(Some(&token), json!({"opponent": "house-gone"}))
        .await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::NOT_FOUND, "not_found"),
        "{:?}",
        r.body
    );
    let sets = app.list_sets("bot=Returning&limit=10").await.body;
    assert_eq!(sets["sets"], json!([]), "nothing created");
    // The rungs are still offered.
    let r = app
        .create_practice_set(Some(&token), json!({"opponent": "house-novice"}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
}
