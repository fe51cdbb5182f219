//! Account hygiene (issue 20): rotating bot and player tokens, retiring a bot. Every refusal
//! changes nothing.

mod common;
use common::paths;

use std::time::Duration;

use common::{TestApp, spawn_app};
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn open_sets(app: &TestApp) -> usize {
    let r = app.list_sets("status=open").await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    r.body["sets"].as_array().map_or(0, Vec::len)
}

#[tokio::test]
async fn a_rotated_bot_token_replaces_the_old_one_at_once_and_ends_its_stream() {
    let app = spawn_app().await;
    let (_, _, old) = app.player_with_bot("Rotor").await;
    let resp = app
        .http
        .get(format!("{}{}", app.url, paths::bot_events()))
        .bearer_auth(&old)
        .send()
        .await
        .expect("stream opens");
    assert_eq!(resp.status(), StatusCode::OK);

    let r = app.rotate_bot_token(Some(&old), json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["name"], "Rotor");
    let new = r.body["token"].as_str().expect("token").to_string();
    assert!(new.starts_with("hxb_") && new != old);

    let r = app.get_current_bot(Some(&old)).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{:?}", r.body);
    let r = app.get_current_bot(Some(&new)).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["name"], "Rotor");
    // The old token can rotate nothing any more.
    let r = app.rotate_bot_token(Some(&old), json!({})).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);

    // The stream the old token opened ends (the body completes) within a few seconds.
    let mut resp = resp;
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match resp.chunk().await {
                Ok(Some(_)) => continue,
                Ok(None) | Err(_) => return,
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "the old token's stream is still open");
    // A stream with the new token opens.
    let r = app
        .http
        .get(format!("{}{}", app.url, paths::bot_events()))
        .bearer_auth(&new)
        .send()
        .await
        .expect("stream opens");
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_rotated_player_token_replaces_the_old_one_at_once() {
    let app = spawn_app().await;
    let (id, old) = app.player("Rotating owner").await;
    let r = app.rotate_player_token(Some(&old), json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["id"], id.as_str());
    let new = r.body["token"].as_str().expect("token").to_string();
    assert!(new.starts_with("hxp_") && new != old);
    assert_eq!(
        app.get_player(Some(&old)).await.status,
        StatusCode::UNAUTHORIZED
    );
    let r = app.get_player(Some(&new)).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["balance"], 1000);
    // A bot token is not a player token, and the reverse.
    let bot = app.bot(&new, "Owned").await;
    let r = app.rotate_player_token(Some(&bot), json!({})).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let r = app.rotate_bot_token(Some(&new), json!({})).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(app.get_current_bot(Some(&bot)).await.status, StatusCode::OK);
}

