//! Moves, resignations and timeouts; the end of games and sets with settlement and ratings
//! (SPEC sections 6, 7, 8). Every change is one transaction on the locked game row.

use std::sync::Arc;

use hex::{Move, Seat};
use serde_json::{Value, json};
use skillratings::Outcomes;
use skillratings::elo::{EloConfig, EloRating, elo};

use super::clock::TimeLoss;
use super::scoring::{GameEnd, SetOutcome, Side, score_set};
use super::views::{self, GameState, clock_of, position_of, seat_on_move, store_clock};
use super::{Arena, Change};
use crate::error::{ApiError, ApiResult};
use crate::store::accounts::{self as acc, BotRow};
use crate::store::games::{self, GameRow, MoveRow};
use crate::store::ledger::{self, Posting};
use crate::store::sets::{self, SetRow};
use crate::store::{WriteTx, events};

/// What a transaction causes besides its rows: events to store, waiters to wake, deadlines.
#[derive(Default, Debug)]
pub struct Effects {
    events: Vec<PendingEvent>,
    changes: Vec<Change>,
    deadlines: Vec<(String, i64, Option<i64>)>,
    /// (set_id, game_no, version, moves) to cache after commit.
    moves: Vec<(String, i64, i64, Arc<Vec<MoveRow>>)>,
}

/// An event to store: audience bot (None = the game's public stream), set, game, kind, JSON.
#[derive(Debug)]
struct PendingEvent {
    bot: Option<String>,
    set_id: String,
    game_no: Option<i64>,
    kind: &'static str,
    payload: String,
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
        self.event_json(bot, set_id, game_no, kind, payload.to_string());
    }

    /// As [`Effects::event`], with the payload already serialized.
    fn event_json(
        &mut self,
        bot: Option<&str>,
        set_id: &str,
        game_no: Option<i64>,
        kind: &'static str,
        payload: String,
    ) {
        self.events.push(PendingEvent {
            bot: bot.map(str::to_string),
            set_id: set_id.to_string(),
            game_no,
            kind,
            payload,
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
        });
    }

    pub fn change(&mut self, c: Change) {
        self.changes.push(c);
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
    /// The public `state` event of a game and, if someone is on move, its `your_turn`.
    pub fn game_state_events(&mut self, g: &GameRow, state: &GameState) {
        // Serialized once for both events: this is on every move's path.
        let text = serde_json::to_string(state).unwrap_or_else(|_| "{}".into());
        let turn = g.to_move_id.as_deref().filter(|_| g.status == "active");
        if let Some(bot) = turn {
            self.event_json(None, &g.set_id, Some(g.game_no), "state", text.clone());
            self.event_json(
                Some(bot),
                &g.set_id,
                Some(g.game_no),
                "your_turn",
                format!("{{\"state\":{text}}}"),
            );
        } else {
            self.event_json(None, &g.set_id, Some(g.game_no), "state", text);
        }
    }
    /// After a game row changed: its deadline, its move list at the new version, and a wake-up
    /// for both seats.
    fn game_changed(&mut self, g: &GameRow, moves: Arc<Vec<MoveRow>>) {
        self.deadline(g);
        self.moves
            .push((g.set_id.clone(), g.game_no, g.version, moves));
        self.change(Change {
            set_id: g.set_id.clone(),
            game_no: Some(g.game_no),
            bots: vec![g.seat1_id.clone(), g.seat2_id.clone()],
        });
    }

    /// Stores the events in the transaction, last thing before its commit.
    pub async fn write(&self, tx: &mut WriteTx, now: i64) -> ApiResult<()> {
        if self.events.is_empty() {
            return Ok(());
        }
        tx.serialize_events().await?;
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
        events::insert_all(tx, &rows, now).await?;
        Ok(())
    }
}

impl Arena {
    /// After commit: refresh caches, reschedule deadlines, wake waiters.
    pub fn apply(&self, fx: Effects) {
        for (set_id, game_no, version, moves) in fx.moves {
            self.cache_moves(&set_id, game_no, version, moves);
        }
        for (set_id, game_no, d) in fx.deadlines {
            self.scheduler.set(&set_id, game_no, d);
        }
        for c in fx.changes {
            self.publish(c);
        }
    }

    /// A game's state as of now (public).
    pub async fn game_state(&self, set_id: &str, game_no: i64) -> ApiResult<GameState> {
        let mut c = self.store.pool.acquire().await?;
        let (set, g) = load(&mut c, set_id, game_no, "").await?;
        self.state_of(&mut c, &set, &g).await
    }

