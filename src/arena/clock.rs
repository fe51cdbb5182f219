//! The Fischer clock with the first-move deadline (SPEC section 7), pure: time is passed in.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};

use hex::Seat;

/// Each seat's first move of a game must arrive within this many ms of first coming on move.
pub const FIRST_MOVE_MS: i64 = 30_000;

/// Where "now" comes from, injected so that clock logic is tested without sleeping (SPEC 12).
pub trait TimeSource: Send + Sync + 'static {
    /// Milliseconds since the Unix epoch, UTC.
    fn now_ms(&self) -> i64;

    /// Whether this source follows the wall clock, so that it is corrected toward the
    /// database's clock (SPEC 12). A test's fake clock is left as it is.
    fn follows_wall_clock(&self) -> bool {
        true
    }

    /// The machine's wall clock minus this source, ms, for a source that reads the wall
    /// clock only at its start ([`SteadyTime`]); None for the others.
    fn wall_gap_ms(&self) -> Option<i64> {
        None
    }
}

/// The arena's real clock: the wall clock read once, when it is made, then advanced by the
/// machine's monotonic clock. A step of the wall clock while the arena runs (an NTP step, an
/// operator's `date -s`) moves neither a charge nor a deadline: a bot loses on time only for
/// its own slowness (SPEC 7). The monotonic clock is still slewed by NTP, so it keeps real
/// time. On PostgreSQL the database's clock corrects it (`SyncedTime`); on SQLite a stepped
/// wall clock is taken at the next start, and `TimeSource::wall_gap_ms` tells the heartbeat
/// by how much the two disagree meanwhile.
#[derive(Debug)]
pub struct SteadyTime {
    /// Wall-clock ms since the epoch at `start`.
    start_ms: i64,
    start: std::time::Instant,
}

impl SteadyTime {
    /// Starts at the wall clock's reading now.
    #[must_use]
    pub fn new() -> Self {
        Self::starting_at(chrono::Utc::now().timestamp_millis())
    }

    /// Starts at `start_ms` (ms since the epoch) and runs on the monotonic clock from there.
    #[must_use]
    pub fn starting_at(start_ms: i64) -> Self {
        SteadyTime {
            start_ms,
            start: std::time::Instant::now(),
        }
    }
}

impl Default for SteadyTime {
    fn default() -> Self {
        Self::new()
    }
}

impl TimeSource for SteadyTime {
    fn now_ms(&self) -> i64 {
        let run = i64::try_from(self.start.elapsed().as_millis()).unwrap_or(i64::MAX);
        self.start_ms.saturating_add(run)
    }

    /// The wall clock minus this clock now: how far the machine's wall clock was stepped (or
    /// drifted) since the start.
    fn wall_gap_ms(&self) -> Option<i64> {
        Some(chrono::Utc::now().timestamp_millis() - self.now_ms())
    }
}

/// A clock that only moves when told to (tests).
#[derive(Debug)]
pub struct FakeTime(AtomicI64);

impl FakeTime {
    pub fn new(start_ms: i64) -> Self {
        FakeTime(AtomicI64::new(start_ms))
    }
    pub fn advance(&self, ms: i64) {
        self.0.fetch_add(ms, Ordering::SeqCst);
    }
    pub fn set(&self, ms: i64) {
        self.0.store(ms, Ordering::SeqCst);
    }
}

impl TimeSource for FakeTime {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
    fn follows_wall_clock(&self) -> bool {
        false
    }
}

/// Largest change of the measured offset to the database's clock between two measurements
/// that is still trusted, ms (`docs/multi-instance.md`). A larger jump (the machine's clock
/// was stepped, or a measurement was wrong) stops writes until the next measurement agrees.
pub const OFFSET_JUMP_MAX_MS: i64 = 250;
/// Longest round trip of a clock measurement still trusted, ms: the offset is known to within
/// half of it.
pub const ROUND_TRIP_MAX_MS: i64 = 500;
/// How long the last trusted offset stays trusted while readings fail or are too slow, ms: a
/// machine's clock drifts by well under a millisecond in that time, and a loaded moment must
/// not stop the arena. An offset jump is never given this grace.
pub const TRUSTED_FOR_MS: i64 = 5_000;
/// Weight of a new measurement in the smoothed offset (exponential moving average).
const SMOOTHING: f64 = 0.25;

