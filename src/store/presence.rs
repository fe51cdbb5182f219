//! `bots.last_seen_ms`: the shared half of presence (SPEC 14, issue 12).

use sqlx::AnyConnection;

/// Records that `bot_id` was seen at `at_ms` (never moves the value back).
pub async fn touch(c: &mut AnyConnection, bot_id: &str, at_ms: i64) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE bots SET last_seen_ms = $1 WHERE id = $2 \
         AND (last_seen_ms IS NULL OR last_seen_ms < $1)",
    )
    .bind(at_ms)
    .bind(bot_id)
    .execute(c)
    .await?;
    Ok(())
}

/// Whether `bot_id` is a house bot or was seen at or after `since_ms`.
pub async fn online(c: &mut AnyConnection, bot_id: &str, since_ms: i64) -> sqlx::Result<bool> {
    let row: Option<(i64,)> =
        sqlx::query_as("SELECT 1 FROM bots WHERE id = $1 AND (house <> 0 OR last_seen_ms >= $2)")
            .bind(bot_id)
            .bind(since_ms)
            .fetch_optional(c)
            .await?;
    Ok(row.is_some())
}

/// Moves every recorded `last_seen_ms` later by `shift_ms`, never past `now_ms` (the arena was
/// down that long and the downtime counts against no bot; SPEC 14). Returns the bots moved.
pub async fn shift_seen(c: &mut AnyConnection, shift_ms: i64, now_ms: i64) -> sqlx::Result<u64> {
    let r = sqlx::query(
        "UPDATE bots SET last_seen_ms = CASE WHEN last_seen_ms + $1 > $2 THEN $2 \
         ELSE last_seen_ms + $1 END WHERE last_seen_ms IS NOT NULL",
    )
    .bind(shift_ms)
    .bind(now_ms)
    .execute(c)
    .await?;
    Ok(r.rows_affected())
}

/// Whether `bot_id` was ever seen (held a stream or long-poll) and not at or after `since_ms`;
/// house bots never (issue 18: the `offline` detail of a loss on time).
pub async fn gone_since(c: &mut AnyConnection, bot_id: &str, since_ms: i64) -> sqlx::Result<bool> {
    let row: Option<(i64,)> = sqlx::query_as(
        "SELECT 1 FROM bots WHERE id = $1 AND house = 0 AND last_seen_ms IS NOT NULL \
         AND last_seen_ms < $2",
    )
    .bind(bot_id)
    .bind(since_ms)
    .fetch_optional(c)
    .await?;
    Ok(row.is_some())
}
