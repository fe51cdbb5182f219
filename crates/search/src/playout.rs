//! Fast random playouts: a uniform integer helper and a scratch board that fills every empty cell
//! at random and then judges the full board once (a full Hex board has exactly one winner).

use rand_core::Rng;

use hex::{BORDER, EMPTY, Position};

/// A uniform integer in `0..n` (Lemire's multiply-and-reject; exact, no modulo bias).
/// `n` must be at least 1; `n == 0` yields 0.
#[inline]
pub(crate) fn below(rng: &mut impl Rng, n: u32) -> u32 {
    if n <= 1 {
        return 0;
    }
    let mut m = u64::from(rng.next_u32()) * u64::from(n);
    if (m as u32) < n {
        let threshold = n.wrapping_neg() % n;
        while (m as u32) < threshold {
            m = u64::from(rng.next_u32()) * u64::from(n);
        }
    }
    (m >> 32) as u32
}

/// Padded cells of the largest board (26 + 2 border cells per side, squared).
pub(crate) const PADDED_CELLS: usize = 28 * 28;

/// Padding cells beside an edge are stored as `EDGE_PADDING | owner of that edge`, so that
/// `value & 3` reads them as that owner's stones in the bridge patterns, while they never equal
/// a plain owner value. The four corner padding cells stay `BORDER`.
const EDGE_PADDING: u8 = 0x40;

/// [`Filler::fill_bridges_and_judge`]'s answers to intrusions, by the neighbourhood of the new
/// stone: the index is the six neighbours' `value & 3` (`EMPTY`, 1, 2, or 3 for a corner), two
/// bits each in the ring order `-w, 1 - w, 1, w, w - 1, -1` (ring cell `t` at bits `2t`). The
/// low four bits answer for the defender 1, the high four for the defender 2: the ring index of
/// the reply (the empty cell between the first pair of the defender's stones, in ring order,
/// that form a bridge around it), or [`NO_REPLY`].
static BRIDGE_REPLY: [u8; 1 << 12] = bridge_replies();

/// A [`BRIDGE_REPLY`] half that holds no reply (any value past the ring's 0 to 5).
const NO_REPLY: u8 = 0xF;

/// Computes [`BRIDGE_REPLY`]: for the defender `d`, bit `t` of `mine` / `empty` says whether
/// ring cell `t` holds `d` / is empty; a bridge is mine(t), empty(t+1), mine(t+2), and the
/// reply is the empty cell of the lowest such `t`.
const fn bridge_replies() -> [u8; 1 << 12] {
    let mut table = [0u8; 1 << 12];
    let mut code = 0;
    while code < table.len() {
        let mut entry = 0u8;
        let mut d = 1u8;
        while d <= 2 {
            let (mut mine, mut empty) = (0u8, 0u8);
            let mut t = 0;
            while t < 6 {
                let v = ((code >> (2 * t)) & 3) as u8;
                mine |= ((v == d) as u8) << t;
                empty |= ((v == EMPTY) as u8) << t;
                t += 1;
            }
            let next_empty = (empty >> 1) | ((empty & 1) << 5);
            let after_mine = (mine >> 2) | ((mine & 3) << 4);
            let hits = mine & next_empty & after_mine;
            let at = if hits == 0 {
                NO_REPLY
            } else {
                (hits.trailing_zeros() as u8 + 1) % 6
            };
            entry |= at << (4 * (d - 1));
            d += 1;
        }
        table[code] = entry;
        code += 1;
    }
    table
}

/// Scratch space for fill-and-judge playouts (fixed arrays: no heap allocation).
pub(crate) struct Filler {
    /// Padded board being filled (same layout as [`Position`]'s; only the first
    /// `stride * stride` entries are used). Padding is encoded as described at `EDGE_PADDING`.
    pub(crate) board: [u8; PADDED_CELLS],
    /// The position's board in the same encoding, for [`Filler::reset`].
    root: [u8; PADDED_CELLS],
    stride: usize,
    size: usize,
    /// Stone owner (1 or 2) that connects top-bottom.
    tb_owner: u8,
}

