//! The product's logic: accounts, sets, games, clocks, scoring, stakes, ratings and the house
//! bots, over the store, with time injected. One move travels one way: the API parses and
//! authenticates, [`Arena::play_move`] locks the game row, asks the engine, applies the clock,
//! stores the move, settles if the set ended, commits, then wakes whoever waits.

pub mod accepts;
pub mod accounts;
pub mod analysis;
pub mod backoff;
pub mod clock;
pub mod cluster;
pub mod commit;
pub mod elo_stats;
pub mod error;
pub mod feeds;
pub mod finisher;
pub mod game;
pub mod glicko;
pub mod house;
pub mod hygiene;
pub mod info;
pub mod live;
pub mod matches;
pub mod matchmaking;
pub mod options;
pub mod pairing;
pub mod play;
pub mod pool;
pub mod presence;
pub mod profiles;
pub mod ratings;
pub mod review;
pub mod scheduler;
pub mod scoring;
pub mod sets;
pub mod sgf;
pub mod standings;
pub mod tournaments;
pub mod versions;
pub mod views;
pub mod waiters;

/// The status enums of sets, games and tournaments (pure data), for the HTTP edge.
pub use crate::store::status;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::broadcast;

use crate::store::Conn;
use crate::store::{Store, accounts as acc};
use clock::TimeSource;
use error::{ArenaError, ArenaResult};
use scheduler::Scheduler;

/// Settings of the arena's rules that an operator may change.
#[derive(Debug, Clone)]
pub struct ArenaConfig {
    /// PTS granted to each new player (SPEC 3).
    pub starting_balance: i64,
    /// Fee on a set's pot, basis points (SPEC 8).
    pub fee_bps: i64,
    /// SHA-256 (hex) of the operator token; operator endpoints are off when None.
    pub operator_token_hash: Option<String>,
    /// Open challenges older than this (ms) are closed as `expired`; None: never.
    pub challenge_ttl_ms: Option<i64>,
    /// How long a bot stays online after its last stream or long-poll, ms (SPEC 14; 60 000
    /// unless a test shortens it).
    pub presence_window_ms: i64,
    /// The analysis of finished games (issue 21).
    pub analysis: analysis::AnalysisConfig,
    /// Most pool sets between one pair of bots in any hour (issue 20; `arena::pool`).
    pub pool_pair_sets_per_hour: i64,
}

/// Something changed: wakes long-polls and streams of this set's game and of these bots.
/// Broadcast as an `Arc`, so a wake-up costs every waiter a pointer, not a copy.
#[derive(Debug, Default)]
pub struct Change {
    pub set_id: String,
    pub game_no: Option<i64>,
    pub bots: Vec<String>,
    /// The game's state after the change, rendered once (None for set-level changes).
    pub state: Option<Arc<live::Snapshot>>,
    /// The stream events the change stored, in id order. On SQLite every change is broadcast
    /// in commit order, so a stream that saw every change has seen every event.
    pub events: Vec<LiveEvent>,
    /// The highest event id stored by the transaction that made the change (0 when none): on
    /// PostgreSQL a stream woken by it reads the database once the watermark reaches it.
    pub max_event_id: i64,
    /// Wakes every waiter to re-read from the database (after the change listener of this
    /// instance lost its connection and some notices may have been missed).
    pub resync: bool,
    /// Another instance's change that the public lists care about ([`Change::listed`]); its
    /// events are not held here, so they cannot tell.
    pub remote_listed: bool,
}

impl Change {
    /// Whether the public lists (lobby, active and finished sets, leaderboard) care: a
    /// set-level change, or a game change that is more than a new state (a start or an end).
    pub fn listed(&self) -> bool {
        self.remote_listed
            || (!self.resync
                && (self.game_no.is_none() || self.events.iter().any(|e| e.kind != "state")))
    }
}

/// The broadcast of committed changes, in commit order, on two channels: every change (the
/// streams, the house bots), and only the changes the lists and the background drivers act on
/// (set-level changes, resyncs, and [`Change::listed`]), so that a move wakes none of the tasks
/// that would only ignore it (issue 22: the pool, the tournament driver, the analyst and each
/// open public stream woke on every move).
#[derive(Clone)]
pub struct Changes {
    every: broadcast::Sender<Arc<Change>>,
    listed: broadcast::Sender<Arc<Change>>,
}

