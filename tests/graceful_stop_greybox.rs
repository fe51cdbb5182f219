//! Grey-box test of a graceful stop (SPEC 7, `docs/fair-time.md`): it stops an in-process
//! arena (`app.arena.stop_serving`), wakes its scheduler on an injected clock and reads the
//! instance's heartbeat row from the database, none of which a route does or shows. Moved here
//! (issue 19) from graceful_stop.rs, which stops the real binary.

mod common;

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::json;

/// Grey-box, on an in-process arena with the injected clock: once stopping, the instance's
/// scheduler ends no game on time and its writes are refused (503 `unavailable`), while reads
/// go on; its heartbeat stays at the stop moment. (With several instances on PostgreSQL the
/// others keep firing: `docs/fair-time.md`.)
#[tokio::test]
async fn a_stopping_instance_fires_no_timeout_refuses_writes_and_freezes_its_heartbeat_at_the_stop_moment()
 {
    use common::{Spawn, spawn_with};
    use hexarena::arena::clock::FakeTime;
    use std::sync::Arc;

    const T0: i64 = 1_800_000_000_000;
    let time = Arc::new(FakeTime::new(T0));
    let app = spawn_with(Spawn {
        time: time.clone(),
        ..Spawn::default()
    })
    .await;
    let (_, _, alice) = app.player_with_bot("Alice").await;
    let (_, _, bob) = app.player_with_bot("Bob").await;
    let set = app
        .start_set(
            &alice,
            &bob,
            json!({"clock": {"initial_s": 10, "increment_s": 0}, "options": {"random_stones": 0}}),
        )
        .await;
    time.advance(2_000);
    app.arena.stop_serving().await;
    let stop_ms = T0 + 2_000;
    // Far past Bob's 30 s first-move deadline.
    time.advance(120_000);
    app.arena.scheduler.wake_up();
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let s = app.state(&set, 1).await;
    assert_eq!(
        s["status"], "active",
        "no timeout fired after the stop: {s}"
    );
    let r = app
        .play(&bob, &set, 1, json!({"cell": [5, 5]}), Some(1))
        .await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
        "{:?}",
        r.body
    );
    assert_eq!(
        heartbeat_ms(&app).await,
        stop_ms,
        "the heartbeat marks the stop moment"
    );
}

/// This instance's heartbeat as stored, ms.
async fn heartbeat_ms(app: &common::TestApp) -> i64 {
    let mut c = app.arena.store.pool.acquire().await.expect("connection");
    let (hb,): (i64,) = sqlx::query_as("SELECT heartbeat_ms FROM instances WHERE id = $1")
        .bind(&app.arena.instance_id)
        .fetch_one(&mut *c)
        .await
        .expect("heartbeat row");
    hb
}

/// The writes of the instance's row that were under way at the stop land after the final
/// heartbeat and must not move it: a periodic heartbeat that read the clock before the stop
/// (CI saw one land after it, leaving the row at the earlier time, so the next start would
/// have credited 2 s too much downtime), and a credit of time refused on an untrusted clock.
#[tokio::test]
async fn no_heartbeat_or_credit_that_lands_after_the_stop_moves_the_stop_moment() {
    use common::{Spawn, spawn_with};
    use hexarena::arena::{clock::FakeTime, scheduler};
    use std::sync::Arc;

    const T0: i64 = 1_800_000_000_000;
    let time = Arc::new(FakeTime::new(T0));
    let app = spawn_with(Spawn {
        time: time.clone(),
        ..Spawn::default()
    })
    .await;
    time.advance(2_000);
    app.arena.stop_serving().await;
    let stop_ms = T0 + 2_000;
    assert_eq!(heartbeat_ms(&app).await, stop_ms);
    scheduler::heartbeat(&app.arena, T0)
        .await
        .expect("a stopping instance's heartbeat is skipped, not failed");
    assert_eq!(
        heartbeat_ms(&app).await,
        stop_ms,
        "a heartbeat timed before the stop, written after it"
    );
    time.advance(3_000);
    let credit = scheduler::credit_refused(&app.arena, T0).await;
    assert!(
        credit.is_err(),
        "a stopping instance credits nothing: {credit:?}"
    );
    assert_eq!(heartbeat_ms(&app).await, stop_ms, "a credit after the stop");
}
