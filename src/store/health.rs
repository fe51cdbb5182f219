//! Whether the database takes writes (SPEC section 12; `docs/fair-time.md`).
//!
//! "Storage down" means: a write failed for a reason of the storage itself, not of the
//! request ([`is_storage_error`]: disk full, I/O error, read-only or unopenable file, lost
//! connection). From the first such failure every write is refused at once with 503
//! `storage_unavailable` (no hang, no half-written state), the clocks' timeouts stop firing,
//! and `/healthz` answers 503. The heartbeat loop probes with a real write (backing off, at
//! most [`PROBE_MAX`] apart); the first probe that commits also credits the outage to every
//! running turn and clears the state (`scheduler::recover_storage`).
//!
//! A process that stood still (stopped by a signal, a paused container or virtual machine,
//! starved of CPU) is an outage of the same kind: its clock ran on while it could take no
//! move, so the time is credited as a storage outage's is ([`Health::watch_stalls`]).

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

/// Longest pause between two recovery probes while storage is down.
pub const PROBE_MAX: Duration = Duration::from_secs(1);

/// No outage: the value of `down_since_ms` while writes succeed.
const UP: i64 = i64::MIN;

/// How often the stall watch's thread marks that the process runs ([`Health::watch_stalls`]).
pub const STALL_TICK: Duration = Duration::from_millis(100);

/// A gap this long between two marks of the stall watch is a stall: the process (or the whole
/// machine) stood still, not a thread woken a little late.
pub const STALL_MIN: Duration = Duration::from_millis(1_500);

/// Monotonic milliseconds since the first call (the stall watch's own clock: the arena's may
/// be injected, and a stall is a fact of this process's real time).
fn mono_ms() -> i64 {
    static BASE: OnceLock<Instant> = OnceLock::new();
    let base = *BASE.get_or_init(Instant::now);
    i64::try_from(base.elapsed().as_millis()).unwrap_or(i64::MAX)
}

/// A clock read by the store: milliseconds since the Unix epoch, UTC (the arena passes its
/// injected clock; see `arena::clock::TimeSource`).
pub type NowMs = Arc<dyn Fn() -> i64 + Send + Sync>;

/// The storage's state, shared by every clone of a [`super::Store`].
pub struct Health {
    /// ms since epoch (injected clock) of the first failed write of the current outage.
    down_since_ms: AtomicI64,
    /// The first error of the current outage, for `/healthz` and the log.
    cause: Mutex<String>,
    time: OnceLock<NowMs>,
    /// Set by a graceful stop: writes are refused from the stop moment on.
    stopping: AtomicBool,
    /// ms since epoch (injected clock) of the last heartbeat the database answered, or
    /// [`UP`] before the first: where an outage of a lost database begins.
    last_answer_ms: AtomicI64,
    /// [`mono_ms`] of the stall watch's last mark, or [`UP`] while nothing watches.
    alive_mono_ms: AtomicI64,
    /// The current outage is a stall of the process, not a failing storage.
    stalled: AtomicBool,
    /// Held while an outage starts or ends ([`Health::start`], [`Health::recovered`]).
    changing: Mutex<()>,
}

impl Default for Health {
    fn default() -> Self {
        Health {
            down_since_ms: AtomicI64::new(UP),
            cause: Mutex::new(String::new()),
            time: OnceLock::new(),
            stopping: AtomicBool::new(false),
            last_answer_ms: AtomicI64::new(UP),
            alive_mono_ms: AtomicI64::new(UP),
            stalled: AtomicBool::new(false),
            changing: Mutex::new(()),
        }
    }
}

impl Health {
    /// Uses the arena's (injected) clock for the outage's times; set once, at start.
    pub fn use_time(&self, now_ms: NowMs) {
        let _ = self.time.set(now_ms);
    }

    /// The injected clock, or the wall clock before one is set.
    fn now_ms(&self) -> i64 {
        self.time
            .get()
            .map_or_else(|| chrono::Utc::now().timestamp_millis(), |now| now())
    }

    /// When the current outage began (ms since epoch), or None while storage is up.
    pub fn down_since_ms(&self) -> Option<i64> {
        let v = self.down_since_ms.load(Ordering::Acquire);
        (v != UP).then_some(v)
    }

    /// Whether writes are refused now because storage is failing (or the process stood still:
    /// looked at first, so that no move is charged and no deadline fires across a stall that
    /// nothing has noticed yet).
    pub fn is_down(&self) -> bool {
        self.notice_stall();
        self.down_since_ms().is_some()
    }

