//! Grey-box races (issue 19 gathers them here from adversarial.rs): concurrent requests that
//! must end a game or escrow a stake exactly once, checked partly inside the server: the live
//! cache's `sets_held`, the escrow rows through `app.arena.store.pool`, and the timer's
//! `Arena::expire` racing a move and a resignation in-process.

mod common;
use common::paths;

use common::{TestApp, spawn_app};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn reading_finished_sets_does_not_keep_them_in_memory() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    let mut sets = vec![];
    for _ in 0..3 {
        sets.push(app.play_whole_set(&alpha, &bravo).await);
    }
    let held = app.arena.live.sets_held();
    // Anyone may read every finished game (their ids are listed); each read must not pin a
    // rendering of the whole game in memory, or walking the archive exhausts it.
    for round in 0..2 {
        for set in &sets {
            for g in [1, 2] {
                let st = app.state(set, g).await;
                assert_eq!(st["status"], "finished", "round {round}");
                let r = app.get_game_sgf(&set, &g).await;
                assert_eq!(r.status, StatusCode::OK);
            }
        }
    }
    assert_eq!(app.arena.live.sets_held(), held);
    let st = app.state(&sets[0], 1).await;
    assert_eq!(st["result"]["reason"], "connection");
    assert_eq!(st["ply"], 19);
}

/// The sum of every player's balance plus every escrow account.
async fn money_in_play(app: &TestApp) -> i64 {
    let pool = &app.arena.store.pool;
    let (b,): (Option<i64>,) = sqlx::query_as("SELECT CAST(SUM(balance) AS BIGINT) FROM players")
        .fetch_one(pool)
        .await
        .expect("balances");
    let (e,): (Option<i64>,) = sqlx::query_as(
        "SELECT CAST(SUM(amount) AS BIGINT) FROM ledger WHERE account LIKE 'escrow:%'",
    )
    .fetch_one(pool)
    .await
    .expect("escrow");
    b.unwrap_or(0) + e.unwrap_or(0)
}

#[tokio::test]
async fn many_bots_racing_to_accept_one_challenge_escrow_it_once() {
    let app = spawn_app().await;
    let (_, creator_owner, creator) = app.player_with_bot("Creator").await;
    let mut takers = vec![];
    for i in 0..8 {
        let (_, _, t) = app.player_with_bot(&format!("Taker{i}")).await;
        takers.push(t);
    }
    let total = money_in_play(&app).await;
    let r = app
        .create_set(Some(&creator), json!({"game": "hex", "stake": 100}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let set = r.body["id"].as_str().expect("id").to_string();
    let mut hs = vec![];
    for (i, t) in takers.iter().enumerate() {
        let http = app.http.clone();
        // The creator cancels in the middle of the rush.
        let (url, tok) = if i == 4 {
            (
                format!("{}{}", app.url, paths::cancel(&set)),
                creator.clone(),
            )
        } else {
            (format!("{}{}", app.url, paths::accept(&set)), t.clone())
        };
        hs.push(tokio::spawn(async move {
            let r = http
                .post(url)
                .bearer_auth(tok)
                .json(&json!({}))
                .send()
                .await
                .expect("sent");
            (i, r.status())
        }));
    }
    let mut ok = vec![];
    for h in hs {
        let (i, s) = h.await.expect("joined");
        match s {
            StatusCode::OK => ok.push(i),
            StatusCode::CONFLICT => {}
            s => panic!("request {i}: unexpected {s}"),
        }
    }
    assert_eq!(ok.len(), 1, "exactly one of accept/cancel won: {ok:?}");
    let view = app.get_set(&set).await.body;
    let escrow = if ok[0] == 4 {
        assert_eq!(view["status"], "cancelled");
        0
    } else {
        assert_eq!(view["status"], "active");
        200
    };
    assert_eq!(money_in_play(&app).await, total);
    let (e,): (Option<i64>,) =
        sqlx::query_as("SELECT CAST(SUM(amount) AS BIGINT) FROM ledger WHERE account = $1")
            .bind(format!("escrow:{set}"))
            .fetch_one(&app.arena.store.pool)
            .await
            .expect("escrow");
    assert_eq!(e.unwrap_or(0), escrow);
    assert_eq!(app.balance(&creator_owner).await, 1000 - escrow / 2);
}

#[tokio::test]
async fn a_late_move_a_resignation_and_the_timer_racing_end_the_game_once() {
    use hexarena::arena::clock::FakeTime;
    use std::sync::Arc;
    const T0: i64 = 1_800_000_000_000;
    for round in 0..4 {
        let time = Arc::new(FakeTime::new(T0));
        let app = common::spawn_with(common::Spawn {
            time: time.clone(),
            ..common::Spawn::default()
        })
        .await;
        let (_, alice_owner, alice) = app.player_with_bot("Alice").await;
        let (_, bob_owner, bob) = app.player_with_bot("Bob").await;
        let set = app
            .start_set(
                &alice,
                &bob,
                json!({"stake": 50, "options": {"size": 9, "random_stones": 0}}),
            )
            .await;
        // Bob is seat 1 of game 1 and lets the first-move deadline pass.
        time.advance(30_001);
        let url = app.url.clone();
        let http = app.http.clone();
        let mv = {
            let (http, url, set, bob) = (http.clone(), url.clone(), set.clone(), bob.clone());
            tokio::spawn(async move {
                http.post(format!(
                    "{}{}",
                    url,
                    paths::with_query(paths::moves(&set, 1), "ply=1")
                ))
                .bearer_auth(bob)
                .json(&json!({"cell": [4, 4]}))
                .send()
                .await
                .expect("sent")
                .status()
            })
        };
        let rs = {
            let (http, url, set, alice) = (http.clone(), url.clone(), set.clone(), alice.clone());
            tokio::spawn(async move {
                http.post(format!("{}{}", url, paths::resign(&set, 1)))
                    .bearer_auth(alice)
                    .send()
                    .await
                    .expect("sent")
                    .status()
            })
        };
        let ex = {
            let arena = app.arena.clone();
            let set = set.clone();
            tokio::spawn(async move { arena.expire(&set, 1).await.is_ok() })
        };
        let (m, r, e) = (
            mv.await.expect("joined"),
            rs.await.expect("joined"),
            ex.await.expect("joined"),
        );
        assert!(e, "round {round}: expire ran");
        // Whatever came first, the seat that was out of time lost it on time.
        assert_eq!(m, StatusCode::CONFLICT, "round {round}: late move");
        assert!(
            r == StatusCode::OK || r == StatusCode::CONFLICT,
            "round {round}: resign answered {r}"
        );
        let st = app.state(&set, 1).await;
        assert_eq!(
            st["result"]["reason"], "first_move_timeout",
            "round {round}"
        );
        assert_eq!(st["ply"], 0);
        let g2 = app.state(&set, 2).await;
        assert_eq!(
            (g2["status"].as_str(), g2["ply"].as_i64()),
            (Some("active"), Some(0))
        );
        let bob_view = app.get_bot("Bob").await.body;
        let strikes = bob_view["strikes"]
            .as_array()
            .map(Vec::len)
            .or_else(|| bob_view["strikes"].as_u64().map(|n| n as usize));
        assert_eq!(strikes, Some(1), "round {round}: {bob_view}");
        assert_eq!(
            app.balance(&alice_owner).await + app.balance(&bob_owner).await,
            1900,
            "round {round}: 100 in escrow"
        );
    }
}
