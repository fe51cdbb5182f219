//! House-bot strategies (SPEC section 9): pure functions of a position and an injected RNG, so a
//! given RNG state always gives the same move.
//!
//! - [`random_move`]: a uniformly random empty cell.
//! - [`strong_move`]: immediate win / forced block checks, the pie rule, then Monte Carlo tree
//!   search with RAVE (all-moves-as-first) statistics over fast fill-the-board playouts.
//! - [`random_playout`]: plays random placements to the end of a game (benchmarks, tests).

use rand_core::Rng;

use crate::playout::{Filler, OWNER, PADDED_CELLS, below, empty_indices};
use crate::position::EMPTY;
use crate::{MAX_MOVES, Move, Outcome, Position, Seat};

/// Playouts per move for the house "strong" bot on 11x11: roughly 25 ms per move in a release
/// build on one core. See [`strong_budget_for`] for other sizes.
pub const STRONG_BUDGET: u32 = 5_000;

/// A playout budget for [`strong_move`] on a `size` x `size` board that costs about as much time
/// per move as [`STRONG_BUDGET`] does on 11x11 (playouts get longer and the tree wider on
/// bigger boards): 7469 on 9x9, 5000 on 11x11, 3579 on 13x13, 1675 on 19x19; at least 500
/// and at most 10 000.
pub fn strong_budget_for(size: u8) -> u32 {
    let cells = u32::from(size.max(1)) * u32::from(size.max(1));
    (STRONG_BUDGET * 121 / cells).clamp(500, 10_000)
}

/// A uniformly random empty cell as [`Move::Place`]; never a swap. `None` when the game is over.
pub fn random_move(pos: &Position, rng: &mut impl Rng) -> Option<Move> {
    if pos.is_over() {
        return None;
    }
    let empties = empty_indices(pos);
    if empties.is_empty() {
        return None;
    }
    let k = below(rng, empties.len() as u32) as usize;
    Some(Move::Place(pos.cell_at(usize::from(empties[k]))))
}

/// Plays uniformly random placements (never a swap) for whoever is on move until the game ends,
/// leaving `pos` in its true final state (the first connection, or the move cap), and returns
/// the outcome. A finished position is left as it is and its outcome returned. Allocates
/// nothing.
pub fn random_playout(pos: &mut Position, rng: &mut impl Rng) -> Option<Outcome> {
    if pos.is_over() {
        return pos.outcome();
    }
    let mut empties = [0u16; PADDED_CELLS];
    let mut m = 0;
    for (i, &v) in pos.board_slice().iter().enumerate() {
        if v == EMPTY {
            empties[m] = i as u16;
            m += 1;
        }
    }
    // the same forward Fisher-Yates order as `playout_winner`, so both agree on the winner
    // for equally seeded RNGs
    let mut k = 0;
    while k < m && !pos.is_over() {
        let j = k + below(rng, (m - k) as u32) as usize;
        empties.swap(k, j);
        pos.place_move(usize::from(empties[k]));
        k += 1;
    }
    pos.outcome()
}

/// The winner of a uniformly random completion of `pos` (the same distribution as
/// [`random_playout`]), computed the fast way: every empty cell is filled in a random order,
/// alternating from the seat on move, and the full board is judged once (a full Hex board has
/// exactly one connected seat, and it is the seat that connected first). `pos` is not changed
/// and nothing is allocated. A finished position gives its winner (`None` after a move-cap
/// draw); on boards where the move cap could come first (more than 19x19) this falls back to
/// playing the moves on a copy.
pub fn playout_winner(pos: &Position, rng: &mut impl Rng) -> Option<Seat> {
    if pos.is_over() {
        return pos.outcome().and_then(Outcome::winner);
    }
    let mut empties = [0u16; PADDED_CELLS];
    let mut m = 0;
    for (i, &v) in pos.board_slice().iter().enumerate() {
        if v == EMPTY {
            empties[m] = i as u16;
            m += 1;
        }
    }
    if usize::from(pos.ply()) + m >= usize::from(MAX_MOVES) {
        let mut copy = pos.clone();
        return random_playout(&mut copy, rng).and_then(Outcome::winner);
    }
    let mut filler = Filler::new(pos);
    let owner = filler.fill_and_judge(rng, &mut empties[..m], pos.mover().number());
    Seat::from_number(owner)
}

