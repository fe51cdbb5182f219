//! Grey-box (issue 18, part C): a withdrawal commits before the forfeit of the set in play, so a
//! crash between the two leaves the rows as this test writes them (the entry withdrawn, the
//! playing pairing marked). The driver finishes the job: the set is forfeited by itself.

mod common;

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};

const OP: &str = "op-secret";

#[tokio::test]
async fn a_forfeit_left_undone_by_a_crash_after_the_withdrawal_is_done_by_the_driver() {
    let app = common::spawn_app().await;
    for n in ["GbA", "GbB"] {
        let (_, _, t) = app.player_with_bot(n).await;
        app.get_turn(Some(&t), "wait_s=0").await;
    }
    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "Crash", "format": "gauntlet", "participants": ["GbA", "GbB"],
                   "options": {"size": 9, "random_stones": 0}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    app.start_tournament(Some(OP), &id, json!({})).await;
    let until = Instant::now() + Duration::from_secs(10);
    let set_id = loop {
        let t = app.get_tournament(&id).await.body;
        if let Some(s) = t["rounds_played"][0]["pairings"][0]["set_id"].as_str() {
            break s.to_string();
        }
        assert!(Instant::now() < until, "the set never started: {t}");
        tokio::time::sleep(Duration::from_millis(30)).await;
    };
    // What `withdraw` commits for GbB (seed 1) before it forfeits the set, and nothing more.
    {
        let mut c = app.arena.store.pool.acquire().await.expect("connection");
        for q in [
            "UPDATE tournament_entries SET withdrawn_ms = 1, withdrawn_round = 1, \
             withdrawn_by = 'operator' WHERE tournament_id = $1 AND seed = 1",
            "UPDATE tournament_pairings SET withdrawn_seed = 1 WHERE tournament_id = $1 \
             AND status = 'playing'",
        ] {
            sqlx::query(q)
                .bind(&id)
                .execute(&mut *c)
                .await
                .expect("update");
        }
    }
    let until = Instant::now() + Duration::from_secs(10);
    let t = loop {
        let t = app.get_tournament(&id).await.body;
        if t["status"] == "finished" {
            break t;
        }
        assert!(Instant::now() < until, "the set was never forfeited: {t}");
        tokio::time::sleep(Duration::from_millis(30)).await;
    };
    let p = &t["rounds_played"][0]["pairings"][0];
    assert_eq!(p["result"], "GbA wins by forfeit", "{t}");
    assert_eq!(p["withdrawn"], "GbB");
    let set = app.get_set(&set_id).await.body;
    assert_eq!(set["result"], "GbA wins by forfeit");
    assert_eq!(set["games"][0]["forfeit"], Value::Bool(true));
}
