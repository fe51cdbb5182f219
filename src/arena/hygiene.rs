//! Account hygiene (issue 20): a bot's or a player's token rotated or reset by its owner,
//! a bot retired, and what a bot declares it accepts. Each revokes or changes at once what
//! the rest of the arena relies on (cached tokens, open streams, the pool, open challenges).

use super::Arena;
use super::accounts::{new_token, token_hash};
use super::error::{ArenaError, ArenaResult, Code};
use crate::store::accounts::{self as acc, BotRow, PlayerRow};

impl Arena {
    /// Issues a new token for a bot and revokes the old one at once (issue 20): requests with
    /// the old token are 401 from the commit on, on this instance its open streams end.
    /// Returns the new token. Errors: database.
    ///
    /// Of two rotations with one token at once, one wins; the other is 401 (the token it
    /// called with is revoked by then), so exactly one new token exists.
    pub async fn rotate_bot_token(&self, bot: &BotRow, old_token: &str) -> ArenaResult<String> {
        let old_hash = token_hash(old_token);
        let token = new_token("hxb_");
        let mut tx = self.store.begin_write().await?;
        if acc::set_bot_token(&mut tx, &bot.id, &token_hash(&token), &old_hash).await? != 1 {
            return Err(rotated_already());
        }
        tx.commit().await?;
        self.revoke_bot_token(bot, old_hash);
        Ok(token)
    }

    /// A new token for bot `bot_ref` of `player` (issue 20: the owner's way back to a bot whose
    /// token is lost, or whose rotation's answer never arrived); the bot's token is revoked at
    /// once, as by [`Arena::rotate_bot_token`]. Returns the bot and its new token.
    /// Errors: 404 unknown bot, 403 `forbidden` for another player's bot.
    pub async fn reset_bot_token(
        &self,
        player: &PlayerRow,
        bot_ref: &str,
    ) -> ArenaResult<(BotRow, String)> {
        let token = new_token("hxb_");
        let mut tx = self.store.begin_write().await?;
        let bot = acc::bot_by_ref(&mut tx, bot_ref)
            .await?
            .ok_or_else(|| ArenaError::not_found(format!("no bot '{bot_ref}'")))?;
        if bot.owner_id != player.id {
            return Err(ArenaError::forbidden(format!(
                "{} is not your bot",
                bot.name
            )));
        }
        let old_hash = acc::bot_token_hash(&mut tx, &bot.id)
            .await?
            .ok_or_else(|| ArenaError::not_found(format!("no bot '{bot_ref}'")))?;
        if acc::set_bot_token(&mut tx, &bot.id, &token_hash(&token), &old_hash).await? != 1 {
            return Err(ArenaError::unavailable(
                "the bot's token changed meanwhile; retry",
            ));
        }
        tx.commit().await?;
        self.revoke_bot_token(&bot, old_hash);
        Ok((bot, token))
    }

    /// After a bot's token changed: forgets it here, ends its streams, and tells the other
    /// instances (PostgreSQL) to do the same.
    fn revoke_bot_token(&self, bot: &BotRow, old_hash: String) {
        self.forget_bot_tokens(&bot.id);
        let _ = self.revoked_tokens.send(old_hash.clone().into());
        // The other instances (PostgreSQL) forget it too and end its streams there.
        self.notifier.send(vec![crate::store::notify::Notice {
            origin: self.store.instance_id.to_string(),
            revoked: Some((bot.id.clone(), old_hash)),
            ..Default::default()
        }]);
    }

    /// Issues a new token for a player and revokes the old one at once (issue 20).
    /// Returns the new token. Errors: database.
    pub async fn rotate_player_token(
        &self,
        player: &PlayerRow,
        old_token: &str,
    ) -> ArenaResult<String> {
        let old_hash = token_hash(old_token);
        let token = new_token("hxp_");
        let mut tx = self.store.begin_write().await?;
        if acc::set_player_token(&mut tx, &player.id, &token_hash(&token), &old_hash).await? != 1 {
            return Err(rotated_already());
        }
        tx.commit().await?;
        let _ = self.revoked_tokens.send(old_hash.into());
        Ok(token)
    }

