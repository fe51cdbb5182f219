//! Several instances over one PostgreSQL database acting as one arena (SPEC sections 12, 13;
//! `docs/multi-instance.md`).
//!
//! - Wake-ups are pushed: every committed change is announced by a small [`Notice`], sent with
//!   `pg_notify` right after its commit by this instance's [`Notifier`] (batched; not inside
//!   the transaction, where PostgreSQL would hold its single notification-queue lock through
//!   the commit, serializing the commits of every instance). If an instance dies between a
//!   commit and its notice, the others see its heartbeat stop and resync (below). Each
//!   instance holds one listening connection; on a notice from another
//!   instance it refreshes its copy of the game once (from the row, rendered once), schedules
//!   the game's deadline and broadcasts the [`Change`] locally, so its long-polls and streams
//!   wake without a query of their own.
//! - A lost listening connection is re-opened; the instance then catches up from the database:
//!   its copies are checked again on next read and every waiter re-reads once (a `resync`).
//! - Streams read events only up to the committed [`Watermark`], so no event id is passed
//!   while it may still commit; no lock is shared by the instances.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Notify, mpsc, watch};

use super::{Arena, Change};
use crate::store::StoreError;
use crate::store::events;
use crate::store::notify::{self, Notice};
use crate::store::{Backend, Store};

/// Pause before opening the listening connection again after losing it.
const RECONNECT_PAUSE: Duration = Duration::from_millis(100);
/// How often the watermark re-checks a transaction still running.
const WATERMARK_POLL_MS: u64 = 1;
/// Longest a stream waits for the watermark to pass an event it was told of.
pub const WATERMARK_WAIT: Duration = Duration::from_secs(5);

/// The committed event-id watermark of this instance (see [`events::committed_watermark`]).
/// Computed on demand by one task per instance, never per stream; on SQLite (one writer,
/// commits in id order) every stored id is committed and the watermark is `i64::MAX`.
pub struct Watermark {
    value: watch::Sender<i64>,
    wanted: Notify,
    backend: Backend,
}

impl Watermark {
    pub fn new(backend: Backend) -> Watermark {
        let start = if backend == Backend::Sqlite {
            i64::MAX
        } else {
            0
        };
        Watermark {
            value: watch::Sender::new(start),
            wanted: Notify::new(),
            backend,
        }
    }

    /// The watermark as last computed.
    pub fn current(&self) -> i64 {
        *self.value.borrow()
    }

    /// Asks the watermark task to compute the watermark again (after a resync).
    pub fn refresh(&self) {
        self.wanted.notify_one();
    }

    /// Waits until the watermark reaches `event_id` (asking the task to compute it), at most
    /// [`WATERMARK_WAIT`]; returns the watermark then.
    pub async fn reach(&self, event_id: i64) -> i64 {
        if self.current() >= event_id {
            return self.current();
        }
        let mut rx = self.value.subscribe();
        self.wanted.notify_one();
        let _ = tokio::time::timeout(WATERMARK_WAIT, rx.wait_for(|w| *w >= event_id)).await;
        self.current()
    }

    /// A watermark computed now (a stream's starting point): every event committed before
    /// this call is at or below it.
    pub async fn fresh(&self, store: &Store) -> Result<i64, StoreError> {
        if self.backend == Backend::Sqlite {
            let mut c = store.conn().await?;
            return events::last_id(&mut c).await;
        }
        let mut c = store.conn().await?;
        let w = events::committed_watermark(&mut c, WATERMARK_POLL_MS).await?;
        self.value.send_if_modified(|v| {
            let newer = w > *v;
            *v = (*v).max(w);
            newer
        });
        Ok(w)
    }

    /// Computes the watermark whenever a stream asks for more (PostgreSQL).
    pub async fn run(arena: Arc<Arena>) {
        loop {
            arena.watermark.wanted.notified().await;
            if let Err(e) = arena.watermark.fresh(&arena.store).await {
                tracing::warn!(error = %e, "event watermark failed");
                tokio::time::sleep(RECONNECT_PAUSE).await;
                arena.watermark.wanted.notify_one();
            }
        }
    }
}

