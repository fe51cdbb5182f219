//! The rating history behind the bot page's chart (issue 14): each rated set records both
//! sides' Elo before and after, served oldest first by `GET /v1/bots/{name}/ratings`.

mod common;

use common::spawn_app;
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn a_rated_set_records_both_sides_ratings_and_an_unrated_one_records_nothing() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;

    // Alpha resigns both games of a staked (so rated) set: Bravo wins it 2-0.
    let id = app.start_set(&alpha, &bravo, json!({"stake": 10})).await;
    for n in [1, 2] {
        let r = app.resign(Some(&alpha), &id, &n, json!({})).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    }
    // An unstaked, unrated set changes no rating and records nothing.
    let casual = app.start_set(&alpha, &bravo, json!({"stake": 0})).await;
    for n in [1, 2] {
        let r = app.resign(Some(&bravo), &casual, &n, json!({})).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    }

    let b = app.get_bot_ratings("Bravo").await;
    assert_eq!(b.status, StatusCode::OK, "{:?}", b.body);
    assert_eq!(b.body["bot"], "Bravo");
    let h = b.body["history"].as_array().expect("history");
    assert_eq!(h.len(), 1, "{h:?}");
    assert_eq!(h[0]["set_id"], json!(id));
    assert_eq!(h[0]["rating_before"], json!(1200.0));
    assert_eq!(h[0]["rating_after"], json!(1216.0));
    assert!(h[0]["finished_at"].is_string());
    assert_eq!(b.body["rating"], json!(1216.0));

    let a = app.get_bot_ratings("Alpha").await;
    assert_eq!(a.body["history"][0]["rating_after"], json!(1184.0));
    assert_eq!(a.body["history"].as_array().map(Vec::len), Some(1));

    // The set itself says what it did to both ratings (a bot author missed it on the set's
    // page); an unrated set says nothing.
    let set = app.get_set(&id).await.body;
    let ratings: Vec<(&str, f64, f64)> = set["ratings"]
        .as_array()
        .expect("a rated set's ratings")
        .iter()
        .map(|r| {
            (
                r["bot"].as_str().unwrap_or("?"),
                r["rating_before"].as_f64().unwrap_or(0.0),
                r["rating_after"].as_f64().unwrap_or(0.0),
            )
        })
        .collect();
    assert_eq!(
        ratings,
        [("Alpha", 1200.0, 1184.0), ("Bravo", 1200.0, 1216.0)]
    );
    let glicko_after = set["ratings"][1]["glicko_rating"].as_f64().expect("glicko");
    assert_eq!(
        glicko_after,
        b.body["history"][0]["glicko_rating"]
            .as_f64()
            .expect("history glicko")
    );
    assert_eq!(app.get_set(&casual).await.body["ratings"], json!(null));

    let r = app.get_bot_ratings("nobody").await;
    assert_eq!((r.status, r.code()), (StatusCode::NOT_FOUND, "not_found"));
}

#[tokio::test]
async fn the_pages_and_their_assets_are_served_and_unknown_assets_are_json_404s() {
    let app = spawn_app().await;
    let r = app.get("/tournaments").await;
    assert_eq!(r.status, StatusCode::OK);
    // Issue 21: the pages are rendered with their content, so an unknown bot or tournament is
    // a 404 page (HTML, not the JSON envelope).
    for path in ["/bots/anyone", "/tournaments/tour_x"] {
        let r = app.get(path).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{path}");
        let kind = r.headers.get("content-type").and_then(|v| v.to_str().ok());
        assert_eq!(kind, Some("text/html; charset=utf-8"), "{path}");
    }
    let r = app.get("/assets/nope.js").await;
    assert_eq!((r.status, r.code()), (StatusCode::NOT_FOUND, "not_found"));
}
