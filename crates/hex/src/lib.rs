//! Pure Hex rules (SPEC section 2): board, moves, the swap (pie rule), incremental win detection,
//! the winning path, the move cap and the seeded random opening.
//! The house bots' strategies, their ladder and the Hex knowledge they use live in the crate
//! `hex-search` (`crates/search`), which reads positions through the padded-index view
//! ([`Position::board_slice`], [`Position::place_move`], ...).
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

mod cell;
mod error;
mod notation;
mod opening;
mod position;
mod rules;
pub mod sgf;

pub use cell::Cell;
pub use error::{PlayError, SetupError};
pub use notation::{cell_name, parse_cell_name};
pub use opening::{opening, parse_seed_hex};
pub use position::{BORDER, EMPTY, Position};
pub use rules::{Axis, Move, Outcome, Seat};
pub use sgf::Color;

/// Largest board side the engine accepts (the HTTP API allows 9..=19); smallest is 1.
pub const MAX_SIZE: u8 = 26;
/// Moves after which a game without a connection ends as a draw (SPEC section 2, move cap).
/// A swap counts as a move; opening stones do not.
pub const MAX_MOVES: u16 = 362;
