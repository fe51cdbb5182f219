//! Why a call gave no usable answer.

use std::time::Duration;

use hexarena_contract::{ErrorCode, Retry};
use serde_json::Value;

/// What kind of network trouble (the load tools group their counts by it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NetKind {
    /// No answer in time.
    Timeout,
    /// The connection could not be made.
    Connect,
    /// The answer's body could not be read.
    Body,
    /// Anything else about sending the request.
    Request,
}

impl NetKind {
    /// `timeout`, `connect`, `body` or `request`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            NetKind::Timeout => "timeout",
            NetKind::Connect => "connect",
            NetKind::Body => "body",
            NetKind::Request => "request",
        }
    }
}

/// An error answer of the arena (or a non-2xx status without an envelope).
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: u16,
    /// The envelope's code (`http_<status>` as [`ErrorCode::Other`] without an envelope).
    pub code: ErrorCode,
    /// For humans.
    pub message: String,
    /// The envelope's details (Null without one).
    pub details: Value,
    /// The `Retry-After` header.
    pub retry_after: Option<Duration>,
}

/// Why a call failed.
#[derive(Debug, Clone)]
pub enum Error {
    /// No answer: refused, reset, timed out, unreadable.
    Network {
        /// What kind.
        kind: NetKind,
        /// The cause, with its chain.
        message: String,
    },
    /// The arena answered with an error.
    Api(ApiError),
    /// A success whose body is not what the contract says.
    Decode {
        /// The HTTP status.
        status: u16,
        /// What did not parse.
        message: String,
    },
    /// The bot stopped (the token was refused, the bot cannot play the sets asked for, ...).
    Stopped(String),
}

impl Error {
    /// The error code, `network`, `decode` or `stopped`.
    #[must_use]
    pub fn code(&self) -> &str {
        match self {
            Error::Network { .. } => "network",
            Error::Api(e) => e.code.as_str(),
            Error::Decode { .. } => "decode",
            Error::Stopped(_) => "stopped",
        }
    }

    /// The arena's error, if it answered with one.
    #[must_use]
    pub fn api(&self) -> Option<&ApiError> {
        match self {
            Error::Api(e) => Some(e),
            _ => None,
        }
    }

    /// Whether the same request may be sent again (agents.md sections 3 and 5).
    #[must_use]
    pub fn retry(&self) -> Retry {
        match self {
            Error::Network { .. } => Retry::WithBackoff,
            Error::Api(e) => e.code.retry(e.status),
            Error::Decode { .. } | Error::Stopped(_) => Retry::No,
        }
    }

    pub(crate) fn network(e: &reqwest::Error) -> Error {
        let kind = if e.is_timeout() {
            NetKind::Timeout
        } else if e.is_connect() {
            NetKind::Connect
        } else if e.is_body() || e.is_decode() {
            NetKind::Body
        } else {
            NetKind::Request
        };
        Error::Network {
            kind,
            message: error_chain(e),
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Network { message, .. } => write!(f, "network error: {message}"),
            Error::Api(e) => write!(f, "{} {}: {}", e.status, e.code, e.message),
            Error::Decode { status, message } => {
                write!(
                    f,
                    "{status}: an answer the contract does not describe: {message}"
                )
            }
            Error::Stopped(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for Error {}

/// An error with its causes (reqwest's own message hides the interesting part).
#[must_use]
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}
