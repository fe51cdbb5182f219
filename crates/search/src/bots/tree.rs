//! The tree search itself: Monte Carlo tree search with RAVE statistics over fast
//! fill-the-board playouts, and the knobs ([`Tuning`]) it runs with.

use hex::{BORDER, EMPTY, Position};
use rand_core::Rng;

use super::knowledge::{NodeKnowledge, analyse_node, tree_board};
use super::pattern::{self, Learned, PriorCache};
use super::{Limits, STOP_CHECK_EVERY};
use crate::patterns;
use crate::playout::{Filler, PADDED_CELLS, empty_indices};
use crate::resistance;
use crate::vc::VcLimits;

/// The knobs of the tree search. [`Tuning::HOUSE`] is what the house bots use, but for
/// house-master's [`Tuning::CLOSURE_TREE`] when it has time ([`crate::ladder::Rung::tuning`]);
/// other values are for measuring changes ([`strong_move_tuned`](crate::strong_move_tuned)).
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
    /// Hex knowledge in the tree (issue 23, "candidate 2"; 0: off): a node with children whose
    /// real visits reach this many gets its position analysed once by the solver
    /// ([`crate::solver::analyse_quick`] with [`Tuning::knowledge_vc`]). A proven win or loss
    /// makes the node terminal (the search backs its fixed result up, runs no more playouts below
    /// it, and proves its parents when it can: a child won for the mover proves the parent,
    /// all children lost do too); otherwise its children are cut to the mustplay, less the
    /// dead and captured cells. The root plays a proven win at once and never a proven loss
    /// while another move is open; when the root itself is proven lost, the search forgets the
    /// proofs and searches on as without them (for the move that resists longest).
    pub knowledge_at: f32,
    /// The H-search bounds of the analyses of [`Tuning::knowledge_at`].
    pub knowledge_vc: VcLimits,
    /// The deepest nodes [`Tuning::knowledge_at`] analyses, in plies below the root (0: any
    /// depth; 1: the root and its children).
    pub knowledge_depth: u8,
    /// Past half of [`Tuning::max_nodes`], a leaf waits for more visits before it is expanded,
    /// the more the less room is left (twice `expand_at` at three quarters full, five times at
    /// 90%, fifty at 99%), so that a long search keeps growing its tree where it looks most
    /// instead of meeting the cap and freezing it.
    /// `false`: `expand_at` visits whatever the tree's size, until the cap stops expansions.
    pub expand_by_room: bool,
    /// The weight, 0..=1, of the learned move prior (issue 23, ninth piece;
    /// [`crate::patterns`]) in the win rate that [`Tuning::pattern_visits`] and
    /// [`Tuning::pattern_amaf`] carry: a child's prior is `(1 - w) * shape + w * learned`,
    /// `shape` the hand-set shapes' value and `learned` `g / (g + 1)` for `g` the move's
    /// learned gamma raised to [`Tuning::learned_power`]. 0: the hand-set shapes only.
    pub learned_prior: f32,
    /// The power of the learned gammas in [`Tuning::learned_prior`] (below 1 flattens them).
    pub learned_power: f32,
    /// The H-search of the root's analysis ([`Tuning::solver`]): [`VcLimits::ROOT`], or
    /// [`VcLimits::CLOSURE`] (issue 23, tenth piece).
    pub root_vc: VcLimits,
    /// Issue 23: a search given a [`KeptTree`] (`hexarena gtp`, `examples/selfplay.rs`)
    /// starts from the subtree its last search grew below the move it played and the
    /// opponent's answer, when the position is that one, or from the whole tree when the
    /// position is the one it searched (MoHex reuses its subtree so).
    /// `false`, or no [`KeptTree`] given: every search starts from an empty tree.
    pub keep_tree: bool,
    /// Hex knowledge (issue 23): the root's moves and the children an analysis keeps
    /// ([`Tuning::solver`], [`Tuning::knowledge_at`]) leave out the cells dominated for the
    /// mover on the filled-in board ([`crate::inferior::dominated`]: dead once the mover holds
    /// a cell still kept at that point, or dead by their neighbourhood already; following the
    /// dominators always ends at a kept cell). Not applied to a proven
    /// loss's resisting moves. Measured on [`Tuning::CLOSURE_TREE`] at equal time in
    /// `BENCHMARKS.md` (issue 23, stop 44: 190 of 400 games, not adopted): off in every named
    /// tuning.
    pub prune_dominated: bool,
    /// Issue 23: the root's children get their prior ([`Tuning::pattern_visits`], the learned
    /// one's relation to the last move) knowing the opponent's last move
    /// ([`Position::last_index`]), as every deeper node's children do. `false`: the root's
    /// children are valued as if no move came last (as every search did before this field).
    /// Measured on [`Tuning::CLOSURE_TREE`] at equal time in `BENCHMARKS.md` (issue 23, stop
    /// 46: 414 of 800 games, +12 Elo, not adopted): off in every named tuning but
    /// [`Tuning::CLOSURE_LAST`].
    pub root_knows_last: bool,
    /// The exploration term of the selection (UCT's bias; 0: none, the RAVE value alone, as
    /// every named tuning): a child's value gains `uct_bias * sqrt(ln(N) / (n + 1))`, `N` its
    /// parent's visits and `n` its own (virtual ones included). MoHex 2.0 searches with 0.22.
    pub uct_bias: f32,
    /// Position judgement in the tree (issue 23; 0: off): a node whose real visits reach this
    /// many gets, once, a prior from the position's two circuits ([`crate::resistance`]):
    /// each child gains [`Tuning::resist_amaf`] virtual all-moves-as-first visits at a win
    /// rate from 0.35 (no current through its cell) to 0.65 (the most), the current counted
    /// for both players, each relative to its total. Measured on [`Tuning::CLOSURE_TREE`] at
    /// equal time in `BENCHMARKS.md` (issue 23, stop 50: 104 and 96 of 200 games in
    /// screening, not adopted): off in every named tuning.
    pub resist_at: f32,
    /// The virtual all-moves-as-first visits of [`Tuning::resist_at`]'s prior.
    pub resist_amaf: f32,
}

impl Tuning {
    /// The house bots' search: [`Tuning::PLAIN`] with the local-shape prior in the tree (10
    /// virtual visits in a new child's own statistics, 20 all-moves-as-first ones), adopted
    /// in issue 23 after it beat [`Tuning::PLAIN`] at equal time (`BENCHMARKS.md`, "Hex
    /// knowledge inside the tree"), and with [`Tuning::expand_by_room`], adopted after it beat
    /// the search without it at 1 s a move ("The tree's growth at long thinks"; a search that
    /// never fills half its node cap, as every playout-capped rung, is unchanged by it).
    pub const HOUSE: Tuning = Tuning {
        pattern_visits: 10.0,
        pattern_amaf: 20.0,
        expand_by_room: true,
        ..Tuning::PLAIN
    };

    /// [`Tuning::HOUSE`] without [`Tuning::expand_by_room`]: the house search before issue
    /// 23's fourth piece, whose tree stops growing at the node cap; kept for measuring
    /// against.
    pub const FROZEN: Tuning = Tuning {
        expand_by_room: false,
        ..Tuning::HOUSE
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
        knowledge_at: 0.0,
        knowledge_vc: VcLimits::TREE,
        knowledge_depth: 0,
        expand_by_room: false,
        learned_prior: 0.0,
        learned_power: 0.5,
        root_vc: VcLimits::ROOT,
        keep_tree: false,
        prune_dominated: false,
        root_knows_last: false,
        uct_bias: 0.0,
        resist_at: 0.0,
        resist_amaf: 0.0,
    };

    /// [`Tuning::HOUSE`] with all the Hex knowledge at the root (`fill_in` and `solver`);
    /// measured against it in `BENCHMARKS.md`.
    pub const KNOWLEDGE: Tuning = Tuning {
        fill_in: true,
        solver: true,
        ..Tuning::HOUSE
    };

    /// [`Tuning::KNOWLEDGE`] with H-search run to closure at the root ([`VcLimits::CLOSURE`]),
    /// which sees the opponent's threats to connect many moves earlier (issue 23, tenth
    /// piece; `BENCHMARKS.md`, "H-search to closure").
    pub const CLOSURE: Tuning = Tuning {
        root_vc: VcLimits::CLOSURE,
        ..Tuning::KNOWLEDGE
    };

    /// [`Tuning::CLOSURE`] with the analysis by H-search to closure of the well-visited nodes
    /// near the root too ([`Tuning::knowledge_at`] 1,000, [`Tuning::knowledge_vc`]
    /// [`VcLimits::CLOSURE`], [`Tuning::knowledge_depth`] 2: a threat MoHex sees after the
    /// search's own move and its answer). House-master's when it has time for it
    /// ([`crate::ladder::Rung::tuning`]).
    pub const CLOSURE_TREE: Tuning = Tuning {
        knowledge_at: 1000.0,
        knowledge_vc: VcLimits::CLOSURE,
        knowledge_depth: 2,
        ..Tuning::CLOSURE
    };

    /// [`Tuning::CLOSURE_TREE`] with the local-shape prior at half its weight (5 virtual
    /// visits of a child's own, 10 all-moves-as-first, instead of 10 and 20), for searches of
    /// tens of thousands of playouts a move, where the search's own statistics may say more
    /// than the shapes; measured against it at equal time in `BENCHMARKS.md` (issue 23, stop
    /// 44: 399 of 792 games, level with it; not adopted).
    pub const CLOSURE_LIGHT: Tuning = Tuning {
        pattern_visits: 5.0,
        pattern_amaf: 10.0,
        ..Tuning::CLOSURE_TREE
    };

    /// [`Tuning::CLOSURE_TREE`] with the learned move prior averaged with the hand-set shapes
    /// ([`Tuning::learned_prior`] 0.5, [`Tuning::learned_power`] 0.5), the prior learned from
    /// closure-tree's own games at 250 ms a move (`crates/search/data/`); measured against it at
    /// equal time in `BENCHMARKS.md` (issue 23, stop 45, with weights from the first 577 of
    /// those games: 417 of 800 games, +15 Elo, -9..+39; not adopted).
    pub const CLOSURE_LEARNED: Tuning = Tuning {
        learned_prior: 0.5,
        learned_power: 0.5,
        ..Tuning::CLOSURE_TREE
    };

