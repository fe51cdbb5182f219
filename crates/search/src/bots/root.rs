//! The root of a strong move's search: the pie decision, the first move's ring, and the Hex
//! knowledge (fill-in, solver) that prunes the root moves or finds a proven win.

use hex::Position;

use super::Tuning;
use crate::board::{Board, CellSet};
use crate::inferior::{dominated, fill_in};
use crate::solver::{self, Verdict};

/// What the Hex knowledge decides at the root.
pub(super) enum Root {
    /// A proven win: play this cell.
    Play(u16),
    /// Search among these cells.
    Search(Vec<u16>),
}

/// The root after fill-in and the solver (issue 23): the winning move of a proven win; else the
/// empty cells that are neither dead nor captured, within the mustplay when the opponent
/// threatens to connect (within the cells that prolong a proven loss), less the dominated
/// ones with [`Tuning::prune_dominated`] (but in a proven loss). Falls back to the
/// smaller unpruned set whenever pruning would leave nothing. `stop` may end the solver's
/// analysis early ([`solver::analyse_until`]).
pub(super) fn knowledge_root(
    pos: &Position,
    empties: &[u16],
    tuning: &Tuning,
    stop: &mut dyn FnMut() -> bool,
) -> Root {
    let board = Board::of(pos);
    let me = pos.mover().number();
    let (keep, fill, lost) = if tuning.solver {
        let a = solver::analyse_until(&board, me, &tuning.root_vc, stop);
        match a.verdict {
            Verdict::Won { win } => return Root::Play(win as u16),
            Verdict::Lost { prolong } => (Some(prolong), a.fill, true),
            Verdict::Open { mustplay } => (mustplay, a.fill, false),
        }
    } else {
        (None, fill_in(&board), false)
    };
    let filled = if tuning.fill_in {
        fill.filled()
    } else {
        CellSet::EMPTY
    };
    let within: Vec<u16> = empties
        .iter()
        .copied()
        .filter(|&i| keep.is_none_or(|k| k.contains(usize::from(i))))
        .collect();
    let mut live: Vec<u16> = within
        .iter()
        .copied()
        .filter(|&i| !filled.contains(usize::from(i)))
        .collect();
    if tuning.prune_dominated && !lost && !live.is_empty() {
        // each cell left out is dominated by one kept (never all of them)
        let among = CellSet::of(&live.iter().map(|&i| usize::from(i)).collect::<Vec<_>>());
        let gone = dominated(&fill.board, me, &among);
        live.retain(|&i| !gone.contains(usize::from(i)));
    }
    if !live.is_empty() {
        Root::Search(live)
    } else if !within.is_empty() {
        Root::Search(within)
    } else {
        Root::Search(empties.to_vec())
    }
}

pub(super) fn on_outer_ring(pos: &Position, i: u16) -> bool {
    let c = pos.cell_at(usize::from(i));
    let last = pos.size() - 1;
    c.row == 0 || c.col == 0 || c.row == last || c.col == last
}

/// Seat 2's pie decision: take over the first stone when it is off the outer ring.
pub(super) fn swap_is_worth_it(pos: &Position) -> bool {
    pos.board_slice()
        .iter()
        .position(|&v| v == 1 || v == 2)
        .is_some_and(|i| !on_outer_ring(pos, i as u16))
}
