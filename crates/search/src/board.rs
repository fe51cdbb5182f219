//! The analysis board the knowledge modules share ([`crate::vc`], [`crate::inferior`],
//! [`crate::solver`]): a copy of a position's padded board that analysis may fill in, and a
//! set of cells as a fixed bitset.

use hex::{BORDER, EMPTY, Position};

/// Padded cells of the largest board (26 + 2 border cells per side, squared).
pub const PADDED: usize = 28 * 28;
const WORDS: usize = PADDED.div_ceil(64);

/// A set of padded cell indices (a bitset over the largest padded board; copying is cheap).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CellSet([u64; WORDS]);

impl std::fmt::Debug for CellSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl CellSet {
    /// The empty set.
    pub const EMPTY: CellSet = CellSet([0; WORDS]);

    /// The set of the given padded indices (indices past [`PADDED`] are ignored).
    pub fn of(cells: &[usize]) -> CellSet {
        let mut s = CellSet::EMPTY;
        for &c in cells {
            s.insert(c);
        }
        s
    }

    /// Word `k` of the bitset (cells `64 * k ..`; 0 past the last word).
    pub(crate) fn word(&self, k: usize) -> u64 {
        self.0.get(k).copied().unwrap_or(0)
    }

    /// The set whose first words are `words` (words past the bitset's are ignored).
    pub(crate) fn from_words(words: &[u64]) -> CellSet {
        let mut s = CellSet::EMPTY;
        for (a, &b) in s.0.iter_mut().zip(words) {
            *a = b;
        }
        s
    }

    /// Adds padded index `i` (ignored past [`PADDED`]).
    pub fn insert(&mut self, i: usize) {
        if i < PADDED {
            self.0[i / 64] |= 1 << (i % 64);
        }
    }

    /// Whether padded index `i` is in the set.
    pub fn contains(&self, i: usize) -> bool {
        i < PADDED && self.0[i / 64] & (1 << (i % 64)) != 0
    }

    /// The union.
    pub fn union(&self, o: &CellSet) -> CellSet {
        let mut s = *self;
        for (a, b) in s.0.iter_mut().zip(o.0) {
            *a |= b;
        }
        s
    }

    /// The intersection.
    pub fn intersection(&self, o: &CellSet) -> CellSet {
        let mut s = *self;
        for (a, b) in s.0.iter_mut().zip(o.0) {
            *a &= b;
        }
        s
    }

    /// Whether the two sets share a cell.
    pub fn meets(&self, o: &CellSet) -> bool {
        self.0.iter().zip(o.0).any(|(a, b)| a & b != 0)
    }

    /// Whether every cell of `self` is in `o`.
    pub fn is_subset(&self, o: &CellSet) -> bool {
        self.0.iter().zip(o.0).all(|(a, b)| a & !b == 0)
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&a| a == 0)
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.0.iter().map(|a| a.count_ones() as usize).sum()
    }

    /// The padded indices in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(k, &word)| {
            (0..64)
                .filter(move |b| word & (1 << b) != 0)
                .map(move |b| k * 64 + b)
        })
    }
}

/// One side of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// Row 0's side.
    Top,
    /// The last row's side.
    Bottom,
    /// Column 0's side.
    Left,
    /// The last column's side.
    Right,
}

/// A padded board for analysis: `cells[i]` is [`EMPTY`], 1, 2 or [`BORDER`] at padded index
/// `i = (row + 1) * stride + col + 1`, as in [`Position::board_slice`]; analysis may fill cells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    /// Side length.
    pub size: usize,
    /// `size + 2`.
    pub stride: usize,
    /// Padded cells.
    pub cells: Vec<u8>,
    /// The owner (1 or 2) who connects top and bottom; the other connects left and right.
    pub tb_owner: u8,
}

impl Board {
    /// The board of `pos`.
    pub fn of(pos: &Position) -> Board {
        Board {
            size: usize::from(pos.size()),
            stride: pos.stride(),
            cells: pos.board_slice().to_vec(),
            tb_owner: pos.top_bottom_owner(),
        }
    }

