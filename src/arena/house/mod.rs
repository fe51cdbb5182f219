//! House bots (SPEC section 9, issue 11): built-in players that live in the server process and
//! play through the same path as any bot (the same `play_move` with `?ply`, clocks and store).
//!
//! - The ladder: one house bot per rung of [`hex_search::ladder::LADDER`], weakest first, each with
//!   its own house owner (so any two may play staked sets against each other).
//! - They think on a bounded pool of worker threads ([`pool`]), every game at once, each
//!   move's time set from that seat's own clock and from the load ([`think`]).
//! - [`driver`] hands every game where a house bot is on move to the pool at once (one job per
//!   game and ply), accepts private challenges, and lobby challenges nobody else took
//!   ([`lobby`]); in demo mode neighbouring rungs play each other without a break ([`demo`]).
//! - When the pool cannot give new games a reasonable move time (their clocks' weights summed
//!   past a bound per thread, or a move recently played cheap), new practice sets and
//!   private challenges to a house bot are refused with 503 `house_busy`
//!   ([`Arena::house_admit`]).
//! - Outside engines (issue 23): GTP engines the operator installed play as house bots
//!   `house-NAME` beside the ladder, each game on its own engine process ([`outside`]).

pub mod demo;
pub mod driver;
pub mod lobby;
pub mod outside;
pub mod pool;
// The thinking budget is pure and shared with `hexarena play`: it lives in the search crate.
pub use hex_search::think;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};

use hex_search::ladder::{LADDER, Rung};
use serde_json::{Value, json};

use super::Arena;
use super::error::{ArenaError, ArenaResult, Code};
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
/// has played no rated set; results move it from there like anyone's. House-master's step was
/// measured before its Hex knowledge (issue 23), which makes it stronger: its seed is low if
/// anything, and its rated sets raise it.
pub const SEED_RATINGS: [(&str, f64); 5] = [
    ("house-random", 800.0),
    ("house-novice", 1220.0),
    ("house-club", 1590.0),
    ("house-bridge", 1940.0),
    ("house-master", 2110.0),
];

/// The Glicko-2 deviation a house bot's seed carries (issue 20), rating points: small, since
/// the ladder is measured (200 games of the round robin, every rung above the one below) and
/// its programs change only by a measured gain; below the provisional mark (110), so a house
/// bot counts as established from the start, and small enough that a result against one
/// moves a new bot nearly as much as one against a certain opponent would (g(60) = 0.98). Its
/// Glicko-2 rating starts at its seed in [`SEED_RATINGS`].
pub const HOUSE_SEED_DEVIATION: f64 = 60.0;

/// Default house load per worker thread, in games at 10+0 on 11x11, above which new house
/// sets are refused (see [`clock_weight`]). Measured on 2 shared cores, debug build, with the
/// per-move overhead planned for: 40 games at 10+0 on 11x11 (20 per thread) end with at least
/// 3.6 s on every house clock on SQLite (24 on PostgreSQL: 6.0 s); before that plan, 48 lost
/// some on time on PostgreSQL.
pub const GAMES_PER_THREAD_DEFAULT: usize = 20;
/// A house move played cheap within this many ms means the pool is behind: new house sets
/// are refused until that long has passed without one.
pub const CHEAP_RECENT_MS: u64 = 10_000;

/// The most moves a house seat can have to make in one game on a `size` x `size` board: half
/// its cells, rounded up (a board filled to the last cell).
#[must_use]
pub fn house_moves(size: i64) -> i64 {
    let size = size.clamp(1, 64);
    (size * size + 1) / 2
}

/// What every house move costs its clock beyond thinking, at the least, ms: the queue's round,
/// the commit and the scheduling (measured 20 to 100 ms a move on 2 shared cores under load).
/// A house set whose clock cannot pay this for [`house_moves`] moves is refused
/// (422 `clock_too_fast_for_house`, see [`clock_pays_floor`]).
pub const MOVE_FLOOR_MS: i64 = 80;

/// Whether a clock of `initial_ms` + `increment_ms` on a `size` x `size` board pays at least
/// [`MOVE_FLOOR_MS`] for each of the [`house_moves`] moves a house seat may have to make
/// (initial + increment x moves >= floor x moves). 10+0 pays it on 15x15 and smaller boards.
#[must_use]
pub fn clock_pays_floor(size: i64, initial_ms: i64, increment_ms: i64) -> bool {
    let m = house_moves(size);
    MOVE_FLOOR_MS * m <= initial_ms.max(0) + increment_ms.max(0) * m
}

