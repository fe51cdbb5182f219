//! Virtual connections (issue 23): two nodes (a group of a player's stones, an empty cell or
//! one of the player's edges) are *fully* connected with carrier `C` when the player connects
//! them against any play of the opponent using only the empty cells of `C`, moving second; a
//! *semi* connection needs the player to move first (at its key cell).
//!
//! - [`bridges`]: two stones with two common empty neighbours.
//! - [`edge_templates`]: a stone on the 2nd row with its two edge cells (template II) and on the
//!   3rd row with the ziggurat (template IIIa), both mirror images, on all four sides.
//! - [`h_search`]: Anshelevich's H-search over groups, empty cells and edges, seeded with the
//!   templates. AND: `x`-`z` and `z`-`y` full with disjoint carriers give `x`-`y` full when `z`
//!   is a group, semi (key `z`) when `z` is empty. OR: semis between the same nodes whose
//!   carriers have no common cell give a full with their union. Bounded by [`VcLimits`].
//!
//! The 4th-row template IVa is left to H-search (it finds it from the ziggurat and bridges:
//! see the tests) rather than listed as a carrier of its own.
//!
//! With [`VcLimits::closure`], [`h_search`] runs instead to closure (`closure.rs`, issue 23's
//! tenth piece): unbounded lists pruned by what shrinks a pair's intersection, and a greedy
//! OR rule of any depth, which finds the long threats the bounded rules miss.

use std::hash::{BuildHasherDefault, Hasher};

/// A map with a fixed, fast hash of the node ids: unlike the standard library's randomly
/// seeded one, its iteration order (which decides what the bounded rules keep) is the same on
/// every run, so the analysis, and a search that uses it, is deterministic.
type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// A multiplicative hash over the small integers of node ids.
#[derive(Default, Clone, Copy)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u16(&mut self, n: u16) {
        self.write_u64(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

use hex::EMPTY;

mod closure;

use crate::board::{Board, CellSet, PADDED, Side};

/// A node of the connection graph: a group (by its smallest stone index), an empty cell (its
/// padded index) or an edge ([`Vcs::edge_node`]).
pub type NodeId = u16;

/// Node id of the player's first edge (top or left).
const EDGE_A: NodeId = PADDED as NodeId;
/// Node id of the player's second edge (bottom or right).
const EDGE_B: NodeId = PADDED as NodeId + 1;

/// Bounds of [`h_search`] (carriers kept per pair, carrier size, passes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VcLimits {
    /// Full connections kept per pair of nodes.
    pub fulls_per_pair: usize,
    /// Semi connections kept per pair of nodes.
    pub semis_per_pair: usize,
    /// Largest carrier kept, in cells.
    pub max_carrier: usize,
    /// Most semis the OR rule combines at once (2 or 3).
    pub or_depth: usize,
    /// Passes of the AND and OR rules.
    pub passes: usize,
    /// Whether the listed bridges and edge templates seed the search (else H-search derives
    /// what it can from adjacency alone).
    pub templates: bool,
    /// Largest carrier kept between two empty cells, in cells (2: bridges only).
    pub cell_carrier: usize,
    /// Run H-search to closure (`vc/closure.rs`) instead of in bounded passes: the bounds per
    /// pair, the OR depth and the cells' carrier are then unused, `max_carrier` still holds
    /// and `passes` bounds the work (4,000 work-list items each).
    pub closure: bool,
}

impl VcLimits {
    /// The bounds the house bot uses at the root: about a millisecond an H-search on 11x11 in a
    /// release build.
    pub const ROOT: VcLimits = VcLimits {
        fulls_per_pair: 4,
        semis_per_pair: 8,
        max_carrier: 24,
        or_depth: 3,
        passes: 6,
        templates: true,
        cell_carrier: 2,
        closure: false,
    };

    /// H-search to closure ([`VcLimits::closure`], issue 23, tenth piece): no bound on the
    /// connections kept or the carriers' size, up to 200,000 work-list items (an analysis of
    /// two H-searches or more took a median of 9 ms on the 11x11 positions of games against
    /// MoHex 2.0, 20 to 190 ms on random 19x19 positions; a release build, a busy machine).
    pub const CLOSURE: VcLimits = VcLimits {
        fulls_per_pair: 0,
        semis_per_pair: 0,
        max_carrier: usize::MAX,
        or_depth: 0,
        passes: 50,
        templates: true,
        cell_carrier: 0,
        closure: true,
    };

    /// Tighter bounds for the analyses inside the tree (`Tuning::knowledge_at`), which run
    /// many times a move: half the connections kept per pair, the OR rule over two semis,
    /// four passes; the carriers as large as the root's (an edge-to-edge connection on 11x11
    /// needs them). About 40% of the root's cost before H-search was made cheaper (issue 23,
    /// eighth piece), 60% to 85% since; most of its proofs late in a game
    /// (`examples/knowledge_cost.rs`).
    pub const TREE: VcLimits = VcLimits {
        fulls_per_pair: 2,
        semis_per_pair: 4,
        max_carrier: 24,
        or_depth: 2,
        passes: 4,
        templates: true,
        cell_carrier: 2,
        closure: false,
    };
}

/// A semi connection: its carrier (key included) and its key, the cell the player plays to
/// make it full.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Semi {
    /// The empty cells it uses, the key among them.
    pub carrier: CellSet,
    /// Padded index of the key cell.
    pub key: usize,
}

/// The virtual connections of one player found by [`h_search`].
#[derive(Clone)]
pub struct Vcs {
    player: u8,
    /// Node of every padded index: group root, the cell itself, an edge; `None` otherwise.
    node: Vec<Option<NodeId>>,
    /// The connections, kept in bitsets as wide as the board needs ([`Store`]).
    store: Box<dyn Connections>,
}

impl std::fmt::Debug for Vcs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vcs")
            .field("player", &self.player)
            .field("pairs", &self.store.pairs())
            .finish_non_exhaustive()
    }
}

fn key(a: NodeId, b: NodeId) -> (NodeId, NodeId) {
    (a.min(b), a.max(b))
}

impl Vcs {
    /// The player (1 or 2) these connections are for.
    pub fn player(&self) -> u8 {
        self.player
    }

    /// The node of padded index `i`: its group for the player's stone, itself for an empty
    /// cell, the edge for padding beside one of the player's edges; `None` for the
    /// opponent's stones and edges.
    pub fn node_of(&self, i: usize) -> Option<NodeId> {
        self.node.get(i).copied().flatten()
    }

