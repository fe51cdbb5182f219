//! What the event streams read from the database (SPEC section 2b): stored events after a
//! cursor, and what a bot's stream starts with (its open challenges and the turns it has to
//! play); also the turn a bot's long-poll answers. The HTTP edge (`api::streams`,
//! `api::games`) only frames them.

use serde_json::Value;

use super::Arena;
use super::error::ArenaResult;
use crate::store::accounts::BotRow;
use crate::store::events;
/// A stored event, and the bot id under which lobby events are stored (pure data).
pub use crate::store::events::{EventRow, LOBBY};
use crate::store::{Backend, games, sets};

impl Arena {
    /// The cursor of a resumed stream: the client's `Last-Event-ID` `id`, but never beyond
    /// the committed watermark (an id from before a database reset, or made up, would
    /// otherwise skip every live event until the ids caught up with it).
    pub async fn resume_cursor(&self, id: i64) -> ArenaResult<i64> {
        Ok(id.min(self.watermark.fresh(&self.store).await?))
    }

    /// The committed watermark as of now (a new stream's starting cursor): every event
    /// committed before this call has an id at or below it. Errors: database.
    pub async fn watermark_now(&self) -> ArenaResult<i64> {
        Ok(self.watermark.fresh(&self.store).await?)
    }

    /// A bot stream's stored events (its own and the lobby's) with ids in `after+1..=upto`,
    /// oldest first, at most `limit`.
    pub async fn bot_events_after(
        &self,
        bot_id: &str,
        after: i64,
        upto: i64,
        limit: i64,
    ) -> ArenaResult<Vec<EventRow>> {
        let mut c = self.store.conn().await?;
        Ok(events::for_bot_after(&mut c, bot_id, after, upto, limit).await?)
    }

    /// A game stream's stored events with ids in `after+1..=upto`, oldest first, at most
    /// `limit`.
    pub async fn game_events_after(
        &self,
        set_id: &str,
        game_no: i64,
        after: i64,
        upto: i64,
        limit: i64,
    ) -> ArenaResult<Vec<EventRow>> {
        let mut c = self.store.conn().await?;
        Ok(events::for_game_after(&mut c, set_id, game_no, after, upto, limit).await?)
    }

    /// Whether live events reach this instance's streams in commit order with their states
    /// (SQLite: one process writes), so a stream that keeps up needs no database read; on
    /// PostgreSQL a wake-up reads the database up to the committed watermark.
    #[must_use]
    pub fn streams_from_memory(&self) -> bool {
        self.store.backend == Backend::Sqlite
    }

    /// The game (set id, game number) where `bot_id` has been on move the longest, if any
    /// (`GET /v1/bots/me/turn`). Errors: database.
    pub async fn oldest_turn(&self, bot_id: &str) -> ArenaResult<Option<(String, i64)>> {
        let mut c = self.store.conn().await?;
        Ok(games::oldest_on_move(&mut c, bot_id).await?)
    }

    /// The games (set id, game number) where `bot_id` is on move, longest waiting first;
    /// with `sent_after`, only those without a `your_turn` event after that event id (the
    /// turns a resumed stream has not carried).
    pub async fn turns_to_play(
        &self,
        bot_id: &str,
        sent_after: Option<i64>,
    ) -> ArenaResult<Vec<(String, i64)>> {
        let mut c = self.store.conn().await?;
        let on_move = games::all_on_move(&mut c, bot_id).await?;
        let Some(after) = sent_after else {
            return Ok(on_move);
        };
        let mut missed = vec![];
        for (set_id, game_no) in on_move {
            if !events::turn_after(&mut c, bot_id, &set_id, game_no, after).await? {
                missed.push((set_id, game_no));
            }
        }
        Ok(missed)
    }

    /// The open challenges `bot` may accept now, as set views (a new stream's snapshot).
    pub async fn challenges_for(&self, bot: &BotRow) -> ArenaResult<Vec<Value>> {
        let mut c = self.store.conn().await?;
        let mut views = vec![];
        for s in sets::open_for(&mut c, &bot.id).await? {
            if self.may_accept(&mut c, &s, bot).await {
                views.push(self.set_view(&mut c, &s).await?);
            }
        }
        Ok(views)
    }
}
