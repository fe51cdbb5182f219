//! The arena on PostgreSQL with two instances sharing one database (SPEC sections 12, 13).
//! Needs PostgreSQL: set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test, as
//! `.ci/run` does); without it each test says it is skipped and passes. Each test creates its
//! own database (named hx_<ulid>, left behind).

mod common;
use common::paths;

use std::time::{Duration, Instant};

use common::{Spawn, TestApp, fresh_pg_db, seat_tokens, spawn_with};
use reqwest::StatusCode;
use serde_json::json;

async fn two_instances() -> Option<(TestApp, TestApp)> {
    let url = fresh_pg_db().await?;
    let a = spawn_with(Spawn {
        database_url: Some(url.clone()),
        ..Spawn::default()
    })
    .await;
    let b = spawn_with(Spawn {
        database_url: Some(url),
        ..Spawn::default()
    })
    .await;
    Some((a, b))
}

#[tokio::test]
async fn two_instances_on_one_postgres_database_play_a_whole_set_together() {
    let Some((one, two)) = two_instances().await else {
        return;
    };
    let (_, _, alpha) = one.player_with_bot("PgAlpha").await;
    let (_, _, beta) = two.player_with_bot("PgBeta").await;
    // Created on one instance, accepted on the other.
    let r = one
        .create_set(
            Some(&alpha),
            json!({"game": "hex", "options": {"size": 9, "random_stones": 0}, "stake": 20}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let set_id = r.body["id"].as_str().expect("id").to_string();
    let r = two.accept_set(Some(&beta), &set_id, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);

    // Game 1: the acceptor (beta) is seat 1 and fills column 0; each bot talks to its own instance.
    let bots = [("PgAlpha", alpha.as_str()), ("PgBeta", beta.as_str())];
    for game_no in 1..=2 {
        let s = one.state(&set_id, game_no).await;
        let tokens = seat_tokens(&s, &bots);
        for i in 0..9i64 {
            for (seat, cell) in [(0usize, [i, 0]), (1usize, [i, 4])] {
                if seat == 1 && i == 8 {
                    continue;
                }
                let app = if tokens[seat] == alpha { &one } else { &two };
                let ply = 2 * i + seat as i64 + 1;
                let r = app
                    .play(
                        tokens[seat],
                        &set_id,
                        game_no,
                        json!({"cell": cell}),
                        Some(ply),
                    )
                    .await;
                assert_eq!(
                    r.status,
                    StatusCode::OK,
                    "game {game_no} ply {ply}: {:?}",
                    r.body
                );
            }
        }
        let s = two.state(&set_id, game_no).await;
        assert_eq!(s["status"], "finished");
        assert_eq!(s["result"]["winner"], 1);
        assert_eq!(s["result"]["reason"], "connection");
        assert_eq!(s["board"]["winning_path"].as_array().map(Vec::len), Some(9));
    }
    let set = one.get_set(&set_id).await.body;
    assert_eq!(set["status"], "finished");
    // Both won one game with 9 moves: level on points and on moves.
    assert_eq!(set["points"], json!([1, 1]));
    assert_eq!(set["result"], "draw");
    let a = two.get_bot("PgAlpha").await.body;
    assert_eq!(
        (a["sets"].as_i64(), a["d"].as_i64(), a["net"].as_i64()),
        (Some(1), Some(1), Some(0))
    );
}

#[tokio::test]
async fn a_long_poll_on_one_instance_wakes_for_a_move_made_on_the_other() {
    let Some((one, two)) = two_instances().await else {
        return;
    };
    let (_, _, alpha) = one.player_with_bot("WakeAlpha").await;
    let (_, _, beta) = one.player_with_bot("WakeBeta").await;
    let set_id = one
        .start_set(
            &alpha,
            &beta,
            json!({"options": {"size": 9, "random_stones": 0}}),
        )
        .await;
    // Beta is seat 1 of game 1; alpha waits on instance two for ply > 0.
    let waiter = {
        let url = format!(
            "{}{}",
            two.url,
            paths::with_query(paths::game(&set_id, 1), "after_ply=0&wait_s=20")
        );
        let http = two.http.clone();
        tokio::spawn(async move {
            let t0 = Instant::now();
            let body: serde_json::Value = http
                .get(url)
                .send()
                .await
                .expect("poll")
                .json()
                .await
                .expect("json");
            (t0.elapsed(), body)
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let r = one
        .play(&beta, &set_id, 1, json!({"cell": [4, 4]}), Some(1))
        .await;
    assert_eq!(r.status, StatusCode::OK);
    let (waited, body) = waiter.await.expect("join");
    assert_eq!(body["ply"], 1);
    assert_eq!(body["moves"][0]["name"], "e5");
    assert!(waited < Duration::from_secs(5), "woke after {waited:?}");
}

#[tokio::test]
async fn the_same_move_sent_to_both_instances_at_once_is_played_once() {
    let Some((one, two)) = two_instances().await else {
        return;
    };
    let (_, _, alpha) = one.player_with_bot("RaceAlpha").await;
    let (_, _, beta) = one.player_with_bot("RaceBeta").await;
    let set_id = one
        .start_set(
            &alpha,
            &beta,
            json!({"options": {"size": 9, "random_stones": 0}}),
        )
        .await;
    let (r1, r2) = tokio::join!(
        one.play(&beta, &set_id, 1, json!({"cell": [2, 2]}), Some(1)),
        two.play(&beta, &set_id, 1, json!({"cell": [2, 2]}), Some(1)),
    );
    // Both answers are 200: one played it, the other is the idempotent retry.
    assert_eq!((r1.status, r2.status), (StatusCode::OK, StatusCode::OK));
    let s = two.state(&set_id, 1).await;
    assert_eq!(s["ply"], 1);
    assert_eq!(s["moves"].as_array().map(Vec::len), Some(1));
    // Without a ply, the loser of the race is told it is not its turn.
    let (r1, r2) = tokio::join!(
        one.play(&alpha, &set_id, 1, json!({"cell": [3, 3]}), None),
        two.play(&alpha, &set_id, 1, json!({"cell": [5, 5]}), None),
    );
    let mut codes = [r1.status.as_u16(), r2.status.as_u16()];
    codes.sort_unstable();
    assert_eq!(codes, [200, 409]);
    assert_eq!(one.state(&set_id, 1).await["ply"], 2);
}

#[tokio::test]
async fn instances_starting_together_after_an_outage_credit_the_downtime_once() {
    use hexarena::arena::clock::FakeTime;
    use hexarena::arena::views::rfc3339;
    use std::sync::Arc;

    const T0: i64 = 1_800_000_000_000;
    let Some(url) = fresh_pg_db().await else {
        return;
    };
    // The instance that ran before the outage: its fake clock stays at T0, so its last
    // heartbeat says T0 as if it had died then.
    let old = spawn_with(Spawn {
        database_url: Some(url.clone()),
        time: Arc::new(FakeTime::new(T0)),
        ..Spawn::default()
    })
    .await;
    let (_, _, alpha) = old.player_with_bot("PgOutageA").await;
    let (_, _, beta) = old.player_with_bot("PgOutageB").await;
    let set_id = old.start_set(&alpha, &beta, json!({})).await;
    let s = old.state(&set_id, 1).await;
    assert_eq!(s["clock"]["deadline"], json!(rfc3339(T0 + 30_000)));

    // A minute later two instances start at the same moment; only one may credit the minute.
    let later = Arc::new(FakeTime::new(T0 + 60_000));
    let start = || {
        spawn_with(Spawn {
            database_url: Some(url.clone()),
            time: later.clone(),
            ..Spawn::default()
        })
    };
    let (one, two) = tokio::join!(start(), start());
    for app in [&one, &two] {
        let s = app.state(&set_id, 1).await;
        assert_eq!(s["clock"]["turn_started_at"], json!(rfc3339(T0 + 60_000)));
        assert_eq!(s["clock"]["deadline"], json!(rfc3339(T0 + 90_000)));
    }
}

/// Issue 10: concurrent creations of one bot name on PostgreSQL (two instances, one database)
/// give one 201 and 409 `name_taken` for the others, never a 500.
#[tokio::test]
async fn concurrent_creations_of_one_bot_name_are_one_success_and_conflicts() {
    let Some((one, two)) = two_instances().await else {
        return;
    };
    let mut owners = Vec::new();
    for i in 0..8 {
        let app = if i % 2 == 0 { &one } else { &two };
        owners.push(app.player(&format!("racer{i}")).await.1);
    }
    for round in 0..3 {
        let name = format!("Racer{round}");
        let calls = owners.iter().enumerate().map(|(i, token)| {
            let app = if i % 2 == 0 { &one } else { &two };
            // vary the case: names are unique case-insensitively
            let name = if i % 3 == 0 {
                name.to_lowercase()
            } else {
                name.clone()
            };
            async move { app.create_bot(Some(token), json!({"name": name})).await }
        });
        let answers = futures_util::future::join_all(calls).await;
        let created = answers
            .iter()
            .filter(|r| r.status == StatusCode::CREATED)
            .count();
        assert_eq!(
            created,
            1,
            "round {round}: {:?}",
            answers
                .iter()
                .map(|r| (r.status, r.body.clone()))
                .collect::<Vec<_>>()
        );
        for r in answers.iter().filter(|r| r.status != StatusCode::CREATED) {
            assert_eq!(r.status, StatusCode::CONFLICT, "{:?}", r.body);
            assert_eq!(r.code(), "name_taken");
        }
    }
}

/// Issue 13: a set accepted at once by several bots on both instances is accepted once; the
/// others hear 409 `set_not_open`, as on SQLite, never a 500.
#[tokio::test]
async fn concurrent_accepts_of_one_set_on_two_instances_are_one_success_and_conflicts() {
    let Some((one, two)) = two_instances().await else {
        return;
    };
    let (_, _, creator) = one.player_with_bot("AcceptHost").await;
    let mut takers = Vec::new();
    for i in 0..6 {
        let app = if i % 2 == 0 { &one } else { &two };
        takers.push(app.player_with_bot(&format!("Taker{i}")).await.2);
    }
    let r = one
        .create_set(Some(&creator), json!({"game": "hex", "stake": 20}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let set_id = r.body["id"].as_str().expect("id").to_string();
    let calls = takers.iter().enumerate().map(|(i, token)| {
        let app = if i % 2 == 0 { &one } else { &two };
        let path = paths::accept(&set_id);
        async move { app.post(&path, Some(token), json!({})).await }
    });
    let answers = futures_util::future::join_all(calls).await;
    let ok = answers
        .iter()
        .filter(|r| r.status == StatusCode::OK)
        .count();
    assert_eq!(
        ok,
        1,
        "{:?}",
        answers
            .iter()
            .map(|r| (r.status, r.code().to_string()))
            .collect::<Vec<_>>()
    );
    for r in answers.iter().filter(|r| r.status != StatusCode::OK) {
        assert_eq!(
            (r.status, r.code()),
            (StatusCode::CONFLICT, "set_not_open"),
            "{:?}",
            r.body
        );
    }
}
