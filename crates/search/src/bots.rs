//! House-bot strategies (SPEC section 9): pure functions of a position and an injected RNG, so a
//! given RNG state always gives the same move.
//!
//! - [`random_move`]: a uniformly random empty cell.
//! - [`strong_move`]: immediate win / forced block checks, the pie rule, then Monte Carlo tree
//!   search with RAVE (all-moves-as-first) statistics over fast fill-the-board playouts.
//! - [`random_playout`]: plays random placements to the end of a game (benchmarks, tests).

use rand_core::Rng;

use crate::playout::{Filler, PADDED_CELLS, below, empty_indices, fill_empty_indices};
use hex::{BORDER, EMPTY};
use hex::{MAX_MOVES, Move, Outcome, Position, Seat};

use crate::board::{Board, CellSet};
use crate::inferior::fill_in;
use crate::solver::{self, Verdict};
use crate::vc::VcLimits;

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
    let m = fill_empty_indices(pos, &mut empties);
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
    let m = fill_empty_indices(pos, &mut empties);
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
    strong_move_within(
        pos,
        rng,
        Limits {
            max_playouts: budget,
            stop: &mut |_| false,
        },
    )
}

/// How often (in playouts) a search asks [`Limits::stop`] whether to end.
pub const STOP_CHECK_EVERY: u32 = 32;

/// The limits of one search. The engine reads no clock: a caller that thinks against a clock
/// passes a `stop` that looks at its own.
pub struct Limits<'a> {
    /// Playouts never exceeded; at least one is always run.
    pub max_playouts: u32,
    /// Asked every [`STOP_CHECK_EVERY`] playouts with the number run so far; `true` ends the
    /// search, which then answers with what it has.
    pub stop: &'a mut dyn FnMut(u32) -> bool,
}

/// [`strong_move`] with a stop check as well as a playout cap (see [`Limits`]): the house bots
/// and `hexarena play` think against their clock with it. Deterministic for a given RNG state
/// and a given sequence of `stop` answers.
pub fn strong_move_within(pos: &Position, rng: &mut impl Rng, limits: Limits<'_>) -> Option<Move> {
    strong_move_tuned(pos, rng, limits, &Tuning::HOUSE)
}

/// [`strong_move_within`] with other knobs than the house bots' ([`Tuning`]): for measuring a
/// change of the search against the current one.
pub fn strong_move_tuned(
    pos: &Position,
    rng: &mut impl Rng,
    limits: Limits<'_>,
    tuning: &Tuning,
) -> Option<Move> {
    strong_move_tuned_reported(pos, rng, limits, tuning).0
}

/// What the search knew when it chose a move (issue 21: what `hexarena play` sends as the
/// move's `Hexarena-Info`).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInfo {
    /// The mover's win rate after the move, 0..=1 (1 for a move that wins at once).
    pub win_rate: f64,
    /// The expected line, the move first.
    pub pv: Vec<Move>,
    /// Playouts run.
    pub playouts: u32,
}

/// [`strong_move_within`] with what the search knew: None for a move chosen without a search
/// (the pie rule, the first move's ring, a forced block), a win rate of 1 for a move that wins
/// at once. The move is the one [`strong_move_within`] plays for the same RNG state.
pub fn strong_move_reported(
    pos: &Position,
    rng: &mut impl Rng,
    limits: Limits<'_>,
) -> (Option<Move>, Option<SearchInfo>) {
    strong_move_tuned_reported(pos, rng, limits, &Tuning::HOUSE)
}

