//! Tournaments, their entries, rounds and pairings (issue 12, SPEC 14). The primary key of
//! `tournament_rounds` is what keeps a round from being paired twice, by any instance.

use sqlx::AnyConnection;

/// A tournament row. Booleans are 0/1; times ms since the epoch.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TournamentRow {
    pub id: String,
    pub name: String,
    /// `round_robin`, `swiss` or `gauntlet`.
    pub format: String,
    pub rounds: i64,
    /// `created`, `running`, `paused`, `finished` or `cancelled`.
    pub status: String,
    pub size: i64,
    pub random_stones: i64,
    pub initial_ms: i64,
    pub increment_ms: i64,
    pub stake: i64,
    pub rated: i64,
    pub max_concurrent: i64,
    /// `wait` (a set starts once both bots are online), `forfeit`, or `skip` (swiss and
    /// gauntlet: bots offline when a round is paired sit it out).
    pub absent: String,
    pub forfeit_after_ms: i64,
    pub start_ms: Option<i64>,
    pub current_round: i64,
    pub created_ms: i64,
    pub started_ms: Option<i64>,
    pub finished_ms: Option<i64>,
    /// Matches: the player who runs it.
    pub owner_id: Option<String>,
    /// Matches: most sets to play.
    pub match_sets: Option<i64>,
    /// Matches: the SPRT as JSON `{"elo0", "elo1", "alpha", "beta"}`.
    pub sprt: Option<String>,
}

const T_COLS: &str = "id, name, format, rounds, status, size, random_stones, initial_ms, \
    increment_ms, stake, rated, max_concurrent, absent, forfeit_after_ms, start_ms, current_round, \
    created_ms, started_ms, finished_ms, owner_id, match_sets, sprt";

/// A participant: `seed` 0 is the top seed (and a gauntlet's challenger).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct EntryRow {
    pub seed: i64,
    pub bot_id: String,
    /// Rating when the tournament was created.
    pub rating: f64,
    /// When the participant was withdrawn (issue 18); None while it plays on.
    pub withdrawn_ms: Option<i64>,
    /// The round that was current when it was withdrawn (0: before the first was paired).
    pub withdrawn_round: Option<i64>,
    /// Who withdrew it: `operator`, or `absence` (the arena, after consecutive forfeits by
    /// absence).
    pub withdrawn_by: Option<String>,
}

impl EntryRow {
    /// A participant as it enters a tournament: not withdrawn.
    #[must_use]
    pub fn new(seed: i64, bot_id: String, rating: f64) -> EntryRow {
        EntryRow {
            seed,
            bot_id,
            rating,
            withdrawn_ms: None,
            withdrawn_round: None,
            withdrawn_by: None,
        }
    }

    /// Whether the participant was withdrawn.
    #[must_use]
    pub fn withdrawn(&self) -> bool {
        self.withdrawn_ms.is_some()
    }
}

/// One pairing of a round (or a bye: `seed2` None). Points are doubled.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PairingRow {
    pub tournament_id: String,
    pub round: i64,
    pub board: i64,
    pub seed1: i64,
    pub seed2: Option<i64>,
    /// `pending`, `playing`, `finished`, `bye`, `forfeit`, `absent` (left out of the round) or
    /// `cancelled`.
    pub status: String,
    pub set_id: Option<String>,
    pub points2_1: i64,
    pub points2_2: i64,
    pub games2_1: i64,
    pub games2_2: i64,
    pub moves_1: i64,
    pub moves_2: i64,
    /// JSON list of game results from seed1's side: 1 win, 0 draw, -1 loss.
    pub games_json: Option<String>,
    pub created_ms: i64,
    pub finished_ms: Option<i64>,
    /// The seed whose withdrawal decided this pairing (issue 18): a forfeit made for it, or its
    /// set forfeited in play.
    pub withdrawn_seed: Option<i64>,
}

const P_COLS: &str = "tournament_id, round, board, seed1, seed2, status, set_id, points2_1, \
    points2_2, games2_1, games2_2, moves_1, moves_2, games_json, created_ms, finished_ms, \
    withdrawn_seed";

