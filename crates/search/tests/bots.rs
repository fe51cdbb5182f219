//! House-bot strategies: legality, determinism, tactics and strength.

use hex_search::{
    Cell, Limits, Move, Outcome, Position, STOP_CHECK_EVERY, STRONG_BUDGET, Seat, opening,
    playout_winner, random_move, random_playout, strong_budget_for, strong_move,
    strong_move_within,
};
use rand_core::SeedableRng;
use rand_pcg::Pcg64;

fn rng(n: u64) -> Pcg64 {
    let mut seed = [0u8; 32];
    seed[..8].copy_from_slice(&n.to_le_bytes());
    seed[31] = 0x5a;
    Pcg64::from_seed(seed)
}

fn c(r: u8, col: u8) -> Cell {
    Cell::new(r, col)
}

fn play_all(pos: &mut Position, cells: &[Cell]) {
    for &cell in cells {
        pos.play(Move::Place(cell)).expect("legal");
    }
}

/// Playouts per move in the debug-mode tests (the house bot uses `STRONG_BUDGET`).
const TEST_BUDGET: u32 = 300;
/// Playouts per move in the 100-game match (kept small so the test is quick in debug builds).
const MATCH_BUDGET: u32 = 100;

#[test]
fn random_move_is_legal_uniform_and_never_swaps() {
    let mut r = rng(1);
    let mut pos = Position::new(3).expect("size");
    pos.play(Move::Place(c(1, 1))).expect("legal");
    assert!(pos.swap_allowed());
    let mut counts = std::collections::HashMap::new();
    for _ in 0..8000 {
        let mv = random_move(&pos, &mut r).expect("game on");
        assert!(matches!(mv, Move::Place(_)));
        assert_eq!(pos.check(mv), Ok(()));
        *counts.entry(mv).or_insert(0u32) += 1;
    }
    assert_eq!(counts.len(), 8);
    assert!(
        counts.values().all(|&n| (800..1200).contains(&n)),
        "{counts:?}"
    );
}

#[test]
fn bots_return_none_when_over() {
    let mut pos = Position::new(1).expect("size");
    pos.play(Move::Place(c(0, 0))).expect("legal");
    let mut r = rng(2);
    assert_eq!(random_move(&pos, &mut r), None);
    assert_eq!(strong_move(&pos, &mut r, TEST_BUDGET), None);
    assert_eq!(
        random_playout(&mut pos, &mut r),
        Some(Outcome::Connection { winner: Seat::One })
    );
    assert_eq!(playout_winner(&pos, &mut r), Some(Seat::One));
}

#[test]
fn random_playout_reaches_a_real_end_and_matches_the_fast_winner() {
    for size in [1u8, 2, 5, 9, 11, 19] {
        for n in 0..40u64 {
            let mut start = Position::new(size).expect("size");
            // start from a few moves in, sometimes after a swap
            let mut r = rng(n);
            if size > 1 {
                let mv = random_move(&start, &mut r).expect("game on");
                start.play(mv).expect("legal");
                if n % 2 == 0 {
                    start.play(Move::Swap).expect("swap allowed");
                }
            }
            let mut pos = start.clone();
            let mut a = rng(1000 + n);
            let mut b = rng(1000 + n);
            let outcome = random_playout(&mut pos, &mut a).expect("always ends");
            let winner = outcome.winner().expect("no cap below 20x20");
            assert_eq!(pos.outcome(), Some(outcome));
            assert!(pos.is_over());
            // a real game end: the winner is connected and the stored form agrees
            assert!(pos.winning_path().is_some());
            assert_eq!(Position::from_compact(&pos.to_compact()), Ok(pos.clone()));
            assert_eq!(
                playout_winner(&start, &mut b),
                Some(winner),
                "size {size} game {n}"
            );
            assert!(pos.ply() > start.ply());
        }
    }
}

#[test]
fn random_playout_winners_are_balanced_on_average() {
    // on 11x11 the first mover wins random games a little more often than half the time
    let empty = Position::new(11).expect("size");
    let mut r = rng(7);
    let wins_one = (0..4000)
        .filter(|_| playout_winner(&empty, &mut r) == Some(Seat::One))
        .count();
    assert!((1900..2350).contains(&wins_one), "{wins_one}");
}

