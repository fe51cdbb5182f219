//! Games and moves (SPEC sections 6, 7). A game row holds the compact board, so a move never
//! replays the move list; `version` increases with every change for caches to check against.

use sqlx::AnyConnection;

/// A game row.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct GameRow {
    pub set_id: String,
    pub game_no: i64,
    pub seat1_id: String,
    pub seat2_id: String,
    pub status: String,
    pub board: String,
    pub ply: i64,
    pub to_move_id: Option<String>,
    pub remaining1_ms: i64,
    pub remaining2_ms: i64,
    pub first1: i64,
    pub first2: i64,
    pub turn_started_ms: Option<i64>,
    pub deadline_ms: Option<i64>,
    pub winner_seat: Option<i64>,
    pub reason: Option<String>,
    pub started_ms: Option<i64>,
    pub finished_ms: Option<i64>,
    pub version: i64,
    /// 1 when the seat that lost on time had gone away (issue 18: `result.offline`).
    pub offline: i64,
    /// 1 when the game ended because its bot was withdrawn from its tournament (issue 18:
    /// `result.forfeit`).
    pub forfeit: i64,
    /// Refused move attempts of seat 1 and seat 2 (issue 18); written by [`add_refused`] only.
    pub refused1: i64,
    pub refused2: i64,
}

const GAME_COLS: &str = "set_id, game_no, seat1_id, seat2_id, status, board, ply, to_move_id, \
    remaining1_ms, remaining2_ms, first1, first2, turn_started_ms, deadline_ms, winner_seat, reason, \
    started_ms, finished_ms, version, offline, refused1, refused2, forfeit";

/// A stored move.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct MoveRow {
    pub ply: i64,
    pub seat: i64,
    pub bot_id: String,
    pub cell_row: Option<i64>,
    pub cell_col: Option<i64>,
    pub swap: i64,
    pub elapsed_ms: i64,
    pub at_ms: i64,
    /// What the bot said of its move (`Hexarena-Info`, issue 21) as compact JSON; NULL (no
    /// byte stored) when it said nothing.
    pub info: Option<String>,
}

pub async fn insert(c: &mut AnyConnection, g: &GameRow) -> sqlx::Result<()> {
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "INSERT INTO games ({GAME_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, \
         $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)"
    )))
    .bind(&g.set_id)
    .bind(g.game_no)
    .bind(&g.seat1_id)
    .bind(&g.seat2_id)
    .bind(&g.status)
    .bind(&g.board)
    .bind(g.ply)
    .bind(&g.to_move_id)
    .bind(g.remaining1_ms)
    .bind(g.remaining2_ms)
    .bind(g.first1)
    .bind(g.first2)
    .bind(g.turn_started_ms)
    .bind(g.deadline_ms)
    .bind(g.winner_seat)
    .bind(&g.reason)
    .bind(g.started_ms)
    .bind(g.finished_ms)
    .bind(g.version)
    .bind(g.offline)
    .bind(g.refused1)
    .bind(g.refused2)
    .bind(g.forfeit)
    .execute(c)
    .await?;
    Ok(())
}

/// Counts one refused move attempt of `seat` (1 or 2) in a game and on its bot (issue 18).
/// Not a change of the game's state, so its version stays.
pub async fn add_refused(
    c: &mut AnyConnection,
    set_id: &str,
    game_no: i64,
    seat: i64,
    bot_id: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE games SET refused1 = refused1 + $1, refused2 = refused2 + $2 \
         WHERE set_id = $3 AND game_no = $4",
    )
    .bind(i64::from(seat == 1))
    .bind(i64::from(seat == 2))
    .bind(set_id)
    .bind(game_no)
    .execute(&mut *c)
    .await?;
    sqlx::query("UPDATE bots SET refused_moves = refused_moves + 1 WHERE id = $1")
        .bind(bot_id)
        .execute(c)
        .await?;
    Ok(())
}

/// Refused move attempts of a bot over all its games (issue 18); 0 for an unknown id.
pub async fn refused_of_bot(c: &mut AnyConnection, bot_id: &str) -> sqlx::Result<i64> {
    let n: Option<i64> = sqlx::query_scalar("SELECT refused_moves FROM bots WHERE id = $1")
        .bind(bot_id)
        .fetch_optional(c)
        .await?;
    Ok(n.unwrap_or(0))
}

