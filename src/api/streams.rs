//! Server-sent-event streams (SPEC section 6): a bot's own stream and each game's public one.
//! Events are read from the `events` table, so ids increase across restarts and instances and a
//! client reconnecting with `Last-Event-ID` is sent exactly what it missed, in order.

use std::sync::Arc;
use std::time::Duration;

use actix_web::{HttpRequest, Responder, web};
use actix_web_lab::sse::{self, Sse};
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;

use super::holds::{Kind, Slot};
use super::{AppState, AuthBot};
use crate::arena::error::ArenaResult;
use crate::arena::feeds::{EventRow, LOBBY};
use crate::arena::live::Snapshot;
use crate::arena::play::StateMarker;
use crate::arena::{Arena, Change};
use crate::error::ApiResult;

/// A comment line at least this often keeps idle connections open.
pub const KEEP_ALIVE: Duration = Duration::from_secs(8);

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/v1/bots/me/events", web::get().to(bot_events))
        .route("/v1/sets/{id}/games/{n}/events", web::get().to(game_events))
        .route("/v1/events", web::get().to(public_events));
}

fn last_event_id(req: &HttpRequest) -> Option<i64> {
    req.headers()
        .get("last-event-id")?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

fn data(id: i64, kind: &str, payload: String) -> sse::Event {
    sse::Event::Data(
        sse::Data::new(payload)
            .event(kind.to_string())
            .id(id.to_string()),
    )
}

/// Which stream a task serves.
#[derive(Clone)]
enum Feed {
    Bot(String),
    Game(String, i64),
}

impl Feed {
    /// Whether a change may concern this stream (PostgreSQL: then read the database).
    fn relevant(&self, c: &Change) -> bool {
        match self {
            Feed::Bot(id) => c.bots.iter().any(|b| b == id || b == LOBBY),
            Feed::Game(s, n) => &c.set_id == s && c.game_no.is_none_or(|g| g == *n),
        }
    }

    /// Whether this stream carries an event with this audience, set, game and kind.
    fn wants(
        &self,
        bot: Option<&str>,
        set_id: Option<&str>,
        game_no: Option<i64>,
        kind: &str,
    ) -> bool {
        match self {
            Feed::Bot(id) => bot.is_some_and(|b| b == id || b == LOBBY),
            Feed::Game(s, n) => {
                (kind == "state" || kind == "analysis")
                    && set_id == Some(s.as_str())
                    && game_no == Some(*n)
            }
        }
    }

    /// Stored events after `after` and up to `upto` (at most a page of 200), read from the
    /// database.
    async fn after(&self, arena: &Arena, after: i64, upto: i64) -> ArenaResult<Vec<EventRow>> {
        match self {
            Feed::Bot(id) => arena.bot_events_after(id, after, upto, PAGE).await,
            Feed::Game(s, n) => arena.game_events_after(s, *n, after, upto, PAGE).await,
        }
    }

    /// The SSE event for a stored event this stream carries, with the game state rendered
    /// from `state` when given (a live event), else from memory or the stored moves.
    async fn render(
        &self,
        arena: &Arena,
        ev: Stored<'_>,
        state: Option<&Snapshot>,
    ) -> Option<sse::Event> {
        let Stored {
            id,
            kind,
            set_id,
            game_no,
            payload,
        } = ev;
        let marker = StateMarker::parse(payload);
        let (Some(m), Some(set_id), Some(game_no)) = (marker, set_id, game_no) else {
            // Events about sets, and game events stored whole before the small format.
            if kind == "challenge"
                && let Feed::Bot(bot) = self
                && !may_accept(arena, bot, set_id).await
            {
                return None;
            }
            return Some(data(id, kind, payload.to_string()));
        };
        let body = match state {
            Some(s) => s.body(),
            None => match arena.state_body_at(set_id, game_no, m).await {
                Ok(b) => b,
                Err(e) => {
                    tracing::warn!(error = %e, set_id, game_no, "stream state could not be rebuilt");
                    return None;
                }
            },
        };
        Some(match (self, kind) {
            (Feed::Game(..), _) => data(id, "state", body),
            (Feed::Bot(_), "state") => data(id, "your_turn", format!("{{\"state\":{body}}}")),
            (Feed::Bot(_), _) => data(id, kind, format!("{{\"state\":{body}}}")),
        })
    }
}

/// A stored event as a stream sees it, from a row or from memory.
#[derive(Clone, Copy)]
struct Stored<'a> {
    id: i64,
    kind: &'a str,
    set_id: Option<&'a str>,
    game_no: Option<i64>,
    payload: &'a str,
}