    async fn state_of(
        &self,
        c: &mut sqlx::AnyConnection,
        set: &SetRow,
        g: &GameRow,
    ) -> ApiResult<GameState> {
        let moves = self.moves_of(c, &g.set_id, g.game_no, g.version).await?;
        let names = [
            self.bot_name(c, &g.seat1_id).await?,
            self.bot_name(c, &g.seat2_id).await?,
        ];
        views::game_state(set, g, &moves, &names, self.now_ms())
    }

    /// Plays `mv` for `bot` in a game. `ply_hint` is the number the move will have
    /// (state `ply` + 1); a retry of the same move at an earlier ply returns the current state.
    ///
    /// Errors: 404; 403 `not_your_seat`; 409 `not_your_turn`, `stale_ply`, `game_over` (also when
    /// the clock ran out: the game is then lost on time); 422 `occupied`, `off_board`,
    /// `swap_not_allowed`.
    #[tracing::instrument(skip(self, bot), fields(bot = %bot.name))]
    pub async fn play_move(
        &self,
        bot: &BotRow,
        set_id: &str,
        game_no: i64,
        mv: Move,
        ply_hint: Option<i64>,
    ) -> ApiResult<GameState> {
        let mut tx = self.store.begin_write().await?;
        let (set, mut g) = load(&mut tx, set_id, game_no, self.store.for_update()).await?;
        // Read under the game lock, so times follow the order in which changes commit.
        let now = self.now_ms();
        let seat = seat_of(&g, &bot.id)?;
        if let Some(k) = ply_hint {
            if (1..=g.ply).contains(&k)
                && let Some(m) = games::move_at(&mut tx, set_id, game_no, k).await?
                && m.bot_id == bot.id
                && views::move_of_row(&m) == Some(mv)
            {
                return self.state_of(&mut tx, &set, &g).await;
            }
            if k != g.ply + 1 && g.status == "active" {
                return Err(ApiError::conflict(
                    "stale_ply",
                    format!("this move would be ply {}, not {k}", g.ply + 1),
                )
                .with_details(json!({"expected_ply": g.ply + 1, "ply": g.ply})));
            }
        }
        if g.status == "finished" {
            // The same `game_over` body (with `winner_bot`) however the game ended.
            return Err(game_over(&g, self.bot_names(&mut tx, &g).await?));
        }
        self.ensure_on_move(&g, seat)?;
        let mut clock = clock_of(&g, set.increment_ms);
        if let Some(loss) = clock.loss_at(seat, now) {
            // Lost on time before this move arrived: record the loss, then refuse the move.
            let names = self.bot_names(&mut tx, &g).await?;
            self.lose_on_time(tx, &set, &mut g, seat, loss, now).await?;
            return Err(game_over(&g, names));
        }
        let mut pos = position_of(&g)?;
        let outcome = pos.play(mv).map_err(|e| {
            ApiError::new(
                actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
                e.code(),
                e.to_string(),
            )
            .with_details(json!({"move": views::move_json(mv)}))
        })?;
        let elapsed = clock
            .charge_move(seat, now)
            .map_err(|_| ApiError::internal("clock refused a checked move"))?;
        let mut fx = Effects::default();
        let row = MoveRow {
            ply: g.ply + 1,
            seat: i64::from(seat.number()),
            bot_id: bot.id.clone(),
            cell_row: match mv {
                Move::Place(c) => Some(i64::from(c.row)),
                Move::Swap => None,
            },
            cell_col: match mv {
                Move::Place(c) => Some(i64::from(c.col)),
                Move::Swap => None,
            },
            swap: i64::from(mv == Move::Swap),
            elapsed_ms: elapsed,
            at_ms: now,
        };
        // Read the list before inserting: a cold cache would otherwise read the new row too.
        let mut moves = (*self.moves_of(&mut tx, set_id, game_no, g.version).await?).clone();
        games::insert_move(&mut tx, set_id, game_no, &row).await?;
        moves.push(row);
        let moves = Arc::new(moves);
        g.board = pos.to_compact();
        g.ply += 1;
        store_clock(&mut g, &clock);
        let state = match outcome {
            Some(o) => {
                let (winner, reason) = match o.winner() {
                    Some(w) => (Some(w), "connection"),
                    None => (None, "move_cap"),
                };
                self.finish_game_with_moves(
                    &mut tx, &set, &mut g, winner, reason, now, &mut fx, moves,
                )
                .await?
            }
            None => {
                let next = seat.other();
                g.to_move_id = Some(seat_id(&g, next).to_string());
                g.deadline_ms = clock.deadline_ms(next);
                g.version += 1;
                if !games::update(&mut tx, &g).await? {
                    return Err(ApiError::unavailable("game changed concurrently"));
                }
                let state = self.state_with(&mut tx, &set, &g, &moves, now).await?;
                fx.game_state_events(&g, &state);
                fx.game_changed(&g, moves);
                state
            }
        };
        fx.write(&mut tx, now).await?;
        tx.commit().await?;
        self.apply(fx);
        Ok(state)
    }

