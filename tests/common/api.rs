//! One [`TestApp`] method per route of `openapi.yaml` the tests call, each answering the raw
//! [`Resp`] (status, JSON body, headers) so a test can assert statuses and error bodies; read a
//! body as a contract type with [`Resp::typed`] (or the typed helpers in `mod.rs`).
//!
//! Conventions: the token comes first (`Option<&str>`: `None` sends no `Authorization`
//! header, for the 401 checks), then the path's parameters (anything `Display`, so a test may
//! pass an unknown or malformed id), then the query where the route takes one (`"limit=5"`,
//! `""` for none), then the JSON body (anything `Serialize`: a `json!` value or a contract
//! request type such as [`hexarena_contract::NewSet`]). Public routes take no token.
//! Paths are spelled only in [`super::paths`].

use std::fmt::Display;

use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde_json::Value;

use super::paths::{self, with_query};
use super::{Resp, TestApp};

/// A body as JSON (a test's own value; panics only on a type that cannot be JSON).
fn to_json(body: impl Serialize) -> Value {
    serde_json::to_value(body).expect("a request body serializes to JSON")
}

impl TestApp {
    async fn send_json(
        &self,
        method: Method,
        path: String,
        token: Option<&str>,
        body: impl Serialize,
    ) -> Resp {
        self.call(method, &path, token, Some(to_json(body))).await
    }

    // --- the game's contract -------------------------------------------------------------

    /// `GET /v1/games`.
    pub async fn list_games(&self) -> Resp {
        self.get(&paths::games()).await
    }

    /// `GET /v1/games/{game}`.
    pub async fn get_contract(&self, game: impl Display) -> Resp {
        self.get(&paths::game_contract(game)).await
    }

    // --- players -------------------------------------------------------------------------

    /// `POST /v1/players` (no token).
    pub async fn create_player(&self, body: impl Serialize) -> Resp {
        self.send_json(Method::POST, paths::players(), None, body)
            .await
    }

    /// `POST /v1/players` with raw bytes as the body (malformed JSON, size limits).
    pub async fn create_player_raw(&self, body: Vec<u8>) -> Resp {
        self.post_raw(&paths::players(), None, body).await
    }

    /// `GET /v1/players/me`.
    pub async fn get_player(&self, token: Option<&str>) -> Resp {
        self.call(Method::GET, &paths::player_me(), token, None)
            .await
    }

    /// `GET /v1/players/me/ledger?{q}`.
    pub async fn ledger(&self, token: Option<&str>, q: &str) -> Resp {
        self.call(Method::GET, &with_query(paths::ledger(), q), token, None)
            .await
    }

    /// `POST /v1/players/me/token`.
    pub async fn rotate_player_token(&self, token: Option<&str>, body: impl Serialize) -> Resp {
        self.send_json(Method::POST, paths::player_token(), token, body)
            .await
    }

    /// `POST /v1/players/me/bots/{bot}/token`: the owner issues one of its bots a new token.
    pub async fn reset_bot_token(&self, token: Option<&str>, bot: impl Display) -> Resp {
        self.send_json(
            Method::POST,
            paths::player_bot_token(bot),
            token,
            Value::Object(serde_json::Map::new()),
        )
        .await
    }

    // --- bots ----------------------------------------------------------------------------

    /// `POST /v1/bots` with a player token.
    pub async fn create_bot(&self, token: Option<&str>, body: impl Serialize) -> Resp {
        self.send_json(Method::POST, paths::bots(), token, body)
            .await
    }

    /// `GET /v1/bots?{q}`.
    pub async fn list_bots(&self, q: &str) -> Resp {
        self.get(&with_query(paths::bots(), q)).await
    }

    /// `GET /v1/bots/me`.
    pub async fn get_current_bot(&self, token: Option<&str>) -> Resp {
        self.call(Method::GET, &paths::bot_me(), token, None).await
    }

    /// `PATCH /v1/bots/me`.
    pub async fn declare_bot(&self, token: Option<&str>, body: impl Serialize) -> Resp {
        self.send_json(Method::PATCH, paths::bot_me(), token, body)
            .await
    }