/// A much stronger house bot than [`random_move`]. `budget` is the number of playouts of the
/// tree search ([`STRONG_BUDGET`] for the house bot; a few hundred already beat random play).
/// Deterministic for a given RNG state. `None` when the game is over.
///
/// In order: with the pie rule pending as the first mover, a random cell of the outer ring
/// (close to a fair offer); as seat 2 at ply 1, [`Move::Swap`] when the opening stone is off
/// the outer ring; a cell that wins at once; the single cell that stops an immediate loss;
/// otherwise the most visited root move of a Monte Carlo tree search with RAVE.
pub fn strong_move(pos: &Position, rng: &mut impl Rng, budget: u32) -> Option<Move> {
    if pos.is_over() {
        return None;
    }
    let me = pos.mover().number();
    let opp = me ^ 3;
    let empties = empty_indices(pos);
    if pos.swap_allowed() && swap_is_worth_it(pos) {
        return Some(Move::Swap);
    }
    if empties.is_empty() {
        return None;
    }
    let place = |i: u16| Some(Move::Place(pos.cell_at(usize::from(i))));
    if pos.ply() == 0 && pos.opening_len() == 0 && pos.size() > 2 {
        let ring: Vec<u16> = empties
            .iter()
            .copied()
            .filter(|&i| on_outer_ring(pos, i))
            .collect();
        if !ring.is_empty() {
            return place(ring[below(rng, ring.len() as u32) as usize]);
        }
    }
    if let Some(&win) = empties
        .iter()
        .find(|&&i| pos.connects_if_placed(usize::from(i), me))
    {
        return place(win);
    }
    let threats: Vec<u16> = empties
        .iter()
        .copied()
        .filter(|&i| pos.connects_if_placed(usize::from(i), opp))
        .collect();
    match threats.len() {
        1 => place(threats[0]),
        0 => place(search(pos, rng, budget.max(1), &empties)),
        _ => place(search(pos, rng, budget.max(1), &threats)),
    }
}

fn on_outer_ring(pos: &Position, i: u16) -> bool {
    let c = pos.cell_at(usize::from(i));
    let last = pos.size() - 1;
    c.row == 0 || c.col == 0 || c.row == last || c.col == last
}

/// Seat 2's pie decision: take over the first stone when it is off the outer ring.
fn swap_is_worth_it(pos: &Position) -> bool {
    pos.board_slice()
        .iter()
        .position(|&v| v == 1 || v == 2)
        .is_some_and(|i| !on_outer_ring(pos, i as u16))
}

/// Expand a node after this many visits.
const EXPAND_AT: u32 = 3;
/// Upper bound on tree nodes (about 28 bytes each).
const MAX_NODES: usize = 4_000_000;
/// RAVE weight decay: beta = amaf / (amaf + n + amaf * n * RAVE_BIAS).
const RAVE_BIAS: f32 = 0.002;

#[derive(Clone, Copy)]
struct Node {
    /// Padded index of the move leading here.
    cell: u16,
    /// Owner (1 or 2) who made that move.
    player: u8,
    n_children: u16,
    first_child: u32,
    visits: u32,
    wins: u32,
    amaf_visits: u32,
    amaf_wins: u32,
}

impl Node {
    fn new(cell: u16, player: u8) -> Node {
        Node {
            cell,
            player,
            n_children: 0,
            first_child: 0,
            visits: 0,
            wins: 0,
            amaf_visits: 0,
            amaf_wins: 0,
        }
    }

