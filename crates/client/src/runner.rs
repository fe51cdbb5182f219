//! The turn loop of a whole bot (agents.md section 2): the [`feed`] of events and long-polled
//! turns in, one move task per game on move out, and the sets around them: a practice set
//! whenever none runs, one challenge, accepting open ones, until enough sets have finished.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use hexarena_contract::{
    BotEvent, ErrorCode, GameKey, GameState, NewSet, PoolJoin, PracticeRequest, SetStatus, SetView,
};
use tokio::sync::mpsc;

use crate::bot::Bot;
use crate::error::Error;
use crate::http::Client;
use crate::stream::{FeedItem, feed};
use crate::turn::{TurnDone, play_turns};

/// How often the runner checks its sets' status by itself (besides the events).
const RECONCILE_EVERY: Duration = Duration::from_secs(20);

/// What a run plays.
#[derive(Debug, Clone, Default)]
pub struct PlayConfig {
    /// Stop once this many sets started (practice, `create`) or accepted by this run have
    /// finished and no set of the bot is in progress; 0 = run until stopped. Sets already in
    /// progress (one left by a crash) are played to their end but not counted.
    pub sets: u32,
    /// Play practice sets like this one, one after another.
    pub practice: Option<PracticeRequest>,
    /// Create this challenge once at start and play it.
    pub create: Option<NewSet>,
    /// Accept open challenges (and private ones addressed to the bot) as they appear.
    pub accept_open: bool,
    /// Join the matchmaking pool with this entry at start and play (and count) the sets it
    /// starts; the run leaves the pool once its target is reached.
    pub pool: Option<PoolJoin>,
}

/// What a run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunSummary {
    /// The bot's name.
    pub bot: String,
    /// The ids of the counted sets (started or accepted by this run) that finished.
    pub finished: Vec<String>,
}

#[derive(Default)]
struct GameTrack {
    running: bool,
    /// The newest unanswered state in which we are on move.
    pending: Option<GameState>,
    /// The highest `ply` of a state answered so far.
    answered: Option<u32>,
    over: bool,
}

struct Runner<B: Bot> {
    client: Client,
    bot: Arc<B>,
    config: PlayConfig,
    me: String,
    /// Our sets that are open or active.
    tracked: HashSet<String>,
    /// Our sets seen finished (counted once each).
    finished: HashSet<String>,
    /// Sets this run created, started or accepted: the ones `sets` counts.
    mine: HashSet<String>,
    /// Open sets we tried to accept (or may not).
    skipped: HashSet<String>,
    games: HashMap<GameKey, GameTrack>,
    done_tx: mpsc::Sender<TurnDone>,
    created: bool,
    /// In the matchmaking pool (`config.pool`).
    joined: bool,
}

/// Plays as the bot of `client` with `bot` choosing the moves, until `config.sets` of its sets
/// have finished (forever with 0), or, with only `create`, until that set is gone.
///
/// # Errors
/// [`Error::Stopped`] when the token is refused, the bot cannot play the board size asked
/// for, or the one challenge ended unplayed; the error of `GET /v1/bots/me` or of creating
/// the challenge.
pub async fn run<B: Bot>(client: Client, bot: B, config: PlayConfig) -> Result<RunSummary, Error> {
    let me = client.me().await?;
    tracing::info!(
        "playing as {} (rating {}), target {} set(s)",
        me.name,
        me.rating,
        if config.sets == 0 {
            "unlimited".to_string()
        } else {
            config.sets.to_string()
        }
    );
    let (feed_tx, mut feed_rx) = mpsc::channel(256);
    let feeder = tokio::spawn(feed(client.clone(), feed_tx));
    let (done_tx, mut done_rx) = mpsc::channel(64);
    let mut p = Runner {
        client,
        bot: Arc::new(bot),
        config,
        me: me.name,
        tracked: HashSet::new(),
        finished: HashSet::new(),
        mine: HashSet::new(),
        skipped: HashSet::new(),
        games: HashMap::new(),
        done_tx,
        created: false,
        joined: false,
    };
    let result = async {
        p.start_sets().await?;
        let mut tick = tokio::time::interval(RECONCILE_EVERY);
        tick.tick().await;
        // Never stop mid-set: a game left behind would be lost on time.
        while !p.finished_all() && !p.nothing_left() {
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
            // Enough sets counted or in play: no more from the pool.
            if !p.room() {
                p.leave_pool().await;
            }
            p.launch();
        }
        p.leave_pool().await;
        tracing::info!("done: {} set(s) finished", p.counted().len());
        if p.counted().is_empty() && !p.target_reached() {
            return Err(Error::Stopped(
                "the challenge ended without being played (cancelled or declined)".into(),
            ));
        }
        let mut finished = p.counted();
        finished.sort();
        Ok(RunSummary {
            bot: p.me.clone(),
            finished,
        })
    }
    .await;
    feeder.abort();
    result
}