    /// `DELETE /v1/bots/me`.
    pub async fn retire_bot(&self, token: Option<&str>) -> Resp {
        self.call(Method::DELETE, &paths::bot_me(), token, None)
            .await
    }

    /// `POST /v1/bots/me/token`.
    pub async fn rotate_bot_token(&self, token: Option<&str>, body: impl Serialize) -> Resp {
        self.send_json(Method::POST, paths::bot_token(), token, body)
            .await
    }

    /// `GET /v1/bots/me/turn?{q}` (`wait_s`).
    pub async fn get_turn(&self, token: Option<&str>, q: &str) -> Resp {
        self.call(Method::GET, &with_query(paths::turn(), q), token, None)
            .await
    }

    /// `GET /v1/bots/{name-or-id}`.
    pub async fn get_bot(&self, name: impl Display) -> Resp {
        self.get(&paths::bot(name)).await
    }

    /// `GET /v1/bots/{name-or-id}/ratings`.
    pub async fn get_bot_ratings(&self, name: impl Display) -> Resp {
        self.get(&paths::bot_ratings(name)).await
    }

    /// `GET /v1/bots/{name-or-id}/mistakes?{q}`.
    pub async fn get_bot_mistakes(&self, name: impl Display, q: &str) -> Resp {
        self.get(&with_query(paths::bot_mistakes(name), q)).await
    }

    /// `GET /v1/bots/{name-or-id}/opponents?{q}`.
    pub async fn get_bot_opponents(&self, name: impl Display, q: &str) -> Resp {
        self.get(&with_query(paths::bot_opponents(name), q)).await
    }

    /// `GET /v1/bots/{name-or-id}/versus/{other}`.
    pub async fn get_head_to_head(&self, name: impl Display, other: impl Display) -> Resp {
        self.get(&paths::versus(name, other)).await
    }

    /// `GET /v1/bots/{name-or-id}/games.sgf?{q}` as JSON (its errors).
    pub async fn get_bot_games_sgf(&self, name: impl Display, q: &str) -> Resp {
        self.get(&with_query(paths::bot_games_sgf(name), q)).await
    }

    /// `GET /v1/bots/{name-or-id}/games.sgf?{q}` as text.
    pub async fn bot_games_sgf_text(&self, name: impl Display, q: &str) -> (StatusCode, String) {
        self.get_text(&with_query(paths::bot_games_sgf(name), q))
            .await
    }

    // --- sets ----------------------------------------------------------------------------

    /// `POST /v1/sets`.
    pub async fn create_set(&self, token: Option<&str>, body: impl Serialize) -> Resp {
        self.send_json(Method::POST, paths::sets(), token, body)
            .await
    }

    /// `POST /v1/sets` with raw bytes as the body.
    pub async fn create_set_raw(&self, token: Option<&str>, body: Vec<u8>) -> Resp {
        self.post_raw(&paths::sets(), token, body).await
    }

    /// `GET /v1/sets?{q}`.
    pub async fn list_sets(&self, q: &str) -> Resp {
        self.get(&with_query(paths::sets(), q)).await
    }

    /// `GET /v1/sets/{id}`.
    pub async fn get_set(&self, id: impl Display) -> Resp {
        self.get(&paths::set(id)).await
    }

    /// `POST /v1/sets/{id}/accept`.
    pub async fn accept_set(
        &self,
        token: Option<&str>,
        id: impl Display,
        body: impl Serialize,
    ) -> Resp {
        self.send_json(Method::POST, paths::accept(id), token, body)
            .await
    }

    /// `POST /v1/sets/{id}/cancel`.
    pub async fn cancel_set(
        &self,
        token: Option<&str>,
        id: impl Display,
        body: impl Serialize,
    ) -> Resp {
        self.send_json(Method::POST, paths::cancel(id), token, body)
            .await
    }

    /// `POST /v1/sets/{id}/decline`.
    pub async fn decline_set(
        &self,
        token: Option<&str>,
        id: impl Display,
        body: impl Serialize,
    ) -> Resp {
        self.send_json(Method::POST, paths::decline(id), token, body)
            .await
    }

    /// `POST /v1/practice`.
    pub async fn create_practice_set(&self, token: Option<&str>, body: impl Serialize) -> Resp {
        self.send_json(Method::POST, paths::practice(), token, body)
            .await
    }

