//! Migrations are append-only: a database that applied a migration refuses to start when that
//! migration's file changed afterwards ("migration N was previously applied but has been
//! modified"), so a file once merged is never edited; a change is a new migration.

mod common;

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
async fn a_database_with_moves_stored_before_the_latest_migrations_opens_and_keeps_them() {
    use sqlx::migrate::Migrator;
    sqlx::any::install_default_drivers();
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}/old.db?mode=rwc", dir.path().display());
    {
        // The database as the builds with migrations 1 to 4 left it, with one stored move.
        let pool = sqlx::AnyPool::connect(&url).await.expect("old database");
        let mut m = Migrator::new(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/migrations/sqlite"
        )))
        .await
        .expect("migrations");
        let old: Vec<_> = m
            .migrations
            .iter()
            .filter(|x| x.version <= 4)
            .cloned()
            .collect();
        m.migrations = old.into();
        m.run(&pool).await.expect("migrations 1 to 4");
        sqlx::query(
            "INSERT INTO moves (set_id, game_no, ply, seat, bot_id, cell_row, cell_col, swap, elapsed_ms, at_ms) \
             VALUES ('set_old', 1, 1, 1, 'bot_old', 4, 4, 0, 0, 0)",
        )
        .execute(&pool)
        .await
        .expect("an old move row");
        pool.close().await;
    }
    let app = common::spawn_with(common::Spawn {
        database_url: Some(url),
        ..common::Spawn::default()
    })
    .await;
    assert_eq!(app.get("/healthz").await.status, reqwest::StatusCode::OK);
    let (n, cell): (i64, Option<i64>) =
        sqlx::query_as("SELECT COUNT(*), MAX(cell_row) FROM moves WHERE set_id = 'set_old'")
            .fetch_one(&app.arena.store.pool)
            .await
            .expect("moves");
    assert_eq!((n, cell), (1, Some(4)));
}