/// Why this instance's clock is not trusted now (writes are refused with `clock_unsynced`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unsynced {
    /// The database's clock could not be read (the message says why).
    Unmeasured(String),
    /// The round trip of the measurement took `round_trip_ms`, above [`ROUND_TRIP_MAX_MS`].
    SlowRoundTrip { round_trip_ms: i64 },
    /// The offset moved by `jump_ms` since the last measurement, above [`OFFSET_JUMP_MAX_MS`].
    Jump { jump_ms: i64 },
    /// Trusted again; the time writes were refused since `since_ms` (arena ms) is being
    /// credited to the running turns (`scheduler::credit_refused`), writes wait for it.
    Crediting { since_ms: i64 },
}

impl std::fmt::Display for Unsynced {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unsynced::Unmeasured(why) => write!(f, "the database's clock could not be read: {why}"),
            Unsynced::SlowRoundTrip { round_trip_ms } => write!(
                f,
                "reading the database's clock took {round_trip_ms} ms (more than {ROUND_TRIP_MAX_MS} ms)"
            ),
            Unsynced::Crediting { .. } => write!(
                f,
                "the time writes were refused is being credited to the running turns"
            ),
            Unsynced::Jump { jump_ms } => write!(
                f,
                "this instance's clock moved {jump_ms} ms against the database's since the last measurement (more than {OFFSET_JUMP_MAX_MS} ms)"
            ),
        }
    }
}

/// Estimates the offset of the database's clock from this machine's (database minus local,
/// ms) from bracketed readings, smoothed; pure (SPEC 12, `docs/multi-instance.md`).
#[derive(Debug, Default, Clone)]
pub struct OffsetEstimator {
    smoothed_ms: Option<f64>,
}

impl OffsetEstimator {
    /// Takes one reading: the local clock just before the query (`sent_ms`), the database's
    /// clock (`db_ms`) and the local clock just after (`received_ms`); the database is taken
    /// to have read its clock halfway. Returns the smoothed offset, ms.
    ///
    /// A reading slower than [`ROUND_TRIP_MAX_MS`] still bounds the offset to within half its
    /// round trip: it is trusted (the estimate unchanged) when the estimate lies strictly inside
    /// that bound (on its edge the database would have read its clock at the very moment of
    /// sending or receiving), so a slow but answering database keeps the clock trusted.
    ///
    /// Errors: the round trip was too long and disagrees with the estimate, or is negative
    /// ([`Unsynced::SlowRoundTrip`]; the estimate is unchanged), or the reading is more than [`OFFSET_JUMP_MAX_MS`] from the
    /// estimate ([`Unsynced::Jump`]; the reading becomes the estimate, so the next reading that
    /// agrees with it is trusted again).
    pub fn sample(&mut self, sent_ms: i64, db_ms: i64, received_ms: i64) -> Result<i64, Unsynced> {
        let round_trip_ms = received_ms - sent_ms;
        let raw = db_ms as f64 - (sent_ms as f64 + received_ms as f64) / 2.0;
        if round_trip_ms > ROUND_TRIP_MAX_MS
            && let Some(old) = self.smoothed_ms
            && (raw - old).abs() < round_trip_ms as f64 / 2.0
        {
            return Ok(old.round() as i64);
        }
        if !(0..=ROUND_TRIP_MAX_MS).contains(&round_trip_ms) {
            return Err(Unsynced::SlowRoundTrip { round_trip_ms });
        }
        let Some(old) = self.smoothed_ms else {
            self.smoothed_ms = Some(raw);
            return Ok(raw.round() as i64);
        };
        let jump_ms = (raw - old).round() as i64;
        if jump_ms.abs() > OFFSET_JUMP_MAX_MS {
            self.smoothed_ms = Some(raw);
            return Err(Unsynced::Jump { jump_ms });
        }
        let new = old + (raw - old) * SMOOTHING;
        self.smoothed_ms = Some(new);
        Ok(new.round() as i64)
    }

    /// The current estimate, ms (None before the first reading).
    #[must_use]
    pub fn offset_ms(&self) -> Option<i64> {
        self.smoothed_ms.map(|o| o.round() as i64)
    }
}

