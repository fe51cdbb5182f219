//! The viewers' pages (SPEC section 9b): rendered on the server with their content from the
//! same values the JSON API answers (issue 21); their script adds live updates and the replay.

use actix_web::{HttpResponse, web};
use serde_json::Value;

use crate::api::{AppState, OPENAPI_YAML};
use crate::arena::status::SetStatus;
use crate::error::ApiError;

mod html;
pub mod pages;
pub mod standings;

const INDEX_HTML: &str = include_str!("index.html");
const SET_HTML: &str = include_str!("set.html");
const BOT_HTML: &str = include_str!("bot.html");
const TOURNAMENTS_HTML: &str = include_str!("tournaments.html");
const TOURNAMENT_HTML: &str = include_str!("tournament.html");
const MATCH_HTML: &str = include_str!("match.html");
const FAVICON_SVG: &str = include_str!("favicon.svg");
const SITE_CSS: &str = include_str!("site.css");
const SITE_JS: &str = include_str!("site.js");

/// Registers the pages (issue 14 added bots, tournaments and the favicon; matches came later).
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/openapi.yaml", web::get().to(openapi))
        .route("/", web::get().to(index))
        .route("/sets/{id}", web::get().to(set_page))
        .route("/bots/{name}", web::get().to(bot_page))
        .route("/tournaments", web::get().to(tournaments_page))
        .route("/tournaments/{id}", web::get().to(tournament_page))
        .route("/tournaments/{id}/standings", web::get().to(standings_page))
        .route("/matches/{id}", web::get().to(match_page))
        .route("/assets/{file}", web::get().to(asset))
        .route("/favicon.svg", web::get().to(favicon))
        .route("/favicon.ico", web::get().to(favicon));
}

/// The pages' shared stylesheet and script; anything else under `/assets/` is a JSON 404.
async fn asset(file: web::Path<String>) -> Result<HttpResponse, crate::error::ApiError> {
    let (body, kind) = match file.as_str() {
        "site.css" => (SITE_CSS, "text/css; charset=utf-8"),
        "site.js" => (SITE_JS, "text/javascript; charset=utf-8"),
        other => {
            return Err(crate::error::ApiError::not_found(format!(
                "no asset '{other}'"
            )));
        }
    };
    Ok(HttpResponse::Ok()
        .content_type(kind)
        .insert_header(("cache-control", "no-cache"))
        .body(body))
}

/// The arena's icon (an SVG hexagon), also answered at `/favicon.ico` for browsers that ask.
async fn favicon() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("image/svg+xml")
        .insert_header(("cache-control", "public, max-age=86400"))
        .body(FAVICON_SVG)
}

/// `/`: the leaderboard (top 20), the lobby, the active and the recently finished sets.
async fn index(st: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let leaders = st
        .arena
        .leaderboard_rows(crate::arena::profiles::Provisional::All, 20, 0)
        .await?;
    let open = st.arena.list_sets(Some("open"), None, None, 50).await?;
    let active = st.arena.list_sets(Some("active"), None, None, 20).await?;
    let finished = st.arena.list_sets(Some("finished"), None, None, 20).await?;
    Ok(page(pages::home(
        INDEX_HTML, &leaders, &open, &active, &finished,
    )))
}

async fn openapi() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/yaml; charset=utf-8")
        .body(OPENAPI_YAML)
}

/// `/tournaments/{id}/standings`: the printable standings, rendered here (issue 18). Errors:
/// 404 page for an unknown tournament.
async fn standings_page(
    st: web::Data<crate::api::AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, crate::error::ApiError> {
    let t = match st.arena.tournament(&id).await.map_err(ApiError::from) {
        Ok(t) => t,
        Err(e) if missing(&e) => return Ok(not_found(&format!("No tournament '{id}'."))),
        Err(e) => return Err(e),
    };
    let now = super::arena::views::rfc3339(st.arena.now_ms());
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header(("cache-control", "no-cache"))
        .body(standings::render(&t, &now)))
}

/// Whether `e` says that the thing asked for does not exist.
fn missing(e: &ApiError) -> bool {
    e.code == crate::arena::error::Code::NotFound
}