    /// The node of the player's first (`0`: top or left) or second (`1`) edge.
    pub fn edge_node(&self, which: usize) -> NodeId {
        if which == 0 { EDGE_A } else { EDGE_B }
    }

    /// The full connections' carriers between two nodes (none when there is none known), in
    /// the order H-search kept them.
    pub fn fulls(&self, a: NodeId, b: NodeId) -> Vec<CellSet> {
        self.store.fulls(key(a, b))
    }

    /// The semi connections between two nodes, in the order H-search kept them.
    pub fn semis(&self, a: NodeId, b: NodeId) -> Vec<Semi> {
        self.store.semis(key(a, b))
    }

    /// A full connection between the player's two edges: the player has won whoever moves.
    pub fn edge_to_edge_full(&self) -> Option<CellSet> {
        self.fulls(EDGE_A, EDGE_B).first().copied()
    }

    /// The semi connections between the player's two edges: on move, the player wins at any
    /// of their keys.
    pub fn edge_to_edge_semis(&self) -> Vec<Semi> {
        self.semis(EDGE_A, EDGE_B)
    }

    /// Every pair's full connections, in no particular order of pairs (tests).
    #[cfg(test)]
    fn full_lists(&self) -> Vec<((NodeId, NodeId), Vec<CellSet>)> {
        self.store.full_lists()
    }

    /// Every pair's semi connections, in no particular order of pairs (tests).
    #[cfg(test)]
    fn semi_lists(&self) -> Vec<((NodeId, NodeId), Vec<Semi>)> {
        self.store.semi_lists()
    }
}

/// What [`Vcs`] asks of the connections H-search found, whatever the width of their bitsets.
trait Connections: Send + Sync {
    fn fulls(&self, k: (NodeId, NodeId)) -> Vec<CellSet>;
    fn semis(&self, k: (NodeId, NodeId)) -> Vec<Semi>;
    fn pairs(&self) -> usize;
    fn clone_box(&self) -> Box<dyn Connections>;
    #[cfg(test)]
    fn full_lists(&self) -> Vec<((NodeId, NodeId), Vec<CellSet>)>;
    #[cfg(test)]
    fn semi_lists(&self) -> Vec<((NodeId, NodeId), Vec<Semi>)>;
}

impl Clone for Box<dyn Connections> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// A set of cells in `W` words: padded indices below `64 * W` (a board of up to
/// `sqrt(64 * W) - 2` cells a side), so that 11x11 needs 3 words where [`CellSet`] has 13;
/// the closure search numbers cells its own way (`closure::Compact`: 2 words on 11x11).
/// Indices past the words are ignored, as [`CellSet`] ignores those past [`PADDED`].
#[derive(Clone, Copy, PartialEq, Eq)]
struct Bits<const W: usize>([u64; W]);

impl<const W: usize> Bits<W> {
    const EMPTY: Self = Bits([0; W]);

    fn of(set: &CellSet) -> Self {
        let mut b = Self::EMPTY;
        for (k, w) in b.0.iter_mut().enumerate() {
            *w = set.word(k);
        }
        b
    }

    fn to_cell_set(self) -> CellSet {
        CellSet::from_words(&self.0)
    }

    fn insert(&mut self, i: usize) {
        if let Some(w) = self.0.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }

    fn contains(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    fn union(&self, o: &Self) -> Self {
        let mut s = *self;
        for (a, b) in s.0.iter_mut().zip(o.0) {
            *a |= b;
        }
        s
    }

    fn intersection(&self, o: &Self) -> Self {
        let mut s = *self;
        for (a, b) in s.0.iter_mut().zip(o.0) {
            *a &= b;
        }
        s
    }

    fn meets(&self, o: &Self) -> bool {
        self.0.iter().zip(o.0).fold(0, |acc, (a, b)| acc | (a & b)) != 0
    }

    fn is_subset(&self, o: &Self) -> bool {
        self.0.iter().zip(o.0).fold(0, |acc, (a, b)| acc | (a & !b)) == 0
    }

    fn is_empty(&self) -> bool {
        self.0.iter().fold(0, |acc, &a| acc | a) == 0
    }

    fn len(&self) -> usize {
        self.0.iter().map(|a| a.count_ones() as usize).sum()
    }

    fn difference(&self, o: &Self) -> Self {
        let mut s = *self;
        for (a, b) in s.0.iter_mut().zip(o.0) {
            *a &= !b;
        }
        s
    }

    /// The smallest index in the set.
    fn first(&self) -> Option<usize> {
        self.0
            .iter()
            .enumerate()
            .find(|(_, w)| **w != 0)
            .map(|(k, w)| 64 * k + w.trailing_zeros() as usize)
    }
}

/// A full connection's carrier with its size and the pass that found it (0: before the
/// first pass).
#[derive(Clone, Copy)]
struct Full<const W: usize> {
    bits: Bits<W>,
    len: u16,
    stage: u32,
}

/// A semi connection's carrier (key included) with its size, key and the pass that found it.
#[derive(Clone, Copy)]
struct SemiBits<const W: usize> {
    bits: Bits<W>,
    len: u16,
    key: u16,
    stage: u32,
}

/// One kind of connection (full or semi) of every pair of nodes: the lists, a map from the
/// pair to its list in the fixed hash's order (the rules follow its order, which decides what
/// the bounded lists keep), and a table by the two nodes' numbers for the rules' look-ups.
/// The lists lie in one vector, each in a span with room to grow; a full span moves to the
/// end with twice the room.
#[derive(Clone)]
struct Lists<T> {
    order: HashMap<(NodeId, NodeId), usize>,
    /// Each list's start, length and room in `data`.
    spans: Vec<(usize, usize, usize)>,
    data: Vec<T>,
    /// The last pass that added to each list (0: before the first pass).
    last: Vec<u32>,
    /// The list of the pair at [`Numbers::slot`]; `u32::MAX` for none. Emptied after the
    /// search.
    at: Vec<u32>,
}

impl<T: Copy> Lists<T> {
    fn new(slots: usize) -> Self {
        Lists {
            order: HashMap::default(),
            spans: Vec::new(),
            data: Vec::new(),
            last: Vec::new(),
            at: vec![u32::MAX; slots],
        }
    }

    /// List `i`.
    fn list(&self, i: usize) -> &[T] {
        let (start, len, _) = self.spans[i];
        &self.data[start..start + len]
    }

