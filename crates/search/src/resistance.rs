//! A position seen as an electrical circuit (issue 23, position judgement): for one player,
//! every link between two neighbours is a resistor of as many ohms as it has empty cells at
//! its ends (the player's own stones and edges are wires), the opponent's stones are cut out,
//! and a voltage of 1 is put across the player's two edges. The circuit's resistance says how
//! far the player is from connecting (low: close), and the current through an empty cell says
//! how much of the player's best routes run through it (Shannon's and Anshelevich's
//! evaluation of Hex, the idea behind Queenbee and Hexy).
//!
//! Pure: a board in, numbers out. The search uses the currents of both players as a move
//! prior at its busy nodes ([`crate::Tuning::resist_at`]).

use hex::EMPTY;

use crate::board::Board;

/// One player's circuit on a board.
#[derive(Clone, Debug, PartialEq)]
pub struct Circuit {
    /// Ohms between the player's two edges: `f64::INFINITY` when the opponent has cut every
    /// route, 0 when the player is already connected.
    pub resistance: f64,
    /// The current through each empty cell (what enters it, which is what leaves it), by
    /// padded index (0 for every other index), in amperes for the unit voltage across the
    /// edges: `1 / resistance` through a cell every route passes.
    pub current: Vec<f64>,
}

/// What a padded index is in the circuit.
#[derive(Clone, Copy, PartialEq)]
enum Part {
    /// Cut out: an opponent's stone, a corner, or off the board.
    Open,
    /// Held at a potential: the source edge (1) or the sink edge (0), and the player's chains
    /// that touch one.
    Held(f64),
    /// An unknown potential, by its number.
    Free(usize),
}

