//! A position seen as an electrical circuit (issue 23, position judgement): for one player,
//! every link between two neighbours is a resistor of as many ohms as it has empty cells at
//! its ends (the player's own stones and edges are wires), the opponent's stones are cut out,
//! and a voltage of 1 is put across the player's two edges. The
//! circuit's resistance says how far the player is from connecting (low: close), and the
//! current through an empty cell says how much of the player's best routes run through it
//! (Shannon's and Anshelevich's evaluation of Hex, the idea behind Queenbee and Hexy).
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
    /// The current through each empty cell, by padded index (0 for every other index), in
    /// amperes for the unit voltage across the edges. Sums over a cut of the board to
    /// `1 / resistance`.
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
/// an empty cell and an adjacent chain of the player or the player's edge (a chain is one
/// node, held at the edge's potential when it touches that edge; a cell touching a chain, or
/// an edge, at two places is joined to it once). The potentials are solved by conjugate
/// gradients to a residual below 1e-10.
pub fn circuit(board: &Board, player: u8) -> Circuit {
    let len = board.cells.len();
    let [source, sink] = board.sides_of(player);
    let mut current = vec![0.0; len];
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
        .filter(|&i| board.on_board(i) && board.cells[i] == player)
        .collect();
    for &i in &stones {
        for j in board.ring(i) {
            if board.on_board(j) && board.cells[j] == player {
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
    if stones.iter().any(|&i| touches[root(&mut parent, i)] == 3) {
        return Circuit {
            resistance: 0.0,
            current,
        };
    }
    let mut part = vec![Part::Open; len];
    let mut free = 0;
    for i in 0..len {
        if let Some(s) = board.side_of(i) {
            if s == source {
                part[i] = Part::Held(1.0);
            } else if s == sink {
                part[i] = Part::Held(0.0);
            }
        } else if board.on_board(i) && board.cells[i] == EMPTY {
            part[i] = Part::Free(free);
            free += 1;
        }
    }
    for &i in &stones {
        let r = root(&mut parent, i);
        part[i] = match touches[r] {
            1 => Part::Held(1.0),
            2 => Part::Held(0.0),
            _ => match part[r] {
                Part::Free(k) => Part::Free(k),
                _ => {
                    part[r] = Part::Free(free);
                    free += 1;
                    part[r]
                }
            },
        };
    }
    // every conductance joins an empty cell to something: list them from the empty cells
    // (`links[k]`: the free node's neighbours; `held[k]`: what flows in from held ones)
    let mut links: Vec<Vec<(usize, f64)>> = vec![Vec::new(); free];
    let mut diag = vec![0.0; free];
    let mut rhs = vec![0.0; free];
    let mut edges: Vec<(usize, Part, f64)> = Vec::new();
    for i in 0..len {
        let Part::Free(k) = part[i] else { continue };
        if !(board.on_board(i) && board.cells[i] == EMPTY) {
            continue;
        }
        let mut seen: [Option<Part>; 6] = [None; 6];
        for (n, j) in board.ring(i).into_iter().enumerate() {
            let other = part[j];
            if other == Part::Open || seen[..n].contains(&Some(other)) {
                continue;
            }
            seen[n] = Some(other);
            let empty = board.on_board(j) && board.cells[j] == EMPTY;
            let g = if empty { 0.5 } else { 1.0 };
            // an empty pair is met from both ends: count it once, from the lower index
            if empty && j < i {
                continue;
            }
            edges.push((k, other, g));
            diag[k] += g;
            match other {
                Part::Free(m) => {
                    diag[m] += g;
                    links[k].push((m, g));
                    links[m].push((k, g));
                }
                Part::Held(v) => rhs[k] += g * v,
                Part::Open => {}
            }
        }
    }
    let v = solve(&links, &diag, &rhs);
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
    let resistance = if total > 1e-12 {
        1.0 / total
    } else {
        f64::INFINITY
    };
    Circuit {
        resistance,
        current,
    }
}

/// Solves `A v = rhs` by conjugate gradients, `A` symmetric positive definite given as its
/// diagonal and, per row, its off-diagonal entries `-g` (`links`); a row with no diagonal (a
/// node joined to nothing) gets potential 0.
fn solve(links: &[Vec<(usize, f64)>], diag: &[f64], rhs: &[f64]) -> Vec<f64> {
    let n = diag.len();
    let apply = |x: &[f64], out: &mut [f64]| {
        for k in 0..n {
            let mut s = diag[k] * x[k];
            for &(m, g) in &links[k] {
                s -= g * x[m];
            }
            out[k] = if diag[k] > 0.0 { s } else { x[k] };
        }
    };
    let mut x = vec![0.0; n];
    let mut r: Vec<f64> = (0..n)
        .map(|k| if diag[k] > 0.0 { rhs[k] } else { 0.0 })
        .collect();
    let mut p = r.clone();
    let mut ap = vec![0.0; n];
    let mut rr: f64 = r.iter().map(|a| a * a).sum();
    for _ in 0..4 * n + 10 {
        if rr < 1e-20 {
            break;
        }
        apply(&p, &mut ap);
        let pap: f64 = p.iter().zip(&ap).map(|(a, b)| a * b).sum();
        if pap <= 0.0 {
            break;
        }
        let alpha = rr / pap;
        for k in 0..n {
            x[k] += alpha * p[k];
            r[k] -= alpha * ap[k];
        }
        let next: f64 = r.iter().map(|a| a * a).sum();
        let beta = next / rr;
        rr = next;
        for k in 0..n {
            p[k] = r[k] + beta * p[k];
        }
    }
    x
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
