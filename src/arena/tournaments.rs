//! Tournaments run by the operator (issue 12, SPEC 14): round robin, Swiss and gauntlet, with
//! pairings made by the server, sets started up to `max_concurrent`, standings and a crosstable.
//!
//! Everything is rows: a driver task on every instance ([`run`]) looks at the tournaments that
//! have work every second, or at once when a set finishes, and each step is one transaction on
//! the locked tournament row. A round is claimed by inserting its `tournament_rounds` row (primary
//! key): it is never paired twice, and a restart continues where the rows say.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use hex::Seat;
use serde_json::{Value, json};

use super::Arena;
use super::error::{ArenaError, ArenaResult};
use super::pairing::{self, Round};
use super::scoring::{GameEnd, Side, score_set};
use super::sets::{GameOptions, NewSet};
use super::standings::{self, Kind, Outcome};
use super::views::{opt_time, rfc3339};
use crate::store::accounts as acc;
use crate::store::games;
use crate::store::sets;
use crate::store::tournaments::{self as store, EntryRow, PairingRow, TournamentRow};

/// Tournament formats.
pub const FORMATS: [&str; 3] = ["round_robin", "swiss", "gauntlet"];
/// Most participants of one tournament.
pub const MAX_PARTICIPANTS: usize = 64;
/// Default `max_concurrent`.
pub const DEFAULT_MAX_CONCURRENT: i64 = 4;
/// Default wait before a pairing with an absent bot is forfeited (absent = forfeit), seconds.
pub const DEFAULT_FORFEIT_AFTER_S: i64 = 120;

/// A validated tournament request (the API layer parses the body).
#[derive(Debug, Clone)]
pub struct NewTournament {
    pub name: String,
    /// One of [`FORMATS`].
    pub format: String,
    /// Round robin and gauntlet: how many times each pairing is played (1 or 2).
    pub cycles: i64,
    /// Swiss: rounds to play.
    pub rounds: Option<i64>,
    /// Bot names or ids in seed order (a gauntlet's first is the bot that meets the field).
    pub participants: Vec<String>,
    pub options: GameOptions,
    pub initial_ms: i64,
    pub increment_ms: i64,
    pub stake: i64,
    pub rated: bool,
    pub max_concurrent: i64,
    /// `wait` or `forfeit`.
    pub absent: String,
    pub forfeit_after_ms: i64,
    pub start_ms: Option<i64>,
}

fn bad(field: &str, msg: impl Into<String>) -> ArenaError {
    ArenaError::bad_request(msg).with_details(json!({"field": field}))
}

fn not_found(id: &str) -> ArenaError {
    ArenaError::not_found(format!("no tournament '{id}'"))
}

