//! The expensive Hex knowledge inside the tree (issue 23, "candidate 2"): once a node of the
//! search has earned it (`Tuning::knowledge_at` real visits), its position is analysed once
//! ([`crate::solver::analyse_quick`]: fill-in, two H-searches) and the answer turned into
//! what the tree needs: a proof, or the set of moves worth keeping as children.

use hex::{BORDER, EMPTY};

use crate::board::{Board, CellSet};
use crate::inferior;
use crate::solver::{self, Verdict};
use crate::vc::VcLimits;

/// What one node's analysis tells the tree, for the player on move there.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum NodeKnowledge {
    /// The mover wins by playing this padded cell (and so the node is lost for the player who
    /// moved into it).
    Wins(u16),
    /// The mover is lost whatever it plays.
    Lost,
    /// Not proven: only children in `keep` are worth searching (`None`: no pruning found).
    Open(Option<CellSet>),
}

/// The analysis [`Board`] of the tree's padded scratch board `cells` (stride `stride`, size
/// `size`, `tb_owner` connecting top and bottom), its edge padding (any encoding above 2)
/// read as [`BORDER`].
pub(super) fn tree_board(cells: &[u8], (size, stride, tb_owner): (usize, usize, u8)) -> Board {
    Board {
        size,
        stride,
        cells: cells
            .iter()
            .take(stride * stride)
            .map(|&v| if v > 2 { BORDER } else { v })
            .collect(),
        tb_owner,
    }
}

/// Analyses the tree's board `cells` (the search's padded scratch board, stride `stride`, size
/// `size`, `tb_owner` connecting top and bottom; edge padding in any encoding above 2) for
/// `mover` on move, within `limits`. `keep` (when found) is the mustplay when the opponent
/// threatens to connect, minus the dead cells and the cells captured by either player (the
/// mustplay itself when that leaves nothing), and, with `dominated`, minus the cells
/// dominated among the rest ([`crate::inferior::dominated`]); never empty. `stop` may end the
/// analysis early ([`solver::analyse_quick_until`]: what it finds still holds).
pub(super) fn analyse_node(
    cells: &[u8],
    (size, stride, tb_owner): (usize, usize, u8),
    mover: u8,
    (limits, dominated): (&VcLimits, bool),
    stop: &mut dyn FnMut() -> bool,
) -> NodeKnowledge {
    let board = tree_board(cells, (size, stride, tb_owner));
    let a = solver::analyse_quick_until(&board, mover, limits, stop);
    match a.verdict {
        Verdict::Won { win } => match u16::try_from(win) {
            Ok(w) if board.cells.get(win) == Some(&EMPTY) => NodeKnowledge::Wins(w),
            _ => NodeKnowledge::Open(None),
        },
        Verdict::Lost { .. } => NodeKnowledge::Lost,
        Verdict::Open { mustplay } => {
            let filled = a.fill.filled();
            if mustplay.is_none() && filled.is_empty() && !dominated {
                return NodeKnowledge::Open(None);
            }
            let empties = board.empties();
            let within = |i: &&usize| mustplay.is_none_or(|m| m.contains(**i));
            let mut keep = CellSet::EMPTY;
            for &i in empties.iter().filter(within) {
                if !filled.contains(i) {
                    keep.insert(i);
                }
            }
            if keep.is_empty() {
                // every cell of the mustplay is filled: keep the mustplay itself
                for &i in empties.iter().filter(within) {
                    keep.insert(i);
                }
            } else if dominated {
                // each cell left out is dominated by one kept (never all of them)
                let gone = inferior::dominated(&a.fill.board, mover, &keep);
                keep = CellSet::of(
                    &keep
                        .iter()
                        .filter(|&i| !gone.contains(i))
                        .collect::<Vec<_>>(),
                );
            }
            // without `dominated`, whatever was found is returned, as before it existed
            let pruned = !dominated || mustplay.is_some() || keep.len() < empties.len();
            NodeKnowledge::Open((pruned && !keep.is_empty()).then_some(keep))
        }
    }
}
