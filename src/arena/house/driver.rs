//! Drives the house bots (issue 11): every game where a house bot is on move gets a job on the
//! thinking pool at once, and its answer is played through [`Arena::play_move`] with `?ply`.
//!
//! Who is on move comes from the changes the arena broadcasts (each carries the game's state
//! as held in memory), so a move costs no database scan. Safety nets: every second the games
//! held in memory are looked over (games loaded at boot included), and every few seconds the
//! database is asked which games the house bots are on move in (games another instance
//! changed and this one does not hold).
//!
//! With several instances on one PostgreSQL database each game is played by one of them: the
//! instance that ranks first for the set id (rendezvous hashing) among those running house
//! bots, which say so with a second row in `instances` (`<id>/house`, heartbeat each second).
//! When an instance stops, its games pass to the others within a few seconds. A move refused
//! because another instance played it first is harmless.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tokio::sync::broadcast::error::RecvError;

use super::pool::Job;
use super::{House, lobby};
use crate::arena::error::{ArenaResult, Code};
use crate::arena::game::{EndReason, Status};
use crate::arena::{Arena, Change, info};
use crate::store::StoreError;
use crate::store::events::LOBBY;
use crate::store::instances::HOUSE_ROW;
use crate::store::{Backend, games, instances, sets};

/// How often the games held in memory are looked over (and the lobby, when something changed).
const TICK: Duration = Duration::from_secs(1);
/// How often the database is asked which games the house bots are on move in.
const DB_SCAN_EVERY: u64 = 5;
/// An instance whose heartbeat is older than this (ms) is not given games.
const PEER_ALIVE_MS: i64 = 3_000;

/// Runs until the arena's change channel closes.
pub async fn run(arena: Arc<Arena>, house: Arc<House>) {
    let mut rx = arena.changes.subscribe();
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut n: u64 = 0;
    loop {
        tokio::select! {
            r = rx.recv() => match r {
                Ok(c) => on_change(&arena, &house, &c),
                Err(RecvError::Lagged(_)) => {
                    sweep_memory(&arena, &house);
                    house.lobby_dirty.store(true, Ordering::Relaxed);
                    spawn_db_scan(&arena, &house);
                }
                Err(RecvError::Closed) => return,
            },
            _ = tick.tick() => {
                n += 1;
                if arena.store.backend == Backend::Postgres
                    && let Err(e) = refresh_peers(&arena, &house).await
                {
                    tracing::warn!(error = %e, "reading the live instances failed");
                }
                sweep_memory(&arena, &house);
                forget_ended_engines(&arena, &house);
                if n % DB_SCAN_EVERY == 1 {
                    spawn_db_scan(&arena, &house);
                }
                lobby::tick(&arena, &house);
            }
        }
    }
}

/// One broadcast change: a state with a house bot on move gets its job; a change without a
/// state (another instance's, on a game not held here) is looked up; a set-level change for a
/// house bot may be a private challenge to it.
fn on_change(arena: &Arc<Arena>, house: &Arc<House>, c: &Change) {
    if c.resync {
        sweep_memory(arena, house);
        house.lobby_dirty.store(true, Ordering::Relaxed);
        spawn_db_scan(arena, house);
        return;
    }
    if c.bots.iter().any(|b| b == LOBBY) {
        house.lobby_dirty.store(true, Ordering::Relaxed);
    }
    let concerns_house = c.bots.iter().any(|b| house.is_house(b));
    if concerns_house && let Some(state) = &c.state {
        count_time_loss(arena, house, state);
        if matches!(state.status, Status::Finished { .. }) {
            // An outside engine's game ended: its process is stopped.
            house.outside.forget(&state.set_id, state.game_no);
        }
    }
    match (&c.state, c.game_no) {
        (Some(state), _) => {
            if let Some((bot_id, _)) = &state.on_move
                && house.is_house(bot_id)
            {
                launch(
                    arena,
                    house,
                    &state.set_id,
                    state.game_no,
                    state.ply,
                    bot_id,
                );
            }
        }
        (None, Some(game_no)) if concerns_house => {
            let (a, h, set_id) = (arena.clone(), house.clone(), c.set_id.clone());
            tokio::spawn(async move {
                if let Ok((_, l)) = a.live_game(&set_id, game_no).await
                    && let Some((bot_id, _)) = &l.snapshot.on_move
                    && h.is_house(bot_id)
                {
                    launch(&a, &h, &set_id, game_no, l.snapshot.ply, bot_id);
                }
            });
        }
        // A set-level change: on this instance its events say whether it is a challenge;
        // another instance's notice carries none, so it is looked up.
        (None, None)
            if concerns_house
                && (c.events.is_empty() || c.events.iter().any(|e| e.kind == "challenge")) =>
        {
            for b in c.bots.iter().filter(|b| house.is_house(b)) {
                let (a, h, bot_id) = (arena.clone(), house.clone(), b.clone());
                tokio::spawn(async move {
                    if let Err(e) = accept_private(&a, &h, &bot_id).await {
                        tracing::warn!(error = %e, "house bot could not read its challenges");
                    }
                });
            }
        }
        _ => {}
    }
}

