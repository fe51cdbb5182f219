//! Migrations are append-only: a database that applied a migration refuses to start when that
//! migration's file changed afterwards ("migration N was previously applied but has been
//! modified"), so a file once merged is never edited; a change is a new migration. Upgrades
//! whose outcome is read back from the database are in migrations_greybox.rs.

mod common;

use serde_json::json;
use sha2::{Digest, Sha256};

/// Every migration file merged so far, with the SHA-256 of its text. A new migration is added
/// here when it is merged; an existing line never changes.
const APPLIED: &[(&str, &str)] = &[
    (
        "sqlite/0001_init.sql",
        "7553117e2ec1c76fe4aa2589b13b28c7fb72c0b3e5bd212d37384e0e08534b30",
    ),
    (
        "sqlite/0002_compact_moves.sql",
        "abd9d2f399684c935344c2d9fadbdd567ff4d497cc1618a1848b60e54fea515f",
    ),
    (
        "sqlite/0003_tournaments.sql",
        "abeba76530f940adfdb5992225ae52203ed9f3cf18f9ade9eda08ea61e65eef5",
    ),
    (
        "sqlite/0004_rating_history.sql",
        "276afff13e87bb65a75484b1f35eec027516abe6f26c5043c7567a01b84ed534",
    ),
    (
        "postgres/0001_init.sql",
        "81155cea95ffd24715aaebac90aa098371d16c8906c6407dd9bc51bab548925a",
    ),
    (
        "postgres/0002_compact_moves.sql",
        "547136a11aeb41644533a11c8a6a32491a7de90e0ae5eb490295a0ba468dbbcc",
    ),
    (
        "postgres/0003_tournaments.sql",
        "abeba76530f940adfdb5992225ae52203ed9f3cf18f9ade9eda08ea61e65eef5",
    ),
    (
        "postgres/0004_rating_history.sql",
        "276afff13e87bb65a75484b1f35eec027516abe6f26c5043c7567a01b84ed534",
    ),
    (
        "sqlite/0006_set_kinds.sql",
        "c0e5370b6108bf31b951e8f7100a8b4946aeec9730578fba3cb9afea402ab46b",
    ),
    (
        "postgres/0005_set_kinds.sql",
        "c0e5370b6108bf31b951e8f7100a8b4946aeec9730578fba3cb9afea402ab46b",
    ),
    (
        "sqlite/0007_instances_serving.sql",
        "ef4f06541991f6810eda62b55ae8c89b185ab5eb6fb2f85fad563bb798ec7f83",
    ),
    (
        "postgres/0006_instances_serving.sql",
        "ef4f06541991f6810eda62b55ae8c89b185ab5eb6fb2f85fad563bb798ec7f83",
    ),
    (
        "sqlite/0008_glicko2.sql",
        "8ed2b9264d213ade1ac7c3f4ab3e885ca9e2e4bceb7c2c469f4d03a76f0c58ac",
    ),
    (
        "postgres/0007_glicko2.sql",
        "8ed2b9264d213ade1ac7c3f4ab3e885ca9e2e4bceb7c2c469f4d03a76f0c58ac",
    ),
    (
        "sqlite/0009_bot_accounts.sql",
        "ac0f89f345fa425a3e777fe09f847e3a676a803b3161be32e88249b4965ec9ca",
    ),
    (
        "postgres/0008_bot_accounts.sql",
        "ac0f89f345fa425a3e777fe09f847e3a676a803b3161be32e88249b4965ec9ca",
    ),
    (
        "sqlite/0010_withdrawals.sql",
        "dd2ba550524d7fe25275b15f4ae3ca0c69fced2d95f943da1d1cad7fd71fce49",
    ),
    (
        "postgres/0009_withdrawals.sql",
        "dd2ba550524d7fe25275b15f4ae3ca0c69fced2d95f943da1d1cad7fd71fce49",
    ),
    (
        "sqlite/0011_analysis.sql",
        "1b524dd29baaf30e397a750ae1794bf71bad4c8d09b0ef7206c0b26a4ddf207f",
    ),
    (
        "postgres/0010_analysis.sql",
        "1b524dd29baaf30e397a750ae1794bf71bad4c8d09b0ef7206c0b26a4ddf207f",
    ),
    (
        "sqlite/0012_pool.sql",
        "fdf5f5b42c395d0fe14db4e6b84d5c722cd53de3d9c011982afe6085152b8fcd",
    ),
    (
        "postgres/0011_pool.sql",
        "fdf5f5b42c395d0fe14db4e6b84d5c722cd53de3d9c011982afe6085152b8fcd",
    ),
    (
        "sqlite/0013_active_games.sql",
        "7e950d107a1a85232f0ca2bf808d57d296884d698ea22047d65e7487a3d65634",
    ),
    (
        "postgres/0012_active_games.sql",
        "022bc19d87f2114f86f4b4523b355a1b718c67258cc074ad719e05cf2dbcaebf",
    ),
    (
        "sqlite/0014_event_keys.sql",
        "ad65b954aaf42db7648eca109b8414774283ab5c0099ec7f9db8e1d92e159076",
    ),
    (
        "postgres/0013_event_keys.sql",
        "d8699e75eb767729f0bfcc79fd9a0442a5228813db9f683ddc1b9ef6b31dde5d",
    ),
    (
        "sqlite/0015_move_keys.sql",
        "4d9c969e823c47cb7f97facc934aae353edf5d07f7e33d08a1deb41b4dbbcfb6",
    ),
    (
        "postgres/0014_move_keys.sql",
        "872d4542efae2b2923902fe67255afcd5740a18510049ecc30f9b8aa60a14fa3",
    ),
    (
        "sqlite/0016_move_batch.sql",
        "fa2d3ccfe199c38be8fe36394f5f2f575e1fe5db9c81e71a5aabfc145985204b",
    ),
];

