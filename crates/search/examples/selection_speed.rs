//! Measures the tree search's speed at a fixed number of playouts (issue 23, fifth piece: the
//! selection's speed): the house search ([`hex_search::Tuning::HOUSE`]) runs `SEARCHES`
//! searches of `PLAYOUTS` playouts each, from random `SIZE` x `SIZE` positions of 4 to 30
//! stones drawn from `SEED`, one thread, no clock in the search.
//!
//! ```text
//! cargo run --release -p hex-search --example selection_speed -- SIZE SEARCHES PLAYOUTS SEED
//! ```
//! Prints the playouts run, the CPU seconds the searches took (this thread's own time on the
//! processor, from `/proc/thread-self/schedstat` on Linux; wall time elsewhere), the playouts
//! per CPU-second, and a checksum of the moves chosen: two builds that make the same choices
//! print the same checksum. Meant to run under `valgrind --tool=callgrind` as well, whose
//! instruction counts compare two builds on a loaded machine.

use std::time::Instant;

use hex_search::{EMPTY, Limits, Move, Position, strong_move_reported};
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// This thread's CPU time in seconds, when the system tells it.
fn cpu_s() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (size, searches, playouts, seed) = match args.as_slice() {
        [size, n, p, seed] if (2..=19).contains(size) => (*size as u8, *n, *p as u32, *seed),
        _ => {
            eprintln!("usage: selection_speed SIZE SEARCHES PLAYOUTS SEED (SIZE 2 to 19)");
            std::process::exit(2);
        }
    };
    let mut rng = Pcg64::seed_from_u64(seed);
    let cells = u64::from(size) * u64::from(size);
    let mut positions = Vec::new();
    for k in 0..searches {
        let Ok(mut pos) = Position::new(size) else {
            eprintln!("no board of size {size}");
            std::process::exit(2);
        };
        let stones = (4 + k % 27).min(cells / 2);
        for _ in 0..stones {
            let empties: Vec<usize> = (0..pos.board_slice().len())
                .filter(|&i| pos.board_slice()[i] == EMPTY)
                .collect();
            let i = empties[(rng.next_u64() % empties.len() as u64) as usize];
            pos.place_move(i);
        }
        positions.push(pos);
    }
    let (cpu0, wall0) = (cpu_s(), Instant::now());
    let (mut run, mut checksum) = (0u64, 0u64);
    for pos in &positions {
        let limits = Limits {
            max_playouts: playouts,
            stop: &mut |_| false,
        };
        let (mv, info) = strong_move_reported(pos, &mut rng, limits);
        run += info.map_or(0, |i| u64::from(i.playouts));
        let code = match mv {
            Some(Move::Place(c)) => u64::from(c.row) * 32 + u64::from(c.col) + 1,
            Some(Move::Swap) => 1_000,
            None => 0,
        };
        checksum = checksum.wrapping_mul(1_000_003).wrapping_add(code);
    }
    let spent = match (cpu0, cpu_s()) {
        (Some(a), Some(b)) => b - a,
        _ => wall0.elapsed().as_secs_f64(),
    };
    println!(
        "{run} playouts in {spent:.3} CPU s: {:.0} playouts per CPU-second; moves {checksum:#018x}",
        run as f64 / spent
    );
}
