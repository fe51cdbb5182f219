//! Inferior cells (issue 23): cells that cannot change who wins, found by local patterns, and
//! the fill-in that puts stones on them for analysis.
//!
//! - Dead ([`is_dead`]): an empty cell whose six neighbours are all stones or edges, each
//!   colour in one unbroken run around it. A stone there joins nothing that is not already
//!   joined around it, and cuts nothing, so its colour never matters (the 4-2 and 3-3 rings,
//!   a cell boxed in by one colour, a corner of an edge).
//! - Captured ([`captured_pair`]): two adjacent empty cells such that, whichever of them the
//!   opponent takes, the player's stone in the other leaves the opponent's stone dead: the
//!   player may count both as its own.
//! - Fill-in ([`fill_in`]): dead cells get a stone (either colour will do), captured pairs the
//!   capturer's, until nothing changes. Sound for the connection analysis of both players.

use hex::{BORDER, EMPTY};

use crate::board::{Board, CellSet};

/// Whether the empty on-board cell `i` is dead (see the module doc). `false` for anything
/// else, and next to a board corner's padding (whose colour is both edges').
pub fn is_dead(board: &Board, i: usize) -> bool {
    if board.cells.get(i) != Some(&EMPTY) || !board.on_board(i) {
        return false;
    }
    let colours = board.ring(i).map(|j| board.colour(j));
    if colours.iter().any(|&v| v == EMPTY || v == BORDER) {
        return false;
    }
    // a colour is in one run when it starts a run at most once going around
    let starts = |c: u8| {
        (0..6)
            .filter(|&t| colours[t] == c && colours[(t + 5) % 6] != c)
            .count()
    };
    starts(1) <= 1 && starts(2) <= 1
}

/// Whether the adjacent empty cells `a` and `b` are captured by `player` (see the module doc).
pub fn captured_pair(board: &Board, a: usize, b: usize, player: u8) -> bool {
    if board.cells.get(a) != Some(&EMPTY)
        || board.cells.get(b) != Some(&EMPTY)
        || !board.ring(a).contains(&b)
    {
        return false;
    }
    let answered = |taken: usize, reply: usize| {
        let mut after = board.clone();
        after.cells[reply] = player;
        is_dead(&after, taken)
    };
    answered(a, b) && answered(b, a)
}

/// What [`fill_in`] found and the board it filled.
#[derive(Clone, Debug)]
pub struct FillIn {
    /// The board with every dead and captured cell filled.
    pub board: Board,
    /// Cells found dead (filled with either colour).
    pub dead: CellSet,
    /// Cells captured by player 1 (`[0]`) and player 2 (`[1]`), filled with their stones.
    pub captured: [CellSet; 2],
}

impl FillIn {
    /// Every filled cell: no use playing there.
    pub fn filled(&self) -> CellSet {
        self.dead.union(&self.captured[0]).union(&self.captured[1])
    }
}

/// Fills dead cells and captured pairs until none is left (see the module doc). A dead cell
/// gets the colour of its first neighbour in ring order (any colour is right).
pub fn fill_in(board: &Board) -> FillIn {
    let mut out = FillIn {
        board: board.clone(),
        dead: CellSet::EMPTY,
        captured: [CellSet::EMPTY; 2],
    };
    loop {
        let mut changed = false;
        for i in 0..out.board.cells.len() {
            if is_dead(&out.board, i) {
                out.board.cells[i] = out.board.colour(out.board.ring(i)[0]);
                out.dead.insert(i);
                changed = true;
            }
        }
        for a in 0..out.board.cells.len() {
            if out.board.cells[a] != EMPTY || !out.board.on_board(a) {
                continue;
            }
            for b in out.board.ring(a) {
                if b < a || out.board.cells[b] != EMPTY {
                    continue;
                }
                for player in [1u8, 2] {
                    if captured_pair(&out.board, a, b, player) {
                        out.board.cells[a] = player;
                        out.board.cells[b] = player;
                        let set = &mut out.captured[usize::from(player - 1)];
                        set.insert(a);
                        set.insert(b);
                        changed = true;
                        break;
                    }
                }
                if out.board.cells[a] != EMPTY {
                    break;
                }
            }
        }
        if !changed {
            return out;
        }
    }
}

#[cfg(test)]
mod tests {
    // tests may unwrap (house rules): the cells they name are on their boards
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn b(rows: &[&str]) -> Board {
        Board::parse(rows).expect("a square board")
    }

    #[test]
    fn a_cell_ringed_by_four_of_one_colour_and_two_of_the_other_is_dead() {
        // around (2, 2): (1,2) (1,3) (2,3) are 1s... ring order: up, up-right, right, down,
        // down-left, left
        let board = b(&[".....", "..11.", ".2.1.", ".21..", "....."]);
        let i = board.at(2, 2).unwrap();
        assert!(is_dead(&board, i));
        // the same ring with the colours alternating is not: 1 at (3,2) splits the 2s
        let live = b(&[".....", "..12.", ".2.1.", ".21..", "....."]);
        assert!(!is_dead(&live, live.at(2, 2).unwrap()));
        // an empty neighbour keeps a cell alive
        let open = b(&[".....", "..11.", ".2.1.", "..1..", "....."]);
        assert!(!is_dead(&open, open.at(2, 2).unwrap()));
        // a stone is not a dead cell
        assert!(!is_dead(&board, board.at(1, 2).unwrap()));
    }

    #[test]
    fn an_edge_cell_between_its_own_edge_and_a_wall_of_the_other_colour_is_dead() {
        // (0, 2): above it the top edge (seat 1's), below it 2s and beside it 2s: one run each
        let board = b(&[".2.2.", "22...", ".....", ".....", "....."]);
        let board = {
            let mut x = board;
            let i = x.at(1, 2).unwrap();
            x.cells[i] = 2;
            x
        };
        assert!(is_dead(&board, board.at(0, 2).unwrap()));
    }

    #[test]
    fn two_cells_walled_in_by_one_colour_are_captured_by_it_and_filled_in() {
        // (2,2) and (2,3) inside a ring of 1s: whichever 2 takes, 1 takes the other and the
        // 2 stone is dead
        let board = b(&["......", "..111.", ".1..1.", ".1111.", "..22..", "......"]);
        let (a, c) = (board.at(2, 2).unwrap(), board.at(2, 3).unwrap());
        assert!(captured_pair(&board, a, c, 1));
        // not a pair: (2,2) and (4,0) are not neighbours
        assert!(!captured_pair(&board, a, board.at(4, 0).unwrap(), 1));
        // an opening in the wall: 2 at (2,2) then reaches (1,1), so 1 cannot capture the pair
        let mut open = board.clone();
        open.cells[board.at(2, 1).unwrap()] = EMPTY;
        assert!(!captured_pair(&open, a, c, 1));
        let f = fill_in(&board);
        assert!(
            f.captured[0].contains(a) && f.captured[0].contains(c),
            "{f:?}"
        );
        assert_eq!(f.board.cells[a], 1);
        assert_eq!(f.board.cells[c], 1);
        assert!(!f.filled().contains(board.at(0, 0).unwrap()));
    }

    #[test]
    fn fill_in_leaves_an_open_board_alone() {
        let board = b(&["....", ".1..", "..2.", "...."]);
        let f = fill_in(&board);
        assert!(f.filled().is_empty());
        assert_eq!(f.board, board);
    }
}