    /// `POST /v1/pool`.
    pub async fn join_pool(&self, token: Option<&str>, body: impl Serialize) -> Resp {
        self.send_json(Method::POST, paths::pool(), token, body)
            .await
    }

    /// `DELETE /v1/pool`.
    pub async fn leave_pool(&self, token: Option<&str>) -> Resp {
        self.call(Method::DELETE, &paths::pool(), token, None).await
    }

    /// `GET /v1/pool`.
    pub async fn list_pool(&self) -> Resp {
        self.get(&paths::pool()).await
    }

    // --- games ---------------------------------------------------------------------------

    /// `GET /v1/sets/{id}/games/{n}`.
    pub async fn get_game(&self, id: impl Display, n: impl Display) -> Resp {
        self.get(&paths::game(id, n)).await
    }

    /// `GET /v1/sets/{id}/games/{n}?{q}` (`after_ply`, `wait_s`: the long poll).
    pub async fn poll_game(&self, id: impl Display, n: impl Display, q: &str) -> Resp {
        self.get(&with_query(paths::game(id, n), q)).await
    }

    /// `POST /v1/sets/{id}/games/{n}/moves?{q}` (`ply`); see also [`TestApp::play`].
    pub async fn post_move(
        &self,
        token: Option<&str>,
        id: impl Display,
        n: impl Display,
        q: &str,
        body: impl Serialize,
    ) -> Resp {
        self.send_json(
            Method::POST,
            with_query(paths::moves(id, n), q),
            token,
            body,
        )
        .await
    }

    /// `POST /v1/sets/{id}/games/{n}/resign`.
    pub async fn resign(
        &self,
        token: Option<&str>,
        id: impl Display,
        n: impl Display,
        body: impl Serialize,
    ) -> Resp {
        self.send_json(Method::POST, paths::resign(id, n), token, body)
            .await
    }

    /// `GET /v1/sets/{id}/games/{n}/sgf` as JSON (its errors).
    pub async fn get_game_sgf(&self, id: impl Display, n: impl Display) -> Resp {
        self.get(&paths::game_sgf(id, n)).await
    }

    /// `GET /v1/sets/{id}/games/{n}/sgf` as text.
    pub async fn game_sgf_text(&self, id: impl Display, n: impl Display) -> (StatusCode, String) {
        self.get_text(&paths::game_sgf(id, n)).await
    }

    // --- rankings ------------------------------------------------------------------------

    /// `GET /v1/leaderboard?{q}`.
    pub async fn leaderboard(&self, q: &str) -> Resp {
        self.get(&with_query(paths::leaderboard(), q)).await
    }

    // --- operator --------------------------------------------------------------------------

    /// `POST /v1/operator/grants`.
    pub async fn create_grant(&self, token: Option<&str>, body: impl Serialize) -> Resp {
        self.send_json(Method::POST, paths::grants(), token, body)
            .await
    }

    /// `POST /v1/operator/sets`.
    pub async fn create_operator_set(&self, token: Option<&str>, body: impl Serialize) -> Resp {
        self.send_json(Method::POST, paths::operator_sets(), token, body)
            .await
    }

    // --- tournaments -----------------------------------------------------------------------

    /// `POST /v1/tournaments`.
    pub async fn create_tournament(&self, token: Option<&str>, body: impl Serialize) -> Resp {
        self.send_json(Method::POST, paths::tournaments(), token, body)
            .await
    }

    /// `GET /v1/tournaments?{q}`.
    pub async fn list_tournaments(&self, q: &str) -> Resp {
        self.get(&with_query(paths::tournaments(), q)).await
    }

    /// `GET /v1/tournaments/{id}`.
    pub async fn get_tournament(&self, id: impl Display) -> Resp {
        self.get(&paths::tournament(id)).await
    }

    /// `PATCH /v1/tournaments/{id}`.
    pub async fn patch_tournament(
        &self,
        token: Option<&str>,
        id: impl Display,
        body: impl Serialize,
    ) -> Resp {
        self.send_json(Method::PATCH, paths::tournament(id), token, body)
            .await
    }

