//! Issue 18, part A, over HTTP: a house practice set is still practice and belongs to no
//! tournament. The round robin on a fake clock, whose crashed bot's games are ended by the
//! in-process expiry sweep, is in tournament_records_greybox.rs.

mod common;

use common::{Spawn, spawn_with};
use reqwest::StatusCode;
use serde_json::{Value, json};

#[tokio::test]
async fn a_house_practice_set_is_still_practice_and_links_to_no_tournament() {
    let app = spawn_with(Spawn {
        house_bots: true,
        ..Spawn::default()
    })
    .await;
    let (_, _, tok) = app.player_with_bot("Learner").await;
    let r = app
        .create_practice_set(Some(&tok), json!({"options": {"size": 9}}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    assert_eq!(r.body["practice"], true);
    assert_eq!(r.body["rated"], false);
    assert_eq!(r.body["tournament"], Value::Null);
    assert_eq!(r.body["match"], Value::Null);
}
