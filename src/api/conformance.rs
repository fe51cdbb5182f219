//! HTTP conformance at the edge (issue 10): `HEAD` wherever `GET` works, 405 with `Allow` for
//! an unknown method on a known path, and the JSON error envelope (SPEC section 10) on every
//! error response that passes through the app, actix's own included.
//!
//! What this cannot reach: requests that actix-http refuses before the app sees them
//! (an unparsable request line or header, a header that never finishes: 400 or 408 with an
//! empty body). Those are answered by the HTTP/1 dispatcher itself, which has no hook.

use std::sync::OnceLock;

use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{HttpRequest, HttpResponse};
use serde_json::json;

use crate::arena::error::Code;
use crate::error::ApiError;

/// Every documented route as (path template split in segments, methods), read once from the
/// embedded `openapi.yaml`, which `tests/openapi_routes.rs` keeps equal to the registered routes.
fn routes() -> &'static Vec<(Vec<String>, Vec<String>)> {
    static ROUTES: OnceLock<Vec<(Vec<String>, Vec<String>)>> = OnceLock::new();
    ROUTES.get_or_init(|| parse_paths(super::OPENAPI_YAML))
}

/// The `paths:` section of an OpenAPI document in its usual layout: a path at two spaces of
/// indentation, its operations (`get:`, `post:` ...) at four.
fn parse_paths(yaml: &str) -> Vec<(Vec<String>, Vec<String>)> {
    const METHODS: [&str; 7] = ["get", "put", "post", "delete", "options", "patch", "trace"];
    let mut out: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    let mut in_paths = false;
    for line in yaml.lines() {
        if !line.starts_with(' ') && !line.trim().is_empty() {
            in_paths = line.trim_end() == "paths:";
            continue;
        }
        if !in_paths {
            continue;
        }
        if let Some(rest) = line.strip_prefix("  /") {
            if let Some(path) = rest.trim_end().strip_suffix(':') {
                let segs = format!("/{path}")
                    .trim_matches('"')
                    .split('/')
                    .map(str::to_string)
                    .collect();
                out.push((segs, Vec::new()));
            }
        } else if let Some(rest) = line.strip_prefix("    ")
            && !rest.starts_with(' ')
            && let Some(m) = rest.trim_end().strip_suffix(':')
            && METHODS.contains(&m)
            && let Some(last) = out.last_mut()
        {
            last.1.push(m.to_ascii_uppercase());
        }
    }
    out
}

fn template_matches(template: &[String], path: &str) -> bool {
    let segs: Vec<&str> = path.split('/').collect();
    segs.len() == template.len()
        && template
            .iter()
            .zip(&segs)
            .all(|(t, s)| (t.starts_with('{') && t.ends_with('}') && !s.is_empty()) || t == s)
}

/// The methods the server answers on `path` (with `HEAD` next to `GET`), empty for an unknown
/// path.
pub fn allowed_methods(path: &str) -> Vec<String> {
    let mut methods: Vec<String> = Vec::new();
    for (template, ms) in routes() {
        if template_matches(template, path) {
            for m in ms {
                if !methods.contains(m) {
                    methods.push(m.clone());
                }
            }
        }
    }
    if methods.iter().any(|m| m == "GET") {
        methods.push("HEAD".into());
    }
    methods
}

/// The app's fallback: 405 `method_not_allowed` with `Allow` when the path exists under other
/// methods, else 404 `not_found`.
pub fn no_route(req: &HttpRequest) -> ApiError {
    let path = req.path();
    let shown: String = path.chars().take(200).collect();
    let allowed = allowed_methods(path);
    if !allowed.is_empty() && !allowed.iter().any(|m| m == req.method().as_str()) {
        return ApiError::new(
            Code::MethodNotAllowed,
            format!("{} is not allowed on {shown}", req.method()),
        )
        .with_details(json!({"allow": allowed}));
    }
    ApiError::not_found(format!("no route {} {shown}", req.method()))
}

/// The code of the envelope for an error status the handlers did not produce themselves. The
/// response keeps its status: another 4xx says `bad_request`, another 5xx `internal`.
fn code_for(status: StatusCode) -> Code {
    match status.as_u16() {
        400 => Code::BadRequest,
        401 => Code::Unauthorized,
        403 => Code::Forbidden,
        404 => Code::NotFound,
        405 => Code::MethodNotAllowed,
        406 => Code::NotAcceptable,
        408 => Code::RequestTimeout,
        411 => Code::LengthRequired,
        413 => Code::PayloadTooLarge,
        414 => Code::UriTooLong,
        415 => Code::UnsupportedMediaType,
        431 => Code::HeadersTooLarge,
        503 => Code::Unavailable,
        s if s >= 500 => Code::Internal,
        _ => Code::BadRequest,
    }
}

