//! Server clocks with an injected fake time (SPEC section 7): first-move deadlines, Fischer
//! arithmetic, losses on time, game 2 after a timeout, strikes and suspensions. Nothing sleeps.
//! Grey-box: the fake time is set inside the server's process and the expiry sweep is called
//! there (`app.arena.expire`), which no route offers.
//!
//! The scheduler task runs with the same fake time and may end a game itself as soon as the fake
//! time is past its deadline. So the tests move the time past a deadline only when that game is
//! meant to end, then call `expire` themselves (a no-op if the scheduler was first) and check the
//! end state, which is the same on both paths because the fake time stands still meanwhile.

mod common;

use std::sync::Arc;

use common::{Spawn, TestApp, spawn_with};
use hexarena::arena::clock::{FakeTime, TimeSource};
use hexarena::arena::views::rfc3339;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// 2027-01-15T08:00:00Z: any fixed instant will do.
const T0: i64 = 1_800_000_000_000;
const DAY_MS: i64 = 24 * 3600 * 1000;

struct Arena {
    app: TestApp,
    time: Arc<FakeTime>,
    /// Bot tokens: Alice creates the sets, Bob accepts them (so Bob is seat 1 in game 1).
    alice: String,
    bob: String,
    alice_owner: String,
    bob_owner: String,
}

async fn arena(house_bots: bool) -> Arena {
    let time = Arc::new(FakeTime::new(T0));
    let app = spawn_with(Spawn {
        time: time.clone(),
        house_bots,
        ..Spawn::default()
    })
    .await;
    let (_, alice_owner, alice) = app.player_with_bot("Alice").await;
    let (_, bob_owner, bob) = app.player_with_bot("Bob").await;
    Arena {
        app,
        time,
        alice,
        bob,
        alice_owner,
        bob_owner,
    }
}

impl Arena {
    fn now(&self) -> i64 {
        self.time.now_ms()
    }

    /// A staked set (stake 10) between Alice (creator) and Bob (acceptor) on an empty 11x11 board.
    async fn set(&self, initial_s: i64, increment_s: i64) -> String {
        let body = json!({"clock": {"initial_s": initial_s, "increment_s": increment_s},
                          "options": {"size": 11, "random_stones": 0}});
        self.app.start_set(&self.alice, &self.bob, body).await
    }

    async fn place(&self, token: &str, set_id: &str, game_no: i64, cell: [u8; 2]) -> Value {
        let r = self
            .app
            .play(token, set_id, game_no, json!({"cell": cell}), None)
            .await;
        assert_eq!(
            r.status,
            StatusCode::OK,
            "move {cell:?} refused: {:?}",
            r.body
        );
        r.body
    }

    /// Ends the game if its deadline passed (whoever gets there first) and returns its state.
    async fn expire(&self, set_id: &str, game_no: i64) -> Value {
        self.app
            .arena
            .expire(set_id, game_no)
            .await
            .expect("expire runs");
        self.app.state(set_id, game_no).await
    }

    async fn strikes(&self, bot: &str) -> Value {
        let r = self.app.get_bot(&bot).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        r.body
    }

    async fn resign(&self, token: &str, set_id: &str, game_no: i64) {
        let r = self
            .app
            .resign(Some(token), &set_id, &game_no, json!({}))
            .await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    }
}

fn at(ms: i64) -> Value {
    json!(rfc3339(ms))
}