impl Filler {
    pub(crate) fn new(pos: &Position) -> Filler {
        let mut root = [BORDER; PADDED_CELLS];
        let src = pos.board_slice();
        root[..src.len()].copy_from_slice(src);
        let (w, n) = (pos.stride(), usize::from(pos.size()));
        let tb = pos.top_bottom_owner();
        for k in 1..=n {
            root[k] = EDGE_PADDING | tb; // above row 0
            root[(n + 1) * w + k] = EDGE_PADDING | tb; // below the last row
            root[k * w] = EDGE_PADDING | (tb ^ 3); // left of column 0
            root[k * w + n + 1] = EDGE_PADDING | (tb ^ 3); // right of the last column
        }
        Filler {
            board: root,
            root,
            stride: w,
            size: n,
            tb_owner: tb,
        }
    }

    /// Puts the board back to the position it was created from.
    pub(crate) fn reset(&mut self) {
        let len = self.stride * self.stride;
        self.board[..len].copy_from_slice(&self.root[..len]);
    }

    /// Puts a stone of `first` on `empties[0]` ... alternating owners, in a uniformly shuffled
    /// order of `empties` (the list is permuted in place), then returns the owner (1 or 2) that
    /// connects its edges on the full board.
    pub(crate) fn fill_and_judge(
        &mut self,
        rng: &mut impl Rng,
        empties: &mut [u16],
        first: u8,
    ) -> u8 {
        let m = empties.len();
        let mut owner = first;
        for k in 0..m {
            let j = k + below(rng, (m - k) as u32) as usize;
            empties.swap(k, j);
            self.board[usize::from(empties[k])] = owner;
            owner ^= 3;
        }
        self.judge()
    }

    /// Like [`fill_and_judge`](Self::fill_and_judge), but a move that intrudes into a bridge of
    /// the other owner (two of its stones, or one stone on the second line and its own edge,
    /// with two common empty neighbours) is answered at once in the other cell of the bridge;
    /// all other moves are uniformly random. `slot` is scratch space. This keeps playouts from
    /// throwing away safe connections, which makes the search much sharper.
    pub(crate) fn fill_bridges_and_judge(
        &mut self,
        rng: &mut impl Rng,
        empties: &mut [u16],
        first: u8,
        slot: &mut [u16; PADDED_CELLS],
    ) -> u8 {
        let m = empties.len();
        for (k, &e) in empties.iter().enumerate() {
            slot[usize::from(e)] = k as u16;
        }
        let w = self.stride as isize;
        // the six neighbours in circular order: consecutive ones are adjacent to each other
        let ring: [isize; 6] = [-w, 1 - w, 1, w, w - 1, -1];
        let mut owner = first;
        let mut reply: Option<usize> = None;
        for k in 0..m {
            let j = match reply {
                Some(y) => usize::from(slot[y]),
                None => k + below(rng, (m - k) as u32) as usize,
            };
            let (a, b) = (empties[k], empties[j]);
            empties.swap(k, j);
            slot[usize::from(a)] = j as u16;
            slot[usize::from(b)] = k as u16;
            let x = usize::from(b);
            self.board[x] = owner;
            // does this stone break into a bridge of the next mover? The six neighbours'
            // `value & 3`, two bits each in ring order, look the answer up
            let mut code = 0;
            for (t, &d) in ring.iter().enumerate() {
                code |= usize::from(self.board[x.wrapping_add_signed(d)] & 3) << (2 * t);
            }
            // the next mover (the defender) is 2 after a stone of 1: the high half
            let shift = (owner & 1) << 2;
            let at = usize::from((BRIDGE_REPLY[code] >> shift) & 0xF);
            reply = ring.get(at).map(|&d| x.wrapping_add_signed(d));
            owner ^= 3;
        }
        self.judge()
    }

