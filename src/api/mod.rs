//! The HTTP edge: routes, authentication, bodies, limits. Handlers parse and authenticate, then
//! call the arena; every refusal is an [`ApiError`].

pub mod accounts;
pub mod analysis;
pub mod conformance;
pub mod conns;
pub mod contract;
pub mod games;
pub mod holds;
pub mod matches;
pub mod metrics;
pub mod pool;
pub mod ratelimit;
pub mod request_span;
pub mod sets;
pub mod streams;
pub mod tournaments;

use std::sync::Arc;

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, HttpResponse, web};
use futures_util::StreamExt;
use futures_util::future::LocalBoxFuture;
use serde_json::{Value, json};

use crate::arena::Arena;
use crate::arena::accounts::{BotRow, PlayerRow};
use crate::error::ApiError;

/// Largest accepted request body (SPEC section 10).
pub const BODY_LIMIT: usize = 16 * 1024;
/// Longest time a request body may take to arrive.
pub const BODY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The API description served at `/openapi.yaml`, as it is in the repository (also the
/// source of `Allow` headers, `conformance`).
pub(crate) const OPENAPI_YAML: &str = include_str!("../../openapi.yaml");

/// Shared state of every handler.
pub struct AppState {
    pub arena: Arc<Arena>,
    pub schemas: contract::Schemas,
    pub limits: std::sync::Arc<ratelimit::Limits>,
    /// Caps on open streams and long-polls (issue 17).
    pub holds: std::sync::Arc<holds::Holds>,
    /// Whether client addresses come from `X-Forwarded-For` (see [`holds::client_address`]).
    pub trust_forwarded_for: bool,
}

impl AppState {
    /// The address the per-address caps count this request against.
    pub fn client_address(&self, req: &HttpRequest) -> String {
        holds::client_address(req, self.trust_forwarded_for)
    }

    /// A slot for a stream or long-poll of `bot` from this request's client. Errors: 429.
    pub fn hold(
        &self,
        req: &HttpRequest,
        kind: holds::Kind,
        bot: Option<&str>,
    ) -> Result<holds::Slot, ApiError> {
        self.holds.acquire(kind, bot, &self.client_address(req))
    }
}

/// Registers every API route (the pages are `web::configure`).
///
/// actix tries routes in the order they are registered, and each pattern with a `{segment}`
/// costs a regex search, so the moves and game states (most of the traffic) come first: a move
/// was found after a dozen failed searches, about 7% of its HTTP work (BENCHMARKS.md, issue 22).
/// No path matches both a game route and a route it now precedes, so nothing else changes.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/healthz", web::get().to(healthz));
    games::configure(cfg);
    metrics::configure(cfg);
    contract::configure(cfg);
    accounts::configure(cfg);
    sets::configure(cfg);
    analysis::configure(cfg);
    streams::configure(cfg);
    tournaments::configure(cfg);
    matches::configure(cfg);
    pool::configure(cfg);
}

/// `GET /healthz`: 200 `{"status": "ok"}`, or 503 `storage_unavailable` (with `Retry-After`,
/// `details.since` and `details.error`) while writes fail (SPEC 12; the store's health), or 503
/// `clock_unsynced` (`details.reason`) while this instance's clock is not trusted
/// (`docs/multi-instance.md`).
async fn healthz(st: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let health = &st.arena.store.health;
    match health.down_since_ms() {
        None => {
            st.arena.clock_ok()?;
            Ok(HttpResponse::Ok().json(json!({"status": "ok"})))
        }
        Some(since) => Err(ApiError::from(
            crate::arena::error::ArenaError::storage_unavailable("healthz").with_details(json!({
                "storage": "failing",
                "since": crate::arena::views::rfc3339(since),
                "error": health.cause(),
                "retry_after_s": crate::arena::error::STORAGE_RETRY_S,
            })),
        )),
    }
}

