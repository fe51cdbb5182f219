//! Matches (issue 12, SPEC 14): a player runs N sets or an SPRT between two of its own bots.

use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{AppState, AuthPlayer, JsonBody, only_fields, opt_i64};
use crate::arena::matches::{NewMatch, Sprt};
use crate::error::{ApiError, ApiResult};

/// Registers the match routes.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/v1/matches", web::post().to(create_match))
        .route("/v1/matches", web::get().to(list_matches))
        .route("/v1/matches/{id}", web::get().to(get_match))
        .route("/v1/matches/{id}/accept", web::post().to(accept_match))
        .route("/v1/matches/{id}/cancel", web::post().to(cancel_match));
}

fn bad(field: &str, msg: impl Into<String>) -> ApiError {
    ApiError::bad_request(msg).with_details(json!({"field": field}))
}

fn number(v: &Value, field: &str) -> ApiResult<f64> {
    v.get(field).and_then(Value::as_f64).ok_or_else(|| {
        bad(
            &format!("sprt.{field}"),
            format!("'sprt.{field}' must be a number"),
        )
    })
}

/// Parses a `POST /v1/matches` body: `bots` (two names or ids), `sets`, `sprt`
/// (`elo0`, `elo1`, `alpha`, `beta`), `options`, `clock`, `concurrency` (1..=16, default 1).
fn parse(st: &AppState, body: &Value) -> ApiResult<NewMatch> {
    only_fields(
        body,
        &["bots", "sets", "sprt", "options", "clock", "concurrency"],
    )?;
    // Every entry must be a string: a number or null among them is refused, not dropped.
    let bots: Vec<String> = body
        .get("bots")
        .and_then(Value::as_array)
        .and_then(|a| {
            a.iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
        })
        .unwrap_or_default();
    let [a, b] = bots.as_slice() else {
        return Err(bad("bots", "'bots' must be two bot names or ids"));
    };
    let sprt = match body.get("sprt") {
        None | Some(Value::Null) => None,
        Some(v) => {
            super::only_fields_at(v, "sprt", &["elo0", "elo1", "alpha", "beta"])?;
            Some(Sprt {
                elo0: number(v, "elo0")?,
                elo1: number(v, "elo1")?,
                alpha: v.get("alpha").map_or(Ok(0.05), |_| number(v, "alpha"))?,
                beta: v.get("beta").map_or(Ok(0.05), |_| number(v, "beta"))?,
            })
        }
    };
    let concurrency = opt_i64(body, "concurrency")?.unwrap_or(1);
    if !(1..=16).contains(&concurrency) {
        return Err(bad("concurrency", "'concurrency' must be 1 to 16"));
    }
    let set = super::sets::new_set(st, body, None)?;
    Ok(NewMatch {
        bots: [a.clone(), b.clone()],
        sets: opt_i64(body, "sets")?,
        sprt,
        options: set.options,
        initial_ms: set.initial_ms,
        increment_ms: set.increment_ms,
        concurrency,
    })
}

#[tracing::instrument(skip_all, fields(player = %p.id))]
async fn create_match(
    st: web::Data<AppState>,
    AuthPlayer(p): AuthPlayer,
    JsonBody(body): JsonBody,
) -> ApiResult<HttpResponse> {
    let req = parse(&st, &body)?;
    Ok(HttpResponse::Created().json(st.arena.create_match(&p, req).await?))
}

#[derive(Deserialize)]
struct ListQuery {
    #[serde(default, deserialize_with = "super::query_int::i64")]
    limit: Option<i64>,
}

async fn list_matches(
    st: web::Data<AppState>,
    q: web::Query<ListQuery>,
) -> ApiResult<HttpResponse> {
    let limit = super::page_limit(q.limit, 20, 100)?;
    Ok(HttpResponse::Ok().json(st.arena.list_matches(limit).await?))
}

async fn get_match(st: web::Data<AppState>, path: web::Path<String>) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(st.arena.match_view(&path).await?))
}

/// `POST /v1/matches/{id}/accept` (player token): the owner of the second bot agrees.
#[tracing::instrument(skip_all, fields(player = %p.id))]
async fn accept_match(
    st: web::Data<AppState>,
    AuthPlayer(p): AuthPlayer,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(st.arena.accept_match(&p, &path).await?))
}

#[tracing::instrument(skip_all, fields(player = %p.id))]
async fn cancel_match(
    st: web::Data<AppState>,
    AuthPlayer(p): AuthPlayer,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(st.arena.cancel_match(&p, &path).await?))
}
