//! The arena's errors as domain values (SPEC section 10 names them): a [`Code`], a message and
//! details. They say what went wrong, never how HTTP spells it; the HTTP edge
//! (`crate::error::ApiError`) chooses the status from the code, and logs the cause of internal
//! and unavailable errors there.

use serde_json::{Value, json};

use super::game::GameError;
use crate::store::{self, Fault, StoreError};

/// An arena error: its `code`, `message` and `details` (a JSON object).
#[derive(Debug, Clone)]
pub struct ArenaError {
    /// What went wrong; the HTTP edge derives the status and the wire string from it.
    pub code: Code,
    pub message: String,
    pub details: Value,
    /// Seconds to wait before retrying (rate limits).
    pub retry_after_s: Option<u64>,
    /// What went wrong inside (internal and unavailable errors): logged where the error is
    /// answered, never shown to a client.
    pub cause: Option<std::sync::Arc<str>>,
}

/// Declares [`Code`] with its wire strings and [`Code::ALL`], from one list, so the three
/// cannot drift apart.
macro_rules! codes {
    ($($(#[doc = $doc:literal])* $variant:ident = $wire:literal,)*) => {
        /// Every error code the server answers (SPEC section 10; the `code` enum of `Error` in
        /// openapi.yaml). Each has one HTTP status, chosen at the edge (`Code::status` in
        /// `crate::error`); the status in each line below is that one.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Code {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Code {
            /// Every code, in the order of their statuses.
            pub const ALL: &[Code] = &[$(Code::$variant,)*];

            /// The wire code (`error.code` of the envelope).
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $wire,)*
                }
            }
        }
    };
}

codes! {
    /// 400: malformed JSON or body, a bad field, query parameter or header (`details.field`);
    /// also the code of a bare 4xx response with no code of its own.
    BadRequest = "bad_request",
    /// 400: a move body that breaks the move schema (`details.instance_path`).
    InvalidMove = "invalid_move",
    /// 400: set options that break the options schema or their ranges.
    InvalidOptions = "invalid_options",
    /// 400: a malformed `Hexarena-Info` header on a move.
    InvalidInfo = "invalid_info",
    /// 401: no valid credentials.
    Unauthorized = "unauthorized",
    /// 403: valid credentials that may not do this.
    Forbidden = "forbidden",
    /// 403: the bot does not sit in this game.
    NotYourSeat = "not_your_seat",
    /// 403: the bot has 3 strikes in 24 h and plays no staked sets for now.
    Suspended = "suspended",
    /// 403: two bots of one owner may not play a staked set.
    SameOwner = "same_owner",
    /// 404: no such thing (or no such route).
    NotFound = "not_found",
    /// 405: the path exists under other methods (`details.allow`).
    MethodNotAllowed = "method_not_allowed",
    /// 406: a bare 406 response (no acceptable representation).
    NotAcceptable = "not_acceptable",
    /// 408: the request body did not arrive in time.
    RequestTimeout = "request_timeout",
    /// 409: not this bot's turn (or the game has not started).
    NotYourTurn = "not_your_turn",
    /// 409: the move names a ply that is not the next one (`details.expected_ply`).
    StalePly = "stale_ply",
    /// 409: the game is over (`details.result` when known).
    GameOver = "game_over",
    /// 409: the set is no longer open.
    SetNotOpen = "set_not_open",
    /// 409: a balance below the stake or the transfer.
    InsufficientBalance = "insufficient_balance",
    /// 409: a bot of that name exists.
    NameTaken = "name_taken",
    /// 409: the bot is retired and plays no new sets.
    BotRetired = "bot_retired",
    /// 409: a game is analysed once it is finished.
    GameNotFinished = "game_not_finished",
    /// 409: the tournament's (or match's) state refuses the action.
    TournamentState = "tournament_state",
    /// 409: the bot is not a participant of the tournament.
    NotParticipant = "not_participant",
    /// 409: the bot is a participant of the tournament already.
    AlreadyParticipant = "already_participant",
    /// 409: the bot was withdrawn from the tournament already.
    AlreadyWithdrawn = "already_withdrawn",
    /// 409: the tournament has as many participants as it may.
    TournamentFull = "tournament_full",
    /// 409: the tournament would be left with too few participants.
    TooFewParticipants = "too_few_participants",
    /// 411: a bare 411 response (a body without a length).
    LengthRequired = "length_required",
    /// 413: a body over the limit (`details.limit_bytes`).
    PayloadTooLarge = "payload_too_large",
    /// 414: a bare 414 response (a URI too long).
    UriTooLong = "uri_too_long",
    /// 415: a bare 415 response (a body of another media type).
    UnsupportedMediaType = "unsupported_media_type",
    /// 422: the cell is taken (a rule refusal).
    Occupied = "occupied",
    /// 422: the cell is off the board (a rule refusal).
    OffBoard = "off_board",
    /// 422: the swap is not allowed now (a rule refusal).
    SwapNotAllowed = "swap_not_allowed",
    /// 422: a clock the house cannot pay on that board.
    ClockTooFastForHouse = "clock_too_fast_for_house",
    /// 422: the named bot's declared accepts or capacity refuse the set (`details.bot`).
    NotAccepted = "not_accepted",
    /// 429: a limit on how often or how many (`details.limit`, `Retry-After`).
    RateLimited = "rate_limited",
    /// 431: a bare 431 response (request headers too large).
    HeadersTooLarge = "headers_too_large",
    /// 500: a fault of ours (the cause is logged, never shown); also the code of a bare 5xx
    /// response other than 503.
    Internal = "internal",
    /// 503: the database is busy or a row kept changing: retry shortly.
    Unavailable = "unavailable",
    /// 503: the storage refuses writes (`Retry-After`).
    StorageUnavailable = "storage_unavailable",
    /// 503: the house bots play as many games as they can play well.
    HouseBusy = "house_busy",
    /// 503: this instance's clock is not synchronized with the database's (`Retry-After`).
    ClockUnsynced = "clock_unsynced",
}

