//! The house bots' ladder of graded strengths (SPEC section 9) and the thinking time a seat can
//! afford on its Fischer clock. Pure: the caller reads the clock and passes the numbers in.

use crate::Tuning;

/// How a rung chooses its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Play {
    /// A uniformly random empty cell ([`crate::random_move`]).
    Random,
    /// The tree search ([`crate::think::choose`], with [`Rung::tuning`]) with at most this many
    /// playouts per move on 11x11 (scaled to other sizes by [`Rung::max_playouts`]); it also
    /// stops when its clock's thinking time ([`think_time_ms`]) runs out.
    Search {
        /// Playouts per move on 11x11.
        playouts_11: u32,
        /// Whether it also uses Hex knowledge near the root ([`Rung::tuning`]): H-search to
        /// closure and the solver (issue 23), on boards up to [`KNOWLEDGE_MAX_SIZE`].
        knowledge: bool,
    },
}

/// The largest board on which a knowing rung uses its Hex knowledge: where its gain was
/// measured (issue 23, 11x11). An analysis costs more on larger boards (on random positions,
/// loaded machine, median 15 ms on 11x11, 28 ms on 13x13; the slowest 163 and 670 ms), so a
/// larger board needs its own measurement first.
pub const KNOWLEDGE_MAX_SIZE: u8 = 11;

/// The shortest thinking time, ms, for a knowing rung's Hex knowledge: its gain was measured at
/// about a second a move, and in a much shorter think the analyses (each up to a tenth of a
/// second on 11x11, though the search's stop ends one within a few ms) would take most of it;
/// a shorter think (a fast clock, a loaded pool) searches as the other rungs do.
pub const KNOWLEDGE_MIN_THINK_MS: u64 = 500;

/// One rung of the ladder: a house bot's name, what it is, and how it plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rung {
    /// The house bot's name (`house-...`).
    pub name: &'static str,
    /// One line for its profile: what it is.
    pub summary: &'static str,
    /// How it plays.
    pub play: Play,
}

impl Rung {
    /// The playout cap per move on a `size` x `size` board (`None` for random play): the 11x11
    /// cap scaled by cells so a move costs about the same time on every size, at least 16.
    pub fn max_playouts(&self, size: u8) -> Option<u32> {
        match self.play {
            Play::Random => None,
            Play::Search { playouts_11, .. } => {
                let cells = u64::from(size.max(1)) * u64::from(size.max(1));
                let scaled = u64::from(playouts_11) * 121 / cells;
                Some(scaled.clamp(16, u64::from(u32::MAX)) as u32)
            }
        }
    }

    /// The search's tuning for a move on a `size` x `size` board with `think_ms` to think:
    /// [`Tuning::CLOSURE_TREE`] for a knowing rung on boards up to [`KNOWLEDGE_MAX_SIZE`] with
    /// at least [`KNOWLEDGE_MIN_THINK_MS`], else [`Tuning::HOUSE`] (also for random play,
    /// which searches nothing).
    #[must_use]
    pub fn tuning(&self, size: u8, think_ms: u64) -> Tuning {
        if self.knows(size, think_ms) {
            Tuning::CLOSURE_TREE
        } else {
            Tuning::HOUSE
        }
    }

    /// Whether a move on a `size` x `size` board with `think_ms` to think uses Hex knowledge
    /// ([`Rung::tuning`] is then [`Tuning::CLOSURE_TREE`]).
    #[must_use]
    pub fn knows(&self, size: u8, think_ms: u64) -> bool {
        matches!(
            self.play,
            Play::Search {
                knowledge: true,
                ..
            }
        ) && size <= KNOWLEDGE_MAX_SIZE
            && think_ms >= KNOWLEDGE_MIN_THINK_MS
    }
}

/// The ladder, weakest first. Each rung beats the one below it clearly: the summaries quote
/// the round robin on 11x11 in `BENCHMARKS.md` (20 games a pair, Bradley-Terry fit anchored at
/// house-random, 95% intervals there), and `tests/ladder.rs` checks the order on a small board.
pub const LADDER: [Rung; 5] = [
    Rung {
        name: "house-random",
        summary: "uniformly random legal moves; the ladder's floor (0 Elo)",
        play: Play::Random,
    },
    Rung {
        name: "house-novice",
        summary: "tree search with 60 playouts a move; about +420 Elo over house-random (won 20 of 20)",
        play: Play::Search {
            playouts_11: 60,
            knowledge: false,
        },
    },
    Rung {
        name: "house-club",
        summary: "tree search with 600 playouts a move; about +370 Elo over house-novice (won 20 of 20)",
        play: Play::Search {
            playouts_11: 600,
            knowledge: false,
        },
    },
    Rung {
        name: "house-bridge",
        summary: "tree search with 5,000 playouts a move; about +350 Elo over house-club (won 19 of 20)",
        play: Play::Search {
            playouts_11: 5_000,
            knowledge: false,
        },
    },
    Rung {
        name: "house-master",
        summary: "tree search for as long as its clock allows (at most 2 s a move), with virtual connections (H-search to closure) and a solver near the root on boards up to 11x11; about +170 Elo over house-bridge (won 15 of 20 at 40,000 playouts a move, before the knowledge); 24% against MoHex 2.0 at 1 s a move over 208 games (11% over 97 without the knowledge)",
        play: Play::Search {
            playouts_11: 2_000_000,
            knowledge: true,
        },
    },
];

