//! Group commit of moves (SPEC section 12: every change commits before its answer).
//!
//! Moves from all games are queued to one task (on a thread and runtime of its own) that
//! stores as many as are waiting in one transaction (one commit, one WAL sync per batch) and
//! answers each only after that commit: durability is that of a single commit. On SQLite,
//! which has one writer at a time anyway, and on PostgreSQL alike, the batch is one
//! statement and one round trip to the database, however many moves it holds
//! (`store::move_batch`). In-memory effects (the new slot, the deadline, the wake-up with its
//! events) run right after the commit (on SQLite before the write lock is let go, so wake-ups
//! leave in commit = event id order).
//!
//! Every commit, a move's or any other transaction's, ends in one function,
//! [`Sinks::apply`]: its [`Effects`] (events written, slots to install or invalidate,
//! deadlines, wake-ups, the notice to other instances) are applied there and nowhere else.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use super::error::ArenaResult;
use super::live::{Live, LiveGame, Slot, Snapshot};
use super::scheduler::Scheduler;
use super::{Arena, Change, LiveEvent};
use crate::store::games::GameRow;
use crate::store::move_batch::{self, MoveWrite};
use crate::store::status::GameStatus;
use crate::store::{Backend, Store, WriteTx, events};

/// Most moves in one transaction.
const MAX_BATCH: usize = 256;

/// PostgreSQL: batches committing at once, each on its own connection (of the pool's 16).
/// Their effects may apply out of commit order, which PostgreSQL's readers allow for already
/// (several instances write at once): a game's copy is installed only over an older one, and
/// streams read up to the committed watermark (`docs/multi-instance.md`).
const PG_BATCHES_IN_FLIGHT: usize = 4;

/// A move ready to store, with what to do in memory once it is committed.
pub struct MoveCommit {
    pub write: MoveWrite,
    pub slot: Arc<Slot>,
    pub live: Arc<LiveGame>,
}

/// Outcome of one move's write: its event id, or None when the game row had moved on.
pub type Committed = Result<Option<i64>, sqlx::Error>;

struct Job {
    commit: MoveCommit,
    reply: oneshot::Sender<Committed>,
}

/// What commits share with the rest of the arena.
#[derive(Clone)]
pub struct Sinks {
    pub scheduler: Arc<Scheduler>,
    pub changes: super::Changes,
    pub waiters: Arc<super::waiters::Waiters>,
    pub metrics: Arc<crate::metrics::Metrics>,
    pub notifier: super::cluster::Notifier,
    /// The games held in memory.
    pub live: Arc<Live>,
    /// This instance's id, the origin of its notices.
    pub origin: Arc<str>,
}

/// The move writer: a queue drained by one task on a thread of its own, which stores as many
/// waiting moves as it can in one transaction (on SQLite and PostgreSQL alike; on PostgreSQL
/// up to [`PG_BATCHES_IN_FLIGHT`] such transactions at once).
pub struct Writer {
    sinks: Sinks,
    queue: mpsc::UnboundedSender<Job>,
}

