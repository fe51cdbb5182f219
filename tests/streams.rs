//! Server-sent-event streams (SPEC section 6): what a bot's stream and a game's public stream
//! send on connect, that a reconnection with `Last-Event-ID` gets every missed event exactly
//! once and in order before the live ones, and the keep-alive comment.

mod common;
use common::paths;

use std::time::Duration;

use common::sse::{EventStream, SseEvent, SseItem, SseParser};
use common::{TestApp, spawn_app};
use reqwest::StatusCode;
use serde_json::{Value, json};

fn cell(r: u8, c: u8) -> Value {
    json!({"cell": [r, c]})
}

/// Plays one move for `token` at the game's next ply and checks it was accepted.
async fn play(app: &TestApp, token: &str, set_id: &str, mv: Value) -> i64 {
    let ply = app.state(set_id, 1).await["ply"].as_i64().expect("ply") + 1;
    let r = app.play(token, set_id, 1, mv.clone(), Some(ply)).await;
    assert_eq!(
        r.status,
        StatusCode::OK,
        "move {mv} at ply {ply}: {:?}",
        r.body
    );
    ply
}

/// What a bot-stream event is about: `your_turn` with its ply, or a set's id.
fn summary(kind: &str, data: &Value) -> String {
    match kind {
        "your_turn" => format!(
            "your_turn {} ply {}",
            data["state"]["set_id"].as_str().unwrap_or("?"),
            data["state"]["ply"]
        ),
        _ => format!("{kind} {}", data["set"]["id"].as_str().unwrap_or("?")),
    }
}

async fn open_challenge(app: &TestApp, token: &str) -> String {
    let r = app.create_set(Some(token), json!({"game": "hex"})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    r.body["id"].as_str().expect("set id").to_string()
}

#[tokio::test]
async fn a_bot_stream_replays_what_it_missed_exactly_once_in_order_after_a_reconnect() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    let (_, _, charlie) = app.player_with_bot("Charlie").await;
    let lobby1 = open_challenge(&app, &charlie).await;
    // Bravo accepts, so it is seat 1 of game 1 and on move at ply 0.
    let set = app
        .start_set(
            &alpha,
            &bravo,
            json!({"options": {"size": 9, "random_stones": 0}}),
        )
        .await;

    // On connect: the open challenge it may accept, then the game it is on move in.
    let mut s = EventStream::open(&app, &paths::bot_events(), Some(&bravo), None).await;
    let (id_a, kind, data) = s.next_event().await;
    assert_eq!(summary(&kind, &data), format!("challenge {lobby1}"));
    assert_eq!(data["set"]["status"], "open");
    let (id_b, kind, data) = s.next_event().await;
    assert_eq!(summary(&kind, &data), format!("your_turn {set} ply 0"));
    assert_eq!(data["state"]["to_move"], 1);
    assert_eq!(data["state"]["seats"][0]["bot"], "Bravo");
    assert!(
        data["state"]["clock"]["deadline"].is_string(),
        "the turn carries the clock"
    );
    assert!(id_b >= id_a);

    // Live: Bravo's own move sends it nothing; Alpha's reply is Bravo's turn at ply 2.
    play(&app, &bravo, &set, cell(0, 4)).await;
    play(&app, &alpha, &set, cell(0, 0)).await;
    let (seen, kind, data) = s.next_event().await;
    assert_eq!(summary(&kind, &data), format!("your_turn {set} ply 2"));
    assert!(seen > id_b);
    drop(s);

    // While disconnected: two more turns for Bravo and a new open challenge in the lobby.
    play(&app, &bravo, &set, cell(1, 4)).await;
    play(&app, &alpha, &set, cell(1, 0)).await;
    let lobby2 = open_challenge(&app, &charlie).await;
    play(&app, &bravo, &set, cell(2, 4)).await;
    play(&app, &alpha, &set, cell(2, 0)).await;

    let mut s = EventStream::open(
        &app,
        &paths::bot_events(),
        Some(&bravo),
        Some(&seen.to_string()),
    )
    .await;
    let mut got = vec![];
    for _ in 0..3 {
        got.push(s.next_event().await);
    }
    // Then live again; nothing from before the reconnect is sent twice.
    play(&app, &bravo, &set, cell(3, 4)).await;
    play(&app, &alpha, &set, cell(3, 0)).await;
    got.push(s.next_event().await);

    let kinds: Vec<String> = got.iter().map(|(_, k, d)| summary(k, d)).collect();
    assert_eq!(
        kinds,
        vec![
            format!("your_turn {set} ply 4"),
            format!("challenge {lobby2}"),
            format!("your_turn {set} ply 6"),
            format!("your_turn {set} ply 8"),
        ]
    );
    let ids: Vec<i64> = got.iter().map(|(id, _, _)| *id).collect();
    assert!(
        ids[0] > seen,
        "replay starts after Last-Event-ID {seen}: {ids:?}"
    );
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "ids strictly increase: {ids:?}"
    );
    // The replayed turn carries the state as it was then, the live one the current state.
    assert_eq!(got[0].2["state"]["moves"].as_array().map(Vec::len), Some(4));
    assert_eq!(got[3].2["state"]["board"]["cells"][3][0], 2);
    assert!(
        s.next_item(Duration::from_millis(300))
            .await
            .is_none_or(|i| matches!(i, SseItem::Comment(_)))
    );
}

