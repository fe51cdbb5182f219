//! The game position with incremental connectivity (SPEC section 2).
//!
//! Storage: the board is a flat array with a one-cell border of sentinel cells around it, so the
//! six neighbours of cell index `i` are `i - W`, `i - W + 1`, `i - 1`, `i + 1`, `i + W - 1`,
//! `i + W` (`W = size + 2`) with no row or column tests, and a cell lies on an edge exactly when
//! its neighbour beyond that edge is padding. Every stone belongs to a union-find group of
//! same-owner stones; each group root carries a 4-bit mask of the board edges the group touches.
//! A placement links the new stone with its same-owner neighbours and checks whether its group's
//! mask covers the owner's current axis: no flood fill, no allocation.

use std::collections::VecDeque;

use crate::{Axis, Cell, MAX_MOVES, MAX_SIZE, Move, Outcome, PlayError, Seat, SetupError};

/// The value of an empty cell in [`Position::board_slice`].
pub const EMPTY: u8 = 0;
/// The value of a padding cell (outside the board) in [`Position::board_slice`].
pub const BORDER: u8 = 3;

pub(crate) const TOP: u8 = 1;
pub(crate) const BOTTOM: u8 = 2;
pub(crate) const LEFT: u8 = 4;
pub(crate) const RIGHT: u8 = 8;
pub(crate) const TOP_BOTTOM: u8 = TOP | BOTTOM;
pub(crate) const LEFT_RIGHT: u8 = LEFT | RIGHT;

/// A game position: board, seat on move, swap state, move count and outcome.
///
/// Build one with [`Position::new`], [`Position::with_opening`] or [`Position::from_compact`];
/// advance it with [`Position::play`]. Equality (`==`) compares the observable state (size, stones,
/// ply, opening length, swap flag, outcome), not the internal union-find layout.
#[derive(Clone, Debug)]
pub struct Position {
    size: u8,
    /// `size + 2`: the padded row length.
    stride: usize,
    /// Padded board: `EMPTY`, 1 or 2 (the seat that owns the stone now), `BORDER` outside.
    board: Vec<u8>,
    /// Union-find parent per padded index (only meaningful for stones).
    parent: Vec<u16>,
    /// Edge mask (`TOP | BOTTOM | LEFT | RIGHT`) of the group, valid at group roots.
    edges: Vec<u8>,
    ply: u16,
    opening_len: u16,
    swapped: bool,
    outcome: Option<Outcome>,
}

impl PartialEq for Position {
    fn eq(&self, other: &Self) -> bool {
        self.size == other.size
            && self.board == other.board
            && self.ply == other.ply
            && self.opening_len == other.opening_len
            && self.swapped == other.swapped
            && self.outcome == other.outcome
    }
}

impl Eq for Position {}

impl Position {
    /// An empty `size` x `size` board, seat 1 on move, swap allowed at ply 1.
    ///
    /// # Errors
    /// [`SetupError::BadSize`] unless `1 <= size <= MAX_SIZE` (26).
    pub fn new(size: u8) -> Result<Position, SetupError> {
        if size == 0 || size > MAX_SIZE {
            return Err(SetupError::BadSize(size));
        }
        let stride = usize::from(size) + 2;
        let mut board = vec![BORDER; stride * stride];
        for r in 0..usize::from(size) {
            let start = (r + 1) * stride + 1;
            board[start..start + usize::from(size)].fill(EMPTY);
        }
        let parent = (0..stride * stride).map(|i| i as u16).collect();
        Ok(Position {
            size,
            stride,
            board,
            parent,
            edges: vec![0; stride * stride],
            ply: 0,
            opening_len: 0,
            swapped: false,
            outcome: None,
        })
    }

    /// A board with the opening stones already on it (SPEC section 2, random opening): stones
    /// at even indices are seat 1's, odd indices seat 2's. They are not moves: `ply()` stays 0
    /// and seat 1 moves first. A non-empty opening makes the swap illegal.
    ///
    /// # Errors
    /// [`SetupError::BadSize`] for a bad size, [`SetupError::TooManyStones`] when the opening
    /// has more stones than cells, [`SetupError::Malformed`] for an odd number of stones or an
    /// opening that already connects a seat's edges, [`SetupError::OffBoard`] and
    /// [`SetupError::Duplicate`] for bad cells.
    pub fn with_opening(size: u8, opening: &[Cell]) -> Result<Position, SetupError> {
        match Position::place_opening(size, opening)? {
            (pos, None) => Ok(pos),
            (_, Some(seat)) => Err(SetupError::Malformed(format!(
                "the opening already connects seat {}'s edges",
                seat.number()
            ))),
        }
    }

