//! SGF export of a game for HexGui and other Hex tools (SPEC section 9b, issue 10), written by
//! the engine's [`hex::sgf`] with HexGui's conventions:
//! `FF[4]GM[11]SZ[n]`, `PB` = seat 1 (opens as Black, top-bottom), `PW` = seat 2, opening
//! stones as `AB`/`AW` setup with `PL[B]`, moves `;B[e3]`, the swap as `;W[swap-pieces]` after
//! which the colours follow the players (seat 2 is Black, seat 1 White and moves next, so the
//! node after the swap is `W` again), `RE` by the winner's colour at the end (`B+`, `W+Resign`,
//! `B+Time`, `W+Forfeit`, `0` for a move-cap draw), `DT` the date of the first move, `OT` the increment and
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

/// What a game's SGF says beyond its state (issue 18): the event and round of a tournament
/// or match set, and the set's initial time (for `TM` and each move's time left).
#[derive(Debug, Clone, Default)]
pub struct SgfContext {
    /// `EV`: the tournament's (or match's) name.
    pub event: Option<String>,
    /// `RO`: round and board, such as `2 (board 1)`.
    pub round: Option<String>,
    /// The set's initial time per seat, ms.
    pub initial_ms: Option<i64>,
    /// Whether each move's node carries the mover's time left (`BL`/`WL`).
    pub move_times: bool,
}

/// Seconds as SGF's real numbers: whole seconds without decimals.
fn seconds_short(ms: i64) -> String {
    if ms % 1000 == 0 {
        (ms / 1000).to_string()
    } else {
        seconds(ms)
    }
}

/// Each move's mover's time left after it, ms, replaying the Fischer clock of SPEC 7 from
/// `initial_ms` and the moves' `elapsed_ms`: a seat's first move is free and earns nothing,
/// later ones pay what they took, then earn the increment. `None` for a move without a seat
/// or time taken.
fn times_left_ms(moves: &[Value], initial_ms: i64, increment_ms: i64) -> Vec<Option<i64>> {
    let mut left = [initial_ms; 2];
    let mut moved = [false; 2];
    moves
        .iter()
        .map(|m| {
            let i = usize::try_from(m["seat"].as_u64()?.checked_sub(1)?).ok()?;
            let elapsed = m["elapsed_ms"].as_i64()?;
            let (l, done) = (left.get_mut(i)?, moved.get_mut(i)?);
            if *done {
                *l = *l - elapsed + increment_ms;
            }
            *done = true;
            Some(*l)
        })
        .collect()
}

/// The SGF text of a game state (as built by `views::game_state`, as JSON); `None` if it lacks
/// the board size, the opening or the move list.
pub fn to_sgf(state: &Value) -> Option<String> {
    to_sgf_in(state, &SgfContext::default())
}

