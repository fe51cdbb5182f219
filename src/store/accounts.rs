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
    /// Glicko-2 rating, deviation (RD, rating points) and volatility as of `glicko_at_ms`
    /// (issue 20; see `arena::glicko`).
    pub glicko_rating: f64,
    pub glicko_deviation: f64,
    pub glicko_volatility: f64,
    /// When the Glicko-2 figures were last computed (its last rated set or house seed); None
    /// while it has neither.
    pub glicko_at_ms: Option<i64>,
    /// When the owner retired the bot (`DELETE /v1/bots/me`, issue 20); None while active.
    pub retired_ms: Option<i64>,
    /// The declared accepts as stored JSON (`arena::accepts::Accepts`); None: every option
    /// the contract allows.
    pub accepts: Option<String>,
    /// How many sets the bot plays at once at most; None: no declared limit.
    pub max_concurrent_sets: Option<i64>,
}

const BOT_COLS: &str = "b.id, b.name, b.owner_id, p.name AS owner_name, b.max_stake, b.house, \
     b.rating, b.sets, b.wins, b.draws, b.losses, b.won, b.net, b.created_ms, b.glicko_rating, \
     b.glicko_deviation, b.glicko_volatility, b.glicko_at_ms, b.retired_ms, b.accepts, \
     b.max_concurrent_sets";

/// The leaderboard's order: Elo, then sets played, then the older bot, then the id (so that
/// every bot has one rank).
const BOARD_ORDER: &str = "b.rating DESC, b.sets DESC, b.created_ms, b.id";

/// The square of a bot's Glicko-2 deviation at `$1` (ms), in rating points: the stored one
/// plus one rating period per whole day since `glicko_at_ms` (as `arena::glicko::Glicko::at`
/// computes it, without the cap at 350, which lies above every threshold asked about).
const DEVIATION_SQUARED_AT: &str = "(b.glicko_deviation * b.glicko_deviation + \
     (CASE WHEN b.glicko_at_ms IS NULL OR $1 <= b.glicko_at_ms THEN 0 \
      ELSE ($1 - b.glicko_at_ms) / 86400000 END) \
     * (b.glicko_volatility * 173.7178) * (b.glicko_volatility * 173.7178))";

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

/// The players `r` may name: the one whose id it is, or every one of that name (names are not
/// unique), oldest first, at most `limit`.
pub async fn players_by_ref(
    c: &mut AnyConnection,
    r: &str,
    limit: i64,
) -> sqlx::Result<Vec<PlayerRow>> {
    sqlx::query_as(
        "SELECT id, name, balance, house, created_ms FROM players WHERE id = $1 OR name = $1 \
         ORDER BY created_ms LIMIT $2",
    )
    .bind(r)
    .bind(limit)
    .fetch_all(c)
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
         ORDER BY {BOARD_ORDER} LIMIT $1"
    )))
    .bind(limit)
    .fetch_all(c)
    .await
}

/// Which bots a leaderboard page lists, by their Glicko-2 deviation at `now_ms`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Provisional {
    /// Every bot.
    All,
    /// Only bots whose deviation is at most this (established).
    AtMost(f64),
    /// Only bots whose deviation is above this (provisional).
    Above(f64),
}

/// One page of the leaderboard: `limit` bots after skipping `offset`, in the board's order,
/// filtered by their deviation at `now_ms`.
pub async fn leaderboard_page(
    c: &mut AnyConnection,
    now_ms: i64,
    which: Provisional,
    limit: i64,
    offset: i64,
) -> sqlx::Result<Vec<BotRow>> {
    // Retired bots are left out (issue 20): the board ranks bots that can still play.
    let head = format!(
        "SELECT {BOT_COLS} FROM bots b JOIN players p ON p.id = b.owner_id \
         WHERE b.retired_ms IS NULL"
    );
    let (cmp, threshold) = match which {
        Provisional::All => {
            return sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "{head} ORDER BY {BOARD_ORDER} LIMIT $1 OFFSET $2"
            )))
            .bind(limit)
            .bind(offset)
            .fetch_all(c)
            .await;
        }
        Provisional::AtMost(t) => ("<=", t),
        Provisional::Above(t) => (">", t),
    };
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{head} AND {DEVIATION_SQUARED_AT} {cmp} $2 ORDER BY {BOARD_ORDER} LIMIT $3 OFFSET $4"
    )))
    .bind(now_ms)
    .bind(threshold * threshold)
    .bind(limit)
    .bind(offset)
    .fetch_all(c)
    .await
}

/// A bot's place on the whole leaderboard (1 = first), in the board's order, among the bots
/// not retired (a retired bot has no rank; the caller does not ask).
pub async fn rank_of(c: &mut AnyConnection, b: &BotRow) -> sqlx::Result<i64> {
    let ahead: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM bots WHERE retired_ms IS NULL AND (rating > $1 OR (rating = $1 \
         AND (sets > $2 OR (sets = $2 AND (created_ms < $3 OR (created_ms = $3 AND id < $4))))))",
    )
    .bind(b.rating)
    .bind(b.sets)
    .bind(b.created_ms)
    .bind(&b.id)
    .fetch_one(c)
    .await?;
    Ok(ahead + 1)
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

/// A bot's Glicko-2 figures as stored: rating and deviation in rating points, volatility on
/// Glicko-2's scale (issue 20).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GlickoFigures {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

