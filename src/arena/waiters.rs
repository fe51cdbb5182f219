//! Long-poll waiters by what they wait on (SPEC section 6): a change wakes the waiters of its
//! game and of its bots, not every waiter of the arena. A waiter gets the change itself (with
//! the state rendered once) and reads nothing. Event streams, which must see every event in id
//! order, listen to the arena-wide broadcast instead.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::broadcast;

use super::Change;

/// What a long-poll waits on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum WaitKey {
    /// A game's next state: `(set_id, game_no)`.
    Game(String, i64),
    /// A bot's next turn (any change that names the bot).
    Bot(String),
}

/// Wake-ups a waiter may fall behind by before it re-reads (it then reads from memory).
const PER_KEY: usize = 16;
/// Above this many keys, keys nobody waits on are dropped when a new one comes.
const MAX_KEYS: usize = 20_000;

/// The waiters of this process, by key.
#[derive(Default)]
pub struct Waiters {
    keys: Mutex<HashMap<WaitKey, broadcast::Sender<Arc<Change>>>>,
}

impl Waiters {
    /// A receiver of the changes that concern `key`.
    pub fn subscribe(&self, key: WaitKey) -> broadcast::Receiver<Arc<Change>> {
        let Ok(mut keys) = self.keys.lock() else {
            return broadcast::channel(1).1; // poisoned: a receiver that only times out
        };
        if keys.len() >= MAX_KEYS && !keys.contains_key(&key) {
            keys.retain(|_, tx| tx.receiver_count() > 0);
        }
        keys.entry(key)
            .or_insert_with(|| broadcast::channel(PER_KEY).0)
            .subscribe()
    }

    /// Wakes the waiters of `c`'s game (both games for a set-level change) and of its bots;
    /// every waiter when the change asks for a resync. Keys nobody waits on any more are
    /// dropped on the way.
    pub fn wake(&self, c: &Arc<Change>) {
        let Ok(mut keys) = self.keys.lock() else {
            return;
        };
        if c.resync {
            keys.retain(|_, tx| tx.send(c.clone()).is_ok());
            return;
        }
        let games = match c.game_no {
            Some(n) => vec![n],
            None => vec![1, 2],
        };
        let wanted = games
            .into_iter()
            .map(|n| WaitKey::Game(c.set_id.clone(), n))
            .chain(c.bots.iter().map(|b| WaitKey::Bot(b.clone())));
        for key in wanted {
            if let Some(tx) = keys.get(&key)
                && tx.send(c.clone()).is_err()
            {
                keys.remove(&key);
            }
        }
    }

    /// Keys with at least one waiter (for tests and metrics).
    pub fn waiting_keys(&self) -> usize {
        self.keys.lock().map_or(0, |k| {
            k.values().filter(|tx| tx.receiver_count() > 0).count()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(set_id: &str, game_no: Option<i64>, bots: &[&str]) -> Arc<Change> {
        Arc::new(Change {
            set_id: set_id.into(),
            game_no,
            bots: bots.iter().map(|b| b.to_string()).collect(),
            ..Change::default()
        })
    }

    #[test]
    fn a_change_wakes_its_game_and_its_bots_and_nobody_else() {
        let w = Waiters::default();
        let mut game = w.subscribe(WaitKey::Game("set_a".into(), 1));
        let mut other_game = w.subscribe(WaitKey::Game("set_a".into(), 2));
        let mut bot = w.subscribe(WaitKey::Bot("bot_x".into()));
        let mut stranger = w.subscribe(WaitKey::Bot("bot_z".into()));
        w.wake(&change("set_a", Some(1), &["bot_x", "bot_y"]));
        assert_eq!(game.try_recv().map(|c| c.game_no), Ok(Some(1)));
        assert!(bot.try_recv().is_ok());
        assert!(other_game.try_recv().is_err());
        assert!(stranger.try_recv().is_err());
        // A set-level change reaches both games' waiters.
        w.wake(&change("set_a", None, &[]));
        assert!(game.try_recv().is_ok());
        assert!(other_game.try_recv().is_ok());
    }

    #[test]
    fn keys_nobody_waits_on_are_dropped() {
        let w = Waiters::default();
        let rx = w.subscribe(WaitKey::Bot("bot_x".into()));
        assert_eq!(w.waiting_keys(), 1);
        drop(rx);
        w.wake(&change("set_a", Some(1), &["bot_x"]));
        assert_eq!(w.keys.lock().map(|k| k.len()).unwrap_or(9), 0);
    }
}