#[test]
fn budgets_scale_with_the_board() {
    assert_eq!(strong_budget_for(11), STRONG_BUDGET);
    assert_eq!(strong_budget_for(9), 7469);
    assert_eq!(strong_budget_for(13), 3579);
    assert_eq!(strong_budget_for(19), 1675);
    assert_eq!(strong_budget_for(26), 894);
    assert_eq!(strong_budget_for(1), 10_000);
    assert_eq!(strong_budget_for(0), 10_000);
}

#[test]
fn strong_move_with_a_zero_budget_still_moves() {
    let mut pos = Position::new(4).expect("size");
    play_all(&mut pos, &[c(1, 1), c(2, 2)]);
    let mv = strong_move(&pos, &mut rng(5), 0).expect("game on");
    assert_eq!(pos.check(mv), Ok(()));
}

#[test]
fn a_stop_check_ends_the_search_where_a_playout_cap_would() {
    let mut pos = Position::new(7).expect("size");
    play_all(&mut pos, &[c(3, 3), c(2, 4), c(4, 2)]);
    // Stopping at the third check is the same search as a cap of three checks' playouts.
    let mut asked = vec![];
    let stopped = strong_move_within(
        &pos,
        &mut rng(17),
        Limits {
            max_playouts: 100_000,
            stop: &mut |n| {
                asked.push(n);
                asked.len() == 3
            },
        },
    );
    let e = STOP_CHECK_EVERY;
    assert_eq!(asked, vec![e, 2 * e, 3 * e]);
    assert_eq!(stopped, strong_move(&pos, &mut rng(17), 3 * e));
    // The cap still holds when `stop` never says stop.
    let mut calls = 0;
    let capped = strong_move_within(
        &pos,
        &mut rng(17),
        Limits {
            max_playouts: 2 * e,
            stop: &mut |_| {
                calls += 1;
                false
            },
        },
    );
    assert_eq!(
        calls,
        1,
        "asked at {e} only: the cap ends the search at {}",
        2 * e
    );
    assert_eq!(capped, strong_move(&pos, &mut rng(17), 2 * e));
}

#[test]
fn strong_move_is_deterministic_and_legal() {
    let mut pos = Position::new(7).expect("size");
    play_all(&mut pos, &[c(3, 3), c(2, 4), c(4, 2)]);
    let a = strong_move(&pos, &mut rng(11), TEST_BUDGET).expect("game on");
    let b = strong_move(&pos, &mut rng(11), TEST_BUDGET).expect("game on");
    assert_eq!(a, b);
    assert_eq!(pos.check(a), Ok(()));
}

#[test]
fn strong_move_takes_an_immediate_win() {
    // seat 1 has column 2 except [4,2]; seat 2 is spread out
    let mut pos = Position::new(5).expect("size");
    play_all(
        &mut pos,
        &[
            c(0, 2),
            c(0, 0),
            c(1, 2),
            c(1, 0),
            c(2, 2),
            c(3, 0),
            c(3, 2),
            c(4, 4),
        ],
    );
    assert_eq!(pos.to_move(), Some(Seat::One));
    for n in 0..5 {
        let mv = strong_move(&pos, &mut rng(n), TEST_BUDGET);
        assert!(
            mv == Some(Move::Place(c(4, 2))) || mv == Some(Move::Place(c(4, 1))),
            "{mv:?}"
        );
        let mut after = pos.clone();
        let end = after.play(mv.expect("a move")).expect("legal");
        assert_eq!(end, Some(Outcome::Connection { winner: Seat::One }));
    }
}

