//! The analyst's watermark (issue 21): a game stored after another but with an earlier
//! finishing time (another instance's clock, a slow commit) is analysed too, without a restart.
//! The arena's time is injected: it is set back between the two sets.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Spawn, TestApp, spawn_with};
use hexarena::arena::clock::FakeTime;
use reqwest::StatusCode;
use serde_json::json;

/// 2027-01-15T08:00:00Z: any fixed instant will do.
const T0: i64 = 1_800_000_000_000;

/// Waits until both games of `set` are analysed (at most 90 s).
async fn both_ready(app: &TestApp, set: &str) {
    let until = Instant::now() + Duration::from_secs(90);
    for n in [1, 2] {
        loop {
            let r = app.analysis(set, n).await;
            assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
            if r.body["status"] == "ready" {
                break;
            }
            assert_eq!(r.body["status"], "pending", "{:?}", r.body);
            assert!(
                Instant::now() < until,
                "the analysis of {set} game {n} was never ready"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

#[tokio::test]
async fn a_game_finished_earlier_than_one_already_analysed_is_analysed_too() {
    let time = Arc::new(FakeTime::new(T0));
    let app = spawn_with(Spawn {
        time: time.clone(),
        analysis: true,
        analysis_playouts: 50,
        ..Spawn::default()
    })
    .await;
    let (_, _, a) = app.player_with_bot("Later").await;
    let (_, _, b) = app.player_with_bot("Earlier").await;
    let body = json!({"stake": 0, "options": {"size": 9, "random_stones": 0}});

    // The first set ends at T0 + 60 s and is analysed.
    time.set(T0 + 60_000);
    // (the acceptor loses: the creator is seat 1 of game 2)
    let first = app.start_set(&a, &b, body.clone()).await;
    app.lose_set(&b, &a, &first).await;
    both_ready(&app, &first).await;

    // The second ends 30 s "before" it.
    time.set(T0 + 30_000);
    let second = app.start_set(&b, &a, body).await;
    app.lose_set(&a, &b, &second).await;
    let g = app.state(&second, 2).await;
    assert_eq!(g["status"], "finished", "{g}");
    both_ready(&app, &second).await;
}