/// Longest wait of a write for the credit of a stall of the process ([`clock_guard`]).
const STALL_CREDIT_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// Refuses every write (any method but GET, HEAD and OPTIONS) at once, before any database
/// wait: with 503 `storage_unavailable` while storage is down (the store's health; a request
/// would otherwise wait for a connection that cannot be opened), and with 503
/// `clock_unsynced` while this instance's clock is not trusted: a move judged on it could be
/// charged time that its bot never used (SPEC 7, 12). Both carry `Retry-After`. A write that
/// finds the process just stalled waits (at most [`STALL_CREDIT_WAIT`]) for the stall's
/// credit and then goes ahead.
pub async fn clock_guard(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
) -> Result<actix_web::dev::ServiceResponse<actix_web::body::BoxBody>, actix_web::Error> {
    use actix_web::ResponseError;
    use actix_web::http::Method;
    let write = ![Method::GET, Method::HEAD, Method::OPTIONS].contains(req.method());
    if write
        && let Some(st) = req.app_data::<web::Data<AppState>>()
        && let Err(e) = st.arena.writes_ok()
    {
        // A stall of the process is credited within milliseconds of its end: wait for that
        // rather than send the bot away for a retry whose wait it would be charged. An
        // outage that ended since the refusal above (a stall already credited) lets it pass.
        let credited = if st.arena.store.health.is_stall() {
            st.arena.stall_credited_within(STALL_CREDIT_WAIT).await
        } else {
            st.arena.writes_ok().is_ok()
        };
        if !credited {
            let resp = ApiError::from(e).error_response();
            return Ok(req.into_response(resp));
        }
    }
    Ok(next.call(req).await?.map_into_boxed_body())
}

/// Drops the client-supplied `Forwarded` and `X-Forwarded-*` headers unless the operator
/// said a proxy sets them (`--trust-forwarded-for`), so nothing downstream (the access log's
/// client address, the caps) can be told a false address.
pub async fn strip_forwarded(
    mut req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
) -> Result<actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>, actix_web::Error> {
    let trusted = req
        .app_data::<web::Data<AppState>>()
        .is_some_and(|st| st.trust_forwarded_for);
    if !trusted {
        let headers = req.headers_mut();
        for name in [
            "forwarded",
            "x-forwarded-for",
            "x-forwarded-host",
            "x-forwarded-proto",
            "x-real-ip",
        ] {
            headers.remove(name);
        }
    }
    next.call(req).await
}

/// JSON 404 for unknown routes, 405 with `Allow` for an unknown method on a known path.
pub async fn not_found(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(conformance::no_route(&req))
}

fn bearer(req: &HttpRequest) -> Result<String, ApiError> {
    let h = req
        .headers()
        .get("authorization")
        .ok_or_else(|| ApiError::unauthorized("missing Authorization: Bearer <token>"))?;
    let s = h
        .to_str()
        .map_err(|_| ApiError::unauthorized("malformed Authorization header"))?;
    // The scheme is case-insensitive (RFC 7235).
    let token = s
        .get(..7)
        .filter(|scheme| scheme.eq_ignore_ascii_case("bearer "))
        .and_then(|_| s.get(7..))
        .map(str::trim)
        .filter(|t| !t.is_empty() && t.len() <= 200)
        .ok_or_else(|| ApiError::unauthorized("expected Authorization: Bearer <token>"))?;
    Ok(token.to_string())
}

fn state(req: &HttpRequest) -> Result<web::Data<AppState>, ApiError> {
    req.app_data::<web::Data<AppState>>()
        .cloned()
        .ok_or_else(|| ApiError::internal("app state missing"))
}

/// The bot whose token authenticated the request.
pub struct AuthBot(pub BotRow);
/// The player whose token authenticated the request.
pub struct AuthPlayer(pub PlayerRow);
/// The operator (token from `ARENA_OPERATOR_TOKEN`).
pub struct AuthOperator;

impl FromRequest for AuthBot {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;
    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let (token, st) = (bearer(req), state(req));
        Box::pin(async move {
            let (token, st) = (token?, st?);
            match st.arena.bot_by_token(&token).await? {
                Some(b) => {
                    tracing::Span::current().record("bot", b.name.as_str());
                    Ok(AuthBot(b))
                }
                None if token.starts_with("hxp_") => Err(ApiError::unauthorized(
                    "this is a player token; this route needs a bot token",
                )),
                None => Err(ApiError::unauthorized("unknown bot token")),
            }
        })
    }
}