impl Writer {
    /// Starts the writer: its task runs on a runtime of its own, on its own thread
    /// (`hexarena-writer`), so a batch's round trips to the database never wait behind request
    /// handling. Falls back to the caller's runtime (must be inside one) if that thread cannot
    /// be started.
    pub fn start(store: Store, sinks: Sinks) -> Writer {
        let (queue, rx) = mpsc::unbounded_channel();
        let task = run(store, sinks.clone(), rx);
        // Handed over through a slot, so that a thread that cannot be started leaves it here.
        let slot = Arc::new(std::sync::Mutex::new(Some(Box::pin(task))));
        let theirs = slot.clone();
        let started = std::thread::Builder::new()
            .name("hexarena-writer".into())
            .spawn(move || {
                let Some(task) = theirs.lock().ok().and_then(|mut t| t.take()) else {
                    return;
                };
                match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt.block_on(task),
                    // The task is dropped with its queue: every move is refused, none hangs.
                    Err(e) => tracing::error!(error = %e, "no runtime for the move writer"),
                }
            });
        if let Err(e) = started {
            tracing::warn!(error = %e, "no thread for the move writer; it runs on the main runtime");
            if let Some(task) = slot.lock().ok().and_then(|mut t| t.take()) {
                tokio::spawn(task);
            }
        }
        Writer { sinks, queue }
    }

    /// Applies a committed transaction's effects (see [`Sinks::apply`]).
    pub fn apply(&self, fx: Effects) {
        self.sinks.apply(fx);
    }

    /// Wakes waiters with a change that stored nothing (see [`Sinks::publish`]).
    pub fn publish(&self, change: Change) {
        self.sinks.publish(change);
    }

    /// Stores one move and, once committed, installs its game and wakes its waiters.
    pub async fn commit(&self, c: MoveCommit) -> Committed {
        let (reply, rx) = oneshot::channel();
        self.queue
            .send(Job { commit: c, reply })
            .map_err(|_| sqlx::Error::PoolClosed)?;
        rx.await.map_err(|_| sqlx::Error::PoolClosed)?
    }
}

async fn run(store: Store, sinks: Sinks, mut rx: mpsc::UnboundedReceiver<Job>) {
    // SQLite has one writer: batches go one after the other, effects in commit order. On
    // PostgreSQL a batch's time is mostly round trips and the commit's flush, not work: several
    // run at once on their own connections, each taking what queued while the others ran.
    let slots = match store.backend {
        Backend::Postgres => PG_BATCHES_IN_FLIGHT,
        Backend::Sqlite => 1,
    };
    let in_flight = Arc::new(tokio::sync::Semaphore::new(slots));
    loop {
        let Ok(permit) = in_flight.clone().acquire_owned().await else {
            return;
        };
        let Some(first) = rx.recv().await else {
            // The queue closed: let the batches still committing finish and answer (this
            // runtime ends with this task, and would drop them half done).
            drop(permit);
            let _ = in_flight.acquire_many(slots as u32).await;
            return;
        };
        let mut batch: Vec<Job> = Vec::with_capacity(MAX_BATCH);
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        if store.backend == Backend::Postgres {
            let (store, sinks) = (store.clone(), sinks.clone());
            tokio::spawn(async move {
                settle(&store, &sinks, batch).await;
                drop(permit);
            });
        } else {
            settle(&store, &sinks, batch).await;
            drop(permit);
        }
    }
}

/// Commits one batch and answers each of its moves (see [`commit_batch`]).
async fn settle(store: &Store, sinks: &Sinks, mut batch: Vec<Job>) {
    sinks.metrics.commit_batch(batch.len());
    let started = std::time::Instant::now();
    match commit_batch(store, sinks, &batch).await {
        Ok(ids) => {
            for (job, id) in batch.drain(..).zip(ids) {
                let _ = job.reply.send(Ok(id));
            }
        }
        Err(e) if store.health.is_down() => {
            // Storage is failing (this batch's error or an earlier one): refuse at once
            // rather than retry each move against it.
            tracing::debug!(error = %e, size = batch.len(), "batch refused: storage down");
            for job in batch.drain(..) {
                let _ = job.reply.send(Err(store.health.refusal()));
            }
        }
        Err(e) => {
            // One bad write must not fail the others: retry each on its own.
            tracing::warn!(error = %e, size = batch.len(), "batch commit failed; retrying one by one");
            for job in batch.drain(..) {
                let r = commit_batch(store, sinks, std::slice::from_ref(&job))
                    .await
                    .map(|ids| ids.first().copied().flatten());
                let _ = job.reply.send(r);
            }
        }
    }
    sinks.metrics.commit_batch_took(started.elapsed());
}

