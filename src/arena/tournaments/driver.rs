//! The driver: state changes, recording finished sets and pairing the next round.

use super::starting::new_pairing;
use super::views::outcomes_of;
use super::withdraw::withdrawal_forfeit;
use super::*;

impl Arena {
    /// `start`, `pause`, `resume` or `cancel`. Errors: 404; 409 `tournament_state` when the
    /// tournament is not in a state the action applies to (details carry `status`).
    pub async fn tournament_action(&self, id: &str, action: &str) -> ArenaResult<Value> {
        self.transition(id, action, false).await?;
        self.tournament(id).await
    }

    /// The state change of [`Arena::tournament_action`] on a tournament, or on a match when
    /// `is_match` (each kind is not found through the other's routes).
    pub(crate) async fn transition(
        &self,
        id: &str,
        action: &str,
        is_match: bool,
    ) -> ArenaResult<()> {
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        let t = store::get(&mut tx, id, self.store.for_update())
            .await?
            .filter(|t| (t.format == "match") == is_match)
            .ok_or_else(|| not_found(id))?;
        let moves: &[(&str, &str)] = match action {
            "start" => &[("created", "running")],
            "pause" => &[("running", "paused")],
            "resume" => &[("paused", "running")],
            _ => &[
                ("proposed", "cancelled"),
                ("created", "cancelled"),
                ("running", "cancelled"),
                ("paused", "cancelled"),
            ],
        };
        let Some((from, to)) = moves.iter().find(|(f, _)| *f == t.status) else {
            let mut e = state_error(action, &t);
            if action == "start" && t.status == TournamentStatus::Paused {
                e.message = format!(
                    "{}: POST /v1/tournaments/{id}/resume continues it",
                    e.message
                );
            }
            return Err(e);
        };
        if *to == "running"
            && *from == "created"
            && let Some(e) = start_refusal(&mut tx, &t).await?
        {
            return Err(e);
        }
        store::set_status(&mut tx, id, from, to, now).await?;
        if *to == "cancelled" {
            store::cancel_pending(&mut tx, id).await?;
        }
        tx.commit().await?;
        self.tournament_wake.notify_one();
        Ok(())
    }

    /// One driver step for tournament `id`: forfeit the sets a withdrawal left in play (after a
    /// crash), record finished sets, pair the next round when the current one is over (or
    /// finish the tournament), then start pending sets up to `max_concurrent`. Returns whether
    /// anything changed.
    pub async fn drive_tournament(&self, id: &str) -> ArenaResult<bool> {
        let mut changed = self.forfeit_withdrawn(id).await?;
        changed |= self.record_and_pair(id).await?;
        changed |= self.start_pending(id).await?;
        if changed {
            self.tournament_wake.notify_one();
        }
        Ok(changed)
    }

    /// Forfeits the sets still in play whose pairing a withdrawal marked (the withdrawal
    /// commits first, the forfeit after it: a crash between them leaves this to do).
    async fn forfeit_withdrawn(&self, id: &str) -> ArenaResult<bool> {
        let left = {
            let mut c = self.store.conn().await?;
            store::withdrawn_in_play(&mut c, id).await?
        };
        let mut changed = false;
        for (set_id, bot_id) in left {
            changed |= self.forfeit_set(&set_id, &bot_id).await?;
        }
        Ok(changed)
    }

