//! The fixture of the error-code tests (SPEC section 10), shared by `api_errors.rs` and
//! `api_errors_greybox.rs`: two bots of different owners with one active set between them, a
//! snapshot of everything a refused request must leave alone, and the error-envelope check.

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{Resp, TestApp, paths, spawn_app};

/// Two bots of different owners with one active set between them (creator Alpha, acceptor
/// Bravo; Bravo is seat 1 of game 1).
pub struct Fixture {
    pub app: TestApp,
    pub alpha_pt: String,
    pub alpha: String,
    pub bravo_pt: String,
    pub bravo: String,
    pub set_id: String,
}

/// The fixture on `app`: its set is staked 25 on a board of `options`.
pub async fn fixture_with(app: TestApp, options: Value) -> Fixture {
    let (_, alpha_pt, alpha) = app.player_with_bot("Alpha").await;
    let (_, bravo_pt, bravo) = app.player_with_bot("Bravo").await;
    let set_id = app
        .start_set(&alpha, &bravo, json!({"options": options, "stake": 25}))
        .await;
    Fixture {
        app,
        alpha_pt,
        alpha,
        bravo_pt,
        bravo,
        set_id,
    }
}

/// The fixture on a fresh arena, an 11x11 board with four random stones.
pub async fn fixture() -> Fixture {
    fixture_with(spawn_app().await, json!({"size": 11, "random_stones": 4})).await
}

impl Fixture {
    /// Everything a refused request must leave alone (clocks excluded: they run).
    pub async fn snapshot(&self) -> Value {
        let app = &self.app;
        let set = app.get_set(&self.set_id).await.body;
        let mut games = vec![];
        for n in 1..=2 {
            let mut s = app.state(&self.set_id, n).await;
            s.as_object_mut().expect("state object").remove("clock");
            games.push(s);
        }
        json!({
            "set": set,
            "games": games,
            "balances": [app.balance(&self.alpha_pt).await, app.balance(&self.bravo_pt).await],
            "sets": set_count(app).await,
        })
    }

    /// The path of game `game_no`'s moves.
    pub fn moves_url(&self, game_no: i64) -> String {
        paths::moves(&self.set_id, game_no)
    }

    /// A move by Bravo (seat 1 of game 1) in game 1.
    pub async fn bravo_plays(&self, mv: Value) -> Resp {
        self.app.play(&self.bravo, &self.set_id, 1, mv, None).await
    }
}

/// The number of sets listed (first page of 100).
pub async fn set_count(app: &TestApp) -> usize {
    let r = app.list_sets("limit=100").await;
    r.body["sets"].as_array().map_or(0, Vec::len)
}

/// An error envelope with this status and code, a message and a details object.
pub fn assert_error(r: &Resp, status: StatusCode, code: &str) {
    assert_eq!(r.status, status, "expected {code}, got {:?}", r.body);
    assert_eq!(r.code(), code, "{:?}", r.body);
    assert!(
        r.body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "a message: {:?}",
        r.body
    );
    assert!(
        r.body["error"]["details"].is_object(),
        "details is an object: {:?}",
        r.body
    );
}

/// A cell of game 1 that is still empty.
pub async fn empty_cell(f: &Fixture) -> Value {
    f.app.state(&f.set_id, 1).await["legal_moves"][0].clone()
}
