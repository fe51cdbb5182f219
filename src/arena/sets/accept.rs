//! Accepting an open set, and whether a bot may accept it.

use super::*;
use crate::store::{Conn, StoreError};

impl Arena {
    /// Accepts an open set: escrow, opening, game 1 starts. A retry by the bot that already
    /// accepted answers the set as it is now and changes nothing. Errors: 404, 403 `forbidden`
    /// (own set, private to another bot, over max_stake), `same_owner`, `suspended`, 409
    /// `set_not_open`, `insufficient_balance`.
    pub async fn accept_set(&self, bot: &BotRow, set_id: &str) -> ArenaResult<Value> {
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        let set = sets::get(&mut tx, set_id, self.store.for_update())
            .await?
            .ok_or_else(|| ArenaError::not_found(format!("no set '{set_id}'")))?;
        if set.status != SetStatus::Open {
            // A retry by the bot whose accept already took effect (its answer may have been
            // lost): the same success, the set as it is now (SPEC 14, retries).
            if set.acceptor_id.as_deref() == Some(bot.id.as_str()) {
                let view = self.set_view(&mut tx, &set).await?;
                tx.commit().await?;
                return Ok(view);
            }
            return Err(not_open(&set));
        }
        let creator = acc::bot_by_ref(&mut tx, &set.creator_id)
            .await?
            .ok_or_else(|| ArenaError::internal("creator missing"))?;
        self.accept_rules(&mut tx, &set, bot, &creator, Some(self.store.backend))
            .await?;
        let mut fx = Effects::default();
        let lobby = set.opponent_id.is_none();
        let view = self
            .start_set(&mut tx, set, bot, &creator, now, &mut fx)
            .await?;
        if lobby {
            fx.lobby_closed(&view);
        }
        fx.commit(tx, self, now).await?;
        Ok(view)
    }

    /// The rules an accept of the open `set` by `bot` must pass, in the order they are
    /// checked: not its own, not a private challenge to another bot, neither bot retired,
    /// within the creator's declared accepts (and, with `capacity`, the creator's
    /// `max_concurrent_sets`: its row is then locked on PostgreSQL), and for a staked set not
    /// the same owner, within `bot`'s `max_stake`, `bot` not suspended. Reads `bot`'s row
    /// afresh. Errors: 403 `forbidden`, `same_owner`, `suspended`; 409 `bot_retired`; 422
    /// `not_accepted`; 404 when `bot` is gone.
    pub(crate) async fn accept_rules(
        &self,
        c: &mut Conn,
        set: &SetRow,
        bot: &BotRow,
        creator: &BotRow,
        capacity: Option<crate::store::Backend>,
    ) -> ArenaResult<()> {
        if set.creator_id == bot.id {
            return Err(ArenaError::forbidden("you cannot accept your own set"));
        }
        if set.opponent_id.as_deref().is_some_and(|o| o != bot.id) {
            return Err(ArenaError::forbidden(
                "this set is a private challenge to another bot",
            ));
        }
        not_retired(c, bot).await?;
        if creator.retired_ms.is_some() {
            return Err(retired(creator));
        }
        // The creator's declarations as they are now (it may have changed them since), and
        // its capacity: it did not choose this moment (issue 20).
        let options = GameOptions {
            size: set.size,
            random_stones: set.random_stones,
        };
        let clock_ms = (set.initial_ms, set.increment_ms);
        match capacity {
            Some(backend) => {
                crate::arena::accepts::admit(c, backend, creator, &options, clock_ms, set.stake)
                    .await?;
            }
            None => crate::arena::accepts::accepts_check(
                creator, &options, clock_ms.0, clock_ms.1, set.stake,
            )?,
        }
        if set.stake > 0 {
            if creator.owner_id == bot.owner_id {
                return Err(same_owner());
            }
            if set.stake > bot.max_stake {
                return Err(ArenaError::forbidden(format!(
                    "stake {} exceeds your max_stake {}",
                    set.stake, bot.max_stake
                ))
                .with_details(json!({"stake": set.stake, "max_stake": bot.max_stake})));
            }
            self.ensure_not_suspended(c, bot).await?;
        }
        Ok(())
    }

    /// Whether `bot` could accept the open `set` now ([`Arena::accept_rules`] without the
    /// creator's capacity, which is judged at the accept): what a bot's event stream offers
    /// it as a `challenge`. A database error answers false.
    pub async fn may_accept(&self, c: &mut Conn, set: &SetRow, bot: &BotRow) -> bool {
        let check = async {
            let creator = acc::bot_by_ref(c, &set.creator_id)
                .await?
                .ok_or_else(|| ArenaError::internal("creator missing"))?;
            self.accept_rules(c, set, bot, &creator, None).await
        };
        check.await.is_ok()
    }

    /// [`Arena::may_accept`] by ids (the set of a stored `challenge` event); false for an
    /// unknown set or bot.
    pub async fn may_accept_ids(&self, bot_id: &str, set_id: &str) -> bool {
        let loaded = async {
            let mut c = self.store.conn().await?;
            let set = sets::get(&mut c, set_id, "").await?;
            let bot = acc::bot_by_ref(&mut c, bot_id).await?;
            Ok::<_, StoreError>((c, set, bot))
        };
        match loaded.await {
            Ok((mut c, Some(set), Some(bot))) => self.may_accept(&mut c, &set, &bot).await,
            _ => false,
        }
    }
}
