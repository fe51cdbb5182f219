//! Presence (SPEC 14, issue 12): a bot is online while it holds an event stream or a long-poll,
//! or did within the last [`ONLINE_WINDOW_MS`] (the window; shorter only in tests). Each instance keeps its own holders in memory and
//! writes `bots.last_seen_ms` at most every [`WRITE_EVERY_MS`] per bot, so every instance sharing
//! the database sees every other instance's bots. House bots play in-process and are always online.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use super::Arena;
use crate::store::presence as store;
use crate::store::{Conn, StoreResult};

/// How long a bot counts as online after its last stream or long-poll ended, ms.
pub const ONLINE_WINDOW_MS: i64 = 60_000;
/// Least time between two `last_seen_ms` writes of one bot, ms.
pub const WRITE_EVERY_MS: i64 = 10_000;

#[derive(Debug, Default, Clone, Copy)]
struct Seen {
    /// Streams and long-polls of this bot open on this instance.
    holds: usize,
    /// Last time a hold began or ended, ms.
    last_ms: i64,
    /// Last `last_seen_ms` written for this bot, ms.
    written_ms: i64,
}

/// The in-memory half of presence; see the module docs.
pub struct Presence {
    seen: Mutex<HashMap<String, Seen>>,
    /// How long a bot stays online after its last hold ended, ms.
    window_ms: i64,
}

impl Default for Presence {
    fn default() -> Self {
        Presence::new(ONLINE_WINDOW_MS)
    }
}

/// Keeps a bot online while it lives (one stream or long-poll); dropping it starts the 60 s.
pub struct PresenceGuard {
    arena: Weak<Arena>,
    bot_id: String,
}

impl Drop for PresenceGuard {
    fn drop(&mut self) {
        if let Some(arena) = self.arena.upgrade() {
            let now = arena.now_ms();
            arena.presence.update(&self.bot_id, |s| {
                s.holds = s.holds.saturating_sub(1);
                s.last_ms = now;
            });
        }
    }
}

impl Presence {
    /// Presence with an online window of `window_ms` after a bot's last hold (SPEC 14).
    #[must_use]
    pub fn new(window_ms: i64) -> Self {
        Presence {
            seen: Mutex::new(HashMap::new()),
            window_ms,
        }
    }

    /// The online window, ms.
    #[must_use]
    pub fn window_ms(&self) -> i64 {
        self.window_ms
    }

    fn update(&self, bot_id: &str, f: impl FnOnce(&mut Seen)) {
        if let Ok(mut m) = self.seen.lock() {
            f(m.entry(bot_id.to_string()).or_default());
        }
    }

    /// Whether this instance alone knows `bot_id` to be online at `now_ms`.
    #[must_use]
    pub fn online_here(&self, bot_id: &str, now_ms: i64) -> bool {
        self.seen
            .lock()
            .ok()
            .and_then(|m| m.get(bot_id).copied())
            .is_some_and(|s| s.holds > 0 || now_ms - s.last_ms <= self.window_ms)
    }

    /// Whether this instance saw `bot_id` hold a stream or long-poll, then none for longer
    /// than the online window up to `now_ms`.
    fn gone_here(&self, bot_id: &str, now_ms: i64) -> bool {
        self.seen
            .lock()
            .ok()
            .and_then(|m| m.get(bot_id).copied())
            .is_some_and(|s| s.holds == 0 && now_ms - s.last_ms > self.window_ms)
    }

    /// (bot id, last-seen ms) of every bot due a `last_seen_ms` write at `now_ms`; marks them written.
    fn due(&self, now_ms: i64) -> Vec<(String, i64)> {
        let Ok(mut m) = self.seen.lock() else {
            return vec![];
        };
        let mut out = vec![];
        m.retain(|id, s| {
            let seen = if s.holds > 0 { now_ms } else { s.last_ms };
            if seen > s.written_ms && now_ms - s.written_ms >= WRITE_EVERY_MS {
                s.written_ms = now_ms;
                out.push((id.clone(), seen));
            } else if s.holds == 0 && now_ms - s.last_ms > self.window_ms {
                return false; // long gone and written: forget it
            }
            true
        });
        out
    }
}

