//! Issues 18 and 20 together: a tournament respects what its bots declare and whether they are
//! retired. A retired bot or one whose `accepts` leave out the tournament's settings cannot be
//! entered (nothing is created), and retiring a bot withdraws it from the tournaments it plays.

mod common;

use common::{TestApp, spawn_app};
use reqwest::StatusCode;
use serde_json::{Value, json};

const OP: &str = "op-secret";

async fn tournament_count(app: &TestApp) -> usize {
    let r = app.list_tournaments("").await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    r.body["tournaments"].as_array().map_or(0, Vec::len)
}

fn participant<'a>(t: &'a Value, bot: &str) -> &'a Value {
    t["participants"]
        .as_array()
        .expect("participants")
        .iter()
        .find(|p| p["bot"] == bot)
        .expect("the bot is a participant")
}

#[tokio::test]
async fn a_retired_bot_or_one_that_does_not_accept_the_settings_is_not_entered() {
    let app = spawn_app().await;
    let (_, _, choosy) = app.player_with_bot("Choosy").await;
    let (_, _, gone) = app.player_with_bot("Gone").await;
    app.player_with_bot("Plain").await;
    let r = app
        .declare_bot(Some(&choosy), json!({"accepts": {"sizes": [13, 13]}}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let r = app.retire_bot(Some(&gone)).await;
    assert!(r.status.is_success(), "{:?}", r.body);
    let before = tournament_count(&app).await;

    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "Small boards", "format": "round_robin",
                   "options": {"size": 9}, "participants": ["Choosy", "Plain"]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{:?}", r.body);
    assert_eq!(r.body["error"]["code"], "not_accepted");
    assert_eq!(r.body["error"]["details"]["option"], "sizes");
    assert_eq!(r.body["error"]["details"]["bot"], "Choosy");

    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "Ghosts", "format": "round_robin", "participants": ["Gone", "Plain"]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{:?}", r.body);
    assert_eq!(r.body["error"]["code"], "bot_retired");
    assert_eq!(tournament_count(&app).await, before, "nothing was created");

    // The settings Choosy accepts are fine; adding the retired bot later is refused too.
    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "Big boards", "format": "round_robin",
                   "options": {"size": 13}, "participants": ["Choosy", "Plain"]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    let r = app
        .add_participant(Some(OP), &id, json!({"bot": "Gone"}))
        .await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{:?}", r.body);
    assert_eq!(r.body["error"]["code"], "bot_retired");
    // A PATCH to settings a participant does not accept is refused and changes nothing.
    let r = app
        .patch_tournament(Some(OP), &id, json!({"options": {"size": 11}}))
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{:?}", r.body);
    assert_eq!(r.body["error"]["code"], "not_accepted");
    let t = app.get_tournament(&id).await.body;
    assert_eq!(t["options"]["size"], 13);
    assert_eq!(t["participants"].as_array().map(Vec::len), Some(2));
}

#[tokio::test]
async fn retiring_a_bot_withdraws_it_from_the_tournaments_it_plays() {
    let app = spawn_app().await;
    let mut tokens = Vec::new();
    for n in ["SwA", "SwB", "SwC", "SwD"] {
        tokens.push(app.player_with_bot(n).await.2);
    }
    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "Retiring Swiss", "format": "swiss", "rounds": 3,
                   "participants": ["SwA", "SwB", "SwC", "SwD"]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    let r = app.start_tournament(Some(OP), &id, json!({})).await;
    assert!(r.status.is_success(), "{:?}", r.body);

    // Round 1 is paired by the driver; retire once it is (so the withdrawal is in round 1).
    let mut paired = false;
    for _ in 0..200 {
        let t = app.get_tournament(&id).await.body;
        if t["current_round"] == 1 && t["rounds_played"].as_array().is_some_and(|r| !r.is_empty()) {
            paired = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(paired, "round 1 was paired");
    let r = app.retire_bot(Some(&tokens[3])).await;
    assert!(r.status.is_success(), "{:?}", r.body);
    let t = app.get_tournament(&id).await.body;
    let w = &participant(&t, "SwD")["withdrawn"];
    assert_eq!(w["by"], "retired", "{t}");
    assert_eq!(w["round"], 1, "{t}");
    for other in ["SwA", "SwB", "SwC"] {
        assert!(
            participant(&t, other)["withdrawn"].is_null(),
            "{other}: {t}"
        );
    }
}

#[tokio::test]
async fn a_scheduled_start_with_a_retired_participant_is_held_like_a_manual_start() {
    let app = spawn_app().await;
    let (_, _, keep) = app.player_with_bot("Stays").await;
    let (_, _, gone) = app.player_with_bot("Leaves").await;
    for t in [&keep, &gone] {
        app.get_turn(Some(t), "wait_s=0").await;
    }
    let at = chrono::Utc::now() + chrono::Duration::milliseconds(1500);
    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "Scheduled", "format": "round_robin",
                   "options": {"size": 9, "random_stones": 0},
                   "participants": ["Stays", "Leaves"], "start_at": at.to_rfc3339()}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    // Removing it would leave one: it stays, and the start is 409 until the operator acts.
    let r = app.retire_bot(Some(&gone)).await;
    assert!(r.status.is_success(), "{:?}", r.body);
    let r = app.start_tournament(Some(OP), &id, json!({})).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{:?}", r.body);
    tokio::time::sleep(std::time::Duration::from_millis(3500)).await;
    let t = app.get_tournament(&id).await.body;
    assert_eq!(t["status"], "created", "{t}");
    assert_eq!(
        t["rounds_played"],
        json!([]),
        "no set for the retired bot: {t}"
    );
    assert_eq!(t["start_held"]["code"], "bot_retired", "{t}");
    assert_eq!(t["start_held"]["details"]["bot"], "Leaves", "{t}");
}

/// A bot whose declared `accepts` no longer cover the settings holds a scheduled start as it
/// refuses `POST .../start` (its pairings could never start), and the start goes on by itself
/// once the bot accepts them again.
#[tokio::test]
async fn a_scheduled_start_with_a_bot_that_no_longer_accepts_the_settings_is_held() {
    let app = spawn_app().await;
    let (_, _, one) = app.player_with_bot("Keeps").await;
    let (_, _, other) = app.player_with_bot("Narrows").await;
    for t in [&one, &other] {
        app.get_turn(Some(t), "wait_s=0").await;
    }
    let at = chrono::Utc::now() + chrono::Duration::milliseconds(1500);
    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "Scheduled nine", "format": "round_robin",
                   "options": {"size": 9, "random_stones": 0},
                   "participants": ["Keeps", "Narrows"], "start_at": at.to_rfc3339()}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    let r = app
        .declare_bot(Some(&other), json!({"accepts": {"sizes": [11, 13]}}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    tokio::time::sleep(std::time::Duration::from_millis(3500)).await;
    let t = app.get_tournament(&id).await.body;
    assert_eq!(
        (t["status"].clone(), t["rounds_played"].clone()),
        (json!("created"), json!([])),
        "{t}"
    );
    assert_eq!(t["start_held"]["code"], "not_accepted", "{t}");
    assert_eq!(t["start_held"]["details"]["bot"], "Narrows", "{t}");
    let r = app
        .declare_bot(Some(&other), json!({"accepts": {"sizes": [9, 11]}}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let t = app.get_tournament(&id).await.body;
        if t["status"] == "running" {
            assert_eq!(t["start_held"], Value::Null, "{t}");
            break;
        }
        assert!(std::time::Instant::now() < until, "never started: {t}");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}
