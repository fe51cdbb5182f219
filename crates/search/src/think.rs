//! How a house bot thinks on one move (SPEC section 9, issue 11), shared with `hexarena play`
//! so a client of the same rung thinks exactly as the house bot does at the same time.
//!
//! [`budget`] is pure: it turns the seat's own clock (time left, increment, empty cells, via
//! [`crate::ladder::think_time_ms`]) and the pool's load into a thinking time and a playout cap.
//! [`choose`] runs the search within that budget; it blocks, so it belongs on a thread that
//! may block (a worker of the house pool, or a client's `spawn_blocking`), never on the async
//! runtime's threads.

use std::time::Instant;

use crate::Limits;
use crate::ladder::{Play, Rung, think_time_ms};
use hex::{Move, Position};
use rand_core::Rng;

/// Playouts of a cheap move: after the immediate win / forced block checks, this many
/// playouts still avoid the worst blunders and cost well under a millisecond on 11x11.
pub const CHEAP_PLAYOUTS: u32 = 64;
/// A thinking slice below this (ms) is not worth a search: the move is played cheap.
pub const MIN_SLICE_MS: u64 = 3;
/// Kept back from the time left before the clock formula sees it, ms: storing the move (a
/// commit, on PostgreSQL a round trip or two) and, for a client, the network.
pub const MOVE_OVERHEAD_MS: u64 = 100;
/// A seat this close to its flag (ms) plays a cheap move at once, whatever the clock formula
/// says (what is left must also pay for storing the move, on a loaded machine).
pub const NEAR_FLAG_MS: u64 = 300;

/// What one move may spend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Wall-clock thinking time, ms (0 for a random rung).
    pub think_ms: u64,
    /// Playouts never exceeded (the rung's cap, or [`CHEAP_PLAYOUTS`] for a cheap move).
    pub max_playouts: u32,
    /// True when the move is played cheap (near the flag, or the load left no useful slice).
    pub cheap: bool,
}

/// The fraction (numerator, denominator) of its clock's thinking time a move gets with `jobs`
/// thinking or waiting on `workers` threads: all of it while `jobs` <= `workers`, then
/// `workers / (2 jobs - workers)`, about half a fair share under heavy load. A move's clock
/// pays for its wait as well as its search; the smaller slice keeps a reserve on every clock
/// for the cost of each move that does not shrink with the load (the queue's round, the store).
#[must_use]
pub fn load_share(workers: usize, jobs: usize) -> (u64, u64) {
    let w = workers.max(1) as u64;
    let j = (jobs as u64).max(w);
    (w, 2 * j - w)
}

/// The most moves the seat on move may still have to make with `empty_cells` empty: half of
/// them, rounded up (at least 1).
#[must_use]
pub fn moves_left_at_most(empty_cells: u32) -> u64 {
    u64::from(empty_cells.div_ceil(2)).max(1)
}

/// The clock a seat may plan its thinking with, ms, and the increment it may count on, when
/// each of its moves also costs `overhead_ms` that is not thinking (the queue, the commit,
/// the scheduling): what the increment does not cover of that cost is kept back for every
/// move it may still have to make ([`moves_left_at_most`]), and the increment is counted
/// net of it. Never less than 0.
#[must_use]
pub fn plannable_ms(
    time_left_ms: u64,
    increment_ms: u64,
    empty_cells: u32,
    overhead_ms: u64,
) -> (u64, u64) {
    let deficit = overhead_ms
        .saturating_sub(increment_ms)
        .saturating_mul(moves_left_at_most(empty_cells));
    (
        time_left_ms
            .saturating_sub(MOVE_OVERHEAD_MS.max(overhead_ms))
            .saturating_sub(deficit),
        increment_ms.saturating_sub(overhead_ms),
    )
}

