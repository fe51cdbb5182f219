//! The span of one HTTP request, the frame of every log line written while it is handled.

use actix_web::Error;
use actix_web::HttpMessage;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use tracing::Span;
use tracing_actix_web::{RequestId, RootSpanBuilder};

/// Opens each request's span with its method, path and request id, and records the status it
/// was answered with. The default builder of `tracing-actix-web` also looks the route up a
/// second time, reads the client's address and user agent and fills a dozen OpenTelemetry
/// fields, all formatted by the log subscriber on every request: a tenth of the HTTP workers'
/// CPU in the profile of issue 22, for fields no log line here needs.
pub struct RequestSpan;

impl RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        let id = request.extensions().get::<RequestId>().copied();
        tracing::info_span!(
            "request",
            method = %request.method(),
            path = request.path(),
            request_id = id.map(tracing::field::display),
            status = tracing::field::Empty,
        )
    }

    /// Records the status, and logs an error answer: a client's (4xx: a stale ply, a 404, a
    /// refused request) at DEBUG, since bots make them all day and they are the client's to
    /// fix; a server's (5xx) at ERROR.
    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, Error>) {
        let (status, error) = match outcome {
            Ok(response) => (response.status(), response.response().error()),
            Err(e) => (e.as_response_error().status_code(), Some(e)),
        };
        span.record("status", status.as_u16());
        if let Some(e) = error {
            let e = e.as_response_error();
            if status.is_server_error() {
                tracing::error!("request answered with an error: {e:?}");
            } else {
                tracing::debug!("request refused: {e:?}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use actix_web::{App, HttpResponse, test as atest, web};
    use tracing_actix_web::TracingLogger;

    use super::*;

    /// A log sink the test reads back.
    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Lines {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            if let Ok(mut v) = self.0.lock() {
                v.extend_from_slice(b);
            }
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[actix_web::test]
    async fn a_log_line_written_in_a_handler_names_its_request() {
        let lines = Lines::default();
        let sink = lines.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || sink.clone())
            .with_ansi(false)
            .finish();
        let _default = tracing::subscriber::set_default(subscriber);
        let app = atest::init_service(App::new().wrap(TracingLogger::<RequestSpan>::new()).route(
            "/x/{id}",
            web::get().to(|| async {
                tracing::warn!("inside the handler");
                HttpResponse::Ok().finish()
            }),
        ))
        .await;
        let req = atest::TestRequest::get()
            .uri("/x/7?secret=1")
            .insert_header(("user-agent", "probe"))
            .to_request();
        let res = atest::call_service(&app, req).await;
        assert_eq!(res.status(), 200);
        let text = String::from_utf8(lines.0.lock().expect("lines").clone()).expect("utf-8");
        let line = text
            .lines()
            .find(|l| l.contains("inside the handler"))
            .unwrap_or_else(|| panic!("no handler line in {text:?}"));
        assert!(line.contains(" WARN "), "{line}");
        assert!(
            line.contains("request{method=GET path=\"/x/7\" request_id="),
            "{line}"
        );
        // The path only: no query string (it may carry what the client meant to keep), no
        // user agent, no route lookup.
        assert!(
            !line.contains("secret") && !line.contains("probe"),
            "{line}"
        );
    }

    #[actix_web::test]
    async fn a_client_error_is_logged_at_debug_and_a_server_error_at_error() {
        use crate::error::ApiError;
        let lines = Lines::default();
        let sink = lines.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || sink.clone())
            .with_max_level(tracing::Level::DEBUG)
            .with_ansi(false)
            .finish();
        let _default = tracing::subscriber::set_default(subscriber);
        let app = atest::init_service(
            App::new()
                .wrap(TracingLogger::<RequestSpan>::new())
                .route(
                    "/gone",
                    web::get().to(|| async {
                        Err::<HttpResponse, _>(ApiError::not_found("no such thing"))
                    }),
                )
                .route(
                    "/broken",
                    web::get().to(|| async {
                        Err::<HttpResponse, _>(ApiError::new(
                            crate::arena::error::Code::Internal,
                            "internal error",
                        ))
                    }),
                ),
        )
        .await;
        for (uri, status) in [("/gone", 404), ("/broken", 500)] {
            let res =
                atest::call_service(&app, atest::TestRequest::get().uri(uri).to_request()).await;
            assert_eq!(res.status(), status);
        }
        let text = String::from_utf8(lines.0.lock().expect("lines").clone()).expect("utf-8");
        let line = |needle: &str| {
            text.lines()
                .find(|l| l.contains(needle))
                .unwrap_or_else(|| panic!("no line with {needle} in {text:?}"))
                .to_string()
        };
        let gone = line("no such thing");
        assert!(gone.contains(" DEBUG "), "{gone}");
        assert!(!text.contains(" WARN "), "{text}");
        let broken = line("internal error");
        assert!(broken.contains(" ERROR "), "{broken}");
    }
}
