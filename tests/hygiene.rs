//! Input hygiene (issue 17): a JSON body with a key twice is refused and changes nothing,
//! player names refuse invisible and bidirectional-control characters naming the code point,
//! and CSV exports make cells a spreadsheet would run as formulas inert. The tests that count
//! players in the database are in hygiene_greybox.rs.

mod common;
use common::paths;

use common::{seat_tokens, spawn_app};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn a_move_with_a_key_twice_at_the_top_or_nested_is_refused_400_naming_it_and_plays_nothing() {
    let app = spawn_app().await;
    let (_, _, a) = app.player_with_bot("dup-a").await;
    let (_, _, b) = app.player_with_bot("dup-b").await;
    let set = app
        .start_set(&a, &b, json!({"options": {"random_stones": 0}}))
        .await;
    let before = app.state(&set, 1).await;
    let [first, _] = seat_tokens(&before, &[("dup-a", &a), ("dup-b", &b)]);
    let path = paths::moves(&set, 1);
    for (body, key, at) in [
        (r#"{"cell":[1,2],"cell":[3,4]}"#, "cell", ""),
        (r#"{"cell":[1,2],"c\u0065ll":[3,4]}"#, "cell", ""),
        (r#"{"cell":[{"r":1,"r":2},3]}"#, "r", "/cell/0"),
    ] {
        let r = app
            .post_raw(&path, Some(first), body.as_bytes().to_vec())
            .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}: {:?}", r.body);
        assert_eq!(r.code(), "bad_request");
        assert_eq!(r.body["error"]["details"]["key"], key, "{body}");
        assert_eq!(r.body["error"]["details"]["instance_path"], at, "{body}");
    }
    let after = app.state(&set, 1).await;
    assert_eq!(after["ply"], 0);
    assert_eq!(after["moves"], json!([]));
    assert_eq!(after["board"], before["board"]);
}

#[tokio::test]
async fn a_tournament_csv_with_a_bot_named_like_a_formula_comes_out_inert() {
    let app = spawn_app().await;
    let names = ["-2-3", "--cmd", "Ann"];
    for n in names {
        app.player_with_bot(n).await;
    }
    let r = app
        .create_tournament(
            Some("op-secret"),
            json!({"name": "Formulas", "format": "round_robin", "participants": names,
                   "options": {"size": 9, "random_stones": 0}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    for (file, path) in [
        ("standings.csv", paths::standings_csv(&id)),
        ("crosstable.csv", paths::crosstable_csv(&id)),
    ] {
        let csv = app
            .http
            .get(format!("{}{path}", app.url))
            .send()
            .await
            .expect("csv")
            .text()
            .await
            .expect("csv text");
        assert!(csv.contains("'-2-3"), "{file}: {csv}");
        assert!(csv.contains("'--cmd"), "{file}: {csv}");
        for cell in csv.lines().flat_map(|l| l.split(',')) {
            let formula = cell.starts_with(['=', '+', '-', '@', '\t', '\r']);
            assert!(
                !formula || cell.parse::<f64>().is_ok(),
                "{file}: cell {cell:?} would run as a formula"
            );
        }
    }
}

#[tokio::test]
async fn a_tournament_name_with_a_hidden_character_is_refused_and_creates_nothing() {
    let app = spawn_app().await;
    let mut bots = vec![];
    for n in ["TnA", "TnB"] {
        bots.push(app.player_with_bot(n).await);
    }
    for bad in ["Cup\u{202E}gnp", "Cup\u{200B}", "Cup\u{0000}"] {
        let r = app
            .create_tournament(
                Some("op-secret"),
                json!({"name": bad, "format": "round_robin", "participants": ["TnA", "TnB"]}),
            )
            .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad:?}: {:?}", r.body);
        assert_eq!(r.body["error"]["details"]["field"], "name");
    }
    let r = app.list_tournaments("").await;
    assert_eq!(
        r.body["tournaments"].as_array().map(Vec::len),
        Some(0),
        "{:?}",
        r.body
    );
}
