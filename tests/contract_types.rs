//! The contract's types (`crates/contract`) against the real server: every answer a bot or
//! its author reads parses into its type and writes back to the same JSON, so the types name
//! every field with the server's shapes. With `HEXARENA_RECORD_CONTRACT=1` the answers are
//! also written to `crates/contract/tests/data/`, which the contract crate's own tests read.

mod common;
use common::paths;

use std::time::Duration;

use common::sse::{EventStream, SseEvent, SseItem};
use common::{TestApp, round_trip, seat_tokens, spawn_app};
use hexarena_contract::event::{MatchView, TournamentView};
use hexarena_contract::{
    BotCreated, BotEvent, BotProfile, EndReason, ErrorCode, ErrorEnvelope, GameState, GameStatus,
    MoveBody, PlayerCreated, PublicEvent, SetList, SetStatus, SetView,
};
use reqwest::StatusCode;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Checks each answer against its type and, when asked, records it for the contract crate.
struct Recorder {
    dir: Option<std::path::PathBuf>,
}

impl Recorder {
    fn new() -> Recorder {
        let dir = std::env::var_os("HEXARENA_RECORD_CONTRACT").map(|_| {
            let d =
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/contract/tests/data");
            std::fs::create_dir_all(&d).expect("data folder");
            d
        });
        Recorder { dir }
    }

    /// [`round_trip`], then the recording as `<name>.json`.
    fn check<T: Serialize + DeserializeOwned>(&self, name: &str, v: &Value) -> T {
        let t = round_trip::<T>(v);
        if let Some(d) = &self.dir {
            let text = serde_json::to_string_pretty(v).expect("json");
            std::fs::write(d.join(format!("{name}.json")), text + "\n").expect("recorded");
        }
        t
    }
}

/// Every event on `s` until nothing comes for `quiet`, as (event name, data text).
async fn drain(s: &mut EventStream, quiet: Duration) -> Vec<(String, String)> {
    let mut out = vec![];
    while let Some(item) = s.next_item(quiet).await {
        if let SseItem::Event(SseEvent { event, data, .. }) = item {
            out.push((event, data));
        }
    }
    out
}

/// Reads events until every name in `wanted` has arrived (at most `within`), then until the
/// stream has been quiet for 300 ms. Delivery is promised, not within a fixed window: on a
/// loaded PostgreSQL pass the last events came later than a bare quiet period allowed.
async fn drain_until(
    s: &mut EventStream,
    wanted: &[&str],
    within: Duration,
) -> Vec<(String, String)> {
    let deadline = tokio::time::Instant::now() + within;
    let mut out: Vec<(String, String)> = vec![];
    while !wanted.iter().all(|w| out.iter().any(|(e, _)| e == w)) {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match s.next_item(left).await {
            Some(SseItem::Event(SseEvent { event, data, .. })) => out.push((event, data)),
            Some(SseItem::Comment(_)) => {}
            None => break,
        }
    }
    out.extend(drain(s, Duration::from_millis(300)).await);
    out
}

async fn post_ok(app: &TestApp, path: &str, token: &str, body: Value) -> Value {
    let r = app.post(path, Some(token), body).await;
    assert!(r.status.is_success(), "POST {path}: {:?}", r.body);
    r.body
}

