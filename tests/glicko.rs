//! Glicko-2 beside Elo (issue 20), black-box over HTTP: each rated set moves both bots'
//! rating, deviation and volatility as Glickman's steps say (computed here by
//! `common::glicko`, not by the server's crate); the deviation grows by one empty rating
//! period per whole day without a rated set; profiles, the leaderboard and the rating history
//! carry `rating_deviation` and `provisional`; the leaderboard pages with `offset` and filters
//! provisional bots; house bots start established.

mod common;

use std::sync::Arc;

use common::glicko::{self, G};
use common::{Spawn, TestApp, spawn_app, spawn_with};
use hexarena::arena::clock::FakeTime;
use reqwest::StatusCode;
use serde_json::{Value, json};

const DAY_MS: i64 = 86_400_000;

/// `loser` resigns both games of a staked (so rated) set `creator` made and `acceptor`
/// accepted; returns the set id.
async fn rated_set_lost_by(app: &TestApp, creator: &str, acceptor: &str, loser: &str) -> String {
    let id = app.start_set(creator, acceptor, json!({"stake": 10})).await;
    for n in [1, 2] {
        let r = app.resign(Some(loser), &id, &n, json!({})).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    }
    id
}

/// A profile's (or a row's) Glicko-2 figures.
fn served(v: &Value) -> G {
    G {
        r: v["glicko_rating"].as_f64().expect("glicko_rating"),
        rd: v["rating_deviation"].as_f64().expect("rating_deviation"),
        sigma: v["rating_volatility"].as_f64().unwrap_or(f64::NAN),
    }
}

fn near(got: f64, want: f64) -> bool {
    (got - want).abs() < 1e-6
}

#[tokio::test]
async fn a_rated_set_moves_both_bots_by_glickmans_steps_and_the_history_names_opponent_and_result()
{
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;

    // Before any set: the start, provisional.
    let a = app.get_bot("Alpha").await.body;
    assert_eq!(
        (
            &a["glicko_rating"],
            &a["rating_deviation"],
            &a["rating_volatility"],
            &a["provisional"]
        ),
        (&json!(1200.0), &json!(350.0), &json!(0.06), &json!(true)),
        "{a}"
    );

    // Bravo wins the first set 2-0, then Alpha the second: one result per set each time.
    let first = rated_set_lost_by(&app, &alpha, &bravo, &alpha).await;
    let (a1, b1) = glicko::set(glicko::NEW, glicko::NEW, 0.0);
    // Worked figures of the first set, as the formula gives them at 1500 (1662.3 / 290.3).
    assert!(
        (b1.r - 1362.31).abs() < 0.01 && (b1.rd - 290.32).abs() < 0.01,
        "{b1:?}"
    );
    let second = rated_set_lost_by(&app, &bravo, &alpha, &bravo).await;
    let (b2, a2) = glicko::set(b1, a1, 0.0);

    for (name, want) in [("Alpha", a2), ("Bravo", b2)] {
        let p = app.get_bot(&name).await.body;
        assert!(
            glicko::close(served(&p), want, 1e-6),
            "{name}: {p} vs {want:?}"
        );
        assert_eq!(p["provisional"], true, "{name}");
        // Elo is as before: 1200 -> 1184 -> 1200.03 for Alpha (K = 32).
        assert!(p["rating_exact"].is_number());
    }
    let a = app.get_bot("Alpha").await.body;
    let ea = 1184.0 + 32.0 * (1.0 - 1.0 / (1.0 + 10f64.powf((1216.0 - 1184.0) / 400.0)));
    assert!(near(a["rating_exact"].as_f64().expect("elo"), ea), "{a}");

    let h = app.get_bot_ratings("Alpha").await;
    assert_eq!(h.status, StatusCode::OK, "{:?}", h.body);
    assert!(near(h.body["glicko_rating"].as_f64().expect("now"), a2.r));
    assert!(near(
        h.body["rating_deviation"].as_f64().expect("now"),
        a2.rd
    ));
    assert_eq!(h.body["provisional"], true);
    let points = h.body["history"].as_array().expect("history");
    assert_eq!(points.len(), 2, "{points:?}");
    let want = [
        (&first, "loss", 0.0, glicko::NEW, a1),
        (&second, "win", 1.0, a1, a2),
    ];
    let bravo_id = app.get_bot("Bravo").await.body["id"].clone();
    for (p, (set, result, score, before, after)) in points.iter().zip(want) {
        assert_eq!(p["set_id"], json!(set), "{p}");
        assert_eq!(p["opponent"], "Bravo", "{p}");
        assert_eq!(p["opponent_id"], bravo_id, "{p}");
        assert_eq!((&p["result"], &p["score"]), (&json!(result), &json!(score)));
        assert!(
            near(
                p["glicko_rating_before"].as_f64().expect("before"),
                before.r
            ),
            "{p}"
        );
        assert!(
            near(
                p["rating_deviation_before"].as_f64().expect("before"),
                before.rd
            ),
            "{p}"
        );
        assert!(
            near(p["glicko_rating"].as_f64().expect("after"), after.r),
            "{p}"
        );
        assert!(
            near(p["rating_deviation"].as_f64().expect("after"), after.rd),
            "{p}"
        );
        assert_eq!(p["provisional"], true, "{p}");
    }
}

