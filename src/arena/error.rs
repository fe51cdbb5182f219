//! The arena's errors as domain values (SPEC section 10 names them): a kind, a stable machine
//! `code`, a message and details. They say what went wrong, never how HTTP spells it; the
//! HTTP edge (`crate::error::ApiError`) chooses the status code from the kind, and logs the
//! cause of internal and unavailable errors there.

use serde_json::{Value, json};

use super::game::GameError;
use crate::store::{self, Fault, StoreError};

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
    /// What went wrong inside (internal and unavailable errors): logged where the error is
    /// answered, never shown to a client.
    pub cause: Option<std::sync::Arc<str>>,
}

/// The codes the arena's own code branches on, typed (compare with [`ArenaError::is`]);
/// every other code is only ever answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// 404: no such thing.
    NotFound,
    /// 409: the set is no longer open.
    SetNotOpen,
    /// 422: a clock the house cannot pay on that board.
    ClockTooFastForHouse,
    /// 503: the house bots play as many games as they can play well.
    HouseBusy,
    /// 409: the tournament's (or match's) state refuses the action.
    TournamentState,
    /// 409: the bot was withdrawn from the tournament already.
    AlreadyWithdrawn,
    /// 503: the storage refuses writes.
    StorageUnavailable,
    /// 422: the cell is taken (a rule refusal).
    Occupied,
    /// 422: the cell is off the board (a rule refusal).
    OffBoard,
    /// 422: the swap is not allowed now (a rule refusal).
    SwapNotAllowed,
    /// 409: the bot is not a participant of the tournament.
    NotParticipant,
    /// 409: the tournament would be left with too few participants.
    TooFewParticipants,
}

impl Code {
    /// The wire code.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Code::NotFound => "not_found",
            Code::SetNotOpen => "set_not_open",
            Code::ClockTooFastForHouse => "clock_too_fast_for_house",
            Code::HouseBusy => "house_busy",
            Code::TournamentState => "tournament_state",
            Code::AlreadyWithdrawn => "already_withdrawn",
            Code::StorageUnavailable => "storage_unavailable",
            Code::Occupied => "occupied",
            Code::OffBoard => "off_board",
            Code::SwapNotAllowed => "swap_not_allowed",
            Code::NotParticipant => "not_participant",
            Code::TooFewParticipants => "too_few_participants",
        }
    }

    /// The refusals of a well-formed move by the rules of Hex (`hex::PlayError` but
    /// `game_over`, which is a 409).
    pub const RULES: [Code; 3] = [Code::Occupied, Code::OffBoard, Code::SwapNotAllowed];
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
            cause: None,
        }
    }

    /// Whether this is the refusal `code`.
    #[must_use]
    pub fn is(&self, code: Code) -> bool {
        self.code == code.as_str()
    }

    /// Whether this is one of the refusals `codes`.
    #[must_use]
    pub fn is_any(&self, codes: &[Code]) -> bool {
        codes.iter().any(|&c| self.is(c))
    }

    /// Attaches the inside cause (logged at the edge, never shown).
    #[must_use]
    pub fn caused_by(mut self, cause: impl std::fmt::Display) -> Self {
        self.cause = Some(cause.to_string().into());
        self
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
        Self::new(ErrorKind::NotFound, Code::NotFound.as_str(), message)
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
    /// A fault of ours: the cause is logged where the error is answered, never shown.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        Self::new(ErrorKind::Internal, "internal", "internal server error").caused_by(cause)
    }
    /// Busy beyond a timeout, or a row that kept changing: retry shortly (the cause is
    /// logged where the error is answered).
    pub fn unavailable(cause: impl std::fmt::Display) -> Self {
        Self::new(
            ErrorKind::Unavailable,
            "unavailable",
            "the arena is busy; retry shortly",
        )
        .caused_by(cause)
    }
}

impl ArenaError {
    /// 503 `storage_unavailable` with `Retry-After`: the database refuses writes (disk full,
    /// I/O error, lost connection; see `store::health`). Nothing was changed; the clocks are
    /// held until storage is back (SPEC 7, 12).
    pub fn storage_unavailable(cause: impl std::fmt::Display) -> Self {
        let mut e = Self::new(
            ErrorKind::Unavailable,
            Code::StorageUnavailable.as_str(),
            format!(
                "the arena's storage is failing; nothing was changed and clocks are held; retry in {STORAGE_RETRY_S} s"
            ),
        )
        .with_details(json!({"retry_after_s": STORAGE_RETRY_S}))
        .caused_by(cause);
        e.retry_after_s = Some(STORAGE_RETRY_S);
        e
    }

    /// Logs the cause of an internal or unavailable error, once, where it is answered (the
    /// HTTP edge, or a background task that gives up on it).
    pub fn log(&self) {
        let cause = self.cause.as_deref().unwrap_or("");
        match self.kind {
            ErrorKind::Internal => tracing::error!(error = %cause, "internal error"),
            ErrorKind::Unavailable if self.is(Code::StorageUnavailable) => {
                tracing::debug!(error = %cause, "storage unavailable");
            }
            ErrorKind::Unavailable => tracing::warn!(error = %cause, "service unavailable"),
            _ => {}
        }
    }
}

/// `Retry-After` of 503 `clock_unsynced`, seconds (the clock is measured once a second).
pub const CLOCK_RETRY_S: u64 = 1;

/// `Retry-After` of 503 `storage_unavailable`, seconds (the recovery probe runs at least this often).
pub const STORAGE_RETRY_S: u64 = 1;

impl std::fmt::Display for ArenaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({:?}): {}", self.code, self.kind, self.message)?;
        match &self.cause {
            Some(c) => write!(f, " [{c}]"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for ArenaError {}

impl From<StoreError> for ArenaError {
    fn from(e: StoreError) -> Self {
        match store::fault(&e) {
            // A closed pool: the arena is stopping (see `store::health::Health::refuse_writes`).
            Fault::Busy => ArenaError::unavailable(e),
            // A unique key written by a concurrent transaction on another connection (only
            // PostgreSQL runs writers side by side): the checks that give the precise 409
            // (`name_taken`, `set_not_open`, ...) see that row on a retry, as SQLite's single
            // writer sees it at once. Paths with a known key map it themselves.
            Fault::Duplicate => ArenaError::unavailable(e),
            Fault::Storage => ArenaError::storage_unavailable(e),
            Fault::Other => ArenaError::internal(e),
        }
    }
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
            GameError::StalePly {
                expected,
                ply,
                given,
                played,
            } => {
                let mut details = json!({"expected_ply": expected, "ply": ply});
                if let Some((seat, mv)) = played {
                    details["played"] =
                        json!({"ply": given, "seat": seat, "move": super::views::move_json(mv)});
                }
                ArenaError::conflict("stale_ply", message).with_details(details)
            }
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
