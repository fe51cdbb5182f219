//! The house bots' thinking pool (issue 11): a fixed number of plain OS threads (never the
//! async runtime's threads, never an unbounded `spawn_blocking`) that run the searches of every
//! game where a house bot is on move.
//!
//! - Jobs wait in one queue ordered earliest due first. A move is due when its seat's clock
//!   plan says it should be answered: queued at + the thinking time its clock affords it
//!   alone ([`hex_search::ladder::think_time_ms`]), and never later than [`PRIORITY_WITHIN_MS`]
//!   before its flag. So a seat with plenty of time does not wait behind every seat with less
//!   until its own clock runs low (plain earliest-flag-first would burn its clock in the
//!   queue), and a seat near its flag goes ahead of everyone, earliest flag first.
//! - A job's thinking time is fixed when a worker takes it, from that seat's clock as it is
//!   then (the wait already counted) and from the load: with more jobs thinking or waiting
//!   than there are workers, each gets a proportional share ([`super::think::budget`]); a seat
//!   near its flag plays a cheap move at once.
//! - Every move also costs its clock time that is not thinking (the queue, the commit, the
//!   scheduling): the driver measures it after each stored move ([`Pool::record_overhead`])
//!   and every budget keeps it back for the moves still possible ([`super::think::plannable_ms`]).
//! - When a move costs its clock more in the queue than the clock can pay for the moves still
//!   expected (the pool's moving average of wait + think), moves are played cheap until the
//!   rounds shorten ([`super::think::behind_the_clock`]).
//! - A running search also ends early when the queue's head must start now (its flag is
//!   within [`URGENT_MARGIN_MS`]) and every worker is busy, or when the load has grown so that
//!   its proportional share is used up: it answers with what it has (an analysis of
//!   house-master's Hex knowledge it may be in ends within a few ms too).
//!
//! The pool only thinks; the caller plays the move through the normal move path.

use std::cmp::Ordering as CmpOrdering;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use hex::{Move, Position};
use hex_search::ladder::Rung;
use rand_core::SeedableRng;
use tokio::sync::oneshot;

use super::think::{self, Budget};
use crate::metrics::PoolStats;

/// A queued move must start this long (ms) before its flag: when the head of the queue gets
/// this close and all workers are busy, the running searches stop and answer.
pub const URGENT_MARGIN_MS: u64 = 400;
/// A move this close to its flag (ms) is due at once: it goes ahead of every move with more
/// time, earliest flag first (what is left must pay for the wait, the search and the store).
pub const PRIORITY_WITHIN_MS: u64 = 1_000;

/// The per-move overhead assumed before any move was measured, ms.
pub const OVERHEAD_PRIOR_MS: f64 = 20.0;
/// Weight of a new measure in the overhead's moving average when it is above the average
/// (the cost of a burst is felt at once) and when it is below (it is forgotten slowly).
const OVERHEAD_RISE: f64 = 0.3;
const OVERHEAD_FALL: f64 = 0.05;

/// One move to think: the position, who thinks, and that seat's clock.
#[derive(Debug, Clone)]
pub struct Job {
    /// The position, the house bot on move.
    pub position: Position,
    /// The rung of the house bot on move.
    pub rung: &'static Rung,
    /// When the seat loses on time if it has not moved (its clock's deadline).
    pub flag_at: Instant,
    /// For a first move (free: the clock is not charged, the deadline is the first-move
    /// limit) the clock's remaining time, ms, which caps the thinking as if it were charged.
    pub clock_cap_ms: Option<u64>,
    /// The seat's Fischer increment, ms.
    pub increment_ms: u64,
    /// Seeds the search's random numbers.
    pub seed: u64,
}

/// A job's answer and what it cost.
#[derive(Debug, Clone)]
pub struct Thought {
    /// The move (None when the game is over or the search failed).
    pub mv: Option<Move>,
    /// What the search knew of the move (its win rate, line and playouts), shown with the move
    /// as a bot's `Hexarena-Info` would be; None for a move chosen without a search.
    pub info: Option<hex_search::SearchInfo>,
    /// Time spent in the queue, ms.
    pub waited_ms: u64,
    /// Time spent thinking, ms.
    pub thought_ms: u64,
    /// The budget the job was given.
    pub budget: Budget,
    /// Playouts run.
    pub playouts: u32,
    /// Jobs thinking or waiting when it started (itself included).
    pub load: usize,
    /// Time left before the flag when the answer was ready, ms (negative: past it).
    pub margin_ms: i64,
    /// Whether a search ran with Hex knowledge ([`think::knows`]).
    pub knowledge: bool,
}

