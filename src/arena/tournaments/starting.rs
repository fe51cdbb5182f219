//! Starting a round's pending sets up to `max_concurrent`, and forfeits for absent bots.

use super::withdraw::absence_streak;
use super::*;

impl Arena {
    /// Starts pending sets of the current round while fewer than `max_concurrent` play, when both
    /// bots are online; forfeits an absent bot after `forfeit_after_ms` when the tournament says
    /// so, and withdraws a bot after [`ABSENT_FORFEITS_TO_WITHDRAW`] such forfeits in a row.
    pub(super) async fn start_pending(&self, id: &str) -> ArenaResult<bool> {
        let (t, pairings, entries) = {
            let mut c = self.store.conn().await?;
            let Some(t) = store::get(&mut c, id, "").await? else {
                return Ok(false);
            };
            (
                t,
                store::pairings(&mut c, id).await?,
                store::entries(&mut c, id).await?,
            )
        };
        if t.status != TournamentStatus::Running {
            return Ok(false);
        }
        let mut playing = pairings
            .iter()
            .filter(|p| p.status == PairingStatus::Playing)
            .count() as i64;
        let mut changed = false;
        for p in pairings
            .iter()
            .filter(|p| p.status == PairingStatus::Pending && p.round == t.current_round)
        {
            if playing >= t.max_concurrent {
                break;
            }
            let (Some(e1), Some(e2)) = (entry(&entries, Some(p.seed1)), entry(&entries, p.seed2))
            else {
                continue;
            };
            let (on1, on2) = {
                let mut c = self.store.conn().await?;
                (
                    self.is_online(&mut c, &e1.bot_id).await?,
                    self.is_online(&mut c, &e2.bot_id).await?,
                )
            };
            let now = self.now_ms();
            let step = if on1 && on2 {
                match self.start_pairing(&t, p, &e1.bot_id, &e2.bot_id).await {
                    Ok(Step::Done) => {
                        playing += 1;
                        Step::Done
                    }
                    Ok(s) => s,
                    Err(e) => {
                        tracing::warn!(tournament = id, round = p.round, board = p.board, error = %e, "pairing could not start");
                        Step::Skipped
                    }
                }
            } else if t.absent == "forfeit" && now - p.created_ms >= t.forfeit_after_ms {
                self.forfeit_absent(&t, p, (&e1.bot_id, &e2.bot_id), (on1, on2))
                    .await?
            } else {
                Step::Skipped
            };
            match step {
                Step::Done => changed = true,
                Step::Skipped => {}
                Step::Halted => break,
            }
        }
        Ok(changed)
    }

    /// Forfeits pairing `p`, whose window is over with a bot absent (`online`: seat 1, seat 2
    /// now), in one transaction on the locked tournament row: `Halted` unless it is running.
    #[doc(hidden)]
    pub async fn forfeit_absent(
        &self,
        t: &TournamentRow,
        p: &PairingRow,
        bots: (&str, &str),
        online: (bool, bool),
    ) -> ArenaResult<Step> {
        let id = t.id.as_str();
        let (on1, on2) = online;
        // A bot that showed up during the window (before a restart, say) is not the
        // absent one; if one is online now, it alone wins. A double forfeit means
        // neither showed up at all (SPEC 14).
        let (seen1, seen2) = {
            let mut c = self.store.conn().await?;
            (
                self.seen_since(&mut c, bots.0, p.created_ms).await?,
                self.seen_since(&mut c, bots.1, p.created_ms).await?,
            )
        };
        let (win1, win2) = forfeit_winners(on1, on2, seen1, seen2);
        let now = self.now_ms();
        let f = super::withdraw::forfeited(p, win1, win2, now);
        let mut tx = self.store.begin_write().await?;
        let Some(t) = store::get(&mut tx, id, self.store.for_update()).await? else {
            return Ok(Step::Halted);
        };
        if t.status != TournamentStatus::Running {
            return Ok(Step::Halted); // paused or cancelled meanwhile
        }
        if store::record(&mut tx, &f, "pending").await? != 1 {
            return Ok(Step::Skipped); // decided meanwhile (a withdrawal, another instance)
        }
        // Repeated absence (issue 18): the bot has gone; spare the field its windows.
        let all = store::pairings(&mut tx, id).await?;
        for (seed, won) in [(f.seed1, win1), (f.seed2.unwrap_or(f.seed1), win2)] {
            // Not before the round's other boards of this bot are judged alike (a gauntlet).
            let waiting = all.iter().any(|q| {
                q.round == p.round
                    && q.status == PairingStatus::Pending
                    && (q.seed1 == seed || q.seed2 == Some(seed))
            });
            if !won && !waiting && absence_streak(&all, seed) >= ABSENT_FORFEITS_TO_WITHDRAW {
                self.withdraw_in(&mut tx, &t, seed, "absence", InPlay::Finish, now)
                    .await?;
                tracing::info!(
                    tournament = id,
                    seed,
                    "participant withdrawn after repeated absence"
                );
            }
        }
        tx.commit().await?;
        tracing::info!(
            tournament = id,
            round = p.round,
            board = p.board,
            "pairing forfeited"
        );
        Ok(Step::Done)
    }

