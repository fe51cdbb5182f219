//! Inferior cells (issue 23): cells that cannot change who wins, found by local patterns, and
//! the fill-in that puts stones on them for analysis.
//!
//! - Dead ([`is_dead`]): an empty cell whose six neighbours are all stones or edges, each
//!   colour in one unbroken run around it. A stone there joins nothing that is not already
//!   joined around it, and cuts nothing, so its colour never matters (the 4-2 and 3-3 rings,
//!   a cell boxed in by one colour, a corner of an edge).
//! - Captured ([`captured_pair`]): two adjacent empty cells such that, whichever of them the
//!   opponent takes, the player's stone in the other leaves the opponent's stone dead: the
//!   player may count both as its own.
//! - Fill-in ([`fill_in`]): dead cells get a stone (either colour will do), captured pairs the
//!   capturer's, until nothing changes. Sound for the connection analysis of both players.
//! - Dead by the neighbourhood ([`is_dead_wide`]): a wider test than [`is_dead`] (empty
//!   neighbours allowed): no minimal winning path of one player can pass through the cell,
//!   because any two things a path could enter and leave it by (empty cells, the player's
//!   groups, the player's edges) are already adjacent or touch the same edge of the player.
//! - Dominated ([`dominated`]): the player's move at `c` is no better than its move at `d`
//!   when `c` is dead once the player holds `d` (then `d` is worth `d` and `c` together, and
//!   a stone more never hurts), so `c` need not be searched while `d` is.

use hex::{BORDER, EMPTY};

use crate::board::{Board, CellSet, Side};

/// Whether the empty on-board cell `i` is dead (see the module doc). `false` for anything
/// else, and next to a board corner's padding (whose colour is both edges').
pub fn is_dead(board: &Board, i: usize) -> bool {
    if board.cells.get(i) != Some(&EMPTY) || !board.on_board(i) {
        return false;
    }
    let colours = board.ring(i).map(|j| board.colour(j));
    if colours.iter().any(|&v| v == EMPTY || v == BORDER) {
        return false;
    }
    // a colour is in one run when it starts a run at most once going around
    let starts = |c: u8| {
        (0..6)
            .filter(|&t| colours[t] == c && colours[(t + 5) % 6] != c)
            .count()
    };
    starts(1) <= 1 && starts(2) <= 1
}

/// Whether the adjacent empty cells `a` and `b` are captured by `player` (see the module doc).
pub fn captured_pair(board: &Board, a: usize, b: usize, player: u8) -> bool {
    if board.cells.get(a) != Some(&EMPTY)
        || board.cells.get(b) != Some(&EMPTY)
        || !board.ring(a).contains(&b)
    {
        return false;
    }
    let answered = |taken: usize, reply: usize| {
        let mut after = board.clone();
        after.cells[reply] = player;
        is_dead(&after, taken)
    };
    answered(a, b) && answered(b, a)
}

/// What [`fill_in`] found and the board it filled.
#[derive(Clone, Debug)]
pub struct FillIn {
    /// The board with every dead and captured cell filled.
    pub board: Board,
    /// Cells found dead (filled with either colour).
    pub dead: CellSet,
    /// Cells captured by player 1 (`[0]`) and player 2 (`[1]`), filled with their stones.
    pub captured: [CellSet; 2],
}

impl FillIn {
    /// Every filled cell: no use playing there.
    pub fn filled(&self) -> CellSet {
        self.dead.union(&self.captured[0]).union(&self.captured[1])
    }
}

