//! Grey-box checks of what a refused or deleting request leaves in the database: they count
//! rows through `app.arena.store.pool`, where no route shows them (issue 19 gathers such checks
//! here from hardening.rs and tournament_setup.rs).

mod common;

use common::{TestApp, paths, spawn_app};
use reqwest::StatusCode;
use serde_json::{Value, json};

const OP: &str = "op-secret";

async fn create(app: &TestApp, body: Value) -> Value {
    let r = app.create_tournament(Some(OP), body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    r.body
}

#[tokio::test]
async fn blank_and_disguised_player_names_are_refused_and_register_nobody() {
    let app = spawn_app().await;
    for name in ["   ", "", "ad\u{202e}a", "a\u{200b}b", "tab\there"] {
        let r = app.create_player(json!({"name": name})).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "name {name:?}");
        assert_eq!(r.code(), "bad_request");
    }
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM players")
        .fetch_one(&app.arena.store.pool)
        .await
        .expect("count");
    assert_eq!(n, 0);
    let r = app.create_player(json!({"name": "Ada Lovelace ♥"})).await;
    assert_eq!(r.status, StatusCode::CREATED);
}

#[tokio::test]
async fn a_tournament_that_never_started_is_deleted_without_a_trace_and_a_started_one_is_not() {
    let app = spawn_app().await;
    let (_, pa, _) = app.player_with_bot("DlA").await;
    let (_, pb, _) = app.player_with_bot("DlB").await;
    let staked = json!({"name": "Gone", "format": "gauntlet", "stake": 10,
                        "participants": ["DlA", "DlB"]});
    let id = create(&app, staked.clone()).await["id"]
        .as_str()
        .expect("id")
        .to_string();
    let path = paths::tournament(&id);
    let r = app.delete(&path, None).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let r = app.delete(&path, Some(OP)).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{:?}", r.body);
    assert_eq!(r.body, Value::Null, "no body");
    let r = app.get(&path).await;
    assert_eq!((r.status, r.code()), (StatusCode::NOT_FOUND, "not_found"));
    let r = app.delete(&path, Some(OP)).await;
    assert_eq!((r.status, r.code()), (StatusCode::NOT_FOUND, "not_found"));
    assert_eq!(
        app.list_tournaments("").await.body["tournaments"],
        json!([])
    );
    let mut c = app.arena.store.pool.acquire().await.expect("connection");
    for table in [
        "tournament_entries",
        "tournament_rounds",
        "tournament_pairings",
    ] {
        let (n,): (i64,) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT COUNT(*) FROM {table} WHERE tournament_id = $1"
        )))
        .bind(&id)
        .fetch_one(&mut *c)
        .await
        .expect("count");
        assert_eq!(n, 0, "{table}");
    }
    drop(c);
    assert_eq!(
        (app.balance(&pa).await, app.balance(&pb).await),
        (1000, 1000)
    );
    // Cancelled before it started: still never started, so it may go too.
    let id = create(&app, staked.clone()).await["id"]
        .as_str()
        .expect("id")
        .to_string();
    app.cancel_tournament(Some(OP), &id, json!({})).await;
    let r = app.delete_tournament(Some(OP), &id).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    // Started (even if cancelled since): it has a history, and stays.
    let id = create(&app, staked).await["id"]
        .as_str()
        .expect("id")
        .to_string();
    app.start_tournament(Some(OP), &id, json!({})).await;
    let r = app.delete_tournament(Some(OP), &id).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::CONFLICT, "tournament_state")
    );
    app.cancel_tournament(Some(OP), &id, json!({})).await;
    let r = app.delete_tournament(Some(OP), &id).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::CONFLICT, "tournament_state")
    );
    assert_eq!(r.body["error"]["details"]["status"], "cancelled");
    assert_eq!(app.get_tournament(&id).await.status, StatusCode::OK);
}
