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
    pub game_no: Option<i64>,
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

/// The head of an insert of events from a `VALUES` list (followed by its rows and `) AS v`),
/// whose columns are, per event: the audience (a bot id, [`LOBBY`] or NULL for a game's public
/// stream), the set id, the game number, the kind, the payload (JSON) and the time (ms). The
/// ids are stored as the small keys of migration 0014 (`bots.num`, `sets.num`; 0 is the
/// lobby): a move's event is then a few bytes of keys instead of two 30-character ids written
/// three times (the row and both stream indexes; issue 22).
macro_rules! insert_from_values {
    () => {
        "INSERT INTO events (bot_num, set_num, game_no, kind, payload, at_ms) \
         SELECT CASE WHEN v.column1 = '*' THEN 0 \
         ELSE (SELECT num FROM bots WHERE bots.id = v.column1) END, \
         (SELECT num FROM sets WHERE sets.id = v.column2), \
         v.column3, v.column4, v.column5, v.column6 FROM (VALUES"
    };
}
pub(crate) use insert_from_values;

/// An [`EventRow`]'s columns from `events AS e`, its set's id read back from the set's key
/// (a macro, so that each query stays one static text).
macro_rules! row_from {
    () => {
        "SELECT e.id, s.id AS set_id, e.game_no, e.kind, e.payload \
         FROM events AS e LEFT JOIN sets AS s ON s.num = e.set_num"
    };
}

/// Appends events in one statement and returns their ids in the order of `rows` (ids are
/// assigned in row order inside the writer's transaction, so the returned ids, sorted, match).
/// An event whose bot or set does not exist is stored without that key (it would reach no
/// bot's stream).
pub async fn insert_all(
    c: &mut AnyConnection,
    rows: &[NewEvent<'_>],
    now_ms: i64,
) -> sqlx::Result<Vec<i64>> {
    if rows.is_empty() {
        return Ok(vec![]);
    }
    let sql = super::values_sql(
        c,
        insert_from_values!(),
        6,
        rows.len(),
        ") AS v RETURNING id",
    );
    let mut q = sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql.to_string()));
    for r in rows {
        q = q
            .bind(r.bot_id)
            .bind(r.set_id)
            .bind(r.game_no)
            .bind(r.kind)
            .bind(r.payload)
            .bind(now_ms);
    }
    let mut ids = q.fetch_all(c).await?;
    ids.sort_unstable();
    Ok(ids)
}

/// Events of a bot's stream (its own and the lobby's) with `after_id < id <= upto_id`.
pub async fn for_bot_after(
    c: &mut AnyConnection,
    bot_id: &str,
    after_id: i64,
    upto_id: i64,
    limit: i64,
) -> sqlx::Result<Vec<EventRow>> {
    sqlx::query_as(concat!(
        row_from!(),
        " WHERE e.bot_num IN (0, (SELECT num FROM bots WHERE bots.id = $1)) \
         AND e.id > $2 AND e.id <= $3 ORDER BY e.id LIMIT $4"
    ))
    .bind(bot_id)
    .bind(after_id)
    .bind(upto_id)
    .bind(limit)
    .fetch_all(c)
    .await
}

