//! Chains of stones between a seat's two edges: the winning path, a shortest chain, and
//! whether one more stone would connect.

use std::collections::VecDeque;

use super::{BOTTOM, EMPTY, Position, RIGHT};
use crate::{Axis, Cell, Seat};

impl Position {
    /// When the game was won by connection: a shortest chain of the winner's stones joining its
    /// two edges, ordered from the top (or left) edge to the bottom (or right) edge. The first
    /// cell is on the first edge, the last on the second, consecutive cells are adjacent and no
    /// cell repeats. Ties are broken deterministically (breadth-first search from the first
    /// edge's cells in row-major order, neighbours in the SPEC order). `None` otherwise.
    pub fn winning_path(&self) -> Option<Vec<Cell>> {
        let winner = self.outcome?.winner()?;
        self.shortest_chain(winner)
    }

    /// A shortest chain of `seat`'s stones between its two edges, ordered from the top (or left)
    /// edge, or `None` if that seat is not connected. Used by [`winning_path`](Self::winning_path).
    pub fn shortest_chain(&self, seat: Seat) -> Option<Vec<Cell>> {
        let owner = seat.number();
        let n = usize::from(self.size);
        let w = self.stride;
        let (sources, goal): (Vec<usize>, u8) = match self.axis(seat) {
            Axis::TopBottom => ((0..n).map(|c| w + 1 + c).collect(), BOTTOM),
            Axis::LeftRight => ((0..n).map(|r| (r + 1) * w + 1).collect(), RIGHT),
        };
        let mut came_from = vec![usize::MAX; self.board.len()];
        let mut queue = VecDeque::new();
        for s in sources {
            if self.board[s] == owner {
                came_from[s] = s;
                queue.push_back(s);
            }
        }
        while let Some(i) = queue.pop_front() {
            if self.edge_bits(i) & goal != 0 {
                let mut path = vec![self.cell_at(i)];
                let mut j = i;
                while came_from[j] != j {
                    j = came_from[j];
                    path.push(self.cell_at(j));
                }
                path.reverse();
                return Some(path);
            }
            for nb in self.neighbour_indices(i) {
                if self.board[nb] == owner && came_from[nb] == usize::MAX {
                    came_from[nb] = i;
                    queue.push_back(nb);
                }
            }
        }
        None
    }

    /// Whether a stone of `seat` on `cell` would join `seat`'s two edges, judged on the current
    /// stones (it does not check whose turn it is). `false` for an occupied or off-board cell.
    pub fn would_connect(&self, cell: Cell, seat: Seat) -> bool {
        match self.index(cell) {
            Some(i) if self.board[i] == EMPTY => self.connects_if_placed(i, seat.number()),
            _ => false,
        }
    }
}
