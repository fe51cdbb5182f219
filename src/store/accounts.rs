//! Players, bots and strikes (SPEC sections 3, 7, 8).

use sqlx::AnyConnection;

use super::Backend;

/// A player row.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PlayerRow {
    pub id: String,
    pub name: String,
    pub balance: i64,
    pub house: i64,
    pub created_ms: i64,
}

/// A bot row with its running statistics.
#[derive(Debug, Clone, Default, sqlx::FromRow)]
pub struct BotRow {
    pub id: String,
    pub name: String,
    pub owner_id: String,
    pub owner_name: String,
    pub max_stake: i64,
    pub house: i64,
    pub rating: f64,
    pub sets: i64,
    pub wins: i64,
    pub draws: i64,
    pub losses: i64,
    pub won: i64,
    pub net: i64,
    pub created_ms: i64,
}

const BOT_COLS: &str = "b.id, b.name, b.owner_id, p.name AS owner_name, b.max_stake, b.house, \
     b.rating, b.sets, b.wins, b.draws, b.losses, b.won, b.net, b.created_ms";

pub async fn insert_player(
    c: &mut AnyConnection,
    id: &str,
    name: &str,
    token_hash: &str,
    house: bool,
    now_ms: i64,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO players (id, name, token_hash, balance, house, created_ms) \
         VALUES ($1, $2, $3, 0, $4, $5)",
    )
    .bind(id)
    .bind(name)
    .bind(token_hash)
    .bind(i64::from(house))
    .bind(now_ms)
    .execute(c)
    .await?;
    Ok(())
}

pub async fn player_by_token(
    c: &mut AnyConnection,
    token_hash: &str,
) -> sqlx::Result<Option<PlayerRow>> {
    sqlx::query_as("SELECT id, name, balance, house, created_ms FROM players WHERE token_hash = $1")
        .bind(token_hash)
        .fetch_optional(c)
        .await
}

pub async fn player_by_id(c: &mut AnyConnection, id: &str) -> sqlx::Result<Option<PlayerRow>> {
    sqlx::query_as("SELECT id, name, balance, house, created_ms FROM players WHERE id = $1")
        .bind(id)
        .fetch_optional(c)
        .await
}

/// Finds a player by id or by name (names are not unique; the oldest wins).
pub async fn player_by_ref(c: &mut AnyConnection, r: &str) -> sqlx::Result<Option<PlayerRow>> {
    sqlx::query_as(
        "SELECT id, name, balance, house, created_ms FROM players WHERE id = $1 OR name = $1 \
         ORDER BY created_ms LIMIT 1",
    )
    .bind(r)
    .fetch_optional(c)
    .await
}

#[allow(clippy::too_many_arguments)]
pub async fn insert_bot(
    c: &mut AnyConnection,
    id: &str,
    name: &str,
    owner_id: &str,
    max_stake: i64,
    token_hash: &str,
    house: bool,
    now_ms: i64,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO bots (id, name, name_key, owner_id, max_stake, token_hash, house, created_ms) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(id)
    .bind(name)
    .bind(name.to_ascii_lowercase())
    .bind(owner_id)
    .bind(max_stake)
    .bind(token_hash)
    .bind(i64::from(house))
    .bind(now_ms)
    .execute(c)
    .await?;
    Ok(())
}

pub async fn bot_by_token(c: &mut AnyConnection, token_hash: &str) -> sqlx::Result<Option<BotRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {BOT_COLS} FROM bots b JOIN players p ON p.id = b.owner_id WHERE b.token_hash = $1"
    )))
    .bind(token_hash)
    .fetch_optional(c)
    .await
}

/// A bot by id (`bot_...`) or by name, case-insensitively.
pub async fn bot_by_ref(c: &mut AnyConnection, r: &str) -> sqlx::Result<Option<BotRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {BOT_COLS} FROM bots b JOIN players p ON p.id = b.owner_id \
         WHERE b.id = $1 OR b.name_key = $2"
    )))
    .bind(r)
    .bind(r.to_ascii_lowercase())
    .fetch_optional(c)
    .await
}

