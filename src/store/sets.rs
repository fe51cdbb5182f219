//! Sets (SPEC section 5).

use sqlx::AnyConnection;

/// A set row. Points are doubled so that a half point stays an integer.
#[derive(Debug, Clone, Default, sqlx::FromRow)]
pub struct SetRow {
    pub id: String,
    pub creator_id: String,
    pub acceptor_id: Option<String>,
    pub opponent_id: Option<String>,
    pub status: String,
    /// 1 only for a house practice set (POST /v1/practice; SPEC 9, issue 18).
    pub practice: i64,
    /// 1 when the set moves ratings (issue 18; before, `practice` held "unrated").
    pub rated: i64,
    /// 1 for a set the matchmaking pool made (issue 20).
    pub pool: i64,
    pub size: i64,
    pub random_stones: i64,
    pub initial_ms: i64,
    pub increment_ms: i64,
    pub stake: i64,
    pub seed_hex: String,
    pub seed_sha256: String,
    pub opening: Option<String>,
    pub points2_creator: i64,
    pub points2_acceptor: i64,
    pub winner_id: Option<String>,
    pub result: Option<String>,
    pub tiebreak: i64,
    pub created_ms: i64,
    pub started_ms: Option<i64>,
    pub finished_ms: Option<i64>,
}

const SET_COLS: &str = "id, creator_id, acceptor_id, opponent_id, status, practice, rated, pool, \
    size, random_stones, initial_ms, increment_ms, stake, seed_hex, seed_sha256, opening, \
    points2_creator, points2_acceptor, winner_id, result, tiebreak, created_ms, started_ms, finished_ms";

pub async fn insert(c: &mut AnyConnection, s: &SetRow) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO sets (id, creator_id, acceptor_id, opponent_id, status, practice, size, \
         random_stones, initial_ms, increment_ms, stake, seed_hex, seed_sha256, opening, created_ms, \
         started_ms, rated, pool) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, \
         $14, $15, $16, $17, $18)",
    )
    .bind(&s.id)
    .bind(&s.creator_id)
    .bind(&s.acceptor_id)
    .bind(&s.opponent_id)
    .bind(&s.status)
    .bind(s.practice)
    .bind(s.size)
    .bind(s.random_stones)
    .bind(s.initial_ms)
    .bind(s.increment_ms)
    .bind(s.stake)
    .bind(&s.seed_hex)
    .bind(&s.seed_sha256)
    .bind(&s.opening)
    .bind(s.created_ms)
    .bind(s.started_ms)
    .bind(s.rated)
    .bind(s.pool)
    .execute(c)
    .await?;
    Ok(())
}

/// Reads a set; `lock` appends the backend's row lock (see `Store::for_update`).
pub async fn get(c: &mut AnyConnection, id: &str, lock: &str) -> sqlx::Result<Option<SetRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {SET_COLS} FROM sets WHERE id = $1{lock}"
    )))
    .bind(id)
    .fetch_optional(c)
    .await
}

/// Marks an open set active with its acceptor and opening.
pub async fn start(
    c: &mut AnyConnection,
    id: &str,
    acceptor_id: &str,
    opening_json: &str,
    now_ms: i64,
) -> sqlx::Result<u64> {
    let r = sqlx::query(
        "UPDATE sets SET status = 'active', acceptor_id = $1, opening = $2, started_ms = $3 \
         WHERE id = $4 AND status = 'open'",
    )
    .bind(acceptor_id)
    .bind(opening_json)
    .bind(now_ms)
    .bind(id)
    .execute(c)
    .await?;
    Ok(r.rows_affected())
}

/// Closes an open set without play (`cancelled` or `declined`).
pub async fn close_open(
    c: &mut AnyConnection,
    id: &str,
    status: &str,
    now_ms: i64,
) -> sqlx::Result<u64> {
    let r = sqlx::query(
        "UPDATE sets SET status = $1, finished_ms = $2 WHERE id = $3 AND status = 'open'",
    )
    .bind(status)
    .bind(now_ms)
    .bind(id)
    .execute(c)
    .await?;
    Ok(r.rows_affected())
}

/// Ids of open sets created before `before_ms`, oldest first, at most `limit`.
pub async fn open_created_before(
    c: &mut AnyConnection,
    before_ms: i64,
    limit: i64,
) -> sqlx::Result<Vec<String>> {
    sqlx::query_scalar(
        "SELECT id FROM sets WHERE status = 'open' AND created_ms < $1 ORDER BY id LIMIT $2",
    )
    .bind(before_ms)
    .bind(limit)
    .fetch_all(c)
    .await
}