/// Events read from the database per query.
const PAGE: i64 = 200;

/// Whether `bot_id` may accept the set of a `challenge` event (the accept's own rules, see
/// [`Arena::may_accept`]).
async fn may_accept(arena: &Arena, bot_id: &str, set_id: Option<&str>) -> bool {
    match set_id {
        Some(set_id) => arena.may_accept_ids(bot_id, set_id).await,
        None => true,
    }
}

/// Forwards events after `cursor` to `tx` until the client goes away: first what the database
/// holds after the cursor, then live events as they are committed. On SQLite every commit is
/// broadcast in id order with its events and rendered states, so a stream that keeps up
/// never reads the database; lagging behind sends it back to the database. On PostgreSQL a
/// relevant wake-up (local, or pushed from another instance by [`crate::arena::cluster`])
/// reads the database once the committed watermark has passed the change's events, and
/// never beyond the watermark, so an event committing late is not skipped. No timer reads the
/// database on its own.
async fn pump(arena: Arc<Arena>, feed: Feed, mut cursor: i64, tx: mpsc::Sender<sse::Event>) {
    let mut rx = arena.changes.subscribe();
    let from_memory = arena.streams_from_memory();
    // On opening, after lagging and after a resync the watermark is computed afresh; after a
    // wake-up it has already been brought up to the change's events.
    let mut fresh = true;
    loop {
        // Catch up from the database, up to what is known committed.
        let upto = if fresh && !from_memory {
            match arena.watermark.fresh(&arena.store).await {
                Ok(w) => w,
                Err(e) => {
                    tracing::warn!(error = %e, "event watermark failed");
                    arena.watermark.current()
                }
            }
        } else {
            arena.watermark.current()
        };
        fresh = false;
        loop {
            let rows = match feed.after(&arena, cursor, upto).await {
                Ok(rows) => rows,
                Err(e) => {
                    tracing::warn!(error = %e, "event stream read failed");
                    break;
                }
            };
            let full = rows.len() as i64 == PAGE;
            for r in rows {
                cursor = r.id;
                let stored = Stored {
                    id: r.id,
                    kind: &r.kind,
                    set_id: r.set_id.as_deref(),
                    game_no: r.game_no,
                    payload: &r.payload,
                };
                let ev = feed.render(&arena, stored, None).await;
                if let Some(ev) = ev
                    && tx.send(ev).await.is_err()
                {
                    return;
                }
            }
            if !full {
                break;
            }
        }
        // Then live.
        loop {
            let change = tokio::select! {
                _ = tx.closed() => return,
                // A graceful stop ends the stream at once (the client reconnects elsewhere
                // or after the restart, resuming with `Last-Event-ID`).
                () = arena.stopped() => return,
                c = rx.recv() => c,
            };
            let change = match change {
                Ok(c) => c,
                Err(RecvError::Lagged(_)) => {
                    fresh = true;
                    break;
                }
                Err(RecvError::Closed) => return,
            };
            if change.resync {
                fresh = true;
                break;
            }
            if !from_memory {
                if feed.relevant(&change) {
                    arena.watermark.reach(change.max_event_id).await;
                    break;
                }
                continue;
            }
            for ev in &change.events {
                if ev.id <= cursor {
                    continue;
                }
                cursor = ev.id;
                if !feed.wants(ev.bot.as_deref(), Some(&ev.set_id), ev.game_no, ev.kind) {
                    continue;
                }
                let stored = Stored {
                    id: ev.id,
                    kind: ev.kind,
                    set_id: Some(&ev.set_id),
                    game_no: ev.game_no,
                    payload: &ev.payload,
                };
                let out = feed.render(&arena, stored, ev.state.as_deref()).await;
                if let Some(out) = out
                    && tx.send(out).await.is_err()
                {
                    return;
                }
            }
        }
    }
}

