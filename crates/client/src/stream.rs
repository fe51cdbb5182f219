//! Server-sent events (SPEC section 6, agents.md section 2): [`EventStream`] reads one stream
//! through the `sse-stream` decoder and remembers the last id for `Last-Event-ID`; [`feed`]
//! keeps a bot's stream open, resuming after a drop, and long-polls the turn while it is down.

use std::pin::Pin;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use hexarena_contract::{BotEvent, ErrorCode, GameKey, GameState};
use sse_stream::SseByteStream;
use tokio::sync::mpsc;

use crate::error::{Error, error_chain};
use crate::http::{Client, Transport};

/// Nothing at all (not even a keep-alive comment) for this long: the stream is dead.
pub const STREAM_IDLE: Duration = Duration::from_secs(30);
/// Long-poll wait while the stream is down (seconds, as agents.md advises).
pub const TURN_WAIT_S: u64 = 30;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawEvent {
    /// The event's `id:`, if it had one.
    pub id: Option<String>,
    /// The `event:` name (`message` when absent).
    pub event: String,
    /// The `data:` lines joined by `\n`.
    pub data: String,
}

/// Why the bytes under a stream stopped.
#[derive(Debug)]
enum BytesEnd {
    /// Nothing arrived for the idle timeout.
    Idle(Duration),
    /// The connection failed.
    Http(String),
}