/// Inserts a new tournament (or match) row; `current_round` starts at 0, `started_ms` and
/// `finished_ms` empty.
pub async fn insert(c: &mut AnyConnection, t: &TournamentRow) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO tournaments (id, name, format, rounds, status, size, random_stones, \
         initial_ms, increment_ms, stake, rated, max_concurrent, absent, forfeit_after_ms, \
         start_ms, current_round, created_ms, owner_id, match_sets, sprt) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 0, $16, $17, \
         $18, $19)",
    )
    .bind(&t.id)
    .bind(&t.name)
    .bind(&t.format)
    .bind(t.rounds)
    .bind(&t.status)
    .bind(t.size)
    .bind(t.random_stones)
    .bind(t.initial_ms)
    .bind(t.increment_ms)
    .bind(t.stake)
    .bind(t.rated)
    .bind(t.max_concurrent)
    .bind(&t.absent)
    .bind(t.forfeit_after_ms)
    .bind(t.start_ms)
    .bind(t.created_ms)
    .bind(&t.owner_id)
    .bind(t.match_sets)
    .bind(&t.sprt)
    .execute(c)
    .await?;
    Ok(())
}

/// Adds a participant at its seed.
pub async fn insert_entry(c: &mut AnyConnection, id: &str, e: &EntryRow) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO tournament_entries (tournament_id, seed, bot_id, rating) VALUES ($1, $2, $3, $4)",
    )
    .bind(id)
    .bind(e.seed)
    .bind(&e.bot_id)
    .bind(e.rating)
    .execute(c)
    .await?;
    Ok(())
}

/// Reads a tournament; `lock` appends the backend's row lock (see `Store::for_update`).
pub async fn get(
    c: &mut AnyConnection,
    id: &str,
    lock: &str,
) -> sqlx::Result<Option<TournamentRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {T_COLS} FROM tournaments WHERE id = $1{lock}"
    )))
    .bind(id)
    .fetch_optional(c)
    .await
}

/// Newest first: tournaments (`matches` false) or matches (`matches` true).
pub async fn list(
    c: &mut AnyConnection,
    matches: bool,
    status: Option<&str>,
    before: Option<&str>,
    limit: i64,
) -> sqlx::Result<Vec<TournamentRow>> {
    let op = if matches { "=" } else { "<>" };
    // `before` is the id of the last row of the previous page: the rows after it in the order
    // (created_ms DESC, id DESC). A NULL parameter disables its filter.
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {T_COLS} FROM tournaments WHERE format {op} 'match' \
           AND ($1 IS NULL OR status = $1) \
           AND ($2 IS NULL OR created_ms < (SELECT created_ms FROM tournaments WHERE id = $2) \
                OR (created_ms = (SELECT created_ms FROM tournaments WHERE id = $2) AND id < $2)) \
         ORDER BY created_ms DESC, id DESC LIMIT $3"
    )))
    .bind(status)
    .bind(before)
    .bind(limit)
    .fetch_all(c)
    .await
}

/// Ids of tournaments the driver has work on at `now_ms`: running or paused ones, created
/// ones whose start time has come, and cancelled ones with a set still playing (its result is
/// recorded when it ends; issue 18).
pub async fn due(c: &mut AnyConnection, now_ms: i64) -> sqlx::Result<Vec<String>> {
    let rows: Vec<(String,)> = sqlx::query_as(
        "SELECT id FROM tournaments t WHERE status IN ('running', 'paused') \
         OR (status = 'created' AND start_ms IS NOT NULL AND start_ms <= $1) \
         OR (status = 'cancelled' AND EXISTS (SELECT 1 FROM tournament_pairings p \
             WHERE p.tournament_id = t.id AND p.status = 'playing')) ORDER BY id",
    )
    .bind(now_ms)
    .fetch_all(c)
    .await?;
    Ok(rows.into_iter().map(|r| r.0).collect())
}

/// Ids of the tournaments not started yet (status `created`, matches excluded) and of the
/// matches proposed or running where bot `bot_id` is a participant: `(tournaments, matches)`,
/// what retiring the bot takes it out of (it leaves the first, the second are cancelled).
pub async fn unstarted_and_matches_of(
    c: &mut AnyConnection,
    bot_id: &str,
) -> sqlx::Result<(Vec<String>, Vec<String>)> {
    let rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT t.id, t.format FROM tournaments t JOIN tournament_entries e \
         ON e.tournament_id = t.id WHERE e.bot_id = $1 AND e.withdrawn_ms IS NULL AND \
         ((t.format <> 'match' AND t.status = 'created') OR \
          (t.format = 'match' AND t.status IN ('proposed', 'running'))) ORDER BY t.id",
    )
    .bind(bot_id)
    .fetch_all(c)
    .await?;
    let (matches, tournaments): (Vec<_>, Vec<_>) =
        rows.into_iter().partition(|(_, f)| f == "match");
    Ok((
        tournaments.into_iter().map(|r| r.0).collect(),
        matches.into_iter().map(|r| r.0).collect(),
    ))
}

