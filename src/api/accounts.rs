//! Players, bots, the ledger, the leaderboard and operator grants (SPEC sections 3 and 8).

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::json;

use super::{AppState, AuthBot, AuthOperator, AuthPlayer, JsonBody, only_fields, opt_i64, opt_str};
use crate::arena::profiles::provisional_filter;
use crate::error::{ApiError, ApiResult};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/v1/players", web::post().to(create_player))
        .route("/v1/players/me", web::get().to(get_me))
        .route("/v1/players/me/ledger", web::get().to(get_ledger))
        .route("/v1/bots", web::post().to(create_bot))
        .route("/v1/bots", web::get().to(list_bots))
        .route("/v1/bots/me", web::get().to(get_bot_me))
        .route("/v1/bots/me", web::patch().to(patch_bot_me))
        .route("/v1/bots/me", web::delete().to(retire_bot_me))
        .route("/v1/bots/me/token", web::post().to(rotate_bot_token))
        .route("/v1/players/me/token", web::post().to(rotate_player_token))
        .route(
            "/v1/players/me/bots/{bot}/token",
            web::post().to(reset_bot_token),
        )
        .route("/v1/bots/{bot}/versus/{other}", web::get().to(get_versus))
        .route("/v1/bots/{bot}/opponents", web::get().to(get_opponents))
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
    Ok(HttpResponse::Ok().json(st.arena.player_view(&p).await?))
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
    Ok(HttpResponse::Ok().json(st.arena.ledger_page(&p, q.before, limit).await?))
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
    let bots = st.arena.bot_list(q.online).await?;
    Ok(HttpResponse::Ok().json(json!({"bots": bots})))
}

#[tracing::instrument(skip_all, fields(bot = %b.name))]
async fn get_bot_me(st: web::Data<AppState>, AuthBot(b): AuthBot) -> ApiResult<HttpResponse> {
    // The authenticated row may come from the token cache, whose rating and record are those
    // of when it was cached: the profile is built from the row as it is now.
    let b = st.arena.bot(&b.id).await?;
    Ok(HttpResponse::Ok().json(st.arena.bot_profile(&b).await?))
}

/// `PATCH /v1/bots/me` (issue 20): `accepts` (ranges `[min, max]` of `sizes`,
/// `random_stones`, `initial_s`, `increment_s`, `stake`; replaces the declared ones, `null`
/// or `{}` clears them) and `max_concurrent_sets` (1..=1000, `null` clears it). Answers the
/// profile. Errors: 400 for an unknown field, a malformed range, min above max, a bound
/// outside the contract's limits.
#[tracing::instrument(skip_all, fields(bot = %b.name))]
async fn patch_bot_me(
    st: web::Data<AppState>,
    AuthBot(b): AuthBot,
    JsonBody(body): JsonBody,
) -> ApiResult<HttpResponse> {
    let d = crate::arena::accepts::parse_declare(&body)?;
    let b = st.arena.declare(&b, d).await?;
    Ok(HttpResponse::Ok().json(st.arena.bot_profile(&b).await?))
}

/// `DELETE /v1/bots/me` (issue 20): retires the bot. It plays no new sets (409 `bot_retired`
/// to whoever asks), its open challenges close, running sets finish; its name stays taken
/// and its history and profile stay, marked `retired`. Retiring again changes nothing.
/// Answers the profile.
#[tracing::instrument(skip_all, fields(bot = %b.name))]
async fn retire_bot_me(st: web::Data<AppState>, AuthBot(b): AuthBot) -> ApiResult<HttpResponse> {
    let b = st.arena.retire_bot(&b).await?;
    Ok(HttpResponse::Ok().json(st.arena.bot_profile(&b).await?))
}

/// `POST /v1/bots/me/token` (issue 20): a new bot token; the one that authenticated this
/// request is revoked at once (401 from then on; its open event streams end).
#[tracing::instrument(skip_all, fields(bot = %b.name))]
async fn rotate_bot_token(
    st: web::Data<AppState>,
    req: HttpRequest,
    AuthBot(b): AuthBot,
) -> ApiResult<HttpResponse> {
    let old = super::bearer(&req)?;
    let token = st.arena.rotate_bot_token(&b, &old).await?;
    Ok(HttpResponse::Ok().json(json!({"id": b.id, "name": b.name, "token": token})))
}

/// `POST /v1/players/me/token` (issue 20): a new player token; the old one is revoked at once.
#[tracing::instrument(skip_all, fields(player = %p.id))]
async fn rotate_player_token(
    st: web::Data<AppState>,
    req: HttpRequest,
    AuthPlayer(p): AuthPlayer,
) -> ApiResult<HttpResponse> {
    let old = super::bearer(&req)?;
    let token = st.arena.rotate_player_token(&p, &old).await?;
    Ok(HttpResponse::Ok().json(json!({"id": p.id, "name": p.name, "token": token})))
}

