//! Head-to-head figures (issue 20): `GET /v1/bots/{a}/versus/{b}` and the bot's most frequent
//! opponents, against figures worked out by hand.

mod common;

use common::{TestApp, round_trip, seat_tokens, spawn_app};
use hexarena_contract::HeadToHead;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Plays a set in which `loser` resigns both games (the winner moves first when the loser is
/// not on move).
async fn set_won_by(app: &TestApp, creator: (&str, &str), acceptor: (&str, &str), loser: &str) {
    let id = app
        .start_set(creator.1, acceptor.1, json!({"stake": 10}))
        .await;
    let bots = [creator, acceptor];
    for game in 1..=2 {
        let s = app.state(&id, game).await;
        let seats = seat_tokens(&s, &bots);
        let on_move = seats[s["to_move"].as_u64().expect("to move") as usize - 1];
        if on_move != loser {
            let mv = s["legal_moves"][0].clone();
            let r = app.play(on_move, &id, game, mv, Some(1)).await;
            assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        }
        let r = app.resign(Some(loser), &id, &game, json!({})).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    }
    assert_eq!(app.get_set(&id).await.body["status"], "finished");
}

fn near(v: &Value, want: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - want).abs() < 0.051)
}

#[tokio::test]
async fn head_to_head_counts_sets_and_games_and_gives_elo_with_its_interval_and_los() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    let (_, _, charlie) = app.player_with_bot("Charlie").await;
    let a = ("Alpha", alpha.as_str());
    let b = ("Bravo", bravo.as_str());
    let c = ("Charlie", charlie.as_str());
    // Alpha wins two sets (one as creator, one as acceptor), Bravo one; Alpha beats Charlie once.
    set_won_by(&app, a, b, &bravo).await;
    set_won_by(&app, b, a, &bravo).await;
    set_won_by(&app, a, b, &alpha).await;
    set_won_by(&app, c, a, &charlie).await;

    let r = app.get_head_to_head("alpha", "Bravo").await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let v = r.body;
    // The contract crate's type reads it whole and writes it back unchanged.
    let typed: HeadToHead = round_trip(&v);
    assert_eq!((typed.sets, typed.w, typed.l), (3, 2, 1));
    assert_eq!(
        (v["bot"].clone(), v["opponent"].clone()),
        (json!("Alpha"), json!("Bravo"))
    );
    assert_eq!(
        (
            v["sets"].clone(),
            v["w"].clone(),
            v["d"].clone(),
            v["l"].clone()
        ),
        (json!(3), json!(2), json!(0), json!(1))
    );
    assert_eq!(
        (
            v["games"].clone(),
            v["game_points"].clone(),
            v["opponent_game_points"].clone()
        ),
        (json!(6.0), json!(4.0), json!(2.0))
    );
    // s = 4/6: 400 log10(2) = 120.4; Wilson 95% of 4/6 over 6 games is 0.3000..0.9032, so
    // -147.2..+388.0; LOS = (1 + erf(2 / sqrt(12))) / 2 = 0.7929.
    assert!(near(&v["elo_diff"], 120.4), "{v}");
    assert!(near(&v["elo_low"], -147.2), "{v}");
    assert!(near(&v["elo_high"], 388.0), "{v}");
    assert!(
        v["los"].as_f64().is_some_and(|p| (p - 0.7929).abs() < 1e-4),
        "{v}"
    );

    // From Bravo's side: mirrored.
    let v = app.get_head_to_head("Bravo", "Alpha").await.body;
    assert_eq!((v["w"].clone(), v["l"].clone()), (json!(1), json!(2)));
    assert!(
        near(&v["elo_diff"], -120.4) && near(&v["elo_low"], -388.0),
        "{v}"
    );
    assert!(
        v["los"].as_f64().is_some_and(|p| (p - 0.2071).abs() < 1e-4),
        "{v}"
    );

    // A clean sweep has no finite Elo or upper bound; bots that never met have no figures.
    let v = app.get_head_to_head("Alpha", "Charlie").await.body;
    assert_eq!((v["sets"].clone(), v["w"].clone()), (json!(1), json!(1)));
    assert_eq!(
        (v["elo_diff"].clone(), v["elo_high"].clone()),
        (Value::Null, Value::Null)
    );
    assert!(v["elo_low"].is_number(), "{v}");
    let v = app.get_head_to_head("Bravo", "Charlie").await.body;
    assert_eq!(
        (v["sets"].clone(), v["score"].clone(), v["los"].clone()),
        (json!(0), Value::Null, Value::Null)
    );
    round_trip::<HeadToHead>(&v);

    // An even score is an Elo difference of 0, written `0.0`, never `-0.0`.
    set_won_by(&app, b, c, &charlie).await;
    set_won_by(&app, c, b, &bravo).await;
    let v = app.get_head_to_head("Bravo", "Charlie").await.body;
    assert_eq!(v["score"], json!(0.5), "{v}");
    assert_eq!(v["elo_diff"].to_string(), "0.0", "{v}");

    // The most frequent opponents, most sets first.
    let r = app.get_bot_opponents("Alpha", "").await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let names: Vec<&str> = r.body["opponents"]
        .as_array()
        .expect("opponents")
        .iter()
        .filter_map(|o| o["opponent"].as_str())
        .collect();
    assert_eq!(names, ["Bravo", "Charlie"]);
    assert_eq!(r.body["opponents"][0]["sets"], 3);
    let r = app.get_bot_opponents("Alpha", "limit=1").await;
    assert_eq!(r.body["opponents"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn head_to_head_of_unknown_bots_is_404_and_of_a_bot_with_itself_400() {
    let app = spawn_app().await;
    app.player_with_bot("Alpha").await;
    let r = app.get_head_to_head("Alpha", "Nobody").await;
    assert_eq!((r.status, r.code()), (StatusCode::NOT_FOUND, "not_found"));
    let r = app.get_head_to_head("Nobody", "Alpha").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let r = app.get_head_to_head("Alpha", "alpha").await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::BAD_REQUEST, "bad_request")
    );
    let r = app.get_bot_opponents("Nobody", "").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let r = app.get_bot_opponents("Alpha", "limit=0").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = app.get_bot_opponents("Alpha", "").await;
    assert_eq!(r.body, json!({"bot": "Alpha", "opponents": []}));
}