impl<B: Bot> Runner<B> {
    /// The finished sets that count: those this run started or accepted.
    fn counted(&self) -> Vec<String> {
        self.finished.intersection(&self.mine).cloned().collect()
    }

    /// Our own sets still open or active.
    fn own_in_progress(&self) -> usize {
        self.tracked.intersection(&self.mine).count()
    }

    /// The target is reached and no set is in progress.
    fn finished_all(&self) -> bool {
        self.target_reached() && self.tracked.is_empty()
    }

    fn target_reached(&self) -> bool {
        self.config.sets > 0 && self.counted().len() >= self.config.sets as usize
    }

    /// Room for one more set under `sets`.
    fn room(&self) -> bool {
        self.config.sets == 0
            || self.counted().len() + self.own_in_progress() < self.config.sets as usize
    }

    /// Tracks every active set of the bot: one left by an earlier run, or one whose
    /// `set_started` fell in a gap the stream could not replay (agents.md section 2).
    async fn pick_up_active(&mut self) {
        match self
            .client
            .sets(Some("active"), Some(&self.me), Some(100), None)
            .await
        {
            Ok(page) => {
                for row in page.sets {
                    if !self.finished.contains(&row.id) && self.tracked.insert(row.id.clone()) {
                        tracing::info!("{} in progress: playing it to its end", row.id);
                    }
                }
            }
            Err(e) => tracing::warn!("listing the sets in progress: {e}"),
        }
    }

    /// Only `create` was asked for and that set is gone (declined, cancelled or finished).
    fn nothing_left(&self) -> bool {
        self.created
            && !self.config.accept_open
            && self.config.practice.is_none()
            && self.tracked.is_empty()
    }

    fn ours(&self, set: &SetView) -> bool {
        set.creator == self.me || set.acceptor.as_deref() == Some(self.me.as_str())
    }

    async fn on_feed(&mut self, item: FeedItem) -> Result<(), Error> {
        match item {
            FeedItem::Connected => {
                tracing::info!("event stream connected");
                self.pick_up_active().await;
                self.reconcile().await;
            }
            FeedItem::Turn(state) => self.on_turn(*state),
            FeedItem::Fatal(e) => return Err(Error::Stopped(e)),
            FeedItem::Event(ev) => match *ev {
                BotEvent::YourTurn(state) => self.on_turn(state),
                BotEvent::GameFinished(s) => {
                    let key = s.key();
                    self.bot.game_over(&key);
                    let g = self.games.entry(key.clone()).or_default();
                    g.over = true;
                    g.pending = None;
                    let (reason, winner) = s.result.as_ref().map_or((String::new(), ""), |r| {
                        (
                            serde_json::to_value(r.reason)
                                .ok()
                                .and_then(|v| v.as_str().map(str::to_string))
                                .unwrap_or_default(),
                            r.winner_bot.as_deref().unwrap_or_default(),
                        )
                    });
                    tracing::info!("{key} finished: {reason}, winner {winner}");
                }
                BotEvent::SetStarted(set) => {
                    if !self.finished.contains(&set.id) {
                        self.tracked.insert(set.id.clone());
                        // A set the pool started for this run counts like one it made.
                        if self.joined && set.pool == Some(true) && self.ours(&set) {
                            self.mine.insert(set.id.clone());
                        }
                    }
                }
                BotEvent::SetFinished(set) => self.on_set_finished(&set),
                BotEvent::SetClosed(set) => {
                    if self.tracked.remove(&set.id) {
                        tracing::info!("{} {}", set.id, status_text(set.status));
                    }
                }
                BotEvent::Challenge(set) => self.on_challenge(&set).await?,
                BotEvent::ChallengeClosed(_) | BotEvent::Other { .. } => {}
            },
        }
        Ok(())
    }

