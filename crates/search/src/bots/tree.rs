//! The tree search itself: Monte Carlo tree search with RAVE statistics over fast
//! fill-the-board playouts, and the knobs ([`Tuning`]) it runs with.

use hex::{BORDER, EMPTY, Position};
use rand_core::Rng;

use super::pattern::{self, PriorCache};
use super::{Limits, STOP_CHECK_EVERY};
use crate::playout::{Filler, PADDED_CELLS, empty_indices};

/// The knobs of the tree search. [`Tuning::HOUSE`] is what every house bot uses; other values
/// are for measuring changes ([`strong_move_tuned`](crate::strong_move_tuned)).
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
    /// Hex knowledge in the tree (issue 23): virtual visits, in the node's own statistics, of
    /// the local-shape prior every new child gets (0: none). The prior's win rate comes from
    /// the cell's six neighbours and six bridge cells: high for answering an intrusion into a
    /// bridge of the mover (highest when the intruder is the last move), low for a dead cell
    /// or a cell of an intact own bridge, a little above even for a new bridge or a cell next
    /// to the last move (`bots::pattern`). Not counted as visits for `expand_at`.
    pub pattern_visits: f32,
    /// The same prior as virtual all-moves-as-first visits (0: none; replaces `prior_visits`'
    /// neighbourhood prior when both are set).
    pub pattern_amaf: f32,
    /// Hex knowledge in the tree (issue 23): cells dead by the six-neighbour pattern are not
    /// made children (nor root moves), unless every empty cell is dead.
    pub prune_dead: bool,
}

impl Tuning {
    /// The house bots' search: [`Tuning::PLAIN`] with the local-shape prior in the tree (10
    /// virtual visits in a new child's own statistics, 20 all-moves-as-first ones), adopted
    /// in issue 23 after it beat [`Tuning::PLAIN`] at equal time (`BENCHMARKS.md`, "Hex
    /// knowledge inside the tree").
    pub const HOUSE: Tuning = Tuning {
        pattern_visits: 10.0,
        pattern_amaf: 20.0,
        ..Tuning::PLAIN
    };

    /// The search without any Hex knowledge: the house bots' search until issue 23's second
    /// pieces; kept for measuring against.
    pub const PLAIN: Tuning = Tuning {
        rave_bias: 0.002,
        expand_at: 3.0,
        prior_visits: 0.0,
        max_nodes: 1_000_000,
        fill_in: false,
        solver: false,
        pattern_visits: 0.0,
        pattern_amaf: 0.0,
        prune_dead: false,
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

/// Appends the children `cells` (moves of `player`) of node `at`, with their priors from
/// `tuning` read off `board` (stride `w`, the tree's position at `at`) and, for the local-shape
/// prior, `cache` (readied for the path to `at`).
fn expand(
    nodes: &mut Vec<Node>,
    at: usize,
    cells: &[u16],
    player: u8,
    (board, w): (&[u8], usize),
    tuning: &Tuning,
    cache: &PriorCache,
) {
    let start = nodes.len();
    let last = nodes[at].cell;
    let last = (last != u16::MAX).then_some(usize::from(last));
    let (pv, pa) = (tuning.pattern_visits, tuning.pattern_amaf);
    nodes.extend(cells.iter().map(|&c| {
        let mut node = Node::new(c, player);
        if pv > 0.0 || pa > 0.0 {
            let value = cache.value(board, w, usize::from(c), player, last);
            node.visits = pv;
            node.wins = pv * value;
            node.amaf_visits = pa;
            node.amaf_wins = pa * value;
        } else if tuning.prior_visits > 0.0 {
            let value = prior_value(board, w, usize::from(c), player);
            node.amaf_visits = tuning.prior_visits;
            node.amaf_wins = tuning.prior_visits * value;
        }
        node
    }));
    nodes[at].first_child = start as u32;
    nodes[at].n_children = cells.len() as u16;
}

/// Keeps in `cells` only those not dead by the six-neighbour pattern on `board` (stride `w`),
/// unless that would leave none.
fn drop_dead(cells: &mut Vec<u16>, board: &[u8], w: usize) {
    let live = |c: &u16| !pattern::shape(board, w, usize::from(*c), 1, None).dead;
    if cells.iter().any(live) {
        cells.retain(live);
    }
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
    let mut roots = candidates.to_vec();
    if tuning.prune_dead {
        drop_dead(&mut roots, &filler.board, stride);
    }
    let with_prior = tuning.pattern_visits > 0.0 || tuning.pattern_amaf > 0.0;
    let mut cache = PriorCache::new(
        &filler.board,
        stride,
        if with_prior { &all_empties } else { &[] },
    );
    cache.begin(std::iter::empty());
    expand(
        &mut nodes,
        0,
        &roots,
        me,
        (&filler.board, stride),
        tuning,
        &cache,
    );
    // virtual visits of a child's prior, not counted as real ones
    let virtual_visits = tuning.pattern_visits;
    let real_visits = |n: &Node, at: usize| {
        if at == 0 {
            n.visits
        } else {
            n.visits - virtual_visits
        }
    };
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
                if real_visits(&nodes[node], node) < tuning.expand_at {
                    break;
                }
                leaf_empties.clear();
                leaf_empties.extend(
                    all_empties
                        .iter()
                        .copied()
                        .filter(|&i| filler.board[usize::from(i)] == EMPTY),
                );
                if tuning.prune_dead {
                    drop_dead(&mut leaf_empties, &filler.board, stride);
                }
                if leaf_empties.is_empty() || nodes.len() + leaf_empties.len() > tuning.max_nodes {
                    break;
                }
                if with_prior {
                    cache.begin(path[1..].iter().map(|&p| usize::from(nodes[p].cell)));
                }
                expand(
                    &mut nodes,
                    node,
                    &leaf_empties,
                    turn,
                    (&filler.board, stride),
                    tuning,
                    &cache,
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
        if real_visits(&nodes[k], k) < 1.0 {
            break;
        }
        pv.push(nodes[k].cell);
        at = k;
    }
    let b = &nodes[first];
    Some(Report {
        cell: b.cell,
        // the prior's virtual visits stay in: they are few beside any real search's
        win_rate: if b.visits > 0.0 {
            f64::from(b.wins / b.visits)
        } else {
            0.5
        },
        pv,
        playouts,
    })
}
