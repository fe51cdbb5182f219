//! Players, bots, the ledger, the leaderboard and operator grants (SPEC sections 3 and 8).

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{AppState, AuthBot, AuthOperator, AuthPlayer, JsonBody, only_fields, opt_i64, opt_str};
use crate::arena::glicko;
use crate::arena::views::rfc3339;
use crate::error::{ApiError, ApiResult};
use crate::store::Conn;
use crate::store::accounts::BotRow;
use crate::store::{accounts as acc, ledger};

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
    let mut c = st.arena.store.conn().await?;
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
    let mut c = st.arena.store.conn().await?;
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
    let mut c = st.arena.store.conn().await?;
    let mut out = vec![];
    let mut rank = 0;
    for b in &acc::bots_by_rating(&mut c, 1000).await? {
        // In the board's order, so the place among the bots not retired is the rank.
        if b.retired_ms.is_none() {
            rank += 1;
        }
        let p = st.arena.bot_profile_ranked(&mut c, b, Some(rank)).await?;
        if q.online.is_none_or(|want| p["online"] == want) {
            out.push(p);
        }
    }
    Ok(HttpResponse::Ok().json(json!({"bots": out})))
}

#[tracing::instrument(skip_all, fields(bot = %b.name))]
async fn get_bot_me(st: web::Data<AppState>, AuthBot(b): AuthBot) -> ApiResult<HttpResponse> {
    let mut c = st.arena.store.conn().await?;
    // The authenticated row may come from the token cache, whose rating and record are those
    // of when it was cached: the profile is built from the row as it is now.
    let b = acc::bot_by_ref(&mut c, &b.id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no bot '{}'", b.id)))?;
    Ok(HttpResponse::Ok().json(st.arena.bot_profile(&mut c, &b).await?))
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
    let mut c = st.arena.store.conn().await?;
    Ok(HttpResponse::Ok().json(st.arena.bot_profile(&mut c, &b).await?))
}

/// `DELETE /v1/bots/me` (issue 20): retires the bot. It plays no new sets (409 `bot_retired`
/// to whoever asks), its open challenges close, running sets finish; its name stays taken
/// and its history and profile stay, marked `retired`. Retiring again changes nothing.
/// Answers the profile.
#[tracing::instrument(skip_all, fields(bot = %b.name))]
async fn retire_bot_me(st: web::Data<AppState>, AuthBot(b): AuthBot) -> ApiResult<HttpResponse> {
    let b = st.arena.retire_bot(&b).await?;
    let mut c = st.arena.store.conn().await?;
    Ok(HttpResponse::Ok().json(st.arena.bot_profile(&mut c, &b).await?))
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
/// [`crate::arena::Arena::head_to_head`]. Errors: 404 for an unknown bot, 400 for a bot
/// against itself.
#[tracing::instrument(skip(st))]
async fn get_versus(
    st: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> ApiResult<HttpResponse> {
    let (a, b) = path.into_inner();
    let mut c = st.arena.store.conn().await?;
    let mut find = async |n: &str| {
        acc::bot_by_ref(&mut c, n)
            .await
            .map_err(ApiError::from)?
            .ok_or_else(|| ApiError::not_found(format!("no bot '{n}'")))
    };
    let a = find(&a).await?;
    let b = find(&b).await?;
    if a.id == b.id {
        return Err(ApiError::bad_request(
            "a bot has no head-to-head with itself",
        ));
    }
    Ok(HttpResponse::Ok().json(st.arena.head_to_head(&mut c, &a, &b).await?))
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
    let mut c = st.arena.store.conn().await?;
    let b = acc::bot_by_ref(&mut c, &path)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no bot '{}'", path.as_str())))?;
    let rows = opponents(&st.arena, &mut c, &b, limit).await?;
    Ok(HttpResponse::Ok().json(json!({"bot": b.name, "opponents": rows})))
}

/// The head-to-head rows of `b` against the (at most `limit`) bots it finished the most sets
/// with, most sets first; shared by the API and the bot's web page.
pub(crate) async fn opponents(
    arena: &crate::arena::Arena,
    c: &mut Conn,
    b: &BotRow,
    limit: i64,
) -> ApiResult<Vec<Value>> {
    let mut rows = vec![];
    for (opp, _) in crate::store::sets::frequent_opponents(c, &b.id, limit).await? {
        if let Some(o) = acc::bot_by_ref(c, &opp).await? {
            rows.push(arena.head_to_head(c, b, &o).await?);
        }
    }
    Ok(rows)
}

#[tracing::instrument(skip(st), fields(bot = %path))]
async fn get_bot(st: web::Data<AppState>, path: web::Path<String>) -> ApiResult<HttpResponse> {
    let mut c = st.arena.store.conn().await?;
    let b = acc::bot_by_ref(&mut c, &path)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no bot '{}'", path.as_str())))?;
    Ok(HttpResponse::Ok().json(st.arena.bot_profile(&mut c, &b).await?))
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
    let mut c = st.arena.store.conn().await?;
    let b = acc::bot_by_ref(&mut c, &path)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no bot '{}'", path.as_str())))?;
    Ok(HttpResponse::Ok().json(ratings(&st.arena, &mut c, &b).await?))
}

/// The body of `GET /v1/bots/{name}/ratings` for `b` (shared with the bot's web page).
pub(crate) async fn ratings(
    arena: &crate::arena::Arena,
    c: &mut Conn,
    b: &BotRow,
) -> ApiResult<Value> {
    let history: Vec<Value> = crate::store::sets::rating_history(c, &b.id, 200)
        .await?
        .iter()
        .map(|p| {
            let (result, score) = match p.winner_id.as_deref() {
                None => ("draw", 0.5),
                Some(w) if w == b.id => ("win", 1.0),
                Some(_) => ("loss", 0.0),
            };
            json!({"set_id": p.set_id, "finished_at": crate::arena::views::opt_time(p.finished_ms),
                   "rating_before": p.rating_before, "rating_after": p.rating_after,
                   "opponent": p.opponent_name, "opponent_id": p.opponent_id,
                   "result": result, "score": score,
                   "glicko_rating_before": p.glicko_before, "glicko_rating": p.glicko_after,
                   "rating_deviation_before": p.deviation_before,
                   "rating_deviation": p.deviation_after,
                   "provisional": p.deviation_after.map(|d| d > glicko::PROVISIONAL_ABOVE)})
        })
        .collect();
    let g = glicko::Glicko::of_bot(b, arena.now_ms());
    Ok(json!({
        "bot": b.name, "rating": b.rating, "glicko_rating": g.rating,
        "rating_deviation": g.deviation, "provisional": g.provisional(), "history": history,
    }))
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
    let which = match q.provisional {
        None => acc::Provisional::All,
        Some(false) => acc::Provisional::AtMost(glicko::PROVISIONAL_ABOVE),
        Some(true) => acc::Provisional::Above(glicko::PROVISIONAL_ABOVE),
    };
    let rows = leaderboard_rows(&st.arena, which, limit, offset).await?;
    Ok(HttpResponse::Ok().json(json!({"game": "hex", "rows": rows})))
}

/// The rows of `GET /v1/leaderboard` (shared with the home page): bots in Elo order from
/// place `offset + 1`, at most `limit`.
pub(crate) async fn leaderboard_rows(
    arena: &crate::arena::Arena,
    which: acc::Provisional,
    limit: i64,
    offset: i64,
) -> ApiResult<Vec<Value>> {
    let now = arena.now_ms();
    let mut c = arena.store.conn().await?;
    let rows: Vec<Value> = acc::leaderboard_page(&mut c, now, which, limit, offset)
        .await?
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let g = glicko::Glicko::of_bot(b, now);
            json!({"rank": offset.saturating_add(i as i64 + 1), "bot": b.name,
                   "rating": b.rating.round() as i64, "sets": b.sets,
                   "w": b.wins, "d": b.draws, "l": b.losses, "won": b.won, "net": b.net,
                   "owner": b.owner_id, "owner_name": b.owner_name, "house": b.house != 0,
                   "glicko_rating": g.rating, "rating_deviation": g.deviation,
                   "provisional": g.provisional()})
        })
        .collect();
    Ok(rows)
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
