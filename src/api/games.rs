//! Game state, moves, resignation, long-polls and SGF export (SPEC sections 6 and 9b).

use std::sync::Arc;
use std::time::Duration;

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use tokio::sync::broadcast::{self, error::RecvError};

use super::holds::Kind;
use super::{AppState, AuthBot, JsonBody};
use crate::arena::Change;
use crate::arena::live::Snapshot;
use crate::arena::waiters::WaitKey;
use crate::error::{ApiError, ApiResult};

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
    #[serde(default, deserialize_with = "super::query_int::i64")]
    after_ply: Option<i64>,
    #[serde(default, deserialize_with = "super::query_int::u64")]
    wait_s: Option<u64>,
}

/// A game state as the JSON body of a 200.
fn state_response(body: String) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(body)
}

/// The next wake-up `relevant` accepts (Some), or None at the deadline. Lagging behind the
/// broadcast, or a resync after this instance's change listener lost its connection, counts
/// as a wake-up without a state. Other instances' changes arrive as pushed wake-ups
/// ([`crate::arena::cluster`]), so a waiter reads nothing on a timer. A stopping arena ends
/// the wait as the deadline does, so the drain of a graceful stop is short.
async fn next_change(
    arena: &crate::arena::Arena,
    rx: &mut broadcast::Receiver<Arc<Change>>,
    until: tokio::time::Instant,
    relevant: impl Fn(&Change) -> bool,
) -> Option<Option<Arc<Change>>> {
    loop {
        let next = tokio::select! {
            r = tokio::time::timeout_at(until, rx.recv()) => r,
            () = arena.stopped() => return None,
        };
        match next {
            Ok(Ok(c)) if c.resync => return Some(None),
            Ok(Ok(c)) if relevant(&c) => return Some(Some(c)),
            Ok(Ok(_)) => continue,
            Ok(Err(RecvError::Lagged(_))) => return Some(None),
            Ok(Err(RecvError::Closed)) | Err(_) => return None,
        }
    }
}

/// `GET /v1/sets/{id}/games/{n}`: the state, from memory. With `after_ply=K&wait_s=S`, waits
/// until `ply > K` or the game ends; the waiter is woken with the new state and reads nothing.
#[tracing::instrument(level = "debug", skip(st, q), fields(set_id = %path.0, game_no = path.1))]
async fn get_game(
    st: web::Data<AppState>,
    path: web::Path<(String, i64)>,
    q: web::Query<GameQuery>,
    req: HttpRequest,
) -> ApiResult<HttpResponse> {
    let (set_id, game_no) = path.into_inner();
    let arena = &st.arena;
    let wait_s = q.wait_s.unwrap_or(0).min(MAX_WAIT_S);
    // Held by the handler: a finished (or abandoned) poll frees it at once. Without
    // `after_ply` the answer comes at once, so it holds nothing.
    let _slot = if wait_s > 0 && q.after_ply.is_some() {
        Some(st.hold(&req, Kind::LongPoll, None)?)
    } else {
        None
    };
    let _waiting = (wait_s > 0).then(|| arena.metrics.long_poll_started());
    let mut rx = arena
        .waiters
        .subscribe(WaitKey::Game(set_id.clone(), game_no));
    let until = tokio::time::Instant::now() + Duration::from_secs(wait_s);
    let mut state = arena.game_snapshot(&set_id, game_no).await?;
    let ready = |s: &Snapshot| q.after_ply.is_none_or(|k| s.ply > k || s.finished());
    while !ready(&state) && wait_s > 0 {
        let Some(change) = next_change(arena, &mut rx, until, |c| {
            c.set_id == set_id && c.game_no.is_none_or(|g| g == game_no)
        })
        .await
        else {
            break;
        };
        state = match change.as_ref().and_then(|c| c.state.clone()) {
            Some(s) if s.game_no == game_no && s.version > state.version => s,
            _ => arena.game_snapshot(&set_id, game_no).await?,
        };
    }
    Ok(state_response(state.body_at(arena.clock_view_ms())))
}

#[derive(Deserialize)]
struct MoveQuery {
    #[serde(default, deserialize_with = "super::query_int::i64")]
    ply: Option<i64>,
}

/// `POST /v1/sets/{id}/games/{n}/moves`: one move, with what the bot thought of it in the
/// optional `Hexarena-Info` header (issue 21; 400 `invalid_info` when malformed, nothing
/// played).
#[tracing::instrument(level = "debug", skip(st, bot, body, q, req), fields(set_id = %path.0, game_no = path.1, bot = %bot.name))]
async fn post_move(
    st: web::Data<AppState>,
    AuthBot(bot): AuthBot,
    path: web::Path<(String, i64)>,
    q: web::Query<MoveQuery>,
    req: HttpRequest,
    JsonBody(body): JsonBody,
) -> ApiResult<HttpResponse> {
    let (set_id, game_no) = path.into_inner();
    let mv = st.schemas.parse_move(&body)?;
    let info = move_info(&req)?;
    let state = st
        .arena
        .play_move(&bot, &set_id, game_no, mv, q.ply, info.as_ref())
        .await?;
    Ok(state_response(state.body()))
}