/// Records the end of an active set.
#[allow(clippy::too_many_arguments)]
pub async fn finish(
    c: &mut AnyConnection,
    id: &str,
    points2: [i64; 2],
    winner_id: Option<&str>,
    result: &str,
    tiebreak: bool,
    now_ms: i64,
) -> sqlx::Result<u64> {
    let r = sqlx::query(
        "UPDATE sets SET status = 'finished', points2_creator = $1, points2_acceptor = $2, \
         winner_id = $3, result = $4, tiebreak = $5, finished_ms = $6 WHERE id = $7 AND status = 'active'",
    )
    .bind(points2[0])
    .bind(points2[1])
    .bind(winner_id)
    .bind(result)
    .bind(i64::from(tiebreak))
    .bind(now_ms)
    .bind(id)
    .execute(c)
    .await?;
    Ok(r.rows_affected())
}

/// Updates the running points of an active set (after game 1).
pub async fn set_points(c: &mut AnyConnection, id: &str, points2: [i64; 2]) -> sqlx::Result<()> {
    sqlx::query("UPDATE sets SET points2_creator = $1, points2_acceptor = $2 WHERE id = $3")
        .bind(points2[0])
        .bind(points2[1])
        .bind(id)
        .execute(c)
        .await?;
    Ok(())
}

/// A page of sets, newest first (ids are ULIDs, so id order is creation order).
pub async fn list(
    c: &mut AnyConnection,
    status: Option<&str>,
    bot_id: Option<&str>,
    before: Option<&str>,
    limit: i64,
) -> sqlx::Result<Vec<SetRow>> {
    // One text for every filter combination: a NULL parameter disables its filter.
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {SET_COLS} FROM sets \
         WHERE ($1 IS NULL OR status = $1) \
           AND ($2 IS NULL OR creator_id = $2 OR acceptor_id = $2 OR opponent_id = $2) \
           AND ($3 IS NULL OR id < $3) \
         ORDER BY id DESC LIMIT $4"
    )))
    .bind(status)
    .bind(bot_id)
    .bind(before)
    .bind(limit)
    .fetch_all(c)
    .await
}

/// Open challenges that `bot_id` may accept: open ones from other bots, and private ones to it.
pub async fn open_for(c: &mut AnyConnection, bot_id: &str) -> sqlx::Result<Vec<SetRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {SET_COLS} FROM sets WHERE status = 'open' AND creator_id <> $1 \
         AND (opponent_id IS NULL OR opponent_id = $1) ORDER BY id"
    )))
    .bind(bot_id)
    .fetch_all(c)
    .await
}

/// Open sets a bot created or that are aimed at it (retiring it closes them, issue 20).
pub async fn open_involving(c: &mut AnyConnection, bot_id: &str) -> sqlx::Result<Vec<SetRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {SET_COLS} FROM sets WHERE status = 'open' AND (creator_id = $1 OR opponent_id = $1) \
         ORDER BY id"
    )))
    .bind(bot_id)
    .fetch_all(c)
    .await
}

/// Open private challenges addressed to house bots: (set id, size, initial_ms, increment_ms).
pub async fn open_to_house(c: &mut AnyConnection) -> sqlx::Result<Vec<(String, i64, i64, i64)>> {
    sqlx::query_as(
        "SELECT s.id, s.size, s.initial_ms, s.increment_ms FROM sets s \
         JOIN bots b ON b.id = s.opponent_id WHERE s.status = 'open' AND b.house <> 0",
    )
    .fetch_all(c)
    .await
}

/// Records each side's Elo before and after a rated set (issue 14: the bot page's chart).
/// `creator` and `acceptor` are `[before, after]`.
pub async fn record_ratings(
    c: &mut AnyConnection,
    set_id: &str,
    creator: [f64; 2],
    acceptor: [f64; 2],
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE sets SET rating_creator_before = $1, rating_creator_after = $2, \
         rating_acceptor_before = $3, rating_acceptor_after = $4 WHERE id = $5",
    )
    .bind(creator[0])
    .bind(creator[1])
    .bind(acceptor[0])
    .bind(acceptor[1])
    .bind(set_id)
    .execute(c)
    .await?;
    Ok(())
}

