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

/// A move for the writer's batch: the game row one version on (or `ahead` versions on, which
/// the stored row will not match), with a stone at (0, `col`).
fn move_write(
    g: &hexarena::store::games::GameRow,
    ahead: i64,
    col: i64,
) -> hexarena::store::move_batch::MoveWrite {
    let mut game = g.clone();
    game.ply += 1;
    game.version += ahead;
    hexarena::store::move_batch::MoveWrite {
        mv: hexarena::store::games::MoveRow {
            ply: game.ply,
            seat: 1,
            bot_id: g.seat1_id.clone(),
            cell_row: Some(0),
            cell_col: Some(col),
            swap: 0,
            elapsed_ms: 5,
            at_ms: 1_000,
            info: None,
        },
        game,
        event_bot: None,
        event_payload: "{}".into(),
    }
}

/// Rows of `moves` of game 1 of `set_id`, and that game row's version.
async fn stored(app: &TestApp, set_id: &str) -> (i64, i64) {
    sqlx::query_as(
        "SELECT (SELECT COUNT(*) FROM moves m JOIN sets s ON s.num = m.set_num WHERE s.id = g.set_id AND m.game_no = 1), \
         g.version FROM games g WHERE g.set_id = $1 AND g.game_no = 1",
    )
    .bind(set_id)
    .fetch_one(&app.arena.store.pool)
    .await
    .expect("moves and version")
}

/// The set and game of the event with id `id` (which must exist).
async fn event_game(app: &TestApp, id: Option<i64>) -> (String, Option<i64>) {
    sqlx::query_as(
        "SELECT s.id, e.game_no FROM events AS e JOIN sets AS s ON s.num = e.set_num WHERE e.id = $1",
    )
        .bind(id)
        .fetch_one(&app.arena.store.pool)
        .await
        .expect("the event of a stored move")
}

/// The move writer's batch, on the backend under test: one statement on either (SQLite's an
/// insert into a view with a trigger, PostgreSQL's one statement with its batch as a
/// parameter).
async fn commit_batch(
    app: &TestApp,
    c: &mut sqlx::AnyConnection,
    writes: &[&hexarena::store::move_batch::MoveWrite],
    now_ms: i64,
) -> Vec<Option<i64>> {
    use hexarena::store::{Backend, move_batch};
    match app.arena.store.backend {
        Backend::Sqlite => move_batch::commit_moves_sqlite(c, writes, now_ms).await,
        Backend::Postgres => move_batch::commit_moves_pg(c, writes, now_ms).await,
    }
    .expect("committed")
}

