//! House bots (SPEC section 9): built-in players that live in the server process and play through
//! the same path as any bot (the same `play_move`, clocks and store). They accept practice sets
//! and private challenges addressed to them; in demo mode they also challenge each other.

use std::sync::Arc;
use std::time::Duration;

use hex::Move;
use rand_core::SeedableRng;
use rand_pcg::Pcg64;
use tokio::sync::broadcast::error::RecvError;

use super::Arena;
use super::error::ArenaResult;
use super::sets::{GameOptions, NewSet};
use super::views::position_of;
use crate::store::accounts::{self as acc, BotRow};
use crate::store::{games, sets};

/// The weakest house bot: uniformly random legal moves. The default practice opponent.
pub const WEAKEST: &str = "house-random";
/// The stronger house bot: shortest-path (two-distance) evaluation with bridge awareness.
pub const STRONG: &str = "house-bridge";

/// How a house bot chooses its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    Random,
    Strong,
}

/// The house bots: name, owner name, strategy. Each has its own owner so they may play
/// staked sets against each other in demo mode.
pub const HOUSE: [(&str, &str, Strategy); 2] = [
    (WEAKEST, "House of Random", Strategy::Random),
    (STRONG, "House of Bridges", Strategy::Strong),
];

/// Registers the house bots on first start; returns them with their strategies.
pub async fn ensure(arena: &Arena) -> ArenaResult<Vec<(BotRow, Strategy)>> {
    let mut out = vec![];
    for (name, owner, strategy) in HOUSE {
        let existing = {
            let mut c = arena.store.pool.acquire().await?;
            acc::bot_by_ref(&mut c, name).await?
        };
        let bot = match existing {
            Some(b) => b,
            None => {
                let (player, _token) = arena.register_player(owner, true).await?;
                let (bot, _token) = arena.create_bot(&player, name, Some(1000), true).await?;
                tracing::info!(bot = name, "registered house bot");
                bot
            }
        };
        out.push((bot, strategy));
    }
    Ok(out)
}

/// Starts one task per house bot (and the demo matchmaker when `demo`).
pub fn spawn(arena: Arc<Arena>, bots: Vec<(BotRow, Strategy)>, demo: bool) {
    if demo && bots.len() >= 2 {
        let a = arena.clone();
        let pair = (bots[1].0.clone(), bots[0].0.clone());
        tokio::spawn(async move { demo_loop(a, pair).await });
    }
    for (bot, strategy) in bots {
        let a = arena.clone();
        tokio::spawn(async move { drive(a, bot, strategy).await });
    }
}

async fn drive(arena: Arc<Arena>, bot: BotRow, strategy: Strategy) {
    let mut rx = arena.changes.subscribe();
    let mut rng = Pcg64::seed_from_u64(rand::random());
    loop {
        if let Err(e) = act(&arena, &bot, strategy, &mut rng).await {
            tracing::warn!(bot = %bot.name, error = %e, "house bot step failed");
        }
        // Wake on anything that concerns this bot, or every second as a safety net.
        let until = tokio::time::Instant::now() + Duration::from_secs(1);
        loop {
            match tokio::time::timeout_at(until, rx.recv()).await {
                Ok(Ok(c)) if c.bots.contains(&bot.id) => break,
                Ok(Ok(_)) => continue,
                Ok(Err(RecvError::Lagged(_))) | Err(_) => break,
                Ok(Err(RecvError::Closed)) => return,
            }
        }
    }
}

/// One round: accept private challenges, then move in every game where this bot is on move.
async fn act(arena: &Arena, bot: &BotRow, strategy: Strategy, rng: &mut Pcg64) -> ArenaResult<()> {
    let (open, on_move) = {
        let mut c = arena.store.pool.acquire().await?;
        (
            sets::open_for(&mut c, &bot.id).await?,
            games::all_on_move(&mut c, &bot.id).await?,
        )
    };
    for s in open
        .iter()
        .filter(|s| s.opponent_id.as_deref() == Some(bot.id.as_str()))
    {
        if let Err(e) = arena.accept_set(bot, &s.id).await {
            tracing::info!(bot = %bot.name, set_id = %s.id, error = %e, "house bot declines");
            let _ = arena.close_set(bot, &s.id, true).await;
        }
    }
    for (set_id, game_no) in on_move {
        let g = {
            let mut c = arena.store.pool.acquire().await?;
            games::get(&mut c, &set_id, game_no, "").await?
        };
        let Some(g) = g else { continue };
        let pos = position_of(&g)?;
        let mut local = Pcg64::seed_from_u64(rand::RngExt::random(rng));
        let mv: Option<Move> = match strategy {
            Strategy::Random => hex::random_move(&pos, &mut local),
            Strategy::Strong => tokio::task::spawn_blocking(move || {
                // About the same thinking time on every board size.
                let budget = hex::strong_budget_for(pos.size());
                hex::strong_move(&pos, &mut local, budget)
            })
            .await
            .ok()
            .flatten(),
        };
        if let Some(mv) = mv
            && let Err(e) = arena
                .play_move(bot, &set_id, game_no, mv, Some(g.ply + 1))
                .await
        {
            tracing::debug!(bot = %bot.name, set_id, error = %e, "house move refused");
        }
    }
    Ok(())
}

/// Demo mode: keeps one staked set between the two house bots running at all times.
async fn demo_loop(arena: Arc<Arena>, (creator, acceptor): (BotRow, BotRow)) {
    loop {
        let running = async {
            let mut c = arena.store.pool.acquire().await?;
            let rows = sets::list(&mut c, Some("active"), Some(&creator.id), None, 5).await?;
            Ok::<usize, sqlx::Error>(rows.len())
        }
        .await
        .unwrap_or(1);
        if running == 0 {
            let req = NewSet {
                options: GameOptions::default(),
                initial_ms: 60_000,
                increment_ms: 2_000,
                stake: 10,
                opponent: Some(acceptor.name.clone()),
                rated: true,
            };
            match arena.start_now(&creator, &acceptor, req).await {
                Ok(set) => tracing::info!(set_id = %set["id"], "demo set started"),
                Err(e) => tracing::warn!(error = %e, "demo set could not start"),
            }
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
}
