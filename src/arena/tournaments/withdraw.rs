//! Withdrawing a participant from a running tournament (issue 18) and the forfeits it makes.

use super::views::withdrawn_json;
use super::*;
use crate::store::Conn;

/// Pairing `p` decided by forfeit at `now`: a side that wins (`win1`, `win2`) scores the set
/// (2 half-points) and both its games; a side that does not scores nothing. Neither winning is
/// a double forfeit.
pub(super) fn forfeited(p: &PairingRow, win1: bool, win2: bool, now: i64) -> PairingRow {
    let mut f = p.clone();
    f.status = "forfeit".into();
    f.points2_1 = if win1 { 2 } else { 0 };
    f.points2_2 = if win2 { 2 } else { 0 };
    f.games2_1 = 2 * f.points2_1;
    f.games2_2 = 2 * f.points2_2;
    f.finished_ms = Some(now);
    f
}

/// The forfeit a withdrawal makes of pairing `p` (issue 18): won by the side still in the
/// tournament (2-0 in games), a double forfeit when both sides are in `gone`.
pub(super) fn withdrawal_forfeit(p: &PairingRow, gone: &HashSet<i64>, now: i64) -> PairingRow {
    let out1 = gone.contains(&p.seed1);
    let out2 = p.seed2.is_none_or(|s| gone.contains(&s));
    let mut f = forfeited(p, !out1, !out2, now);
    f.withdrawn_seed = Some(if out1 {
        p.seed1
    } else {
        p.seed2.unwrap_or(p.seed1)
    });
    f
}

impl Arena {
    /// Withdraws bot `bot_ref` from a running or paused tournament (issue 18). Its entry, seed and
    /// results stay (standings mark it); no later round pairs it: a Swiss or gauntlet leaves it
    /// out, a round robin scores its remaining pairings as forfeits won by the opponents. Its
    /// pairing of the current round that has not started is forfeited to the opponent; its set
    /// in play finishes (`Finish`) or is forfeited at once (`Forfeit`).
    /// Errors: 404 unknown tournament or bot; 409 `tournament_state` unless running or paused,
    /// `not_participant`, `already_withdrawn`.
    pub async fn withdraw(&self, id: &str, bot_ref: &str, in_play: InPlay) -> ArenaResult<Value> {
        self.withdraw_by(id, bot_ref, in_play, "operator").await
    }

    /// [`Arena::withdraw`], recording who withdrew the bot (`withdrawn.by`): `operator`, or
    /// `retired` when its owner retired it (issue 20).
    pub(crate) async fn withdraw_by(
        &self,
        id: &str,
        bot_ref: &str,
        in_play: InPlay,
        by: &str,
    ) -> ArenaResult<Value> {
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        let t = store::get(&mut tx, id, self.store.for_update())
            .await?
            .filter(|t| t.format != "match")
            .ok_or_else(|| not_found(id))?;
        let b = acc::bot_by_ref(&mut tx, bot_ref)
            .await?
            .ok_or_else(|| ArenaError::not_found(format!("no bot '{bot_ref}'")))?;
        if t.status == TournamentStatus::Created {
            return Err(ArenaError::new(
                Code::TournamentState,
                format!(
                    "the tournament has not started: remove {} with \
                     DELETE /v1/tournaments/{id}/participants/{}",
                    b.name, b.name
                ),
            )
            .with_details(json!({"status": t.status})));
        }
        if !TournamentStatus::is_in(
            &t.status,
            &[TournamentStatus::Running, TournamentStatus::Paused],
        ) {
            return Err(state_error("withdraw from", &t));
        }
        let entries = store::entries(&mut tx, id).await?;
        let Some(e) = entries.iter().find(|e| e.bot_id == b.id) else {
            return Err(not_participant(&b.name));
        };
        if e.withdrawn() {
            return Err(ArenaError::new(
                Code::AlreadyWithdrawn,
                format!("{} was withdrawn already", b.name),
            )
            .with_details(json!({"bot": b.name, "withdrawn": withdrawn_json(e)})));
        }
        let sets = self
            .withdraw_in(&mut tx, &t, e.seed, by, in_play, now)
            .await?;
        tx.commit().await?;
        tracing::info!(tournament = id, bot = %b.name, ?in_play, "participant withdrawn");
        let forfeits = !sets.is_empty();
        for set_id in sets {
            // The withdrawal stands either way: if the forfeit fails now, the driver retries it.
            if let Err(e) = self.forfeit_set(&set_id, &b.id).await {
                tracing::warn!(tournament = id, set_id, error = %e, "forfeit left to the driver");
            }
        }
        if forfeits && self.clock.unsynced().is_none() {
            // The answer shows the forfeited set recorded (its pairing decided, its points in
            // the standings), as the driver's next step would; it is idempotent, so a driver
            // step running beside it records nothing twice. A failure, or a clock the driver
            // would not trust either (absence forfeits are judged on it), leaves it to the
            // driver.
            if let Err(e) = self.drive_tournament(id).await {
                tracing::warn!(tournament = id, error = %e, "recording left to the driver");
            }
        }
        self.tournament_wake.notify_one();
        self.tournament(id).await
    }