    /// The list of the pair at `slot` (empty when there is none).
    fn get(&self, slot: usize) -> &[T] {
        match self.at.get(slot) {
            Some(&i) if i != u32::MAX => self.list(i as usize),
            _ => &[],
        }
    }

    /// The list of pair `k` (empty when there is none).
    fn of(&self, k: (NodeId, NodeId)) -> &[T] {
        self.order.get(&k).map_or(&[], |&i| self.list(i))
    }

    /// Adds `item` to the list of pair `k` at `slot` (made, and entered in the map, when it is
    /// new) unless one of the list's is `refused_by` it or the list holds `limit` already;
    /// first drops those it `covers`. Records `stage` as the list's last pass.
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        k: (NodeId, NodeId),
        slot: usize,
        limit: usize,
        stage: u32,
        item: T,
        refused_by: impl Fn(&T) -> bool,
        covers: impl Fn(&T) -> bool,
    ) -> bool {
        let i = match self.at[slot] {
            u32::MAX => {
                let i = self.spans.len();
                self.order.insert(k, i);
                self.spans.push((self.data.len(), 0, 0));
                self.last.push(0);
                self.at[slot] = i as u32;
                i
            }
            i => i as usize,
        };
        let (start, len, room) = self.spans[i];
        let list = &mut self.data[start..start + len];
        if list.iter().any(&refused_by) || len >= limit {
            return false;
        }
        // keep the ones it does not cover, in order
        let mut kept = 0;
        for r in 0..len {
            if !covers(&list[r]) {
                list[kept] = list[r];
                kept += 1;
            }
        }
        let (start, room) = if kept < room {
            (start, room)
        } else {
            // (kept < limit here, so the new room holds one more)
            let to = self.data.len();
            let room = (2 * room).max(4).min(limit);
            self.data.extend_from_within(start..start + kept);
            self.data.resize(to + room, item);
            (to, room)
        };
        self.data[start + kept] = item;
        self.spans[i] = (start, kept + 1, room);
        self.last[i] = stage;
        true
    }
}

/// The nodes' numbers from 0 (in the order of their ids), for the tables of [`Lists`].
#[derive(Clone)]
struct Numbers {
    of: Vec<usize>,
    count: usize,
}

impl Numbers {
    /// The table slot of pair `k` (as made by [`key`]).
    fn slot(&self, (a, b): (NodeId, NodeId)) -> usize {
        self.of[usize::from(a)] * self.count + self.of[usize::from(b)]
    }
}

/// The connections of one H-search in bitsets of `W` words.
#[derive(Clone)]
struct Store<const W: usize> {
    full: Lists<Full<W>>,
    semi: Lists<SemiBits<W>>,
}

impl<const W: usize> Connections for Store<W> {
    fn fulls(&self, k: (NodeId, NodeId)) -> Vec<CellSet> {
        self.full
            .of(k)
            .iter()
            .map(|f| f.bits.to_cell_set())
            .collect()
    }

    fn semis(&self, k: (NodeId, NodeId)) -> Vec<Semi> {
        self.semi
            .of(k)
            .iter()
            .map(|s| Semi {
                carrier: s.bits.to_cell_set(),
                key: usize::from(s.key),
            })
            .collect()
    }

    fn pairs(&self) -> usize {
        self.full.order.len() + self.semi.order.len()
    }

    fn clone_box(&self) -> Box<dyn Connections> {
        Box::new(self.clone())
    }

    #[cfg(test)]
    fn full_lists(&self) -> Vec<((NodeId, NodeId), Vec<CellSet>)> {
        self.full
            .order
            .keys()
            .map(|&k| (k, self.fulls(k)))
            .collect()
    }

    #[cfg(test)]
    fn semi_lists(&self) -> Vec<((NodeId, NodeId), Vec<Semi>)> {
        self.semi
            .order
            .keys()
            .map(|&k| (k, self.semis(k)))
            .collect()
    }
}

/// Keeps carrier `bits` (of `len` cells) between `a` and `b` in `full` unless a kept one is a
/// subset of it or the pair's list is full; drops the kept ones it is a subset of.
fn add_full<const W: usize>(
    full: &mut Lists<Full<W>>,
    numbers: &Numbers,
    (a, b): (NodeId, NodeId),
    bits: Bits<W>,
    len: u16,
    stage: u32,
    limits: &VcLimits,
) -> bool {
    if a == b || usize::from(len) > limits.max_carrier {
        return false;
    }
    let k = key(a, b);
    full.add(
        k,
        numbers.slot(k),
        limits.fulls_per_pair,
        stage,
        Full { bits, len, stage },
        |old| old.len <= len && old.bits.is_subset(&bits),
        |old| len <= old.len && bits.is_subset(&old.bits),
    )
}

/// Keeps a semi connection between `a` and `b` in `semi` unless a full one's carrier or a kept
/// semi's is a subset of its carrier, or the pair's list is full; drops the kept semis whose
/// carriers contain its own.
fn add_semi<const W: usize>(
    full: &Lists<Full<W>>,
    semi: &mut Lists<SemiBits<W>>,
    numbers: &Numbers,
    (a, b): (NodeId, NodeId),
    s: SemiBits<W>,
    limits: &VcLimits,
) -> bool {
    if a == b || usize::from(s.len) > limits.max_carrier {
        return false;
    }
    let k = key(a, b);
    let slot = numbers.slot(k);
    if full
        .get(slot)
        .iter()
        .any(|f| f.len <= s.len && f.bits.is_subset(&s.bits))
    {
        return false;
    }
    semi.add(
        k,
        slot,
        limits.semis_per_pair,
        s.stage,
        s,
        |old| old.len <= s.len && old.bits.is_subset(&s.bits),
        |old| s.len <= old.len && s.bits.is_subset(&old.bits),
    )
}

/// Every bridge of `player`'s: pairs of its stones `(a, b)` (padded indices, `a < b`) that are
/// not adjacent and share two empty neighbours, with those two cells as carrier.
pub fn bridges(board: &Board, player: u8) -> Vec<(usize, usize, CellSet)> {
    let mut out = Vec::new();
    for a in 0..board.cells.len() {
        if board.cells[a] != player {
            continue;
        }
        let ring = board.ring(a);
        for t in 0..6 {
            let (x, y) = (ring[t], ring[(t + 1) % 6]);
            // the far cell across the edge x-y: the common neighbour of x and y besides a
            let Some(b) = (x + y).checked_sub(a) else {
                continue;
            };
            if b > a
                && board.cells.get(b) == Some(&player)
                && board.cells[x] == EMPTY
                && board.cells[y] == EMPTY
            {
                out.push((a, b, CellSet::of(&[x, y])));
            }
        }
    }
    out
}

