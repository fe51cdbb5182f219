//! The matchmaking pool (issue 20): `POST /v1/pool` joins, `DELETE /v1/pool` leaves,
//! `GET /v1/pool` lists who waits. The pairing itself is `arena::pool`.

use actix_web::{HttpResponse, web};

use super::contract::integral;
use super::{AppState, AuthBot, JsonBody, only_fields, opt_bool, opt_i64};
use crate::arena::matchmaking::Ask;
use crate::arena::pool::JoinRequest;
use crate::error::ApiResult;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/v1/pool", web::post().to(join_pool))
        .route("/v1/pool", web::delete().to(leave_pool))
        .route("/v1/pool", web::get().to(list_pool));
}

/// `POST /v1/pool` (bot token): `{"stake": 0, "rated": true, "options": {...}, "clock":
/// {...}}`, every field optional (stake 0, rated true; options and clock absent = any that
/// both bots of a pairing accept). Options are checked with `options_schema`, the clock with
/// the contract's ranges. Answers 200 with the entry. Errors: 400, 401, 403 `suspended`,
/// 409 `bot_retired` / `insufficient_balance`, 422 `not_accepted`.
#[tracing::instrument(skip_all, fields(bot = %bot.name))]
async fn join_pool(
    st: web::Data<AppState>,
    AuthBot(bot): AuthBot,
    JsonBody(body): JsonBody,
) -> ApiResult<HttpResponse> {
    only_fields(&body, &["stake", "rated", "options", "clock"])?;
    let options = body.get("options").filter(|v| !v.is_null());
    // Validated as a set's options are; only the fields given are kept.
    st.schemas.parse_options(options)?;
    let given = |name: &str| options.and_then(|o| o.get(name)).and_then(integral);
    let clock = super::clock_request(&body)?;
    clock.resolve()?;
    let (initial_s, increment_s) = (clock.initial_s, clock.increment_s);
    let stake = opt_i64(&body, "stake")?.unwrap_or(0);
    let rated = opt_bool(&body, "rated")?.unwrap_or(true);
    let req = JoinRequest {
        stake,
        rated,
        ask: Ask {
            size: given("size"),
            random_stones: given("random_stones"),
            initial_s,
            increment_s,
        },
    };
    Ok(HttpResponse::Ok().json(st.arena.pool_join(&bot, req).await?))
}

/// `DELETE /v1/pool` (bot token): leaves the pool; 204, also when it was not in it.
#[tracing::instrument(skip_all, fields(bot = %bot.name))]
async fn leave_pool(st: web::Data<AppState>, AuthBot(bot): AuthBot) -> ApiResult<HttpResponse> {
    st.arena.pool_leave(&bot).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// `GET /v1/pool` (public): who waits, and the pool's rules.
#[tracing::instrument(skip_all)]
async fn list_pool(st: web::Data<AppState>) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(st.arena.pool_list().await?))
}
