//! Board coordinates and adjacency (SPEC section 2).

use serde::{Deserialize, Serialize};

/// A cell `[row, col]`, 0-based, row 0 on top. Serializes as the JSON array `[row, col]`.
///
/// A `Cell` is just a pair of numbers; whether it lies on a given board is decided by the
/// [`Position`](crate::Position) it is used with (`row < size && col < size`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(from = "[u8; 2]", into = "[u8; 2]")]
pub struct Cell {
    /// Row, 0 = top edge.
    pub row: u8,
    /// Column, 0 = left edge.
    pub col: u8,
}

impl From<[u8; 2]> for Cell {
    fn from([row, col]: [u8; 2]) -> Self {
        Cell { row, col }
    }
}

impl From<Cell> for [u8; 2] {
    fn from(c: Cell) -> Self {
        [c.row, c.col]
    }
}

/// Row and column steps to the six neighbours, in the order of SPEC section 2:
/// `[r-1,c]`, `[r-1,c+1]`, `[r,c-1]`, `[r,c+1]`, `[r+1,c-1]`, `[r+1,c]`.
pub(crate) const NEIGHBOUR_STEPS: [(i8, i8); 6] =
    [(-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0)];

impl Cell {
    /// The cell `[row, col]`.
    pub const fn new(row: u8, col: u8) -> Cell {
        Cell { row, col }
    }

    /// Whether the cell lies on a `size` x `size` board.
    pub const fn on_board(self, size: u8) -> bool {
        self.row < size && self.col < size
    }

    /// The on-board neighbours of this cell on a `size` x `size` board, in the fixed order
    /// `[r-1,c]`, `[r-1,c+1]`, `[r,c-1]`, `[r,c+1]`, `[r+1,c-1]`, `[r+1,c]` (missing ones
    /// skipped). Interior cells have 6, the acute corners `[0,0]` and `[size-1,size-1]` have 2,
    /// the obtuse corners `[0,size-1]` and `[size-1,0]` have 3. Empty when the cell is off-board.
    pub fn neighbours(self, size: u8) -> impl Iterator<Item = Cell> {
        let on = self.on_board(size);
        NEIGHBOUR_STEPS.iter().filter_map(move |&(dr, dc)| {
            if !on {
                return None;
            }
            let row = self.row.checked_add_signed(dr)?;
            let col = self.col.checked_add_signed(dc)?;
            let cell = Cell { row, col };
            cell.on_board(size).then_some(cell)
        })
    }

    /// Whether `other` is one of the six neighbours of this cell (on any board).
    pub fn is_adjacent(self, other: Cell) -> bool {
        let dr = i16::from(other.row) - i16::from(self.row);
        let dc = i16::from(other.col) - i16::from(self.col);
        NEIGHBOUR_STEPS
            .iter()
            .any(|&(r, c)| i16::from(r) == dr && i16::from(c) == dc)
    }
}

impl std::fmt::Display for Cell {
    /// Human notation, e.g. `e3` for `[2, 4]` (see [`cell_name`](crate::cell_name)).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::cell_name(*self))
    }
}

impl std::str::FromStr for Cell {
    type Err = crate::SetupError;

    /// Parses human notation such as `e3` (see [`parse_cell_name`](crate::parse_cell_name)).
    ///
    /// # Errors
    /// [`SetupError::Malformed`](crate::SetupError::Malformed) when the text is not a cell name.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::parse_cell_name(s)
            .ok_or_else(|| crate::SetupError::Malformed(format!("not a cell name: {s:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(r: u8, c: u8, size: u8) -> Vec<[u8; 2]> {
        Cell::new(r, c)
            .neighbours(size)
            .map(<[u8; 2]>::from)
            .collect()
    }

    #[test]
    fn interior_has_six_in_spec_order() {
        assert_eq!(
            ns(2, 2, 5),
            vec![[1, 2], [1, 3], [2, 1], [2, 3], [3, 1], [3, 2]]
        );
    }

    #[test]
    fn corners() {
        // acute corners [0,0] and [s-1,s-1]: two neighbours
        assert_eq!(ns(0, 0, 5), vec![[0, 1], [1, 0]]);
        assert_eq!(ns(4, 4, 5), vec![[3, 4], [4, 3]]);
        // obtuse corners [0,s-1] and [s-1,0]: three neighbours
        assert_eq!(ns(0, 4, 5), vec![[0, 3], [1, 3], [1, 4]]);
        assert_eq!(ns(4, 0, 5), vec![[3, 0], [3, 1], [4, 1]]);
    }

    #[test]
    fn edges() {
        assert_eq!(ns(0, 2, 5), vec![[0, 1], [0, 3], [1, 1], [1, 2]]);
        assert_eq!(ns(4, 2, 5), vec![[3, 2], [3, 3], [4, 1], [4, 3]]);
        assert_eq!(ns(2, 0, 5), vec![[1, 0], [1, 1], [2, 1], [3, 0]]);
        assert_eq!(ns(2, 4, 5), vec![[1, 4], [2, 3], [3, 3], [3, 4]]);
    }

    #[test]
    fn tiny_and_off_board() {
        assert_eq!(ns(0, 0, 1), Vec::<[u8; 2]>::new());
        assert_eq!(ns(5, 0, 5), Vec::<[u8; 2]>::new());
        assert_eq!(ns(0, 0, 2), vec![[0, 1], [1, 0]]);
        assert_eq!(ns(255, 255, 26), Vec::<[u8; 2]>::new());
    }

    #[test]
    fn adjacency_is_symmetric_and_matches_neighbours() {
        for r in 0..6u8 {
            for c in 0..6u8 {
                let a = Cell::new(r, c);
                for b in a.neighbours(6) {
                    assert!(a.is_adjacent(b) && b.is_adjacent(a));
                }
                assert!(!a.is_adjacent(a));
            }
        }
        assert!(!Cell::new(1, 1).is_adjacent(Cell::new(0, 0)));
        assert!(!Cell::new(1, 1).is_adjacent(Cell::new(2, 2)));
        assert!(Cell::new(1, 1).is_adjacent(Cell::new(0, 2)));
        assert!(Cell::new(1, 1).is_adjacent(Cell::new(2, 0)));
    }

    #[test]
    fn serde_as_pair() {
        let c = Cell::new(3, 7);
        assert_eq!(serde_json::to_string(&c).expect("serialize"), "[3,7]");
        let back: Cell = serde_json::from_str("[3,7]").expect("deserialize");
        assert_eq!(back, c);
        assert!(serde_json::from_str::<Cell>("[3]").is_err());
        assert!(serde_json::from_str::<Cell>("[3,300]").is_err());
    }
}
