//! Replays every recorded game of the shared test data (SPEC section 2; README in tests/data).
//!
//! Reads the vendored copies in `tests/data/`; also `$HEX_TESTDATA` when set. When the shared
//! directory `../../../shared/testdata` (relative to this crate) exists, the vendored copies
//! must be identical to it.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use hex::{Cell, Move, Outcome, PlayError, Position, Seat};
use serde_json::Value;

const FILES: [&str; 6] = [
    "edge_cases.jsonl",
    "games_9.jsonl",
    "games_11.jsonl",
    "games_11_swap.jsonl",
    "games_13.jsonl",
    "games_19.jsonl",
];

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn parse_move(v: &Value) -> Move {
    if v.get("swap") == Some(&Value::Bool(true)) {
        assert_eq!(v.as_object().map(|o| o.len()), Some(1), "bad move {v}");
        return Move::Swap;
    }
    Move::Place(parse_cell(
        v.get("cell").unwrap_or_else(|| panic!("bad move {v}")),
    ))
}

fn parse_cell(v: &Value) -> Cell {
    let pair: [u8; 2] = serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{v}: {e}"));
    Cell::from(pair)
}

fn cell_set(v: &Value) -> BTreeSet<Cell> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .map(parse_cell)
        .collect()
}

/// Checks a winning path: on board, owned by the winner, adjacent steps, no repeats, from the
/// first edge of the winner's axis to the second.
fn check_path(pos: &Position, winner: Seat, where_: &str) {
    let path = pos
        .winning_path()
        .unwrap_or_else(|| panic!("{where_}: no winning path"));
    let last = pos.size() - 1;
    let (first, end) = (path[0], path[path.len() - 1]);
    match pos.axis(winner) {
        hex::Axis::TopBottom => assert!(first.row == 0 && end.row == last, "{where_}: {path:?}"),
        hex::Axis::LeftRight => assert!(first.col == 0 && end.col == last, "{where_}: {path:?}"),
    }
    let distinct: BTreeSet<Cell> = path.iter().copied().collect();
    assert_eq!(distinct.len(), path.len(), "{where_}: repeated cell");
    for c in &path {
        assert_eq!(
            pos.stone(*c),
            Some(winner),
            "{where_}: {c:?} not the winner's"
        );
    }
    for w in path.windows(2) {
        assert!(w[0].is_adjacent(w[1]), "{where_}: {:?} -> {:?}", w[0], w[1]);
    }
}

