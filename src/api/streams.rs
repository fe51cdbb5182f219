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

use super::{AppState, AuthBot};
use crate::arena::{Arena, Change};
use crate::error::ApiResult;
use crate::store::events::{self, EventRow, LOBBY};
use crate::store::{games, sets};

/// A comment line at least this often keeps idle connections open.
pub const KEEP_ALIVE: Duration = Duration::from_secs(8);
/// Re-check the database this often even without a local change (other instances).
const RECHECK: Duration = Duration::from_secs(1);

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/v1/bots/me/events", web::get().to(bot_events))
        .route("/v1/sets/{id}/games/{n}/events", web::get().to(game_events));
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
    fn relevant(&self, c: &Change) -> bool {
        match self {
            Feed::Bot(id) => c.bots.iter().any(|b| b == id || b == LOBBY),
            Feed::Game(s, n) => &c.set_id == s && c.game_no.is_none_or(|g| g == *n),
        }
    }

    /// Stored events after `after`, each with whether this stream delivers it.
    async fn after(&self, arena: &Arena, after: i64) -> Result<Vec<(EventRow, bool)>, sqlx::Error> {
        let mut c = arena.store.pool.acquire().await?;
        match self {
            Feed::Bot(id) => {
                let rows = events::for_bot_after(&mut c, id, after, 200).await?;
                let mut out = Vec::with_capacity(rows.len());
                for r in rows {
                    // Lobby challenges go to every stream; deliver those this bot may accept.
                    let deliver = r.kind != "challenge" || may_accept(&mut c, id, &r).await?;
                    out.push((r, deliver));
                }
                Ok(out)
            }
            Feed::Game(s, n) => {
                let rows = events::for_game_after(&mut c, s, *n, after, 200).await?;
                Ok(rows.into_iter().map(|r| (r, true)).collect())
            }
        }
    }
}

/// Whether `bot_id` may accept the set of a `challenge` event: not its own, not a staked set
/// of a bot with the same owner, and a stake within its `max_stake`.
async fn may_accept(
    c: &mut sqlx::AnyConnection,
    bot_id: &str,
    r: &EventRow,
) -> Result<bool, sqlx::Error> {
    let Some(set_id) = r.set_id.as_deref() else {
        return Ok(true);
    };
    let row: Option<(String, String, i64)> = sqlx::query_as(
        "SELECT s.creator_id, b.owner_id, s.stake FROM sets s \
         JOIN bots b ON b.id = s.creator_id WHERE s.id = $1",
    )
    .bind(set_id)
    .fetch_optional(&mut *c)
    .await?;
    let Some((creator_id, creator_owner, stake)) = row else {
        return Ok(false);
    };
    if creator_id == bot_id {
        return Ok(false);
    }
    let mine: Option<(String, i64)> =
        sqlx::query_as("SELECT owner_id, max_stake FROM bots WHERE id = $1")
            .bind(bot_id)
            .fetch_optional(&mut *c)
            .await?;
    Ok(mine.is_some_and(|(owner, max_stake)| {
        stake == 0 || (owner != creator_owner && stake <= max_stake)
    }))
}

/// Forwards stored events after `cursor` to `tx` until the client goes away.
async fn pump(arena: Arc<Arena>, feed: Feed, mut cursor: i64, tx: mpsc::Sender<sse::Event>) {
    let mut rx = arena.changes.subscribe();
    loop {
        match feed.after(&arena, cursor).await {
            Ok(rows) => {
                let full = rows.len() == 200;
                for (r, deliver) in rows {
                    cursor = r.id;
                    if deliver && tx.send(data(r.id, &r.kind, r.payload)).await.is_err() {
                        return;
                    }
                }
                if full {
                    continue;
                }
            }
            Err(e) => tracing::warn!(error = %e, "event stream read failed"),
        }
        let deadline = tokio::time::Instant::now() + RECHECK;
        loop {
            if tx.is_closed() {
                return;
            }
            match tokio::time::timeout_at(deadline, rx.recv()).await {
                Ok(Ok(c)) if feed.relevant(&c) => break,
                Ok(Ok(_)) => continue,
                Ok(Err(RecvError::Lagged(_))) => break,
                Ok(Err(RecvError::Closed)) => return,
                Err(_) => break,
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
    let arena = st.arena.clone();
    let mut snapshot = vec![];
    let cursor = match last_event_id(&req) {
        Some(id) => {
            // A turn the bot saw before it dropped, and still has to play, is not among the
            // missed events: send it again so a restarted bot never loses on time.
            let mut c = arena.store.pool.acquire().await?;
            for (set_id, game_no) in games::all_on_move(&mut c, &bot.id).await? {
                if !events::turn_after(&mut c, &bot.id, &set_id, game_no, id).await? {
                    let state = arena.game_state(&set_id, game_no).await?;
                    snapshot.push(data(id, "your_turn", json!({"state": state}).to_string()));
                }
            }
            id
        }
        None => {
            let mut c = arena.store.pool.acquire().await?;
            let cursor = events::last_id(&mut c).await?;
            for s in sets::open_for(&mut c, &bot.id).await? {
                let creator = crate::store::accounts::bot_by_ref(&mut c, &s.creator_id).await?;
                let unacceptable =
                    creator.is_some_and(|b| b.owner_id == bot.owner_id) || s.stake > bot.max_stake;
                if s.stake > 0 && unacceptable {
                    continue; // a staked set between bots of one owner cannot be accepted
                }
                let view = arena.set_view(&mut c, &s).await?;
                snapshot.push(data(cursor, "challenge", json!({"set": view}).to_string()));
            }
            drop(c);
            let on_move = {
                let mut c = arena.store.pool.acquire().await?;
                games::all_on_move(&mut c, &bot.id).await?
            };
            for (set_id, game_no) in on_move {
                let state = arena.game_state(&set_id, game_no).await?;
                snapshot.push(data(
                    cursor,
                    "your_turn",
                    json!({"state": state}).to_string(),
                ));
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
    tokio::spawn(pump(arena, Feed::Bot(bot.id.clone()), cursor, tx));
    Ok(Sse::from_infallible_receiver(rx)
        .with_keep_alive(KEEP_ALIVE)
        .with_retry_duration(Duration::from_secs(2)))
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
    let arena = st.arena.clone();
    let (tx, rx) = mpsc::channel(64);
    let cursor = match last_event_id(&req) {
        Some(id) => {
            arena.game_state(&set_id, game_no).await?; // 404 for unknown games
            id
        }
        None => {
            let cursor = {
                let mut c = arena.store.pool.acquire().await?;
                events::last_id(&mut c).await?
            };
            let state = arena.game_state(&set_id, game_no).await?;
            let text = serde_json::to_string(&state).map_err(crate::error::ApiError::internal)?;
            let _ = tx.try_send(data(cursor, "state", text));
            cursor
        }
    };
    tokio::spawn(pump(arena, Feed::Game(set_id, game_no), cursor, tx));
    Ok(Sse::from_infallible_receiver(rx)
        .with_keep_alive(KEEP_ALIVE)
        .with_retry_duration(Duration::from_secs(2)))
}
