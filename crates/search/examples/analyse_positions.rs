//! Prints what the Hex knowledge finds in given positions (issue 23): for each line of stdin
//! `SIZE MOVE MOVE ...` (moves in cell names, `a1`, black first, no swap), the player on move,
//! the solver's verdict ([`hex_search::solver::analyse`]) and, for each player, whether
//! H-search found a full connection between its edges and how many semi ones, with the given
//! bounds. Made to be read beside another engine's answers on the same positions, to see which
//! connections our bounded H-search misses.
//!
//! ```text
//! cargo run --release -p hex-search --example analyse_positions -- [FULLS SEMIS CARRIER OR PASSES [CELL_CARRIER [CLOSURE]]]
//! ```
//! Without numbers the root's bounds ([`VcLimits::ROOT`]). One output line per input line:
//! `N mover=1|2 verdict=won:CELL|lost|open|open:MUSTPLAY_LEN mine=F/S theirs=F/S us=MICROS`
//! where `F` is 1 when a full edge-to-edge connection was found and `S` the number of semis
//! (`mine` for the player on move), after the fill-in of dead and captured cells; a line that
//! does not read as a legal game prints `N error ...`.

use std::io::BufRead;
use std::time::Instant;

use hex_search::board::Board;
use hex_search::inferior::fill_in;
use hex_search::solver::{Verdict, analyse};
use hex_search::vc::{VcLimits, h_search};
use hex_search::{Move, Position, cell_name, parse_cell_name};

fn position(line: &str) -> Result<Position, String> {
    let mut words = line.split_whitespace();
    let size: u8 = words.next().and_then(|w| w.parse().ok()).ok_or("no size")?;
    let mut pos = Position::new(size).map_err(|e| format!("{e:?}"))?;
    for w in words {
        let cell = parse_cell_name(w).ok_or_else(|| format!("bad cell {w}"))?;
        pos.play(Move::Place(cell))
            .map_err(|e| format!("{w}: {e:?}"))?;
    }
    Ok(pos)
}

fn name(board: &Board, i: usize) -> String {
    let (r, c) = board.row_col(i);
    cell_name(hex_search::Cell::new(r as u8, c as u8))
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let limits = match args.as_slice() {
        [] => VcLimits::ROOT,
        [f, s, c, o, p, cc @ ..] if cc.len() <= 2 => VcLimits {
            fulls_per_pair: *f,
            semis_per_pair: *s,
            max_carrier: *c,
            or_depth: *o,
            passes: *p,
            templates: true,
            cell_carrier: cc.first().copied().unwrap_or(2),
            closure: cc.get(1) == Some(&1),
        },
        _ => {
            eprintln!(
                "usage: analyse_positions [FULLS SEMIS CARRIER OR PASSES [CELL_CARRIER [CLOSURE]]] < positions"
            );
            std::process::exit(2);
        }
    };
    for (n, line) in std::io::stdin().lock().lines().enumerate() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let pos = match position(&line) {
            Ok(p) if !p.is_over() => p,
            Ok(_) => {
                println!("{n} error game over");
                continue;
            }
            Err(e) => {
                println!("{n} error {e}");
                continue;
            }
        };
        let board = Board::of(&pos);
        let me = pos.mover().number();
        let t = Instant::now();
        let a = analyse(&board, me, &limits);
        let us = t.elapsed().as_micros();
        let fill = fill_in(&board);
        let count = |player: u8| {
            let v = h_search(&fill.board, player, &limits);
            (
                u8::from(v.edge_to_edge_full().is_some()),
                v.edge_to_edge_semis().len(),
            )
        };
        let (mf, ms) = count(me);
        let (tf, ts) = count(me ^ 3);
        let verdict = match a.verdict {
            Verdict::Won { win } => format!("won:{}", name(&board, win)),
            Verdict::Lost { .. } => "lost".to_string(),
            Verdict::Open { mustplay: None } => "open".to_string(),
            Verdict::Open {
                mustplay: Some(m), ..
            } => format!("open:{}", m.len()),
        };
        println!("{n} mover={me} verdict={verdict} mine={mf}/{ms} theirs={tf}/{ts} us={us}");
    }
}