fn strong_move_tuned_reported(
    pos: &Position,
    rng: &mut impl Rng,
    limits: Limits<'_>,
    tuning: &Tuning,
) -> (Option<Move>, Option<SearchInfo>) {
    let searched = |r: Option<Report>| match r {
        Some(r) => {
            let place = |i: u16| Move::Place(pos.cell_at(usize::from(i)));
            (
                Some(place(r.cell)),
                Some(SearchInfo {
                    win_rate: r.win_rate.clamp(0.0, 1.0),
                    pv: r.pv.iter().map(|&i| place(i)).collect(),
                    playouts: r.playouts,
                }),
            )
        }
        None => (None, None),
    };
    if pos.is_over() {
        return (None, None);
    }
    let me = pos.mover().number();
    let opp = me ^ 3;
    let empties = empty_indices(pos);
    if pos.swap_allowed() && swap_is_worth_it(pos) {
        return (Some(Move::Swap), None);
    }
    if empties.is_empty() {
        return (None, None);
    }
    let place = |i: u16| (Some(Move::Place(pos.cell_at(usize::from(i)))), None);
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
        let mv = Move::Place(pos.cell_at(usize::from(win)));
        return (
            Some(mv),
            Some(SearchInfo {
                win_rate: 1.0,
                pv: vec![mv],
                playouts: 0,
            }),
        );
    }
    let threats: Vec<u16> = empties
        .iter()
        .copied()
        .filter(|&i| pos.connects_if_placed(usize::from(i), opp))
        .collect();
    match threats.len() {
        1 => place(threats[0]),
        0 if tuning.fill_in || tuning.solver => match knowledge_root(pos, &empties, tuning) {
            Root::Play(i) => place(i),
            Root::Search(cands) => searched(search(pos, rng, limits, tuning, &cands)),
        },
        0 => searched(search(pos, rng, limits, tuning, &empties)),
        _ => searched(search(pos, rng, limits, tuning, &threats)),
    }
}

/// What the Hex knowledge decides at the root.
enum Root {
    /// A proven win: play this cell.
    Play(u16),
    /// Search among these cells.
    Search(Vec<u16>),
}

