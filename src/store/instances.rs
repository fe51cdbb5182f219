//! The `instances` table: one row per running process with its heartbeat (ms since epoch)
//! and, while it serves writes, `serving_ms` (SPEC sections 7, 12, 13). The scheduler reads
//! it to credit downtime; the house driver keeps a second row per instance (its id plus a
//! suffix) to share the house's games among the instances that run house bots.

use sqlx::AnyConnection;

use super::Backend;

/// Suffix of the `instances` row by which an instance says that it runs house bots (its own
/// id plus this suffix, refreshed every tick by the house driver; no other instance plays
/// house games).
pub const HOUSE_ROW: &str = "/house";

/// The id of the house driver's row of instance `id` (see [`HOUSE_ROW`]).
pub fn house_row_of(id: &str) -> String {
    format!("{id}{HOUSE_ROW}")
}

/// Whether a row of the table is a house driver's (see [`HOUSE_ROW`]), not an instance's.
pub fn is_house_row(id: &str) -> bool {
    id.ends_with(HOUSE_ROW)
}

/// Serializes the instances that credit downtime at once (PostgreSQL: `LOCK TABLE`; a no-op
/// on SQLite, whose write transaction already excludes every other writer).
pub async fn lock(c: &mut AnyConnection, backend: Backend) -> sqlx::Result<()> {
    if backend == Backend::Postgres {
        sqlx::query("LOCK TABLE instances IN EXCLUSIVE MODE")
            .execute(c)
            .await?;
    }
    Ok(())
}

/// The newest heartbeat of any instance written at `at_most_ms` or before; None when there is
/// none. A heartbeat stamped later was written on a wall clock since stepped back: it says
/// nothing of when the arena was last up (the restart's downtime, `scheduler::recover`).
pub async fn newest_heartbeat(c: &mut AnyConnection, at_most_ms: i64) -> sqlx::Result<Option<i64>> {
    let (last,): (Option<i64>,) =
        sqlx::query_as("SELECT MAX(heartbeat_ms) FROM instances WHERE heartbeat_ms <= $1")
            .bind(at_most_ms)
            .fetch_one(c)
            .await?;
    Ok(last)
}

/// The newest heartbeat of any instance but `id` (its house row, `id` + [`HOUSE_ROW`], is
/// its own too).
pub async fn newest_heartbeat_of_others(
    c: &mut AnyConnection,
    id: &str,
) -> sqlx::Result<Option<i64>> {
    let (last,): (Option<i64>,) =
        sqlx::query_as("SELECT MAX(heartbeat_ms) FROM instances WHERE id <> $1 AND id <> $2")
            .bind(id)
            .bind(house_row_of(id))
            .fetch_one(c)
            .await?;
    Ok(last)
}

/// The latest moment any instance but `id` served writes.
pub async fn newest_serving_of_others(
    c: &mut AnyConnection,
    id: &str,
) -> sqlx::Result<Option<i64>> {
    let (last,): (Option<i64>,) =
        sqlx::query_as("SELECT MAX(serving_ms) FROM instances WHERE id <> $1")
            .bind(id)
            .fetch_one(c)
            .await?;
    Ok(last)
}

/// Writes the heartbeat of row `id` at `at_ms` (inserting the row if needed); `serving_ms`
/// is left as it is.
pub async fn beat(c: &mut AnyConnection, id: &str, at_ms: i64) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO instances (id, heartbeat_ms) VALUES ($1, $2) \
         ON CONFLICT (id) DO UPDATE SET heartbeat_ms = excluded.heartbeat_ms",
    )
    .bind(id)
    .bind(at_ms)
    .execute(c)
    .await?;
    Ok(())
}

/// Writes the heartbeat of row `id` at `at_ms`, and `serving_ms` too when `serving`
/// (inserting the row if needed).
pub async fn beat_serving(
    c: &mut AnyConnection,
    id: &str,
    at_ms: i64,
    serving: bool,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO instances (id, heartbeat_ms, serving_ms) \
         VALUES ($1, $2, CASE WHEN $3 = 1 THEN $2 END) \
         ON CONFLICT (id) DO UPDATE SET heartbeat_ms = excluded.heartbeat_ms, \
         serving_ms = CASE WHEN $3 = 1 THEN excluded.heartbeat_ms ELSE instances.serving_ms END",
    )
    .bind(id)
    .bind(at_ms)
    .bind(i64::from(serving))
    .execute(c)
    .await?;
    Ok(())
}

