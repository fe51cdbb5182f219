//! Glicko-2 on upgrade (issue 20): the first start of a build with the Glicko-2 migration
//! computes every bot's figures from the stored rated sets, once, in one transaction.
//! Elo (`rating`) is not touched: it is the contract's rating and was kept all along.

use super::Arena;
use super::error::ArenaResult;
use super::glicko::{self, Glicko, ReplaySet};
use super::house::{HOUSE_SEED_DEVIATION, SEED_RATINGS};
use crate::store::accounts as acc;
use crate::store::sets::{self, GlickoMove};

/// The `rating_replays` row of this replay.
const REPLAY: &str = "glicko2";

/// What the replay did: sets rated, bots given figures, damaged sets left out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplayReport {
    pub sets: usize,
    pub bots: usize,
    pub skipped: usize,
}

/// Where a bot starts in the replay: a house bot of the ladder at its seed (the rating its
/// measured strength gives, with [`HOUSE_SEED_DEVIATION`]), every other bot at the start.
fn start_of(house: bool, name: &str) -> Glicko {
    match SEED_RATINGS.iter().find(|(n, _)| *n == name) {
        Some(&(_, seed)) if house => Glicko {
            rating: seed,
            deviation: HOUSE_SEED_DEVIATION,
            ..Glicko::START
        },
        _ => Glicko::START,
    }
}

fn moved(c: glicko::SideChange) -> GlickoMove {
    GlickoMove {
        rating_before: c.before.rating,
        deviation_before: c.before.deviation,
        rating_after: c.after.rating,
        deviation_after: c.after.deviation,
    }
}

impl Arena {
    /// Replays every finished rated set through Glicko-2 in `finished_ms` order (then set
    /// id), if this database still owes it: each bot's figures and each set's history
    /// columns are written, and the replay is marked done in the same transaction, so it
    /// runs once whichever instance starts first. None when there was nothing owed.
    ///
    /// Errors: the database's.
    pub async fn replay_glicko_once(&self) -> ArenaResult<Option<ReplayReport>> {
        let mut tx = self.store.begin_write().await?;
        if !acc::claim_replay(&mut tx, REPLAY, self.now_ms()).await? {
            return Ok(None);
        }
        let starts: std::collections::HashMap<String, Glicko> = acc::bot_names(&mut tx)
            .await?
            .into_iter()
            .map(|b| {
                let g = start_of(b.house != 0, &b.name);
                (b.id, g)
            })
            .collect();
        let rows: Vec<ReplaySet> = sets::rated_sets_in_order(&mut tx)
            .await?
            .into_iter()
            .map(|r| ReplaySet {
                set_id: r.id,
                creator_id: r.creator_id,
                acceptor_id: r.acceptor_id,
                winner_id: r.winner_id,
                finished_ms: r.finished_ms,
            })
            .collect();
        let done = glicko::replay(&rows, |id| starts.get(id).copied().unwrap_or_default());
        for (set_id, creator, acceptor) in &done.sets {
            sets::record_glicko(&mut tx, set_id, moved(*creator), moved(*acceptor)).await?;
        }
        for (bot_id, (g, at_ms)) in &done.bots {
            acc::record_glicko(&mut tx, bot_id, g.stored(), *at_ms).await?;
        }
        tx.commit().await?;
        for id in &done.skipped {
            tracing::warn!(set_id = %id, "rated set whose winner is neither side: left out of the Glicko-2 replay");
        }
        Ok(Some(ReplayReport {
            sets: done.sets.len(),
            bots: done.bots.len(),
            skipped: done.skipped.len(),
        }))
    }
}