/// Middleware: serves `HEAD` as `GET` without a body; puts the JSON envelope on any error
/// response that lacks it (except the web pages' own HTML 404 pages, issue 21); adds `Allow`
/// to 405 answers.
pub async fn middleware(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    if holds_nul(req.uri()) {
        let err = ApiError::new(
            Code::BadRequest,
            "the request's path or query holds a NUL character (%00), which no id, name or \
             parameter may contain",
        );
        let res = HttpResponse::BadRequest().json(err.body());
        return Ok(req.into_response(res));
    }
    let head = req.method() == Method::HEAD;
    if head {
        req.head_mut().method = Method::GET;
    }
    let path = req.path().to_string();
    let res = next.call(req).await?.map_into_boxed_body();
    let status = res.status();
    let kind = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let is_json = kind.starts_with("application/json");
    let is_page = kind.starts_with("text/html") && status == StatusCode::NOT_FOUND;
    let mut res = if status.as_u16() >= 400 && !is_json && !is_page {
        let message = status
            .canonical_reason()
            .unwrap_or("error")
            .to_ascii_lowercase();
        let err = ApiError::new(code_for(status), message);
        let (req, old) = res.into_parts();
        let mut new = HttpResponse::build(status).json(err.body());
        for (k, v) in old.headers() {
            if k != header::CONTENT_TYPE && k != header::CONTENT_LENGTH {
                new.headers_mut().insert(k.clone(), v.clone());
            }
        }
        ServiceResponse::new(req, new)
    } else {
        res
    };
    if status == StatusCode::METHOD_NOT_ALLOWED {
        let allowed = allowed_methods(&path).join(", ");
        if let Ok(v) = HeaderValue::from_str(&allowed) {
            res.headers_mut().insert(header::ALLOW, v);
        }
    }
    if head && matches!(res.response().body().size(), BodySize::Stream) {
        // a stream (server-sent events) would keep a HEAD request open: answer its headers
        let (req, old) = res.into_parts();
        let new = old.set_body(BoxBody::new(()));
        res = ServiceResponse::new(req, new);
    }
    Ok(res)
}

/// Whether the request's path or query, percent-encoded as sent, encodes U+0000: no id, name
/// or parameter holds one, and PostgreSQL refuses it in any text it is asked to compare, so
/// it is refused here, the same on every backend. (A raw NUL byte never reaches the app: the
/// request line's parser refuses it.)
fn holds_nul(uri: &actix_web::http::Uri) -> bool {
    uri.path_and_query()
        .is_some_and(|pq| pq.as_str().contains("%00"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test as atest;
    use actix_web::{App, web};

    #[actix_web::test]
    async fn bare_error_responses_get_the_envelope_and_keep_their_headers() {
        let app = atest::init_service(
            App::new()
                .wrap(actix_web::middleware::from_fn(middleware))
                .route(
                    "/v1/games",
                    web::get().to(|| async {
                        HttpResponse::PayloadTooLarge()
                            .insert_header(("Retry-After", "3"))
                            .body("too big")
                    }),
                ),
        )
        .await;
        let res = atest::call_service(
            &app,
            atest::TestRequest::get().uri("/v1/games").to_request(),
        )
        .await;
        assert_eq!(res.status(), StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(
            res.headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok()),
            Some("3")
        );
        let body: serde_json::Value = atest::read_body_json(res).await;
        assert_eq!(body["error"]["code"], "payload_too_large");
        assert_eq!(body["error"]["message"], "payload too large");
        // HEAD is served by the GET route
        let req = atest::TestRequest::default()
            .method(Method::HEAD)
            .uri("/v1/games")
            .to_request();
        let res = atest::call_service(&app, req).await;
        assert_eq!(res.status(), StatusCode::PAYLOAD_TOO_LARGE);
    }

    #[test]
    fn the_embedded_document_gives_methods_per_path() {
        assert_eq!(allowed_methods("/healthz"), ["GET", "HEAD"]);
        assert_eq!(allowed_methods("/v1/sets/set_X/accept"), ["POST"]);
        let sets = allowed_methods("/v1/sets");
        assert!(sets.contains(&"GET".to_string()) && sets.contains(&"POST".to_string()));
        assert!(allowed_methods("/v1/nothing").is_empty());
        assert!(allowed_methods("/v1/sets//accept").is_empty());
    }
}