#[test]
fn strong_move_blocks_a_single_threat() {
    // seat 2 (left-right) holds row 2 except [2,4]; seat 1 must block there
    let mut pos = Position::new(5).expect("size");
    play_all(
        &mut pos,
        &[
            c(0, 0),
            c(2, 0),
            c(0, 4),
            c(2, 1),
            c(4, 0),
            c(2, 2),
            c(4, 4),
            c(2, 3),
        ],
    );
    assert_eq!(pos.to_move(), Some(Seat::One));
    assert!(pos.would_connect(c(2, 4), Seat::Two));
    assert!(pos.would_connect(c(1, 4), Seat::Two));
    // two winning cells for seat 2 ([1,4] and [2,4]) -> the bot cannot block both, but
    // with only one threat it must take it
    let mut pos2 = Position::new(5).expect("size");
    play_all(
        &mut pos2,
        &[
            c(0, 0),
            c(2, 0),
            c(1, 4),
            c(2, 1),
            c(4, 0),
            c(2, 2),
            c(4, 4),
            c(2, 3),
        ],
    );
    assert!(pos2.would_connect(c(2, 4), Seat::Two));
    assert!(!pos2.would_connect(c(3, 3), Seat::Two));
    for n in 0..5 {
        assert_eq!(
            strong_move(&pos2, &mut rng(n), TEST_BUDGET),
            Some(Move::Place(c(2, 4)))
        );
    }
    // with two threats it still picks one of them
    let mv = strong_move(&pos, &mut rng(9), TEST_BUDGET).expect("game on");
    assert!(
        mv == Move::Place(c(2, 4)) || mv == Move::Place(c(1, 4)),
        "{mv:?}"
    );
}

#[test]
fn strong_move_pie_rule() {
    let mut r = rng(3);
    // first move with the swap pending: an outer-ring cell
    let empty = Position::new(11).expect("size");
    for _ in 0..20 {
        let Some(Move::Place(cell)) = strong_move(&empty, &mut r, TEST_BUDGET) else {
            panic!("expected a placement");
        };
        assert!(
            cell.row == 0 || cell.col == 0 || cell.row == 10 || cell.col == 10,
            "{cell:?}"
        );
    }
    // swaps a central opening stone, not an edge one
    let mut centre = Position::new(11).expect("size");
    centre.play(Move::Place(c(5, 5))).expect("legal");
    assert_eq!(strong_move(&centre, &mut r, TEST_BUDGET), Some(Move::Swap));
    let mut edge = Position::new(11).expect("size");
    edge.play(Move::Place(c(0, 3))).expect("legal");
    assert!(matches!(
        strong_move(&edge, &mut r, TEST_BUDGET),
        Some(Move::Place(_))
    ));
    // no swap after an opening
    let mut opened = Position::with_opening(11, &[c(1, 1), c(9, 9)]).expect("opening");
    opened.play(Move::Place(c(5, 5))).expect("legal");
    assert!(matches!(
        strong_move(&opened, &mut r, TEST_BUDGET),
        Some(Move::Place(_))
    ));
}

/// Plays one game; returns the winner. `strong` is the strong bot's seat.
fn match_game(game: u64, size: u8, strong: Seat, budget: u32) -> Option<Seat> {
    let mut r = rng(10_000 + game);
    let mut pos = if game % 4 >= 2 {
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&game.to_le_bytes());
        Position::with_opening(size, &opening(&seed, size, 4).expect("opening")).expect("valid")
    } else {
        Position::new(size).expect("size")
    };
    while let Some(seat) = pos.to_move() {
        let mv = if seat == strong {
            strong_move(&pos, &mut r, budget)
        } else {
            random_move(&pos, &mut r)
        };
        pos.play(mv.expect("a move while the game is on"))
            .expect("legal move");
    }
    pos.outcome().and_then(Outcome::winner)
}

#[test]
fn strong_beats_random_95_of_100_on_9x9() {
    let mut strong_wins = 0;
    for game in 0..100u64 {
        let strong = if game % 2 == 0 { Seat::One } else { Seat::Two };
        if match_game(game, 9, strong, MATCH_BUDGET) == Some(strong) {
            strong_wins += 1;
        }
    }
    eprintln!(
        "strong_move (budget {MATCH_BUDGET}) won {strong_wins} of 100 games against random_move"
    );
    assert!(strong_wins >= 95, "strong won only {strong_wins} of 100");
}
