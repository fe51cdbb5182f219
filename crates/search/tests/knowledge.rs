//! The Hex knowledge of the house search (issue 23): at the root (`Tuning::KNOWLEDGE`) a proven
//! win is played at once, and a threat to connect limits the root to the mustplay; in the tree
//! (`Tuning::HOUSE`'s local-shape prior, `prune_dead`) the prior and the dead cells' pruning.
//! The baseline "plain search" is `Tuning::PLAIN`, the house search without any knowledge.

use hex_search::board::Board;
use hex_search::solver::{Verdict, analyse};
use hex_search::vc::VcLimits;
use hex_search::{Cell, Limits, Move, Position, Tuning, strong_move_tuned};
use rand_core::SeedableRng;
use rand_pcg::Pcg64;

fn one_playout(pos: &Position, tuning: &Tuning, seed: u64) -> Option<Move> {
    let mut rng = Pcg64::seed_from_u64(seed);
    strong_move_tuned(
        pos,
        &mut rng,
        Limits {
            max_playouts: 1,
            stop: &mut |_| false,
        },
        tuning,
    )
}

#[test]
fn a_proven_win_is_played_at_once_whatever_the_budget() {
    // 5x5, seat 1 on move: (1,2) and (3,1) lost their bridge to seat 2's (2,2); (2,1) joins
    // them and both edge templates hold
    let pos = Position::from_compact("5:0:0:0000000100002000100000002").expect("valid");
    for seed in 0..8 {
        assert_eq!(
            one_playout(&pos, &Tuning::KNOWLEDGE, seed),
            Some(Move::Place(Cell::new(2, 1))),
            "seed {seed}"
        );
    }
    // without the knowledge one playout picks no such thing reliably
    let plain: Vec<_> = (0..8)
        .map(|seed| one_playout(&pos, &Tuning::PLAIN, seed))
        .collect();
    assert!(
        plain
            .iter()
            .any(|m| *m != Some(Move::Place(Cell::new(2, 1)))),
        "{plain:?}"
    );
}

#[test]
fn against_a_threat_to_connect_the_root_is_limited_to_the_mustplay() {
    // 7x7, seat 2 on move: seat 1 threatens to join (1,3) and (3,2)-(4,2) at (2,2)
    let pos = Position::from_compact("7:0:0:0000000000100000020000010000001000000000000000002")
        .expect("valid");
    let board = Board::of(&pos);
    let Verdict::Open {
        mustplay: Some(must),
    } = analyse(&board, 2, &VcLimits::ROOT).verdict
    else {
        panic!("expected a threat")
    };
    assert!(must.len() < 20, "{must:?}");
    for seed in 0..8 {
        let Some(Move::Place(c)) = one_playout(&pos, &Tuning::KNOWLEDGE, seed) else {
            panic!("a placement")
        };
        let i = board
            .at(isize::from(c.row), isize::from(c.col))
            .expect("on board");
        assert!(must.contains(i), "seed {seed}: {c:?} outside {must:?}");
    }
}

#[test]
fn the_fill_in_keeps_dead_cells_out_of_the_root() {
    // 5x5, seat 1 on move: (0,2) sits between seat 1's top edge and a wall of seat 2's stones
    // ((0,1), (1,1), (1,2), (0,3)): dead, and the first empty cell, so one playout of the
    // plain search plays it
    let pos = Position::from_compact("5:0:0:1202002200000000000011100").expect("valid");
    let dead = Some(Move::Place(Cell::new(0, 2)));
    assert_eq!(one_playout(&pos, &Tuning::PLAIN, 1), dead);
    for tuning in [Tuning::FILL_IN, Tuning::KNOWLEDGE] {
        for seed in 0..8 {
            assert_ne!(one_playout(&pos, &tuning, seed), dead, "seed {seed}");
        }
    }
}

#[test]
fn the_shape_prior_answers_an_intrusion_into_a_bridge_from_the_first_playout() {
    // 5x5, seat 1 on move: its (1,1) and (2,2) were a bridge over (1,2) and (2,1), and seat 2
    // took (1,2); (2,1) saves the bridge. Seat 2's other stone is far off at (4,4).
    let pos = Position::from_compact("5:0:0:0000001200001000000000002").expect("valid");
    let save = Some(Move::Place(Cell::new(2, 1)));
    for seed in 0..8 {
        assert_eq!(one_playout(&pos, &Tuning::HOUSE, seed), save, "seed {seed}");
    }
    // the plain search's first playout goes to the first empty cell
    assert_eq!(
        one_playout(&pos, &Tuning::PLAIN, 0),
        Some(Move::Place(Cell::new(0, 0)))
    );
}

#[test]
fn dead_cell_pruning_keeps_a_dead_cell_out_of_the_tree_s_root() {
    // the position of `the_fill_in_keeps_dead_cells_out_of_the_root`: (0,2) is dead by the
    // six-neighbour pattern and the plain search's first playout plays it
    let pos = Position::from_compact("5:0:0:1202002200000000000011100").expect("valid");
    let dead = Some(Move::Place(Cell::new(0, 2)));
    assert_eq!(one_playout(&pos, &Tuning::PLAIN, 1), dead);
    let pruning = Tuning {
        prune_dead: true,
        ..Tuning::PLAIN
    };
    for seed in 0..8 {
        let mv = one_playout(&pos, &pruning, seed);
        assert!(mv.is_some() && mv != dead, "seed {seed}: {mv:?}");
    }
}
