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

use crate::patterns::{self, Weights};

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
    // the six neighbours in circular order (consecutive ones are adjacent to each other), and
    // the six cells a bridge away (far[t] shares ring cells t and t + 1 with x)
    let ring: [isize; 6] = [-w, 1 - w, 1, w, w - 1, -1];
    let far: [isize; 6] = [1 - 2 * w, 2 - w, 1 + w, 2 * w - 1, w - 2, -1 - w];
    // one bounds check a cell: an index past either end reads as a corner (nothing)
    let raw = |d: isize| board.get(x.wrapping_add_signed(d)).copied().unwrap_or(3);
    let opp = player ^ 3;
    let last_d = last.map_or(isize::MIN, |l| l as isize - x as isize);
    let (mut mine, mut theirs, mut empty, mut lastbit) = (0u8, 0u8, 0u8, 0u8);
    let (mut stones, mut far_mine, mut far_any) = (0u8, 0u8, 0u8);
    for t in 0..6 {
        let v = raw(ring[t]);
        let owner = v & 3;
        mine |= u8::from(owner == player) << t;
        theirs |= u8::from(owner == opp) << t;
        empty |= u8::from(owner == 0) << t;
        // a plain 1 or 2 is a stone; an edge's padding carries a flag above the owner
        stones |= u8::from(v.wrapping_sub(1) < 2) << t;
        lastbit |= u8::from(ring[t] == last_d) << t;
        let f = raw(far[t]);
        far_mine |= u8::from(f == player) << t;
        far_any |= u8::from(f.wrapping_sub(1) < 2) << t;
    }
    let border = 63 & !(mine | theirs | empty);
    // mine(t), something(t + 1), mine(t + 2): ring cells t and t + 2 share t + 1 and x
    let mine2 = next(next(mine));
    let runs = |m: u8| (m & !prev(m)).count_ones();
    Shape {
        save_bridge: mine & next(theirs) & mine2 != 0,
        save_last: mine & next(theirs & lastbit) & mine2 != 0,
        dead: empty == 0 && border == 0 && runs(mine) <= 1 && runs(theirs) <= 1,
        own_carrier: mine & next(empty) & mine2 != 0,
        makes_bridge: far_mine & empty & next(empty) != 0,
        by_last: lastbit != 0,
        near: stones | far_any != 0,
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

/// Padded offsets of the cells whose shape a stone changes on a board of stride `w`: its
/// six neighbours and the six cells a bridge away.
fn reach(w: usize) -> [isize; 12] {
    let w = w as isize;
    [
        -w,
        1 - w,
        1,
        w,
        w - 1,
        -1,
        1 - 2 * w,
        2 - w,
        1 + w,
        2 * w - 1,
        w - 2,
        -1 - w,
    ]
}

/// The learned move prior as the tree mixes it in ([`crate::Tuning::learned_prior`]).
#[derive(Clone, Copy)]
pub(crate) struct Learned {
    /// The compiled weights.
    pub weights: &'static Weights,
    /// The learned win rate's weight, 0..=1, against the hand-set shapes'.
    pub weight: f32,
    /// The power of the gammas.
    pub power: f32,
}

impl Learned {
    /// `(1 - weight) * prior(shape) + weight * learned` for a move of `player` at the empty
    /// cell `x` of `board` (stride `w`, an `n` x `n` board), `last` the opponent's last move.
    #[inline]
    pub(crate) fn mixed(
        &self,
        board: &[u8],
        (w, n): (usize, usize),
        x: usize,
        player: u8,
        last: Option<usize>,
    ) -> f32 {
        let learned = self.weights.win_rate(
            patterns::code_at(board, w, n, x, player),
            patterns::relation_at(x, last, w),
            patterns::edge_class_at(board, w, n, x, player),
            self.power,
        );
        if self.weight >= 1.0 {
            return learned;
        }
        let hand = prior(shape(board, w, x, player, last));
        (1.0 - self.weight) * hand + self.weight * learned
    }
}

/// The prior of every move of both players in the search's root position, and which cells a
/// tree path's stones may have changed since: a cell's shape reads only its six neighbours
/// and its six bridge cells, so only the cells within that reach of a stone placed in the tree
/// are computed again at an expansion; every other child takes the root's value. The values
/// are those of [`prior`] over [`shape`] exactly (tested).
pub(crate) struct PriorCache {
    /// `root[player - 1][x]`: the prior of `player` at padded cell `x` in the root position.
    root: [Vec<f32>; 2],
    /// `stamp[x] == epoch`: cell `x` is within reach of a stone of the current path.
    stamp: Vec<u32>,
    epoch: u32,
    /// Padded offsets of the cells whose shape a stone changes (its neighbours and the cells
    /// a bridge away).
    reach: [isize; 12],
    /// The board's side, for the learned prior's reading of the bridge cells.
    size: usize,
    /// The learned prior to mix with [`prior`] of [`shape`], when set.
    learned: Option<Learned>,
}

impl PriorCache {
    /// The cache for the root position `board` (stride `w`, an `size` x `size` board), whose
    /// empty cells are `empties`; with `learned`, the learned prior mixed in.
    pub(crate) fn new(
        board: &[u8],
        (w, size): (usize, usize),
        empties: &[u16],
        learned: Option<Learned>,
    ) -> PriorCache {
        let mut cache = PriorCache {
            root: [vec![0.0; board.len()], vec![0.0; board.len()]],
            stamp: vec![0; board.len()],
            epoch: 0,
            reach: reach(w),
            size,
            learned,
        };
        for &c in empties {
            let x = usize::from(c);
            for player in [1u8, 2] {
                cache.root[usize::from(player - 1)][x] = cache.fresh(board, w, x, player, None);
            }
        }
        cache
    }

    /// The prior of `player` at the empty cell `x` of `board`, computed afresh.
    #[inline]
    fn fresh(&self, board: &[u8], w: usize, x: usize, player: u8, last: Option<usize>) -> f32 {
        match self.learned {
            Some(l) => l.mixed(board, (w, self.size), x, player, last),
            None => prior(shape(board, w, x, player, last)),
        }
    }
    /// Marks the cells within reach of the stones placed in the tree (`path_cells`, padded)
    /// for the next [`PriorCache::value`] calls.
    pub(crate) fn begin(&mut self, path_cells: impl Iterator<Item = usize>) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamp.fill(0);
            self.epoch = 1;
        }
        for s in path_cells {
            for d in self.reach {
                if let Some(m) = self.stamp.get_mut(s.wrapping_add_signed(d)) {
                    *m = self.epoch;
                }
            }
        }
    }

    /// [`prior`] of [`shape`] for `player` at the empty cell `x` of `board` (the root position
    /// with the path of the last [`PriorCache::begin`] placed), `last` the path's last stone.
    pub(crate) fn value(
        &self,
        board: &[u8],
        w: usize,
        x: usize,
        player: u8,
        last: Option<usize>,
    ) -> f32 {
        if self.stamp.get(x) == Some(&self.epoch) {
            self.fresh(board, w, x, player, last)
        } else {
            self.root[usize::from(player.saturating_sub(1).min(1))]
                .get(x)
                .copied()
                .unwrap_or(0.5)
        }
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
        let pos = super::super::position_of_rows(rows);
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

    #[test]
    fn the_cache_gives_what_the_shape_gives_after_any_path() {
        cache_matches_fresh_values(None);
    }

    #[test]
    fn the_cache_gives_what_the_learned_prior_gives_after_any_path() {
        for weight in [0.5, 1.0] {
            cache_matches_fresh_values(Some(Learned {
                weights: patterns::learned(),
                weight,
                power: 0.7,
            }));
        }
    }

    /// Random positions, random paths of 1 to 8 stones on top: every empty cell's cached
    /// value equals the value computed afresh, for both players, with the hand-set prior
    /// (`learned` `None`) or the learned one.
    fn cache_matches_fresh_values(learned: Option<Learned>) {
        use rand_core::SeedableRng;
        let mut rng = rand_pcg::Pcg64::seed_from_u64(23);
        let mut checked = 0;
        for _ in 0..40 {
            let mut pos = Position::new(9).expect("size");
            let stones = crate::playout::below(&mut rng, 30);
            for _ in 0..stones {
                if let Some(mv) = crate::random_move(&pos, &mut rng) {
                    pos.play(mv).expect("legal");
                }
            }
            if pos.is_over() {
                continue;
            }
            let mut f = Filler::new(&pos);
            let w = pos.stride();
            let empties = crate::playout::empty_indices(&pos);
            let n = usize::from(pos.size());
            let mut cache = PriorCache::new(&f.board, (w, n), &empties, learned);
            let depth = 1 + crate::playout::below(&mut rng, 8) as usize;
            let mut path = vec![];
            let mut owner = pos.mover().number();
            for _ in 0..depth.min(empties.len() - 1) {
                let free: Vec<u16> = empties
                    .iter()
                    .copied()
                    .filter(|&c| f.board[usize::from(c)] == 0)
                    .collect();
                let c =
                    usize::from(free[crate::playout::below(&mut rng, free.len() as u32) as usize]);
                f.board[c] = owner;
                owner ^= 3;
                path.push(c);
            }
            cache.begin(path.iter().copied());
            let last = path.last().copied();
            for &c in &empties {
                let x = usize::from(c);
                if f.board[x] != 0 {
                    continue;
                }
                for player in [1u8, 2] {
                    let hand = prior(shape(&f.board, w, x, player, last));
                    let fresh = match learned {
                        None => hand,
                        Some(l) => {
                            let z = (l
                                .weights
                                .ln_gamma(patterns::code_at(&f.board, w, n, x, player))
                                + l.weights.ln_last(patterns::relation_at(x, last, w))
                                + l.weights
                                    .ln_edge(patterns::edge_class_at(&f.board, w, n, x, player)))
                                * l.power;
                            let rate = (1.0 / (1.0 + (-z).exp())).clamp(0.02, 0.98);
                            if l.weight >= 1.0 {
                                rate
                            } else {
                                (1.0 - l.weight) * hand + l.weight * rate
                            }
                        }
                    };
                    assert_eq!(cache.value(&f.board, w, x, player, last), fresh, "cell {x}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 2_000, "{checked}");
    }
}
