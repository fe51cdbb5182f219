//! Errors of the engine.

use std::fmt;

use crate::Cell;

/// Why a move was refused; the position is unchanged (SPEC section 10 codes).
///
/// For a placement the checks run in this order: [`GameOver`](PlayError::GameOver),
/// [`OffBoard`](PlayError::OffBoard), [`Occupied`](PlayError::Occupied); for a swap:
/// [`GameOver`](PlayError::GameOver), [`SwapNotAllowed`](PlayError::SwapNotAllowed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayError {
    /// The cell is outside the `size` x `size` board (HTTP 422 `off_board`).
    OffBoard,
    /// The cell already holds a stone (HTTP 422 `occupied`).
    Occupied,
    /// A swap other than seat 2's first move of a game without opening stones
    /// (HTTP 422 `swap_not_allowed`).
    SwapNotAllowed,
    /// The game already ended (HTTP 409 `game_over`).
    GameOver,
}

impl PlayError {
    /// The API error code: `"off_board"`, `"occupied"`, `"swap_not_allowed"` or `"game_over"`.
    pub const fn code(self) -> &'static str {
        match self {
            PlayError::OffBoard => "off_board",
            PlayError::Occupied => "occupied",
            PlayError::SwapNotAllowed => "swap_not_allowed",
            PlayError::GameOver => "game_over",
        }
    }
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PlayError::OffBoard => "the cell is not on the board",
            PlayError::Occupied => "the cell already holds a stone",
            PlayError::SwapNotAllowed => {
                "swap is only allowed as seat 2's first move in a game without opening stones"
            }
            PlayError::GameOver => "the game is already over",
        })
    }
}

impl std::error::Error for PlayError {}

/// Why a position (or an opening) could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// The board size is outside `1..=MAX_SIZE` (26).
    BadSize(u8),
    /// An opening stone lies outside the board.
    OffBoard(Cell),
    /// An opening names the same cell twice.
    Duplicate(Cell),
    /// More opening stones than the board can hold without a connection.
    TooManyStones,
    /// Anything else: odd opening length, an opening that already connects, a compact string
    /// that does not describe a reachable position, an unparsable text.
    Malformed(String),
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::BadSize(s) => {
                write!(f, "board size {s} is outside 1..={}", crate::MAX_SIZE)
            }
            SetupError::OffBoard(c) => write!(f, "cell [{}, {}] is off the board", c.row, c.col),
            SetupError::Duplicate(c) => write!(f, "cell [{}, {}] is used twice", c.row, c.col),
            SetupError::TooManyStones => f.write_str("too many opening stones for this board"),
            SetupError::Malformed(why) => write!(f, "malformed setup: {why}"),
        }
    }
}

impl std::error::Error for SetupError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_messages() {
        assert_eq!(PlayError::OffBoard.code(), "off_board");
        assert_eq!(PlayError::Occupied.code(), "occupied");
        assert_eq!(PlayError::SwapNotAllowed.code(), "swap_not_allowed");
        assert_eq!(PlayError::GameOver.code(), "game_over");
        assert_eq!(PlayError::GameOver.to_string(), "the game is already over");
        assert_eq!(
            SetupError::BadSize(0).to_string(),
            "board size 0 is outside 1..=26"
        );
        assert_eq!(
            SetupError::Duplicate(Cell::new(1, 2)).to_string(),
            "cell [1, 2] is used twice"
        );
        let e: Box<dyn std::error::Error> = Box::new(SetupError::TooManyStones);
        assert_eq!(e.to_string(), "too many opening stones for this board");
    }
}