impl Changes {
    /// Both channels, each holding up to `capacity` changes for a slow receiver (which then
    /// hears `Lagged`).
    pub fn new(capacity: usize) -> Changes {
        Changes {
            every: broadcast::channel(capacity).0,
            listed: broadcast::channel(capacity).0,
        }
    }

    /// Sends `change` to every change's receivers and, when the lists care, to theirs.
    /// Nobody listening is fine.
    pub fn send(&self, change: Arc<Change>) {
        if change.game_no.is_none() || change.resync || change.listed() {
            let _ = self.listed.send(change.clone());
        }
        let _ = self.every.send(change);
    }

    /// A receiver of every change.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Change>> {
        self.every.subscribe()
    }

    /// A receiver of the set-level changes, the resyncs and the changes [`Change::listed`].
    pub fn subscribe_listed(&self) -> broadcast::Receiver<Arc<Change>> {
        self.listed.subscribe()
    }
}

/// A stored stream event as held in memory: its row plus, for game states, the rendering.
#[derive(Debug, Clone)]
pub struct LiveEvent {
    pub id: i64,
    /// Audience: a bot id, [`crate::store::events::LOBBY`], or None (the game's public stream).
    pub bot: Option<String>,
    pub set_id: String,
    pub game_no: Option<i64>,
    pub kind: &'static str,
    /// The stored payload (for game states, the small `{"ply": K}` marker).
    pub payload: Arc<str>,
    pub state: Option<Arc<live::Snapshot>>,
}

/// A game: (set_id, game_no).
pub type GameKey = (String, i64);

/// The arena: shared by every handler, the scheduler and the house bots.
pub struct Arena {
    pub store: Store,
    /// The injected clock corrected toward the database's (`clock`): what every judgment uses.
    pub time: Arc<dyn TimeSource>,
    /// The same clock with its measured offset and whether it is trusted (SPEC 12).
    pub clock: Arc<clock::SyncedTime>,
    pub config: ArenaConfig,
    pub changes: Changes,
    /// Long-polls by game and bot: a change wakes only its own (see [`waiters`]).
    pub waiters: Arc<waiters::Waiters>,
    pub scheduler: Arc<Scheduler>,
    /// Games held in memory (see [`live`]).
    pub live: Arc<live::Live>,
    /// Stores moves (group commit on SQLite).
    pub writer: commit::Writer,
    /// Who holds a stream or long-poll on this instance (SPEC 14).
    pub presence: presence::Presence,
    /// Wakes the presence writer when a bot comes online.
    presence_wake: tokio::sync::Notify,
    /// Wakes the tournament driver (a set finished, a tournament changed).
    pub tournament_wake: tokio::sync::Notify,
    /// Wakes the matchmaking pool's pass (a bot joined; see [`pool`]).
    pub pool_wake: tokio::sync::Notify,
    /// Bot id -> name (names never change).
    names: Mutex<HashMap<String, String>>,
    /// Token hash -> bot, for authentication without a query. A bot's id, name, owner and
    /// `max_stake` never change; other columns must be read fresh.
    bot_tokens: Mutex<HashMap<String, acc::BotRow>>,
    /// Bumped (under `bot_tokens`' lock) whenever remembered tokens are forgotten: a lookup
    /// that read the database before a revocation must not remember what it read after it.
    bot_tokens_epoch: std::sync::atomic::AtomicU64,
    /// This process's id in the `instances` table.
    pub instance_id: String,
    /// Operational metrics (`GET /metrics`); the move path records into it.
    pub metrics: Arc<crate::metrics::Metrics>,
    /// Event ids known committed (streams read no further; see [`cluster`]).
    pub watermark: cluster::Watermark,
    /// Announces committed changes to the other instances (PostgreSQL).
    pub notifier: cluster::Notifier,
    /// Gathers the state GETs' checks of held games against their rows (PostgreSQL).
    pub versions: versions::VersionChecks,
    /// The house bots of this process, once started (see [`house::spawn`]).
    pub house: std::sync::OnceLock<Arc<house::House>>,
    /// Set once a stop signal came: the arena no longer serves (see [`Arena::stop_serving`]).
    stopping: tokio::sync::watch::Sender<bool>,
    /// Held by each write of this instance's own `instances` row (see [`Arena::beat_gate`]).
    beat_gate: tokio::sync::Mutex<()>,
    /// Other instances alive at the scheduler's last look (PostgreSQL; 0 on SQLite): whether a
    /// storage outage of this instance holds the arena's clocks ([`Arena::clock_view_ms`]).
    others_alive: std::sync::atomic::AtomicUsize,
    /// The storage outage's credit committed; the recovery is finishing (the rows are shifted,
    /// so the clocks shown run again: [`Arena::clock_view_ms`]).
    outage_credited: std::sync::atomic::AtomicBool,
    /// Token hashes revoked by a rotation (issue 20): the streams they opened end.
    pub revoked_tokens: broadcast::Sender<Arc<str>>,
}