/// The `Hexarena-Info` header of a move, checked (None when absent or `{}`); sent twice, or
/// with a key twice, is 400 `invalid_info` as a malformed one is.
fn move_info(req: &HttpRequest) -> ApiResult<Option<crate::arena::info::MoveInfo>> {
    let mut values = req.headers().get_all(crate::arena::info::HEADER);
    let Some(first) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(ApiError::new(
            crate::arena::error::Code::InvalidInfo,
            "send the Hexarena-Info header once",
        )
        .with_details(serde_json::json!({"header": crate::arena::info::HEADER})));
    }
    // A key twice would keep its last value silently, as in a body: refused instead.
    if let Some((key, _)) = super::duplicate_key(first.as_bytes()) {
        return Err(ApiError::new(
            crate::arena::error::Code::InvalidInfo,
            format!("the Hexarena-Info object has the key {key:?} twice"),
        )
        .with_details(serde_json::json!({"header": crate::arena::info::HEADER, "field": key})));
    }
    Ok(crate::arena::info::parse(first.as_bytes())?)
}

#[tracing::instrument(skip(st, bot), fields(set_id = %path.0, game_no = path.1, bot = %bot.name))]
async fn resign(
    st: web::Data<AppState>,
    AuthBot(bot): AuthBot,
    path: web::Path<(String, i64)>,
) -> ApiResult<HttpResponse> {
    let (set_id, game_no) = path.into_inner();
    let state = st.arena.resign(&bot, &set_id, game_no).await?;
    Ok(state_response(state.body()))
}

#[derive(Deserialize)]
struct TurnQuery {
    #[serde(default, deserialize_with = "super::query_int::u64")]
    wait_s: Option<u64>,
}

/// The oldest game in which the bot is on move (200), or 204 after `wait_s`. Once waiting, the
/// bot is answered with the state that woke it, without reading the database.
#[tracing::instrument(level = "debug", skip(st, bot, q), fields(bot = %bot.name))]
async fn get_turn(
    st: web::Data<AppState>,
    AuthBot(bot): AuthBot,
    q: web::Query<TurnQuery>,
    req: HttpRequest,
) -> ApiResult<HttpResponse> {
    let arena = &st.arena;
    let wait_s = q.wait_s.unwrap_or(0).min(MAX_WAIT_S);
    let _slot = if wait_s > 0 {
        Some(st.hold(&req, Kind::LongPoll, Some(&bot.id))?)
    } else {
        None
    };
    let _online = arena.presence_hold(&bot.id); // presence (SPEC 14) for the whole poll
    let until = tokio::time::Instant::now() + Duration::from_secs(wait_s);
    let _waiting = (wait_s > 0).then(|| arena.metrics.long_poll_started());
    let mut rx = arena.waiters.subscribe(WaitKey::Bot(bot.id.clone()));
    let mine = |s: &Snapshot| s.on_move.as_ref().is_some_and(|(id, _)| *id == bot.id);
    loop {
        let found = arena.oldest_turn(&bot.id).await?;
        if let Some((set_id, game_no)) = found {
            let state = arena.game_snapshot(&set_id, game_no).await?;
            // The row may have moved on between the two reads; only answer a real turn.
            if mine(&state) {
                return Ok(state_response(state.body_at(arena.clock_view_ms())));
            }
        }
        loop {
            if tokio::time::Instant::now() >= until || arena.is_stopping() {
                return Ok(HttpResponse::NoContent().finish());
            }
            let id = bot.id.clone();
            match next_change(arena, &mut rx, until, move |c| c.bots.contains(&id)).await {
                Some(Some(c)) => match &c.state {
                    Some(s) if mine(s) => {
                        return Ok(state_response(s.body_at(arena.clock_view_ms())));
                    }
                    Some(_) => continue, // a change in one of its games that is not its turn
                    None => break,
                },
                Some(None) | None => break,
            }
        }
    }
}

#[tracing::instrument(skip(st), fields(set_id = %path.0, game_no = path.1))]
async fn get_sgf(
    st: web::Data<AppState>,
    path: web::Path<(String, i64)>,
) -> ApiResult<HttpResponse> {
    let (set_id, game_no) = path.into_inner();
    // One game: one move per node, as before; the tournament collection adds BL/WL.
    let sgf = match st.arena.game_sgf(&set_id, game_no, false).await? {
        Some(sgf) => sgf,
        // Game 2 before it starts: its empty record, as before.
        None => {
            let body = st.arena.game_state_body(&set_id, game_no).await?;
            let state: serde_json::Value =
                serde_json::from_str(&body).map_err(ApiError::internal)?;
            crate::arena::sgf::to_sgf(&state)
                .ok_or_else(|| ApiError::internal("state without board"))?
        }
    };
    Ok(HttpResponse::Ok()
        .content_type("application/x-hex-sgf; charset=utf-8")
        .insert_header((
            "Content-Disposition",
            format!("inline; filename=\"{set_id}-{game_no}.sgf\""),
        ))
        .body(sgf))
}