/// `GET /v1/bots/me/events`: `challenge`, `set_started`, `your_turn`, `game_finished`,
/// `set_finished`. A new connection first gets `your_turn` for every game on move and
/// `challenge` for every set it may accept; a reconnection with `Last-Event-ID` gets the missed events.
#[tracing::instrument(skip_all, fields(bot = %bot.name))]
async fn bot_events(
    st: web::Data<AppState>,
    AuthBot(bot): AuthBot,
    req: HttpRequest,
) -> ApiResult<impl Responder> {
    // Before any reading: a refused open costs nothing.
    let slot = st.hold(&req, Kind::Stream, Some(&bot.id))?;
    let arena = st.arena.clone();
    // Subscribed before anything is read: a rotation from here on ends this stream (issue 20).
    let revoked = arena.revoked_tokens.subscribe();
    let token_hash = crate::arena::accounts::token_hash(&super::bearer(&req)?);
    let mut snapshot = vec![];
    let cursor = match last_event_id(&req) {
        Some(id) => {
            let id = arena.resume_cursor(id).await?;
            // A turn the bot saw before it dropped, and still has to play, is not among the
            // missed events: send it again so a restarted bot never loses on time.
            for (set_id, game_no) in arena.turns_to_play(&bot.id, Some(id)).await? {
                let state = arena.game_state_body(&set_id, game_no).await?;
                snapshot.push(data(id, "your_turn", format!("{{\"state\":{state}}}")));
            }
            id
        }
        None => {
            // Every event committed before this point is reflected in the snapshot below.
            let cursor = arena.watermark_now().await?;
            for view in arena.challenges_for(&bot).await? {
                snapshot.push(data(cursor, "challenge", json!({"set": view}).to_string()));
            }
            for (set_id, game_no) in arena.turns_to_play(&bot.id, None).await? {
                let state = arena.game_state_body(&set_id, game_no).await?;
                snapshot.push(data(cursor, "your_turn", format!("{{\"state\":{state}}}")));
            }
            cursor
        }
    };
    // Room for the whole snapshot: none of it may be dropped (a lost `your_turn` loses on time).
    let (tx, rx) = mpsc::channel(snapshot.len() + 64);
    for ev in snapshot {
        let _ = tx.try_send(ev);
    }
    arena.presence_while_open(&bot.id, tx.clone()); // presence (SPEC 14) while connected
    let open = arena.metrics.stream_opened(); // counted until the pump ends with the connection
    tokio::spawn(async move {
        pump(arena, Feed::Bot(bot.id), cursor, tx).await;
        drop(open)
    });
    Ok(
        Sse::from_infallible_stream(holding_until_revoked(rx, slot, revoked, token_hash))
            .with_keep_alive(KEEP_ALIVE)
            .with_retry_duration(Duration::from_secs(2)),
    )
}

/// `GET /v1/sets/{id}/games/{n}/events` (public): `state` with the whole game state, first on
/// connect and then on every change.
#[tracing::instrument(skip(st, req), fields(set_id = %path.0, game_no = path.1))]
async fn game_events(
    st: web::Data<AppState>,
    path: web::Path<(String, i64)>,
    req: HttpRequest,
) -> ApiResult<impl Responder> {
    let (set_id, game_no) = path.into_inner();
    let slot = st.hold(&req, Kind::Stream, None)?;
    let arena = st.arena.clone();
    let (tx, rx) = mpsc::channel(64);
    let cursor = match last_event_id(&req) {
        Some(id) => {
            arena.game_snapshot(&set_id, game_no).await?; // 404 for unknown games
            arena.resume_cursor(id).await?
        }
        None => {
            let cursor = arena.watermark_now().await?;
            let text = arena.game_state_body(&set_id, game_no).await?;
            let _ = tx.try_send(data(cursor, "state", text));
            cursor
        }
    };
    let open = arena.metrics.stream_opened(); // counted until the pump ends with the connection
    tokio::spawn(async move {
        pump(arena, Feed::Game(set_id, game_no), cursor, tx).await;
        drop(open)
    });
    Ok(Sse::from_infallible_stream(holding(rx, slot))
        .with_keep_alive(KEEP_ALIVE)
        .with_retry_duration(Duration::from_secs(2)))
}

