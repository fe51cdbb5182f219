//! One error type at the HTTP edge (SPEC section 10): every refusal is
//! `{"error": {"code", "message", "details"}}` with the status code of its code.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde_json::{Value, json};

use crate::arena::error::ArenaError;

/// An API error: a stable machine `code`, a human `message` and optional `details`.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub details: Value,
    /// Seconds for a `Retry-After` header (429, 503 `storage_unavailable`).
    pub retry_after_s: Option<u64>,
}

impl ApiError {
    /// A new error with empty details.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
            details: json!({}),
            retry_after_s: None,
        }
    }

    /// Attaches `details` (a JSON object).
    #[must_use]
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = details;
        self
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }
    /// 400 `bad_request` for a required body field that is missing (`details.field` names it).
    pub fn missing_field(field: &str, message: impl Into<String>) -> Self {
        Self::bad_request(message).with_details(json!({"field": field}))
    }
    pub fn invalid_move(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "invalid_move", message)
    }
    pub fn invalid_options(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "invalid_options", message)
    }
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
    }
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "forbidden", message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }
    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, code, message)
    }
    pub fn forbidden_code(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, code, message)
    }
    /// 429 with `Retry-After` and `details.limit` naming the limit (SPEC section 10).
    pub fn rate_limited(limit: &str, retry_after_s: u64) -> Self {
        ArenaError::rate_limited(limit, retry_after_s).into()
    }
    /// 500: the cause is logged, never shown to the client.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        ArenaError::internal(cause).into()
    }
    /// 503 while the database is unreachable or busy beyond its timeout.
    pub fn unavailable(cause: impl std::fmt::Display) -> Self {
        ArenaError::unavailable(cause).into()
    }

    /// The JSON envelope.
    pub fn body(&self) -> Value {
        json!({"error": {"code": self.code, "message": self.message, "details": self.details}})
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({}): {}",
            self.code,
            self.status.as_u16(),
            self.message
        )
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }
    fn error_response(&self) -> HttpResponse {
        let mut b = HttpResponse::build(self.status);
        if let Some(s) = self.retry_after_s {
            b.insert_header(("Retry-After", s.to_string()));
        }
        b.json(self.body())
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        ArenaError::from(e).into()
    }
}

/// Result alias of handlers and arena operations.
pub type ApiResult<T> = Result<T, ApiError>;

/// The HTTP edge of the arena's errors: each kind has its status code (SPEC section 10).
impl From<ArenaError> for ApiError {
    fn from(e: ArenaError) -> Self {
        use crate::arena::error::ErrorKind as K;
        // Answered here: the cause of a fault of ours (or of a busy database) is logged here.
        e.log();
        let status = match e.kind {
            K::BadRequest => StatusCode::BAD_REQUEST,
            K::Unauthorized => StatusCode::UNAUTHORIZED,
            K::Forbidden => StatusCode::FORBIDDEN,
            K::NotFound => StatusCode::NOT_FOUND,
            K::Conflict => StatusCode::CONFLICT,
            K::Unprocessable => StatusCode::UNPROCESSABLE_ENTITY,
            K::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            K::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            K::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        };
        ApiError {
            status,
            code: e.code,
            message: e.message,
            details: e.details,
            retry_after_s: e.retry_after_s,
        }
    }
}