/// The largest board size from `min_size` to `max_size` on which a clock of `initial_ms` +
/// `increment_ms` pays the house's floor ([`clock_pays_floor`]); None when none does.
#[must_use]
pub fn largest_size_for(
    min_size: i64,
    max_size: i64,
    initial_ms: i64,
    increment_ms: i64,
) -> Option<i64> {
    (min_size..=max_size)
        .rev()
        .find(|&s| clock_pays_floor(s, initial_ms, increment_ms))
}

/// How much of the pool a game at clock `initial_ms` + `increment_ms` on a `size` x `size`
/// board needs, in games at 10 s + 0 on 11x11: the pace its clock asks of the pool, moves per
/// ms over a whole game ([`house_moves`] / (initial + increment x moves)), relative to 10+0
/// on 11x11 (61 moves in 10 s). 10+0 on 11x11 counts 1, on 15x15 about 1.85; 60+2 on 11x11
/// about 0.055, 600+10 about 0.008.
#[must_use]
pub fn clock_weight(initial_ms: i64, increment_ms: i64, size: i64) -> f64 {
    let m = house_moves(size);
    let span = (initial_ms.max(0) + m * increment_ms.max(0)).max(1);
    (10_000.0 / house_moves(11) as f64) * m as f64 / span as f64
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

/// A registered house bot: a rung of the ladder or an outside engine.
#[derive(Debug, Clone)]
pub struct HouseBot {
    /// Its bot row (only the immutable columns are relied on).
    pub bot: BotRow,
    /// How it plays, on the ladder (None: an outside engine).
    pub rung: Option<&'static Rung>,
    /// The outside engine that plays for it (None: a rung of the ladder).
    pub outside: Option<Arc<outside::OutsideEngine>>,
    /// Its place among the house bots, 1 = weakest rung; outside engines come after the
    /// ladder, in the order configured.
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
    /// Held from the capacity check of a new house game to its creation (or refusal), so two
    /// requests cannot both take the last room ([`Arena::house_admit`]).
    admission: tokio::sync::Mutex<()>,
    /// House games lost on time since start (this instance's commits).
    pub time_losses: AtomicU64,
    /// The outside engines' processes, one per game in play.
    pub outside: outside::Sessions,
    /// Outside engine processes that died or hung (their games resigned) since start.
    pub outside_restarts: AtomicU64,
    /// A look at the lobby is running.
    lobby_scanning: AtomicBool,
}

impl House {
    /// Whether this instance plays the house's side of this set: always on SQLite (one
    /// instance); on PostgreSQL, when it ranks first among the live instances for the set id.
    pub(crate) fn owns(&self, arena: &Arena, set_id: &str) -> bool {
        let peers = self.peers.lock().map(|p| p.clone()).unwrap_or_default();
        if peers.len() < 2 {
            return true;
        }
        let me = arena.instance_id.as_str();
        let score = |id: &str| fnv1a(id.as_bytes(), set_id.as_bytes());
        peers
            .iter()
            .max_by_key(|id| (score(id), id.as_str()))
            .is_none_or(|best| best == me)
    }

    /// How many live instances this one knows to run house bots, itself included (1 on
    /// SQLite, or before the first look at the others).
    pub fn peer_count(&self) -> usize {
        self.peers.lock().map_or(1, |p| p.len().max(1))
    }

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
                .then(|| clock_weight(l.set.initial_ms, l.set.increment_ms, l.set.size))
        });
        HouseLoad {
            games,
            units,
            limit: (self.pool.threads() * self.config.games_per_thread) as f64,
        }
    }
}

/// The `engine` entry of a house bot's profile: `{"outside": true, "protocol": "gtp",
/// "command_name"}` for an outside engine that this process runs; None otherwise.
pub fn engine_json(arena: &Arena, name: &str) -> Option<Value> {
    arena
        .house_bot_named(name)?
        .outside
        .as_ref()
        .map(|e| e.profile_json())
}