#[tokio::test]
async fn the_deviation_grows_by_one_empty_period_per_whole_day_without_a_rated_set() {
    let time = Arc::new(FakeTime::new(1_800_000_000_000));
    let app = spawn_with(Spawn {
        time: time.clone(),
        ..Spawn::default()
    })
    .await;
    let (_, _, alpha) = app.player_with_bot("Idler").await;
    let (_, _, bravo) = app.player_with_bot("Busy").await;
    rated_set_lost_by(&app, &alpha, &bravo, &alpha).await;
    let (a1, b1) = glicko::set(glicko::NEW, glicko::NEW, 0.0);

    // 40 days and most of another: 40 empty periods, the part day not counted.
    time.advance(40 * DAY_MS + DAY_MS - 1_000);
    let idle = glicko::idle(a1, 40);
    // sqrt(290.319^2 + 40 x (0.06 x 173.7178)^2) = 297.709
    assert!((idle.rd - 297.709).abs() < 0.001, "{idle:?}");
    let p = app.get_bot("Idler").await.body;
    assert!(glicko::close(served(&p), idle, 1e-6), "{p} vs {idle:?}");
    let row = app.leaderboard("limit=10").await.body["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["bot"] == "Idler")
        .cloned()
        .expect("Idler on the board");
    assert!(
        near(row["rating_deviation"].as_f64().expect("rd"), idle.rd),
        "{row}"
    );

    // The next rated set starts from the grown deviation, on both sides.
    time.advance(1_000);
    let set = rated_set_lost_by(&app, &bravo, &alpha, &bravo).await;
    let (b2, a2) = glicko::set(glicko::idle(b1, 41), glicko::idle(a1, 41), 0.0);
    let h = app.get_bot_ratings("Idler").await.body;
    let last = &h["history"][1];
    assert_eq!(last["set_id"], json!(set));
    assert!(
        near(
            last["rating_deviation_before"].as_f64().expect("before"),
            glicko::idle(a1, 41).rd
        ),
        "{last}"
    );
    assert!(
        near(last["rating_deviation"].as_f64().expect("after"), a2.rd),
        "{last}"
    );
    let p = app.get_bot("Busy").await.body;
    assert!(glicko::close(served(&p), b2, 1e-6), "{p} vs {b2:?}");

    // Never above 350, however long the bot is away.
    time.advance(20_000 * DAY_MS);
    let p = app.get_bot("Idler").await.body;
    assert_eq!(p["rating_deviation"], json!(350.0), "{p}");
    assert!(near(p["glicko_rating"].as_f64().expect("rating"), a2.r));
}

#[tokio::test]
async fn house_bots_start_established_and_the_board_filters_provisional_bots_and_pages_with_offset()
{
    let time = Arc::new(FakeTime::new(1_800_000_000_000));
    let app = spawn_with(Spawn {
        house_bots: true,
        house_lobby_wait_ms: -1,
        time: time.clone(),
        ..Spawn::default()
    })
    .await;
    let (_, _, newcomer) = app.player_with_bot("Newcomer").await;
    let (_, _, other) = app.player_with_bot("Other").await;
    rated_set_lost_by(&app, &newcomer, &other, &other).await;

    // The seeds: Elo and Glicko-2 at the measured rating, deviation 60, not provisional.
    let seeds = [
        ("house-master", 2110.0),
        ("house-bridge", 1940.0),
        ("house-club", 1590.0),
        ("house-novice", 1220.0),
        ("house-random", 800.0),
    ];
    for (name, seed) in seeds {
        let p = app.get_bot(&name).await.body;
        assert_eq!(
            (
                &p["rating"],
                &p["glicko_rating"],
                &p["rating_deviation"],
                &p["provisional"]
            ),
            (
                &json!(seed as i64),
                &json!(seed),
                &json!(60.0),
                &json!(false)
            ),
            "{p}"
        );
    }

    // The whole board, in Elo order, each row marked; the profile's rank is its row's.
    let all = app.leaderboard("limit=100").await.body["rows"]
        .as_array()
        .expect("rows")
        .clone();
    let names: Vec<&str> = all.iter().filter_map(|r| r["bot"].as_str()).collect();
    assert_eq!(
        names,
        [
            "house-master",
            "house-bridge",
            "house-club",
            "house-novice",
            "Newcomer",
            "Other",
            "house-random"
        ]
    );
    for (i, r) in all.iter().enumerate() {
        assert_eq!(r["rank"], i + 1);
        assert_eq!(r["provisional"], r["house"] != true, "{r}");
        let p = app.get_bot(&r["bot"].as_str().expect("bot")).await;
        assert_eq!(p.body["rank"], i + 1, "{}", p.body);
    }
    let listed = app.list_bots("").await.body;
    for p in listed["bots"].as_array().expect("bots") {
        let row = all
            .iter()
            .find(|r| r["bot"] == p["name"])
            .expect("on the board");
        assert_eq!(p["rank"], row["rank"], "{p}");
    }

    // offset skips rows and ranks count them.
    let page = app.leaderboard("limit=2&offset=3").await.body;
    assert_eq!(page["rows"], json!(all[3..5]));
    let past = app.leaderboard("offset=99999999999999999999").await;
    assert_eq!(
        (past.status, &past.body["rows"]),
        (StatusCode::OK, &json!([]))
    );

    // provisional=false: the established bots, ranked among themselves; true: the others.
    let est = app.leaderboard("provisional=false&limit=100").await.body;
    let est: Vec<(String, i64)> = est["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["bot"].as_str().unwrap_or("").to_string(),
                r["rank"].as_i64().unwrap_or(0),
            )
        })
        .collect();
    let want: Vec<(String, i64)> = seeds
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.to_string(), i as i64 + 1))
        .collect();
    assert_eq!(est, want);
    let prov = app.leaderboard("provisional=true&offset=1").await.body;
    assert_eq!(prov["rows"].as_array().map(Vec::len), Some(1), "{prov}");
    assert_eq!(
        (&prov["rows"][0]["bot"], &prov["rows"][0]["rank"]),
        (&json!("Other"), &json!(2))
    );

    // 100 idle days later the house bots' deviation passed 110: sqrt(60^2 + 100 x 10.42^2).
    time.advance(100 * DAY_MS);
    let rd = (60.0f64 * 60.0 + 100.0 * (0.06f64 * 173.7178).powi(2)).sqrt();
    let p = app.get_bot("house-club").await.body;
    assert!(near(p["rating_deviation"].as_f64().expect("rd"), rd), "{p}");
    assert_eq!(p["provisional"], true);
    let est = app.leaderboard("provisional=false").await.body;
    assert_eq!(est["rows"], json!([]), "{est}");
}

