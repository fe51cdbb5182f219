//! Presence (SPEC 14): a bot is online while it holds an event stream or a long-poll, or did in
//! the last 60 s; `GET /v1/bots?online=true` and `online` on profiles, across instances.

mod common;
use common::paths;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Spawn, TestApp, spawn_with};
use hexarena::arena::clock::FakeTime;
use serde_json::{Value, json};

const T0: i64 = 1_800_000_000_000;

async fn online_names(app: &TestApp) -> Vec<String> {
    let r = app.list_bots("online=true").await;
    assert_eq!(r.status, reqwest::StatusCode::OK, "{:?}", r.body);
    r.body["bots"]
        .as_array()
        .expect("bots")
        .iter()
        .map(|b| b["name"].as_str().expect("name").to_string())
        .collect()
}

async fn online(app: &TestApp, name: &str) -> Value {
    app.get_bot(&name).await.body["online"].clone()
}

#[tokio::test]
async fn a_long_poll_makes_a_bot_online_for_sixty_seconds() {
    let time = Arc::new(FakeTime::new(T0));
    let app = spawn_with(Spawn {
        time: time.clone(),
        ..Spawn::default()
    })
    .await;
    let (_, _, alice) = app.player_with_bot("Alice").await;
    app.player_with_bot("Bob").await;
    assert_eq!(online_names(&app).await, Vec::<String>::new());
    let r = app.get_turn(Some(&alice), "wait_s=0").await;
    assert_eq!(r.status, reqwest::StatusCode::NO_CONTENT);
    assert_eq!(online_names(&app).await, vec!["Alice"]);
    assert_eq!(
        (online(&app, "Alice").await, online(&app, "Bob").await),
        (json!(true), json!(false))
    );
    let r = app.list_bots("online=false").await;
    assert_eq!(r.body["bots"][0]["name"], "Bob");
    time.advance(60_000);
    assert_eq!(
        online(&app, "Alice").await,
        json!(true),
        "60 s after: still online"
    );
    time.advance(1);
    assert_eq!(online(&app, "Alice").await, json!(false));
    assert_eq!(online_names(&app).await, Vec::<String>::new());
}

#[tokio::test]
async fn an_open_event_stream_keeps_a_bot_online() {
    let time = Arc::new(FakeTime::new(T0));
    let app = spawn_with(Spawn {
        time: time.clone(),
        ..Spawn::default()
    })
    .await;
    let (_, _, alice) = app.player_with_bot("Alice").await;
    let stream = app
        .http
        .get(format!("{}{}", app.url, paths::bot_events()))
        .bearer_auth(&alice)
        .send()
        .await
        .expect("stream opens");
    assert_eq!(stream.status(), reqwest::StatusCode::OK);
    time.advance(10 * 60_000);
    assert_eq!(online(&app, "Alice").await, json!(true));
    drop(stream);
}

#[tokio::test]
async fn another_instance_on_the_same_database_sees_a_bot_online() {
    let one = spawn_with(Spawn::default()).await;
    let db = one.database_url.clone();
    let two = spawn_with(Spawn {
        database_url: Some(db),
        ..Spawn::default()
    })
    .await;
    let (_, _, alice) = one.player_with_bot("Alice").await;
    assert_eq!(online(&two, "Alice").await, json!(false));
    one.get_turn(Some(&alice), "wait_s=0").await;
    // The first instance writes `last_seen_ms` in the background, within seconds.
    let until = Instant::now() + Duration::from_secs(10);
    while online(&two, "Alice").await != json!(true) {
        assert!(Instant::now() < until, "never online on the other instance");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