    /// [`with_opening`](Position::with_opening) without the connection check: the position and
    /// the seat whose edges the opening already joins, if any.
    pub(crate) fn place_opening(
        size: u8,
        opening: &[Cell],
    ) -> Result<(Position, Option<Seat>), SetupError> {
        let mut pos = Position::new(size)?;
        if opening.len() > usize::from(size) * usize::from(size) {
            return Err(SetupError::TooManyStones);
        }
        if !opening.len().is_multiple_of(2) {
            return Err(SetupError::Malformed(format!(
                "an opening needs as many stones for each seat, got {} stones",
                opening.len()
            )));
        }
        let mut connected = None;
        for (k, &cell) in opening.iter().enumerate() {
            let i = pos.index(cell).ok_or(SetupError::OffBoard(cell))?;
            if pos.board[i] != EMPTY {
                return Err(SetupError::Duplicate(cell));
            }
            let seat = if k % 2 == 0 { Seat::One } else { Seat::Two };
            if pos.place_stone(i, seat.number()) {
                connected = Some(seat);
            }
        }
        // at most 26 * 26 = 676 stones: fits
        pos.opening_len = opening.len() as u16;
        Ok((pos, connected))
    }

    /// Side length of the board.
    pub fn size(&self) -> u8 {
        self.size
    }

    /// Moves played so far: placements and the swap; opening stones excluded.
    pub fn ply(&self) -> u16 {
        self.ply
    }

    /// The seat on move: seat 1 on even ply, seat 2 on odd ply; `None` once the game is over.
    pub fn to_move(&self) -> Option<Seat> {
        if self.outcome.is_some() {
            None
        } else {
            Some(self.mover())
        }
    }

    /// Whether seat 2 swapped (then seat 2 connects top-bottom and seat 1 left-right).
    pub fn swapped(&self) -> bool {
        self.swapped
    }

    /// Number of opening stones on the board (both seats together; 0 = swap rule active).
    pub fn opening_len(&self) -> usize {
        usize::from(self.opening_len)
    }

    /// The edges `seat` must connect: seat 1 top-bottom and seat 2 left-right, exchanged after a
    /// swap.
    pub fn axis(&self, seat: Seat) -> Axis {
        if (seat == Seat::One) != self.swapped {
            Axis::TopBottom
        } else {
            Axis::LeftRight
        }
    }

    /// The seat whose stone is on `cell`; `None` for an empty or off-board cell.
    pub fn stone(&self, cell: Cell) -> Option<Seat> {
        self.index(cell)
            .and_then(|i| Seat::from_number(self.board[i]))
    }

    /// The board as `size` rows of `size` numbers: 0 empty, 1 or 2 the seat owning the stone
    /// (the `board.cells` of the game state).
    pub fn cells(&self) -> Vec<Vec<u8>> {
        let n = usize::from(self.size);
        (0..n)
            .map(|r| {
                let start = (r + 1) * self.stride + 1;
                self.board[start..start + n].to_vec()
            })
            .collect()
    }

    /// The empty cells in row-major order.
    pub fn empty_cells(&self) -> Vec<Cell> {
        self.cells_where(EMPTY)
    }

    /// The cells holding `seat`'s stones, in row-major order.
    pub fn stones_of(&self, seat: Seat) -> Vec<Cell> {
        self.cells_where(seat.number())
    }

    /// Number of stones on the board (opening included).
    pub fn stone_count(&self) -> usize {
        self.board.iter().filter(|&&v| v == 1 || v == 2).count()
    }

    /// How the game ended, `None` while it is still going.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Whether the game has ended (by connection or move cap).
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// Whether [`Move::Swap`] is legal now: no opening, exactly one move played, game not over.
    pub fn swap_allowed(&self) -> bool {
        self.outcome.is_none() && self.opening_len == 0 && self.ply == 1 && !self.swapped
    }