/// Most notices sent in one round by the notifier.
const NOTICE_BATCH: usize = 512;
/// Attempts to send a round of notices before giving up on it (the others then rely on their
/// next resync).
const NOTICE_ATTEMPTS: usize = 20;

/// How long a check that found no other live instance lets this instance leave its notices
/// out ([`Peers`]): two heartbeat periods, so one late check costs nothing.
pub const LONE_VALID: Duration = Duration::from_millis(2_000);
/// How long an instance that finds others alive at start-up waits before it reads or serves
/// anything: past the longest time any of them may still be leaving its notices out
/// ([`LONE_VALID`]), with half a second to spare for a slow look or a late timer.
pub const JOIN_WAIT: Duration = Duration::from_millis(2_500);

/// Whether another instance may be listening (PostgreSQL; issue 22). A lone instance leaves
/// its change notices out: nobody would hear them but itself, and each costs a transaction of
/// the database's. It may do so only while its last check of the `instances` table, started
/// less than [`LONE_VALID`] ago, found no other live instance; once it sees one it sends every
/// notice until it stops (never lone again: an instance whose heartbeat is only late must not
/// be left unwarned). An instance that joins, seeing others alive (or alive moments ago), waits
/// [`JOIN_WAIT`] with its own row kept fresh before it reads anything ([`join`]): by then every
/// change they left out committed before its first read, and every later one is announced.
/// See `docs/multi-instance.md`.
pub struct Peers {
    /// The monotonic origin of `lone_until_ms`.
    base: std::time::Instant,
    /// Another instance was seen alive (latched).
    shared: std::sync::atomic::AtomicBool,
    /// Until when (ms after `base`) notices may be left out; 0: never.
    lone_until_ms: std::sync::atomic::AtomicU64,
}

impl Peers {
    fn new() -> Peers {
        Peers {
            base: std::time::Instant::now(),
            shared: std::sync::atomic::AtomicBool::new(false),
            lone_until_ms: std::sync::atomic::AtomicU64::new(0),
        }
    }

    fn since_base_ms(&self, at: std::time::Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.base).as_millis()).unwrap_or(u64::MAX)
    }

    /// Whether a notice of a change committed before now may be left out.
    pub fn lone(&self) -> bool {
        use std::sync::atomic::Ordering::SeqCst;
        !self.shared.load(SeqCst)
            && self.since_base_ms(std::time::Instant::now()) < self.lone_until_ms.load(SeqCst)
    }

    /// A check of the instances started at `checked_at` found no other live instance.
    pub fn saw_none(&self, checked_at: std::time::Instant) {
        let until = self
            .since_base_ms(checked_at)
            .saturating_add(LONE_VALID.as_millis() as u64);
        self.lone_until_ms
            .fetch_max(until, std::sync::atomic::Ordering::SeqCst);
    }

    /// A check found another live instance; true the first time (notices were perhaps left
    /// out until now).
    pub fn saw_others(&self) -> bool {
        !self.shared.swap(true, std::sync::atomic::Ordering::SeqCst)
    }
}

/// Sends this instance's notices after their commits (PostgreSQL; a no-op on SQLite), unless
/// it is alone ([`Peers`]).
#[derive(Clone)]
pub struct Notifier {
    queue: Option<mpsc::UnboundedSender<Notice>>,
    /// Who may be listening.
    pub peers: Arc<Peers>,
    left_out: Arc<dyn Fn(usize) + Send + Sync>,
}

impl Notifier {
    /// Starts the notifier task on PostgreSQL (must run inside the Tokio runtime);
    /// `left_out` counts the notices left out by a lone instance.
    pub fn start(store: &Store, left_out: Arc<dyn Fn(usize) + Send + Sync>) -> Notifier {
        let queue = (store.backend == Backend::Postgres).then(|| {
            let (tx, rx) = mpsc::unbounded_channel();
            tokio::spawn(send_notices(store.clone(), rx));
            tx
        });
        Notifier {
            queue,
            peers: Arc::new(Peers::new()),
            left_out,
        }
    }