/// As [`to_sgf`], with `EV`, `RO`, `TM` and each move's `BL`/`WL` from `ctx` (issue 18).
pub fn to_sgf_in(state: &Value, ctx: &SgfContext) -> Option<String> {
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
        // A forfeit (a withdrawal, an absence) is stored as a resignation with `forfeit`;
        // SGF has a word of its own for it.
        let forfeit = res.get("forfeit").and_then(Value::as_bool) == Some(true);
        let how = match res.get("reason").and_then(Value::as_str) {
            _ if forfeit => "Forfeit",
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
    let move_list = state["moves"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let left: Vec<Option<i64>> = match (ctx.initial_ms, increment_ms) {
        (Some(initial), Some(inc)) => times_left_ms(move_list, initial, inc),
        _ => vec![],
    };
    // The clocks as of a moment of the game, never of the export (issue 18): at the end of a
    // finished game (the row's clocks stop there), else after the last move.
    let finished = state["status"] == "finished" || state["result"].is_object();
    let rem: Vec<i64> = if finished || move_list.is_empty() {
        state["clock"]["remaining_ms"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_i64).collect())
            .unwrap_or_default()
    } else {
        let mut by_seat = [ctx.initial_ms, ctx.initial_ms];
        for (m, l) in move_list.iter().zip(&left) {
            let seat = m["seat"].as_u64().and_then(|s| usize::try_from(s).ok());
            if let (Some(slot), Some(l)) =
                (seat.and_then(|s| by_seat.get_mut(s.wrapping_sub(1))), l)
            {
                *slot = Some(*l);
            }
        }
        by_seat.into_iter().flatten().collect()
    };
    if let [one, two] = rem.as_slice() {
        let when = if finished {
            "at the end of the game".to_string()
        } else if move_list.is_empty() {
            "before the first move".to_string()
        } else {
            format!("after move {}", move_list.len())
        };
        comment.push_str(&format!(
            " Clock left {when}: seat 1 {} s, seat 2 {} s.",
            seconds(*one),
            seconds(*two)
        ));
    }
    if let Some(reason) = state["result"]["reason"].as_str() {
        if state["result"]["forfeit"] == Value::Bool(true) {
            comment.push_str(" Result: forfeit");
            if move_list.is_empty() {
                comment.push_str(" (not played)");
            }
        } else {
            comment.push_str(&format!(" Result: {reason}"));
        }
        if state["result"]["offline"] == Value::Bool(true) {
            comment.push_str(" (the loser had gone away: no event stream or long-poll open)");
        }
        comment.push('.');
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
        event: ctx.event.clone(),
        round: ctx.round.clone(),
        time_limit: ctx.initial_ms.map(seconds_short),
        comment: Some(comment),
        times_left: if ctx.move_times {
            left.iter().map(|l| l.map(seconds)).collect()
        } else {
            vec![]
        },
        // What each bot said of its move (issue 21), as that move's comment.
        move_comments: if move_list.iter().any(|m| m.get("info").is_some()) {
            move_list
                .iter()
                .map(|m| m.get("info").and_then(super::info::sgf_comment))
                .collect()
        } else {
            vec![]
        },
    };
    Some(hex::sgf::write(&rec))
}

impl super::Arena {
    /// The SGF of one game with its set's context: `TM`, with `move_times` each move's time
    /// left, and for a tournament or match set `EV` and `RO` (issue 18). `None` for a game
    /// not started. Errors: 404 for an unknown set or game.
    pub async fn game_sgf(
        &self,
        set_id: &str,
        game_no: i64,
        move_times: bool,
    ) -> super::error::ArenaResult<Option<String>> {
        let body = self.game_state_body(set_id, game_no).await?;
        let state: Value =
            serde_json::from_str(&body).map_err(super::error::ArenaError::internal)?;
        if state["status"] == "pending" {
            return Ok(None);
        }
        let mut c = self.store.conn().await?;
        let set = crate::store::sets::get(&mut c, set_id, "").await?;
        let event = crate::store::tournaments::event_of_set(&mut c, set_id).await?;
        drop(c);
        let ctx = SgfContext {
            event: event.as_ref().map(|e| e.1.clone()),
            round: event.as_ref().map(|e| format!("{} (board {})", e.3, e.4)),
            initial_ms: set.map(|s| s.initial_ms),
            move_times,
        };
        Ok(to_sgf_in(&state, &ctx))
    }
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
        // A forfeit says so, and a game forfeited before its first move says it was not
        // played (an outside tester found `RE[B+Resign]` and "Result: resignation" there).
        let forfeit = json!({
            "board": {"size": 9}, "seats": [{"bot": "A"}, {"bot": "B"}], "opening": [],
            "moves": [], "result": {"winner": 2, "reason": "resignation", "forfeit": true},
        });
        let text = to_sgf(&forfeit).expect("sgf");
        assert!(text.contains("RE[W+Forfeit]"), "{text}");
        assert!(text.contains("Result: forfeit (not played)."), "{text}");
        assert_eq!(to_sgf(&json!({"board": {}})), None);
    }

    #[test]
    fn a_tournament_game_carries_event_round_time_limit_and_each_moves_time_left() {
        let state = json!({
            "set_id": "set_T", "game_no": 2, "status": "active",
            "board": {"size": 9}, "seats": [{"bot": "A"}, {"bot": "B"}], "opening": [],
            "moves": [
                {"seat": 1, "cell": [0, 0], "elapsed_ms": 4_000, "at": "2026-12-01T04:00:00.000Z"},
                {"seat": 2, "cell": [1, 1], "elapsed_ms": 9_000},
                {"seat": 1, "cell": [2, 2], "elapsed_ms": 5_500},
                {"seat": 2, "cell": [3, 3], "elapsed_ms": 1_000},
            ],
            "clock": {"remaining_ms": [1_000, 2_000], "increment_ms": 2_000,
                      "server_time": "2026-12-01T05:00:00.000Z"},
            "result": null,
        });
        let ctx = SgfContext {
            event: Some("Course [1]".into()),
            round: Some("2 (board 1)".into()),
            initial_ms: Some(60_000),
            move_times: true,
        };
        let text = to_sgf_in(&state, &ctx).expect("sgf");
        assert!(
            text.contains("GN[set_T game 2]EV[Course [1\\]]RO[2 (board 1)]PB[A]"),
            "{text}"
        );
        assert!(
            text.contains("TM[60]OT[Fischer +2.000 s per move]"),
            "{text}"
        );
        // First moves are free; then 60 - 5.5 + 2 and 60 - 1 + 2.
        assert!(
            text.ends_with(";B[a1]BL[60.000];W[b2]WL[60.000];B[c3]BL[56.500];W[d4]WL[61.000])\n"),
            "{text}"
        );
        // The root clock is as of the last move, not of the export (server_time).
        assert!(
            text.contains("Clock left after move 4: seat 1 56.500 s, seat 2 61.000 s."),
            "{text}"
        );
        let back = hex::sgf::parse(&text).expect("readable");
        assert_eq!(back.event.as_deref(), Some("Course [1]"));
        assert_eq!(back.time_limit.as_deref(), Some("60"));
        assert_eq!(back.times_left[2].as_deref(), Some("56.500"));
    }

    #[test]
    fn a_finished_game_gives_the_clocks_at_its_end_and_says_when_the_loser_was_offline() {
        let state = json!({
            "board": {"size": 9}, "seats": [{"bot": "A"}, {"bot": "B"}], "opening": [],
            "status": "finished", "moves": [{"seat": 1, "cell": [0, 0], "elapsed_ms": 10}],
            "clock": {"remaining_ms": [60_000, 0], "increment_ms": 0,
                      "server_time": "2026-12-09T00:00:00.000Z"},
            "result": {"winner": 1, "reason": "timeout", "offline": true},
        });
        let text = to_sgf(&state).expect("sgf");
        assert!(
            text.contains("Clock left at the end of the game: seat 1 60.000 s, seat 2 0.000 s."),
            "{text}"
        );
        assert!(
            text.contains("Result: timeout (the loser had gone away"),
            "{text}"
        );
        assert!(!text.contains("2026-12-09T"), "{text}");
        assert!(!text.contains("TM["), "{text}");
    }
}