    /// [`Tuning::CLOSURE_TREE`] whose root knows the opponent's last move
    /// ([`Tuning::root_knows_last`]): the hand-set shapes' bonus for the answers next to it
    /// reaches the root's children, where house-master's prior matters most. Measured against
    /// it at equal time in `BENCHMARKS.md` (issue 23, stop 46: 414 of 800 games, +12 Elo,
    /// -12..+36; not adopted).
    pub const CLOSURE_LAST: Tuning = Tuning {
        root_knows_last: true,
        ..Tuning::CLOSURE_TREE
    };

    /// [`Tuning::CLOSURE_LEARNED`] and [`Tuning::CLOSURE_LAST`] together: the learned prior
    /// mixed in, and the root that knows the opponent's last move (the learned prior's
    /// strongest factor is its relation to that move). Measured against
    /// [`Tuning::CLOSURE_TREE`] at equal time in `BENCHMARKS.md` (issue 23, stop 47: 428 of
    /// 800 games, +24 Elo, +0..+48, one win short of the rule; not adopted).
    pub const CLOSURE_LEARNED_LAST: Tuning = Tuning {
        learned_prior: 0.5,
        learned_power: 0.5,
        root_knows_last: true,
        ..Tuning::CLOSURE_TREE
    };

    /// [`Tuning::CLOSURE_TREE`] deeper and sooner: nodes within four plies of the root
    /// analysed at 500 visits ([`Tuning::knowledge_depth`] 4, [`Tuning::knowledge_at`] 500);
    /// measured against it in `BENCHMARKS.md` ("H-search to closure", stop 41: not adopted).
    pub const CLOSURE_DEEP: Tuning = Tuning {
        knowledge_at: 500.0,
        knowledge_depth: 4,
        ..Tuning::CLOSURE_TREE
    };

    /// [`Tuning::CLOSURE_TREE`] at every depth: any node of 500 real visits is analysed
    /// ([`Tuning::knowledge_depth`] 0, [`Tuning::knowledge_at`] 500), as MoHex analyses every
    /// node past a visit threshold. At about a second a move on 11x11 the analyses take some
    /// 20 to 55% of the search, against 1 to 10% for [`Tuning::CLOSURE_TREE`]; measured
    /// against it in `BENCHMARKS.md` ("H-search to closure", stop 42).
    pub const CLOSURE_ALL: Tuning = Tuning {
        knowledge_at: 500.0,
        knowledge_depth: 0,
        ..Tuning::CLOSURE_TREE
    };

    /// [`Tuning::CLOSURE_TREE`] that goes on from its last search's subtree
    /// ([`Tuning::keep_tree`]); measured against it at equal time in `BENCHMARKS.md` (issue
    /// 23, stop 43: 210 of 400 games, not adopted). Without a [`KeptTree`] it searches
    /// exactly as [`Tuning::CLOSURE_TREE`].
    pub const CLOSURE_KEPT: Tuning = Tuning {
        keep_tree: true,
        ..Tuning::CLOSURE_TREE
    };

    /// [`Tuning::HOUSE`] with the analysis of well-visited tree nodes
    /// ([`Tuning::knowledge_at`] 3,000: a search of fewer playouts never analyses a node);
    /// measured against it in `BENCHMARKS.md` ("Hex knowledge at the tree's busy nodes").
    pub const TREE_KNOWLEDGE: Tuning = Tuning {
        knowledge_at: 3000.0,
        ..Tuning::HOUSE
    };

    /// [`Tuning::HOUSE`] with the learned move prior averaged with the hand-set shapes (weight
    /// 0.5, power 0.5); measured against it in `BENCHMARKS.md` ("A learned move prior"), with
    /// the weights of then (taught by `house`); `patterns.txt` now holds weights taught by
    /// `closure-tree` (stop 47's: all 776 teacher games).
    pub const LEARNED: Tuning = Tuning {
        learned_prior: 0.5,
        learned_power: 0.5,
        ..Tuning::HOUSE
    };

    /// The named tunings, for tools that measure one against another or against an outside
    /// engine: `house`, `plain`, `frozen`, `knowledge`, `fill-in`, `tree-knowledge`, `learned`,
    /// `closure`, `closure-tree`, `closure-deep`, `closure-all`, `closure-kept`,
    /// `closure-light`, `closure-learned`, `closure-last`, `closure-learned-last`.
    pub const NAMED: [(&'static str, Tuning); 16] = [
        ("house", Tuning::HOUSE),
        ("plain", Tuning::PLAIN),
        ("frozen", Tuning::FROZEN),
        ("knowledge", Tuning::KNOWLEDGE),
        ("fill-in", Tuning::FILL_IN),
        ("tree-knowledge", Tuning::TREE_KNOWLEDGE),
        ("learned", Tuning::LEARNED),
        ("closure", Tuning::CLOSURE),
        ("closure-tree", Tuning::CLOSURE_TREE),
        ("closure-deep", Tuning::CLOSURE_DEEP),
        ("closure-all", Tuning::CLOSURE_ALL),
        ("closure-kept", Tuning::CLOSURE_KEPT),
        ("closure-light", Tuning::CLOSURE_LIGHT),
        ("closure-learned", Tuning::CLOSURE_LEARNED),
        ("closure-last", Tuning::CLOSURE_LAST),
        ("closure-learned-last", Tuning::CLOSURE_LEARNED_LAST),
    ];

    /// The tuning of [`Tuning::NAMED`] called `name` (ASCII case ignored).
    #[must_use]
    pub fn named(name: &str) -> Option<Tuning> {
        Tuning::NAMED
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|&(_, t)| t)
    }

    /// [`Tuning::HOUSE`] with the fill-in only (no H-search: cheap).
    pub const FILL_IN: Tuning = Tuning {
        fill_in: true,
        ..Tuning::HOUSE
    };
}

/// The real visits a leaf needs before it is expanded in a tree of `nodes` nodes, with
/// [`Tuning::expand_by_room`]: `expand_at` up to half of `max_nodes`, then `expand_at` times
/// half the cap over the room left (twice at three quarters full, five times at 90%, fifty
/// times at 99%), so the tree's growth slows as it fills and never quite stops.
#[must_use]
pub(crate) fn expand_threshold(expand_at: f32, nodes: usize, max_nodes: usize) -> f32 {
    let half = max_nodes / 2;
    if nodes <= half {
        return expand_at;
    }
    let room = max_nodes.saturating_sub(nodes).max(1);
    expand_at * half as f32 / room as f32
}

/// [`Node::flags`]: the node's position has been analysed ([`Tuning::knowledge_at`]).
const KNOWN: u8 = 1;
/// [`Node::flags`]: proven won for the node's `player` (the one who moved into it).
const WON: u8 = 2;
/// [`Node::flags`]: proven lost for the node's `player`.
const LOST: u8 = 4;
/// [`Node::flags`]: the children got the circuits' prior ([`Tuning::resist_at`]).
const RESISTED: u8 = 8;

/// A node's visits without the virtual ones its prior started it with (`at`: its index; the
/// root, index 0, has no prior: a kept tree's root sheds it, see [`reroot`]).
fn real_visits(n: &Node, at: usize, tuning: &Tuning) -> f32 {
    if at == 0 {
        n.visits
    } else {
        n.visits - tuning.pattern_visits
    }
}

#[derive(Clone, Copy)]
struct Node {
    /// Padded index of the move leading here.
    cell: u16,
    /// Owner (1 or 2) who made that move.
    player: u8,
    /// [`KNOWN`], [`WON`], [`LOST`].
    flags: u8,
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
            flags: 0,
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

    /// The winner (1 or 2) of a proven node, `None` for an open one.
    fn proven_winner(&self) -> Option<u8> {
        if self.flags & WON != 0 {
            Some(self.player)
        } else if self.flags & LOST != 0 {
            Some(self.player ^ 3)
        } else {
            None
        }
    }
}

/// Applies the analysis `k` of node `at`'s position to the tree: marks a proof (and the
/// winning child), or cuts the children to the cells `k` keeps (in place: the kept children
/// move to the front of the node's range with their subtrees; the others' subtrees are left
/// unreachable). Children are kept as they are when none of them would stay. Returns whether
/// `at` is now proven.
fn apply_knowledge(nodes: &mut [Node], at: usize, k: NodeKnowledge) -> bool {
    match k {
        NodeKnowledge::Wins(cell) => {
            nodes[at].flags |= LOST;
            let range = nodes[at].children();
            if let Some(child) = nodes[range].iter_mut().find(|n| n.cell == cell) {
                child.flags |= WON;
            }
            true
        }
        NodeKnowledge::Lost => {
            nodes[at].flags |= WON;
            true
        }
        NodeKnowledge::Open(None) => false,
        NodeKnowledge::Open(Some(keep)) => {
            let range = nodes[at].children();
            let start = range.start;
            let kept = nodes[range.clone()]
                .iter()
                .filter(|n| keep.contains(usize::from(n.cell)))
                .count();
            if kept == 0 || kept == range.len() {
                return false;
            }
            let mut to = start;
            for from in range {
                if keep.contains(usize::from(nodes[from].cell)) {
                    nodes[to] = nodes[from];
                    to += 1;
                }
            }
            nodes[at].n_children = kept as u16;
            false
        }
    }
}

/// Carries a new proof at the end of `path` up the tree: a parent one of whose children is won
/// for the mover is lost for the parent's own player; one all of whose children are lost is
/// won. Stops at the first parent that stays open.
fn prove_up(nodes: &mut [Node], path: &[usize]) {
    for pair in path.windows(2).rev() {
        let (parent, child) = (pair[0], pair[1]);
        if nodes[child].flags & WON != 0 {
            nodes[parent].flags |= LOST;
        } else if nodes[child].flags & LOST != 0
            && nodes[nodes[parent].children()]
                .iter()
                .all(|n| n.flags & LOST != 0)
        {
            nodes[parent].flags |= WON;
        } else {
            return;
        }
    }
}

