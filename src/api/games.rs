//! Game state, moves, resignation, long-polls and SGF export (SPEC sections 6 and 9b).

use std::time::Duration;

use actix_web::{HttpResponse, web};
use serde::Deserialize;
use tokio::sync::broadcast::error::RecvError;

use super::{AppState, AuthBot, JsonBody};
use crate::arena::Change;
use crate::error::{ApiError, ApiResult};
use crate::store::games;

/// Longest long-poll (SPEC section 6).
pub const MAX_WAIT_S: u64 = 60;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/v1/sets/{id}/games/{n}", web::get().to(get_game))
        .route("/v1/sets/{id}/games/{n}/moves", web::post().to(post_move))
        .route("/v1/sets/{id}/games/{n}/resign", web::post().to(resign))
        .route("/v1/sets/{id}/games/{n}/sgf", web::get().to(get_sgf))
        .route("/v1/bots/me/turn", web::get().to(get_turn));
}

#[derive(Deserialize)]
struct GameQuery {
    after_ply: Option<i64>,
    wait_s: Option<u64>,
}

/// Waits for a change that `relevant` accepts, or the deadline; lagging counts as a change.
/// With several instances sharing PostgreSQL, changes made elsewhere are not broadcast here,
/// so the caller re-checks the database at least every second.
async fn wait_change(
    rx: &mut tokio::sync::broadcast::Receiver<Change>,
    until: tokio::time::Instant,
    relevant: impl Fn(&Change) -> bool,
) -> bool {
    let recheck = tokio::time::Instant::now() + Duration::from_secs(1);
    loop {
        match tokio::time::timeout_at(until.min(recheck), rx.recv()).await {
            Ok(Ok(c)) if relevant(&c) => return true,
            Ok(Ok(_)) => continue,
            Ok(Err(RecvError::Lagged(_))) => return true,
            Ok(Err(RecvError::Closed)) => return false,
            Err(_) => return tokio::time::Instant::now() < until,
        }
    }
}

#[tracing::instrument(skip(st, q), fields(set_id = %path.0, game_no = path.1))]
async fn get_game(
    st: web::Data<AppState>,
    path: web::Path<(String, i64)>,
    q: web::Query<GameQuery>,
) -> ApiResult<HttpResponse> {
    let (set_id, game_no) = path.into_inner();
    let wait_s = q.wait_s.unwrap_or(0).min(MAX_WAIT_S);
    let mut rx = st.arena.changes.subscribe();
    let until = tokio::time::Instant::now() + Duration::from_secs(wait_s);
    loop {
        let state = st.arena.game_state(&set_id, game_no).await?;
        let ready = match q.after_ply {
            None => true,
            Some(k) => state.ply > k || state.status == "finished",
        };
        if ready || wait_s == 0 || tokio::time::Instant::now() >= until {
            return Ok(HttpResponse::Ok().json(state));
        }
        let (s, n) = (set_id.clone(), game_no);
        if !wait_change(&mut rx, until, move |c| {
            c.set_id == s && c.game_no.is_none_or(|g| g == n)
        })
        .await
        {
            return Ok(HttpResponse::Ok().json(st.arena.game_state(&set_id, game_no).await?));
        }
    }
}

#[derive(Deserialize)]
struct MoveQuery {
    ply: Option<i64>,
}

#[tracing::instrument(skip(st, bot, body, q), fields(set_id = %path.0, game_no = path.1, bot = %bot.name))]
async fn post_move(
    st: web::Data<AppState>,
    AuthBot(bot): AuthBot,
    path: web::Path<(String, i64)>,
    q: web::Query<MoveQuery>,
    JsonBody(body): JsonBody,
) -> ApiResult<HttpResponse> {
    let (set_id, game_no) = path.into_inner();
    let mv = st.schemas.parse_move(&body)?;
    let state = st
        .arena
        .play_move(&bot, &set_id, game_no, mv, q.ply)
        .await?;
    Ok(HttpResponse::Ok().json(state))
}

#[tracing::instrument(skip(st, bot), fields(set_id = %path.0, game_no = path.1, bot = %bot.name))]
async fn resign(
    st: web::Data<AppState>,
    AuthBot(bot): AuthBot,
    path: web::Path<(String, i64)>,
) -> ApiResult<HttpResponse> {
    let (set_id, game_no) = path.into_inner();
    Ok(HttpResponse::Ok().json(st.arena.resign(&bot, &set_id, game_no).await?))
}

#[derive(Deserialize)]
struct TurnQuery {
    wait_s: Option<u64>,
}

/// The oldest game in which the bot is on move (200), or 204 after `wait_s`.
#[tracing::instrument(skip(st, bot, q), fields(bot = %bot.name))]
async fn get_turn(
    st: web::Data<AppState>,
    AuthBot(bot): AuthBot,
    q: web::Query<TurnQuery>,
) -> ApiResult<HttpResponse> {
    let _online = st.arena.presence_hold(&bot.id); // presence (SPEC 14) for the whole poll
    let wait_s = q.wait_s.unwrap_or(0).min(MAX_WAIT_S);
    let until = tokio::time::Instant::now() + Duration::from_secs(wait_s);
    let mut rx = st.arena.changes.subscribe();
    loop {
        let found = {
            let mut c = st.arena.store.pool.acquire().await?;
            games::oldest_on_move(&mut c, &bot.id).await?
        };
        if let Some((set_id, game_no)) = found {
            let state = st.arena.game_state(&set_id, game_no).await?;
            // The row may have moved on between the two reads; only answer a real turn.
            if state.bot_on_move() == Some(bot.name.as_str()) {
                return Ok(HttpResponse::Ok().json(state));
            }
        }
        if tokio::time::Instant::now() >= until {
            return Ok(HttpResponse::NoContent().finish());
        }
        let id = bot.id.clone();
        if !wait_change(&mut rx, until, move |c| c.bots.contains(&id)).await {
            return Ok(HttpResponse::NoContent().finish());
        }
    }
}

#[tracing::instrument(skip(st), fields(set_id = %path.0, game_no = path.1))]
async fn get_sgf(
    st: web::Data<AppState>,
    path: web::Path<(String, i64)>,
) -> ApiResult<HttpResponse> {
    let (set_id, game_no) = path.into_inner();
    let state = st.arena.game_state(&set_id, game_no).await?;
    let state = serde_json::to_value(&state).map_err(ApiError::internal)?;
    let sgf = crate::arena::sgf::to_sgf(&state)
        .ok_or_else(|| ApiError::internal("state without board"))?;
    Ok(HttpResponse::Ok()
        .content_type("application/x-hex-sgf; charset=utf-8")
        .insert_header((
            "Content-Disposition",
            format!("inline; filename=\"{set_id}-{game_no}.sgf\""),
        ))
        .body(sgf))
}