#[derive(Default)]
struct Counters {
    jobs: AtomicU64,
    cheap: AtomicU64,
    knowledge: AtomicU64,
    max_wait_ms: AtomicU64,
    max_wait_clock_ms: AtomicU64,
    total_wait_ms: AtomicU64,
    max_think_ms: AtomicU64,
    total_think_ms: AtomicU64,
    min_margin_ms: std::sync::atomic::AtomicI64,
    min_stored_margin_ms: std::sync::atomic::AtomicI64,
    max_overhead_ms: AtomicU64,
    /// µs after the pool's epoch of the last cheap move, plus 1 (0: none yet).
    last_cheap_us: AtomicU64,
}

struct Entry {
    /// The queue's key: when the move is due (see the module's notes).
    due_at: Instant,
    /// When the seat loses on time (for the urgent check).
    flag_at: Instant,
    seq: u64,
    queued_at: Instant,
    job: Job,
    reply: oneshot::Sender<Thought>,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == CmpOrdering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<CmpOrdering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// Reversed, so the max-heap pops the earliest due (then the oldest job) first.
    fn cmp(&self, other: &Self) -> CmpOrdering {
        (other.due_at, other.seq).cmp(&(self.due_at, self.seq))
    }
}

#[derive(Default)]
struct Queue {
    heap: BinaryHeap<Entry>,
    running: usize,
    seq: u64,
    closed: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
    epoch: Instant,
    /// µs after `epoch` from which a waiting move is urgent (`u64::MAX`: none is).
    urgent_at_us: AtomicU64,
    /// Jobs waiting or being thought now.
    jobs: AtomicUsize,
    /// What a move has recently cost its clock in the pool (wait + think), ms, as the bits of
    /// an `f64` moving average.
    move_cost_ms: AtomicU64,
    /// What a move has recently cost its clock besides thinking (from its clock's start to
    /// its commit, less its thinking time), ms, as the bits of an `f64` moving average that
    /// rises fast and falls slowly ([`Pool::record_overhead`]).
    overhead_ms: AtomicU64,
    threads: usize,
    counters: Counters,
}