    /// Retires a bot (issue 20): it plays no new sets from now on, its open challenges are
    /// cancelled and those aimed at it declined; its running sets finish, its name stays
    /// taken, its history stays. Retiring a retired bot changes nothing. Returns the bot as
    /// it is now. Errors: database.
    pub async fn retire_bot(&self, bot: &BotRow) -> ArenaResult<BotRow> {
        let mut tx = self.store.begin_write().await?;
        // Out of the matchmaking pool (issue 20); its row first, as a pool pairing locks the
        // pool row before the bot's.
        crate::store::pool::remove(&mut tx, &bot.id).await?;
        acc::retire_bot(&mut tx, &bot.id, self.now_ms()).await?;
        let open = crate::store::sets::open_involving(&mut tx, &bot.id).await?;
        tx.commit().await?;
        for s in open {
            // Accepted meanwhile: then it runs and finishes; nothing to close.
            match self.close_set(bot, &s.id, s.creator_id != bot.id).await {
                Ok(_) => {}
                Err(e) if e.is(Code::SetNotOpen) => {}
                Err(e) => return Err(e),
            }
        }
        // Its tournaments pair it no more; a set it is playing there finishes (issue 20).
        let mut c = self.store.conn().await?;
        let events = crate::store::tournaments::active_entries_of(&mut c, &bot.id).await?;
        let (unstarted, matches) =
            crate::store::tournaments::unstarted_and_matches_of(&mut c, &bot.id).await?;
        drop(c);
        // A tournament not started yet loses the participant (unless too few would be left:
        // then its start refuses the retired bot until the operator removes it).
        for t in unstarted {
            match self.remove_participant(&t, &bot.id).await {
                Ok(_) => {}
                Err(e)
                    if e.is_any(&[
                        Code::TournamentState,
                        Code::TooFewParticipants,
                        Code::NotParticipant,
                    ]) => {}
                Err(e) => return Err(e),
            }
        }
        // Its matches stop: cancelled, their sets in play finish.
        for m in matches {
            match self.transition(&m, "cancel", true).await {
                Ok(()) => {}
                Err(e) if e.is(Code::TournamentState) => {}
                Err(e) => return Err(e),
            }
        }
        for t in events {
            match self
                .withdraw_by(&t, &bot.id, super::tournaments::InPlay::Finish, "retired")
                .await
            {
                Ok(_) => {}
                // Finished, cancelled or withdrawn meanwhile: nothing left to do there.
                Err(e) if e.is_any(&[Code::TournamentState, Code::AlreadyWithdrawn]) => {}
                Err(e) => return Err(e),
            }
        }
        let mut c = self.store.conn().await?;
        acc::bot_by_ref(&mut c, &bot.id)
            .await?
            .ok_or_else(|| ArenaError::internal("bot vanished"))
    }

    /// Stores what a bot declares it accepts and its capacity (`PATCH /v1/bots/me`); absent
    /// fields keep their value. Returns the bot as it is now. Errors: database.
    pub async fn declare(&self, bot: &BotRow, d: super::accepts::Declare) -> ArenaResult<BotRow> {
        let mut tx = self.store.begin_write().await?;
        let now = acc::bot_by_ref(&mut tx, &bot.id)
            .await?
            .ok_or_else(|| ArenaError::not_found(format!("no bot '{}'", bot.id)))?;
        let accepts = match d.accepts {
            None => now.accepts.clone(),
            Some(a) if a == super::accepts::Accepts::default() => None,
            Some(a) => Some(serde_json::to_string(&a).map_err(ArenaError::internal)?),
        };
        let cap = d.max_concurrent_sets.unwrap_or(now.max_concurrent_sets);
        acc::set_declared(&mut tx, &bot.id, accepts.as_deref(), cap).await?;
        let out = acc::bot_by_ref(&mut tx, &bot.id)
            .await?
            .ok_or_else(|| ArenaError::internal("bot vanished"))?;
        tx.commit().await?;
        Ok(out)
    }
}

/// 401 for a rotation whose token another rotation replaced first.
fn rotated_already() -> ArenaError {
    ArenaError::unauthorized("this token was rotated already and is revoked")
}