/// The budget of one move of `rung` on a `size` x `size` board with `empty_cells` empty:
/// `time_left_ms` until the seat's flag (for a free first move, the smaller of that and the
/// clock's remaining time), `increment_ms` added after the move, `overhead_ms` what each move
/// costs the clock besides thinking (measured by the house's pool; 0 for a client, which
/// keeps [`MOVE_OVERHEAD_MS`] back). The clock's thinking time is planned from what is left
/// once the overhead of every move still possible is kept back ([`plannable_ms`]). Under load
/// (`jobs` thinking or waiting on `workers` threads, `jobs` > `workers`) each move gets the
/// share [`load_share`] of that thinking time; a seat near its flag (within
/// [`NEAR_FLAG_MS`], or four moves' overhead), or a share below [`MIN_SLICE_MS`], plays a
/// cheap move.
#[must_use]
#[allow(clippy::too_many_arguments)]
pub fn budget(
    rung: &Rung,
    size: u8,
    time_left_ms: u64,
    increment_ms: u64,
    empty_cells: u32,
    overhead_ms: u64,
    workers: usize,
    jobs: usize,
) -> Budget {
    let Some(cap) = rung.max_playouts(size) else {
        return Budget {
            think_ms: 0,
            max_playouts: 0,
            cheap: false,
        };
    };
    let (plannable, net_increment) =
        plannable_ms(time_left_ms, increment_ms, empty_cells, overhead_ms);
    let full = think_time_ms(plannable, net_increment, empty_cells);
    let (num, den) = load_share(workers, jobs);
    let share = full * num / den;
    let near_flag_ms = NEAR_FLAG_MS.max(overhead_ms.saturating_mul(4));
    if time_left_ms < near_flag_ms || share < MIN_SLICE_MS {
        return Budget {
            think_ms: share.min(MIN_SLICE_MS),
            max_playouts: cap.min(CHEAP_PLAYOUTS),
            cheap: true,
        };
    }
    Budget {
        think_ms: share,
        max_playouts: cap,
        cheap: false,
    }
}

/// Chooses `rung`'s move in `pos` within `budget`: random play for a random rung, otherwise
/// the tree search (the rung's [`Rung::tuning`], but [`crate::Tuning::HOUSE`] for a cheap
/// move: see [`knows`]) that stops at its playout cap, when `budget.think_ms` have passed
/// since `started`, or when `interrupt()` says so (the pool asks a search to end early when a
/// more urgent move waits). Returns the move (None when the game is over) and the playouts run
/// (0 when the move needed no search). Blocks for up to `budget.think_ms` (and a few ms more
/// when the clock runs out inside an analysis of the Hex knowledge, which then ends).
pub fn choose(
    pos: &Position,
    rung: &Rung,
    budget: Budget,
    started: Instant,
    rng: &mut impl Rng,
    interrupt: &dyn Fn() -> bool,
) -> (Option<Move>, u32) {
    let (mv, playouts, _) = choose_reported(pos, rung, budget, started, rng, interrupt);
    (mv, playouts)
}

/// [`choose`] with what the search knew of its move ([`crate::SearchInfo`]; None for a random
/// rung and for a move chosen without a search). The same move for the same RNG state.
pub fn choose_reported(
    pos: &Position,
    rung: &Rung,
    budget: Budget,
    started: Instant,
    rng: &mut impl Rng,
    interrupt: &dyn Fn() -> bool,
) -> (Option<Move>, u32, Option<crate::SearchInfo>) {
    match rung.play {
        Play::Random => (crate::random_move(pos, rng), 0, None),
        Play::Search { .. } => {
            let stop_at = started + std::time::Duration::from_millis(budget.think_ms);
            let mut playouts = 0;
            let mut stop = |done: u32| {
                playouts = done;
                Instant::now() >= stop_at || interrupt()
            };
            // A cheap move has no time for knowledge (see [`knows`]).
            let tuning = if budget.cheap {
                crate::Tuning::HOUSE
            } else {
                rung.tuning(pos.size(), budget.think_ms)
            };
            let (mv, info) = crate::strong_move_tuned_reported(
                pos,
                rng,
                Limits {
                    max_playouts: budget.max_playouts,
                    stop: &mut stop,
                },
                &tuning,
            );
            (mv, playouts, info)
        }
    }
}

/// Whether [`choose`] thinks with Hex knowledge (H-search to closure near the root, issue 23)
/// for `rung` on a `size` x `size` board within `budget`: never for a cheap move (no time for
/// it), else as [`Rung::knows`] says.
#[must_use]
pub fn knows(rung: &Rung, size: u8, budget: Budget) -> bool {
    !budget.cheap && rung.knows(size, budget.think_ms)
}

/// Whether a seat should play cheap because each of its moves costs its clock about
/// `move_cost_ms` whatever it thinks (the queue's round and the store, as the pool measures
/// them), and the moves it still expects to make (a third of the `empty_cells`, at least 8,
/// as [`think_time_ms`] plans) would not fit in `time_left_ms` at that cost.
#[must_use]
pub fn behind_the_clock(move_cost_ms: u64, time_left_ms: u64, empty_cells: u32) -> bool {
    let expected_moves = u64::from(empty_cells / 3).max(8);
    move_cost_ms.saturating_mul(expected_moves) > time_left_ms
}

