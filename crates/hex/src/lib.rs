//! Pure Hex rules (SPEC section 2): board, moves, the swap (pie rule), incremental win detection,
//! the winning path, the move cap and the seeded random opening, plus the house bots' strategies and their ladder.
//!
//! No I/O, no clock, no database: the server, the house bots and offline tools share this crate.
//!
//! Coordinates are `[row, col]`, 0-based, row 0 on top and col 0 on the left. Seat 1 moves first
//! and connects top and bottom; seat 2 connects left and right (the two exchange after a swap).
//!
//! ```
//! use hex::{Cell, Move, Outcome, Position, Seat};
//!
//! let mut pos = Position::new(2).expect("2 is a valid size");
//! pos.play(Move::Place(Cell::new(0, 1))).expect("empty cell");
//! pos.play(Move::Place(Cell::new(0, 0))).expect("empty cell");
//! let end = pos.play(Move::Place(Cell::new(1, 0))).expect("empty cell");
//! assert_eq!(end, Some(Outcome::Connection { winner: Seat::One }));
//! assert_eq!(pos.winning_path(), Some(vec![Cell::new(0, 1), Cell::new(1, 0)]));
//! ```

#![warn(missing_docs)]

mod bots;
mod cell;
mod error;
pub mod ladder;
mod notation;
mod opening;
mod playout;
mod position;
mod rules;
pub mod sgf;

pub use bots::{
    Limits, STOP_CHECK_EVERY, STRONG_BUDGET, Tuning, playout_winner, random_move, random_playout,
    strong_budget_for, strong_move, strong_move_tuned, strong_move_within,
};
pub use cell::Cell;
pub use error::{PlayError, SetupError};
pub use notation::{cell_name, parse_cell_name};
pub use opening::{opening, parse_seed_hex};
pub use position::Position;
pub use rules::{Axis, Move, Outcome, Seat};
pub use sgf::Color;

/// Largest board side the engine accepts (the HTTP API allows 9..=19); smallest is 1.
pub const MAX_SIZE: u8 = 26;
/// Moves after which a game without a connection ends as a draw (SPEC section 2, move cap).
/// A swap counts as a move; opening stones do not.
pub const MAX_MOVES: u16 = 362;
