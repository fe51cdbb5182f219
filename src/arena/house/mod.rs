//! House bots (SPEC section 9, issue 11): built-in players that live in the server process and
//! play through the same path as any bot (the same `play_move` with `?ply`, clocks and store).
//!
//! - The ladder: one house bot per rung of [`hex::ladder::LADDER`], weakest first, each with
//!   its own house owner (so any two may play staked sets against each other).
//! - They think on a bounded pool of worker threads ([`pool`]), every game at once, each
//!   move's time set from that seat's own clock and from the load ([`think`]).
//! - [`driver`] hands every game where a house bot is on move to the pool at once (one job per
//!   game and ply), accepts private challenges, and lobby challenges nobody else took
//!   ([`lobby`]); in demo mode neighbouring rungs play each other without a break ([`demo`]).
//! - When the pool cannot give new games a reasonable move time (their clocks' weights summed
//!   past a bound per thread, or a move recently played cheap), new practice sets and
//!   private challenges to a house bot are refused with 503 `house_busy`
//!   ([`Arena::house_room`]).

pub mod demo;
pub mod driver;
pub mod lobby;
pub mod pool;
pub mod think;

use std::collections::HashSet;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use hex::ladder::{LADDER, Rung};
use serde_json::{Value, json};

use super::Arena;
use super::error::{ArenaError, ArenaResult, ErrorKind};
use crate::store::accounts::{self as acc, BotRow};

/// The weakest house bot: uniformly random legal moves. The default practice opponent.
pub const WEAKEST: &str = "house-random";
/// The house bot `hexarena play --strategy strong` stands for (the old "strong" bot).
pub const STRONG: &str = "house-bridge";

/// The owner (house player) of each rung's bot; a rung not listed gets "House of <name>".
const OWNERS: [(&str, &str); 5] = [
    ("house-random", "House of Random"),
    ("house-novice", "House of Novices"),
    ("house-club", "House of Clubs"),
    ("house-bridge", "House of Bridges"),
    ("house-master", "House of Masters"),
];

/// The Elo a house bot starts from, by rung: the ladder's measured steps (the round robin in
/// `BENCHMARKS.md`: about +420, +370, +350 and +170 Elo from one rung to the next), placed so
/// that a new bot (1200) meets house-novice first in the lobby. Set once, while a house bot
/// has played no rated set; results move it from there like anyone's.
pub const SEED_RATINGS: [(&str, f64); 5] = [
    ("house-random", 800.0),
    ("house-novice", 1220.0),
    ("house-club", 1590.0),
    ("house-bridge", 1940.0),
    ("house-master", 2110.0),
];

/// Default house load per worker thread, in games at the fastest clock (10+0), above which new
/// house sets are refused (see [`clock_weight`]). Measured on 2 shared cores, debug build:
/// 40 games at 10+0 (20 per thread) end with at least 0.7 s on every house clock; 48 lose some
/// on time on PostgreSQL.
pub const GAMES_PER_THREAD_DEFAULT: usize = 20;
/// A house move played cheap within this many ms means the pool is behind: new house sets
/// are refused until that long has passed without one.
pub const CHEAP_RECENT_MS: u64 = 10_000;

/// How much of the pool a game at clock `initial_ms` + `increment_ms` needs, in games at the
/// fastest clock (10 s + 0): a move may cost about (initial + 40 x increment) / 40 of its
/// clock, so a game counts 10 s / (initial + 40 x increment). 10+0 counts 1, 60+2 about
/// 0.07, 600+10 0.01.
#[must_use]
pub fn clock_weight(initial_ms: i64, increment_ms: i64) -> f64 {
    let span = (initial_ms.max(0) + 40 * increment_ms.max(0)).max(1);
    10_000.0 / span as f64
}

/// The house's load: games in play held by this instance, their [`clock_weight`]s summed, and
/// the bound on that sum.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HouseLoad {
    /// House games in play.
    pub games: usize,
    /// Their weights summed, in games at 10+0.
    pub units: f64,
    /// `threads` x `games_per_thread`, in games at 10+0.
    pub limit: f64,
}
/// Seconds a refused client is told to wait (`Retry-After`) when the house is busy.
pub const BUSY_RETRY_AFTER_S: u64 = 30;

