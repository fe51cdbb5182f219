//! `hexarena play`: a complete bot client that plays by the rules of `agents.md`.
//!
//! It listens to the bot's event stream (`GET /v1/bots/me/events`), parsing the server-sent
//! events itself and resuming with `Last-Event-ID` after a drop; while the stream is down it
//! long-polls `GET /v1/bots/me/turn`. Each `your_turn` is answered by the engine playing as a
//! rung of the house ladder (thinking exactly as the house bot of that name does, on a blocking
//! thread) with `?ply=state.ply+1`; a failed request is resent
//! unchanged (same move, same ply), a `stale_ply` or `not_your_turn` makes it re-read the game.
//! It can start practice sets, create one challenge, or accept open ones, and it exits once the
//! requested number of its sets have finished.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use hex::{Cell, Move, Position};
use rand_core::SeedableRng;
use rand_pcg::Pcg64;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::arena::house::think;
use crate::gtp::bridge::{Bridge, Choice};
use hex_search::ladder::Rung;

/// Options of `hexarena play`.
#[derive(Debug, Clone, Args)]
pub struct PlayArgs {
    /// Base URL of the arena.
    #[arg(long, env = "HEXARENA_URL", default_value = "http://127.0.0.1:8080")]
    pub url: String,
    /// The bot's token (`hxb_...`).
    #[arg(long, env = "HEXARENA_TOKEN", hide_env_values = true)]
    pub token: String,
    /// How moves are chosen: the name of a rung of the house ladder (`house-random`,
    /// `house-novice`, `house-club`, `house-bridge`, `house-master`); `random` is short for
    /// `house-random` and `strong` for `house-bridge` (not the strongest rung). It thinks from its own clock with the rung's playout cap,
    /// exactly as the house bot of that name does on an idle server.
    #[arg(long, default_value = "strong", value_parser = parse_strategy)]
    pub strategy: &'static Rung,
    /// Exit once this many of the bot's sets have finished; 0 = run until stopped.
    #[arg(long, default_value_t = 0)]
    pub sets: u32,
    /// Play practice sets against this house bot, one after another.
    #[arg(long, value_name = "OPPONENT")]
    pub practice: Option<String>,
    /// Create one challenge at start (open, or private with --opponent) and play it.
    #[arg(long)]
    pub create: bool,
    /// Stake of the challenge made by --create (PTS).
    #[arg(long, requires = "create")]
    pub stake: Option<i64>,
    /// Make the --create challenge private to this bot.
    #[arg(long, requires = "create", value_name = "NAME")]
    pub opponent: Option<String>,
    /// Accept open challenges (and private ones addressed to this bot) as they appear.
    #[arg(long)]
    pub accept_open: bool,
    /// Board size of the sets this client creates (--create, --practice); server default 11.
    #[arg(long)]
    pub size: Option<u8>,
    /// Opening stones per seat of the sets this client creates; 0 allows the swap.
    #[arg(long)]
    pub random_stones: Option<u8>,
    /// Let this Hex GTP engine choose the moves ("COMMAND ARGS", one engine process per game)
    /// instead of --strategy. See the bridge's rules in agents.md.
    #[arg(long, value_name = "COMMAND")]
    pub gtp: Option<String>,
}

/// The rung a `--strategy` names: a ladder name (any case), or the aliases `random`
/// (`house-random`) and `strong` (`house-bridge`).
///
/// Errors: an unknown name, with the accepted ones.
pub fn parse_strategy(s: &str) -> Result<&'static Rung, String> {
    let lower = s.trim().to_ascii_lowercase();
    let name = match lower.as_str() {
        "random" => crate::arena::house::WEAKEST,
        "strong" => crate::arena::house::STRONG,
        other => other,
    };
    hex_search::ladder::rung(name).ok_or_else(|| {
        let names: Vec<&str> = hex_search::ladder::LADDER.iter().map(|r| r.name).collect();
        format!(
            "unknown strategy '{s}': one of random, strong, {}",
            names.join(", ")
        )
    })
}

/// Nothing at all (not even a keep-alive comment) for this long: the stream is dead.
const STREAM_IDLE: Duration = Duration::from_secs(30);
/// Long-poll wait while the stream is down (seconds, as agents.md advises).
const TURN_WAIT_S: u64 = 30;
/// How often the client checks its sets' status by itself (besides the events).
const RECONCILE_EVERY: Duration = Duration::from_secs(20);

// ----------------------------------------------------------------------------------------------
// Server-sent events

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

// ----------------------------------------------------------------------------------------------
// HTTP

/// An error with its causes (reqwest's own message hides the interesting part).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// Why a request gave no usable answer.
#[derive(Debug, Clone)]
enum Failure {
    /// No answer: refused, reset, timed out, unreadable.
    Net(String),
    /// An error envelope (or a non-2xx status without one).
    Api {
        status: StatusCode,
        code: String,
        message: String,
        details: Value,
        retry_after: Option<Duration>,
    },
}

impl Failure {
    fn code(&self) -> &str {
        match self {
            Failure::Net(_) => "network",
            Failure::Api { code, .. } => code,
        }
    }

    /// Worth sending the same request again: network trouble, 5xx, 429.
    fn transient(&self) -> bool {
        match self {
            Failure::Net(_) => true,
            Failure::Api { status, .. } => {
                status.is_server_error() || *status == StatusCode::TOO_MANY_REQUESTS
            }
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Net(e) => write!(f, "network error: {e}"),
            Failure::Api {
                status,
                code,
                message,
                ..
            } => write!(f, "{} {code}: {message}", status.as_u16()),
        }
    }
}