/// Sets the Glicko-2 figures of a bot that has neither a rated set nor a seed yet (a house
/// bot's seed, issue 20), as of `at_ms`; a bot that has either keeps its figures.
pub async fn seed_glicko(
    c: &mut AnyConnection,
    bot_id: &str,
    g: GlickoFigures,
    at_ms: i64,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE bots SET glicko_rating = $1, glicko_deviation = $2, glicko_volatility = $3, \
         glicko_at_ms = $4 WHERE id = $5 AND glicko_at_ms IS NULL",
    )
    .bind(g.rating)
    .bind(g.deviation)
    .bind(g.volatility)
    .bind(at_ms)
    .bind(bot_id)
    .execute(c)
    .await?;
    Ok(())
}

/// Writes a bot's Glicko-2 figures as of `at_ms` (a rated set's end, or the replay).
pub async fn record_glicko(
    c: &mut AnyConnection,
    bot_id: &str,
    g: GlickoFigures,
    at_ms: i64,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE bots SET glicko_rating = $1, glicko_deviation = $2, glicko_volatility = $3, \
         glicko_at_ms = $4 WHERE id = $5",
    )
    .bind(g.rating)
    .bind(g.deviation)
    .bind(g.volatility)
    .bind(at_ms)
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

/// Claims a replay still owed in `rating_replays` (issue 20): true for the one transaction
/// that marks it done at `now_ms`, false once any has. On PostgreSQL the row lock makes a
/// second instance starting at once wait for the first one's commit.
pub async fn claim_replay(c: &mut AnyConnection, system: &str, now_ms: i64) -> sqlx::Result<bool> {
    let r =
        sqlx::query("UPDATE rating_replays SET done_ms = $1 WHERE system = $2 AND done_ms IS NULL")
            .bind(now_ms)
            .bind(system)
            .execute(c)
            .await?;
    Ok(r.rows_affected() == 1)
}

/// A bot as the Glicko-2 replay starts it: id, name, house flag.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct BotName {
    pub id: String,
    pub name: String,
    pub house: i64,
}

/// Every bot's id, name and house flag, by id.
pub async fn bot_names(c: &mut AnyConnection) -> sqlx::Result<Vec<BotName>> {
    sqlx::query_as("SELECT id, name, house FROM bots ORDER BY id")
        .fetch_all(c)
        .await
}

/// The hash of a bot's current token, None for an unknown bot.
pub async fn bot_token_hash(c: &mut AnyConnection, bot_id: &str) -> sqlx::Result<Option<String>> {
    let row: Option<(String,)> = sqlx::query_as("SELECT token_hash FROM bots WHERE id = $1")
        .bind(bot_id)
        .fetch_optional(c)
        .await?;
    Ok(row.map(|r| r.0))
}

/// Replaces a bot's token hash `old_hash` (the old token stops authenticating at once).
/// Returns rows changed: 0 when the bot's token is no longer `old_hash`.
pub async fn set_bot_token(
    c: &mut AnyConnection,
    bot_id: &str,
    token_hash: &str,
    old_hash: &str,
) -> sqlx::Result<u64> {
    // Only while the old hash is current: of two rotations at once, one wins.
    Ok(
        sqlx::query("UPDATE bots SET token_hash = $1 WHERE id = $2 AND token_hash = $3")
            .bind(token_hash)
            .bind(bot_id)
            .bind(old_hash)
            .execute(c)
            .await?
            .rows_affected(),
    )
}

/// Replaces a player's token hash `old_hash`. Returns rows changed: 0 when the player's token
/// is no longer `old_hash`.
pub async fn set_player_token(
    c: &mut AnyConnection,
    player_id: &str,
    token_hash: &str,
    old_hash: &str,
) -> sqlx::Result<u64> {
    Ok(
        sqlx::query("UPDATE players SET token_hash = $1 WHERE id = $2 AND token_hash = $3")
            .bind(token_hash)
            .bind(player_id)
            .bind(old_hash)
            .execute(c)
            .await?
            .rows_affected(),
    )
}

/// Marks a bot retired at `now_ms` unless it already is. Returns rows changed (0: it was).
pub async fn retire_bot(c: &mut AnyConnection, bot_id: &str, now_ms: i64) -> sqlx::Result<u64> {
    Ok(
        sqlx::query("UPDATE bots SET retired_ms = $1 WHERE id = $2 AND retired_ms IS NULL")
            .bind(now_ms)
            .bind(bot_id)
            .execute(c)
            .await?
            .rows_affected(),
    )
}

/// Stores a bot's declared accepts (JSON text, None: the contract's limits) and capacity.
pub async fn set_declared(
    c: &mut AnyConnection,
    bot_id: &str,
    accepts: Option<&str>,
    max_concurrent_sets: Option<i64>,
) -> sqlx::Result<()> {
    sqlx::query("UPDATE bots SET accepts = $1, max_concurrent_sets = $2 WHERE id = $3")
        .bind(accepts)
        .bind(max_concurrent_sets)
        .bind(bot_id)
        .execute(c)
        .await?;
    Ok(())
}

/// How many sets a bot is playing now (status `active`, either side).
pub async fn active_sets_of(c: &mut AnyConnection, bot_id: &str) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT COUNT(*) FROM sets WHERE status = 'active' AND (creator_id = $1 OR acceptor_id = $1)",
    )
    .bind(bot_id)
    .fetch_one(c)
    .await
}