/// Counts a game that a house bot lost on time (its clock, or its first move's limit) in the
/// house's `time_losses` (exported as `hexarena_house_time_losses_total`).
fn count_time_loss(arena: &Arena, house: &House, state: &crate::arena::live::Snapshot) {
    let Status::Finished {
        winner: Some(winner),
        reason: EndReason::Timeout | EndReason::FirstMoveTimeout,
    } = state.status
    else {
        return;
    };
    let Some(l) = arena
        .live
        .existing(&state.set_id, state.game_no)
        .and_then(|slot| slot.current())
    else {
        return;
    };
    let loser = l.game.bot_of(winner.other());
    if house.is_house(loser) {
        house.time_losses.fetch_add(1, Ordering::Relaxed);
        arena.metrics.house_time_loss();
        tracing::warn!(
            set_id = %state.set_id,
            game_no = state.game_no,
            bot = loser,
            "house bot lost on time"
        );
    }
}

/// Stops the outside engines of games that are no longer in play here (a change missed, a
/// game let go from memory).
fn forget_ended_engines(arena: &Arena, house: &House) {
    if house.outside.is_empty() {
        return;
    }
    house.outside.forget_where(|set_id, game_no| {
        arena
            .live
            .existing(set_id, game_no)
            .and_then(|slot| slot.current())
            .is_none_or(|l| !matches!(l.game.status, Status::Active { .. }))
    });
}

/// Jobs for every game held in memory where a house bot is on move and none is in flight.
fn sweep_memory(arena: &Arc<Arena>, house: &Arc<House>) {
    for (set_id, game_no, ply, bot_id) in arena.live.on_move_among(|b| house.is_house(b)) {
        launch(arena, house, &set_id, game_no, ply, &bot_id);
    }
}

/// Asks the database which games the house bots are on move in, and which private
/// challenges wait for them (off the driver's loop).
fn spawn_db_scan(arena: &Arc<Arena>, house: &Arc<House>) {
    let (a, h) = (arena.clone(), house.clone());
    tokio::spawn(async move {
        if let Err(e) = db_scan(&a, &h).await {
            tracing::warn!(error = %e, "house scan failed");
        }
    });
}

async fn db_scan(arena: &Arc<Arena>, house: &Arc<House>) -> ArenaResult<()> {
    for hb in &house.bots {
        let on_move = {
            let mut c = arena.store.conn().await?;
            games::all_on_move(&mut c, &hb.bot.id).await?
        };
        for (set_id, game_no) in on_move {
            if !house.owns(arena, &set_id) {
                continue;
            }
            let (_, l) = arena.live_game(&set_id, game_no).await?;
            if let Some((bot_id, _)) = &l.snapshot.on_move
                && house.is_house(bot_id)
            {
                launch(arena, house, &set_id, game_no, l.snapshot.ply, bot_id);
            }
        }
        accept_private(arena, house, &hb.bot.id).await?;
    }
    Ok(())
}