    /// Whether [`Arena::record_and_pair`] has anything to do, read without the write lock so an
    /// idle tournament costs no write transaction: a due start, a finished set to record, or a
    /// round that is over.
    async fn needs_recording(&self, id: &str) -> ArenaResult<bool> {
        let mut c = self.store.conn().await?;
        let Some(t) = store::get(&mut c, id, "").await? else {
            return Ok(false);
        };
        match TournamentStatus::parse(&t.status) {
            Some(TournamentStatus::Created) => {
                if t.start_ms.is_none_or(|s| s > self.now_ms()) {
                    return Ok(false);
                }
                // The scheduled start is refused as `POST .../start` would be: it waits for
                // the operator (the view shows why), and says so once per instance.
                return match start_refusal(&mut c, &t).await? {
                    None => Ok(true),
                    Some(e) => {
                        if held_starts()
                            .lock()
                            .is_ok_and(|mut h| h.insert(id.to_string()))
                        {
                            tracing::warn!(tournament = id, error = %e, "scheduled start held");
                        }
                        Ok(false)
                    }
                };
            }
            // A cancelled tournament still records the sets that were playing (issue 18).
            Some(
                TournamentStatus::Running | TournamentStatus::Paused | TournamentStatus::Cancelled,
            ) => {}
            _ => return Ok(false),
        }
        let pairings = store::pairings(&mut c, id).await?;
        for set_id in pairings
            .iter()
            .filter(|p| p.status == PairingStatus::Playing)
            .filter_map(|p| p.set_id.as_deref())
        {
            if sets::get(&mut c, set_id, "")
                .await?
                .is_some_and(|s| s.status == SetStatus::Finished)
            {
                return Ok(true);
            }
        }
        Ok(t.status == TournamentStatus::Running
            && pairings
                .iter()
                .filter(|p| p.round == t.current_round)
                .all(|p| !PairingStatus::is_in(&p.status, UNDECIDED)))
    }

