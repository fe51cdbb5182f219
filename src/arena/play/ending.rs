//! Games ended by a command other than a move: resignation, a forfeited set, a timeout.

use super::*;

impl Arena {
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
            match self
                .commit_ending(&slot, &l, t, now, false, None)
                .await?
                .stored()
            {
                Some(s) => return Ok(s),
                None => slot.clear(),
            }
        }
        Err(ArenaError::unavailable("game changed concurrently; retry"))
    }

    /// Ends the set `set_id` in play at once as a forfeit by `loser_id`, whose tournament
    /// withdrew it (issue 18): every game not over ends with the other seat winning
    /// (`resignation`, `result.forfeit: true`; a loss on time already due stands), the clocks
    /// stop, and the set is the opponent's whatever its games say ("... wins by forfeit"). The
    /// stakes settle through the ledger as for any finished set; the rating moves only if a move
    /// was played. Ok(false) when the set was not active (it finished first).
    /// Errors: 404 for an unknown set; 503 when the games kept changing under the command.
    pub async fn forfeit_set(&self, set_id: &str, loser_id: &str) -> ArenaResult<bool> {
        let slots = [1, 2].map(|n| self.live.slot(set_id, n));
        let [Some(s1), Some(s2)] = slots else {
            return Err(not_found(set_id, 1));
        };
        // Both turn locks, game 1's first (the order every caller that takes two would use).
        let _t1 = s1.turn.lock().await;
        let _t2 = s2.turn.lock().await;
        for _ in 0..STALE_RETRIES {
            let (_, l1) = self.live_game(set_id, 1).await?;
            let (_, l2) = self.live_game(set_id, 2).await?;
            let mut tx = self.store.begin_write().await?;
            let now = self.now_ms();
            let Some(set) = sets::get(&mut tx, set_id, self.store.for_update()).await? else {
                return Err(not_found(set_id, 1));
            };
            if set.status != SetStatus::Active {
                return Ok(false);
            }
            let mut fx = Effects::default();
            let mut stale = false;
            for (slot, l) in [(&s1, &l1), (&s2, &l2)] {
                let seat = l.game.seat_of(loser_id)?;
                let Some(t) = l.game.forfeit(seat, now) else {
                    continue;
                };
                let row = t.game.to_row();
                if !games::update(&mut tx, &row).await? {
                    stale = true;
                    break;
                }
                let snapshot = Arc::new(live::render(
                    &set,
                    &t.game,
                    &l.names,
                    MovesFrom::Append(&l.snapshot, &[]),
                    now,
                ));
                fx.game_state(&row, snapshot.clone());
                fx.install(
                    slot.clone(),
                    Arc::new(LiveGame {
                        game: t.game,
                        set: l.set.clone(),
                        names: l.names.clone(),
                        snapshot,
                    }),
                );
            }
            if stale {
                drop(tx); // rolled back: reload both games and decide again
                s1.clear();
                s2.clear();
                continue;
            }
            let winner = if loser_id == set.creator_id {
                Side::Acceptor
            } else {
                Side::Creator
            };
            let played = l1.game.ply + l2.game.ply > 0;
            self.finish_set(
                &mut tx,
                &set,
                now,
                &mut fx,
                Some(Forfeit { winner, played }),
            )
            .await?;
            fx.commit(tx, self, now).await?;
            tracing::info!(set_id, loser_id, "set forfeited in play");
            return Ok(true);
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
                let mut c = self.store.conn().await?;
                t.game.offline = self.gone_away(&mut c, t.game.bot_of(loser)).await?;
            }
            let reason = t.ended.map(|e| e.reason.as_str()).unwrap_or_default();
            match self.commit_ending(&slot, &l, t, now, true, None).await? {
                Ending::ClaimedElsewhere => {
                    // Another instance is ending this game now; look again shortly in case
                    // it dies before committing (its row lock then goes with it).
                    self.scheduler
                        .set(set_id, game_no, Some(now + CLAIM_RECHECK_MS));
                    return Ok(false);
                }
                Ending::Stored(_) => {
                    tracing::info!(set_id, game_no, reason, "game lost on time");
                    return Ok(true);
                }
                Ending::Stale => slot.clear(),
            }
        }
        Err(ArenaError::unavailable("game changed concurrently; retry"))
    }
}