impl FromRequest for AuthPlayer {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;
    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let (token, st) = (bearer(req), state(req));
        Box::pin(async move {
            let (token, st) = (token?, st?);
            match st.arena.player_by_token(&token).await? {
                Some(p) => Ok(AuthPlayer(p)),
                None if token.starts_with("hxb_") => Err(ApiError::unauthorized(
                    "this is a bot token; this route needs a player token",
                )),
                None => Err(ApiError::unauthorized("unknown player token")),
            }
        })
    }
}

impl FromRequest for AuthOperator {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;
    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let r = (|| {
            let st = state(req)?;
            let Some(expected) = st.arena.config.operator_token_hash.clone() else {
                return Err(ApiError::forbidden(
                    "operator endpoints are disabled (ARENA_OPERATOR_TOKEN unset)",
                ));
            };
            let token = bearer(req)?;
            if crate::arena::accounts::token_hash(&token) == expected {
                Ok(AuthOperator)
            } else {
                Err(ApiError::unauthorized("not the operator token"))
            }
        })();
        Box::pin(async move { r })
    }
}

/// A JSON request body of at most [`BODY_LIMIT`] bytes; an empty body reads as `{}`.
/// Errors: 413 `payload_too_large`, 400 `bad_request` (not JSON; or a key twice in one object,
/// with `details.key` and the object's `details.instance_path`), 408 `request_timeout`.
/// Handlers check the shape: [`only_fields`] (objects) or a schema (moves).
pub struct JsonBody(pub Value);

impl FromRequest for JsonBody {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;
    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let declared = req
            .headers()
            .get("content-length")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        let mut payload = payload.take();
        Box::pin(async move {
            if declared.is_some_and(|n| n > BODY_LIMIT) {
                return Err(too_large());
            }
            let mut buf = Vec::new();
            let read = async {
                while let Some(chunk) = payload.next().await {
                    let chunk = chunk.map_err(|e| {
                        ApiError::bad_request(format!("could not read the body: {e}"))
                    })?;
                    if buf.len() + chunk.len() > BODY_LIMIT {
                        return Err(too_large());
                    }
                    buf.extend_from_slice(&chunk);
                }
                Ok(())
            };
            // A body that stalls must not hold a connection (and a worker's attention) forever.
            tokio::time::timeout(BODY_TIMEOUT, read)
                .await
                .map_err(|_| {
                    ApiError::new(
                        crate::arena::error::Code::RequestTimeout,
                        format!(
                            "the request body did not arrive within {} s",
                            BODY_TIMEOUT.as_secs()
                        ),
                    )
                })??;
            if buf.iter().all(u8::is_ascii_whitespace) {
                return Ok(JsonBody(json!({})));
            }
            let v: Value = serde_json::from_slice(&buf).map_err(|e| {
                ApiError::bad_request(format!("malformed JSON: {e}"))
                    .with_details(json!({"line": e.line(), "column": e.column()}))
            })?;
            // serde_json keeps the last of two equal keys silently: refuse them instead, so
            // what the client meant is never guessed (issue 17).
            if let Some((key, at)) = duplicate_key(&buf) {
                return Err(ApiError::bad_request(format!(
                    "duplicate key '{key}' in the body (at '{at}')"
                ))
                .with_details(json!({"key": key, "instance_path": at})));
            }
            Ok(JsonBody(v))
        })
    }
}

/// The first key that appears twice in one object of the JSON text `buf`, compared after
/// unescaping, with the JSON Pointer of that object (`""` for the top level); None when
/// every object's keys are distinct (or the text is not JSON: the parse reports that).
pub fn duplicate_key(buf: &[u8]) -> Option<(String, String)> {
    let found = std::cell::RefCell::new(None);
    let mut de = serde_json::Deserializer::from_slice(buf);
    let seed = dup::Check {
        path: String::new(),
        found: &found,
    };
    let _ = serde::de::DeserializeSeed::deserialize(seed, &mut de);
    found.into_inner()
}