    fn on_set_finished(&mut self, set: &SetView) {
        let id = set.id.clone();
        if !self.ours(set) || set.status != SetStatus::Finished || !self.finished.insert(id.clone())
        {
            return;
        }
        self.tracked.remove(&id);
        self.games.retain(|k, _| k.set_id != id);
        self.bot.set_over(&id);
        let note = if self.mine.contains(&id) {
            ""
        } else {
            "  (not started by this run: not counted)"
        };
        tracing::info!(
            "{id} set finished: {}  points {}  {}  [{}/{}]{note}",
            set.result.as_deref().unwrap_or_default(),
            serde_json::to_string(&set.points).unwrap_or_default(),
            crate::verify::opening_check(set),
            self.counted().len(),
            if self.config.sets == 0 {
                "-".to_string()
            } else {
                self.config.sets.to_string()
            }
        );
    }

    async fn on_challenge(&mut self, set: &SetView) -> Result<(), Error> {
        let id = set.id.clone();
        if !self.config.accept_open
            || set.status != SetStatus::Open
            || self.skipped.contains(&id)
            || self.tracked.contains(&id)
        {
            return Ok(());
        }
        let to_me = set.opponent.as_deref() == Some(self.me.as_str());
        if set.creator == self.me || !(set.opponent.is_none() || to_me) {
            return Ok(());
        }
        if !self.room() || self.target_reached() {
            return Ok(());
        }
        self.skipped.insert(id.clone());
        let size = set.options.size;
        if self.bot.supports_size(size).await != Ok(true) {
            if to_me {
                match self.client.decline(&id).await {
                    Ok(_) => tracing::info!("{id} declined: the bot refuses a {size}x{size} board"),
                    Err(e) => tracing::warn!("decline {id}: {e}"),
                }
            } else {
                tracing::info!("{id} skipped: the bot refuses a {size}x{size} board");
            }
            return Ok(());
        }
        match self.client.accept(&id).await {
            Ok(s) => {
                self.tracked.insert(id.clone());
                self.mine.insert(id.clone());
                tracing::info!("{id} accepted from {} (stake {})", s.creator, s.stake);
            }
            Err(e) if e.code() == ErrorCode::Unauthorized.as_str() => {
                return Err(Error::Stopped(format!("accept {id}: {e}")));
            }
            Err(e) => tracing::info!("accept {id}: {e}; skipping it"),
        }
        Ok(())
    }

    /// Leaves the pool once, if this run joined it.
    async fn leave_pool(&mut self) {
        if self.joined {
            match self.client.leave_pool().await {
                Ok(()) => tracing::info!("left the matchmaking pool"),
                Err(e) => tracing::warn!("leaving the pool: {e}"),
            }
            self.joined = false;
        }
    }