/// Template shapes for the top edge as `(row, col)` offsets from the stone: the stone's row
/// (0-based distance from the edge) and the carrier.
const TEMPLATES: [(isize, &[(isize, isize)]); 3] = [
    // II: a bridge to the edge
    (1, &[(-1, 0), (-1, 1)]),
    // IIIa, the ziggurat, and its mirror image ((dr, dc) -> (dr, -dc - dr))
    (
        2,
        &[
            (0, 1),
            (-1, 0),
            (-1, 1),
            (-1, 2),
            (-2, 0),
            (-2, 1),
            (-2, 2),
            (-2, 3),
        ],
    ),
    (
        2,
        &[
            (0, -1),
            (-1, 1),
            (-1, 0),
            (-1, -1),
            (-2, 2),
            (-2, 1),
            (-2, 0),
            (-2, -1),
        ],
    ),
];

/// Maps a top-edge offset to `side` (the board's symmetries: a half turn for the bottom, the
/// transposition `(r, c) -> (c, r)` for the left, both for the right).
fn orient(side: Side, (dr, dc): (isize, isize)) -> (isize, isize) {
    match side {
        Side::Top => (dr, dc),
        Side::Bottom => (-dr, -dc),
        Side::Left => (dc, dr),
        Side::Right => (-dc, -dr),
    }
}

/// Every edge template of `player`'s stones: `(stone, side, carrier)` for a stone on the 2nd
/// row from one of its edges with both edge cells empty (II), or on the 3rd row with a whole
/// empty ziggurat (IIIa, either mirror image).
pub fn edge_templates(board: &Board, player: u8) -> Vec<(usize, Side, CellSet)> {
    let mut out = Vec::new();
    let n = board.size as isize;
    for side in board.sides_of(player) {
        for s in 0..board.cells.len() {
            if board.cells[s] != player {
                continue;
            }
            let (r, c) = board.row_col(s);
            let dist = match side {
                Side::Top => r,
                Side::Bottom => n - 1 - r,
                Side::Left => c,
                Side::Right => n - 1 - c,
            };
            for (row, shape) in TEMPLATES {
                if dist != row {
                    continue;
                }
                let cells: Option<Vec<usize>> = shape
                    .iter()
                    .map(|&off| {
                        let (dr, dc) = orient(side, off);
                        board
                            .at(r + dr, c + dc)
                            .filter(|&i| board.cells[i] == EMPTY)
                    })
                    .collect();
                if let Some(cells) = cells {
                    out.push((s, side, CellSet::of(&cells)));
                }
            }
        }
    }
    out
}

/// The virtual connections of `player` (1 or 2) on `board` by H-search (see the module doc),
/// within `limits`. Pure; about a millisecond on 11x11 with [`VcLimits::ROOT`].
///
/// Two things keep it cheap without changing what it finds: its carriers are bitsets as wide
/// as the board needs (3 words on 11x11), and each pass applies the rules only to the
/// combinations with a connection found in the pass before. A combination of older ones was
/// tried in an earlier pass, and trying it again changes nothing: a list only rejects a
/// connection because a kept one is a subset of it (kept ones are only ever replaced by their
/// own subsets) or because it is full (a full list stays full), or for its size. The maps'
/// fixed hash and the order of the rules are as before, so the bounded lists keep the same
/// connections in the same order.
pub fn h_search(board: &Board, player: u8, limits: &VcLimits) -> Vcs {
    h_search_until(board, player, limits, &mut || false)
}

/// [`h_search`] that a caller with a clock can end early: with [`VcLimits::closure`], `stop()`
/// is asked every few dozen work-list items (at most a few ms apart), and `true` ends the
/// search with the connections found so far, each of which holds (the bounded search, about
/// a millisecond, never asks). Deterministic for a given sequence of `stop` answers.
pub fn h_search_until(
    board: &Board,
    player: u8,
    limits: &VcLimits,
    stop: &mut dyn FnMut() -> bool,
) -> Vcs {
    let [side_a, _] = board.sides_of(player);
    let mut node = vec![None; board.cells.len()];
    // groups by flood fill; a group is named by its smallest index (the first one met)
    for i in 0..board.cells.len() {
        if board.cells[i] == EMPTY {
            node[i] = Some(i as NodeId);
        } else if board.cells[i] == player && node[i].is_none() {
            let mut stack = vec![i];
            node[i] = Some(i as NodeId);
            while let Some(x) = stack.pop() {
                for y in board.ring(x) {
                    if board.cells[y] == player && node[y].is_none() {
                        node[y] = Some(i as NodeId);
                        stack.push(y);
                    }
                }
            }
        } else if let Some(side) = board.side_of(i)
            && board.side_owner(side) == player
        {
            node[i] = Some(if side == side_a { EDGE_A } else { EDGE_B });
        }
    }
    let store: Box<dyn Connections> = if limits.closure {
        match closure::words(board) {
            0 | 1 => Box::new(closure::search::<1>(board, player, &node, limits, stop)),
            2 => Box::new(closure::search::<2>(board, player, &node, limits, stop)),
            3 => Box::new(closure::search::<3>(board, player, &node, limits, stop)),
            4 => Box::new(closure::search::<4>(board, player, &node, limits, stop)),
            5..=7 => Box::new(closure::search::<7>(board, player, &node, limits, stop)),
            _ => Box::new(closure::search::<13>(board, player, &node, limits, stop)),
        }
    } else {
        match board.cells.len().div_ceil(64) {
            0 | 1 => Box::new(search::<1>(board, player, &node, limits)),
            2 => Box::new(search::<2>(board, player, &node, limits)),
            3 => Box::new(search::<3>(board, player, &node, limits)),
            4 => Box::new(search::<4>(board, player, &node, limits)),
            5..=7 => Box::new(search::<7>(board, player, &node, limits)),
            _ => Box::new(search::<13>(board, player, &node, limits)),
        }
    };
    Vcs {
        player,
        node,
        store,
    }
}

/// One end of a full connection around a middle node, as the AND rule reads it.
#[derive(Clone, Copy)]
struct End<const W: usize> {
    /// The node at the other end.
    other: NodeId,
    /// Whether that node is an empty cell.
    other_cell: bool,
    /// Whether the carrier is new (found in the pass before).
    new: bool,
    len: u16,
    bits: Bits<W>,
}