#[tokio::test]
async fn every_answer_a_bot_reads_parses_into_the_contract_types_and_writes_back_the_same_json() {
    let app = spawn_app().await;
    let rec = Recorder::new();

    // Accounts.
    let r = app.create_player(json!({"name": "ada"})).await;
    assert_eq!(r.status, StatusCode::CREATED);
    let ada: PlayerCreated = rec.check("player_created", &r.body);
    assert!(ada.token.starts_with("hxp_"));
    let r = app.create_player(json!({"name": "bob"})).await;
    let bob: PlayerCreated = r.typed();
    let r = app
        .create_bot(
            Some(&ada.token),
            json!({"name": "AdaBot", "max_stake": 200}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
    let ada_bot: BotCreated = rec.check("bot_created", &r.body);
    assert_eq!(
        (ada_bot.max_stake, ada_bot.owner.as_str()),
        (200, ada.id.as_str())
    );
    let bob_bot: BotCreated = app
        .create_bot(Some(&bob.token), json!({"name": "BobBot"}))
        .await
        .typed();
    let (a, b) = (ada_bot.token.as_str(), bob_bot.token.as_str());

    let mut public = EventStream::open(&app, &paths::public_events(), None, None).await;
    let mut ada_events = EventStream::open(&app, &paths::bot_events(), Some(a), None).await;
    let mut bob_events = EventStream::open(&app, &paths::bot_events(), Some(b), None).await;

    // A private, staked challenge with the swap allowed.
    let body = json!({"game": "hex", "stake": 20, "opponent": "BobBot",
                      "options": {"size": 9, "random_stones": 0}});
    let open: SetView = rec.check(
        "set_view.open",
        &post_ok(&app, &paths::sets(), a, body).await,
    );
    assert_eq!(
        (open.status, open.stake, open.opening.as_ref()),
        (SetStatus::Open, 20, None)
    );
    let id = open.id.clone();
    let accepted: SetView = rec.check(
        "set_view.active",
        &post_ok(&app, &paths::accept(&id), b, json!({})).await,
    );
    assert_eq!(accepted.status, SetStatus::Active);
    assert_eq!(accepted.games.len(), 2);
    assert_eq!(accepted.games[1].status, GameStatus::Pending);

    // Game 1: the acceptor opens, the creator swaps.
    let start: GameState = rec.check("game_state.start", &app.get_game(&id, 1).await.body);
    assert_eq!(
        (start.to_move, start.ply, start.legal_moves.len()),
        (Some(1), 0, 81)
    );
    assert!(start.is_turn_of("bobbot"));
    let r = app.play(b, &id, 1, json!({"cell": [4, 4]}), Some(1)).await;
    let after: GameState = rec.check("game_state.first_move", &r.body);
    assert!(
        after.legal_moves.contains(&MoveBody::Swap),
        "the swap is offered"
    );
    let r = app.play(a, &id, 1, json!({"swap": true}), Some(2)).await;
    let swapped: GameState = rec.check("game_state.swapped", &r.body);
    assert_eq!(swapped.moves[1].body(), Some(MoveBody::Swap));
    assert_eq!(swapped.seats[1].edges, hexarena_contract::Edges::TopBottom);
    let r = app.play(a, &id, 1, json!({"cell": [0, 4]}), Some(5)).await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    let stale: ErrorEnvelope = rec.check("error.stale_ply", &r.body);
    assert_eq!(stale.error.code, ErrorCode::StalePly);
    assert_eq!(stale.error.details["expected_ply"], 3);

    // The swapped stone is the creator's now: it connects column 4 top to bottom.
    let mut moves = vec![];
    for (bob_row, ada_row) in [
        (0, 0),
        (1, 1),
        (2, 2),
        (3, 3),
        (5, 5),
        (6, 6),
        (7, 7),
        (8, 8),
    ] {
        moves.push(json!({"cell": [bob_row, 0]}));
        moves.push(json!({"cell": [ada_row, 4]}));
    }
    let tokens = seat_tokens(&app.state(&id, 1).await, &[("AdaBot", a), ("BobBot", b)]);
    let won = app.play_moves(tokens, &id, 1, &moves).await;
    let won: GameState = rec.check("game_state.connection", &won.body);
    let result = won.result.clone().expect("a result");
    assert_eq!(
        (result.winner, result.reason),
        (Some(2), EndReason::Connection)
    );
    assert_eq!(won.board.winning_path.as_ref().map(Vec::len), Some(9));
    let r = app.play(b, &id, 1, json!({"cell": [8, 8]}), Some(18)).await;
    let over: ErrorEnvelope = rec.check("error.game_over", &r.body);
    assert_eq!(over.error.code, ErrorCode::GameOver);

    // Game 2: the creator opens; the acceptor resigns.
    app.play(a, &id, 2, json!({"cell": [4, 4]}), Some(1)).await;
    let r = app.resign(Some(b), &id, 2, json!({})).await;
    let resigned: GameState = rec.check("game_state.resigned", &r.body);
    assert_eq!(
        resigned.result.map(|r| r.reason),
        Some(EndReason::Resignation)
    );
    let finished: SetView = rec.check("set_view.finished", &app.get_set(&id).await.body);
    assert_eq!(finished.status, SetStatus::Finished);
    assert_eq!(finished.winner.as_deref(), Some("AdaBot"));
    assert_eq!(finished.points[0].0, 2.0);
    assert!(finished.seed.is_some());
    let settlement = finished.settlement.clone().expect("a staked set settles");
    assert_eq!(settlement.pot, 40);
    assert_eq!(settlement.payouts[0].player, ada.id);

    // The streams told both bots, in the contract's events.
    let names = |evs: &[(String, String)]| -> Vec<String> {
        evs.iter()
            .map(|(e, d)| {
                let parsed = BotEvent::parse(e, d).unwrap_or_else(|err| panic!("{e} {d}: {err}"));
                assert!(
                    !matches!(parsed, BotEvent::Other { .. }),
                    "{e} is in the contract"
                );
                if let BotEvent::YourTurn(s) | BotEvent::GameFinished(s) = &parsed {
                    let data: Value = serde_json::from_str(d).expect("json");
                    round_trip::<GameState>(&data["state"]);
                    assert_eq!(s.set_id, id);
                }
                parsed.name().to_string()
            })
            .collect()
    };
    let bob_wants = [
        "challenge",
        "set_started",
        "your_turn",
        "game_finished",
        "set_finished",
    ];
    let bob_seen = names(&drain_until(&mut bob_events, &bob_wants, Duration::from_secs(15)).await);
    for want in bob_wants {
        assert!(
            bob_seen.iter().any(|n| n == want),
            "{want} missing from {bob_seen:?}"
        );
    }
    let ada_seen = names(
        &drain_until(
            &mut ada_events,
            &["your_turn", "set_finished"],
            Duration::from_secs(15),
        )
        .await,
    );
    assert!(ada_seen.iter().any(|n| n == "your_turn"), "{ada_seen:?}");
    let sets_changed: Vec<PublicEvent> =
        drain_until(&mut public, &["set"], Duration::from_secs(15))
            .await
            .iter()
            .filter(|(e, _)| e == "set")
            .map(|(_, d)| round_trip(&serde_json::from_str::<Value>(d).expect("json")))
            .collect();
    assert!(
        sets_changed
            .iter()
            .any(|e| e.set_id.as_deref() == Some(id.as_str()))
    );

    // A game's public stream: each event `state` is the game state itself.
    let mut game = EventStream::open(&app, &paths::game_events(&id, 1), None, None).await;
    let (_, kind, data) = game.next_event().await;
    assert_eq!(kind, "state");
    let s: GameState = round_trip(&data);
    assert_eq!(s.status, GameStatus::Finished);

    // Profiles and lists.
    let me: BotProfile = rec.check("bot_profile", &app.get_current_bot(Some(b)).await.body);
    assert_eq!((me.name.as_str(), me.sets, me.l), ("BobBot", 1, 1));
    let list: SetList = rec.check("set_list", &app.list_sets("bot=AdaBot").await.body);
    assert_eq!(list.sets[0].id, id);

    // A match between two of one player's bots, and a tournament.
    app.create_bot(Some(&ada.token), json!({"name": "AdaTwo"}))
        .await;
    let r = app
        .create_match(
            Some(&ada.token),
            json!({"bots": ["AdaBot", "AdaTwo"], "sets": 2}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let m: MatchView = rec.check("match_view", &r.body);
    let m2: MatchView = round_trip(&app.get_match(&m.id).await.body);
    assert_eq!(
        (m2.bots.clone(), m2.sets),
        (["AdaBot".to_string(), "AdaTwo".to_string()], 2)
    );
    let r = app
        .create_tournament(
            Some("op-secret"),
            json!({"name": "Cup", "format": "round_robin", "stake": 0,
                   "participants": ["AdaBot", "BobBot", "AdaTwo"]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let t: TournamentView = round_trip(&r.body);
    let started = app
        .start_tournament(Some("op-secret"), &t.id, json!({}))
        .await;
    assert!(started.status.is_success(), "{:?}", started.body);
    // The first round is paired by the tournament's own task, soon after the start.
    let path = paths::tournament(&t.id);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while app.get(&path).await.body["rounds_played"]
        .as_array()
        .is_none_or(Vec::is_empty)
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no round paired within 10 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let t: TournamentView = rec.check("tournament_view", &app.get(&path).await.body);
    assert_eq!(t.entrants().len(), 3);
    assert_eq!(t.standings.as_ref().map(Vec::len), Some(3));
    assert!(t.rounds_played.as_ref().is_some_and(|r| !r.is_empty()));

    // Errors of other kinds.
    let r = app.get_current_bot(Some("hxb_nobody")).await;
    let e: ErrorEnvelope = rec.check("error.unauthorized", &r.body);
    assert_eq!(e.error.code, ErrorCode::Unauthorized);
    let r = app
        .play(a, &id, 2, json!({"cell": [1, 2], "swap": true}), None)
        .await;
    let e: ErrorEnvelope = round_trip(&r.body);
    assert_eq!(e.error.code, ErrorCode::InvalidMove);
    let e: ErrorEnvelope = round_trip(&app.get_set("set_nothing").await.body);
    assert_eq!(e.error.code, ErrorCode::NotFound);
}
