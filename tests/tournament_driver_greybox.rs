//! Grey-box: the driver's steps on one pairing (start, forfeit) re-check the tournament inside
//! their own transaction, whatever the driver read before (breaker report F2, F3). The tests
//! hand them the rows as a driver tick read them, then change the tournament in between.

mod common;

use std::time::{Duration, Instant};

use common::Spawn;
use hexarena::arena::tournaments::Step;
use hexarena::store::tournaments::{self as store, PairingRow, TournamentRow};
use reqwest::StatusCode;
use serde_json::{Value, json};

const OP: &str = "op-secret";

/// Creates and starts a tournament of offline bots `names` with `extra` merged into the body;
/// returns its id once round 1 is paired.
async fn started(app: &common::TestApp, names: &[&str], extra: Value) -> String {
    for n in names {
        app.player_with_bot(n).await;
    }
    launch(app, names, extra).await
}

/// [`started`] with bots registered already.
async fn launch(app: &common::TestApp, names: &[&str], extra: Value) -> String {
    let mut body = json!({"name": "Driver", "format": "round_robin", "participants": names,
                          "options": {"size": 9, "random_stones": 0}});
    if let (Some(b), Some(x)) = (body.as_object_mut(), extra.as_object()) {
        b.extend(x.clone());
    }
    let r = app.create_tournament(Some(OP), body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    let r = app.start_tournament(Some(OP), &id, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let until = Instant::now() + Duration::from_secs(10);
    while rows(app, &id).await.1.is_empty() {
        assert!(Instant::now() < until, "round 1 was never paired");
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    id
}

/// The tournament, its pairings and its bot ids in seed order, as a driver tick reads them.
async fn rows(app: &common::TestApp, id: &str) -> (TournamentRow, Vec<PairingRow>, Vec<String>) {
    let mut c = app.arena.store.pool.acquire().await.expect("connection");
    let t = store::get(&mut c, id, "")
        .await
        .expect("read")
        .expect("tournament");
    let p = store::pairings(&mut c, id).await.expect("pairings");
    let e = store::entries(&mut c, id).await.expect("entries");
    (t, p, e.into_iter().map(|e| e.bot_id).collect())
}

fn bots(p: &PairingRow, ids: &[String]) -> (String, String) {
    let at = |s: i64| ids[usize::try_from(s).expect("seed")].clone();
    (at(p.seed1), at(p.seed2.expect("not a bye")))
}

#[tokio::test]
async fn after_pause_answers_no_pairing_of_the_tournament_starts_or_is_forfeited() {
    let app = common::spawn_app().await;
    let id = started(
        &app,
        &["PzA", "PzB", "PzC", "PzD"],
        json!({"absent": "forfeit", "forfeit_after_s": 3600}),
    )
    .await;
    let (t, pairings, ids) = rows(&app, &id).await;
    assert_eq!(t.status, "running");
    // The pause lands between the driver's read and its steps.
    let r = app.pause_tournament(Some(OP), &id, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let (a, b) = bots(&pairings[0], &ids);
    let step = app
        .arena
        .start_pairing(&t, &pairings[0], &a, &b)
        .await
        .expect("no error");
    assert_eq!(step, Step::Halted);
    let (a, b) = bots(&pairings[1], &ids);
    let step = app
        .arena
        .forfeit_absent(&t, &pairings[1], (&a, &b), (false, false))
        .await
        .expect("no error");
    assert_eq!(step, Step::Halted);
    let (_, after, _) = rows(&app, &id).await;
    let st: Vec<&str> = after.iter().map(|p| p.status.as_str()).collect();
    assert_eq!(st, ["pending", "pending"], "nothing moved after the pause");
}

#[tokio::test]
async fn a_retired_bot_still_entered_gets_no_new_set_and_is_withdrawn() {
    let app = common::spawn_app().await;
    let id = started(&app, &["RtA", "RtB"], json!({})).await;
    let (t, pairings, ids) = rows(&app, &id).await;
    let (a, b) = bots(&pairings[0], &ids);
    // What an older server left: the bot retired, its entry untouched.
    {
        let mut c = app.arena.store.pool.acquire().await.expect("connection");
        sqlx::query("UPDATE bots SET retired_ms = 1 WHERE id = $1")
            .bind(&b)
            .execute(&mut *c)
            .await
            .expect("update");
    }
    let step = app
        .arena
        .start_pairing(&t, &pairings[0], &a, &b)
        .await
        .expect("no error");
    assert_eq!(step, Step::Done);
    let (_, after, _) = rows(&app, &id).await;
    assert_eq!(after[0].set_id, None, "no set was started");
    assert_eq!(after[0].status, "forfeit");
    let v = app.get_tournament(&id).await.body;
    let seed = usize::try_from(after[0].seed2.expect("seed")).expect("seed");
    assert_eq!(v["participants"][seed]["withdrawn"]["by"], "retired", "{v}");
}

/// Plants three strikes on bot `bot_id` within the day: suspended from staked sets.
async fn suspend(app: &common::TestApp, bot_id: &str) {
    let now = app.arena.now_ms();
    for i in 0..3_i64 {
        sqlx::query("INSERT INTO strikes (bot_id, set_id, game_no, at_ms) VALUES ($1, $2, $3, $4)")
            .bind(bot_id)
            .bind(format!("set_earlier{i}"))
            .bind(1_i64)
            .bind(now - 60_000 * (3 - i))
            .execute(&app.arena.store.pool)
            .await
            .expect("strike inserted");
    }
}

#[tokio::test]
async fn a_staked_pairing_whose_bot_cannot_pay_is_forfeited_against_it() {
    let app = common::spawn_with(Spawn {
        starting_balance: 50,
        ..Spawn::default()
    })
    .await;
    let (rich, _, _) = app.player_with_bot("Rich").await;
    app.player_with_bot("Poor").await;
    app.player_with_bot("Later").await;
    let r = app
        .create_grant(Some(OP), json!({"player": rich, "amount": 1000}))
        .await;
    assert!(r.status.is_success(), "{:?}", r.body);
    let id = launch(&app, &["Rich", "Poor", "Later"], json!({"stake": 100})).await;
    let (t, pairings, ids) = rows(&app, &id).await;
    let p = pairings
        .iter()
        .find(|p| p.seed2.is_some())
        .expect("a pairing");
    let (a, b) = bots(p, &ids);
    let step = app
        .arena
        .start_pairing(&t, p, &a, &b)
        .await
        .expect("no error");
    assert_eq!(step, Step::Done);
    let (_, after, _) = rows(&app, &id).await;
    let q = after
        .iter()
        .find(|q| (q.round, q.board) == (p.round, p.board))
        .expect("pairing");
    assert_eq!((q.status.as_str(), q.set_id.as_deref()), ("forfeit", None));
    // Only Rich (seed 0) can pay 100; Poor and Later have 50 each.
    let can = |s: i64| s == 0;
    assert_eq!(
        (q.points2_1, q.points2_2),
        (
            if can(q.seed1) { 2 } else { 0 },
            if q.seed2.is_some_and(can) { 2 } else { 0 }
        )
    );
}

#[tokio::test]
async fn a_suspended_bot_is_refused_by_a_staked_tournament_as_its_sets_would() {
    let app = common::spawn_app().await;
    for n in ["SuA", "SuB", "SuC"] {
        app.player_with_bot(n).await;
    }
    let id_of = |v: Value| v["id"].as_str().expect("bot id").to_string();
    suspend(&app, &id_of(app.get_bot("SuC").await.body)).await;
    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "Sus", "format": "round_robin", "participants": ["SuA", "SuC"],
                   "stake": 100}),
        )
        .await;
    assert_eq!((r.status, r.code()), (StatusCode::FORBIDDEN, "suspended"));
    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "Sus", "format": "round_robin", "participants": ["SuA", "SuB"],
                   "stake": 100}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let tid = r.body["id"].as_str().expect("id").to_string();
    let r = app
        .add_participant(Some(OP), &tid, json!({"bot": "SuC"}))
        .await;
    assert_eq!((r.status, r.code()), (StatusCode::FORBIDDEN, "suspended"));
    // Unstaked, suspension does not matter.
    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "Free", "format": "round_robin", "participants": ["SuA", "SuC"]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let free = r.body["id"].as_str().expect("id").to_string();
    let r = app
        .patch_tournament(Some(OP), &free, json!({"stake": 100}))
        .await;
    assert_eq!((r.status, r.code()), (StatusCode::FORBIDDEN, "suspended"));
}

#[tokio::test]
async fn max_concurrent_holds_against_a_driver_that_counted_before_another_started_a_set() {
    let app = common::spawn_app().await;
    let id = started(
        &app,
        &["McA", "McB", "McC", "McD"],
        json!({"max_concurrent": 1}),
    )
    .await;
    // Both instances read the round with nothing playing...
    let (t, pairings, ids) = rows(&app, &id).await;
    assert_eq!(pairings.len(), 2);
    // ...and one of them starts board 1.
    let (a, b) = bots(&pairings[0], &ids);
    let step = app.arena.start_pairing(&t, &pairings[0], &a, &b).await;
    assert_eq!(step.expect("no error"), Step::Done);
    let (a, b) = bots(&pairings[1], &ids);
    let step = app.arena.start_pairing(&t, &pairings[1], &a, &b).await;
    assert_eq!(step.expect("no error"), Step::Halted, "the cap is full");
    let (_, after, _) = rows(&app, &id).await;
    let st: Vec<&str> = after.iter().map(|p| p.status.as_str()).collect();
    assert_eq!(st, ["playing", "pending"]);
}