/// A visitor over any JSON value that stops at the first duplicate key of an object.
mod dup {
    use std::cell::RefCell;
    use std::collections::HashSet;
    use std::fmt;

    use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

    /// Checks one value at `path`; a duplicate is written to `found` (and ends the walk).
    pub struct Check<'a> {
        pub path: String,
        pub found: &'a RefCell<Option<(String, String)>>,
    }

    impl Check<'_> {
        fn child(&self, step: &str) -> Self {
            // JSON Pointer escapes (RFC 6901).
            let step = step.replace('~', "~0").replace('/', "~1");
            Check {
                path: format!("{}/{step}", self.path),
                found: self.found,
            }
        }
    }

    impl<'de> DeserializeSeed<'de> for Check<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Check<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            let mut i = 0usize;
            while seq.next_element_seed(self.child(&i.to_string()))?.is_some() {
                i += 1;
            }
            Ok(())
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut seen = HashSet::new();
            while let Some(key) = map.next_key::<String>()? {
                if seen.contains(&key) {
                    *self.found.borrow_mut() = Some((key, self.path.clone()));
                    return Err(de::Error::custom("duplicate key"));
                }
                map.next_value_seed(self.child(&key))?;
                seen.insert(key);
            }
            Ok(())
        }
    }
}

fn too_large() -> ApiError {
    ApiError::new(
        crate::arena::error::Code::PayloadTooLarge,
        format!("request bodies are limited to {BODY_LIMIT} bytes"),
    )
    .with_details(json!({"limit_bytes": BODY_LIMIT}))
}

/// What each query parameter of the API takes, for the 400 that names it (openapi.yaml).
const QUERY_PARAMS: &[(&str, QueryKind)] = &[
    ("wait_s", QueryKind::NonNegative),
    ("offset", QueryKind::NonNegative),
    ("limit", QueryKind::Integer),
    ("before", QueryKind::Integer),
    ("after_ply", QueryKind::Integer),
    ("ply", QueryKind::Integer),
    ("provisional", QueryKind::Boolean),
    ("online", QueryKind::Boolean),
];

#[derive(Clone, Copy)]
enum QueryKind {
    Integer,
    NonNegative,
    Boolean,
}

impl QueryKind {
    fn expected(self) -> &'static str {
        match self {
            QueryKind::Integer => "an integer",
            QueryKind::NonNegative => "a non-negative integer",
            QueryKind::Boolean => "true or false",
        }
    }

    fn accepts(self, text: &str) -> bool {
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        match self {
            QueryKind::Integer => digits(text.strip_prefix(['-', '+']).unwrap_or(text)),
            QueryKind::NonNegative => digits(text.strip_prefix('+').unwrap_or(text)),
            QueryKind::Boolean => text == "true" || text == "false",
        }
    }
}

/// The 400 for a query parameter that does not hold what it takes: `details.field`,
/// `details.expected` and `details.value` (SPEC section 10).
pub fn bad_query_param(field: &str, expected: &str, value: &str) -> ApiError {
    ApiError::bad_request(format!(
        "query parameter '{field}' must be {expected}, not '{value}'"
    ))
    .with_details(json!({"field": field, "expected": expected, "value": value}))
}

/// Query strings that do not parse are 400 `bad_request` in the JSON envelope, naming the
/// first parameter that does not hold what it takes, else the first one given twice.
pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|e, req| {
        let pairs = web::Query::<Vec<(String, String)>>::from_query(req.query_string())
            .map(web::Query::into_inner)
            .unwrap_or_default();
        let culprit = pairs.iter().find_map(|(k, v)| {
            QUERY_PARAMS
                .iter()
                .find(|(name, kind)| name == k && !kind.accepts(v))
                .map(|(name, kind)| bad_query_param(name, kind.expected(), v))
        });
        let repeated = || {
            pairs.iter().enumerate().find_map(|(i, (k, _))| {
                pairs[..i].iter().any(|(p, _)| p == k).then(|| {
                    ApiError::bad_request(format!("query parameter '{k}' is given more than once"))
                        .with_details(json!({"field": k}))
                })
            })
        };
        culprit
            .or_else(repeated)
            .unwrap_or_else(|| ApiError::bad_request(format!("bad query string: {e}")))
            .into()
    })
}