/// The root after fill-in and the solver (issue 23): the winning move of a proven win; else the
/// empty cells that are neither dead nor captured, within the mustplay when the opponent
/// threatens to connect (within the cells that prolong a proven loss). Falls back to the
/// smaller unpruned set whenever pruning would leave nothing.
fn knowledge_root(pos: &Position, empties: &[u16], tuning: &Tuning) -> Root {
    let board = Board::of(pos);
    let me = pos.mover().number();
    let (keep, fill) = if tuning.solver {
        let a = solver::analyse(&board, me, &VcLimits::ROOT);
        match a.verdict {
            Verdict::Won { win } => return Root::Play(win as u16),
            Verdict::Lost { prolong } => (Some(prolong), a.fill),
            Verdict::Open { mustplay } => (mustplay, a.fill),
        }
    } else {
        (None, fill_in(&board))
    };
    let filled = if tuning.fill_in {
        fill.filled()
    } else {
        CellSet::EMPTY
    };
    let within: Vec<u16> = empties
        .iter()
        .copied()
        .filter(|&i| keep.is_none_or(|k| k.contains(usize::from(i))))
        .collect();
    let live: Vec<u16> = within
        .iter()
        .copied()
        .filter(|&i| !filled.contains(usize::from(i)))
        .collect();
    if !live.is_empty() {
        Root::Search(live)
    } else if !within.is_empty() {
        Root::Search(within)
    } else {
        Root::Search(empties.to_vec())
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

/// The knobs of the tree search. [`Tuning::HOUSE`] is what every house bot uses; other values
/// are for measuring changes ([`strong_move_tuned`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tuning {
    /// RAVE weight decay: `beta = amaf / (amaf + n + amaf * n * rave_bias)`.
    pub rave_bias: f32,
    /// A leaf is expanded after this many visits.
    pub expand_at: f32,
    /// Virtual all-moves-as-first visits of a new child's neighbourhood prior (0: no prior;
    /// untried children are then tried first).
    pub prior_visits: f32,
    /// Upper bound on tree nodes (about 28 bytes each): past it, leaves stop expanding.
    pub max_nodes: usize,
    /// Hex knowledge at the root (issue 23): no dead or captured cell among the root moves
    /// ([`crate::inferior::fill_in`]).
    pub fill_in: bool,
    /// Hex knowledge at the root (issue 23): the solver's proven win played at once, the root
    /// limited to the mustplay when the opponent threatens to connect ([`crate::solver`]).
    pub solver: bool,
}

impl Tuning {
    /// The house bots' search.
    pub const HOUSE: Tuning = Tuning {
        rave_bias: 0.002,
        expand_at: 3.0,
        prior_visits: 0.0,
        max_nodes: 1_000_000,
        fill_in: false,
        solver: false,
    };

    /// [`Tuning::HOUSE`] with all the Hex knowledge at the root (`fill_in` and `solver`);
    /// measured against it in `BENCHMARKS.md`.
    pub const KNOWLEDGE: Tuning = Tuning {
        fill_in: true,
        solver: true,
        ..Tuning::HOUSE
    };

    /// [`Tuning::HOUSE`] with the fill-in only (no H-search: cheap).
    pub const FILL_IN: Tuning = Tuning {
        fill_in: true,
        ..Tuning::HOUSE
    };
}

#[derive(Clone, Copy)]
struct Node {
    /// Padded index of the move leading here.
    cell: u16,
    /// Owner (1 or 2) who made that move.
    player: u8,
    n_children: u16,
    first_child: u32,
    /// Statistics as `f32` (exact integers up to 2^24, far above any budget) so that the
    /// selection loop needs no conversions.
    visits: f32,
    wins: f32,
    amaf_visits: f32,
    amaf_wins: f32,
}

impl Node {
    fn new(cell: u16, player: u8) -> Node {
        Node {
            cell,
            player,
            n_children: 0,
            first_child: 0,
            visits: 0.0,
            wins: 0.0,
            amaf_visits: 0.0,
            amaf_wins: 0.0,
        }
    }

    fn children(&self) -> std::ops::Range<usize> {
        let start = self.first_child as usize;
        start..start + usize::from(self.n_children)
    }
}

fn expand(
    nodes: &mut Vec<Node>,
    at: usize,
    cells: &[u16],
    player: u8,
    (board, w): (&[u8], usize),
    prior_visits: f32,
) {
    let start = nodes.len();
    nodes.extend(cells.iter().map(|&c| {
        let mut node = Node::new(c, player);
        if prior_visits > 0.0 {
            let value = prior_value(board, w, usize::from(c), player);
            node.amaf_visits = prior_visits;
            node.amaf_wins = prior_visits * value;
        }
        node
    }));
    nodes[at].first_child = start as u32;
    nodes[at].n_children = cells.len() as u16;
}

/// A new child's prior win rate for `player` placing on the empty padded cell `x` of `board`
/// (stride `w`), from its neighbourhood: a cell that makes a bridge with one of the player's
/// stones, or that touches an opponent stone (blocks, fights), is worth more than one far from
/// every stone.
fn prior_value(board: &[u8], w: usize, x: usize, player: u8) -> f32 {
    let w = w as isize;
    let ring: [isize; 6] = [-w, 1 - w, 1, w, w - 1, -1];
    let at = |d: isize| -> u8 {
        x.checked_add_signed(d)
            .and_then(|i| board.get(i))
            .copied()
            .unwrap_or(BORDER)
    };
    let opp = player ^ 3;
    let (mut own_adj, mut opp_adj, mut own_bridge, mut near) = (false, false, false, false);
    for t in 0..6 {
        let (a, b) = (ring[t], ring[(t + 1) % 6]);
        let v = at(a);
        own_adj |= v == player;
        opp_adj |= v == opp;
        let far = at(a + b);
        near |= far == player || far == opp;
        own_bridge |= far == player && v == EMPTY && at(b) == EMPTY;
    }
    let mut value = if own_adj || opp_adj || near { 0.5 } else { 0.4 };
    if own_bridge {
        value += 0.1;
    }
    if opp_adj {
        value += 0.05;
    }
    value
}

/// The child of `parent` with the highest RAVE value
/// `(1 - beta) * wins / visits + beta * amaf_wins / amaf_visits`,
/// `beta = amaf_visits / (amaf_visits + visits + amaf_visits * visits * rave_bias)`,
/// which simplifies to one fraction `((1 + an * b) * w + aw) / (an + n + an * n * b)`;
/// fractions are compared by cross-multiplying (no division). Untried children come first.
fn select(nodes: &[Node], parent: usize, rave_bias: f32) -> usize {
    let range = nodes[parent].children();
    let first = range.start;
    let mut best = 0;
    let (mut best_num, mut best_den) = (-1.0f32, 1.0f32);
    for (k, node) in nodes[range].iter().enumerate() {
        let (n, an) = (node.visits, node.amaf_visits);
        let den = an + n + an * n * rave_bias;
        let (num, den) = if den > 0.0 {
            ((1.0 + an * rave_bias) * node.wins + node.amaf_wins, den)
        } else {
            (1.5, 1.0) // untried: look at it first
        };
        if num * best_den > best_num * den {
            best_num = num;
            best_den = den;
            best = k;
        }
    }
    first + best
}

/// What one tree search found: the most visited root move (padded index), the mover's win
/// rate after it, the principal variation (the most visited child at each level, starting with
/// that move) and the playouts run.
pub(crate) struct Report {
    pub cell: u16,
    pub win_rate: f64,
    pub pv: Vec<u16>,
    pub playouts: u32,
}

/// Monte Carlo tree search with RAVE from `pos`, root moves limited to `candidates` (padded
/// indices of empty cells). Returns the most visited root move with its statistics, `None`
/// without candidates.
pub(crate) fn search(
    pos: &Position,
    rng: &mut impl Rng,
    limits: Limits<'_>,
    tuning: &Tuning,
    candidates: &[u16],
) -> Option<Report> {
    if candidates.is_empty() {
        return None;
    }
    let me = pos.mover().number();
    let all_empties = empty_indices(pos);
    let mut filler = Filler::new(pos);
    let mut nodes: Vec<Node> = Vec::with_capacity(1 + candidates.len() * 64);
    nodes.push(Node::new(u16::MAX, me ^ 3));
    let stride = pos.stride();
    expand(
        &mut nodes,
        0,
        candidates,
        me,
        (&filler.board, stride),
        tuning.prior_visits,
    );
    let mut path: Vec<usize> = Vec::with_capacity(64);
    let mut leaf_empties: Vec<u16> = Vec::with_capacity(all_empties.len());
    let mut slot = [0u16; PADDED_CELLS];

    let Limits { max_playouts, stop } = limits;
    let mut playouts = 0;
    for done in 0..max_playouts.max(1) {
        if done > 0 && done % STOP_CHECK_EVERY == 0 && stop(done) {
            break;
        }
        playouts = done + 1;
        filler.reset();
        path.clear();
        path.push(0);
        let mut node = 0;
        let mut turn = me;
        loop {
            if nodes[node].n_children == 0 {
                if nodes[node].visits < tuning.expand_at {
                    break;
                }
                leaf_empties.clear();
                leaf_empties.extend(
                    all_empties
                        .iter()
                        .copied()
                        .filter(|&i| filler.board[usize::from(i)] == EMPTY),
                );
                if leaf_empties.is_empty() || nodes.len() + leaf_empties.len() > tuning.max_nodes {
                    break;
                }
                expand(
                    &mut nodes,
                    node,
                    &leaf_empties,
                    turn,
                    (&filler.board, stride),
                    tuning.prior_visits,
                );
            }
            let child = select(&nodes, node, tuning.rave_bias);
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
            n.visits += 1.0;
            if n.player == winner {
                n.wins += 1.0;
            }
            // all children of a node were moves of the same player: the one not owning it
            let player = n.player ^ 3;
            let won = if player == winner { 1.0 } else { 0.0 };
            let range = n.children();
            for child in &mut nodes[range] {
                // on the full board every child cell holds 1 or 2: equal owners differ by 0,
                // different ones by 3 (arithmetic instead of a comparison keeps it branch-free)
                let differs = (filler.board[usize::from(child.cell)] ^ player) & 1;
                let hit = f32::from(differs ^ 1);
                child.amaf_visits += hit;
                child.amaf_wins += hit * won;
            }
        }
    }

    let most_visited = |at: usize| -> Option<usize> {
        let mut best: Option<usize> = None;
        for k in nodes[at].children() {
            if best.is_none_or(|b| nodes[k].visits > nodes[b].visits) {
                best = Some(k);
            }
        }
        best
    };
    let first = most_visited(0)?;
    let mut pv = vec![nodes[first].cell];
    let mut at = first;
    while let Some(k) = most_visited(at) {
        if nodes[k].visits < 1.0 {
            break;
        }
        pv.push(nodes[k].cell);
        at = k;
    }
    let b = &nodes[first];
    Some(Report {
        cell: b.cell,
        win_rate: if b.visits > 0.0 {
            f64::from(b.wins / b.visits)
        } else {
            0.5
        },
        pv,
        playouts,
    })
}