/// One side's Glicko-2 figures around a rated set (issue 20): rating and deviation before
/// (inactivity included) and after.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GlickoMove {
    pub rating_before: f64,
    pub deviation_before: f64,
    pub rating_after: f64,
    pub deviation_after: f64,
}

/// Records each side's Glicko-2 rating and deviation before and after a rated set.
pub async fn record_glicko(
    c: &mut AnyConnection,
    set_id: &str,
    creator: GlickoMove,
    acceptor: GlickoMove,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE sets SET glicko_creator_before = $1, deviation_creator_before = $2, \
         glicko_creator_after = $3, deviation_creator_after = $4, glicko_acceptor_before = $5, \
         deviation_acceptor_before = $6, glicko_acceptor_after = $7, deviation_acceptor_after = $8 \
         WHERE id = $9",
    )
    .bind(creator.rating_before)
    .bind(creator.deviation_before)
    .bind(creator.rating_after)
    .bind(creator.deviation_after)
    .bind(acceptor.rating_before)
    .bind(acceptor.deviation_before)
    .bind(acceptor.rating_after)
    .bind(acceptor.deviation_after)
    .bind(set_id)
    .execute(c)
    .await?;
    Ok(())
}

/// Both sides' ratings around one set (issues 14 and 20): Elo and Glicko-2 before and after,
/// creator then acceptor; every field None for a set that was not rated (or not yet settled).
#[derive(Debug, Clone, Default, sqlx::FromRow)]
pub struct SetRatings {
    pub rating_creator_before: Option<f64>,
    pub rating_creator_after: Option<f64>,
    pub rating_acceptor_before: Option<f64>,
    pub rating_acceptor_after: Option<f64>,
    pub glicko_creator_before: Option<f64>,
    pub glicko_creator_after: Option<f64>,
    pub deviation_creator_before: Option<f64>,
    pub deviation_creator_after: Option<f64>,
    pub glicko_acceptor_before: Option<f64>,
    pub glicko_acceptor_after: Option<f64>,
    pub deviation_acceptor_before: Option<f64>,
    pub deviation_acceptor_after: Option<f64>,
}

/// The ratings recorded around set `id` ([`record_ratings`], [`record_glicko`]); None for an
/// unknown set.
pub async fn ratings_of(c: &mut AnyConnection, id: &str) -> sqlx::Result<Option<SetRatings>> {
    sqlx::query_as(
        "SELECT rating_creator_before, rating_creator_after, rating_acceptor_before, \
         rating_acceptor_after, glicko_creator_before, glicko_creator_after, \
         deviation_creator_before, deviation_creator_after, glicko_acceptor_before, \
         glicko_acceptor_after, deviation_acceptor_before, deviation_acceptor_after \
         FROM sets WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(c)
    .await
}

/// One rated set in a bot's rating history: its Elo and Glicko-2 figures before and after,
/// the opponent and the winner.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RatingPoint {
    pub set_id: String,
    pub finished_ms: Option<i64>,
    pub rating_before: f64,
    pub rating_after: f64,
    /// None only for a set settled by a build without Glicko-2 after the replay ran.
    pub glicko_before: Option<f64>,
    pub glicko_after: Option<f64>,
    pub deviation_before: Option<f64>,
    pub deviation_after: Option<f64>,
    pub opponent_id: String,
    pub opponent_name: String,
    /// None for a drawn set.
    pub winner_id: Option<String>,
}

/// The last `limit` rated sets of `bot_id` with its ratings before and after each, oldest
/// first (sets settled before the Elo history was kept, issue 14, are left out).
pub async fn rating_history(
    c: &mut AnyConnection,
    bot_id: &str,
    limit: i64,
) -> sqlx::Result<Vec<RatingPoint>> {
    let mut rows: Vec<RatingPoint> = sqlx::query_as(
        "SELECT s.id AS set_id, s.finished_ms, \
           CASE WHEN s.creator_id = $1 THEN s.rating_creator_before ELSE s.rating_acceptor_before END AS rating_before, \
           CASE WHEN s.creator_id = $1 THEN s.rating_creator_after ELSE s.rating_acceptor_after END AS rating_after, \
           CASE WHEN s.creator_id = $1 THEN s.glicko_creator_before ELSE s.glicko_acceptor_before END AS glicko_before, \
           CASE WHEN s.creator_id = $1 THEN s.glicko_creator_after ELSE s.glicko_acceptor_after END AS glicko_after, \
           CASE WHEN s.creator_id = $1 THEN s.deviation_creator_before ELSE s.deviation_acceptor_before END AS deviation_before, \
           CASE WHEN s.creator_id = $1 THEN s.deviation_creator_after ELSE s.deviation_acceptor_after END AS deviation_after, \
           o.id AS opponent_id, o.name AS opponent_name, s.winner_id \
         FROM sets s JOIN bots o ON o.id = CASE WHEN s.creator_id = $1 THEN s.acceptor_id ELSE s.creator_id END \
         WHERE (s.creator_id = $1 OR s.acceptor_id = $1) AND s.rating_creator_after IS NOT NULL \
         ORDER BY s.finished_ms DESC, s.id DESC LIMIT $2",
    )
    .bind(bot_id)
    .bind(limit)
    .fetch_all(c)
    .await?;
    rows.reverse();
    Ok(rows)
}

