//! Seats, axes, moves and outcomes (SPEC section 2).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::Cell;

/// A seat: 1 (red) moves first. Serializes as the JSON number 1 or 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Seat {
    /// Seat 1: moves first; connects top-bottom unless a swap happened.
    One = 1,
    /// Seat 2: moves second; connects left-right unless a swap happened.
    Two = 2,
}

impl Seat {
    /// The opponent.
    pub const fn other(self) -> Seat {
        match self {
            Seat::One => Seat::Two,
            Seat::Two => Seat::One,
        }
    }

    /// 1 or 2 (the value used in `cells()` and in the JSON API).
    pub const fn number(self) -> u8 {
        self as u8
    }

    /// `Some` for 1 and 2, `None` for anything else.
    pub const fn from_number(n: u8) -> Option<Seat> {
        match n {
            1 => Some(Seat::One),
            2 => Some(Seat::Two),
            _ => None,
        }
    }
}

impl Serialize for Seat {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(self.number())
    }
}

impl<'de> Deserialize<'de> for Seat {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let n = u8::deserialize(deserializer)?;
        Seat::from_number(n).ok_or_else(|| serde::de::Error::custom("seat must be 1 or 2"))
    }
}

/// The pair of edges a seat must connect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    /// Row 0 to row `size-1`.
    TopBottom,
    /// Column 0 to column `size-1`.
    LeftRight,
}

impl Axis {
    /// `"top-bottom"` or `"left-right"` (the `edges` strings of the game state).
    pub const fn name(self) -> &'static str {
        match self {
            Axis::TopBottom => "top-bottom",
            Axis::LeftRight => "left-right",
        }
    }

    /// The other axis.
    pub const fn other(self) -> Axis {
        match self {
            Axis::TopBottom => Axis::LeftRight,
            Axis::LeftRight => Axis::TopBottom,
        }
    }
}

/// One move of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// Put a stone of the seat on move on an empty cell.
    Place(Cell),
    /// The pie rule: seat 2's first move takes over seat 1's opening stone (SPEC section 2).
    Swap,
}

impl std::fmt::Display for Move {
    /// `swap` or the cell's human name such as `e5`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Move::Place(c) => write!(f, "{c}"),
            Move::Swap => f.write_str("swap"),
        }
    }
}

/// How a game ended, as far as the rules know (resignation and time are the server's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `winner`'s stones joined its two edges.
    Connection {
        /// The seat that connected.
        winner: Seat,
    },
    /// [`MAX_MOVES`](crate::MAX_MOVES) moves were played without a connection: a draw.
    MoveCap,
}

impl Outcome {
    /// The winning seat, `None` for a move-cap draw.
    pub const fn winner(self) -> Option<Seat> {
        match self {
            Outcome::Connection { winner } => Some(winner),
            Outcome::MoveCap => None,
        }
    }

    /// The API's `reason` string: `"connection"` or `"move_cap"`.
    pub const fn reason(self) -> &'static str {
        match self {
            Outcome::Connection { .. } => "connection",
            Outcome::MoveCap => "move_cap",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_numbers() {
        assert_eq!(Seat::One.number(), 1);
        assert_eq!(Seat::Two.number(), 2);
        assert_eq!(Seat::One.other(), Seat::Two);
        assert_eq!(Seat::Two.other(), Seat::One);
        assert_eq!(Seat::from_number(1), Some(Seat::One));
        assert_eq!(Seat::from_number(2), Some(Seat::Two));
        assert_eq!(Seat::from_number(0), None);
        assert_eq!(Seat::from_number(3), None);
        assert_eq!(serde_json::to_string(&Seat::Two).expect("ser"), "2");
        assert_eq!(serde_json::from_str::<Seat>("1").expect("de"), Seat::One);
        assert!(serde_json::from_str::<Seat>("3").is_err());
    }

    #[test]
    fn axis_and_outcome() {
        assert_eq!(Axis::TopBottom.name(), "top-bottom");
        assert_eq!(Axis::LeftRight.name(), "left-right");
        assert_eq!(Axis::LeftRight.other(), Axis::TopBottom);
        assert_eq!(
            Outcome::Connection { winner: Seat::Two }.winner(),
            Some(Seat::Two)
        );
        assert_eq!(Outcome::MoveCap.winner(), None);
        assert_eq!(Outcome::MoveCap.reason(), "move_cap");
        assert_eq!(Move::Swap.to_string(), "swap");
        assert_eq!(Move::Place(Cell::new(4, 4)).to_string(), "e5");
    }
}
