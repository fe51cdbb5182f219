//! Demo mode (`hexarena demo` or `--demo`, issue 11): house bots of neighbouring rungs play
//! staked, rated sets against each other, one set at a time and always one running, walking
//! up the ladder pair by pair (random-novice, novice-club, ..., then from the bottom again).
//! Each move takes at least [`super::HouseConfig::demo_think_ms`] (the driver paces it), so a
//! set lasts a few minutes and the front page always shows a fresh live game.

use std::sync::Arc;
use std::time::Duration;

use super::House;
use crate::arena::Arena;
use crate::arena::options::GameOptions;
use crate::arena::sets::NewSet;
use crate::store::StoreError;
use crate::store::sets;
use crate::store::status::SetStatus;

/// How often the running demo set is checked.
const CHECK_EVERY: Duration = Duration::from_secs(1);
/// Clock of a demo set: 60 s + 2 s a move (SPEC 7's default).
const DEMO_CLOCK_MS: (i64, i64) = (60_000, 2_000);
/// Stake of a demo set.
const DEMO_STAKE: i64 = 10;

/// The `k`-th demo pairing on a ladder of `rungs`: indices (weaker, stronger) of two
/// neighbouring rungs, cycling from the bottom pair to the top one.
#[must_use]
pub fn pairing(k: usize, rungs: usize) -> (usize, usize) {
    let pairs = rungs.saturating_sub(1).max(1);
    let lo = k % pairs;
    (lo, lo + 1)
}

/// Keeps one demo set running until the process ends.
pub async fn run(arena: Arc<Arena>, house: Arc<House>) {
    if house.bots.len() < 2 {
        return;
    }
    let mut current = running_demo(&arena, &house).await;
    let mut k = 0;
    loop {
        let active = match &current {
            Some(id) => {
                let status = async {
                    let mut c = arena.store.conn().await?;
                    Ok::<_, StoreError>(sets::get(&mut c, id, "").await?.map(|s| s.status))
                };
                // Unknown while the database is busy: assume it still runs.
                status
                    .await
                    .map_or(true, |s| s.is_some_and(|s| s == SetStatus::Active))
            }
            None => false,
        };
        if !active {
            let (lo, hi) = pairing(k, house.bots.len());
            // Alternate the creator so each rung plays first in game 1 as often as second.
            let (creator, acceptor) = if (k / (house.bots.len() - 1)).is_multiple_of(2) {
                (&house.bots[hi].bot, &house.bots[lo].bot)
            } else {
                (&house.bots[lo].bot, &house.bots[hi].bot)
            };
            k += 1;
            let req = NewSet {
                options: GameOptions::default(),
                initial_ms: DEMO_CLOCK_MS.0,
                increment_ms: DEMO_CLOCK_MS.1,
                stake: DEMO_STAKE,
                opponent: Some(acceptor.name.clone()),
                rated: true,
                practice: false,
                pool: false,
            };
            match arena.start_now(creator, acceptor, req).await {
                Ok(set) => {
                    tracing::info!(set_id = %set["id"], creator = %creator.name,
                        acceptor = %acceptor.name, "demo set started");
                    current = set["id"].as_str().map(str::to_string);
                }
                Err(e) => tracing::warn!(error = %e, "demo set could not start"),
            }
        }
        tokio::time::sleep(CHECK_EVERY).await;
    }
}

/// A demo set already running (after a restart): an active set between two house bots.
async fn running_demo(arena: &Arena, house: &House) -> Option<String> {
    let mut c = arena.store.conn().await.ok()?;
    for hb in &house.bots {
        let rows = sets::list(&mut c, Some("active"), Some(&hb.bot.id), None, 20)
            .await
            .ok()?;
        if let Some(s) = rows.iter().find(|s| {
            house.is_house(&s.creator_id)
                && s.acceptor_id.as_deref().is_some_and(|a| house.is_house(a))
        }) {
            return Some(s.id.clone());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::pairing;

    #[test]
    fn demo_pairings_are_neighbours_walking_up_the_ladder() {
        let seen: Vec<(usize, usize)> = (0..6).map(|k| pairing(k, 5)).collect();
        assert_eq!(seen, [(0, 1), (1, 2), (2, 3), (3, 4), (0, 1), (1, 2)]);
        assert_eq!(pairing(3, 2), (0, 1));
    }
}
