//! House-bot strategies (SPEC section 9): pure functions of a position and an injected RNG, so a
//! given RNG state always gives the same move.
//!
//! - [`random_move`]: a uniformly random empty cell.
//! - [`strong_move`]: immediate win / forced block checks, the pie rule, then Monte Carlo tree
//!   search with RAVE (all-moves-as-first) statistics over fast fill-the-board playouts.
//! - [`random_playout`]: plays random placements to the end of a game (benchmarks, tests).

use rand_core::Rng;

use crate::playout::{Filler, PADDED_CELLS, below, empty_indices, fill_empty_indices};
use hex::{MAX_MOVES, Move, Outcome, Position, Seat};

mod knowledge;
mod pattern;
mod root;
mod tree;

use root::{Root, knowledge_root, on_outer_ring, swap_is_worth_it};
pub use tree::{KeptTree, Tuning};
pub(crate) use tree::{Report, search};

/// A test position from rows of `.`, `1`, `2` (seat 1 joins top and bottom; the seat on move
/// follows from the stone counts). Panics on a malformed one: tests only.
#[cfg(test)]
pub(crate) fn position_of_rows(rows: &[&str]) -> Position {
    let size = rows.len();
    let text: String = rows
        .iter()
        .flat_map(|r| r.chars())
        .map(|c| if c == '.' { '0' } else { c })
        .collect();
    Position::from_compact(&format!("{size}:0:0:{text}")).expect("valid")
}

/// Playouts per move for the house "strong" bot on 11x11: roughly 25 ms per move in a release
/// build on one core. See [`strong_budget_for`] for other sizes.
pub const STRONG_BUDGET: u32 = 5_000;

/// A playout budget for [`strong_move`] on a `size` x `size` board that costs about as much time
/// per move as [`STRONG_BUDGET`] does on 11x11 (playouts get longer and the tree wider on
/// bigger boards): 7469 on 9x9, 5000 on 11x11, 3579 on 13x13, 1675 on 19x19; at least 500
/// and at most 10 000.
pub fn strong_budget_for(size: u8) -> u32 {
    let cells = u32::from(size.max(1)) * u32::from(size.max(1));
    (STRONG_BUDGET * 121 / cells).clamp(500, 10_000)
}

/// A uniformly random empty cell as [`Move::Place`]; never a swap. `None` when the game is over.
pub fn random_move(pos: &Position, rng: &mut impl Rng) -> Option<Move> {
    if pos.is_over() {
        return None;
    }
    let empties = empty_indices(pos);
    if empties.is_empty() {
        return None;
    }
    let k = below(rng, empties.len() as u32) as usize;
    Some(Move::Place(pos.cell_at(usize::from(empties[k]))))
}

/// Plays uniformly random placements (never a swap) for whoever is on move until the game ends,
/// leaving `pos` in its true final state (the first connection, or the move cap), and returns
/// the outcome. A finished position is left as it is and its outcome returned. Allocates
/// nothing.
pub fn random_playout(pos: &mut Position, rng: &mut impl Rng) -> Option<Outcome> {
    if pos.is_over() {
        return pos.outcome();
    }
    let mut empties = [0u16; PADDED_CELLS];
    let m = fill_empty_indices(pos, &mut empties);
    // the same forward Fisher-Yates order as `playout_winner`, so both agree on the winner
    // for equally seeded RNGs
    let mut k = 0;
    while k < m && !pos.is_over() {
        let j = k + below(rng, (m - k) as u32) as usize;
        empties.swap(k, j);
        pos.place_move(usize::from(empties[k]));
        k += 1;
    }
    pos.outcome()
}

/// The winner of a uniformly random completion of `pos` (the same distribution as
/// [`random_playout`]), computed the fast way: every empty cell is filled in a random order,
/// alternating from the seat on move, and the full board is judged once (a full Hex board has
/// exactly one connected seat, and it is the seat that connected first). `pos` is not changed
/// and nothing is allocated. A finished position gives its winner (`None` after a move-cap
/// draw); on boards where the move cap could come first (more than 19x19) this falls back to
/// playing the moves on a copy.
pub fn playout_winner(pos: &Position, rng: &mut impl Rng) -> Option<Seat> {
    if pos.is_over() {
        return pos.outcome().and_then(Outcome::winner);
    }
    let mut empties = [0u16; PADDED_CELLS];
    let m = fill_empty_indices(pos, &mut empties);
    if usize::from(pos.ply()) + m >= usize::from(MAX_MOVES) {
        let mut copy = pos.clone();
        return random_playout(&mut copy, rng).and_then(Outcome::winner);
    }
    let mut filler = Filler::new(pos);
    let owner = filler.fill_and_judge(rng, &mut empties[..m], pos.mover().number());
    Seat::from_number(owner)
}

