//! Grey-box metrics test (SPEC section 14, "Operations"): a house game is ended on time by
//! calling the arena's expiry sweep in-process (`app.arena.expire`) after advancing a fake
//! clock, and the count is awaited on the arena's own registry (`app.arena.metrics`). Moved
//! here (issue 19) from metrics.rs.

mod common;

use std::time::{Duration, Instant};

use hexarena::metrics::Metrics;
use reqwest::StatusCode;
use serde_json::json;

/// Waits up to 20 s (a closed stream is noticed at its next keep-alive, every 8 s) for `f(metrics)` to hold.
async fn eventually(m: &Metrics, what: &str, f: impl Fn(&Metrics) -> bool) {
    let until = Instant::now() + Duration::from_secs(20);
    while !f(m) {
        assert!(Instant::now() < until, "{what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The value of the sample line `name` (no labels) in a metrics text.
fn sample(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

#[tokio::test]
async fn a_house_game_lost_on_time_is_counted_and_the_house_clock_figures_are_exported() {
    use hexarena::arena::clock::FakeTime;
    let time = std::sync::Arc::new(FakeTime::new(1_800_000_000_000));
    let app = common::spawn_with(common::Spawn {
        time: time.clone(),
        house_bots: true,
        house_lobby_wait_ms: -1,
        ..common::Spawn::default()
    })
    .await;
    let text = app.metrics_text().await;
    assert_eq!(sample(&text, "hexarena_house_time_losses_total"), Some(0.0));
    let (_, _, token) = app.player_with_bot("Waiter").await;
    let r = app
        .create_practice_set(
            Some(&token),
            json!({"opponent": "house-master", "clock": {"initial_s": 60, "increment_s": 0}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let set = r.body["id"].as_str().expect("id").to_string();
    // The house bot (seat 1) moves first; then this bot answers.
    let r = app.get_turn(Some(&token), "wait_s=20").await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["ply"], 1, "{:?}", r.body);
    let mv = r.body["legal_moves"][0].clone();
    let r = app.play(&token, &set, 1, mv, Some(2)).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    // The house bot now thinks on a 60 s clock (over a second): its flag passes meanwhile.
    time.advance(61_000);
    app.arena.expire(&set, 1).await.expect("expire");
    let g = app.state(&set, 1).await;
    assert_eq!(g["result"]["reason"], "timeout", "{g}");
    assert_eq!(g["result"]["winner_bot"], "Waiter", "{g}");
    eventually(&app.arena.metrics, "the time loss is counted", |m| {
        m.encode()
            .is_ok_and(|t| sample(&t, "hexarena_house_time_losses_total") == Some(1.0))
    })
    .await;
    let text = app.metrics_text().await;
    assert!(
        text.contains("# TYPE hexarena_house_time_losses counter"),
        "{text}"
    );
    // The house's first move was thought with its first-move limit ahead of it.
    let margin = sample(&text, "hexarena_house_min_margin_ms").expect("min margin");
    assert!(margin > 1_000.0, "{text}");
    for gauge in [
        "hexarena_house_max_wait_clock_ms",
        "hexarena_house_min_stored_margin_ms",
        "hexarena_house_move_overhead_ms",
        "hexarena_house_max_move_overhead_ms",
    ] {
        assert!(sample(&text, gauge).is_some(), "{gauge} missing:\n{text}");
    }
    // Before any move on the clock was measured, the house plans with its prior overhead.
    assert_eq!(
        sample(&text, "hexarena_house_move_overhead_ms"),
        Some(hexarena::arena::house::pool::OVERHEAD_PRIOR_MS)
    );
}