impl Shared {
    fn overhead_ms(&self) -> u64 {
        f64::from_bits(self.overhead_ms.load(Ordering::Relaxed)).max(0.0) as u64
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn us_since_epoch(&self, t: Instant) -> u64 {
        u64::try_from(t.saturating_duration_since(self.epoch).as_micros()).unwrap_or(u64::MAX)
    }

    /// Recomputes when the earliest flag among the waiting moves becomes urgent (call with
    /// the queue locked; a scan of the queue). Only when every worker is busy can a running
    /// search be asked to make room.
    fn set_urgent(&self, q: &Queue) {
        self.jobs.store(q.heap.len() + q.running, Ordering::Relaxed);
        let earliest = if q.running >= self.threads {
            q.heap.iter().map(|e| e.flag_at).min()
        } else {
            None
        };
        let at = earliest.map_or(u64::MAX, |f| {
            self.us_since_epoch(
                f.checked_sub(Duration::from_millis(URGENT_MARGIN_MS))
                    .unwrap_or(self.epoch),
            )
        });
        self.urgent_at_us.store(at, Ordering::Relaxed);
    }

    fn urgent_now(&self) -> bool {
        self.us_since_epoch(Instant::now()) >= self.urgent_at_us.load(Ordering::Relaxed)
    }
}

/// The thinking pool. Dropping it lets its threads end once the queue is empty.
pub struct Pool {
    shared: Arc<Shared>,
}

impl Pool {
    /// Starts `threads` worker threads (at least 1).
    ///
    /// Errors: the operating system refused a thread.
    pub fn start(threads: usize) -> std::io::Result<Pool> {
        let threads = threads.max(1);
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::default()),
            ready: Condvar::new(),
            epoch: Instant::now(),
            urgent_at_us: AtomicU64::new(u64::MAX),
            jobs: AtomicUsize::new(0),
            move_cost_ms: AtomicU64::new(0f64.to_bits()),
            overhead_ms: AtomicU64::new(OVERHEAD_PRIOR_MS.to_bits()),
            threads,
            counters: Counters {
                min_margin_ms: std::sync::atomic::AtomicI64::new(i64::MAX),
                min_stored_margin_ms: std::sync::atomic::AtomicI64::new(i64::MAX),
                ..Counters::default()
            },
        });
        for i in 0..threads {
            let s = shared.clone();
            std::thread::Builder::new()
                .name(format!("house-think-{i}"))
                .spawn(move || work(&s))?;
        }
        Ok(Pool { shared })
    }

    /// Worker threads.
    pub fn threads(&self) -> usize {
        self.shared.threads
    }

    /// Queues a job; its answer comes on the returned channel (closed without an answer only
    /// if the search panicked or the pool is shutting down).
    pub fn think(&self, job: Job) -> oneshot::Receiver<Thought> {
        let (reply, rx) = oneshot::channel();
        let now = Instant::now();
        // Due when the seat's clock plan (alone on the pool) says it should be answered.
        let plan_ms = think::budget(
            job.rung,
            job.position.size(),
            time_left_ms(&job, now),
            job.increment_ms,
            think::empty_cells(&job.position),
            self.overhead_ms(),
            1,
            1,
        )
        .think_ms;
        let due_at = job
            .flag_at
            .checked_sub(Duration::from_millis(PRIORITY_WITHIN_MS))
            .unwrap_or(now)
            .min(now + Duration::from_millis(plan_ms));
        let mut q = self.shared.lock();
        q.seq += 1;
        let seq = q.seq;
        q.heap.push(Entry {
            due_at,
            flag_at: job.flag_at,
            seq,
            queued_at: now,
            job,
            reply,
        });
        self.shared.set_urgent(&q);
        drop(q);
        self.shared.ready.notify_one();
        rx
    }

    /// Jobs waiting and jobs being thought now.
    pub fn load(&self) -> (usize, usize) {
        let q = self.shared.lock();
        (q.heap.len(), q.running)
    }

    /// What a house move has recently cost its clock besides thinking, ms (the moving
    /// average [`Pool::record_overhead`] keeps; [`OVERHEAD_PRIOR_MS`] before any measure).
    pub fn overhead_ms(&self) -> u64 {
        self.shared.overhead_ms()
    }

    /// Records what one move on the clock cost its seat besides thinking, ms: from the
    /// clock's start to the move's commit, less the thinking time (the queue, the commit, the
    /// scheduling); and the time that was left on that clock when it was stored, ms (negative:
    /// past the flag).
    pub fn record_overhead(&self, overhead_ms: u64, stored_margin_ms: i64) {
        let sample = overhead_ms as f64;
        let old = f64::from_bits(self.shared.overhead_ms.load(Ordering::Relaxed));
        let a = if sample > old {
            OVERHEAD_RISE
        } else {
            OVERHEAD_FALL
        };
        let new = (1.0 - a) * old + a * sample;
        self.shared
            .overhead_ms
            .store(new.to_bits(), Ordering::Relaxed);
        let c = &self.shared.counters;
        c.max_overhead_ms.fetch_max(overhead_ms, Ordering::Relaxed);
        c.min_stored_margin_ms
            .fetch_min(stored_margin_ms, Ordering::Relaxed);
    }

    /// Whether a move was played cheap within the last `d`.
    pub fn cheap_within(&self, d: Duration) -> bool {
        let last = self.shared.counters.last_cheap_us.load(Ordering::Relaxed);
        last > 0 && {
            let now = self.shared.us_since_epoch(Instant::now()) + 1;
            now.saturating_sub(last) <= u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
        }
    }

    /// The pool's figures so far.
    pub fn stats(&self) -> PoolStats {
        let c = &self.shared.counters;
        PoolStats {
            threads: self.shared.threads,
            jobs: c.jobs.load(Ordering::Relaxed),
            cheap: c.cheap.load(Ordering::Relaxed),
            knowledge: c.knowledge.load(Ordering::Relaxed),
            max_wait_ms: c.max_wait_ms.load(Ordering::Relaxed),
            max_wait_clock_ms: c.max_wait_clock_ms.load(Ordering::Relaxed),
            total_wait_ms: c.total_wait_ms.load(Ordering::Relaxed),
            max_think_ms: c.max_think_ms.load(Ordering::Relaxed),
            total_think_ms: c.total_think_ms.load(Ordering::Relaxed),
            min_margin_ms: c.min_margin_ms.load(Ordering::Relaxed),
            min_stored_margin_ms: c.min_stored_margin_ms.load(Ordering::Relaxed),
            overhead_ms: self.shared.overhead_ms(),
            max_overhead_ms: c.max_overhead_ms.load(Ordering::Relaxed),
            queued: self.shared.lock().heap.len(),
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.ready.notify_all();
    }
}