/// `POST /v1/players/me/bots/{bot}/token` (player token, issue 20): a new token for one of the
/// player's bots (a lost token, a rotation whose answer never arrived); the bot's token is
/// revoked at once. Answers `{"id", "name", "token"}`. Errors: 404 unknown bot, 403 `forbidden`
/// for another player's bot.
#[tracing::instrument(skip(st, p))]
async fn reset_bot_token(
    st: web::Data<AppState>,
    AuthPlayer(p): AuthPlayer,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let (b, token) = st.arena.reset_bot_token(&p, path.as_str()).await?;
    Ok(HttpResponse::Ok().json(json!({"id": b.id, "name": b.name, "token": token})))
}

/// `GET /v1/bots/{a}/versus/{b}` (issue 20): head-to-head figures from a's side, see
/// [`crate::arena::Arena::versus`]. Errors: 404 for an unknown bot, 400 for a bot against
/// itself.
#[tracing::instrument(skip(st))]
async fn get_versus(
    st: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> ApiResult<HttpResponse> {
    let (a, b) = path.into_inner();
    Ok(HttpResponse::Ok().json(st.arena.versus(&a, &b).await?))
}

#[derive(Deserialize)]
struct OpponentsQuery {
    #[serde(default, deserialize_with = "super::query_int::i64")]
    limit: Option<i64>,
}

/// `GET /v1/bots/{bot}/opponents?limit=5` (issue 20): the head-to-head figures against the
/// bots it finished the most sets with (at most `limit`, 1..=20, default 5), most sets first.
/// Errors: 404 for an unknown bot, 400 for a bad limit.
#[tracing::instrument(skip(st, q))]
async fn get_opponents(
    st: web::Data<AppState>,
    path: web::Path<String>,
    q: web::Query<OpponentsQuery>,
) -> ApiResult<HttpResponse> {
    let limit = super::page_limit(q.limit, 5, 20)?;
    let b = st.arena.bot(&path).await?;
    let rows = st.arena.opponents(&b, limit).await?;
    Ok(HttpResponse::Ok().json(json!({"bot": b.name, "opponents": rows})))
}

#[tracing::instrument(skip(st), fields(bot = %path))]
async fn get_bot(st: web::Data<AppState>, path: web::Path<String>) -> ApiResult<HttpResponse> {
    let b = st.arena.bot(&path).await?;
    Ok(HttpResponse::Ok().json(st.arena.bot_profile(&b).await?))
}

/// `GET /v1/bots/{name-or-id}/ratings`: the bot's ratings before and after each of its last
/// 200 rated sets, oldest first (issue 14; sets settled before the history was kept are
/// absent): Elo (`rating_*`) and Glicko-2 (`glicko_rating*`, `rating_deviation*`, issue 20),
/// with the opponent and the result. Errors: 404 for an unknown bot.
#[tracing::instrument(skip(st), fields(bot = %path))]
async fn get_bot_ratings(
    st: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let b = st.arena.bot(&path).await?;
    Ok(HttpResponse::Ok().json(st.arena.rating_history(&b).await?))
}

#[derive(Deserialize)]
struct BoardQuery {
    game: Option<String>,
    #[serde(default, deserialize_with = "super::query_int::i64")]
    limit: Option<i64>,
    #[serde(default, deserialize_with = "super::query_int::i64")]
    offset: Option<i64>,
    /// `false`: only established bots (deviation at most 110); `true`: only provisional ones.
    provisional: Option<bool>,
}

/// `GET /v1/leaderboard?game=hex&limit=10&offset=0[&provisional=false]`: bots in Elo order
/// (SPEC 8), each with its Glicko-2 rating, deviation and provisional mark (issue 20).
/// `rank` is the place in the list as filtered, counting the rows skipped by `offset`.
/// Errors: 404 for a game other than hex; 400 for `limit` below 1 or `offset` below 0.
async fn leaderboard(
    st: web::Data<AppState>,
    q: web::Query<BoardQuery>,
) -> ApiResult<HttpResponse> {
    if q.game.as_deref().is_some_and(|g| g != "hex") {
        return Err(ApiError::not_found("the only game is 'hex'"));
    }
    let limit = super::page_limit(q.limit, 10, 100)?;
    let offset = match q.offset {
        None => 0,
        Some(n) if n >= 0 => n,
        Some(n) => {
            return Err(
                ApiError::bad_request(format!("offset must be at least 0, not {n}"))
                    .with_details(json!({"field": "offset", "min": 0})),
            );
        }
    };
    let which = provisional_filter(q.provisional);
    let rows = st.arena.leaderboard_rows(which, limit, offset).await?;
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
