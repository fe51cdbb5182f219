//! Moves, resignations and timeouts; the end of games and sets with settlement and ratings
//! (SPEC sections 6, 7, 8).
//!
//! A command runs on the game held in memory ([`super::live`]) under that game's turn lock:
//! the pure aggregate ([`super::game::Game`]) decides, then the change is stored. A move that
//! does not end the game is one small write (the move, the game row, one event) through the
//! group-commit writer; a move that ends a game, a resignation or a timeout is one transaction
//! that also starts game 2 or ends the set. Every write checks the game row's version, so a
//! command computed on a stale copy is never stored: the copy is reloaded and the command runs
//! again on the row as it is.

use std::sync::Arc;

use hex::{Move, Seat};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use skillratings::Outcomes;
use skillratings::elo::{EloConfig, EloRating, elo};

use super::commit::MoveCommit;
use super::error::{ArenaError, ArenaResult};
use super::game::{Game, GameError, Transition};
use super::live::{self, LiveGame, MovesFrom, Slot, Snapshot};
use super::scoring::{GameEnd, SetOutcome, Side, score_set};
use super::views;
use super::{Arena, Change, LiveEvent};
use crate::store::accounts::{self as acc, BotRow};
use crate::store::games::{self, GameRow, MoveRow, MoveWrite};
use crate::store::ledger::{self, Posting};
use crate::store::sets::{self, SetRow};
use crate::store::{Backend, WriteTx, events};

/// How many times a command is recomputed after finding its copy of the game stale.
const STALE_RETRIES: usize = 3;
/// Error code of a timeout another instance is committing (never reaches a client).
const CLAIMED_ELSEWHERE: &str = "claimed_elsewhere";
/// When a timeout was claimed elsewhere, look again this much later (ms).
const CLAIM_RECHECK_MS: i64 = 500;

/// The stored body of a game-state event: which ply, and whether it is the final state. The
/// state itself is rendered from memory, or rebuilt from the stored moves on a resume.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct StateMarker {
    pub ply: i64,
    #[serde(default, rename = "final", skip_serializing_if = "std::ops::Not::not")]
    pub is_final: bool,
}

impl StateMarker {
    fn of(s: &Snapshot) -> String {
        serde_json::to_string(&StateMarker {
            ply: s.ply,
            is_final: s.finished(),
        })
        .unwrap_or_default()
    }

    /// The marker in a stored payload; None for any other payload.
    pub fn parse(payload: &str) -> Option<StateMarker> {
        serde_json::from_str(payload).ok()
    }
}

/// What a transaction causes besides its rows: events to store, waiters to wake, deadlines,
/// games whose copies in memory are now stale.
#[derive(Default, Debug)]
pub struct Effects {
    events: Vec<PendingEvent>,
    written: Vec<LiveEvent>,
    changes: Vec<Change>,
    deadlines: Vec<(String, i64, Option<i64>)>,
    /// (set_id, game_no, version) committed by this transaction.
    games: Vec<(String, i64, i64)>,
    /// Sets that ended: their games leave memory.
    sets_done: Vec<String>,
    /// Games that started: held in memory from their first state.
    held: Vec<Arc<LiveGame>>,
    /// The highest event id written (0 before [`Effects::write`] or when none).
    max_event_id: i64,
}

/// An event to store: audience bot (None = the game's public stream), set, game, kind, JSON.
#[derive(Debug)]
struct PendingEvent {
    bot: Option<String>,
    set_id: String,
    game_no: Option<i64>,
    kind: &'static str,
    payload: String,
    state: Option<Arc<Snapshot>>,
}

impl Effects {
    /// An event for a bot's stream (`Some(bot_id)` or the lobby) or a game's public stream (None).
    pub fn event(
        &mut self,
        bot: Option<&str>,
        set_id: &str,
        game_no: Option<i64>,
        kind: &'static str,
        payload: Value,
    ) {
        self.events.push(PendingEvent {
            bot: bot.map(str::to_string),
            set_id: set_id.to_string(),
            game_no,
            kind,
            payload: payload.to_string(),
            state: None,
        });
    }

    /// `challenge_closed` to every bot's stream: a lobby set is no longer open (accepted or
    /// cancelled), so bots that were offered it can forget it.
    pub fn lobby_closed(&mut self, set_view: &Value) {
        let set_id = set_view["id"].as_str().unwrap_or_default().to_string();
        self.event(
            Some(events::LOBBY),
            &set_id,
            None,
            "challenge_closed",
            json!({"set": set_view}),
        );
        self.change(Change {
            set_id,
            game_no: None,
            bots: vec![events::LOBBY.to_string()],
            ..Change::default()
        });
    }

    pub fn change(&mut self, c: Change) {
        self.changes.push(c);
    }