/// Refused move attempts per bot id in the games of a tournament's sets (issue 18).
pub async fn refused_in_tournament(
    c: &mut AnyConnection,
    tournament_id: &str,
) -> sqlx::Result<Vec<(String, i64)>> {
    sqlx::query_as(
        "SELECT bot, CAST(SUM(n) AS BIGINT) FROM (\
           SELECT g.seat1_id AS bot, g.refused1 AS n FROM games g JOIN tournament_pairings p \
             ON p.set_id = g.set_id WHERE p.tournament_id = $1 \
           UNION ALL SELECT g.seat2_id AS bot, g.refused2 AS n FROM games g JOIN tournament_pairings p \
             ON p.set_id = g.set_id WHERE p.tournament_id = $1) r GROUP BY bot",
    )
    .bind(tournament_id)
    .fetch_all(c)
    .await
}

/// Reads a game; `lock` appends the backend's row lock.
pub async fn get(
    c: &mut AnyConnection,
    set_id: &str,
    game_no: i64,
    lock: &str,
) -> sqlx::Result<Option<GameRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {GAME_COLS} FROM games WHERE set_id = $1 AND game_no = $2{lock}"
    )))
    .bind(set_id)
    .bind(game_no)
    .fetch_optional(c)
    .await
}

/// A game's version (None for an unknown game): what a copy in memory is checked against.
pub async fn version_of(
    c: &mut AnyConnection,
    set_id: &str,
    game_no: i64,
) -> sqlx::Result<Option<i64>> {
    let v: Option<(i64,)> =
        sqlx::query_as("SELECT version FROM games WHERE set_id = $1 AND game_no = $2")
            .bind(set_id)
            .bind(game_no)
            .fetch_optional(c)
            .await?;
    Ok(v.map(|v| v.0))
}

/// The versions of several game rows in one statement (PostgreSQL): `keys` are (set id, game
/// number); answers (set id, game number, version) for the rows that exist, in no order. Each
/// row is found by its primary key (a `LATERAL` lookup, so the plan cannot become a scan of
/// the whole table; see `move_batch::PG_BATCH_SQL`).
pub async fn versions_of_pg(
    c: &mut AnyConnection,
    keys: &[(&str, i64)],
) -> sqlx::Result<Vec<(String, i64, i64)>> {
    let rows: Vec<serde_json::Value> = keys
        .iter()
        .map(|(s, n)| serde_json::json!({"s": s, "n": n}))
        .collect();
    let text = serde_json::to_string(&rows).map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
    sqlx::query_as(
        "SELECT g.set_id, g.game_no, g.version FROM json_to_recordset($1::json) AS v(s text, n bigint), \
         LATERAL (SELECT set_id, game_no, version FROM games \
         WHERE games.set_id = v.s AND games.game_no = v.n OFFSET 0) AS g",
    )
    .bind(text)
    .fetch_all(c)
    .await
}

/// Both games of a set, game 1 first.
pub async fn of_set(c: &mut AnyConnection, set_id: &str) -> sqlx::Result<Vec<GameRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {GAME_COLS} FROM games WHERE set_id = $1 ORDER BY game_no"
    )))
    .bind(set_id)
    .fetch_all(c)
    .await
}

/// PostgreSQL: locks a game row for the caller's transaction unless another transaction holds
/// it (`FOR UPDATE SKIP LOCKED`). False when it is locked elsewhere or does not exist.
pub async fn claim(c: &mut AnyConnection, set_id: &str, game_no: i64) -> sqlx::Result<bool> {
    let row: Option<(i64,)> = sqlx::query_as(
        "SELECT version FROM games WHERE set_id = $1 AND game_no = $2 FOR UPDATE SKIP LOCKED",
    )
    .bind(set_id)
    .bind(game_no)
    .fetch_optional(c)
    .await?;
    Ok(row.is_some())
}

