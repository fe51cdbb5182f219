//! [`Transport`]: one arena's base URL over a shared connection pool, the untyped calls, and
//! the public calls that need no bot token.

use std::time::Duration;

use hexarena_contract::{BotCreated, GameKey, GameState, PlayerCreated, SetView};
use reqwest::Method;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::{CALL_TIMEOUT, Reply, api_error, game_path, required};
use crate::error::Error;

/// One arena (a base URL) over a connection pool that clones share.
#[derive(Debug, Clone)]
pub struct Transport {
    http: reqwest::Client,
    base: String,
}

impl Transport {
    /// A transport to `base_url` (`http://127.0.0.1:8080`) with its own pool.
    ///
    /// # Errors
    /// The HTTP client could not be built (no TLS backend is needed for `http://`).
    pub fn new(base_url: &str) -> Result<Transport, Error> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| Error::network(&e))?;
        Ok(Transport::with_client(http, base_url))
    }

    /// A transport to `base_url` over an existing pool (several arenas, one pool).
    #[must_use]
    pub fn with_client(http: reqwest::Client, base_url: &str) -> Transport {
        Transport {
            http,
            base: base_url.trim_end_matches('/').to_string(),
        }
    }

    /// The base URL, without a trailing slash.
    #[must_use]
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The pool.
    #[must_use]
    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// One exchange: `method path` with an optional bearer token and JSON body. A 2xx gives
    /// its body parsed as `T` (None when empty); anything else an [`Error`].
    ///
    /// # Errors
    /// Network trouble, an error answer, or a body that is not a `T`.
    pub async fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&(impl Serialize + ?Sized)>,
        timeout: Option<Duration>,
    ) -> Result<Reply<T>, Error> {
        self.call_with(method, path, token, body, timeout, None)
            .await
    }

    /// [`Transport::call`] with one more request header (`name`, `value`), such as a move's
    /// `Hexarena-Info`.
    ///
    /// # Errors
    /// As [`Transport::call`].
    pub async fn call_with<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&(impl Serialize + ?Sized)>,
        timeout: Option<Duration>,
        header: Option<(&str, &str)>,
    ) -> Result<Reply<T>, Error> {
        let mut rb = self.http.request(method, format!("{}{path}", self.base));
        if let Some(t) = token {
            rb = rb.bearer_auth(t);
        }
        if let Some((name, value)) = header {
            rb = rb.header(name, value);
        }
        if let Some(b) = body {
            rb = rb.json(b);
        }
        if let Some(t) = timeout {
            rb = rb.timeout(t);
        }
        let resp = rb.send().await.map_err(|e| Error::network(&e))?;
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(Duration::from_secs_f64);
        let bytes = resp.bytes().await.map_err(|e| Error::network(&e))?;
        if (200..300).contains(&status) {
            if bytes.is_empty() {
                return Ok(Reply { status, body: None });
            }
            let body = serde_json::from_slice(&bytes).map_err(|e| Error::Decode {
                status,
                message: e.to_string(),
            })?;
            return Ok(Reply {
                status,
                body: Some(body),
            });
        }
        Err(api_error(status, retry_after, &bytes))
    }

    /// `GET path` as raw bytes, with its status (for readers that only count answers).
    ///
    /// # Errors
    /// Network trouble.
    pub async fn get_bytes(&self, path: &str) -> Result<(u16, bytes::Bytes), Error> {
        let resp = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .map_err(|e| Error::network(&e))?;
        let status = resp.status().as_u16();
        let body = resp.bytes().await.map_err(|e| Error::network(&e))?;
        Ok((status, body))
    }

    /// `GET path` as text (for `/metrics`), with its status.
    ///
    /// # Errors
    /// Network trouble.
    pub async fn get_text(&self, path: &str) -> Result<(u16, String), Error> {
        let (status, bytes) = self.get_bytes(path).await?;
        Ok((status, String::from_utf8_lossy(&bytes).into_owned()))
    }

    /// `GET path` of a text resource (an SGF export): its body on a 2xx, else the arena's
    /// error. Sent once.
    ///
    /// # Errors
    /// [`Error::Api`] for a non-2xx answer, [`Error::Network`] for no answer.
    pub async fn get_text_ok(&self, path: &str) -> Result<String, Error> {
        let (status, bytes) = self.get_bytes(path).await?;
        if (200..300).contains(&status) {
            Ok(String::from_utf8_lossy(&bytes).into_owned())
        } else {
            Err(super::api_error(status, None, &bytes))
        }
    }

    /// `POST /v1/players`: a new player and its token (shown only now).
    ///
    /// # Errors
    /// As [`Transport::call`]; 400 for a bad name, 429 `rate_limited`.
    pub async fn register_player(&self, name: &str) -> Result<PlayerCreated, Error> {
        let body = json!({ "name": name });
        required(
            self.call(
                Method::POST,
                "/v1/players",
                None,
                Some(&body),
                Some(CALL_TIMEOUT),
            )
            .await?,
        )
    }

    /// `POST /v1/bots` with a player token: a new bot and its token (shown only now).
    ///
    /// # Errors
    /// As [`Transport::call`]; 409 `name_taken`, 400 for a bad name or `max_stake`.
    pub async fn create_bot(
        &self,
        player_token: &str,
        name: &str,
        max_stake: Option<i64>,
    ) -> Result<BotCreated, Error> {
        let mut body = json!({ "name": name });
        if let Some(m) = max_stake {
            body["max_stake"] = json!(m);
        }
        required(
            self.call(
                Method::POST,
                "/v1/bots",
                Some(player_token),
                Some(&body),
                Some(CALL_TIMEOUT),
            )
            .await?,
        )
    }

    /// `GET /v1/sets/{id}/games/{n}` (public).
    ///
    /// # Errors
    /// As [`Transport::call`]; 404 `not_found`.
    pub async fn game(&self, key: &GameKey) -> Result<GameState, Error> {
        required(
            self.call(
                Method::GET,
                &game_path(key),
                None,
                None::<&Value>,
                Some(CALL_TIMEOUT),
            )
            .await?,
        )
    }

    /// `GET /v1/sets/{id}` (public).
    ///
    /// # Errors
    /// As [`Transport::call`]; 404 `not_found`.
    pub async fn set(&self, set_id: &str) -> Result<SetView, Error> {
        required(
            self.call(
                Method::GET,
                &format!("/v1/sets/{set_id}"),
                None,
                None::<&Value>,
                Some(CALL_TIMEOUT),
            )
            .await?,
        )
    }
}