    /// The owner that connects on the current (full) board: the top-bottom owner if its stones
    /// join row 0 to the last row, else the other owner.
    ///
    /// Each row's top-bottom stones are bits of a `u32` (column `c` at bit `c`), read eight
    /// cells at a time. The cells reached from row 0 then spread, row by row, down and up again
    /// until nothing changes: cell `(r, c)` touches `(r + 1, c - 1)` and `(r + 1, c)` below it,
    /// and along its row the whole run of stones it lies in (see [`spread_along_row`]). Every
    /// cell must hold a stone: an empty one would be read as a stone of 2.
    pub(crate) fn judge(&self) -> u8 {
        // a run of `n` stones needs shifts of 1, 2, 4 ... adding up to `n - 1`
        match self.size {
            ..=8 => self.judge_rows::<3>(),
            9..=16 => self.judge_rows::<4>(),
            _ => self.judge_rows::<5>(),
        }
    }

    /// [`Filler::judge`] with `SHIFTS` doubling shifts along a row (enough for its length).
    fn judge_rows<const SHIFTS: usize>(&self) -> u8 {
        let (w, n, tb) = (self.stride, self.size, self.tb_owner);
        let mut stones = [0u32; MAX_ROWS];
        for (r, row) in stones.iter_mut().enumerate().take(n) {
            *row = row_bits(&self.board, (r + 1) * w + 1, n, tb);
        }
        let mut reached = [0u32; MAX_ROWS];
        reached[0] = stones[0];
        loop {
            // down to the first row the stones reached from row 0 do not touch yet: nothing
            // below it is reached either
            let mut lowest = n;
            for r in 1..n {
                let from_above = reached[r - 1] | (reached[r - 1] >> 1);
                reached[r] =
                    spread_along_row::<SHIFTS>(reached[r] | (from_above & stones[r]), stones[r]);
                if reached[r] == 0 {
                    lowest = r;
                    break;
                }
            }
            if reached[n - 1] != 0 {
                return tb;
            }
            let mut grown = 0;
            for r in (0..lowest - 1).rev() {
                let from_below = reached[r + 1] | (reached[r + 1] << 1);
                let next =
                    spread_along_row::<SHIFTS>(reached[r] | (from_below & stones[r]), stones[r]);
                grown |= next ^ reached[r];
                reached[r] = next;
            }
            if grown == 0 {
                return tb ^ 3;
            }
        }
    }
}

/// Rows of the largest board.
const MAX_ROWS: usize = 26;

