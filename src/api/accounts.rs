//! Players, bots, the ledger, the leaderboard and operator grants (SPEC sections 3 and 8).

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{AppState, AuthBot, AuthOperator, AuthPlayer, JsonBody, only_fields, opt_i64, opt_str};
use crate::arena::views::rfc3339;
use crate::error::{ApiError, ApiResult};
use crate::store::{accounts as acc, ledger};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/v1/players", web::post().to(create_player))
        .route("/v1/players/me", web::get().to(get_me))
        .route("/v1/players/me/ledger", web::get().to(get_ledger))
        .route("/v1/bots", web::post().to(create_bot))
        .route("/v1/bots", web::get().to(list_bots))
        .route("/v1/bots/me", web::get().to(get_bot_me))
        .route("/v1/bots/{bot}", web::get().to(get_bot))
        .route("/v1/bots/{bot}/ratings", web::get().to(get_bot_ratings))
        .route("/v1/leaderboard", web::get().to(leaderboard))
        .route("/v1/operator/grants", web::post().to(grant));
}

#[tracing::instrument(skip_all)]
async fn create_player(
    st: web::Data<AppState>,
    req: HttpRequest,
    JsonBody(body): JsonBody,
) -> ApiResult<HttpResponse> {
    only_fields(&body, &["name"])?;
    let name = opt_str(&body, "name")?
        .ok_or_else(|| ApiError::missing_field("name", "'name' is required"))?;
    // The peer address, not X-Forwarded-For (unless the operator trusts a proxy): a client
    // must not pick its own rate-limit key.
    let ip = st.client_address(&req);
    // Validate first: a refused request must not use up the client's registrations.
    crate::arena::accounts::check_player_name(name)?;
    st.limits.check_register(&ip)?;
    let (p, token) = st.arena.register_player(name, false).await?;
    Ok(HttpResponse::Created()
        .json(json!({"id": p.id, "name": p.name, "token": token, "balance": p.balance})))
}

#[tracing::instrument(skip_all, fields(player = %p.id))]
async fn get_me(st: web::Data<AppState>, AuthPlayer(p): AuthPlayer) -> ApiResult<HttpResponse> {
    let mut c = st.arena.store.pool.acquire().await?;
    let escrow = ledger::escrow_of_player(&mut c, &p.id).await?;
    let mut bots = vec![];
    for b in acc::bots_of_owner(&mut c, &p.id).await? {
        bots.push(st.arena.bot_profile(&mut c, &b).await?);
    }
    Ok(HttpResponse::Ok().json(json!({
        "id": p.id, "name": p.name, "balance": p.balance, "escrow": escrow, "bots": bots,
        "created_at": rfc3339(p.created_ms),
    })))
}

#[derive(Deserialize)]
struct LedgerQuery {
    #[serde(default, deserialize_with = "super::query_int::i64")]
    limit: Option<i64>,
    #[serde(default, deserialize_with = "super::query_int::i64")]
    before: Option<i64>,
}

#[tracing::instrument(skip_all, fields(player = %p.id))]
async fn get_ledger(
    st: web::Data<AppState>,
    AuthPlayer(p): AuthPlayer,
    q: web::Query<LedgerQuery>,
) -> ApiResult<HttpResponse> {
    let limit = super::page_limit(q.limit, 50, 500)?;
    let mut c = st.arena.store.pool.acquire().await?;
    let rows = ledger::of_player(&mut c, &p.id, q.before, limit).await?;
    let next = if rows.len() as i64 == limit {
        rows.last().map(|r| r.id)
    } else {
        None
    };
    let postings: Vec<Value> = rows
        .iter()
        .map(|r| json!({"id": r.id, "kind": r.kind, "amount": r.amount, "set_id": r.set_id, "at": rfc3339(r.at_ms)}))
        .collect();
    Ok(HttpResponse::Ok()
        .json(json!({"balance": p.balance, "postings": postings, "next_before": next})))
}

#[tracing::instrument(skip_all, fields(player = %p.id))]
async fn create_bot(
    st: web::Data<AppState>,
    AuthPlayer(p): AuthPlayer,
    JsonBody(body): JsonBody,
) -> ApiResult<HttpResponse> {
    only_fields(&body, &["name", "max_stake"])?;
    let name = opt_str(&body, "name")?
        .ok_or_else(|| ApiError::missing_field("name", "'name' is required"))?;
    let max_stake = opt_i64(&body, "max_stake")?;
    crate::arena::accounts::check_new_bot(name, max_stake, false)?;
    st.limits.check_create_bot(&p.id)?;
    let (b, token) = st.arena.create_bot(&p, name, max_stake, false).await?;
    Ok(HttpResponse::Created().json(json!({
        "id": b.id, "name": b.name, "owner": b.owner_id, "max_stake": b.max_stake, "token": token,
    })))
}

