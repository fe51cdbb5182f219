//! A batch of moves written in one transaction: the group commit of `arena::commit` (SPEC
//! section 12: a move is answered only once committed). Each backend does it in one round
//! trip: SQLite in one statement, an insert into a view whose trigger stores each move
//! ([`commit_moves_sqlite`]), PostgreSQL in one statement whose text is the same for every
//! batch ([`commit_moves_pg`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use sqlx::AnyConnection;

use super::games::{GameRow, MoveRow};

/// One move to store on the fast path: the game row after it (`version` one above the row's
/// current one), the move, and the game's `state` event for the streams (`event_bot` is the
/// bot now on move; `event_payload` the small event body).
#[derive(Debug, Clone)]
pub struct MoveWrite {
    pub game: GameRow,
    pub mv: MoveRow,
    pub event_bot: Option<String>,
    pub event_payload: String,
}

/// Binds one game row `g` after its move in the column order of [`update_sql`] and of
/// `move_batch` (twelve values: set id, game number, then what a move changes).
macro_rules! bind_game {
    ($q:expr, $g:expr) => {{
        let g = $g;
        $q.bind(&g.set_id)
            .bind(g.game_no)
            .bind(&g.board)
            .bind(g.ply)
            .bind(&g.to_move_id)
            .bind(g.remaining1_ms)
            .bind(g.remaining2_ms)
            .bind(g.first1)
            .bind(g.first2)
            .bind(g.turn_started_ms)
            .bind(g.deadline_ms)
            .bind(g.version)
    }};
}

/// Binds the game rows of `writes` in the column order of [`update_sql`] (twelve each).
macro_rules! bind_games {
    ($q:expr, $writes:expr) => {{
        let mut q = $q;
        for w in $writes {
            q = bind_game!(q, &w.game);
        }
        q
    }};
}

/// Stores a batch of moves on SQLite in one transaction and one round trip to the database
/// (each statement through sqlx is a hop to its connection thread, and each statement's
/// outcome a message that wakes the writer: issue 22). The batch is ONE statement, an insert
/// into the view `move_batch` (migration 0016), whose trigger updates each game row, only if
/// still at the version its move was computed from, and stores the move and its `state` event.
/// The statement is its own transaction: a stale row aborts it whole (nothing written), and
/// the batch is then done again row by row ([`commit_moves_sqlite_each`]). The caller holds
/// the write queue, so the events' AUTOINCREMENT ids are consecutive and the last one is read
/// back in the same text. Returns, per write, its event id, or None when its game row had
/// moved on (nothing of that move is written). Errors: the database's; nothing of the batch
/// is written, and no transaction is left open.
pub async fn commit_moves_sqlite(
    c: &mut AnyConnection,
    writes: &[&MoveWrite],
    now_ms: i64,
) -> sqlx::Result<Vec<Option<i64>>> {
    let r = commit_moves_sqlite_inner(&mut *c, writes, now_ms).await;
    if r.is_err() {
        // The row-by-row path opens a transaction of its own: leave none open on the pooled
        // connection, whatever failed.
        let _ = sqlx::query("ROLLBACK").execute(&mut *c).await;
    }
    r
}

/// The writes whose game row was still at their version (`fresh`, one flag per write).
fn still_fresh<'a>(writes: &[&'a MoveWrite], fresh: &[bool]) -> Vec<&'a MoveWrite> {
    writes
        .iter()
        .zip(fresh)
        .filter_map(|(w, ok)| ok.then_some(*w))
        .collect()
}

/// The message of the trigger's abort on a stale game row (migration 0016).
const STALE_ROW: &str = "hexarena: stale game row";

async fn commit_moves_sqlite_inner(
    c: &mut AnyConnection,
    writes: &[&MoveWrite],
    now_ms: i64,
) -> sqlx::Result<Vec<Option<i64>>> {
    if writes.is_empty() {
        return Ok(vec![]);
    }
    let sql = one_trip_sql(writes.len());
    let q = sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql.to_string()));
    let answer = match bind_batch(q, writes, now_ms).fetch_all(&mut *c).await {
        Ok(answer) => answer,
        Err(sqlx::Error::Database(e)) if e.message().contains(STALE_ROW) => {
            // A row had moved on (rare): nothing was written; again, learning row by row
            // which changed.
            return commit_moves_sqlite_each(c, writes, now_ms).await;
        }
        Err(e) => return Err(e),
    };
    let [last] = answer[..] else {
        return Err(sqlx::Error::Protocol(format!(
            "a move batch answered {} rows, not one",
            answer.len()
        )));
    };
    // One statement under the write queue: its AUTOINCREMENT ids are consecutive, in the
    // order of its rows.
    let first = last - (writes.len() as i64 - 1);
    Ok((first..=last).map(Some).collect())
}

