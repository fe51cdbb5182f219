//! Stored events behind the server-sent-event streams (SPEC section 6). Ids increase, so a client
//! that reconnects with `Last-Event-ID` is sent the rows after it, from any instance.

use sqlx::AnyConnection;

/// Audience of lobby events: every bot's stream.
pub const LOBBY: &str = "*";

/// A stored event.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct EventRow {
    pub id: i64,
    pub set_id: Option<String>,
    pub kind: String,
    pub payload: String,
}

/// An event to append: for a bot's stream (`bot_id` Some, or [`LOBBY`]) or a game's public one.
#[derive(Debug, Clone, Copy)]
pub struct NewEvent<'a> {
    pub bot_id: Option<&'a str>,
    pub set_id: &'a str,
    pub game_no: Option<i64>,
    pub kind: &'a str,
    pub payload: &'a str,
}

/// Appends events in one statement (a move writes two; one round trip is cheaper).
pub async fn insert_all(
    c: &mut AnyConnection,
    rows: &[NewEvent<'_>],
    now_ms: i64,
) -> sqlx::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let values: Vec<String> = (0..rows.len())
        .map(|i| {
            let p = i * 6;
            format!(
                "(${}, ${}, ${}, ${}, ${}, ${})",
                p + 1,
                p + 2,
                p + 3,
                p + 4,
                p + 5,
                p + 6
            )
        })
        .collect();
    // Only placeholders are formatted in; every value is bound.
    let sql = format!(
        "INSERT INTO events (bot_id, set_id, game_no, kind, payload, at_ms) VALUES {}",
        values.join(", ")
    );
    let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
    for r in rows {
        q = q
            .bind(r.bot_id)
            .bind(r.set_id)
            .bind(r.game_no)
            .bind(r.kind)
            .bind(r.payload)
            .bind(now_ms);
    }
    q.execute(c).await?;
    Ok(())
}

/// Events of a bot's stream (its own and the lobby's) after `after_id`.
pub async fn for_bot_after(
    c: &mut AnyConnection,
    bot_id: &str,
    after_id: i64,
    limit: i64,
) -> sqlx::Result<Vec<EventRow>> {
    sqlx::query_as(
        "SELECT id, set_id, kind, payload FROM events WHERE (bot_id = $1 OR bot_id = $2) AND id > $3 \
         ORDER BY id LIMIT $4",
    )
    .bind(bot_id)
    .bind(LOBBY)
    .bind(after_id)
    .bind(limit)
    .fetch_all(c)
    .await
}

/// Public events of one game after `after_id`.
pub async fn for_game_after(
    c: &mut AnyConnection,
    set_id: &str,
    game_no: i64,
    after_id: i64,
    limit: i64,
) -> sqlx::Result<Vec<EventRow>> {
    sqlx::query_as(
        "SELECT id, set_id, kind, payload FROM events WHERE set_id = $1 AND game_no = $2 AND bot_id IS NULL \
         AND id > $3 ORDER BY id LIMIT $4",
    )
    .bind(set_id)
    .bind(game_no)
    .bind(after_id)
    .bind(limit)
    .fetch_all(c)
    .await
}

/// The newest event id (0 when none).
pub async fn last_id(c: &mut AnyConnection) -> sqlx::Result<i64> {
    let (id,): (Option<i64>,) = sqlx::query_as("SELECT MAX(id) FROM events")
        .fetch_one(c)
        .await?;
    Ok(id.unwrap_or(0))
}

/// Whether a `your_turn` for this bot and game was stored after `after_id`.
pub async fn turn_after(
    c: &mut AnyConnection,
    bot_id: &str,
    set_id: &str,
    game_no: i64,
    after_id: i64,
) -> sqlx::Result<bool> {
    let row: Option<(i64,)> = sqlx::query_as(
        "SELECT id FROM events WHERE bot_id = $1 AND set_id = $2 AND game_no = $3 \
         AND kind = 'your_turn' AND id > $4 LIMIT 1",
    )
    .bind(bot_id)
    .bind(set_id)
    .bind(game_no)
    .bind(after_id)
    .fetch_optional(c)
    .await?;
    Ok(row.is_some())
}
