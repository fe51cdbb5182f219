//! Sets (SPEC section 5).

use sqlx::AnyConnection;

/// A set row. Points are doubled so that a half point stays an integer.
#[derive(Debug, Clone, sqlx::FromRow)]
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

const SET_COLS: &str = "id, creator_id, acceptor_id, opponent_id, status, practice, rated, size, \
    random_stones, initial_ms, increment_ms, stake, seed_hex, seed_sha256, opening, \
    points2_creator, points2_acceptor, winner_id, result, tiebreak, created_ms, started_ms, finished_ms";

pub async fn insert(c: &mut AnyConnection, s: &SetRow) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO sets (id, creator_id, acceptor_id, opponent_id, status, practice, size, \
         random_stones, initial_ms, increment_ms, stake, seed_hex, seed_sha256, opening, created_ms, \
         started_ms, rated) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, \
         $16, $17)",
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

/// One rated set in a bot's rating history.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RatingPoint {
    pub set_id: String,
    pub finished_ms: Option<i64>,
    pub rating_before: f64,
    pub rating_after: f64,
}

/// The last `limit` rated sets of `bot_id` with its Elo before and after each, oldest first.
pub async fn rating_history(
    c: &mut AnyConnection,
    bot_id: &str,
    limit: i64,
) -> sqlx::Result<Vec<RatingPoint>> {
    let mut rows: Vec<RatingPoint> = sqlx::query_as(
        "SELECT id AS set_id, finished_ms, \
           CASE WHEN creator_id = $1 THEN rating_creator_before ELSE rating_acceptor_before END AS rating_before, \
           CASE WHEN creator_id = $1 THEN rating_creator_after ELSE rating_acceptor_after END AS rating_after \
         FROM sets WHERE (creator_id = $1 OR acceptor_id = $1) AND rating_creator_after IS NOT NULL \
         ORDER BY finished_ms DESC, id DESC LIMIT $2",
    )
    .bind(bot_id)
    .bind(limit)
    .fetch_all(c)
    .await?;
    rows.reverse();
    Ok(rows)
}
