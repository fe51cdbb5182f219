//! The bench's HTTP side: one transport per instance, the calls with their error counts, and
//! why a request failed.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use hexarena_client::{Error, Transport};
use reqwest::Method;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Why a request did not give the expected answer.
#[derive(Debug)]
pub(super) enum Failure {
    /// A non-success status with the envelope's `error.code` and any `Retry-After`, seconds.
    Status {
        status: u16,
        code: String,
        retry_after_s: Option<u64>,
    },
    /// No answer, or an answer that could not be read.
    Transport(String),
}

impl Failure {
    pub(super) fn key(&self) -> String {
        match self {
            Failure::Status { status, code, .. } => format!("{status} {code}"),
            Failure::Transport(e) => format!("transport: {e}"),
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        match e {
            Error::Api(a) => Failure::Status {
                status: a.status,
                code: match a.code.as_str() {
                    c if c.starts_with("http_") => "no_envelope".to_string(),
                    c => c.to_string(),
                },
                retry_after_s: a.retry_after.map(|d| d.as_secs()),
            },
            Error::Network { kind, .. } => Failure::Transport(kind.as_str().to_string()),
            Error::Decode { message, .. } => Failure::Transport(format!("bad JSON: {message}")),
            Error::Stopped(why) => Failure::Transport(why),
        }
    }
}

/// The instances (one transport each, one shared pool) and the error counts of the run.
pub(super) struct Http {
    /// One per `--url` (at least one).
    pub(super) bases: Vec<Transport>,
    pub(super) errors: Mutex<BTreeMap<String, u64>>,
}

impl Http {
    pub(super) async fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Result<T, Failure> {
        self.call_at(0, method, path, token, body).await
    }

    /// The transport of instance `at` (mod the count).
    pub(super) fn base(&self, at: usize) -> &Transport {
        &self.bases[at % self.bases.len()]
    }

    /// As `call`, on instance `at`.
    pub(super) async fn call_at<T: DeserializeOwned>(
        &self,
        at: usize,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Result<T, Failure> {
        let reply = self
            .base(at)
            .call::<T>(method, path, token, body, None)
            .await?;
        reply
            .body
            .ok_or_else(|| Failure::Transport("an empty answer".into()))
    }

    /// `GET path`, counting 2xx; used by the read phases, which ignore the bodies.
    pub(super) async fn get_ok(&self, at: usize, path: &str) -> bool {
        match self.base(at).get_bytes(path).await {
            Ok((status, _)) if (200..300).contains(&status) => return true,
            Ok((status, _)) => self.count(&Failure::Status {
                status,
                code: "read".into(),
                retry_after_s: None,
            }),
            Err(e) => self.count(&Failure::from(e)),
        }
        false
    }

    pub(super) fn count(&self, f: &Failure) {
        if let Ok(mut m) = self.errors.lock() {
            *m.entry(f.key()).or_default() += 1;
        }
    }

    /// Counts the failure, then waits before the caller retries: `Retry-After` for 429 (at
    /// most until `deadline`), a short pause otherwise.
    pub(super) async fn back_off(&self, f: &Failure, deadline: Instant) {
        self.count(f);
        let pause = match f {
            Failure::Status {
                retry_after_s: Some(s),
                ..
            } => Duration::from_secs(*s),
            _ => Duration::from_millis(50),
        };
        let left = deadline.saturating_duration_since(Instant::now());
        tokio::time::sleep(pause.min(left)).await;
    }
}
