//! Grey-box house tests (SPEC section 9, issue 11): they plant house players and bots with the
//! arena's own calls (`app.arena.register_player`, `create_bot` with the house flag) and rename
//! a bot in the database, as a stopped server's older database would hold them; no route
//! creates a house bot. Moved here (issue 19) from house.rs.

mod common;

use std::time::Duration;

use common::{Spawn, TestApp, spawn_with};
use hex_search::ladder::LADDER;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Registers the ladder's house bots on an arena that runs none (as a stopped server's
/// database would hold them).
async fn house_rows_without_a_house(app: &TestApp) {
    for r in LADDER {
        let (player, _) = app
            .arena
            .register_player(&format!("Owner of {}", r.name), true)
            .await
            .expect("house player");
        app.arena
            .create_bot(&player, r.name, Some(1000), true)
            .await
            .expect("house bot");
    }
}

#[tokio::test]
async fn a_database_with_only_the_first_two_house_bots_gets_the_rest_of_the_ladder() {
    let old = spawn_with(Spawn::default()).await;
    let mut ids = vec![];
    for (name, owner) in [
        ("house-random", "House of Random"),
        ("house-bridge", "House of Bridges"),
    ] {
        let (player, _) = old
            .arena
            .register_player(owner, true)
            .await
            .expect("house player");
        let (bot, _) = old
            .arena
            .create_bot(&player, name, Some(1000), true)
            .await
            .expect("house bot");
        ids.push(bot.id);
    }
    // A player's bot took a later rung's name before the ladder existed (and before such
    // names were kept for the house: today it would be refused).
    old.player_with_bot("Squatter").await;
    sqlx::query(
        "UPDATE bots SET name = 'house-novice', name_key = 'house-novice' WHERE name = 'Squatter'",
    )
    .execute(&old.arena.store.pool)
    .await
    .expect("rename");
    let app = spawn_with(Spawn {
        house_bots: true,
        house_lobby_wait_ms: -1,
        database_url: Some(old.database_url.clone()),
        ..Spawn::default()
    })
    .await;
    for (i, rung) in LADDER.iter().enumerate() {
        let p = app.get_bot(&rung.name).await.body;
        if rung.name == "house-novice" {
            // Still the player's bot: the house does not play for it.
            assert_eq!((&p["house"], &p["ladder"]), (&json!(false), &Value::Null));
            continue;
        }
        assert_eq!(p["ladder"]["rung"], i + 1, "{p}");
    }
    // The old two kept their ids (and so their history).
    assert_eq!(app.get_bot("house-random").await.body["id"], ids[0]);
    assert_eq!(app.get_bot("house-bridge").await.body["id"], ids[1]);
}

#[tokio::test]
async fn a_house_move_pending_when_the_server_starts_is_played_from_the_games_loaded_at_boot() {
    // An arena whose house is not running: the practice set waits for the house's first move.
    let before = spawn_with(Spawn::default()).await;
    house_rows_without_a_house(&before).await;
    let (_, _, token) = before.player_with_bot("Patient").await;
    let r = before
        .create_practice_set(Some(&token), json!({"opponent": "house-club"}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(before.state(&id, 1).await["ply"], 0);
    // A server with house bots starts on the same database: it plays the pending move.
    let after = spawn_with(Spawn {
        house_bots: true,
        house_lobby_wait_ms: -1,
        database_url: Some(before.database_url.clone()),
        ..Spawn::default()
    })
    .await;
    let s = after.poll_game(&id, 1, "after_ply=0&wait_s=10").await.body;
    assert_eq!(s["ply"], 1, "{s}");
    assert_eq!(s["moves"][0]["seat"], 1);
    assert_eq!(s["seats"][0]["bot"], "house-club");
}