    /// Starts a thread that marks every [`STALL_TICK`] that the process runs, and notices a
    /// stall when a mark comes [`STALL_MIN`] or more after the one before. Whoever notices it
    /// first (this thread, or [`Health::is_down`] asked by a request or the scheduler when the
    /// process runs again) starts an outage at the last mark: writes are refused with 503
    /// `storage_unavailable`, deadlines are held, and the recovery probe credits the stall to
    /// the running turns (`scheduler::recover_storage`). The thread ends with the last
    /// [`Arc`] of this `Health`. A second call does nothing.
    pub fn watch_stalls(self: &Arc<Self>) {
        if self
            .alive_mono_ms
            .compare_exchange(UP, mono_ms(), Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return;
        }
        let weak: Weak<Health> = Arc::downgrade(self);
        let spawned = std::thread::Builder::new()
            .name("stall-watch".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(STALL_TICK);
                    let Some(h) = weak.upgrade() else { return };
                    // One reading per tick, for the check and the mark alike: a stop between
                    // a check and a later reading would hide the stall.
                    h.mark(mono_ms(), true);
                }
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "no stall watch: a paused process would charge its pause");
        }
    }

    /// Starts an outage at the last mark if the process stood still since (see
    /// [`Health::watch_stalls`]). The outage starts before the mark moves, so whoever sees the
    /// moved mark sees the outage too (a timeout checked between the two fired across a stall
    /// on a loaded machine).
    fn notice_stall(&self) {
        self.mark(mono_ms(), false);
    }

    /// The stall watch's step at `now` ([`mono_ms`]): notices a stall since the last mark as
    /// [`Health::notice_stall`] does, and moves the mark to `now` when there was one or when
    /// `advance` (the watch's own tick). A mark moved meanwhile by another caller is read
    /// again; a mark never moves back.
    fn mark(&self, now: i64, advance: bool) {
        loop {
            let last = self.alive_mono_ms.load(Ordering::Acquire);
            if last == UP || now <= last {
                return;
            }
            let gap = now - last;
            let stalled = gap >= STALL_MIN.as_millis() as i64;
            if stalled {
                let why = format!(
                    "the arena's process stood still for {gap} ms (stopped, paused, or starved of CPU)"
                );
                let e = sqlx::Error::Io(std::io::Error::other(why));
                self.start(&e, self.now_ms() - gap, true);
            } else if !advance {
                return;
            }
            if self
                .alive_mono_ms
                .compare_exchange(last, now, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return;
            }
        }
    }

    /// Whether the current outage is a stall of the process rather than a failing storage.
    pub fn is_stall(&self) -> bool {
        self.is_down() && self.stalled.load(Ordering::Acquire)
    }

    /// From now on writes are refused (a graceful stop: the arena stopped serving, and what
    /// would be written during the drain would start turns after the stop moment).
    pub fn refuse_writes(&self) {
        self.stopping.store(true, Ordering::Release);
    }

    /// The refusal of a write now (storage down or stopping), or None.
    pub fn write_refusal(&self) -> Option<sqlx::Error> {
        if self.stopping.load(Ordering::Acquire) {
            // Answered 503 `unavailable`: retry after the restart.
            return Some(sqlx::Error::PoolClosed);
        }
        self.is_down().then(|| self.refusal())
    }

    /// The first error of the current outage ("" while up).
    pub fn cause(&self) -> String {
        self.cause.lock().map(|c| c.clone()).unwrap_or_default()
    }

    /// Records that the database answered a heartbeat written at `at_ms` (injected clock).
    pub fn answered(&self, at_ms: i64) {
        self.last_answer_ms.fetch_max(at_ms, Ordering::AcqRel);
    }

    /// When the database last answered a heartbeat (ms since epoch, injected clock), if ever.
    pub fn last_answer_ms(&self) -> Option<i64> {
        let v = self.last_answer_ms.load(Ordering::Acquire);
        (v != UP).then_some(v)
    }

    /// Where an outage of a database that stopped answering begins: the last heartbeat it
    /// answered (it may have gone any time after), else now. Never later than now.
    fn last_answer_or_now(&self) -> i64 {
        let now = self.now_ms();
        match self.last_answer_ms.load(Ordering::Acquire) {
            UP => now,
            t => t.min(now),
        }
    }

    /// Records a failed write; an error of the storage starts an outage (logged once, here)
    /// at now. Returns whether `e` is such an error.
    pub fn failed(&self, e: &sqlx::Error) -> bool {
        if !is_storage_error(e) {
            return false;
        }
        self.start(e, self.now_ms(), false);
        true
    }

    /// Records a failure of a database reached over the network (PostgreSQL): a lost
    /// connection ([`is_connection_loss`]) means the database stopped answering at some point
    /// since the last answered heartbeat, so the outage starts there; other storage errors
    /// as [`Health::failed`]. Returns whether `e` is a storage error.
    pub fn failed_remote(&self, e: &sqlx::Error) -> bool {
        if is_connection_loss(e) {
            self.start(e, self.last_answer_or_now(), false);
            return true;
        }
        self.failed(e)
    }

    /// The database cannot be reached at all (a pool timeout and a fresh connection refused
    /// or timed out, `Store::reachable`): an outage from the last answered heartbeat.
    pub fn unreachable(&self, why: &str) {
        let e = sqlx::Error::Io(std::io::Error::other(format!(
            "the database cannot be reached: {why}"
        )));
        self.start(&e, self.last_answer_or_now(), false);
    }

    /// Starts an outage at `now` unless one is under way; `stall` says it is a stall of the
    /// process ([`Health::is_stall`]). Returns whether this one started.
    fn start(&self, e: &sqlx::Error, now: i64, stall: bool) -> bool {
        if self.down_since_ms().is_some() {
            return false; // every failed write of an outage comes here: no lock for them
        }
        // Outages start and end one at a time, and an outage's kind is set before it is
        // seen: a write that sees a stall's outage sees its flag and waits for its credit
        // (when the flag came after, or two noticers of one stall raced, it was refused and
        // its retry charged; a reviewer found the race).
        let _one = self.changing.lock().unwrap_or_else(|p| p.into_inner());
        if self.down_since_ms().is_some() {
            return false;
        }
        self.stalled.store(stall, Ordering::Release);
        if let Ok(mut c) = self.cause.lock() {
            // A stall is said as it is (not as an error of the database) on `/healthz` and
            // in the 503.
            *c = match e {
                sqlx::Error::Io(io) if stall => io.to_string(),
                _ => e.to_string(),
            };
        }
        self.down_since_ms.store(now, Ordering::Release);
        tracing::error!(error = %e, "outage: writes are refused and clocks are held until a write succeeds and credits it");
        true
    }

    /// Ends the outage (a probe committed); returns its length, ms, if there was one.
    pub fn recovered(&self) -> Option<i64> {
        let _one = self.changing.lock().unwrap_or_else(|p| p.into_inner());
        let since = self.down_since_ms.swap(UP, Ordering::AcqRel);
        self.stalled.store(false, Ordering::Release);
        (since != UP).then(|| {
            let ms = (self.now_ms() - since).max(0);
            tracing::warn!(outage_ms = ms, "storage is back: writes accepted again");
            ms
        })
    }

    /// The error a write gets while storage is down (maps to 503 `storage_unavailable`).
    pub fn refusal(&self) -> sqlx::Error {
        sqlx::Error::Io(std::io::Error::other(format!(
            "storage unavailable since a write failed: {}",
            self.cause()
        )))
    }
}

