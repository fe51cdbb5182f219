//! The viewers' pages (SPEC section 9b): static HTML that reads the JSON API in the browser.

use actix_web::{HttpResponse, web};

const INDEX_HTML: &str = include_str!("index.html");
const SET_HTML: &str = include_str!("set.html");
const BOT_HTML: &str = include_str!("bot.html");
const TOURNAMENTS_HTML: &str = include_str!("tournaments.html");
const TOURNAMENT_HTML: &str = include_str!("tournament.html");
const FAVICON_SVG: &str = include_str!("favicon.svg");
const SITE_CSS: &str = include_str!("site.css");
const SITE_JS: &str = include_str!("site.js");
/// The API description, served as it is in the repository.
/// The API description served at `/openapi.yaml` (also the source of `Allow` headers).
pub(crate) const OPENAPI_YAML: &str = include_str!("../../openapi.yaml");

/// Registers the pages (issue 14 added bots, tournaments and the favicon).
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/openapi.yaml", web::get().to(openapi))
        .route("/", web::get().to(index))
        .route("/sets/{id}", web::get().to(set_page))
        .route("/bots/{name}", web::get().to(|| async { html(BOT_HTML) }))
        .route(
            "/tournaments",
            web::get().to(|| async { html(TOURNAMENTS_HTML) }),
        )
        .route(
            "/tournaments/{id}",
            web::get().to(|| async { html(TOURNAMENT_HTML) }),
        )
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

async fn index() -> HttpResponse {
    html(INDEX_HTML)
}

async fn openapi() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/yaml; charset=utf-8")
        .body(OPENAPI_YAML)
}

async fn set_page() -> HttpResponse {
    html(SET_HTML)
}

fn html(body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(body)
}
