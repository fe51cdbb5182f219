//! The arena's analysis of finished games and what a bot author learns from it (issue 21):
//! a game's win probability and mistakes, a bot's worst positions, a bot's games as one SGF
//! collection.

use std::collections::HashMap;

use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::json;

use super::AppState;
use crate::arena::views;
use crate::error::{ApiError, ApiResult};
use crate::store::{accounts as acc, analysis, games, sets};

/// Most mistakes one answer lists.
pub const MAX_MISTAKES: i64 = 100;
/// Most games one SGF collection holds (the oldest first from `since`).
pub const MAX_SGF_GAMES: i64 = 1000;

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

/// A game as the mistakes list needs it: size, opening and move names.
struct GameText {
    size: i64,
    opening: Vec<[u8; 2]>,
    moves: Vec<String>,
}

/// `GET /v1/bots/{name-or-id}/mistakes?limit=N` (default 20, at most 100): the positions where
/// the bot's moves lost the most win probability, worst first: `{"bot", "mistakes": [{"set_id",
/// "game_no", "ply", "seat", "drop", "played", "best", "size", "opening", "moves"}]}` with
/// `moves` the names of the moves before the mistake. Errors: 404 for an unknown bot.
#[tracing::instrument(skip(st, q), fields(bot = %path))]
async fn get_mistakes(
    st: web::Data<AppState>,
    path: web::Path<String>,
    q: web::Query<MistakesQuery>,
) -> ApiResult<HttpResponse> {
    let limit = q.limit.unwrap_or(20).clamp(1, MAX_MISTAKES);
    let mut c = st.arena.store.conn().await?;
    let b = acc::bot_by_ref(&mut c, &path)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no bot '{}'", path.as_str())))?;
    let rows = analysis::by_bot(&mut c, &b.id, limit).await?;
    let mut texts: HashMap<(String, i64), GameText> = HashMap::new();
    let mut out = Vec::with_capacity(rows.len());
    for m in rows {
        let key = (m.set_id.clone(), m.game_no);
        if !texts.contains_key(&key) {
            let Some(set) = sets::get(&mut c, &m.set_id, "").await? else {
                continue;
            };
            let moves = games::moves(&mut c, &m.set_id, m.game_no)
                .await?
                .iter()
                .map(|r| views::move_view(r).name)
                .collect();
            texts.insert(
                key.clone(),
                GameText {
                    size: set.size,
                    opening: views::opening_of(&set),
                    moves,
                },
            );
        }
        let Some(t) = texts.get(&key) else { continue };
        let k = usize::try_from(m.ply - 1).unwrap_or(0).min(t.moves.len());
        out.push(json!({
            "set_id": m.set_id,
            "game_no": m.game_no,
            "ply": m.ply,
            "seat": m.seat,
            // 3 decimals, as the game's analysis gives the same mistake.
            "drop": (m.drop_ppm as f64 / 1e3).round() / 1e3,
            "played": t.moves.get(k),
            "best": m.best,
            "size": t.size,
            "opening": t.opening,
            "moves": &t.moves[..k],
        }));
    }
    Ok(HttpResponse::Ok().json(json!({"bot": b.name, "mistakes": out})))
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
    let (b, list) = {
        let mut c = st.arena.store.conn().await?;
        let b = acc::bot_by_ref(&mut c, &path)
            .await?
            .ok_or_else(|| ApiError::not_found(format!("no bot '{}'", path.as_str())))?;
        let list = analysis::finished_games_of(&mut c, &b.id, since_ms, MAX_SGF_GAMES).await?;
        (b, list)
    };
    let mut out = String::new();
    for (set_id, game_no) in list {
        if let Some(sgf) = st.arena.game_sgf(&set_id, game_no, false).await? {
            out.push_str(&sgf);
        }
    }
    Ok(HttpResponse::Ok()
        .content_type("application/x-hex-sgf; charset=utf-8")
        .insert_header((
            "Content-Disposition",
            format!("inline; filename=\"{}.sgf\"", b.name),
        ))
        .body(out))
}