/// Writes every mutable column of `g`, if the row still has version `g.version - 1`.
/// Returns false when someone else changed the game in between (the caller retries or fails).
pub async fn update(c: &mut AnyConnection, g: &GameRow) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE games SET status = $1, board = $2, ply = $3, to_move_id = $4, remaining1_ms = $5, \
         remaining2_ms = $6, first1 = $7, first2 = $8, turn_started_ms = $9, deadline_ms = $10, \
         winner_seat = $11, reason = $12, started_ms = $13, finished_ms = $14, version = $15, \
         offline = $16, forfeit = $17 WHERE set_id = $18 AND game_no = $19 AND version = $20",
    )
    .bind(&g.status)
    .bind(&g.board)
    .bind(g.ply)
    .bind(&g.to_move_id)
    .bind(g.remaining1_ms)
    .bind(g.remaining2_ms)
    .bind(g.first1)
    .bind(g.first2)
    .bind(g.turn_started_ms)
    .bind(g.deadline_ms)
    .bind(g.winner_seat)
    .bind(&g.reason)
    .bind(g.started_ms)
    .bind(g.finished_ms)
    .bind(g.version)
    .bind(g.offline)
    .bind(g.forfeit)
    .bind(&g.set_id)
    .bind(g.game_no)
    .bind(g.version - 1)
    .execute(c)
    .await?;
    Ok(r.rows_affected() == 1)
}

pub async fn insert_move(
    c: &mut AnyConnection,
    set_id: &str,
    game_no: i64,
    m: &MoveRow,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO moves (set_num, game_no, ply, seat, cell_row, cell_col, swap, elapsed_ms, \
         at_ms, info) VALUES ((SELECT num FROM sets WHERE sets.id = $1), $2, $3, $4, $5, $6, $7, \
         $8, $9, $10)",
    )
    .bind(set_id)
    .bind(game_no)
    .bind(m.ply)
    .bind(m.seat)
    .bind(m.cell_row)
    .bind(m.cell_col)
    .bind(m.swap)
    .bind(m.elapsed_ms)
    .bind(m.at_ms)
    .bind(m.info.as_deref())
    .execute(c)
    .await?;
    Ok(())
}

/// All moves of a game in order.
pub async fn moves(
    c: &mut AnyConnection,
    set_id: &str,
    game_no: i64,
) -> sqlx::Result<Vec<MoveRow>> {
    moves_after(c, set_id, game_no, 0).await
}

/// The moves of a game after ply `after` (0 for all), in order: what a copy held at that ply
/// lacks when another instance has moved the game on (issue 22).
pub async fn moves_after(
    c: &mut AnyConnection,
    set_id: &str,
    game_no: i64,
    after: i64,
) -> sqlx::Result<Vec<MoveRow>> {
    sqlx::query_as(
        "SELECT m.ply, m.seat, CASE m.seat WHEN 1 THEN g.seat1_id ELSE g.seat2_id END AS bot_id, \
         m.cell_row, m.cell_col, m.swap, m.elapsed_ms, m.at_ms, m.info FROM moves m JOIN games g \
         ON g.set_id = $1 AND g.game_no = m.game_no \
         WHERE m.set_num = (SELECT num FROM sets WHERE sets.id = $1) AND m.game_no = $2 \
         AND m.ply > $3 ORDER BY m.ply",
    )
    .bind(set_id)
    .bind(game_no)
    .bind(after)
    .fetch_all(c)
    .await
}

/// One move by its ply (1-based), for the idempotent retry check.
pub async fn move_at(
    c: &mut AnyConnection,
    set_id: &str,
    game_no: i64,
    ply: i64,
) -> sqlx::Result<Option<MoveRow>> {
    sqlx::query_as(
        "SELECT m.ply, m.seat, CASE m.seat WHEN 1 THEN g.seat1_id ELSE g.seat2_id END AS bot_id, \
         m.cell_row, m.cell_col, m.swap, m.elapsed_ms, m.at_ms, m.info FROM moves m JOIN games g \
         ON g.set_id = $1 AND g.game_no = m.game_no \
         WHERE m.set_num = (SELECT num FROM sets WHERE sets.id = $1) AND m.game_no = $2 AND m.ply = $3",
    )
    .bind(set_id)
    .bind(game_no)
    .bind(ply)
    .fetch_optional(c)
    .await
}

/// Active games of one bot in which it is on move, with each turn's start, oldest turn first.
/// Found through the bot's seats (indexed for active games only, `games_active_seat1` and
/// `_seat2`: a move changes neither; issue 22), one index search per seat.
const ON_MOVE: &str = "SELECT set_id, game_no, turn_started_ms FROM games \
     WHERE seat1_id = $1 AND status = 'active' AND to_move_id = $1 \
     UNION SELECT set_id, game_no, turn_started_ms FROM games \
     WHERE seat2_id = $1 AND status = 'active' AND to_move_id = $1 \
     ORDER BY turn_started_ms, set_id";

