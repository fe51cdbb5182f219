//! A test client for `text/event-stream` responses (SPEC section 6), shared by the stream
//! tests. It reads the wire exactly, comments included (the keep-alive is part of the
//! contract), which a client library rightly skips: bots use `hexarena-client`'s stream,
//! decoded by the `sse-stream` crate; this parser checks what the server sends.

use std::collections::VecDeque;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::Value;

use super::TestApp;

/// An open event stream, read chunk by chunk.
pub struct EventStream {
    resp: reqwest::Response,
    parser: SseParser,
    items: VecDeque<SseItem>,
}

impl EventStream {
    /// `GET path` with an optional bearer token and `Last-Event-ID`; asserts a 200 with the
    /// `text/event-stream` content type.
    pub async fn open(
        app: &TestApp,
        path: &str,
        token: Option<&str>,
        last_id: Option<&str>,
    ) -> EventStream {
        let mut rb = app.http.get(format!("{}{path}", app.url));
        if let Some(t) = token {
            rb = rb.bearer_auth(t);
        }
        if let Some(id) = last_id {
            rb = rb.header("Last-Event-ID", id);
        }
        let resp = rb.send().await.expect("stream opens");
        assert_eq!(resp.status(), StatusCode::OK, "GET {path}");
        let ctype = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        assert!(
            ctype.starts_with("text/event-stream"),
            "content-type {ctype}"
        );
        EventStream {
            resp,
            parser: SseParser::new(),
            items: VecDeque::new(),
        }
    }

    /// The next event or comment, or None if nothing arrives within `within`.
    pub async fn next_item(&mut self, within: Duration) -> Option<SseItem> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if let Some(item) = self.items.pop_front() {
                return Some(item);
            }
            match tokio::time::timeout_at(deadline, self.resp.chunk()).await {
                Ok(Ok(Some(bytes))) => self.items.extend(self.parser.push(&bytes)),
                Ok(Ok(None)) => panic!("the server closed the stream"),
                Ok(Err(e)) => panic!("stream read failed: {e}"),
                Err(_) => return None,
            }
        }
    }

    /// The next event as (id, kind, data), comments skipped, or None if no event arrives
    /// within `within`.
    pub async fn next_event_within(&mut self, within: Duration) -> Option<(i64, String, Value)> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.next_item(left).await? {
                SseItem::Event(SseEvent { id, event, data }) => {
                    let id = id
                        .expect("every event has an id")
                        .parse()
                        .expect("numeric id");
                    return Some((id, event, serde_json::from_str(&data).expect("JSON data")));
                }
                SseItem::Comment(_) => continue,
            }
        }
    }

    /// The next event; panics after 5 s without one.
    pub async fn next_event(&mut self) -> (i64, String, Value) {
        self.next_event_within(Duration::from_secs(5))
            .await
            .expect("an event within 5 s")
    }
}

/// One dispatched server-sent event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `id:` of this event's block, if it had one.
    pub id: Option<String>,
    /// The `event:` name (`message` when absent).
    pub event: String,
    /// The `data:` lines joined by `\n`.
    pub data: String,
}

/// What the parser found in the byte stream: an event or a comment line (`: keep-alive`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseItem {
    Event(SseEvent),
    Comment(String),
}

/// An incremental `text/event-stream` parser: feed it chunks as they arrive, get items back.
/// Lines end in `\n` or `\r\n`; a blank line dispatches the event collected so far.
#[derive(Debug, Default)]
pub struct SseParser {
    buf: Vec<u8>,
    event: String,
    data: Option<String>,
    id: Option<String>,
    last_id: Option<String>,
}

impl SseParser {
    pub fn new() -> SseParser {
        SseParser::default()
    }

    /// The last event id seen on this stream (what to send as `Last-Event-ID`).
    pub fn last_id(&self) -> Option<&str> {
        self.last_id.as_deref()
    }

    /// Consumes a chunk of bytes; returns the items completed by it.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseItem> {
        self.buf.extend_from_slice(bytes);
        let mut out = vec![];
        let mut start = 0;
        while let Some(nl) = self.buf[start..].iter().position(|&b| b == b'\n') {
            let mut line = &self.buf[start..start + nl];
            if line.last() == Some(&b'\r') {
                line = &line[..line.len() - 1];
            }
            let line = String::from_utf8_lossy(line).into_owned();
            start += nl + 1;
            self.line(&line, &mut out);
        }
        self.buf.drain(..start);
        out
    }

    fn line(&mut self, line: &str, out: &mut Vec<SseItem>) {
        if line.is_empty() {
            let id = self.id.take();
            let event = std::mem::take(&mut self.event);
            if let Some(data) = self.data.take() {
                let event = if event.is_empty() {
                    "message".to_string()
                } else {
                    event
                };
                out.push(SseItem::Event(SseEvent { id, event, data }));
            }
            return;
        }
        if let Some(comment) = line.strip_prefix(':') {
            out.push(SseItem::Comment(comment.trim_start().to_string()));
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = value.to_string(),
            "data" => match &mut self.data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            },
            "id" if !value.contains('\0') => {
                self.id = Some(value.to_string());
                self.last_id = Some(value.to_string());
            }
            _ => {} // `retry:` and unknown fields
        }
    }
}
