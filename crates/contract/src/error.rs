//! The error envelope (SPEC section 10, agents.md section 5):
//! `{"error": {"code": "...", "message": "...", "details": {...}}}`, its codes, and what a
//! client does about each.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// Every error answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorEnvelope {
    /// The error.
    pub error: ErrorBody,
}

/// The inside of the envelope: decide on `code`; `message` is for humans.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// What went wrong.
    pub code: ErrorCode,
    /// For humans.
    pub message: String,
    /// Facts of the error (`expected_ply`, `result`, `limit`, `instance_path`, ...).
    #[serde(default)]
    pub details: Value,
}

/// What a client should do about an answer, as agents.md section 5 says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// Send the same request again after the `Retry-After` header's seconds.
    AfterRetryAfter,
    /// Send the same request again, backing off (0.5 s, 1 s, 2 s ... ).
    WithBackoff,
    /// Do not send it again as is: re-read, fix or skip.
    No,
}

macro_rules! codes {
    ($($variant:ident => $text:literal, $doc:literal;)*) => {
        /// An error code. Codes this contract does not know read as [`ErrorCode::Other`].
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $(#[doc = $doc] $variant,)*
            /// A code this contract does not know.
            Other(String),
        }

        impl ErrorCode {
            /// The code as the wire spells it.
            #[must_use]
            pub fn as_str(&self) -> &str {
                match self {
                    $(ErrorCode::$variant => $text,)*
                    ErrorCode::Other(s) => s,
                }
            }

            /// The code of a wire string.
            #[must_use]
            pub fn parse(s: &str) -> ErrorCode {
                match s {
                    $($text => ErrorCode::$variant,)*
                    other => ErrorCode::Other(other.to_string()),
                }
            }
        }
    };
}

codes! {
    BadRequest => "bad_request", "400: malformed JSON, an unknown or missing field, a value out of range.";
    InvalidMove => "invalid_move", "400: the move body is not exactly one of `cell` / `swap`.";
    InvalidOptions => "invalid_options", "400: `options` fails `options_schema`.";
    Unauthorized => "unauthorized", "401: no token, an unknown one, or one of the wrong kind.";
    Forbidden => "forbidden", "403: an action this token may not take.";
    NotYourSeat => "not_your_seat", "403: the bot has no seat in that game.";
    Suspended => "suspended", "403: three strikes in 24 h: no staked sets for now.";
    SameOwner => "same_owner", "403: a staked set between bots of one owner.";
    NotFound => "not_found", "404: unknown route, set, game, bot or player.";
    MethodNotAllowed => "method_not_allowed", "405: the path exists, not with this method.";
    RequestTimeout => "request_timeout", "408: the body did not arrive within 10 s.";
    NotYourTurn => "not_your_turn", "409: the other seat is on move, or game 2 has not started.";
    StalePly => "stale_ply", "409: `?ply=` does not match the game (`details.expected_ply`).";
    GameOver => "game_over", "409: the game ended (`details.result`).";
    SetNotOpen => "set_not_open", "409: the set was accepted, cancelled, declined or expired.";
    InsufficientBalance => "insufficient_balance", "409: a balance does not cover the stake.";
    TournamentState => "tournament_state", "409: the tournament's or match's status does not allow it.";
    NameTaken => "name_taken", "409: the bot name is in use.";
    PayloadTooLarge => "payload_too_large", "413: the body is over 16 KiB.";
    NotAccepted => "not_accepted", "422: the bot declared it does not accept such sets.";
    Occupied => "occupied", "422: the cell has a stone.";
    OffBoard => "off_board", "422: the cell is outside this board.";
    SwapNotAllowed => "swap_not_allowed", "422: the swap is not legal now.";
    ClockTooFastForHouse => "clock_too_fast_for_house", "422: a house bot cannot play that clock on that board.";
    RateLimited => "rate_limited", "429: a limit was hit (`details.limit`, `Retry-After`).";
    Internal => "internal", "500: a server bug.";
    Unavailable => "unavailable", "503: busy or starting.";
    ClockUnsynced => "clock_unsynced", "503: this instance cannot trust its clock right now (about a second).";
    StorageUnavailable => "storage_unavailable", "503: the storage refuses writes; nothing changed, clocks are credited.";
    HouseBusy => "house_busy", "503: the house plays as many games as it can play well.";
}

impl ErrorCode {
    /// Whether the same request may be sent again, and how long to wait first, given the
    /// answer's HTTP status (agents.md sections 2, 3 and 5): 429 and the 503s that carry
    /// `Retry-After` wait for it; other 5xx and 408 back off; everything else is final.
    #[must_use]
    pub fn retry(&self, status: u16) -> Retry {
        match self {
            ErrorCode::RateLimited
            | ErrorCode::StorageUnavailable
            | ErrorCode::ClockUnsynced
            | ErrorCode::HouseBusy => Retry::AfterRetryAfter,
            ErrorCode::RequestTimeout | ErrorCode::Internal | ErrorCode::Unavailable => {
                Retry::WithBackoff
            }
            _ if status == 429 => Retry::AfterRetryAfter,
            _ if status >= 500 || status == 408 => Retry::WithBackoff,
            _ => Retry::No,
        }
    }

    /// A refused move: the chooser was wrong about the board, not about whose turn it is.
    #[must_use]
    pub fn is_illegal_move(&self) -> bool {
        matches!(
            self,
            ErrorCode::Occupied
                | ErrorCode::OffBoard
                | ErrorCode::SwapNotAllowed
                | ErrorCode::InvalidMove
        )
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ErrorCode, D::Error> {
        String::deserialize(d).map(|s| ErrorCode::parse(&s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn codes_read_and_write_as_their_wire_strings_and_unknown_ones_survive() {
        let e: ErrorEnvelope = serde_json::from_value(json!({"error": {
            "code": "stale_ply", "message": "this move would be ply 3, not 5",
            "details": {"expected_ply": 3, "ply": 2}}}))
        .expect("an envelope");
        assert_eq!(e.error.code, ErrorCode::StalePly);
        assert_eq!(e.error.details["expected_ply"], 3);
        let other = ErrorCode::parse("brand_new");
        assert_eq!(other, ErrorCode::Other("brand_new".into()));
        assert_eq!(
            serde_json::to_value(&other).expect("serializes"),
            json!("brand_new")
        );
        assert_eq!(ErrorCode::parse("house_busy").as_str(), "house_busy");
    }

    #[test]
    fn the_retry_rules_follow_agents_md() {
        assert_eq!(ErrorCode::RateLimited.retry(429), Retry::AfterRetryAfter);
        assert_eq!(
            ErrorCode::StorageUnavailable.retry(503),
            Retry::AfterRetryAfter
        );
        assert_eq!(ErrorCode::ClockUnsynced.retry(503), Retry::AfterRetryAfter);
        assert_eq!(ErrorCode::Unavailable.retry(503), Retry::WithBackoff);
        assert_eq!(ErrorCode::Internal.retry(500), Retry::WithBackoff);
        assert_eq!(ErrorCode::RequestTimeout.retry(408), Retry::WithBackoff);
        assert_eq!(ErrorCode::Other("x".into()).retry(502), Retry::WithBackoff);
        for final_code in [
            ErrorCode::StalePly,
            ErrorCode::GameOver,
            ErrorCode::Unauthorized,
            ErrorCode::Occupied,
        ] {
            assert_eq!(final_code.retry(409), Retry::No, "{final_code}");
        }
    }
}