impl Code {
    /// The refusals of a well-formed move by the rules of Hex (`hex::PlayError` but
    /// `game_over`, which is a 409).
    pub const RULES: [Code; 3] = [Code::Occupied, Code::OffBoard, Code::SwapNotAllowed];

    /// The code of a rule refusal of the engine.
    #[must_use]
    pub const fn of_rule(e: hex::PlayError) -> Code {
        match e {
            hex::PlayError::OffBoard => Code::OffBoard,
            hex::PlayError::Occupied => Code::Occupied,
            hex::PlayError::SwapNotAllowed => Code::SwapNotAllowed,
            hex::PlayError::GameOver => Code::GameOver,
        }
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Result alias of arena operations.
pub type ArenaResult<T> = Result<T, ArenaError>;

impl ArenaError {
    /// A new error with empty details.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        ArenaError {
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
        self.code == code
    }

    /// Whether this is one of the refusals `codes`.
    #[must_use]
    pub fn is_any(&self, codes: &[Code]) -> bool {
        codes.contains(&self.code)
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

    /// 400 `bad_request`.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(Code::BadRequest, message)
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
    /// A limit named `limit` was reached; retry in `retry_after_s` seconds.
    pub fn rate_limited(limit: &str, retry_after_s: u64) -> Self {
        Self::new(
            Code::RateLimited,
            format!("too many requests for limit '{limit}'; retry in {retry_after_s} s"),
        )
        .with_details(json!({"limit": limit, "retry_after_s": retry_after_s}))
        .retry_after(retry_after_s)
    }
    /// A fault of ours: the cause is logged where the error is answered, never shown.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        Self::new(Code::Internal, "internal server error").caused_by(cause)
    }
    /// Busy beyond a timeout, or a row that kept changing: retry shortly (the cause is
    /// logged where the error is answered).
    pub fn unavailable(cause: impl std::fmt::Display) -> Self {
        Self::new(Code::Unavailable, "the arena is busy; retry shortly").caused_by(cause)
    }
}

impl ArenaError {
    /// 503 `storage_unavailable` with `Retry-After`: the database refuses writes (disk full,
    /// I/O error, lost connection; see `store::health`). Nothing was changed; the clocks are
    /// held until storage is back (SPEC 7, 12).
    pub fn storage_unavailable(cause: impl std::fmt::Display) -> Self {
        Self::new(
            Code::StorageUnavailable,
            format!(
                "the arena's storage is failing; nothing was changed and clocks are held; retry in {STORAGE_RETRY_S} s"
            ),
        )
        .with_details(json!({"retry_after_s": STORAGE_RETRY_S}))
        .caused_by(cause)
        .retry_after(STORAGE_RETRY_S)
    }

