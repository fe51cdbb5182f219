//! One clock for every instance (issue 17; SPEC sections 7, 12; docs/multi-instance.md): an
//! instance whose machine clock runs 5 s ahead still charges each move the time it really took
//! and ends no game early, because every instance judges time on the database's clock. The
//! two-instance tests need TEST_DATABASE_URL (skipped, saying so, without). The tests that read
//! or move an instance's trust in its clock are in clock_sync_greybox.rs.

mod common;

use std::time::{Duration, Instant};

use common::seat_tokens;
use common::skew::{ERROR_BOUND_MS, quiet_move, skewed_pair};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_ten_second_clock_is_not_ended_on_time_by_an_instance_five_seconds_ahead() {
    let Some(apps) = skewed_pair().await else {
        return;
    };
    let (_, _, alpha) = apps[0].player_with_bot("TenAlpha").await;
    let (_, _, beta) = apps[1].player_with_bot("TenBeta").await;
    let set_id = apps[0]
        .start_set(
            &alpha,
            &beta,
            json!({"options": {"size": 9, "random_stones": 0},
                   "clock": {"initial_s": 10, "increment_s": 0}, "stake": 0}),
        )
        .await;
    let s = apps[0].state(&set_id, 1).await;
    let tokens = seat_tokens(&s, &[("TenAlpha", &alpha), ("TenBeta", &beta)]);
    // Both first moves (free) on the on-time instance: seat 1's clock now runs, stamped there.
    for ply in 1..=2 {
        let r = apps[0]
            .play(
                tokens[usize::from(ply % 2 == 0)],
                &set_id,
                1,
                quiet_move(ply),
                Some(ply),
            )
            .await;
        assert_eq!(r.status, StatusCode::OK, "ply {ply}: {:?}", r.body);
    }
    let stamped = Instant::now();
    // Past the 5 s at which the instance ahead would see seat 1's 10 s run out.
    tokio::time::sleep(Duration::from_millis(6_500)).await;
    let s = apps[1].state(&set_id, 1).await;
    assert_eq!(
        s["status"], "active",
        "ended after 6.5 s of a 10 s clock: {s}"
    );
    let r = apps[1]
        .play(tokens[0], &set_id, 1, quiet_move(3), Some(3))
        .await;
    let took = i64::try_from(stamped.elapsed().as_millis()).expect("ms");
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let s = apps[0].state(&set_id, 1).await;
    let charged = s["moves"][2]["elapsed_ms"].as_i64().expect("elapsed_ms");
    eprintln!(
        "10 s clock, instance +5 s ahead: move after {took} ms of real time charged {charged} ms"
    );
    assert!(
        (charged - took).abs() < ERROR_BOUND_MS,
        "charged {charged} ms for about {took} ms"
    );
}