pub async fn bots_of_owner(c: &mut AnyConnection, owner_id: &str) -> sqlx::Result<Vec<BotRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {BOT_COLS} FROM bots b JOIN players p ON p.id = b.owner_id \
         WHERE b.owner_id = $1 ORDER BY b.created_ms"
    )))
    .bind(owner_id)
    .fetch_all(c)
    .await
}

/// All bots by rating (the leaderboard and the public list).
pub async fn bots_by_rating(c: &mut AnyConnection, limit: i64) -> sqlx::Result<Vec<BotRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {BOT_COLS} FROM bots b JOIN players p ON p.id = b.owner_id \
         ORDER BY b.rating DESC, b.sets DESC, b.created_ms LIMIT $1"
    )))
    .bind(limit)
    .fetch_all(c)
    .await
}

/// Locks bot rows in id order on PostgreSQL (SQLite's write transaction already holds the
/// lock), so the end of a set reads the ratings it then overwrites, and two sets ending at once
/// between the same bots never deadlock. `NO KEY UPDATE`, like the update that follows, lets
/// inserts that reference the bots (sets, games) go on.
pub async fn lock_bots(c: &mut AnyConnection, ids: &[&str], backend: Backend) -> sqlx::Result<()> {
    if backend != Backend::Postgres {
        return Ok(());
    }
    let mut ids = ids.to_vec();
    ids.sort_unstable();
    ids.dedup();
    for id in ids {
        sqlx::query("SELECT id FROM bots WHERE id = $1 FOR NO KEY UPDATE")
            .bind(id)
            .fetch_optional(&mut *c)
            .await?;
    }
    Ok(())
}

/// Sets the rating of a bot that has played no rated set yet (a house bot's seed); a bot
/// with a record keeps its rating.
pub async fn seed_rating(c: &mut AnyConnection, bot_id: &str, rating: f64) -> sqlx::Result<()> {
    sqlx::query("UPDATE bots SET rating = $1 WHERE id = $2 AND sets = 0")
        .bind(rating)
        .bind(bot_id)
        .execute(c)
        .await?;
    Ok(())
}

/// Records a set's effect on one bot's statistics and rating.
#[allow(clippy::too_many_arguments)]
pub async fn record_set(
    c: &mut AnyConnection,
    bot_id: &str,
    rating: f64,
    win: i64,
    draw: i64,
    loss: i64,
    won: i64,
    net: i64,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE bots SET rating = $1, sets = sets + 1, wins = wins + $2, draws = draws + $3, \
         losses = losses + $4, won = won + $5, net = net + $6 WHERE id = $7",
    )
    .bind(rating)
    .bind(win)
    .bind(draw)
    .bind(loss)
    .bind(won)
    .bind(net)
    .bind(bot_id)
    .execute(c)
    .await?;
    Ok(())
}

/// A strike: a first-move timeout in a staked set (SPEC section 7).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct StrikeRow {
    pub set_id: String,
    pub game_no: i64,
    pub at_ms: i64,
}

pub async fn insert_strike(
    c: &mut AnyConnection,
    bot_id: &str,
    set_id: &str,
    game_no: i64,
    at_ms: i64,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO strikes (bot_id, set_id, game_no, at_ms) VALUES ($1, $2, $3, $4) \
         ON CONFLICT DO NOTHING",
    )
    .bind(bot_id)
    .bind(set_id)
    .bind(game_no)
    .bind(at_ms)
    .execute(c)
    .await?;
    Ok(())
}

/// Strikes of a bot at or after `since_ms`, oldest first.
pub async fn strikes_since(
    c: &mut AnyConnection,
    bot_id: &str,
    since_ms: i64,
) -> sqlx::Result<Vec<StrikeRow>> {
    sqlx::query_as(
        "SELECT set_id, game_no, at_ms FROM strikes WHERE bot_id = $1 AND at_ms >= $2 ORDER BY at_ms",
    )
    .bind(bot_id)
    .bind(since_ms)
    .fetch_all(c)
    .await
}