/// How the house runs (flags and environment of `serve`, see `config.rs`).
#[derive(Debug, Clone)]
pub struct HouseConfig {
    /// Worker threads of the thinking pool (at least 1).
    pub threads: usize,
    /// House games in play per worker thread, in games at 10+0 ([`clock_weight`]), above
    /// which new practice sets and private challenges to a house bot are refused (503
    /// `house_busy`).
    pub games_per_thread: usize,
    /// An open lobby challenge nobody else accepted within this many ms is accepted by a house
    /// bot; None: never.
    pub lobby_wait_ms: Option<i64>,
    /// Demo mode: neighbouring rungs play each other without a break.
    pub demo: bool,
    /// In demo mode only, the least time a house bot takes over a move, ms (so a set lasts
    /// a few minutes and can be watched).
    pub demo_think_ms: u64,
}

impl Default for HouseConfig {
    fn default() -> Self {
        HouseConfig {
            threads: std::thread::available_parallelism().map_or(2, usize::from),
            games_per_thread: GAMES_PER_THREAD_DEFAULT,
            lobby_wait_ms: Some(10_000),
            demo: false,
            demo_think_ms: 1_000,
        }
    }
}

/// A registered house bot and its rung.
#[derive(Debug, Clone)]
pub struct HouseBot {
    /// Its bot row (only the immutable columns are relied on).
    pub bot: BotRow,
    /// How it plays.
    pub rung: &'static Rung,
    /// Its place on the ladder, 1 = weakest.
    pub rung_no: usize,
}

/// The running house: its bots, its pool and the games it is thinking about.
pub struct House {
    /// The thinking pool.
    pub pool: pool::Pool,
    /// Settings.
    pub config: HouseConfig,
    /// The bots, weakest first.
    pub bots: Vec<HouseBot>,
    ids: HashSet<String>,
    /// (set_id, game_no, ply) with a move being thought or played: one job per game and ply.
    in_flight: Mutex<HashSet<(String, i64, i64)>>,
    /// Live instance ids (PostgreSQL, several instances), sorted; empty: this one alone.
    peers: Mutex<Vec<String>>,
    /// A lobby challenge may be waiting for a house bot.
    lobby_dirty: AtomicBool,
    /// A look at the lobby is running.
    lobby_scanning: AtomicBool,
}

impl House {
    /// The house bot with this id.
    pub fn by_id(&self, bot_id: &str) -> Option<&HouseBot> {
        self.bots.iter().find(|b| b.bot.id == bot_id)
    }

    /// Whether a bot id is a house bot's.
    pub fn is_house(&self, bot_id: &str) -> bool {
        self.ids.contains(bot_id)
    }

    /// The house games in play held by this instance, their load and its bound.
    pub fn in_play(&self, arena: &Arena) -> HouseLoad {
        let (games, units) = arena.live.sum_active(|l| {
            l.game
                .seats
                .iter()
                .any(|s| self.ids.contains(s))
                .then(|| clock_weight(l.set.initial_ms, l.set.increment_ms))
        });
        HouseLoad {
            games,
            units,
            limit: (self.pool.threads() * self.config.games_per_thread) as f64,
        }
    }
}

/// The ladder entry of a house bot's profile (rung number from 1, rungs, summary), computed
/// from [`LADDER`]; None for a bot that is not on the ladder.
pub fn ladder_json(name: &str) -> Option<Value> {
    let (i, r) = LADDER.iter().enumerate().find(|(_, r)| r.name == name)?;
    Some(json!({"rung": i + 1, "rungs": LADDER.len(), "summary": r.summary}))
}

/// Registers every rung's house bot that is missing (a database from before the ladder has
/// only some of them); returns them all, weakest first.
pub async fn ensure(arena: &Arena) -> ArenaResult<Vec<HouseBot>> {
    let mut out = vec![];
    for (i, rung) in LADDER.iter().enumerate() {
        let existing = {
            let mut c = arena.store.pool.acquire().await?;
            acc::bot_by_ref(&mut c, rung.name).await?
        };
        let bot = match existing {
            Some(b) if b.house != 0 => b,
            Some(_) => {
                // A bot of a player took this name before the rung existed: the ladder goes
                // on without that rung rather than play for someone else's bot.
                tracing::warn!(
                    bot = rung.name,
                    "a player's bot holds this rung's name; rung skipped"
                );
                continue;
            }
            None => {
                let owner = OWNERS
                    .iter()
                    .find(|(n, _)| *n == rung.name)
                    .map_or_else(|| format!("House of {}", rung.name), |(_, o)| o.to_string());
                let (player, _token) = arena.register_player(&owner, true).await?;
                let (bot, _token) = arena
                    .create_bot(&player, rung.name, Some(super::sets::STAKE_MAX), true)
                    .await?;
                tracing::info!(bot = rung.name, "registered house bot");
                bot
            }
        };
        let bot = match SEED_RATINGS.iter().find(|(n, _)| *n == rung.name) {
            Some(&(_, seed)) if bot.sets == 0 && bot.rating != seed => {
                let mut c = arena.store.pool.acquire().await?;
                acc::seed_rating(&mut c, &bot.id, seed).await?;
                acc::bot_by_ref(&mut c, &bot.id).await?.unwrap_or(bot)
            }
            _ => bot,
        };
        out.push(HouseBot {
            bot,
            rung,
            rung_no: i + 1,
        });
    }
    Ok(out)
}