/// The arena's clock: an inner source plus the measured offset to the database's clock, so
/// that every instance sharing the database judges time on one clock (SPEC 7, 12). Until a
/// measurement is trusted, [`SyncedTime::unsynced`] says why and writes are refused.
pub struct SyncedTime {
    inner: Arc<dyn TimeSource>,
    offset_ms: AtomicI64,
    state: Mutex<SyncState>,
}

#[derive(Default)]
struct SyncState {
    estimator: OffsetEstimator,
    unsynced: Option<Unsynced>,
    /// Local ms of the last trusted reading.
    trusted_ms: Option<i64>,
    /// Arena ms at which writes began to be refused (while `unsynced` is set).
    refused_since_ms: Option<i64>,
    /// Trusted again after a refusal that began then (arena ms): not credited yet.
    credit_due_ms: Option<i64>,
}

impl SyncState {
    /// A reading failed or was too slow at local `now_ms`: the clock stays trusted within
    /// [`TRUSTED_FOR_MS`] of the last trusted reading, else not.
    fn missed(&mut self, now_ms: i64, why: Unsynced, at_ms: i64) {
        if self.trusted_ms.is_none_or(|t| now_ms - t > TRUSTED_FOR_MS) {
            self.refuse(why, at_ms);
        }
    }

    /// Writes are refused from arena ms `at_ms` on (or since a refusal not yet credited).
    fn refuse(&mut self, why: Unsynced, at_ms: i64) {
        if self.refused_since_ms.is_none() {
            self.refused_since_ms = Some(self.credit_due_ms.take().unwrap_or(at_ms));
        }
        self.unsynced = Some(why);
    }
}

impl SyncedTime {
    /// `inner` with no offset, trusted (one process, or a fake clock).
    pub fn new(inner: Arc<dyn TimeSource>) -> Self {
        SyncedTime {
            inner,
            offset_ms: AtomicI64::new(0),
            state: Mutex::new(SyncState::default()),
        }
    }

    /// Whether measurements apply: the inner source follows the wall clock.
    #[must_use]
    pub fn measurable(&self) -> bool {
        self.inner.follows_wall_clock()
    }

    /// The uncorrected local clock, ms since the epoch (what a reading is bracketed with).
    #[must_use]
    pub fn local_ms(&self) -> i64 {
        self.inner.now_ms()
    }

    /// The offset applied now (database minus local), ms.
    #[must_use]
    pub fn offset_ms(&self) -> i64 {
        self.offset_ms.load(Ordering::SeqCst)
    }

    /// Records a reading (see [`OffsetEstimator::sample`]): a trusted one sets the offset and
    /// clears any refusal; a jump keeps the offset and refuses writes; a slow one is ignored
    /// within [`TRUSTED_FOR_MS`] of the last trusted reading, else refuses writes too. Returns
    /// the refusal, if any.
    pub fn record(&self, sent_ms: i64, db_ms: i64, received_ms: i64) -> Option<Unsynced> {
        let at_ms = self.now_ms();
        let Ok(mut st) = self.state.lock() else {
            return Some(Unsynced::Unmeasured("clock state poisoned".into()));
        };
        match st.estimator.sample(sent_ms, db_ms, received_ms) {
            Ok(offset) => {
                self.offset_ms.store(offset, Ordering::SeqCst);
                st.unsynced = None;
                st.trusted_ms = Some(received_ms);
                // A measured clock owes the refused time to the turns (SPEC 7); a fake one is
                // never measured, so nothing would pay it.
                if let Some(since) = st.refused_since_ms.take()
                    && self.measurable()
                {
                    st.credit_due_ms = Some(since);
                }
            }
            Err(why @ Unsynced::SlowRoundTrip { .. }) => st.missed(received_ms, why, at_ms),
            Err(why) => st.refuse(why, at_ms),
        }
        st.unsynced.clone()
    }

    /// The database's clock could not be read: as a slow reading (see [`SyncedTime::record`]).
    pub fn unreadable(&self, why: &str) -> Option<Unsynced> {
        let now = self.local_ms();
        let at_ms = self.now_ms();
        let Ok(mut st) = self.state.lock() else {
            return Some(Unsynced::Unmeasured("clock state poisoned".into()));
        };
        st.missed(now, Unsynced::Unmeasured(why.to_string()), at_ms);
        st.unsynced.clone()
    }

