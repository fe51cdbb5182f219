//! Tournaments (issue 12, SPEC 14): the operator creates and controls them; anyone reads them.

use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{AppState, AuthOperator, JsonBody, only_fields, opt_bool, opt_i64, opt_str};
use crate::arena::tournaments::{
    DEFAULT_FORFEIT_AFTER_S, DEFAULT_MAX_CONCURRENT, FORMATS, InPlay, MAX_PARTICIPANTS,
    NewTournament,
};
use crate::error::{ApiError, ApiResult};

/// Registers the tournament routes (public reads, operator writes).
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/v1/tournaments", web::post().to(create_tournament))
        .route("/v1/tournaments", web::get().to(list_tournaments))
        .route("/v1/tournaments/{id}", web::get().to(get_tournament))
        .route("/v1/tournaments/{id}", web::patch().to(patch_tournament))
        .route("/v1/tournaments/{id}", web::delete().to(delete_tournament))
        .route(
            "/v1/tournaments/{id}/participants",
            web::post().to(add_participant),
        )
        .route(
            "/v1/tournaments/{id}/participants/{bot}",
            web::delete().to(remove_participant),
        )
        .route("/v1/tournaments/{id}/withdraw", web::post().to(withdraw))
        .route(
            "/v1/tournaments/{id}/standings.csv",
            web::get().to(standings_csv),
        )
        .route(
            "/v1/tournaments/{id}/crosstable.csv",
            web::get().to(crosstable_csv),
        )
        .route("/v1/tournaments/{id}/games.sgf", web::get().to(games_sgf))
        .route("/v1/tournaments/{id}/start", web::post().to(start))
        .route("/v1/tournaments/{id}/pause", web::post().to(pause))
        .route("/v1/tournaments/{id}/resume", web::post().to(resume))
        .route("/v1/tournaments/{id}/cancel", web::post().to(cancel));
}

fn bad(field: &str, msg: impl Into<String>) -> ApiError {
    ApiError::bad_request(msg).with_details(json!({"field": field}))
}

/// An optional integer field within `min..=max`. Errors: 400 naming the field and range.
fn ranged(body: &Value, field: &str, default: i64, min: i64, max: i64) -> ApiResult<i64> {
    let v = opt_i64(body, field)?.unwrap_or(default);
    if (min..=max).contains(&v) {
        Ok(v)
    } else {
        Err(bad(field, format!("'{field}' must be {min} to {max}"))
            .with_details(json!({"field": field, "min": min, "max": max, "value": v})))
    }
}

/// The fields of a `POST /v1/tournaments` body.
const FIELDS: [&str; 13] = [
    "name",
    "format",
    "cycles",
    "rounds",
    "participants",
    "options",
    "clock",
    "stake",
    "rated",
    "max_concurrent",
    "absent",
    "forfeit_after_s",
    "start_at",
];

/// The fields a `PATCH /v1/tournaments/{id}` body may hold: all but `format` and
/// `participants`.
const PATCH_FIELDS: [&str; 11] = [
    "name",
    "cycles",
    "rounds",
    "options",
    "clock",
    "stake",
    "rated",
    "max_concurrent",
    "absent",
    "forfeit_after_s",
    "start_at",
];

