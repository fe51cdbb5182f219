//! Grey-box migration tests: databases built as older builds left them are opened by this
//! build, and what the upgrade kept or computed is read back from the database
//! (`app.arena.store.pool`: a move row no route shows, the Glicko-2 replay's marker row and
//! the stored figures to the last bit). Moved here (issue 19) from migrations.rs, which keeps
//! the append-only checks of the migration files.

mod common;

use serde_json::json;

#[tokio::test]
async fn a_database_with_moves_stored_before_the_latest_migrations_opens_and_keeps_them() {
    sqlx::any::install_default_drivers();
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}/old.db?mode=rwc", dir.path().display());
    {
        // The database as the builds with migrations 1 to 4 left it, with one stored move of a
        // stored set, and one of a set that is not there (migration 15 keys moves by their
        // set's number, and such a row, which no route could show, is not kept).
        let pool = common::database_at_migration(&url, "sqlite", 4).await;
        for sql in [
            "INSERT INTO players (id, name, token_hash, balance, created_ms) \
             VALUES ('pl_old', 'Old', 'h_pl_old', 0, 0)",
            "INSERT INTO bots (id, name, name_key, owner_id, max_stake, token_hash, created_ms) \
             VALUES ('bot_old', 'old', 'old', 'pl_old', 0, 'h_bot_old', 0)",
            "INSERT INTO sets (id, creator_id, status, size, random_stones, initial_ms, \
             increment_ms, stake, seed_hex, seed_sha256, created_ms) \
             VALUES ('set_old', 'bot_old', 'active', 11, 0, 60000, 1000, 0, 'aa', 'bb', 0)",
            "INSERT INTO moves (set_id, game_no, ply, seat, bot_id, cell_row, cell_col, swap, elapsed_ms, at_ms) \
             VALUES ('set_old', 1, 1, 1, 'bot_old', 4, 4, 0, 0, 0)",
            "INSERT INTO moves (set_id, game_no, ply, seat, bot_id, cell_row, cell_col, swap, elapsed_ms, at_ms) \
             VALUES ('set_gone', 1, 1, 1, 'bot_old', 5, 5, 0, 0, 0)",
        ] {
            sqlx::query(sql).execute(&pool).await.expect("an old row");
        }
        pool.close().await;
    }
    let app = common::spawn_with(common::Spawn {
        database_url: Some(url),
        ..common::Spawn::default()
    })
    .await;
    assert_eq!(app.get("/healthz").await.status, reqwest::StatusCode::OK);
    let (n, cell): (i64, Option<i64>) = sqlx::query_as(
        "SELECT COUNT(*), MAX(cell_row) FROM moves \
         WHERE set_num = (SELECT num FROM sets WHERE sets.id = 'set_old')",
    )
    .fetch_one(&app.arena.store.pool)
    .await
    .expect("moves");
    assert_eq!((n, cell), (1, Some(4)));
    let (all,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM moves")
        .fetch_one(&app.arena.store.pool)
        .await
        .expect("moves");
    assert_eq!(all, 1);
}

/// The day of the Glicko-2 replay test's stored sets, ms.
const DAY_MS: i64 = 86_400_000;
const T0: i64 = 1_700_000_000_000;