/// Accepts the private challenges addressed to a house bot (they were checked against the
/// house's capacity when created; one the bot may not accept is declined).
async fn accept_private(arena: &Arena, house: &House, bot_id: &str) -> ArenaResult<()> {
    let Some(hb) = house.by_id(bot_id) else {
        return Ok(());
    };
    let open = {
        let mut c = arena.store.conn().await?;
        sets::open_for(&mut c, bot_id).await?
    };
    for s in open
        .iter()
        .filter(|s| s.opponent_id.as_deref() == Some(bot_id))
        .filter(|s| house.owns(arena, &s.id))
    {
        // Under the admission lock: between the accept's commit and the game entering the
        // live cache, the challenge is neither open nor in play, and an admission counting
        // both would miss it and let one game too many in.
        let _admission = house.admission.lock().await;
        match arena.accept_set(&hb.bot, &s.id).await {
            Ok(_) => tracing::info!(bot = %hb.bot.name, set_id = %s.id, "house bot accepts"),
            Err(e) if e.is(Code::SetNotOpen) => {}
            Err(e) => {
                tracing::info!(bot = %hb.bot.name, set_id = %s.id, error = %e, "house bot declines");
                let _ = arena.close_set(&hb.bot, &s.id, true).await;
            }
        }
    }
    Ok(())
}

/// Says that this instance runs house bots and reads which live instances do (PostgreSQL).
async fn refresh_peers(arena: &Arena, house: &House) -> Result<(), StoreError> {
    // The house row is a heartbeat too (the next start credits from the newest): it moves
    // no further once this instance is stopping (see `Arena::beat_gate`).
    let Some(gate) = arena.beat_gate().await else {
        return Ok(());
    };
    let now = arena.now_ms();
    let mut c = arena.store.conn().await?;
    instances::beat(&mut c, &instances::house_row_of(&arena.instance_id), now).await?;
    drop(gate);
    let rows = instances::alive_with_suffix(&mut c, now - PEER_ALIVE_MS, HOUSE_ROW).await?;
    drop(c);
    let mut ids: Vec<String> = rows
        .into_iter()
        .filter_map(|id| id.strip_suffix(HOUSE_ROW).map(str::to_string))
        .collect();
    if !ids.contains(&arena.instance_id) {
        ids.push(arena.instance_id.clone());
    }
    ids.sort();
    if let Ok(mut p) = house.peers.lock() {
        *p = ids;
    }
    Ok(())
}

/// Starts the move of `bot_id` at `ply` in a game, unless one is in flight for that game and
/// ply or another instance plays this set.
fn launch(
    arena: &Arc<Arena>,
    house: &Arc<House>,
    set_id: &str,
    game_no: i64,
    ply: i64,
    bot_id: &str,
) {
    if !house.owns(arena, set_id) || arena.store.health.is_down() || arena.is_stopping() {
        // No move can be stored now: do not think for nothing (the clocks are held; the
        // recovery's resync launches the move again).
        return;
    }
    let key = (set_id.to_string(), game_no, ply);
    match house.in_flight.lock() {
        Ok(mut f) => {
            if !f.insert(key.clone()) {
                return;
            }
        }
        Err(_) => return,
    }
    let (a, h, bot_id) = (arena.clone(), house.clone(), bot_id.to_string());
    tokio::spawn(async move {
        if let Err(e) = play_one(&a, &h, &key.0, key.1, key.2, &bot_id).await {
            tracing::debug!(set_id = %key.0, game_no = key.1, error = %e, "house move refused");
        }
        if let Ok(mut f) = h.in_flight.lock() {
            f.remove(&key);
        }
    });
}

