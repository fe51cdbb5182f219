//! House bots take the lobby challenges nobody else takes (issue 11): an open challenge that
//! has waited [`super::HouseConfig::lobby_wait_ms`] without an acceptor is accepted by the
//! house bot whose rating is nearest the challenger's, unstaked ones always and staked ones
//! within that house bot's `max_stake`, and never while the house is busy
//! ([`Arena::house_admit`]). Challenges made by house bots are left alone.
//!
//! The lobby is read only after a lobby change was heard (or a resync), and again each second
//! while a challenge is still waiting out its time.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::{House, HouseBot};
use crate::arena::Arena;
use crate::arena::error::{ArenaResult, Code};
use crate::store::accounts as acc;
use crate::store::sets;

/// Most open sets read per look at the lobby (newest first).
const LOBBY_PAGE: i64 = 200;

/// Called every driver tick: looks at the lobby when something may be waiting.
pub fn tick(arena: &Arc<Arena>, house: &Arc<House>) {
    let Some(wait_ms) = house.config.lobby_wait_ms else {
        return;
    };
    if !house.lobby_dirty.swap(false, Ordering::Relaxed) {
        return;
    }
    if house.lobby_scanning.swap(true, Ordering::Acquire) {
        house.lobby_dirty.store(true, Ordering::Relaxed);
        return;
    }
    let (a, h) = (arena.clone(), house.clone());
    tokio::spawn(async move {
        let waiting = match scan(&a, &h, wait_ms).await {
            Ok(w) => w,
            Err(e) => {
                tracing::warn!(error = %e, "house look at the lobby failed");
                true
            }
        };
        if waiting {
            h.lobby_dirty.store(true, Ordering::Relaxed);
        }
        h.lobby_scanning.store(false, Ordering::Release);
    });
}

/// Accepts every lobby challenge older than `wait_ms` that a house bot may take; returns true
/// when some challenge is still waiting (too young, or the house is busy).
async fn scan(arena: &Arena, house: &House, wait_ms: i64) -> ArenaResult<bool> {
    let open = {
        let mut c = arena.store.conn().await?;
        sets::list(&mut c, Some("open"), None, None, LOBBY_PAGE).await?
    };
    let now = arena.now_ms();
    let mut waiting = false;
    // Oldest first: the longest-waiting challenger is served first.
    for s in open.iter().rev().filter(|s| s.opponent_id.is_none()) {
        if house.is_house(&s.creator_id) || !house.owns(arena, &s.id) {
            continue;
        }
        if now - s.created_ms < wait_ms {
            waiting = true;
            continue;
        }
        // Held until the accept is stored, so the check and the new game are one step.
        let admitted = match arena
            .house_admit(s.initial_ms, s.increment_ms, s.size)
            .await
        {
            Ok(g) => g,
            // A clock the house can never pay on that board: left to other bots.
            Err(e) if e.is(Code::ClockTooFastForHouse) => continue,
            Err(_) => {
                waiting = true;
                continue;
            }
        };
        let (challenger, bots) = {
            let mut c = arena.store.conn().await?;
            let challenger = acc::bot_by_ref(&mut c, &s.creator_id).await?;
            let mut bots = Vec::with_capacity(house.bots.len());
            for hb in &house.bots {
                if let Some(b) = acc::bot_by_ref(&mut c, &hb.bot.id).await? {
                    bots.push((hb, b.rating));
                }
            }
            (challenger, bots)
        };
        let Some(challenger) = challenger else {
            continue;
        };
        let Some(hb) = nearest(&bots, challenger.rating, s.stake) else {
            continue;
        };
        match arena.accept_set(&hb.bot, &s.id).await {
            Ok(_) => tracing::info!(
                bot = %hb.bot.name, set_id = %s.id, "house bot accepts a lobby challenge"
            ),
            Err(e) => tracing::info!(
                bot = %hb.bot.name, set_id = %s.id, error = %e, "house bot cannot accept"
            ),
        }
        drop(admitted);
    }
    Ok(waiting)
}

/// The house bot whose rating is nearest `rating` among those whose `max_stake` covers
/// `stake` (the weaker rung on a tie).
fn nearest<'a>(bots: &[(&'a HouseBot, f64)], rating: f64, stake: i64) -> Option<&'a HouseBot> {
    bots.iter()
        .filter(|(hb, _)| stake <= hb.bot.max_stake)
        .min_by(|(a, ra), (b, rb)| {
            (ra - rating)
                .abs()
                .total_cmp(&(rb - rating).abs())
                .then(a.rung_no.cmp(&b.rung_no))
        })
        .map(|(hb, _)| *hb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::accounts::BotRow;

    fn hb(name: &'static str, rung_no: usize, max_stake: i64) -> HouseBot {
        HouseBot {
            bot: BotRow {
                id: format!("bot_{name}"),
                name: name.into(),
                max_stake,
                ..BotRow::default()
            },
            rung: hex_search::ladder::rung(name),
            outside: None,
            rung_no,
        }
    }

    #[test]
    fn the_nearest_rating_within_the_stake_is_chosen() {
        let (r, c, m) = (
            hb("house-random", 1, 1000),
            hb("house-club", 3, 1000),
            hb("house-master", 5, 100),
        );
        let bots = [(&r, 900.0), (&c, 1200.0), (&m, 1500.0)];
        assert_eq!(nearest(&bots, 1000.0, 0).map(|b| b.rung_no), Some(1));
        assert_eq!(nearest(&bots, 1300.0, 0).map(|b| b.rung_no), Some(3));
        assert_eq!(nearest(&bots, 1450.0, 50).map(|b| b.rung_no), Some(5));
        // Above the master's max_stake: the nearest that may take it.
        assert_eq!(nearest(&bots, 1450.0, 500).map(|b| b.rung_no), Some(3));
        // A tie goes to the weaker rung.
        assert_eq!(nearest(&bots, 1050.0, 0).map(|b| b.rung_no), Some(1));
        assert!(nearest(&bots, 1000.0, 5000).is_none());
    }
}