impl Arena {
    /// Marks `bot_id` online until the guard drops (hold it for the whole stream or long-poll).
    #[must_use]
    pub fn presence_hold(self: &Arc<Self>, bot_id: &str) -> PresenceGuard {
        let now = self.now_ms();
        self.presence.update(bot_id, |s| {
            s.holds += 1;
            s.last_ms = now;
        });
        self.wake_presence_writer();
        PresenceGuard {
            arena: Arc::downgrade(self),
            bot_id: bot_id.to_string(),
        }
    }

    /// Holds `bot_id` online until `tx`'s receiver is gone (an event stream's lifetime).
    pub fn presence_while_open<T: Send + 'static>(
        self: &Arc<Self>,
        bot_id: &str,
        tx: tokio::sync::mpsc::Sender<T>,
    ) {
        let guard = self.presence_hold(bot_id);
        let arena = self.clone();
        tokio::spawn(async move {
            // Held until the client goes, or the arena stops (this copy of the sender would
            // otherwise keep a stream open through the drain).
            tokio::select! {
                () = tx.closed() => {}
                () = arena.stopped() => {}
            }
            drop(tx);
            drop(guard);
        });
    }

    fn wake_presence_writer(&self) {
        self.presence_wake.notify_one();
    }

    /// Whether `bot_id` is online at `now_ms` (this instance's holders, then `last_seen_ms`
    /// written by any instance; house bots always). Errors: database.
    pub async fn is_online(&self, c: &mut Conn, bot_id: &str) -> StoreResult<bool> {
        let now = self.now_ms();
        if self.presence.online_here(bot_id, now) {
            return Ok(true);
        }
        store::online(c, bot_id, now - self.presence.window_ms).await
    }

    /// Whether `bot_id` was online at some moment from `since_ms` (a pairing's window start)
    /// until now: it showed up during the window (SPEC 14). Errors: database.
    pub async fn seen_since(&self, c: &mut Conn, bot_id: &str, since_ms: i64) -> StoreResult<bool> {
        if self.is_online(c, bot_id).await? {
            return Ok(true);
        }
        let here = self.presence.seen.lock().ok().and_then(|m| {
            m.get(bot_id)
                .map(|s| s.last_ms + self.presence.window_ms >= since_ms)
        });
        if here == Some(true) {
            return Ok(true);
        }
        store::online(c, bot_id, since_ms - self.presence.window_ms).await
    }

    /// Whether `bot_id` had gone away at `now_ms` (issue 18, the `offline` detail of a loss on
    /// time): it held an event stream or long-poll once, and no instance has seen one of its for
    /// the online window ([`ONLINE_WINDOW_MS`] unless configured). A bot never seen (moves only, no stream) has not gone away.
    /// Errors: database.
    pub async fn gone_away(&self, c: &mut Conn, bot_id: &str) -> StoreResult<bool> {
        let now = self.now_ms();
        if self.presence.online_here(bot_id, now) {
            return Ok(false);
        }
        let since = now - self.presence.window_ms;
        if self.presence.gone_here(bot_id, now) {
            return Ok(!store::online(c, bot_id, since).await?);
        }
        store::gone_since(c, bot_id, since).await
    }

    /// Writes the due `last_seen_ms` values now (the writer task does this every few seconds).
    pub async fn flush_presence(&self) -> StoreResult<()> {
        let due = self.presence.due(self.now_ms());
        if due.is_empty() {
            return Ok(());
        }
        let mut tx = self.store.begin_write().await?;
        for (id, at) in due {
            store::touch(&mut tx, &id, at).await?;
        }
        tx.commit().await
    }
}

/// Runs for the life of the process: writes `last_seen_ms` of bots seen on this instance.
pub async fn run(arena: Arc<Arena>) {
    let mut backoff = super::backoff::Backoff::new("presence writer", super::backoff::MAX);
    loop {
        let mut pause = Duration::from_secs(2);
        if arena.store.health.is_down() {
            // No write can succeed; the heartbeat's probe tells when storage is back.
        } else if let Err(e) = arena.flush_presence().await {
            pause = pause.max(backoff.failed(&arena.store.note(e)));
        } else {
            backoff.succeeded();
        }
        if backoff.failures() > 0 {
            // Failing: wait out the pause, not woken sooner by bots coming online.
            tokio::time::sleep(pause).await;
            continue;
        }
        tokio::select! {
            () = tokio::time::sleep(pause) => {}
            () = arena.presence_wake.notified() => {}
        }
    }
}
