//! `GET /metrics` (SPEC section 14, "Operations") and the middleware that counts every HTTP
//! request by route pattern, method and status into the arena's [`Metrics`](crate::metrics::Metrics).

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{ACCEPT, CONTENT_TYPE};
use actix_web::middleware::Next;
use actix_web::{HttpRequest, HttpResponse, web};

use super::AppState;
use crate::error::{ApiError, ApiResult};

/// Content type of the Prometheus text format (version 0.0.4), the default answer.
pub const PROMETHEUS_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";
/// Content type of OpenMetrics text, sent when the scraper asks for it in `Accept`.
pub const OPENMETRICS_TEXT: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The longest a scrape waits for the database's size.
const DATABASE_SIZE_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/metrics", web::get().to(get_metrics));
}

/// The exposition of every metric, resident memory and the database's size read now. Public,
/// like `/healthz`.
async fn get_metrics(st: web::Data<AppState>, req: HttpRequest) -> ApiResult<HttpResponse> {
    let m = &st.arena.metrics;
    m.set_active_games(st.arena.live.stats().0);
    if let Some(h) = st.arena.house.get() {
        let load = h.in_play(&st.arena);
        m.set_house(&h.pool.stats(), load.games, load.units, load.limit);
    }
    // Bounded: during a storage outage `/metrics` must still answer (the gauge keeps its last
    // value).
    let size = tokio::time::timeout(DATABASE_SIZE_WAIT, st.arena.store.database_bytes()).await;
    match size {
        Ok(Ok(bytes)) => m.set_database_bytes(bytes),
        Ok(Err(e)) => tracing::debug!(error = %e, "database size not read"),
        Err(_) => tracing::debug!("database size not read in time"),
    }
    let text = m.encode().map_err(ApiError::internal)?;
    let openmetrics = req
        .headers()
        .get(ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("application/openmetrics-text"));
    let content_type = if openmetrics {
        OPENMETRICS_TEXT
    } else {
        PROMETHEUS_TEXT
    };
    Ok(HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, content_type))
        .body(text))
}

/// Middleware (`middleware::from_fn(track)`): counts each answered request under its route
/// pattern (`req.match_pattern()`, never the raw path, so unknown paths cannot grow the label
/// set), its method and its status; errors count with the status they turn into.
pub async fn track(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let metrics = req
        .app_data::<web::Data<AppState>>()
        .map(|st| st.arena.metrics.clone());
    let method = req.method().clone();
    let res = next.call(req).await;
    if let Some(m) = metrics {
        let (route, status) = match &res {
            Ok(r) => (r.request().match_pattern(), r.status()),
            Err(e) => (None, e.as_response_error().status_code()),
        };
        m.http_request(route.as_deref(), method.as_str(), status.as_u16());
    }
    res
}