    /// Holds a game that just started in memory once committed (its state event comes from
    /// [`Effects::game_state`]).
    pub fn hold(&mut self, live: Arc<LiveGame>) {
        self.held.push(live);
    }

    /// Schedules (or clears) the deadline of a game as now stored in `g`.
    pub fn deadline(&mut self, g: &GameRow) {
        let d = if g.status == "active" {
            g.deadline_ms
        } else {
            None
        };
        self.deadlines.push((g.set_id.clone(), g.game_no, d));
    }

    /// A game's new state: its `state` event (which is also the `your_turn` of the bot on
    /// move), its deadline, a wake-up for both seats, and its copy in memory replaced.
    pub fn game_state(&mut self, g: &GameRow, state: Arc<Snapshot>) {
        self.events.push(PendingEvent {
            bot: state.on_move.as_ref().map(|(id, _)| id.clone()),
            set_id: g.set_id.clone(),
            game_no: Some(g.game_no),
            kind: "state",
            payload: StateMarker::of(&state),
            state: Some(state.clone()),
        });
        if state.finished() {
            for b in [&g.seat1_id, &g.seat2_id] {
                self.events.push(PendingEvent {
                    bot: Some(b.clone()),
                    set_id: g.set_id.clone(),
                    game_no: Some(g.game_no),
                    kind: "game_finished",
                    payload: StateMarker::of(&state),
                    state: Some(state.clone()),
                });
            }
        }
        self.deadline(g);
        self.games.push((g.set_id.clone(), g.game_no, g.version));
        self.change(Change {
            set_id: g.set_id.clone(),
            game_no: Some(g.game_no),
            bots: vec![g.seat1_id.clone(), g.seat2_id.clone()],
            state: Some(state),
            ..Change::default()
        });
    }

    /// Stores the events in the transaction, last thing before its commit.
    pub async fn write(&mut self, tx: &mut WriteTx, now: i64) -> ArenaResult<()> {
        if !self.events.is_empty() {
            tx.prepare_events().await?;
            let rows: Vec<events::NewEvent<'_>> = self
                .events
                .iter()
                .map(|e| events::NewEvent {
                    bot_id: e.bot.as_deref(),
                    set_id: &e.set_id,
                    game_no: e.game_no,
                    kind: e.kind,
                    payload: &e.payload,
                })
                .collect();
            let ids = events::insert_all(tx, &rows, now).await?;
            self.max_event_id = ids.iter().copied().max().unwrap_or(0);
            self.written = self
                .events
                .drain(..)
                .zip(ids)
                .map(|(e, id)| LiveEvent {
                    id,
                    bot: e.bot,
                    set_id: e.set_id,
                    game_no: e.game_no,
                    kind: e.kind,
                    payload: Arc::from(e.payload.as_str()),
                    state: e.state,
                })
                .collect();
        }
        if self.changes.is_empty() && !self.written.is_empty() {
            // Events with no wake-up of their own: wake their audiences (here and elsewhere).
            let mut bots: Vec<String> = self.written.iter().filter_map(|e| e.bot.clone()).collect();
            bots.sort_unstable();
            bots.dedup();
            self.changes.push(Change {
                set_id: self.written[0].set_id.clone(),
                bots,
                ..Change::default()
            });
        }
        Ok(())
    }

    /// Stores the events, commits, and applies the effects in memory in commit order.
    pub async fn commit(mut self, mut tx: WriteTx, arena: &Arena, now: i64) -> ArenaResult<()> {
        self.write(&mut tx, now).await?;
        tx.commit_then(|| arena.apply(self)).await?;
        Ok(())
    }
}

impl Arena {
    /// After commit: drop stale copies, reschedule deadlines, wake waiters (the stored events
    /// travel with the first wake-up, in id order).
    pub fn apply(&self, mut fx: Effects) {
        if !fx.written.is_empty() {
            let events = std::mem::take(&mut fx.written);
            match fx.changes.first_mut() {
                Some(c) => c.events = events,
                None => fx.changes.push(Change {
                    events,
                    ..Change::default()
                }),
            }
        }
        if self.store.backend == Backend::Postgres && !fx.changes.is_empty() {
            // Announced to the other instances now that the transaction committed.
            self.notifier.send(super::cluster::notices(
                &self.store.instance_id,
                &fx.changes,
                &fx.deadlines,
                fx.max_event_id,
            ));
        }
        for (set_id, game_no, version) in &fx.games {
            if let Some(slot) = self.live.existing(set_id, *game_no) {
                slot.invalidate(*version);
            }
        }
        for l in std::mem::take(&mut fx.held) {
            if let Some(slot) = self.live.slot(&l.game.set_id, l.game.game_no) {
                slot.install(l);
            }
        }
        for set_id in &fx.sets_done {
            self.live.forget_set(set_id);
        }
        for (set_id, game_no, d) in fx.deadlines {
            self.scheduler.set(&set_id, game_no, d);
        }
        for mut c in fx.changes {
            c.max_event_id = fx.max_event_id;
            self.publish(c);
        }
    }