/// A much stronger house bot than [`random_move`]. `budget` is the number of playouts of the
/// tree search ([`STRONG_BUDGET`] for the house bot; a few hundred already beat random play).
/// Deterministic for a given RNG state. `None` when the game is over.
///
/// In order: with the pie rule pending as the first mover, a random cell of the outer ring
/// (close to a fair offer); as seat 2 at ply 1, [`Move::Swap`] when the opening stone is off
/// the outer ring; a cell that wins at once; the single cell that stops an immediate loss;
/// otherwise the most visited root move of a Monte Carlo tree search with RAVE.
pub fn strong_move(pos: &Position, rng: &mut impl Rng, budget: u32) -> Option<Move> {
    strong_move_within(
        pos,
        rng,
        Limits {
            max_playouts: budget,
            stop: &mut |_| false,
        },
    )
}

/// How often (in playouts) a search asks [`Limits::stop`] whether to end (it also asks during
/// a long analysis of its Hex knowledge, see [`Limits::stop`]).
pub const STOP_CHECK_EVERY: u32 = 32;

/// The limits of one search. The engine reads no clock: a caller that thinks against a clock
/// passes a `stop` that looks at its own.
pub struct Limits<'a> {
    /// Playouts never exceeded; at least one is always run.
    pub max_playouts: u32,
    /// Asked every [`STOP_CHECK_EVERY`] playouts with the number run so far, and every few
    /// dozen steps of an H-search to closure (the Hex knowledge's analyses, tens of ms:
    /// [`crate::vc::h_search_until`]); `true` ends the search, which then answers with what it
    /// has.
    pub stop: &'a mut dyn FnMut(u32) -> bool,
}

/// [`strong_move`] with a stop check as well as a playout cap (see [`Limits`]), with the house
/// bots' [`Tuning::HOUSE`] (house-master with time to think searches with
/// [`Tuning::CLOSURE_TREE`] instead: [`crate::think::choose`]). Deterministic for a given RNG
/// state and a given sequence of `stop` answers.
pub fn strong_move_within(pos: &Position, rng: &mut impl Rng, limits: Limits<'_>) -> Option<Move> {
    strong_move_tuned(pos, rng, limits, &Tuning::HOUSE)
}

/// [`strong_move_within`] with other knobs than [`Tuning::HOUSE`]: house-master's
/// ([`crate::ladder::Rung::tuning`]), or a change of the search measured against the current
/// one.
pub fn strong_move_tuned(
    pos: &Position,
    rng: &mut impl Rng,
    limits: Limits<'_>,
    tuning: &Tuning,
) -> Option<Move> {
    strong_move_tuned_reported(pos, rng, limits, tuning).0
}

/// What the search knew when it chose a move (issue 21: what `hexarena play` sends as the
/// move's `Hexarena-Info`).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInfo {
    /// The mover's win rate after the move, 0..=1 (1 for a move that wins at once).
    pub win_rate: f64,
    /// The expected line, the move first.
    pub pv: Vec<Move>,
    /// Playouts run.
    pub playouts: u32,
}

impl SearchInfo {
    /// The expected line as `a1` cell names, at most `max` of them, a swap left out: the
    /// `pv` of a move's `Hexarena-Info` (a house bot's in practice, `hexarena play`'s).
    #[must_use]
    pub fn pv_names(&self, max: usize) -> Vec<String> {
        self.pv
            .iter()
            .filter_map(|m| match m {
                Move::Place(c) => Some(hex::cell_name(*c)),
                Move::Swap => None,
            })
            .take(max)
            .collect()
    }
}

/// [`strong_move_within`] with what the search knew: None for a move chosen without a search
/// (the pie rule, the first move's ring, a forced block), a win rate of 1 for a move that wins
/// at once. The move is the one [`strong_move_within`] plays for the same RNG state.
pub fn strong_move_reported(
    pos: &Position,
    rng: &mut impl Rng,
    limits: Limits<'_>,
) -> (Option<Move>, Option<SearchInfo>) {
    strong_move_tuned_reported(pos, rng, limits, &Tuning::HOUSE)
}