/// Public events of one game with `after_id < id <= upto_id`: its `state` rows, whoever they
/// also wake.
pub async fn for_game_after(
    c: &mut AnyConnection,
    set_id: &str,
    game_no: i64,
    after_id: i64,
    upto_id: i64,
    limit: i64,
) -> sqlx::Result<Vec<EventRow>> {
    sqlx::query_as(concat!(
        row_from!(),
        " WHERE e.set_num = (SELECT num FROM sets WHERE sets.id = $1) \
         AND e.game_no = $2 AND e.kind IN ('state', 'analysis') AND e.id > $3 AND e.id <= $4 \
         ORDER BY e.id LIMIT $5"
    ))
    .bind(set_id)
    .bind(game_no)
    .bind(after_id)
    .bind(upto_id)
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

/// PostgreSQL: the committed watermark, the highest `W` such that every event id up to `W`
/// has committed or never will (its transaction rolled back), so a stream may read "ids after
/// N, up to W" without skipping an event that commits late. No lock is involved:
/// 1. `L` = the last id drawn from the events sequence. Every writer is given its transaction
///    id before it draws an event id ([`super::WriteTx::prepare_events`]), so each transaction
///    that drew an id up to `L` already had a transaction id when `L` was read;
/// 2. the transaction ids that backends connected to this database hold after that are the
///    ones still running; once none of them is held any more, every transaction that drew an
///    id up to `L` has ended, and `W = L`.
///
/// Read from `pg_stat_activity` rather than a snapshot's in-progress list: that list leaves
/// out a running transaction whose id is at or above the snapshot's `xmax` (the newest one,
/// when nothing newer has ended), and it spans the whole server, so a long transaction of
/// another database (a dump, a report, another arena's tests) held every stream back.
///
/// Waits (polling every `poll_ms`) while such a transaction runs; a transaction left open for
/// long holds the watermark (not the moves) back.
pub async fn committed_watermark(c: &mut AnyConnection, poll_ms: u64) -> sqlx::Result<i64> {
    let (last, called): (i64, bool) =
        sqlx::query_as("SELECT last_value, is_called FROM events_id_seq")
            .fetch_one(&mut *c)
            .await?;
    let last = if called { last } else { 0 };
    let (running,): (String,) = sqlx::query_as(
        "SELECT COALESCE(string_agg(backend_xid::text, ','), '') FROM pg_stat_activity \
         WHERE datname = current_database() AND backend_xid IS NOT NULL \
         AND pid <> pg_backend_pid()",
    )
    .fetch_one(&mut *c)
    .await?;
    if running.is_empty() {
        return Ok(last);
    }
    loop {
        let (held,): (bool,) = sqlx::query_as(
            "SELECT EXISTS (SELECT 1 FROM pg_stat_activity \
             WHERE datname = current_database() \
             AND backend_xid::text = ANY (string_to_array($1, ',')))",
        )
        .bind(&running)
        .fetch_one(&mut *c)
        .await?;
        if !held {
            return Ok(last);
        }
        tokio::time::sleep(std::time::Duration::from_millis(poll_ms)).await;
    }
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
        "SELECT id FROM events WHERE bot_num = (SELECT num FROM bots WHERE bots.id = $1) \
         AND set_num = (SELECT num FROM sets WHERE sets.id = $2) AND game_no = $3 \
         AND kind IN ('state', 'your_turn') AND id > $4 LIMIT 1",
    )
    .bind(bot_id)
    .bind(set_id)
    .bind(game_no)
    .bind(after_id)
    .fetch_optional(c)
    .await?;
    Ok(row.is_some())
}

/// Deletes what streams no longer need: every event older than `before_ms`, and the per-move
/// game-state events of sets finished before `finished_before_ms` (their games are read from
/// the moves table; live games keep every event, so their `Last-Event-ID` resumes hold).
/// Returns the rows deleted.
pub async fn prune(
    c: &mut AnyConnection,
    before_ms: i64,
    finished_before_ms: i64,
) -> sqlx::Result<u64> {
    // Ids grow with time: everything below the first id at or after the cutoff is older. The
    // scan for that id walks only the rows about to go.
    let old = sqlx::query(
        "DELETE FROM events WHERE id < COALESCE((SELECT id FROM events WHERE at_ms >= $1 \
         ORDER BY id LIMIT 1), (SELECT MAX(id) + 1 FROM events))",
    )
    .bind(before_ms)
    .execute(&mut *c)
    .await?
    .rows_affected();
    let done = sqlx::query(
        "DELETE FROM events WHERE kind IN ('state', 'your_turn', 'game_finished') AND set_num IN \
         (SELECT num FROM sets WHERE status = 'finished' AND finished_ms < $1)",
    )
    .bind(finished_before_ms)
    .execute(&mut *c)
    .await?
    .rows_affected();
    Ok(old + done)
}
