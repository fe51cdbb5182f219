//! SGF export of a game for HexGui and other Hex tools (SPEC section 9b, issue 10), written by
//! the engine's [`hex::sgf`] with HexGui's conventions:
//! `FF[4]GM[11]SZ[n]`, `PB` = seat 1 (opens as Black, top-bottom), `PW` = seat 2, opening
//! stones as `AB`/`AW` setup with `PL[B]`, moves `;B[e3]`, the swap as `;W[swap-pieces]` after
//! which the colours follow the players (seat 2 is Black, seat 1 White and moves next, so the
//! node after the swap is `W` again), `RE` by the winner's colour at the end (`B+`, `W+Resign`,
//! `B+Time`, `0` for a move-cap draw), `DT` the date of the first move, `OT` the increment and
//! the clocks in the root comment.

use hex::sgf::SgfRecord;
use hex::{Cell, Move};
use serde_json::Value;

fn cell_of(v: &Value) -> Option<Cell> {
    let a = v.as_array()?;
    let r = u8::try_from(a.first()?.as_u64()?).ok()?;
    let c = u8::try_from(a.get(1)?.as_u64()?).ok()?;
    Some(Cell::new(r, c))
}

fn seconds(ms: i64) -> String {
    format!("{}.{:03}", ms / 1000, (ms % 1000).abs())
}

/// The SGF text of a game state (as built by `views::game_state`, as JSON); `None` if it lacks
/// the board size, the opening or the move list.
pub fn to_sgf(state: &Value) -> Option<String> {
    let size = u8::try_from(state["board"]["size"].as_u64()?).ok()?;
    let opening = state["opening"]
        .as_array()?
        .iter()
        .map(cell_of)
        .collect::<Option<Vec<Cell>>>()?;
    let moves = state["moves"]
        .as_array()?
        .iter()
        .map(|m| {
            if m["swap"].as_bool() == Some(true) {
                Some(Move::Swap)
            } else {
                cell_of(&m["cell"]).map(Move::Place)
            }
        })
        .collect::<Option<Vec<Move>>>()?;
    let swapped = moves.contains(&Move::Swap);
    let bot = |i: usize| state["seats"][i]["bot"].as_str().map(str::to_string);
    let result = state["result"].as_object().map(|res| {
        let winner = res.get("winner").and_then(Value::as_u64);
        let how = match res.get("reason").and_then(Value::as_str) {
            Some("resignation") => "Resign",
            Some("timeout") | Some("first_move_timeout") => "Time",
            _ => "",
        };
        // seat 1 is Black unless seat 2 swapped
        match winner {
            Some(seat @ (1 | 2)) => {
                let black = (seat == 1) != swapped;
                format!("{}+{how}", if black { "B" } else { "W" })
            }
            _ => "0".to_string(),
        }
    });
    let date = state["moves"][0]["at"]
        .as_str()
        .or(state["clock"]["server_time"].as_str())
        .and_then(|t| t.get(..10))
        .map(str::to_string);
    let increment_ms = state["clock"]["increment_ms"].as_i64();
    let mut comment = String::from("hexarena");
    if let Some(set) = state["set_id"].as_str() {
        comment.push_str(&format!(" set {set} game {}", state["game_no"]));
    }
    comment.push_str(&format!(
        ". PB is seat 1 ({}), PW seat 2 ({}); after a swap seat 2 plays Black.",
        bot(0).unwrap_or_default(),
        bot(1).unwrap_or_default()
    ));
    if let Some(rem) = state["clock"]["remaining_ms"].as_array() {
        let rem: Vec<String> = rem.iter().filter_map(Value::as_i64).map(seconds).collect();
        if let [one, two] = rem.as_slice() {
            comment.push_str(&format!(
                " Clock left: seat 1 {one} s, seat 2 {two} s (as of {}).",
                state["clock"]["server_time"].as_str().unwrap_or("?")
            ));
        }
    }
    if let Some(reason) = state["result"]["reason"].as_str() {
        comment.push_str(&format!(" Result: {reason}."));
    }
    let rec = SgfRecord {
        size,
        opening,
        moves,
        black: bot(0),
        white: bot(1),
        result,
        date,
        game_name: state["set_id"]
            .as_str()
            .map(|set| format!("{set} game {}", state["game_no"])),
        overtime: increment_ms.map(|ms| format!("Fischer +{} s per move", seconds(ms))),
        comment: Some(comment),
    };
    Some(hex::sgf::write(&rec))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_swapped_game_follows_the_players_colours_and_result() {
        let state = json!({
            "set_id": "set_X", "game_no": 1,
            "board": {"size": 11},
            "seats": [{"bot": "Alpha"}, {"bot": "Beta"}],
            "opening": [],
            "moves": [
                {"seat": 1, "cell": [2, 4], "at": "2026-12-01T04:00:00.000Z"},
                {"seat": 2, "swap": true},
                {"seat": 1, "cell": [10, 10]},
            ],
            "clock": {"remaining_ms": [1500, 60000], "increment_ms": 2000,
                      "server_time": "2026-12-01T04:05:00.000Z"},
            "result": {"winner": 2, "reason": "resignation"},
        });
        let text = to_sgf(&state).expect("sgf");
        assert!(
            text.starts_with(
                "(;FF[4]GM[11]AP[hexarena]SZ[11]GN[set_X game 1]PB[Alpha]PW[Beta]DT[2026-12-01]RE[B+Resign]OT[Fischer +2.000 s per move]C[hexarena set set_X game 1."
            ),
            "{text}"
        );
        assert!(text.contains("seat 1 1.500 s, seat 2 60.000 s"), "{text}");
        assert!(text.ends_with(";B[e3];W[swap-pieces];W[k11])\n"), "{text}");
        let back = hex::sgf::parse(&text).expect("readable");
        assert_eq!(back.moves.len(), 3);
        assert_eq!(back.black.as_deref(), Some("Alpha"));
    }

    #[test]
    fn opening_stones_are_setup_alternating_from_seat_one() {
        let state = json!({
            "board": {"size": 9}, "seats": [{"bot": "A"}, {"bot": "B"}],
            "opening": [[0, 0], [1, 1], [2, 2], [3, 3]], "moves": [],
            "result": {"winner": 1, "reason": "timeout"},
        });
        let text = to_sgf(&state).expect("sgf");
        assert!(text.contains("RE[B+Time]"), "{text}");
        assert!(text.ends_with("AB[a1][c3]AW[b2][d4]PL[B])\n"), "{text}");
        let draw = json!({
            "board": {"size": 9}, "seats": [{"bot": "A"}, {"bot": "B"}], "opening": [],
            "moves": [], "result": {"winner": null, "reason": "move_cap"},
        });
        assert!(to_sgf(&draw).expect("sgf").contains("RE[0]"));
        assert_eq!(to_sgf(&json!({"board": {}})), None);
    }
}