/// Ids of running or paused tournaments (matches excluded) where bot `bot_id` is a participant
/// not yet withdrawn: what retiring the bot withdraws it from (issue 20).
pub async fn active_entries_of(c: &mut AnyConnection, bot_id: &str) -> sqlx::Result<Vec<String>> {
    let rows: Vec<(String,)> = sqlx::query_as(
        "SELECT t.id FROM tournaments t JOIN tournament_entries e ON e.tournament_id = t.id \
         WHERE e.bot_id = $1 AND e.withdrawn_ms IS NULL AND t.status IN ('running', 'paused') \
         AND t.format <> 'match' ORDER BY t.id",
    )
    .bind(bot_id)
    .fetch_all(c)
    .await?;
    Ok(rows.into_iter().map(|r| r.0).collect())
}

/// Moves a tournament from `from` to `to`; returns the rows changed (0: it was not in `from`).
/// `started_ms` is set on the first start, `finished_ms` on finish and cancel.
pub async fn set_status(
    c: &mut AnyConnection,
    id: &str,
    from: &str,
    to: &str,
    now_ms: i64,
) -> sqlx::Result<u64> {
    let r = sqlx::query(
        "UPDATE tournaments SET status = $1, \
         started_ms = CASE WHEN $1 = 'running' AND started_ms IS NULL THEN $2 ELSE started_ms END, \
         finished_ms = CASE WHEN $1 IN ('finished', 'cancelled') THEN $2 ELSE finished_ms END \
         WHERE id = $3 AND status = $4",
    )
    .bind(to)
    .bind(now_ms)
    .bind(id)
    .bind(from)
    .execute(c)
    .await?;
    Ok(r.rows_affected())
}

/// Participants in seed order.
pub async fn entries(c: &mut AnyConnection, id: &str) -> sqlx::Result<Vec<EntryRow>> {
    sqlx::query_as(
        "SELECT seed, bot_id, rating, withdrawn_ms, withdrawn_round, withdrawn_by \
         FROM tournament_entries WHERE tournament_id = $1 ORDER BY seed",
    )
    .bind(id)
    .fetch_all(c)
    .await
}

/// The tournament or match a set was paired in (issue 18): its id, name, format, round and
/// board; None for a set made outside tournaments.
pub async fn event_of_set(
    c: &mut AnyConnection,
    set_id: &str,
) -> sqlx::Result<Option<(String, String, String, i64, i64)>> {
    sqlx::query_as(
        "SELECT t.id, t.name, t.format, p.round, p.board FROM tournament_pairings p \
         JOIN tournaments t ON t.id = p.tournament_id WHERE p.set_id = $1",
    )
    .bind(set_id)
    .fetch_optional(c)
    .await
}

/// Every pairing, by round and board.
pub async fn pairings(c: &mut AnyConnection, id: &str) -> sqlx::Result<Vec<PairingRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {P_COLS} FROM tournament_pairings WHERE tournament_id = $1 ORDER BY round, board"
    )))
    .bind(id)
    .fetch_all(c)
    .await
}

/// Claims round `round` of a tournament; false if it was already paired (by anyone).
pub async fn insert_round(
    c: &mut AnyConnection,
    id: &str,
    round: i64,
    now_ms: i64,
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "INSERT INTO tournament_rounds (tournament_id, round, paired_ms) VALUES ($1, $2, $3) \
         ON CONFLICT DO NOTHING",
    )
    .bind(id)
    .bind(round)
    .bind(now_ms)
    .execute(c)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// Inserts a pairing of a claimed round (see [`insert_round`]).