    /// Whether the notices of `n` committed changes are to be built and sent: on PostgreSQL,
    /// unless this instance is alone (then they are counted as left out).
    pub fn wants(&self, n: usize) -> bool {
        if self.queue.is_none() {
            return false;
        }
        if self.peers.lone() {
            (self.left_out)(n);
            return false;
        }
        true
    }

    /// Queues notices of committed changes (called after their commit), or leaves them out
    /// while this instance is alone.
    pub fn send(&self, notices: Vec<Notice>) {
        if let Some(q) = &self.queue {
            if self.peers.lone() {
                (self.left_out)(notices.len());
                return;
            }
            for n in notices {
                let _ = q.send(n);
            }
        }
    }

    /// Queues a notice whatever [`Peers`] says (the one that tells the others to catch up).
    fn send_always(&self, notice: Notice) {
        if let Some(q) = &self.queue {
            let _ = q.send(notice);
        }
    }
}

/// A heartbeat write that took longer than this (it waited behind a lock, or the database was
/// slow) may have stored a time already old when it committed: [`join`] writes it again.
const BEAT_LATE: Duration = Duration::from_millis(500);
/// How often [`join`] renews this instance's heartbeat while it waits (the scheduler's own
/// heartbeat starts only after it).
const JOIN_BEAT_EVERY: Duration = Duration::from_millis(500);
/// Another instance whose heartbeat is younger than this may be alive with its heartbeat held
/// up (the same lock or slow database that held up this one's, say), so [`join`] waits for it
/// too, as for a live one, before deciding whether this instance is alone.
const JOIN_RECENT_MS: i64 = 10_000;
/// Most times [`join`] writes its heartbeat before it goes on regardless (a database that
/// slow is the heartbeat's and the recovery's business, not the join's).
const JOIN_BEATS_MAX: usize = 40;

/// Writes this instance's heartbeat; true if the write took at most [`BEAT_LATE`] (so the
/// stored time was recent when it committed).
async fn beat_in_time(arena: &Arena) -> Result<bool, StoreError> {
    let started = std::time::Instant::now();
    let _gate = arena.beat_gate().await.ok_or(StoreError::PoolClosed)?;
    let at = arena.now_ms();
    let mut c = arena.store.conn().await?;
    crate::store::instances::beat(&mut c, &arena.instance_id, at).await?;
    Ok(started.elapsed() <= BEAT_LATE)
}

/// At start-up, after this instance's row is written (`scheduler::recover`) and before it
/// reads or serves anything (PostgreSQL; see [`Peers`]):
/// 1. its heartbeat is written again until a write is quick, so its row looks alive to every
///    other instance's next look (the row `recover` wrote may have waited behind a lock and
///    carry a time already stale);
/// 2. if another instance is alive, or was less than [`JOIN_RECENT_MS`] ago (its heartbeat
///    may be held up), and `arena_was_down` is false, it waits [`JOIN_WAIT`], renewing its
///    heartbeat every [`JOIN_BEAT_EVERY`] and starting the wait again after a slow write: by
///    its end every other instance has seen this one, or let its window to leave notices out
///    lapse;
/// 3. it then sends every notice from now on if another instance is alive, or may leave them
///    out until its next look if none is.
///
/// `arena_was_down`: recovery found no instance alive (their heartbeats stood still) and
/// credited the downtime to the running turns up to its own start; a wait here would be
/// downtime it did not credit, and the recent rows are those of stopped instances (a quick
/// restart). Errors: writing the heartbeat or reading the instances.
pub async fn join(arena: &Arena, arena_was_down: bool) -> Result<(), StoreError> {
    if arena.store.backend != Backend::Postgres {
        return Ok(());
    }
    let mut beats = 0;
    while !beat_in_time(arena).await? && beats < JOIN_BEATS_MAX {
        beats += 1;
    }
    let recent = super::scheduler::others_seen_within(arena, JOIN_RECENT_MS)
        .await?
        .len();
    if recent > 0 && !arena_was_down {
        tracing::info!(
            others = recent,
            wait_ms = JOIN_WAIT.as_millis() as u64,
            "other instances ran moments ago; waiting until each has seen this one"
        );
        let mut since = tokio::time::Instant::now();
        while since.elapsed() < JOIN_WAIT {
            tokio::time::sleep(JOIN_BEAT_EVERY.min(JOIN_WAIT.saturating_sub(since.elapsed())))
                .await;
            if !beat_in_time(arena).await? && beats < JOIN_BEATS_MAX {
                // This row may have looked dead meanwhile: a look that missed it may still
                // let its instance leave notices out for LONE_VALID.
                beats += 1;
                since = tokio::time::Instant::now();
            }
        }
    }
    let checked_at = std::time::Instant::now();
    if super::scheduler::others_alive(arena).await?.is_empty() {
        arena.notifier.peers.saw_none(checked_at);
    } else {
        arena.notifier.peers.saw_others();
    }
    Ok(())
}

