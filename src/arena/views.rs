//! JSON views of sets and games (SPEC sections 5 and 6), built from rows.

use chrono::{DateTime, SecondsFormat, Utc};
use hex::{Cell, Move, Seat};
use serde::Serialize;
use serde_json::{Value, json};

use crate::store::games::{GameRow, MoveRow};
use crate::store::sets::SetRow;
use crate::store::status::GameStatus;

/// RFC 3339 UTC with milliseconds, e.g. `2026-11-29T21:30:00.123Z`.
pub fn rfc3339(ms: i64) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// RFC 3339 of an optional time; null when absent.
pub fn opt_time(ms: Option<i64>) -> Value {
    ms.map_or(Value::Null, |m| Value::String(rfc3339(m)))
}

/// A move as the API spells it: `{"cell": [r, c]}` or `{"swap": true}`.
pub fn move_json(mv: Move) -> Value {
    match mv {
        Move::Place(c) => json!({"cell": [c.row, c.col]}),
        Move::Swap => json!({"swap": true}),
    }
}

/// The engine move of a stored move.
pub fn move_of_row(m: &MoveRow) -> Option<Move> {
    if m.swap != 0 {
        return Some(Move::Swap);
    }
    let row = u8::try_from(m.cell_row?).ok()?;
    let col = u8::try_from(m.cell_col?).ok()?;
    Some(Move::Place(Cell::new(row, col)))
}

/// The opening stored on a set (JSON `[[r, c], ...]`), empty if none.
pub fn opening_of(set: &SetRow) -> Vec<[u8; 2]> {
    set.opening
        .as_deref()
        .and_then(|s| serde_json::from_str::<Vec<[u8; 2]>>(s).ok())
        .unwrap_or_default()
}

/// The `result` object of a finished game, or null.
pub fn result_json(g: &GameRow, names: &[String; 2]) -> Value {
    if g.status != GameStatus::Finished {
        return Value::Null;
    }
    let winner_bot = match g.winner_seat {
        Some(1) => Value::String(names[0].clone()),
        Some(2) => Value::String(names[1].clone()),
        _ => Value::Null,
    };
    let mut v = json!({"winner": g.winner_seat, "winner_bot": winner_bot, "reason": g.reason});
    if g.offline != 0 {
        v["offline"] = Value::Bool(true); // issue 18: the loser on time had gone away
    }
    if g.forfeit != 0 {
        v["forfeit"] = Value::Bool(true); // issue 18: its bot was withdrawn from the tournament
    }
    v
}

/// A seat in a game state.
#[derive(Debug, Clone, Serialize)]
pub struct SeatView {
    pub seat: u8,
    pub bot: String,
    pub color: &'static str,
    /// `top-bottom` or `left-right`; they exchange after a swap.
    pub edges: &'static str,
}

/// One played move: `cell` or `swap`, its `a1` name, ply, seat, time taken and when.
#[derive(Debug, Clone, Serialize)]
pub struct MoveView {
    pub ply: i64,
    pub seat: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell: Option<[u8; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub swap: Option<bool>,
    pub name: String,
    pub elapsed_ms: i64,
    pub at: String,
    /// What the bot said of the move (`Hexarena-Info`, issue 21); absent when it sent none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub info: Option<serde_json::Value>,
}

/// A move body as a bot sends it: `{"cell": [r, c]}` or `{"swap": true}`.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(untagged)]
pub enum MoveBody {
    Cell { cell: [u8; 2] },
    Swap { swap: bool },
}

impl From<Move> for MoveBody {
    fn from(mv: Move) -> Self {
        match mv {
            Move::Place(c) => MoveBody::Cell {
                cell: [c.row, c.col],
            },
            Move::Swap => MoveBody::Swap { swap: true },
        }
    }
}

/// The board: `cells[r][c]` is 0 (empty) or the seat owning the stone.
#[derive(Debug, Clone, Serialize)]
pub struct BoardView {
    pub size: i64,
    pub cells: Vec<Vec<u8>>,
    pub winning_path: Option<Vec<[u8; 2]>>,
}

/// Both clocks as of `server_time` (SPEC section 7); times RFC 3339 with milliseconds.
#[derive(Debug, Clone, Serialize)]
pub struct ClockView {
    pub remaining_ms: [i64; 2],
    pub increment_ms: i64,
    pub turn_started_at: Option<String>,
    pub deadline: Option<String>,
    /// Whether the seat on move has yet to make its first move (null when nobody is on move).
    pub first_move: Option<bool>,
    pub server_time: String,
}

/// The options of a set's games.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct OptionsView {
    pub size: i64,
    pub random_stones: i64,
}

/// A stored move as the API shows it.
pub fn move_view(m: &MoveRow) -> MoveView {
    let (cell, swap, name) = match move_of_row(m) {
        Some(Move::Place(c)) => (Some([c.row, c.col]), None, hex::cell_name(c)),
        _ => (None, Some(true), "swap".to_string()),
    };
    MoveView {
        ply: m.ply,
        seat: m.seat,
        cell,
        swap,
        name,
        elapsed_ms: m.elapsed_ms,
        at: rfc3339(m.at_ms),
        info: m.info.as_deref().and_then(|i| serde_json::from_str(i).ok()),
    }
}

