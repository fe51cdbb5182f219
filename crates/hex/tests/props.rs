//! Property tests of the rules engine against an independent, deliberately naive model.

use std::collections::VecDeque;

use hex::{Axis, Cell, MAX_SIZE, Move, Outcome, PlayError, Position, Seat};
use proptest::prelude::*;

// ----- an independent model: plain grids and breadth-first search -----

const STEPS: [(i32, i32); 6] = [(-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0)];

fn grid_neighbours(size: usize, r: usize, c: usize) -> Vec<(usize, usize)> {
    STEPS
        .iter()
        .map(|&(dr, dc)| (r as i32 + dr, c as i32 + dc))
        .filter(|&(nr, nc)| nr >= 0 && nc >= 0 && (nr as usize) < size && (nc as usize) < size)
        .map(|(nr, nc)| (nr as usize, nc as usize))
        .collect()
}

fn on_start(axis: Axis, r: usize, c: usize) -> bool {
    match axis {
        Axis::TopBottom => r == 0,
        Axis::LeftRight => c == 0,
    }
}

fn on_goal(axis: Axis, size: usize, r: usize, c: usize) -> bool {
    match axis {
        Axis::TopBottom => r == size - 1,
        Axis::LeftRight => c == size - 1,
    }
}

/// Fewest cells of a chain of `owner`'s stones from the start edge to the goal edge of `axis`,
/// or `None` when there is no such chain.
fn shortest_chain_len(grid: &[Vec<u8>], owner: u8, axis: Axis) -> Option<usize> {
    let size = grid.len();
    let mut dist = vec![vec![usize::MAX; size]; size];
    let mut queue = VecDeque::new();
    for r in 0..size {
        for c in 0..size {
            if grid[r][c] == owner && on_start(axis, r, c) {
                dist[r][c] = 1;
                queue.push_back((r, c));
            }
        }
    }
    let mut best = None;
    while let Some((r, c)) = queue.pop_front() {
        if on_goal(axis, size, r, c) {
            best = Some(best.map_or(dist[r][c], |b: usize| b.min(dist[r][c])));
        }
        for (nr, nc) in grid_neighbours(size, r, c) {
            if grid[nr][nc] == owner && dist[nr][nc] == usize::MAX {
                dist[nr][nc] = dist[r][c] + 1;
                queue.push_back((nr, nc));
            }
        }
    }
    best
}

fn connected(grid: &[Vec<u8>], owner: u8, axis: Axis) -> bool {
    shortest_chain_len(grid, owner, axis).is_some()
}

// ----- strategies -----

/// A board size and a random order of all its cells.
fn size_and_order(max: u8) -> impl Strategy<Value = (u8, Vec<Cell>)> {
    (1..=max).prop_flat_map(|size| {
        let cells: Vec<Cell> = (0..size)
            .flat_map(|r| (0..size).map(move |c| Cell::new(r, c)))
            .collect();
        (Just(size), Just(cells).prop_shuffle())
    })
}

