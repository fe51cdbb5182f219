//! The arena's HTTP API: [`Transport`] (one base URL over a shared connection pool) and
//! [`Client`] (a transport with a bot token and the typed calls a bot makes).

use std::time::Duration;

use hexarena_contract::{ErrorCode, ErrorEnvelope, GameKey};
use serde_json::Value;

use crate::error::{ApiError, Error};

/// Timeout of an ordinary call.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(15);

/// A successful answer: its status and body (None when empty, as a 204).
#[derive(Debug, Clone)]
pub struct Reply<T> {
    /// The HTTP status (2xx).
    pub status: u16,
    /// The parsed body.
    pub body: Option<T>,
}

mod client;
mod transport;

pub use client::Client;
pub use transport::Transport;

/// The error of a non-2xx answer: its envelope, or `http_<status>` without one.
pub(crate) fn api_error(status: u16, retry_after: Option<Duration>, bytes: &[u8]) -> Error {
    Error::Api(match serde_json::from_slice::<ErrorEnvelope>(bytes) {
        Ok(env) => ApiError {
            status,
            code: env.error.code,
            message: env.error.message,
            details: env.error.details,
            retry_after,
        },
        Err(_) => ApiError {
            status,
            code: ErrorCode::Other(format!("http_{status}")),
            message: String::from_utf8_lossy(bytes).chars().take(200).collect(),
            details: Value::Null,
            retry_after,
        },
    })
}

/// `/v1/sets/{id}/games/{n}`.
#[must_use]
pub fn game_path(key: &GameKey) -> String {
    format!("/v1/sets/{}/games/{}", key.set_id, key.game_no)
}

/// The body of a reply that must have one.
fn required<T>(r: Reply<T>) -> Result<T, Error> {
    r.body.ok_or(Error::Decode {
        status: r.status,
        message: "an empty body".into(),
    })
}

/// A path segment with everything but unreserved characters percent-encoded.
fn path_segment(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// `?k=v&...` of the given parameters (none: empty).
fn query(params: &[(&str, Option<String>)]) -> String {
    let parts: Vec<String> = params
        .iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k}={}", path_segment(v))))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!("?{}", parts.join("&"))
    }
}