/// The `n` cells of `board` from `start` on, as bits (cell `start + c` at bit `c`), set where
/// the cell holds `owner`'s stone. The cells must hold stones (1 or 2), as on a full board;
/// the bytes read past the row are masked off.
#[inline]
fn row_bits(board: &[u8; PADDED_CELLS], start: usize, n: usize, owner: u8) -> u32 {
    // a byte equal to `owner` becomes 0x01, the other owner's 0x00; the multiplication
    // gathers the eight bytes' low bits into the top byte
    let other = u64::from_le_bytes([owner ^ 1; 8]);
    let mut bits = 0u32;
    for q in 0..n.div_ceil(8) {
        let at = start + 8 * q;
        let bytes = board[at..at + 8].try_into().unwrap_or([0; 8]);
        let low = (u64::from_le_bytes(bytes) ^ other) & 0x0101_0101_0101_0101;
        bits |= ((low.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32) << (8 * q);
    }
    bits & ((1 << n) - 1)
}

/// The stones of `row` joined along it to one of `seeds` (a subset of `row`): every run of
/// consecutive bits of `row` that holds a seed. Upward by a carry (adding the seeds to the row
/// carries through the run above each one), downward by doubling shifts.
#[inline]
fn spread_along_row<const SHIFTS: usize>(seeds: u32, row: u32) -> u32 {
    let up = ((row + seeds) ^ row) & row;
    let (mut down, mut run) = (seeds, row);
    for step in [1, 2, 4, 8, 16].into_iter().take(SHIFTS) {
        down |= (down >> step) & run;
        run &= run >> step;
    }
    up | down
}

/// Padded indices of the empty cells of `pos`, in row-major order.
/// Writes the board indexes of the empty cells into `out`, in board order; returns how many.
/// The playouts' allocation-free form of [`empty_indices`].
pub(crate) fn fill_empty_indices(pos: &Position, out: &mut [u16; PADDED_CELLS]) -> usize {
    let mut m = 0;
    for (i, &v) in pos.board_slice().iter().enumerate() {
        if v == EMPTY {
            out[m] = i as u16;
            m += 1;
        }
    }
    m
}

pub(crate) fn empty_indices(pos: &Position) -> Vec<u16> {
    pos.board_slice()
        .iter()
        .enumerate()
        .filter(|&(_, &v)| v == EMPTY)
        .map(|(i, _)| i as u16)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;
    use rand_pcg::Pcg64;

    #[test]
    fn below_is_in_range_and_covers_it() {
        let mut rng = Pcg64::from_seed([7; 32]);
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            let x = below(&mut rng, 7);
            seen[x as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 800 && c < 1200), "{seen:?}");
        assert_eq!(below(&mut rng, 1), 0);
        assert_eq!(below(&mut rng, 0), 0);
    }

    /// The bridge replies as [`Filler::fill_bridges_and_judge`] computed them before the
    /// lookup table (issue 23, sixth piece): bit by bit over the six neighbours.
    fn fill_bridges_by_bits(
        f: &mut Filler,
        rng: &mut impl Rng,
        empties: &mut [u16],
        first: u8,
        slot: &mut [u16; PADDED_CELLS],
    ) -> u8 {
        let m = empties.len();
        for (k, &e) in empties.iter().enumerate() {
            slot[usize::from(e)] = k as u16;
        }
        let w = f.stride as isize;
        let ring: [isize; 6] = [-w, 1 - w, 1, w, w - 1, -1];
        let mut owner = first;
        let mut reply: Option<usize> = None;
        for k in 0..m {
            let j = match reply {
                Some(y) => usize::from(slot[y]),
                None => k + below(rng, (m - k) as u32) as usize,
            };
            let (a, b) = (empties[k], empties[j]);
            empties.swap(k, j);
            slot[usize::from(a)] = j as u16;
            slot[usize::from(b)] = k as u16;
            let x = usize::from(b);
            f.board[x] = owner;
            let defender = owner ^ 3;
            let mut cells = [0usize; 6];
            let (mut mine, mut empty) = (0u8, 0u8);
            for t in 0..6 {
                cells[t] = x.wrapping_add_signed(ring[t]);
                let v = f.board[cells[t]] & 3;
                mine |= u8::from(v == defender) << t;
                empty |= u8::from(v == EMPTY) << t;
            }
            let next_empty = (empty >> 1) | ((empty & 1) << 5);
            let after_mine = (mine >> 2) | ((mine & 3) << 4);
            let hits = mine & next_empty & after_mine;
            reply = (hits != 0).then(|| cells[(hits.trailing_zeros() as usize + 1) % 6]);
            owner ^= 3;
        }
        f.judge()
    }

    #[test]
    fn bridge_playouts_fill_exactly_as_they_did_before_the_lookup_table() {
        use rand_core::SeedableRng;
        let mut pick = Pcg64::seed_from_u64(5);
        for size in 1..=13u8 {
            for round in 0..40u64 {
                let mut pos = Position::new(size).expect("size");
                let cells = usize::from(size) * usize::from(size);
                for _ in 0..(round as usize % 8).min(cells / 2) {
                    let e = empty_indices(&pos);
                    pos.place_move(usize::from(e[pick.next_u32() as usize % e.len()]));
                }
                let first = 1 + (round % 2) as u8;
                let (mut new, mut old) = (Filler::new(&pos), Filler::new(&pos));
                let (mut e_new, mut e_old) = (empty_indices(&pos), empty_indices(&pos));
                let (mut s_new, mut s_old) = ([0; PADDED_CELLS], [0; PADDED_CELLS]);
                let mut r_new = Pcg64::seed_from_u64(round);
                let mut r_old = Pcg64::seed_from_u64(round);
                let w_new = new.fill_bridges_and_judge(&mut r_new, &mut e_new, first, &mut s_new);
                let w_old =
                    fill_bridges_by_bits(&mut old, &mut r_old, &mut e_old, first, &mut s_old);
                assert_eq!(
                    (w_new, &e_new),
                    (w_old, &e_old),
                    "size {size}, round {round}"
                );
                assert_eq!(new.board, old.board, "size {size}, round {round}");
                assert_eq!(r_new.next_u64(), r_old.next_u64(), "the same draws");
            }
        }
    }

    /// The judgement as [`Filler::judge`] made it before the row masks (issue 23, seventh
    /// piece): a depth-first flood fill from row 0 over the top-bottom owner's stones.
    fn judge_by_flood_fill(f: &mut Filler) -> u8 {
        const SEEN: u8 = 0x80;
        let mut stack = [0u16; PADDED_CELLS];
        let w = f.stride;
        let tb = f.tb_owner;
        let bottom_start = f.size * w;
        let mut top = 0;
        for i in w + 1..w + 1 + f.size {
            if f.board[i] == tb {
                f.board[i] |= SEEN;
                stack[top] = i as u16;
                top += 1;
            }
        }
        while top > 0 {
            top -= 1;
            let i = usize::from(stack[top]);
            if i > bottom_start {
                return tb;
            }
            for nb in [i - w, i - w + 1, i - 1, i + 1, i + w - 1, i + w] {
                if f.board[nb] == tb {
                    f.board[nb] |= SEEN;
                    stack[top] = nb as u16;
                    top += 1;
                }
            }
        }
        tb ^ 3
    }

    #[test]
    fn judge_names_the_same_winner_as_the_flood_fill_on_random_full_boards() {
        use rand_core::SeedableRng;
        let mut rng = Pcg64::seed_from_u64(23);
        let mut wins = [0u32; 3];
        for size in [1u8, 2, 3, 4, 5, 7, 8, 9, 11, 13, 14, 19, 25, 26] {
            for round in 0..300u32 {
                let mut pos = Position::new(size).expect("size");
                // a few stones before the fill, so that either seat may connect top to bottom
                if round % 3 == 1 && size > 1 {
                    let e = empty_indices(&pos);
                    pos.place_move(usize::from(e[rng.next_u32() as usize % e.len()]));
                }
                let mut f = Filler::new(&pos);
                let mut empties = empty_indices(&pos);
                let first = 1 + (round % 2) as u8;
                let m = empties.len();
                let mut owner = first;
                for k in 0..m {
                    let j = k + below(&mut rng, (m - k) as u32) as usize;
                    empties.swap(k, j);
                    f.board[usize::from(empties[k])] = owner;
                    owner ^= 3;
                }
                let mut old = Filler::new(&pos);
                old.board = f.board;
                let expected = judge_by_flood_fill(&mut old);
                assert_eq!(f.judge(), expected, "size {size}, round {round}");
                wins[usize::from(expected)] += 1;
            }
        }
        // both owners win often: the test sees both answers
        assert!(wins[1] > 1000 && wins[2] > 1000, "{wins:?}");
    }

    #[test]
    fn judge_agrees_with_incremental_play() {
        let mut rng = Pcg64::from_seed([3; 32]);
        for size in 1..=9u8 {
            for _ in 0..50 {
                let pos = Position::new(size).expect("size");
                let mut filler = Filler::new(&pos);
                let mut empties = empty_indices(&pos);
                let winner = filler.fill_and_judge(&mut rng, &mut empties, 1);
                // replay the same order move by move: the first connection has the same owner
                let mut replay = Position::new(size).expect("size");
                for &i in &empties {
                    replay.place_move(usize::from(i));
                    if replay.is_over() {
                        break;
                    }
                }
                let w = replay
                    .outcome()
                    .and_then(|o| o.winner())
                    .map(|s| s.number());
                assert_eq!(w, Some(winner));
            }
        }
    }
}