#[tokio::test]
async fn a_retired_bot_plays_no_new_sets_finishes_its_running_one_and_keeps_its_name() {
    let app = spawn_app().await;
    let (_, alpha_pt, alpha) = app.player_with_bot("Alpha").await;
    let (_, bravo_pt, bravo) = app.player_with_bot("Bravo").await;
    let (_, _, charlie) = app.player_with_bot("Charlie").await;
    // A running set, an open lobby challenge by Alpha and a private one aimed at it.
    let running = app.start_set(&alpha, &bravo, json!({"stake": 20})).await;
    let r = app
        .create_set(Some(&alpha), json!({"game": "hex", "stake": 10}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
    let lobby = r.body["id"].as_str().expect("id").to_string();
    let r = app
        .create_set(
            Some(&charlie),
            json!({"game": "hex", "stake": 10, "opponent": "Alpha"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
    let aimed = r.body["id"].as_str().expect("id").to_string();

    let r = app.retire_bot(Some(&alpha)).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["retired"], true);
    assert!(r.body["retired_at"].is_string());
    assert_eq!(r.body["rank"], Value::Null);
    // Its open challenges are closed: nothing of Alpha's is left to accept.
    assert_eq!(app.get_set(&lobby).await.body["status"], "cancelled");
    assert_eq!(app.get_set(&aimed).await.body["status"], "declined");
    assert_eq!(open_sets(&app).await, 0);
    // Retiring again changes nothing.
    let again = app.retire_bot(Some(&alpha)).await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(again.body["retired_at"], r.body["retired_at"]);

    let (alpha_balance, bravo_balance) =
        (app.balance(&alpha_pt).await, app.balance(&bravo_pt).await);
    // No new sets, whoever asks: its own challenge, a challenge to it, practice.
    let r = app
        .create_set(Some(&alpha), json!({"game": "hex", "stake": 10}))
        .await;
    assert_eq!((r.status, r.code()), (StatusCode::CONFLICT, "bot_retired"));
    let r = app
        .create_set(
            Some(&bravo),
            json!({"game": "hex", "stake": 10, "opponent": "alpha"}),
        )
        .await;
    assert_eq!((r.status, r.code()), (StatusCode::CONFLICT, "bot_retired"));
    assert_eq!(r.body["error"]["details"]["bot"], "Alpha");
    let r = app
        .create_set(Some(&bravo), json!({"game": "hex", "stake": 10}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
    let bravo_lobby = r.body["id"].as_str().expect("id").to_string();
    let r = app.accept_set(Some(&alpha), &bravo_lobby, json!({})).await;
    assert_eq!((r.status, r.code()), (StatusCode::CONFLICT, "bot_retired"));
    assert_eq!(app.get_set(&bravo_lobby).await.body["status"], "open");
    assert_eq!(app.balance(&alpha_pt).await, alpha_balance);
    assert_eq!(app.balance(&bravo_pt).await, bravo_balance);

    // The running set still plays: Bravo (seat 1 of game 1) resigns both games.
    app.lose_set(&bravo, &alpha, &running).await;
    let set = app.get_set(&running).await.body;
    assert_eq!(set["status"], "finished");
    assert_eq!(app.balance(&alpha_pt).await, alpha_balance + 40);

    // The profile keeps its history; the name stays taken; the board leaves it out.
    let p = app.get_bot("Alpha").await.body;
    assert_eq!(
        (p["retired"].clone(), p["sets"].clone()),
        (json!(true), json!(1))
    );
    let r = app
        .create_bot(Some(&bravo_pt), json!({"name": "alpha"}))
        .await;
    assert_eq!((r.status, r.code()), (StatusCode::CONFLICT, "name_taken"));
    // The name that exists, as it is spelt (a bot author read its own spelling back).
    assert_eq!(r.body["error"]["message"], "a bot named 'Alpha' exists");
    let board = app.leaderboard("limit=100").await.body;
    let names: Vec<&str> = board["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|r| r["bot"].as_str())
        .collect();
    // Bravo lost its set (below 1200), Charlie played none (1200); Alpha is not counted.
    assert_eq!(names, ["Charlie", "Bravo"]);
    assert_eq!(board["rows"][1]["rank"], 2);
    assert_eq!(app.get_bot("Bravo").await.body["rank"], 2);
    // The public list still shows it, marked and without a rank.
    let list = app.list_bots("").await.body;
    let alpha_row = list["bots"]
        .as_array()
        .expect("bots")
        .iter()
        .find(|b| b["name"] == "Alpha")
        .cloned()
        .expect("Alpha listed");
    assert_eq!(
        (alpha_row["retired"].clone(), alpha_row["rank"].clone()),
        (json!(true), Value::Null)
    );
}

#[tokio::test]
async fn a_retired_bot_may_not_ask_for_practice() {
    let app = common::spawn_with(common::Spawn {
        house_bots: true,
        house_threads: Some(1),
        ..common::Spawn::default()
    })
    .await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let r = app.retire_bot(Some(&alpha)).await;
    assert_eq!(r.status, StatusCode::OK);
    let r = app.create_practice_set(Some(&alpha), json!({})).await;
    assert_eq!((r.status, r.code()), (StatusCode::CONFLICT, "bot_retired"));
    let r = app.list_sets("status=active").await;
    assert_eq!(r.body["sets"], json!([]));
}

/// PostgreSQL only (several instances share one database): skipped without `TEST_DATABASE_URL`.
#[tokio::test]
async fn a_token_rotated_on_one_instance_is_refused_by_the_others_and_ends_their_streams() {
    let Some(url) = common::fresh_pg_db().await else {
        return;
    };
    let mut apps = vec![];
    for _ in 0..2 {
        apps.push(
            common::spawn_with(common::Spawn {
                database_url: Some(url.clone()),
                ..common::Spawn::default()
            })
            .await,
        );
    }
    let (a, b) = (&apps[0], &apps[1]);
    let (_, _, old) = a.player_with_bot("Rotor").await;
    // Instance b authenticates the token once (and remembers it) and holds a stream.
    assert_eq!(b.get_current_bot(Some(&old)).await.status, StatusCode::OK);
    let mut stream = b
        .http
        .get(format!("{}{}", b.url, paths::bot_events()))
        .bearer_auth(&old)
        .send()
        .await
        .expect("stream opens");
    assert_eq!(stream.status(), StatusCode::OK);
    let r = a.rotate_bot_token(Some(&old), json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let new = r.body["token"].as_str().expect("token").to_string();
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match stream.chunk().await {
                Ok(Some(_)) => continue,
                Ok(None) | Err(_) => return,
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "instance b kept the old token's stream open");
    assert_eq!(
        b.get_current_bot(Some(&old)).await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(b.get_current_bot(Some(&new)).await.status, StatusCode::OK);
}

#[tokio::test]
async fn of_concurrent_rotations_with_one_token_exactly_one_new_token_exists() {
    let app = std::sync::Arc::new(spawn_app().await);
    let (_, pt, old) = app.player_with_bot("Racer").await;
    let answers = futures_join(&app, &old).await;
    let ok: Vec<&String> = answers
        .iter()
        .filter_map(|(s, t)| (*s == StatusCode::OK).then_some(t))
        .collect();
    assert_eq!(ok.len(), 1, "{answers:?}");
    assert!(
        answers
            .iter()
            .all(|(s, _)| *s == StatusCode::OK || *s == StatusCode::UNAUTHORIZED),
        "{answers:?}"
    );
    assert_eq!(
        app.get_current_bot(Some(ok[0])).await.status,
        StatusCode::OK
    );
    assert_eq!(
        app.get_current_bot(Some(&old)).await.status,
        StatusCode::UNAUTHORIZED
    );
    // The same for the player's token.
    let mut tasks = vec![];
    for _ in 0..6 {
        let (app, pt) = (app.clone(), pt.clone());
        tasks.push(tokio::spawn(async move {
            let r = app.rotate_player_token(Some(&pt), json!({})).await;
            (
                r.status,
                r.body["token"].as_str().unwrap_or_default().to_string(),
            )
        }));
    }
    let mut working = 0;
    for t in tasks {
        let (status, token) = t.await.expect("task");
        if status == StatusCode::OK {
            working += usize::from(app.get_player(Some(&token)).await.status == StatusCode::OK);
        }
    }
    assert_eq!(working, 1);
}

/// Eight rotations of one bot token at once: (status, token) of each.
async fn futures_join(app: &std::sync::Arc<TestApp>, token: &str) -> Vec<(StatusCode, String)> {
    let mut tasks = vec![];
    for _ in 0..8 {
        let (app, token) = (app.clone(), token.to_string());
        tasks.push(tokio::spawn(async move {
            let r = app.rotate_bot_token(Some(&token), json!({})).await;
            (
                r.status,
                r.body["token"].as_str().unwrap_or_default().to_string(),
            )
        }));
    }
    let mut out = vec![];
    for t in tasks {
        out.push(t.await.expect("task"));
    }
    out
}

#[tokio::test]
async fn the_owner_issues_its_bot_a_new_token_after_a_lost_rotation() {
    let app = spawn_app().await;
    let (_, pt, old) = app.player_with_bot("Lost").await;
    let (_, other_pt) = app.player("Someone else").await;
    // The rotation happened, its answer "was lost": the old token is dead, the new unknown.
    let r = app.rotate_bot_token(Some(&old), json!({})).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(
        app.rotate_bot_token(Some(&old), json!({})).await.status,
        StatusCode::UNAUTHORIZED
    );
    let lost = r.body["token"].as_str().expect("token").to_string();

    let r = app.reset_bot_token(Some(&pt), "lost").await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["name"], "Lost");
    let fresh = r.body["token"].as_str().expect("token").to_string();
    assert!(fresh.starts_with("hxb_") && fresh != lost && fresh != old);
    assert_eq!(
        app.get_current_bot(Some(&fresh)).await.status,
        StatusCode::OK
    );
    assert_eq!(
        app.get_current_bot(Some(&lost)).await.status,
        StatusCode::UNAUTHORIZED
    );
    // Another player's bot, an unknown bot, a bot token: refused, nothing changes.
    let r = app.reset_bot_token(Some(&other_pt), "Lost").await;
    assert_eq!((r.status, r.code()), (StatusCode::FORBIDDEN, "forbidden"));
    let r = app.reset_bot_token(Some(&pt), "NoSuchBot").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let r = app.reset_bot_token(Some(&fresh), "Lost").await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        app.get_current_bot(Some(&fresh)).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_retired_bot_starts_no_match_and_its_matches_and_unstarted_tournaments_let_it_go() {
    const OP: &str = "op-secret";
    let app = spawn_app().await;
    let (_, pt) = app.player("Match owner").await;
    let b = app.bot(&pt, "MatchB").await;
    for name in ["MatchA", "MatchC", "MatchD"] {
        app.bot(&pt, name).await;
    }
    // A running match of A and B; then B retires: the match is cancelled.
    let r = app
        .create_match(Some(&pt), json!({"bots": ["MatchA", "MatchB"], "sets": 3}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let running = r.body["id"].as_str().expect("id").to_string();
    // A tournament not started with four, and one with only two.
    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "Four", "format": "round_robin",
                   "participants": ["MatchA", "MatchB", "MatchC", "MatchD"], "stake": 0}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let four = r.body["id"].as_str().expect("id").to_string();
    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "Two", "format": "round_robin",
                   "participants": ["MatchB", "MatchC"], "stake": 0}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let two = r.body["id"].as_str().expect("id").to_string();

    assert_eq!(app.retire_bot(Some(&b)).await.status, StatusCode::OK);
    assert_eq!(app.get_match(&running).await.body["status"], "cancelled");
    let t = app.get_tournament(&four).await.body;
    let names: Vec<&str> = t["participants"]
        .as_array()
        .expect("participants")
        .iter()
        .filter_map(|p| p["bot"].as_str())
        .collect();
    assert_eq!(names.len(), 3, "{t}");
    assert!(!names.contains(&"MatchB"), "{t}");
    // Two would be left with one: it keeps B, and its start refuses B.
    let r = app.start_tournament(Some(OP), &two, json!({})).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::CONFLICT, "bot_retired"),
        "{:?}",
        r.body
    );
    assert_eq!(r.body["error"]["details"]["bot"], "MatchB");
    assert_eq!(app.get_tournament(&two).await.body["status"], "created");
    // No new match with it.
    let r = app
        .create_match(Some(&pt), json!({"bots": ["MatchA", "MatchB"], "sets": 1}))
        .await;
    assert_eq!((r.status, r.code()), (StatusCode::CONFLICT, "bot_retired"));
    let r = app
        .create_match(Some(&pt), json!({"bots": ["MatchB", "MatchC"], "sets": 1}))
        .await;
    assert_eq!((r.status, r.code()), (StatusCode::CONFLICT, "bot_retired"));
}

/// The race behind a rotated token that was still accepted, made deterministic: a lookup that
/// read the bot's row before a revocation (here, before its tokens were forgotten) must not
/// remember it afterwards.
#[tokio::test]
async fn a_token_read_before_a_revocation_is_not_remembered_after_it() {
    let app = spawn_app().await;
    let (_, _, token) = app.player_with_bot("Laggard").await;
    let hash = hexarena::arena::accounts::token_hash(&token);
    let bot = app
        .arena
        .bot_by_token(&token)
        .await
        .expect("lookup")
        .expect("a bot");
    // A lookup starts: it reads the epoch, then the database ...
    let epoch = app.arena.bot_tokens_epoch();
    // ... meanwhile the bot's token is revoked and its remembered tokens forgotten ...
    app.arena.forget_bot_tokens(&bot.id);
    // ... and the lookup's row arrives late.
    app.arena
        .remember_bot_token(hash.clone(), bot.clone(), epoch);
    assert!(app.arena.cached_bot_token(&hash).is_none());
    // A lookup that began after the revocation is remembered as before.
    app.arena
        .remember_bot_token(hash.clone(), bot, app.arena.bot_tokens_epoch());
    assert!(app.arena.cached_bot_token(&hash).is_some());
}