/// H-search proper (see [`h_search`]) with carriers of `W` words.
fn search<const W: usize>(
    board: &Board,
    player: u8,
    node: &[Option<NodeId>],
    limits: &VcLimits,
) -> Store<W> {
    let [side_a, _] = board.sides_of(player);
    let node_of = |i: usize| node.get(i).copied().flatten();
    // the nodes numbered in the order of their ids: cells and groups, then the two edges
    let mut of = vec![0; board.cells.len().max(PADDED) + 2];
    let mut count = 0;
    for (i, &n) in node.iter().enumerate() {
        if n == Some(i as NodeId) {
            of[i] = count;
            count += 1;
        }
    }
    for edge in [EDGE_A, EDGE_B] {
        of[usize::from(edge)] = count;
        count += 1;
    }
    let numbers = Numbers { of, count };
    let mut full = Lists::new(count * count);
    let mut semi = Lists::new(count * count);
    // adjacency: full connections with empty carriers
    for i in 0..board.cells.len() {
        if !board.on_board(i) {
            continue;
        }
        let Some(a) = node_of(i) else { continue };
        for j in board.ring(i) {
            if let Some(b) = node_of(j) {
                add_full(&mut full, &numbers, (a, b), Bits::EMPTY, 0, 0, limits);
            }
        }
    }
    if limits.templates {
        for (a, b, c) in bridges(board, player) {
            if let (Some(x), Some(y)) = (node_of(a), node_of(b)) {
                add_full(
                    &mut full,
                    &numbers,
                    (x, y),
                    Bits::of(&c),
                    c.len() as u16,
                    0,
                    limits,
                );
            }
        }
        for (s, side, c) in edge_templates(board, player) {
            if let Some(x) = node_of(s) {
                let e = if side == side_a { EDGE_A } else { EDGE_B };
                add_full(
                    &mut full,
                    &numbers,
                    (x, e),
                    Bits::of(&c),
                    c.len() as u16,
                    0,
                    limits,
                );
            }
        }
    }
    let is_cell = |x: NodeId| usize::from(x) < PADDED && board.cells[usize::from(x)] == EMPTY;
    // buffers kept from pass to pass: the ends around each middle node with a new one, the
    // new ends' places, the rules' findings
    let mut marked = vec![false; numbers.count];
    let mut ends: Vec<Vec<End<W>>> = Vec::new();
    let mut news: Vec<usize> = Vec::new();
    let mut new_full: Vec<(NodeId, NodeId, Bits<W>, u16)> = Vec::new();
    let mut new_semi: Vec<(NodeId, NodeId, SemiBits<W>)> = Vec::new();
    let mut found: Vec<(Bits<W>, u16)> = Vec::new();
    for pass in 1..=limits.passes {
        // (a pass past u32::MAX would not tell new carriers from old; none runs that long)
        let pass = u32::try_from(pass).unwrap_or(u32::MAX);
        let mut changed = false;
        // the AND rule around every middle node z that is an empty cell or a group (never
        // an edge: two cells touching an edge are not joined by it), in the order of a map of
        // the middle nodes built afresh as ever; only the nodes with a carrier from the pass
        // before get their ends listed
        marked.fill(false);
        for (&(a, b), &i) in &full.order {
            if full.last[i] + 1 == pass {
                marked[numbers.of[usize::from(a)]] = true;
                marked[numbers.of[usize::from(b)]] = true;
            }
        }
        let mut by_node: HashMap<NodeId, usize> = HashMap::default();
        let mut used = 0;
        let mut slot_of = |z: NodeId, by_node: &mut HashMap<NodeId, usize>| {
            *by_node.entry(z).or_insert_with(|| {
                if usize::from(z) >= PADDED || !marked[numbers.of[usize::from(z)]] {
                    return usize::MAX;
                }
                if ends.len() == used {
                    ends.push(Vec::new());
                }
                ends[used].clear();
                used += 1;
                used - 1
            })
        };
        let mut places: Vec<(usize, usize)> = Vec::with_capacity(full.order.len());
        for &(a, b) in full.order.keys() {
            places.push((slot_of(a, &mut by_node), slot_of(b, &mut by_node)));
        }
        for ((&(a, b), &i), &(sa, sb)) in full.order.iter().zip(&places) {
            if sa == usize::MAX && sb == usize::MAX {
                continue;
            }
            for f in full.list(i) {
                let new = f.stage + 1 == pass;
                let end = |other: NodeId| End {
                    other,
                    other_cell: is_cell(other),
                    new,
                    len: f.len,
                    bits: f.bits,
                };
                if sa != usize::MAX {
                    ends[sa].push(end(b));
                }
                if sb != usize::MAX {
                    ends[sb].push(end(a));
                }
            }
        }
        new_full.clear();
        new_semi.clear();
        for (&z, &slot) in &by_node {
            if slot == usize::MAX {
                continue;
            }
            let list = &ends[slot];
            news.clear();
            news.extend((0..list.len()).filter(|&i| list[i].new));
            let Some(&last_new) = news.last() else {
                continue;
            };
            let z_cell = is_cell(z);
            let zi = usize::from(z);
            let mut q = 0;
            // the pairs (p, r), p < r, with at least one new end, in the order of all pairs
            for (p, ex) in list.iter().enumerate().take(last_new + 1) {
                while q < news.len() && news[q] <= p {
                    q += 1;
                }
                let mut try_pair = |ey: &End<W>| {
                    let (x, y) = (ex.other, ey.other);
                    // between two empty cells only bridges (carriers of 2 cells at most) are
                    // kept: enough for templates from empty cells, and few
                    let len = ex.len + ey.len + u16::from(z_cell);
                    if x == y
                        || (ex.other_cell
                            && ey.other_cell
                            && usize::from(len) > limits.cell_carrier)
                    {
                        return;
                    }
                    // a carrier too large would be refused before its pair is looked up
                    if usize::from(len) > limits.max_carrier {
                        return;
                    }
                    if ex.bits.meets(&ey.bits) {
                        return;
                    }
                    if (ex.other_cell && ey.bits.contains(usize::from(x)))
                        || (ey.other_cell && ex.bits.contains(usize::from(y)))
                    {
                        return;
                    }
                    if z_cell && (ex.bits.contains(zi) || ey.bits.contains(zi)) {
                        return;
                    }
                    let mut c = ex.bits.union(&ey.bits);
                    if z_cell {
                        c.insert(zi);
                        new_semi.push((
                            x,
                            y,
                            SemiBits {
                                bits: c,
                                len,
                                key: z,
                                stage: pass,
                            },
                        ));
                    } else {
                        new_full.push((x, y, c, len));
                    }
                };
                if ex.new {
                    list[p + 1..].iter().for_each(&mut try_pair);
                } else {
                    news[q..].iter().for_each(|&r| try_pair(&list[r]));
                }
            }
        }
        for &(x, y, c, len) in &new_full {
            changed |= add_full(&mut full, &numbers, (x, y), c, len, pass, limits);
        }
        for &(x, y, s) in &new_semi {
            changed |= add_semi(&full, &mut semi, &numbers, (x, y), s, limits);
        }
        // the OR rule: semis of a pair with no common cell (the combinations with a semi
        // found in this pass)
        for (&(a, b), &at) in &semi.order {
            if semi.last[at] != pass {
                continue;
            }
            let semis = semi.list(at);
            found.clear();
            for i in 0..semis.len() {
                for j in i + 1..semis.len() {
                    let (si, sj) = (&semis[i], &semis[j]);
                    let common = si.bits.intersection(&sj.bits);
                    let new_ij = si.stage == pass || sj.stage == pass;
                    if common.is_empty() {
                        if new_ij {
                            found.push((si.bits.union(&sj.bits), si.len + sj.len));
                        }
                    } else if limits.or_depth >= 3 {
                        for sk in &semis[j + 1..] {
                            if (new_ij || sk.stage == pass) && !common.meets(&sk.bits) {
                                let c = si.bits.union(&sj.bits).union(&sk.bits);
                                found.push((c, c.len() as u16));
                            }
                        }
                    }
                }
            }
            for &(c, len) in &found {
                changed |= add_full(&mut full, &numbers, (a, b), c, len, pass, limits);
            }
        }
        if !changed {
            break;
        }
    }
    // the tables served the look-ups; the answers go through the maps
    full.at = Vec::new();
    semi.at = Vec::new();
    Store { full, semi }
}

