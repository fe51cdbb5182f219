//! Grey-box error-code tests (SPEC section 10): checks that a refused request registered nobody
//! count the `players` table, and the suspension test plants strikes with SQL, through
//! `app.arena.store.pool`; no route lists players or records a strike on demand. Gathered here
//! (issue 19) from api_errors.rs, whose black-box tests share this file's fixture
//! (`common::errors`).

mod common;

use common::errors::{assert_error, empty_cell, fixture};
use common::{Spawn, TestApp, spawn_with};
use reqwest::StatusCode;
use serde_json::json;

async fn count_rows(app: &TestApp, table: &str) -> i64 {
    sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM {table}")))
        .fetch_one(&app.arena.store.pool)
        .await
        .expect("count")
}

#[tokio::test]
async fn malformed_json_is_a_bad_request_and_changes_nothing() {
    let f = fixture().await;
    let before = f.snapshot().await;
    let r = f
        .app
        .post_raw(&f.moves_url(1), Some(&f.bravo), b"{\"cell\": [1, ".to_vec())
        .await;
    assert_error(&r, StatusCode::BAD_REQUEST, "bad_request");
    let r = f
        .app
        .post_raw(&f.moves_url(1), Some(&f.bravo), b"[1, 2]".to_vec())
        .await;
    // Well-formed JSON that is not an object breaks move_schema: invalid_move, at the root.
    assert_error(&r, StatusCode::BAD_REQUEST, "invalid_move");
    assert_eq!(r.body["error"]["details"]["instance_path"], "");
    let r = f
        .app
        .create_set_raw(Some(&f.alpha), b"{game: hex}".to_vec())
        .await;
    assert_error(&r, StatusCode::BAD_REQUEST, "bad_request");
    let r = f.app.create_player_raw(b"{\"name\": \"x\"".to_vec()).await;
    assert_error(&r, StatusCode::BAD_REQUEST, "bad_request");
    assert_eq!(f.snapshot().await, before);
    assert_eq!(count_rows(&f.app, "players").await, 2);
}

#[tokio::test]
async fn a_bot_with_three_strikes_in_a_day_is_suspended_from_staked_sets() {
    let f = fixture().await;
    let (_, _, charlie) = f.app.player_with_bot("Charlie").await;
    let lobby = f
        .app
        .create_set(Some(&f.alpha), json!({"game": "hex"}))
        .await
        .body["id"]
        .as_str()
        .expect("id")
        .to_string();
    let charlie_id = f.app.get_bot("Charlie").await.body["id"]
        .as_str()
        .expect("bot id")
        .to_string();
    let now = f.app.arena.now_ms();
    for i in 0..3_i64 {
        sqlx::query("INSERT INTO strikes (bot_id, set_id, game_no, at_ms) VALUES ($1, $2, $3, $4)")
            .bind(&charlie_id)
            .bind(format!("set_earlier{i}"))
            .bind(1_i64)
            .bind(now - 3_600_000 * (3 - i))
            .execute(&f.app.arena.store.pool)
            .await
            .expect("strike inserted");
    }
    let profile = f.app.get_bot("Charlie").await.body;
    assert_eq!(profile["strikes"].as_array().map(Vec::len), Some(3));
    assert!(profile["suspended_until"].is_string(), "{profile}");
    let before = f.snapshot().await;
    let lobby_before = f.app.get_set(&lobby).await.body;

    let r = f
        .app
        .create_set(Some(&charlie), json!({"game": "hex", "stake": 10}))
        .await;
    assert_error(&r, StatusCode::FORBIDDEN, "suspended");
    let r = f.app.accept_set(Some(&charlie), &lobby, json!({})).await;
    assert_error(&r, StatusCode::FORBIDDEN, "suspended");

    assert_eq!(f.snapshot().await, before);
    assert_eq!(f.app.get_set(&lobby).await.body, lobby_before);
    // Two strikes are not enough: Bravo with two may still accept.
    let bravo_id = f.app.get_bot("Bravo").await.body["id"]
        .as_str()
        .expect("bot id")
        .to_string();
    for i in 0..2_i64 {
        sqlx::query("INSERT INTO strikes (bot_id, set_id, game_no, at_ms) VALUES ($1, $2, $3, $4)")
            .bind(&bravo_id)
            .bind(format!("set_earlier{i}"))
            .bind(2_i64)
            .bind(now - 1000)
            .execute(&f.app.arena.store.pool)
            .await
            .expect("strike inserted");
    }
    let r = f.app.accept_set(Some(&f.bravo), &lobby, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
}

#[tokio::test]
async fn a_body_over_sixteen_kib_is_payload_too_large() {
    let f = fixture().await;
    let mv = empty_cell(&f).await;
    let before = f.snapshot().await;
    let url = f.moves_url(1);
    let mut big = serde_json::to_vec(&mv).expect("json");
    big.resize(16 * 1024 + 1, b' ');
    let r = f.app.post_raw(&url, Some(&f.bravo), big).await;
    assert_error(&r, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
    let name = "n".repeat(20_000);
    let r = f.app.create_player(json!({ "name": name })).await;
    assert_error(&r, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
    assert_eq!(f.snapshot().await, before);
    assert_eq!(count_rows(&f.app, "players").await, 2);

    // Exactly 16 KiB is still accepted.
    let mut fits = serde_json::to_vec(&mv).expect("json");
    fits.resize(16 * 1024, b' ');
    let r = f.app.post_raw(&url, Some(&f.bravo), fits).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["ply"], 1);
}

#[tokio::test]
async fn registering_too_often_is_rate_limited_with_retry_after() {
    let app = spawn_with(Spawn {
        register_per_min: 2,
        ..Spawn::default()
    })
    .await;
    app.player("one").await;
    app.player("two").await;
    let r = app.create_player(json!({"name": "three"})).await;
    assert_error(&r, StatusCode::TOO_MANY_REQUESTS, "rate_limited");
    assert_eq!(r.body["error"]["details"]["limit"], "register");
    let retry = r
        .headers
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    assert!(
        retry.is_some_and(|s| (1..=60).contains(&s)),
        "Retry-After in seconds: {:?}",
        r.headers
    );
    assert_eq!(
        count_rows(&app, "players").await,
        2,
        "the refused registration created nobody"
    );
}