/// [`strong_move_reported`] with other knobs than [`Tuning::HOUSE`]: what every house bot plays
/// through [`crate::think::choose`] (each with its rung's [`crate::ladder::Rung::tuning`]), and
/// what `hexarena gtp --search NAME` plays, for measuring a tuning against an outside engine.
pub fn strong_move_tuned_reported(
    pos: &Position,
    rng: &mut impl Rng,
    limits: Limits<'_>,
    tuning: &Tuning,
) -> (Option<Move>, Option<SearchInfo>) {
    reported(pos, rng, limits, tuning, None)
}

/// [`strong_move_tuned_reported`] for a player that keeps its search tree from move to move
/// (`hexarena gtp`, one game at a time): with [`Tuning::keep_tree`] the search starts from
/// the subtree `kept` holds for `pos` (see [`KeptTree`]) and leaves its own tree there. A
/// kept tree serves only the position it leads to, so one left by an older move is never
/// misused. Without [`Tuning::keep_tree`], exactly [`strong_move_tuned_reported`].
pub fn strong_move_kept(
    pos: &Position,
    rng: &mut impl Rng,
    limits: Limits<'_>,
    tuning: &Tuning,
    kept: &mut KeptTree,
) -> (Option<Move>, Option<SearchInfo>) {
    reported(pos, rng, limits, tuning, Some(kept))
}

/// The choice of [`strong_move_tuned_reported`] and [`strong_move_kept`] (`kept`: the
/// player's kept tree, if it keeps one).
fn reported(
    pos: &Position,
    rng: &mut impl Rng,
    limits: Limits<'_>,
    tuning: &Tuning,
    kept: Option<&mut KeptTree>,
) -> (Option<Move>, Option<SearchInfo>) {
    let searched = |r: Option<Report>| match r {
        Some(r) => {
            let place = |i: u16| Move::Place(pos.cell_at(usize::from(i)));
            (
                Some(place(r.cell)),
                Some(SearchInfo {
                    win_rate: r.win_rate.clamp(0.0, 1.0),
                    pv: r.pv.iter().map(|&i| place(i)).collect(),
                    playouts: r.playouts,
                }),
            )
        }
        None => (None, None),
    };
    if pos.is_over() {
        return (None, None);
    }
    let me = pos.mover().number();
    let opp = me ^ 3;
    let empties = empty_indices(pos);
    if pos.swap_allowed() && swap_is_worth_it(pos) {
        return (Some(Move::Swap), None);
    }
    if empties.is_empty() {
        return (None, None);
    }
    let place = |i: u16| (Some(Move::Place(pos.cell_at(usize::from(i)))), None);
    if pos.ply() == 0 && pos.opening_len() == 0 && pos.size() > 2 {
        let ring: Vec<u16> = empties
            .iter()
            .copied()
            .filter(|&i| on_outer_ring(pos, i))
            .collect();
        if !ring.is_empty() {
            return place(ring[below(rng, ring.len() as u32) as usize]);
        }
    }
    if let Some(&win) = empties
        .iter()
        .find(|&&i| pos.connects_if_placed(usize::from(i), me))
    {
        let mv = Move::Place(pos.cell_at(usize::from(win)));
        return (
            Some(mv),
            Some(SearchInfo {
                win_rate: 1.0,
                pv: vec![mv],
                playouts: 0,
            }),
        );
    }
    let threats: Vec<u16> = empties
        .iter()
        .copied()
        .filter(|&i| pos.connects_if_placed(usize::from(i), opp))
        .collect();
    match threats.len() {
        1 => place(threats[0]),
        0 if tuning.fill_in || tuning.solver => {
            // the root's analysis may be ended by the search's own stop (no playouts yet)
            let root = knowledge_root(pos, &empties, tuning, &mut || (limits.stop)(0));
            match root {
                Root::Play(i) => place(i),
                Root::Search(cands) => searched(search(pos, rng, limits, tuning, &cands, kept)),
            }
        }
        0 => searched(search(pos, rng, limits, tuning, &empties, kept)),
        _ => searched(search(pos, rng, limits, tuning, &threats, kept)),
    }
}