    /// The game as held in memory, loaded from its row when not held (or, on PostgreSQL, when
    /// another instance changed it). Errors: 404 for an unknown game.
    pub async fn live_game(
        &self,
        set_id: &str,
        game_no: i64,
    ) -> ArenaResult<(Arc<Slot>, Arc<LiveGame>)> {
        let slot = self
            .live
            .slot(set_id, game_no)
            .ok_or_else(|| not_found(set_id, game_no))?;
        if let Some(l) = slot.current() {
            if self.store.backend == Backend::Sqlite {
                return Ok((slot, l));
            }
            // Several instances may share PostgreSQL: check the copy against the row.
            let mut c = self.store.pool.acquire().await?;
            if games::version_of(&mut c, set_id, game_no).await? == Some(l.game.version) {
                return Ok((slot, l));
            }
            slot.clear();
        }
        match self.load_live(&slot, set_id, game_no).await {
            Ok(l) => {
                if l.set.status == "finished" {
                    // A finished set is read from the database: anyone may walk the archive,
                    // and holding every game read would pin them all in memory.
                    self.live.forget_set(set_id);
                }
                Ok((slot, l))
            }
            Err(e) => {
                if e.code == "not_found" {
                    // No slot is kept for a game that does not exist (any id can be asked for).
                    self.live.forget_set(set_id);
                }
                Err(e)
            }
        }
    }

    async fn load_live(
        &self,
        slot: &Slot,
        set_id: &str,
        game_no: i64,
    ) -> ArenaResult<Arc<LiveGame>> {
        let mut c = self.store.pool.acquire().await?;
        let (set, g) = load(&mut c, set_id, game_no, "").await?;
        let moves = games::moves(&mut c, set_id, game_no).await?;
        let names = self.bot_names(&mut c, &g).await?;
        drop(c);
        let game = Game::from_row(&g, set.increment_ms)?;
        let at = g
            .turn_started_ms
            .or(g.finished_ms)
            .unwrap_or_else(|| self.now_ms());
        let snapshot = Arc::new(live::render(
            &set,
            &game,
            &names,
            MovesFrom::Rows(&moves),
            at,
        ));
        let l = Arc::new(LiveGame {
            game,
            set: Arc::new(set),
            names,
            snapshot,
        });
        slot.install(l.clone());
        Ok(l)
    }

    /// Loads every active game into memory (at start, so the first move of each is as cheap as
    /// the rest). Returns how many.
    pub async fn hold_active_games(&self) -> ArenaResult<usize> {
        let active = {
            let mut c = self.store.pool.acquire().await?;
            games::active(&mut c).await?
        };
        for (set_id, game_no) in &active {
            self.live_game(set_id, *game_no).await?;
        }
        Ok(active.len())
    }

    /// A game's state (public), rendered once per change and shared.
    pub async fn game_snapshot(&self, set_id: &str, game_no: i64) -> ArenaResult<Arc<Snapshot>> {
        Ok(self.live_game(set_id, game_no).await?.1.snapshot.clone())
    }

    /// A game's state as of now, as JSON text (SPEC section 6).
    pub async fn game_state_body(&self, set_id: &str, game_no: i64) -> ArenaResult<String> {
        Ok(self
            .game_snapshot(set_id, game_no)
            .await?
            .body_at(self.now_ms()))
    }

    /// The state a stored game-state event stands for: the current one when it is that ply,
    /// otherwise rebuilt from the stored moves up to `m.ply` (a stream resumed from an old id).
    pub async fn state_body_at(
        &self,
        set_id: &str,
        game_no: i64,
        m: StateMarker,
    ) -> ArenaResult<String> {
        let (_, l) = self.live_game(set_id, game_no).await?;
        if (l.game.ply == m.ply && l.snapshot.finished() == m.is_final) || m.is_final {
            return Ok(l.snapshot.body());
        }
        let mut c = self.store.pool.acquire().await?;
        let moves = games::moves(&mut c, set_id, game_no).await?;
        drop(c);
        let k = usize::try_from(m.ply).unwrap_or(0).min(moves.len());
        let game = game_at(&l, &moves[..k])?;
        let at = game.clock.turn_started_ms.unwrap_or(l.snapshot.at_ms);
        Ok(live::render(&l.set, &game, &l.names, MovesFrom::Rows(&moves[..k]), at).body())
    }

