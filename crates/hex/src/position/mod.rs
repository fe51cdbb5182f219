//! The game position with incremental connectivity (SPEC section 2).
//!
//! Storage: the board is a flat array with a one-cell border of sentinel cells around it, so the
//! six neighbours of cell index `i` are `i - W`, `i - W + 1`, `i - 1`, `i + 1`, `i + W - 1`,
//! `i + W` (`W = size + 2`) with no row or column tests, and a cell lies on an edge exactly when
//! its neighbour beyond that edge is padding. Every stone belongs to a union-find group of
//! same-owner stones; each group root carries a 4-bit mask of the board edges the group touches.
//! A placement links the new stone with its same-owner neighbours and checks whether its group's
//! mask covers the owner's current axis: no flood fill, no allocation.

mod chain;
mod compact;
mod padded;

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

/// A game position: board, seat on move, swap state, move count and outcome, and the last move
/// ([`Position::last_index`]).
///
/// Build one with [`Position::new`], [`Position::with_opening`] or [`Position::from_compact`];
/// advance it with [`Position::play`]. Equality (`==`) compares the observable state (size, stones,
/// ply, opening length, swap flag, outcome), not the internal union-find layout nor the last
/// move.
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
    /// Padded index of the stone the last move placed (a swap's: the stone it took over);
    /// not part of the position's identity (see `PartialEq`), so search code can read the
    /// opponent's last move without a move list.
    last: Option<u16>,
}

/// Two positions are equal when their boards, plies, openings, swap and outcome are: the
/// move that came last is history, not position.
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
            last: None,
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
                    // padded boards have at most 28 * 28 cells: fits
                    self.last = Some(i as u16);
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
}

#[cfg(test)]
mod tests;