    /// Marks the clock untrusted at once until the next trusted reading.
    pub fn fail(&self, why: Unsynced) {
        let at_ms = self.now_ms();
        if let Ok(mut st) = self.state.lock() {
            st.refuse(why, at_ms);
        }
    }

    /// Why the clock is not trusted now, or None when it is. Trusted again but with the
    /// refused time not yet credited is [`Unsynced::Crediting`] (writes still wait).
    #[must_use]
    pub fn unsynced(&self) -> Option<Unsynced> {
        self.state.lock().map_or_else(
            |_| Some(Unsynced::Unmeasured("clock state poisoned".into())),
            |st| {
                st.unsynced.clone().or(st
                    .credit_due_ms
                    .map(|since_ms| Unsynced::Crediting { since_ms }))
            },
        )
    }

    /// When the refusal not credited yet began (arena ms): while writes are refused on an
    /// untrusted clock, or trusted again but not yet credited for it (see
    /// [`SyncedTime::credit_due_ms`]). A stop then owes the turns that time
    /// (`scheduler::final_heartbeat`).
    #[must_use]
    pub fn owed_since_ms(&self) -> Option<i64> {
        self.state
            .lock()
            .ok()
            .and_then(|st| st.refused_since_ms.or(st.credit_due_ms))
    }

    /// When the refusal that is owed a credit began (arena ms), if the clock is trusted again.
    #[must_use]
    pub fn credit_due_ms(&self) -> Option<i64> {
        self.state
            .lock()
            .ok()
            .filter(|st| st.unsynced.is_none())
            .and_then(|st| st.credit_due_ms)
    }

    /// The time up to arena ms `at_ms` was credited by another path (a storage outage's
    /// recovery, `scheduler::recover_storage`): a refusal still owed now counts from then on,
    /// so no refused millisecond is credited twice. A refusal that began later is unchanged.
    pub fn credited_through(&self, at_ms: i64) {
        if let Ok(mut st) = self.state.lock() {
            let st = &mut *st;
            for since in [&mut st.refused_since_ms, &mut st.credit_due_ms]
                .into_iter()
                .flatten()
            {
                *since = (*since).max(at_ms);
            }
        }
    }

    /// The refused time up to now was credited: writes are served again.
    pub fn credited(&self) {
        if let Ok(mut st) = self.state.lock() {
            st.credit_due_ms = None;
        }
    }
}

impl TimeSource for SyncedTime {
    fn now_ms(&self) -> i64 {
        self.inner.now_ms() + self.offset_ms()
    }
    fn follows_wall_clock(&self) -> bool {
        self.inner.follows_wall_clock()
    }
    fn wall_gap_ms(&self) -> Option<i64> {
        self.inner.wall_gap_ms()
    }
}

/// How far the machine's wall clock may move from the arena's before the heartbeat warns, ms.
pub const WALL_GAP_WARN_MS: i64 = 1_000;

/// Whether a wall-clock gap of `gap_ms` deserves a warning, given the gap last warned of
/// (0 at first): once past [`WALL_GAP_WARN_MS`], and again each time it moves that much more.
#[must_use]
pub fn wall_gap_worth_warning(gap_ms: i64, warned_ms: i64) -> bool {
    gap_ms.abs() > WALL_GAP_WARN_MS && (gap_ms - warned_ms).abs() > WALL_GAP_WARN_MS
}

/// Why a seat lost on time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeLoss {
    /// The seat's first move did not arrive within [`FIRST_MOVE_MS`]: reason `first_move_timeout`.
    FirstMove,
    /// The seat's clock ran below zero: reason `timeout`.
    Clock,
}

impl TimeLoss {
    /// The game result's `reason`.
    pub fn reason(self) -> &'static str {
        match self {
            TimeLoss::FirstMove => "first_move_timeout",
            TimeLoss::Clock => "timeout",
        }
    }
}

/// Both seats' clocks in one game. Index 0 is seat 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Time left per seat, ms, as of the start of the current turn.
    pub remaining_ms: [i64; 2],
    /// Whether the seat has yet to make its first move of this game.
    pub first_move: [bool; 2],
    pub increment_ms: i64,
    /// When the seat on move came on move (ms since epoch); None when no one is on move.
    pub turn_started_ms: Option<i64>,
}

