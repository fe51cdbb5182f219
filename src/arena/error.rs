//! The arena's errors as domain values (SPEC section 10 names them): a kind, a stable machine
//! `code`, a message and details. They say what went wrong, never how HTTP spells it; the
//! HTTP edge (`crate::error::ApiError`) chooses the status code from the kind.

use serde_json::{Value, json};

use super::game::GameError;

/// What kind of refusal an error is; the HTTP edge maps each to one status code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request is malformed or out of range.
    BadRequest,
    /// No valid credentials.
    Unauthorized,
    /// Valid credentials that may not do this.
    Forbidden,
    /// No such thing.
    NotFound,
    /// The state of the arena refuses it now (a turn, a ply, a finished game or set).
    Conflict,
    /// A well-formed move that the rules refuse.
    Unprocessable,
    /// A limit on how often.
    RateLimited,
    /// The database is busy or a row kept changing: retry.
    Unavailable,
    /// A fault of ours (logged, never shown).
    Internal,
}

/// An arena error: kind, `code`, `message` and `details` (a JSON object).
#[derive(Debug, Clone)]
pub struct ArenaError {
    pub kind: ErrorKind,
    pub code: &'static str,
    pub message: String,
    pub details: Value,
    /// Seconds to wait before retrying (rate limits).
    pub retry_after_s: Option<u64>,
}

/// Result alias of arena operations.
pub type ArenaResult<T> = Result<T, ArenaError>;

impl ArenaError {
    /// A new error with empty details.
    pub fn new(kind: ErrorKind, code: &'static str, message: impl Into<String>) -> Self {
        ArenaError {
            kind,
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

    /// Sets `Retry-After`, seconds.
    #[must_use]
    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after_s = Some(seconds);
        self
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::BadRequest, "bad_request", message)
    }
    pub fn invalid_options(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::BadRequest, "invalid_options", message)
    }
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unauthorized, "unauthorized", message)
    }
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Forbidden, "forbidden", message)
    }
    pub fn forbidden_code(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Forbidden, code, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, "not_found", message)
    }
    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Conflict, code, message)
    }
    /// A limit named `limit` was reached; retry in `retry_after_s` seconds.
    pub fn rate_limited(limit: &str, retry_after_s: u64) -> Self {
        let mut e = Self::new(
            ErrorKind::RateLimited,
            "rate_limited",
            format!("too many requests for limit '{limit}'; retry in {retry_after_s} s"),
        )
        .with_details(json!({"limit": limit, "retry_after_s": retry_after_s}));
        e.retry_after_s = Some(retry_after_s);
        e
    }
    /// A fault of ours: the cause is logged, never shown.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "internal error");
        Self::new(ErrorKind::Internal, "internal", "internal server error")
    }
    /// Busy beyond a timeout, or a row that kept changing: retry shortly.
    pub fn unavailable(cause: impl std::fmt::Display) -> Self {
        tracing::warn!(error = %cause, "service unavailable");
        Self::new(
            ErrorKind::Unavailable,
            "unavailable",
            "the arena is busy; retry shortly",
        )
    }
}

impl ArenaError {
    /// 503 `storage_unavailable` with `Retry-After`: the database refuses writes (disk full,
    /// I/O error, lost connection; see `store::health`). Nothing was changed; the clocks are
    /// held until storage is back (SPEC 7, 12).
    pub fn storage_unavailable(cause: impl std::fmt::Display) -> Self {
        tracing::debug!(error = %cause, "storage unavailable");
        let mut e = Self::new(
            ErrorKind::Unavailable,
            "storage_unavailable",
            format!(
                "the arena's storage is failing; nothing was changed and clocks are held; retry in {STORAGE_RETRY_S} s"
            ),
        )
        .with_details(json!({"retry_after_s": STORAGE_RETRY_S}));
        e.retry_after_s = Some(STORAGE_RETRY_S);
        e
    }
}

/// `Retry-After` of 503 `clock_unsynced`, seconds (the clock is measured once a second).
pub const CLOCK_RETRY_S: u64 = 1;

/// `Retry-After` of 503 `storage_unavailable`, seconds (the recovery probe runs at least this often).
pub const STORAGE_RETRY_S: u64 = 1;

impl std::fmt::Display for ArenaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({:?}): {}", self.code, self.kind, self.message)
    }
}

impl std::error::Error for ArenaError {}

impl From<sqlx::Error> for ArenaError {
    fn from(e: sqlx::Error) -> Self {
        match &e {
            // A closed pool: the arena is stopping (see `store::health::Health::refuse_writes`).
            sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed => ArenaError::unavailable(e),
            sqlx::Error::Database(db) if is_busy(db.message()) => ArenaError::unavailable(e),
            // A unique key written by a concurrent transaction on another connection (only
            // PostgreSQL runs writers side by side): the checks that give the precise 409
            // (`name_taken`, `set_not_open`, ...) see that row on a retry, as SQLite's single
            // writer sees it at once. Paths with a known key map it themselves.
            sqlx::Error::Database(db) if db.is_unique_violation() => ArenaError::unavailable(e),
            _ if crate::store::health::is_storage_error(&e) => ArenaError::storage_unavailable(e),
            _ => ArenaError::internal(e),
        }
    }
}

fn is_busy(msg: &str) -> bool {
    msg.contains("database is locked") || msg.contains("busy")
}

/// The game aggregate's refusals as arena errors (SPEC section 10 codes).
impl From<GameError> for ArenaError {
    fn from(e: GameError) -> Self {
        let message = e.to_string();
        match e {
            GameError::NotYourSeat => ArenaError::forbidden_code("not_your_seat", message),
            GameError::NotStarted => ArenaError::conflict("not_your_turn", message),
            GameError::NotYourTurn { to_move, ply } => {
                ArenaError::conflict("not_your_turn", message)
                    .with_details(json!({"to_move": to_move.number(), "ply": ply}))
            }
            GameError::StalePly { expected, ply, .. } => ArenaError::conflict("stale_ply", message)
                .with_details(json!({"expected_ply": expected, "ply": ply})),
            GameError::GameOver
            | GameError::Illegal {
                error: hex::PlayError::GameOver,
                ..
            } => ArenaError::conflict("game_over", message),
            GameError::Illegal { error, mv } => {
                ArenaError::new(ErrorKind::Unprocessable, error.code(), message)
                    .with_details(json!({"move": super::views::move_json(mv)}))
            }
            GameError::Corrupt(m) => ArenaError::internal(m),
        }
    }
}
