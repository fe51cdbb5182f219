//! Offline commands over the pure engine: `hexarena replay` and `hexarena opening`.

use std::io::{BufRead, Write};

use hex::{Cell, Move, Position};
use serde_json::{Value, json};

/// One refusal while replaying: the ply the move would have had, and the engine's code.
fn refusal(ply: usize, code: &str) -> Value {
    json!({"ply": ply, "code": code})
}

/// Parses a move object of the replay format; integer cells outside 0..=255 are `off_board`.
fn parse_move(v: &Value) -> Result<Move, &'static str> {
    let o = v.as_object().ok_or("invalid_move")?;
    match (o.get("cell"), o.get("swap"), o.len()) {
        (Some(cell), None, 1) => {
            let a = cell
                .as_array()
                .filter(|a| a.len() == 2)
                .ok_or("invalid_move")?;
            let rc: Vec<i64> = a.iter().filter_map(Value::as_i64).collect();
            let [r, c] = rc.as_slice() else {
                return Err("invalid_move");
            };
            match (u8::try_from(*r), u8::try_from(*c)) {
                (Ok(r), Ok(c)) => Ok(Move::Place(Cell::new(r, c))),
                _ => Err("off_board"),
            }
        }
        (None, Some(Value::Bool(true)), 1) => Ok(Move::Swap),
        _ => Err("invalid_move"),
    }
}

/// Replays one game description; returns the result line.
pub fn replay_line(line: &str) -> Value {
    let bad = |msg: String| {
        json!({"status": null, "winner": null, "reason": null, "winning_path": null, "ply": 0,
               "error": {"ply": null, "code": "bad_request", "message": msg}})
    };
    let v: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return bad(format!("malformed JSON: {e}")),
    };
    let Some(size) = v
        .get("size")
        .and_then(Value::as_u64)
        .and_then(|s| u8::try_from(s).ok())
    else {
        return bad("'size' must be an integer 1..=26".into());
    };
    let opening: Vec<Cell> = match v.get("opening") {
        None | Some(Value::Null) => vec![],
        Some(o) => match serde_json::from_value::<Vec<[u8; 2]>>(o.clone()) {
            Ok(cells) => cells.into_iter().map(Cell::from).collect(),
            Err(e) => return bad(format!("bad 'opening': {e}")),
        },
    };
    let Some(moves) = v.get("moves").and_then(Value::as_array) else {
        return bad("'moves' must be an array".into());
    };
    let mut pos = match Position::with_opening(size, &opening) {
        Ok(p) => p,
        Err(e) => return bad(format!("bad setup: {e}")),
    };
    let mut error = Value::Null;
    for (i, m) in moves.iter().enumerate() {
        let ply = i + 1;
        let played = parse_move(m).and_then(|mv| pos.play(mv).map_err(|e| e.code()));
        if let Err(code) = played {
            error = refusal(ply, code);
            break;
        }
    }
    let outcome = pos.outcome();
    json!({
        "status": if outcome.is_some() { "finished" } else { "active" },
        "winner": outcome.and_then(|o| o.winner()).map(|s| s.number()),
        "reason": outcome.map(|o| if o.winner().is_some() { "connection" } else { "move_cap" }),
        "winning_path": pos.winning_path().map(|p| p.iter().map(|c| [c.row, c.col]).collect::<Vec<_>>()),
        "ply": pos.ply(),
        "error": error,
    })
}

/// `hexarena replay`: one JSON line in, one JSON line out; blank lines are skipped.
pub fn replay(input: impl BufRead, mut out: impl Write) -> anyhow::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        writeln!(out, "{}", replay_line(&line))?;
    }
    Ok(())
}

/// `hexarena opening`: prints the opening cells of a seed as JSON.
pub fn opening(seed_hex: &str, size: u8, stones: u8) -> anyhow::Result<()> {
    let seed = hex::parse_seed_hex(seed_hex)
        .ok_or_else(|| anyhow::anyhow!("--seed must be 64 hex digits"))?;
    let cells = hex::opening(&seed, size, stones).map_err(|e| anyhow::anyhow!("{e}"))?;
    println!("{}", serde_json::to_string(&cells)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_win_reports_winner_path_and_ply() {
        // On 2x2 seat 1 wins with a1 then a2 (top to bottom down column a).
        let r = replay_line(
            r#"{"size": 2, "moves": [{"cell": [0,0]}, {"cell": [0,1]}, {"cell": [1,0]}]}"#,
        );
        assert_eq!(r["status"], "finished");
        assert_eq!(r["winner"], 1);
        assert_eq!(r["reason"], "connection");
        assert_eq!(r["winning_path"], json!([[0, 0], [1, 0]]));
        assert_eq!(r["ply"], 3);
        assert_eq!(r["error"], Value::Null);
    }

    #[test]
    fn moves_after_the_end_are_game_over_at_their_ply() {
        let r = replay_line(r#"{"size": 1, "moves": [{"cell": [0,0]}, {"cell": [0,0]}]}"#);
        assert_eq!(r["winner"], 1);
        assert_eq!(r["error"], json!({"ply": 2, "code": "game_over"}));
    }

    #[test]
    fn refusals_carry_their_code_and_stop_the_replay() {
        let r = replay_line(r#"{"size": 3, "moves": [{"cell": [1,1]}, {"cell": [1,1]}]}"#);
        assert_eq!(r["status"], "active");
        assert_eq!(r["ply"], 1);
        assert_eq!(r["error"], json!({"ply": 2, "code": "occupied"}));
        let r = replay_line(r#"{"size": 3, "moves": [{"cell": [3,0]}]}"#);
        assert_eq!(r["error"], json!({"ply": 1, "code": "off_board"}));
        let r = replay_line(
            r#"{"size": 3, "opening": [[0,0],[2,2]], "moves": [{"cell": [1,1]}, {"swap": true}]}"#,
        );
        assert_eq!(r["error"], json!({"ply": 2, "code": "swap_not_allowed"}));
        let r = replay_line(r#"{"size": 3, "moves": [{"cell": [1,1], "swap": true}]}"#);
        assert_eq!(r["error"], json!({"ply": 1, "code": "invalid_move"}));
    }

    #[test]
    fn a_malformed_line_gets_an_error_line_and_the_next_line_is_read() {
        let input = "not json\n\n{\"size\": 2, \"moves\": []}\n";
        let mut out = Vec::new();
        replay(input.as_bytes(), &mut out).expect("replay writes to memory");
        let text = String::from_utf8(out).expect("utf-8");
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("json line"))
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["error"]["code"], "bad_request");
        assert_eq!(lines[1]["status"], "active");
        assert_eq!(lines[1]["ply"], 0);
    }
}
