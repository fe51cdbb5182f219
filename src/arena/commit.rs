//! Group commit of moves (SPEC section 12: every change commits before its answer).
//!
//! On SQLite there is one writer at a time anyway, so moves from all games are queued to one
//! task that stores as many as are waiting in one transaction (one commit, one WAL sync point
//! per batch) and answers each only after that commit: durability is that of a single commit.
//! In-memory effects (the new slot, the deadline, the wake-up with its events) run right after
//! the commit and before the write lock is let go, so wake-ups leave in commit (= event id)
//! order. On PostgreSQL each move commits in its own transaction, concurrently.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use super::live::{LiveGame, Slot};
use super::scheduler::Scheduler;
use super::{Change, LiveEvent};
use crate::store::games::{self, MoveWrite};
use crate::store::notify::Notice;
use crate::store::{Backend, Store};

/// Most moves in one transaction.
const MAX_BATCH: usize = 256;

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
    pub changes: tokio::sync::broadcast::Sender<Arc<Change>>,
    pub waiters: Arc<super::waiters::Waiters>,
    pub metrics: Arc<crate::metrics::Metrics>,
    pub notifier: super::cluster::Notifier,
}

/// The move writer: a queue on SQLite, direct transactions on PostgreSQL.
pub struct Writer {
    store: Store,
    sinks: Sinks,
    queue: Option<mpsc::UnboundedSender<Job>>,
}

impl Writer {
    /// Starts the writer (on SQLite, its task; must run inside the Tokio runtime).
    pub fn start(store: Store, sinks: Sinks) -> Writer {
        let queue = (store.backend == Backend::Sqlite).then(|| {
            let (tx, rx) = mpsc::unbounded_channel();
            tokio::spawn(run(store.clone(), sinks.clone(), rx));
            tx
        });
        Writer {
            store,
            sinks,
            queue,
        }
    }

    /// Stores one move and, once committed, installs its game and wakes its waiters.
    pub async fn commit(&self, c: MoveCommit) -> Committed {
        match &self.queue {
            Some(q) => {
                let (reply, rx) = oneshot::channel();
                q.send(Job { commit: c, reply })
                    .map_err(|_| sqlx::Error::PoolClosed)?;
                rx.await.map_err(|_| sqlx::Error::PoolClosed)?
            }
            None => {
                // The game row is updated before the event id is drawn, so the transaction has
                // its id first (see `WriteTx::prepare_events`): no lock is needed.
                let mut tx = self.store.begin_write().await?;
                let now = c.write.mv.at_ms;
                self.sinks.metrics.commit_batch(1);
                let ids = games::write_moves(
                    &mut tx,
                    std::slice::from_ref(&c.write),
                    now,
                    self.store.backend,
                )
                .await
                .map_err(|e| self.store.note(e))?;
                let Some(event_id) = ids.first().copied().flatten() else {
                    return Ok(None);
                };
                let g = &c.live.game;
                let notice = Notice {
                    origin: tx.origin.to_string(),
                    set_id: g.set_id.clone(),
                    game_no: Some(g.game_no),
                    version: Some(g.version),
                    deadline_ms: g.deadline_ms(),
                    bots: g.seats.to_vec(),
                    max_event_id: event_id,
                    // A new state only: moves that end a game go through `commit_ending`.
                    listed: false,
                };
                let id = Some(event_id);
                let sinks = &self.sinks;
                tx.commit_then(|| {
                    after_commit(sinks, &c, id);
                    sinks.notifier.send(vec![notice]);
                })
                .await?;
                Ok(id)
            }
        }
    }
}

async fn run(store: Store, sinks: Sinks, mut rx: mpsc::UnboundedReceiver<Job>) {
    let mut batch: Vec<Job> = Vec::with_capacity(MAX_BATCH);
    while let Some(first) = rx.recv().await {
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        sinks.metrics.commit_batch(batch.len());
        match commit_batch(&store, &sinks, &batch).await {
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
                    let r = commit_batch(&store, &sinks, std::slice::from_ref(&job))
                        .await
                        .map(|ids| ids.first().copied().flatten());
                    let _ = job.reply.send(r);
                }
            }
        }
    }
}

async fn commit_batch(
    store: &Store,
    sinks: &Sinks,
    jobs: &[Job],
) -> Result<Vec<Option<i64>>, sqlx::Error> {
    let writes: Vec<MoveWrite> = jobs.iter().map(|j| j.commit.write.clone()).collect();
    let now = writes.iter().map(|w| w.mv.at_ms).max().unwrap_or(0);
    let Some((queue, mut conn)) = store.sqlite_writer().await? else {
        return Err(sqlx::Error::Protocol("the move queue is SQLite's".into()));
    };
    let ids = match games::commit_moves_sqlite(&mut conn, &writes, now).await {
        Ok(ids) => ids,
        Err(e) => {
            // Its rollback may have failed too: a new connection starts clean.
            conn.close_on_drop();
            return Err(store.note(e));
        }
    };
    // Committed: the effects run before the write queue is let go, in commit order.
    for (job, id) in jobs.iter().zip(&ids) {
        if id.is_some() {
            after_commit(sinks, &job.commit, *id);
        }
    }
    drop(queue);
    Ok(ids)
}

/// The in-memory half of a committed move: the slot holds the new game, its deadline is
/// scheduled, and its waiters are woken with the state rendered once.
fn after_commit(sinks: &Sinks, c: &MoveCommit, event_id: Option<i64>) {
    let live = &c.live;
    c.slot.install(live.clone());
    let g = &live.game;
    sinks.scheduler.set(&g.set_id, g.game_no, g.deadline_ms());
    let snapshot = live.snapshot.clone();
    let events = event_id
        .map(|id| LiveEvent {
            id,
            bot: c.write.event_bot.clone(),
            set_id: g.set_id.clone(),
            game_no: Some(g.game_no),
            kind: "state",
            payload: Arc::from(c.write.event_payload.as_str()),
            state: Some(snapshot.clone()),
        })
        .into_iter()
        .collect();
    let change = Arc::new(Change {
        set_id: g.set_id.clone(),
        game_no: Some(g.game_no),
        bots: g.seats.to_vec(),
        state: Some(snapshot),
        events,
        max_event_id: event_id.unwrap_or(0),
        resync: false,
        remote_listed: false,
    });
    sinks.waiters.wake(&change);
    let _ = sinks.changes.send(change);
}