/// Points as numbers (halves allowed), from doubled points.
pub fn points_json(p2: i64) -> Value {
    if p2 % 2 == 0 {
        json!(p2 / 2)
    } else {
        json!(p2 as f64 / 2.0)
    }
}

/// Names of a set's bots: creator, acceptor, opponent, winner.
#[derive(Debug, Clone, Default)]
pub struct SetNames {
    pub creator: String,
    pub acceptor: Option<String>,
    pub opponent: Option<String>,
    pub winner: Option<String>,
    /// The tournament or match the set was paired in, if any (issue 18).
    pub event: Option<SetEvent>,
}

/// Where a tournament or match set was paired: tournament id, name, format, round and board.
#[derive(Debug, Clone, Default)]
pub struct SetEvent {
    pub id: String,
    pub name: String,
    pub format: String,
    pub round: i64,
    pub board: i64,
}

/// The set's `tournament` and `match` fields (issue 18): one of them names where the set was
/// paired (`{id, name, format, round, board, url}` / `{id, name, round, board, url}`), the other is null.
fn event_json(e: Option<&SetEvent>) -> (Value, Value) {
    match e {
        Some(e) if e.format == "match" => (
            Value::Null,
            json!({"id": e.id, "name": e.name, "round": e.round, "board": e.board,
                   "url": format!("/v1/matches/{}", e.id)}),
        ),
        Some(e) => (
            json!({"id": e.id, "name": e.name, "format": e.format, "round": e.round,
                   "board": e.board, "url": format!("/tournaments/{}", e.id)}),
            Value::Null,
        ),
        None => (Value::Null, Value::Null),
    }
}

/// A set as a list row (SPEC section 5).
pub fn set_row_json(s: &SetRow, n: &SetNames) -> Value {
    let (tournament, matched) = event_json(n.event.as_ref());
    json!({
        "id": s.id,
        "game": "hex",
        "creator": n.creator,
        "acceptor": n.acceptor,
        "opponent": n.opponent,
        "practice": s.practice != 0,
        "rated": s.rated != 0,
        "staked": s.stake > 0,
        "pool": s.pool != 0,
        "tournament": tournament,
        "match": matched,
        "points": [points_json(s.points2_creator), points_json(s.points2_acceptor)],
        "stake": s.stake,
        "status": s.status,
        "result": s.result,
        "winner": n.winner,
        "options": {"size": s.size, "random_stones": s.random_stones},
        "clock": {"initial_s": s.initial_ms / 1000, "increment_s": s.increment_ms / 1000},
        "created_at": rfc3339(s.created_ms),
        "started_at": opt_time(s.started_ms),
        "finished_at": opt_time(s.finished_ms),
    })
}

/// A game's summary inside the full set view.
pub fn game_summary_json(g: &GameRow, names: &[String; 2]) -> Value {
    let winner_bot = match g.winner_seat {
        Some(1) => json!(names[0]),
        Some(2) => json!(names[1]),
        _ => Value::Null,
    };
    json!({
        "game_no": g.game_no,
        "seats": [{"seat": 1, "bot": names[0]}, {"seat": 2, "bot": names[1]}],
        "status": g.status,
        "ply": g.ply,
        "winner": g.winner_seat,
        "winner_bot": winner_bot,
        "reason": g.reason,
        "offline": g.offline != 0,
        "forfeit": g.forfeit != 0,
        "moves_used": [
            super::scoring::moves_of(Seat::One, g.ply),
            super::scoring::moves_of(Seat::Two, g.ply)
        ],
        "url": format!("/v1/sets/{}/games/{}", g.set_id, g.game_no),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game that ended at the move cap: no winner.
    fn move_cap_draw() -> GameRow {
        GameRow {
            set_id: "set_x".into(),
            game_no: 1,
            seat1_id: "bot_a".into(),
            seat2_id: "bot_b".into(),
            status: "finished".into(),
            board: String::new(),
            ply: 362,
            to_move_id: None,
            remaining1_ms: 1_000,
            remaining2_ms: 2_000,
            first1: 0,
            first2: 0,
            turn_started_ms: None,
            deadline_ms: None,
            winner_seat: None,
            reason: Some("move_cap".into()),
            started_ms: Some(0),
            finished_ms: Some(1),
            version: 363,
            offline: 0,
            forfeit: 0,
            refused1: 0,
            refused2: 0,
        }
    }

    #[test]
    fn a_move_cap_draw_shows_no_winner_and_half_a_point() {
        let g = move_cap_draw();
        let names = ["A".to_string(), "B".to_string()];
        assert_eq!(
            result_json(&g, &names),
            json!({"winner": null, "winner_bot": null, "reason": "move_cap"})
        );
        let summary = game_summary_json(&g, &names);
        assert_eq!(summary["winner"], Value::Null);
        assert_eq!(summary["winner_bot"], Value::Null);
        assert_eq!(summary["reason"], "move_cap");
        assert_eq!(summary["moves_used"], json!([181, 181]));
        assert_eq!(points_json(1), json!(0.5));
        assert_eq!(points_json(3), json!(1.5));
        assert_eq!(points_json(2), json!(1));
    }
}