/// The circuit of `player` (1 or 2) on `board` (its padding read as the edges, as
/// [`Board::colour`]). Conductances: 1/2 siemens between two adjacent empty cells, 1 between
/// an empty cell and an adjacent chain of the player or the player's edge (a cell touching a
/// chain, or an edge, at two places is joined to it once). A chain touching one of the
/// player's edges is held at its potential; any other chain is a wire ([`WIRE`] siemens
/// between its adjacent stones). Solved exactly (a banded Cholesky factorisation: cells
/// numbered in board order, each linked only to cells a row apart at most).
pub fn circuit(board: &Board, player: u8) -> Circuit {
    let len = board.cells.len();
    let [source, sink] = board.sides_of(player);
    let mut current = vec![0.0; len];
    let on = |i: usize| board.on_board(i);
    // the player's chains, by union-find over its stones
    let mut parent: Vec<usize> = (0..len).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let stones: Vec<usize> = (0..len)
        .filter(|&i| on(i) && board.cells[i] == player)
        .collect();
    for &i in &stones {
        for j in board.ring(i) {
            if on(j) && board.cells[j] == player {
                let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                parent[a] = b;
            }
        }
    }
    // each chain's edges: 1 source, 2 sink
    let mut touches = vec![0u8; len];
    for &i in &stones {
        let r = root(&mut parent, i);
        for j in board.ring(i) {
            match board.side_of(j) {
                Some(s) if s == source => touches[r] |= 1,
                Some(s) if s == sink => touches[r] |= 2,
                _ => {}
            }
        }
    }
    let mut chain = vec![usize::MAX; len];
    for &i in &stones {
        chain[i] = root(&mut parent, i);
        if touches[chain[i]] == 3 {
            return Circuit {
                resistance: 0.0,
                current,
            };
        }
    }
    // the nodes, in board order: empty cells and the stones of chains held at no edge
    let mut part = vec![Part::Open; len];
    let mut free = 0;
    for i in 0..len {
        part[i] = match board.side_of(i) {
            Some(s) if s == source => Part::Held(1.0),
            Some(s) if s == sink => Part::Held(0.0),
            Some(_) => Part::Open,
            None if !on(i) => Part::Open,
            None if board.cells[i] == EMPTY => {
                free += 1;
                Part::Free(free - 1)
            }
            None if board.cells[i] == player => match touches[chain[i]] {
                1 => Part::Held(1.0),
                2 => Part::Held(0.0),
                _ => {
                    free += 1;
                    Part::Free(free - 1)
                }
            },
            None => Part::Open,
        };
    }
    // the links, each once: from an empty cell to whatever it touches (a chain once), and
    // between the adjacent stones of a free chain
    let mut diag = vec![GROUND; free];
    let mut rhs = vec![0.0; free];
    let mut edges: Vec<(usize, Part, f64)> = Vec::new();
    for i in 0..len {
        let Part::Free(k) = part[i] else { continue };
        let empty = board.cells[i] == EMPTY;
        let mut seen = [usize::MAX; 6];
        for (n, j) in board.ring(i).into_iter().enumerate() {
            let other = part[j];
            let other_empty = on(j) && board.cells[j] == EMPTY;
            let g = match (empty, other_empty, other) {
                (_, _, Part::Open) => continue,
                // a pair of nodes is met from both ends: taken from the lower index
                (_, _, Part::Free(_)) if j < i && (other_empty || !empty) => continue,
                (true, true, _) => 0.5,
                (true, false, _) => 1.0,
                // a stone: only its links to the rest of its chain (the empty cells and the
                // edges reach it from their side)
                (false, _, Part::Free(_)) if !other_empty => WIRE,
                (false, _, _) => continue,
            };
            // one link to a chain or an edge however many times the cell touches it
            let key = match other {
                Part::Held(v) if v > 0.5 => usize::MAX - 1,
                Part::Held(_) => usize::MAX - 2,
                _ if on(j) && board.cells[j] == player && empty => chain[j],
                _ => j,
            };
            if seen[..n].contains(&key) {
                continue;
            }
            seen[n] = key;
            edges.push((k, other, g));
            diag[k] += g;
            match other {
                Part::Free(m) => diag[m] += g,
                Part::Held(v) => rhs[k] += g * v,
                Part::Open => {}
            }
        }
    }
    let v = solve(free, &edges, &diag, &rhs);
    let potential = |p: Part| match p {
        Part::Free(m) => v[m],
        Part::Held(x) => x,
        Part::Open => 0.0,
    };
    let mut total = 0.0;
    let mut through = vec![0.0; free];
    for &(k, other, g) in &edges {
        let flow = g * (v[k] - potential(other));
        through[k] += flow.abs();
        if let Part::Free(m) = other {
            through[m] += flow.abs();
        }
        if other == Part::Held(1.0) {
            total -= flow;
        }
    }
    for i in 0..len {
        if let (Part::Free(k), true) = (part[i], board.cells.get(i) == Some(&EMPTY)) {
            // what enters a cell leaves it: half the sum of its links' currents
            current[i] = through[k] / 2.0;
        }
    }
    let resistance = if total > 1e-7 {
        1.0 / total
    } else {
        f64::INFINITY
    };
    Circuit {
        resistance,
        current,
    }
}

/// The conductance, siemens, between two adjacent stones of a chain held at no edge: a wire
/// next to the 1 and 1/2 of the links through empty cells.
pub const WIRE: f64 = 1e4;

/// A leak to ground from every node, siemens, so that a region no edge reaches (walled in by
/// the opponent) still has potentials (about 0): far below any link.
const GROUND: f64 = 1e-12;