/// Stores `jobs` in one transaction; once it has committed, applies their effects in order
/// (before the SQLite write queue is let go, so wake-ups leave in commit order).
async fn commit_batch(
    store: &Store,
    sinks: &Sinks,
    jobs: &[Job],
) -> Result<Vec<Option<i64>>, sqlx::Error> {
    let writes: Vec<&MoveWrite> = jobs.iter().map(|j| &j.commit.write).collect();
    let now = writes.iter().map(|w| w.mv.at_ms).max().unwrap_or(0);
    let effects = |ids: &[Option<i64>]| {
        for (job, id) in jobs.iter().zip(ids) {
            if let Some(id) = *id {
                sinks.apply(Effects::of_move(&job.commit, id));
            }
        }
    };
    if store.backend == Backend::Postgres {
        // One statement, its own transaction: answered once committed.
        let mut conn = store.write_conn().await?;
        let ids = move_batch::commit_moves_pg(&mut conn, &writes, now)
            .await
            .map_err(|e| store.note(e))?;
        effects(&ids);
        return Ok(ids);
    }
    let Some((queue, mut conn)) = store.sqlite_writer().await? else {
        return Err(sqlx::Error::Protocol("no SQLite write queue".into()));
    };
    let ids = match move_batch::commit_moves_sqlite(&mut conn, &writes, now).await {
        Ok(ids) => ids,
        Err(e) => {
            // Its rollback may have failed too: a new connection starts clean.
            conn.close_on_drop();
            return Err(store.note(e));
        }
    };
    // Committed: the effects run before the write queue is let go, in commit order.
    effects(&ids);
    drop(queue);
    Ok(ids)
}

/// The stored body of a game-state event: which ply, and whether it is the final state. The
/// state itself is rendered from memory, or rebuilt from the stored moves on a resume.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct StateMarker {
    pub ply: i64,
    #[serde(default, rename = "final", skip_serializing_if = "std::ops::Not::not")]
    pub is_final: bool,
}

impl StateMarker {
    pub(crate) fn of(s: &Snapshot) -> String {
        serde_json::to_string(&StateMarker {
            ply: s.ply,
            is_final: s.finished(),
        })
        .unwrap_or_default()
    }

    /// The marker in a stored payload; None for any other payload.
    pub fn parse(payload: &str) -> Option<StateMarker> {
        serde_json::from_str(payload).ok()
    }
}

/// What a transaction causes besides its rows: events to store, waiters to wake, deadlines,
/// games whose copies in memory are now stale.
#[derive(Default)]
pub struct Effects {
    events: Vec<PendingEvent>,
    written: Vec<LiveEvent>,
    changes: Vec<Change>,
    deadlines: Vec<(String, i64, Option<i64>)>,
    /// (set_id, game_no, version) committed by this transaction.
    games: Vec<(String, i64, i64)>,
    /// Sets that ended: their games leave memory.
    sets_done: Vec<String>,
    /// Games that started: held in memory from their first state.
    held: Vec<Arc<LiveGame>>,
    /// Games whose new copies replace the old in their slots.
    installs: Vec<(Arc<Slot>, Arc<LiveGame>)>,
    /// The highest event id written (0 before [`Effects::write`] or when none).
    max_event_id: i64,
}

/// An event to store: audience bot (None = the game's public stream), set, game, kind, JSON.
#[derive(Debug)]
struct PendingEvent {
    bot: Option<String>,
    set_id: String,
    game_no: Option<i64>,
    kind: &'static str,
    payload: String,
    state: Option<Arc<Snapshot>>,
}

impl Effects {
    /// An event for a bot's stream (`Some(bot_id)` or the lobby) or a game's public stream (None).
    pub fn event(
        &mut self,
        bot: Option<&str>,
        set_id: &str,
        game_no: Option<i64>,
        kind: &'static str,
        payload: Value,
    ) {
        self.events.push(PendingEvent {
            bot: bot.map(str::to_string),
            set_id: set_id.to_string(),
            game_no,
            kind,
            payload: payload.to_string(),
            state: None,
        });
    }

