//! The one place the tests spell the API's paths (`openapi.yaml`, SPEC sections 3 to 16).
//!
//! Each function builds one route's path from its parameters (ids, names and game numbers
//! are written as they are given, so a test may pass an unknown or malformed one to check a
//! 404 or 400). [`super::TestApp`]'s route methods (`tests/common/api.rs`) are built on these;
//! tests use them directly only where they need a path rather than a request: event streams,
//! servers in another process, and the routing checks (methods not allowed, unknown paths).
//! A query, where a route takes one, is appended by [`with_query`].

use std::fmt::Display;

/// `path` with `?query` appended, or `path` alone when `query` is empty.
pub fn with_query(path: String, query: &str) -> String {
    if query.is_empty() {
        path
    } else {
        format!("{path}?{query}")
    }
}

/// `GET /v1/games`.
pub fn games() -> String {
    "/v1/games".into()
}

/// `GET /v1/games/{game}`: a game's contract (only `hex` exists).
pub fn game_contract(game: impl Display) -> String {
    format!("/v1/games/{game}")
}

/// `POST /v1/players`.
pub fn players() -> String {
    "/v1/players".into()
}

/// `GET /v1/players/me`.
pub fn player_me() -> String {
    "/v1/players/me".into()
}

/// `GET /v1/players/me/ledger`.
pub fn ledger() -> String {
    "/v1/players/me/ledger".into()
}

/// `POST /v1/players/me/token`.
pub fn player_token() -> String {
    "/v1/players/me/token".into()
}

pub fn player_bot_token(bot: impl Display) -> String {
    format!("/v1/players/me/bots/{bot}/token")
}

/// `POST /v1/bots` (create) and `GET /v1/bots` (list).
pub fn bots() -> String {
    "/v1/bots".into()
}

/// `GET`, `PATCH` and `DELETE /v1/bots/me`.
pub fn bot_me() -> String {
    "/v1/bots/me".into()
}

/// `POST /v1/bots/me/token`.
pub fn bot_token() -> String {
    "/v1/bots/me/token".into()
}

/// `GET /v1/bots/me/turn`.
pub fn turn() -> String {
    "/v1/bots/me/turn".into()
}

/// `GET /v1/bots/me/events`: the bot's event stream.
pub fn bot_events() -> String {
    "/v1/bots/me/events".into()
}

/// `GET /v1/bots/{name-or-id}`.
pub fn bot(name: impl Display) -> String {
    format!("/v1/bots/{name}")
}

/// `GET /v1/bots/{name-or-id}/ratings`.
pub fn bot_ratings(name: impl Display) -> String {
    format!("/v1/bots/{name}/ratings")
}

/// `GET /v1/bots/{name-or-id}/mistakes`.
pub fn bot_mistakes(name: impl Display) -> String {
    format!("/v1/bots/{name}/mistakes")
}

/// `GET /v1/bots/{name-or-id}/opponents`.
pub fn bot_opponents(name: impl Display) -> String {
    format!("/v1/bots/{name}/opponents")
}

/// `GET /v1/bots/{name-or-id}/versus/{other}`.
pub fn versus(name: impl Display, other: impl Display) -> String {
    format!("/v1/bots/{name}/versus/{other}")
}

/// `GET /v1/bots/{name-or-id}/games.sgf`.
pub fn bot_games_sgf(name: impl Display) -> String {
    format!("/v1/bots/{name}/games.sgf")
}

/// `POST /v1/sets` (create) and `GET /v1/sets` (list).
pub fn sets() -> String {
    "/v1/sets".into()
}

/// `GET /v1/sets/{id}`.
pub fn set(id: impl Display) -> String {
    format!("/v1/sets/{id}")
}

/// `POST /v1/sets/{id}/accept`.
pub fn accept(id: impl Display) -> String {
    format!("/v1/sets/{id}/accept")
}

/// `POST /v1/sets/{id}/cancel`.
pub fn cancel(id: impl Display) -> String {
    format!("/v1/sets/{id}/cancel")
}

/// `POST /v1/sets/{id}/decline`.
pub fn decline(id: impl Display) -> String {
    format!("/v1/sets/{id}/decline")
}

/// `POST /v1/practice`.
pub fn practice() -> String {
    "/v1/practice".into()
}

/// `POST`, `DELETE` and `GET /v1/pool`.
pub fn pool() -> String {
    "/v1/pool".into()
}

/// `GET /v1/sets/{id}/games/{n}`.
pub fn game(id: impl Display, n: impl Display) -> String {
    format!("/v1/sets/{id}/games/{n}")
}

/// `POST /v1/sets/{id}/games/{n}/moves`.
pub fn moves(id: impl Display, n: impl Display) -> String {
    format!("/v1/sets/{id}/games/{n}/moves")
}

