//! Faults found by trying to break the arena, kept as tests: each refused request gets the
//! right code and changes nothing; each accepted oddity is really accepted.

mod common;

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use common::spawn_app;
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn integers_written_as_floats_pass_the_schemas_and_are_played() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("FloatA").await;
    let (_, _, bravo) = app.player_with_bot("FloatB").await;
    let set = app
        .start_set(
            &alpha,
            &bravo,
            json!({"options": {"size": 9.0, "random_stones": 0e0}}),
        )
        .await;
    let s = app.state(&set, 1).await;
    assert_eq!(s["options"], json!({"size": 9, "random_stones": 0}));
    let r = app
        .play(&bravo, &set, 1, json!({"cell": [1.0, 2.0]}), Some(1))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["moves"][0]["cell"], json!([1, 2]));
    // A real fraction is still a schema error with its path.
    let r = app
        .play(&alpha, &set, 1, json!({"cell": [1.5, 2]}), Some(2))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.code(), "invalid_move");
    assert_eq!(r.body["error"]["details"]["instance_path"], "/cell/0");
}

#[tokio::test]
async fn the_bearer_scheme_is_case_insensitive() {
    let app = spawn_app().await;
    let (_, player) = app.player("casey").await;
    for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
        let r = app
            .http
            .get(format!("{}/v1/players/me", app.url))
            .header("Authorization", format!("{scheme} {player}"))
            .send()
            .await
            .expect("request");
        assert_eq!(r.status(), StatusCode::OK, "scheme {scheme}");
    }
    let r = app
        .http
        .get(format!("{}/v1/players/me", app.url))
        .header("Authorization", format!("Basic {player}"))
        .send()
        .await
        .expect("request");
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn blank_and_disguised_player_names_are_refused_and_register_nobody() {
    let app = spawn_app().await;
    for name in ["   ", "", "ad\u{202e}a", "a\u{200b}b", "tab\there"] {
        let r = app.post("/v1/players", None, json!({"name": name})).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "name {name:?}");
        assert_eq!(r.code(), "bad_request");
    }
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM players")
        .fetch_one(&app.arena.store.pool)
        .await
        .expect("count");
    assert_eq!(n, 0);
    let r = app
        .post("/v1/players", None, json!({"name": "Ada Lovelace ♥"}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
}

#[tokio::test]
async fn list_parameters_out_of_range_are_bad_requests() {
    let app = spawn_app().await;
    let (_, player) = app.player("lister").await;
    for path in [
        "/v1/sets?limit=0",
        "/v1/sets?limit=-5",
        "/v1/leaderboard?limit=0",
        "/v1/sets?before=garbage",
    ] {
        let r = app.get(path).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{path}: {:?}", r.body);
        assert_eq!(r.code(), "bad_request");
    }
    let r = app.get_auth("/v1/players/me/ledger?limit=0", &player).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    // Large limits are capped, not refused.
    let r = app.get("/v1/leaderboard?limit=1000000").await;
    assert_eq!(r.status, StatusCode::OK);
}

#[tokio::test]
async fn a_non_object_body_is_a_bad_request_where_an_object_is_expected() {
    let app = spawn_app().await;
    for body in ["[1, 2]", "\"ada\"", "5", "null"] {
        let r = app
            .post_raw("/v1/players", None, body.as_bytes().to_vec())
            .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(r.code(), "bad_request");
    }
}

#[tokio::test]
async fn a_body_that_stalls_is_cut_off_with_a_timeout_error() {
    let app = spawn_app().await;
    let addr = app.url.trim_start_matches("http://").to_string();
    let t0 = Instant::now();
    let answer = tokio::task::spawn_blocking(move || {
        let mut s = std::net::TcpStream::connect(addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
        s.write_all(b"POST /v1/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"name\":")
            .expect("write");
        let mut buf = vec![0u8; 4096];
        let n = s.read(&mut buf).unwrap_or(0);
        String::from_utf8_lossy(&buf[..n]).to_string()
    })
    .await
    .expect("join");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("\"request_timeout\""), "{answer}");
    assert!(t0.elapsed() < Duration::from_secs(20), "{:?}", t0.elapsed());
}
