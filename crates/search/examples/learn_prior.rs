//! Makes the learned move prior of the house search (issue 23, ninth piece;
//! `hex_search::patterns`): games of a house search against itself are written down as game
//! records; the trainer replays them into positions and chosen moves, fits a Bradley-Terry
//! strength to each twelve-cell pattern and prints the weights file the crate compiles in
//! (`src/patterns.txt`).
//!
//! ```text
//! cargo run --release -p hex-search --example learn_prior -- play SIZE GAMES PLAYOUTS SEED [TUNING [MS]] > games.txt
//! cargo run --release -p hex-search --example learn_prior -- train ITERATIONS MIN_SEEN MIN_RATE FILE... > patterns.txt
//! cargo run --release -p hex-search --example learn_prior -- assess WEIGHTS MIN_RATE FILE...
//! ```
//! `play` starts each game from a random 1+1-stone opening; the teacher is `TUNING` (a name of
//! `Tuning::NAMED`, `house` when left out) with at most `PLAYOUTS` playouts a move and, with
//! `MS`, at most `MS` ms of thinking a move (the clock is read here, not in the engine). It
//! writes one line per game: `game SIZE`, then every move by its cell name (`f6`), a move the
//! search chose followed by `=` and the search's win rate for the mover after it (`f6=0.532`).
//! The opening's two stones, moves chosen without a search and moves that win at once or stop
//! an immediate win carry no rate: the search does not choose them, so the trainer
//! skips them (their positions still lead to the next ones). Records append: data from several
//! runs and sessions train together (`crates/search/data/`). Records hold placements only: a
//! game in which the teacher swaps is left out. Lines starting `#` are comments.
//! `train` learns from the rated moves whose win rate lies within `MIN_RATE..=1 - MIN_RATE`
//! (once a game is decided the search's choice says little: every move wins, or none does) and
//! names the patterns seen at least `MIN_SEEN` times among the candidates (the rarer share one
//! strength, `other`, which also stands for the patterns it never saw). It also reads the
//! older one-position-a-line records (`COMPACT ROW COL RATE LAST_ROW LAST_COL`).
//! `assess` says how well a weights file (`patterns.txt`'s form) foretells the choices of
//! records it was not trained on: how often the chosen move has the largest gamma, lies among
//! the five largest (a move tied with others shares its places with them), and the mean
//! log-likelihood of the choice (the
//! chosen gamma over the sum of all), beside a uniform choice's.
//! Standard library plus the engine only.

use std::io::{BufRead, BufReader, Write};
use std::time::{Duration, Instant};