/// `GET /v1/events` (public, issue 14): a `set` event `{"set_id": ...}` whenever a set is
/// created, accepted, cancelled, started or finished, or one of its games ends, so the front
/// page refreshes its lists when something changed instead of on a timer. Carries no
/// `Last-Event-ID` replay: a reconnecting client reloads the lists. On PostgreSQL it hears
/// every instance's changes (through their notices); after this instance's listener lost its
/// connection, `{"set_id": null}` tells clients to reload everything.
async fn public_events(st: web::Data<AppState>, req: HttpRequest) -> ApiResult<impl Responder> {
    let slot = st.hold(&req, Kind::Stream, None)?;
    let arena = st.arena.clone();
    let mut rx = st.arena.changes.subscribe_listed();
    let (tx, out) = mpsc::channel(64);
    let open = st.arena.metrics.stream_opened();
    tokio::spawn(async move {
        loop {
            let change = tokio::select! {
                _ = tx.closed() => break,
                () = arena.stopped() => break,
                c = rx.recv() => c,
            };
            let ev = match change {
                Ok(c) if c.resync => json!({"set_id": null}),
                Ok(c) if c.listed() => json!({"set_id": c.set_id}),
                Ok(_) => continue,
                // Missed some: tell the client to reload everything.
                Err(RecvError::Lagged(_)) => json!({"set_id": null}),
                Err(RecvError::Closed) => break,
            };
            let ev = sse::Event::Data(sse::Data::new(ev.to_string()).event("set"));
            if tx.send(ev).await.is_err() {
                break;
            }
        }
        drop(open)
    });
    Ok(Sse::from_infallible_stream(holding(out, slot))
        .with_keep_alive(KEEP_ALIVE)
        .with_retry_duration(Duration::from_secs(2)))
}

/// The events of `rx` as a response body that owns `slot`: actix drops the body when the
/// stream ends or the client goes away, and the slot is free at that moment (issue 17).
/// As [`holding`], ending as soon as the token that opened the stream is revoked (a rotation,
/// issue 20): the receiver is dropped, so the pump and the presence hold end with it.
fn holding_until_revoked(
    rx: mpsc::Receiver<sse::Event>,
    slot: Slot,
    revoked: tokio::sync::broadcast::Receiver<std::sync::Arc<str>>,
    token_hash: String,
) -> impl futures_util::Stream<Item = sse::Event> {
    futures_util::stream::unfold(
        (rx, slot, revoked, token_hash),
        |(mut rx, slot, mut revoked, hash)| async move {
            loop {
                tokio::select! {
                    ev = rx.recv() => return Some((ev?, (rx, slot, revoked, hash))),
                    r = revoked.recv() => match r {
                        Ok(h) if *h == *hash => return None,
                        Ok(_) | Err(RecvError::Lagged(_)) => {}
                        Err(RecvError::Closed) => {
                            // No more rotations can come: only the events matter now.
                            let ev = rx.recv().await?;
                            return Some((ev, (rx, slot, revoked.resubscribe(), hash)));
                        }
                    },
                }
            }
        },
    )
}

fn holding(
    rx: mpsc::Receiver<sse::Event>,
    slot: Slot,
) -> impl futures_util::Stream<Item = sse::Event> {
    futures_util::stream::unfold((rx, slot), |(mut rx, slot)| async move {
        let ev = rx.recv().await?;
        Some((ev, (rx, slot)))
    })
}
