//! The arena's analyses of finished games and their mistakes (issue 21). A finished game
//! without a row in `analyses` is pending; the analyst finds such games by `finished_ms`.

use sqlx::AnyConnection;

/// A stored analysis.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct AnalysisRow {
    pub engine: String,
    /// JSON array of numbers: seat 1's win probability before the first move and after each.
    pub win_prob: String,
    /// JSON array of `{ply, seat, drop, best}`.
    pub mistakes: String,
    pub done_ms: i64,
}

/// One mistake as stored for its bot.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct MistakeRow {
    pub set_id: String,
    pub game_no: i64,
    pub ply: i64,
    pub bot_id: String,
    pub seat: i64,
    /// Win probability lost, millionths.
    pub drop_ppm: i64,
    /// The better move's name (`e5` or `swap`).
    pub best: String,
}

/// The analysis of a game, if done.
pub async fn get(
    c: &mut AnyConnection,
    set_id: &str,
    game_no: i64,
) -> sqlx::Result<Option<AnalysisRow>> {
    sqlx::query_as(
        "SELECT engine, win_prob, mistakes, done_ms FROM analyses WHERE set_id = $1 AND game_no = $2",
    )
    .bind(set_id)
    .bind(game_no)
    .fetch_optional(c)
    .await
}

/// Finished games without an analysis that ended at or after `from_ms`, oldest first, at most
/// `limit`: `(set_id, game_no, finished_ms)`.
pub async fn pending(
    c: &mut AnyConnection,
    from_ms: i64,
    limit: i64,
) -> sqlx::Result<Vec<(String, i64, i64)>> {
    sqlx::query_as(
        "SELECT g.set_id, g.game_no, g.finished_ms FROM games g WHERE g.status = 'finished' \
         AND g.finished_ms >= $1 AND NOT EXISTS (SELECT 1 FROM analyses a \
         WHERE a.set_id = g.set_id AND a.game_no = g.game_no) \
         ORDER BY g.finished_ms, g.set_id, g.game_no LIMIT $2",
    )
    .bind(from_ms)
    .bind(limit)
    .fetch_all(c)
    .await
}

/// Stores an analysis and its mistakes; false (and nothing written) when the game already has
/// one (another instance got there first).
pub async fn insert(
    c: &mut AnyConnection,
    set_id: &str,
    game_no: i64,
    row: &AnalysisRow,
    mistakes: &[MistakeRow],
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "INSERT INTO analyses (set_id, game_no, engine, win_prob, mistakes, done_ms) \
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (set_id, game_no) DO NOTHING",
    )
    .bind(set_id)
    .bind(game_no)
    .bind(&row.engine)
    .bind(&row.win_prob)
    .bind(&row.mistakes)
    .bind(row.done_ms)
    .execute(&mut *c)
    .await?;
    if r.rows_affected() != 1 {
        return Ok(false);
    }
    for m in mistakes {
        sqlx::query(
            "INSERT INTO mistakes (set_id, game_no, ply, bot_id, seat, drop_ppm, best) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(&m.set_id)
        .bind(m.game_no)
        .bind(m.ply)
        .bind(&m.bot_id)
        .bind(m.seat)
        .bind(m.drop_ppm)
        .bind(&m.best)
        .execute(&mut *c)
        .await?;
    }
    Ok(true)
}

/// A bot's mistakes, worst first (then newest set first), at most `limit`.
pub async fn by_bot(
    c: &mut AnyConnection,
    bot_id: &str,
    limit: i64,
) -> sqlx::Result<Vec<MistakeRow>> {
    sqlx::query_as(
        "SELECT set_id, game_no, ply, bot_id, seat, drop_ppm, best FROM mistakes \
         WHERE bot_id = $1 ORDER BY drop_ppm DESC, set_id DESC, game_no, ply LIMIT $2",
    )
    .bind(bot_id)
    .bind(limit)
    .fetch_all(c)
    .await
}

/// A bot's finished games (set, game), oldest first, that ended at or after `since_ms`, at
/// most `limit`.
pub async fn finished_games_of(
    c: &mut AnyConnection,
    bot_id: &str,
    since_ms: i64,
    limit: i64,
) -> sqlx::Result<Vec<(String, i64)>> {
    sqlx::query_as(
        "SELECT set_id, game_no FROM games WHERE (seat1_id = $1 OR seat2_id = $1) \
         AND status = 'finished' AND finished_ms >= $2 ORDER BY finished_ms, set_id, game_no \
         LIMIT $3",
    )
    .bind(bot_id)
    .bind(since_ms)
    .bind(limit)
    .fetch_all(c)
    .await
}