#[tokio::test]
async fn a_game_stream_sends_the_state_on_connect_and_resumes_after_the_last_event_id() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    let set = app
        .start_set(
            &alpha,
            &bravo,
            json!({"options": {"size": 9, "random_stones": 0}}),
        )
        .await;
    let path = paths::game_events(&set, 1);

    let mut s = EventStream::open(&app, &path, None, None).await;
    let (first, kind, state) = s.next_event().await;
    assert_eq!(kind, "state");
    assert_eq!(
        (
            state["set_id"].as_str(),
            state["game_no"].as_i64(),
            state["ply"].as_i64()
        ),
        (Some(set.as_str()), Some(1), Some(0))
    );
    assert_eq!(state["status"], "active");
    assert_eq!(state["to_move"], 1);

    play(&app, &bravo, &set, cell(4, 4)).await;
    play(&app, &alpha, &set, cell(4, 0)).await;
    let (a, _, s1) = s.next_event().await;
    let (seen, kind, s2) = s.next_event().await;
    assert_eq!(kind, "state");
    assert_eq!((s1["ply"].as_i64(), s2["ply"].as_i64()), (Some(1), Some(2)));
    assert_eq!(s2["moves"][1]["name"], "a5");
    assert!(first < a && a < seen);
    drop(s);

    play(&app, &bravo, &set, cell(5, 4)).await;
    play(&app, &alpha, &set, cell(5, 0)).await;

    let mut s = EventStream::open(&app, &path, None, Some(&seen.to_string())).await;
    let (r3, _, s3) = s.next_event().await;
    let (r4, _, s4) = s.next_event().await;
    play(&app, &bravo, &set, cell(6, 4)).await;
    let (r5, kind, s5) = s.next_event().await;
    assert_eq!(kind, "state");
    assert_eq!(
        [s3["ply"].as_i64(), s4["ply"].as_i64(), s5["ply"].as_i64()],
        [Some(3), Some(4), Some(5)],
        "no fresh snapshot on resume: the missed states, then the live one"
    );
    assert!(
        seen < r3 && r3 < r4 && r4 < r5,
        "ids {seen} < {r3} < {r4} < {r5}"
    );
    assert_eq!(s5["to_move"], 2);

    // Game 2's stream is separate: it starts pending and hears nothing of game 1's moves.
    let mut g2 = EventStream::open(
        &app,
        &paths::game_events(&set, 2),
        None,
        Some(&seen.to_string()),
    )
    .await;
    assert!(
        g2.next_item(Duration::from_millis(500))
            .await
            .is_none_or(|i| matches!(i, SseItem::Comment(_)))
    );
}

