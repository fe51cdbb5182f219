//! A test client for `text/event-stream` responses (SPEC section 6), on the server's own
//! [`SseParser`], shared by the stream tests.

use std::collections::VecDeque;
use std::time::Duration;

use hexarena::client::{SseEvent, SseItem, SseParser};
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