/// A database as builds before Glicko-2 (issue 20) left it, on PostgreSQL when
/// `TEST_DATABASE_URL` is set, else SQLite in `dir`: three players' bots and a house bot,
/// four finished rated sets (one drawn, two finished in the same ms), an unrated one, a
/// practice one and an active rated one. Ann's Elo is 1234.5 and stays so.
async fn database_before_glicko(dir: &std::path::Path) -> String {
    sqlx::any::install_default_drivers();
    let (url, backend, last) = match common::pg_admin_url() {
        Some(_) => (
            common::fresh_pg_db().await.expect("PostgreSQL"),
            "postgres",
            6,
        ),
        None => (
            format!("sqlite://{}/old.db?mode=rwc", dir.display()),
            "sqlite",
            7,
        ),
    };
    let pool = common::database_at_migration(&url, backend, last).await;
    let (d1, d10) = (T0 + DAY_MS + 5, T0 + 10 * DAY_MS);
    for sql in [
        "INSERT INTO players (id, name, token_hash, balance, house, created_ms) VALUES \
         ('p_a', 'pa', 'ha', 1000, 0, 0), ('p_b', 'pb', 'hb', 1000, 0, 0), \
         ('p_c', 'pc', 'hc', 1000, 0, 0), ('p_h', 'House of Clubs', 'hh', 0, 1, 0)"
            .to_string(),
        "INSERT INTO bots (id, name, name_key, owner_id, max_stake, token_hash, house, rating, sets, wins, draws, losses, created_ms) VALUES \
         ('bot_a', 'Ann', 'ann', 'p_a', 100, 'ta', 0, 1234.5, 2, 2, 0, 0, 0), \
         ('bot_b', 'Bob', 'bob', 'p_b', 100, 'tb', 0, 1180, 3, 0, 1, 2, 0), \
         ('bot_c', 'Cid', 'cid', 'p_c', 100, 'tc', 0, 1210, 2, 1, 1, 0, 0), \
         ('bot_h', 'house-club', 'house-club', 'p_h', 1000, 'th', 1, 1580, 1, 0, 0, 1, 0)"
            .to_string(),
        format!(
            "INSERT INTO sets (id, creator_id, acceptor_id, status, practice, rated, size, random_stones, \
             initial_ms, increment_ms, stake, seed_hex, seed_sha256, winner_id, result, created_ms, finished_ms) VALUES \
             ('set_1', 'bot_a', 'bot_b', 'finished', 0, 1, 9, 2, 60000, 2000, 10, 'x', 'y', 'bot_a', 'Ann wins', 0, {T0}), \
             ('set_2', 'bot_b', 'bot_c', 'finished', 0, 1, 9, 2, 60000, 2000, 10, 'x', 'y', NULL, 'draw', 0, {d1}), \
             ('set_6', 'bot_b', 'bot_a', 'finished', 0, 1, 9, 2, 60000, 2000, 10, 'x', 'y', 'bot_a', 'Ann wins', 0, {d10}), \
             ('set_3', 'bot_h', 'bot_c', 'finished', 0, 1, 9, 2, 60000, 2000, 0, 'x', 'y', 'bot_c', 'Cid wins', 0, {d10}), \
             ('set_4', 'bot_a', 'bot_b', 'finished', 0, 0, 9, 2, 60000, 2000, 0, 'x', 'y', 'bot_b', 'Bob wins', 0, {}), \
             ('set_5', 'bot_a', 'bot_h', 'finished', 1, 0, 9, 2, 60000, 2000, 0, 'x', 'y', 'bot_h', 'house-club wins', 0, {}), \
             ('set_7', 'bot_a', 'bot_c', 'active', 0, 1, 9, 2, 60000, 2000, 10, 'x', 'y', NULL, NULL, 0, NULL)",
            T0 + 2,
            T0 + 3
        ),
        // Only the last set has an Elo history row (those before issue 14 have none).
        "UPDATE sets SET rating_creator_before = 1196.2, rating_creator_after = 1180, \
         rating_acceptor_before = 1218.5, rating_acceptor_after = 1234.5 WHERE id = 'set_6'"
            .to_string(),
    ] {
        sqlx::query(sqlx::AssertSqlSafe(sql.clone()))
            .execute(&pool)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    pool.close().await;
    url
}

/// Starts a build on `url` at `now_ms`.
async fn upgrade(url: &str, now_ms: i64) -> common::TestApp {
    common::spawn_with(common::Spawn {
        database_url: Some(url.to_string()),
        time: std::sync::Arc::new(hexarena::arena::clock::FakeTime::new(now_ms)),
        ..common::Spawn::default()
    })
    .await
}

#[tokio::test]
async fn rated_sets_stored_before_glicko_2_are_replayed_once_in_finish_order_on_upgrade() {
    use common::glicko::{self, G};
    let dir = tempfile::tempdir().expect("temp dir");
    let url = database_before_glicko(dir.path()).await;
    // An hour after the last stored set: no empty period between it and now.
    let now = T0 + 10 * DAY_MS + 3_600_000;
    let app = upgrade(&url, now).await;

    // The replay by hand: by finished_ms, then id (set_3 before set_6, both on day 10);
    // house-club from its seed (1590, deviation 60); whole days idle before each set.
    let house = G {
        r: 1590.0,
        rd: 60.0,
        sigma: 0.06,
    };
    let (a1, b1) = glicko::set(glicko::NEW, glicko::NEW, 1.0); // set_1, day 0
    let (b2, c2) = glicko::set(glicko::idle(b1, 1), glicko::NEW, 0.5); // set_2, day 1 + 5 ms
    let (h3, c3) = glicko::set(house, glicko::idle(c2, 8), 0.0); // set_3, day 10
    let (b6, a6) = glicko::set(glicko::idle(b2, 8), glicko::idle(a1, 10), 0.0); // set_6
    for (name, want) in [("Ann", a6), ("Bob", b6), ("Cid", c3), ("house-club", h3)] {
        let p = app.get_bot(&name).await.body;
        let got = G {
            r: p["glicko_rating"].as_f64().expect("glicko_rating"),
            rd: p["rating_deviation"].as_f64().expect("rating_deviation"),
            sigma: p["rating_volatility"].as_f64().expect("rating_volatility"),
        };
        assert!(
            glicko::close(got, want, 1e-6),
            "{name}: {got:?} vs {want:?}"
        );
        assert_eq!(p["provisional"], want.rd > 110.0, "{name}");
    }
    // Figures to read (also computed apart, in Python, from the paper's steps): Ann won both
    // her rated sets, Bob lost two and drew one, the house bot barely moved on its loss.
    assert!(
        (a6.r - 1426.80).abs() < 0.01 && (a6.rd - 257.48).abs() < 0.01,
        "{a6:?}"
    );
    assert!(
        (b6.r - 1022.51).abs() < 0.01 && (b6.rd - 234.82).abs() < 0.01,
        "{b6:?}"
    );
    assert!(
        (h3.r - 1576.40).abs() < 0.01 && (h3.rd - 60.67).abs() < 0.01,
        "{h3:?}"
    );
    // Elo and the records are the stored ones: the replay computes Glicko-2 only.
    let ann = app.get_bot("Ann").await.body;
    assert_eq!(
        (&ann["rating_exact"], &ann["sets"], &ann["w"]),
        (&json!(1234.5), &json!(2), &json!(2)),
        "{ann}"
    );
    // The history point of set_6 carries the replayed figures before and after.
    let h = app.get_bot_ratings("Ann").await.body;
    let p = &h["history"][0];
    assert_eq!(
        (&p["set_id"], &p["opponent"], &p["result"]),
        (&json!("set_6"), &json!("Bob"), &json!("win"))
    );
    let before = glicko::idle(a1, 10);
    assert!((p["glicko_rating_before"].as_f64().expect("before") - before.r).abs() < 1e-6);
    assert!((p["rating_deviation_before"].as_f64().expect("before") - before.rd).abs() < 1e-6);
    assert!((p["rating_deviation"].as_f64().expect("after") - a6.rd).abs() < 1e-6);
    assert_eq!(h["history"].as_array().map(Vec::len), Some(1), "{h}");
    let done: Option<i64> =
        sqlx::query_scalar("SELECT done_ms FROM rating_replays WHERE system = 'glicko2'")
            .fetch_one(&app.arena.store.pool)
            .await
            .expect("replay row");
    assert_eq!(done, Some(now));
    let profiles = |app: &common::TestApp| {
        let app = app.arena.clone();
        async move {
            let mut c = app.store.pool.acquire().await.expect("connection");
            let mut out = vec![];
            for b in hexarena::store::accounts::bots_by_rating(&mut c, 100)
                .await
                .expect("bots")
            {
                out.push((
                    b.name,
                    b.glicko_rating,
                    b.glicko_deviation,
                    b.glicko_volatility,
                    b.glicko_at_ms,
                ));
            }
            out
        }
    };
    let first = profiles(&app).await;
    drop(app);

    // A second start does not replay again (the row keeps the first start's time), and a
    // copy of the same old database upgrades to the very same figures, to the last bit.
    let again = upgrade(&url, now + DAY_MS).await;
    assert_eq!(profiles(&again).await, first);
    let done: Option<i64> =
        sqlx::query_scalar("SELECT done_ms FROM rating_replays WHERE system = 'glicko2'")
            .fetch_one(&again.arena.store.pool)
            .await
            .expect("replay row");
    assert_eq!(done, Some(now));
    let dir2 = tempfile::tempdir().expect("temp dir");
    let copy = upgrade(&database_before_glicko(dir2.path()).await, now + 5).await;
    assert_eq!(profiles(&copy).await, first);
}

/// Events stored before the stream store's keys (issue 22: migration 14 on SQLite, 13 on
/// PostgreSQL) stay on the same streams after the upgrade: a bot's own event, a lobby event
/// (every bot's stream) and a game's public state; and a set and a bot made after the upgrade
/// get keys that follow the old ones. On PostgreSQL when `TEST_DATABASE_URL` is set.
#[tokio::test]
async fn events_stored_before_the_stream_keys_stay_on_their_streams_after_the_upgrade() {
    use hexarena::store::events;
    sqlx::any::install_default_drivers();
    let dir = tempfile::tempdir().expect("temp dir");
    let (url, backend, last) = match common::pg_admin_url() {
        Some(_) => (
            common::fresh_pg_db().await.expect("PostgreSQL"),
            "postgres",
            12,
        ),
        None => (
            format!("sqlite://{}/old.db?mode=rwc", dir.path().display()),
            "sqlite",
            13,
        ),
    };
    let pool = common::database_at_migration(&url, backend, last).await;
    for sql in [
        "INSERT INTO players (id, name, token_hash, balance, house, created_ms) VALUES \
         ('p_a', 'pa', 'ha', 1000, 0, 0), ('p_b', 'pb', 'hb', 1000, 0, 0)",
        "INSERT INTO bots (id, name, name_key, owner_id, max_stake, token_hash, created_ms) VALUES \
         ('bot_a', 'Ann', 'ann', 'p_a', 100, 'ta', 0), ('bot_b', 'Bob', 'bob', 'p_b', 100, 'tb', 0)",
        "INSERT INTO sets (id, creator_id, acceptor_id, status, size, random_stones, initial_ms, \
         increment_ms, stake, seed_hex, seed_sha256, created_ms) VALUES \
         ('set_1', 'bot_a', NULL, 'open', 9, 2, 60000, 2000, 10, 'x', 'y', 0), \
         ('set_2', 'bot_a', 'bot_b', 'active', 9, 2, 60000, 2000, 10, 'x', 'y', 0)",
        "INSERT INTO events (id, bot_id, set_id, game_no, kind, payload, at_ms) VALUES \
         (1, '*', 'set_1', NULL, 'challenge', '{\"n\":1}', 5), \
         (2, 'bot_b', 'set_2', NULL, 'set_started', '{\"n\":2}', 6), \
         (3, 'bot_a', 'set_2', 1, 'state', '{\"ply\":0}', 7), \
         (4, NULL, 'set_2', 1, 'state', '{\"ply\":1}', 8)",
        "INSERT INTO moves (set_id, game_no, ply, seat, cell_row, cell_col, swap, elapsed_ms, \
         at_ms, info) VALUES ('set_2', 1, 1, 1, 3, 4, 0, 900, 8, '{\"pv\":\"d5\"}'), \
         ('set_2', 1, 2, 2, NULL, NULL, 1, 700, 9, NULL), \
         ('set_gone', 1, 1, 1, 0, 0, 0, 1, 1, NULL)",
    ] {
        sqlx::query(sql)
            .execute(&pool)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    pool.close().await;
    let app = upgrade(&url, T0).await;
    let mut c = app.arena.store.pool.acquire().await.expect("connection");
    let seen = |rows: Vec<events::EventRow>| -> Vec<(i64, Option<String>, Option<i64>, String)> {
        rows.into_iter()
            .map(|r| (r.id, r.set_id, r.game_no, r.kind))
            .collect()
    };
    let s = |x: &str| Some(x.to_string());
    let ann = events::for_bot_after(&mut c, "bot_a", 0, 100, 10)
        .await
        .expect("Ann's");
    assert_eq!(
        seen(ann),
        vec![
            (1, s("set_1"), None, "challenge".to_string()),
            (3, s("set_2"), Some(1), "state".to_string()),
        ]
    );
    let bob = events::for_bot_after(&mut c, "bot_b", 0, 100, 10)
        .await
        .expect("Bob's");
    assert_eq!(
        seen(bob),
        vec![
            (1, s("set_1"), None, "challenge".to_string()),
            (2, s("set_2"), None, "set_started".to_string()),
        ]
    );
    let game = events::for_game_after(&mut c, "set_2", 1, 0, 100, 10)
        .await
        .expect("game");
    assert_eq!(
        seen(game),
        vec![
            (3, s("set_2"), Some(1), "state".to_string()),
            (4, s("set_2"), Some(1), "state".to_string()),
        ]
    );
    assert!(
        events::turn_after(&mut c, "bot_a", "set_2", 1, 0)
            .await
            .expect("turn")
    );
    assert!(
        !events::turn_after(&mut c, "bot_b", "set_2", 1, 0)
            .await
            .expect("turn")
    );
    // The moves are keyed by their set's number too: a stored set's moves are all there, the
    // row of a set that is not stored is not kept.
    // (set, game, ply, row, swap, elapsed_ms, info)
    type MoveRow = (String, i64, i64, Option<i64>, i64, i64, Option<String>);
    let moves: Vec<MoveRow> = sqlx::query_as(
        "SELECT s.id, m.game_no, m.ply, m.cell_row, m.swap, m.elapsed_ms, m.info \
         FROM moves m JOIN sets s ON s.num = m.set_num ORDER BY m.ply",
    )
    .fetch_all(&mut *c)
    .await
    .expect("moves");
    assert_eq!(
        moves,
        vec![
            ("set_2".into(), 1, 1, Some(3), 0, 900, s("{\"pv\":\"d5\"}")),
            ("set_2".into(), 1, 2, None, 1, 700, None),
        ]
    );
    let (all,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM moves")
        .fetch_one(&mut *c)
        .await
        .expect("count");
    assert_eq!(all, 2);
    // A bot registered after the upgrade gets a key of its own, and its stream holds only
    // the lobby's events so far.
    app.player_with_bot("Carl").await;
    let (carl_id, carl_num): (String, i64) =
        sqlx::query_as("SELECT id, num FROM bots WHERE name = 'Carl'")
            .fetch_one(&mut *c)
            .await
            .expect("Carl's row");
    assert!(
        carl_num > 2,
        "Carl's key {carl_num} follows Ann's and Bob's"
    );
    let carl_events = events::for_bot_after(&mut c, &carl_id, 0, 100, 10)
        .await
        .expect("Carl's");
    assert_eq!(
        seen(carl_events),
        vec![(1, s("set_1"), None, "challenge".to_string())]
    );
    let (nums, distinct): (i64, i64) =
        sqlx::query_as("SELECT COUNT(num), COUNT(DISTINCT num) FROM bots")
            .fetch_one(&mut *c)
            .await
            .expect("bot keys");
    assert_eq!(nums, distinct, "every bot has a key of its own");
}