    /// Plays `mv` for `bot` in a game. `ply_hint` is the number the move will have
    /// (state `ply` + 1); a retry of the same move at an earlier ply returns the current state.
    ///
    /// Errors: 404; 403 `not_your_seat`; 409 `not_your_turn`, `stale_ply`, `game_over` (also when
    /// the clock ran out: the game is then lost on time); 422 `occupied`, `off_board`,
    /// `swap_not_allowed`; 503 when the game kept changing under the command, or
    /// `clock_unsynced` while this instance's clock is not trusted (SPEC 12).
    #[tracing::instrument(skip(self, bot), fields(bot = %bot.name))]
    pub async fn play_move(
        &self,
        bot: &BotRow,
        set_id: &str,
        game_no: i64,
        mv: Move,
        ply_hint: Option<i64>,
    ) -> ArenaResult<Arc<Snapshot>> {
        // The house plays here without HTTP: it too waits for a trusted clock.
        self.clock_ok()?;
        let slot = self
            .live
            .slot(set_id, game_no)
            .ok_or_else(|| not_found(set_id, game_no))?;
        let started = std::time::Instant::now();
        let _turn = slot.turn.lock().await;
        for _ in 0..STALE_RETRIES {
            let (_, l) = self.live_game(set_id, game_no).await?;
            // Read under the game's turn lock, so times follow the order of the commands.
            let now = self.now_ms();
            let seat = l.game.seat_of(&bot.id)?;
            if let Some(k) = ply_hint {
                if (1..=l.game.ply).contains(&k) {
                    let mut c = self.store.pool.acquire().await?;
                    if let Some(m) = games::move_at(&mut c, set_id, game_no, k).await?
                        && m.bot_id == bot.id
                        && views::move_of_row(&m) == Some(mv)
                    {
                        return Ok(l.snapshot.clone());
                    }
                }
                if k != l.game.ply + 1 && l.game.to_move().is_some() {
                    self.count_refused(set_id, game_no, seat, &bot.id).await;
                    return Err(GameError::StalePly {
                        expected: l.game.ply + 1,
                        ply: l.game.ply,
                        given: k,
                    }
                    .into());
                }
            }
            let t = match l.game.play(seat, mv, now) {
                Ok(t) => t,
                Err(GameError::GameOver) => return Err(game_over(&l)),
                Err(e) => {
                    self.count_refused(set_id, game_no, seat, &bot.id).await;
                    return Err(e.into());
                }
            };
            let stored = if t.ended.is_some() {
                self.commit_ending(&slot, &l, t.clone(), now, false).await?
            } else {
                self.commit_move(&slot, &l, &t).await?
            };
            let Some(snapshot) = stored else {
                slot.clear(); // stale copy: reload from the row and decide again
                continue;
            };
            if t.is_late_move_loss() {
                let (_, l) = self.live_game(set_id, game_no).await?;
                return Err(game_over(&l));
            }
            self.metrics.move_played(started.elapsed());
            return Ok(snapshot);
        }
        Err(ArenaError::unavailable("game changed concurrently; retry"))
    }

    /// Counts a refused move attempt (illegal move, not the bot's turn, stale ply) of `seat`
    /// for the bot page and the standings (issue 18). A failure to count is logged, never
    /// answered: the bot hears why its move was refused either way.
    async fn count_refused(&self, set_id: &str, game_no: i64, seat: hex::Seat, bot_id: &str) {
        let r = async {
            let mut tx = self.store.begin_write().await?;
            games::add_refused(&mut tx, set_id, game_no, i64::from(seat.number()), bot_id).await?;
            tx.commit().await
        }
        .await;
        if let Err(e) = r {
            tracing::warn!(set_id, game_no, error = %e, "refused move not counted");
        }
    }

    /// The fast path: a move that does not end the game. None when the row had moved on.
    async fn commit_move(
        &self,
        slot: &Arc<Slot>,
        l: &LiveGame,
        t: &Transition,
    ) -> ArenaResult<Option<Arc<Snapshot>>> {
        let Some(p) = t.played else {
            return Err(ArenaError::internal("a move transition without a move"));
        };
        let row = live::move_row(&t.game, &p);
        let snapshot = Arc::new(live::render(
            &l.set,
            &t.game,
            &l.names,
            MovesFrom::Append(&l.snapshot, std::slice::from_ref(&row)),
            p.at_ms,
        ));
        let write = MoveWrite {
            game: t.game.to_row(),
            mv: row,
            event_bot: snapshot.on_move.as_ref().map(|(id, _)| id.clone()),
            event_payload: StateMarker::of(&snapshot),
        };
        let live = Arc::new(LiveGame {
            game: t.game.clone(),
            set: l.set.clone(),
            names: l.names.clone(),
            snapshot: snapshot.clone(),
        });
        let committed = self
            .writer
            .commit(MoveCommit {
                write,
                slot: slot.clone(),
                live,
            })
            .await?;
        Ok(committed.map(|_| snapshot))
    }