/// Most token hashes remembered (a bound against a flood of distinct valid tokens).
const TOKENS_MAX: usize = 100_000;

impl Arena {
    pub fn new(store: Store, time: Arc<dyn TimeSource>, config: ArenaConfig) -> Arc<Arena> {
        let changes = Changes::new(4096);
        let instance_id = store.instance_id.to_string();
        let watermark = cluster::Watermark::new(store.backend);
        let versions = versions::VersionChecks::start(&store);
        let scheduler = Arc::new(Scheduler::default());
        let waiters = Arc::new(waiters::Waiters::default());
        let metrics = Arc::new(crate::metrics::Metrics::new());
        let counted = metrics.clone();
        let notifier =
            cluster::Notifier::start(&store, Arc::new(move |n| counted.notices_left_out(n)));
        let live = Arc::new(live::Live::default());
        let presence = presence::Presence::new(config.presence_window_ms);
        let clock = Arc::new(clock::SyncedTime::new(time));
        let time: Arc<dyn TimeSource> = clock.clone();
        let health_time = time.clone();
        store
            .health
            .use_time(Arc::new(move || health_time.now_ms()));
        let writer = commit::Writer::start(
            store.clone(),
            commit::Sinks {
                scheduler: scheduler.clone(),
                changes: changes.clone(),
                waiters: waiters.clone(),
                metrics: metrics.clone(),
                notifier: notifier.clone(),
                live: live.clone(),
                origin: store.instance_id.clone(),
            },
        );
        Arc::new(Arena {
            store,
            time,
            clock,
            config,
            changes,
            waiters,
            scheduler,
            live,
            writer,
            presence,
            presence_wake: tokio::sync::Notify::new(),
            tournament_wake: tokio::sync::Notify::new(),
            pool_wake: tokio::sync::Notify::new(),
            names: Mutex::new(HashMap::new()),
            bot_tokens: Mutex::new(HashMap::new()),
            bot_tokens_epoch: std::sync::atomic::AtomicU64::new(0),
            instance_id,
            metrics,
            watermark,
            notifier,
            versions,
            house: std::sync::OnceLock::new(),
            stopping: tokio::sync::watch::Sender::new(false),
            beat_gate: tokio::sync::Mutex::new(()),
            others_alive: std::sync::atomic::AtomicUsize::new(0),
            outage_credited: std::sync::atomic::AtomicBool::new(false),
            revoked_tokens: broadcast::channel(64).0,
        })
    }

    /// The moment a game's clock is shown at (`clock.remaining_ms`, `server_time`): now, or
    /// while this instance refuses writes for a storage outage or an untrusted clock and no
    /// other instance was alive at its last look, when the refusal began: none of that time
    /// will be charged (SPEC 7, `docs/fair-time.md`), so a bot reading its clock meanwhile
    /// sees the time it will have, not a clock running out. Once the credit is committed
    /// (the rows moved) the clocks run again.
    pub fn clock_view_ms(&self) -> i64 {
        use std::sync::atomic::Ordering;
        let now = self.now_ms();
        if self.others_alive.load(Ordering::Relaxed) > 0 {
            return now;
        }
        let outage = self
            .store
            .health
            .down_since_ms()
            .filter(|_| !self.outage_credited.load(Ordering::Acquire));
        outage
            .into_iter()
            .chain(self.clock.owed_since_ms())
            .fold(now, i64::min)
    }

    /// Marks the storage outage's credit committed (`true`) or the outage over (`false`).
    pub(crate) fn outage_credited(&self, done: bool) {
        self.outage_credited
            .store(done, std::sync::atomic::Ordering::Release);
    }