    /// Resigns the game for `bot`'s seat: the other seat wins (`resignation`).
    #[tracing::instrument(skip(self, bot), fields(bot = %bot.name))]
    pub async fn resign(&self, bot: &BotRow, set_id: &str, game_no: i64) -> ApiResult<GameState> {
        let mut tx = self.store.begin_write().await?;
        let (set, mut g) = load(&mut tx, set_id, game_no, self.store.for_update()).await?;
        // Read under the game lock, so times follow the order in which changes commit.
        let now = self.now_ms();
        let seat = seat_of(&g, &bot.id)?;
        if g.status == "finished" {
            return Err(game_over(&g, self.bot_names(&mut tx, &g).await?));
        }
        if g.status != "active" {
            return Err(ApiError::conflict(
                "not_your_turn",
                "this game has not started yet",
            ));
        }
        let mut fx = Effects::default();
        let on_move = seat_on_move(&g);
        let mut clock = clock_of(&g, set.increment_ms);
        // A resignation after the flag fell is a loss on time, which is what the clock says.
        let (winner, reason) = match on_move.and_then(|s| clock.loss_at(s, now).map(|l| (s, l))) {
            Some((loser, loss)) => (loser.other(), loss.reason()),
            None => (seat.other(), "resignation"),
        };
        clock.stop(on_move, now);
        store_clock(&mut g, &clock);
        let state = self
            .finish_game(&mut tx, &set, &mut g, Some(winner), reason, now, &mut fx)
            .await?;
        fx.write(&mut tx, now).await?;
        tx.commit().await?;
        self.apply(fx);
        Ok(state)
    }

    /// Ends a game whose deadline passed (the scheduler calls this; a no-op otherwise).
    pub async fn expire(&self, set_id: &str, game_no: i64) -> ApiResult<bool> {
        let mut tx = self.store.begin_write().await?;
        let (set, mut g) = load(&mut tx, set_id, game_no, self.store.for_update()).await?;
        // Read under the game lock, so times follow the order in which changes commit.
        let now = self.now_ms();
        let Some(seat) = seat_on_move(&g).filter(|_| g.status == "active") else {
            return Ok(false);
        };
        let clock = clock_of(&g, set.increment_ms);
        let Some(loss) = clock.loss_at(seat, now) else {
            // Not due (a move came in, or the turn was shifted): reschedule what the row says.
            self.scheduler.set(set_id, game_no, g.deadline_ms);
            return Ok(false);
        };
        self.lose_on_time(tx, &set, &mut g, seat, loss, now).await?;
        tracing::info!(set_id, game_no, reason = loss.reason(), "game lost on time");
        Ok(true)
    }

    /// Ends `g` as lost on time by `seat` and commits `tx` (a move's or the scheduler's).
    async fn lose_on_time(
        &self,
        mut tx: WriteTx,
        set: &SetRow,
        g: &mut GameRow,
        seat: Seat,
        loss: TimeLoss,
        now: i64,
    ) -> ApiResult<()> {
        let mut fx = Effects::default();
        self.finish_game(
            &mut tx,
            set,
            g,
            Some(seat.other()),
            loss.reason(),
            now,
            &mut fx,
        )
        .await?;
        fx.write(&mut tx, now).await?;
        tx.commit().await?;
        self.apply(fx);
        Ok(())
    }

    /// 409 `not_your_turn` unless `seat` is on move (the caller has ruled out finished games).
    fn ensure_on_move(&self, g: &GameRow, seat: Seat) -> ApiResult<()> {
        match g.status.as_str() {
            "active" if seat_on_move(g) == Some(seat) => Ok(()),
            "active" => Err(
                ApiError::conflict("not_your_turn", "the other seat is on move").with_details(
                    json!({"to_move": seat_on_move(g).map(|s| s.number()), "ply": g.ply}),
                ),
            ),
            _ => Err(ApiError::conflict(
                "not_your_turn",
                "this game has not started yet",
            )),
        }
    }

    /// The bots of seats 1 and 2, read on `c` (the caller's transaction: an in-memory SQLite
    /// pool has one connection, which the transaction holds).
    async fn bot_names(&self, c: &mut sqlx::AnyConnection, g: &GameRow) -> ApiResult<[String; 2]> {
        Ok([
            self.bot_name(c, &g.seat1_id).await?,
            self.bot_name(c, &g.seat2_id).await?,
        ])
    }