/// The ladder entry of a house bot's profile (rung number from 1, rungs, summary), computed
/// from [`LADDER`]; None for a bot that is not on the ladder.
pub fn ladder_json(name: &str) -> Option<Value> {
    let (i, r) = LADDER.iter().enumerate().find(|(_, r)| r.name == name)?;
    Some(json!({"rung": i + 1, "rungs": LADDER.len(), "summary": r.summary}))
}

/// Board sizes a set may have (`schemas/options.json`).
const SIZES: (i64, i64) = (9, 19);

/// Refuses a clock that cannot pay the house's floor on that board ([`clock_pays_floor`]).
///
/// Errors: 422 `clock_too_fast_for_house` (see [`Arena::house_admit`]).
pub fn house_clock_check(size: i64, initial_ms: i64, increment_ms: i64) -> ArenaResult<()> {
    if clock_pays_floor(size, initial_ms, increment_ms) {
        return Ok(());
    }
    let m = house_moves(size);
    let largest = largest_size_for(SIZES.0, SIZES.1, initial_ms, increment_ms);
    let hint = largest.map_or_else(
        || "a slower clock".to_string(),
        |l| format!("a slower clock or a board of at most {l}x{l}"),
    );
    Err(ArenaError::new(
        Code::ClockTooFastForHouse,
        format!(
            "a house bot may have to make {m} moves on {size}x{size}, each costing its clock at least {MOVE_FLOOR_MS} ms besides thinking; this clock cannot pay that: choose {hint}"
        ),
    )
    .with_details(json!({
        "size": size,
        "initial_ms": initial_ms,
        "increment_ms": increment_ms,
        "house_moves": m,
        "floor_ms": MOVE_FLOOR_MS,
        "needed_ms": MOVE_FLOOR_MS * m,
        "clock_ms": initial_ms.max(0) + increment_ms.max(0) * m,
        "largest_size": largest,
    })))
}

/// Registers every rung's house bot that is missing (a database from before the ladder has
/// only some of them), then every outside engine's ([`outside`]); returns them all, the
/// ladder weakest first, then the outside engines.
pub async fn ensure(
    arena: &Arena,
    engines: &[outside::OutsideEngine],
) -> ArenaResult<Vec<HouseBot>> {
    // Instances starting together would each find a rung missing and register it, and all
    // but one fail on its name (stop 35's breaker, F5): they take turns, the later ones find
    // the bots registered. The lock's connection is held aside; the work uses others.
    let backend = arena.store.backend;
    let key = crate::store::instances::HOUSE_SETUP_LOCK;
    let mut lock = arena.store.conn().await?;
    crate::store::instances::advisory_lock(&mut lock, backend, key).await?;
    let out = ensure_in_turn(arena, engines).await;
    if let Err(e) = crate::store::instances::advisory_unlock(&mut lock, backend, key).await {
        // Not back to the pool holding the lock: closing the connection releases it.
        tracing::warn!(error = %e, "releasing the house set-up lock failed; connection closed");
        let _ = sqlx::Connection::close(lock.detach()).await;
    }
    out
}

/// [`ensure`]'s work, with the set-up lock held.
async fn ensure_in_turn(
    arena: &Arena,
    engines: &[outside::OutsideEngine],
) -> ArenaResult<Vec<HouseBot>> {
    let mut out = vec![];
    for (i, rung) in LADDER.iter().enumerate() {
        let existing = {
            let mut c = arena.store.conn().await?;
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
                    .create_bot(&player, rung.name, Some(super::options::STAKE_MAX), true)
                    .await?;
                tracing::info!(bot = rung.name, "registered house bot");
                bot
            }
        };
        let bot = match SEED_RATINGS.iter().find(|(n, _)| *n == rung.name) {
            Some(&(_, seed))
                if (bot.sets == 0 && bot.rating != seed) || bot.glicko_at_ms.is_none() =>
            {
                let mut c = arena.store.conn().await?;
                acc::seed_rating(&mut c, &bot.id, seed).await?;
                // Glicko-2 is seeded once, then moves (and its deviation grows) like anyone's.
                let figures = acc::GlickoFigures {
                    rating: seed,
                    deviation: HOUSE_SEED_DEVIATION,
                    volatility: super::glicko::START_VOLATILITY,
                };
                acc::seed_glicko(&mut c, &bot.id, figures, arena.now_ms()).await?;
                acc::bot_by_ref(&mut c, &bot.id).await?.unwrap_or(bot)
            }
            _ => bot,
        };
        out.push(HouseBot {
            bot,
            rung: Some(rung),
            outside: None,
            rung_no: i + 1,
        });
    }
    let first = out.len();
    for (k, engine) in engines.iter().enumerate() {
        if let Some(bot) = ensure_outside(arena, engine).await? {
            out.push(HouseBot {
                bot,
                rung: None,
                outside: Some(Arc::new(engine.clone())),
                rung_no: first + k + 1,
            });
        }
    }
    Ok(out)
}