/// A worker: takes the earliest flag, thinks, answers, until the pool is dropped.
fn work(shared: &Shared) {
    loop {
        let (entry, load) = {
            let mut q = shared.lock();
            loop {
                if let Some(e) = q.heap.pop() {
                    q.running += 1;
                    let load = q.heap.len() + q.running;
                    shared.set_urgent(&q);
                    break (e, load);
                }
                if q.closed {
                    return;
                }
                q = shared.ready.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        let Entry {
            job,
            reply,
            queued_at,
            ..
        } = entry;
        let thought = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run(shared, &job, queued_at, load)
        }));
        {
            let mut q = shared.lock();
            q.running -= 1;
            shared.set_urgent(&q);
        }
        match thought {
            Ok(t) => {
                record(&shared.counters, &t, job.clock_cap_ms.is_none());
                if job.clock_cap_ms.is_none() {
                    let cost = (t.waited_ms + t.thought_ms) as f64;
                    let old = f64::from_bits(shared.move_cost_ms.load(Ordering::Relaxed));
                    let new = 0.9 * old + 0.1 * cost;
                    shared.move_cost_ms.store(new.to_bits(), Ordering::Relaxed);
                }
                if t.budget.cheap {
                    let now = shared.us_since_epoch(Instant::now()) + 1;
                    shared.counters.last_cheap_us.store(now, Ordering::Relaxed);
                }
                let _ = reply.send(t);
            }
            Err(_) => tracing::error!("a house search panicked; its move is not answered"),
        }
    }
}

fn run(shared: &Shared, job: &Job, queued_at: Instant, load: usize) -> Thought {
    let started = Instant::now();
    let waited = started.saturating_duration_since(queued_at);
    let time_left_ms = time_left_ms(job, started);
    // A free first move is not charged: no overhead to keep back for it, but the rest of
    // the game's still is (the clock's remaining time caps it).
    let overhead_ms = shared.overhead_ms();
    let budget_at = |jobs: usize| {
        think::budget(
            job.rung,
            job.position.size(),
            time_left_ms,
            job.increment_ms,
            think::empty_cells(&job.position),
            overhead_ms,
            shared.threads,
            jobs,
        )
    };
    let mut b = budget_at(load);
    // On a crowded or starved machine every move costs its clock the queue's round whatever
    // it thinks: when the moves still expected would not fit at that cost, think no more than
    // a cheap move (the rounds then shorten and the clock keeps its reserve).
    let move_cost_ms = f64::from_bits(shared.move_cost_ms.load(Ordering::Relaxed)) as u64;
    if !b.cheap
        && b.max_playouts > 0
        && think::behind_the_clock(
            move_cost_ms,
            time_left_ms,
            think::empty_cells(&job.position),
        )
    {
        b = Budget {
            think_ms: b.think_ms.min(think::MIN_SLICE_MS),
            max_playouts: b.max_playouts.min(think::CHEAP_PLAYOUTS),
            cheap: true,
        };
    }
    // The whole clock's share (an idle pool), to shrink the slice if the load grows later.
    let idle_ms = budget_at(shared.threads).think_ms;
    let mut rng = rand_pcg::Pcg64::seed_from_u64(job.seed);
    let (mv, playouts, info) =
        think::choose_reported(&job.position, job.rung, b, started, &mut rng, &|| {
            if b.cheap {
                return false;
            }
            if shared.urgent_now() {
                return true;
            }
            let (num, den) = think::load_share(shared.threads, shared.jobs.load(Ordering::Relaxed));
            let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
            elapsed_ms.saturating_mul(den) >= idle_ms.saturating_mul(num)
        });
    let done = Instant::now();
    let margin_ms = if done <= job.flag_at {
        i64::try_from(job.flag_at.duration_since(done).as_millis()).unwrap_or(i64::MAX)
    } else {
        -i64::try_from(done.duration_since(job.flag_at).as_millis()).unwrap_or(i64::MAX)
    };
    Thought {
        mv,
        info,
        waited_ms: u64::try_from(waited.as_millis()).unwrap_or(u64::MAX),
        thought_ms: u64::try_from(done.duration_since(started).as_millis()).unwrap_or(u64::MAX),
        budget: b,
        playouts,
        load,
        margin_ms,
        // Moves made without a search (a win at once, a forced block) used no knowledge.
        knowledge: playouts > 0 && think::knows(job.rung, job.position.size(), b),
    }
}