fn idx(seat: Seat) -> usize {
    usize::from(seat.number() - 1)
}

impl Clock {
    /// A fresh clock: both seats at `initial_ms`, both first moves pending, no turn running.
    #[must_use]
    pub fn new(initial_ms: i64, increment_ms: i64) -> Self {
        Clock {
            remaining_ms: [initial_ms; 2],
            first_move: [true; 2],
            increment_ms,
            turn_started_ms: None,
        }
    }

    /// The moment `seat` (on move) loses if it has not moved.
    pub fn deadline_ms(&self, seat: Seat) -> Option<i64> {
        let started = self.turn_started_ms?;
        Some(if self.first_move[idx(seat)] {
            started + FIRST_MOVE_MS
        } else {
            started + self.remaining_ms[idx(seat)]
        })
    }

    /// Time left on `seat`'s clock at `now_ms`, counting the running turn if it is on move.
    /// The first move is not charged, so during it the clock shows its full remaining time.
    pub fn remaining_at(&self, seat: Seat, on_move: bool, now_ms: i64) -> i64 {
        let r = self.remaining_ms[idx(seat)];
        match self.turn_started_ms {
            Some(started) if on_move && !self.first_move[idx(seat)] => {
                (r - (now_ms - started).max(0)).max(0)
            }
            _ => r,
        }
    }

    /// Whether `seat` (on move) has lost on time at `now_ms`. A move at exactly the deadline
    /// (0 ms left) is still in time.
    pub fn loss_at(&self, seat: Seat, now_ms: i64) -> Option<TimeLoss> {
        let deadline = self.deadline_ms(seat)?;
        (now_ms > deadline).then_some(if self.first_move[idx(seat)] {
            TimeLoss::FirstMove
        } else {
            TimeLoss::Clock
        })
    }

    /// Charges `seat`'s move made at `now_ms` and starts the opponent's turn.
    /// Returns the ms the move took. The first move is free and earns no increment; later
    /// moves pay the elapsed time and then earn the increment (Fischer).
    ///
    /// Errors: the seat was out of time; the clock is unchanged.
    pub fn charge_move(&mut self, seat: Seat, now_ms: i64) -> Result<i64, TimeLoss> {
        if let Some(loss) = self.loss_at(seat, now_ms) {
            return Err(loss);
        }
        let elapsed = self.turn_started_ms.map_or(0, |s| (now_ms - s).max(0));
        let i = idx(seat);
        if self.first_move[i] {
            self.first_move[i] = false;
        } else {
            self.remaining_ms[i] = self.remaining_ms[i] - elapsed + self.increment_ms;
        }
        self.turn_started_ms = Some(now_ms);
        Ok(elapsed)
    }

