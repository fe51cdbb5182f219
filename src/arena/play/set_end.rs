//! After a game ends: starting game 2, or finishing the set with settlement and ratings.

use super::*;
use crate::store::Conn;

impl Arena {
    /// The bots of seats 1 and 2, read on `c` (the caller's transaction: an in-memory SQLite
    /// pool has one connection, which the transaction holds).
    pub(super) async fn bot_names(&self, c: &mut Conn, g: &GameRow) -> ArenaResult<[String; 2]> {
        Ok([
            self.bot_name(c, &g.seat1_id).await?,
            self.bot_name(c, &g.seat2_id).await?,
        ])
    }

    pub(super) async fn start_game_two(
        &self,
        tx: &mut Conn,
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

    /// Ends a set whose games are over, in the caller's transaction: loads the facts, lets
    /// [`finisher`] decide, stores the plan, and queues `set_finished` for both bots. A
    /// `forfeit` decides the set for its side whatever the games say (issue 18).
    pub(super) async fn finish_set(
        &self,
        tx: &mut Conn,
        set: &SetRow,
        now: i64,
        fx: &mut Effects,
        forfeit: Option<Forfeit>,
    ) -> ArenaResult<()> {
        let gs = games::of_set(tx, &set.id).await?;
        let [g1, g2] = gs.as_slice() else {
            return Err(ArenaError::internal("set without two games"));
        };
        let verdict = finisher::decide([game_end(g1), game_end(g2)], forfeit);
        let acceptor_id = set
            .acceptor_id
            .clone()
            .ok_or_else(|| ArenaError::internal("active set without acceptor"))?;
        let id_of = |side: Side| match side {
            Side::Creator => set.creator_id.clone(),
            Side::Acceptor => acceptor_id.clone(),
        };
        let winner_id = verdict.winner().map(id_of);
        let result = match &winner_id {
            Some(id) => verdict.result(&self.bot_name(tx, id).await?),
            None => verdict.result(""),
        };
        if sets::finish(
            tx,
            &set.id,
            verdict.score.points2,
            winner_id.as_deref(),
            &result,
            verdict.tiebreak(),
            now,
        )
        .await?
            != 1
        {
            return Ok(()); // already finished: settle nothing twice
        }
        let [creator, acceptor] = self
            .settle(tx, set, verdict.score.outcome, verdict.rate, now)
            .await?;
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
        fx.set_done(&set.id);
        Ok(())
    }

    /// Locks and loads both bots and, for a set that counts ([`finisher::counts`]), stores
    /// [`finisher::settle`]'s plan: the transfer, then (only if that transfer is new, its key
    /// `settle:<set_id>` not yet written) the ratings and records. Idempotent. Returns the
    /// bots as loaded (creator, acceptor).
    async fn settle(
        &self,
        tx: &mut Conn,
        set: &SetRow,
        outcome: SetOutcome,
        rate: bool,
        now: i64,
    ) -> ArenaResult<[BotRow; 2]> {
        let acceptor_id = set
            .acceptor_id
            .as_deref()
            .ok_or_else(|| ArenaError::internal("set without acceptor"))?;
        if set.practice == 0 {
            acc::lock_bots(tx, &[&set.creator_id, acceptor_id], self.store.backend).await?;
        }
        let creator = acc::bot_by_ref(tx, &set.creator_id)
            .await?
            .ok_or_else(|| ArenaError::internal("creator missing"))?;
        let acceptor = acc::bot_by_ref(tx, acceptor_id)
            .await?
            .ok_or_else(|| ArenaError::internal("acceptor missing"))?;
        let paired = crate::store::tournaments::event_of_set(tx, &set.id)
            .await?
            .is_some();
        if !finisher::counts(set, paired) {
            return Ok([creator, acceptor]);
        }
        let plan = finisher::settle(
            set,
            outcome,
            [&creator, &acceptor],
            self.config.fee_bps,
            rate,
            now,
        );
        if let Some(t) = &plan.transfer {
            let fresh = ledger::transfer(tx, &t.key, Some(&set.id), &t.legs, now)
                .await
                .map_err(crate::arena::accounts::transfer_error)?;
            if !fresh {
                return Ok([creator, acceptor]);
            }
        }
        if let Some(r) = &plan.ratings {
            // The bot page's rating history (issue 14): rated sets only.
            sets::record_ratings(tx, &set.id, r.elo[0], r.elo[1]).await?;
            sets::record_glicko(tx, &set.id, r.glicko[0], r.glicko[1]).await?;
            for (bot, g) in [&creator, &acceptor].into_iter().zip(r.glicko_stored) {
                acc::record_glicko(tx, &bot.id, g, now).await?;
            }
        }
        for r in &plan.records {
            acc::record_set(tx, &r.bot_id, r.rating, r.win, r.draw, r.loss, r.won, r.net).await?;
        }
        Ok([creator, acceptor])
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
        if set.status != SetStatus::Finished {
            return Err(ArenaError::new(
                Code::SetNotOpen,
                format!("set {set_id} is {}", set.status),
            ));
        }
        // The stored winner, not the games: a set forfeited in play is its opponent's whatever
        // its games say (issue 18).
        let outcome = match set.winner_id.as_deref() {
            None => SetOutcome::Draw,
            Some(w) => SetOutcome::Win {
                side: if w == set.creator_id {
                    Side::Creator
                } else {
                    Side::Acceptor
                },
                tiebreak: set.tiebreak != 0,
            },
        };
        let mut fx = Effects::default();
        self.finish_set(&mut tx, &set, now, &mut fx, None).await?;
        self.settle(&mut tx, &set, outcome, true, now).await?;
        fx.commit(tx, self, now).await
    }
}