    /// The slow path: a transition that ends the game, with game 2's start or the set's end,
    /// in one transaction. None when the row had moved on. With `claim` (timeouts, which
    /// every instance fires), PostgreSQL first claims the game row with `FOR UPDATE SKIP
    /// LOCKED`: when another instance holds it, this one steps aside at once with the error
    /// code [`CLAIMED_ELSEWHERE`] instead of queueing behind it.
    async fn commit_ending(
        &self,
        slot: &Arc<Slot>,
        l: &LiveGame,
        t: Transition,
        now: i64,
        claim: bool,
    ) -> ArenaResult<Option<Arc<Snapshot>>> {
        let mut tx = self.store.begin_write().await?;
        let g = t.game.to_row();
        if claim
            && self.store.backend == Backend::Postgres
            && !games::claim(&mut tx, &g.set_id, g.game_no).await?
        {
            return Err(ArenaError::new(
                super::error::ErrorKind::Unavailable,
                CLAIMED_ELSEWHERE,
                "another instance is ending this game",
            ));
        }
        if !games::update(&mut tx, &g).await? {
            return Ok(None);
        }
        let mut rows = vec![];
        if let Some(p) = t.played {
            let row = live::move_row(&t.game, &p);
            games::insert_move(&mut tx, &g.set_id, g.game_no, &row).await?;
            rows.push(row);
        }
        let set = &l.set;
        // Strikes count in staked sets only (SPEC 7, 14).
        if let (Some(s), true) = (t.ended.and_then(|e| e.strike), set.stake > 0) {
            acc::insert_strike(&mut tx, t.game.bot_of(s), &set.id, g.game_no, now).await?;
        }
        let snapshot = Arc::new(live::render(
            set,
            &t.game,
            &l.names,
            MovesFrom::Append(&l.snapshot, &rows),
            now,
        ));
        let mut fx = Effects::default();
        fx.game_state(&g, snapshot.clone());
        if g.game_no == 1 {
            self.start_game_two(&mut tx, set, &g, now, &mut fx).await?;
        } else {
            self.finish_set(&mut tx, set, now, &mut fx).await?;
        }
        let live = Arc::new(LiveGame {
            game: t.game,
            set: l.set.clone(),
            names: l.names.clone(),
            snapshot: snapshot.clone(),
        });
        fx.write(&mut tx, now).await?;
        tx.commit_then(|| {
            self.apply(fx);
            slot.install(live);
        })
        .await?;
        Ok(Some(snapshot))
    }

    /// Resigns the game for `bot`'s seat: the other seat wins (`resignation`). Repeating a
    /// resignation that took effect answers the same success.
    ///
    /// Errors: 404; 403 `not_your_seat`; 409 `not_your_turn` (game 2 before it starts),
    /// `game_over`.
    #[tracing::instrument(skip(self, bot), fields(bot = %bot.name))]
    pub async fn resign(
        &self,
        bot: &BotRow,
        set_id: &str,
        game_no: i64,
    ) -> ArenaResult<Arc<Snapshot>> {
        let slot = self
            .live
            .slot(set_id, game_no)
            .ok_or_else(|| not_found(set_id, game_no))?;
        let _turn = slot.turn.lock().await;
        for _ in 0..STALE_RETRIES {
            let (_, l) = self.live_game(set_id, game_no).await?;
            let now = self.now_ms();
            let seat = l.game.seat_of(&bot.id)?;
            let t = match l.game.resign(seat, now) {
                Ok(t) => t,
                // A retry by the seat whose resignation already took effect: the same success
                // (SPEC 14, retries). Anyone else hears that the game is over.
                Err(GameError::GameOver) if l.game.resigned_by() == Some(seat) => {
                    return Ok(l.snapshot.clone());
                }
                Err(GameError::GameOver) => return Err(game_over(&l)),
                Err(e) => return Err(e.into()),
            };
            match self.commit_ending(&slot, &l, t, now, false).await? {
                Some(s) => return Ok(s),
                None => slot.clear(),
            }
        }
        Err(ArenaError::unavailable("game changed concurrently; retry"))
    }

