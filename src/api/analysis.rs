//! The arena's analysis of finished games and what a bot author learns from it (issue 21):
//! a game's win probability and mistakes, a bot's worst positions, a bot's games as one SGF
//! collection.

use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::json;

use super::AppState;
use crate::error::{ApiError, ApiResult};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route(
        "/v1/sets/{id}/games/{n}/analysis",
        web::get().to(get_analysis),
    )
    .route("/v1/bots/{bot}/mistakes", web::get().to(get_mistakes))
    .route("/v1/bots/{bot}/games.sgf", web::get().to(get_games_sgf));
}

/// `GET /v1/sets/{id}/games/{n}/analysis`: see [`crate::arena::Arena::game_analysis`].
#[tracing::instrument(skip(st), fields(set_id = %path.0, game_no = path.1))]
async fn get_analysis(
    st: web::Data<AppState>,
    path: web::Path<(String, i64)>,
) -> ApiResult<HttpResponse> {
    let (set_id, game_no) = path.into_inner();
    Ok(HttpResponse::Ok().json(st.arena.game_analysis(&set_id, game_no).await?))
}

#[derive(Deserialize)]
struct MistakesQuery {
    #[serde(default, deserialize_with = "super::query_int::i64")]
    limit: Option<i64>,
}

/// `GET /v1/bots/{name-or-id}/mistakes?limit=N` (default 20, at most 100): the positions where
/// the bot's moves lost the most win probability, worst first: `{"bot", "mistakes": [{"set_id",
/// "game_no", "ply", "seat", "drop", "played", "best", "size", "opening", "moves"}]}` with
/// `moves` the names of the moves before the mistake (see
/// [`crate::arena::Arena::bot_mistakes`]). Errors: 404 for an unknown bot.
#[tracing::instrument(skip(st, q), fields(bot = %path))]
async fn get_mistakes(
    st: web::Data<AppState>,
    path: web::Path<String>,
    q: web::Query<MistakesQuery>,
) -> ApiResult<HttpResponse> {
    let b = st.arena.bot(&path).await?;
    // Clamped to 1..=100 by the arena.
    let limit = q.limit.unwrap_or(20);
    Ok(HttpResponse::Ok().json(st.arena.bot_mistakes(&b, limit).await?))
}

#[derive(Deserialize)]
struct SgfQuery {
    since: Option<String>,
}

/// `GET /v1/bots/{name-or-id}/games.sgf?since=RFC3339`: the bot's finished games (those that
/// ended at or after `since`, oldest first, at most 1,000) as one SGF collection, each game as
/// `GET .../sgf` writes it. Errors: 400 `bad_request` for a `since` that is not RFC 3339; 404
/// for an unknown bot.
#[tracing::instrument(skip(st, q), fields(bot = %path))]
async fn get_games_sgf(
    st: web::Data<AppState>,
    path: web::Path<String>,
    q: web::Query<SgfQuery>,
) -> ApiResult<HttpResponse> {
    let since_ms = match q.since.as_deref() {
        None => 0,
        Some(t) => chrono::DateTime::parse_from_rfc3339(t)
            .map_err(|e| {
                ApiError::bad_request(format!("since must be an RFC 3339 time: {e}"))
                    .with_details(json!({"field": "since"}))
            })?
            .timestamp_millis(),
    };
    let b = st.arena.bot(&path).await?;
    let out = st.arena.bot_games_sgf(&b, since_ms).await?;
    Ok(HttpResponse::Ok()
        .content_type("application/x-hex-sgf; charset=utf-8")
        .insert_header((
            "Content-Disposition",
            format!("inline; filename=\"{}.sgf\"", b.name),
        ))
        .body(out))
}