pub async fn insert_pairing(c: &mut AnyConnection, p: &PairingRow) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO tournament_pairings (tournament_id, round, board, seed1, seed2, status, \
         points2_1, points2_2, games2_1, games2_2, created_ms, finished_ms, withdrawn_seed) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
    )
    .bind(&p.tournament_id)
    .bind(p.round)
    .bind(p.board)
    .bind(p.seed1)
    .bind(p.seed2)
    .bind(&p.status)
    .bind(p.points2_1)
    .bind(p.points2_2)
    .bind(p.games2_1)
    .bind(p.games2_2)
    .bind(p.created_ms)
    .bind(p.finished_ms)
    .bind(p.withdrawn_seed)
    .execute(c)
    .await?;
    Ok(())
}

/// Moves `current_round` from `from` to `to`; returns the rows changed.
pub async fn advance_round(
    c: &mut AnyConnection,
    id: &str,
    from: i64,
    to: i64,
) -> sqlx::Result<u64> {
    let r = sqlx::query(
        "UPDATE tournaments SET current_round = $1 WHERE id = $2 AND current_round = $3",
    )
    .bind(to)
    .bind(id)
    .bind(from)
    .execute(c)
    .await?;
    Ok(r.rows_affected())
}

/// How many pairings of tournament `id` are playing (read under the tournament's row lock, the
/// count `max_concurrent` is held to on every instance).
pub async fn playing_count(c: &mut AnyConnection, id: &str) -> sqlx::Result<i64> {
    let (n,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM tournament_pairings WHERE tournament_id = $1 AND status = 'playing'",
    )
    .bind(id)
    .fetch_one(c)
    .await?;
    Ok(n)
}

/// Links a pending pairing to its new set; returns the rows changed (0: no longer pending, or
/// the tournament is not running).
pub async fn claim(c: &mut AnyConnection, p: &PairingRow, set_id: &str) -> sqlx::Result<u64> {
    let r = sqlx::query(
        "UPDATE tournament_pairings SET status = 'playing', set_id = $1 \
         WHERE tournament_id = $2 AND round = $3 AND board = $4 AND status = 'pending' \
         AND EXISTS (SELECT 1 FROM tournaments t WHERE t.id = $2 AND t.status = 'running')",
    )
    .bind(set_id)
    .bind(&p.tournament_id)
    .bind(p.round)
    .bind(p.board)
    .execute(c)
    .await?;
    Ok(r.rows_affected())
}

/// Records a pairing's result (status, points, moves, games) if it is still `from_status`.
pub async fn record(c: &mut AnyConnection, p: &PairingRow, from_status: &str) -> sqlx::Result<u64> {
    let r = sqlx::query(
        "UPDATE tournament_pairings SET status = $1, points2_1 = $2, points2_2 = $3, \
         games2_1 = $4, games2_2 = $5, moves_1 = $6, moves_2 = $7, games_json = $8, \
         finished_ms = $9, withdrawn_seed = $10 \
         WHERE tournament_id = $11 AND round = $12 AND board = $13 AND status = $14",
    )
    .bind(&p.status)
    .bind(p.points2_1)
    .bind(p.points2_2)
    .bind(p.games2_1)
    .bind(p.games2_2)
    .bind(p.moves_1)
    .bind(p.moves_2)
    .bind(&p.games_json)
    .bind(p.finished_ms)
    .bind(p.withdrawn_seed)
    .bind(&p.tournament_id)
    .bind(p.round)
    .bind(p.board)
    .bind(from_status)
    .execute(c)
    .await?;
    Ok(r.rows_affected())
}

/// Marks a playing pairing as decided by the withdrawal of `seed` (its set is to be forfeited;
/// issue 18); returns the rows changed (0: no longer playing).
pub async fn mark_withdrawn(c: &mut AnyConnection, p: &PairingRow, seed: i64) -> sqlx::Result<u64> {
    let r = sqlx::query(
        "UPDATE tournament_pairings SET withdrawn_seed = $1 \
         WHERE tournament_id = $2 AND round = $3 AND board = $4 AND status = 'playing'",
    )
    .bind(seed)
    .bind(&p.tournament_id)
    .bind(p.round)
    .bind(p.board)
    .execute(c)
    .await?;
    Ok(r.rows_affected())
}

/// Cancels every pending pairing of a tournament.
pub async fn cancel_pending(c: &mut AnyConnection, id: &str) -> sqlx::Result<u64> {
    let r = sqlx::query(
        "UPDATE tournament_pairings SET status = 'cancelled' \
         WHERE tournament_id = $1 AND status = 'pending'",
    )
    .bind(id)
    .execute(c)
    .await?;
    Ok(r.rows_affected())
}