    /// Creates the `create` challenge once, and a practice set whenever none is running;
    /// joins the pool while there is room for another set. (It joined whenever it was out:
    /// after leaving at a set's start it joined again, and the set's end could find it in the
    /// pool and start a set beyond `sets`.)
    async fn start_sets(&mut self) -> Result<(), Error> {
        let room = self.room();
        if let Some(join) = self.config.pool.filter(|_| !self.joined && room) {
            let e = self.client.join_pool(&join).await.map_err(|e| match e {
                Error::Api(_) => Error::Stopped(format!("joining the pool: {e}")),
                other => other,
            })?;
            self.joined = true;
            tracing::info!(
                "in the matchmaking pool (stake {}, rated {}, rating {:.0})",
                e.stake,
                e.rated,
                e.rating
            );
        }
        let wants_create = self.config.create.is_some() && !self.created;
        if wants_create || self.config.practice.is_some() {
            let size = self
                .config
                .create
                .as_ref()
                .and_then(|c| c.options.size)
                .or_else(|| self.config.practice.as_ref().and_then(|p| p.options.size))
                .unwrap_or(11);
            match self.bot.supports_size(size).await {
                Ok(true) => {}
                Ok(false) => {
                    return Err(Error::Stopped(format!(
                        "the bot refuses boardsize {size}: choose --size"
                    )));
                }
                Err(e) => {
                    return Err(Error::Stopped(format!(
                        "the bot did not start or answer: {e}"
                    )));
                }
            }
        }
        if let Some(new) = self.config.create.clone().filter(|_| !self.created) {
            let s = self.client.create_set(&new).await.map_err(|e| match e {
                Error::Api(_) | Error::Network { .. } => Error::Stopped(format!("create: {e}")),
                other => other,
            })?;
            self.created = true;
            tracing::info!(
                "{} created (stake {}, opponent {})",
                s.id,
                s.stake,
                s.opponent.as_deref().unwrap_or("any")
            );
            self.tracked.insert(s.id.clone());
            self.mine.insert(s.id.clone());
        }
        if let Some(practice) = self.config.practice.clone()
            && self.own_in_progress() == 0
            && self.room()
        {
            let opponent = practice.opponent.clone().unwrap_or_default();
            match self.client.practice(&practice).await {
                Ok(s) => {
                    tracing::info!("{} practice against {opponent} started", s.id);
                    self.tracked.insert(s.id.clone());
                    self.mine.insert(s.id.clone());
                }
                Err(Error::Api(a))
                    if matches!(
                        a.code,
                        ErrorCode::Unauthorized
                            | ErrorCode::NotFound
                            | ErrorCode::BadRequest
                            | ErrorCode::InvalidOptions
                    ) =>
                {
                    return Err(Error::Stopped(format!(
                        "practice: {}: {}",
                        a.code, a.message
                    )));
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
            match self.client.set(&id).await {
                Ok(s) if s.status == SetStatus::Finished => self.on_set_finished(&s),
                Ok(s) if s.status.is_closed() => {
                    tracing::info!("{id} {}", status_text(s.status));
                    self.tracked.remove(&id);
                }
                Ok(_) => {}
                Err(e) => tracing::debug!("{id}: {e}"),
            }
        }
    }

    fn on_turn(&mut self, state: GameState) {
        if !state.is_turn_of(&self.me) {
            return;
        }
        let key = state.key();
        if self.finished.contains(&key.set_id) {
            return;
        }
        self.tracked.insert(key.set_id.clone());
        let ply = state.ply;
        let g = self.games.entry(key).or_default();
        // Replays and the on-connect snapshot may repeat a turn already answered or queued.
        let answered = g.answered.is_some_and(|a| ply <= a);
        let queued = g.pending.as_ref().is_some_and(|p| p.ply >= ply);
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
            let (client, bot, me, tx) = (
                self.client.clone(),
                self.bot.clone(),
                self.me.clone(),
                self.done_tx.clone(),
            );
            tokio::spawn(async move {
                let done = play_turns(client, bot, me, state).await;
                let _ = tx.send(done).await;
            });
        }
    }

    fn on_turn_done(&mut self, done: TurnDone) -> Result<(), Error> {
        if let Some(e) = done.fatal {
            return Err(Error::Stopped(e));
        }
        if done.over {
            self.bot.game_over(&done.key);
        }
        let g = self.games.entry(done.key).or_default();
        g.running = false;
        let answered = g.answered.map_or(done.ply, |a| a.max(done.ply));
        g.answered = Some(answered);
        g.over |= done.over;
        if g.over || g.pending.as_ref().is_some_and(|p| p.ply <= answered) {
            g.pending = None;
        }
        Ok(())
    }
}

/// A set status as the wire spells it.
fn status_text(s: SetStatus) -> String {
    serde_json::to_value(s)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}
