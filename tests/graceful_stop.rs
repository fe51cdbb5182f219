//! A graceful stop (SIGTERM) charges no seat for the stop (SPEC 7, `docs/fair-time.md`): the
//! real `hexarena` binary is stopped with an event stream open and a seat on move, then
//! started again on the same database.

use std::path::Path;
use std::time::{Duration, Instant};

mod common;
use common::paths;

use common::process::{Server, free_port};
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn serve(dir: &Path, port: u16) -> Server {
    Server::start(
        dir,
        port,
        &["--house-bots", "false"],
        &[("RUST_LOG", "info,sqlx=warn")],
    )
    .await
}

async fn call(
    url: &str,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let http = reqwest::Client::new();
    let mut rb = match body {
        Some(b) => http.post(format!("{url}{path}")).json(&b),
        None => http.get(format!("{url}{path}")),
    };
    if let Some(t) = token {
        rb = rb.bearer_auth(t);
    }
    let r = rb.send().await.expect("request sent");
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

async fn ok(url: &str, path: &str, token: Option<&str>, body: Option<Value>) -> Value {
    let (status, body) = call(url, path, token, body).await;
    assert!(status.is_success(), "{path}: {status} {body}");
    body
}

async fn bot(url: &str, name: &str) -> String {
    let p = ok(
        url,
        &paths::players(),
        None,
        Some(json!({"name": format!("owner of {name}")})),
    )
    .await;
    let pt = p["token"].as_str().expect("player token");
    let b = ok(url, &paths::bots(), Some(pt), Some(json!({"name": name}))).await;
    b["token"].as_str().expect("bot token").to_string()
}

fn left(s: &Value, seat: usize) -> i64 {
    s["clock"]["remaining_ms"][seat]
        .as_i64()
        .expect("remaining ms")
}

#[tokio::test]
async fn a_seat_with_four_seconds_left_at_sigterm_survives_a_five_second_stop_and_is_charged_under_a_second()
 {
    let dir = tempfile::tempdir().expect("temp dir");
    let port = free_port();
    let mut server = serve(dir.path(), port).await;
    let url = server.url.clone();
    let alice = bot(&url, "Alice").await;
    let bob = bot(&url, "Bob").await;
    // 10 s clocks, no increment: both first moves are free, then Bob's clock runs.
    let body = json!({"game": "hex", "clock": {"initial_s": 10, "increment_s": 0}, "options": {"random_stones": 0}});
    let set = ok(&url, &paths::sets(), Some(&alice), Some(body)).await;
    let set = set["id"].as_str().expect("set id").to_string();
    ok(&url, &paths::accept(&set), Some(&bob), Some(json!({}))).await;
    let moves = paths::moves(&set, 1);
    ok(&url, &moves, Some(&bob), Some(json!({"cell": [5, 5]}))).await;
    ok(&url, &moves, Some(&alice), Some(json!({"cell": [3, 3]}))).await;
    // Bob's own stream stays open through the stop (it used to hold the drain for 5 s).
    let stream = reqwest::Client::new()
        .get(format!("{}{}", url, paths::bot_events()))
        .bearer_auth(&bob)
        .send()
        .await
        .expect("stream opens");
    assert_eq!(stream.status(), StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(5_800)).await;
    let game = paths::game(&set, 1);
    let before = ok(&url, &game, None, None).await;
    assert_eq!(before["to_move"], 1);
    assert_eq!(before["clock"]["first_move"], false);
    assert!(
        (3_000..=4_500).contains(&left(&before, 0)),
        "Bob has about 4 s left: {before}"
    );

    let stopped = Instant::now();
    let pid = server.proc.id().to_string();
    let kill = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill runs");
    assert!(kill.success());
    let exit = loop {
        if let Some(status) = server.proc.try_wait() {
            break status;
        }
        assert!(
            stopped.elapsed() < Duration::from_secs(30),
            "no exit after SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let drain_ms = stopped.elapsed().as_millis();
    assert!(exit.success(), "a graceful stop exits 0: {exit:?}");
    drop(stream);
    // Down for more than Bob's 4 s in all.
    tokio::time::sleep(Duration::from_millis(4_500)).await;
    let server = serve(dir.path(), port).await;
    let down_ms = stopped.elapsed().as_millis();
    let after = ok(&url, &game, None, None).await;
    assert_eq!(
        after["status"], "active",
        "no loss on time across the stop: {after}"
    );
    let charged = left(&before, 0) - left(&after, 0);
    eprintln!(
        "SIGTERM with a stream open: drain {drain_ms} ms, down {down_ms} ms, seat on move charged {charged} ms"
    );
    assert!(
        charged < 1_000,
        "charged {charged} ms across a stop (before {before}, after {after})"
    );
    assert_eq!(
        left(&after, 1),
        left(&before, 1),
        "the other seat keeps its time"
    );
    // Bob still has his time: his move is in time.
    let s = ok(&url, &moves, Some(&bob), Some(json!({"cell": [5, 6]}))).await;
    assert_eq!(s["ply"], 3);
    assert_eq!(s["status"], "active");
    drop(server);
}