/// The oldest active game in which `bot_id` is on move: `(set_id, game_no)`.
pub async fn oldest_on_move(
    c: &mut AnyConnection,
    bot_id: &str,
) -> sqlx::Result<Option<(String, i64)>> {
    Ok(all_on_move(c, bot_id).await?.into_iter().next())
}

/// Every active game: `(set_id, game_no)`.
pub async fn active(c: &mut AnyConnection) -> sqlx::Result<Vec<(String, i64)>> {
    sqlx::query_as("SELECT set_id, game_no FROM games WHERE status = 'active'")
        .fetch_all(c)
        .await
}

/// Every game in which `bot_id` is on move, oldest turn first (see [`ON_MOVE`]).
pub async fn all_on_move(c: &mut AnyConnection, bot_id: &str) -> sqlx::Result<Vec<(String, i64)>> {
    let rows: Vec<(String, i64, Option<i64>)> =
        sqlx::query_as(ON_MOVE).bind(bot_id).fetch_all(c).await?;
    Ok(rows.into_iter().map(|(s, n, _)| (s, n)).collect())
}

/// Deadlines of active games up to `until_ms`: `(deadline_ms, set_id, game_no)`.
pub async fn deadlines_until(
    c: &mut AnyConnection,
    until_ms: i64,
) -> sqlx::Result<Vec<(i64, String, i64)>> {
    sqlx::query_as(
        "SELECT deadline_ms, set_id, game_no FROM games WHERE status = 'active' \
         AND deadline_ms IS NOT NULL AND deadline_ms <= $1",
    )
    .bind(until_ms)
    .fetch_all(c)
    .await
}

/// Moves every running turn later by `shift_ms` (downtime of the whole arena is not charged).
pub async fn shift_turns(c: &mut AnyConnection, shift_ms: i64) -> sqlx::Result<u64> {
    let r = sqlx::query(
        "UPDATE games SET turn_started_ms = turn_started_ms + $1, deadline_ms = deadline_ms + $1, \
         version = version + 1 WHERE status = 'active' AND turn_started_ms IS NOT NULL",
    )
    .bind(shift_ms)
    .execute(c)
    .await?;
    Ok(r.rows_affected())
}

/// Moves later by `shift_ms` the running turns (and deadlines) that started before
/// `before_ms`: a storage outage's credit, which is not owed to a turn another instance started
/// during the outage. Returns the number of games shifted.
pub async fn shift_turns_started_before(
    c: &mut AnyConnection,
    before_ms: i64,
    shift_ms: i64,
) -> sqlx::Result<u64> {
    let r = sqlx::query(
        "UPDATE games SET turn_started_ms = turn_started_ms + $1, deadline_ms = deadline_ms + $1, \
         version = version + 1 WHERE status = 'active' AND turn_started_ms IS NOT NULL \
         AND turn_started_ms <= $2",
    )
    .bind(shift_ms)
    .bind(before_ms)
    .execute(c)
    .await?;
    Ok(r.rows_affected())
}

/// Starts again at `now_ms` every running turn that started after `after_ms` and no later
/// than `now_ms`, moving its deadline by as much (the seat keeps the time it had at the
/// turn's start: all of the turn was an outage, SPEC 7). Returns the games changed.
pub async fn restart_turns_started_between(
    c: &mut AnyConnection,
    after_ms: i64,
    now_ms: i64,
) -> sqlx::Result<u64> {
    let r = sqlx::query(
        "UPDATE games SET deadline_ms = deadline_ms + ($1 - turn_started_ms), \
         turn_started_ms = $1, version = version + 1 WHERE status = 'active' \
         AND turn_started_ms IS NOT NULL AND turn_started_ms > $2 AND turn_started_ms < $1",
    )
    .bind(now_ms)
    .bind(after_ms)
    .execute(c)
    .await?;
    Ok(r.rows_affected())
}

/// When the newest running turn that started at `at_most_ms` or before started (None when
/// there is none); a later one was stamped on a wall clock since stepped back.
pub async fn newest_turn_start(
    c: &mut AnyConnection,
    at_most_ms: i64,
) -> sqlx::Result<Option<i64>> {
    let (newest,): (Option<i64>,) = sqlx::query_as(
        "SELECT MAX(turn_started_ms) FROM games WHERE status = 'active' AND turn_started_ms <= $1",
    )
    .bind(at_most_ms)
    .fetch_one(c)
    .await?;
    Ok(newest)
}