/// Moves the forfeit-window start of every pending pairing later by `shift_ms` (the arena was
/// down that long; SPEC 14). Returns the pairings moved.
pub async fn shift_pending(c: &mut AnyConnection, shift_ms: i64) -> sqlx::Result<u64> {
    let r = sqlx::query(
        "UPDATE tournament_pairings SET created_ms = created_ms + $1 WHERE status = 'pending'",
    )
    .bind(shift_ms)
    .execute(c)
    .await?;
    Ok(r.rows_affected())
}

/// Marks a participant withdrawn (issue 18); returns the rows changed (0: unknown or already
/// withdrawn).
pub async fn withdraw_entry(
    c: &mut AnyConnection,
    id: &str,
    seed: i64,
    round: i64,
    by: &str,
    now_ms: i64,
) -> sqlx::Result<u64> {
    let r = sqlx::query(
        "UPDATE tournament_entries SET withdrawn_ms = $1, withdrawn_round = $2, withdrawn_by = $3 \
         WHERE tournament_id = $4 AND seed = $5 AND withdrawn_ms IS NULL",
    )
    .bind(now_ms)
    .bind(round)
    .bind(by)
    .bind(id)
    .bind(seed)
    .execute(c)
    .await?;
    Ok(r.rows_affected())
}

/// Replaces every participant of a tournament that has not started (seeds renumbered by the
/// caller; issue 18). Deleting first keeps the `(tournament_id, seed)` key free on both backends.
pub async fn replace_entries(
    c: &mut AnyConnection,
    id: &str,
    entries: &[EntryRow],
) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM tournament_entries WHERE tournament_id = $1")
        .bind(id)
        .execute(&mut *c)
        .await?;
    for e in entries {
        insert_entry(c, id, e).await?;
    }
    Ok(())
}

/// Writes the settings of a tournament that has not started (PATCH; issue 18); returns the
/// rows changed (0: it is no longer `created`).
pub async fn update_settings(c: &mut AnyConnection, t: &TournamentRow) -> sqlx::Result<u64> {
    let r = sqlx::query(
        "UPDATE tournaments SET name = $1, rounds = $2, size = $3, random_stones = $4, \
         initial_ms = $5, increment_ms = $6, stake = $7, rated = $8, max_concurrent = $9, \
         absent = $10, forfeit_after_ms = $11, start_ms = $12 \
         WHERE id = $13 AND status = 'created'",
    )
    .bind(&t.name)
    .bind(t.rounds)
    .bind(t.size)
    .bind(t.random_stones)
    .bind(t.initial_ms)
    .bind(t.increment_ms)
    .bind(t.stake)
    .bind(t.rated)
    .bind(t.max_concurrent)
    .bind(&t.absent)
    .bind(t.forfeit_after_ms)
    .bind(t.start_ms)
    .bind(&t.id)
    .execute(c)
    .await?;
    Ok(r.rows_affected())
}

/// Deletes a tournament that never started, with its participants (and any round rows, of which
/// it has none); returns the tournament rows deleted (issue 18).
pub async fn delete_unstarted(c: &mut AnyConnection, id: &str) -> sqlx::Result<u64> {
    for table in [
        "tournament_pairings",
        "tournament_rounds",
        "tournament_entries",
    ] {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DELETE FROM {table} WHERE tournament_id = $1"
        )))
        .bind(id)
        .execute(&mut *c)
        .await?;
    }
    let r = sqlx::query("DELETE FROM tournaments WHERE id = $1 AND started_ms IS NULL")
        .bind(id)
        .execute(c)
        .await?;
    Ok(r.rows_affected())
}

/// Sets in play whose pairing a withdrawal decided (issue 18): the forfeit still to be applied
/// to them, after a crash between the withdrawal and the forfeit. (set id, withdrawn bot id).
pub async fn withdrawn_in_play(
    c: &mut AnyConnection,
    id: &str,
) -> sqlx::Result<Vec<(String, String)>> {
    sqlx::query_as(
        "SELECT p.set_id, e.bot_id FROM tournament_pairings p JOIN tournament_entries e \
         ON e.tournament_id = p.tournament_id AND e.seed = p.withdrawn_seed \
         JOIN sets s ON s.id = p.set_id \
         WHERE p.tournament_id = $1 AND p.status = 'playing' AND s.status = 'active'",
    )
    .bind(id)
    .fetch_all(c)
    .await
}