    /// `DELETE /v1/tournaments/{id}`.
    pub async fn delete_tournament(&self, token: Option<&str>, id: impl Display) -> Resp {
        self.call(Method::DELETE, &paths::tournament(id), token, None)
            .await
    }

    /// `POST /v1/tournaments/{id}/participants`.
    pub async fn add_participant(
        &self,
        token: Option<&str>,
        id: impl Display,
        body: impl Serialize,
    ) -> Resp {
        self.send_json(Method::POST, paths::participants(id), token, body)
            .await
    }

    /// `DELETE /v1/tournaments/{id}/participants/{bot}`.
    pub async fn remove_participant(
        &self,
        token: Option<&str>,
        id: impl Display,
        bot: impl Display,
    ) -> Resp {
        self.call(Method::DELETE, &paths::participant(id, bot), token, None)
            .await
    }

    /// `POST /v1/tournaments/{id}/withdraw`.
    pub async fn withdraw(
        &self,
        token: Option<&str>,
        id: impl Display,
        body: impl Serialize,
    ) -> Resp {
        self.send_json(Method::POST, paths::withdraw(id), token, body)
            .await
    }

    /// `POST /v1/tournaments/{id}/start`.
    pub async fn start_tournament(
        &self,
        token: Option<&str>,
        id: impl Display,
        body: impl Serialize,
    ) -> Resp {
        self.send_json(Method::POST, paths::start_tournament(id), token, body)
            .await
    }

    /// `POST /v1/tournaments/{id}/pause`.
    pub async fn pause_tournament(
        &self,
        token: Option<&str>,
        id: impl Display,
        body: impl Serialize,
    ) -> Resp {
        self.send_json(Method::POST, paths::pause_tournament(id), token, body)
            .await
    }

    /// `POST /v1/tournaments/{id}/resume`.
    pub async fn resume_tournament(
        &self,
        token: Option<&str>,
        id: impl Display,
        body: impl Serialize,
    ) -> Resp {
        self.send_json(Method::POST, paths::resume_tournament(id), token, body)
            .await
    }

    /// `POST /v1/tournaments/{id}/cancel`.
    pub async fn cancel_tournament(
        &self,
        token: Option<&str>,
        id: impl Display,
        body: impl Serialize,
    ) -> Resp {
        self.send_json(Method::POST, paths::cancel_tournament(id), token, body)
            .await
    }

    /// `GET /v1/tournaments/{id}/standings.csv` as text.
    pub async fn standings_csv_text(&self, id: impl Display) -> (StatusCode, String) {
        self.get_text(&paths::standings_csv(id)).await
    }

    /// `GET /v1/tournaments/{id}/crosstable.csv` as text.
    pub async fn crosstable_csv_text(&self, id: impl Display) -> (StatusCode, String) {
        self.get_text(&paths::crosstable_csv(id)).await
    }

    /// `GET /v1/tournaments/{id}/games.sgf` as text.
    pub async fn tournament_games_sgf_text(&self, id: impl Display) -> (StatusCode, String) {
        self.get_text(&paths::tournament_games_sgf(id)).await
    }

    // --- matches ---------------------------------------------------------------------------

    /// `POST /v1/matches`.
    pub async fn create_match(&self, token: Option<&str>, body: impl Serialize) -> Resp {
        self.send_json(Method::POST, paths::matches(), token, body)
            .await
    }

    /// `GET /v1/matches?{q}`.
    pub async fn list_matches(&self, q: &str) -> Resp {
        self.get(&with_query(paths::matches(), q)).await
    }

    /// `GET /v1/matches/{id}`.
    pub async fn get_match(&self, id: impl Display) -> Resp {
        self.get(&paths::match_(id)).await
    }

    /// `POST /v1/matches/{id}/accept`.
    pub async fn accept_match(
        &self,
        token: Option<&str>,
        id: impl Display,
        body: impl Serialize,
    ) -> Resp {
        self.send_json(Method::POST, paths::accept_match(id), token, body)
            .await
    }

    /// `POST /v1/matches/{id}/cancel`.
    pub async fn cancel_match(
        &self,
        token: Option<&str>,
        id: impl Display,
        body: impl Serialize,
    ) -> Resp {
        self.send_json(Method::POST, paths::cancel_match(id), token, body)
            .await
    }
}
