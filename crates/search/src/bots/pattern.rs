//! Cheap Hex knowledge for the tree (issue 23, second pieces): what the six neighbours (and
//! the six bridge cells) of an empty cell say about a move there, read off the search's scratch
//! board in a few dozen instructions, so that it can be asked of every child a node expands.
//!
//! The board is the playouts' padded board (`crate::playout::Filler::board`): `value & 3` is
//! the owner (1 or 2) of a stone or of the edge a padding cell lies beside, 0 for an empty
//! cell and 3 ([`hex::BORDER`]) at the four corner padding cells.
//!
//! The shapes are the classic ones of Hex MCTS programs (MoHex's playout and prior patterns,
//! Arneson, Hayward and Henderson, "Monte Carlo Tree Search in Hex", IEEE TCIAIG 2010):
//! - *save bridge*: the opponent took one of the two common cells of a bridge of the mover
//!   (two of its stones, or a stone on the second row and its own edge); the other one keeps
//!   the connection. Around the cell: mine, the intruder, mine, in consecutive ring places.
//! - *dead*: every neighbour a stone or an edge, each colour in one unbroken run around the
//!   cell ([`crate::inferior::is_dead`]): a stone there changes nothing for either side.
//! - *own carrier*: both common cells of a bridge of the mover are empty and this is one of
//!   them: playing there spends a move on a connection that is already safe.
//! - *makes a bridge*: a stone of the mover two steps away over two empty common cells.

/// What the local shape says about a move of `player` on one empty cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Answers an intrusion into a bridge of the mover (the other common cell is taken).
    pub save_bridge: bool,
    /// [`Shape::save_bridge`] where the intruder is the last move.
    pub save_last: bool,
    /// Dead by the six-neighbour pattern.
    pub dead: bool,
    /// One of the two empty common cells of an intact bridge of the mover.
    pub own_carrier: bool,
    /// Makes a bridge with one of the mover's stones.
    pub makes_bridge: bool,
    /// Next to the last move.
    pub by_last: bool,
    /// Next to a stone, or a bridge away from one (of either colour).
    pub near: bool,
}

/// Bit `t` of the result is bit `t + 1` (mod 6) of `m`.
#[inline]
fn next(m: u8) -> u8 {
    ((m >> 1) | (m << 5)) & 63
}

/// Bit `t` of the result is bit `t - 1` (mod 6) of `m`.
#[inline]
fn prev(m: u8) -> u8 {
    ((m << 1) | (m >> 5)) & 63
}

/// The shape of a move of `player` (1 or 2) on the empty on-board padded cell `x` of `board`
/// (stride `w`, padded as described in the module doc); `last` is the padded cell of the
/// opponent's last move when known. Reads twelve cells, allocates nothing; a cell beside the
/// padding reads its bridge cells past the padding as nothing (out of the slice or not a stone).
#[inline]
pub(crate) fn shape(board: &[u8], w: usize, x: usize, player: u8, last: Option<usize>) -> Shape {
    let w = w as isize;
    // the six neighbours in circular order (consecutive ones are adjacent to each other)
    let ring: [isize; 6] = [-w, 1 - w, 1, w, w - 1, -1];
    let at = |d: isize| -> u8 {
        x.checked_add_signed(d)
            .and_then(|i| board.get(i))
            .map_or(3, |&v| v & 3)
    };
    let opp = player ^ 3;
    let (mut mine, mut theirs, mut empty, mut lastbit) = (0u8, 0u8, 0u8, 0u8);
    for (t, &d) in ring.iter().enumerate() {
        let v = at(d);
        mine |= u8::from(v == player) << t;
        theirs |= u8::from(v == opp) << t;
        empty |= u8::from(v == 0) << t;
        lastbit |= u8::from(last.is_some_and(|l| x.checked_add_signed(d) == Some(l))) << t;
    }
    let border = 63 & !(mine | theirs | empty);
    // mine(t), something(t + 1), mine(t + 2): ring cells t and t + 2 share t + 1 and x
    let bridge_over = |middle: u8| mine & next(middle) & next(next(mine)) != 0;
    let runs = |m: u8| (m & !prev(m)).count_ones();
    let dead = empty == 0 && border == 0 && runs(mine) <= 1 && runs(theirs) <= 1;
    // stones only (an edge's padding is not a stone to be near or to bridge to)
    let stone = |d: isize| -> u8 {
        x.checked_add_signed(d)
            .and_then(|i| board.get(i))
            .map_or(0, |&v| if v == 1 || v == 2 { v } else { 0 })
    };
    let mut makes_bridge = false;
    let mut near = false;
    for t in 0..6 {
        let (a, b) = (ring[t], ring[(t + 1) % 6]);
        let far = stone(a + b);
        // the cell a bridge away shares ring cells t and t + 1 with x
        let pair_empty = empty & (1 << t) != 0 && empty & (1 << ((t + 1) % 6)) != 0;
        makes_bridge |= far == player && pair_empty;
        near |= far != 0 || stone(a) != 0;
    }
    Shape {
        save_bridge: bridge_over(theirs),
        save_last: bridge_over(theirs & lastbit),
        dead,
        own_carrier: bridge_over(empty),
        makes_bridge,
        by_last: lastbit != 0,
        near,
    }
}