/// The HTML 404 page for `what`.
fn not_found(what: &str) -> HttpResponse {
    HttpResponse::NotFound()
        .content_type("text/html; charset=utf-8")
        .insert_header(("cache-control", "no-cache"))
        .body(pages::not_found(what))
}

/// `/sets/{id}`: the set and both games' latest positions. Errors: 404 page for an unknown set.
async fn set_page(
    st: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let set = match st.arena.get_set(&id).await.map_err(ApiError::from) {
        Ok(s) => s,
        Err(e) if missing(&e) => return Ok(not_found(&format!("No set '{id}'."))),
        Err(e) => return Err(e),
    };
    let mut games = vec![];
    let status = set["status"].as_str().unwrap_or_default();
    if SetStatus::is_in(status, &[SetStatus::Active, SetStatus::Finished]) {
        let now = st.arena.clock_view_ms();
        for n in [1, 2] {
            let body = st.arena.game_snapshot(&id, n).await?.body_at(now);
            let state: Value = serde_json::from_str(&body)
                .map_err(|e| ApiError::internal(format!("game state: {e}")))?;
            games.push((n, state));
        }
    }
    Ok(page(pages::set_page(SET_HTML, &set, &games)))
}

/// `/bots/{name}`: the bot's record, rating chart, head to head and recent sets. Errors: 404
/// page for an unknown bot.
async fn bot_page(
    st: web::Data<AppState>,
    name: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let Some(b) = st.arena.find_bot(&name).await? else {
        return Ok(not_found(&format!("No bot '{name}'.")));
    };
    let profile = st.arena.bot_profile(&b).await?;
    let ratings = st.arena.rating_history(&b).await?;
    let versus = st.arena.opponents(&b, 5).await?;
    let sets = st.arena.list_sets(None, Some(&b.name), None, 20).await?;
    Ok(page(pages::bot_page(
        BOT_HTML, &profile, &ratings, &sets, &versus,
    )))
}

/// Tournaments on one page of `/tournaments`.
const TOURNAMENTS_PAGE: i64 = 100;

/// `/tournaments?before=`: the tournaments, newest first, a page at a time; `before` is the
/// last tournament of the newer page (as `GET /v1/tournaments` pages). Errors: 404 page when
/// `before` is not a tournament id.
async fn tournaments_page(
    st: web::Data<AppState>,
    q: web::Query<std::collections::HashMap<String, String>>,
) -> Result<HttpResponse, ApiError> {
    let before = q.get("before").map(String::as_str);
    if let Some(b) = before
        && !(b.starts_with("tour_") && b.len() <= 64)
    {
        return Ok(not_found(&format!("No tournament '{b}'.")));
    }
    let all = st
        .arena
        .list_tournaments(None, before, TOURNAMENTS_PAGE)
        .await?;
    Ok(page(pages::tournaments_page(
        TOURNAMENTS_HTML,
        &all,
        before,
    )))
}

/// `/tournaments/{id}`: standings, crosstable and rounds. Errors: 404 page for an unknown one.
async fn tournament_page(
    st: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    match st.arena.tournament(&id).await.map_err(ApiError::from) {
        Ok(t) => Ok(page(pages::tournament_page(TOURNAMENT_HTML, &t))),
        Err(e) if missing(&e) => Ok(not_found(&format!("No tournament '{id}'."))),
        Err(e) => Err(e),
    }
}

/// `/matches/{id}`: a match's bots, W/D/L, Elo difference, SPRT and sets, each finished set
/// with its result. Errors: 404 page for an unknown match.
async fn match_page(
    st: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    match st.arena.match_view(&id).await.map_err(ApiError::from) {
        Ok(m) => Ok(page(pages::match_page(MATCH_HTML, &m))),
        Err(e) if missing(&e) => Ok(not_found(&format!("No match '{id}'."))),
        Err(e) => Err(e),
    }
}

/// A rendered page; never cached, since it shows the arena as it is now.
fn page(body: String) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header(("cache-control", "no-cache"))
        .body(body)
}