/// The SQLite text of a whole batch in one round trip (see [`commit_moves_sqlite`]), built
/// once per batch size and remembered: the insert into `move_batch` (23 values a row, in the
/// order of [`bind_batch`]), then the last event id.
fn one_trip_sql(rows: usize) -> Arc<str> {
    static SHAPES: Shapes = OnceLock::new();
    remembered(&SHAPES, rows, || {
        let one = format!("({})", vec!["?"; BATCH_COLUMNS].join(", "));
        format!(
            "INSERT INTO move_batch (set_id, game_no, board, ply, to_move_id, remaining1_ms, \
             remaining2_ms, first1, first2, turn_started_ms, deadline_ms, version, move_ply, \
             seat, cell_row, cell_col, swap, elapsed_ms, at_ms, info, event_bot, payload, \
             event_at_ms) VALUES {}; \
             SELECT seq FROM sqlite_sequence WHERE name = 'events'",
            vec![one; rows].join(", ")
        )
    })
}

/// Values a row of `move_batch` takes (see [`one_trip_sql`]).
const BATCH_COLUMNS: usize = 23;

/// Binds `writes` as rows of `move_batch`: the game row after the move, the move, the event.
fn bind_batch<'q>(
    mut q: ScalarQuery<'q>,
    writes: &[&'q MoveWrite],
    now_ms: i64,
) -> ScalarQuery<'q> {
    for w in writes {
        let m = &w.mv;
        q = bind_game!(q, &w.game)
            .bind(m.ply)
            .bind(m.seat)
            .bind(m.cell_row)
            .bind(m.cell_col)
            .bind(m.swap)
            .bind(m.elapsed_ms)
            .bind(m.at_ms)
            .bind(m.info.as_deref())
            .bind(w.event_bot.as_deref())
            .bind(&w.event_payload)
            .bind(now_ms);
    }
    q
}

/// The batch when some row had moved on: the update answers each row it changed, and only
/// the moves of those are stored.
async fn commit_moves_sqlite_each(
    c: &mut AnyConnection,
    writes: &[&MoveWrite],
    now_ms: i64,
) -> sqlx::Result<Vec<Option<i64>>> {
    let fresh = update_moved(&mut *c, writes).await?;
    let kept = still_fresh(writes, &fresh);
    if kept.is_empty() {
        sqlx::query("COMMIT").execute(&mut *c).await?;
        return Ok(vec![None; writes.len()]);
    }
    let sql = inserts_and_commit(c, kept.len());
    let q = sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql.to_string()));
    let ids = bind_events(bind_moves(q, &kept), &kept, now_ms)
        .fetch_all(&mut *c)
        .await?;
    Ok(spread(fresh, ids))
}

/// The SQLite text of the inserts and `COMMIT` after [`update_moved`] (a batch with a stale
/// row), built once per batch size and remembered; answers one event id per row.
fn inserts_and_commit(c: &AnyConnection, rows: usize) -> Arc<str> {
    static SHAPES: Shapes = OnceLock::new();
    remembered(&SHAPES, rows, || {
        let moves = super::values_sql(c, MOVES_HEAD, 10, rows, ") AS v; ");
        let events = super::values_sql(
            c,
            super::events::insert_from_values!(),
            6,
            rows,
            ") AS v RETURNING id; COMMIT",
        );
        format!("{moves}{events}")
    })
}

/// Statement texts by batch size, each built once.
type Shapes = OnceLock<Mutex<HashMap<usize, Arc<str>>>>;

/// The text for `rows` from `shapes`, built by `build` the first time.
fn remembered(shapes: &Shapes, rows: usize, build: impl FnOnce() -> String) -> Arc<str> {
    let shapes = shapes.get_or_init(Default::default);
    if let Some(sql) = shapes.lock().ok().and_then(|m| m.get(&rows).cloned()) {
        return sql;
    }
    let sql: Arc<str> = build().into();
    if let Ok(mut m) = shapes.lock() {
        m.insert(rows, sql.clone());
    }
    sql
}