    /// Stops the running turn (game over): the seat on move is charged its elapsed time.
    pub fn stop(&mut self, on_move: Option<Seat>, now_ms: i64) {
        if let Some(seat) = on_move {
            self.remaining_ms[idx(seat)] = self.remaining_at(seat, true, now_ms);
        }
        self.turn_started_ms = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: i64 = 1_700_000_000_000;

    #[test]
    fn the_steady_clock_reads_the_wall_clock_only_at_its_start() {
        // Started at T0, far from the wall clock's now: every later reading is T0 plus the
        // monotonic time since, so no wall-clock reading (or step) enters "now".
        let t = SteadyTime::starting_at(T0);
        let mut last = t.now_ms();
        assert!((T0..T0 + 5_000).contains(&last), "{last}");
        for _ in 0..1_000 {
            let now = t.now_ms();
            assert!(now >= last, "never runs backwards: {now} after {last}");
            last = now;
        }
        let wall = chrono::Utc::now().timestamp_millis();
        let gap = t.wall_gap_ms().expect("a steady clock knows its gap");
        assert!((gap - (wall - T0)).abs() < 5_000, "{gap}");
        // Started from the wall clock, the gap is about zero.
        let gap = SteadyTime::new().wall_gap_ms().expect("gap");
        assert!(gap.abs() < 1_000, "{gap}");
        // Other sources read the wall clock (or none) every time: no gap to report.
        assert_eq!(FakeTime::new(T0).wall_gap_ms(), None);
        assert!(
            SyncedTime::new(Arc::new(SteadyTime::new()))
                .wall_gap_ms()
                .is_some()
        );
    }

    #[test]
    fn a_wall_clock_gap_is_warned_of_once_per_second_it_moves() {
        assert!(!wall_gap_worth_warning(900, 0));
        assert!(wall_gap_worth_warning(15_000, 0));
        assert!(wall_gap_worth_warning(-15_000, 0));
        // Warned at 15 s: not again until it moves by more than a second.
        assert!(!wall_gap_worth_warning(15_600, 15_000));
        assert!(wall_gap_worth_warning(16_200, 15_000));
        // Back within a second of the arena's clock: nothing to say.
        assert!(!wall_gap_worth_warning(200, 15_000));
    }

    fn started(initial_ms: i64, inc_ms: i64) -> Clock {
        let mut c = Clock::new(initial_ms, inc_ms);
        c.turn_started_ms = Some(T0);
        c
    }

    #[test]
    fn first_move_is_free_and_earns_no_increment() {
        let mut c = started(60_000, 2_000);
        assert_eq!(c.deadline_ms(Seat::One), Some(T0 + 30_000));
        assert_eq!(c.charge_move(Seat::One, T0 + 29_000), Ok(29_000));
        assert_eq!(c.remaining_ms, [60_000, 60_000]);
        assert_eq!(c.first_move, [false, true]);
        assert_eq!(c.turn_started_ms, Some(T0 + 29_000));
    }

    #[test]
    fn first_move_after_thirty_seconds_loses_and_changes_nothing() {
        let mut c = started(60_000, 2_000);
        let before = c;
        assert_eq!(
            c.charge_move(Seat::One, T0 + 30_001),
            Err(TimeLoss::FirstMove)
        );
        assert_eq!(c, before);
        assert_eq!(c.loss_at(Seat::One, T0 + 30_000), None);
    }

    #[test]
    fn fischer_takes_elapsed_then_adds_increment() {
        let mut c = started(60_000, 2_000);
        c.first_move = [false, false];
        assert_eq!(c.charge_move(Seat::One, T0 + 5_000), Ok(5_000));
        assert_eq!(c.remaining_ms, [57_000, 60_000]);
        assert_eq!(c.deadline_ms(Seat::Two), Some(T0 + 5_000 + 60_000));
        assert_eq!(c.charge_move(Seat::Two, T0 + 15_000), Ok(10_000));
        assert_eq!(c.remaining_ms, [57_000, 52_000]);
    }

    #[test]
    fn a_move_with_exactly_zero_left_is_in_time_one_ms_later_is_not() {
        let mut c = started(10_000, 1_000);
        c.first_move = [false, false];
        let mut late = c;
        assert_eq!(c.charge_move(Seat::One, T0 + 10_000), Ok(10_000));
        assert_eq!(c.remaining_ms[0], 1_000);
        assert_eq!(
            late.charge_move(Seat::One, T0 + 10_001),
            Err(TimeLoss::Clock)
        );
        assert_eq!(late.remaining_ms[0], 10_000);
    }

    #[test]
    fn remaining_counts_down_only_for_the_seat_on_move_after_its_first_move() {
        let mut c = started(60_000, 0);
        assert_eq!(c.remaining_at(Seat::One, true, T0 + 10_000), 60_000);
        c.first_move = [false, false];
        assert_eq!(c.remaining_at(Seat::One, true, T0 + 10_000), 50_000);
        assert_eq!(c.remaining_at(Seat::Two, false, T0 + 10_000), 60_000);
        assert_eq!(c.remaining_at(Seat::One, true, T0 + 70_000), 0);
        c.stop(Some(Seat::One), T0 + 4_000);
        assert_eq!(c.remaining_ms, [56_000, 60_000]);
        assert_eq!(c.turn_started_ms, None);
        assert_eq!(c.deadline_ms(Seat::Two), None);
    }

    #[test]
    fn the_offset_estimator_takes_the_midpoint_smooths_and_refuses_slow_or_jumping_readings() {
        let mut e = OffsetEstimator::default();
        // Local 1 000 and 1 100 around a database reading of 6 050: the database is 5 s ahead.
        assert_eq!(e.sample(1_000, 6_050, 1_100), Ok(5_000));
        // A reading 100 ms off moves the estimate by a quarter of it.
        assert_eq!(e.sample(2_000, 7_110, 2_020), Ok(5_025));
        // A round trip above the bound is refused and leaves the estimate alone.
        assert_eq!(
            e.sample(3_000, 8_000, 3_000 + ROUND_TRIP_MAX_MS + 1),
            Err(Unsynced::SlowRoundTrip {
                round_trip_ms: ROUND_TRIP_MAX_MS + 1
            })
        );
        assert_eq!(
            e.sample(3_000, 8_000, 2_999),
            Err(Unsynced::SlowRoundTrip { round_trip_ms: -1 })
        );
        assert_eq!(e.offset_ms(), Some(5_025));
        // A jump of more than the bound is refused; a reading agreeing with it is trusted.
        assert_eq!(
            e.sample(4_000, 4_000 + 5_025 + 300, 4_000),
            Err(Unsynced::Jump { jump_ms: 300 })
        );
        assert_eq!(e.sample(5_000, 5_000 + 5_325, 5_000), Ok(5_325));
    }

    #[test]
    fn synced_time_applies_the_trusted_offset_and_says_why_it_is_not_trusted() {
        let fake = Arc::new(FakeTime::new(T0));
        let t = SyncedTime::new(fake.clone());
        assert_eq!(t.now_ms(), T0);
        assert_eq!(t.unsynced(), None);
        assert_eq!(t.record(T0, T0 - 5_000, T0), None);
        assert_eq!(t.now_ms(), T0 - 5_000);
        fake.advance(1_000);
        assert_eq!(t.now_ms(), T0 - 4_000);
        let why = t.record(T0 + 1_000, T0 + 1_000, T0 + 1_000);
        assert_eq!(why, Some(Unsynced::Jump { jump_ms: 5_000 }));
        assert_eq!(t.unsynced(), why);
        assert_eq!(t.now_ms(), T0 - 4_000, "the last trusted offset stays");
        assert_eq!(t.record(T0 + 1_000, T0 + 1_000, T0 + 1_000), None);
        assert_eq!(t.now_ms(), T0 + 1_000);
        // A slow reading or a failed one is forgiven for a while after a trusted one ...
        let slow = ROUND_TRIP_MAX_MS + 1;
        assert_eq!(t.record(T0 + 2_000, T0 + 2_000, T0 + 2_000 + slow), None);
        fake.set(T0 + 1_000 + TRUSTED_FOR_MS);
        assert_eq!(t.unreadable("connection refused"), None);
        // ... but not longer.
        fake.set(T0 + 1_001 + TRUSTED_FOR_MS);
        assert_eq!(
            t.unreadable("connection refused"),
            Some(Unsynced::Unmeasured("connection refused".into()))
        );
        assert!(t.unsynced().is_some());
        assert!(!t.measurable(), "a fake clock is not corrected");
    }

    #[test]
    fn a_slow_reading_that_agrees_with_the_estimate_within_half_its_round_trip_is_trusted() {
        let mut e = OffsetEstimator::default();
        assert_eq!(e.sample(1_000, 6_050, 1_100), Ok(5_000));
        // 600 ms round trip: the database read its clock somewhere in it, so the offset is
        // 5 000 +- 300; the estimate lies inside, the reading is trusted and changes nothing.
        assert_eq!(e.sample(2_000, 2_000 + 5_000 + 500, 2_600), Ok(5_000));
        // The same round trip with a reading that cannot be 5 000 (at least 5 400) is not.
        assert_eq!(
            e.sample(3_000, 3_000 + 5_000 + 700, 3_600),
            Err(Unsynced::SlowRoundTrip { round_trip_ms: 600 })
        );
        assert_eq!(e.offset_ms(), Some(5_000));
    }

    #[test]
    fn fake_time_moves_only_when_told() {
        let t = FakeTime::new(T0);
        assert_eq!(t.now_ms(), T0);
        t.advance(250);
        assert_eq!(t.now_ms(), T0 + 250);
        t.set(5);
        assert_eq!(t.now_ms(), 5);
    }
}