/// Registers an outside engine's house bot if missing (owner "House of NAME") and seeds its
/// ratings at [`outside::SEED_RATING`], provisional, while it has played no rated set. None
/// when a player's bot holds the name (the engine is then left out, with a warning).
async fn ensure_outside(
    arena: &Arena,
    engine: &outside::OutsideEngine,
) -> ArenaResult<Option<BotRow>> {
    let name = engine.bot_name.as_str();
    let existing = {
        let mut c = arena.store.conn().await?;
        acc::bot_by_ref(&mut c, name).await?
    };
    let bot = match existing {
        Some(b) if b.house != 0 => b,
        Some(_) => {
            tracing::warn!(
                bot = name,
                "a player's bot holds this outside engine's name; engine left out"
            );
            return Ok(None);
        }
        None => {
            let owner = format!("House of {}", &name[outside::PREFIX.len()..]);
            let (player, _token) = arena.register_player(&owner, true).await?;
            let (bot, _token) = arena
                .create_bot(&player, name, Some(super::options::STAKE_MAX), true)
                .await?;
            tracing::info!(bot = name, command = %engine.command_name, "registered outside engine");
            bot
        }
    };
    let seed = outside::SEED_RATING;
    if bot.sets == 0 && (bot.rating != seed || bot.glicko_at_ms.is_none()) {
        let mut c = arena.store.conn().await?;
        acc::seed_rating(&mut c, &bot.id, seed).await?;
        let figures = acc::GlickoFigures {
            rating: seed,
            deviation: super::glicko::MAX_DEVIATION,
            volatility: super::glicko::START_VOLATILITY,
        };
        acc::seed_glicko(&mut c, &bot.id, figures, arena.now_ms()).await?;
        return Ok(Some(acc::bot_by_ref(&mut c, &bot.id).await?.unwrap_or(bot)));
    }
    Ok(Some(bot))
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
        admission: tokio::sync::Mutex::new(()),
        time_losses: AtomicU64::new(0),
        outside: outside::Sessions::default(),
        outside_restarts: AtomicU64::new(0),
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
    /// Admits a new house game at clock `initial_ms` + `increment_ms` on a `size` x `size`
    /// board (SPEC 9, issue 11), atomically: the returned guard holds the house's admission
    /// lock, and the caller keeps it until the set is created (or refused), so concurrent
    /// requests cannot all take the last room. None when no house runs in this process
    /// (nothing to protect).
    ///
    /// The load counted: the house games in play held by this instance and the open private
    /// challenges to house bots that it will play (they are accepted at once), each by its
    /// [`clock_weight`]. Refused when the new game would take it past `threads` x
    /// `games_per_thread` (`reason` `games`), or when a house move had to be played cheap in
    /// the last [`CHEAP_RECENT_MS`] (`reason` `cheap_moves`).
    ///
    /// Errors: 422 `clock_too_fast_for_house` when the clock cannot pay [`MOVE_FLOOR_MS`] for
    /// each house move on that board ([`clock_pays_floor`]; `details` {`size`, `initial_ms`,
    /// `increment_ms`, `house_moves`, `floor_ms`, `needed_ms`, `clock_ms`, `largest_size`});
    /// 503 `house_busy` with `Retry-After` and `details` {`reason`, `in_play` (games),
    /// `pending` (open private challenges), `load` and `limit` (in games at 10+0 on 11x11),
    /// `threads`, `retry_after_s`}; a database error reading the open challenges.
    pub async fn house_admit(
        &self,
        initial_ms: i64,
        increment_ms: i64,
        size: i64,
    ) -> ArenaResult<Option<tokio::sync::MutexGuard<'_, ()>>> {
        let Some(house) = self.house.get() else {
            return Ok(None);
        };
        house_clock_check(size, initial_ms, increment_ms)?;
        let guard = house.admission.lock().await;
        let open = {
            let mut c = self.store.conn().await?;
            crate::store::sets::open_to_house(&mut c).await?
        };
        let (pending, pending_units) = open
            .iter()
            .filter(|s| house.owns(self, &s.0))
            .fold((0usize, 0.0), |(n, u), s| {
                (n + 1, u + clock_weight(s.2, s.3, s.1))
            });
        let load = house.in_play(self);
        let units = load.units + pending_units;
        let reason = if units + clock_weight(initial_ms, increment_ms, size) > load.limit + 1e-9 {
            "games"
        } else if house
            .pool
            .cheap_within(std::time::Duration::from_millis(CHEAP_RECENT_MS))
        {
            "cheap_moves"
        } else {
            return Ok(Some(guard));
        };
        let mut e = ArenaError::new(
            Code::HouseBusy,
            format!(
                "the house bots are playing {} games ({pending} more challenged), as many as they can play well; retry in {BUSY_RETRY_AFTER_S} s",
                load.games
            ),
        )
        .with_details(json!({
            "reason": reason,
            "in_play": load.games,
            "pending": pending,
            "load": (units * 100.0).round() / 100.0,
            "limit": load.limit,
            "threads": house.pool.threads(),
            "retry_after_s": BUSY_RETRY_AFTER_S,
        }));
        e.retry_after_s = Some(BUSY_RETRY_AFTER_S);
        Err(e)
    }

    /// The house bot of this process that `name_or_id` names (a bot's id, or its name in any
    /// case, as [`acc::bot_by_ref`] reads it); None when no house runs here or none matches.
    pub fn house_bot_named(&self, name_or_id: &str) -> Option<&HouseBot> {
        self.house
            .get()?
            .bots
            .iter()
            .find(|b| b.bot.id == name_or_id || b.bot.name.eq_ignore_ascii_case(name_or_id))
    }

    /// Whether a bot is a house bot of this process.
    pub fn is_house_bot(&self, bot_id: &str) -> bool {
        self.house.get().is_some_and(|h| h.is_house(bot_id))
    }
}

