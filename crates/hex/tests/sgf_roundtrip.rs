//! SGF round trip over every recorded game of the shared test data (issue 10): writing a game
//! and reading it back gives the same size, opening and moves, and the same final position and
//! winner on our engine. Games with a swap are also replayed the way HexGui does, on a board of
//! colours read straight from the text (no use of our parser), and must end with the same board
//! and the same winner.

use std::fs;
use std::path::PathBuf;

use hex::sgf::{self, SgfRecord};
use hex::{Cell, Color, Move, Position, Seat};
use serde_json::Value;

const FILES: [&str; 6] = [
    "edge_cases.jsonl",
    "games_9.jsonl",
    "games_11.jsonl",
    "games_11_swap.jsonl",
    "games_13.jsonl",
    "games_19.jsonl",
];

fn parse_move(v: &Value) -> Move {
    if v.get("swap") == Some(&Value::Bool(true)) {
        return Move::Swap;
    }
    let pair: [u8; 2] = serde_json::from_value(v["cell"].clone()).expect("cell pair");
    Move::Place(Cell::from(pair))
}

/// Every recorded game: its size and the moves the engine accepts (the legal prefix).
fn games() -> Vec<(String, u8, Vec<Move>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut out = Vec::new();
    for file in FILES {
        let text = fs::read_to_string(dir.join(file)).expect("test data file");
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let v: Value = serde_json::from_str(line).expect("json line");
            let size = u8::try_from(v["size"].as_u64().expect("size")).expect("small size");
            let mut pos = Position::new(size).expect("size");
            let mut moves = Vec::new();
            for m in v["moves"].as_array().expect("moves") {
                let mv = parse_move(m);
                if pos.play(mv).is_err() {
                    break;
                }
                moves.push(mv);
            }
            out.push((format!("{file}:{}", n + 1), size, moves));
        }
    }
    out
}

fn replay(size: u8, opening: &[Cell], moves: &[Move]) -> Position {
    let mut pos = Position::with_opening(size, opening).expect("opening");
    for mv in moves {
        pos.play(*mv).expect("legal");
    }
    pos
}

/// The board as HexGui shows it, built from the SGF text alone: setup stones, then each
/// `B[..]`/`W[..]` node puts a stone of that colour; `swap-pieces` changes no stone. Returns
/// `size` rows of `None`/`Some(colour)`.
fn hexgui_board(text: &str, size: u8) -> Vec<Vec<Option<Color>>> {
    let n = usize::from(size);
    let mut board = vec![vec![None; n]; n];
    let mut put = |name: &str, color: Color| {
        let cell = hex::parse_cell_name(name).expect("cell name");
        let slot = &mut board[usize::from(cell.row)][usize::from(cell.col)];
        assert_eq!(*slot, None, "{name} played twice");
        *slot = Some(color);
    };
    for node in text.split(';').skip(1) {
        for (prop, color) in [("AB", Color::Black), ("AW", Color::White)] {
            if let Some(at) = node.find(prop) {
                let rest = &node[at + 2..];
                let mut rest = rest;
                while let Some(stripped) = rest.strip_prefix('[') {
                    let end = stripped.find(']').expect("closing bracket");
                    put(&stripped[..end], color);
                    rest = &stripped[end + 1..];
                }
            }
        }
        let color = if node.starts_with("B[") {
            Color::Black
        } else if node.starts_with("W[") {
            Color::White
        } else {
            continue;
        };
        let end = node.find(']').expect("closing bracket");
        let value = &node[2..end];
        if value != "swap-pieces" {
            put(value, color);
        }
    }
    board
}

/// The colour whose stones join its edges on a colour board (Black top-bottom, White
/// left-right), by flood fill.
fn hexgui_winner(board: &[Vec<Option<Color>>]) -> Option<Color> {
    let n = board.len();
    for color in [Color::Black, Color::White] {
        let mut seen = vec![vec![false; n]; n];
        let mut stack: Vec<(usize, usize)> = (0..n)
            .map(|k| {
                if color == Color::Black {
                    (0, k)
                } else {
                    (k, 0)
                }
            })
            .filter(|&(r, c)| board[r][c] == Some(color))
            .collect();
        while let Some((r, c)) = stack.pop() {
            if seen[r][c] {
                continue;
            }
            seen[r][c] = true;
            if (color == Color::Black && r == n - 1) || (color == Color::White && c == n - 1) {
                return Some(color);
            }
            let (r, c) = (r as i64, c as i64);
            for (dr, dc) in [(-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0)] {
                let (nr, nc) = (r + dr, c + dc);
                if nr >= 0 && nc >= 0 && (nr as usize) < n && (nc as usize) < n {
                    let (nr, nc) = (nr as usize, nc as usize);
                    if board[nr][nc] == Some(color) && !seen[nr][nc] {
                        stack.push((nr, nc));
                    }
                }
            }
        }
    }
    None
}

