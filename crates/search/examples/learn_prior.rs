//! Makes the learned move prior of the house search (issue 23, ninth piece;
//! `hex_search::patterns`): games of the house search against itself, each move chosen with
//! a fixed number of playouts, are written down as positions and chosen moves; the trainer
//! then fits a Bradley-Terry strength to each twelve-cell pattern and prints the weights file
//! the crate compiles in (`src/patterns.txt`).
//!
//! ```text
//! cargo run --release -p hex-search --example learn_prior -- play SIZE GAMES PLAYOUTS SEED > moves.txt
//! cargo run --release -p hex-search --example learn_prior -- train ITERATIONS MIN_SEEN MIN_RATE moves.txt... > patterns.txt
//! ```
//! `play` starts each game from a random 1+1-stone opening and writes one line per searched
//! move: the position (`Position::to_compact`), the row and the column played, the
//! search's win rate for the mover after it, and the row and column of the opponent's last
//! move. Moves that win at once or stop an immediate win
//! are left out (the search does not choose them).
//! `train` learns from the moves whose win rate lies within `MIN_RATE..=1 - MIN_RATE` (once a
//! game is decided the search's choice says little: every move wins, or none does) and keeps
//! the patterns seen at least `MIN_SEEN` times among the candidates.
//! Standard library plus the engine only.

use std::io::{BufRead, BufReader, Write};

use hex_search::patterns::{Choice, mover_codes, relation, train};
use hex_search::{Cell, Limits, Move, Position, strong_move_reported};
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn usage() -> ! {
    eprintln!(
        "usage: learn_prior play SIZE GAMES PLAYOUTS SEED | learn_prior train ITERATIONS MIN_SEEN MIN_RATE FILE..."
    );
    std::process::exit(2);
}

/// True when the seat on move has a winning cell, or the opponent has one: such a move is
/// forced, not chosen.
fn forced(pos: &Position) -> bool {
    let Some(seat) = pos.to_move() else {
        return true;
    };
    pos.empty_cells()
        .into_iter()
        .any(|c| pos.would_connect(c, seat) || pos.would_connect(c, seat.other()))
}

fn play(size: u8, games: u32, playouts: u32, seed: u64) {
    let mut rng = Pcg64::seed_from_u64(seed);
    let cells = u32::from(size) * u32::from(size);
    let cell = |k: u32| Cell::new((k / u32::from(size)) as u8, (k % u32::from(size)) as u8);
    let out = std::io::stdout();
    let mut out = out.lock();
    let mut lines = 0u64;
    for g in 0..games {
        let first = rng.next_u32() % cells;
        let second = (first + 1 + rng.next_u32() % (cells - 1)) % cells;
        let mut pos = Position::new(size).unwrap_or_else(|_| usage());
        for k in [first, second] {
            if pos.play(Move::Place(cell(k))).is_err() {
                usage();
            }
        }
        // the opponent's last move: the second opening stone at first
        let mut last = cell(second);
        while !pos.is_over() {
            let skip = forced(&pos);
            let (Some(mv), info) = strong_move_reported(
                &pos,
                &mut rng,
                Limits {
                    max_playouts: playouts,
                    stop: &mut |_| false,
                },
            ) else {
                break;
            };
            if let (Move::Place(c), false, Some(info)) = (mv, skip, info) {
                let _ = writeln!(
                    out,
                    "{} {} {} {:.3} {} {}",
                    pos.to_compact(),
                    c.row,
                    c.col,
                    info.win_rate,
                    last.row,
                    last.col
                );
                lines += 1;
            }
            if pos.play(mv).is_err() {
                break;
            }
            if let Move::Place(c) = mv {
                last = c;
            }
        }
        eprintln!("game {} done, {lines} positions", g + 1);
    }
}

fn read_choices(files: &[String], min_rate: f64) -> Vec<Choice> {
    let mut choices = Vec::new();
    for f in files {
        let Ok(file) = std::fs::File::open(f) else {
            eprintln!("cannot open {f}");
            std::process::exit(1);
        };
        for line in BufReader::new(file).lines().map_while(Result::ok) {
            let mut parts = line.split_ascii_whitespace();
            let (Some(p), Some(r), Some(c)) = (parts.next(), parts.next(), parts.next()) else {
                continue;
            };
            let rate: f64 = parts.next().and_then(|x| x.parse().ok()).unwrap_or(0.5);
            if rate < min_rate || rate > 1.0 - min_rate {
                continue;
            }
            let last = match (parts.next(), parts.next()) {
                (Some(r), Some(c)) => r
                    .parse()
                    .ok()
                    .zip(c.parse().ok())
                    .map(|(r, c)| Cell::new(r, c)),
                _ => None,
            };
            let (Ok(pos), Ok(r), Ok(c)) = (Position::from_compact(p), r.parse(), c.parse()) else {
                continue;
            };
            let played = Cell::new(r, c);
            let codes = mover_codes(&pos);
            if let Some(chosen) = codes.iter().position(|&(cell, _, _)| cell == played) {
                choices.push(Choice {
                    relations: codes
                        .iter()
                        .map(|&(cell, _, _)| relation(cell, last))
                        .collect(),
                    edges: codes.iter().map(|&(_, _, e)| e).collect(),
                    codes: codes.into_iter().map(|(_, k, _)| k).collect(),
                    chosen,
                });
            }
        }
    }
    choices
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("play") => {
            let parsed = (|| {
                Some((
                    args.get(1)?.parse::<u8>().ok()?,
                    args.get(2)?.parse::<u32>().ok()?,
                    args.get(3)?.parse::<u32>().ok()?,
                    args.get(4)?.parse::<u64>().ok()?,
                ))
            })();
            let Some((size, games, playouts, seed)) = parsed else {
                usage()
            };
            if !(2..=26).contains(&size) {
                usage();
            }
            play(size, games, playouts, seed);
        }
        Some("train") => {
            let parsed = (|| {
                Some((
                    args.get(1)?.parse::<usize>().ok()?,
                    args.get(2)?.parse::<u32>().ok()?,
                    args.get(3)?.parse::<f64>().ok()?,
                ))
            })();
            let Some((iterations, min_seen, min_rate)) = parsed else {
                usage()
            };
            let files = &args[4.min(args.len())..];
            if files.is_empty() {
                usage();
            }
            let choices = read_choices(files, min_rate);
            let learned = train(&choices, iterations);
            let kept: Vec<_> = learned
                .patterns
                .iter()
                .filter(|e| e.2 >= min_seen)
                .collect();
            println!(
                "# hexarena learned move prior: {} choices (win rate {min_rate}..={}), {} patterns seen, {} kept (seen at least {min_seen} times), {iterations} iterations",
                choices.len(),
                1.0 - min_rate,
                learned.patterns.len(),
                kept.len()
            );
            println!(
                "# canonical code, ln(gamma) x 1000; last: next to the last move, a bridge away; edge: 5 x own-edge distance + opponent-edge distance, 0..=4 (examples/learn_prior.rs)"
            );
            let [_, next, bridge] = learned.ln_last.map(|x| (x * 1000.0).round() as i32);
            println!("last {next} {bridge}");
            let edges: Vec<String> = learned
                .ln_edge
                .iter()
                .map(|x| ((x * 1000.0).round() as i32).to_string())
                .collect();
            println!("edge {}", edges.join(" "));
            for (code, ln, _, _) in kept {
                println!("{code} {}", (ln * 1000.0).round() as i32);
            }
        }
        _ => usage(),
    }
}