    /// 503 `storage_unavailable` from an instance cut off from the storage while another
    /// instance was alive at its last look (several instances, `docs/multi-instance.md`):
    /// nothing changed; the clocks are held only if no instance serves (the storage itself
    /// down), which this instance cannot tell, so the message says both (found by an outside
    /// tester: it said "clocks are held" while the other instance ended the game on time).
    pub fn instance_cut_off(cause: impl std::fmt::Display) -> Self {
        Self::new(
            Code::StorageUnavailable,
            format!(
                "this instance of the arena cannot reach its storage; nothing was changed, and clocks are held only if no other instance serves: another was serving at this instance's last look, and if it still is your clock runs there; retry in {STORAGE_RETRY_S} s, through another instance if you can"
            ),
        )
        .with_details(json!({"retry_after_s": STORAGE_RETRY_S}))
        .caused_by(cause)
        .retry_after(STORAGE_RETRY_S)
    }

    /// 503 `storage_unavailable` for a stall of the arena's own process (`store::health`,
    /// `Health::watch_stalls`): the same contract as a failing storage (nothing changed,
    /// clocks held, retry), told apart in the message.
    pub fn stalled(cause: impl std::fmt::Display) -> Self {
        Self::new(
            Code::StorageUnavailable,
            format!(
                "the arena stood still for a moment (its process was paused or starved of CPU); nothing was changed and clocks are held until that time is credited; retry in {STORAGE_RETRY_S} s"
            ),
        )
        .with_details(json!({"retry_after_s": STORAGE_RETRY_S}))
        .caused_by(cause)
        .retry_after(STORAGE_RETRY_S)
    }

    /// Logs the cause of an internal or unavailable (503) error, once, where it is answered
    /// (the HTTP edge, or a background task that gives up on it).
    pub fn log(&self) {
        let cause = self.cause.as_deref().unwrap_or("");
        match self.code {
            Code::Internal => tracing::error!(error = %cause, "internal error"),
            Code::StorageUnavailable => tracing::debug!(error = %cause, "storage unavailable"),
            Code::Unavailable | Code::HouseBusy | Code::ClockUnsynced => {
                tracing::warn!(error = %cause, "service unavailable");
            }
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
        write!(f, "{}: {}", self.code, self.message)?;
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
            Fault::UnstorableText => ArenaError::bad_request(
                "a text in the request holds a NUL character (U+0000), which no id, name or \
                 field may contain",
            ),
            Fault::Other => ArenaError::internal(e),
        }
    }
}

/// The game aggregate's refusals as arena errors (SPEC section 10 codes).
impl From<GameError> for ArenaError {
    fn from(e: GameError) -> Self {
        let message = e.to_string();
        match e {
            GameError::NotYourSeat => ArenaError::new(Code::NotYourSeat, message),
            // The same details as a turn that is the other seat's (agents.md section 5): no
            // seat is on move yet, and nothing has been played.
            GameError::NotStarted => ArenaError::new(Code::NotYourTurn, message)
                .with_details(json!({"to_move": null, "ply": 0, "started": false})),
            GameError::NotYourTurn { to_move, ply } => ArenaError::new(Code::NotYourTurn, message)
                .with_details(json!({"to_move": to_move.number(), "ply": ply})),
            GameError::StalePly {
                expected,
                ply,
                given,
                played,
                waiting_for,
            } => {
                let mut details = json!({"expected_ply": expected, "ply": ply, "given_ply": given});
                if let Some(seat) = waiting_for {
                    details["to_move"] = json!(seat.number());
                }
                if let Some((seat, mv)) = played {
                    details["played"] =
                        json!({"ply": given, "seat": seat, "move": super::views::move_json(mv)});
                }
                ArenaError::new(Code::StalePly, message).with_details(details)
            }
            GameError::GameOver
            | GameError::Illegal {
                error: hex::PlayError::GameOver,
                ..
            } => ArenaError::new(Code::GameOver, message),
            GameError::Illegal { error, mv } => ArenaError::new(Code::of_rule(error), message)
                .with_details(json!({"move": super::views::move_json(mv)})),
            GameError::Corrupt(m) => ArenaError::internal(m),
        }
    }
}