/// A search tree kept from one move to the next ([`Tuning::keep_tree`]): the tree of the last
/// search and the position it searched. Empty at first; any position other than the one the
/// kept tree leads to (the last root with one of its moves and one answer in the tree played)
/// empties it.
#[derive(Clone, Default)]
pub struct KeptTree {
    /// The searched position's padded cells (empty: no tree kept) and its top-bottom owner.
    board: Vec<u8>,
    tb_owner: u8,
    /// The tuning that grew the tree: another one's search starts afresh (the priors' virtual
    /// visits and the selection's shortcuts assume the tuning that made them).
    tuning: Option<Tuning>,
    nodes: Vec<Node>,
}

impl KeptTree {
    /// Forgets the kept tree.
    pub fn clear(&mut self) {
        self.board.clear();
        self.tuning = None;
        self.nodes = Vec::new();
    }

    /// The nodes kept (0: none).
    #[must_use]
    pub fn nodes(&self) -> usize {
        self.nodes.len()
    }

    /// The kept root's visits (0 with no tree): the playouts of the last search and those its
    /// tree started with.
    #[must_use]
    pub fn root_visits(&self) -> f32 {
        self.nodes.first().map_or(0.0, |n| n.visits)
    }

    /// The root's visits in the tree that a search of `pos` with `tuning` and root moves
    /// `candidates` (padded indices) would start from, `None` when it would start afresh.
    /// Leaves the kept tree as it is.
    #[must_use]
    pub fn visits_for(&self, pos: &Position, tuning: &Tuning, candidates: &[u16]) -> Option<f32> {
        let at = self.locate(pos, tuning)?;
        reroot(&self.nodes, at, candidates, prior_of(at, tuning)).map(|n| n[0].visits)
    }

    /// Keeps `nodes`, the tree `tuning` searched from `pos`.
    fn keep(&mut self, pos: &Position, tuning: &Tuning, nodes: Vec<Node>) {
        self.board.clear();
        self.board.extend_from_slice(pos.board_slice());
        self.tb_owner = pos.top_bottom_owner();
        self.tuning = Some(*tuning);
        self.nodes = nodes;
        // the search's vector grew by doubling: keep only what it holds
        self.nodes.shrink_to_fit();
    }

    /// The subtree to start `pos`'s search with `tuning` from (see [`KeptTree::locate`]), its
    /// root moves cut to `candidates`. Empties the kept tree either way.
    fn take_for(
        &mut self,
        pos: &Position,
        tuning: &Tuning,
        candidates: &[u16],
    ) -> Option<Vec<Node>> {
        let at = self.locate(pos, tuning);
        let old = std::mem::take(&mut self.nodes);
        self.clear();
        let at = at?;
        reroot(&old, at, candidates, prior_of(at, tuning))
    }

    /// The node of the kept tree whose position is `pos`: the kept tree must be `tuning`'s,
    /// and `pos` the kept position with one stone of the mover on a root move and one of the
    /// opponent on an answer to it that the tree holds, or the kept position itself (the root:
    /// a move asked again, as after a GTP `undo`).
    fn locate(&self, pos: &Position, tuning: &Tuning) -> Option<usize> {
        let (old, board) = (&self.nodes, &self.board);
        let now = pos.board_slice();
        if old.is_empty()
            || board.len() != now.len()
            || self.tb_owner != pos.top_bottom_owner()
            || self.tuning.as_ref() != Some(tuning)
        {
            return None;
        }
        let me = pos.mover().number();
        // the kept root was the same player's move: its children are `me`'s stones
        if old[0].player != me ^ 3 {
            return None;
        }
        let (mut mine, mut theirs) = (None, None);
        for (i, (&was, &is)) in board.iter().zip(now).enumerate() {
            if was == is {
                continue;
            }
            let slot = match is {
                _ if was != EMPTY => return None,
                p if p == me => &mut mine,
                p if p == me ^ 3 => &mut theirs,
                _ => return None,
            };
            if slot.replace(i as u16).is_some() {
                return None;
            }
        }
        let (mine, theirs) = match (mine, theirs) {
            (None, None) => return Some(0),
            (mine, theirs) => (mine?, theirs?),
        };
        let a = old[0].children().find(|&k| old[k].cell == mine)?;
        old[a].children().find(|&k| old[k].cell == theirs)
    }
}

/// The prior's virtual visits node `at` of a kept tree holds (none at its root) for
/// [`reroot`] to shed.
fn prior_of(at: usize, tuning: &Tuning) -> f32 {
    if at == 0 { 0.0 } else { tuning.pattern_visits }
}

