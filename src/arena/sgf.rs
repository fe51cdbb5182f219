//! SGF export of a game for HexGui and other Hex tools (SPEC section 9b): `GM[11]`, the board
//! size, opening stones as setup (`AB` seat 1, `AW` seat 2), moves as `B[..]`/`W[..]` in `a1`
//! names, the swap as HexGui writes it (`swap-pieces`), and the result.

use serde_json::Value;

fn cell_name(v: &Value) -> Option<String> {
    let a = v.as_array()?;
    let r = u8::try_from(a.first()?.as_u64()?).ok()?;
    let c = u8::try_from(a.get(1)?.as_u64()?).ok()?;
    Some(hex::cell_name(hex::Cell::new(r, c)))
}

/// The SGF text of a game state (as built by `views::game_state`); None if it lacks a board.
pub fn to_sgf(state: &Value) -> Option<String> {
    let size = state["board"]["size"].as_u64()?;
    let mut out = format!("(;FF[4]GM[11]AP[hexarena]SZ[{size}]");
    let bot = |i: usize| {
        state["seats"][i]["bot"]
            .as_str()
            .unwrap_or("")
            .replace([']', '\\'], "")
    };
    out.push_str(&format!("PB[{}]PW[{}]", bot(0), bot(1)));
    if let Some(set) = state["set_id"].as_str() {
        out.push_str(&format!("GN[{set} game {}]", state["game_no"]));
    }
    if let Some(res) = state["result"].as_object() {
        let side = match res.get("winner").and_then(Value::as_u64) {
            Some(1) => "B+",
            Some(2) => "W+",
            _ => "0",
        };
        let how = match res.get("reason").and_then(Value::as_str) {
            Some("resignation") => "Resign",
            Some("timeout") | Some("first_move_timeout") => "Time",
            _ => "",
        };
        out.push_str(&format!("RE[{side}{how}]"));
    }
    let opening = state["opening"].as_array()?;
    let (mut black, mut white) = (String::new(), String::new());
    for (i, cell) in opening.iter().enumerate() {
        let name = cell_name(cell)?;
        if i % 2 == 0 { &mut black } else { &mut white }.push_str(&format!("[{name}]"));
    }
    if !black.is_empty() {
        out.push_str(&format!("AB{black}"));
    }
    if !white.is_empty() {
        out.push_str(&format!("AW{white}"));
    }
    for m in state["moves"].as_array()? {
        let color = if m["seat"].as_u64() == Some(1) {
            "B"
        } else {
            "W"
        };
        let what = if m["swap"].as_bool() == Some(true) {
            "swap-pieces".to_string()
        } else {
            cell_name(&m["cell"])?
        };
        out.push_str(&format!(";{color}[{what}]"));
    }
    out.push_str(")\n");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_swapped_game_exports_setup_moves_and_result() {
        let state = json!({
            "set_id": "set_X", "game_no": 1,
            "board": {"size": 11},
            "seats": [{"bot": "Alpha"}, {"bot": "Beta"}],
            "opening": [],
            "moves": [
                {"seat": 1, "cell": [2, 4]},
                {"seat": 2, "swap": true},
                {"seat": 1, "cell": [10, 10]},
            ],
            "result": {"winner": 2, "reason": "resignation"},
        });
        assert_eq!(
            to_sgf(&state).as_deref(),
            Some(
                "(;FF[4]GM[11]AP[hexarena]SZ[11]PB[Alpha]PW[Beta]GN[set_X game 1]RE[W+Resign];B[e3];W[swap-pieces];B[k11])\n"
            )
        );
    }

    #[test]
    fn opening_stones_are_setup_alternating_from_seat_one() {
        let state = json!({
            "board": {"size": 9}, "seats": [{"bot": "A"}, {"bot": "B"}],
            "opening": [[0, 0], [1, 1], [2, 2], [3, 3]], "moves": [], "result": null,
        });
        assert_eq!(
            to_sgf(&state).as_deref(),
            Some("(;FF[4]GM[11]AP[hexarena]SZ[9]PB[A]PW[B]AB[a1][c3]AW[b2][d4])\n")
        );
    }
}