/// No two migrations of one backend share a version (sqlx would refuse to start).
#[test]
fn migration_versions_are_unique_per_backend() {
    for backend in ["sqlite", "postgres"] {
        let dir = format!("{}/migrations/{backend}", env!("CARGO_MANIFEST_DIR"));
        let mut versions: Vec<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().to_string();
                name.split_once('_').map(|(v, _)| v.to_string())
            })
            .collect();
        let n = versions.len();
        versions.sort();
        versions.dedup();
        assert_eq!(versions.len(), n, "{backend}: duplicate migration versions");
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn migrations_that_databases_already_applied_are_never_edited() {
    for (file, want) in APPLIED {
        let path = format!("{}/migrations/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(
            &sha256_hex(&text),
            want,
            "{file} was edited after databases applied it: restore it and put the change in a new migration"
        );
    }
}

#[tokio::test]
async fn sets_stored_before_issue_18_come_out_as_practice_only_when_they_were_house_practice() {
    sqlx::any::install_default_drivers();
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}/old.db?mode=rwc", dir.path().display());
    {
        // Migrations 1 to 5, where `practice` held "unrated": a finished unrated tournament
        // set (won by Ann), a house practice set and a rated one, all stored with that meaning.
        let pool = common::database_at_migration(&url, "sqlite", 5).await;
        for sql in [
            "INSERT INTO players (id, name, token_hash, balance, house, created_ms) VALUES \
             ('p_a', 'pa', 'ha', 1000, 0, 0), ('p_b', 'pb', 'hb', 1000, 0, 0), ('p_h', 'house', 'hh', 0, 1, 0)",
            "INSERT INTO bots (id, name, name_key, owner_id, max_stake, token_hash, house, sets, wins, created_ms) VALUES \
             ('bot_a', 'Ann', 'ann', 'p_a', 100, 'ta', 0, 1, 1, 0), ('bot_b', 'Bob', 'bob', 'p_b', 100, 'tb', 0, 1, 0, 0), \
             ('bot_h', 'house-x', 'house-x', 'p_h', 0, 'th', 1, 0, 0, 0)",
            "UPDATE bots SET losses = 1 WHERE id = 'bot_b'",
            "INSERT INTO sets (id, creator_id, acceptor_id, status, practice, size, random_stones, initial_ms, \
             increment_ms, stake, seed_hex, seed_sha256, winner_id, result, created_ms, finished_ms) VALUES \
             ('set_t', 'bot_a', 'bot_b', 'finished', 1, 9, 2, 60000, 2000, 0, 'x', 'y', 'bot_a', 'Ann wins', 1, 2), \
             ('set_p', 'bot_a', 'bot_h', 'finished', 1, 9, 2, 60000, 2000, 0, 'x', 'y', 'bot_h', 'house-x wins', 1, 2), \
             ('set_r', 'bot_a', 'bot_b', 'finished', 0, 9, 2, 60000, 2000, 10, 'x', 'y', 'bot_a', 'Ann wins', 1, 2)",
            "INSERT INTO tournaments (id, name, format, rounds, status, size, random_stones, initial_ms, \
             increment_ms, stake, rated, max_concurrent, absent, forfeit_after_ms, current_round, created_ms) VALUES \
             ('tour_old', 'Old cup', 'round_robin', 1, 'finished', 9, 2, 60000, 2000, 0, 0, 1, 'wait', 0, 1, 0)",
            "INSERT INTO tournament_entries (tournament_id, seed, bot_id, rating) VALUES \
             ('tour_old', 0, 'bot_a', 1200), ('tour_old', 1, 'bot_b', 1200)",
            "INSERT INTO tournament_rounds (tournament_id, round, paired_ms) VALUES ('tour_old', 1, 0)",
            "INSERT INTO tournament_pairings (tournament_id, round, board, seed1, seed2, status, set_id, created_ms) \
             VALUES ('tour_old', 1, 1, 0, 1, 'finished', 'set_t', 0)",
        ] {
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .execute(&pool)
                .await
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
        pool.close().await;
    }
    let app = common::spawn_with(common::Spawn {
        database_url: Some(url),
        ..common::Spawn::default()
    })
    .await;
    let set = |id: &'static str| {
        let app = &app;
        async move { app.get_set(&id).await.body }
    };
    let t = set("set_t").await;
    assert_eq!(
        (&t["practice"], &t["rated"]),
        (&json!(false), &json!(false)),
        "{t}"
    );
    assert_eq!(t["tournament"]["id"], "tour_old", "{t}");
    assert_eq!(t["tournament"]["round"], 1);
    let p = set("set_p").await;
    assert_eq!(
        (&p["practice"], &p["rated"]),
        (&json!(true), &json!(false)),
        "{p}"
    );
    assert_eq!(p["tournament"], serde_json::Value::Null);
    let r = set("set_r").await;
    assert_eq!(
        (&r["practice"], &r["rated"]),
        (&json!(false), &json!(true)),
        "{r}"
    );
    // The old tournament set now counts in both records (the rated one already did).
    let ann = app.get_bot("Ann").await.body;
    assert_eq!(
        [&ann["sets"], &ann["w"], &ann["l"]],
        [&json!(2), &json!(2), &json!(0)],
        "{ann}"
    );
    let bob = app.get_bot("Bob").await.body;
    assert_eq!(
        [&bob["sets"], &bob["w"], &bob["l"]],
        [&json!(2), &json!(0), &json!(2)],
        "{bob}"
    );
    let house = app.get_bot("house-x").await.body;
    assert_eq!(house["sets"], 0, "{house}");
}
