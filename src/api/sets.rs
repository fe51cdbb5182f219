//! Sets, practice and operator pairings (SPEC sections 5 and 9).

use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::Value;

use super::{AppState, AuthBot, AuthOperator, JsonBody, only_fields, opt_bool, opt_i64, opt_str};
use crate::arena::options::STAKE_DEFAULT;
use crate::arena::sets::NewSet;
use crate::error::{ApiError, ApiResult};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/v1/sets", web::post().to(create_set))
        .route("/v1/sets", web::get().to(list_sets))
        .route("/v1/sets/{id}", web::get().to(get_set))
        .route("/v1/sets/{id}/accept", web::post().to(accept_set))
        .route("/v1/sets/{id}/cancel", web::post().to(cancel_set))
        .route("/v1/sets/{id}/decline", web::post().to(decline_set))
        .route("/v1/practice", web::post().to(create_practice))
        .route("/v1/operator/sets", web::post().to(create_pairing));
}

/// Options, clock and stake of a request body.
pub(crate) fn new_set(st: &AppState, body: &Value, opponent: Option<String>) -> ApiResult<NewSet> {
    let options = st.schemas.parse_options(body.get("options"))?;
    let (initial_ms, increment_ms) = super::clock_request(body)?.resolve()?;
    let stake = opt_i64(body, "stake")?.unwrap_or(STAKE_DEFAULT);
    let rated = opt_bool(body, "rated")?.unwrap_or(stake > 0);
    Ok(NewSet {
        options,
        initial_ms,
        increment_ms,
        stake,
        opponent,
        rated,
        practice: false,
        pool: false,
    })
}

#[tracing::instrument(skip_all, fields(bot = %bot.name))]
async fn create_set(
    st: web::Data<AppState>,
    AuthBot(bot): AuthBot,
    JsonBody(body): JsonBody,
) -> ApiResult<HttpResponse> {
    only_fields(
        &body,
        &["game", "options", "stake", "rated", "clock", "opponent"],
    )?;
    match opt_str(&body, "game")? {
        Some("hex") => {}
        Some(other) => {
            return Err(ApiError::not_found(format!(
                "no game '{other}'; the only game is 'hex'"
            )));
        }
        None => {
            return Err(ApiError::missing_field(
                "game",
                "'game' is required (\"hex\")",
            ));
        }
    }
    let req = new_set(&st, &body, opt_str(&body, "opponent")?.map(str::to_string))?;
    st.limits.check_create_set(&bot.id)?;
    let set = st.arena.create_set(&bot, req).await?;
    Ok(HttpResponse::Created().json(set))
}

#[derive(Deserialize)]
struct ListQuery {
    status: Option<String>,
    bot: Option<String>,
    #[serde(default, deserialize_with = "super::query_int::i64")]
    limit: Option<i64>,
    before: Option<String>,
}

#[tracing::instrument(skip_all)]
async fn list_sets(st: web::Data<AppState>, q: web::Query<ListQuery>) -> ApiResult<HttpResponse> {
    const STATUSES: [&str; 6] = [
        "open",
        "active",
        "finished",
        "cancelled",
        "declined",
        "expired",
    ];
    if let Some(s) = q.status.as_deref().filter(|s| !STATUSES.contains(s)) {
        return Err(
            ApiError::bad_request(format!("status '{s}' is not one of {STATUSES:?}"))
                .with_details(serde_json::json!({"field": "status"})),
        );
    }
    let limit = super::page_limit(q.limit, 20, 100)?;
    if let Some(b) = q.before.as_deref().filter(|b| !b.starts_with("set_")) {
        return Err(
            ApiError::bad_request(format!("before must be a set id (set_...), not '{b}'"))
                .with_details(serde_json::json!({"field": "before"})),
        );
    }
    let v = st
        .arena
        .list_sets(
            q.status.as_deref(),
            q.bot.as_deref(),
            q.before.as_deref(),
            limit,
        )
        .await?;
    Ok(HttpResponse::Ok().json(v))
}

#[tracing::instrument(skip(st), fields(set_id = %path))]
async fn get_set(st: web::Data<AppState>, path: web::Path<String>) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(st.arena.get_set(&path).await?))
}

#[tracing::instrument(skip(st, bot), fields(set_id = %path, bot = %bot.name))]
async fn accept_set(
    st: web::Data<AppState>,
    AuthBot(bot): AuthBot,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(st.arena.accept_set(&bot, &path).await?))
}

#[tracing::instrument(skip(st, bot), fields(set_id = %path, bot = %bot.name))]
async fn cancel_set(
    st: web::Data<AppState>,
    AuthBot(bot): AuthBot,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(st.arena.close_set(&bot, &path, false).await?))
}

#[tracing::instrument(skip(st, bot), fields(set_id = %path, bot = %bot.name))]
async fn decline_set(
    st: web::Data<AppState>,
    AuthBot(bot): AuthBot,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(st.arena.close_set(&bot, &path, true).await?))
}

#[tracing::instrument(skip_all, fields(bot = %bot.name))]
async fn create_practice(
    st: web::Data<AppState>,
    AuthBot(bot): AuthBot,
    JsonBody(body): JsonBody,
) -> ApiResult<HttpResponse> {
    only_fields(&body, &["opponent", "options", "clock"])?;
    let name = opt_str(&body, "opponent")?.unwrap_or(crate::arena::house::WEAKEST);
    let mut req = new_set(&st, &body, Some(name.to_string()))?;
    // Practice is always unstaked and unrated (SPEC section 9).
    req.stake = 0;
    req.rated = false;
    req.practice = true;
    let house = st.arena.house_bot(name).await?;
    // A house bot that this process's house does not play (an outside engine no longer
    // configured, issue 23) would never move.
    if st.arena.house.get().is_some() && !st.arena.is_house_bot(&house.id) {
        return Err(ApiError::not_found(format!(
            "house bot '{name}' is not running here (an outside engine no longer configured)"
        )));
    }
    // Held until the set is stored: the check and the creation are one step (issue 11).
    let admitted = st
        .arena
        .house_admit(req.initial_ms, req.increment_ms, req.options.size)
        .await?;
    st.limits.check_create_set(&bot.id)?;
    let set = st.arena.start_now(&bot, &house, req).await?;
    drop(admitted);
    Ok(HttpResponse::Created().json(set))
}

#[tracing::instrument(skip_all, fields(operator = true))]
async fn create_pairing(
    st: web::Data<AppState>,
    _op: AuthOperator,
    JsonBody(body): JsonBody,
) -> ApiResult<HttpResponse> {
    only_fields(&body, &["bots", "options", "clock", "stake", "rated"])?;
    // Every entry must be a string: a number or null is refused, not dropped.
    let names: Vec<&str> = body
        .get("bots")
        .and_then(Value::as_array)
        .and_then(|a| a.iter().map(Value::as_str).collect::<Option<Vec<&str>>>())
        .unwrap_or_default();
    let [a, b] = names.as_slice() else {
        return Err(ApiError::bad_request(
            "'bots' must be two bot names: [creator, acceptor]",
        ));
    };
    let req = new_set(&st, &body, Some((*b).to_string()))?;
    let creator = st.arena.bot(a).await?;
    let acceptor = st.arena.bot(b).await?;
    req.check_stake()?;
    let set = st.arena.start_now(&creator, &acceptor, req).await?;
    Ok(HttpResponse::Created().json(set))
}