/// Whether a failed statement shows the connection to a database server lost (I/O or TLS
/// error, PostgreSQL class `08`, a server shutting down `57P0x`), not a refusal of the write.
pub fn is_connection_loss(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_) | sqlx::Error::Tls(_) => true,
        sqlx::Error::Database(db) => {
            let code = db.code().unwrap_or_default();
            code.starts_with("08") || code.starts_with("57P0")
        }
        _ => false,
    }
}

/// Whether a failed statement shows the storage failing (the outage rule of the module docs)
/// rather than the request: I/O errors, a full disk, a read-only or unopenable database file,
/// a lost PostgreSQL connection or an out-of-resources server. Busy/locked and pool timeouts
/// are load, not outages (503 `unavailable`): a pool timeout is an outage only when a fresh
/// connection cannot be opened either ([`Health::unreachable`]); constraint errors are the
/// request's.
pub fn is_storage_error(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_) | sqlx::Error::Tls(_) | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => {
            let code = db.code().unwrap_or_default();
            let msg = db.message().to_ascii_lowercase();
            // SQLite primary result codes live in the low byte of the extended code.
            let sqlite = code.parse::<i64>().ok().map(|c| c & 0xff);
            matches!(sqlite, Some(8 | 10 | 13 | 14))
                || msg.contains("disk is full")
                || msg.contains("disk i/o error")
                || msg.contains("readonly database")
                // PostgreSQL: 53 insufficient resources, 58 system error, 08 connection,
                // 57P0x shutting down, 25006 read-only transaction; and what only a new
                // connection meets: 55000 the database not accepting connections (stop 35's
                // breaker, F4: it was a 500), 3D000 the database gone, 28xxx logins refused.
                || ["53", "58", "08", "57P0", "28"].iter().any(|p| code.starts_with(p))
                || code == "25006"
                || code == "3D000"
                || (code == "55000" && msg.contains("not currently accepting connections"))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::clock::{FakeTime, TimeSource};

    #[test]
    fn an_io_error_starts_one_outage_that_a_recovery_measures_on_the_injected_clock() {
        let h = Health::default();
        let t = Arc::new(FakeTime::new(1_000));
        let clock = t.clone();
        h.use_time(Arc::new(move || clock.now_ms()));
        assert!(!h.failed(&sqlx::Error::RowNotFound), "not a storage error");
        assert!(!h.is_down());
        assert!(h.failed(&sqlx::Error::Io(std::io::Error::other("disk full"))));
        t.advance(500);
        assert!(h.failed(&sqlx::Error::Io(std::io::Error::other("again"))));
        assert_eq!(
            h.down_since_ms(),
            Some(1_000),
            "the first failure starts it"
        );
        assert!(h.cause().contains("disk full"));
        t.advance(1_500);
        assert_eq!(h.recovered(), Some(2_000));
        assert_eq!(h.recovered(), None);
        assert!(!h.is_down());
    }

    #[test]
    fn a_stall_is_a_stall_from_the_moment_its_outage_starts() {
        // A write that saw the outage before its stall flag was refused at once and its retry
        // charged a second (a CI run): the flag must be up whenever the outage is seen.
        let h = Arc::new(Health::default());
        let t = Arc::new(FakeTime::new(0));
        let clock = t.clone();
        h.use_time(Arc::new(move || clock.now_ms()));
        let done = Arc::new(AtomicBool::new(false));
        let seen_bare = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let watcher = {
            let (h, done, seen_bare) = (h.clone(), done.clone(), seen_bare.clone());
            std::thread::spawn(move || {
                while !done.load(Ordering::Acquire) {
                    // The same outage (each starts at a time of its own) before and after
                    // the flag's reading.
                    let before = h.down_since_ms();
                    let stall = h.stalled.load(Ordering::Acquire);
                    if before.is_some() && before == h.down_since_ms() && !stall {
                        seen_bare.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        };
        for _ in 0..200_000 {
            // A mark two seconds old: the process "stood still" since.
            t.advance(10_000);
            h.alive_mono_ms.store(mono_ms() - 2_000, Ordering::Release);
            assert!(h.is_down(), "the stall is noticed");
            assert!(h.is_stall());
            assert!(h.cause().contains("stood still"), "{}", h.cause());
            h.recovered();
        }
        done.store(true, Ordering::Release);
        watcher.join().expect("watcher");
        assert_eq!(
            seen_bare.load(Ordering::Relaxed),
            0,
            "an outage seen without its stall flag"
        );
    }

    #[test]
    fn a_stall_noticed_during_an_outage_of_the_storage_leaves_it_one() {
        let h = Health::default();
        assert!(h.failed(&sqlx::Error::Io(std::io::Error::other("disk full"))));
        h.alive_mono_ms.store(mono_ms() - 2_000, Ordering::Release);
        assert!(h.is_down());
        assert!(!h.is_stall(), "the storage's outage is not a stall's");
        assert!(h.cause().contains("disk full"), "{}", h.cause());
    }

    #[test]
    fn two_noticers_of_one_stall_and_a_recovery_never_leave_a_stall_without_its_flag() {
        // The watch and a request notice one stall at once, or a stall is noticed while a
        // recovery ends the last outage: the outage left must be a stall's (a reviewer found
        // a noticer that lost the race lowering the flag of the one that won).
        let h = Arc::new(Health::default());
        let rounds = 60_000;
        let go = Arc::new(std::sync::Barrier::new(3));
        let e = || sqlx::Error::Io(std::io::Error::other("stood still"));
        let worker = |recover_too: bool| {
            let (h, go) = (h.clone(), go.clone());
            std::thread::spawn(move || {
                for round in 0..rounds {
                    go.wait();
                    if recover_too && round % 2 == 1 {
                        h.recovered();
                    } else {
                        h.start(&e(), 1_000, true);
                    }
                    go.wait();
                }
            })
        };
        let (a, b) = (worker(false), worker(true));
        let mut bare = 0;
        for round in 0..rounds {
            if round % 2 == 0 {
                h.recovered();
            }
            go.wait();
            go.wait();
            if h.down_since_ms().is_some() && !h.stalled.load(Ordering::Acquire) {
                bare += 1;
            }
        }
        a.join().expect("a");
        b.join().expect("b");
        assert_eq!(bare, 0, "stall outages left without their flag");
    }
}