#[derive(Deserialize)]
struct BotsQuery {
    /// `true`: only bots online now (SPEC 14); `false`: only bots offline.
    online: Option<bool>,
}

/// `GET /v1/bots[?online=true|false]`: public profiles by rating, each with `online`.
async fn list_bots(st: web::Data<AppState>, q: web::Query<BotsQuery>) -> ApiResult<HttpResponse> {
    let mut c = st.arena.store.pool.acquire().await?;
    let mut out = vec![];
    for b in acc::bots_by_rating(&mut c, 1000).await? {
        let p = st.arena.bot_profile(&mut c, &b).await?;
        if q.online.is_none_or(|want| p["online"] == want) {
            out.push(p);
        }
    }
    Ok(HttpResponse::Ok().json(json!({"bots": out})))
}

#[tracing::instrument(skip_all, fields(bot = %b.name))]
async fn get_bot_me(st: web::Data<AppState>, AuthBot(b): AuthBot) -> ApiResult<HttpResponse> {
    let mut c = st.arena.store.pool.acquire().await?;
    // The authenticated row may come from the token cache, whose rating and record are those
    // of when it was cached: the profile is built from the row as it is now.
    let b = acc::bot_by_ref(&mut c, &b.id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no bot '{}'", b.id)))?;
    Ok(HttpResponse::Ok().json(st.arena.bot_profile(&mut c, &b).await?))
}

#[tracing::instrument(skip(st), fields(bot = %path))]
async fn get_bot(st: web::Data<AppState>, path: web::Path<String>) -> ApiResult<HttpResponse> {
    let mut c = st.arena.store.pool.acquire().await?;
    let b = acc::bot_by_ref(&mut c, &path)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no bot '{}'", path.as_str())))?;
    Ok(HttpResponse::Ok().json(st.arena.bot_profile(&mut c, &b).await?))
}

/// `GET /v1/bots/{name-or-id}/ratings`: the bot's Elo before and after each of its last 200
/// rated sets, oldest first (issue 14; sets settled before the history was kept are absent).
/// Errors: 404 for an unknown bot.
#[tracing::instrument(skip(st), fields(bot = %path))]
async fn get_bot_ratings(
    st: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let mut c = st.arena.store.pool.acquire().await?;
    let b = acc::bot_by_ref(&mut c, &path)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no bot '{}'", path.as_str())))?;
    let history: Vec<Value> = crate::store::sets::rating_history(&mut c, &b.id, 200)
        .await?
        .iter()
        .map(|p| {
            json!({"set_id": p.set_id, "finished_at": crate::arena::views::opt_time(p.finished_ms),
                   "rating_before": p.rating_before, "rating_after": p.rating_after})
        })
        .collect();
    Ok(HttpResponse::Ok().json(json!({"bot": b.name, "rating": b.rating, "history": history})))
}

#[derive(Deserialize)]
struct BoardQuery {
    game: Option<String>,
    #[serde(default, deserialize_with = "super::query_int::i64")]
    limit: Option<i64>,
}

async fn leaderboard(
    st: web::Data<AppState>,
    q: web::Query<BoardQuery>,
) -> ApiResult<HttpResponse> {
    if q.game.as_deref().is_some_and(|g| g != "hex") {
        return Err(ApiError::not_found("the only game is 'hex'"));
    }
    let limit = super::page_limit(q.limit, 10, 100)?;
    let mut c = st.arena.store.pool.acquire().await?;
    let rows: Vec<Value> = acc::bots_by_rating(&mut c, limit)
        .await?
        .iter()
        .enumerate()
        .map(|(i, b)| {
            json!({"rank": i + 1, "bot": b.name, "rating": b.rating.round() as i64, "sets": b.sets,
                   "w": b.wins, "d": b.draws, "l": b.losses, "won": b.won, "net": b.net,
                   "owner": b.owner_id, "owner_name": b.owner_name, "house": b.house != 0})
        })
        .collect();
    Ok(HttpResponse::Ok().json(json!({"game": "hex", "rows": rows})))
}

#[tracing::instrument(skip_all, fields(operator = true))]
async fn grant(
    st: web::Data<AppState>,
    _op: AuthOperator,
    JsonBody(body): JsonBody,
) -> ApiResult<HttpResponse> {
    only_fields(&body, &["player", "amount"])?;
    let player = opt_str(&body, "player")?
        .ok_or_else(|| ApiError::missing_field("player", "'player' is required"))?;
    let amount = opt_i64(&body, "amount")?
        .ok_or_else(|| ApiError::missing_field("amount", "'amount' is required"))?;
    let p = st.arena.grant(player, amount).await?;
    Ok(HttpResponse::Ok().json(json!({"player": p.id, "balance": p.balance})))
}
