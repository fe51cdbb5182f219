//! From the contract's game state to the rules engine (`hex`) and back, and the clock as the
//! seat on move sees it.

use hex::{Cell, Move, Position};
use hexarena_contract::{GameState, MoveBody};

/// The engine move of a move body.
#[must_use]
pub fn move_of(body: MoveBody) -> Move {
    match body {
        MoveBody::Cell([r, c]) => Move::Place(Cell::new(r, c)),
        MoveBody::Swap => Move::Swap,
    }
}

/// The move body of an engine move.
#[must_use]
pub fn body_of(mv: Move) -> MoveBody {
    match mv {
        Move::Place(c) => MoveBody::Cell([c.row, c.col]),
        Move::Swap => MoveBody::Swap,
    }
}

/// The opening stones as engine cells, in placement order.
#[must_use]
pub fn opening_of(state: &GameState) -> Vec<Cell> {
    state
        .opening
        .iter()
        .map(|[r, c]| Cell::new(*r, *c))
        .collect()
}

/// The moves played, in order, as engine moves (entries without a move are skipped).
#[must_use]
pub fn moves_of(state: &GameState) -> Vec<Move> {
    state
        .moves
        .iter()
        .filter_map(|m| m.body().map(move_of))
        .collect()
}

/// Rebuilds the engine position of a game state: the opening, then every move in order. The
/// board alone would not tell who owns which edges after a swap; the move list does.
///
/// # Errors
/// The state does not replay: an opening or move the rules refuse, or a `ply` that does not
/// match the moves.
pub fn position_of(state: &GameState) -> Result<Position, String> {
    let mut pos =
        Position::with_opening(state.board.size, &opening_of(state)).map_err(|e| e.to_string())?;
    for m in &state.moves {
        let mv = m
            .body()
            .ok_or_else(|| format!("move {} without a move", m.ply))?;
        pos.play(move_of(mv))
            .map_err(|e| format!("move {} ({}): {e}", m.ply, m.name))?;
    }
    if u32::from(pos.ply()) != state.ply {
        return Err(format!(
            "replayed {} moves, the state says ply {}",
            pos.ply(),
            state.ply
        ));
    }
    Ok(pos)
}

/// Milliseconds of an RFC 3339 time.
fn parse_ms(t: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(t)
        .ok()
        .map(|t| t.timestamp_millis())
}

/// Milliseconds the seat on move has before its deadline, as the server sees it
/// (`deadline - server_time`); 30 000 when the state has no deadline.
#[must_use]
pub fn time_left_ms(state: &GameState) -> i64 {
    let deadline = state.clock.deadline.as_deref().and_then(parse_ms);
    match (deadline, parse_ms(&state.clock.server_time)) {
        (Some(d), Some(now)) => d - now,
        _ => 30_000,
    }
}

/// The time the seat on move may still spend, ms: until its deadline, and during a free first
/// move no more than its clock's remaining time (as the house bots count it).
#[must_use]
pub fn clock_left_ms(state: &GameState) -> u64 {
    let left = time_left_ms(state);
    let seat = state.to_move.unwrap_or(1).clamp(1, 2);
    let remaining = state.remaining_ms(seat).unwrap_or(left);
    u64::try_from(left.min(remaining)).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A state from its JSON, with the parts the test does not care about filled in.
    fn state(moves: serde_json::Value, ply: u32, clock: serde_json::Value) -> GameState {
        serde_json::from_value(json!({
            "set_id": "set_x", "game_no": 1, "status": "active",
            "options": {"size": 5, "random_stones": 0},
            "seats": [{"seat": 1, "bot": "A", "color": "red", "edges": "top-bottom"},
                      {"seat": 2, "bot": "B", "color": "blue", "edges": "left-right"}],
            "to_move": clock["to_move"], "ply": ply, "opening": [], "moves": moves,
            "board": {"size": 5, "cells": [], "winning_path": null}, "legal_moves": [],
            "clock": clock["clock"], "result": null,
        }))
        .expect("a game state")
    }

    fn clock(to_move: u8, remaining: [i64; 2], deadline: &str, first: bool) -> serde_json::Value {
        json!({"to_move": to_move, "clock": {
            "remaining_ms": remaining, "increment_ms": 0, "first_move": first,
            "turn_started_at": "2026-12-01T08:00:00.000Z",
            "deadline": deadline, "server_time": "2026-12-01T08:00:00.000Z"}})
    }

    #[test]
    fn the_client_s_clock_is_the_deadline_capped_by_the_remaining_time() {
        // A free first move: 30 s to the deadline, but only 9 s on the clock.
        let s = state(
            json!([]),
            0,
            clock(2, [60_000, 9_000], "2026-12-01T08:00:30.000Z", true),
        );
        assert_eq!(time_left_ms(&s), 30_000);
        assert_eq!(clock_left_ms(&s), 9_000);
        let s = state(
            json!([]),
            0,
            clock(1, [4_000, 9_000], "2026-12-01T08:00:04.000Z", false),
        );
        assert_eq!(clock_left_ms(&s), 4_000);
    }

    #[test]
    fn a_state_with_a_swap_rebuilds_to_the_same_board_and_ply() {
        let c = clock(2, [1, 1], "2026-12-01T08:00:04.000Z", false);
        let m = |ply: u32, seat: u8, mv: serde_json::Value| {
            let mut v = json!({"ply": ply, "seat": seat, "name": "x", "elapsed_ms": 0,
                               "at": "2026-12-01T08:00:00.000Z"});
            for (k, x) in mv.as_object().expect("object") {
                v[k] = x.clone();
            }
            v
        };
        let s = state(
            json!([
                m(1, 1, json!({"cell": [2, 2]})),
                m(2, 2, json!({"swap": true})),
                m(3, 1, json!({"cell": [0, 1]}))
            ]),
            3,
            c.clone(),
        );
        let pos = position_of(&s).expect("consistent state");
        assert_eq!(pos.ply(), 3);
        assert!(pos.swapped());
        assert_eq!(pos.stone(Cell::new(2, 2)), Some(hex::Seat::Two));
        assert_eq!(
            pos.stone(Cell::new(0, 1)),
            Some(hex::Seat::One),
            "seat 1 moves after the swap"
        );
        assert_eq!(pos.to_move(), Some(hex::Seat::Two));
        assert_eq!(
            pos.axis(hex::Seat::Two),
            hex::Axis::TopBottom,
            "the swap exchanged the edges"
        );
        let wrong = state(json!([m(1, 1, json!({"cell": [2, 2]}))]), 2, c);
        assert!(position_of(&wrong).is_err());
    }
}
