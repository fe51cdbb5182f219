//! One error type at the HTTP edge (SPEC section 10): every refusal is
//! `{"error": {"code", "message", "details"}}` with the status of its code. The wire code and
//! the status are chosen here, where the error is answered ([`Code::as_str`], [`Code::status`]).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde_json::{Value, json};

use crate::arena::error::{ArenaError, Code};

/// An API error: a stable machine `code`, a human `message` and optional `details`.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub code: Code,
    pub message: String,
    pub details: Value,
    /// Seconds for a `Retry-After` header (429, 503 `storage_unavailable`).
    pub retry_after_s: Option<u64>,
}

/// The HTTP status of each code (SPEC section 10; openapi.yaml).
impl Code {
    /// The status a refusal with this code is answered with.
    #[must_use]
    pub const fn status(self) -> StatusCode {
        match self {
            Code::BadRequest | Code::InvalidMove | Code::InvalidOptions | Code::InvalidInfo => {
                StatusCode::BAD_REQUEST
            }
            Code::Unauthorized => StatusCode::UNAUTHORIZED,
            Code::Forbidden | Code::NotYourSeat | Code::Suspended | Code::SameOwner => {
                StatusCode::FORBIDDEN
            }
            Code::NotFound => StatusCode::NOT_FOUND,
            Code::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Code::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
            Code::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            Code::NotYourTurn
            | Code::StalePly
            | Code::GameOver
            | Code::SetNotOpen
            | Code::InsufficientBalance
            | Code::NameTaken
            | Code::BotRetired
            | Code::GameNotFinished
            | Code::TournamentState
            | Code::NotParticipant
            | Code::AlreadyParticipant
            | Code::AlreadyWithdrawn
            | Code::TournamentFull
            | Code::TooFewParticipants => StatusCode::CONFLICT,
            Code::LengthRequired => StatusCode::LENGTH_REQUIRED,
            Code::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Code::UriTooLong => StatusCode::URI_TOO_LONG,
            Code::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Code::Occupied
            | Code::OffBoard
            | Code::SwapNotAllowed
            | Code::ClockTooFastForHouse
            | Code::NotAccepted => StatusCode::UNPROCESSABLE_ENTITY,
            Code::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            Code::HeadersTooLarge => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            Code::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            Code::Unavailable
            | Code::StorageUnavailable
            | Code::HouseBusy
            | Code::ClockUnsynced => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

impl ApiError {
    /// A new error with empty details.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        ApiError {
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

    /// 400 `bad_request`.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(Code::BadRequest, message)
    }
    /// 400 `bad_request` for a required body field that is missing (`details.field` names it).
    pub fn missing_field(field: &str, message: impl Into<String>) -> Self {
        Self::bad_request(message).with_details(json!({"field": field}))
    }
    /// 400 `invalid_move`.
    pub fn invalid_move(message: impl Into<String>) -> Self {
        Self::new(Code::InvalidMove, message)
    }
    /// 400 `invalid_options`.
    pub fn invalid_options(message: impl Into<String>) -> Self {
        Self::new(Code::InvalidOptions, message)
    }
    /// 401 `unauthorized`.
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(Code::Unauthorized, message)
    }
    /// 403 `forbidden`.
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(Code::Forbidden, message)
    }
    /// 404 `not_found`.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(Code::NotFound, message)
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
        json!({"error": {"code": self.code.as_str(), "message": self.message, "details": self.details}})
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({}): {}",
            self.code,
            self.code.status().as_u16(),
            self.message
        )
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.code.status()
    }
    fn error_response(&self) -> HttpResponse {
        let mut b = HttpResponse::build(self.status_code());
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

/// The HTTP edge of the arena's errors: they keep their code, whose status they are answered
/// with (SPEC section 10).
impl From<ArenaError> for ApiError {
    fn from(e: ArenaError) -> Self {
        // Answered here: the cause of a fault of ours (or of a busy database) is logged here.
        e.log();
        ApiError {
            code: e.code,
            message: e.message,
            details: e.details,
            retry_after_s: e.retry_after_s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_one_error_status_and_a_distinct_wire_string() {
        let mut seen = std::collections::BTreeSet::new();
        for &c in Code::ALL {
            assert!(seen.insert(c.as_str()), "{c:?} repeats {}", c.as_str());
            let s = c.status();
            assert!(s.is_client_error() || s.is_server_error(), "{c:?}: {s}");
        }
    }

    #[test]
    fn rule_refusals_keep_the_engine_wire_codes() {
        use hex::PlayError as P;
        for e in [P::OffBoard, P::Occupied, P::SwapNotAllowed, P::GameOver] {
            assert_eq!(Code::of_rule(e).as_str(), e.code());
        }
        for c in Code::RULES {
            assert_eq!(c.status(), StatusCode::UNPROCESSABLE_ENTITY);
        }
        assert_eq!(Code::of_rule(P::GameOver).status(), StatusCode::CONFLICT);
    }
}