/// Empty cells of `pos` (what [`think_time_ms`] expects the rest of the game from).
#[must_use]
pub fn empty_cells(pos: &Position) -> u32 {
    let size = u32::from(pos.size());
    (size * size).saturating_sub(u32::try_from(pos.stone_count()).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ladder::{KNOWLEDGE_MIN_THINK_MS, rung};

    fn master() -> &'static Rung {
        rung("house-master").expect("on the ladder")
    }

    #[test]
    fn an_idle_pool_gives_the_clock_s_whole_thinking_time() {
        let b = budget(master(), 11, 10_000, 0, 121, 0, 2, 1);
        assert_eq!(b.think_ms, think_time_ms(10_000 - MOVE_OVERHEAD_MS, 0, 121));
        assert_eq!(b.think_ms, 235);
        assert!(!b.cheap);
        assert_eq!(Some(b.max_playouts), master().max_playouts(11));
    }

    #[test]
    fn under_load_each_move_gets_a_proportional_share() {
        // 20 moves waiting or thinking on 2 workers: 2 / 38 each.
        let b = budget(master(), 11, 10_000, 0, 121, 0, 2, 20);
        assert_eq!(b.think_ms, 12);
        assert_eq!(budget(master(), 11, 10_000, 0, 121, 0, 2, 40).think_ms, 6);
        assert_eq!(budget(master(), 11, 10_000, 0, 121, 0, 2, 3).think_ms, 117);
        assert!(!b.cheap);
        // Jobs no more than workers: no cut.
        assert_eq!(budget(master(), 11, 10_000, 0, 121, 0, 2, 2).think_ms, 235);
    }

    #[test]
    fn near_the_flag_or_with_no_useful_share_the_move_is_cheap() {
        let near = budget(master(), 11, 250, 0, 60, 0, 2, 1);
        assert!(near.cheap);
        assert_eq!(near.max_playouts, CHEAP_PLAYOUTS);
        let crowded = budget(master(), 11, 10_000, 0, 121, 0, 2, 400);
        assert!(crowded.cheap, "{crowded:?}");
        assert!(crowded.think_ms <= MIN_SLICE_MS);
    }

    #[test]
    fn the_overhead_of_every_move_still_possible_is_kept_back_before_planning() {
        // 10+0 on 19x19 with 359 empty cells: 180 more moves at most, 40 ms each is 7.2 s.
        assert_eq!(plannable_ms(10_000, 0, 359, 40), (10_000 - 100 - 7_200, 0));
        // An increment pays for the overhead it covers, and is counted net of it.
        assert_eq!(plannable_ms(10_000, 50, 359, 40), (9_900, 10));
        // More overhead than the clock can pay: nothing to plan with, the move is cheap.
        assert_eq!(plannable_ms(10_000, 0, 359, 80).0, 0);
        let b = budget(master(), 19, 10_000, 0, 359, 80, 2, 1);
        assert!(b.cheap, "{b:?}");
        // The same clock without overhead thinks.
        let b = budget(master(), 19, 10_000, 0, 359, 0, 2, 1);
        assert!(!b.cheap && b.think_ms > 20, "{b:?}");
        // With a measured overhead of 30 ms on 11x11: less than without, still a real think.
        let with = budget(master(), 11, 10_000, 0, 121, 30, 2, 1);
        assert_eq!(with.think_ms, think_time_ms(10_000 - 100 - 30 * 61, 0, 121));
        assert!(!with.cheap && with.think_ms < 235, "{with:?}");
        // The near-flag threshold grows with the overhead: 1 s left at 300 ms a move is cheap.
        assert!(budget(master(), 11, 1_000, 2_000, 20, 300, 2, 1).cheap);
        assert!(!budget(master(), 11, 1_000, 2_000, 20, 0, 2, 1).cheap);
    }

    #[test]
    fn a_seat_is_behind_when_its_moves_cost_more_than_its_clock_can_pay() {
        // 10 s for about 37 moves: 250 ms a move fits, 300 ms does not.
        assert!(!behind_the_clock(250, 10_000, 113));
        assert!(behind_the_clock(300, 10_000, 113));
        // Late in a game at least 8 moves are planned for.
        assert!(behind_the_clock(200, 1_500, 10));
        assert!(!behind_the_clock(0, 0, 0));
    }

    #[test]
    fn a_capped_rung_keeps_its_cap_and_random_play_needs_no_time() {
        let novice = rung("house-novice").expect("on the ladder");
        let b = budget(novice, 11, 60_000, 2_000, 121, 0, 2, 1);
        assert_eq!(Some(b.max_playouts), novice.max_playouts(11));
        let random = rung("house-random").expect("on the ladder");
        assert_eq!(budget(random, 11, 60_000, 2_000, 121, 0, 2, 1).think_ms, 0);
    }

    #[test]
    fn choose_answers_a_legal_move_within_its_budget() {
        let opening = [hex::Cell::new(5, 5), hex::Cell::new(4, 6)];
        let pos = Position::with_opening(11, &opening).expect("two stones");
        let mut rng = <rand_pcg::Pcg64 as rand_core::SeedableRng>::seed_from_u64(7);
        let b = Budget {
            think_ms: 30,
            max_playouts: 1_000_000,
            cheap: false,
        };
        let t0 = Instant::now();
        let (mv, playouts) = choose(&pos, master(), b, t0, &mut rng, &|| false);
        assert!(mv.is_some_and(|m| pos.check(m).is_ok()));
        assert!(playouts > 0);
        assert!(t0.elapsed().as_millis() < 1_000, "{:?}", t0.elapsed());
        // An interrupt ends the search at its first check.
        let (mv, playouts) = choose(&pos, master(), b, Instant::now(), &mut rng, &|| true);
        assert!(mv.is_some());
        assert_eq!(playouts, crate::STOP_CHECK_EVERY);
        // With time for the Hex knowledge, its analysis at the root asks too, and ends.
        let long = Budget {
            think_ms: 10_000,
            ..b
        };
        assert!(knows(master(), 11, long));
        let asked = std::cell::Cell::new(0);
        let interrupt = || {
            asked.set(asked.get() + 1);
            true
        };
        let (mv, playouts) = choose(&pos, master(), long, Instant::now(), &mut rng, &interrupt);
        assert!(mv.is_some());
        assert_eq!(playouts, crate::STOP_CHECK_EVERY);
        assert!(asked.get() >= 2, "asked {} times", asked.get());
    }

    #[test]
    fn house_master_defends_inside_the_closure_s_mustplay_when_it_has_time_for_it() {
        use crate::board::Board;
        use crate::solver::{Verdict, analyse};
        use crate::vc::VcLimits;
        // Black on move on 11x11 after 18 moves of a game against MoHex 2.0: White (left-right)
        // threatens to connect in ways only H-search to closure sees.
        let mut pos = Position::new(11).expect("a legal size");
        for m in "b11 f2 c9 g5 d7 d6 f5 g3 i3 h4 f3 f4 j4 i6 h3 g4 c7 e4".split_whitespace() {
            let cell = hex::parse_cell_name(m).expect("a cell name");
            pos.play(Move::Place(cell)).expect("a legal move");
        }
        let board = Board::of(&pos);
        let Verdict::Open {
            mustplay: Some(mustplay),
        } = analyse(&board, 1, &VcLimits::CLOSURE).verdict
        else {
            panic!("the closure sees White's threat");
        };
        let inside = |mv: Option<Move>| match mv {
            Some(Move::Place(c)) => board
                .at(isize::from(c.row), isize::from(c.col))
                .is_some_and(|i| mustplay.contains(i)),
            _ => false,
        };
        // The playout cap, not the clock, ends every search here (10,000 playouts take tens of
        // ms): the same moves on any machine as the tuned search with no clock at all.
        const CAP: u32 = 10_000;
        let budget = |think_ms| Budget {
            think_ms,
            max_playouts: CAP,
            cheap: false,
        };
        let unclocked = |seed: u64, tuning: &crate::Tuning| {
            let mut rng = <rand_pcg::Pcg64 as rand_core::SeedableRng>::seed_from_u64(seed);
            let limits = crate::Limits {
                max_playouts: CAP,
                stop: &mut |_| false,
            };
            crate::strong_move_tuned(&pos, &mut rng, limits, tuning)
        };
        let mut outside_without = 0;
        for seed in 0..8 {
            // With the time: the closure's tuning, every move inside the mustplay (the root is
            // cut to it).
            let mut rng = <rand_pcg::Pcg64 as rand_core::SeedableRng>::seed_from_u64(seed);
            let (mv, _) = choose(
                &pos,
                master(),
                budget(10_000),
                Instant::now(),
                &mut rng,
                &|| false,
            );
            assert_eq!(
                mv,
                unclocked(seed, &crate::Tuning::CLOSURE_TREE),
                "seed {seed}"
            );
            assert!(inside(mv), "seed {seed}: {mv:?} outside {mustplay:?}");
            // Without it: the house bots' search, which does not see the threat.
            let mut rng = <rand_pcg::Pcg64 as rand_core::SeedableRng>::seed_from_u64(seed);
            let (mv, _) = choose(
                &pos,
                master(),
                budget(KNOWLEDGE_MIN_THINK_MS - 1),
                Instant::now(),
                &mut rng,
                &|| false,
            );
            assert_eq!(mv, unclocked(seed, &crate::Tuning::HOUSE), "seed {seed}");
            outside_without += usize::from(!inside(mv));
        }
        // The knowledge changes the play: without it, these seeds go outside the mustplay at
        // least once (once in 8 when written).
        assert!(outside_without > 0);
    }
}