/// Writes the heartbeat of an existing row `id` (a stopping instance's last).
pub async fn last_beat(c: &mut AnyConnection, id: &str, at_ms: i64) -> sqlx::Result<()> {
    sqlx::query("UPDATE instances SET heartbeat_ms = $1 WHERE id = $2")
        .bind(at_ms)
        .bind(id)
        .execute(c)
        .await?;
    Ok(())
}

/// Lowers the heartbeat of row `id` to `at_ms` if it is later (a stopping instance's house
/// row); no row, no change.
pub async fn last_beat_at_most(c: &mut AnyConnection, id: &str, at_ms: i64) -> sqlx::Result<()> {
    sqlx::query("UPDATE instances SET heartbeat_ms = $1 WHERE id = $2 AND heartbeat_ms > $1")
        .bind(at_ms)
        .bind(id)
        .execute(c)
        .await?;
    Ok(())
}

/// Rows whose heartbeat is at `since_ms` or later, other than `except_id`.
pub async fn alive_since(
    c: &mut AnyConnection,
    since_ms: i64,
    except_id: &str,
) -> sqlx::Result<Vec<String>> {
    let rows: Vec<(String,)> =
        sqlx::query_as("SELECT id FROM instances WHERE heartbeat_ms >= $1 AND id <> $2")
            .bind(since_ms)
            .bind(except_id)
            .fetch_all(c)
            .await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

/// Rows whose heartbeat is at `since_ms` or later and whose id ends with `suffix`.
pub async fn alive_with_suffix(
    c: &mut AnyConnection,
    since_ms: i64,
    suffix: &str,
) -> sqlx::Result<Vec<String>> {
    let rows: Vec<(String,)> =
        sqlx::query_as("SELECT id FROM instances WHERE heartbeat_ms >= $1 AND id LIKE $2")
            .bind(since_ms)
            .bind(format!("%{suffix}"))
            .fetch_all(c)
            .await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

/// Starts this process's row: forgets rows whose heartbeat is older than `prune_before_ms`,
/// then inserts `id` at `now_ms`.
pub async fn start(
    c: &mut AnyConnection,
    id: &str,
    now_ms: i64,
    prune_before_ms: i64,
) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM instances WHERE heartbeat_ms < $1")
        .bind(prune_before_ms)
        .execute(&mut *c)
        .await?;
    sqlx::query("INSERT INTO instances (id, heartbeat_ms) VALUES ($1, $2)")
        .bind(id)
        .bind(now_ms)
        .execute(c)
        .await?;
    Ok(())
}

/// The database's own clock, ms since epoch (PostgreSQL's `clock_timestamp()`).
pub async fn database_now_ms(c: &mut AnyConnection) -> sqlx::Result<i64> {
    let (db,): (i64,) =
        sqlx::query_as("SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)")
            .fetch_one(c)
            .await?;
    Ok(db)
}

/// Key of the PostgreSQL advisory lock that instances take in turn to register the house bots
/// at start-up (`arena::house::ensure`).
pub const HOUSE_SETUP_LOCK: i64 = 0x6865_7861_6875_7365; // "hexahuse"

/// Waits for, then holds on `c`, the advisory lock `key` (PostgreSQL; a no-op on SQLite,
/// where one process holds the database). It is released by [`advisory_unlock`] or when the
/// connection closes (a crashed instance holds nothing).
pub async fn advisory_lock(c: &mut AnyConnection, backend: Backend, key: i64) -> sqlx::Result<()> {
    if backend == Backend::Postgres {
        sqlx::query("SELECT pg_advisory_lock($1)::text")
            .bind(key)
            .execute(c)
            .await?;
    }
    Ok(())
}

/// Releases the advisory lock `key` held on `c` (PostgreSQL; a no-op on SQLite).
pub async fn advisory_unlock(
    c: &mut AnyConnection,
    backend: Backend,
    key: i64,
) -> sqlx::Result<()> {
    if backend == Backend::Postgres {
        sqlx::query("SELECT pg_advisory_unlock($1)::text")
            .bind(key)
            .execute(c)
            .await?;
    }
    Ok(())
}