/// Path segments that do not parse are 404 `not_found`.
pub fn path_config() -> web::PathConfig {
    web::PathConfig::default()
        .error_handler(|e, _| ApiError::not_found(format!("bad path: {e}")).into())
}

/// Reads an optional string field of a body. Errors: 400 naming the field.
pub fn opt_str<'a>(body: &'a Value, field: &str) -> Result<Option<&'a str>, ApiError> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ApiError::bad_request(format!("'{field}' must be a string"))
            .with_details(json!({"field": field}))),
    }
}

/// Reads an optional boolean field of a body. Errors: 400 naming the field.
pub fn opt_bool(body: &Value, field: &str) -> Result<Option<bool>, ApiError> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(
            ApiError::bad_request(format!("'{field}' must be true or false"))
                .with_details(json!({"field": field})),
        ),
    }
}

/// Reads an optional integer field of a body. Errors: 400 naming the field.
pub fn opt_i64(body: &Value, field: &str) -> Result<Option<i64>, ApiError> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => contract::integral(v).map(Some).ok_or_else(|| {
            ApiError::bad_request(format!("'{field}' must be an integer"))
                .with_details(json!({"field": field}))
        }),
    }
}

/// A list's `limit`: `default` when absent, at most `max`. Errors: 400 below 1.
pub fn page_limit(limit: Option<i64>, default: i64, max: i64) -> Result<i64, ApiError> {
    match limit {
        None => Ok(default),
        Some(n) if n >= 1 => Ok(n.min(max)),
        Some(n) => Err(
            ApiError::bad_request(format!("limit must be at least 1, not {n}"))
                .with_details(json!({"field": "limit", "min": 1, "max": max})),
        ),
    }
}

/// Refuses fields a body does not know, so typos do not pass silently. Errors: 400
/// `bad_request` with `details.field` (the unknown field) and `details.allowed`.
pub fn only_fields(body: &Value, allowed: &[&str]) -> Result<(), ApiError> {
    only_fields_at(body, "", allowed)
}

/// [`only_fields`] for the object at `path` inside a body (`"clock"`, `"sprt"`; `""` for
/// the body itself): the unknown field is named by its whole path (`clock.initial`), as the
/// range errors of the same object are, with the fields that object allows.
pub fn only_fields_at(value: &Value, path: &str, allowed: &[&str]) -> Result<(), ApiError> {
    let Some(o) = value.as_object() else {
        return Err(if path.is_empty() {
            ApiError::bad_request("the body must be a JSON object")
        } else {
            ApiError::bad_request(format!("'{path}' must be a JSON object"))
                .with_details(json!({"field": path, "allowed": allowed}))
        });
    };
    if let Some(k) = o.keys().find(|k| !allowed.contains(&k.as_str())) {
        let field = if path.is_empty() {
            k.clone()
        } else {
            format!("{path}.{k}")
        };
        return Err(ApiError::bad_request(format!("unknown field '{field}'"))
            .with_details(json!({"field": field, "allowed": allowed})));
    }
    Ok(())
}

/// A body's `clock` object (`initial_s`, `increment_s`, seconds; absent or null: the
/// defaults), its fields named by their whole path in errors (`clock.initial_s`). Ranges are
/// checked by [`ClockRequest::resolve`](crate::arena::options::ClockRequest::resolve).
/// Errors: 400 `bad_request` for an unknown field, a value not an object or not an integer.
pub fn clock_request(body: &Value) -> Result<crate::arena::options::ClockRequest, ApiError> {
    let clock = match body.get("clock") {
        None | Some(Value::Null) => return Ok(Default::default()),
        Some(v) => v,
    };
    only_fields_at(clock, "clock", &["initial_s", "increment_s"])?;
    let int = |name: &str| {
        opt_i64(clock, name).map_err(|_| {
            ApiError::bad_request(format!("'clock.{name}' must be an integer"))
                .with_details(json!({"field": format!("clock.{name}")}))
        })
    };
    Ok(crate::arena::options::ClockRequest {
        initial_s: int("initial_s")?,
        increment_s: int("increment_s")?,
    })
}