/// Fills dead cells and captured pairs until none is left (see the module doc). A dead cell
/// gets the colour of its first neighbour in ring order (any colour is right).
pub fn fill_in(board: &Board) -> FillIn {
    let mut out = FillIn {
        board: board.clone(),
        dead: CellSet::EMPTY,
        captured: [CellSet::EMPTY; 2],
    };
    loop {
        let mut changed = false;
        for i in 0..out.board.cells.len() {
            if is_dead(&out.board, i) {
                out.board.cells[i] = out.board.colour(out.board.ring(i)[0]);
                out.dead.insert(i);
                changed = true;
            }
        }
        for a in 0..out.board.cells.len() {
            if out.board.cells[a] != EMPTY || !out.board.on_board(a) {
                continue;
            }
            for b in out.board.ring(a) {
                if b < a || out.board.cells[b] != EMPTY {
                    continue;
                }
                for player in [1u8, 2] {
                    if captured_pair(&out.board, a, b, player) {
                        out.board.cells[a] = player;
                        out.board.cells[b] = player;
                        let set = &mut out.captured[usize::from(player - 1)];
                        set.insert(a);
                        set.insert(b);
                        changed = true;
                        break;
                    }
                }
                if out.board.cells[a] != EMPTY {
                    break;
                }
            }
        }
        if !changed {
            return out;
        }
    }
}

/// A group's index in [`Groups::of`] for anything that is not the player's stone.
const NO_GROUP: u16 = u16::MAX;

/// One player's groups (chains of adjacent stones) on a board, with one stone of the player
/// that can be added and taken back without a new flood fill ([`Groups::place`]).
struct Groups {
    /// For each padded index, the index of its stone's group (`NO_GROUP`: not the player's
    /// stone).
    of: Vec<u16>,
    /// For each group, the player's sides it touches ([`side_bit`]).
    sides: Vec<u8>,
    /// For each group, the group it is part of now (itself, or the group of a placed stone
    /// that joined it).
    rep: Vec<u16>,
    /// For each padded index off the board, the player's side it lies beside ([`side_bit`]);
    /// 0 beside the other player's, at a corner's padding (no side's: a cell next to it
    /// touches both of the corner's sides directly) and on the board.
    edge: Vec<u8>,
}

/// The bit of `side` in a mask of sides.
fn side_bit(side: Side) -> u8 {
    match side {
        Side::Top => 1,
        Side::Bottom => 2,
        Side::Left => 4,
        Side::Right => 8,
    }
}

impl Groups {
    /// `player`'s groups on `board`, by flood fill.
    fn of(board: &Board, player: u8) -> Groups {
        let edge = (0..board.cells.len())
            .map(|j| match board.side_of(j) {
                // `None` on the board and at the corners
                Some(side) if board.side_owner(side) == player => side_bit(side),
                _ => 0,
            })
            .collect();
        let mut g = Groups {
            of: vec![NO_GROUP; board.cells.len()],
            sides: Vec::new(),
            rep: Vec::new(),
            edge,
        };
        let mut stack = Vec::new();
        for start in 0..board.cells.len() {
            // padding is BORDER: a stone of the player is on the board
            if board.cells[start] != player || g.of[start] != NO_GROUP {
                continue;
            }
            let id = g.sides.len() as u16;
            let mut sides = 0;
            g.of[start] = id;
            stack.push(start);
            while let Some(i) = stack.pop() {
                for j in board.ring(i) {
                    if board.cells[j] == BORDER {
                        sides |= g.edge[j];
                    } else if board.cells[j] == player && g.of[j] == NO_GROUP {
                        g.of[j] = id;
                        stack.push(j);
                    }
                }
            }
            g.sides.push(sides);
            g.rep.push(id);
        }
        g
    }

    /// The group of padded index `k` now (`NO_GROUP`: not the player's stone).
    fn id(&self, k: usize) -> u16 {
        match self.of[k] {
            NO_GROUP => NO_GROUP,
            g => self.rep[usize::from(g)],
        }
    }

    /// The sides group `g` (an [`Groups::id`]) touches.
    fn sides_of(&self, g: u16) -> u8 {
        self.sides[usize::from(g)]
    }