/// Parses and validates a `POST /v1/tournaments` body.
fn parse(st: &AppState, body: &Value) -> ApiResult<NewTournament> {
    only_fields(body, &FIELDS)?;
    let name = opt_str(body, "name")?
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| bad("name", "'name' is required (1 to 80 characters)"))?
        .to_string();
    let chars = name.chars().count();
    if chars > 80 {
        return Err(bad(
            "name",
            format!("'name' is too long: {chars} characters, at most 80"),
        ));
    }
    crate::arena::accounts::check_shown_text("name", &name)?;
    let format = opt_str(body, "format")?
        .filter(|f| FORMATS.contains(f))
        .ok_or_else(|| bad("format", format!("'format' must be one of {FORMATS:?}")))?
        .to_string();
    let participants: Vec<String> = match body.get("participants") {
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| bad("participants", "'participants' must be bot names or ids"))?,
        _ => {
            return Err(bad(
                "participants",
                format!("'participants' must list 2 to {MAX_PARTICIPANTS} bot names or ids"),
            ));
        }
    };
    if format == "swiss" && body.get("cycles").is_some_and(|v| !v.is_null()) {
        return Err(bad(
            "cycles",
            "'cycles' applies to a round robin or a gauntlet; a swiss has 'rounds'",
        ));
    }
    let cycles = ranged(body, "cycles", 1, 1, 2)?;
    let rounds = opt_i64(body, "rounds")?;
    if format != "swiss" && rounds.is_some() {
        return Err(bad(
            "rounds",
            "'rounds' applies to a swiss only; use 'cycles'",
        ));
    }
    let set = super::sets::new_set(st, body, None)?;
    let stake = opt_i64(body, "stake")?.unwrap_or(0);
    let rated = opt_bool(body, "rated")?.unwrap_or(stake > 0);
    let max_concurrent = ranged(body, "max_concurrent", DEFAULT_MAX_CONCURRENT, 1, 64)?;
    let absent = opt_str(body, "absent")?.unwrap_or("wait");
    if !["wait", "forfeit", "skip"].contains(&absent) {
        return Err(bad(
            "absent",
            "'absent' must be \"wait\", \"forfeit\" or \"skip\"",
        ));
    }
    if absent == "skip" && format == "round_robin" {
        return Err(bad(
            "absent",
            "a round robin cannot skip absent bots: use \"wait\" or \"forfeit\"",
        ));
    }
    let forfeit_after_s = ranged(body, "forfeit_after_s", DEFAULT_FORFEIT_AFTER_S, 0, 86_400)?;
    let start_ms = match opt_str(body, "start_at")? {
        None => None,
        Some(s) => Some(
            chrono::DateTime::parse_from_rfc3339(s)
                .map_err(|e| bad("start_at", format!("'start_at' is not RFC 3339: {e}")))?
                .timestamp_millis(),
        ),
    };
    Ok(NewTournament {
        name,
        format,
        cycles,
        rounds,
        participants,
        options: set.options,
        initial_ms: set.initial_ms,
        increment_ms: set.increment_ms,
        stake,
        rated,
        max_concurrent,
        absent: absent.to_string(),
        forfeit_after_ms: forfeit_after_s * 1000,
        start_ms,
    })
}

#[tracing::instrument(skip_all, fields(operator = true))]
async fn create_tournament(
    st: web::Data<AppState>,
    _op: AuthOperator,
    JsonBody(body): JsonBody,
) -> ApiResult<HttpResponse> {
    let req = parse(&st, &body)?;
    Ok(HttpResponse::Created().json(st.arena.create_tournament(req).await?))
}

#[derive(Deserialize)]
struct ListQuery {
    status: Option<String>,
    #[serde(default, deserialize_with = "super::query_int::i64")]
    limit: Option<i64>,
    before: Option<String>,
}

/// `GET /v1/tournaments?status=&limit=&before=`: a page, newest first, paged as `/v1/sets`
/// is (`before` = the previous page's `next_before`). Errors: 400 naming the parameter.
async fn list_tournaments(
    st: web::Data<AppState>,
    q: web::Query<ListQuery>,
) -> ApiResult<HttpResponse> {
    const STATUSES: [&str; 5] = ["created", "running", "paused", "finished", "cancelled"];
    if let Some(s) = q.status.as_deref().filter(|s| !STATUSES.contains(s)) {
        return Err(bad(
            "status",
            format!("status '{s}' is not one of {STATUSES:?}"),
        ));
    }
    let limit = super::page_limit(q.limit, 20, 100)?;
    if let Some(b) = q.before.as_deref().filter(|b| !b.starts_with("tour_")) {
        return Err(bad(
            "before",
            format!("before must be a tournament id (tour_...), not '{b}'"),
        ));
    }
    let v = st
        .arena
        .list_tournaments(q.status.as_deref(), q.before.as_deref(), limit)
        .await?;
    Ok(HttpResponse::Ok().json(v))
}