/// Plays `order` (optionally with a swap as move 2) until the game ends; returns the position
/// and the moves played.
fn play_out(size: u8, order: &[Cell], swap: bool) -> (Position, Vec<Move>) {
    let mut pos = Position::new(size).expect("size");
    let mut played = Vec::new();
    for (k, &cell) in order.iter().enumerate() {
        if pos.is_over() {
            break;
        }
        if k == 1 && swap && pos.swap_allowed() {
            pos.play(Move::Swap).expect("swap allowed");
            played.push(Move::Swap);
            if pos.is_over() {
                break;
            }
        }
        pos.play(Move::Place(cell)).expect("legal");
        played.push(Move::Place(cell));
    }
    (pos, played)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A full board has exactly one seat joining its own edges (either axis assignment).
    #[test]
    fn full_board_has_exactly_one_winner(
        size in 1usize..=12,
        bits in proptest::collection::vec(any::<bool>(), 144),
        swapped in any::<bool>(),
    ) {
        let grid: Vec<Vec<u8>> = (0..size)
            .map(|r| (0..size).map(|c| if bits[r * size + c] { 1 } else { 2 }).collect())
            .collect();
        let (ax1, ax2) = if swapped {
            (Axis::LeftRight, Axis::TopBottom)
        } else {
            (Axis::TopBottom, Axis::LeftRight)
        };
        let one = connected(&grid, 1, ax1);
        let two = connected(&grid, 2, ax2);
        prop_assert!(one != two, "one {} two {}", one, two);
    }

    /// Playing a random order ends exactly at the first connection, for the seat that connects,
    /// and the finished board agrees with the independent model.
    #[test]
    fn game_ends_at_first_connection((size, order) in size_and_order(11), swap in any::<bool>()) {
        let mut pos = Position::new(size).expect("size");
        let mut k = 0;
        while !pos.is_over() {
            if k == 1 && swap && pos.swap_allowed() {
                prop_assert_eq!(pos.play(Move::Swap), Ok(None));
            }
            let mover = pos.to_move().expect("game on");
            let result = pos.play(Move::Place(order[k])).expect("legal");
            k += 1;
            let grid = pos.cells();
            let mover_done = connected(&grid, mover.number(), pos.axis(mover));
            let other = mover.other();
            // the opponent can never be connected while the game goes on
            prop_assert!(!connected(&grid, other.number(), pos.axis(other)));
            match result {
                Some(Outcome::Connection { winner }) => {
                    prop_assert_eq!(winner, mover);
                    prop_assert!(mover_done);
                }
                Some(Outcome::MoveCap) => prop_assert!(false, "no cap on small boards"),
                None => prop_assert!(!mover_done),
            }
        }
        prop_assert!(pos.ply() as usize <= order.len() + 1);
        prop_assert_eq!(pos.to_move(), None);
        prop_assert!(pos.legal_moves().is_empty());
    }

    /// The winning path is a valid chain and as short as possible.
    #[test]
    fn winning_path_is_valid_and_shortest((size, order) in size_and_order(11), swap in any::<bool>()) {
        let (pos, _) = play_out(size, &order, swap);
        let winner = pos.outcome().and_then(Outcome::winner).expect("small boards always end");
        let path = pos.winning_path().expect("won by connection");
        let n = size;
        let axis = pos.axis(winner);
        for c in &path {
            prop_assert!(c.row < n && c.col < n);
            prop_assert_eq!(pos.stone(*c), Some(winner));
        }
        for w in path.windows(2) {
            prop_assert!(w[0].is_adjacent(w[1]), "{:?} -> {:?}", w[0], w[1]);
        }
        let mut sorted = path.clone();
        sorted.sort();
        sorted.dedup();
        prop_assert_eq!(sorted.len(), path.len());
        let (first, last) = (path[0], path[path.len() - 1]);
        prop_assert!(on_start(axis, usize::from(first.row), usize::from(first.col)));
        prop_assert!(on_goal(axis, usize::from(n), usize::from(last.row), usize::from(last.col)));
        let best = shortest_chain_len(&pos.cells(), winner.number(), axis);
        prop_assert_eq!(Some(path.len()), best);
    }

    /// A refused move changes nothing, and `check` predicts `play`.
    #[test]
    fn refused_moves_change_nothing(
        (size, order) in size_and_order(9),
        prefix in 0usize..90,
        swap in any::<bool>(),
        probe_r in 0u8..12,
        probe_c in 0u8..12,
        probe_swap in any::<bool>(),
    ) {
        let cut = prefix.min(order.len());
        let (mut pos, _) = play_out(size, &order[..cut], swap);
        let probe = if probe_swap { Move::Swap } else { Move::Place(Cell::new(probe_r, probe_c)) };
        let before = pos.clone();
        let compact = pos.to_compact();
        let predicted = pos.check(probe);
        let result = pos.play(probe);
        prop_assert_eq!(predicted, result.map(|_| ()));
        match result {
            Err(e) => {
                prop_assert_eq!(&pos, &before);
                prop_assert_eq!(pos.to_compact(), compact);
                prop_assert_eq!(pos.winning_path(), before.winning_path());
                let expected = if before.is_over() {
                    PlayError::GameOver
                } else if probe_swap {
                    PlayError::SwapNotAllowed
                } else if probe_r >= size || probe_c >= size {
                    PlayError::OffBoard
                } else {
                    PlayError::Occupied
                };
                prop_assert_eq!(e, expected);
            }
            Ok(_) => {
                prop_assert_eq!(pos.ply(), before.ply() + 1);
                prop_assert!(before.legal_moves().contains(&probe));
            }
        }
    }

    /// The swap is legal exactly once, at ply 1 without an opening, and never twice.
    #[test]
    fn swap_only_once((size, order) in size_and_order(9), moves_before in 0usize..6) {
        prop_assume!(size >= 2);
        let mut pos = Position::new(size).expect("size");
        for &cell in order.iter().take(moves_before) {
            if pos.is_over() {
                break;
            }
            pos.play(Move::Place(cell)).expect("legal");
        }
        let allowed = moves_before == 1 && !pos.is_over();
        prop_assert_eq!(pos.swap_allowed(), allowed);
        prop_assert_eq!(pos.legal_moves().last() == Some(&Move::Swap), allowed);
        if allowed {
            let stone = order[0];
            prop_assert_eq!(pos.play(Move::Swap), Ok(None));
            prop_assert_eq!(pos.stone(stone), Some(Seat::Two));
            prop_assert_eq!(pos.to_move(), Some(Seat::One));
            prop_assert_eq!(pos.axis(Seat::Two), Axis::TopBottom);
            prop_assert_eq!(pos.play(Move::Swap), Err(PlayError::SwapNotAllowed));
            if let Some(&next) = order.get(1) {
                pos.play(Move::Place(next)).expect("legal");
                prop_assert_eq!(pos.play(Move::Swap), Err(PlayError::SwapNotAllowed));
            }
        } else if !pos.is_over() {
            prop_assert_eq!(pos.play(Move::Swap), Err(PlayError::SwapNotAllowed));
        } else {
            prop_assert_eq!(pos.play(Move::Swap), Err(PlayError::GameOver));
        }
    }

    /// The compact form rebuilds an equal position that keeps playing identically.
    #[test]
    fn compact_round_trip(
        (size, order) in size_and_order(11),
        cut in 0usize..130,
        swap in any::<bool>(),
        opening_pairs in 0usize..4,
    ) {
        let cells = size as usize * size as usize;
        let open_len = (2 * opening_pairs).min(cells.saturating_sub(1) & !1);
        let opening = &order[..open_len];
        let Ok(mut pos) = Position::with_opening(size, opening) else {
            // the opening connects already: nothing to store
            return Ok(());
        };
        let rest = &order[open_len..];
        let cut = cut.min(rest.len());
        for (k, &cell) in rest[..cut].iter().enumerate() {
            if pos.is_over() {
                break;
            }
            if k == 1 && swap && pos.swap_allowed() {
                pos.play(Move::Swap).expect("allowed");
            }
            if !pos.is_over() {
                pos.play(Move::Place(cell)).expect("legal");
            }
        }
        let text = pos.to_compact();
        let mut back = Position::from_compact(&text).expect("valid compact");
        prop_assert_eq!(&back, &pos);
        prop_assert_eq!(back.to_compact(), text);
        prop_assert_eq!(back.to_move(), pos.to_move());
        prop_assert_eq!(back.opening_len(), pos.opening_len());
        prop_assert_eq!(back.swapped(), pos.swapped());
        prop_assert_eq!(back.legal_moves(), pos.legal_moves());
        prop_assert_eq!(back.winning_path(), pos.winning_path());
        for &cell in &rest[cut..] {
            let a = pos.play(Move::Place(cell));
            let b = back.play(Move::Place(cell));
            prop_assert_eq!(a, b);
        }
        prop_assert_eq!(&back, &pos);
    }

    /// `from_compact` never panics on arbitrary text and only accepts what it can print back.
    #[test]
    fn compact_never_panics(text in "[0-9:]{0,40}|[0-3]{1,2}:[0-9]{1,2}:[01]:[0-2]{0,30}") {
        if let Ok(pos) = Position::from_compact(&text) {
            prop_assert_eq!(pos.to_compact(), text);
        }
    }

    /// Openings from any seed: right length, distinct, on board, alternate, never connected.
    #[test]
    fn seeded_openings_are_valid(seed in any::<[u8; 32]>(), size in 2u8..=MAX_SIZE, k in 0u8..=10) {
        let n = u16::from(size) * u16::from(size);
        prop_assume!(2 * u16::from(k) < n && (size >= 5 || k <= 2));
        let cells = hex::opening(&seed, size, k).expect("opening");
        prop_assert_eq!(cells.len(), 2 * usize::from(k));
        let pos = Position::with_opening(size, &cells).expect("valid");
        prop_assert_eq!(pos.ply(), 0);
        prop_assert_eq!(pos.to_move(), Some(Seat::One));
        prop_assert_eq!(pos.stone_count(), cells.len());
        let grid = pos.cells();
        prop_assert!(!connected(&grid, 1, Axis::TopBottom));
        prop_assert!(!connected(&grid, 2, Axis::LeftRight));
        prop_assert_eq!(hex::opening(&seed, size, k).expect("again"), cells);
    }

    /// Cell names round-trip and parse case-insensitively.
    #[test]
    fn names_round_trip(r in 0u8..=255, c in 0u8..=255) {
        let cell = Cell::new(r, c);
        let name = hex::cell_name(cell);
        prop_assert_eq!(hex::parse_cell_name(&name), Some(cell));
        prop_assert_eq!(hex::parse_cell_name(&name.to_uppercase()), Some(cell));
    }

    /// `parse_cell_name` never panics and what it accepts prints back the same (lower case).
    #[test]
    fn names_never_panic(text in "\\PC{0,8}") {
        if let Some(cell) = hex::parse_cell_name(&text) {
            prop_assert_eq!(hex::cell_name(cell), text.to_lowercase());
        }
    }
}