/// Replays one recorded game and checks it ends exactly as recorded.
fn replay_line(line: &str, where_: &str) {
    let game: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{where_}: {e}"));
    let size = game["size"]
        .as_u64()
        .unwrap_or_else(|| panic!("{where_}: size")) as u8;
    let moves: Vec<Move> = game["moves"]
        .as_array()
        .unwrap_or_else(|| panic!("{where_}: moves"))
        .iter()
        .map(parse_move)
        .collect();
    let ply = game["ply"]
        .as_u64()
        .unwrap_or_else(|| panic!("{where_}: ply")) as usize;
    let winner = game["winner"]
        .as_u64()
        .map(|n| Seat::from_number(n as u8).unwrap_or_else(|| panic!("{where_}: winner {n}")));

    let mut pos = Position::new(size).unwrap_or_else(|e| panic!("{where_}: {e}"));
    for (k, &mv) in moves.iter().enumerate() {
        let seat = pos.to_move();
        let result = pos.play(mv);
        match winner {
            Some(w) if k + 1 == ply => {
                assert_eq!(seat, Some(w), "{where_}: the winner makes the last move");
                assert_eq!(
                    result,
                    Ok(Some(Outcome::Connection { winner: w })),
                    "{where_}: move {} should win",
                    k + 1
                );
            }
            Some(_) if k + 1 > ply => {
                assert_eq!(result, Err(PlayError::GameOver), "{where_}: move {}", k + 1)
            }
            _ => assert_eq!(result, Ok(None), "{where_}: move {} ended early", k + 1),
        }
    }
    match winner {
        Some(w) => {
            assert_eq!(pos.ply() as usize, ply, "{where_}");
            assert_eq!(
                pos.outcome(),
                Some(Outcome::Connection { winner: w }),
                "{where_}"
            );
            assert_eq!(pos.to_move(), None, "{where_}");
            assert!(pos.legal_moves().is_empty(), "{where_}");
            check_path(&pos, w, where_);
        }
        None => {
            assert_eq!(
                moves.len(),
                ply,
                "{where_}: unfinished game has ply = moves"
            );
            assert_eq!(pos.ply() as usize, ply, "{where_}");
            assert_eq!(pos.outcome(), None, "{where_}: should still be active");
            assert!(pos.to_move().is_some(), "{where_}");
        }
    }
    // the stored form rebuilds the same state, outcome and path
    let back =
        Position::from_compact(&pos.to_compact()).unwrap_or_else(|e| panic!("{where_}: {e}"));
    assert_eq!(back, pos, "{where_}: compact round trip");
    assert_eq!(back.winning_path(), pos.winning_path(), "{where_}");

    if let Some(expect) = game.get("expect_after") {
        if let Some(v) = expect.get("seat1_stones") {
            let got: BTreeSet<Cell> = pos.stones_of(Seat::One).into_iter().collect();
            assert_eq!(got, cell_set(v), "{where_}: seat 1 stones");
        }
        if let Some(v) = expect.get("seat2_stones") {
            let got: BTreeSet<Cell> = pos.stones_of(Seat::Two).into_iter().collect();
            assert_eq!(got, cell_set(v), "{where_}: seat 2 stones");
        }
        if let Some(v) = expect.get("to_move") {
            let want = v.as_u64().and_then(|n| Seat::from_number(n as u8));
            assert_eq!(pos.to_move(), want, "{where_}: to_move");
        }
        if let Some(edges) = expect.get("edges") {
            for seat in [Seat::One, Seat::Two] {
                let want = edges[seat.number().to_string()].as_str();
                assert_eq!(
                    Some(pos.axis(seat).name()),
                    want,
                    "{where_}: edges of {seat:?}"
                );
            }
        }
        for key in expect.as_object().map(|o| o.keys()).into_iter().flatten() {
            assert!(
                ["seat1_stones", "seat2_stones", "to_move", "edges"].contains(&key.as_str()),
                "{where_}: unchecked expectation {key}"
            );
        }
    }
}

fn replay_dir(dir: &Path) -> usize {
    let mut games = 0;
    for file in FILES {
        let path = dir.join(file);
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            replay_line(line, &format!("{file}:{}", n + 1));
            games += 1;
        }
    }
    games
}

#[test]
fn every_recorded_game_replays_exactly() {
    let games = replay_dir(&crate_dir().join("tests/data"));
    assert_eq!(games, 11 + 50 + 150 + 50 + 50 + 25);
    if let Some(extra) = std::env::var_os("HEX_TESTDATA") {
        assert!(replay_dir(Path::new(&extra)) > 0);
    }
}

#[test]
fn vendored_copies_match_the_shared_directory() {
    let shared = crate_dir().join("../../../shared/testdata");
    if !shared.is_dir() {
        return; // a clone without the shared directory (CI): the vendored copies are the truth
    }
    for file in FILES {
        let ours = fs::read(crate_dir().join("tests/data").join(file)).unwrap_or_default();
        let theirs = fs::read(shared.join(file)).unwrap_or_default();
        assert!(
            ours == theirs,
            "tests/data/{file} differs from the shared copy: re-vendor it"
        );
    }
}

#[test]
fn edge_cases_cover_swaps_and_unfinished_games() {
    let text = fs::read_to_string(crate_dir().join("tests/data/edge_cases.jsonl"))
        .unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    assert!(lines.iter().any(|g| g.get("expect_after").is_some()));
    assert!(lines.iter().any(|g| g["winner"].is_null()));
    assert!(lines.iter().all(|g| g.get("name").is_some()));
}
