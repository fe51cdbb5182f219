//! Playouts weighted by the learned patterns (issue 23, eleventh piece): instead of filling the
//! empty cells in a uniformly random order, each mover takes a cell with a probability in
//! proportion to its learned gamma ([`crate::patterns`]: the twelve-cell pattern, the edge
//! class, and the relation to the opponent's last move) raised to a power, after answering at
//! once any intrusion into one of its bridges, as the uniform playouts do. MoHex 2.0's playouts
//! pick their moves by pattern weights in the same spirit.
//!
//! A cell's pattern changes only when a stone lands on one of its twelve pattern cells, so
//! each playout reads every empty cell's two codes (one for each mover) once, then updates the
//! twelve cells around each new stone. Weights are integers (exact sums, no drift): a learned
//! logarithm is quantized to [`STEPS`] levels per unit, and a level indexes a table of
//! `gamma^power` values.

use std::sync::OnceLock;

use rand_core::Rng;

use hex::EMPTY;

use crate::patterns::{self, CODES, EDGE_CLASSES};
use crate::playout::{Filler, PADDED_CELLS, bridge_reply};

/// Quantization of the learned logarithms: levels per unit of `ln(gamma)`.
pub(crate) const STEPS: f32 = 16.0;

/// The weight-table index of a gamma of 1.
const CENTRE: i32 = 256;

/// Weight-table entries: a pattern level (0..=255), an edge level and a relation level each
/// add to [`CENTRE`]-based indices, clamped into the table.
const TABLE: usize = 512;

/// Each code's learned `ln(gamma)`, quantized: `round(STEPS * ln) + 128`, within 0..=255
/// (about -8..=+8 in `ln`, wider than any learned value). Built once (half a megabyte, so that
/// it stays in the core's second-level cache).
fn levels() -> &'static [u8] {
    static LEVELS: OnceLock<Vec<u8>> = OnceLock::new();
    LEVELS.get_or_init(|| {
        let weights = patterns::learned();
        (0..CODES)
            .map(|code| quantize(weights.ln_gamma(code)).clamp(-128, 127) as u8 ^ 0x80)
            .collect()
    })
}

/// `round(STEPS * ln)` as a level.
fn quantize(ln: f32) -> i32 {
    (ln * STEPS).round() as i32
}

/// The powers of three of the twelve pattern cells, in [`crate::patterns`]' order.
const POW3: [u32; 12] = {
    let mut p = [1u32; 12];
    let mut t = 1;
    while t < 12 {
        p[t] = p[t - 1] * 3;
        t += 1;
    }
    p
};

/// A playout policy: the learned gammas raised to `power` ([`crate::Tuning::playout_patterns`]).
pub(crate) struct Policy {
    /// `gamma^power` for each summed level index (a gamma of 1 at [`CENTRE`] weighs 256),
    /// within 1..=2^24.
    weight: [u32; TABLE],
    /// The level of the relations to the last move ([`patterns::NEXT_TO_LAST`],
    /// [`patterns::BRIDGE_FROM_LAST`]; 0 for [`patterns::AWAY_FROM_LAST`]).
    last: [i32; 3],
    /// The level of each edge class.
    edge: [i32; EDGE_CLASSES],
}

impl Policy {
    /// The learned weights raised to `power` (0 weighs every cell alike).
    pub(crate) fn new(power: f32) -> Policy {
        let weights = patterns::learned();
        let mut weight = [0u32; TABLE];
        for (i, w) in weight.iter_mut().enumerate() {
            let ln = (i as f32 - CENTRE as f32) / STEPS;
            *w = (256.0 * (power * ln).exp())
                .round()
                .clamp(1.0, 16_777_216.0) as u32;
        }
        let mut edge = [0; EDGE_CLASSES];
        for (class, e) in edge.iter_mut().enumerate() {
            *e = quantize(weights.ln_edge(class as u8));
        }
        let last = [0, 1, 2].map(|r| quantize(weights.ln_last(r)));
        Policy { weight, last, edge }
    }

    /// The weight of a cell whose code is `code` and whose edge (and relation) index is
    /// `base` ([`Scratch::base`]).
    #[inline]
    fn weight_of(&self, levels: &[u8], code: u32, base: i32) -> u32 {
        let level = levels.get(code as usize).map_or(128, |&l| i32::from(l));
        self.weight[(level + base).clamp(0, TABLE as i32 - 1) as usize]
    }
}

/// A playout's working space for [`fill`]: each cell's codes, weights and edge level for
/// both movers (index 0 for owner 1, 1 for owner 2).
pub(crate) struct Scratch {
    code: [[u32; PADDED_CELLS]; 2],
    weight: [[u32; PADDED_CELLS]; 2],
    /// `CENTRE - 128 +` the edge class's level, by mover and cell.
    base: [[i32; PADDED_CELLS]; 2],
    /// Padded offsets of the twelve pattern cells, in [`crate::patterns`]' order.
    offsets: [isize; 12],
}

impl Scratch {
    /// Space for playouts from positions of `filler`'s board, with the edge levels of `cells`
    /// (every cell a playout may fill) set for `policy`.
    pub(crate) fn new(filler: &Filler, policy: &Policy, cells: &[u16]) -> Box<Scratch> {
        let (w, n) = (filler.stride, filler.size);
        let mut s = Box::new(Scratch {
            code: [[0; PADDED_CELLS]; 2],
            weight: [[0; PADDED_CELLS]; 2],
            base: [[0; PADDED_CELLS]; 2],
            offsets: patterns::offsets(w),
        });
        for &c in cells {
            let x = usize::from(c);
            for o in 0..2u8 {
                let class = patterns::edge_class_at(&filler.board, w, n, x, o + 1);
                let level = policy.edge.get(usize::from(class)).copied().unwrap_or(0);
                s.base[usize::from(o)][x] = CENTRE - 128 + level;
            }
        }
        s
    }
}

