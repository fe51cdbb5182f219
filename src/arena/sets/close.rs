//! Closing open sets: cancel, decline and expiry of challenges.

use super::*;

impl Arena {
    /// Cancels (creator) or declines (named opponent) an open set. Repeating the call that
    /// closed the set answers the closed set again and changes nothing.
    pub async fn close_set(&self, bot: &BotRow, set_id: &str, decline: bool) -> ArenaResult<Value> {
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        let set = sets::get(&mut tx, set_id, self.store.for_update())
            .await?
            .ok_or_else(|| ArenaError::not_found(format!("no set '{set_id}'")))?;
        let allowed = if decline {
            set.opponent_id.as_deref() == Some(bot.id.as_str())
        } else {
            set.creator_id == bot.id
        };
        if !allowed {
            return Err(ArenaError::forbidden(if decline {
                "only the challenged bot may decline a set"
            } else {
                "only the creator may cancel a set"
            }));
        }
        let status = if decline { "declined" } else { "cancelled" };
        if set.status == status {
            // A retry of a cancel or decline that already took effect (only its caller gets
            // here): the same success, the closed set (SPEC 14, retries).
            let view = self.set_view(&mut tx, &set).await?;
            tx.commit().await?;
            return Ok(view);
        }
        if set.status != SetStatus::Open {
            return Err(not_open(&set));
        }
        self.close_open_set(tx, &set, status, now).await
    }

    /// Closes every open challenge older than the arena's challenge TTL as `expired`
    /// (SPEC 5 is silent on stale challenges; a lobby of dead offers misleads), telling the
    /// creator and the named opponent with `set_closed`. Several instances may run it at
    /// once: a set another instance closed first is skipped. Returns how many it closed.
    pub async fn expire_challenges(&self) -> ArenaResult<usize> {
        let Some(ttl_ms) = self.config.challenge_ttl_ms else {
            return Ok(0);
        };
        let stale = {
            let mut c = self.store.conn().await?;
            sets::open_created_before(&mut c, self.now_ms().saturating_sub(ttl_ms), 100).await?
        };
        let mut closed = 0;
        for set_id in stale {
            let mut tx = self.store.begin_write().await?;
            let now = self.now_ms();
            let set = sets::get(&mut tx, &set_id, self.store.for_update()).await?;
            match set {
                Some(set) if set.status == SetStatus::Open && set.created_ms < now - ttl_ms => {
                    self.close_open_set(tx, &set, "expired", now).await?;
                    closed += 1;
                }
                _ => {} // accepted, closed or expired meanwhile: dropping `tx` rolls it back
            }
        }
        Ok(closed)
    }

    /// Closes the open set `set` (read in `tx`) as `status` (`cancelled`, `declined` or
    /// `expired`), tells the creator and the named opponent, and commits. 409 `set_not_open`
    /// when it is no longer open.
    async fn close_open_set(
        &self,
        mut tx: WriteTx,
        set: &SetRow,
        status: &str,
        now: i64,
    ) -> ArenaResult<Value> {
        let set_id = set.id.as_str();
        if sets::close_open(&mut tx, set_id, status, now).await? != 1 {
            return Err(not_open(set));
        }
        let set = sets::get(&mut tx, set_id, "")
            .await?
            .ok_or_else(|| ArenaError::internal("set vanished"))?;
        let view = self.set_view(&mut tx, &set).await?;
        let mut fx = Effects::default();
        for b in [Some(set.creator_id.as_str()), set.opponent_id.as_deref()]
            .into_iter()
            .flatten()
        {
            fx.event(Some(b), &set.id, None, "set_closed", json!({"set": view}));
        }
        fx.change(Change {
            set_id: set.id.clone(),
            game_no: None,
            bots: vec![set.creator_id.clone()],
            ..Change::default()
        });
        if set.opponent_id.is_none() {
            fx.lobby_closed(&view);
        }
        fx.commit(tx, self, now).await?;
        Ok(view)
    }
}