#[tokio::test]
async fn streams_refuse_unknown_games_and_a_missing_bot_token() {
    let app = spawn_app().await;
    let r = app
        .get(&paths::game_events("set_01HZZZZZZZZZZZZZZZZZZZZZZZ", 1))
        .await;
    assert_eq!((r.status, r.code()), (StatusCode::NOT_FOUND, "not_found"));
    let r = app.get(&paths::bot_events()).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::UNAUTHORIZED, "unauthorized")
    );
}

#[tokio::test]
async fn an_idle_stream_gets_a_keep_alive_comment_at_least_every_ten_seconds() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let mut s = EventStream::open(&app, &paths::bot_events(), Some(&alpha), None).await;
    // The first comment may come at once; the one after it shows the period.
    let mut comments = vec![];
    while comments.len() < 2 {
        match s.next_item(Duration::from_secs(10)).await {
            Some(SseItem::Comment(c)) => {
                assert_eq!(c, "keep-alive");
                comments.push(tokio::time::Instant::now());
            }
            Some(other) => panic!("an idle bot without games got {other:?}"),
            None => panic!("10 s passed without a keep-alive comment"),
        }
    }
    let gap = comments[1] - comments[0];
    assert!(
        gap >= Duration::from_secs(5) && gap <= Duration::from_secs(10),
        "gap {gap:?}"
    );
}

#[tokio::test]
async fn the_snapshot_on_connect_holds_every_turn_even_with_a_crowded_lobby() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    let (_, _, charlie) = app.player_with_bot("Charlie").await;
    let set = app
        .start_set(
            &alpha,
            &bravo,
            json!({"options": {"size": 9, "random_stones": 0}}),
        )
        .await;
    let mut lobby = vec![];
    for _ in 0..80 {
        lobby.push(open_challenge(&app, &charlie).await);
    }
    let mut s = EventStream::open(&app, &paths::bot_events(), Some(&bravo), None).await;
    let mut got = vec![];
    for _ in 0..81 {
        let (_, kind, data) = s.next_event().await;
        got.push(summary(&kind, &data));
    }
    assert!(
        got.contains(&format!("your_turn {set} ply 0")),
        "the turn is in the snapshot"
    );
    for id in &lobby {
        assert!(
            got.contains(&format!("challenge {id}")),
            "challenge {id} is in the snapshot"
        );
    }
}

#[tokio::test]
async fn a_bot_that_resumes_while_still_on_move_is_sent_that_turn_again() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("ResumeA").await;
    let (_, _, bravo) = app.player_with_bot("ResumeB").await;
    let set = app
        .start_set(
            &alpha,
            &bravo,
            json!({"options": {"size": 9, "random_stones": 0}}),
        )
        .await;
    // Bravo sees its turn, then drops before moving and comes back with the last id it saw.
    let mut s = EventStream::open(&app, &paths::bot_events(), Some(&bravo), None).await;
    let (id, kind, data) = s.next_event().await;
    assert_eq!(summary(&kind, &data), format!("your_turn {set} ply 0"));
    drop(s);
    let mut s = EventStream::open(
        &app,
        &paths::bot_events(),
        Some(&bravo),
        Some(&id.to_string()),
    )
    .await;
    let (_, kind, data) = s.next_event().await;
    assert_eq!(summary(&kind, &data), format!("your_turn {set} ply 0"));
    // Nothing else is pending: no duplicate follows.
    assert!(
        s.next_item(Duration::from_millis(300))
            .await
            .is_none_or(|i| matches!(i, SseItem::Comment(_)))
    );
}

#[tokio::test]
async fn challenges_reach_only_the_bots_that_may_accept_them() {
    let app = spawn_app().await;
    let (_, owner, alpha) = app.player_with_bot("LobbyA").await;
    let sibling = app.bot(&owner, "LobbySibling").await;
    let (_, _, stranger) = app.player_with_bot("LobbyStranger").await;
    let mut own = EventStream::open(&app, &paths::bot_events(), Some(&alpha), None).await;
    let mut sib = EventStream::open(&app, &paths::bot_events(), Some(&sibling), None).await;
    let mut other = EventStream::open(&app, &paths::bot_events(), Some(&stranger), None).await;
    let set = open_challenge(&app, &alpha).await;
    let (_, kind, data) = other.next_event().await;
    assert_eq!(summary(&kind, &data), format!("challenge {set}"));
    // Its creator and a bot of the same owner (a staked set) hear nothing of it.
    for s in [&mut own, &mut sib] {
        assert!(
            s.next_item(Duration::from_millis(500))
                .await
                .is_none_or(|i| matches!(i, SseItem::Comment(_)))
        );
    }
    // Nor on a fresh connection's snapshot.
    let mut sib = EventStream::open(&app, &paths::bot_events(), Some(&sibling), None).await;
    assert!(
        sib.next_item(Duration::from_millis(500))
            .await
            .is_none_or(|i| matches!(i, SseItem::Comment(_)))
    );
}