/// The move writer's batch (group commit) stores every move whose game row is still at its
/// version, and when one row has moved on it stores the others and leaves that one alone (its
/// move is answered as stale and decided again); the connection is then ready for the next
/// batch. What a bot said of its move is stored byte for byte, quotes and backslashes too.
#[tokio::test]
async fn a_batch_of_moves_stores_every_fresh_move_and_leaves_a_stale_game_alone() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("BatchA").await;
    let (_, _, bravo) = app.player_with_bot("BatchB").await;
    let small = json!({"options": {"size": 9, "random_stones": 0}, "stake": 0});
    let one = app.start_set(&alpha, &bravo, small.clone()).await;
    let two = app.start_set(&alpha, &bravo, small).await;
    let row = |id: String| {
        let app = &app;
        async move {
            let mut c = app.arena.store.pool.acquire().await.expect("conn");
            hexarena::store::games::get(&mut c, &id, 1, "")
                .await
                .expect("read")
                .expect("game 1")
        }
    };
    let (g1, g2) = (row(one.clone()).await, row(two.clone()).await);
    let before = (stored(&app, &one).await, stored(&app, &two).await);

    // Both rows at their versions: both stored, each with its own event.
    let (mut a, b) = (move_write(&g1, 1, 0), move_write(&g2, 1, 0));
    let said = r#"{"note":"a \"quoted\" \\ back\\slash, {braces}, ü"}"#;
    a.mv.info = Some(said.into());
    let mut c = app.arena.store.pool.acquire().await.expect("conn");
    let ids = commit_batch(&app, &mut c, &[&a, &b], 2_000).await;
    assert!(ids.iter().all(Option::is_some), "{ids:?}");
    assert_ne!(ids[0], ids[1]);
    // Each id is its own move's event, in the batch's order.
    assert_eq!(event_game(&app, ids[0]).await, (one.clone(), Some(1)));
    assert_eq!(event_game(&app, ids[1]).await, (two.clone(), Some(1)));
    assert_eq!(stored(&app, &one).await, (before.0.0 + 1, g1.version + 1));
    assert_eq!(stored(&app, &two).await, (before.1.0 + 1, g2.version + 1));
    let (info,): (Option<String>,) =
        sqlx::query_as("SELECT info FROM moves WHERE set_num = (SELECT num FROM sets WHERE sets.id = $1) AND game_no = 1 AND ply = $2")
            .bind(&one)
            .bind(a.mv.ply)
            .fetch_one(&mut *c)
            .await
            .expect("the move");
    assert_eq!(info.as_deref(), Some(said));

    // Game one's next move is fresh; game two's claims a version its row is not one below.
    let g1 = a.game.clone();
    let (fresh, stale) = (move_write(&g1, 1, 1), move_write(&b.game, 3, 1));
    let ids = commit_batch(&app, &mut c, &[&stale, &fresh], 3_000).await;
    assert!(ids[0].is_none() && ids[1].is_some(), "{ids:?}");
    assert_eq!(event_game(&app, ids[1]).await, (one.clone(), Some(1)));
    assert_eq!(stored(&app, &one).await, (before.0.0 + 2, g1.version + 1));
    assert_eq!(stored(&app, &two).await, (before.1.0 + 1, g2.version + 1));

    // The connection is left outside any transaction, ready for the next batch.
    let again = move_write(&fresh.game, 1, 2);
    let ids = commit_batch(&app, &mut c, &[&again], 4_000).await;
    assert!(ids[0].is_some(), "{ids:?}");
    assert_eq!(stored(&app, &one).await, (before.0.0 + 3, g1.version + 2));
}

/// A batch that holds one game twice (the game's lock keeps this from happening today) stores
/// the game's first write only, and answers the other as stale, on either backend: never two
/// moves at one ply, never a game row moved on without its move.
#[tokio::test]
async fn a_batch_that_holds_one_game_twice_stores_its_first_write_only() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("TwiceA").await;
    let (_, _, bravo) = app.player_with_bot("TwiceB").await;
    let small = json!({"options": {"size": 9, "random_stones": 0}, "stake": 0});
    let one = app.start_set(&alpha, &bravo, small.clone()).await;
    let two = app.start_set(&alpha, &bravo, small).await;
    let mut c = app.arena.store.pool.acquire().await.expect("conn");
    let mut rows = vec![];
    for id in [&one, &two] {
        let g = hexarena::store::games::get(&mut c, id, 1, "")
            .await
            .expect("read")
            .expect("game 1");
        rows.push(g);
    }
    let (g1, g2) = (rows[0].clone(), rows[1].clone());
    let before = (stored(&app, &one).await, stored(&app, &two).await);

    // The same move of game one twice (a double submit that reached the writer), between
    // them a move of game two.
    let (first, other, again) = (
        move_write(&g1, 1, 0),
        move_write(&g2, 1, 0),
        move_write(&g1, 1, 0),
    );
    let ids = commit_batch(&app, &mut c, &[&first, &other, &again], 2_000).await;
    assert!(
        ids[0].is_some() && ids[1].is_some() && ids[2].is_none(),
        "{ids:?}"
    );
    assert_eq!(event_game(&app, ids[0]).await, (one.clone(), Some(1)));
    assert_eq!(event_game(&app, ids[1]).await, (two.clone(), Some(1)));
    assert_eq!(stored(&app, &one).await, (before.0.0 + 1, g1.version + 1));
    assert_eq!(stored(&app, &two).await, (before.1.0 + 1, g2.version + 1));

    // The connection is left outside any transaction, ready for the next batch.
    let next = move_write(&first.game, 1, 1);
    let ids = commit_batch(&app, &mut c, &[&next], 3_000).await;
    assert!(ids[0].is_some(), "{ids:?}");
    assert_eq!(stored(&app, &one).await, (before.0.0 + 2, g1.version + 2));
}