/// How often a lone instance looks at the `instances` table for others ([`watch_peers`]).
const PEERS_EVERY: Duration = Duration::from_millis(1_000);

/// Looks for other live instances every [`PEERS_EVERY`] until one is seen (PostgreSQL): while
/// none is, this instance may leave its notices out until [`LONE_VALID`] after the look
/// began; the first one seen makes it send every notice from now on, and first a notice that
/// makes the others catch up from the database (they may have missed what it left out: an
/// instance back from a pause long enough to be counted dead). A look that fails lets the
/// window lapse, so notices are sent.
pub async fn watch_peers(arena: Arc<Arena>) {
    let mut tick = tokio::time::interval(PEERS_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if arena.is_stopping() {
            return;
        }
        let checked_at = std::time::Instant::now();
        match super::scheduler::others_alive(&arena).await {
            Ok(others) if others.is_empty() => arena.notifier.peers.saw_none(checked_at),
            Ok(_) => {
                if arena.notifier.peers.saw_others() {
                    tracing::info!("another instance is running: announcing every change");
                    arena.notifier.send_always(Notice {
                        origin: arena.store.instance_id.to_string(),
                        catch_up: true,
                        ..Notice::default()
                    });
                }
                return;
            }
            // The heartbeat reports the database's trouble; here the window just lapses.
            Err(_) => {}
        }
    }
}

