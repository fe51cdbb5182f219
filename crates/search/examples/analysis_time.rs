//! Measures the arena's analysis of a game (issue 21): the time [`analyse_game`] takes per game
//! and per position, on games played by the strong house search from random openings.
//!
//! ```text
//! cargo run --release -p hex-search --example analysis_time -- SIZE GAMES MOVE_PLAYOUTS POSITION_PLAYOUTS SEED
//! ```
//! `MOVE_PLAYOUTS` is the search budget of the players (what makes the games realistic in
//! length), `POSITION_PLAYOUTS` the analysis budget per position (the server's default is
//! [`hex_search::strong_budget_for`] of the size: 5 000 on 11x11). Each game opens with 4
//! random stones per seat, as the arena's default sets do. Prints the moves per game, the
//! wall time and the process CPU time per game, and the mistakes found.

use std::time::{Duration, Instant};

use hex_search::analysis::analyse_game;
use hex_search::{Cell, Move, Position, strong_move};
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// This process's CPU time (user + system), from /proc (Linux); zero elsewhere.
fn cpu_time() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
    let field = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
    Duration::from_millis((field(11) + field(12)) * 10)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: u64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let size = num(0, 11) as u8;
    let games = num(1, 10);
    let move_playouts = num(2, 2000) as u32;
    let position_playouts = num(3, u64::from(hex_search::strong_budget_for(size))) as u32;
    let mut rng = Pcg64::seed_from_u64(num(4, 21));
    let (mut moves_total, mut wall, mut cpu, mut mistakes) = (0, Duration::ZERO, Duration::ZERO, 0);
    for g in 0..games {
        let mut opening: Vec<Cell> = vec![];
        let n = u64::from(size) * u64::from(size);
        while opening.len() < 8 {
            let i = rng.next_u64() % n;
            let c = Cell::new((i / u64::from(size)) as u8, (i % u64::from(size)) as u8);
            if !opening.contains(&c) {
                opening.push(c);
            }
        }
        let Ok(mut pos) = Position::with_opening(size, &opening) else {
            continue;
        };
        let mut moves: Vec<Move> = vec![];
        while let Some(mv) = strong_move(&pos, &mut rng, move_playouts) {
            moves.push(mv);
            if pos.play(mv).is_err() {
                break;
            }
        }
        let (t0, c0) = (Instant::now(), cpu_time());
        let a = analyse_game(
            size,
            &opening,
            &moves,
            position_playouts,
            &mut rng,
            &mut || false,
        )
        .expect("a legal game");
        let (dt, dc) = (t0.elapsed(), cpu_time().saturating_sub(c0));
        println!(
            "game {g}: {} moves, {:.2} s wall, {:.2} s CPU, {} mistakes",
            moves.len(),
            dt.as_secs_f64(),
            dc.as_secs_f64(),
            a.mistakes.len()
        );
        moves_total += moves.len();
        wall += dt;
        cpu += dc;
        mistakes += a.mistakes.len();
    }
    let g = games.max(1) as f64;
    println!(
        "{size}x{size}, {position_playouts} playouts per position: {:.1} moves per game, {:.2} s wall and {:.2} s CPU per game, {:.1} ms per position, {:.1} mistakes per game",
        moves_total as f64 / g,
        wall.as_secs_f64() / g,
        cpu.as_secs_f64() / g,
        wall.as_secs_f64() * 1000.0 / (moves_total as f64 + g),
        mistakes as f64 / g
    );
}