    async fn state_with(
        &self,
        c: &mut sqlx::AnyConnection,
        set: &SetRow,
        g: &GameRow,
        moves: &[MoveRow],
        now: i64,
    ) -> ApiResult<GameState> {
        let names = [
            self.bot_name(c, &g.seat1_id).await?,
            self.bot_name(c, &g.seat2_id).await?,
        ];
        views::game_state(set, g, moves, &names, now)
    }

    #[allow(clippy::too_many_arguments)]
    async fn finish_game(
        &self,
        tx: &mut sqlx::AnyConnection,
        set: &SetRow,
        g: &mut GameRow,
        winner: Option<Seat>,
        reason: &'static str,
        now: i64,
        fx: &mut Effects,
    ) -> ApiResult<GameState> {
        let moves = self.moves_of(tx, &g.set_id, g.game_no, g.version).await?;
        self.finish_game_with_moves(tx, set, g, winner, reason, now, fx, moves)
            .await
    }

    /// Ends game `g` (already holding its final board and clocks), then starts game 2 or ends the set.
    #[allow(clippy::too_many_arguments)]
    async fn finish_game_with_moves(
        &self,
        tx: &mut sqlx::AnyConnection,
        set: &SetRow,
        g: &mut GameRow,
        winner: Option<Seat>,
        reason: &'static str,
        now: i64,
        fx: &mut Effects,
        moves: Arc<Vec<MoveRow>>,
    ) -> ApiResult<GameState> {
        let loser_on_time = seat_on_move(g).filter(|_| reason == TimeLoss::FirstMove.reason());
        if reason == TimeLoss::Clock.reason() {
            // The flag fell: the seat on move has 0 ms left. (A missed first move was never
            // charged, so its clock keeps what it had.)
            if let Some(s) = seat_on_move(g) {
                let mut c = clock_of(g, set.increment_ms);
                c.remaining_ms[usize::from(s.number() - 1)] = 0;
                c.turn_started_ms = None;
                store_clock(g, &c);
            }
        }
        let mut c = clock_of(g, set.increment_ms);
        c.turn_started_ms = None;
        store_clock(g, &c);
        g.status = "finished".into();
        g.winner_seat = winner.map(|w| i64::from(w.number()));
        g.reason = Some(reason.into());
        g.to_move_id = None;
        g.deadline_ms = None;
        g.finished_ms = Some(now);
        g.version += 1;
        if !games::update(tx, g).await? {
            return Err(ApiError::unavailable("game changed concurrently"));
        }
        if let (Some(s), true) = (loser_on_time, set.stake > 0) {
            acc::insert_strike(tx, seat_id(g, s), &set.id, g.game_no, now).await?;
        }
        let state = self.state_with(tx, set, g, &moves, now).await?;
        fx.game_state_events(g, &state);
        for b in [&g.seat1_id, &g.seat2_id] {
            fx.event(
                Some(b),
                &g.set_id,
                Some(g.game_no),
                "game_finished",
                json!({"state": state}),
            );
        }
        fx.game_changed(g, moves);
        if g.game_no == 1 {
            self.start_game_two(tx, set, g, now, fx).await?;
        } else {
            self.finish_set(tx, set, now, fx).await?;
        }
        Ok(state)
    }

    async fn start_game_two(
        &self,
        tx: &mut sqlx::AnyConnection,
        set: &SetRow,
        g1: &GameRow,
        now: i64,
        fx: &mut Effects,
    ) -> ApiResult<()> {
        let mut g = games::get(tx, &set.id, 2, self.store.for_update())
            .await?
            .ok_or_else(|| ApiError::internal("game 2 missing"))?;
        if g.status != "pending" {
            return Ok(());
        }
        g.status = "active".into();
        g.to_move_id = Some(g.seat1_id.clone());
        g.turn_started_ms = Some(now);
        g.deadline_ms = Some(now + super::clock::FIRST_MOVE_MS);
        g.started_ms = Some(now);
        g.version += 1;
        if !games::update(tx, &g).await? {
            return Err(ApiError::unavailable("game changed concurrently"));
        }
        sets::set_points(tx, &set.id, game_points(g1)).await?;
        let state = self.state_with(tx, set, &g, &[], now).await?;
        fx.game_state_events(&g, &state);
        fx.deadline(&g);
        fx.change(Change {
            set_id: set.id.clone(),
            game_no: Some(2),
            bots: vec![g.seat1_id.clone(), g.seat2_id.clone()],
        });
        Ok(())
    }