/// The time `job`'s seat may still spend at `now`, ms: until its flag, and for a free first
/// move no more than its clock's remaining time.
fn time_left_ms(job: &Job, now: Instant) -> u64 {
    let flag_left_ms =
        u64::try_from(job.flag_at.saturating_duration_since(now).as_millis()).unwrap_or(0);
    job.clock_cap_ms
        .map_or(flag_left_ms, |c| c.min(flag_left_ms))
}

fn record(c: &Counters, t: &Thought, on_the_clock: bool) {
    if on_the_clock {
        c.max_wait_clock_ms
            .fetch_max(t.waited_ms, Ordering::Relaxed);
    }
    c.jobs.fetch_add(1, Ordering::Relaxed);
    if t.budget.cheap {
        c.cheap.fetch_add(1, Ordering::Relaxed);
    }
    if t.knowledge {
        c.knowledge.fetch_add(1, Ordering::Relaxed);
    }
    c.max_wait_ms.fetch_max(t.waited_ms, Ordering::Relaxed);
    c.total_wait_ms.fetch_add(t.waited_ms, Ordering::Relaxed);
    c.max_think_ms.fetch_max(t.thought_ms, Ordering::Relaxed);
    c.total_think_ms.fetch_add(t.thought_ms, Ordering::Relaxed);
    c.min_margin_ms.fetch_min(t.margin_ms, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use hex_search::ladder::rung;

    fn job(flag_in_ms: u64, seed: u64) -> Job {
        let opening = [hex::Cell::new(5, 5), hex::Cell::new(4, 6)];
        Job {
            position: Position::with_opening(11, &opening).expect("two stones"),
            rung: rung("house-master").expect("on the ladder"),
            flag_at: Instant::now() + Duration::from_millis(flag_in_ms),
            clock_cap_ms: None,
            increment_ms: 0,
            seed,
        }
    }

    #[tokio::test]
    async fn jobs_are_answered_within_their_clock_and_the_pool_counts_them() {
        let pool = Pool::start(2).expect("threads");
        let rxs: Vec<_> = (0..6).map(|i| pool.think(job(2_000, i))).collect();
        for rx in rxs {
            let t = rx.await.expect("answered");
            assert!(t.mv.is_some());
            assert!(t.margin_ms > 0, "{t:?}");
            // 2 s on an 11x11 board with 2 stones: at most a quarter of the usable time.
            assert!(t.budget.think_ms <= 450, "{t:?}");
        }
        let s = pool.stats();
        assert_eq!((s.jobs, s.threads, s.queued), (6, 2, 0));
        assert!(s.min_margin_ms > 0);
    }

    #[tokio::test]
    async fn a_move_near_its_flag_is_played_cheap_and_remembered() {
        let pool = Pool::start(1).expect("thread");
        assert!(!pool.cheap_within(Duration::from_secs(10)));
        let t = pool.think(job(200, 3)).await.expect("answered");
        assert!(t.budget.cheap && t.mv.is_some(), "{t:?}");
        assert!(t.playouts <= think::CHEAP_PLAYOUTS, "{t:?}");
        assert!(pool.cheap_within(Duration::from_secs(10)));
        assert_eq!(pool.stats().cheap, 1);
    }

    #[tokio::test]
    async fn a_long_think_shrinks_to_its_share_when_more_moves_arrive() {
        let pool = Pool::start(1).expect("thread");
        // 60 s on the clock: alone, up to about 1.5 s of thinking.
        let long = pool.think(job(60_000, 1));
        std::thread::sleep(Duration::from_millis(30));
        let others: Vec<_> = (0..9).map(|i| pool.think(job(60_000, 10 + i))).collect();
        let l = long.await.expect("answered");
        // Ten moves on one worker: a tenth of the clock's share each.
        assert!(l.thought_ms < 600, "{l:?}");
        for rx in others {
            let t = rx.await.expect("answered");
            assert!(t.margin_ms > 50_000, "{t:?}");
        }
    }

    #[tokio::test]
    async fn the_earliest_flag_is_thought_first_and_interrupts_long_thinks() {
        let pool = Pool::start(1).expect("thread");
        // A long think (60 s on the clock: up to MAX_THINK_MS), then a seat 400 ms from its
        // flag: the long search makes room, the urgent move is answered in time.
        let mut long = job(60_000, 1);
        long.clock_cap_ms = Some(60_000);
        let long = pool.think(long);
        std::thread::sleep(Duration::from_millis(50));
        let urgent = pool.think(job(400, 2));
        let t = urgent.await.expect("answered");
        assert!(t.margin_ms > 0, "{t:?}");
        let l = long.await.expect("answered");
        assert!(l.thought_ms < 1_000, "the long think was cut short: {l:?}");
    }
}