    /// How many other instances the scheduler found alive at its last look (PostgreSQL; the
    /// look before an outage while this instance is in one).
    pub fn others_alive_count(&self) -> usize {
        self.others_alive.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Waits, at most `max`, for a stall of this process to be credited (the recovery probe
    /// runs at once when the process runs again); whether writes are served now. A request
    /// that finds the arena stalled waits for it rather than answering 503: its retry a
    /// second later would be charged that second (a reviewer found it).
    pub async fn stall_credited_within(&self, max: std::time::Duration) -> bool {
        let until = tokio::time::Instant::now() + max;
        while self.store.health.is_stall() {
            if tokio::time::Instant::now() >= until {
                return false;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        self.writes_ok().is_ok()
    }

    /// Records how many other instances the scheduler found alive (PostgreSQL).
    pub(crate) fn set_others_alive(&self, n: usize) {
        self.others_alive
            .store(n, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether this instance is stopping (a stop signal came; it drains its connections).
    pub fn is_stopping(&self) -> bool {
        *self.stopping.borrow()
    }

    /// The right to write this instance's own `instances` row (heartbeat, `serving_ms`), held
    /// until the write commits; `None` once the arena is stopping. Every such write takes it,
    /// so the final heartbeat of [`Arena::stop_serving`] is the last one: a write already under
    /// way commits before it, and a later one finds the arena stopping and writes nothing (a
    /// heartbeat that read the clock before the stop and reached the database after it would
    /// otherwise move the stop moment back, and the next start credit the wrong downtime).
    /// Public for the grey-box tests.
    #[doc(hidden)]
    pub async fn beat_gate(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        let gate = self.beat_gate.lock().await;
        (!self.is_stopping()).then_some(gate)
    }

    /// Resolves once this instance is stopping (event streams and long-polls end on it).
    pub async fn stopped(&self) {
        let mut rx = self.stopping.subscribe();
        let _ = rx.wait_for(|s| *s).await;
    }

    /// The first step of a graceful stop (SPEC 7; `docs/fair-time.md`), before the drain:
    /// the scheduler of this instance fires no more timeouts, writes are refused (503
    /// `unavailable`), its heartbeat is written one last time at this moment and then no
    /// more, and event streams and long-polls end. The downtime the
    /// next start credits (`scheduler::recover`) so begins here, not when the process exits.
    /// A failed heartbeat write is logged; the stop goes on.
    pub async fn stop_serving(&self) {
        self.stopping.send_replace(true);
        self.store.health.refuse_writes();
        self.scheduler.wake_up();
        match scheduler::final_heartbeat(self).await {
            Ok(at_ms) => tracing::info!(at_ms, "stopping: clocks held from now; draining"),
            Err(e) => tracing::warn!(error = %e, "stopping: the final heartbeat failed"),
        }
    }

    /// Now, ms since the epoch, from the injected clock corrected toward the database's.
    pub fn now_ms(&self) -> i64 {
        self.time.now_ms()
    }

    /// Refuses a time-judged write while this instance's clock is not trusted (SPEC 12).
    ///
    /// Errors: 503 `clock_unsynced` with `Retry-After: 1`, `details.reason` saying why and
    /// `details.retry_after_s`.
    pub fn clock_ok(&self) -> ArenaResult<()> {
        match self.clock.unsynced() {
            None => Ok(()),
            Some(why) => Err(ArenaError::new(
                error::Code::ClockUnsynced,
                format!("this instance's clock is not synchronized with the database's: {why}; retry shortly"),
            )
            .with_details(serde_json::json!({
                "reason": why.to_string(),
                "retry_after_s": error::CLOCK_RETRY_S,
            }))
            .retry_after(error::CLOCK_RETRY_S)),
        }
    }

    /// Refuses a write now, before it waits for the database: storage down
    /// (`store::health`, SPEC 12), the process found to have stood still (an outage of the
    /// same kind) or the clock not trusted ([`Arena::clock_ok`]).
    ///
    /// Errors: 503 `storage_unavailable` or 503 `clock_unsynced`, each with `Retry-After`.
    pub fn writes_ok(&self) -> ArenaResult<()> {
        if self.store.health.is_down() {
            let cause = self.store.health.cause();
            if self.store.health.is_stall() {
                return Err(ArenaError::stalled(cause));
            }
            if self.others_alive_count() > 0 {
                // Another instance served at the last look: the clocks may run there.
                return Err(ArenaError::instance_cut_off(cause));
            }
            return Err(ArenaError::storage_unavailable(cause));
        }
        self.clock_ok()
    }

    /// Wakes waiters; nobody listening is fine.
    pub fn publish(&self, change: Change) {
        self.writer.publish(change);
    }

    /// The bot a token hash authenticates, remembered after the first lookup.
    pub fn cached_bot_token(&self, hash: &str) -> Option<acc::BotRow> {
        self.bot_tokens.lock().ok()?.get(hash).cloned()
    }

    /// The token cache's epoch, read before a lookup in the database (see
    /// [`Arena::remember_bot_token`]).
    pub fn bot_tokens_epoch(&self) -> u64 {
        self.bot_tokens_epoch
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// Remembers the bot of a token hash, read from the database at `epoch`; nothing when a
    /// token was revoked since (the row read may hold a token that is no longer valid).
    pub fn remember_bot_token(&self, hash: String, bot: acc::BotRow, epoch: u64) {
        if let Ok(mut m) = self.bot_tokens.lock() {
            if self.bot_tokens_epoch() != epoch {
                return;
            }
            if m.len() >= TOKENS_MAX {
                m.clear();
            }
            m.insert(hash, bot);
        }
    }

    /// Forgets every remembered token of a bot (its token was replaced): the next request
    /// with the old token reads the database and is refused.
    pub fn forget_bot_tokens(&self, bot_id: &str) {
        if let Ok(mut m) = self.bot_tokens.lock() {
            self.bot_tokens_epoch
                .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
            m.retain(|_, b| b.id != bot_id);
        }
    }

    /// Forgets every remembered token (after missed notices, see [`cluster::resync`]).
    pub fn forget_all_bot_tokens(&self) {
        if let Ok(mut m) = self.bot_tokens.lock() {
            self.bot_tokens_epoch
                .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
            m.clear();
        }
    }

    /// A bot's name by id, cached.
    pub async fn bot_name(&self, conn: &mut Conn, bot_id: &str) -> ArenaResult<String> {
        if let Some(n) = self.names.lock().ok().and_then(|m| m.get(bot_id).cloned()) {
            return Ok(n);
        }
        let bot = acc::bot_by_ref(conn, bot_id)
            .await?
            .ok_or_else(|| ArenaError::internal(format!("bot {bot_id} missing")))?;
        if let Ok(mut m) = self.names.lock() {
            m.insert(bot.id.clone(), bot.name.clone());
        }
        Ok(bot.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(kind: &'static str) -> LiveEvent {
        LiveEvent {
            id: 1,
            bot: None,
            set_id: "set_a".into(),
            game_no: Some(1),
            kind,
            payload: Arc::from("{}"),
            state: None,
        }
    }

    /// A move's new state reaches only the receivers of every change; a set-level change, a
    /// game's end and a resync reach both.
    #[test]
    fn a_move_wakes_only_the_receivers_of_every_change() {
        let changes = Changes::new(16);
        let (mut every, mut listed) = (changes.subscribe(), changes.subscribe_listed());
        let game = |kind| Change {
            set_id: "set_a".into(),
            game_no: Some(1),
            events: vec![event(kind)],
            ..Change::default()
        };
        changes.send(Arc::new(game("state")));
        changes.send(Arc::new(game("game_finished")));
        changes.send(Arc::new(Change {
            set_id: "set_b".into(),
            ..Change::default()
        }));
        changes.send(Arc::new(Change {
            game_no: Some(2),
            resync: true,
            ..Change::default()
        }));
        let kinds = |rx: &mut broadcast::Receiver<Arc<Change>>| {
            std::iter::from_fn(|| rx.try_recv().ok())
                .map(|c| (c.set_id.clone(), c.game_no, c.resync))
                .collect::<Vec<_>>()
        };
        let a = ("set_a".to_string(), Some(1), false);
        let b = ("set_b".to_string(), None, false);
        let r = (String::new(), Some(2), true);
        assert_eq!(
            kinds(&mut every),
            vec![a.clone(), a.clone(), b.clone(), r.clone()]
        );
        assert_eq!(kinds(&mut listed), vec![a, b, r]);
    }
}