/// FNV-1a over two byte strings (stable across processes and builds, unlike std's hasher).
fn fnv1a(a: &[u8], b: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &x in a.iter().chain([0u8].iter()).chain(b) {
        h ^= u64::from(x);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_weighs_by_the_pace_its_clock_and_board_ask() {
        assert!((clock_weight(10_000, 0, 11) - 1.0).abs() < 1e-9);
        // 113 moves in 10 s on 15x15.
        assert!((clock_weight(10_000, 0, 15) - 113.0 / 61.0).abs() < 1e-9);
        assert!((clock_weight(60_000, 2_000, 11) - 10_000.0 / 182_000.0).abs() < 1e-9);
        assert!((clock_weight(600_000, 10_000, 11) - 10_000.0 / 1_210_000.0).abs() < 1e-9);
        // Nonsense clocks still give a finite weight.
        assert!((clock_weight(0, 0, 11) - 10_000.0).abs() < 1e-6);
    }

    #[test]
    fn a_clock_must_pay_the_floor_of_every_house_move() {
        assert_eq!(
            (house_moves(11), house_moves(15), house_moves(19)),
            (61, 113, 181)
        );
        assert!(clock_pays_floor(11, 10_000, 0));
        assert!(clock_pays_floor(15, 10_000, 0));
        assert!(!clock_pays_floor(16, 10_000, 0));
        assert!(!clock_pays_floor(19, 10_000, 0));
        // An increment of the floor pays for every move.
        assert!(clock_pays_floor(19, 0, MOVE_FLOOR_MS));
        assert!(clock_pays_floor(19, 60_000, 0));
        assert_eq!(largest_size_for(9, 19, 10_000, 0), Some(15));
        assert_eq!(largest_size_for(9, 19, 1_000, 0), None);
        let e = house_clock_check(19, 10_000, 0).expect_err("too fast");
        assert_eq!(e.code.as_str(), "clock_too_fast_for_house");
        assert_eq!(e.details["largest_size"], json!(15));
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
