//! The matchmaking pool (issue 20): who waits for the arena to pair it, and the pool sets
//! the anti-farming rules count.

use sqlx::AnyConnection;

/// A bot waiting in the pool. The options and clock are those it asked for; None: any that
/// both bots of a pairing accept.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct PoolEntryRow {
    pub bot_id: String,
    /// PTS per side (0: unstaked).
    pub stake: i64,
    /// 1 when its sets move ratings.
    pub rated: i64,
    pub size: Option<i64>,
    pub random_stones: Option<i64>,
    pub initial_ms: Option<i64>,
    pub increment_ms: Option<i64>,
    pub joined_ms: i64,
    /// Grows with every change of the row and every pairing of its bot.
    pub version: i64,
}

const ENTRY_COLS: &str = "bot_id, stake, rated, size, random_stones, initial_ms, increment_ms, \
     joined_ms, version";

/// Every entry, longest waiting first.
pub async fn entries(c: &mut AnyConnection) -> sqlx::Result<Vec<PoolEntryRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {ENTRY_COLS} FROM pool_entries ORDER BY joined_ms, bot_id"
    )))
    .fetch_all(c)
    .await
}

/// One bot's entry; `lock` appends the backend's row lock (see `Store::for_update`).
pub async fn entry(
    c: &mut AnyConnection,
    bot_id: &str,
    lock: &str,
) -> sqlx::Result<Option<PoolEntryRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {ENTRY_COLS} FROM pool_entries WHERE bot_id = $1{lock}"
    )))
    .bind(bot_id)
    .fetch_optional(c)
    .await
}

/// Adds an entry (`version` 0).
pub async fn insert(c: &mut AnyConnection, e: &PoolEntryRow) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO pool_entries (bot_id, stake, rated, size, random_stones, initial_ms, \
         increment_ms, joined_ms, version) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0)",
    )
    .bind(&e.bot_id)
    .bind(e.stake)
    .bind(e.rated)
    .bind(e.size)
    .bind(e.random_stones)
    .bind(e.initial_ms)
    .bind(e.increment_ms)
    .bind(e.joined_ms)
    .execute(c)
    .await?;
    Ok(())
}

/// Replaces what an entry asks for (its place, `joined_ms`, is kept) and moves its version on.
pub async fn update(c: &mut AnyConnection, e: &PoolEntryRow) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE pool_entries SET stake = $1, rated = $2, size = $3, random_stones = $4, \
         initial_ms = $5, increment_ms = $6, version = version + 1 WHERE bot_id = $7",
    )
    .bind(e.stake)
    .bind(e.rated)
    .bind(e.size)
    .bind(e.random_stones)
    .bind(e.initial_ms)
    .bind(e.increment_ms)
    .bind(&e.bot_id)
    .execute(c)
    .await?;
    Ok(())
}

/// Removes a bot's entry; returns the rows removed (0 or 1).
pub async fn remove(c: &mut AnyConnection, bot_id: &str) -> sqlx::Result<u64> {
    let r = sqlx::query("DELETE FROM pool_entries WHERE bot_id = $1")
        .bind(bot_id)
        .execute(c)
        .await?;
    Ok(r.rows_affected())
}

/// Moves the version of a paired bot's entry on (a pairing read from the old version is
/// then refused by [`entry`] under lock).
pub async fn bump(c: &mut AnyConnection, bot_id: &str) -> sqlx::Result<()> {
    sqlx::query("UPDATE pool_entries SET version = version + 1 WHERE bot_id = $1")
        .bind(bot_id)
        .execute(c)
        .await?;
    Ok(())
}

/// A set the pool made: (set id, creator id, acceptor id, created ms).
pub type PoolSet = (String, String, Option<String>, i64);

/// Pool sets created at or after `since_ms` (the hourly cap counts them).
pub async fn sets_since(c: &mut AnyConnection, since_ms: i64) -> sqlx::Result<Vec<PoolSet>> {
    sqlx::query_as(
        "SELECT id, creator_id, acceptor_id, created_ms FROM sets \
         WHERE pool = 1 AND created_ms >= $1 ORDER BY created_ms, id",
    )
    .bind(since_ms)
    .fetch_all(c)
    .await
}

/// A bot's latest pool set (by creation, then id): its opponent's id and when it was made.
pub async fn last_set_of(
    c: &mut AnyConnection,
    bot_id: &str,
) -> sqlx::Result<Option<(String, i64)>> {
    let row: Option<(String, Option<String>, i64)> = sqlx::query_as(
        "SELECT creator_id, acceptor_id, created_ms FROM sets \
         WHERE pool = 1 AND (creator_id = $1 OR acceptor_id = $1) \
         ORDER BY created_ms DESC, id DESC LIMIT 1",
    )
    .bind(bot_id)
    .fetch_optional(c)
    .await?;
    Ok(row.and_then(|(creator, acceptor, at)| {
        let other = if creator == bot_id {
            acceptor?
        } else {
            creator
        };
        Some((other, at))
    }))
}