/// The moves' insert from a `VALUES` list (followed by its rows and `) AS v`), ten columns a
/// move in the order of [`bind_moves`]; the set's id is stored as its number (migration 0015,
/// issue 22).
const MOVES_HEAD: &str = "INSERT INTO moves (set_num, game_no, ply, seat, cell_row, cell_col, \
     swap, elapsed_ms, at_ms, info) SELECT (SELECT num FROM sets WHERE sets.id = v.column1), \
     v.column2, v.column3, v.column4, v.column5, v.column6, v.column7, v.column8, v.column9, \
     v.column10 FROM (VALUES";

/// The event ids (in any order) given back to the writes whose rows changed, in order.
fn spread(fresh: Vec<bool>, mut ids: Vec<i64>) -> Vec<Option<i64>> {
    ids.sort_unstable();
    let mut ids = ids.into_iter();
    fresh
        .into_iter()
        .map(|ok| if ok { ids.next() } else { None })
        .collect()
}

/// What a move changes in its game row, from the batch's rows `v` (columns `column1` to
/// `column12`: set id, game number, then the values set here; status stays active).
macro_rules! update_set {
    () => {
        "UPDATE games SET board = v.column3, ply = v.column4, to_move_id = v.column5, \
         remaining1_ms = v.column6, remaining2_ms = v.column7, first1 = v.column8, \
         first2 = v.column9, turn_started_ms = v.column10, deadline_ms = v.column11, \
         version = v.column12"
    };
}

/// SQLite: `BEGIN IMMEDIATE`, then the `UPDATE` of a batch's game rows (`UPDATE ... FROM
/// (VALUES ...)`, whose columns are `column1..column12`), then `tail`: each row changes only if
/// still at the version its move was computed from. Only what a move changes is written
/// (status stays active).
fn update_sql(c: &AnyConnection, rows: usize, tail: &'static str) -> Arc<str> {
    let head = concat!("BEGIN IMMEDIATE; ", update_set!(), " FROM (VALUES");
    super::values_sql(c, head, 12, rows, tail)
}

/// The condition of [`update_sql`]'s rows, followed by what the statement answers.
macro_rules! update_where {
    ($answer:literal) => {
        concat!(
            ") AS v WHERE games.set_id = v.column1 AND games.game_no = v.column2 \
             AND games.version = v.column12 - 1",
            $answer
        )
    };
}

/// The batch's game rows (see [`update_sql`]), answering each row that changed. Returns, per
/// write, whether its row changed: a changed row answers the version and board it took, and
/// only the first write with that game, version and board counts. Two writes of one game in
/// a batch cannot both be one version above the row (the game's lock keeps them apart
/// today), and if they ever were, the one whose row was written is the one stored.
async fn update_moved(c: &mut AnyConnection, writes: &[&MoveWrite]) -> sqlx::Result<Vec<bool>> {
    if writes.is_empty() {
        return Ok(vec![]);
    }
    let sql = update_sql(
        c,
        writes.len(),
        update_where!(" RETURNING games.set_id, games.game_no, games.version, games.board"),
    );
    let q = sqlx::query_as::<_, (String, i64, i64, String)>(sqlx::AssertSqlSafe(sql.to_string()));
    let changed = bind_games!(q, writes).fetch_all(c).await?;
    Ok(fresh_writes(writes, &changed))
}

/// Per write, whether it is the first of `writes` whose game row is one of `changed` (set id,
/// game number, version, board), each changed row claimed once.
fn fresh_writes(writes: &[&MoveWrite], changed: &[(String, i64, i64, String)]) -> Vec<bool> {
    let mut claimed = vec![false; changed.len()];
    writes
        .iter()
        .map(|w| {
            let g = &w.game;
            let row = changed.iter().enumerate().position(|(i, (s, n, v, b))| {
                !claimed[i] && *s == g.set_id && *n == g.game_no && *v == g.version && *b == g.board
            });
            row.map(|i| claimed[i] = true).is_some()
        })
        .collect()
}

/// A query over the `Any` driver that returns one integer per row (or none).
type ScalarQuery<'q> = sqlx::query::QueryScalar<'q, sqlx::Any, i64, sqlx::any::AnyArguments>;