    /// A board from rows of `.` (empty), `1` and `2` (tests and tools), seat 1 top-bottom.
    /// `None` unless the rows form a square of 1..=26 cells a side.
    pub fn parse(rows: &[&str]) -> Option<Board> {
        let size = rows.len();
        if size == 0 || size > 26 {
            return None;
        }
        let stride = size + 2;
        let mut cells = vec![BORDER; stride * stride];
        for (r, row) in rows.iter().enumerate() {
            let row: Vec<u8> = row.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
            if row.len() != size {
                return None;
            }
            for (c, b) in row.into_iter().enumerate() {
                cells[(r + 1) * stride + c + 1] = match b {
                    b'.' => EMPTY,
                    b'1' => 1,
                    b'2' => 2,
                    _ => return None,
                };
            }
        }
        Some(Board {
            size,
            stride,
            cells,
            tb_owner: 1,
        })
    }

    /// The padded index of on-board `(row, col)`; `None` off the board.
    pub fn at(&self, row: isize, col: isize) -> Option<usize> {
        let n = self.size as isize;
        ((0..n).contains(&row) && (0..n).contains(&col))
            .then(|| (row as usize + 1) * self.stride + col as usize + 1)
    }

    /// `(row, col)` of a padded index (padding gives -1 or `size`).
    pub fn row_col(&self, i: usize) -> (isize, isize) {
        (
            (i / self.stride) as isize - 1,
            (i % self.stride) as isize - 1,
        )
    }

    /// Whether `i` is an on-board index.
    pub fn on_board(&self, i: usize) -> bool {
        let (r, c) = self.row_col(i);
        let n = self.size as isize;
        (0..n).contains(&r) && (0..n).contains(&c)
    }

    /// The six neighbours of on-board `i` (padding included), in circular order: consecutive
    /// ones are adjacent to each other.
    pub fn ring(&self, i: usize) -> [usize; 6] {
        let w = self.stride;
        [i - w, i + 1 - w, i + 1, i + w, i + w - 1, i - 1]
    }

    /// The side a padding index lies beside; `None` on the board and at the four corners.
    pub fn side_of(&self, i: usize) -> Option<Side> {
        let (r, c) = self.row_col(i);
        let n = self.size as isize;
        let inside = |x: isize| (0..n).contains(&x);
        match (r, c) {
            (-1, c) if inside(c) => Some(Side::Top),
            (r, -1) if inside(r) => Some(Side::Left),
            (r, c) if r == n && inside(c) => Some(Side::Bottom),
            (r, c) if c == n && inside(r) => Some(Side::Right),
            _ => None,
        }
    }

    /// The owner (1 or 2) of a side's edge.
    pub fn side_owner(&self, side: Side) -> u8 {
        match side {
            Side::Top | Side::Bottom => self.tb_owner,
            Side::Left | Side::Right => self.tb_owner ^ 3,
        }
    }

    /// The two sides `player` (1 or 2) connects.
    pub fn sides_of(&self, player: u8) -> [Side; 2] {
        if player == self.tb_owner {
            [Side::Top, Side::Bottom]
        } else {
            [Side::Left, Side::Right]
        }
    }

    /// What padded index `i` counts as for the connection of stones: its stone's owner on the
    /// board, the edge owner beside an edge, 0 for an empty cell and [`BORDER`] at a corner.
    pub fn colour(&self, i: usize) -> u8 {
        match self.cells.get(i) {
            Some(&BORDER) | None => self.side_of(i).map_or(BORDER, |side| self.side_owner(side)),
            Some(&v) => v,
        }
    }

    /// The empty on-board cells, in index order.
    pub fn empties(&self) -> Vec<usize> {
        (0..self.cells.len())
            .filter(|&i| self.cells[i] == EMPTY)
            .collect()
    }
}
