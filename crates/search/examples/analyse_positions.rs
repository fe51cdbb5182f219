//! Prints what the Hex knowledge finds in given positions (issue 23): for each line of stdin
//! `SIZE MOVE MOVE ...` (moves in cell names, `a1`, black first, no swap), the player on move,
//! the solver's verdict ([`hex_search::solver::analyse`]) and, for each player, whether
//! H-search found a full connection between its edges and how many semi ones, with the given
//! bounds. Made to be read beside another engine's answers on the same positions, to see which
//! connections our bounded H-search misses.
//!
//! ```text
//! cargo run --release -p hex-search --example analyse_positions -- [closure | FULLS SEMIS CARRIER OR PASSES [CELL_CARRIER]] < positions
//! ```
//! Without arguments the root's bounds ([`VcLimits::ROOT`]); `closure` for H-search to
//! closure ([`VcLimits::CLOSURE`]). One output line per input line:
//! `N mover=1|2 verdict=V mine=F/S theirs=F/S us=MICROS`, where `V` is `won:CELL`, `lost`,
//! `open` or `open:LEN:CELLS` (a mustplay of `LEN` padded cells, the cells named), `F` is 1
//! when a full edge-to-edge connection was found and `S` the number of semi ones (`mine` for
//! the player on move), after the fill-in of dead and captured cells, and `us` the analysis'
//! time; then `dominated=N:CELLS:KEPT/EMPTY dom_us=MICROS`, the mover's dominated cells among
//! the cells the fill-in left empty ([`hex_search::inferior::dominated`]) and that call's
//! time; a line that does not read as a legal game prints `N error ...`.

use std::io::BufRead;
use std::time::Instant;

use hex_search::board::{Board, CellSet};
use hex_search::inferior::{dominated, fill_in};
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
    let args: Vec<String> = std::env::args().skip(1).collect();
    let numbers: Option<Vec<usize>> = args.iter().map(|a| a.parse().ok()).collect();
    let limits = match (args.as_slice(), numbers.as_deref()) {
        ([], _) => VcLimits::ROOT,
        ([one], _) if one == "closure" => VcLimits::CLOSURE,
        (_, Some([f, s, c, o, p, cell @ ..])) if cell.len() <= 1 => VcLimits {
            fulls_per_pair: *f,
            semis_per_pair: *s,
            max_carrier: *c,
            or_depth: *o,
            passes: *p,
            templates: true,
            cell_carrier: cell.first().copied().unwrap_or(2),
            closure: false,
        },
        _ => {
            eprintln!(
                "usage: analyse_positions [closure | FULLS SEMIS CARRIER OR PASSES [CELL_CARRIER]] < positions"
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
            } => {
                let cells: Vec<String> = m
                    .iter()
                    .filter(|&i| board.on_board(i))
                    .map(|i| name(&board, i))
                    .collect();
                format!("open:{}:{}", m.len(), cells.join(","))
            }
        };
        // the mover's dominated cells among the cells the fill-in left empty, and their cost
        let t = Instant::now();
        let open: Vec<usize> = fill.board.empties();
        let gone = dominated(&fill.board, me, &CellSet::of(&open));
        let dom_us = t.elapsed().as_micros();
        let dom: Vec<String> = gone.iter().map(|i| name(&board, i)).collect();
        println!(
            "{n} mover={me} verdict={verdict} mine={mf}/{ms} theirs={tf}/{ts} us={us} dominated={}:{}:{}/{} dom_us={dom_us}",
            gone.len(),
            dom.join(","),
            open.len() - gone.len(),
            open.len()
        );
    }
}