#[tracing::instrument(skip(st), fields(tournament = %path))]
async fn get_tournament(
    st: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(st.arena.tournament(&path).await?))
}

fn csv(body: String, file: String) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            "Content-Disposition",
            format!("attachment; filename=\"{file}\""),
        ))
        .body(body)
}

async fn standings_csv(
    st: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let body = st.arena.tournament_csv(&path, "standings").await?;
    Ok(csv(body, format!("{path}-standings.csv")))
}

async fn crosstable_csv(
    st: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let body = st.arena.tournament_csv(&path, "crosstable").await?;
    Ok(csv(body, format!("{path}-crosstable.csv")))
}

/// `GET /v1/tournaments/{id}/games.sgf`: every game played so far as one SGF collection.
async fn games_sgf(st: web::Data<AppState>, path: web::Path<String>) -> ApiResult<HttpResponse> {
    let body = st.arena.tournament_sgf(&path).await?;
    Ok(HttpResponse::Ok()
        .content_type("application/x-hex-sgf; charset=utf-8")
        .insert_header((
            "Content-Disposition",
            format!("attachment; filename=\"{path}.sgf\""),
        ))
        .body(body))
}

/// `POST /v1/tournaments/{id}/start` (operator): created -> running.
async fn start(
    st: web::Data<AppState>,
    _op: AuthOperator,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(st.arena.tournament_action(&path, "start").await?))
}

/// `POST /v1/tournaments/{id}/pause` (operator): running -> paused (sets playing finish; no
/// new set starts and no round is paired).
async fn pause(
    st: web::Data<AppState>,
    _op: AuthOperator,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(st.arena.tournament_action(&path, "pause").await?))
}

/// `POST /v1/tournaments/{id}/resume` (operator): paused -> running.
async fn resume(
    st: web::Data<AppState>,
    _op: AuthOperator,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(st.arena.tournament_action(&path, "resume").await?))
}

/// `POST /v1/tournaments/{id}/cancel` (operator): ends the tournament; pending pairings are
/// cancelled, sets already playing play on and their pairings record the result when they end.
async fn cancel(
    st: web::Data<AppState>,
    _op: AuthOperator,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(st.arena.tournament_action(&path, "cancel").await?))
}

/// `PATCH /v1/tournaments/{id}` (operator; issue 18): changes the settings of a tournament that
/// has not started. The body is a JSON merge patch (RFC 7396) of the creation body: the fields
/// given replace the tournament's, `null` puts a field back to its default (`start_at: null`
/// drops the scheduled start), nested `options` and `clock` merge field by field. The result
/// is validated as a creation body is. `format` and `participants` cannot be patched (400;
/// participants have their own routes). Errors: 400; 403 `same_owner`; 404; 409
/// `tournament_state` once it started.
#[tracing::instrument(skip(st, _op, body), fields(tournament = %path))]
async fn patch_tournament(
    st: web::Data<AppState>,
    _op: AuthOperator,
    path: web::Path<String>,
    JsonBody(body): JsonBody,
) -> ApiResult<HttpResponse> {
    for fixed in ["format", "participants"] {
        if body.get(fixed).is_some() {
            return Err(bad(
                fixed,
                format!(
                    "'{fixed}' cannot be changed; participants are added and removed under \
                     /v1/tournaments/{{id}}/participants"
                ),
            ));
        }
    }
    only_fields(&body, &PATCH_FIELDS)?;
    let mut merged = st.arena.tournament_request(&path).await?;
    // A stake given without `rated` brings the rating choice a stake implies, as at creation
    // (an unstaked tournament's stored `rated: false` would refuse any stake otherwise).
    if body.get("stake").is_some()
        && body.get("rated").is_none()
        && let Some(m) = merged.as_object_mut()
    {
        m.remove("rated");
    }
    merge_patch(&mut merged, &body);
    // `participants` stays `[]` in the merged body: the tournament's own are kept.
    let req = parse(&st, &merged)?;
    Ok(HttpResponse::Ok().json(st.arena.update_tournament(&path, req).await?))
}

