//! `GET /metrics` (SPEC section 14, "Operations"): requests counted by route pattern, and the
//! long-poll and event-stream gauges held up exactly while a client waits or stays connected,
//! all read over HTTP. The house time-loss count, driven in-process, is in metrics_greybox.rs.

mod common;
use common::paths;

use std::time::{Duration, Instant};

use common::TestApp;
use reqwest::StatusCode;
use serde_json::json;

/// The long-polls waiting now, as `GET /metrics` says.
const LONG_POLLS: &str = "hexarena_waiting_long_polls";
/// The event streams open now, as `GET /metrics` says.
const STREAMS: &str = "hexarena_open_event_streams";

/// The gauge `name` of `GET /metrics`.
async fn gauge(app: &TestApp, name: &str) -> i64 {
    app.metric(name)
        .await
        .unwrap_or_else(|| panic!("{name} missing")) as i64
}

/// Waits up to 20 s (a closed stream is noticed at its next keep-alive, every 8 s) for the
/// gauge `name` of `GET /metrics` to read `want`.
async fn eventually(app: &TestApp, what: &str, name: &str, want: i64) {
    let until = Instant::now() + Duration::from_secs(20);
    while gauge(app, name).await != want {
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
    let (_, _, a) = app.player_with_bot("GaugeA").await;
    let (_, _, b) = app.player_with_bot("GaugeB").await;
    let set_id = app.start_set(&a, &b, json!({"opponent": "GaugeB"})).await;
    assert_eq!(gauge(&app, LONG_POLLS).await, 0);
    assert_eq!(gauge(&app, STREAMS).await, 0);

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
    eventually(&app, "the turn long-poll is counted", LONG_POLLS, 1).await;
    // A game long-poll for a ply that will not come within its wait.
    let http = app.http.clone();
    let url = app.url.clone();
    let path = paths::with_query(paths::game(&set_id, 1), "after_ply=50&wait_s=2");
    let game = tokio::spawn(async move { http.get(format!("{url}{path}")).send().await });
    eventually(&app, "both long-polls are counted", LONG_POLLS, 2).await;
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
    eventually(&app, "ended long-polls are not counted", LONG_POLLS, 0).await;
    // A game GET without wait_s is not a long-poll.
    app.state(&set_id, 1).await;
    assert_eq!(gauge(&app, LONG_POLLS).await, 0);

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
    eventually(&app, "two open streams", STREAMS, 2).await;
    drop(bot_stream);
    eventually(&app, "a closed stream is not counted", STREAMS, 1).await;
    drop(game_stream);
    eventually(&app, "no stream open", STREAMS, 0).await;
}