    /// Ends a game whose deadline passed (the scheduler calls this; a no-op otherwise).
    /// Errors: 503 `clock_unsynced` while this instance's clock is not trusted (SPEC 12).
    pub async fn expire(&self, set_id: &str, game_no: i64) -> ArenaResult<bool> {
        self.clock_ok()?;
        let slot = self
            .live
            .slot(set_id, game_no)
            .ok_or_else(|| not_found(set_id, game_no))?;
        let _turn = slot.turn.lock().await;
        for _ in 0..STALE_RETRIES {
            let (_, l) = self.live_game(set_id, game_no).await?;
            let now = self.now_ms();
            let Some(mut t) = l.game.expire(now) else {
                // Not due (a move came in, or the turn was shifted): reschedule what it says.
                self.scheduler.set(set_id, game_no, l.game.deadline_ms());
                return Ok(false);
            };
            // A crashed bot is told apart from a slow one (issue 18): the loser had gone away.
            if let Some(loser) = t.ended.and_then(|e| e.winner).map(hex::Seat::other) {
                let mut c = self.store.pool.acquire().await?;
                t.game.offline = self.gone_away(&mut c, t.game.bot_of(loser)).await?;
            }
            let reason = t.ended.map(|e| e.reason.as_str()).unwrap_or_default();
            let stored = match self.commit_ending(&slot, &l, t, now, true).await {
                Err(e) if e.code == CLAIMED_ELSEWHERE => {
                    // Another instance is ending this game now; look again shortly in case
                    // it dies before committing (its row lock then goes with it).
                    self.scheduler
                        .set(set_id, game_no, Some(now + CLAIM_RECHECK_MS));
                    return Ok(false);
                }
                r => r?,
            };
            if stored.is_some() {
                tracing::info!(set_id, game_no, reason, "game lost on time");
                return Ok(true);
            }
            slot.clear();
        }
        Err(ArenaError::unavailable("game changed concurrently; retry"))
    }

    /// The bots of seats 1 and 2, read on `c` (the caller's transaction: an in-memory SQLite
    /// pool has one connection, which the transaction holds).
    async fn bot_names(
        &self,
        c: &mut sqlx::AnyConnection,
        g: &GameRow,
    ) -> ArenaResult<[String; 2]> {
        Ok([
            self.bot_name(c, &g.seat1_id).await?,
            self.bot_name(c, &g.seat2_id).await?,
        ])
    }

    async fn start_game_two(
        &self,
        tx: &mut sqlx::AnyConnection,
        set: &SetRow,
        g1: &GameRow,
        now: i64,
        fx: &mut Effects,
    ) -> ArenaResult<()> {
        let g = games::get(tx, &set.id, 2, self.store.for_update())
            .await?
            .ok_or_else(|| ArenaError::internal("game 2 missing"))?;
        let Some(game) = Game::from_row(&g, set.increment_ms)?.start(now) else {
            return Ok(());
        };
        let row = game.to_row();
        if !games::update(tx, &row).await? {
            return Err(ArenaError::unavailable("game changed concurrently"));
        }
        sets::set_points(tx, &set.id, game_points(g1)).await?;
        let names = self.bot_names(tx, &row).await?;
        let snapshot = Arc::new(live::render(set, &game, &names, MovesFrom::Rows(&[]), now));
        fx.game_state(&row, snapshot.clone());
        fx.hold(Arc::new(LiveGame {
            game,
            set: Arc::new(set.clone()),
            names,
            snapshot,
        }));
        Ok(())
    }

    /// Scores the set, settles the stakes and updates ratings, all in the caller's transaction.
    async fn finish_set(
        &self,
        tx: &mut sqlx::AnyConnection,
        set: &SetRow,
        now: i64,
        fx: &mut Effects,
    ) -> ArenaResult<()> {
        let gs = games::of_set(tx, &set.id).await?;
        let [g1, g2] = gs.as_slice() else {
            return Err(ArenaError::internal("set without two games"));
        };
        let score = score_set(&[game_end(g1), game_end(g2)]);
        let acceptor_id = set
            .acceptor_id
            .clone()
            .ok_or_else(|| ArenaError::internal("active set without acceptor"))?;
        let id_of = |side: Side| {
            if side == Side::Creator {
                set.creator_id.clone()
            } else {
                acceptor_id.clone()
            }
        };
        let (winner_id, result, tiebreak) = match score.outcome {
            SetOutcome::Win { side, tiebreak } => {
                let name = self.bot_name(tx, &id_of(side)).await?;
                let text = if tiebreak {
                    format!("{name} wins on the tiebreak")
                } else {
                    format!("{name} wins")
                };
                (Some(id_of(side)), text, tiebreak)
            }
            SetOutcome::Draw => (None, "draw".to_string(), false),
        };
        if sets::finish(
            tx,
            &set.id,
            score.points2,
            winner_id.as_deref(),
            &result,
            tiebreak,
            now,
        )
        .await?
            != 1
        {
            return Ok(()); // already finished: settle nothing twice
        }
        if set.practice == 0 {
            acc::lock_bots(tx, &[&set.creator_id, &acceptor_id], self.store.backend).await?;
        }
        let creator = acc::bot_by_ref(tx, &set.creator_id)
            .await?
            .ok_or_else(|| ArenaError::internal("creator missing"))?;
        let acceptor = acc::bot_by_ref(tx, &acceptor_id)
            .await?
            .ok_or_else(|| ArenaError::internal("acceptor missing"))?;
        // Rated sets and every tournament or match set count in the records (issue 18);
        // `settle` rates only the rated ones. Practice and unrated challenges count nowhere.
        let paired = crate::store::tournaments::event_of_set(tx, &set.id)
            .await?
            .is_some();
        if set.practice == 0 && (set.rated != 0 || paired) {
            self.settle(tx, set, &creator, &acceptor, score.outcome, now)
                .await?;
        }
        let set = sets::get(tx, &set.id, "")
            .await?
            .ok_or_else(|| ArenaError::internal("set vanished"))?;
        let view = self.set_view(tx, &set).await?;
        for b in [&creator.id, &acceptor.id] {
            fx.event(Some(b), &set.id, None, "set_finished", json!({"set": view}));
        }
        fx.change(Change {
            set_id: set.id.clone(),
            game_no: None,
            bots: vec![creator.id.clone(), acceptor.id.clone()],
            ..Change::default()
        });
        fx.sets_done.push(set.id.clone());
        Ok(())
    }

