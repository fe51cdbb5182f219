//! The product's logic: accounts, sets, games, clocks, scoring, stakes, ratings and the house
//! bots, over the store, with time injected. One move travels one way: the API parses and
//! authenticates, [`Arena::play_move`] locks the game row, asks the engine, applies the clock,
//! stores the move, settles if the set ended, commits, then wakes whoever waits.

pub mod accounts;
pub mod clock;
pub mod elo_stats;
pub mod house;
pub mod matches;
pub mod pairing;
pub mod play;
pub mod presence;
pub mod scheduler;
pub mod scoring;
pub mod sets;
pub mod sgf;
pub mod standings;
pub mod tournaments;
pub mod views;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::broadcast;

use crate::error::{ApiError, ApiResult};
use crate::store::{Store, accounts as acc, games::MoveRow};
use clock::TimeSource;
use scheduler::Scheduler;

/// Settings of the arena's rules that an operator may change.
#[derive(Debug, Clone)]
pub struct ArenaConfig {
    /// PTS granted to each new player (SPEC 3).
    pub starting_balance: i64,
    /// Fee on a set's pot, basis points (SPEC 8).
    pub fee_bps: i64,
    /// SHA-256 (hex) of the operator token; operator endpoints are off when None.
    pub operator_token_hash: Option<String>,
}

/// Something changed: wakes long-polls and streams of this set's game and of these bots.
#[derive(Debug, Clone)]
pub struct Change {
    pub set_id: String,
    pub game_no: Option<i64>,
    pub bots: Vec<String>,
}

/// A game: (set_id, game_no).
pub type GameKey = (String, i64);

/// A game's move list as of a game-row version.
type CachedMoves = (i64, Arc<Vec<MoveRow>>);

/// The arena: shared by every handler, the scheduler and the house bots.
pub struct Arena {
    pub store: Store,
    pub time: Arc<dyn TimeSource>,
    pub config: ArenaConfig,
    pub changes: broadcast::Sender<Change>,
    pub scheduler: Scheduler,
    /// Who holds a stream or long-poll on this instance (SPEC 14).
    pub presence: presence::Presence,
    /// Wakes the presence writer when a bot comes online.
    presence_wake: tokio::sync::Notify,
    /// Wakes the tournament driver (a set finished, a tournament changed).
    pub tournament_wake: tokio::sync::Notify,
    /// Bot id -> name (names never change).
    names: Mutex<HashMap<String, String>>,
    /// (set_id, game_no) -> (game version, moves): spares reading the move list on every move.
    moves_cache: Mutex<HashMap<GameKey, CachedMoves>>,
    /// This process's id in the `instances` table.
    pub instance_id: String,
}

const MOVES_CACHE_MAX: usize = 20_000;

impl Arena {
    pub fn new(store: Store, time: Arc<dyn TimeSource>, config: ArenaConfig) -> Arc<Arena> {
        let (changes, _) = broadcast::channel(4096);
        Arc::new(Arena {
            store,
            time,
            config,
            changes,
            scheduler: Scheduler::default(),
            presence: presence::Presence::default(),
            presence_wake: tokio::sync::Notify::new(),
            tournament_wake: tokio::sync::Notify::new(),
            names: Mutex::new(HashMap::new()),
            moves_cache: Mutex::new(HashMap::new()),
            instance_id: format!("inst_{}", ulid::Ulid::generate()),
        })
    }

    /// Now, ms since the epoch, from the injected clock.
    pub fn now_ms(&self) -> i64 {
        self.time.now_ms()
    }

    /// Wakes waiters; nobody listening is fine.
    pub fn publish(&self, change: Change) {
        let _ = self.changes.send(change);
    }

    /// A bot's name by id, cached.
    pub async fn bot_name(
        &self,
        conn: &mut sqlx::AnyConnection,
        bot_id: &str,
    ) -> ApiResult<String> {
        if let Some(n) = self.names.lock().ok().and_then(|m| m.get(bot_id).cloned()) {
            return Ok(n);
        }
        let bot = acc::bot_by_ref(conn, bot_id)
            .await?
            .ok_or_else(|| ApiError::internal(format!("bot {bot_id} missing")))?;
        if let Ok(mut m) = self.names.lock() {
            m.insert(bot.id.clone(), bot.name.clone());
        }
        Ok(bot.name)
    }

    /// Moves of a game at `version`, from the cache when it is current.
    pub async fn moves_of(
        &self,
        conn: &mut sqlx::AnyConnection,
        set_id: &str,
        game_no: i64,
        version: i64,
    ) -> ApiResult<Arc<Vec<MoveRow>>> {
        let key = (set_id.to_string(), game_no);
        if let Some((v, moves)) = self
            .moves_cache
            .lock()
            .ok()
            .and_then(|m| m.get(&key).cloned())
            && v == version
        {
            return Ok(moves);
        }
        let moves = Arc::new(crate::store::games::moves(conn, set_id, game_no).await?);
        self.cache_moves(set_id, game_no, version, moves.clone());
        Ok(moves)
    }

    /// Stores the move list of a game at `version`.
    pub fn cache_moves(&self, set_id: &str, game_no: i64, version: i64, moves: Arc<Vec<MoveRow>>) {
        if let Ok(mut m) = self.moves_cache.lock() {
            if m.len() >= MOVES_CACHE_MAX {
                m.clear();
            }
            m.insert((set_id.to_string(), game_no), (version, moves));
        }
    }
}