#[tokio::test]
async fn first_moves_are_free_and_later_moves_pay_their_time_and_earn_the_increment() {
    let a = arena(false).await;
    let set = a.set(60, 2).await;
    let s = a.app.state(&set, 1).await;
    assert_eq!(s["seats"][0]["bot"], "Bob");
    assert_eq!(s["to_move"], 1);
    assert_eq!(
        s["clock"],
        json!({"remaining_ms": [60_000, 60_000], "increment_ms": 2_000, "turn_started_at": at(T0),
               "deadline": at(T0 + 30_000), "first_move": true, "server_time": at(T0)})
    );

    // Seat 1's first move after 29 s: nothing is charged, no increment; seat 2 gets 30 s.
    a.time.advance(29_000);
    assert_eq!(
        a.app.state(&set, 1).await["clock"]["remaining_ms"],
        json!([60_000, 60_000])
    );
    let s = a.place(&a.bob, &set, 1, [5, 5]).await;
    assert_eq!(s["to_move"], 2);
    assert_eq!(s["clock"]["remaining_ms"], json!([60_000, 60_000]));
    assert_eq!(s["clock"]["turn_started_at"], at(T0 + 29_000));
    assert_eq!(s["clock"]["deadline"], at(T0 + 59_000));
    assert_eq!(s["clock"]["first_move"], true);

    // Seat 2's first move at exactly its 30 s deadline is in time and free too.
    a.time.advance(30_000);
    let s = a.place(&a.alice, &set, 1, [3, 3]).await;
    assert_eq!(s["to_move"], 1);
    assert_eq!(s["clock"]["remaining_ms"], json!([60_000, 60_000]));
    assert_eq!(s["clock"]["first_move"], false);
    assert_eq!(s["clock"]["deadline"], at(T0 + 59_000 + 60_000));

    // From the second move on: the clock runs while on move, then the increment is added.
    a.time.advance(7_000);
    let s = a.app.state(&set, 1).await;
    assert_eq!(s["clock"]["remaining_ms"], json!([53_000, 60_000]));
    assert_eq!(s["clock"]["server_time"], at(T0 + 66_000));
    let s = a.place(&a.bob, &set, 1, [5, 6]).await;
    assert_eq!(s["clock"]["remaining_ms"], json!([55_000, 60_000]));
    assert_eq!(s["clock"]["deadline"], at(T0 + 66_000 + 60_000));
    assert_eq!(s["clock"]["first_move"], false);

    a.time.advance(12_345);
    let s = a.place(&a.alice, &set, 1, [3, 4]).await;
    assert_eq!(s["clock"]["remaining_ms"], json!([55_000, 49_655]));
    assert_eq!(s["clock"]["turn_started_at"], at(T0 + 78_345));
    assert_eq!(s["clock"]["deadline"], at(T0 + 78_345 + 55_000));

    a.time.advance(3_000);
    let s = a.place(&a.bob, &set, 1, [5, 7]).await;
    assert_eq!(s["clock"]["remaining_ms"], json!([54_000, 49_655]));
    assert_eq!(s["clock"]["deadline"], at(T0 + 81_345 + 49_655));
    let elapsed: Vec<i64> = s["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m["elapsed_ms"].as_i64().expect("ms"))
        .collect();
    assert_eq!(elapsed, [29_000, 30_000, 7_000, 12_345, 3_000]);
    assert_eq!(s["status"], "active");
}

#[tokio::test]
async fn a_move_with_zero_ms_left_is_accepted_and_one_ms_later_the_game_is_lost_on_time() {
    let a = arena(false).await;
    let set = a.set(10, 0).await;
    a.place(&a.bob, &set, 1, [5, 5]).await;
    let s = a.place(&a.alice, &set, 1, [3, 3]).await;
    assert_eq!(s["clock"]["deadline"], at(T0 + 10_000));

    a.time.advance(10_000);
    assert_eq!(
        a.app.state(&set, 1).await["clock"]["remaining_ms"],
        json!([0, 10_000])
    );
    let s = a.place(&a.bob, &set, 1, [5, 6]).await;
    assert_eq!(s["clock"]["remaining_ms"], json!([0, 10_000]));
    assert_eq!(s["clock"]["deadline"], at(T0 + 20_000));

    a.time.advance(10_001);
    let r = a
        .app
        .play(&a.alice, &set, 1, json!({"cell": [3, 4]}), Some(4))
        .await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert_eq!(r.code(), "game_over");
    let result = json!({"winner": 1, "winner_bot": "Bob", "reason": "timeout"});
    assert_eq!(r.body["error"]["details"]["result"], result);

    let s = a.app.state(&set, 1).await;
    assert_eq!(s["status"], "finished");
    assert_eq!(s["result"], result);
    assert_eq!(s["ply"], 3);
    assert_eq!(s["moves"].as_array().expect("moves").len(), 3);
    assert_eq!(s["to_move"], Value::Null);
    assert_eq!(s["legal_moves"], json!([]));
    assert_eq!(s["clock"]["remaining_ms"], json!([0, 0]));
    assert_eq!(s["clock"]["deadline"], Value::Null);
    assert_eq!(s["clock"]["turn_started_at"], Value::Null);
    // Later moves are refused at once with the same result, whoever sends them.
    let r = a
        .app
        .play(&a.bob, &set, 1, json!({"cell": [6, 6]}), None)
        .await;
    assert_eq!((r.status, r.code()), (StatusCode::CONFLICT, "game_over"));
    assert_eq!(r.body["error"]["details"]["result"], result);

    // Game 2 starts with fresh clocks at the moment game 1 was lost.
    let end = T0 + 20_001;
    let g2 = a.app.state(&set, 2).await;
    assert_eq!(g2["status"], "active");
    assert_eq!(g2["seats"][0]["bot"], "Alice");
    assert_eq!(
        g2["clock"],
        json!({"remaining_ms": [10_000, 10_000], "increment_ms": 0, "turn_started_at": at(end),
               "deadline": at(end + 30_000), "first_move": true, "server_time": at(end)})
    );
    let view = a.app.get_set(&set).await.body;
    assert_eq!(view["games"][0]["reason"], "timeout");
    assert_eq!(view["points"], json!([0, 1]));

    // Game 2: seat 2 runs out of time with nobody sending anything; the expiry ends it.
    a.place(&a.alice, &set, 2, [5, 5]).await;
    a.place(&a.bob, &set, 2, [3, 3]).await;
    a.time.advance(4_000);
    let s = a.place(&a.alice, &set, 2, [5, 6]).await;
    assert_eq!(s["clock"]["remaining_ms"], json!([6_000, 10_000]));
    a.time.advance(10_000);
    let s = a.expire(&set, 2).await;
    assert_eq!(
        s["status"], "active",
        "exactly at the deadline the seat is still in time"
    );
    a.time.advance(1);
    let s = a.expire(&set, 2).await;
    assert_eq!(s["status"], "finished");
    assert_eq!(
        s["result"],
        json!({"winner": 1, "winner_bot": "Alice", "reason": "timeout"})
    );
    assert_eq!(s["clock"]["remaining_ms"], json!([6_000, 0]));

    // 1-1, and both winners made 2 moves in the game they won: a drawn set, stakes returned.
    let view = a.app.get_set(&set).await.body;
    assert_eq!(view["status"], "finished");
    assert_eq!(view["points"], json!([1, 1]));
    assert_eq!(view["result"], "draw");
    assert_eq!(a.app.balance(&a.alice_owner).await, 1000);
    assert_eq!(a.app.balance(&a.bob_owner).await, 1000);
    // Running out of clock is no strike: only first-move timeouts are.
    assert_eq!(a.strikes("Alice").await["strikes"], json!([]));
    assert_eq!(a.strikes("Bob").await["strikes"], json!([]));
}

#[tokio::test]
async fn a_silent_first_move_loses_after_thirty_seconds_in_both_games_and_strikes_the_bot() {
    let a = arena(false).await;
    let set = a.set(60, 2).await;
    a.time.advance(30_000);
    let s = a.expire(&set, 1).await;
    assert_eq!(s["status"], "active", "the 30 s are not over yet");
    assert_eq!(s["clock"]["remaining_ms"], json!([60_000, 60_000]));

    a.time.advance(1);
    let end1 = T0 + 30_001;
    let s = a.expire(&set, 1).await;
    assert_eq!(s["status"], "finished");
    assert_eq!(s["ply"], 0);
    assert_eq!(
        s["result"],
        json!({"winner": 2, "winner_bot": "Alice", "reason": "first_move_timeout"})
    );
    // A missed first move was never charged: both clocks keep what they had.
    assert_eq!(s["clock"]["remaining_ms"], json!([60_000, 60_000]));
    let r = a
        .app
        .play(&a.bob, &set, 1, json!({"cell": [5, 5]}), None)
        .await;
    assert_eq!((r.status, r.code()), (StatusCode::CONFLICT, "game_over"));

    let g2 = a.app.state(&set, 2).await;
    assert_eq!(g2["status"], "active");
    assert_eq!(g2["seats"][0]["bot"], "Alice");
    assert_eq!(
        g2["clock"],
        json!({"remaining_ms": [60_000, 60_000], "increment_ms": 2_000, "turn_started_at": at(end1),
               "deadline": at(end1 + 30_000), "first_move": true, "server_time": at(end1)})
    );

    // Game 2: Alice (seat 1) moves after 5 s; Bob (seat 2) never does.
    a.time.advance(5_000);
    let s = a.place(&a.alice, &set, 2, [5, 5]).await;
    assert_eq!(s["clock"]["deadline"], at(end1 + 5_000 + 30_000));
    assert_eq!(s["clock"]["first_move"], true);
    a.time.advance(30_001);
    let end2 = end1 + 5_000 + 30_001;
    let s = a.expire(&set, 2).await;
    assert_eq!(
        s["result"],
        json!({"winner": 1, "winner_bot": "Alice", "reason": "first_move_timeout"})
    );

    let view = a.app.get_set(&set).await.body;
    assert_eq!(view["status"], "finished");
    assert_eq!(view["points"], json!([2, 0]));
    assert_eq!(view["result"], "Alice wins");
    assert_eq!(view["finished_at"], at(end2));
    assert_eq!(a.app.balance(&a.alice_owner).await, 1010);
    assert_eq!(a.app.balance(&a.bob_owner).await, 990);

    let bob = a.strikes("Bob").await;
    assert_eq!(
        bob["strikes"],
        json!([
            {"set_id": set, "game_no": 1, "at": at(end1), "expires_at": at(end1 + DAY_MS)},
            {"set_id": set, "game_no": 2, "at": at(end2), "expires_at": at(end2 + DAY_MS)},
        ])
    );
    assert_eq!(bob["suspended_until"], Value::Null);
    assert_eq!(a.strikes("Alice").await["strikes"], json!([]));
}

#[tokio::test]
async fn a_first_move_timeout_in_a_practice_set_records_no_strike() {
    let a = arena(true).await;
    let r = a
        .app
        .create_practice_set(Some(&a.bob), json!({"options": {"random_stones": 0}}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let set = r.body["id"].as_str().expect("set id").to_string();
    // The house bot is seat 1 of game 1 and moves at once; Bob (seat 2) stays silent.
    let s = a.app.poll_game(&set, 1, "after_ply=0&wait_s=10").await.body;
    assert_eq!(s["ply"], 1, "the house bot moved");
    assert_eq!(s["clock"]["deadline"], at(a.now() + 30_000));
    a.time.advance(30_001);
    let s = a.expire(&set, 1).await;
    assert_eq!(
        s["result"],
        json!({"winner": 1, "winner_bot": "house-random", "reason": "first_move_timeout"})
    );
    // Game 2: Bob is seat 1 and stays silent again.
    assert_eq!(a.app.state(&set, 2).await["seats"][0]["bot"], "Bob");
    a.time.advance(30_001);
    let s = a.expire(&set, 2).await;
    assert_eq!(
        s["result"],
        json!({"winner": 2, "winner_bot": "house-random", "reason": "first_move_timeout"})
    );
    let view = a.app.get_set(&set).await.body;
    assert_eq!(view["status"], "finished");
    assert_eq!(view["result"], "house-random wins");
    let bob = a.strikes("Bob").await;
    assert_eq!(bob["strikes"], json!([]));
    assert_eq!(bob["suspended_until"], Value::Null);
}

#[tokio::test]
async fn three_strikes_in_a_day_suspend_a_bot_from_staked_sets_until_the_oldest_expires() {
    let a = arena(true).await;
    // Strikes 1 and 2: Bob is silent in both games of a staked set.
    let s1 = a.set(60, 2).await;
    a.time.advance(30_001);
    let first_strike = a.now();
    a.expire(&s1, 1).await;
    a.place(&a.alice, &s1, 2, [5, 5]).await;
    a.time.advance(30_001);
    assert_eq!(
        a.expire(&s1, 2).await["result"]["reason"],
        "first_move_timeout"
    );
    // Strike 3: silent again in game 1 of the next set.
    let s2 = a.set(60, 2).await;
    a.time.advance(30_001);
    assert_eq!(
        a.expire(&s2, 1).await["result"]["reason"],
        "first_move_timeout"
    );

    let until = first_strike + DAY_MS;
    let bob = a.strikes("Bob").await;
    assert_eq!(bob["strikes"].as_array().expect("strikes").len(), 3);
    assert_eq!(bob["suspended_until"], at(until));

    // No creating, accepting or being paired into staked sets.
    let r = a.app.create_set(Some(&a.bob), json!({"game": "hex"})).await;
    assert_eq!((r.status, r.code()), (StatusCode::FORBIDDEN, "suspended"));
    assert_eq!(r.body["error"]["details"]["until"], at(until));
    let r = a
        .app
        .create_set(Some(&a.alice), json!({"game": "hex"}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
    let open = r.body["id"].as_str().expect("set id").to_string();
    let r = a.app.accept_set(Some(&a.bob), &open, json!({})).await;
    assert_eq!((r.status, r.code()), (StatusCode::FORBIDDEN, "suspended"));
    assert_eq!(a.app.get_set(&open).await.body["status"], "open");
    assert_eq!(
        a.app.balance(&a.bob_owner).await,
        980,
        "the refused accept escrowed nothing"
    );
    let r = a
        .app
        .create_operator_set(Some("op-secret"), json!({"bots": ["Alice", "Bob"]}))
        .await;
    assert_eq!((r.status, r.code()), (StatusCode::FORBIDDEN, "suspended"));
    // Practice stays open to a suspended bot.
    let r = a.app.create_practice_set(Some(&a.bob), json!({})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let practice = r.body["id"].as_str().expect("set id").to_string();

    // End every running game before a day passes, so no other deadline fires.
    a.resign(&a.alice, &s2, 2).await;
    a.resign(&a.bob, &practice, 1).await;
    a.resign(&a.bob, &practice, 2).await;
    assert_eq!(a.app.get_set(&practice).await.body["status"], "finished");

    a.time.set(until - 1);
    let r = a.app.create_set(Some(&a.bob), json!({"game": "hex"})).await;
    assert_eq!((r.status, r.code()), (StatusCode::FORBIDDEN, "suspended"));
    a.time.set(until);
    let bob = a.strikes("Bob").await;
    assert_eq!(
        bob["strikes"].as_array().expect("strikes").len(),
        2,
        "the oldest strike expired"
    );
    assert_eq!(bob["suspended_until"], Value::Null);
    let r = a.app.create_set(Some(&a.bob), json!({"game": "hex"})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let r = a.app.accept_set(Some(&a.bob), &open, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
}

#[tokio::test]
async fn the_scheduler_ends_a_game_past_its_deadline_with_no_request_from_anyone() {
    let a = arena(false).await;
    let set = a.set(60, 2).await;
    a.time.advance(30_001);
    // Only a long-poll: no move, no expire call. The scheduler runs on the same fake time.
    let r = a.app.poll_game(&set, 1, "after_ply=0&wait_s=10").await;
    assert_eq!(r.body["status"], "finished", "{:?}", r.body);
    assert_eq!(r.body["result"]["reason"], "first_move_timeout");
    assert_eq!(a.app.state(&set, 2).await["status"], "active");
}