    /// `challenge_closed` to every bot's stream: a lobby set is no longer open (accepted or
    /// cancelled), so bots that were offered it can forget it.
    pub fn lobby_closed(&mut self, set_view: &Value) {
        let set_id = set_view["id"].as_str().unwrap_or_default().to_string();
        self.event(
            Some(events::LOBBY),
            &set_id,
            None,
            "challenge_closed",
            json!({"set": set_view}),
        );
        self.change(Change {
            set_id,
            game_no: None,
            bots: vec![events::LOBBY.to_string()],
            ..Change::default()
        });
    }

    pub fn change(&mut self, c: Change) {
        self.changes.push(c);
    }

    /// The effects of one committed move of the fast path (event `event_id`): the slot holds
    /// the new game, its deadline is scheduled, and both seats are woken with its state.
    pub fn of_move(c: &MoveCommit, event_id: i64) -> Effects {
        let g = &c.live.game;
        let state = c.live.snapshot.clone();
        Effects {
            written: vec![LiveEvent {
                id: event_id,
                bot: c.write.event_bot.clone(),
                set_id: g.set_id.clone(),
                game_no: Some(g.game_no),
                kind: "state",
                payload: Arc::from(c.write.event_payload.as_str()),
                state: Some(state.clone()),
            }],
            changes: vec![Change {
                set_id: g.set_id.clone(),
                game_no: Some(g.game_no),
                bots: g.seats.to_vec(),
                state: Some(state),
                ..Change::default()
            }],
            deadlines: vec![(g.set_id.clone(), g.game_no, g.deadline_ms())],
            installs: vec![(c.slot.clone(), c.live.clone())],
            max_event_id: event_id,
            ..Effects::default()
        }
    }

    /// Replaces the game held in `slot` by `live` once committed.
    pub fn install(&mut self, slot: Arc<Slot>, live: Arc<LiveGame>) {
        self.installs.push((slot, live));
    }

    /// A set that ended: its games leave memory once committed.
    pub fn set_done(&mut self, set_id: &str) {
        self.sets_done.push(set_id.to_string());
    }

    /// Holds a game that just started in memory once committed (its state event comes from
    /// [`Effects::game_state`]).
    pub fn hold(&mut self, live: Arc<LiveGame>) {
        self.held.push(live);
    }

    /// Schedules (or clears) the deadline of a game as now stored in `g`.
    pub fn deadline(&mut self, g: &GameRow) {
        let d = if g.status == GameStatus::Active {
            g.deadline_ms
        } else {
            None
        };
        self.deadlines.push((g.set_id.clone(), g.game_no, d));
    }

    /// A game's new state: its `state` event (which is also the `your_turn` of the bot on
    /// move), its deadline, a wake-up for both seats, and its copy in memory replaced.
    pub fn game_state(&mut self, g: &GameRow, state: Arc<Snapshot>) {
        self.events.push(PendingEvent {
            bot: state.on_move.as_ref().map(|(id, _)| id.clone()),
            set_id: g.set_id.clone(),
            game_no: Some(g.game_no),
            kind: "state",
            payload: StateMarker::of(&state),
            state: Some(state.clone()),
        });
        if state.finished() {
            for b in [&g.seat1_id, &g.seat2_id] {
                self.events.push(PendingEvent {
                    bot: Some(b.clone()),
                    set_id: g.set_id.clone(),
                    game_no: Some(g.game_no),
                    kind: "game_finished",
                    payload: StateMarker::of(&state),
                    state: Some(state.clone()),
                });
            }
        }
        self.deadline(g);
        self.games.push((g.set_id.clone(), g.game_no, g.version));
        self.change(Change {
            set_id: g.set_id.clone(),
            game_no: Some(g.game_no),
            bots: vec![g.seat1_id.clone(), g.seat2_id.clone()],
            state: Some(state),
            ..Change::default()
        });
    }