impl std::fmt::Display for BytesEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BytesEnd::Idle(d) => write!(f, "nothing for {}s", d.as_secs()),
            BytesEnd::Http(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for BytesEnd {}

type Events = Pin<Box<dyn Stream<Item = Result<sse_stream::Sse, sse_stream::Error>> + Send>>;

/// An open `text/event-stream`.
pub struct EventStream {
    events: Events,
    last_id: Option<String>,
}

impl EventStream {
    /// `GET path` as an event stream, with an optional bearer token and `Last-Event-ID`.
    /// Reading gives up after `idle` without a byte (keep-alive comments count).
    ///
    /// # Errors
    /// Network trouble, or the arena refused the stream (401, 429 for a cap, ...).
    pub async fn open(
        transport: &Transport,
        path: &str,
        token: Option<&str>,
        last_id: Option<&str>,
        idle: Duration,
    ) -> Result<EventStream, Error> {
        let mut rb = transport
            .http()
            .get(format!("{}{path}", transport.base()))
            .header(reqwest::header::ACCEPT, "text/event-stream");
        if let Some(t) = token {
            rb = rb.bearer_auth(t);
        }
        if let Some(id) = last_id {
            rb = rb.header("Last-Event-ID", id);
        }
        let resp = tokio::time::timeout(Duration::from_secs(15), rb.send())
            .await
            .map_err(|_| Error::Network {
                kind: crate::error::NetKind::Timeout,
                message: "no answer".into(),
            })?
            .map_err(|e| Error::network(&e))?;
        let status = resp.status().as_u16();
        if !(200..300).contains(&status) {
            // A cap on held streams answers 429 with `Retry-After` (agents.md section 9).
            let retry_after = resp
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            let text = resp.text().await.unwrap_or_default();
            return Err(crate::http::api_error(status, retry_after, text.as_bytes()));
        }
        // The decoder skips comments, so the idle timeout watches the bytes underneath.
        let bytes = futures_util::stream::unfold(Some(resp), move |resp| async move {
            let mut resp = resp?;
            match tokio::time::timeout(idle, resp.chunk()).await {
                Ok(Ok(Some(b))) => Some((Ok::<Bytes, BytesEnd>(b), Some(resp))),
                Ok(Ok(None)) => None,
                Ok(Err(e)) => Some((Err(BytesEnd::Http(error_chain(&e))), None)),
                Err(_) => Some((Err(BytesEnd::Idle(idle)), None)),
            }
        });
        Ok(EventStream {
            events: Box::pin(SseByteStream::new(bytes)),
            last_id: last_id.map(str::to_string),
        })
    }

    /// The last event id seen (what to send as `Last-Event-ID` on reconnect).
    #[must_use]
    pub fn last_id(&self) -> Option<&str> {
        self.last_id.as_deref()
    }

    /// The next event with data; `Err(why)` once the stream has ended (closed by the
    /// server, broken, or idle).
    ///
    /// # Errors
    /// Why the stream ended.
    pub async fn next(&mut self) -> Result<RawEvent, String> {
        loop {
            match self.events.next().await {
                None => return Err("closed by the server".into()),
                Some(Err(e)) => return Err(error_chain(&e)),
                Some(Ok(sse)) => {
                    if let Some(id) = &sse.id {
                        self.last_id = Some(id.clone());
                    }
                    // Blocks with only an id or `retry:` move the cursor; they are no event.
                    let Some(data) = sse.data else { continue };
                    return Ok(RawEvent {
                        id: sse.id,
                        event: sse.event.unwrap_or_else(|| "message".into()),
                        data,
                    });
                }
            }
        }
    }
}

/// What [`feed`] hands the bot.
#[derive(Debug)]
pub enum FeedItem {
    /// The stream (re)connected: anything may have happened meanwhile.
    Connected,
    /// An event of the stream (boxed: a set view is large).
    Event(Box<BotEvent>),
    /// A game on move, from the long-poll while the stream is down.
    Turn(Box<GameState>),
    /// The token was refused: stop.
    Fatal(String),
}

/// Keeps the bot's event stream open until `tx` closes: resumes after a drop with
/// `Last-Event-ID`, reconnecting with backoff (1 s, 2 s ... 30 s), and long-polls
/// `GET /v1/bots/me/turn` while it is down so no turn waits for the stream.
pub async fn feed(client: Client, tx: mpsc::Sender<FeedItem>) {
    let mut last_id: Option<String> = None;
    let mut backoff = Duration::from_secs(1);
    let mut last_turn: Option<(GameKey, u32)> = None;
    loop {
        let opened = EventStream::open(
            client.transport(),
            "/v1/bots/me/events",
            Some(client.token()),
            last_id.as_deref(),
            STREAM_IDLE,
        )
        .await;
        match opened {
            Ok(mut stream) => {
                backoff = Duration::from_secs(1);
                if tx.send(FeedItem::Connected).await.is_err() {
                    return;
                }
                let why = loop {
                    match stream.next().await {
                        Ok(ev) => match BotEvent::parse(&ev.event, &ev.data) {
                            Ok(e) => {
                                if tx.send(FeedItem::Event(Box::new(e))).await.is_err() {
                                    return;
                                }
                            }
                            Err(e) => {
                                tracing::warn!("event {} {:?} not understood: {e}", ev.event, ev.id)
                            }
                        },
                        Err(why) => {
                            // The cursor to resume from (the stream kept it per event).
                            last_id = stream.last_id().map(str::to_string);
                            break why;
                        }
                    }
                };
                tracing::warn!("event stream lost ({why}); long-polling while reconnecting");
            }
            Err(e) if e.code() == ErrorCode::Unauthorized.as_str() => {
                let _ = tx
                    .send(FeedItem::Fatal(
                        "401 unauthorized: check --token (a bot token, hxb_...)".into(),
                    ))
                    .await;
                return;
            }
            Err(e) => tracing::warn!("event stream: {e}"),
        }
        // Keep playing by long-poll until it is time to try the stream again.
        let retry_at = Instant::now() + backoff;
        backoff = (backoff * 2).min(Duration::from_secs(30));
        while Instant::now() < retry_at {
            let wait_s = retry_at
                .saturating_duration_since(Instant::now())
                .as_secs()
                .clamp(1, TURN_WAIT_S);
            match client.turn(wait_s).await {
                Ok(Some(state)) => {
                    let key = (state.key(), state.ply);
                    if last_turn.as_ref() == Some(&key) {
                        // Still the game we are answering: do not spin on it.
                        tokio::time::sleep(Duration::from_millis(300)).await;
                    }
                    last_turn = Some(key);
                    if tx.send(FeedItem::Turn(Box::new(state))).await.is_err() {
                        return;
                    }
                }
                Ok(None) => {}
                Err(e) if e.code() == ErrorCode::Unauthorized.as_str() => {
                    let _ = tx
                        .send(FeedItem::Fatal(format!(
                            "{e}: check --token (a bot token, hxb_...)"
                        )))
                        .await;
                    return;
                }
                Err(e) => {
                    let wait = e
                        .api()
                        .and_then(|a| a.retry_after)
                        .unwrap_or(Duration::from_secs(1));
                    tracing::debug!("turn poll: {e}");
                    tokio::time::sleep(
                        wait.min(retry_at.saturating_duration_since(Instant::now())),
                    )
                    .await;
                }
            }
        }
    }
}