/// Node `at`'s subtree of `old` as a tree of its own (`at` the root, index 0), the root's
/// children cut to those on `candidates`; `None` when none of them is. The root sheds the
/// `prior_visits` virtual visits it had as a child (a root has no prior), and a proof of a win
/// whose winning move the cut left out.
fn reroot(old: &[Node], at: usize, candidates: &[u16], prior_visits: f32) -> Option<Vec<Node>> {
    let keep: Vec<usize> = old[at]
        .children()
        .filter(|&k| candidates.contains(&old[k].cell))
        .collect();
    if keep.is_empty() {
        return None;
    }
    let mut root = old[at];
    root.cell = u16::MAX;
    root.first_child = 1;
    root.n_children = keep.len() as u16;
    if root.visits > prior_visits && prior_visits > 0.0 {
        root.wins *= (root.visits - prior_visits) / root.visits;
        root.visits -= prior_visits;
    }
    // proven won for the mover (`LOST` for the root's player) only through a kept move
    if root.flags & LOST != 0 && !keep.iter().any(|&k| old[k].flags & WON != 0) {
        root.flags &= !LOST;
    }
    let mut out = Vec::with_capacity(old.len());
    out.push(root);
    out.extend(keep.iter().map(|&k| old[k]));
    // breadth first: each node's children are copied together, after every earlier block
    let mut i = 1;
    while i < out.len() {
        let n = out[i];
        if n.n_children > 0 {
            out[i].first_child = out.len() as u32;
            out.extend_from_slice(&old[n.children()]);
        }
        i += 1;
    }
    Some(out)
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

/// Gives node `at`'s children the circuits' prior ([`Tuning::resist_at`]): `amaf` virtual
/// all-moves-as-first visits each, at a win rate from 0.35 to 0.65 by the current through the
/// child's cell in both players' circuits of the tree's board `cells` (stride and edges as in
/// [`analyse_node`]), each player's current relative to its total. Nothing when neither
/// player's circuit carries any current.
fn resist_prior(
    nodes: &mut [Node],
    at: usize,
    cells: &[u8],
    geometry: (usize, usize, u8),
    amaf: f32,
) {
    let board = tree_board(cells, geometry);
    let mut score = vec![0.0f64; board.cells.len()];
    for player in [1, 2] {
        let c = resistance::circuit(&board, player);
        if c.resistance > 0.0 && c.resistance.is_finite() {
            for (s, a) in score.iter_mut().zip(&c.current) {
                *s += a * c.resistance;
            }
        }
    }
    let range = nodes[at].children();
    let best = nodes[range.clone()]
        .iter()
        .filter_map(|n| score.get(usize::from(n.cell)))
        .fold(0.0f64, |m, &s| m.max(s));
    if best <= 0.0 {
        return;
    }
    for child in &mut nodes[range] {
        let s = score.get(usize::from(child.cell)).copied().unwrap_or(0.0) / best;
        child.amaf_visits += amaf;
        child.amaf_wins += amaf * (0.35 + 0.3 * s as f32);
    }
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
/// fractions are compared by cross-multiplying (no division). Untried children come first;
/// among equal values the first child wins; children proven lost for the mover are passed
/// over (no playout is worth them). `scan` says what the search's tuning rules out (children
/// proven lost, untried children), so that the scan does not look for it.
fn select(nodes: &[Node], parent: usize, rave_bias: f32, scan: Scan) -> usize {
    let range = nodes[parent].children();
    let first = range.start;
    let children = &nodes[range];
    first
        + match (scan.lost_possible, scan.all_tried) {
            (false, true) => leader::<false, true>(children, rave_bias),
            (false, false) => leader::<false, false>(children, rave_bias),
            (true, true) => leader::<true, true>(children, rave_bias),
            (true, false) => leader::<true, false>(children, rave_bias),
        }
}

/// [`select`] with UCT's exploration term ([`Tuning::uct_bias`], positive): the child with
/// the highest RAVE value plus `uct_bias * sqrt(ln(N) / (n + 1))`, `N` the parent's visits
/// and `n` the child's; among equal values the first; children proven lost passed over (0
/// when every child is). A scan of its own, with divisions and a square root per child, so
/// that the searches without the term keep [`select`]'s.
fn select_exploring(nodes: &[Node], parent: usize, tuning: &Tuning, scan: Scan) -> usize {
    let range = nodes[parent].children();
    let first = range.start;
    let log_n = nodes[parent].visits.max(1.0).ln();
    let (mut best, mut best_value) = (0, f32::NEG_INFINITY);
    for (i, c) in nodes[range].iter().enumerate() {
        if scan.lost_possible && c.flags & LOST != 0 {
            continue;
        }
        let (num, den) = rave_fraction::<false>(c, tuning.rave_bias);
        let value = num / den + tuning.uct_bias * (log_n / (c.visits + 1.0)).sqrt();
        if value > best_value {
            (best, best_value) = (i, value);
        }
    }
    first + best
}

/// What [`select`] may take for granted in one search, so that its scan looks only at what
/// can happen.
#[derive(Clone, Copy)]
struct Scan {
    /// Some child may be proven lost ([`LOST`]): only a search with [`Tuning::knowledge_at`]
    /// marks one. Without it the scan never looks at the flags.
    lost_possible: bool,
    /// No child is ever untried: every new child starts with virtual visits of a prior, so
    /// the denominator of its fraction is positive from the start and stays so
    /// ([`Scan::of`]). The scan then never tests it.
    all_tried: bool,
}

impl Scan {
    /// What a search with `tuning` may take for granted. Children are never untried when the
    /// prior gives each a positive number of virtual visits (own or all-moves-as-first), none
    /// negative, and `rave_bias` is not negative (all of them finite: an infinite bias times
    /// zero visits is not a number): the denominator
    /// `an + n + an * n * rave_bias` is then a sum of terms that are not negative, one of them
    /// positive, and visits only grow.
    fn of(tuning: &Tuning) -> Scan {
        let (pv, pa, prior) = (
            tuning.pattern_visits,
            tuning.pattern_amaf,
            tuning.prior_visits,
        );
        let finite = [pv, pa, prior, tuning.rave_bias]
            .iter()
            .all(|x| x.is_finite());
        let pattern = (pv > 0.0 || pa > 0.0) && pv >= 0.0 && pa >= 0.0;
        let neighbourhood = pv == 0.0 && pa == 0.0 && prior > 0.0;
        Scan {
            lost_possible: tuning.knowledge_at > 0.0,
            all_tried: finite && tuning.rave_bias >= 0.0 && (pattern || neighbourhood),
        }
    }
}

/// A child's RAVE value as the fraction `(numerator, denominator)` of [`select`], the
/// denominator positive; an untried child's is 1.5 (above any win rate). `ALL_TRIED`: the
/// caller knows the child is not untried ([`Scan::all_tried`]), and the test is left out.
#[inline(always)]
fn rave_fraction<const ALL_TRIED: bool>(node: &Node, rave_bias: f32) -> (f32, f32) {
    let (n, an) = (node.visits, node.amaf_visits);
    let den = an + n + an * n * rave_bias;
    debug_assert!(
        !ALL_TRIED || den > 0.0,
        "an untried child in a search without one"
    );
    if ALL_TRIED || den > 0.0 {
        ((1.0 + an * rave_bias) * node.wins + node.amaf_wins, den)
    } else {
        (1.5, 1.0)
    }
}

/// [`select`]'s scan over `children`: the index of the first child whose fraction is
/// highest, by the cross-multiplied comparison `num * best_den > best_num * den` against the
/// leader so far (at first `-1 / 1`, below every child), children with [`LOST`] passed over
/// when `SKIP_LOST`; 0 when every child is passed over. `ALL_TRIED` as for [`rave_fraction`].
///
/// The leader changes only a few times in a scan, so the scan is a search for the next child
/// that beats it, a loop exit the processor predicts, rather than a running maximum: as a
/// running maximum the compiler blends the leader branch-free, and every child's comparison
/// then waits on the one before it. The comparisons and their order are the running
/// maximum's, so the choice is the same.
#[inline(always)]
fn leader<const SKIP_LOST: bool, const ALL_TRIED: bool>(
    children: &[Node],
    rave_bias: f32,
) -> usize {
    let (mut best, mut best_num, mut best_den) = (0, -1.0f32, 1.0f32);
    let mut from = 0;
    while let Some(j) = children[from..].iter().position(|c| {
        if SKIP_LOST && c.flags & LOST != 0 {
            return false;
        }
        let (num, den) = rave_fraction::<ALL_TRIED>(c, rave_bias);
        num * best_den > best_num * den
    }) {
        best = from + j;
        (best_num, best_den) = rave_fraction::<ALL_TRIED>(&children[best], rave_bias);
        from = best + 1;
    }
    best
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

/// What a child's all-moves-as-first statistics (`[amaf_visits, amaf_wins]`) gain from a
/// playout, by the playout's winner (`AMAF_GAIN[winner & 1]`), the final value of the child's
/// cell (`value & 3`) and the child's player (`[player - 1]`): `[1, 1]` when the player holds
/// the cell and won, `[1, 0]` when it holds it and lost, `[0, 0]` when the other player holds
/// it. Built from the arithmetic the update used before the table (issue 23, sixth piece):
/// `hit = ((value ^ player) & 1) ^ 1` (equal owners differ by 0, different ones by 3) and
/// `[hit, hit * won]`.
const AMAF_GAIN: [[[[f32; 2]; 2]; 4]; 2] = amaf_gains();

/// Computes [`AMAF_GAIN`].
const fn amaf_gains() -> [[[[f32; 2]; 2]; 4]; 2] {
    let mut table = [[[[0.0; 2]; 2]; 4]; 2];
    let mut winner = 1u8;
    while winner <= 2 {
        let mut value = 0u8;
        while value < 4 {
            let mut player = 1u8;
            while player <= 2 {
                let hit = (((value ^ player) & 1) ^ 1) as f32;
                let won = if player == winner { 1.0 } else { 0.0 };
                table[(winner & 1) as usize][value as usize][(player - 1) as usize] =
                    [hit, hit * won];
                player += 1;
            }
            value += 1;
        }
        winner += 1;
    }
    table
}

/// The tree of one search (see [`search`]) and the playouts it ran; `None` without
/// candidates.
fn grow(
    pos: &Position,
    rng: &mut impl Rng,
    limits: Limits<'_>,
    tuning: &Tuning,
    candidates: &[u16],
    kept: Option<Vec<Node>>,
) -> Option<(Vec<Node>, u32)> {
    if candidates.is_empty() {
        return None;
    }
    let me = pos.mover().number();
    let all_empties = empty_indices(pos);
    let mut filler = Filler::new(pos);
    let mut nodes: Vec<Node> = Vec::with_capacity(1 + candidates.len() * 64);
    // the root's cell is the last move (what `expand` relates its children to), if known
    let last = pos
        .last_index()
        .filter(|_| tuning.root_knows_last)
        .and_then(|i| u16::try_from(i).ok());
    nodes.push(Node::new(last.unwrap_or(u16::MAX), me ^ 3));
    let stride = pos.stride();
    let mut roots = candidates.to_vec();
    if tuning.prune_dead {
        drop_dead(&mut roots, &filler.board, stride);
    }
    let with_prior = tuning.pattern_visits > 0.0 || tuning.pattern_amaf > 0.0;
    let learned = (tuning.learned_prior > 0.0).then(|| Learned {
        weights: patterns::learned(),
        weight: tuning.learned_prior.min(1.0),
        power: tuning.learned_power,
    });
    let mut cache = PriorCache::new(
        &filler.board,
        (stride, usize::from(pos.size())),
        if with_prior { &all_empties } else { &[] },
        learned,
    );
    // the cells within reach of the last move are valued afresh, knowing it
    cache.begin(last.map(usize::from).into_iter());
    match kept {
        Some(kept) => {
            // a kept root's children were valued below the move that is now the last
            nodes = kept;
            nodes[0].cell = last.unwrap_or(u16::MAX);
        }
        None => expand(
            &mut nodes,
            0,
            &roots,
            me,
            (&filler.board, stride),
            tuning,
            &cache,
        ),
    }
    let real_visits = |n: &Node, at: usize| real_visits(n, at, tuning);
    let mut path: Vec<usize> = Vec::with_capacity(64);
    let mut leaf_empties: Vec<u16> = Vec::with_capacity(all_empties.len());
    let mut slot = [0u16; PADDED_CELLS];
    let mut playout_empties = [0u16; PADDED_CELLS];
    // after each playout, what a child's all-moves-as-first statistics gain from its cell:
    // `amaf_gain[cell][player - 1]`, as in [`AMAF_GAIN`]
    let mut amaf_gain = [[[0.0f32; 2]; 2]; PADDED_CELLS];
    debug_assert!(
        candidates
            .iter()
            .all(|&c| pos.board_slice().get(usize::from(c)) == Some(&EMPTY)),
        "the candidates are empty cells, as the all-moves-as-first table assumes"
    );

    let Limits { max_playouts, stop } = limits;
    let know = tuning.knowledge_at > 0.0;
    let resist = tuning.resist_at > 0.0 && tuning.resist_amaf > 0.0;
    let scan = Scan::of(tuning);
    let mut proofs = know;
    let geometry = (usize::from(pos.size()), stride, pos.top_bottom_owner());
    let mut playouts = 0;
    // set when an analysis was ended by `stop`: the search ends too
    let mut halted = false;
    for done in 0..max_playouts.max(1) {
        if halted || (done > 0 && done % STOP_CHECK_EVERY == 0 && stop(done)) {
            break;
        }
        if nodes[0].flags & LOST != 0 {
            break; // a proven win for the mover: the choice below plays it
        }
        if nodes[0].flags & WON != 0 {
            // a proven loss: search on for the move that resists longest (the opponent may
            // still go wrong), with the proofs forgotten and no new ones; the cuts stay
            for n in &mut nodes {
                n.flags &= KNOWN | RESISTED;
            }
            proofs = false;
        }
        playouts = done + 1;
        let expand_at = if tuning.expand_by_room {
            expand_threshold(tuning.expand_at, nodes.len(), tuning.max_nodes)
        } else {
            tuning.expand_at
        };
        filler.reset();
        path.clear();
        path.push(0);
        let mut node = 0;
        let mut turn = me;
        // the winner of a proven node the descent ended at: no playout then
        let mut proven = None;
        loop {
            if let Some(w) = nodes[node].proven_winner() {
                proven = Some(w);
                break;
            }
            if know
                && nodes[node].n_children > 0
                && nodes[node].flags & KNOWN == 0
                && real_visits(&nodes[node], node) >= tuning.knowledge_at
                && (tuning.knowledge_depth == 0
                    || path.len() <= usize::from(tuning.knowledge_depth) + 1)
            {
                nodes[node].flags |= KNOWN;
                let mut ask = || {
                    halted = halted || stop(done);
                    halted
                };
                let analysed = analyse_node(
                    &filler.board,
                    geometry,
                    turn,
                    (&tuning.knowledge_vc, tuning.prune_dominated),
                    &mut ask,
                );
                if halted && matches!(analysed, NodeKnowledge::Open(_)) {
                    // cut short: a kept tree's next search analyses the node again
                    nodes[node].flags &= !KNOWN;
                }
                let k = match analysed {
                    NodeKnowledge::Wins(_) | NodeKnowledge::Lost if !proofs => {
                        NodeKnowledge::Open(None)
                    }
                    k => k,
                };
                if apply_knowledge(&mut nodes, node, k) {
                    prove_up(&mut nodes, &path);
                    proven = nodes[node].proven_winner();
                    break;
                }
            }
            if resist
                && nodes[node].n_children > 0
                && nodes[node].flags & RESISTED == 0
                && real_visits(&nodes[node], node) >= tuning.resist_at
            {
                nodes[node].flags |= RESISTED;
                resist_prior(
                    &mut nodes,
                    node,
                    &filler.board,
                    geometry,
                    tuning.resist_amaf,
                );
            }
            if nodes[node].n_children == 0 {
                if real_visits(&nodes[node], node) < expand_at {
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
            let child = if tuning.uct_bias > 0.0 {
                select_exploring(&nodes, node, tuning, scan)
            } else {
                select(&nodes, node, tuning.rave_bias, scan)
            };
            filler.board[usize::from(nodes[child].cell)] = turn;
            turn ^= 3;
            path.push(child);
            node = child;
        }
        if let Some(winner) = proven {
            // a proven node's fixed result; the board is not full, so no all-moves-as-first
            for &p in &path {
                let n = &mut nodes[p];
                n.visits += 1.0;
                if n.player == winner {
                    n.wins += 1.0;
                }
            }
            continue;
        }
        // the cells still empty, in the root's order: each is written, and kept by counting
        // it only when it is empty (no branch to mispredict, no length check of a `Vec`)
        let mut m = 0;
        for &i in &all_empties {
            playout_empties[m] = i;
            m += usize::from(filler.board[usize::from(i)] == EMPTY);
        }
        let empties = &mut playout_empties[..m];
        let winner = filler.fill_bridges_and_judge(rng, empties, turn, &mut slot);
        // every child's cell is one of the root's empty cells, now full
        let by_value = &AMAF_GAIN[usize::from(winner & 1)];
        for &c in &all_empties {
            amaf_gain[usize::from(c)] = by_value[usize::from(filler.board[usize::from(c)] & 3)];
        }
        for &p in &path {
            let n = &mut nodes[p];
            n.visits += 1.0;
            if n.player == winner {
                n.wins += 1.0;
            }
            // all children of a node were moves of the same player: the one not owning it
            let k = usize::from(n.player & 1);
            let range = n.children();
            for child in &mut nodes[range] {
                let [hit, won] = amaf_gain[usize::from(child.cell)][k];
                child.amaf_visits += hit;
                child.amaf_wins += won;
            }
        }
    }

    Some((nodes, playouts))
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
    kept: Option<&mut KeptTree>,
) -> Option<Report> {
    let kept = kept.filter(|_| tuning.keep_tree);
    let (start, kept) = match kept {
        Some(k) => (k.take_for(pos, tuning, candidates), Some(k)),
        None => (None, None),
    };
    let (nodes, playouts) = grow(pos, rng, limits, tuning, candidates, start)?;
    let real_visits = |n: &Node, at: usize| real_visits(n, at, tuning);
    // a child proven won for the mover first; else the most visited one not proven lost (any
    // when all are)
    let most_visited = |at: usize| -> Option<usize> {
        let range = nodes[at].children();
        if let Some(k) = range.clone().find(|&k| nodes[k].flags & WON != 0) {
            return Some(k);
        }
        let open = range.clone().any(|k| nodes[k].flags & LOST == 0);
        let mut best: Option<usize> = None;
        for k in range {
            if open && nodes[k].flags & LOST != 0 {
                continue;
            }
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
    let report = Report {
        cell: b.cell,
        // the prior's virtual visits stay in: they are few beside any real search's
        win_rate: if b.flags & WON != 0 {
            1.0
        } else if b.visits > 0.0 {
            f64::from(b.wins / b.visits)
        } else {
            0.5
        },
        pv,
        playouts,
    };
    if let Some(k) = kept {
        k.keep(pos, tuning, nodes);
    }
    Some(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::board::CellSet;
    use rand_core::SeedableRng;
    use rand_pcg::Pcg64;

    /// A position from rows of `.`, `1`, `2` (seat 1 top-bottom; the seat on move follows from
    /// the stone counts), and the padded index of (row, col).
    fn position(rows: &[&str]) -> (Position, impl Fn(usize, usize) -> u16) {
        let pos = super::super::position_of_rows(rows);
        let w = pos.stride();
        (pos, move |r, c| ((r + 1) * w + c + 1) as u16)
    }

    /// What [`the_search_makes_exactly_the_choices_it_made_before_selection_was_sped_up`]
    /// recorded from the search as it stood before issue 23's fifth piece.
    const PINNED: [&str; 4] = [
        "house 11x11: 3000 playouts, 50591 nodes, 0x1fb5b1d1445999db, move 132, \
         line [132, 119, 120, 74, 75, 63, 89], top [1492, 785, 227, 111, 66]",
        "plain 9x9: 2000 playouts, 15119 nodes, 0xa6a2ae8566417b6a, move 30, \
         line [30, 39, 50, 67, 26, 28], top [1000, 527, 98, 94, 70]",
        "knowledge 7x7: 1500 playouts, 9552 nodes, 0x6991662b8d64e60f, move 30, \
         line [30, 32, 40, 42, 50, 51, 68, 23], top [792, 639, 29, 29, 24]",
        "near the cap 9x9: 3000 playouts, 5972 nodes, 0x55081c9f5dd6d143, move 92, \
         line [92, 38], top [1610, 603, 140, 134, 131]",
    ];

    fn with_knowledge(at: f32) -> Tuning {
        Tuning {
            knowledge_at: at,
            ..Tuning::HOUSE
        }
    }

    fn grown(pos: &Position, tuning: &Tuning, playouts: u32, seed: u64) -> (Vec<Node>, u32) {
        let mut rng = Pcg64::seed_from_u64(seed);
        let limits = Limits {
            max_playouts: playouts,
            stop: &mut |_| false,
        };
        grow(pos, &mut rng, limits, tuning, &empty_indices(pos), None).expect("candidates")
    }

    #[test]
    fn a_root_that_knows_the_last_move_values_the_answer_to_its_intrusion_highest() {
        // seat 1's (1,1) and (2,2) are a bridge over (1,2) and (2,1); seat 2's last move took
        // (1,2): seat 1 saves the bridge at (2,1) (the hand-set shapes' 0.9, else 0.75)
        let mut pos = Position::new(5).expect("size");
        for (r, c) in [(1, 1), (4, 4), (2, 2), (1, 2)] {
            pos.play(hex::Move::Place(hex::Cell::new(r, c)))
                .expect("legal");
        }
        let save = pos.index(hex::Cell::new(2, 1)).expect("on the board");
        let prior_wins = |tuning: &Tuning| {
            let (nodes, _) = grown(&pos, tuning, 1, 7);
            let k = nodes[0]
                .children()
                .find(|&k| usize::from(nodes[k].cell) == save)
                .expect("a root move");
            // one playout adds at most one win to the prior's 10 virtual visits
            nodes[k].wins
        };
        let knowing = Tuning {
            root_knows_last: true,
            ..Tuning::HOUSE
        };
        let w = prior_wins(&knowing);
        assert!((9.0..=10.0).contains(&w), "{w}");
        let w = prior_wins(&Tuning::HOUSE);
        assert!((7.5..=8.5).contains(&w), "{w}");
    }

    fn searched(pos: &Position, tuning: &Tuning, playouts: u32, seed: u64) -> Report {
        let mut rng = Pcg64::seed_from_u64(seed);
        let limits = Limits {
            max_playouts: playouts,
            stop: &mut |_| false,
        };
        search(pos, &mut rng, limits, tuning, &empty_indices(pos), None).expect("candidates")
    }

    /// 7x7, seat 2 on move: seat 1's (1,3) (template II to the top) and (3,2)-(4,2) (a
    /// ziggurat to the bottom) lost their bridge to seat 2's (2,3), so seat 1 threatens to
    /// connect at (2,2). Seat 2's other stone is in the far corner.
    const THREAT: [&str; 7] = [
        ".......", "...1...", "...2...", "..1....", "..1....", ".......", "......2",
    ];

    /// The depths (plies below the root) of the nodes the tree's knowledge analysed.
    fn analysed_depths(nodes: &[Node]) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![(0usize, 0usize)];
        while let Some((n, depth)) = stack.pop() {
            if nodes[n].flags & KNOWN != 0 {
                out.push(depth);
            }
            let first = nodes[n].first_child as usize;
            for c in first..first + usize::from(nodes[n].n_children) {
                stack.push((c, depth + 1));
            }
        }
        out
    }

    #[test]
    fn the_tree_analyses_no_node_deeper_than_its_knowledge_depth() {
        let pos = super::super::position_of_rows(&[
            ".......", ".......", "...1...", "..2....", ".......", ".......", ".......",
        ]);
        let deep = Tuning {
            knowledge_at: 20.0,
            ..Tuning::HOUSE
        };
        let (nodes, _) = grown(&pos, &deep, 3_000, 5);
        let any_depth = analysed_depths(&nodes);
        assert!(any_depth.iter().any(|&d| d >= 2), "{any_depth:?}");
        let shallow = Tuning {
            knowledge_depth: 1,
            ..deep
        };
        let (nodes, _) = grown(&pos, &shallow, 3_000, 5);
        let depths = analysed_depths(&nodes);
        assert!(depths.contains(&1), "{depths:?}");
        assert!(depths.iter().all(|&d| d <= 1), "{depths:?}");
    }

    #[test]
    fn a_busy_node_facing_an_edge_to_edge_threat_keeps_only_the_mustplay() {
        let (pos, at) = position(&THREAT);
        let empties = empty_indices(&pos).len();
        let filler = Filler::new(&pos);
        let geometry = (
            usize::from(pos.size()),
            pos.stride(),
            pos.top_bottom_owner(),
        );
        let NodeKnowledge::Open(Some(keep)) = analyse_node(
            &filler.board,
            geometry,
            2,
            (&VcLimits::TREE, false),
            &mut || false,
        ) else {
            panic!("the tree's bounds should see the threat")
        };
        assert!(keep.contains(usize::from(at(2, 2))), "{keep:?}");
        assert!(keep.len() < empties / 2, "{keep:?}");
        for seed in 0..4 {
            // without the knowledge the root keeps a child per empty cell
            let (plain, _) = grown(&pos, &Tuning::HOUSE, 400, seed);
            assert_eq!(usize::from(plain[0].n_children), empties);
            // with it, the root (analysed at its 50th visit) keeps the mustplay only, and
            // so does every analysed node below it that is still open
            let (nodes, _) = grown(&pos, &with_knowledge(50.0), 400, seed);
            let root: Vec<usize> = nodes[nodes[0].children()]
                .iter()
                .map(|n| usize::from(n.cell))
                .collect();
            assert!(nodes[0].flags & KNOWN != 0);
            assert_eq!(root.len(), keep.len(), "seed {seed}: {root:?}");
            assert!(
                root.iter().all(|&c| keep.contains(c)),
                "seed {seed}: {root:?} {keep:?}"
            );
            // the search's move is in the mustplay
            let r = searched(&pos, &with_knowledge(50.0), 400, seed);
            assert!(
                keep.contains(usize::from(r.cell)),
                "seed {seed}: {} {:?} {:?}",
                r.cell,
                root,
                nodes[0].proven_winner()
            );
        }
    }

    #[test]
    fn the_root_and_a_busy_node_leave_out_the_dominated_cells_when_asked() {
        // 7x7, quiet, seat 1 on move: nothing is dead or threatened, but a stone beside an
        // acute corner kills it, so (0, 0) and (6, 6) are dominated (`inferior::dominated`)
        let rows = [
            ".......", ".......", "....2..", "...1...", ".......", ".......", ".......",
        ];
        let (pos, at) = position(&rows);
        let empties = empty_indices(&pos);
        let corners = [usize::from(at(0, 0)), usize::from(at(6, 6))];
        let all = CellSet::of(&empties.iter().map(|&i| usize::from(i)).collect::<Vec<_>>());
        let board = crate::board::Board::of(&pos);
        // nothing to fill: the analyses' filled-in board is this one
        assert!(crate::inferior::fill_in(&board).filled().is_empty());
        let gone = crate::inferior::dominated(&board, 1, &all);
        assert!(corners.iter().all(|&c| gone.contains(c)), "{gone:?}");
        let filler = Filler::new(&pos);
        let geometry = (
            usize::from(pos.size()),
            pos.stride(),
            pos.top_bottom_owner(),
        );
        let ask = |dominated| {
            analyse_node(
                &filler.board,
                geometry,
                1,
                (&VcLimits::TREE, dominated),
                &mut || false,
            )
        };
        // without it the analysis has nothing to cut; with it, exactly the dominated cells
        assert_eq!(ask(false), NodeKnowledge::Open(None));
        let NodeKnowledge::Open(Some(keep)) = ask(true) else {
            panic!("the dominated cells should be cut")
        };
        assert_eq!(keep.len(), empties.len() - gone.len());
        assert!(all.iter().all(|i| keep.contains(i) != gone.contains(i)));
        // the root's moves
        let dominating = Tuning {
            prune_dominated: true,
            ..Tuning::KNOWLEDGE
        };
        let roots = |tuning: &Tuning| match super::super::root::knowledge_root(
            &pos,
            &empties,
            tuning,
            &mut || false,
        ) {
            super::super::root::Root::Search(moves) => moves,
            super::super::root::Root::Play(cell) => panic!("no win here: {cell}"),
        };
        assert_eq!(roots(&Tuning::KNOWLEDGE), empties);
        let kept = roots(&dominating);
        assert_eq!(kept.len(), empties.len() - gone.len());
        assert!(kept.iter().all(|&i| !gone.contains(usize::from(i))));
        // and a search that analyses its root at the 50th visit drops the corners there
        let tuning = Tuning {
            prune_dominated: true,
            ..with_knowledge(50.0)
        };
        let (nodes, _) = grown(&pos, &tuning, 400, 3);
        let children: Vec<usize> = nodes[nodes[0].children()]
            .iter()
            .map(|n| usize::from(n.cell))
            .collect();
        assert_eq!(children.len(), empties.len() - gone.len(), "{children:?}");
        assert!(corners.iter().all(|c| !children.contains(c)));
    }

    #[test]
    fn a_proven_win_at_a_busy_node_is_played_at_once_and_valued_as_won() {
        // 5x5, seat 1 on move: (1,2) and (3,1) lost their bridge to seat 2's (2,2); (2,1)
        // joins them and both edge templates hold: a win the house search does not know
        let (pos, at) = position(&[".....", "..1..", "..2..", ".1...", "....2"]);
        for seed in 0..4 {
            let r = searched(&pos, &with_knowledge(8.0), 5_000, seed);
            assert_eq!(r.cell, at(2, 1), "seed {seed}");
            assert_eq!(r.win_rate, 1.0, "seed {seed}");
            // the root was analysed at its 8th visit and the search stopped there
            assert!(r.playouts <= 9, "seed {seed}: {}", r.playouts);
            // without the knowledge: every playout is run, and the win rate is an estimate
            let plain = searched(&pos, &Tuning::HOUSE, 5_000, seed);
            assert_eq!(plain.playouts, 5_000);
            assert!(plain.win_rate < 1.0, "seed {seed}: {}", plain.win_rate);
        }
    }

    #[test]
    fn a_proven_loss_at_the_root_searches_on_without_proofs() {
        // 5x5, seat 2 on move: seat 1's (1,2) and (3,1) are a bridge, with templates II to
        // both edges: seat 1 is connected whatever seat 2 plays. The root is analysed at its
        // first visit and found lost; the search then forgets the proof, plays all its
        // playouts (a swindle is the only hope) and marks nothing proven.
        let (pos, _) = position(&[".....", "..1..", ".....", ".1...", "....2"]);
        let (nodes, playouts) = grown(&pos, &with_knowledge(1.0), 2_000, 3);
        assert_eq!(playouts, 2_000);
        assert!(nodes[0].flags & KNOWN != 0);
        assert!(nodes.iter().all(|n| n.proven_winner().is_none()));
        // while the same root for seat 1 on move (its win) ends the search at once
        let (won, _) = position(&[".....", "..1..", ".....", ".1...", "...22"]);
        let r = searched(&won, &with_knowledge(1.0), 2_000, 3);
        assert!(r.playouts <= 3, "{}", r.playouts);
        assert_eq!(r.win_rate, 1.0);
    }

    /// A little tree by hand: root 0 (seat 2 moved into it) with children 1 and 2 (seat 1's
    /// moves), node 1 with children 3 and 4 (seat 2's).
    fn hand_tree() -> Vec<Node> {
        let mut nodes = vec![Node::new(u16::MAX, 2)];
        nodes.extend([Node::new(10, 1), Node::new(11, 1)]);
        nodes.extend([Node::new(20, 2), Node::new(21, 2)]);
        nodes[0].first_child = 1;
        nodes[0].n_children = 2;
        nodes[1].first_child = 3;
        nodes[1].n_children = 2;
        nodes
    }

    #[test]
    fn the_circuits_prior_favours_the_gap_both_players_route_through() {
        // seat 1 (top-bottom) can only pass row 1 at its gap (1,2); seat 2's routes all run
        // along the free rows. The gap gets the prior's top rate, a cell of the bottom corner
        // less; the node's and its children's own statistics are untouched.
        let board = Board::parse(&["..2..", "22.22", ".1...", "...2.", "....."]).expect("board");
        let at = |r, c| {
            board
                .at(r, c)
                .and_then(|i| u16::try_from(i).ok())
                .expect("cell")
        };
        let (gap, corner) = (at(1, 2), at(4, 4));
        let mut nodes = vec![
            Node::new(u16::MAX, 2),
            Node::new(gap, 1),
            Node::new(corner, 1),
        ];
        nodes[0].first_child = 1;
        nodes[0].n_children = 2;
        let geometry = (board.size, board.stride, board.tb_owner);
        resist_prior(&mut nodes, 0, &board.cells, geometry, 40.0);
        assert_eq!(nodes[1].amaf_visits, 40.0);
        assert!(
            (nodes[1].amaf_wins - 40.0 * 0.65).abs() < 1e-3,
            "{}",
            nodes[1].amaf_wins
        );
        assert!(
            nodes[2].amaf_wins < nodes[1].amaf_wins - 2.0,
            "{}",
            nodes[2].amaf_wins
        );
        assert!(nodes[2].amaf_wins >= 40.0 * 0.35 - 1e-3);
        assert_eq!((nodes[1].visits, nodes[1].wins), (0.0, 0.0));
        assert_eq!(nodes[0].amaf_visits, 0.0);
    }

    #[test]
    fn a_busy_node_gets_the_circuits_prior_once() {
        let (pos, _) = position(&["....", "....", "....", "...."]);
        let tuning = Tuning {
            resist_at: 50.0,
            resist_amaf: 1_000.0,
            ..Tuning::HOUSE
        };
        let (nodes, _) = grown(&pos, &tuning, 400, 5);
        assert!(nodes[0].flags & RESISTED != 0);
        // the root's children got 1,000 virtual visits once: more than the 400 playouts could
        // give them, less than twice that
        let amaf: f32 = nodes[nodes[0].children()]
            .iter()
            .map(|n| n.amaf_visits)
            .sum();
        let n = f32::from(nodes[0].n_children);
        assert!(
            amaf > 1_000.0 * n && amaf < 2_000.0 * n,
            "{amaf} over {n} children"
        );
        let (plain, _) = grown(&pos, &Tuning::HOUSE, 400, 5);
        assert_eq!(plain[0].flags & RESISTED, 0);
    }

    #[test]
    fn proofs_are_carried_up_the_path() {
        let mut nodes = hand_tree();
        // seat 2 wins at node 3: node 1 is lost for seat 1, the root still open (node 2)
        nodes[3].flags |= WON;
        prove_up(&mut nodes, &[0, 1, 3]);
        assert_eq!(nodes[1].proven_winner(), Some(2));
        assert_eq!(nodes[0].proven_winner(), None);
        // the root's selection never goes into the lost child again
        nodes[1].visits = 100.0;
        nodes[1].wins = 90.0;
        nodes[2].visits = 100.0;
        nodes[2].wins = 10.0;
        let scan = Scan {
            lost_possible: true,
            all_tried: false,
        };
        assert_eq!(select(&nodes, 0, 0.002, scan), 2);
        // node 2 lost too: every seat 1 move loses, the root is won for seat 2
        nodes[2].flags |= LOST;
        prove_up(&mut nodes, &[0, 2]);
        assert_eq!(nodes[0].proven_winner(), Some(2));
    }

    #[test]
    fn the_exploration_term_sends_the_selection_to_a_little_visited_child() {
        let mut nodes = hand_tree();
        nodes[0].visits = 1010.0;
        // node 1: 1,000 visits at 0.60; node 2: 10 visits at 0.50
        (nodes[1].visits, nodes[1].wins) = (1000.0, 600.0);
        (nodes[2].visits, nodes[2].wins) = (10.0, 5.0);
        let scan = Scan {
            lost_possible: true,
            all_tried: false,
        };
        let plain = Tuning::PLAIN;
        assert_eq!(select(&nodes, 0, plain.rave_bias, scan), 1);
        assert_eq!(select_exploring(&nodes, 0, &plain, scan), 1);
        // 0.5 + 0.22 * sqrt(ln 1010 / 11) = 0.66 beats 0.6 + 0.22 * sqrt(ln 1010 / 1001) = 0.62
        let exploring = Tuning {
            uct_bias: 0.22,
            ..plain
        };
        assert_eq!(select_exploring(&nodes, 0, &exploring, scan), 2);
        // a child proven lost is passed over, however little visited
        nodes[2].flags |= LOST;
        assert_eq!(select_exploring(&nodes, 0, &exploring, scan), 1);
    }

    #[test]
    fn every_named_tuning_is_found_by_its_name_and_the_names_differ() {
        for (name, tuning) in Tuning::NAMED {
            assert_eq!(Tuning::named(name), Some(tuning), "{name}");
            assert_eq!(Tuning::named(&name.to_uppercase()), Some(tuning), "{name}");
        }
        let mut names: Vec<&str> = Tuning::NAMED.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Tuning::NAMED.len());
        assert_eq!(Tuning::named("house"), Some(Tuning::HOUSE));
        assert_eq!(Tuning::named("best"), None);
        // the learned mix is the house search with the learned prior at half weight
        assert_eq!(
            Tuning::LEARNED,
            Tuning {
                learned_prior: 0.5,
                ..Tuning::HOUSE
            }
        );
    }

    #[test]
    fn the_selection_takes_for_granted_only_what_the_tuning_guarantees() {
        // the house search: a prior for every child, no proofs
        let house = Scan::of(&Tuning::HOUSE);
        assert!(house.all_tried && !house.lost_possible);
        // no prior at all: untried children exist
        assert!(!Scan::of(&Tuning::PLAIN).all_tried);
        // the neighbourhood prior alone is enough
        let neighbourhood = Tuning {
            prior_visits: 5.0,
            ..Tuning::PLAIN
        };
        assert!(Scan::of(&neighbourhood).all_tried);
        // a negative bias or prior could make a denominator zero or negative, an infinite one
        // not a number
        for t in [
            Tuning {
                rave_bias: -0.1,
                ..Tuning::HOUSE
            },
            Tuning {
                rave_bias: f32::INFINITY,
                ..Tuning::HOUSE
            },
            Tuning {
                pattern_amaf: -5.0,
                ..Tuning::HOUSE
            },
        ] {
            assert!(!Scan::of(&t).all_tried);
        }
        // the analysis of busy nodes marks proofs
        assert!(Scan::of(&Tuning::TREE_KNOWLEDGE).lost_possible);
    }

    #[test]
    fn the_expansion_threshold_grows_as_the_room_left_shrinks() {
        // up to half the cap: the tuning's own threshold
        assert_eq!(expand_threshold(3.0, 0, 1_000), 3.0);
        assert_eq!(expand_threshold(3.0, 500, 1_000), 3.0);
        // then half the cap over the room left: twice at 3/4, five times at 90%, fifty at 99%
        assert_eq!(expand_threshold(3.0, 750, 1_000), 6.0);
        assert_eq!(expand_threshold(3.0, 900, 1_000), 15.0);
        assert_eq!(expand_threshold(3.0, 990, 1_000), 150.0);
        // full (or past it, which the cap's own check prevents): the room counts as one node
        assert_eq!(expand_threshold(3.0, 1_000, 1_000), 1_500.0);
        assert_eq!(expand_threshold(3.0, 1_200, 1_000), 1_500.0);
    }

    #[test]
    fn a_long_search_keeps_growing_its_tree_past_the_point_where_the_cap_froze_it() {
        // 9x9, four stones in: a cap of 20,000 nodes, met after about 2,000 playouts
        let (pos, _) = position(&[
            ".........",
            ".........",
            "...2.....",
            ".....1...",
            "....1....",
            "...2.....",
            ".........",
            ".........",
            ".........",
        ]);
        let cap = 20_000;
        let empties = empty_indices(&pos).len();
        let capped = Tuning {
            max_nodes: cap,
            ..Tuning::FROZEN
        };
        let roomy = Tuning {
            expand_by_room: true,
            ..capped
        };
        for seed in 0..3 {
            // without the rule the tree is full by 2,000 playouts and grows by one expansion
            // at most in the next 2,000
            let (early, _) = grown(&pos, &capped, 2_000, seed);
            let (late, _) = grown(&pos, &capped, 4_000, seed);
            assert!(
                early.len() > cap - 2 * empties,
                "seed {seed}: {}",
                early.len()
            );
            assert!(
                late.len() - early.len() <= empties,
                "seed {seed}: {}",
                late.len()
            );
            // with it the tree is at about 16,500 nodes at 2,000 and still grows by more
            // than 2,000 in the next 2,000 playouts, never past the cap
            let (early, _) = grown(&pos, &roomy, 2_000, seed);
            let (late, _) = grown(&pos, &roomy, 4_000, seed);
            assert!(early.len() < cap - 3_000, "seed {seed}: {}", early.len());
            assert!(
                late.len() - early.len() > 2_000,
                "seed {seed}: {}",
                late.len()
            );
            assert!(late.len() <= cap, "seed {seed}: {}", late.len());
            // after 30,000 playouts the frozen tree's most visited move was a leaf when the
            // cap was met (a line of one move); the growing tree's line goes on below it
            let plain_pv = searched(&pos, &capped, 30_000, seed).pv.len();
            let roomy_pv = searched(&pos, &roomy, 30_000, seed).pv.len();
            assert_eq!(plain_pv, 1, "seed {seed}");
            assert!(roomy_pv >= 3, "seed {seed}: {roomy_pv}");
        }
        // below half the cap the rule changes nothing: the same tree, node for node
        let (a, _) = grown(&pos, &capped, 500, 7);
        let (b, _) = grown(&pos, &roomy, 500, 7);
        assert!(a.len() < cap / 2);
        assert_eq!(a.len(), b.len());
        assert!(
            a.iter()
                .zip(&b)
                .all(|(x, y)| x.cell == y.cell && x.visits == y.visits && x.wins == y.wins)
        );
    }

    /// Not a check but a measurement (BENCHMARKS.md, "the tree's growth at long thinks"):
    /// `cargo test --release -p hex-search --lib tree_growth -- --ignored --nocapture` prints,
    /// for three random 11x11 positions and thinks of 100 ms, 400 ms and 1 s, with and without
    /// [`Tuning::expand_by_room`], the playouts, the tree's nodes and the depth of its most
    /// visited line (down to the first node without children).
    #[test]
    #[ignore]
    fn tree_growth_at_think_times() {
        use std::time::Instant;
        let mut rng = Pcg64::seed_from_u64(5);
        for stones in [4usize, 14, 30] {
            let mut pos = Position::new(11).expect("size");
            for _ in 0..stones {
                let e = empty_indices(&pos);
                let k = (rng.next_u32() as usize) % e.len();
                pos.place_move(usize::from(e[k]));
            }
            for room in [false, true] {
                let tuning = Tuning {
                    expand_by_room: room,
                    ..Tuning::HOUSE
                };
                for ms in [100u128, 400, 1000] {
                    let t = Instant::now();
                    let stop = &mut |_| t.elapsed().as_millis() >= ms;
                    let limits = Limits {
                        max_playouts: u32::MAX,
                        stop,
                    };
                    let (nodes, playouts) =
                        grow(&pos, &mut rng, limits, &tuning, &empty_indices(&pos), None)
                            .expect("moves");
                    let mut depth = 0;
                    let mut at = 0;
                    while let Some(k) = nodes[at]
                        .children()
                        .max_by(|&a, &b| nodes[a].visits.total_cmp(&nodes[b].visits))
                    {
                        at = k;
                        depth += 1;
                    }
                    println!(
                        "{stones} stones, {ms} ms, expand_by_room {room}: {playouts} playouts, \
                         {} nodes, line of {depth}",
                        nodes.len()
                    );
                }
            }
        }
    }

    /// A fingerprint of a grown tree: FNV-1a over every node, in creation order, of its cell,
    /// children and the bits of its four statistics. Two trees agree on it when (barring a
    /// 64-bit collision) the searches made the same choice at every step.
    fn fingerprint(nodes: &[Node]) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |x: u32| {
            for b in x.to_le_bytes() {
                h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        };
        for n in nodes {
            eat(u32::from(n.cell) | u32::from(n.flags) << 16 | u32::from(n.player) << 24);
            eat(n.first_child);
            eat(u32::from(n.n_children));
            for v in [n.visits, n.wins, n.amaf_visits, n.amaf_wins] {
                eat(v.to_bits());
            }
        }
        h
    }

    /// `stones` random stones on a `size` board, from `seed`.
    fn random_position(size: u8, stones: usize, seed: u64) -> Position {
        let mut rng = Pcg64::seed_from_u64(seed);
        let mut pos = Position::new(size).expect("size");
        for _ in 0..stones {
            let e = empty_indices(&pos);
            let k = (rng.next_u32() as usize) % e.len();
            pos.place_move(usize::from(e[k]));
        }
        pos
    }

    /// Whether `new`'s subtree at `n` is `old`'s at `o`: the same cells, players, flags and
    /// statistics, node by node (the roots' own cells aside).
    fn same_subtree(old: &[Node], o: usize, new: &[Node], n: usize) -> bool {
        let (a, b) = (&old[o], &new[n]);
        if (a.player, a.flags, a.n_children) != (b.player, b.flags, b.n_children)
            || (a.visits, a.wins, a.amaf_visits, a.amaf_wins)
                != (b.visits, b.wins, b.amaf_visits, b.amaf_wins)
        {
            return false;
        }
        a.children()
            .zip(b.children())
            .all(|(x, y)| old[x].cell == new[y].cell && same_subtree(old, x, new, y))
    }

    #[test]
    fn an_analysis_the_clock_cut_short_is_not_marked_done() {
        // a node analysed at its 5th visit, with a stop that answers yes from the first
        // question: the analysis asks at once and ends open
        let pos = random_position(7, 6, 4);
        let soon = Tuning {
            knowledge_at: 5.0,
            knowledge_vc: VcLimits::CLOSURE,
            ..Tuning::HOUSE
        };
        let mut rng = Pcg64::seed_from_u64(8);
        let mut asked = 0;
        let limits = Limits {
            max_playouts: 1_000,
            stop: &mut |_| {
                asked += 1;
                true
            },
        };
        let (nodes, playouts) =
            grow(&pos, &mut rng, limits, &soon, &empty_indices(&pos), None).expect("moves");
        assert!(
            asked >= 1 && playouts < STOP_CHECK_EVERY,
            "{asked} {playouts}"
        );
        assert!(nodes[0].visits >= 5.0);
        assert!(nodes.iter().all(|n| n.flags & KNOWN == 0));
        // given the time, the same search marks it
        let (nodes, _) = grown(&pos, &soon, 1_000, 8);
        assert!(nodes[0].flags & KNOWN != 0);
    }

    #[test]
    fn a_kept_root_keeps_a_proof_of_its_win_only_with_the_winning_move() {
        // the root (seat 1 to move) won through its child at cell 9; cells 8 and 10 are open
        let mut old = vec![Node::new(u16::MAX, 2)];
        old[0].flags = KNOWN | LOST;
        old[0].first_child = 1;
        old[0].n_children = 3;
        for cell in [8, 9, 10] {
            let mut n = Node::new(cell, 1);
            n.visits = 20.0;
            n.wins = 10.0;
            old.push(n);
        }
        old[2].flags = WON;
        old[0].visits = 60.0;
        old[0].wins = 30.0;
        let with = reroot(&old, 0, &[9, 10], 0.0).expect("two moves");
        assert_eq!(with[0].flags, KNOWN | LOST);
        let cells: Vec<u16> = with[1..].iter().map(|n| n.cell).collect();
        assert_eq!(cells, [9, 10]);
        let without = reroot(&old, 0, &[8, 10], 0.0).expect("two moves");
        assert_eq!(without[0].flags, KNOWN);
        assert_eq!(reroot(&old, 0, &[11], 0.0).map(|t| t.len()), None);
        // the root sheds its prior's visits, its win rate kept
        let shed = reroot(&old, 0, &[8, 9, 10], 10.0).expect("all");
        assert_eq!((shed[0].visits, shed[0].wins), (50.0, 25.0));
    }

    #[test]
    fn a_kept_tree_goes_on_from_the_subtree_of_the_move_played_and_its_answer() {
        let keeping = Tuning {
            keep_tree: true,
            ..Tuning::HOUSE
        };
        let pos = random_position(7, 4, 9);
        let mut kept = KeptTree::default();
        let mut rng = Pcg64::seed_from_u64(3);
        let run = |pos: &Position, kept: &mut KeptTree, rng: &mut Pcg64, n: u32| {
            let limits = Limits {
                max_playouts: n,
                stop: &mut |_| false,
            };
            search(pos, rng, limits, &keeping, &empty_indices(pos), Some(kept)).expect("a move")
        };
        let first = run(&pos, &mut kept, &mut rng, 4_000);
        let old = kept.nodes.clone();
        assert_eq!(old[0].visits, 4_000.0);
        // the move played and the answer the tree looked at most
        let a = old[0]
            .children()
            .find(|&k| old[k].cell == first.cell)
            .expect("played");
        let b = old[a]
            .children()
            .max_by(|&x, &y| old[x].visits.total_cmp(&old[y].visits))
            .expect("answers");
        let mut next = pos.clone();
        next.place_move(usize::from(first.cell));
        next.place_move(usize::from(old[b].cell));
        let empties = empty_indices(&next);
        assert!(old[b].visits > 10.0, "{}", old[b].visits);
        // the root sheds its prior's virtual visits
        let real = old[b].visits - keeping.pattern_visits;
        assert_eq!(kept.visits_for(&next, &keeping, &empties), Some(real));
        // another tuning's search starts afresh
        assert_eq!(
            kept.visits_for(&next, &Tuning::CLOSURE_KEPT, &empties),
            None
        );
        // the subtree comes over whole, and the search adds its playouts to it
        let mut copy = kept.clone();
        let start = copy
            .take_for(&next, &keeping, &empties)
            .expect("the subtree");
        let mut with_root = old.clone();
        with_root[b].visits = real;
        with_root[b].wins = start[0].wins;
        assert!(same_subtree(&with_root, b, &start, 0));
        assert_eq!(start.len(), {
            let mut count = 0;
            let mut stack = vec![b];
            while let Some(k) = stack.pop() {
                count += 1;
                stack.extend(old[k].children());
            }
            count
        });
        run(&next, &mut kept, &mut rng, 1_000);
        assert_eq!(kept.root_visits(), real + 1_000.0);
        // root moves cut to the candidates
        let two: Vec<u16> = start[start[0].children()]
            .iter()
            .take(2)
            .map(|n| n.cell)
            .collect();
        let mut copy = KeptTree::default();
        copy.keep(&pos, &keeping, old.clone());
        let cut = copy
            .take_for(&next, &keeping, &two)
            .expect("two root moves");
        let cells: Vec<u16> = cut[cut[0].children()].iter().map(|n| n.cell).collect();
        assert_eq!(cells, two);
        // any other position starts afresh: an answer the tree never expanded, or the same
        // position one move on (the other player to move)
        let leaf = old[0]
            .children()
            .find(|&k| old[k].n_children == 0)
            .expect("a root move never expanded");
        let mut other = pos.clone();
        other.place_move(usize::from(old[leaf].cell));
        other.place_move(usize::from(empty_indices(&other)[0]));
        copy.keep(&pos, &keeping, old.clone());
        assert_eq!(
            copy.visits_for(&other, &keeping, &empty_indices(&other)),
            None
        );
        let mut one_on = pos.clone();
        one_on.place_move(usize::from(first.cell));
        assert_eq!(
            copy.visits_for(&one_on, &keeping, &empty_indices(&one_on)),
            None
        );
        // the kept position itself (a move asked again) goes on from the whole tree, whose
        // root holds no prior visits to shed
        assert_eq!(
            copy.visits_for(&pos, &keeping, &empty_indices(&pos)),
            Some(old[0].visits)
        );
        // without `keep_tree` a search neither reads nor writes the kept tree
        let mut untouched = KeptTree::default();
        let limits = Limits {
            max_playouts: 500,
            stop: &mut |_| false,
        };
        search(
            &pos,
            &mut rng,
            limits,
            &Tuning::HOUSE,
            &empty_indices(&pos),
            Some(&mut untouched),
        )
        .expect("a move");
        assert_eq!(untouched.nodes(), 0);
    }

    /// The search's behaviour pinned (issue 23, fifth piece): for fixed positions, tunings,
    /// seeds and playout counts, the tree (its size and fingerprint), the move, its line and
    /// the most visited root children's visits equal what the search gave before the
    /// selection was made faster. Any change of a single choice of the selection changes them.
    #[test]
    fn the_search_makes_exactly_the_choices_it_made_before_selection_was_sped_up() {
        let knowing = with_knowledge(50.0);
        let roomy = Tuning {
            max_nodes: 6_000,
            ..Tuning::HOUSE
        };
        let (threat, _) = position(&THREAT);
        let cases: [(&str, Position, &Tuning, u32, u64); 4] = [
            (
                "house 11x11",
                random_position(11, 6, 1),
                &Tuning::HOUSE,
                3_000,
                21,
            ),
            (
                "plain 9x9",
                random_position(9, 3, 2),
                &Tuning::PLAIN,
                2_000,
                22,
            ),
            ("knowledge 7x7", threat, &knowing, 1_500, 23),
            (
                "near the cap 9x9",
                random_position(9, 4, 3),
                &roomy,
                3_000,
                24,
            ),
        ];
        let mut got = Vec::new();
        for (name, pos, tuning, playouts, seed) in &cases {
            let (nodes, ran) = grown(pos, tuning, *playouts, *seed);
            let r = searched(pos, tuning, *playouts, *seed);
            let mut root: Vec<u32> = nodes[nodes[0].children()]
                .iter()
                .map(|n| n.visits as u32)
                .collect();
            root.sort_unstable_by(|a, b| b.cmp(a));
            root.truncate(5);
            got.push(format!(
                "{name}: {ran} playouts, {} nodes, {:#018x}, move {}, line {:?}, top {:?}",
                nodes.len(),
                fingerprint(&nodes),
                r.cell,
                r.pv,
                root
            ));
        }
        let want = PINNED;
        assert_eq!(got, want, "{got:#?}");
    }

    #[test]
    fn knowledge_marks_proofs_and_cuts_children_in_place() {
        // a win for the mover: the node is lost for its own player, the winning child won
        let mut nodes = hand_tree();
        assert!(apply_knowledge(&mut nodes, 1, NodeKnowledge::Wins(21)));
        assert_eq!(nodes[1].proven_winner(), Some(2));
        assert_eq!(nodes[4].proven_winner(), Some(2));
        assert_eq!(nodes[3].proven_winner(), None);
        // a lost mover: the node is won for its player
        let mut nodes = hand_tree();
        assert!(apply_knowledge(&mut nodes, 1, NodeKnowledge::Lost));
        assert_eq!(nodes[1].proven_winner(), Some(1));
        // open with a mustplay: the kept child moves to the front with its statistics
        let mut nodes = hand_tree();
        nodes[4].visits = 7.0;
        assert!(!apply_knowledge(
            &mut nodes,
            1,
            NodeKnowledge::Open(Some(CellSet::of(&[21, 99])))
        ));
        assert_eq!(nodes[1].n_children, 1);
        assert_eq!((nodes[3].cell, nodes[3].visits), (21, 7.0));
        // a mustplay that meets no child leaves the children alone
        let mut nodes = hand_tree();
        assert!(!apply_knowledge(
            &mut nodes,
            1,
            NodeKnowledge::Open(Some(CellSet::of(&[99])))
        ));
        assert_eq!(nodes[1].n_children, 2);
    }
}