use hex_search::patterns::{Choice, Weights, choice_of, record_choices, train};
use hex_search::{Cell, Limits, Move, Position, Tuning, cell_name, strong_move_tuned_reported};
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn usage() -> ! {
    eprintln!(
        "usage: learn_prior play SIZE GAMES PLAYOUTS SEED [TUNING [MS]] | learn_prior train ITERATIONS MIN_SEEN MIN_RATE FILE... | learn_prior assess WEIGHTS MIN_RATE FILE..."
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

/// The teacher: a tuning, a playout cap and an optional time a move.
struct Teacher {
    tuning: Tuning,
    playouts: u32,
    per_move: Option<Duration>,
}

fn play(size: u8, games: u32, seed: u64, teacher: &Teacher) {
    let mut rng = Pcg64::seed_from_u64(seed);
    let cells = u32::from(size) * u32::from(size);
    let cell = |k: u32| Cell::new((k / u32::from(size)) as u8, (k % u32::from(size)) as u8);
    let out = std::io::stdout();
    let mut out = out.lock();
    let mut rated = 0u64;
    for g in 0..games {
        let first = rng.next_u32() % cells;
        let second = (first + 1 + rng.next_u32() % (cells - 1)) % cells;
        let mut pos = Position::new(size).unwrap_or_else(|_| usage());
        let mut record = format!("game {size}");
        for k in [first, second] {
            if pos.play(Move::Place(cell(k))).is_err() {
                usage();
            }
            record.push(' ');
            record.push_str(&cell_name(cell(k)));
        }
        while !pos.is_over() {
            let skip = forced(&pos);
            let started = Instant::now();
            let per_move = teacher.per_move;
            let (Some(mv), info) = strong_move_tuned_reported(
                &pos,
                &mut rng,
                Limits {
                    max_playouts: teacher.playouts,
                    stop: &mut |_| per_move.is_some_and(|d| started.elapsed() >= d),
                },
                &teacher.tuning,
            ) else {
                break;
            };
            let Move::Place(c) = mv else {
                // records hold placements only (see the module doc)
                break;
            };
            record.push(' ');
            record.push_str(&cell_name(c));
            if let (false, Some(info)) = (skip, info) {
                record.push_str(&format!("={:.3}", info.win_rate));
                rated += 1;
            }
            if pos.play(mv).is_err() {
                break;
            }
        }
        if pos.is_over() {
            let _ = writeln!(out, "{record}");
            let _ = out.flush();
        }
        eprintln!("game {} done, {rated} rated moves", g + 1);
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
            if line.starts_with('#') {
                continue;
            }
            if line.starts_with("game ") {
                match record_choices(&line, min_rate) {
                    Ok(read) => choices.extend(read),
                    Err((read, token)) => {
                        eprintln!("{f}: a record stops at {token:?}");
                        choices.extend(read);
                    }
                }
                continue;
            }
            // the older records: one position a line
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
            choices.extend(choice_of(&pos, Cell::new(r, c), last));
        }
    }
    choices
}

/// Prints how well `weights` foretell `choices` (see the module doc).
fn assess(weights: &Weights, choices: &[Choice]) {
    let (mut top1, mut top5, mut ll, mut uniform) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for ch in choices {
        let score: Vec<f64> = ch
            .codes
            .iter()
            .enumerate()
            .map(|(k, &code)| {
                let rel = ch.relations.get(k).copied().unwrap_or(0);
                let edge = ch.edges.get(k).copied().unwrap_or(0);
                f64::from(weights.ln_gamma(code) + weights.ln_last(rel) + weights.ln_edge(edge))
            })
            .collect();
        let Some(&mine) = score.get(ch.chosen) else {
            continue;
        };
        let above = score.iter().filter(|&&x| x > mine).count();
        let level = score.iter().filter(|&&x| x == mine).count();
        if above == 0 {
            top1 += 1.0 / level as f64;
        }
        // the chosen move shares the places its level spans with the moves tied with it
        if above < 5 {
            top5 += ((5 - above) as f64 / level as f64).min(1.0);
        }
        let max = score.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = score.iter().map(|x| (x - max).exp()).sum();
        ll += mine - max - sum.ln();
        uniform -= (score.len() as f64).ln();
    }
    let n = choices.len().max(1) as f64;
    println!(
        "{} choices: first {:.3}, among the first five {:.3}, log-likelihood {:.3} a choice (uniform {:.3})",
        choices.len(),
        top1 / n,
        top5 / n,
        ll / n,
        uniform / n
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("play") => {
            let parsed = (|| {
                let tuning = match args.get(5) {
                    None => Tuning::HOUSE,
                    Some(name) => Tuning::named(name)?,
                };
                let per_move = match args.get(6) {
                    None => None,
                    Some(ms) => Some(Duration::from_millis(ms.parse().ok()?)),
                };
                Some((
                    args.get(1)?.parse::<u8>().ok()?,
                    args.get(2)?.parse::<u32>().ok()?,
                    args.get(4)?.parse::<u64>().ok()?,
                    Teacher {
                        tuning,
                        playouts: args.get(3)?.parse::<u32>().ok()?,
                        per_move,
                    },
                ))
            })();
            let Some((size, games, seed, teacher)) = parsed else {
                usage()
            };
            if !(2..=26).contains(&size) {
                usage();
            }
            play(size, games, seed, &teacher);
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
            let learned = train(&choices, iterations, min_seen);
            println!(
                "# hexarena learned move prior: {} choices (win rate {min_rate}..={}), {} patterns named (seen at least {min_seen} times), the rarer pooled as `other`, {iterations} iterations",
                choices.len(),
                1.0 - min_rate,
                learned.patterns.len(),
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
            println!("other {}", (learned.ln_other * 1000.0).round() as i32);
            for (code, ln, _, _) in &learned.patterns {
                println!("{code} {}", (ln * 1000.0).round() as i32);
            }
        }
        Some("assess") => {
            let (Some(path), Some(Ok(min_rate))) =
                (args.get(1), args.get(2).map(|x| x.parse::<f64>()))
            else {
                usage()
            };
            let files = &args[3.min(args.len())..];
            if files.is_empty() {
                usage();
            }
            let weights = std::fs::read_to_string(path)
                .map_err(|e| e.to_string())
                .and_then(|text| Weights::parse(&text));
            match weights {
                Ok(weights) => assess(&weights, &read_choices(files, min_rate)),
                Err(e) => {
                    eprintln!("{path}: {e}");
                    std::process::exit(1);
                }
            }
        }
        _ => usage(),
    }
}
