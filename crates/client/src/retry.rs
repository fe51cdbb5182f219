//! When to send a request again (agents.md sections 2, 3 and 5): after network trouble, 408
//! and 5xx back off 0.5 s, 1 s, 2 s ... up to 8 s; 429 and the 503s that say when
//! (`storage_unavailable`, `clock_unsynced`, `house_busy`) wait for `Retry-After`. Only for
//! requests that are safe to repeat: reads, moves carrying `?ply=`, accept, decline, cancel,
//! resign.

use std::time::Duration;

use hexarena_contract::Retry;

use crate::error::Error;

/// The backoff of one request's retries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// The first backoff.
    pub first: Duration,
    /// The longest backoff.
    pub max: Duration,
    /// The wait of a 429 that has no `Retry-After`.
    pub rate_limited: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            first: Duration::from_millis(500),
            max: Duration::from_secs(8),
            rate_limited: Duration::from_secs(5),
        }
    }
}

impl RetryPolicy {
    /// How long to wait before retry number `attempt` (0 for the first retry) after `err`,
    /// or None when the request must not be sent again as it is.
    #[must_use]
    pub fn wait(&self, err: &Error, attempt: u32) -> Option<Duration> {
        let backoff = self
            .first
            .saturating_mul(2u32.saturating_pow(attempt.min(16)))
            .min(self.max);
        match err.retry() {
            Retry::No => None,
            Retry::WithBackoff => Some(backoff),
            Retry::AfterRetryAfter => {
                let api = err.api();
                match api.and_then(|e| e.retry_after) {
                    Some(after) => Some(after),
                    None if api.is_some_and(|e| e.status == 429) => Some(self.rate_limited),
                    None => Some(backoff),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{ApiError, NetKind};
    use hexarena_contract::ErrorCode;
    use serde_json::Value;

    fn api(status: u16, code: ErrorCode, retry_after: Option<u64>) -> Error {
        Error::Api(ApiError {
            status,
            code,
            message: String::new(),
            details: Value::Null,
            retry_after: retry_after.map(Duration::from_secs),
        })
    }

    #[test]
    fn network_trouble_and_5xx_back_off_doubling_up_to_eight_seconds() {
        let p = RetryPolicy::default();
        let net = Error::Network {
            kind: NetKind::Connect,
            message: "refused".into(),
        };
        let waits: Vec<u64> = (0..6)
            .map(|a| p.wait(&net, a).expect("retried").as_millis() as u64)
            .collect();
        assert_eq!(waits, [500, 1000, 2000, 4000, 8000, 8000]);
        assert_eq!(
            p.wait(&api(500, ErrorCode::Internal, None), 1),
            Some(Duration::from_secs(1))
        );
        assert_eq!(
            p.wait(&api(408, ErrorCode::RequestTimeout, None), 0),
            Some(Duration::from_millis(500))
        );
    }

    #[test]
    fn a_429_and_the_503s_that_say_when_wait_for_retry_after() {
        let p = RetryPolicy::default();
        assert_eq!(
            p.wait(&api(429, ErrorCode::RateLimited, Some(7)), 3),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            p.wait(&api(429, ErrorCode::RateLimited, None), 0),
            Some(Duration::from_secs(5))
        );
        assert_eq!(
            p.wait(&api(503, ErrorCode::StorageUnavailable, Some(1)), 4),
            Some(Duration::from_secs(1))
        );
        assert_eq!(
            p.wait(&api(503, ErrorCode::ClockUnsynced, None), 1),
            Some(Duration::from_secs(1)),
            "without Retry-After it backs off"
        );
    }

    #[test]
    fn a_refusal_is_never_sent_again() {
        let p = RetryPolicy::default();
        for (status, code) in [
            (409, ErrorCode::StalePly),
            (409, ErrorCode::GameOver),
            (401, ErrorCode::Unauthorized),
            (422, ErrorCode::Occupied),
        ] {
            assert_eq!(
                p.wait(&api(status, code.clone(), Some(1)), 0),
                None,
                "{code}"
            );
        }
    }
}