/// A finished rated set as the Glicko-2 replay reads it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RatedSetRow {
    pub id: String,
    pub creator_id: String,
    pub acceptor_id: String,
    /// None for a drawn set.
    pub winner_id: Option<String>,
    pub finished_ms: i64,
}

/// Every finished rated set, in the order the replay rates them: by `finished_ms`, then id.
pub async fn rated_sets_in_order(c: &mut AnyConnection) -> sqlx::Result<Vec<RatedSetRow>> {
    sqlx::query_as(
        "SELECT id, creator_id, acceptor_id, winner_id, finished_ms FROM sets \
         WHERE status = 'finished' AND rated <> 0 AND practice = 0 \
           AND acceptor_id IS NOT NULL AND finished_ms IS NOT NULL \
         ORDER BY finished_ms, id",
    )
    .fetch_all(c)
    .await
}

/// Finished sets between two bots, from `a`'s side (issue 20, head-to-head): sets, set wins,
/// set losses (the rest are drawn), and game points doubled (a's, b's). Practice sets are
/// left out, as from the records.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, sqlx::FromRow)]
pub struct Versus {
    pub sets: i64,
    pub wins: i64,
    pub losses: i64,
    pub points2_a: i64,
    pub points2_b: i64,
}

/// The [`Versus`] figures of `a` against `b`, from their finished sets that are not practice and
/// had no game forfeited (a withdrawal's forfeit was never played: no strength in it).
pub async fn versus(c: &mut AnyConnection, a: &str, b: &str) -> sqlx::Result<Versus> {
    sqlx::query_as(
        "SELECT CAST(COUNT(*) AS BIGINT) AS sets, \
         CAST(COALESCE(SUM(CASE WHEN winner_id = $1 THEN 1 ELSE 0 END), 0) AS BIGINT) AS wins, \
         CAST(COALESCE(SUM(CASE WHEN winner_id = $2 THEN 1 ELSE 0 END), 0) AS BIGINT) AS losses, \
         CAST(COALESCE(SUM(CASE WHEN creator_id = $1 THEN points2_creator ELSE points2_acceptor END), 0) \
              AS BIGINT) AS points2_a, \
         CAST(COALESCE(SUM(CASE WHEN creator_id = $1 THEN points2_acceptor ELSE points2_creator END), 0) \
              AS BIGINT) AS points2_b \
         FROM sets WHERE status = 'finished' AND practice = 0 \
         AND ((creator_id = $1 AND acceptor_id = $2) OR (creator_id = $2 AND acceptor_id = $1)) \
         AND NOT EXISTS (SELECT 1 FROM games g WHERE g.set_id = sets.id AND g.forfeit = 1)",
    )
    .bind(a)
    .bind(b)
    .fetch_one(c)
    .await
}

/// The bots `bot_id` finished the most sets with (practice left out), most first, then by
/// id: (opponent id, sets).
pub async fn frequent_opponents(
    c: &mut AnyConnection,
    bot_id: &str,
    limit: i64,
) -> sqlx::Result<Vec<(String, i64)>> {
    sqlx::query_as(
        "SELECT opp, CAST(COUNT(*) AS BIGINT) AS n FROM (SELECT CASE WHEN creator_id = $1 \
         THEN acceptor_id ELSE creator_id END AS opp FROM sets WHERE status = 'finished' \
         AND practice = 0 AND acceptor_id IS NOT NULL AND (creator_id = $1 OR acceptor_id = $1)) t \
         GROUP BY opp ORDER BY n DESC, opp LIMIT $2",
    )
    .bind(bot_id)
    .bind(limit)
    .fetch_all(c)
    .await
}