    /// Pays the pot (less the fee) to the winner's owner or returns both stakes on a draw, and
    /// updates W/D/L, won/net and Elo. Idempotent by the transfer key `settle:<set_id>`.
    async fn settle(
        &self,
        tx: &mut sqlx::AnyConnection,
        set: &SetRow,
        creator: &BotRow,
        acceptor: &BotRow,
        outcome: SetOutcome,
        now: i64,
    ) -> ArenaResult<()> {
        let pot = 2 * set.stake;
        let escrow = format!("escrow:{}", set.id);
        let fee = pot * self.config.fee_bps.clamp(0, 10_000) / 10_000;
        let legs = match outcome {
            SetOutcome::Win { side, .. } => {
                let w = if side == Side::Creator {
                    creator
                } else {
                    acceptor
                };
                let mut legs = vec![
                    Posting::account(escrow, "payout", -pot),
                    Posting::player(&w.owner_id, "payout", pot - fee),
                ];
                if fee > 0 {
                    legs.push(Posting::account("fees".into(), "fee", fee));
                }
                legs
            }
            SetOutcome::Draw => vec![
                Posting::account(escrow, "refund", -pot),
                Posting::player(&creator.owner_id, "refund", set.stake),
                Posting::player(&acceptor.owner_id, "refund", set.stake),
            ],
        };
        let fresh = if pot > 0 {
            ledger::transfer(tx, &format!("settle:{}", set.id), Some(&set.id), &legs, now)
                .await
                .map_err(super::accounts::transfer_error)?
        } else {
            true
        };
        if !fresh {
            return Ok(());
        }
        let (sc, sa) = match outcome {
            SetOutcome::Win {
                side: Side::Creator,
                ..
            } => (Outcomes::WIN, Outcomes::LOSS),
            SetOutcome::Win {
                side: Side::Acceptor,
                ..
            } => (Outcomes::LOSS, Outcomes::WIN),
            SetOutcome::Draw => (Outcomes::DRAW, Outcomes::DRAW),
        };
        let (rc, ra) = if set.rated == 0 {
            // Unrated (tournament, match or unstaked) sets count in the record, not the rating.
            (
                EloRating {
                    rating: creator.rating,
                },
                EloRating {
                    rating: acceptor.rating,
                },
            )
        } else {
            elo(
                &EloRating {
                    rating: creator.rating,
                },
                &EloRating {
                    rating: acceptor.rating,
                },
                &sc,
                &EloConfig::new(),
            )
        };
        // The bot page's rating history (issue 14): rated sets only.
        if set.rated != 0 {
            sets::record_ratings(
                tx,
                &set.id,
                [creator.rating, rc.rating],
                [acceptor.rating, ra.rating],
            )
            .await?;
        }
        let gain = set.stake - fee; // what the winner took from the loser, net of the fee
        for (bot, outcome, rating) in [(creator, sc, rc.rating), (acceptor, sa, ra.rating)] {
            let (w, d, l, won, net) = match outcome {
                Outcomes::WIN => (1, 0, 0, gain, gain),
                Outcomes::LOSS => (0, 0, 1, 0, -set.stake),
                _ => (0, 1, 0, 0, 0),
            };
            acc::record_set(tx, &bot.id, rating, w, d, l, won, net).await?;
        }
        Ok(())
    }

