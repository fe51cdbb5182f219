//! A move: deciding it on the held game, and storing a plain move or a game-ending one.

use super::*;

impl Arena {
    /// Plays `mv` for `bot` in a game. `ply_hint` is the number the move will have
    /// (state `ply` + 1); a retry of the same move at an earlier ply returns the current state.
    ///
    /// Errors: 404; 403 `not_your_seat`; 409 `not_your_turn`, `stale_ply`, `game_over` (also when
    /// the clock ran out: the game is then lost on time); 422 `occupied`, `off_board`,
    /// `swap_not_allowed`; 503 when the game kept changing under the command, or
    /// `clock_unsynced` while this instance's clock is not trusted (SPEC 12). `info` is what the
    /// bot said of its move (issue 21), stored with it; 400 `invalid_info` when its `pv` leaves
    /// the board. A retry keeps the first move's info.
    // Debug level: the request's own span (route, request id) already frames its logs, and a
    // span at the default level costs its fields' formatting on every move (issue 22).
    #[tracing::instrument(level = "debug", skip(self, bot, info), fields(bot = %bot.name))]
    pub async fn play_move(
        &self,
        bot: &BotRow,
        set_id: &str,
        game_no: i64,
        mv: Move,
        ply_hint: Option<i64>,
        info: Option<&crate::arena::info::MoveInfo>,
    ) -> ArenaResult<Arc<Snapshot>> {
        // The house plays here without HTTP: it too waits for a trusted clock.
        self.clock_ok()?;
        let slot = self
            .live
            .slot(set_id, game_no)
            .ok_or_else(|| not_found(set_id, game_no))?;
        let started = std::time::Instant::now();
        let _turn = slot.turn.lock().await;
        // The held copy is used as it is (its write checks the row's version: a stale copy's
        // write fails and the game is read again), but a refusal or a retry's answer is given
        // only from a copy checked against the row. SQLite's copies are always current; on
        // PostgreSQL this saves a read of the row on every move (issue 22).
        let mut checked = self.store.backend == Backend::Sqlite;
        let mut stale_writes = 0;
        let mut caught_up = None;
        while stale_writes < STALE_RETRIES {
            let l = match caught_up.take() {
                Some(l) => l,
                None => self.live_game_checked(set_id, game_no, checked).await?.1,
            };
            macro_rules! confirm {
                () => {
                    if !checked {
                        checked = true;
                        continue;
                    }
                };
            }
            // Read under the game's turn lock, so times follow the order of the commands.
            let now = self.now_ms();
            let seat = match l.game.seat_of(&bot.id) {
                Ok(seat) => seat,
                Err(e) => {
                    confirm!();
                    return Err(e.into());
                }
            };
            if let Some(i) = info {
                i.check_board(l.set.size)?;
            }
            if let Some(k) = ply_hint {
                let mut played = None;
                if (1..=l.game.ply).contains(&k) {
                    let mut c = self.store.conn().await?;
                    if let Some(m) = games::move_at(&mut c, set_id, game_no, k).await? {
                        let stored = views::move_of_row(&m);
                        if m.bot_id == bot.id && stored == Some(mv) {
                            drop(c);
                            confirm!();
                            return Ok(l.snapshot.clone());
                        }
                        played = stored.map(|s| (m.seat, s));
                    }
                }
                if k > l.game.ply + 1 && !checked {
                    // The bot saw a later ply than this copy: another instance moved the game
                    // on. The row is read anyway, so catch up at once instead of checking first.
                    checked = true;
                    caught_up = self.catch_up(&slot, &l).await?;
                    if caught_up.is_none() {
                        slot.clear();
                    }
                    continue;
                }
                if k != l.game.ply + 1 && l.game.to_move().is_some() {
                    confirm!();
                    self.count_refused(set_id, game_no, seat, &bot.id).await;
                    return Err(GameError::StalePly {
                        expected: l.game.ply + 1,
                        ply: l.game.ply,
                        given: k,
                        played,
                        // Said first when it is the other seat's turn: "this move would be
                        // ply 1" sent a bot author's bot to retry at ply 1, out of turn.
                        waiting_for: l.game.to_move().filter(|&s| s != seat),
                    }
                    .into());
                }
            }
            let t = match l.game.play(seat, mv, now) {
                Ok(t) => t,
                Err(GameError::GameOver) => {
                    confirm!();
                    return Err(game_over(&l));
                }
                Err(e) => {
                    confirm!();
                    self.count_refused(set_id, game_no, seat, &bot.id).await;
                    return Err(e.into());
                }
            };
            let stored = if t.ended.is_some() {
                let info = info.map(|i| i.json.clone());
                self.commit_ending(&slot, &l, t.clone(), now, false, info)
                    .await?
                    .stored()
            } else {
                self.commit_move(&slot, &l, &t, info.map(|i| i.json.clone()))
                    .await?
            };
            let Some(snapshot) = stored else {
                slot.clear(); // stale copy: reload from the row and decide again
                stale_writes += 1;
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
        info: Option<String>,
    ) -> ArenaResult<Option<Arc<Snapshot>>> {
        let Some(p) = t.played else {
            return Err(ArenaError::internal("a move transition without a move"));
        };
        let row = live::move_row(&t.game, &p, info);
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
    /// in one transaction. With `claim` (timeouts, which every instance fires), PostgreSQL
    /// first claims the game row with `FOR UPDATE SKIP LOCKED`: when another instance holds
    /// it, this one steps aside at once ([`Ending::ClaimedElsewhere`]) instead of queueing
    /// behind it.
    pub(super) async fn commit_ending(
        &self,
        slot: &Arc<Slot>,
        l: &LiveGame,
        t: Transition,
        now: i64,
        claim: bool,
        info: Option<String>,
    ) -> ArenaResult<Ending> {
        let mut tx = self.store.begin_write().await?;
        let g = t.game.to_row();
        if claim
            && self.store.backend == Backend::Postgres
            && !games::claim(&mut tx, &g.set_id, g.game_no).await?
        {
            return Ok(Ending::ClaimedElsewhere);
        }
        if !games::update(&mut tx, &g).await? {
            return Ok(Ending::Stale);
        }
        let mut rows = vec![];
        if let Some(p) = t.played {
            let row = live::move_row(&t.game, &p, info);
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
            self.finish_set(&mut tx, set, now, &mut fx, None).await?;
        }
        let live = Arc::new(LiveGame {
            game: t.game,
            set: l.set.clone(),
            names: l.names.clone(),
            snapshot: snapshot.clone(),
        });
        fx.install(slot.clone(), live);
        fx.commit(tx, self, now).await?;
        Ok(Ending::Stored(snapshot))
    }
}