/// The arena's HTTP API with one bot token.
#[derive(Clone)]
struct Api {
    http: reqwest::Client,
    base: String,
    token: String,
}

impl Api {
    fn new(url: &str, token: &str) -> anyhow::Result<Api> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .build()?;
        Ok(Api {
            http,
            base: url.trim_end_matches('/').to_string(),
            token: token.to_string(),
        })
    }

    /// One exchange. 2xx gives (status, body or Null); anything else a [`Failure`].
    async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        timeout: Duration,
    ) -> Result<(StatusCode, Value), Failure> {
        let mut rb = self
            .http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .timeout(timeout);
        if let Some(b) = body {
            rb = rb.json(b);
        }
        let resp = rb.send().await.map_err(|e| Failure::Net(error_chain(&e)))?;
        let status = resp.status();
        let retry_after = resp
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(Duration::from_secs_f64);
        let text = resp
            .text()
            .await
            .map_err(|e| Failure::Net(error_chain(&e)))?;
        let json: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        if status.is_success() {
            return Ok((status, json));
        }
        let err = &json["error"];
        Err(Failure::Api {
            status,
            code: err["code"]
                .as_str()
                .map_or_else(|| format!("http_{}", status.as_u16()), str::to_string),
            message: err["message"].as_str().unwrap_or_default().to_string(),
            details: err["details"].clone(),
            retry_after,
        })
    }

    /// Like [`Api::call`], but sends the same request again after network errors, 5xx (backing
    /// off 0.5 s, 1 s, 2 s ... up to 8 s) and 429 (after `Retry-After`), until `give_up`.
    /// Only for requests that are safe to repeat: reads, and moves carrying `?ply=`.
    async fn call_retrying(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        timeout: Duration,
        give_up: Instant,
    ) -> Result<(StatusCode, Value), Failure> {
        let mut backoff = Duration::from_millis(500);
        loop {
            let err = match self.call(method.clone(), path, body, timeout).await {
                Ok(ok) => return Ok(ok),
                Err(e) if e.transient() => e,
                Err(e) => return Err(e),
            };
            let wait = match &err {
                Failure::Api {
                    status,
                    retry_after,
                    ..
                } if *status == StatusCode::TOO_MANY_REQUESTS => {
                    retry_after.unwrap_or(Duration::from_secs(5))
                }
                _ => {
                    let w = backoff;
                    backoff = (backoff * 2).min(Duration::from_secs(8));
                    w
                }
            };
            if Instant::now() + wait > give_up {
                return Err(err);
            }
            tracing::warn!(
                "{method} {path}: {err}; retrying in {:.1}s",
                wait.as_secs_f64()
            );
            tokio::time::sleep(wait).await;
        }
    }
}

// ----------------------------------------------------------------------------------------------
// Reading game states and choosing moves

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or_default()
}

fn int_of(v: &Value, key: &str) -> i64 {
    v[key].as_i64().unwrap_or_default()
}

/// `(set_id, game_no)`.
type GameKey = (String, i64);

fn game_key(state: &Value) -> GameKey {
    (
        str_of(state, "set_id").to_string(),
        int_of(state, "game_no"),
    )
}

/// The name of the bot on move in an active game state.
fn bot_on_move(state: &Value) -> Option<&str> {
    if state["status"] != "active" {
        return None;
    }
    let seat = usize::try_from(state["to_move"].as_u64()?).ok()?;
    state["seats"].get(seat.checked_sub(1)?)?["bot"].as_str()
}

fn cell_of(v: &Value) -> Option<Cell> {
    let a = v.as_array().filter(|a| a.len() == 2)?;
    let r = u8::try_from(a[0].as_u64()?).ok()?;
    let c = u8::try_from(a[1].as_u64()?).ok()?;
    Some(Cell::new(r, c))
}

/// Rebuilds the engine position of a game state: the opening, then every move in order. The
/// board alone would not tell who owns which edges after a swap; the move list does.
pub fn position_of_state(state: &Value) -> Result<Position, String> {
    let size = state["board"]["size"]
        .as_u64()
        .and_then(|s| u8::try_from(s).ok())
        .ok_or("state without board.size")?;
    let opening = state["opening"]
        .as_array()
        .map(|a| a.iter().map(cell_of).collect::<Option<Vec<Cell>>>())
        .unwrap_or(Some(vec![]))
        .ok_or("bad opening cell")?;
    let mut pos = Position::with_opening(size, &opening).map_err(|e| e.to_string())?;
    for m in state["moves"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let mv = if m["swap"] == true {
            Move::Swap
        } else {
            Move::Place(cell_of(&m["cell"]).ok_or("bad move cell")?)
        };
        pos.play(mv).map_err(|e| format!("move {m}: {e}"))?;
    }
    if i64::from(pos.ply()) != int_of(state, "ply") {
        return Err(format!(
            "replayed {} moves, the state says ply {}",
            pos.ply(),
            state["ply"]
        ));
    }
    Ok(pos)
}

fn move_json(mv: Move) -> Value {
    match mv {
        Move::Place(c) => json!({"cell": [c.row, c.col]}),
        Move::Swap => json!({"swap": true}),
    }
}