    /// Runs the end of a finished set again, as a retried or duplicated transaction would (a
    /// test hook): `finish_set` finds the set finished and `settle` finds its transfer key
    /// written, so nothing is paid, refunded or rated twice. Errors: 404; 409 `set_not_open`
    /// unless the set is finished.
    #[doc(hidden)]
    pub async fn settle_again(&self, set_id: &str) -> ArenaResult<()> {
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        let set = sets::get(&mut tx, set_id, self.store.for_update())
            .await?
            .ok_or_else(|| ArenaError::not_found(format!("no set '{set_id}'")))?;
        if set.status != "finished" {
            return Err(ArenaError::conflict(
                "set_not_open",
                format!("set {set_id} is {}", set.status),
            ));
        }
        let gs = games::of_set(&mut tx, set_id).await?;
        let [g1, g2] = gs.as_slice() else {
            return Err(ArenaError::internal("set without two games"));
        };
        let outcome = score_set(&[game_end(g1), game_end(g2)]).outcome;
        let mut fx = Effects::default();
        self.finish_set(&mut tx, &set, now, &mut fx).await?;
        let acceptor_id = set
            .acceptor_id
            .clone()
            .ok_or_else(|| ArenaError::internal("finished set without acceptor"))?;
        let creator = acc::bot_by_ref(&mut tx, &set.creator_id)
            .await?
            .ok_or_else(|| ArenaError::internal("creator missing"))?;
        let acceptor = acc::bot_by_ref(&mut tx, &acceptor_id)
            .await?
            .ok_or_else(|| ArenaError::internal("acceptor missing"))?;
        let paired = crate::store::tournaments::event_of_set(&mut tx, &set.id)
            .await?
            .is_some();
        if set.practice == 0 && (set.rated != 0 || paired) {
            self.settle(&mut tx, &set, &creator, &acceptor, outcome, now)
                .await?;
        }
        fx.commit(tx, self, now).await
    }
}

fn game_end(g: &GameRow) -> GameEnd {
    GameEnd {
        game_no: g.game_no,
        winner: g
            .winner_seat
            .and_then(|w| u8::try_from(w).ok())
            .and_then(Seat::from_number),
        ply: g.ply,
    }
}

/// Doubled points of one finished game, by side.
fn game_points(g: &GameRow) -> [i64; 2] {
    let mut p = [0; 2];
    for seat in [Seat::One, Seat::Two] {
        let side = Side::in_seat(g.game_no, seat) as usize;
        p[side] += match game_end(g).winner {
            Some(w) if w == seat => 2,
            Some(_) => 0,
            None => 1,
        };
    }
    p
}

async fn load(
    c: &mut sqlx::AnyConnection,
    set_id: &str,
    game_no: i64,
    lock: &str,
) -> ArenaResult<(SetRow, GameRow)> {
    let not_found = || ArenaError::not_found(format!("no game {game_no} in set '{set_id}'"));
    if !(1..=2).contains(&game_no) {
        return Err(not_found());
    }
    let g = games::get(c, set_id, game_no, lock)
        .await?
        .ok_or_else(not_found)?;
    let set = sets::get(c, set_id, "").await?.ok_or_else(not_found)?;
    Ok((set, g))
}

/// The game of `l` as it stood after `moves` (a prefix of its stored moves): the position
/// replayed from the opening, the clocks charged move by move, the next seat on move.
fn game_at(l: &LiveGame, moves: &[MoveRow]) -> ArenaResult<Game> {
    let set = &l.set;
    let size = u8::try_from(set.size).map_err(ArenaError::internal)?;
    let opening: Vec<hex::Cell> = views::opening_of(set)
        .into_iter()
        .map(hex::Cell::from)
        .collect();
    let mut position = hex::Position::with_opening(size, &opening)
        .map_err(|e| ArenaError::internal(format!("opening: {e}")))?;
    let mut clock = super::clock::Clock::new(set.initial_ms, set.increment_ms);
    clock.turn_started_ms = l.game.started_ms;
    for m in moves {
        let mv = views::move_of_row(m).ok_or_else(|| ArenaError::internal("bad stored move"))?;
        position
            .play(mv)
            .map_err(|e| ArenaError::internal(format!("stored move refused: {e}")))?;
        let i = usize::try_from(m.seat - 1).unwrap_or(0).min(1);
        if clock.first_move[i] {
            clock.first_move[i] = false;
        } else {
            clock.remaining_ms[i] += clock.increment_ms - m.elapsed_ms;
        }
        clock.turn_started_ms = Some(m.at_ms);
    }
    let to_move = position
        .to_move()
        .ok_or_else(|| ArenaError::internal("no seat on move in a past position"))?;
    Ok(Game {
        status: super::game::Status::Active { to_move },
        position,
        clock,
        ply: i64::try_from(moves.len()).unwrap_or(0),
        finished_ms: None,
        ..l.game.clone()
    })
}

fn not_found(set_id: &str, game_no: i64) -> ArenaError {
    ArenaError::not_found(format!("no game {game_no} in set '{set_id}'"))
}

/// 409 `game_over` with the result (the same body however the game ended).
fn game_over(l: &LiveGame) -> ArenaError {
    ArenaError::conflict("game_over", "the game is over")
        .with_details(json!({"result": live::result_json(l.game.status, &l.names, l.game.offline)}))
}