/// `POST /v1/sets/{id}/games/{n}/resign`.
pub fn resign(id: impl Display, n: impl Display) -> String {
    format!("/v1/sets/{id}/games/{n}/resign")
}

/// `GET /v1/sets/{id}/games/{n}/sgf`.
pub fn game_sgf(id: impl Display, n: impl Display) -> String {
    format!("/v1/sets/{id}/games/{n}/sgf")
}

/// `GET /v1/sets/{id}/games/{n}/analysis`.
pub fn analysis(id: impl Display, n: impl Display) -> String {
    format!("/v1/sets/{id}/games/{n}/analysis")
}

/// `GET /v1/sets/{id}/games/{n}/events`: a game's event stream.
pub fn game_events(id: impl Display, n: impl Display) -> String {
    format!("/v1/sets/{id}/games/{n}/events")
}

/// `GET /v1/events`: the public event stream.
pub fn public_events() -> String {
    "/v1/events".into()
}

/// `GET /v1/leaderboard`.
pub fn leaderboard() -> String {
    "/v1/leaderboard".into()
}

/// `POST /v1/operator/grants`.
pub fn grants() -> String {
    "/v1/operator/grants".into()
}

/// `POST /v1/operator/sets`.
pub fn operator_sets() -> String {
    "/v1/operator/sets".into()
}

/// `POST /v1/tournaments` (create) and `GET /v1/tournaments` (list).
pub fn tournaments() -> String {
    "/v1/tournaments".into()
}

/// `GET`, `PATCH` and `DELETE /v1/tournaments/{id}`.
pub fn tournament(id: impl Display) -> String {
    format!("/v1/tournaments/{id}")
}

/// `POST /v1/tournaments/{id}/participants`.
pub fn participants(id: impl Display) -> String {
    format!("/v1/tournaments/{id}/participants")
}

/// `DELETE /v1/tournaments/{id}/participants/{bot}`.
pub fn participant(id: impl Display, bot: impl Display) -> String {
    format!("/v1/tournaments/{id}/participants/{bot}")
}

/// `POST /v1/tournaments/{id}/withdraw`.
pub fn withdraw(id: impl Display) -> String {
    format!("/v1/tournaments/{id}/withdraw")
}

/// `GET /v1/tournaments/{id}/standings.csv`.
pub fn standings_csv(id: impl Display) -> String {
    format!("/v1/tournaments/{id}/standings.csv")
}

/// `GET /v1/tournaments/{id}/crosstable.csv`.
pub fn crosstable_csv(id: impl Display) -> String {
    format!("/v1/tournaments/{id}/crosstable.csv")
}

/// `GET /v1/tournaments/{id}/games.sgf`.
pub fn tournament_games_sgf(id: impl Display) -> String {
    format!("/v1/tournaments/{id}/games.sgf")
}

/// `POST /v1/tournaments/{id}/start`.
pub fn start_tournament(id: impl Display) -> String {
    format!("/v1/tournaments/{id}/start")
}

/// `POST /v1/tournaments/{id}/pause`.
pub fn pause_tournament(id: impl Display) -> String {
    format!("/v1/tournaments/{id}/pause")
}

/// `POST /v1/tournaments/{id}/resume`.
pub fn resume_tournament(id: impl Display) -> String {
    format!("/v1/tournaments/{id}/resume")
}

/// `POST /v1/tournaments/{id}/cancel`.
pub fn cancel_tournament(id: impl Display) -> String {
    format!("/v1/tournaments/{id}/cancel")
}

/// `POST /v1/matches` (create) and `GET /v1/matches` (list).
pub fn matches() -> String {
    "/v1/matches".into()
}

/// `GET /v1/matches/{id}`.
pub fn match_(id: impl Display) -> String {
    format!("/v1/matches/{id}")
}

/// `POST /v1/matches/{id}/accept`.
pub fn accept_match(id: impl Display) -> String {
    format!("/v1/matches/{id}/accept")
}

/// `POST /v1/matches/{id}/cancel`.
pub fn cancel_match(id: impl Display) -> String {
    format!("/v1/matches/{id}/cancel")
}

/// A path under `/v1/` that no route serves (the 404 `not_found` checks).
pub fn not_a_route() -> String {
    "/v1/no/such/route".into()
}

/// The route template of `GET /v1/sets/{id}/games/{n}`, as the server labels its metrics.
pub const GAME_ROUTE: &str = "/v1/sets/{id}/games/{n}";

/// The route template of `POST /v1/sets/{id}/games/{n}/moves`, as metrics label it.
pub const MOVES_ROUTE: &str = "/v1/sets/{id}/games/{n}/moves";