#[cfg(test)]
mod tests {
    // tests may unwrap (house rules): the cells they name are on their boards
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn b(rows: &[&str]) -> Board {
        Board::parse(rows).expect("a square board")
    }

    #[test]
    fn two_stones_with_two_common_empty_neighbours_form_a_bridge() {
        let board = b(&[".....", ".1...", ".....", "1....", "....."]);
        let (one, other) = (board.at(1, 1).unwrap(), board.at(3, 0).unwrap());
        let found = bridges(&board, 1);
        let carrier = CellSet::of(&[board.at(2, 0).unwrap(), board.at(2, 1).unwrap()]);
        assert_eq!(found, vec![(one, other, carrier)]);
        let vcs = h_search(&board, 1, &VcLimits::ROOT);
        assert!(vcs.fulls(one as NodeId, other as NodeId).contains(&carrier));
        // an opponent stone in the bridge leaves a semi connection only
        let mut cut = board.clone();
        cut.cells[board.at(2, 0).unwrap()] = 2;
        assert!(bridges(&cut, 1).is_empty());
        let vcs = h_search(&cut, 1, &VcLimits::ROOT);
        assert!(vcs.fulls(one as NodeId, other as NodeId).is_empty());
        let semis = vcs.semis(one as NodeId, other as NodeId);
        assert!(
            semis.iter().any(|s| s.key == board.at(2, 1).unwrap()),
            "{semis:?}"
        );
    }

    #[test]
    fn a_stone_on_the_second_row_is_connected_to_its_edge_by_template_ii() {
        let board = b(&[".....", "..1..", ".....", ".....", "....."]);
        let s = board.at(1, 2).unwrap();
        let t = edge_templates(&board, 1);
        let carrier = CellSet::of(&[board.at(0, 2).unwrap(), board.at(0, 3).unwrap()]);
        assert!(t.contains(&(s, Side::Top, carrier)), "{t:?}");
        // seat 2's side templates: the same stone is no template of seat 2's
        assert!(edge_templates(&board, 2).is_empty());
        let vcs = h_search(&board, 1, &VcLimits::ROOT);
        assert!(vcs.fulls(s as NodeId, vcs.edge_node(0)).contains(&carrier));
    }

    #[test]
    fn a_stone_on_the_third_row_is_connected_by_the_ziggurat_and_h_search_finds_it_too() {
        let board = b(&[
            ".......", ".......", "...1...", ".......", ".......", ".......", ".......",
        ]);
        let s = board.at(2, 3).unwrap();
        let cell = |r, c| board.at(r, c).unwrap();
        let zig = CellSet::of(&[
            cell(2, 4),
            cell(1, 3),
            cell(1, 4),
            cell(1, 5),
            cell(0, 3),
            cell(0, 4),
            cell(0, 5),
            cell(0, 6),
        ]);
        let t = edge_templates(&board, 1);
        assert!(t.contains(&(s, Side::Top, zig)), "{t:?}");
        assert_eq!(
            t.iter().filter(|(_, side, _)| *side == Side::Top).count(),
            2
        );
        // H-search from bridges alone (no template listed) finds a ziggurat as well
        let mut only_hsearch = VcLimits::ROOT;
        only_hsearch.passes = 8;
        only_hsearch.templates = false;
        let vcs = h_search(&board, 1, &only_hsearch);
        let fulls = vcs.fulls(s as NodeId, vcs.edge_node(0));
        assert!(fulls.iter().any(|c| c.len() == 8), "{fulls:?}");
        // an intrusion leaves a semi connection whose key restores the connection
        let mut cut = board.clone();
        cut.cells[cell(0, 4)] = 2;
        let vcs = h_search(&cut, 1, &VcLimits::ROOT);
        assert!(
            vcs.fulls(s as NodeId, vcs.edge_node(0))
                .iter()
                .all(|c| !c.contains(cell(0, 4)))
        );
    }

    #[test]
    fn h_search_finds_the_fourth_row_template_from_a_lone_stone() {
        let rows = vec!["........."; 9];
        let board = b(&rows);
        let s = board.at(3, 4).unwrap();
        let vcs = h_search(&board, 1, &VcLimits::ROOT);
        let fulls = vcs.fulls(s as NodeId, vcs.edge_node(0));
        assert!(!fulls.is_empty(), "no 4th-row connection found");
        // every carrier lies in the rows between the stone and its edge
        for c in fulls {
            assert!(c.iter().all(|i| board.row_col(i).0 <= 3), "{c:?}");
        }
    }