    async fn record_and_pair(&self, id: &str) -> ArenaResult<bool> {
        if !self.needs_recording(id).await? {
            return Ok(false);
        }
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        let Some(mut t) = store::get(&mut tx, id, self.store.for_update()).await? else {
            return Ok(false);
        };
        let mut changed = false;
        if t.status == TournamentStatus::Created && t.start_ms.is_some_and(|s| s <= now) {
            if start_refusal(&mut tx, &t).await?.is_some() {
                return Ok(false); // refused meanwhile: held (see needs_recording)
            }
            store::set_status(&mut tx, id, "created", "running", now).await?;
            t.status = "running".into();
            changed = true;
        }
        if !TournamentStatus::is_in(
            &t.status,
            &[
                TournamentStatus::Running,
                TournamentStatus::Paused,
                TournamentStatus::Cancelled,
            ],
        ) {
            tx.commit().await?;
            return Ok(changed);
        }
        let mut pairings = store::pairings(&mut tx, id).await?;
        for p in pairings
            .iter_mut()
            .filter(|p| p.status == PairingStatus::Playing)
        {
            let Some(set_id) = p.set_id.clone() else {
                continue;
            };
            let Some(set) = sets::get(&mut tx, &set_id, "").await? else {
                continue;
            };
            if set.status != SetStatus::Finished {
                continue;
            }
            let gs = games::of_set(&mut tx, &set_id).await?;
            let ends: Vec<GameEnd> = gs.iter().map(game_end).collect();
            let [g1, g2] = ends.as_slice() else {
                continue;
            };
            let score = score_set(&[*g1, *g2]);
            // seed1 created the set.
            let c = Side::Creator as usize;
            let a = Side::Acceptor as usize;
            p.status = "finished".into();
            p.points2_1 = set_points2(set.winner_id.as_deref(), &set.creator_id);
            p.points2_2 = 2 - p.points2_1;
            p.games2_1 = score.points2[c];
            p.games2_2 = score.points2[a];
            p.moves_1 = score.tiebreak_moves[c];
            p.moves_2 = score.tiebreak_moves[a];
            let per_game: Vec<i8> = ends
                .iter()
                .map(|g| match g.winner {
                    None => 0,
                    Some(w) if Side::in_seat(g.game_no, w) == Side::Creator => 1,
                    Some(_) => -1,
                })
                .collect();
            p.games_json = Some(json!(per_game).to_string());
            p.finished_ms = Some(now);
            if p.withdrawn_seed.is_some() {
                if gs.iter().all(|g| g.forfeit == 0) {
                    // The set ended by itself before the forfeit reached it: a set like any.
                    p.withdrawn_seed = None;
                } else if gs.iter().all(|g| g.ply == 0) {
                    // Forfeited before anyone moved: unplayed (FIDE), so a forfeit in the
                    // tiebreaks too.
                    p.status = "forfeit".into();
                }
            }
            store::record(&mut tx, p, "playing").await?;
            changed = true;
        }
        if t.status != TournamentStatus::Running {
            tx.commit().await?;
            return Ok(changed);
        }
        let current: Vec<&PairingRow> = pairings
            .iter()
            .filter(|p| p.round == t.current_round)
            .collect();
        let over = current
            .iter()
            .all(|p| !PairingStatus::is_in(&p.status, UNDECIDED));
        if over {
            let entries = store::entries(&mut tx, id).await?;
            let in_play: Vec<bool> = entries.iter().map(|e| !e.withdrawn()).collect();
            if t.current_round >= t.rounds
                || crate::arena::matches::decided(&t, &pairings)
                || nobody_left_to_pair(&t, &in_play)
            {
                store::set_status(&mut tx, id, "running", "finished", now).await?;
                tx.commit().await?;
                tracing::info!(tournament = id, "tournament finished");
                return Ok(true);
            }
            let next = t.current_round + 1;
            let mut present = in_play.clone();
            if t.absent == "skip" {
                for (i, e) in entries.iter().enumerate() {
                    present[i] = present[i] && self.is_online(&mut tx, &e.bot_id).await?;
                }
            }
            let round = next_round(&t, entries.len(), &pairings, next, &present);
            if round.pairs.is_empty() && t.absent == "skip" {
                // Too few bots online to pair anyone: try again on the next tick.
                tx.commit().await?;
                return Ok(changed);
            }
            if !store::insert_round(&mut tx, id, next, now).await? {
                return Ok(changed); // paired already (another instance): roll back
            }
            let gone: HashSet<i64> = entries
                .iter()
                .filter(|e| e.withdrawn())
                .map(|e| e.seed)
                .collect();
            let mut board = 0;
            for &(a, b) in &round.pairs {
                board += 1;
                let mut p = new_pairing(id, next, board, a, Some(b), now);
                if gone.contains(&p.seed1) || p.seed2.is_some_and(|s| gone.contains(&s)) {
                    // A round robin's fixed pairing of a withdrawn bot: won by forfeit.
                    p = withdrawal_forfeit(&p, &gone, now);
                }
                store::insert_pairing(&mut tx, &p).await?;
            }
            if let Some(b) = round.bye {
                board += 1;
                let mut p = new_pairing(id, next, board, b, None, now);
                p.status = "bye".into();
                p.finished_ms = Some(now);
                if t.format == "swiss" {
                    p.points2_1 = 2;
                }
                store::insert_pairing(&mut tx, &p).await?;
            }
            let seated: HashSet<usize> = round
                .pairs
                .iter()
                .flat_map(|&(a, b)| [a, b])
                .chain(round.bye)
                .collect();
            for seed in (0..entries.len()).filter(|s| !seated.contains(s)) {
                if t.format == "round_robin" || t.format == "match" {
                    break; // fixed tables: nobody is left out
                }
                if !in_play[seed] {
                    continue; // withdrawn: no longer in the rounds at all
                }
                board += 1;
                let mut p = new_pairing(id, next, board, seed, None, now);
                p.status = "absent".into();
                p.finished_ms = Some(now);
                store::insert_pairing(&mut tx, &p).await?;
            }
            if store::advance_round(&mut tx, id, t.current_round, next).await? != 1 {
                return Err(ArenaError::unavailable("tournament changed concurrently"));
            }
            tracing::info!(tournament = id, round = next, "round paired");
            changed = true;
        }
        tx.commit().await?;
        Ok(changed)
    }
}

/// Tournaments whose held scheduled start this instance has logged.
fn held_starts() -> &'static std::sync::Mutex<HashSet<String>> {
    static HELD: std::sync::OnceLock<std::sync::Mutex<HashSet<String>>> =
        std::sync::OnceLock::new();
    HELD.get_or_init(Default::default)
}

/// The creator's set points (doubled) from the stored set winner (None: a drawn set).
fn set_points2(winner: Option<&str>, creator_id: &str) -> i64 {
    match winner {
        Some(w) if w == creator_id => 2,
        Some(_) => 0,
        None => 1,
    }
}