    /// Records the player's new stone at the empty cell `d` of `board` (the caller puts it on
    /// the board): a new group joining the groups around `d`. Undone by [`Groups::take_back`]
    /// with the returned groups it joined. One stone at a time: a second `place` before the
    /// `take_back` would not follow the first one's merges.
    fn place(&mut self, board: &Board, d: usize) -> [u16; 6] {
        debug_assert!(
            self.rep
                .iter()
                .enumerate()
                .all(|(g, &r)| usize::from(r) == g),
            "a stone is already placed"
        );
        let new = self.sides.len() as u16;
        let mut joined = [NO_GROUP; 6];
        let mut sides = 0;
        for (t, j) in board.ring(d).into_iter().enumerate() {
            if board.cells[j] == BORDER {
                sides |= self.edge[j];
                continue;
            }
            let g = self.id(j);
            if g != NO_GROUP && !joined.contains(&g) {
                joined[t] = g;
                sides |= self.sides_of(g);
            }
        }
        for &g in joined.iter().filter(|&&g| g != NO_GROUP) {
            self.rep[usize::from(g)] = new;
        }
        self.sides.push(sides);
        self.rep.push(new);
        self.of[d] = new;
        joined
    }

    /// Takes back [`Groups::place`]'s stone at `d`.
    fn take_back(&mut self, d: usize, joined: [u16; 6]) {
        for &g in joined.iter().filter(|&&g| g != NO_GROUP) {
            self.rep[usize::from(g)] = g;
        }
        self.sides.pop();
        self.rep.pop();
        self.of[d] = NO_GROUP;
    }
}

/// A thing a winning path of the player could enter or leave a cell by.
#[derive(Clone, Copy, PartialEq)]
enum Item {
    /// An empty cell (padded index).
    Cell(usize),
    /// One of the player's groups ([`Groups::of`]).
    Group(u16),
    /// One of the player's edges (its [`side_bit`] is the item's sides).
    Edge,
}

/// Whether no minimal winning path of `player` can pass through the empty on-board cell `v`
/// (see [`is_dead_wide`]), by its neighbourhood (`false`: the test cannot tell).
fn useless_for(board: &Board, groups: &Groups, v: usize, player: u8) -> bool {
    // the sides an empty cell touches, directly or through one of the player's groups
    let cell_sides = |a: usize| {
        board.ring(a).iter().fold(0u8, |acc, &k| {
            if board.cells[k] == BORDER {
                acc | groups.edge[k]
            } else if board.cells[k] == player {
                acc | groups.sides_of(groups.id(k))
            } else {
                acc
            }
        })
    };
    let mut items = [(Item::Edge, 0u8); 6];
    let mut n = 0;
    for j in board.ring(v) {
        let item = if board.cells[j] == BORDER {
            match groups.edge[j] {
                0 => continue,
                bit => (Item::Edge, bit),
            }
        } else if board.cells[j] == EMPTY {
            (Item::Cell(j), cell_sides(j))
        } else if board.cells[j] == player {
            let id = groups.id(j);
            (Item::Group(id), groups.sides_of(id))
        } else {
            continue;
        };
        if !items[..n].contains(&item) {
            items[n] = item;
            n += 1;
        }
    }
    let adjacent = |x: Item, y: Item| match (x, y) {
        (Item::Cell(a), Item::Cell(b)) => board.ring(a).contains(&b),
        (Item::Cell(a), Item::Group(g)) | (Item::Group(g), Item::Cell(a)) => {
            board.ring(a).iter().any(|&k| groups.id(k) == g)
        }
        _ => false,
    };
    (0..n).all(|s| {
        (s + 1..n).all(|t| {
            let ((x, xs), (y, ys)) = (items[s], items[t]);
            xs & ys != 0 || adjacent(x, y)
        })
    })
}

/// Whether the empty on-board cell `i` is dead by its neighbourhood: for one of the players,
/// any two things a winning path could enter and leave `i` by (empty neighbours, its groups
/// next to `i`, its edges) are adjacent or touch one same edge of the player, so every path
/// through `i` has a shortcut and no minimal winning set holds `i`. In Hex a cell in no
/// minimal winning set of one player is in none of the other's either (the sets of one are
/// what blocks the other's), so its colour never matters. Finds every cell [`is_dead`] finds
/// and more (an edge cell under two stones of the other colour).
pub fn is_dead_wide(board: &Board, i: usize) -> bool {
    if board.cells.get(i) != Some(&EMPTY) || !board.on_board(i) {
        return false;
    }
    [1u8, 2]
        .iter()
        .any(|&p| useless_for(board, &Groups::of(board, p), i, p))
}