    /// H-search as it was before it was sped up (issue 23, eighth piece), kept verbatim but for
    /// its maps' owner: the reference the guard below compares against. Returns the full and
    /// the semi connections as found, each pair's list in its own order.
    #[allow(clippy::type_complexity)]
    fn reference_h_search(
        board: &Board,
        player: u8,
        limits: &VcLimits,
    ) -> (
        HashMap<(NodeId, NodeId), Vec<CellSet>>,
        HashMap<(NodeId, NodeId), Vec<Semi>>,
    ) {
        type Full = HashMap<(NodeId, NodeId), Vec<CellSet>>;
        type Semis = HashMap<(NodeId, NodeId), Vec<Semi>>;
        fn fulls(full: &Full, a: NodeId, b: NodeId) -> &[CellSet] {
            full.get(&key(a, b)).map_or(&[], Vec::as_slice)
        }
        fn add_full(full: &mut Full, a: NodeId, b: NodeId, c: CellSet, limits: &VcLimits) -> bool {
            if a == b || c.len() > limits.max_carrier {
                return false;
            }
            let list = full.entry(key(a, b)).or_default();
            if list.iter().any(|old| old.is_subset(&c)) || list.len() >= limits.fulls_per_pair {
                return false;
            }
            list.retain(|old| !c.is_subset(old));
            list.push(c);
            true
        }
        fn add_semi(
            full: &Full,
            semi: &mut Semis,
            a: NodeId,
            b: NodeId,
            s: Semi,
            limits: &VcLimits,
        ) -> bool {
            if a == b || s.carrier.len() > limits.max_carrier {
                return false;
            }
            if fulls(full, a, b).iter().any(|f| f.is_subset(&s.carrier)) {
                return false;
            }
            let list = semi.entry(key(a, b)).or_default();
            if list.iter().any(|old| old.carrier.is_subset(&s.carrier))
                || list.len() >= limits.semis_per_pair
            {
                return false;
            }
            list.retain(|old| !s.carrier.is_subset(&old.carrier));
            list.push(s);
            true
        }
        let [side_a, _] = board.sides_of(player);
        let mut node = vec![None; board.cells.len()];
        for i in 0..board.cells.len() {
            if board.cells[i] == EMPTY {
                node[i] = Some(i as NodeId);
            } else if board.cells[i] == player && node[i].is_none() {
                let mut stack = vec![i];
                node[i] = Some(i as NodeId);
                while let Some(x) = stack.pop() {
                    for y in board.ring(x) {
                        if board.cells[y] == player && node[y].is_none() {
                            node[y] = Some(i as NodeId);
                            stack.push(y);
                        }
                    }
                }
            } else if let Some(side) = board.side_of(i)
                && board.side_owner(side) == player
            {
                node[i] = Some(if side == side_a { EDGE_A } else { EDGE_B });
            }
        }
        let node_of = |i: usize| node.get(i).copied().flatten();
        let mut full = Full::default();
        let mut semi = Semis::default();
        for i in 0..board.cells.len() {
            if !board.on_board(i) {
                continue;
            }
            let Some(a) = node_of(i) else { continue };
            for j in board.ring(i) {
                if let Some(b) = node_of(j) {
                    add_full(&mut full, a, b, CellSet::EMPTY, limits);
                }
            }
        }
        if limits.templates {
            for (a, b, c) in bridges(board, player) {
                if let (Some(x), Some(y)) = (node_of(a), node_of(b)) {
                    add_full(&mut full, x, y, c, limits);
                }
            }
            for (s, side, c) in edge_templates(board, player) {
                if let Some(x) = node_of(s) {
                    let e = if side == side_a { EDGE_A } else { EDGE_B };
                    add_full(&mut full, x, e, c, limits);
                }
            }
        }
        let is_cell = |x: NodeId| usize::from(x) < PADDED && board.cells[usize::from(x)] == EMPTY;
        for _ in 0..limits.passes {
            let mut changed = false;
            let mut by_node: HashMap<NodeId, Vec<(NodeId, CellSet)>> = HashMap::default();
            for (&(a, b), list) in &full {
                for &c in list {
                    by_node.entry(a).or_default().push((b, c));
                    by_node.entry(b).or_default().push((a, c));
                }
            }
            let mut new_full = Vec::new();
            let mut new_semi = Vec::new();
            for (&z, list) in &by_node {
                if usize::from(z) >= PADDED {
                    continue;
                }
                let z_cell = is_cell(z);
                for (p, &(x, cx)) in list.iter().enumerate() {
                    for &(y, cy) in &list[p + 1..] {
                        let both_cells = is_cell(x) && is_cell(y);
                        if x == y || (both_cells && cx.len() + cy.len() + usize::from(z_cell) > 2) {
                            continue;
                        }
                        if cx.meets(&cy) {
                            continue;
                        }
                        let ends_in =
                            |n: NodeId, c: &CellSet| is_cell(n) && c.contains(usize::from(n));
                        if ends_in(x, &cy) || ends_in(y, &cx) {
                            continue;
                        }
                        if z_cell && (cx.contains(usize::from(z)) || cy.contains(usize::from(z))) {
                            continue;
                        }
                        let mut c = cx.union(&cy);
                        if z_cell {
                            c.insert(usize::from(z));
                            new_semi.push((
                                x,
                                y,
                                Semi {
                                    carrier: c,
                                    key: usize::from(z),
                                },
                            ));
                        } else {
                            new_full.push((x, y, c));
                        }
                    }
                }
            }
            for (x, y, c) in new_full {
                changed |= add_full(&mut full, x, y, c, limits);
            }
            for (x, y, s) in new_semi {
                changed |= add_semi(&full, &mut semi, x, y, s, limits);
            }
            let pairs: Vec<(NodeId, NodeId)> = semi.keys().copied().collect();
            for (a, b) in pairs {
                let semis = semi.get(&(a, b)).map_or(&[][..], Vec::as_slice).to_vec();
                let mut found = Vec::new();
                for i in 0..semis.len() {
                    for j in i + 1..semis.len() {
                        let (si, sj) = (semis[i].carrier, semis[j].carrier);
                        let common = si.intersection(&sj);
                        if common.is_empty() {
                            found.push(si.union(&sj));
                        } else if limits.or_depth >= 3 {
                            for sk in &semis[j + 1..] {
                                if !common.meets(&sk.carrier) {
                                    found.push(si.union(&sj).union(&sk.carrier));
                                }
                            }
                        }
                    }
                }
                for c in found {
                    changed |= add_full(&mut full, a, b, c, limits);
                }
            }
            if !changed {
                break;
            }
        }
        (full, semi)
    }

