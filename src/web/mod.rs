//! The viewers' pages (SPEC section 9b): static HTML that reads the JSON API in the browser.

use actix_web::{HttpResponse, web};

const INDEX_HTML: &str = include_str!("index.html");
const SET_HTML: &str = include_str!("set.html");
/// The API description, served as it is in the repository.
/// The API description served at `/openapi.yaml` (also the source of `Allow` headers).
pub(crate) const OPENAPI_YAML: &str = include_str!("../../openapi.yaml");

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/openapi.yaml", web::get().to(openapi))
        .route("/", web::get().to(index))
        .route("/sets/{id}", web::get().to(set_page));
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