    /// Whether `mv` would be accepted, without playing it.
    ///
    /// # Errors
    /// In this order: [`PlayError::GameOver`] when the game ended; for a placement
    /// [`PlayError::OffBoard`] then [`PlayError::Occupied`]; for a swap
    /// [`PlayError::SwapNotAllowed`] unless [`swap_allowed`](Position::swap_allowed).
    pub fn check(&self, mv: Move) -> Result<(), PlayError> {
        if self.outcome.is_some() {
            return Err(PlayError::GameOver);
        }
        match mv {
            Move::Place(cell) => {
                let i = self.index(cell).ok_or(PlayError::OffBoard)?;
                if self.board[i] != EMPTY {
                    return Err(PlayError::Occupied);
                }
                Ok(())
            }
            Move::Swap => {
                if self.swap_allowed() {
                    Ok(())
                } else {
                    Err(PlayError::SwapNotAllowed)
                }
            }
        }
    }

    /// Plays `mv` for the seat on move. Returns `Ok(Some(outcome))` when this move ended the
    /// game (a connection, or the move cap reached at [`MAX_MOVES`] without one), `Ok(None)`
    /// otherwise.
    ///
    /// A swap turns the single stone into seat 2's, exchanges the seats' axes (seat 2 then
    /// connects top-bottom) and leaves seat 1 on move at ply 2.
    ///
    /// # Errors
    /// The errors of [`check`](Position::check); the position is then completely unchanged.
    pub fn play(&mut self, mv: Move) -> Result<Option<Outcome>, PlayError> {
        self.check(mv)?;
        match mv {
            Move::Place(cell) => {
                // check() proved the cell is on the board
                let i = self.index(cell).ok_or(PlayError::OffBoard)?;
                self.place_move(i);
            }
            Move::Swap => {
                if let Some(i) = self.board.iter().position(|&v| v == 1 || v == 2) {
                    self.board[i] = Seat::Two.number();
                }
                self.swapped = true;
                self.ply += 1;
                if self.ply >= MAX_MOVES {
                    self.outcome = Some(Outcome::MoveCap);
                }
            }
        }
        Ok(self.outcome)
    }

    /// Every legal move: empty when the game is over, else every empty cell in row-major order
    /// as [`Move::Place`], then [`Move::Swap`] last when it is allowed.
    pub fn legal_moves(&self) -> Vec<Move> {
        if self.outcome.is_some() {
            return Vec::new();
        }
        let mut moves: Vec<Move> = self.empty_cells().into_iter().map(Move::Place).collect();
        if self.swap_allowed() {
            moves.push(Move::Swap);
        }
        moves
    }

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

    /// Compact text form for storage: `"{size}:{opening_len}:{swapped}:{cells}"` where
    /// `swapped` is `0` or `1` and `cells` is `size * size` digits `0`/`1`/`2` in row-major
    /// order (the seat owning each stone now). Example: `"3:0:1:000020000"` is a 3x3 game where
    /// seat 2 swapped the centre stone. The ply is derived: stones - opening_len + swapped.
    pub fn to_compact(&self) -> String {
        let n = usize::from(self.size);
        let mut s = String::with_capacity(n * n + 12);
        s.push_str(&format!(
            "{}:{}:{}:",
            self.size,
            self.opening_len,
            u8::from(self.swapped)
        ));
        for r in 0..n {
            for c in 0..n {
                s.push(char::from(b'0' + self.board[(r + 1) * self.stride + c + 1]));
            }
        }
        s
    }