/// The prior win rate of a move with this shape, for the mover: 0.9 for answering the last
/// move's intrusion into a bridge, 0.75 for answering an older one, 0.05 for a dead cell, 0.3
/// for a cell of an intact own bridge, 0.6 for a new bridge, 0.5 next to a stone (0.55 next to
/// the last move), 0.4 far from every stone. Hand-set, not learned.
#[must_use]
pub(crate) fn prior(s: Shape) -> f32 {
    if s.save_last {
        0.9
    } else if s.save_bridge {
        0.75
    } else if s.dead {
        0.05
    } else if s.own_carrier {
        0.3
    } else if s.makes_bridge {
        0.6
    } else if s.by_last {
        0.55
    } else if s.near {
        0.5
    } else {
        0.4
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::playout::Filler;
    use hex::Position;

    /// The playouts' board of a position given as rows of `.`, `1`, `2` (seat 1 top-bottom),
    /// and the padded index of (row, col).
    fn board(rows: &[&str]) -> (Filler, usize, impl Fn(usize, usize) -> usize) {
        let size = rows.len();
        let text: String = rows
            .iter()
            .flat_map(|r| r.chars())
            .map(|c| if c == '.' { '0' } else { c })
            .collect();
        let pos = Position::from_compact(&format!("{size}:0:0:{text}")).expect("valid");
        let w = pos.stride();
        (Filler::new(&pos), w, move |r, c| (r + 1) * w + c + 1)
    }

    #[test]
    fn the_other_cell_of_an_intruded_bridge_saves_it() {
        // seat 1's (1,1) and (2,2) are a bridge over (1,2) and (2,1); seat 2 took (1,2)
        let (f, w, at) = board(&[".....", ".12..", "..1..", ".....", "....."]);
        let s = shape(&f.board, w, at(2, 1), 1, Some(at(1, 2)));
        assert!(s.save_bridge && s.save_last && s.by_last, "{s:?}");
        assert_eq!(prior(s), 0.9);
        // without knowing the last move it is still a saving cell, valued lower
        let s = shape(&f.board, w, at(2, 1), 1, None);
        assert!(s.save_bridge && !s.save_last, "{s:?}");
        assert_eq!(prior(s), 0.75);
        // for seat 2 the same cell is no save (the bridge is not seat 2's)
        let s = shape(&f.board, w, at(2, 1), 2, Some(at(1, 2)));
        assert!(!s.save_bridge, "{s:?}");
        // another cell next to the last move is only that
        let s = shape(&f.board, w, at(0, 3), 1, Some(at(1, 2)));
        assert!(s.by_last && !s.save_bridge, "{s:?}");
        assert_eq!(prior(s), 0.55);
    }

    #[test]
    fn a_second_row_stone_s_edge_bridge_is_saved_on_the_edge() {
        // seat 1 (top-bottom) at (1,2); seat 2 took (0,3), one of its two top-edge cells;
        // (0,2) is the other
        let (f, w, at) = board(&["...2.", "..1..", ".....", ".....", "....."]);
        let s = shape(&f.board, w, at(0, 2), 1, Some(at(0, 3)));
        assert!(s.save_last, "{s:?}");
        // seat 2 connects left-right: the top edge is not its own, so no save for it there
        assert!(!shape(&f.board, w, at(0, 2), 2, None).save_bridge);
    }

    #[test]
    fn an_intact_bridge_s_cells_are_its_owner_s_carrier_and_a_far_cell_makes_one() {
        // seat 1's (1,1) and (2,2): (1,2) and (2,1) are the bridge's empty common cells
        let (f, w, at) = board(&["2....", ".1...", "..1..", ".....", "....."]);
        let s = shape(&f.board, w, at(1, 2), 1, None);
        assert!(s.own_carrier && !s.save_bridge, "{s:?}");
        assert_eq!(prior(s), 0.3);
        // for seat 2 the same cell is an intrusion, not its own carrier
        assert!(!shape(&f.board, w, at(1, 2), 2, None).own_carrier);
        // (4,1) is a bridge away from (2,2), over the empty (3,1) and (3,2)
        let s = shape(&f.board, w, at(4, 1), 1, None);
        assert!(s.makes_bridge && !s.own_carrier, "{s:?}");
        assert_eq!(prior(s), 0.6);
        // the far corner, two steps from every stone: nothing
        let s = shape(&f.board, w, at(4, 4), 1, None);
        assert_eq!(s, Shape::default());
        assert_eq!(prior(s), 0.4);
        // next to a stone: near, nothing more
        let s = shape(&f.board, w, at(3, 3), 2, None);
        assert_eq!(
            s,
            Shape {
                near: true,
                ..Shape::default()
            }
        );
        assert_eq!(prior(s), 0.5);
    }

    #[test]
    fn a_cell_walled_in_by_both_colours_in_one_run_each_is_dead() {
        // (2,2): seat 1 at (1,2) (1,3) (2,3), seat 2 at (3,2) (3,1) (2,1): one run each
        let rows = [".....", "..11.", ".2.1.", ".22..", "....."];
        let (f, w, at) = board(&rows);
        let s = shape(&f.board, w, at(2, 2), 1, None);
        assert!(s.dead, "{s:?}");
        assert_eq!(prior(s), 0.05);
        // the analysis module's rule agrees
        let analysis = Board::parse(&rows).expect("square");
        assert!(crate::inferior::is_dead(&analysis, at(2, 2)));
        // seat 1 at (3,1) splits seat 2's run in two: alive
        let (f, w, at) = board(&[".....", "..11.", ".2.1.", ".12..", "....2"]);
        assert!(!shape(&f.board, w, at(2, 2), 1, None).dead);
        // an empty neighbour keeps a cell alive
        let (f, w, at) = board(&[".....", "..11.", ".2.1.", ".2...", "....."]);
        assert!(!shape(&f.board, w, at(2, 2), 1, None).dead);
    }
}