    fn children(&self) -> std::ops::Range<usize> {
        let start = self.first_child as usize;
        start..start + usize::from(self.n_children)
    }
}

fn expand(nodes: &mut Vec<Node>, at: usize, cells: &[u16], player: u8) {
    let start = nodes.len();
    nodes.extend(cells.iter().map(|&c| Node::new(c, player)));
    nodes[at].first_child = start as u32;
    nodes[at].n_children = cells.len() as u16;
}

fn select(nodes: &[Node], parent: usize) -> usize {
    let mut best = nodes[parent].first_child as usize;
    let mut best_value = f32::NEG_INFINITY;
    for c in nodes[parent].children() {
        let node = &nodes[c];
        let n = node.visits as f32;
        let an = node.amaf_visits as f32;
        let value = if node.visits == 0 && node.amaf_visits == 0 {
            1.5 // untried: look at it first
        } else {
            let q = if node.visits > 0 {
                node.wins as f32 / n
            } else {
                0.0
            };
            let qa = if node.amaf_visits > 0 {
                node.amaf_wins as f32 / an
            } else {
                0.0
            };
            let beta = an / (an + n + an * n * RAVE_BIAS);
            (1.0 - beta) * q + beta * qa
        };
        if value > best_value {
            best_value = value;
            best = c;
        }
    }
    best
}

/// Monte Carlo tree search with RAVE from `pos`, root moves limited to `candidates` (padded
/// indices of empty cells, not empty). Returns the most visited root move.
fn search(pos: &Position, rng: &mut impl Rng, budget: u32, candidates: &[u16]) -> u16 {
    let me = pos.mover().number();
    let all_empties = empty_indices(pos);
    let root_board = pos.board_slice();
    let mut filler = Filler::new(pos);
    let mut nodes: Vec<Node> = Vec::with_capacity(1 + candidates.len() * 64);
    nodes.push(Node::new(u16::MAX, me ^ 3));
    expand(&mut nodes, 0, candidates, me);
    let mut path: Vec<usize> = Vec::with_capacity(64);
    let mut leaf_empties: Vec<u16> = Vec::with_capacity(all_empties.len());
    let mut slot = [0u16; PADDED_CELLS];

    for _ in 0..budget {
        filler.reset(root_board);
        path.clear();
        path.push(0);
        let mut node = 0;
        let mut turn = me;
        loop {
            if nodes[node].n_children == 0 {
                if nodes[node].visits < EXPAND_AT {
                    break;
                }
                leaf_empties.clear();
                leaf_empties.extend(
                    all_empties
                        .iter()
                        .copied()
                        .filter(|&i| filler.board[usize::from(i)] == EMPTY),
                );
                if leaf_empties.is_empty() || nodes.len() + leaf_empties.len() > MAX_NODES {
                    break;
                }
                expand(&mut nodes, node, &leaf_empties, turn);
            }
            let child = select(&nodes, node);
            filler.board[usize::from(nodes[child].cell)] = turn;
            turn ^= 3;
            path.push(child);
            node = child;
        }
        leaf_empties.clear();
        leaf_empties.extend(
            all_empties
                .iter()
                .copied()
                .filter(|&i| filler.board[usize::from(i)] == EMPTY),
        );
        let winner = filler.fill_bridges_and_judge(rng, &mut leaf_empties, turn, &mut slot);
        for &p in &path {
            let n = &mut nodes[p];
            n.visits += 1;
            if n.player == winner {
                n.wins += 1;
            }
            for c in n.children() {
                let child = &mut nodes[c];
                if filler.board[usize::from(child.cell)] & OWNER == child.player {
                    child.amaf_visits += 1;
                    if child.player == winner {
                        child.amaf_wins += 1;
                    }
                }
            }
        }
    }

    let mut best = nodes[0].first_child as usize;
    for c in nodes[0].children() {
        if nodes[c].visits > nodes[best].visits {
            best = c;
        }
    }
    nodes[best].cell
}