/// The stream asks the accept's own rules (issue 19): a challenge whose creator has since
/// narrowed its declared accepts is not offered, because its accept would be refused.
#[tokio::test]
async fn a_challenge_its_creator_no_longer_accepts_is_not_offered_and_its_accept_is_refused() {
    let app = spawn_app().await;
    let (_, _, narrow) = app.player_with_bot("NarrowA").await;
    let (_, _, wide) = app.player_with_bot("WideB").await;
    let (_, _, onlooker) = app.player_with_bot("Onlooker").await;
    let narrowed = open_challenge(&app, &narrow).await; // 11x11
    let r = app
        .declare_bot(Some(&narrow), json!({"accepts": {"sizes": [13, 19]}}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let offered = open_challenge(&app, &wide).await;
    let mut s = EventStream::open(&app, &paths::bot_events(), Some(&onlooker), None).await;
    let (_, kind, data) = s.next_event().await;
    assert_eq!(summary(&kind, &data), format!("challenge {offered}"));
    assert!(
        s.next_item(Duration::from_millis(500))
            .await
            .is_none_or(|i| matches!(i, SseItem::Comment(_))),
        "only the challenge it may accept is in the snapshot"
    );
    // The accept it was not offered is refused and changes nothing.
    let r = app.accept_set(Some(&onlooker), &narrowed, json!({})).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{:?}", r.body);
    assert_eq!(r.body["error"]["code"], "not_accepted");
    let set = app.get_set(&narrowed).await.body;
    assert_eq!(set["status"], "open");
    assert_eq!(set["acceptor"], Value::Null);
}

// The wire parser of tests/common/sse.rs (what the stream tests read with).

fn events(items: Vec<SseItem>) -> Vec<SseEvent> {
    items
        .into_iter()
        .filter_map(|i| match i {
            SseItem::Event(e) => Some(e),
            SseItem::Comment(_) => None,
        })
        .collect()
}

#[test]
fn the_parser_joins_chunks_split_anywhere_and_tracks_the_last_id() {
    let text = "retry: 2000\n\nevent: your_turn\nid: 7\ndata: {\"a\":\n\n: keep-alive\n\nid: 9\r\nevent: challenge\r\ndata: x\r\ndata: y\r\n\r\n";
    for split in 0..text.len() {
        let mut p = SseParser::new();
        let mut items = p.push(&text.as_bytes()[..split]);
        items.extend(p.push(&text.as_bytes()[split..]));
        assert_eq!(items.len(), 3, "split at {split}: {items:?}");
        assert_eq!(items[1], SseItem::Comment("keep-alive".into()));
        assert_eq!(
            events(items),
            vec![
                SseEvent {
                    id: Some("7".into()),
                    event: "your_turn".into(),
                    data: "{\"a\":".into()
                },
                SseEvent {
                    id: Some("9".into()),
                    event: "challenge".into(),
                    data: "x\ny".into()
                },
            ]
        );
        assert_eq!(p.last_id(), Some("9"));
    }
}

#[test]
fn an_event_without_data_only_moves_the_last_id_and_a_nameless_one_is_a_message() {
    let mut p = SseParser::new();
    let items = p.push(b"id: 3\n\ndata\n\n");
    assert_eq!(
        events(items),
        vec![SseEvent {
            id: None,
            event: "message".into(),
            data: String::new()
        }]
    );
    assert_eq!(p.last_id(), Some("3"));
}