/// Binds the moves of `kept` in the column order of the moves insert (ten values each).
fn bind_moves<'q>(mut q: ScalarQuery<'q>, kept: &[&'q MoveWrite]) -> ScalarQuery<'q> {
    for w in kept {
        q = q
            .bind(&w.game.set_id)
            .bind(w.game.game_no)
            .bind(w.mv.ply)
            .bind(w.mv.seat)
            .bind(w.mv.cell_row)
            .bind(w.mv.cell_col)
            .bind(w.mv.swap)
            .bind(w.mv.elapsed_ms)
            .bind(w.mv.at_ms)
            .bind(w.mv.info.as_deref());
    }
    q
}

/// Binds the `state` events of `kept` in the column order of the events insert (six each).
fn bind_events<'q>(mut q: ScalarQuery<'q>, kept: &[&'q MoveWrite], now_ms: i64) -> ScalarQuery<'q> {
    for w in kept {
        q = q
            .bind(w.event_bot.as_deref())
            .bind(&w.game.set_id)
            .bind(Some(w.game.game_no))
            .bind("state")
            .bind(&w.event_payload)
            .bind(now_ms);
    }
    q
}

/// Stores a batch of moves on PostgreSQL in ONE statement and one round trip, outside any
/// explicit transaction (PostgreSQL's group commit: `arena::commit`). A single statement is
/// its own transaction, and sqlx returns its rows only after the server's ready-for-query,
/// which follows the commit, so an answer still means durable. The batch travels as one
/// parameter, an array of JSON objects ([`PG_BATCH_SQL`]), so the statement's text is the same
/// for every batch size and each pooled connection prepares it once (issue 22's sixth pass).
/// Each game row is updated only if still at the version its move was computed from; the
/// moves and `state` events of those rows are inserted. Returns, per write, its event id, or
/// None when the row had moved on (another writer got there first: nothing of it is written).
/// Errors: the database's (nothing of the batch is written).
pub async fn commit_moves_pg(
    c: &mut AnyConnection,
    writes: &[&MoveWrite],
    now_ms: i64,
) -> sqlx::Result<Vec<Option<i64>>> {
    if writes.is_empty() {
        return Ok(vec![]);
    }
    let rows: Vec<PgBatchRow<'_>> = writes
        .iter()
        .enumerate()
        .map(|(idx, w)| PgBatchRow::of(idx, w))
        .collect();
    let batch = pg_text_array(&rows).map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
    let stored: Vec<(i64, i64)> = sqlx::query_as(PG_BATCH_SQL)
        .bind(batch)
        .bind(now_ms)
        .fetch_all(c)
        .await?;
    let mut ids = vec![None; writes.len()];
    for (idx, id) in stored {
        if let Some(slot) = usize::try_from(idx).ok().and_then(|i| ids.get_mut(i)) {
            *slot = Some(id);
        }
    }
    Ok(ids)
}

/// PostgreSQL's text form of a `text[]` whose elements are `rows` as JSON objects:
/// `{"...","..."}`, each element quoted, its `\` and `"` escaped by a `\`. Errors: JSON
/// encoding's (none for these rows).
fn pg_text_array(rows: &[PgBatchRow<'_>]) -> serde_json::Result<String> {
    let mut out = String::with_capacity(rows.len() * 400);
    out.push('{');
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('"');
        for ch in serde_json::to_string(row)?.chars() {
            if ch == '"' || ch == '\\' {
                out.push('\\');
            }
            out.push(ch);
        }
        out.push('"');
    }
    out.push('}');
    Ok(out)
}

/// One write of a PostgreSQL batch, as a JSON object that [`PG_BATCH_SQL`] reads
/// (`json_to_record`: the keys are the column names of its record type).
#[derive(serde::Serialize)]
struct PgBatchRow<'a> {
    /// The write's place in the batch, answered with its event id.
    idx: usize,
    set_id: &'a str,
    game_no: i64,
    board: &'a str,
    ply: i64,
    to_move_id: Option<&'a str>,
    remaining1_ms: i64,
    remaining2_ms: i64,
    first1: i64,
    first2: i64,
    turn_started_ms: Option<i64>,
    deadline_ms: Option<i64>,
    version: i64,
    move_ply: i64,
    seat: i64,
    cell_row: Option<i64>,
    cell_col: Option<i64>,
    swap: i64,
    elapsed_ms: i64,
    at_ms: i64,
    info: Option<&'a str>,
    event_bot: Option<&'a str>,
    payload: &'a str,
}

impl<'a> PgBatchRow<'a> {
    fn of(idx: usize, w: &'a MoveWrite) -> PgBatchRow<'a> {
        let (g, m) = (&w.game, &w.mv);
        PgBatchRow {
            idx,
            set_id: &g.set_id,
            game_no: g.game_no,
            board: &g.board,
            ply: g.ply,
            to_move_id: g.to_move_id.as_deref(),
            remaining1_ms: g.remaining1_ms,
            remaining2_ms: g.remaining2_ms,
            first1: g.first1,
            first2: g.first2,
            turn_started_ms: g.turn_started_ms,
            deadline_ms: g.deadline_ms,
            version: g.version,
            move_ply: m.ply,
            seat: m.seat,
            cell_row: m.cell_row,
            cell_col: m.cell_col,
            swap: m.swap,
            elapsed_ms: m.elapsed_ms,
            at_ms: m.at_ms,
            info: m.info.as_deref(),
            event_bot: w.event_bot.as_deref(),
            payload: &w.event_payload,
        }
    }
}

/// PostgreSQL's batch statement (see [`commit_moves_pg`]). `$1`: the batch, a `text[]` of
/// [`PgBatchRow`] objects ([`pg_text_array`]); `$2`: the events' time, ms.
/// - `v`: the writes; `t`: those whose game row is still at the version below their move's,
///   each found by its primary key (a `LATERAL` lookup, so the plan cannot turn it into a scan
///   of the whole table: with a hash join, the bench's small and much-updated table was read
///   whole for every batch), with the row's `ctid`; of two writes of one game, the first in
///   the batch only (the other is answered stale);
/// - `u`: those rows updated, reached by their `ctid` (a TID scan);
/// - `k`: the writes of `t` whose rows were updated (one a game), whose moves (`m`) and
///   events (`e`) are inserted.
///
/// Answers (the write's place in the batch, its event id) per stored move. Every event row is
/// built from a row of `u`, so the update has written (and the transaction has its id) before
/// the first event id is drawn, as `events::committed_watermark` requires.
const PG_BATCH_SQL: &str = "WITH v AS MATERIALIZED (SELECT r.* FROM unnest($1::text[]) AS j(w), \
     LATERAL json_to_record(j.w::json) AS r(\
     idx bigint, set_id text, game_no bigint, board text, ply bigint, to_move_id text, \
     remaining1_ms bigint, remaining2_ms bigint, first1 bigint, first2 bigint, \
     turn_started_ms bigint, deadline_ms bigint, version bigint, move_ply bigint, seat bigint, \
     cell_row bigint, cell_col bigint, swap bigint, elapsed_ms bigint, at_ms bigint, \
     info text, event_bot text, payload text)), \
 t AS MATERIALIZED (SELECT DISTINCT ON (v.set_id, v.game_no) v.*, g.row_id FROM v, \
     LATERAL (SELECT ctid AS row_id FROM games \
     WHERE games.set_id = v.set_id AND games.game_no = v.game_no \
     AND games.version = v.version - 1 OFFSET 0) g ORDER BY v.set_id, v.game_no, v.idx), \
 u AS (UPDATE games SET board = t.board, ply = t.ply, to_move_id = t.to_move_id, \
     remaining1_ms = t.remaining1_ms, remaining2_ms = t.remaining2_ms, first1 = t.first1, \
     first2 = t.first2, turn_started_ms = t.turn_started_ms, deadline_ms = t.deadline_ms, \
     version = t.version \
     FROM t WHERE games.ctid = ANY (ARRAY(SELECT row_id FROM t)) AND games.ctid = t.row_id \
     AND games.version = t.version - 1 \
     RETURNING games.set_id, games.game_no, games.version), \
 k AS MATERIALIZED (SELECT t.*, (SELECT num FROM sets WHERE sets.id = t.set_id) AS set_num \
     FROM t JOIN u ON u.set_id = t.set_id AND u.game_no = t.game_no AND u.version = t.version), \
 m AS (INSERT INTO moves (set_num, game_no, ply, seat, cell_row, cell_col, swap, elapsed_ms, \
     at_ms, info) SELECT set_num, game_no, move_ply, seat, cell_row, cell_col, swap, \
     elapsed_ms, at_ms, info FROM k), \
 e AS (INSERT INTO events (bot_num, set_num, game_no, kind, payload, at_ms) \
     SELECT (SELECT num FROM bots WHERE bots.id = k.event_bot), set_num, game_no, 'state', \
     payload, $2 FROM k RETURNING set_num, game_no, id) \
 SELECT k.idx, e.id FROM e JOIN k ON k.set_num = e.set_num AND k.game_no = e.game_no";