fn move_name(mv: &Value) -> String {
    match cell_of(&mv["cell"]) {
        Some(c) => hex::cell_name(c),
        None => "swap".into(),
    }
}

fn parse_time_ms(v: &Value) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(v.as_str()?)
        .ok()
        .map(|t| t.timestamp_millis())
}

/// Milliseconds the seat on move has before its deadline, as the server sees it.
fn time_left_ms(state: &Value) -> i64 {
    let clock = &state["clock"];
    match (
        parse_time_ms(&clock["deadline"]),
        parse_time_ms(&clock["server_time"]),
    ) {
        (Some(d), Some(now)) => d - now,
        _ => 30_000,
    }
}

/// The time the seat on move may still spend, ms, as the server sees it: until its deadline,
/// and during a free first move no more than its clock's remaining time (as the house bots
/// count it).
fn clock_left_ms(state: &Value) -> u64 {
    let left = time_left_ms(state);
    let seat = state["to_move"].as_u64().unwrap_or(1).clamp(1, 2) as usize;
    let remaining = state["clock"]["remaining_ms"][seat - 1]
        .as_i64()
        .unwrap_or(left);
    u64::try_from(left.min(remaining)).unwrap_or(0)
}

/// Chooses moves.
#[derive(Clone)]
struct Chooser {
    /// The rung it plays as.
    strategy: &'static Rung,
    /// The GTP engines that choose instead of `strategy` (`--gtp`).
    bridge: Option<Arc<Bridge>>,
}

impl Chooser {
    fn new(strategy: &'static Rung, bridge: Option<Arc<Bridge>>) -> Chooser {
        Chooser { strategy, bridge }
    }