/// The rung called `name`, if any.
pub fn rung(name: &str) -> Option<&'static Rung> {
    LADDER.iter().find(|r| r.name == name)
}

/// The longest a house bot thinks on one move, whatever its clock (keeps sets watchable).
pub const MAX_THINK_MS: u64 = 2_000;

/// How long a seat can afford to think on this move, in ms, from its own Fischer clock:
/// `time_left_ms` on its clock now, `increment_ms` added after each move, and `empty_cells`
/// still on the board (from which the moves it still expects to make are estimated). Never
/// more than a quarter of what is left, never more than [`MAX_THINK_MS`], and 0 when less
/// than a safety reserve remains (then only an instant move is safe).
pub fn think_time_ms(time_left_ms: u64, increment_ms: u64, empty_cells: u32) -> u64 {
    // Games rarely fill the board: expect to play about a third of the empty cells, and plan
    // for at least 8 more moves so an early long think cannot starve the endgame.
    let expected_moves = u64::from(empty_cells / 3).max(8);
    // Kept back for the answer's trip and the commit; the clock runs until the move is stored.
    let reserve_ms = (time_left_ms / 10).clamp(50, 500);
    let usable = time_left_ms.saturating_sub(reserve_ms);
    let share = usable / expected_moves + increment_ms * 9 / 10;
    share
        .min(usable / 4 + increment_ms / 2)
        .min(usable)
        .min(MAX_THINK_MS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinking_time_follows_the_clock() {
        // 10+0 on an empty 11x11 board: 40 expected moves out of 9.5 s usable.
        assert_eq!(think_time_ms(10_000, 0, 121), 237);
        // Late in the game, fewer moves expected: a larger share.
        assert_eq!(think_time_ms(10_000, 0, 30), 950);
        // The increment is spent almost whole; the cap holds.
        assert_eq!(think_time_ms(60_000, 2_000, 121), MAX_THINK_MS);
        assert_eq!(think_time_ms(3_000, 1_000, 100), 981);
        // Almost flagged: nothing beyond the reserve, even with an increment to come.
        assert_eq!(think_time_ms(40, 5_000, 100), 0);
        assert_eq!(think_time_ms(0, 0, 0), 0);
        // Never more than a quarter of what is usable plus half the increment.
        assert_eq!(think_time_ms(1_000, 0, 1), 112);
        assert_eq!(think_time_ms(4_000, 2_000, 1), 1_900);
        // ... and never more than is on the clock now, whatever increment comes after.
        assert_eq!(think_time_ms(1_000, 2_000, 1), 900);
    }

    #[test]
    fn rungs_scale_with_the_board_and_are_ordered() {
        let bridge = rung("house-bridge").expect("on the ladder");
        assert_eq!(bridge.max_playouts(11), Some(5_000));
        assert_eq!(bridge.max_playouts(19), Some(1_675));
        assert_eq!(rung("house-random").and_then(|r| r.max_playouts(11)), None);
        assert_eq!(
            rung("house-novice").and_then(|r| r.max_playouts(26)),
            Some(16)
        );
        let caps: Vec<u32> = LADDER.iter().filter_map(|r| r.max_playouts(11)).collect();
        assert!(caps.windows(2).all(|w| w[0] < w[1]), "{caps:?}");
        assert_eq!(rung("house-nobody"), None);
    }

    #[test]
    fn only_house_master_uses_knowledge_and_only_where_it_has_time_for_it() {
        let master = rung("house-master").expect("on the ladder");
        assert_eq!(master.tuning(11, 1_000), Tuning::CLOSURE_TREE);
        assert_eq!(
            master.tuning(KNOWLEDGE_MAX_SIZE, KNOWLEDGE_MIN_THINK_MS),
            Tuning::CLOSURE_TREE
        );
        // A larger board, or too short a think: the search without the closure.
        assert_eq!(master.tuning(KNOWLEDGE_MAX_SIZE + 1, 2_000), Tuning::HOUSE);
        assert_eq!(master.tuning(11, KNOWLEDGE_MIN_THINK_MS - 1), Tuning::HOUSE);
        for r in LADDER.iter().filter(|r| r.name != "house-master") {
            assert_eq!(r.tuning(11, 2_000), Tuning::HOUSE, "{}", r.name);
        }
    }
}