    /// Stores the events in the transaction, last thing before its commit.
    pub async fn write(&mut self, tx: &mut WriteTx, now: i64) -> ArenaResult<()> {
        if !self.events.is_empty() {
            tx.prepare_events().await?;
            let rows: Vec<events::NewEvent<'_>> = self
                .events
                .iter()
                .map(|e| events::NewEvent {
                    bot_id: e.bot.as_deref(),
                    set_id: &e.set_id,
                    game_no: e.game_no,
                    kind: e.kind,
                    payload: &e.payload,
                })
                .collect();
            let ids = events::insert_all(tx, &rows, now).await?;
            self.max_event_id = ids.iter().copied().max().unwrap_or(0);
            self.written = self
                .events
                .drain(..)
                .zip(ids)
                .map(|(e, id)| LiveEvent {
                    id,
                    bot: e.bot,
                    set_id: e.set_id,
                    game_no: e.game_no,
                    kind: e.kind,
                    payload: Arc::from(e.payload.as_str()),
                    state: e.state,
                })
                .collect();
        }
        if self.changes.is_empty() && !self.written.is_empty() {
            // Events with no wake-up of their own: wake their audiences (here and elsewhere).
            let mut bots: Vec<String> = self.written.iter().filter_map(|e| e.bot.clone()).collect();
            bots.sort_unstable();
            bots.dedup();
            self.changes.push(Change {
                set_id: self.written[0].set_id.clone(),
                bots,
                ..Change::default()
            });
        }
        Ok(())
    }

    /// Stores the events, commits, and applies the effects in memory in commit order.
    pub async fn commit(mut self, mut tx: WriteTx, arena: &Arena, now: i64) -> ArenaResult<()> {
        self.write(&mut tx, now).await?;
        tx.commit_then(|| arena.apply(self)).await?;
        Ok(())
    }
}

impl Sinks {
    /// The one path after a commit: applies a committed transaction's effects in memory, in
    /// commit order. Stale copies are dropped and new ones installed, deadlines rescheduled,
    /// finished sets let go, the other instances told (PostgreSQL), and waiters woken (the
    /// stored events travel with the first wake-up, in id order).
    pub fn apply(&self, mut fx: Effects) {
        if !fx.written.is_empty() {
            let events = std::mem::take(&mut fx.written);
            match fx.changes.first_mut() {
                Some(c) => c.events = events,
                None => fx.changes.push(Change {
                    events,
                    ..Change::default()
                }),
            }
        }
        if !fx.changes.is_empty() && self.notifier.wants(fx.changes.len()) {
            // Announced to the other instances now that the transaction committed.
            self.notifier.send(super::cluster::notices(
                &self.origin,
                &fx.changes,
                &fx.deadlines,
                fx.max_event_id,
            ));
        }
        for (set_id, game_no, version) in &fx.games {
            if let Some(slot) = self.live.existing(set_id, *game_no) {
                slot.invalidate(*version);
            }
        }
        for l in std::mem::take(&mut fx.held) {
            if let Some(slot) = self.live.slot(&l.game.set_id, l.game.game_no) {
                slot.install(l);
            }
        }
        for (slot, l) in std::mem::take(&mut fx.installs) {
            slot.install(l);
        }
        for set_id in &fx.sets_done {
            self.live.forget_set(set_id);
        }
        for (set_id, game_no, d) in fx.deadlines {
            self.scheduler.set(&set_id, game_no, d);
        }
        for mut c in fx.changes {
            c.max_event_id = fx.max_event_id;
            self.publish(c);
        }
    }

    /// Wakes waiters; nobody listening is fine.
    pub fn publish(&self, change: Change) {
        let change = Arc::new(change);
        self.waiters.wake(&change);
        self.changes.send(change);
    }
}