fn game_end(g: &crate::store::games::GameRow) -> GameEnd {
    GameEnd {
        game_no: g.game_no,
        winner: g
            .winner_seat
            .and_then(|w| u8::try_from(w).ok())
            .and_then(Seat::from_number),
        ply: g.ply,
    }
}

/// Whether no pairing can be made any more (issue 18): a Swiss with fewer than two bots left in
/// it, a gauntlet whose first bot or whole field withdrew. A round robin plays its fixed rounds
/// out (a withdrawn bot's pairings are forfeits).
fn nobody_left_to_pair(t: &TournamentRow, in_play: &[bool]) -> bool {
    let left = in_play.iter().filter(|&&x| x).count();
    match t.format.as_str() {
        "swiss" => left < 2,
        "gauntlet" => left < 2 || !in_play.first().copied().unwrap_or(false),
        _ => false,
    }
}

/// The pairings of round `next` (1-based) from the rows so far. `present[seed]` says who may be
/// paired (everyone but the withdrawn, and the offline when the tournament skips absent bots).
fn next_round(
    t: &TournamentRow,
    n: usize,
    pairings: &[PairingRow],
    next: i64,
    present: &[bool],
) -> Round {
    let here = |s: usize| present.get(s).copied().unwrap_or(true);
    let idx = usize::try_from(next - 1).unwrap_or(0);
    match t.format.as_str() {
        "round_robin" => {
            let table = pairing::round_robin(n);
            if table.is_empty() {
                return Round::default();
            }
            let cycle = idx / table.len();
            let mut r = table[idx % table.len()].clone();
            if cycle % 2 == 1 {
                // The second cycle swaps who creates each set.
                r.pairs = r.pairs.iter().map(|&(a, b)| (b, a)).collect();
            }
            r
        }
        "gauntlet" => {
            let mut r = pairing::gauntlet(n);
            r.pairs.retain(|&(a, b)| here(a) && here(b));
            if idx % 2 == 1 {
                // Every second cycle swaps who creates each set.
                r.pairs = r.pairs.iter().map(|&(a, b)| (b, a)).collect();
            }
            r
        }
        "match" => crate::arena::matches::next_round(t, pairings),
        _ => {
            let mut players = pairing::swiss_players(n, &outcomes_of(t, pairings));
            players.retain(|p| here(p.seed));
            pairing::swiss(&players)
        }
    }
}

/// Runs for the life of the process: drives every tournament with work each second, and at once
/// when a set finishes or a tournament changes.
pub async fn run(arena: Arc<Arena>) {
    let mut rx = arena.changes.subscribe_listed();
    let mut backoff =
        crate::arena::backoff::Backoff::new("tournament driver", crate::arena::backoff::MAX);
    loop {
        if arena.store.health.is_down() {
            // Every step writes: wait for the storage to come back.
            tokio::time::sleep(crate::store::health::PROBE_MAX).await;
            continue;
        }
        let ids = async {
            let mut c = arena.store.conn().await?;
            store::due(&mut c, arena.now_ms()).await
        }
        .await;
        match ids {
            // Forfeits and start times are judged on the clock: not while it is untrusted.
            Ok(_) if arena.clock.unsynced().is_some() => {}
            Ok(ids) => {
                let mut failed = None;
                for id in ids {
                    if let Err(e) = arena.drive_tournament(&id).await {
                        failed.get_or_insert(format!("tournament {id}: {e}"));
                    }
                }
                match failed {
                    None => backoff.succeeded(),
                    Some(e) => tokio::time::sleep(backoff.failed(&e)).await,
                }
            }
            Err(e) => tokio::time::sleep(backoff.failed(&e)).await,
        }
        let until = tokio::time::Instant::now() + Duration::from_secs(1);
        loop {
            tokio::select! {
                () = tokio::time::sleep_until(until) => break,
                () = arena.tournament_wake.notified() => break,
                r = rx.recv() => match r {
                    // A set finished (set-level change): its tournament may move on.
                    Ok(c) if c.game_no.is_none() => break,
                    Ok(_) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => break,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                },
            }
        }
    }
}