    /// A random board of `size` with about `fill` of its cells taken, the two colours within
    /// one stone of each other, either owner top-bottom.
    fn random_board(rng: &mut rand_pcg::Pcg64, size: usize, fill: f64) -> Board {
        use rand_core::Rng;
        let rows = vec![".".repeat(size); size];
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let mut board = Board::parse(&rows).expect("a square board");
        board.tb_owner = 1 + (rng.next_u32() % 2) as u8;
        let empties = board.empties();
        let stones = (empties.len() as f64 * fill) as usize;
        let mut colour = 1 + (rng.next_u32() % 2) as u8;
        let mut placed = 0;
        while placed < stones {
            let i = empties[rng.next_u32() as usize % empties.len()];
            if board.cells[i] == EMPTY {
                board.cells[i] = colour;
                colour ^= 3;
                placed += 1;
            }
        }
        board
    }

    /// The connections of every pair in key order, carriers as lists of cells in each pair's
    /// own order: a form both implementations can be compared in.
    #[allow(clippy::type_complexity)]
    fn canonical(
        full: impl Iterator<Item = ((NodeId, NodeId), Vec<CellSet>)>,
        semi: impl Iterator<Item = ((NodeId, NodeId), Vec<Semi>)>,
    ) -> (
        std::collections::BTreeMap<(NodeId, NodeId), Vec<Vec<usize>>>,
        std::collections::BTreeMap<(NodeId, NodeId), Vec<(Vec<usize>, usize)>>,
    ) {
        (
            full.map(|(k, l)| (k, l.iter().map(|c| c.iter().collect()).collect()))
                .collect(),
            semi.map(|(k, l)| {
                (
                    k,
                    l.iter()
                        .map(|s| (s.carrier.iter().collect(), s.key))
                        .collect(),
                )
            })
            .collect(),
        )
    }

    /// FNV-1a over a stream of numbers.
    fn fnv(h: &mut u64, n: usize) {
        for b in (n as u64).to_le_bytes() {
            *h = (*h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }

    /// The guard of the eighth piece: on 216 seeded random boards of sizes 5 to 13 (a tenth to
    /// nearly all of the cells taken), for both players and four bounds, `h_search` finds
    /// exactly the connections of the reference above, pair by pair and in the same order; and
    /// the solver's verdicts, mustplays and fill-ins (full and quick analyses) hash to the
    /// figure they had before the change.
    #[test]
    fn h_search_finds_exactly_the_connections_it_found_before_it_was_sped_up() {
        use rand_core::SeedableRng;
        let mut rng = rand_pcg::Pcg64::seed_from_u64(2308);
        let mut wide = VcLimits::ROOT;
        wide.templates = false;
        wide.passes = 8;
        let mut small = VcLimits::TREE;
        small.max_carrier = 10;
        small.or_depth = 3;
        let bounds = [VcLimits::ROOT, VcLimits::TREE, wide, small];
        let (mut h, mut pairs, mut carriers) = (0xcbf2_9ce4_8422_2325u64, 0, 0);
        let mut kinds = [0; 4];
        for round in 0..24 {
            for size in 5..=13 {
                let fill = [0.1, 0.25, 0.4, 0.55, 0.7, 0.85][round % 6];
                let board = random_board(&mut rng, size, fill);
                for player in [1, 2] {
                    for (k, limits) in bounds.iter().enumerate() {
                        if k >= 2 && (round + size) % 3 != 0 {
                            continue;
                        }
                        let vcs = h_search(&board, player, limits);
                        let (full, semi) = reference_h_search(&board, player, limits);
                        let want = canonical(full.into_iter(), semi.into_iter());
                        let got =
                            canonical(vcs.full_lists().into_iter(), vcs.semi_lists().into_iter());
                        assert!(
                            want == got,
                            "round {round}, size {size}, player {player}, bounds {k}"
                        );
                        pairs += want.0.len() + want.1.len();
                        carriers += want.0.values().map(Vec::len).sum::<usize>();
                    }
                    for limits in [VcLimits::ROOT, VcLimits::TREE] {
                        for a in [
                            crate::solver::analyse(&board, player, &limits),
                            crate::solver::analyse_quick(&board, player, &limits),
                        ] {
                            match a.verdict {
                                crate::solver::Verdict::Won { win } => {
                                    kinds[0] += 1;
                                    fnv(&mut h, 1);
                                    fnv(&mut h, win);
                                }
                                crate::solver::Verdict::Lost { prolong } => {
                                    kinds[1] += 1;
                                    fnv(&mut h, 2);
                                    prolong.iter().for_each(|i| fnv(&mut h, i));
                                }
                                crate::solver::Verdict::Open { mustplay } => {
                                    kinds[2 + usize::from(mustplay.is_some())] += 1;
                                    fnv(&mut h, 3);
                                    mustplay.iter().flat_map(CellSet::iter).for_each(|i| {
                                        fnv(&mut h, i);
                                    });
                                }
                            }
                            a.fill.filled().iter().for_each(|i| fnv(&mut h, i));
                        }
                    }
                }
            }
        }
        // enough work for the comparison to mean something
        assert!(pairs > 50_000 && carriers > 50_000, "{pairs} {carriers}");
        eprintln!(
            "{pairs} pairs, {carriers} full carriers, verdicts {kinds:?}, solver hash {h:#x}"
        );
        // won, lost, open without and with a mustplay: each kind is met
        assert!(kinds.iter().all(|&k| k >= 20), "{kinds:?}");
        assert_eq!(h, 0x2f0b_a587_d51c_57ef, "the solver's answers changed");
    }

    #[test]
    fn a_chain_of_bridges_to_both_edges_is_a_won_edge_to_edge_connection() {
        let board = b(&[".....", "..1..", ".....", ".1...", "....."]);
        let vcs = h_search(&board, 1, &VcLimits::ROOT);
        let full = vcs.edge_to_edge_full().expect("won");
        // the bridge between the stones and the two edge templates: 6 cells
        assert_eq!(full.len(), 6, "{full:?}");
        assert!(
            h_search(&board, 2, &VcLimits::ROOT)
                .edge_to_edge_full()
                .is_none()
        );
    }
}
