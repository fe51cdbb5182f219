//! The server ends timed-out games by itself, on the real clock (SPEC section 7): a waiting
//! opponent's one long-poll sees the end within 0.5 s of the deadline. Takes about 30 s.

mod common;

use chrono::DateTime;
use common::{TestApp, spawn_app};
use serde_json::{Value, json};

/// Milliseconds since the epoch of an RFC 3339 time in a game state.
fn ms(v: &Value) -> i64 {
    let s = v.as_str().unwrap_or_else(|| panic!("not a time: {v}"));
    DateTime::parse_from_rfc3339(s)
        .expect("RFC 3339")
        .timestamp_millis()
}

/// One long-poll for the end of game 1 after ply `k`; checks the server ended it within 0.5 s of
/// `deadline_ms` and that game 2 started at that moment.
async fn wait_for_the_end(app: &TestApp, set_id: &str, k: i64, deadline_ms: i64) -> Value {
    let r = app
        .poll_game(&set_id, 1, &format!("after_ply={k}&wait_s=60"))
        .await;
    let s = r.body;
    assert_eq!(s["status"], "finished", "{s}");
    assert_eq!(s["ply"], k, "nobody moved");
    let answered = ms(&s["clock"]["server_time"]);
    eprintln!(
        "{set_id}: ended and answered {} ms after the deadline",
        answered - deadline_ms
    );
    assert!(
        answered > deadline_ms,
        "ended {} ms before the deadline",
        deadline_ms - answered
    );
    assert!(
        answered - deadline_ms <= 500,
        "ended {} ms after the deadline",
        answered - deadline_ms
    );
    let g2 = app.state(set_id, 2).await;
    assert_eq!(g2["status"], "active");
    assert_eq!(g2["to_move"], 1);
    assert_eq!(g2["ply"], 0);
    assert_eq!(g2["clock"]["remaining_ms"], json!([10_000, 10_000]));
    assert_eq!(g2["clock"]["first_move"], true);
    let started = ms(&g2["clock"]["turn_started_at"]);
    assert!(
        started > deadline_ms && started <= answered,
        "game 2 started at {started}, deadline {deadline_ms}"
    );
    assert_eq!(ms(&g2["clock"]["deadline"]), started + 30_000);
    s
}

#[tokio::test]
async fn the_server_ends_silent_turns_on_time_with_no_request_and_starts_game_two() {
    let app = spawn_app().await;
    let (_, _, alice) = app.player_with_bot("Alice").await;
    let (_, _, bob) = app.player_with_bot("Bob").await;
    let (_, _, carol) = app.player_with_bot("Carol").await;
    let (_, _, dave) = app.player_with_bot("Dave").await;
    let clock =
        json!({"clock": {"initial_s": 10, "increment_s": 0}, "options": {"random_stones": 0}});

    // Set 1: Bob (seat 1 of game 1) never makes his first move.
    let first = app.start_set(&alice, &bob, clock.clone()).await;
    let s = app.state(&first, 1).await;
    assert_eq!(s["seats"][0]["bot"], "Bob");
    let first_deadline = ms(&s["clock"]["deadline"]);
    assert_eq!(first_deadline, ms(&s["clock"]["turn_started_at"]) + 30_000);

    // Set 2: both seats make their first moves, then Dave (seat 1) lets his 10 s run out.
    let second = app.start_set(&carol, &dave, clock).await;
    app.play_moves(
        [&dave, &carol],
        &second,
        1,
        &[json!({"cell": [5, 5]}), json!({"cell": [3, 3]})],
    )
    .await;
    let s = app.state(&second, 1).await;
    assert_eq!(s["clock"]["first_move"], false);
    let second_deadline = ms(&s["clock"]["deadline"]);
    assert_eq!(second_deadline, ms(&s["clock"]["turn_started_at"]) + 10_000);

    let (a, b) = tokio::join!(
        wait_for_the_end(&app, &first, 0, first_deadline),
        wait_for_the_end(&app, &second, 2, second_deadline)
    );
    assert_eq!(
        a["result"],
        json!({"winner": 2, "winner_bot": "Alice", "reason": "first_move_timeout"})
    );
    assert_eq!(
        b["result"],
        json!({"winner": 2, "winner_bot": "Carol", "reason": "timeout"})
    );
    assert_eq!(b["clock"]["remaining_ms"], json!([0, 10_000]));
}