#[tokio::test]
async fn bad_leaderboard_parameters_are_400s_naming_the_field() {
    let app = spawn_app().await;
    let r = app.leaderboard("offset=-1").await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::BAD_REQUEST, "bad_request")
    );
    assert_eq!(
        r.body["error"]["details"]["field"], "offset",
        "{:?}",
        r.body
    );
    for q in [
        "offset=1.5",
        "offset=x",
        "provisional=maybe",
        "provisional=1",
    ] {
        let r = app.leaderboard(q).await;
        assert_eq!(
            (r.status, r.code()),
            (StatusCode::BAD_REQUEST, "bad_request"),
            "{q}: {:?}",
            r.body
        );
    }
}

#[tokio::test]
async fn the_contract_names_both_rating_systems_and_their_parameters() {
    let app = spawn_app().await;
    let r = app.get_contract("hex").await;
    assert_eq!(
        r.body["ratings"],
        json!({
            "order": "elo",
            "result": "one per rated set: a win 1, a draw 0.5, a loss 0 (points, then the tiebreak)",
            "elo": {"field": "rating", "start": 1200, "k": 32},
            "glicko2": {
                "field": "glicko_rating", "deviation_field": "rating_deviation",
                "start": 1200.0, "start_deviation": 350.0, "max_deviation": 350.0,
                "start_volatility": 0.06, "tau": 0.5,
                "rating_period": "each rated set, plus one empty period per whole day without one",
                "inactivity_period_s": 86400, "provisional_above": 110.0,
                "house_seed_deviation": 60.0,
            },
        })
    );
}
