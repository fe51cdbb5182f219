//! Measures what one analysis of the solver ([`hex_search::solver::analyse`]: fill-in, two
//! H-searches, the win check) costs on random 11x11 positions, with the root's bounds, the
//! tree's and none ([`VcLimits::ROOT`], [`VcLimits::TREE`], [`VcLimits::CLOSURE`]) and a few others (fulls and semis kept per
//! pair, largest carrier, OR depth, passes), to choose the tree's (issue 23).
//!
//! ```text
//! cargo run --release -p hex-search --example knowledge_cost -- SIZE POSITIONS SEED
//! ```
//! Prints, per number of stones, the mean time of one analysis with each bound and how often
//! each found a proof or a mustplay.

use std::time::Instant;

use hex_search::board::Board;
use hex_search::solver::{Verdict, analyse, analyse_quick};
use hex_search::vc::VcLimits;
use hex_search::{Cell, Move, Position};
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (size, positions, seed) = match args.as_slice() {
        [s, p, seed] => (*s as u8, *p as u32, *seed),
        _ => {
            eprintln!("usage: knowledge_cost SIZE POSITIONS SEED");
            std::process::exit(2);
        }
    };
    let mut rng = Pcg64::seed_from_u64(seed);
    let cells = u32::from(size) * u32::from(size);
    for stones in [4u32, 10, 20, 30, 40, 60] {
        if stones >= cells {
            continue;
        }
        let mut boards = Vec::new();
        while boards.len() < positions as usize {
            let Ok(mut pos) = Position::new(size) else {
                return;
            };
            let mut placed = 0;
            while placed < stones && !pos.is_over() {
                let k = rng.next_u32() % cells;
                let cell = Cell::new((k / u32::from(size)) as u8, (k % u32::from(size)) as u8);
                if pos.play(Move::Place(cell)).is_ok() {
                    placed += 1;
                }
            }
            if !pos.is_over() {
                boards.push((Board::of(&pos), pos.mover().number()));
            }
        }
        let variant = |f, s, c, o, p| VcLimits {
            fulls_per_pair: f,
            semis_per_pair: s,
            max_carrier: c,
            or_depth: o,
            passes: p,
            templates: true,
            cell_carrier: 2,
            closure: false,
        };
        for (name, limits) in [
            ("root", VcLimits::ROOT),
            ("tree", VcLimits::TREE),
            ("closure", VcLimits::CLOSURE),
            ("2/4/16/2/3", variant(2, 4, 16, 2, 3)),
            ("3/6/24/2/4", variant(3, 6, 24, 2, 4)),
            ("2/4/24/3/6", variant(2, 4, 24, 3, 6)),
            ("4/8/24/2/6", variant(4, 8, 24, 2, 6)),
        ] {
            for quick in [false, true] {
                let t = Instant::now();
                let (mut proven, mut must) = (0, 0);
                for (board, mover) in &boards {
                    let a = if quick {
                        analyse_quick(board, *mover, &limits)
                    } else {
                        analyse(board, *mover, &limits)
                    };
                    match a.verdict {
                        Verdict::Won { .. } | Verdict::Lost { .. } => proven += 1,
                        Verdict::Open { mustplay: Some(_) } => must += 1,
                        Verdict::Open { mustplay: None } => {}
                    }
                }
                let per = t.elapsed().as_secs_f64() * 1000.0 / boards.len().max(1) as f64;
                println!(
                    "{stones:>3} stones, {name}{}: {per:.2} ms an analysis; proven {proven}, mustplay {must} of {}",
                    if quick { " quick" } else { "" },
                    boards.len()
                );
            }
        }
    }
}