    /// What to do for the bot on move: a move, or (only with a GTP engine) a resignation.
    async fn decide(&self, state: &Value) -> Option<Choice> {
        let Some(bridge) = &self.bridge else {
            return self.choose(state).await.map(Choice::Move);
        };
        let pos = match position_of_state(state) {
            Ok(p) => p,
            Err(e) => return Some(Choice::Resign(format!("cannot rebuild the position: {e}"))),
        };
        let opening: Vec<Cell> = state["opening"]
            .as_array()
            .map(|a| a.iter().filter_map(cell_of).collect())
            .unwrap_or_default();
        let moves: Vec<Move> = state["moves"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|m| {
                        if m["swap"] == true {
                            Some(Move::Swap)
                        } else {
                            cell_of(&m["cell"]).map(Move::Place)
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        Some(
            bridge
                .choose(state, &pos, &opening, &moves, time_left_ms(state))
                .await,
        )
    }

    /// A move for the bot on move (never None while the state is active and consistent).
    async fn choose(&self, state: &Value) -> Option<Value> {
        let mut rng = Pcg64::seed_from_u64(rand::random());
        let pos = match position_of_state(state) {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!("cannot rebuild the position ({e}); picking from legal_moves");
                let legal = state["legal_moves"].as_array()?;
                let i =
                    usize::try_from(rand_core::Rng::next_u64(&mut rng) % legal.len().max(1) as u64)
                        .ok()?;
                return legal.get(i).cloned();
            }
        };
        // The house bot's own budget on an idle server (one job on one worker): the same
        // thinking time from the same clock, the same playout cap.
        let rung = self.strategy;
        let started = Instant::now();
        let budget = think::budget(
            rung,
            pos.size(),
            clock_left_ms(state),
            state["clock"]["increment_ms"].as_u64().unwrap_or(0),
            think::empty_cells(&pos),
            0,
            1,
            1,
        );
        let mv = tokio::task::spawn_blocking(move || {
            think::choose(&pos, rung, budget, started, &mut rng, &|| false).0
        })
        .await
        .ok()?;
        mv.map(move_json)
    }
}

// ----------------------------------------------------------------------------------------------
// Playing one game turn (a task per game on move)

/// How a game's move task ended.
#[derive(Debug)]
struct TurnDone {
    key: GameKey,
    /// The highest `ply` of a state this task answered (or gave up on).
    ply: i64,
    /// The game is over (seen finished, or `game_over`).
    over: bool,
    /// The token was refused: stop the client.
    fatal: Option<String>,
}

/// Plays from `state` until the bot is no longer on move in this game.
async fn play_turns(api: Api, chooser: Chooser, me: String, mut state: Value) -> TurnDone {
    let key = game_key(&state);
    let mut done = TurnDone {
        key: key.clone(),
        ply: int_of(&state, "ply"),
        over: false,
        fatal: None,
    };
    let mut fallback = false; // after a refused cell, one random legal move from a fresh state
    loop {
        done.ply = int_of(&state, "ply");
        let t0 = Instant::now();
        let choice = if fallback {
            let legal = state["legal_moves"].as_array().cloned().unwrap_or_default();
            legal
                .get(rand::random_range(0..legal.len().max(1)))
                .cloned()
                .map(Choice::Move)
        } else {
            chooser.decide(&state).await
        };
        let mv = match choice {
            None => return done,
            Some(Choice::Move(mv)) => mv,
            Some(Choice::Resign(why)) => {
                resign(&api, &key, &why).await;
                done.over = true;
                return done;
            }
        };
        let think = t0.elapsed();
        let ply = done.ply + 1;
        let path = format!("/v1/sets/{}/games/{}/moves?ply={ply}", key.0, key.1);
        // Resend the same move with the same ply until a little after our deadline.
        let give_up = Instant::now()
            + Duration::from_millis(time_left_ms(&state).max(0) as u64)
            + Duration::from_secs(5);
        let t1 = Instant::now();
        let result = api
            .call_retrying(
                Method::POST,
                &path,
                Some(&mv),
                Duration::from_secs(15),
                give_up,
            )
            .await;
        let tag = format!("{} g{} ply {ply:>3}", key.0, key.1);
        let reread = match result {
            Ok((_, new)) => {
                let seat = int_of(&state, "to_move");
                let left = new["clock"]["remaining_ms"][(seat.max(1) - 1) as usize]
                    .as_i64()
                    .unwrap_or_default();
                tracing::info!(
                    "{tag} seat {seat} {:>4}  think {}ms  rtt {}ms  clock {:.1}s  {}",
                    move_name(&mv),
                    think.as_millis(),
                    t1.elapsed().as_millis(),
                    left as f64 / 1000.0,
                    str_of(&new, "status"),
                );
                if new["status"] == "finished" {
                    done.over = true;
                    return done;
                }
                // Normally the opponent is on move now; a fresh your_turn will come.
                if bot_on_move(&new) != Some(me.as_str()) || int_of(&new, "ply") <= done.ply {
                    return done;
                }
                state = new;
                fallback = false;
                continue;
            }
            Err(e) => match e.code() {
                "stale_ply" | "not_your_turn" => {
                    tracing::info!("{tag}: {}, re-reading the game", e.code());
                    true
                }
                "game_over" => {
                    let r = match &e {
                        Failure::Api { details, .. } => details["result"].clone(),
                        Failure::Net(_) => Value::Null,
                    };
                    tracing::info!(
                        "{tag}: game over ({}, winner {})",
                        str_of(&r, "reason"),
                        str_of(&r, "winner_bot")
                    );
                    done.over = true;
                    return done;
                }
                "occupied" | "off_board" | "swap_not_allowed" | "invalid_move" if !fallback => {
                    tracing::warn!("{tag}: {e} for {mv}; re-reading and picking from legal_moves");
                    fallback = true;
                    true
                }
                "unauthorized" => {
                    done.fatal = Some(format!("{tag}: {e}: check --token (a bot token, hxb_...)"));
                    return done;
                }
                _ => {
                    tracing::warn!("{tag}: {e}; leaving this turn");
                    return done;
                }
            },
        };
        if reread {
            let path = format!("/v1/sets/{}/games/{}", key.0, key.1);
            let fresh = api
                .call_retrying(
                    Method::GET,
                    &path,
                    None,
                    Duration::from_secs(15),
                    Instant::now() + Duration::from_secs(30),
                )
                .await;
            match fresh {
                Ok((_, fresh)) if fresh["status"] == "finished" => {
                    done.over = true;
                    return done;
                }
                Ok((_, fresh))
                    if bot_on_move(&fresh) == Some(me.as_str())
                        && (fallback || int_of(&fresh, "ply") > done.ply) =>
                {
                    state = fresh;
                }
                Ok(_) => return done,
                Err(e) => {
                    tracing::warn!("{tag}: could not re-read the game: {e}");
                    return done;
                }
            }
        }
    }
}

/// Resigns a game (the GTP engine failed or resigned); a retry after a lost answer is safe.
async fn resign(api: &Api, key: &GameKey, why: &str) {
    tracing::warn!("{} g{}: resigning: {why}", key.0, key.1);
    let path = format!("/v1/sets/{}/games/{}/resign", key.0, key.1);
    let r = api
        .call_retrying(
            Method::POST,
            &path,
            Some(&json!({})),
            Duration::from_secs(15),
            Instant::now() + Duration::from_secs(20),
        )
        .await;
    match r {
        Ok(_) => {}
        Err(e) if e.code() == "game_over" => {}
        Err(e) => tracing::warn!("{} g{}: resign: {e}", key.0, key.1),
    }
}

// ----------------------------------------------------------------------------------------------
// The feed: the event stream, and the long-poll while the stream is down

enum Feed {
    /// The stream (re)connected.
    Connected,
    /// An event from the stream.
    Event(SseEvent),
    /// A game on move, from the long-poll.
    Turn(Value),
    /// The token was refused.
    Fatal(String),
}

/// Runs forever: stream, then long-polls while reconnecting with backoff (1 s, 2 s ... 30 s).
async fn feed(api: Api, tx: mpsc::Sender<Feed>) {
    let mut last_id: Option<String> = None;
    let mut backoff = Duration::from_secs(1);
    let mut last_turn: Option<(GameKey, i64)> = None;
    loop {
        let mut rb = api
            .http
            .get(format!("{}/v1/bots/me/events", api.base))
            .bearer_auth(&api.token)
            .header(reqwest::header::ACCEPT, "text/event-stream");
        if let Some(id) = &last_id {
            rb = rb.header("Last-Event-ID", id.as_str());
        }
        match tokio::time::timeout(Duration::from_secs(15), rb.send()).await {
            Ok(Ok(mut resp)) if resp.status().is_success() => {
                backoff = Duration::from_secs(1);
                if tx.send(Feed::Connected).await.is_err() {
                    return;
                }
                let mut parser = SseParser::new();
                let why = loop {
                    match tokio::time::timeout(STREAM_IDLE, resp.chunk()).await {
                        Ok(Ok(Some(bytes))) => {
                            for item in parser.push(&bytes) {
                                if let SseItem::Event(ev) = item {
                                    if let Some(id) = &ev.id {
                                        last_id = Some(id.clone());
                                    }
                                    if tx.send(Feed::Event(ev)).await.is_err() {
                                        return;
                                    }
                                }
                            }
                        }
                        Ok(Ok(None)) => break "closed by the server".to_string(),
                        Ok(Err(e)) => break error_chain(&e),
                        Err(_) => break format!("nothing for {}s", STREAM_IDLE.as_secs()),
                    }
                };
                tracing::warn!("event stream lost ({why}); long-polling while reconnecting");
            }
            Ok(Ok(resp)) if resp.status() == StatusCode::UNAUTHORIZED => {
                let _ = tx
                    .send(Feed::Fatal(
                        "401 unauthorized: check --token (a bot token, hxb_...)".into(),
                    ))
                    .await;
                return;
            }
            Ok(Ok(resp)) => tracing::warn!("event stream refused: {}", resp.status()),
            Ok(Err(e)) => tracing::warn!("event stream: {}", error_chain(&e)),
            Err(_) => tracing::warn!("event stream: no answer"),
        }
        // Keep playing by long-poll until it is time to try the stream again.
        let retry_at = Instant::now() + backoff;
        backoff = (backoff * 2).min(Duration::from_secs(30));
        while Instant::now() < retry_at {
            let wait_s = retry_at
                .saturating_duration_since(Instant::now())
                .as_secs()
                .clamp(1, TURN_WAIT_S);
            let path = format!("/v1/bots/me/turn?wait_s={wait_s}");
            match api
                .call(Method::GET, &path, None, Duration::from_secs(wait_s + 15))
                .await
            {
                Ok((StatusCode::OK, state)) => {
                    let key = (game_key(&state), int_of(&state, "ply"));
                    if last_turn.as_ref() == Some(&key) {
                        // Still the game we are answering: do not spin on it.
                        tokio::time::sleep(Duration::from_millis(300)).await;
                    }
                    last_turn = Some(key);
                    if tx.send(Feed::Turn(state)).await.is_err() {
                        return;
                    }
                }
                Ok(_) => {}
                Err(e) if e.code() == "unauthorized" => {
                    let _ = tx
                        .send(Feed::Fatal(format!(
                            "{e}: check --token (a bot token, hxb_...)"
                        )))
                        .await;
                    return;
                }
                Err(e) => {
                    let wait = match &e {
                        Failure::Api {
                            retry_after: Some(r),
                            ..
                        } => *r,
                        _ => Duration::from_secs(1),
                    };
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

// ----------------------------------------------------------------------------------------------
// The client

#[derive(Default)]
struct GameTrack {
    running: bool,
    /// The newest unanswered state in which we are on move.
    pending: Option<Value>,
    /// The highest `ply` of a state answered so far.
    answered: Option<i64>,
    over: bool,
}

struct Player {
    api: Api,
    args: PlayArgs,
    me: String,
    chooser: Chooser,
    /// Our sets that are open or active.
    tracked: HashSet<String>,
    /// Our sets seen finished (counted once each).
    finished: HashSet<String>,
    /// Open sets we tried to accept (or may not).
    skipped: HashSet<String>,
    games: HashMap<GameKey, GameTrack>,
    done_tx: mpsc::Sender<TurnDone>,
    created: bool,
}

impl Player {
    fn target_reached(&self) -> bool {
        self.args.sets > 0 && self.finished.len() >= self.args.sets as usize
    }

    /// Room for one more set under `--sets`.
    fn room(&self) -> bool {
        self.args.sets == 0 || self.finished.len() + self.tracked.len() < self.args.sets as usize
    }

    /// Only `--create` was asked for and that set is gone (declined, cancelled or finished).
    fn nothing_left(&self) -> bool {
        self.created
            && !self.args.accept_open
            && self.args.practice.is_none()
            && self.tracked.is_empty()
    }

    async fn on_feed(&mut self, item: Feed) -> anyhow::Result<()> {
        match item {
            Feed::Connected => {
                tracing::info!("event stream connected");
                self.reconcile().await;
            }
            Feed::Turn(state) => self.on_turn(state),
            Feed::Fatal(e) => anyhow::bail!("{e}"),
            Feed::Event(ev) => {
                let data: Value = serde_json::from_str(&ev.data).unwrap_or(Value::Null);
                match ev.event.as_str() {
                    "your_turn" => self.on_turn(data["state"].clone()),
                    "game_finished" => {
                        let s = &data["state"];
                        if let Some(b) = &self.chooser.bridge {
                            b.forget(&game_key(s));
                        }
                        let g = self.games.entry(game_key(s)).or_default();
                        g.over = true;
                        g.pending = None;
                        let r = &s["result"];
                        tracing::info!(
                            "{} g{} finished: {}, winner {}",
                            str_of(s, "set_id"),
                            int_of(s, "game_no"),
                            str_of(r, "reason"),
                            str_of(r, "winner_bot")
                        );
                    }
                    "set_started" => {
                        let id = str_of(&data["set"], "id").to_string();
                        if !self.finished.contains(&id) {
                            self.tracked.insert(id);
                        }
                    }
                    "set_finished" => self.on_set_finished(&data["set"]),
                    "set_closed" => {
                        let s = &data["set"];
                        if self.tracked.remove(str_of(s, "id")) {
                            tracing::info!("{} {}", str_of(s, "id"), str_of(s, "status"));
                        }
                    }
                    "challenge" => self.on_challenge(&data["set"]).await?,
                    _ => {}
                }
            }
        }
        Ok(())
    }

    fn on_turn(&mut self, state: Value) {
        if bot_on_move(&state) != Some(self.me.as_str()) {
            return;
        }
        let key = game_key(&state);
        if self.finished.contains(&key.0) {
            return;
        }
        self.tracked.insert(key.0.clone());
        let ply = int_of(&state, "ply");
        let g = self.games.entry(key).or_default();
        // Replays and the on-connect snapshot may repeat a turn already answered or queued.
        let answered = g.answered.is_some_and(|a| ply <= a);
        let queued = g.pending.as_ref().is_some_and(|p| int_of(p, "ply") >= ply);
        if g.over || answered || queued {
            return;
        }
        g.pending = Some(state);
    }

    /// Starts a move task for every game with a pending turn and none running.
    fn launch(&mut self) {
        for g in self.games.values_mut() {
            if g.running || g.over {
                continue;
            }
            let Some(state) = g.pending.take() else {
                continue;
            };
            g.running = true;
            let (api, chooser, me, tx) = (
                self.api.clone(),
                self.chooser.clone(),
                self.me.clone(),
                self.done_tx.clone(),
            );
            tokio::spawn(async move {
                let done = play_turns(api, chooser, me, state).await;
                let _ = tx.send(done).await;
            });
        }
    }

    fn on_turn_done(&mut self, done: TurnDone) -> anyhow::Result<()> {
        if let Some(e) = done.fatal {
            anyhow::bail!("{e}");
        }
        if done.over
            && let Some(b) = &self.chooser.bridge
        {
            b.forget(&done.key);
        }
        let g = self.games.entry(done.key).or_default();
        g.running = false;
        let answered = g.answered.map_or(done.ply, |a| a.max(done.ply));
        g.answered = Some(answered);
        g.over |= done.over;
        if g.over
            || g.pending
                .as_ref()
                .is_some_and(|p| int_of(p, "ply") <= answered)
        {
            g.pending = None;
        }
        Ok(())
    }

    fn on_set_finished(&mut self, set: &Value) {
        let id = str_of(set, "id").to_string();
        let ours = str_of(set, "creator") == self.me || str_of(set, "acceptor") == self.me;
        if !ours || set["status"] != "finished" || !self.finished.insert(id.clone()) {
            return;
        }
        self.tracked.remove(&id);
        self.games.retain(|k, _| k.0 != id);
        if let Some(b) = &self.chooser.bridge {
            b.forget_set(&id);
        }
        tracing::info!(
            "{id} set finished: {}  points {}  {}  [{}/{}]",
            str_of(set, "result"),
            set["points"],
            verify_opening(set),
            self.finished.len(),
            if self.args.sets == 0 {
                "-".to_string()
            } else {
                self.args.sets.to_string()
            }
        );
    }

    async fn on_challenge(&mut self, set: &Value) -> anyhow::Result<()> {
        let id = str_of(set, "id").to_string();
        if !self.args.accept_open
            || set["status"] != "open"
            || self.skipped.contains(&id)
            || self.tracked.contains(&id)
        {
            return Ok(());
        }
        if str_of(set, "creator") == self.me
            || !(set["opponent"].is_null() || str_of(set, "opponent") == self.me)
        {
            return Ok(());
        }
        if !self.room() {
            return Ok(());
        }
        self.skipped.insert(id.clone());
        let size = u8::try_from(int_of(&set["options"], "size")).unwrap_or(11);
        if let Some(b) = &self.chooser.bridge
            && b.supports(size).await != Ok(true)
        {
            if str_of(set, "opponent") == self.me {
                let r = self
                    .api
                    .call_retrying(
                        Method::POST,
                        &format!("/v1/sets/{id}/decline"),
                        Some(&json!({})),
                        Duration::from_secs(15),
                        Instant::now() + Duration::from_secs(20),
                    )
                    .await;
                match r {
                    Ok(_) => {
                        tracing::info!("{id} declined: the engine refuses a {size}x{size} board")
                    }
                    Err(e) => tracing::warn!("decline {id}: {e}"),
                }
            } else {
                tracing::info!("{id} skipped: the engine refuses a {size}x{size} board");
            }
            return Ok(());
        }
        match self
            .api
            .call(
                Method::POST,
                &format!("/v1/sets/{id}/accept"),
                Some(&json!({})),
                Duration::from_secs(15),
            )
            .await
        {
            Ok((_, s)) => {
                self.tracked.insert(id.clone());
                tracing::info!(
                    "{id} accepted from {} (stake {})",
                    str_of(&s, "creator"),
                    s["stake"]
                );
            }
            Err(e) if e.code() == "unauthorized" => anyhow::bail!("accept {id}: {e}"),
            Err(e) => tracing::info!("accept {id}: {e}; skipping it"),
        }
        Ok(())
    }

    /// Creates the `--create` challenge once, and a practice set whenever none is running.
    async fn start_sets(&mut self) -> anyhow::Result<()> {
        let mut options = json!({});
        if let Some(s) = self.args.size {
            options["size"] = json!(s);
        }
        if let Some(k) = self.args.random_stones {
            options["random_stones"] = json!(k);
        }
        if (self.args.create && !self.created || self.args.practice.is_some())
            && let Some(b) = &self.chooser.bridge
        {
            let size = self.args.size.unwrap_or(11);
            match b.supports(size).await {
                Ok(true) => {}
                Ok(false) => {
                    anyhow::bail!("the GTP engine refuses boardsize {size}: choose --size")
                }
                Err(e) => anyhow::bail!("the GTP engine did not start or answer: {e}"),
            }
        }
        if self.args.create && !self.created {
            let mut body = json!({"game": "hex", "options": options});
            if let Some(s) = self.args.stake {
                body["stake"] = json!(s);
            }
            if let Some(o) = &self.args.opponent {
                body["opponent"] = json!(o);
            }
            let (_, s) = self
                .api
                .call(
                    Method::POST,
                    "/v1/sets",
                    Some(&body),
                    Duration::from_secs(15),
                )
                .await
                .map_err(|e| anyhow::anyhow!("create: {e}"))?;
            self.created = true;
            let id = str_of(&s, "id").to_string();
            tracing::info!(
                "{id} created (stake {}, opponent {})",
                s["stake"],
                s["opponent"].as_str().unwrap_or("any")
            );
            self.tracked.insert(id);
        }
        if let Some(opponent) = self.args.practice.clone()
            && self.tracked.is_empty()
            && self.room()
        {
            match self
                .api
                .call(
                    Method::POST,
                    "/v1/practice",
                    Some(&json!({"opponent": opponent, "options": options})),
                    Duration::from_secs(15),
                )
                .await
            {
                Ok((_, s)) => {
                    let id = str_of(&s, "id").to_string();
                    tracing::info!("{id} practice against {opponent} started");
                    self.tracked.insert(id);
                }
                Err(Failure::Api { code, message, .. })
                    if matches!(
                        code.as_str(),
                        "unauthorized" | "not_found" | "bad_request" | "invalid_options"
                    ) =>
                {
                    anyhow::bail!("practice: {code}: {message}")
                }
                Err(e) => tracing::warn!("practice: {e}"),
            }
        }
        Ok(())
    }

    /// Reads each tracked set: counts the finished ones, drops the closed ones. Covers the
    /// events a stream that reconnected without an id could not replay.
    async fn reconcile(&mut self) {
        for id in self.tracked.clone() {
            match self
                .api
                .call(
                    Method::GET,
                    &format!("/v1/sets/{id}"),
                    None,
                    Duration::from_secs(15),
                )
                .await
            {
                Ok((_, s)) => match str_of(&s, "status") {
                    "finished" => self.on_set_finished(&s),
                    "cancelled" | "declined" | "expired" => {
                        tracing::info!("{id} {}", str_of(&s, "status"));
                        self.tracked.remove(&id);
                    }
                    _ => {}
                },
                Err(e) => tracing::debug!("{id}: {e}"),
            }
        }
    }
}

/// "opening verified" when the revealed seed gives the set's opening (agents.md section 10).
fn verify_opening(set: &Value) -> String {
    let Some(seed) = set["seed"].as_str().and_then(hex::parse_seed_hex) else {
        return "seed not revealed".into();
    };
    let size = u8::try_from(int_of(&set["options"], "size")).unwrap_or_default();
    let k = u8::try_from(int_of(&set["options"], "random_stones")).unwrap_or_default();
    match hex::opening(&seed, size, k) {
        Ok(cells)
            if json!(cells.iter().map(|c| [c.row, c.col]).collect::<Vec<_>>())
                == set["opening"] =>
        {
            "opening verified".into()
        }
        Ok(cells) => format!("OPENING MISMATCH: the seed gives {cells:?}"),
        Err(e) => format!("opening not checked: {e}"),
    }
}

/// `hexarena play`: runs until `--sets` of the bot's sets have finished (forever with 0).
pub async fn play(args: PlayArgs) -> anyhow::Result<()> {
    let api = Api::new(&args.url, &args.token)?;
    let me = api
        .call_retrying(
            Method::GET,
            "/v1/bots/me",
            None,
            Duration::from_secs(15),
            Instant::now() + Duration::from_secs(30),
        )
        .await
        .map_err(|e| anyhow::anyhow!("GET /v1/bots/me: {e}"))?
        .1;
    let name = str_of(&me, "name").to_string();
    tracing::info!(
        "playing as {name} (rating {}), {}, target {} set(s)",
        me["rating"],
        match &args.gtp {
            Some(cmd) => format!("GTP engine `{cmd}`"),
            None => format!("strategy {}", args.strategy.name),
        },
        if args.sets == 0 {
            "unlimited".to_string()
        } else {
            args.sets.to_string()
        }
    );
    let (feed_tx, mut feed_rx) = mpsc::channel(256);
    let feeder = tokio::spawn(feed(api.clone(), feed_tx));
    let (done_tx, mut done_rx) = mpsc::channel(64);
    let bridge = match &args.gtp {
        Some(cmd) => Some(Arc::new(Bridge::new(cmd)?)),
        None => None,
    };
    let mut p = Player {
        chooser: Chooser::new(args.strategy, bridge),
        api,
        args,
        me: name,
        tracked: HashSet::new(),
        finished: HashSet::new(),
        skipped: HashSet::new(),
        games: HashMap::new(),
        done_tx,
        created: false,
    };
    let result = async {
        p.start_sets().await?;
        let mut tick = tokio::time::interval(RECONCILE_EVERY);
        tick.tick().await;
        while !p.target_reached() && !p.nothing_left() {
            tokio::select! {
                Some(item) = feed_rx.recv() => {
                    p.on_feed(item).await?;
                    // Take everything already queued before thinking, so a replay burst that
                    // holds several turns of one game is answered only at its newest ply.
                    while let Ok(item) = feed_rx.try_recv() {
                        p.on_feed(item).await?;
                    }
                }
                Some(done) = done_rx.recv() => p.on_turn_done(done)?,
                _ = tick.tick() => p.reconcile().await,
            }
            if !p.target_reached() {
                p.start_sets().await?;
            }
            p.launch();
        }
        tracing::info!("done: {} set(s) finished", p.finished.len());
        if p.finished.is_empty() && !p.target_reached() {
            anyhow::bail!("the challenge ended without being played (cancelled or declined)");
        }
        Ok(())
    }
    .await;
    feeder.abort();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(items: Vec<SseItem>) -> Vec<SseEvent> {
        items
            .into_iter()
            .filter_map(|i| match i {
                SseItem::Event(e) => Some(e),
                SseItem::Comment(_) => None,
            })
            .collect()
    }

    #[test]
    fn the_parser_joins_chunks_split_anywhere_and_tracks_the_last_id() {
        let text = "retry: 2000\n\nevent: your_turn\nid: 7\ndata: {\"a\":\n\n: keep-alive\n\nid: 9\r\nevent: challenge\r\ndata: x\r\ndata: y\r\n\r\n";
        for split in 0..text.len() {
            let mut p = SseParser::new();
            let mut items = p.push(&text.as_bytes()[..split]);
            items.extend(p.push(&text.as_bytes()[split..]));
            assert_eq!(items.len(), 3, "split at {split}: {items:?}");
            assert_eq!(items[1], SseItem::Comment("keep-alive".into()));
            assert_eq!(
                events(items),
                vec![
                    SseEvent {
                        id: Some("7".into()),
                        event: "your_turn".into(),
                        data: "{\"a\":".into()
                    },
                    SseEvent {
                        id: Some("9".into()),
                        event: "challenge".into(),
                        data: "x\ny".into()
                    },
                ]
            );
            assert_eq!(p.last_id(), Some("9"));
        }
    }

    #[test]
    fn an_event_without_data_only_moves_the_last_id_and_a_nameless_one_is_a_message() {
        let mut p = SseParser::new();
        let items = p.push(b"id: 3\n\ndata\n\n");
        assert_eq!(
            events(items),
            vec![SseEvent {
                id: None,
                event: "message".into(),
                data: String::new()
            }]
        );
        assert_eq!(p.last_id(), Some("3"));
    }

    #[test]
    fn a_strategy_is_a_rung_of_the_ladder_with_the_old_names_as_aliases() {
        assert_eq!(parse_strategy("random").map(|r| r.name), Ok("house-random"));
        assert_eq!(parse_strategy("Strong").map(|r| r.name), Ok("house-bridge"));
        for r in hex_search::ladder::LADDER {
            assert_eq!(parse_strategy(r.name).map(|x| x.name), Ok(r.name));
        }
        let e = parse_strategy("house-nobody").expect_err("not a rung");
        assert!(e.contains("house-master"), "{e}");
    }

    #[test]
    fn the_client_s_clock_is_the_deadline_capped_by_the_remaining_time() {
        let state = json!({"to_move": 2, "clock": {
            "remaining_ms": [60_000, 9_000], "increment_ms": 0, "first_move": true,
            "deadline": "2026-12-01T08:00:30.000Z", "server_time": "2026-12-01T08:00:00.000Z"}});
        // A free first move: 30 s to the deadline, but only 9 s on the clock.
        assert_eq!(clock_left_ms(&state), 9_000);
        let state = json!({"to_move": 1, "clock": {
            "remaining_ms": [4_000, 9_000], "increment_ms": 0, "first_move": false,
            "deadline": "2026-12-01T08:00:04.000Z", "server_time": "2026-12-01T08:00:00.000Z"}});
        assert_eq!(clock_left_ms(&state), 4_000);
    }

    #[test]
    fn a_state_with_a_swap_rebuilds_to_the_same_board_and_ply() {
        let state = json!({
            "board": {"size": 5}, "opening": [], "ply": 3,
            "moves": [{"ply": 1, "cell": [2, 2]}, {"ply": 2, "swap": true}, {"ply": 3, "cell": [0, 1]}],
        });
        let pos = position_of_state(&state).expect("consistent state");
        assert_eq!(pos.ply(), 3);
        assert!(pos.swapped());
        assert_eq!(pos.stone(Cell::new(2, 2)), Some(hex::Seat::Two));
        assert_eq!(
            pos.stone(Cell::new(0, 1)),
            Some(hex::Seat::One),
            "seat 1 moves after the swap"
        );
        assert_eq!(pos.to_move(), Some(hex::Seat::Two));
        assert_eq!(
            pos.axis(hex::Seat::Two),
            hex::Axis::TopBottom,
            "the swap exchanged the edges"
        );
        let wrong =
            json!({"board": {"size": 5}, "opening": [], "ply": 2, "moves": [{"cell": [2, 2]}]});
        assert!(position_of_state(&wrong).is_err());
    }
}