/// Starts the house: the pool, the driver (moves, challenges, the lobby) and, in demo mode,
/// the demo pairings. Errors: the pool's threads could not start.
pub fn spawn(arena: Arc<Arena>, bots: Vec<HouseBot>, config: HouseConfig) -> anyhow::Result<()> {
    let pool = pool::Pool::start(config.threads)?;
    let ids = bots.iter().map(|b| b.bot.id.clone()).collect();
    let house = Arc::new(House {
        pool,
        config,
        bots,
        ids,
        in_flight: Mutex::new(HashSet::new()),
        peers: Mutex::new(vec![]),
        lobby_dirty: AtomicBool::new(true),
        lobby_scanning: AtomicBool::new(false),
    });
    if arena.house.set(house.clone()).is_err() {
        anyhow::bail!("the house is already running");
    }
    tracing::info!(
        threads = house.pool.threads(),
        bots = house.bots.len(),
        "house bots running"
    );
    if house.config.demo {
        tokio::spawn(demo::run(arena.clone(), house.clone()));
    }
    tokio::spawn(driver::run(arena, house));
    Ok(())
}

impl Arena {
    /// Whether the house can take one more game at clock `initial_ms` + `increment_ms` (SPEC 9,
    /// issue 11). Refused when the [`clock_weight`]s of the house games in play held by this
    /// instance, the new one included, would exceed `threads` x `games_per_thread`
    /// (`reason` `games`), or when a house move had to be played cheap in the last
    /// [`CHEAP_RECENT_MS`] (`reason` `cheap_moves`: the pool is behind, whatever the count
    /// says, e.g. on a machine busy with other work). Without house bots in this process
    /// there is nothing to protect.
    ///
    /// Errors: 503 `house_busy` with `Retry-After` and `details` {`reason`, `in_play`
    /// (games), `load` and `limit` (in games at 10+0), `threads`, `retry_after_s`}.
    pub fn house_room(&self, initial_ms: i64, increment_ms: i64) -> ArenaResult<()> {
        let Some(house) = self.house.get() else {
            return Ok(());
        };
        let load = house.in_play(self);
        let reason = if load.units + clock_weight(initial_ms, increment_ms) > load.limit + 1e-9 {
            "games"
        } else if house
            .pool
            .cheap_within(std::time::Duration::from_millis(CHEAP_RECENT_MS))
        {
            "cheap_moves"
        } else {
            return Ok(());
        };
        let mut e = ArenaError::new(
            ErrorKind::Unavailable,
            "house_busy",
            format!(
                "the house bots are playing {} games, as many as they can play well; retry in {BUSY_RETRY_AFTER_S} s",
                load.games
            ),
        )
        .with_details(json!({
            "reason": reason,
            "in_play": load.games,
            "load": (load.units * 100.0).round() / 100.0,
            "limit": load.limit,
            "threads": house.pool.threads(),
            "retry_after_s": BUSY_RETRY_AFTER_S,
        }));
        e.retry_after_s = Some(BUSY_RETRY_AFTER_S);
        Err(e)
    }

    /// Whether a bot is a house bot of this process.
    pub fn is_house_bot(&self, bot_id: &str) -> bool {
        self.house.get().is_some_and(|h| h.is_house(bot_id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_weighs_by_how_fast_its_clock_runs() {
        assert_eq!(clock_weight(10_000, 0), 1.0);
        assert!((clock_weight(60_000, 2_000) - 1.0 / 14.0).abs() < 1e-9);
        assert_eq!(clock_weight(600_000, 10_000), 0.01);
        // Nonsense clocks still give a finite weight.
        assert_eq!(clock_weight(0, 0), 10_000.0);
    }

    #[test]
    fn only_ladder_bots_have_a_ladder_entry() {
        assert_eq!(
            ladder_json("house-random"),
            Some(json!({"rung": 1, "rungs": LADDER.len(), "summary": LADDER[0].summary}))
        );
        assert_eq!(ladder_json("AlphaHex"), None);
    }
}