/// A uniform integer in `0..n` for `n >= 1` (multiply and shift; the bias is below 2^-30).
#[inline]
fn below_u64(rng: &mut impl Rng, n: u64) -> u64 {
    ((u128::from(rng.next_u64()) * u128::from(n)) >> 64) as u64
}

/// Fills every cell of `empties` (the board's empty cells, permuted in place) from `first`
/// on, alternating owners, each mover answering an intrusion into its bridges at once and
/// otherwise taking a cell with a probability in proportion to its weight under `policy`
/// (its pattern's and edge class's, times its relation's to the move just played); returns the
/// owner that connects. `last` is the move before the fill, when known. `slot` is scratch.
pub(crate) fn fill(
    filler: &mut Filler,
    policy: &Policy,
    s: &mut Scratch,
    rng: &mut impl Rng,
    (empties, first, last): (&mut [u16], u8, Option<usize>),
    slot: &mut [u16; PADDED_CELLS],
) -> u8 {
    let levels = levels();
    let (w, n) = (filler.stride, filler.size);
    let m = empties.len();
    let mut total = [0u64; 2];
    for (k, &e) in empties.iter().enumerate() {
        let x = usize::from(e);
        slot[x] = k as u16;
        for (o, sum) in total.iter_mut().enumerate() {
            let code = patterns::code_at(&filler.board, w, n, x, o as u8 + 1);
            s.code[o][x] = code;
            let weight = policy.weight_of(levels, code, s.base[o][x]);
            s.weight[o][x] = weight;
            *sum += u64::from(weight);
        }
    }
    let sw = w as isize;
    let ring: [isize; 6] = [-sw, 1 - sw, 1, sw, sw - 1, -1];
    let mut owner = first;
    let mut reply: Option<usize> = None;
    let mut last = last;
    for k in 0..m {
        let o = usize::from(owner - 1);
        let j = match reply {
            Some(y) => usize::from(slot[y]),
            None => match pick(
                policy,
                s,
                rng,
                (&filler.board, &empties[k..]),
                o,
                last,
                total[o],
            ) {
                Pick::Cell(y) => usize::from(slot[y]),
                Pick::Index(i) => k + i,
            },
        };
        let (a, b) = (empties[k], empties[j]);
        empties.swap(k, j);
        slot[usize::from(a)] = j as u16;
        slot[usize::from(b)] = k as u16;
        let x = usize::from(b);
        filler.board[x] = owner;
        total[0] -= u64::from(s.weight[0][x]);
        total[1] -= u64::from(s.weight[1][x]);
        // the new stone is pattern cell `t` of the empty cell `x - offsets[t]`
        for (t, &pow) in POW3.iter().enumerate() {
            let y = x.wrapping_add_signed(-s.offsets[t]);
            if filler.board.get(y) != Some(&EMPTY) {
                continue;
            }
            for (o, digit) in [(0, u32::from(owner)), (1, u32::from(owner ^ 3))] {
                let code = s.code[o][y] + digit * pow;
                s.code[o][y] = code;
                let weight = policy.weight_of(levels, code, s.base[o][y]);
                total[o] = total[o] - u64::from(s.weight[o][y]) + u64::from(weight);
                s.weight[o][y] = weight;
            }
        }
        reply = bridge_reply(&filler.board, x, &ring, owner);
        last = Some(x);
        owner ^= 3;
    }
    filler.judge()
}

/// A weighted choice: a cell around the last move, or an index into the cells still empty.
enum Pick {
    Cell(usize),
    Index(usize),
}

/// Mover `o`'s weighted choice among `rest` (the cells still empty); `total` is the sum of
/// their weights for `o`. Cells next to `last` or a bridge away from it weigh their
/// relation's gamma more.
#[inline]
fn pick(
    policy: &Policy,
    s: &Scratch,
    rng: &mut impl Rng,
    (board, rest): (&[u8; PADDED_CELLS], &[u16]),
    o: usize,
    last: Option<usize>,
    total: u64,
) -> Pick {
    let levels = levels();
    // the relation's extra weight, cell by cell around the last move
    let mut around = [(0usize, 0u64); 12];
    let mut extra = 0u64;
    if let Some(l) = last {
        for (t, (&d, slot)) in s.offsets.iter().zip(around.iter_mut()).enumerate() {
            let y = l.wrapping_add_signed(d);
            if board.get(y) != Some(&EMPTY) {
                continue;
            }
            let relation = if t < 6 { 1 } else { 2 };
            let base = s.base[o][y] + policy.last[relation];
            let boosted = u64::from(policy.weight_of(levels, s.code[o][y], base));
            let more = boosted.saturating_sub(u64::from(s.weight[o][y]));
            *slot = (y, more);
            extra += more;
        }
    }
    let mut r = below_u64(rng, total + extra);
    let target = if r < extra {
        around.iter().find_map(|&(y, more)| {
            if r < more {
                Some(y)
            } else {
                r -= more;
                None
            }
        })
    } else {
        r -= extra;
        None
    };
    if let Some(y) = target {
        return Pick::Cell(y);
    }
    let mut acc = 0u64;
    for (i, &e) in rest.iter().enumerate() {
        acc += u64::from(s.weight[o][usize::from(e)]);
        if acc > r {
            return Pick::Index(i);
        }
    }
    Pick::Index(rest.len().saturating_sub(1))
}
