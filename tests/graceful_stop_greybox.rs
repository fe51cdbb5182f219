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

/// Spawns an in-process arena on the injected clock at `T0`.
async fn arena_at_t0() -> (
    common::TestApp,
    std::sync::Arc<hexarena::arena::clock::FakeTime>,
) {
    let time = std::sync::Arc::new(hexarena::arena::clock::FakeTime::new(T0));
    let app = common::spawn_with(common::Spawn {
        time: time.clone(),
        ..common::Spawn::default()
    })
    .await;
    (app, time)
}

const T0: i64 = 1_800_000_000_000;

/// A write of the instance's row under way when the stop begins commits first, and the final
/// heartbeat after it: CI once saw a periodic heartbeat, timed before the stop, land after the
/// final one and leave the row 2 s early (the next start would have credited 2 s too much).
#[tokio::test]
async fn a_heartbeat_under_way_at_the_stop_is_overwritten_by_the_final_one() {
    let (app, time) = arena_at_t0().await;
    let under_way = app.arena.beat_gate().await.expect("serving");
    time.advance(2_000);
    let arena = app.arena.clone();
    let stop = tokio::spawn(async move { arena.stop_serving().await });
    // One runtime thread: yielding lets the stop run until it waits for the gate.
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
    assert!(
        !stop.is_finished(),
        "the final heartbeat waits for the write under way"
    );
    // That write, timed before the stop, commits now.
    sqlx::query("UPDATE instances SET heartbeat_ms = $1 WHERE id = $2")
        .bind(T0)
        .bind(&app.arena.instance_id)
        .execute(&app.arena.store.pool)
        .await
        .expect("the write under way");
    drop(under_way);
    stop.await.expect("the stop");
    assert_eq!(heartbeat_ms(&app).await, T0 + 2_000);
}

/// A heartbeat that read the clock before the stop and reaches the database after it writes
/// nothing.
#[tokio::test]
async fn no_heartbeat_that_lands_after_the_stop_moves_the_stop_moment() {
    let (app, time) = arena_at_t0().await;
    time.advance(2_000);
    app.arena.stop_serving().await;
    assert_eq!(heartbeat_ms(&app).await, T0 + 2_000);
    hexarena::arena::scheduler::heartbeat(&app.arena, T0)
        .await
        .expect("a stopping instance's heartbeat is skipped, not failed");
    assert_eq!(heartbeat_ms(&app).await, T0 + 2_000);
}

/// A stop during a storage outage, before the recovery credited it, marks the outage's start:
/// the next start credits the refused time with the downtime, as the recovery would have.
#[tokio::test]
async fn a_stop_during_an_outage_marks_the_outage_s_start() {
    let (app, time) = arena_at_t0().await;
    time.advance(1_000);
    app.arena.store.health.answered(T0 + 1_000);
    app.arena.store.health.unreachable("a test outage");
    assert_eq!(app.arena.store.health.down_since_ms(), Some(T0 + 1_000));
    time.advance(4_000);
    // No await between the outage and the stop: the recovery probe cannot run in between.
    app.arena.stop_serving().await;
    assert_eq!(heartbeat_ms(&app).await, T0 + 1_000);
}

/// An instance's house row (PostgreSQL's house drivers beat it) is its own: it says nothing
/// of whether another instance served during this one's outage, and a stop lowers it to the
/// stop moment (the next start reads the newest of all rows).
#[tokio::test]
async fn an_instance_s_own_house_row_is_not_another_instance_s_heartbeat() {
    use hexarena::store::instances::{self, HOUSE_ROW};
    let (app, _) = arena_at_t0().await;
    let id = &app.arena.instance_id;
    let mut c = app.arena.store.pool.acquire().await.expect("connection");
    instances::beat(&mut c, &format!("{id}{HOUSE_ROW}"), T0 + 9_000)
        .await
        .expect("house row");
    let others = instances::newest_heartbeat_of_others(&mut c, id)
        .await
        .expect("read");
    assert_eq!(others, None, "no other instance");
    instances::beat(&mut c, &format!("other{HOUSE_ROW}"), T0 + 7_000)
        .await
        .expect("another's house row");
    let others = instances::newest_heartbeat_of_others(&mut c, id)
        .await
        .expect("read");
    assert_eq!(others, Some(T0 + 7_000));
    // Read as a heartbeat at the next start, it is no later than the stop moment.
    drop(c);
    app.arena.stop_serving().await;
    let (house,): (i64,) = sqlx::query_as("SELECT heartbeat_ms FROM instances WHERE id = $1")
        .bind(format!("{id}{HOUSE_ROW}"))
        .fetch_one(&app.arena.store.pool)
        .await
        .expect("house row");
    assert_eq!((house, heartbeat_ms(&app).await), (T0, T0));
}
