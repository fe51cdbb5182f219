//! The Fischer clock with the first-move deadline (SPEC section 7), pure: time is passed in.

use std::sync::atomic::{AtomicI64, Ordering};

use hex::Seat;

/// Each seat's first move of a game must arrive within this many ms of first coming on move.
pub const FIRST_MOVE_MS: i64 = 30_000;

/// Where "now" comes from, injected so that clock logic is tested without sleeping (SPEC 12).
pub trait TimeSource: Send + Sync + 'static {
    /// Milliseconds since the Unix epoch, UTC.
    fn now_ms(&self) -> i64;
}

/// The real wall clock.
#[derive(Debug, Default)]
pub struct SystemTime;

impl TimeSource for SystemTime {
    fn now_ms(&self) -> i64 {
        chrono::Utc::now().timestamp_millis()
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
    fn fake_time_moves_only_when_told() {
        let t = FakeTime::new(T0);
        assert_eq!(t.now_ms(), T0);
        t.advance(250);
        assert_eq!(t.now_ms(), T0 + 250);
        t.set(5);
        assert_eq!(t.now_ms(), 5);
    }
}