/// Thinks and plays one move, if the game is still at `ply` with `bot_id` on move.
async fn play_one(
    arena: &Arena,
    house: &House,
    set_id: &str,
    game_no: i64,
    ply: i64,
    bot_id: &str,
) -> ArenaResult<()> {
    let Some(hb) = house.by_id(bot_id) else {
        return Ok(());
    };
    // The copy held in memory is enough to think on (no version check: if another
    // instance moved meanwhile, the move is refused as stale); loaded when not held.
    let held = arena
        .live
        .existing(set_id, game_no)
        .and_then(|slot| slot.current());
    let l = match held {
        Some(l) => l,
        None => arena.live_game(set_id, game_no).await?.1,
    };
    let Some(seat) = l.game.to_move() else {
        return Ok(());
    };
    if l.game.ply != ply || l.game.bot_of(seat) != bot_id {
        return Ok(());
    }
    let rung = match (hb.rung, &hb.outside) {
        (_, Some(engine)) => {
            return super::outside::play_one(arena, house, hb, engine, &l, seat, ply).await;
        }
        (Some(rung), None) => rung,
        (None, None) => return Ok(()),
    };
    let clock = l.game.clock;
    let now_ms = arena.now_ms();
    let Some(flag_ms) = clock.deadline_ms(seat) else {
        return Ok(());
    };
    let i = usize::from(seat.number() - 1);
    let flag_in = Duration::from_millis(u64::try_from(flag_ms - now_ms).unwrap_or(0));
    let flag_at = Instant::now() + flag_in;
    let (mv, thought_ms, info) = match rung.play {
        hex_search::ladder::Play::Random => {
            let mut rng =
                <rand_pcg::Pcg64 as rand_core::SeedableRng>::seed_from_u64(rand::random());
            (
                hex_search::random_move(&l.game.position, &mut rng),
                None,
                None,
            )
        }
        hex_search::ladder::Play::Search { .. } => {
            let job = Job {
                position: l.game.position.clone(),
                rung,
                flag_at,
                clock_cap_ms: clock.first_move[i]
                    .then(|| u64::try_from(clock.remaining_ms[i]).unwrap_or(0)),
                increment_ms: u64::try_from(clock.increment_ms).unwrap_or(0),
                seed: rand::random(),
            };
            let thought = house
                .pool
                .think(job)
                .await
                .map_err(|_| crate::arena::error::ArenaError::internal("house search lost"))?;
            tracing::trace!(set_id, game_no, ?thought, "house thought");
            // Shown only in practice: in a set that counts, the line's next move would be a
            // free hint from the house's search to the opponent.
            let info = (l.set.practice != 0)
                .then(|| thought.info.as_ref().and_then(info::of_search))
                .flatten();
            (thought.mv, Some(thought.thought_ms), info)
        }
    };
    let Some(mv) = mv else { return Ok(()) };
    if house.config.demo {
        pace(arena, house, clock.turn_started_ms, flag_at).await;
    }
    arena
        .play_move(&hb.bot, set_id, game_no, mv, Some(ply + 1), info.as_ref())
        .await?;
    // What the move cost its clock besides thinking: the pool plans the next ones with it.
    // (A free first move is not charged; a random rung does not use the pool.)
    if let (Some(thought_ms), Some(started_ms), false) =
        (thought_ms, clock.turn_started_ms, clock.first_move[i])
    {
        let stored_ms = arena.now_ms();
        let charged_ms = u64::try_from(stored_ms - started_ms).unwrap_or(0);
        house
            .pool
            .record_overhead(charged_ms.saturating_sub(thought_ms), flag_ms - stored_ms);
    }
    Ok(())
}

/// Demo mode: waits until the move has taken at least `demo_think_ms` since the turn began
/// (never closer to the flag than a second).
async fn pace(arena: &Arena, house: &House, turn_started_ms: Option<i64>, flag_at: Instant) {
    let Some(started) = turn_started_ms else {
        return;
    };
    let min = i64::try_from(house.config.demo_think_ms).unwrap_or(0);
    let wait_ms = u64::try_from(started + min - arena.now_ms()).unwrap_or(0);
    let latest = flag_at
        .checked_sub(Duration::from_secs(1))
        .unwrap_or_else(Instant::now);
    let until = (Instant::now() + Duration::from_millis(wait_ms)).min(latest);
    tokio::time::sleep_until(until.into()).await;
}