    /// Scores the set, settles the stakes and updates ratings, all in the caller's transaction.
    async fn finish_set(
        &self,
        tx: &mut sqlx::AnyConnection,
        set: &SetRow,
        now: i64,
        fx: &mut Effects,
    ) -> ApiResult<()> {
        let gs = games::of_set(tx, &set.id).await?;
        let [g1, g2] = gs.as_slice() else {
            return Err(ApiError::internal("set without two games"));
        };
        let score = score_set(&[game_end(g1), game_end(g2)]);
        let acceptor_id = set
            .acceptor_id
            .clone()
            .ok_or_else(|| ApiError::internal("active set without acceptor"))?;
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
            .ok_or_else(|| ApiError::internal("creator missing"))?;
        let acceptor = acc::bot_by_ref(tx, &acceptor_id)
            .await?
            .ok_or_else(|| ApiError::internal("acceptor missing"))?;
        if set.practice == 0 {
            self.settle(tx, set, &creator, &acceptor, score.outcome, now)
                .await?;
        }
        let set = sets::get(tx, &set.id, "")
            .await?
            .ok_or_else(|| ApiError::internal("set vanished"))?;
        let view = self.set_view(tx, &set).await?;
        for b in [&creator.id, &acceptor.id] {
            fx.event(Some(b), &set.id, None, "set_finished", json!({"set": view}));
        }
        fx.change(Change {
            set_id: set.id.clone(),
            game_no: None,
            bots: vec![creator.id.clone(), acceptor.id.clone()],
        });
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
    ) -> ApiResult<()> {
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
        let (rc, ra) = elo(
            &EloRating {
                rating: creator.rating,
            },
            &EloRating {
                rating: acceptor.rating,
            },
            &sc,
            &EloConfig::new(),
        );
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
    pub async fn settle_again(&self, set_id: &str) -> ApiResult<()> {
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        let set = sets::get(&mut tx, set_id, self.store.for_update())
            .await?
            .ok_or_else(|| ApiError::not_found(format!("no set '{set_id}'")))?;
        if set.status != "finished" {
            return Err(ApiError::conflict(
                "set_not_open",
                format!("set {set_id} is {}", set.status),
            ));
        }
        let gs = games::of_set(&mut tx, set_id).await?;
        let [g1, g2] = gs.as_slice() else {
            return Err(ApiError::internal("set without two games"));
        };
        let outcome = score_set(&[game_end(g1), game_end(g2)]).outcome;
        let mut fx = Effects::default();
        self.finish_set(&mut tx, &set, now, &mut fx).await?;
        let acceptor_id = set
            .acceptor_id
            .clone()
            .ok_or_else(|| ApiError::internal("finished set without acceptor"))?;
        let creator = acc::bot_by_ref(&mut tx, &set.creator_id)
            .await?
            .ok_or_else(|| ApiError::internal("creator missing"))?;
        let acceptor = acc::bot_by_ref(&mut tx, &acceptor_id)
            .await?
            .ok_or_else(|| ApiError::internal("acceptor missing"))?;
        if set.practice == 0 {
            self.settle(&mut tx, &set, &creator, &acceptor, outcome, now)
                .await?;
        }
        fx.write(&mut tx, now).await?;
        tx.commit().await?;
        self.apply(fx);
        Ok(())
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
) -> ApiResult<(SetRow, GameRow)> {
    let not_found = || ApiError::not_found(format!("no game {game_no} in set '{set_id}'"));
    if !(1..=2).contains(&game_no) {
        return Err(not_found());
    }
    let g = games::get(c, set_id, game_no, lock)
        .await?
        .ok_or_else(not_found)?;
    let set = sets::get(c, set_id, "").await?.ok_or_else(not_found)?;
    Ok((set, g))
}

fn seat_of(g: &GameRow, bot_id: &str) -> ApiResult<Seat> {
    if g.seat1_id == bot_id {
        Ok(Seat::One)
    } else if g.seat2_id == bot_id {
        Ok(Seat::Two)
    } else {
        Err(ApiError::forbidden_code(
            "not_your_seat",
            "your bot has no seat in this game",
        ))
    }
}

fn seat_id(g: &GameRow, seat: Seat) -> &str {
    match seat {
        Seat::One => &g.seat1_id,
        Seat::Two => &g.seat2_id,
    }
}

fn game_over(g: &GameRow, names: [String; 2]) -> ApiError {
    ApiError::conflict("game_over", "the game is over")
        .with_details(json!({"result": views::result_json(g, &names)}))
}