    /// Starts one pairing's set and links it, in one transaction on the locked tournament row:
    /// `Halted` unless the tournament is running with fewer than `max_concurrent` sets playing,
    /// `Skipped` when someone else claimed it.
    #[doc(hidden)]
    pub async fn start_pairing(
        &self,
        t: &TournamentRow,
        p: &PairingRow,
        creator_id: &str,
        acceptor_id: &str,
    ) -> ArenaResult<Step> {
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        // The lock orders this claim against pause and cancel (SQLite: BEGIN IMMEDIATE does).
        let Some(t) = store::get(&mut tx, &t.id, self.store.for_update()).await? else {
            return Ok(Step::Halted);
        };
        if t.status != TournamentStatus::Running
            || store::playing_count(&mut tx, &t.id).await? >= t.max_concurrent
        {
            return Ok(Step::Halted); // paused, or full (another instance started one)
        }
        let creator = acc::bot_by_ref(&mut tx, creator_id)
            .await?
            .ok_or_else(|| ArenaError::internal("tournament bot missing"))?;
        let acceptor = acc::bot_by_ref(&mut tx, acceptor_id)
            .await?
            .ok_or_else(|| ArenaError::internal("tournament bot missing"))?;
        for (b, seed) in [(&creator, p.seed1), (&acceptor, p.seed2.unwrap_or(p.seed1))] {
            if b.retired_ms.is_some() {
                // Retired and still entered (issue 20): no new set; withdrawn as retiring does.
                self.withdraw_in(&mut tx, &t, seed, "retired", InPlay::Finish, now)
                    .await?;
                tx.commit().await?;
                tracing::info!(tournament = %t.id, bot = %b.name, "retired participant withdrawn");
                return Ok(Step::Done);
            }
        }
        if t.stake > 0 {
            // A bot that cannot pay or is suspended cannot play: it loses by forfeit, as an
            // absent bot would (docs/operators.md), rather than holding the round up.
            let can1 = self.can_stake(&mut tx, &creator, t.stake).await?;
            let can2 = self.can_stake(&mut tx, &acceptor, t.stake).await?;
            if !(can1 && can2) {
                let f = super::withdraw::forfeited(p, can1, can2, now);
                if store::record(&mut tx, &f, "pending").await? != 1 {
                    return Ok(Step::Skipped);
                }
                tx.commit().await?;
                tracing::info!(tournament = %t.id, round = p.round, board = p.board,
                    creator_can_play = can1, acceptor_can_play = can2,
                    "pairing forfeited: a bot cannot pay the stake or is suspended");
                return Ok(Step::Done);
            }
        }
        let req = NewSet {
            options: GameOptions {
                size: t.size,
                random_stones: t.random_stones,
            },
            initial_ms: t.initial_ms,
            increment_ms: t.increment_ms,
            stake: t.stake,
            opponent: Some(acceptor.name.clone()),
            rated: t.rated != 0,
            practice: false,
            pool: false,
        };
        let (view, fx) = self
            .start_now_in(&mut tx, &creator, &acceptor, req, now)
            .await?;
        let set_id = view["id"].as_str().unwrap_or_default().to_string();
        if store::claim(&mut tx, p, &set_id).await? != 1 {
            return Ok(Step::Skipped); // rolled back: the pairing was no longer pending
        }
        fx.commit(tx, self, now).await?;
        tracing::info!(tournament = %t.id, round = p.round, board = p.board, set_id, "tournament set started");
        Ok(Step::Done)
    }
}

impl Arena {
    /// Whether bot `b` may play a set of `stake` now: not suspended, its owner's balance enough.
    async fn can_stake(
        &self,
        c: &mut crate::store::Conn,
        b: &acc::BotRow,
        stake: i64,
    ) -> ArenaResult<bool> {
        if self.strikes(c, &b.id).await?.1.is_some() {
            return Ok(false); // suspended
        }
        let balance = acc::player_by_id(c, &b.owner_id)
            .await?
            .map_or(0, |p| p.balance);
        Ok(balance >= stake)
    }
}

fn entry(entries: &[EntryRow], seed: Option<i64>) -> Option<&EntryRow> {
    entries.iter().find(|e| Some(e.seed) == seed)
}

pub(super) fn new_pairing(
    id: &str,
    round: i64,
    board: i64,
    a: usize,
    b: Option<usize>,
    now: i64,
) -> PairingRow {
    PairingRow {
        tournament_id: id.to_string(),
        round,
        board,
        seed1: a as i64,
        seed2: b.map(|b| b as i64),
        status: "pending".into(),
        set_id: None,
        points2_1: 0,
        points2_2: 0,
        games2_1: 0,
        games2_2: 0,
        moves_1: 0,
        moves_2: 0,
        games_json: None,
        created_ms: now,
        finished_ms: None,
        withdrawn_seed: None,
    }
}

/// Who wins a forfeited pairing (seat 1, seat 2): the bot online now, else every bot seen
/// during the window; nobody when neither showed up (SPEC 14).
#[must_use]
pub fn forfeit_winners(on1: bool, on2: bool, seen1: bool, seen2: bool) -> (bool, bool) {
    if on1 || on2 {
        (on1, on2)
    } else {
        (seen1, seen2)
    }
}