async fn send_notices(store: Store, mut rx: mpsc::UnboundedReceiver<Notice>) {
    let mut batch = Vec::with_capacity(NOTICE_BATCH);
    while let Some(first) = rx.recv().await {
        batch.push(first);
        while batch.len() < NOTICE_BATCH {
            match rx.try_recv() {
                Ok(n) => batch.push(n),
                Err(_) => break,
            }
        }
        for attempt in 1..=NOTICE_ATTEMPTS {
            let sent = async {
                let mut c = store.conn().await?;
                notify::send(&mut c, &batch).await
            };
            match sent.await {
                Ok(()) => break,
                Err(e) => {
                    tracing::warn!(error = %e, attempt, "sending change notices failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
        batch.clear();
    }
}

/// Listens for other instances' changes until the process ends (PostgreSQL), re-opening the
/// connection when it is lost and catching up after each (re)connection.
pub async fn listen(arena: Arc<Arena>) {
    let url = arena.store.url.to_string();
    loop {
        let mut listener = match notify::subscribe(&url).await {
            Ok(l) => l,
            Err(e) => {
                tracing::warn!(error = %e, "change listener cannot connect or LISTEN; retrying");
                tokio::time::sleep(RECONNECT_PAUSE).await;
                continue;
            }
        };
        arena.metrics.listener_connected();
        // Anything committed while no connection listened is read from the database now.
        super::scheduler::resync(&arena);
        loop {
            match listener.try_recv().await {
                Ok(Some(n)) => match notify::parse(n.payload()) {
                    Ok(notices) => {
                        for notice in notices {
                            on_notice(&arena, notice).await;
                        }
                    }
                    Err(e) => tracing::warn!(error = %e, "unreadable change notice"),
                },
                Ok(None) => break,
                Err(e) => {
                    tracing::warn!(error = %e, "change listener lost its connection");
                    break;
                }
            }
        }
        tokio::time::sleep(RECONNECT_PAUSE).await;
    }
}

/// Another instance's change: refresh the game held here once, schedule its deadline, and
/// wake the local waiters with the state rendered once.
async fn on_notice(arena: &Arc<Arena>, n: Notice) {
    if n.origin == *arena.store.instance_id {
        return; // this instance applied it already
    }
    arena.metrics.notice_received();
    if n.catch_up {
        tracing::info!("another instance may have left changes unannounced; catching up");
        super::scheduler::resync(arena);
        return;
    }
    if let Some((bot_id, hash)) = n.revoked {
        arena.forget_bot_tokens(&bot_id);
        let _ = arena.revoked_tokens.send(hash.into());
        return;
    }
    let mut state = None;
    if let (Some(game_no), Some(version)) = (n.game_no, n.version) {
        arena.scheduler.set(&n.set_id, game_no, n.deadline_ms);
        if let Some(slot) = arena.live.existing(&n.set_id, game_no) {
            match arena.live_game_at(slot, &n.set_id, game_no, version).await {
                Ok((_, l)) => state = Some(l.snapshot.clone()),
                Err(e) => tracing::warn!(error = %e, "refreshing a game failed"),
            }
        }
    }
    if n.max_event_id > arena.watermark.current() {
        arena.watermark.wanted.notify_one();
    }
    arena.publish(Change {
        set_id: n.set_id,
        game_no: n.game_no,
        bots: n.bots,
        state,
        max_event_id: n.max_event_id,
        remote_listed: n.listed,
        ..Change::default()
    });
}

/// The notices of a transaction's changes (sent in it, PostgreSQL only).
pub fn notices(
    origin: &str,
    changes: &[Change],
    deadlines: &[(String, i64, Option<i64>)],
    max_event_id: i64,
) -> Vec<Notice> {
    changes
        .iter()
        .map(|c| {
            let deadline_ms = c.game_no.and_then(|g| {
                deadlines
                    .iter()
                    .rev()
                    .find(|(s, n, _)| *s == c.set_id && *n == g)
                    .and_then(|d| d.2)
            });
            Notice {
                origin: origin.to_string(),
                set_id: c.set_id.clone(),
                game_no: c.game_no,
                version: c.state.as_ref().map(|s| s.version),
                deadline_ms,
                bots: c.bots.clone(),
                max_event_id,
                listed: c.listed(),
                revoked: None,
                catch_up: false,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instance_leaves_notices_out_only_after_a_fresh_check_and_never_once_it_saw_another() {
        let p = Peers::new();
        assert!(!p.lone(), "no check yet: every notice is sent");
        p.saw_none(std::time::Instant::now());
        assert!(p.lone(), "a check just now found nobody");
        // A check that began more than LONE_VALID ago no longer counts (a paused or slow
        // instance sends): an instance started 5 s ago whose last look began 3 s ago.
        let now = std::time::Instant::now();
        let (Some(started), Some(looked)) = (
            now.checked_sub(Duration::from_secs(5)),
            now.checked_sub(Duration::from_secs(3)),
        ) else {
            return; // a monotonic clock younger than 5 s: nothing to test against
        };
        let old = Peers {
            base: started,
            ..Peers::new()
        };
        old.saw_none(looked);
        assert!(!old.lone());
        old.saw_none(std::time::Instant::now());
        assert!(old.lone(), "a fresh look counts again");
        // Seeing another instance latches: later checks that find nobody change nothing.
        assert!(p.saw_others(), "the first sighting is reported");
        assert!(!p.saw_others(), "only the first");
        p.saw_none(std::time::Instant::now());
        assert!(!p.lone());
    }
}