/// Query-string integers as `openapi.yaml` describes them: any run of digits (with an
/// optional sign) is an integer, however long. Values beyond the Rust type saturate at its
/// bounds, so a clamped parameter (`limit`, `wait_s`) clamps a huge value instead of refusing
/// it, and a comparison parameter (`after_ply`, `ply`, `before`) compares it as the largest
/// value there is. Anything else (a fraction, letters, an empty value) is still an error.
pub mod query_int {
    use serde::{Deserialize, Deserializer, de::Error};
    use std::borrow::Cow;

    /// The text of a query value split into its sign and digits, if it is an integer.
    fn split(text: &str) -> Option<(bool, &str)> {
        let (negative, digits) = match text.as_bytes().first() {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .then_some((negative, digits))
    }

    fn invalid<E: Error>(text: &str, what: &str) -> E {
        E::custom(format!("'{text}' is not {what}"))
    }

    /// An optional signed integer, saturating at `i64::MIN` and `i64::MAX`.
    pub fn i64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
        let Some(text) = Option::<Cow<'de, str>>::deserialize(d)? else {
            return Ok(None);
        };
        let (negative, _) = split(&text).ok_or_else(|| invalid(&text, "an integer"))?;
        // Only digits after the sign: the parse fails only by overflow.
        let saturated = if negative { i64::MIN } else { i64::MAX };
        Ok(Some(text.parse::<i64>().unwrap_or(saturated)))
    }

    /// An optional non-negative integer, saturating at `u64::MAX`; a sign of minus is an
    /// error (`-0` included), as for a plain `u64`.
    pub fn u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        let Some(text) = Option::<Cow<'de, str>>::deserialize(d)? else {
            return Ok(None);
        };
        match split(&text) {
            Some((false, digits)) => Ok(Some(digits.parse::<u64>().unwrap_or(u64::MAX))),
            _ => Err(invalid(&text, "a non-negative integer")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::duplicate_key;

    #[test]
    fn a_key_twice_in_any_object_is_found_with_the_pointer_of_its_object() {
        assert_eq!(
            duplicate_key(br#"{"cell":[1,2],"cell":[3,4]}"#),
            Some(("cell".into(), "".into()))
        );
        assert_eq!(
            duplicate_key(br#"{"a":{"b":[{"x":1},{"y":1,"y":2}]}}"#),
            Some(("y".into(), "/a/b/1".into()))
        );
        // Compared after unescaping; pointer steps escaped as RFC 6901 says.
        assert_eq!(
            duplicate_key(br#"{"a/b":{"k":1,"\u006b":2}}"#),
            Some(("k".into(), "/a~1b".into()))
        );
        assert_eq!(duplicate_key(br#"{"a":1,"b":{"a":2},"c":[{"a":3}]}"#), None);
        assert_eq!(duplicate_key(br#"[1,"x",null,true,-2.5e3]"#), None);
    }

    #[actix_web::test]
    async fn a_client_supplied_forwarded_address_never_reaches_the_request_untrusted() {
        use super::strip_forwarded;
        use actix_web::{App, HttpRequest, HttpResponse, test, web};
        let app = test::init_service(
            App::new()
                .wrap(actix_web::middleware::from_fn(strip_forwarded))
                .service(web::resource("/ip").to(|req: HttpRequest| async move {
                    let ip = req
                        .connection_info()
                        .realip_remote_addr()
                        .map(str::to_string);
                    HttpResponse::Ok().body(ip.unwrap_or_default())
                })),
        )
        .await;
        let req = test::TestRequest::get()
            .uri("/ip")
            .peer_addr("192.0.2.7:5000".parse().expect("an address"))
            .insert_header(("X-Forwarded-For", "10.0.0.129"))
            .insert_header(("Forwarded", "for=10.0.0.130"))
            .to_request();
        let body = test::call_and_read_body(&app, req).await;
        assert_eq!(&body[..], b"192.0.2.7", "the TCP peer, not a header");
    }
}
