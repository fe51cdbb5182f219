//! Grey-box pool test (issue 20): the refusals of `POST /v1/pool` include a suspended bot,
//! whose three strikes are planted with SQL through `app.arena.store.pool` (no route records a
//! strike on demand). Moved here (issue 19) from pool.rs.

mod common;

use common::{Spawn, TestApp, round_trip, spawn_with};
use hexarena_contract::{PoolEntry, PoolList};
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn pool(app: &TestApp) -> PoolList {
    let r = app.list_pool().await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    round_trip(&r.body)
}

async fn join(app: &TestApp, token: &str, body: Value) -> PoolEntry {
    let r = app.join_pool(Some(token), body).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    round_trip(&r.body)
}

#[tokio::test]
async fn refused_joins_change_nothing() {
    let app = spawn_with(Spawn::default()).await;
    let (_, player, bot) = app.player_with_bot("PoolRay").await;
    let (_, _, old) = app.player_with_bot("PoolOld").await;
    let (_, _, struck) = app.player_with_bot("PoolSue").await;
    let r = app
        .declare_bot(
            Some(&bot),
            json!({"accepts": {"sizes": [9, 11], "initial_s": [30, 120], "stake": [0, 50]}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let r = app.retire_bot(Some(&old)).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let sue_id = app.get_bot("PoolSue").await.body["id"]
        .as_str()
        .expect("id")
        .to_string();
    let now = app.arena.now_ms();
    for i in 0..3_i64 {
        sqlx::query("INSERT INTO strikes (bot_id, set_id, game_no, at_ms) VALUES ($1, $2, $3, $4)")
            .bind(&sue_id)
            .bind(format!("set_earlier{i}"))
            .bind(1_i64)
            .bind(now - 3_600_000 * (3 - i))
            .execute(&app.arena.store.pool)
            .await
            .expect("strike inserted");
    }
    // Ray is in the pool with a stake of 10; every refusal below leaves the pool as it is.
    join(&app, bot.as_str(), json!({"stake": 10})).await;
    let before = app.list_pool().await.body;

    let cases: Vec<(&str, &str, Value, StatusCode, &str)> = vec![
        (
            "player token",
            player.as_str(),
            json!({}),
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        ),
        (
            "retired bot",
            old.as_str(),
            json!({}),
            StatusCode::CONFLICT,
            "bot_retired",
        ),
        (
            "size outside accepts",
            bot.as_str(),
            json!({"stake": 10, "options": {"size": 13}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "not_accepted",
        ),
        (
            "clock outside accepts",
            bot.as_str(),
            json!({"stake": 10, "clock": {"initial_s": 300}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "not_accepted",
        ),
        (
            "stake outside accepts",
            bot.as_str(),
            json!({"stake": 100}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "not_accepted",
        ),
        (
            "stake below the minimum",
            bot.as_str(),
            json!({"stake": 5}),
            StatusCode::BAD_REQUEST,
            "bad_request",
        ),
        (
            "stake above max_stake",
            bot.as_str(),
            json!({"stake": 600}),
            StatusCode::BAD_REQUEST,
            "bad_request",
        ),
        (
            "staked but unrated",
            bot.as_str(),
            json!({"stake": 10, "rated": false}),
            StatusCode::BAD_REQUEST,
            "bad_request",
        ),
        (
            "options off the schema",
            bot.as_str(),
            json!({"options": {"size": 30}}),
            StatusCode::BAD_REQUEST,
            "invalid_options",
        ),
        (
            "clock off the contract",
            bot.as_str(),
            json!({"clock": {"increment_s": 11}}),
            StatusCode::BAD_REQUEST,
            "bad_request",
        ),
        (
            "unknown field",
            bot.as_str(),
            json!({"opponent": "PoolSue"}),
            StatusCode::BAD_REQUEST,
            "bad_request",
        ),
        (
            "suspended, staked",
            struck.as_str(),
            json!({"stake": 10}),
            StatusCode::FORBIDDEN,
            "suspended",
        ),
    ];
    for (what, token, body, status, code) in cases {
        let r = app.join_pool(Some(token), body).await;
        assert_eq!((r.status, r.code()), (status, code), "{what}: {:?}", r.body);
        assert_eq!(
            app.list_pool().await.body,
            before,
            "{what} changed the pool"
        );
    }
    let r = app.join_pool(None, json!({})).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let r = app.leave_pool(Some(&player)).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(app.list_pool().await.body, before);
    // The option a refusal names.
    let r = app
        .join_pool(Some(&bot), json!({"options": {"size": 13}}))
        .await;
    assert_eq!(r.body["error"]["details"]["option"], json!("sizes"));
    // A suspended bot may still wait for unstaked sets.
    let e = join(&app, &struck, json!({"stake": 0})).await;
    assert_eq!(e.stake, 0);
    // Retiring takes a bot out of the pool.
    let r = app.retire_bot(Some(&bot)).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let names: Vec<String> = pool(&app)
        .await
        .entries
        .into_iter()
        .map(|e| e.bot)
        .collect();
    assert_eq!(names, ["PoolSue"]);
}