/// The cells of `among` (empty on-board cells) that `player`'s search need not try, each being
/// dominated by a cell of `among` that is kept: `c` goes when it is dead by its neighbourhood
/// ([`is_dead_wide`]) already, or once `player` holds `d`, `d` itself not gone and within two
/// cells of `c` (farther cells seldom change and are not looked at). Following the dominators
/// from a cell that went always ends at a kept one, so the kept cells hold a move at least as
/// good as any (dead cells: as good as none). Sound on a filled-in board ([`fill_in`]) as on
/// any other. Costs a neighbourhood test of each cell of `among` and of the eighteen cells
/// around each: for the root and the tree's analysed nodes. `player` is 1 or 2 (anything else:
/// nothing is dominated).
pub fn dominated(board: &Board, player: u8, among: &CellSet) -> CellSet {
    if !matches!(player, 1 | 2) {
        return CellSet::EMPTY;
    }
    let cells: Vec<usize> = among
        .iter()
        .filter(|&i| board.on_board(i) && board.cells.get(i) == Some(&EMPTY))
        .collect();
    let Some(&first) = cells.first() else {
        return CellSet::EMPTY;
    };
    let mut groups = [Groups::of(board, 1), Groups::of(board, 2)];
    let dead = |board: &Board, groups: &[Groups; 2], c: usize| {
        [1u8, 2]
            .iter()
            .any(|&p| useless_for(board, &groups[usize::from(p - 1)], c, p))
    };
    let mut gone = CellSet::EMPTY;
    // dead already: dominated by any kept cell (a move never hurts); the first is kept
    for &c in &cells {
        if c != first && dead(board, &groups, c) {
            gone.insert(c);
        }
    }
    let mut scratch = board.clone();
    let mine = usize::from(player - 1);
    for &d in &cells {
        if gone.contains(d) {
            continue;
        }
        scratch.cells[d] = player;
        let joined = groups[mine].place(&scratch, d);
        // the cells within two of `d` (a cell next to the padding has padding in its ring,
        // which is never empty); some are met twice, and the second time they are gone or
        // still not dead
        for a in scratch.ring(d) {
            let around = if scratch.cells[a] == BORDER {
                [a; 6]
            } else {
                scratch.ring(a)
            };
            for c in std::iter::once(a).chain(around) {
                if c != d
                    && scratch.cells[c] == EMPTY
                    && among.contains(c)
                    && !gone.contains(c)
                    && dead(&scratch, &groups, c)
                {
                    gone.insert(c);
                }
            }
        }
        groups[mine].take_back(d, joined);
        scratch.cells[d] = EMPTY;
    }
    gone
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
    fn a_cell_ringed_by_four_of_one_colour_and_two_of_the_other_is_dead() {
        // around (2, 2): (1,2) (1,3) (2,3) are 1s... ring order: up, up-right, right, down,
        // down-left, left
        let board = b(&[".....", "..11.", ".2.1.", ".21..", "....."]);
        let i = board.at(2, 2).unwrap();
        assert!(is_dead(&board, i));
        // the same ring with the colours alternating is not: 1 at (3,2) splits the 2s
        let live = b(&[".....", "..12.", ".2.1.", ".21..", "....."]);
        assert!(!is_dead(&live, live.at(2, 2).unwrap()));
        // an empty neighbour keeps a cell alive
        let open = b(&[".....", "..11.", ".2.1.", "..1..", "....."]);
        assert!(!is_dead(&open, open.at(2, 2).unwrap()));
        // a stone is not a dead cell
        assert!(!is_dead(&board, board.at(1, 2).unwrap()));
    }

    #[test]
    fn an_edge_cell_between_its_own_edge_and_a_wall_of_the_other_colour_is_dead() {
        // (0, 2): above it the top edge (seat 1's), below it 2s and beside it 2s: one run each
        let board = b(&[".2.2.", "22...", ".....", ".....", "....."]);
        let board = {
            let mut x = board;
            let i = x.at(1, 2).unwrap();
            x.cells[i] = 2;
            x
        };
        assert!(is_dead(&board, board.at(0, 2).unwrap()));
    }

    #[test]
    fn two_cells_walled_in_by_one_colour_are_captured_by_it_and_filled_in() {
        // (2,2) and (2,3) inside a ring of 1s: whichever 2 takes, 1 takes the other and the
        // 2 stone is dead
        let board = b(&["......", "..111.", ".1..1.", ".1111.", "..22..", "......"]);
        let (a, c) = (board.at(2, 2).unwrap(), board.at(2, 3).unwrap());
        assert!(captured_pair(&board, a, c, 1));
        // not a pair: (2,2) and (4,0) are not neighbours
        assert!(!captured_pair(&board, a, board.at(4, 0).unwrap(), 1));
        // an opening in the wall: 2 at (2,2) then reaches (1,1), so 1 cannot capture the pair
        let mut open = board.clone();
        open.cells[board.at(2, 1).unwrap()] = EMPTY;
        assert!(!captured_pair(&open, a, c, 1));
        let f = fill_in(&board);
        assert!(
            f.captured[0].contains(a) && f.captured[0].contains(c),
            "{f:?}"
        );
        assert_eq!(f.board.cells[a], 1);
        assert_eq!(f.board.cells[c], 1);
        assert!(!f.filled().contains(board.at(0, 0).unwrap()));
    }

    #[test]
    fn fill_in_leaves_an_open_board_alone() {
        let board = b(&["....", ".1..", "..2.", "...."]);
        let f = fill_in(&board);
        assert!(f.filled().is_empty());
        assert_eq!(f.board, board);
    }

    /// A random `size` board, each cell empty with chance `empty`, else either colour, either
    /// owner top-bottom (tests: the exhaustive checks below).
    fn random_board(rng: &mut rand_pcg::Pcg64, size: usize, empty: u32) -> Board {
        use rand_core::Rng;
        let rows = vec![".".repeat(size); size];
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let mut board = Board::parse(&rows).unwrap();
        board.tb_owner = 1 + (rng.next_u32() % 2) as u8;
        for i in board.empties() {
            if rng.next_u32() % 100 >= empty {
                board.cells[i] = 1 + (rng.next_u32() % 2) as u8;
            }
        }
        board
    }

    /// The player who has connected its sides on `board`, if any.
    fn connected(board: &Board) -> Option<u8> {
        [1u8, 2].into_iter().find(|&p| {
            let g = Groups::of(board, p);
            let [a, b] = board.sides_of(p).map(side_bit);
            g.sides.iter().any(|&s| s & a != 0 && s & b != 0)
        })
    }

    /// Whether `mover` wins from `board` with perfect play (memoised minimax).
    fn wins(
        board: &mut Board,
        mover: u8,
        memo: &mut std::collections::HashMap<Vec<u8>, bool>,
    ) -> bool {
        if let Some(p) = connected(board) {
            return p == mover;
        }
        let mut key = board.cells.clone();
        key.push(mover);
        if let Some(&w) = memo.get(&key) {
            return w;
        }
        let mut w = false;
        for i in board.empties() {
            board.cells[i] = mover;
            let theirs = wins(board, mover ^ 3, memo);
            board.cells[i] = EMPTY;
            if !theirs {
                w = true;
                break;
            }
        }
        memo.insert(key, w);
        w
    }

    #[test]
    fn an_edge_cell_under_two_stones_of_the_other_colour_is_dead_by_its_neighbourhood_only() {
        // seat 1 owns the top: (0, 2) has two 2s below it, empty cells beside it; whatever
        // path of 1 enters it leaves by the top edge or a top-row cell, which touch the top
        let board = b(&[".....", ".22..", ".....", ".....", "....."]);
        let i = board.at(0, 2).unwrap();
        assert!(is_dead_wide(&board, i));
        assert!(
            !is_dead(&board, i),
            "the ring test needs all six neighbours taken"
        );
        // for seat 2 owning the top (seat 1 left-right) the same cell is alive: a 2 there
        // joins the two 2s to the top
        let mut turned = board.clone();
        turned.tb_owner = 2;
        assert!(!is_dead_wide(&turned, i));
        // an open cell in the middle is not dead, nor a stone
        assert!(!is_dead_wide(&board, board.at(2, 2).unwrap()));
        assert!(!is_dead_wide(&board, board.at(1, 2).unwrap()));
    }

    #[test]
    fn the_neighbourhood_test_finds_every_ring_dead_cell_and_only_cells_whose_colour_never_matters()
    {
        // exhaustive on random 4x4 to 7x7 boards of up to 11 empty cells: a cell called dead leaves
        // the winner of every filling of the other empty cells the same for both its colours
        let mut rng = <rand_pcg::Pcg64 as rand_core::SeedableRng>::seed_from_u64(2323);
        let (mut wide, mut ring, mut checked) = (0, 0, 0);
        for round in 0..1000 {
            // 4x4 to 7x7 in turn, about the same number of empty cells
            let board = match round % 4 {
                0 => random_board(&mut rng, 4, 55),
                1 => random_board(&mut rng, 5, 38),
                2 => random_board(&mut rng, 6, 27),
                _ => random_board(&mut rng, 7, 19),
            };
            let empties = board.empties();
            if empties.len() > 11 || connected(&board).is_some() {
                continue;
            }
            for &v in &empties {
                if is_dead(&board, v) {
                    ring += 1;
                    assert!(is_dead_wide(&board, v), "{board:?} {v}");
                }
                if !is_dead_wide(&board, v) {
                    continue;
                }
                wide += 1;
                let others: Vec<usize> = empties.iter().copied().filter(|&i| i != v).collect();
                for bits in 0..1u32 << others.len() {
                    let mut full = board.clone();
                    for (k, &i) in others.iter().enumerate() {
                        full.cells[i] = 1 + ((bits >> k) & 1) as u8;
                    }
                    full.cells[v] = 1;
                    let with_1 = connected(&full);
                    full.cells[v] = 2;
                    assert_eq!(with_1, connected(&full), "{board:?} cell {v}");
                    checked += 1;
                }
            }
        }
        // what this run saw when written: the wider test finds more than the ring test
        assert!(wide > ring && ring > 0, "wide {wide}, ring {ring}");
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn the_dominated_cells_left_out_never_hold_the_only_win() {
        // exhaustive on random 4x4, 5x5 and 7x7 boards of up to 9 empty cells, either player on
        // move: when some move wins, a move the pruning keeps wins too; and it keeps one at least
        let mut rng = <rand_pcg::Pcg64 as rand_core::SeedableRng>::seed_from_u64(2324);
        let (mut pruned, mut positions, mut won) = (0, 0, 0);
        for round in 0..3000 {
            let mut board = match round % 4 {
                0 | 1 => random_board(&mut rng, 4, 50),
                2 => random_board(&mut rng, 5, 32),
                _ => random_board(&mut rng, 7, 17),
            };
            let empties = board.empties();
            if empties.is_empty() || empties.len() > 9 || connected(&board).is_some() {
                continue;
            }
            let mover = 1 + (round % 2) as u8;
            let among = CellSet::of(&empties);
            let gone = dominated(&board, mover, &among);
            assert!(gone.is_subset(&among));
            assert!(gone.len() < empties.len(), "{board:?}");
            let mut memo = std::collections::HashMap::new();
            let winning = |board: &mut Board, i: usize, memo: &mut _| {
                board.cells[i] = mover;
                let w = !wins(board, mover ^ 3, memo);
                board.cells[i] = EMPTY;
                w
            };
            let any = empties.iter().any(|&i| winning(&mut board, i, &mut memo));
            let kept = empties
                .iter()
                .filter(|&&i| !gone.contains(i))
                .any(|&i| winning(&mut board, i, &mut memo));
            assert_eq!(any, kept, "{board:?} mover {mover} gone {gone:?}");
            // as the search takes it: on the filled-in board, among the cells left empty
            let fill = fill_in(&board);
            let open: Vec<usize> = fill.board.empties();
            if !open.is_empty() {
                let gone = dominated(&fill.board, mover, &CellSet::of(&open));
                let kept = open
                    .iter()
                    .filter(|&&i| !gone.contains(i))
                    .any(|&i| winning(&mut board, i, &mut memo));
                assert_eq!(any, kept, "{board:?} mover {mover} filled, gone {gone:?}");
            }
            positions += 1;
            pruned += gone.len();
            won += usize::from(any);
        }
        // what this run saw when written: many positions, cells pruned, wins and losses both
        assert!(positions > 100, "{positions}");
        assert!(
            pruned > positions,
            "{pruned} cells in {positions} positions"
        );
        assert!(won > 0 && won < positions, "{won} of {positions}");
    }

    #[test]
    fn a_cell_that_the_players_stone_next_to_it_would_kill_is_dominated_by_it() {
        // seat 2 (left-right) on move, seat 1 owning the top: (0, 1) is open beside a 2 at
        // (1, 1); a 2 at (1, 0) would put it under two 2s, dead, so 2's move at (0, 1) is
        // dominated by (1, 0), which is kept
        let board = b(&["....", ".2..", "....", "...."]);
        let (c, d) = (board.at(0, 1).unwrap(), board.at(1, 0).unwrap());
        assert!(!is_dead_wide(&board, c) && !is_dead_wide(&board, d));
        let gone = dominated(&board, 2, &CellSet::of(&[c, d]));
        assert_eq!(gone, CellSet::of(&[c]));
        // for seat 1 a 1 at (1, 0) does not kill (0, 1): nothing goes
        assert!(dominated(&board, 1, &CellSet::of(&[c, d])).is_empty());
        // on an open board, only the two acute corners: a 1 beside (0, 0) on the top row
        // leaves it touching nothing but the top and that stone's group, for either player
        let open = b(&["....", "....", "....", "...."]);
        let gone = dominated(&open, 1, &CellSet::of(&open.empties()));
        let corners = [open.at(0, 0).unwrap(), open.at(3, 3).unwrap()];
        assert_eq!(gone, CellSet::of(&corners));
        assert_eq!(dominated(&open, 2, &CellSet::of(&open.empties())), gone);
    }

    #[test]
    fn a_placed_stone_joins_the_groups_around_it_as_a_new_flood_fill_does_and_is_taken_back() {
        let mut rng = <rand_pcg::Pcg64 as rand_core::SeedableRng>::seed_from_u64(2325);
        let mut joins = 0;
        for round in 0..300 {
            let size = 1 + round % 9;
            let mut board = random_board(&mut rng, size, 45);
            for player in [1u8, 2] {
                let mut groups = Groups::of(&board, player);
                let before = (groups.of.clone(), groups.sides.clone(), groups.rep.clone());
                for d in board.empties() {
                    board.cells[d] = player;
                    let joined = groups.place(&board, d);
                    let fresh = Groups::of(&board, player);
                    // the same partition of the stones and the same sides, group by group
                    for a in 0..board.cells.len() {
                        let (g, f) = (groups.id(a), fresh.of[a]);
                        assert_eq!(g == NO_GROUP, f == NO_GROUP, "{board:?} {a}");
                        if g == NO_GROUP {
                            continue;
                        }
                        assert_eq!(groups.sides_of(g), fresh.sides[usize::from(f)]);
                        for b in 0..board.cells.len() {
                            if fresh.of[b] != NO_GROUP {
                                assert_eq!(groups.id(b) == g, fresh.of[b] == f, "{board:?}");
                            }
                        }
                    }
                    joins += joined.iter().filter(|&&g| g != NO_GROUP).count();
                    groups.take_back(d, joined);
                    board.cells[d] = EMPTY;
                    assert_eq!(
                        (groups.of.clone(), groups.sides.clone(), groups.rep.clone()),
                        before
                    );
                }
            }
        }
        assert!(joins > 1000, "{joins}");
    }
}