    /// Rebuilds a position from [`to_compact`](Position::to_compact) text, connectivity and
    /// outcome included, in one pass over the cells (a few microseconds on 19x19).
    ///
    /// Everything is validated: the four fields, the size, the digits, stone counts that
    /// alternate correctly from seat 1 (counting the swap), the opening length (even, at most
    /// the stones on the board, 0 when swapped), at most [`MAX_MOVES`] moves, and a connection
    /// only for the seat that made the last move.
    ///
    /// # Errors
    /// [`SetupError::BadSize`] for a size outside 1..=26, [`SetupError::Malformed`] for anything
    /// else that is not a reachable position. Never panics.
    pub fn from_compact(text: &str) -> Result<Position, SetupError> {
        let bad = |why: &str| SetupError::Malformed(format!("compact position: {why}"));
        let mut parts = text.split(':');
        let (Some(size_s), Some(open_s), Some(swap_s), Some(cells_s), None) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            return Err(bad("expected 4 fields separated by ':'"));
        };
        let size = parse_small(size_s).ok_or_else(|| bad("size is not a number"))?;
        let size = u8::try_from(size).map_err(|_| bad("size is too large"))?;
        let mut pos = Position::new(size)?;
        let opening_len =
            parse_small(open_s).ok_or_else(|| bad("opening length is not a number"))?;
        let swapped = match swap_s {
            "0" => false,
            "1" => true,
            _ => return Err(bad("swapped flag must be 0 or 1")),
        };
        let n = usize::from(size);
        if cells_s.len() != n * n {
            return Err(bad("cell string length is not size*size"));
        }
        pos.swapped = swapped;
        let mut counts = [0usize; 3];
        let mut connected: Option<Seat> = None;
        for (k, b) in cells_s.bytes().enumerate() {
            let v = match b {
                b'0' => EMPTY,
                b'1' => 1,
                b'2' => 2,
                _ => return Err(bad("cells must be the digits 0, 1 and 2")),
            };
            counts[usize::from(v)] += 1;
            if v != EMPTY {
                let i = (k / n + 1) * pos.stride + k % n + 1;
                if pos.place_stone(i, v) {
                    connected = Seat::from_number(v);
                }
            }
        }
        let (ones, twos) = (counts[1], counts[2]);
        let stones = ones + twos;
        if opening_len % 2 != 0 || opening_len > stones {
            return Err(bad(
                "opening length must be even and at most the number of stones",
            ));
        }
        if swapped && opening_len != 0 {
            return Err(bad("a swap is impossible after an opening"));
        }
        let (ply, balanced) = if swapped {
            // seat 1's first stone became seat 2's; later stones alternate from seat 1
            (
                stones + 1,
                stones >= 1 && (twos == ones || twos == ones + 1),
            )
        } else {
            (stones - opening_len, ones == twos || ones == twos + 1)
        };
        if !balanced {
            return Err(bad("stone counts do not alternate from seat 1"));
        }
        if ply > usize::from(MAX_MOVES) {
            return Err(bad("more moves than the move cap"));
        }
        pos.ply = ply as u16;
        pos.opening_len = opening_len as u16;
        if let Some(winner) = connected {
            // the last move was made by seat 1 when ply is odd (moves alternate from seat 1)
            let last_mover = if ply % 2 == 1 { Seat::One } else { Seat::Two };
            if ply == 0 || last_mover != winner || (swapped && ply == 2) {
                return Err(bad("a connection not made by the last move"));
            }
            pos.outcome = Some(Outcome::Connection { winner });
        } else if pos.ply >= MAX_MOVES {
            pos.outcome = Some(Outcome::MoveCap);
        }
        Ok(pos)
    }

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

    /// The stone owner whose axis is top-bottom (1, or 2 after a swap).
    pub fn top_bottom_owner(&self) -> u8 {
        if self.swapped { 2 } else { 1 }
    }

    fn axis_bits(&self, owner: u8) -> u8 {
        if owner == self.top_bottom_owner() {
            TOP_BOTTOM
        } else {
            LEFT_RIGHT
        }
    }

    fn cells_where(&self, value: u8) -> Vec<Cell> {
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
    fn edge_bits(&self, i: usize) -> u8 {
        let w = self.stride;
        let b = &self.board;
        (u8::from(b[i - w] == BORDER) * TOP)
            | (u8::from(b[i + w] == BORDER) * BOTTOM)
            | (u8::from(b[i - 1] == BORDER) * LEFT)
            | (u8::from(b[i + 1] == BORDER) * RIGHT)
    }

    #[inline]
    fn neighbour_indices(&self, i: usize) -> [usize; 6] {
        let w = self.stride;
        [i - w, i - w + 1, i - 1, i + 1, i + w - 1, i + w]
    }

    #[inline]
    fn find(&mut self, mut i: usize) -> usize {
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
    fn find_const(&self, mut i: usize) -> usize {
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
    fn place_stone(&mut self, i: usize, owner: u8) -> bool {
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

/// Parses a short run of ASCII digits in canonical form (no sign, no spaces, no leading zero,
/// at most 4 digits).
fn parse_small(s: &str) -> Option<usize> {
    if s.is_empty() || s.len() > 4 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if s.len() > 1 && s.starts_with('0') {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
#[path = "position_tests.rs"]
mod tests;
