//! Answers recorded from a real server (`HEXARENA_RECORD_CONTRACT=1 cargo test --test
//! contract_types` at the top of the repository writes `tests/data/`): each parses into its
//! type and writes back to the same JSON.

use std::path::Path;

use hexarena_contract::event::{MatchView, TournamentView};
use hexarena_contract::{
    BotCreated, BotEvent, BotProfile, EndReason, ErrorCode, ErrorEnvelope, GameState, GameStatus,
    MoveBody, PlayerCreated, SetList, SetStatus, SetView,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

fn data(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

fn round_trip<T: Serialize + DeserializeOwned>(name: &str) -> T {
    let v = data(name);
    let t: T = serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(serde_json::to_value(&t).expect("serializes"), v, "{name}");
    t
}

#[test]
fn every_recorded_answer_has_a_type_and_every_file_is_read() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/data")
        .map(|e| {
            let name = e.expect("entry").file_name().to_string_lossy().into_owned();
            name.trim_end_matches(".json").to_string()
        })
        .collect();
    names.sort();
    for name in &names {
        let kind = name.split('.').next().unwrap_or_default();
        match kind {
            "player_created" => drop(round_trip::<PlayerCreated>(name)),
            "bot_created" => drop(round_trip::<BotCreated>(name)),
            "bot_profile" => drop(round_trip::<BotProfile>(name)),
            "error" => drop(round_trip::<ErrorEnvelope>(name)),
            "game_state" => drop(round_trip::<GameState>(name)),
            "set_view" => drop(round_trip::<SetView>(name)),
            "set_list" => drop(round_trip::<SetList>(name)),
            "match_view" => drop(round_trip::<MatchView>(name)),
            "tournament_view" => drop(round_trip::<TournamentView>(name)),
            other => panic!("{name}: no contract type for '{other}'"),
        }
    }
    assert!(names.len() >= 15, "{names:?}");
}

#[test]
fn a_game_won_by_connection_reads_with_its_swap_result_and_winning_path() {
    let s: GameState = round_trip("game_state.connection");
    assert_eq!(s.status, GameStatus::Finished);
    assert_eq!(s.moves[1].body(), Some(MoveBody::Swap));
    assert_eq!(s.moves[0].name, "e5");
    let r = s.result.clone().expect("a result");
    assert_eq!(
        (r.winner, r.reason, r.offline),
        (Some(2), EndReason::Connection, false)
    );
    let path = s.board.winning_path.clone().expect("a winning path");
    assert_eq!((path.first(), path.last()), (Some(&[0, 4]), Some(&[8, 4])));
    assert_eq!(s.to_move, None);
    assert!(s.legal_moves.is_empty());
    assert_eq!(s.clock.deadline, None);
    // The same state as a `your_turn` or `game_finished` event's data.
    let data = format!("{{\"state\":{}}}", data("game_state.connection"));
    assert_eq!(
        BotEvent::parse("game_finished", &data).ok(),
        Some(BotEvent::GameFinished(s))
    );
}

#[test]
fn a_set_reads_from_open_to_finished_with_its_settlement_and_seed() {
    let open: SetView = round_trip("set_view.open");
    assert_eq!(
        (open.status, open.acceptor.as_deref()),
        (SetStatus::Open, None)
    );
    assert!(open.games.is_empty() && open.opening.is_none() && open.seed.is_none());
    let done: SetView = round_trip("set_view.finished");
    assert_eq!(done.status, SetStatus::Finished);
    assert_eq!(done.points.map(|p| p.0), [2.0, 0.0]);
    assert_eq!(done.seed.as_ref().map(String::len), Some(64));
    let s = done.settlement.clone().expect("settled");
    assert_eq!((s.pot, s.fee, s.payouts.len()), (40, 0, 1));
    assert_eq!(done.games[0].reason, Some(EndReason::Connection));
    assert_eq!(done.games[1].reason, Some(EndReason::Resignation));
    let data = format!("{{\"set\":{}}}", data("set_view.finished"));
    assert_eq!(
        BotEvent::parse("set_finished", &data).ok(),
        Some(BotEvent::SetFinished(done))
    );
}

#[test]
fn error_envelopes_read_with_their_codes_and_details() {
    let stale: ErrorEnvelope = round_trip("error.stale_ply");
    assert_eq!(stale.error.code, ErrorCode::StalePly);
    assert_eq!(stale.error.details["expected_ply"], 3);
    let over: ErrorEnvelope = round_trip("error.game_over");
    assert_eq!(over.error.code, ErrorCode::GameOver);
    assert_eq!(over.error.details["result"]["reason"], "connection");
    let who: ErrorEnvelope = round_trip("error.unauthorized");
    assert_eq!(who.error.code, ErrorCode::Unauthorized);
}
