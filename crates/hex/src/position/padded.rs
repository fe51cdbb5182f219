//! The padded-index view of a position for search code, and the union-find over stones with
//! the edge masks of their groups that every placement updates.

use super::{BORDER, BOTTOM, LEFT, LEFT_RIGHT, Position, RIGHT, TOP, TOP_BOTTOM};
use crate::{Cell, MAX_MOVES, Outcome, Seat};

impl Position {
    // ----- the padded-index view for search code (crate hex-search) -----
    //
    // Search code walks the board millions of times a second: it reads the padded board
    // directly instead of going through `Cell`s. A padded index is `(row + 1) * stride() + col + 1`.

    /// The seat whose turn it is by ply parity (even: seat 1), ignoring the outcome.
    pub fn mover(&self) -> Seat {
        if self.ply.is_multiple_of(2) {
            Seat::One
        } else {
            Seat::Two
        }
    }

    /// The padded row length, `size + 2`.
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// The padded board, `stride() * stride()` values: [`EMPTY`], 1 or 2 (the stone's owner
    /// now), [`BORDER`] outside the board.
    pub fn board_slice(&self) -> &[u8] {
        &self.board
    }

    /// Padded index of an on-board cell.
    pub fn index(&self, cell: Cell) -> Option<usize> {
        cell.on_board(self.size)
            .then(|| (usize::from(cell.row) + 1) * self.stride + usize::from(cell.col) + 1)
    }

    /// The cell of a padded on-board index.
    ///
    /// # Panics
    /// When `i` is not an on-board padded index (a programming error of the caller).
    pub fn cell_at(&self, i: usize) -> Cell {
        Cell::new((i / self.stride - 1) as u8, (i % self.stride - 1) as u8)
    }

    /// Padded index of the stone the last move placed, or that a swap took over: the
    /// opponent's last move, as search code weighs the answers to it. `None` before the first
    /// move (opening stones are not moves) and for a position read from its compact form,
    /// which keeps no history.
    pub fn last_index(&self) -> Option<usize> {
        self.last.map(usize::from)
    }

    /// The stone owner whose axis is top-bottom (1, or 2 after a swap).
    pub fn top_bottom_owner(&self) -> u8 {
        if self.swapped { 2 } else { 1 }
    }

    pub(super) fn axis_bits(&self, owner: u8) -> u8 {
        if owner == self.top_bottom_owner() {
            TOP_BOTTOM
        } else {
            LEFT_RIGHT
        }
    }

    pub(super) fn cells_where(&self, value: u8) -> Vec<Cell> {
        let n = usize::from(self.size);
        let mut out = Vec::new();
        for r in 0..n {
            for c in 0..n {
                if self.board[(r + 1) * self.stride + c + 1] == value {
                    out.push(Cell::new(r as u8, c as u8));
                }
            }
        }
        out
    }

    /// Edges touched by the on-board padded index `i` (corners touch two): a cell lies on an
    /// edge exactly when its neighbour beyond that edge is border padding (no division needed).
    #[inline]
    pub(super) fn edge_bits(&self, i: usize) -> u8 {
        let w = self.stride;
        let b = &self.board;
        (u8::from(b[i - w] == BORDER) * TOP)
            | (u8::from(b[i + w] == BORDER) * BOTTOM)
            | (u8::from(b[i - 1] == BORDER) * LEFT)
            | (u8::from(b[i + 1] == BORDER) * RIGHT)
    }

    #[inline]
    pub(super) fn neighbour_indices(&self, i: usize) -> [usize; 6] {
        let w = self.stride;
        [i - w, i - w + 1, i - 1, i + 1, i + w - 1, i + w]
    }

    #[inline]
    pub(super) fn find(&mut self, mut i: usize) -> usize {
        loop {
            let p = usize::from(self.parent[i]);
            if p == i {
                return i;
            }
            let gp = usize::from(self.parent[p]);
            self.parent[i] = gp as u16; // path halving
            i = gp;
        }
    }

    #[inline]
    pub(super) fn find_const(&self, mut i: usize) -> usize {
        loop {
            let p = usize::from(self.parent[i]);
            if p == i {
                return i;
            }
            i = p;
        }
    }

    /// Puts a stone of `owner` on the empty padded index `i`, merges it with its same-owner
    /// neighbours and returns whether its group now joins `owner`'s axis. Does not touch ply.
    #[inline]
    pub(super) fn place_stone(&mut self, i: usize, owner: u8) -> bool {
        self.board[i] = owner;
        let nbs = self.neighbour_indices(i);
        let vals = nbs.map(|nb| self.board[nb]);
        // on an edge exactly when the neighbour beyond it is padding
        let mut mask = (u8::from(vals[0] == BORDER) * TOP)
            | (u8::from(vals[5] == BORDER) * BOTTOM)
            | (u8::from(vals[2] == BORDER) * LEFT)
            | (u8::from(vals[3] == BORDER) * RIGHT);
        // the first same-owner neighbour's root becomes the root of the merged group, so the
        // stones already in that group keep their depth; the new stone hangs right below it
        let mut root = i;
        for (nb, v) in nbs.into_iter().zip(vals) {
            if v == owner {
                let r = self.find(nb);
                if root == i {
                    root = r;
                } else if r != root {
                    mask |= self.edges[r];
                    self.parent[r] = root as u16;
                }
            }
        }
        self.parent[i] = root as u16;
        mask |= self.edges[root];
        self.edges[root] = mask;
        let axis = self.axis_bits(owner);
        mask & axis == axis
    }

    /// A move by the seat on move on the empty padded index `i` (legality already known: the
    /// fast path of [`play`](Position::play) for playouts).
    ///
    /// # Panics
    /// When `i` is outside the padded board; an occupied or padding `i` corrupts the position.
    #[inline]
    pub fn place_move(&mut self, i: usize) {
        let seat = self.mover();
        let connected = self.place_stone(i, seat.number());
        self.ply += 1;
        // padded boards have at most 28 * 28 cells: fits
        self.last = Some(i as u16);
        if connected {
            self.outcome = Some(Outcome::Connection { winner: seat });
        } else if self.ply >= MAX_MOVES {
            self.outcome = Some(Outcome::MoveCap);
        }
    }

    /// Whether a stone of `owner` on the empty padded index `i` would join `owner`'s axis.
    ///
    /// # Panics
    /// When `i` is not an on-board padded index.
    pub fn connects_if_placed(&self, i: usize, owner: u8) -> bool {
        let mut mask = self.edge_bits(i);
        for nb in self.neighbour_indices(i) {
            if self.board[nb] == owner {
                mask |= self.edges[self.find_const(nb)];
            }
        }
        let axis = self.axis_bits(owner);
        mask & axis == axis
    }
}
