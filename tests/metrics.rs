//! `GET /metrics` (SPEC section 14, "Operations"): requests counted by route pattern, and the
//! long-poll and event-stream gauges held up exactly while a client waits or stays connected.

mod common;
use common::paths;

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

#[tokio::test]
async fn requests_are_counted_by_route_pattern_and_status_never_by_raw_path() {
    let app = common::spawn_app().await;
    for _ in 0..2 {
        let r = app.get_game("set_nosuchset", 1).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND);
    }
    assert_eq!(
        app.get("/no/such/route").await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(app.get("/healthz").await.status, StatusCode::OK);

    let res = app
        .http
        .get(format!("{}/metrics", app.url))
        .send()
        .await
        .expect("metrics answer");
    assert_eq!(res.status(), StatusCode::OK);
    let ct = res.headers()["content-type"].to_str().expect("ascii");
    assert!(ct.starts_with("text/plain; version=0.0.4"), "{ct}");
    let text = res.text().await.expect("text");
    for line in [
        format!(
            r#"hexarena_http_requests_total{{route="{}",method="GET",status="404"}} 2"#,
            paths::GAME_ROUTE
        ),
        r#"hexarena_http_requests_total{route="unmatched",method="GET",status="404"} 1"#
            .to_string(),
        r#"hexarena_http_requests_total{route="/healthz",method="GET",status="200"} 1"#.to_string(),
    ] {
        assert!(text.lines().any(|l| l == line), "{line} missing:\n{text}");
    }
    assert!(
        !text.contains("set_nosuchset") && !text.contains("/no/such"),
        "{text}"
    );
    for family in [
        "hexarena_moves",
        "hexarena_move_duration_seconds",
        "hexarena_active_games",
        "hexarena_waiting_long_polls",
        "hexarena_open_event_streams",
        "hexarena_commit_batch_size",
    ] {
        assert!(text.contains(&format!("# HELP {family} ")), "{family}");
    }
    if cfg!(target_os = "linux") {
        assert!(text.contains("\nprocess_resident_memory_bytes "), "{text}");
    }

    let res = app
        .http
        .get(format!("{}/metrics", app.url))
        .header("accept", "application/openmetrics-text; version=1.0.0")
        .send()
        .await
        .expect("metrics answer");
    let ct = res.headers()["content-type"].to_str().expect("ascii");
    assert!(ct.starts_with("application/openmetrics-text"), "{ct}");
    assert!(res.text().await.expect("text").ends_with("# EOF\n"));
}

#[tokio::test]
async fn long_polls_and_event_streams_hold_their_gauges_only_while_open() {
    let app = common::spawn_app().await;
    let m = app.arena.metrics.clone();
    let (_, _, a) = app.player_with_bot("GaugeA").await;
    let (_, _, b) = app.player_with_bot("GaugeB").await;
    let set_id = app.start_set(&a, &b, json!({"opponent": "GaugeB"})).await;
    assert_eq!(m.waiting_long_polls(), 0);
    assert_eq!(m.open_event_streams(), 0);

    // A turn long-poll of the bot not on move (the acceptor, GaugeB, plays first) waits.
    let http = app.http.clone();
    let url = app.url.clone();
    let turn = tokio::spawn(async move {
        http.get(format!(
            "{}{}",
            url,
            paths::with_query(paths::turn(), "wait_s=2")
        ))
        .bearer_auth(&a)
        .send()
        .await
        .map(|r| r.status())
    });
    eventually(&m, "the turn long-poll is counted", |m| {
        m.waiting_long_polls() == 1
    })
    .await;
    // A game long-poll for a ply that will not come within its wait.
    let http = app.http.clone();
    let url = app.url.clone();
    let path = paths::with_query(paths::game(&set_id, 1), "after_ply=50&wait_s=2");
    let game = tokio::spawn(async move { http.get(format!("{url}{path}")).send().await });
    eventually(&m, "both long-polls are counted", |m| {
        m.waiting_long_polls() == 2
    })
    .await;
    assert_eq!(
        turn.await.expect("task").expect("answer"),
        StatusCode::NO_CONTENT
    );
    assert!(
        game.await
            .expect("task")
            .expect("answer")
            .status()
            .is_success()
    );
    eventually(&m, "ended long-polls are not counted", |m| {
        m.waiting_long_polls() == 0
    })
    .await;
    // A game GET without wait_s is not a long-poll.
    app.state(&set_id, 1).await;
    assert_eq!(m.waiting_long_polls(), 0);

    // Streams count while connected, and stop counting once the client goes away.
    let bot_stream = app
        .http
        .get(format!("{}{}", app.url, paths::bot_events()))
        .bearer_auth(&b)
        .send()
        .await
        .expect("bot stream");
    assert_eq!(bot_stream.status(), StatusCode::OK);
    let game_stream = app
        .http
        .get(format!("{}{}", app.url, paths::game_events(&set_id, 1)))
        .send()
        .await
        .expect("game stream");
    assert_eq!(game_stream.status(), StatusCode::OK);
    eventually(&m, "two open streams", |m| m.open_event_streams() == 2).await;
    drop(bot_stream);
    eventually(&m, "a closed stream is not counted", |m| {
        m.open_event_streams() == 1
    })
    .await;
    drop(game_stream);
    eventually(&m, "no stream open", |m| m.open_event_streams() == 0).await;
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