impl Arena {
    /// Creates a tournament (status `created`; it starts on `start` or at `start_at`).
    /// Errors: 400 `bad_request` naming the field; 404 for an unknown participant.
    pub async fn create_tournament(&self, req: NewTournament) -> ArenaResult<Value> {
        let n = req.participants.len();
        if !(2..=MAX_PARTICIPANTS).contains(&n) {
            return Err(bad(
                "participants",
                format!("a tournament needs 2 to {MAX_PARTICIPANTS} participants"),
            ));
        }
        NewSet {
            options: req.options,
            initial_ms: req.initial_ms,
            increment_ms: req.increment_ms,
            stake: req.stake,
            opponent: None,
            rated: req.rated,
            practice: false,
        }
        .check_stake()?;
        let rounds = match req.format.as_str() {
            "round_robin" => (n - 1 + n % 2) as i64 * req.cycles,
            "gauntlet" => req.cycles,
            _ => req
                .rounds
                .ok_or_else(|| bad("rounds", "a swiss needs 'rounds'"))?,
        };
        if req.format == "swiss" && !(1..=(n as i64 - 1).max(1)).contains(&rounds) {
            return Err(bad(
                "rounds",
                format!("a swiss of {n} bots plays 1 to {} rounds", n - 1),
            ));
        }
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        let mut seen = HashSet::new();
        let mut owners = std::collections::HashMap::new();
        let mut entries = Vec::with_capacity(n);
        for (seed, r) in req.participants.iter().enumerate() {
            let b = acc::bot_by_ref(&mut tx, r)
                .await?
                .ok_or_else(|| ArenaError::not_found(format!("no bot '{r}'")))?;
            if !seen.insert(b.id.clone()) {
                return Err(bad("participants", format!("{} is listed twice", b.name)));
            }
            // What every staked pairing would refuse later is refused now: a tournament whose
            // pairings can never start would stay running for ever.
            if req.stake > 0 {
                if req.stake > b.max_stake {
                    return Err(super::sets::stake_error(
                        format!("stake exceeds {}'s max_stake {}", b.name, b.max_stake),
                        b.max_stake,
                    ));
                }
                if owners.insert(b.owner_id.clone(), b.name.clone()).is_some() {
                    return Err(super::sets::same_owner());
                }
            }
            entries.push(EntryRow {
                seed: seed as i64,
                bot_id: b.id,
                rating: b.rating,
            });
        }
        let t = TournamentRow {
            id: format!("tour_{}", ulid::Ulid::generate()),
            name: req.name,
            format: req.format,
            rounds,
            status: "created".into(),
            size: req.options.size,
            random_stones: req.options.random_stones,
            initial_ms: req.initial_ms,
            increment_ms: req.increment_ms,
            stake: req.stake,
            rated: i64::from(req.rated || req.stake > 0),
            max_concurrent: req.max_concurrent,
            absent: req.absent,
            forfeit_after_ms: req.forfeit_after_ms,
            start_ms: req.start_ms,
            current_round: 0,
            created_ms: now,
            started_ms: None,
            finished_ms: None,
            owner_id: None,
            match_sets: None,
            sprt: None,
        };
        store::insert(&mut tx, &t).await?;
        for e in &entries {
            store::insert_entry(&mut tx, &t.id, e).await?;
        }
        tx.commit().await?;
        self.tournament_wake.notify_one();
        self.tournament(&t.id).await
    }

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
            return Err(ArenaError::conflict(
                "tournament_state",
                format!("cannot {action} a tournament that is {}", t.status),
            )
            .with_details(json!({"status": t.status})));
        };
        store::set_status(&mut tx, id, from, to, now).await?;
        if *to == "cancelled" {
            store::cancel_pending(&mut tx, id).await?;
        }
        tx.commit().await?;
        self.tournament_wake.notify_one();
        Ok(())
    }

    /// Tournaments, newest first, as summaries.
    pub async fn list_tournaments(&self, limit: i64) -> ArenaResult<Value> {
        let mut c = self.store.pool.acquire().await?;
        let rows = store::list(&mut c, false, limit).await?;
        let mut out = vec![];
        for t in &rows {
            let n = store::entries(&mut c, &t.id).await?.len();
            let mut v = summary_json(t);
            v["participants"] = json!(n);
            out.push(v);
        }
        Ok(json!({"tournaments": out}))
    }

    /// The whole tournament: settings, participants, rounds with pairings (set links and
    /// results), standings and crosstable. Errors: 404.
    pub async fn tournament(&self, id: &str) -> ArenaResult<Value> {
        let mut c = self.store.pool.acquire().await?;
        let t = store::get(&mut c, id, "")
            .await?
            .filter(|t| t.format != "match")
            .ok_or_else(|| not_found(id))?;
        let entries = store::entries(&mut c, id).await?;
        let mut names = Vec::with_capacity(entries.len());
        for e in &entries {
            names.push(self.bot_name(&mut c, &e.bot_id).await?);
        }
        let pairings = store::pairings(&mut c, id).await?;
        // Refused move attempts in this tournament's games, by bot (issue 18).
        let refused: std::collections::HashMap<String, i64> =
            crate::store::games::refused_in_tournament(&mut c, id)
                .await?
                .into_iter()
                .collect();
        drop(c);
        let name_of = |s: Option<i64>| {
            s.and_then(|s| usize::try_from(s).ok())
                .and_then(|s| names.get(s).cloned())
        };
        let mut rounds: Vec<Value> = vec![];
        for p in &pairings {
            let idx = usize::try_from(p.round - 1).unwrap_or(0);
            while rounds.len() <= idx {
                rounds.push(
                    json!({"round": rounds.len() + 1, "pairings": [], "bye": null, "absent": []}),
                );
            }
            if p.status == "absent" {
                if let Some(a) = rounds[idx]["absent"].as_array_mut() {
                    a.push(json!(name_of(Some(p.seed1))));
                }
                continue;
            }
            if p.seed2.is_none() {
                rounds[idx]["bye"] = json!(name_of(Some(p.seed1)));
                continue;
            }
            let done = matches!(p.status.as_str(), "finished" | "forfeit");
            let pj = json!({
                "board": p.board,
                "bots": [name_of(Some(p.seed1)), name_of(p.seed2)],
                "status": p.status,
                "set_id": p.set_id,
                "set_url": p.set_id.as_ref().map(|s| format!("/v1/sets/{s}")),
                "points": if done { json!([half(p.points2_1), half(p.points2_2)]) } else { Value::Null },
                "game_points": if done { json!([half(p.games2_1), half(p.games2_2)]) } else { Value::Null },
                "result": if done { json!(result_text(p, &name_of)) } else { Value::Null },
            });
            if let Some(a) = rounds[idx]["pairings"].as_array_mut() {
                a.push(pj);
            }
        }
        let ratings: Vec<f64> = entries.iter().map(|e| e.rating).collect();
        let outcomes = outcomes_of(&t, &pairings);
        let table = standings::standings(entries.len(), &ratings, &outcomes);
        let standings_json: Vec<Value> = table
            .iter()
            .enumerate()
            .map(|(i, r)| {
                json!({
                    "rank": i + 1,
                    "bot": names.get(r.seed),
                    "seed": r.seed + 1,
                    "points": half(r.points2),
                    "buchholz": half(r.buchholz2),
                    "sonneborn_berger": r.sb4 as f64 / 4.0,
                    "game_points": half(r.games2),
                    "tiebreak_moves": r.moves,
                    "sets": r.sets, "w": r.w, "d": r.d, "l": r.l, "byes": r.byes,
                    "refused_moves": entries.get(r.seed).and_then(|e| refused.get(&e.bot_id)).copied().unwrap_or(0),
                    "performance": r.performance.map(|p| p.0.round() as i64),
                    "performance_error": r.performance.and_then(|p| p.1).map(|e| e.round() as i64),
                })
            })
            .collect();
        let cross = standings::crosstable(entries.len(), &outcomes);
        let order: Vec<usize> = table.iter().map(|r| r.seed).collect();
        let cross_rows: Vec<Value> = order
            .iter()
            .map(|&i| {
                json!({
                    "bot": names.get(i),
                    "results": order.iter().map(|&j| {
                        if i == j { Value::Null } else { json!(cross[i][j]) }
                    }).collect::<Vec<_>>(),
                })
            })
            .collect();
        let mut v = summary_json(&t);
        v["participants"] = json!(entries
            .iter()
            .zip(&names)
            .map(|(e, n)| json!({"seed": e.seed + 1, "bot": n, "rating": e.rating.round() as i64}))
            .collect::<Vec<_>>());
        v["rounds_played"] = json!(rounds);
        v["standings"] = json!(standings_json);
        v["crosstable"] = json!({
            "bots": order.iter().map(|&i| names.get(i)).collect::<Vec<_>>(),
            "rows": cross_rows,
        });
        Ok(v)
    }

    /// One driver step for tournament `id`: record finished sets, pair the next round when the
    /// current one is over (or finish the tournament), then start pending sets up to
    /// `max_concurrent`. Returns whether anything changed.
    pub async fn drive_tournament(&self, id: &str) -> ArenaResult<bool> {
        let mut changed = self.record_and_pair(id).await?;
        changed |= self.start_pending(id).await?;
        if changed {
            self.tournament_wake.notify_one();
        }
        Ok(changed)
    }

    /// Whether [`Arena::record_and_pair`] has anything to do, read without the write lock so an
    /// idle tournament costs no write transaction: a due start, a finished set to record, or a
    /// round that is over.
    async fn needs_recording(&self, id: &str) -> ArenaResult<bool> {
        let mut c = self.store.pool.acquire().await?;
        let Some(t) = store::get(&mut c, id, "").await? else {
            return Ok(false);
        };
        match t.status.as_str() {
            "created" => return Ok(t.start_ms.is_some_and(|s| s <= self.now_ms())),
            "running" | "paused" => {}
            _ => return Ok(false),
        }
        let pairings = store::pairings(&mut c, id).await?;
        for set_id in pairings
            .iter()
            .filter(|p| p.status == "playing")
            .filter_map(|p| p.set_id.as_deref())
        {
            if sets::get(&mut c, set_id, "")
                .await?
                .is_some_and(|s| s.status == "finished")
            {
                return Ok(true);
            }
        }
        Ok(t.status == "running"
            && pairings
                .iter()
                .filter(|p| p.round == t.current_round)
                .all(|p| !matches!(p.status.as_str(), "pending" | "playing")))
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
        if t.status == "created" && t.start_ms.is_some_and(|s| s <= now) {
            store::set_status(&mut tx, id, "created", "running", now).await?;
            t.status = "running".into();
            changed = true;
        }
        if t.status != "running" && t.status != "paused" {
            tx.commit().await?;
            return Ok(changed);
        }
        let mut pairings = store::pairings(&mut tx, id).await?;
        for p in pairings.iter_mut().filter(|p| p.status == "playing") {
            let Some(set_id) = p.set_id.clone() else {
                continue;
            };
            let Some(set) = sets::get(&mut tx, &set_id, "").await? else {
                continue;
            };
            if set.status != "finished" {
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
            store::record(&mut tx, p, "playing").await?;
            changed = true;
        }
        if t.status == "paused" {
            tx.commit().await?;
            return Ok(changed);
        }
        let current: Vec<&PairingRow> = pairings
            .iter()
            .filter(|p| p.round == t.current_round)
            .collect();
        let over = current
            .iter()
            .all(|p| !matches!(p.status.as_str(), "pending" | "playing"));
        if over {
            if t.current_round >= t.rounds || super::matches::decided(&t, &pairings) {
                store::set_status(&mut tx, id, "running", "finished", now).await?;
                tx.commit().await?;
                tracing::info!(tournament = id, "tournament finished");
                return Ok(true);
            }
            let next = t.current_round + 1;
            let entries = store::entries(&mut tx, id).await?;
            let mut present = vec![true; entries.len()];
            if t.absent == "skip" {
                for (i, e) in entries.iter().enumerate() {
                    present[i] = self.is_online(&mut tx, &e.bot_id).await?;
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
            let mut board = 0;
            for &(a, b) in &round.pairs {
                board += 1;
                store::insert_pairing(&mut tx, &new_pairing(id, next, board, a, Some(b), now))
                    .await?;
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

    /// Starts pending sets of the current round while fewer than `max_concurrent` play, when both
    /// bots are online; forfeits an absent bot after `forfeit_after_ms` when the tournament says so.
    async fn start_pending(&self, id: &str) -> ArenaResult<bool> {
        let (t, pairings, entries) = {
            let mut c = self.store.pool.acquire().await?;
            let Some(t) = store::get(&mut c, id, "").await? else {
                return Ok(false);
            };
            (
                t,
                store::pairings(&mut c, id).await?,
                store::entries(&mut c, id).await?,
            )
        };
        if t.status != "running" {
            return Ok(false);
        }
        let mut playing = pairings.iter().filter(|p| p.status == "playing").count() as i64;
        let mut changed = false;
        for p in pairings
            .iter()
            .filter(|p| p.status == "pending" && p.round == t.current_round)
        {
            if playing >= t.max_concurrent {
                break;
            }
            let (Some(e1), Some(e2)) = (entry(&entries, Some(p.seed1)), entry(&entries, p.seed2))
            else {
                continue;
            };
            let (on1, on2) = {
                let mut c = self.store.pool.acquire().await?;
                (
                    self.is_online(&mut c, &e1.bot_id).await?,
                    self.is_online(&mut c, &e2.bot_id).await?,
                )
            };
            let now = self.now_ms();
            if on1 && on2 {
                match self.start_pairing(&t, p, &e1.bot_id, &e2.bot_id).await {
                    Ok(true) => {
                        playing += 1;
                        changed = true;
                    }
                    Ok(false) => {}
                    Err(e) => {
                        tracing::warn!(tournament = id, round = p.round, board = p.board, error = %e, "pairing could not start");
                    }
                }
            } else if t.absent == "forfeit" && now - p.created_ms >= t.forfeit_after_ms {
                // A bot that showed up during the window (before a restart, say) is not the
                // absent one; if one is online now, it alone wins. A double forfeit means
                // neither showed up at all (SPEC 14).
                let (seen1, seen2) = {
                    let mut c = self.store.pool.acquire().await?;
                    (
                        self.seen_since(&mut c, &e1.bot_id, p.created_ms).await?,
                        self.seen_since(&mut c, &e2.bot_id, p.created_ms).await?,
                    )
                };
                let (win1, win2) = forfeit_winners(on1, on2, seen1, seen2);
                let mut f = p.clone();
                f.status = "forfeit".into();
                f.points2_1 = if win1 { 2 } else { 0 };
                f.points2_2 = if win2 { 2 } else { 0 };
                f.games2_1 = 2 * f.points2_1;
                f.games2_2 = 2 * f.points2_2;
                f.finished_ms = Some(now);
                let mut tx = self.store.begin_write().await?;
                store::record(&mut tx, &f, "pending").await?;
                tx.commit().await?;
                tracing::info!(
                    tournament = id,
                    round = p.round,
                    board = p.board,
                    "pairing forfeited"
                );
                changed = true;
            }
        }
        Ok(changed)
    }

    /// Starts one pairing's set and links it, in one transaction. Ok(false) when someone else did.
    async fn start_pairing(
        &self,
        t: &TournamentRow,
        p: &PairingRow,
        creator_id: &str,
        acceptor_id: &str,
    ) -> ArenaResult<bool> {
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        let creator = acc::bot_by_ref(&mut tx, creator_id)
            .await?
            .ok_or_else(|| ArenaError::internal("tournament bot missing"))?;
        let acceptor = acc::bot_by_ref(&mut tx, acceptor_id)
            .await?
            .ok_or_else(|| ArenaError::internal("tournament bot missing"))?;
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
        };
        let (view, fx) = self
            .start_now_in(&mut tx, &creator, &acceptor, req, now)
            .await?;
        let set_id = view["id"].as_str().unwrap_or_default().to_string();
        if store::claim(&mut tx, p, &set_id).await? != 1 {
            return Ok(false); // rolled back: the pairing was no longer pending
        }
        fx.commit(tx, self, now).await?;
        tracing::info!(tournament = %t.id, round = p.round, board = p.board, set_id, "tournament set started");
        Ok(true)
    }

    /// Every game of a tournament's sets (started ones), by round and board, as one SGF
    /// collection (the game trees one after another). Errors: 404.
    pub async fn tournament_sgf(&self, id: &str) -> ArenaResult<String> {
        let pairings = {
            let mut c = self.store.pool.acquire().await?;
            store::get(&mut c, id, "")
                .await?
                .filter(|t| t.format != "match")
                .ok_or_else(|| not_found(id))?;
            store::pairings(&mut c, id).await?
        };
        let mut out = String::new();
        for set_id in pairings.iter().filter_map(|p| p.set_id.as_deref()) {
            for game_no in [1, 2] {
                // With EV, RO, TM and the clocks as of each move (issue 18).
                if let Some(sgf) = self.game_sgf(set_id, game_no, true).await? {
                    out.push_str(&sgf);
                    out.push('\n');
                }
            }
        }
        Ok(out)
    }

    /// A CSV export of the standings or the crosstable. Errors: 404.
    pub async fn tournament_csv(&self, id: &str, what: &str) -> ArenaResult<String> {
        let v = self.tournament(id).await?;
        let mut out = String::new();
        let cell = |v: &Value| match v {
            Value::Null => String::new(),
            Value::String(s) => csv_field(s),
            other => other.to_string(),
        };
        if what == "standings" {
            let cols = [
                "rank",
                "bot",
                "seed",
                "points",
                "buchholz",
                "sonneborn_berger",
                "game_points",
                "tiebreak_moves",
                "sets",
                "w",
                "d",
                "l",
                "byes",
                "performance",
                "performance_error",
            ];
            out.push_str(&cols.join(","));
            out.push('\n');
            for r in v["standings"].as_array().into_iter().flatten() {
                let row: Vec<String> = cols.iter().map(|c| cell(&r[c])).collect();
                out.push_str(&row.join(","));
                out.push('\n');
            }
        } else {
            let bots: Vec<String> = v["crosstable"]["bots"]
                .as_array()
                .into_iter()
                .flatten()
                .map(cell)
                .collect();
            out.push_str("bot,");
            out.push_str(&bots.join(","));
            out.push('\n');
            for r in v["crosstable"]["rows"].as_array().into_iter().flatten() {
                let mut row = vec![cell(&r["bot"])];
                row.extend(r["results"].as_array().into_iter().flatten().map(cell));
                out.push_str(&row.join(","));
                out.push('\n');
            }
        }
        Ok(out)
    }
}

/// A text cell of a CSV export. A spreadsheet would run a cell starting with `=`, `+`, `-`,
/// `@`, a tab or a carriage return as a formula, so such a cell gets a leading `'` (OWASP's
/// advice on CSV injection; a bot name such as `-2-3` is text). Only text is touched: numbers
/// are written as JSON numbers, so a negative number stays a number. Quoted when it holds a
/// comma, quote or line break (RFC 4180).
fn csv_field(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s.to_string()
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

fn half(p2: i64) -> f64 {
    p2 as f64 / 2.0
}

fn entry(entries: &[EntryRow], seed: Option<i64>) -> Option<&EntryRow> {
    entries.iter().find(|e| Some(e.seed) == seed)
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

fn new_pairing(
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
    }
}

/// The pairings of round `next` (1-based) from the rows so far.
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

/// `present[seed]` says who may be paired (everyone, unless the tournament skips absent bots).
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
        "match" => super::matches::next_round(t, pairings),
        _ => {
            let mut players = pairing::swiss_players(n, &outcomes_of(t, pairings));
            players.retain(|p| here(p.seed));
            pairing::swiss(&players)
        }
    }
}

/// The finished pairings as standings outcomes.
fn outcomes_of(t: &TournamentRow, pairings: &[PairingRow]) -> Vec<Outcome> {
    pairings
        .iter()
        .filter_map(|p| {
            let kind = match (p.status.as_str(), p.seed2) {
                ("bye", _) if t.format == "swiss" => Kind::Bye,
                ("bye", _) => Kind::Rest,
                ("finished", Some(_)) => Kind::Set,
                ("forfeit", Some(_)) => Kind::Forfeit,
                _ => return None,
            };
            let games: Vec<i8> = p
                .games_json
                .as_deref()
                .and_then(|g| serde_json::from_str(g).ok())
                .unwrap_or_default();
            Some(Outcome {
                seed1: usize::try_from(p.seed1).ok()?,
                seed2: p.seed2.and_then(|s| usize::try_from(s).ok()),
                kind,
                points2: [p.points2_1, p.points2_2],
                games2: [p.games2_1, p.games2_2],
                moves: [p.moves_1, p.moves_2],
                games,
            })
        })
        .collect()
}

fn result_text(p: &PairingRow, name_of: &dyn Fn(Option<i64>) -> Option<String>) -> String {
    let n1 = name_of(Some(p.seed1)).unwrap_or_default();
    let n2 = name_of(p.seed2).unwrap_or_default();
    match (p.status.as_str(), p.points2_1.cmp(&p.points2_2)) {
        ("forfeit", std::cmp::Ordering::Greater) => format!("{n1} wins by forfeit"),
        ("forfeit", std::cmp::Ordering::Less) => format!("{n2} wins by forfeit"),
        ("forfeit", _) => "double forfeit".into(),
        // Level game points decided by the fewer-moves tiebreak: say so, as the set does.
        (_, o) if o.is_ne() && p.games2_1 == p.games2_2 => {
            let winner = if o.is_gt() { n1 } else { n2 };
            format!("{winner} wins on the tiebreak")
        }
        (_, std::cmp::Ordering::Greater) => format!("{n1} wins"),
        (_, std::cmp::Ordering::Less) => format!("{n2} wins"),
        _ => "draw".into(),
    }
}

fn summary_json(t: &TournamentRow) -> Value {
    json!({
        "id": t.id,
        "name": t.name,
        "format": t.format,
        "status": t.status,
        "rounds": t.rounds,
        "current_round": t.current_round,
        "options": {"size": t.size, "random_stones": t.random_stones},
        "clock": {"initial_s": t.initial_ms / 1000, "increment_s": t.increment_ms / 1000},
        "stake": t.stake,
        "rated": t.rated != 0,
        "max_concurrent": t.max_concurrent,
        "absent": t.absent,
        "forfeit_after_s": t.forfeit_after_ms / 1000,
        "start_at": opt_time(t.start_ms),
        "created_at": rfc3339(t.created_ms),
        "started_at": opt_time(t.started_ms),
        "finished_at": opt_time(t.finished_ms),
    })
}

/// Runs for the life of the process: drives every tournament with work each second, and at once
/// when a set finishes or a tournament changes.
pub async fn run(arena: Arc<Arena>) {
    let mut rx = arena.changes.subscribe();
    let mut backoff = super::backoff::Backoff::new("tournament driver", super::backoff::MAX);
    loop {
        if arena.store.health.is_down() {
            // Every step writes: wait for the storage to come back.
            tokio::time::sleep(crate::store::health::PROBE_MAX).await;
            continue;
        }
        let ids = async {
            let mut c = arena.store.pool.acquire().await?;
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

#[cfg(test)]
mod tests {
    use super::csv_field;

    #[test]
    fn a_text_cell_a_spreadsheet_would_run_as_a_formula_is_made_inert() {
        assert_eq!(csv_field("=1+2"), "'=1+2");
        assert_eq!(csv_field("+1"), "'+1");
        assert_eq!(csv_field("-2-3"), "'-2-3");
        assert_eq!(csv_field("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv_field("\tx"), "'\tx");
        assert_eq!(csv_field("\rx"), "\"'\rx\"");
        assert_eq!(
            csv_field("=HYPERLINK(\"http://x\",\"y\")"),
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"",
        );
        assert_eq!(csv_field("Ann"), "Ann");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("x-1"), "x-1");
    }
}