/// Solves `A v = rhs` for the `n` free nodes: `A` has `diag` on its diagonal and `-g` for
/// each link `(k, Free(m), g)` of `edges` (symmetric positive definite: every node leaks to
/// ground). Banded Cholesky: the band is the largest `|k - m|` of a link.
fn solve(n: usize, edges: &[(usize, Part, f64)], diag: &[f64], rhs: &[f64]) -> Vec<f64> {
    let band = edges
        .iter()
        .filter_map(|&(k, o, _)| match o {
            Part::Free(m) => Some(k.abs_diff(m)),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let w = band + 1;
    // row i's entries at columns i - band ..= i, column j at i * w + band - (i - j)
    let mut l = vec![0.0; n * w];
    for (i, &d) in diag.iter().enumerate() {
        l[i * w + band] = d;
    }
    for &(k, o, g) in edges {
        if let Part::Free(m) = o {
            let (i, j) = if k > m { (k, m) } else { (m, k) };
            l[i * w + band - (i - j)] -= g;
        }
    }
    for i in 0..n {
        let from = i.saturating_sub(band);
        for j in from..=i {
            let mut sum = l[i * w + band - (i - j)];
            for k in from.max(j.saturating_sub(band))..j {
                sum -= l[i * w + band - (i - k)] * l[j * w + band - (j - k)];
            }
            l[i * w + band - (i - j)] = if i == j {
                sum.max(GROUND).sqrt()
            } else {
                sum / l[j * w + band]
            };
        }
    }
    // L y = rhs, then L^T v = y
    let mut y = rhs.to_vec();
    for i in 0..n {
        let from = i.saturating_sub(band);
        for k in from..i {
            y[i] -= l[i * w + band - (i - k)] * y[k];
        }
        y[i] /= l[i * w + band];
    }
    for i in (0..n).rev() {
        for k in i + 1..n.min(i + band + 1) {
            y[i] -= l[k * w + band - (k - i)] * y[k];
        }
        y[i] /= l[i * w + band];
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(rows: &[&str]) -> Board {
        Board::parse(rows).expect("board")
    }

    fn at(b: &Board, r: isize, c: isize) -> usize {
        b.at(r, c).expect("on the board")
    }

    #[test]
    fn one_empty_cell_is_two_links_of_one_ohm_and_carries_the_whole_current() {
        let b = board(&["."]);
        for player in [1, 2] {
            let c = circuit(&b, player);
            assert!((c.resistance - 2.0).abs() < 1e-9, "{}", c.resistance);
            assert!((c.current[at(&b, 0, 0)] - 0.5).abs() < 1e-9);
        }
    }

    #[test]
    fn a_column_of_empty_cells_is_resistors_in_series() {
        // 1 (top-bottom) on a 1-wide strip of 3: edge-cell 1, cell-cell 2 + 2, cell-edge 1
        let b = Board {
            size: 3,
            ..board(&["...", "...", "..."])
        };
        let mut b = b;
        for r in 0..3 {
            for c in 1..3 {
                let i = at(&b, r, c);
                b.cells[i] = 2;
            }
        }
        let c = circuit(&b, 1);
        assert!((c.resistance - 6.0).abs() < 1e-9, "{}", c.resistance);
        for r in 0..3 {
            assert!((c.current[at(&b, r, 0)] - 1.0 / 6.0).abs() < 1e-9);
        }
    }

    #[test]
    fn a_connected_player_has_no_resistance_and_a_cut_off_one_infinite() {
        let b = board(&[".1.", ".1.", "1.."]);
        assert_eq!(circuit(&b, 1).resistance, 0.0);
        let b = board(&["...", "222", "..."]);
        let c = circuit(&b, 1);
        assert!(c.resistance.is_infinite());
        assert!(c.current.iter().all(|&a| a.abs() < 1e-12));
    }

    #[test]
    fn the_empty_board_is_fair_and_its_centre_carries_more_than_its_corners() {
        let b = board(&["....."; 5]);
        let (one, two) = (circuit(&b, 1), circuit(&b, 2));
        assert!((one.resistance - two.resistance).abs() < 1e-9);
        let centre = one.current[at(&b, 2, 2)];
        // the acute corners (the obtuse ones touch both edges' routes)
        for (r, c) in [(0, 0), (4, 4)] {
            assert!(centre > one.current[at(&b, r, c)] + 1e-3, "corner {r},{c}");
        }
        // the same cell seen by the other player: the board turned a quarter
        assert!((centre - two.current[at(&b, 2, 2)]).abs() < 1e-9);
    }

    #[test]
    fn stones_lower_their_owner_resistance_and_raise_the_opponents() {
        let empty = board(&["....."; 5]);
        let b = board(&[".....", "..1..", "..1..", ".....", "....."]);
        assert!(circuit(&b, 1).resistance < circuit(&empty, 1).resistance - 0.1);
        assert!(circuit(&b, 2).resistance > circuit(&empty, 2).resistance + 0.1);
    }

    #[test]
    fn a_single_gap_carries_the_whole_current() {
        let b = board(&["..2..", "22.22", ".1...", "...2.", "....."]);
        let c = circuit(&b, 1);
        let total = 1.0 / c.resistance;
        assert!((c.current[at(&b, 1, 2)] - total).abs() < 1e-9);
        assert!(c.current[at(&b, 1, 2)] > c.current[at(&b, 3, 0)]);
        assert_eq!(c.current[at(&b, 0, 2)], 0.0, "a stone carries nothing");
    }
}