/// Our final position as colours: each stone has the colour of the seat owning it now.
fn colour_board(pos: &Position) -> Vec<Vec<Option<Color>>> {
    pos.cells()
        .iter()
        .map(|row| {
            row.iter()
                .map(|&v| Seat::from_number(v).map(|s| Color::of_seat(pos, s)))
                .collect()
        })
        .collect()
}

#[test]
fn every_recorded_game_survives_an_sgf_round_trip() {
    let games = games();
    assert!(games.len() >= 60, "only {} games", games.len());
    let mut swapped_games = 0;
    for (name, size, moves) in games {
        let pos = replay(size, &[], &moves);
        let rec = SgfRecord {
            size,
            moves: moves.clone(),
            black: Some("First".into()),
            white: Some("Second".into()),
            ..SgfRecord::default()
        };
        let text = sgf::write(&rec);
        let back = sgf::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        assert_eq!(back, rec, "{name}");
        let again = back.replay().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(again, pos, "{name}");
        assert_eq!(again.outcome(), pos.outcome(), "{name}");

        // HexGui's reading of the same text: same stones (as colours) and the same winner
        let board = hexgui_board(&text, size);
        assert_eq!(board, colour_board(&pos), "{name}: board differs");
        let winner_colour = pos
            .outcome()
            .and_then(|o| o.winner())
            .map(|s| Color::of_seat(&pos, s));
        assert_eq!(hexgui_winner(&board), winner_colour, "{name}: winner");
        if moves.contains(&Move::Swap) {
            swapped_games += 1;
            let after_swap = if moves.len() > 2 {
                ";W[swap-pieces];W["
            } else {
                ";W[swap-pieces])"
            };
            assert!(text.contains(after_swap), "{name}: {text}");
        }
    }
    assert!(swapped_games >= 10, "only {swapped_games} swapped games");
}

#[test]
fn a_swapped_game_won_by_the_swapper_is_black_in_hexgui() {
    // 3x3: seat 1 opens c1, seat 2 swaps and so owns c1 and plays top-bottom (Black); seat 1
    // (now White) plays a1 and a2, seat 2 joins c1-b2-b3 from top to bottom.
    let moves = vec![
        Move::Place(Cell::new(0, 2)),
        Move::Swap,
        Move::Place(Cell::new(0, 0)),
        Move::Place(Cell::new(1, 1)),
        Move::Place(Cell::new(1, 0)),
        Move::Place(Cell::new(2, 1)),
    ];
    let pos = replay(3, &[], &moves);
    assert_eq!(pos.outcome().and_then(|o| o.winner()), Some(Seat::Two));
    let rec = SgfRecord {
        size: 3,
        moves,
        result: Some("B+".into()),
        ..SgfRecord::default()
    };
    let text = sgf::write(&rec);
    assert_eq!(
        text,
        "(;FF[4]GM[11]AP[hexarena]SZ[3]RE[B+];B[c1];W[swap-pieces];W[a1];B[b2];W[a2];B[b3])\n"
    );
    let board = hexgui_board(&text, 3);
    assert_eq!(hexgui_winner(&board), Some(Color::Black));
    assert_eq!(board, colour_board(&pos));
}

#[test]
fn games_with_an_opening_round_trip_in_placement_order() {
    let seed =
        hex::parse_seed_hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
            .expect("seed");
    let opening = hex::opening(&seed, 11, 4).expect("opening");
    let mut pos = Position::with_opening(11, &opening).expect("opening");
    let mut moves = Vec::new();
    for cell in pos.empty_cells().into_iter().take(30) {
        if pos.play(Move::Place(cell)).is_err() {
            break;
        }
        moves.push(Move::Place(cell));
    }
    let rec = SgfRecord {
        size: 11,
        opening: opening.clone(),
        moves,
        ..SgfRecord::default()
    };
    let text = sgf::write(&rec);
    assert!(
        text.contains("AB[c8][c7][g8][d7]AW[d6][b8][i10][h5]PL[B];B[a1]"),
        "{text}"
    );
    let back = sgf::parse(&text).expect("readable");
    assert_eq!(back.opening, opening);
    assert_eq!(back.replay().expect("legal"), pos);
    assert_eq!(hexgui_board(&text, 11), colour_board(&pos));
}