    /// The withdrawal of seed `seed` inside `tx` (the tournament row `t` locked): its entry is
    /// marked; its pending pairings become forfeits won by their opponents; with
    /// [`InPlay::Forfeit`] its playing pairing is marked for the forfeit of its set, whose id is
    /// returned (the caller forfeits it after the commit; the driver does it after a crash).
    pub(super) async fn withdraw_in(
        &self,
        tx: &mut Conn,
        t: &TournamentRow,
        seed: i64,
        by: &str,
        in_play: InPlay,
        now: i64,
    ) -> ArenaResult<Vec<String>> {
        store::withdraw_entry(tx, &t.id, seed, t.current_round, by, now).await?;
        let gone: HashSet<i64> = store::entries(tx, &t.id)
            .await?
            .iter()
            .filter(|e| e.withdrawn())
            .map(|e| e.seed)
            .collect();
        let involves =
            |p: &PairingRow| p.seed2.is_some() && (p.seed1 == seed || p.seed2 == Some(seed));
        for p in store::pairings(tx, &t.id)
            .await?
            .iter()
            .filter(|p| p.status == PairingStatus::Pending && involves(p))
        {
            store::record(tx, &withdrawal_forfeit(p, &gone, now), "pending").await?;
        }
        // Read again: a set that started meanwhile is now `playing` (its claim won the row).
        let mut sets = vec![];
        for p in store::pairings(tx, &t.id)
            .await?
            .iter()
            .filter(|p| p.status == PairingStatus::Playing && involves(p))
        {
            if in_play == InPlay::Forfeit && store::mark_withdrawn(tx, p, seed).await? == 1 {
                sets.extend(p.set_id.clone());
            }
        }
        Ok(sets)
    }
}

/// How many rounds in a row, up to the last one decided, seed `seed` lost by forfeit because
/// it was absent (a withdrawal's forfeits and won forfeits end the streak; byes are skipped). A
/// round counts once, however many boards it had (a gauntlet's first bot): one missed window.
#[must_use]
pub fn absence_streak(pairings: &[PairingRow], seed: i64) -> usize {
    let mut streak = 0;
    let mut last_round = None;
    for p in pairings
        .iter()
        .filter(|p| p.seed2.is_some() && (p.seed1 == seed || p.seed2 == Some(seed)))
        .filter(|p| PairingStatus::is_in(&p.status, DECIDED))
        .rev()
    {
        let mine = if p.seed1 == seed {
            p.points2_1
        } else {
            p.points2_2
        };
        if p.status != PairingStatus::Forfeit || p.withdrawn_seed.is_some() || mine != 0 {
            break;
        }
        if last_round != Some(p.round) {
            streak += 1;
            last_round = Some(p.round);
        }
    }
    streak
}