/// RFC 7396: `patch`'s members replace `target`'s, `null` removes one, objects merge.
fn merge_patch(target: &mut Value, patch: &Value) {
    let (Some(t), Some(p)) = (target.as_object_mut(), patch.as_object()) else {
        *target = patch.clone();
        return;
    };
    for (k, v) in p {
        match v {
            Value::Null => {
                t.remove(k);
            }
            Value::Object(_) if t.get(k).is_some_and(Value::is_object) => {
                if let Some(slot) = t.get_mut(k) {
                    merge_patch(slot, v);
                }
            }
            _ => {
                t.insert(k.clone(), v.clone());
            }
        }
    }
}

/// `DELETE /v1/tournaments/{id}` (operator; issue 18): deletes a tournament that never started
/// (204); 404 afterwards. Errors: 404; 409 `tournament_state` once it started.
#[tracing::instrument(skip(st, _op), fields(tournament = %path))]
async fn delete_tournament(
    st: web::Data<AppState>,
    _op: AuthOperator,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    st.arena.delete_tournament(&path).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// `POST /v1/tournaments/{id}/participants` (operator; issue 18) `{"bot": NAME_OR_ID, "seed":
/// K}` (`seed` 1-based, optional: the last by default) adds a participant before the start ->
/// 201 with the tournament. Errors: 400; 403 `same_owner`; 404 unknown tournament or bot; 409
/// `tournament_state`, `already_participant`, `tournament_full`.
#[tracing::instrument(skip(st, _op, body), fields(tournament = %path))]
async fn add_participant(
    st: web::Data<AppState>,
    _op: AuthOperator,
    path: web::Path<String>,
    JsonBody(body): JsonBody,
) -> ApiResult<HttpResponse> {
    only_fields(&body, &["bot", "seed"])?;
    let bot =
        opt_str(&body, "bot")?.ok_or_else(|| bad("bot", "'bot' is required (a bot name or id)"))?;
    let seed = opt_i64(&body, "seed")?;
    Ok(HttpResponse::Created().json(st.arena.add_participant(&path, bot, seed).await?))
}

/// `DELETE /v1/tournaments/{id}/participants/{bot}` (operator; issue 18): removes a participant
/// before the start -> 200 with the tournament. Errors: 404 unknown tournament or bot; 409
/// `tournament_state`, `not_participant`, `too_few_participants`.
#[tracing::instrument(skip(st, _op), fields(tournament = %path.0, bot = %path.1))]
async fn remove_participant(
    st: web::Data<AppState>,
    _op: AuthOperator,
    path: web::Path<(String, String)>,
) -> ApiResult<HttpResponse> {
    let (id, bot) = path.into_inner();
    Ok(HttpResponse::Ok().json(st.arena.remove_participant(&id, &bot).await?))
}

/// `POST /v1/tournaments/{id}/withdraw` (operator; issue 18) `{"bot": NAME_OR_ID, "in_play":
/// "finish" | "forfeit"}` (`in_play` defaults to `finish`) -> 200 with the tournament.
/// Errors: 400; 404 unknown tournament or bot; 409 `tournament_state` (not running or paused),
/// `not_participant`, `already_withdrawn`.
#[tracing::instrument(skip(st, _op, body), fields(tournament = %path))]
async fn withdraw(
    st: web::Data<AppState>,
    _op: AuthOperator,
    path: web::Path<String>,
    JsonBody(body): JsonBody,
) -> ApiResult<HttpResponse> {
    only_fields(&body, &["bot", "in_play"])?;
    let bot =
        opt_str(&body, "bot")?.ok_or_else(|| bad("bot", "'bot' is required (a bot name or id)"))?;
    let in_play = match opt_str(&body, "in_play")? {
        None | Some("finish") => InPlay::Finish,
        Some("forfeit") => InPlay::Forfeit,
        Some(_) => {
            return Err(bad(
                "in_play",
                "'in_play' must be \"finish\" or \"forfeit\"",
            ));
        }
    };
    Ok(HttpResponse::Ok().json(st.arena.withdraw(&path, bot, in_play).await?))
}
