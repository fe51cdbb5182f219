//! Matches for bot authors (issue 12, SPEC 14): a player runs N unstaked, unrated sets between
//! two of its own bots (or its bot and another player's, once that player accepts), or plays
//! until a sequential probability ratio test decides, and reads W/D/L, the Elo difference with
//! its 95% error bar and the LLR.
//!
//! A match is a tournament row of format `match` with two entries (seed 0 = the first bot, whose
//! side every figure is from); each round holds up to `max_concurrent` sets, creators
//! alternating, and the tournament driver plays it like any other. The SPRT counts sets (a set
//! is both seat orders of one opening): a set won is 1, drawn 1/2, lost 0.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::Arena;
use super::elo_stats::{Wdl, sprt_bounds};
use super::error::{ArenaError, ArenaResult, Code};
use super::options::GameOptions;
use super::pairing::Round;
use super::sets::NewSet;
use crate::store::accounts::{self as acc, PlayerRow};
use crate::store::status::{PairingStatus, TournamentStatus};
use crate::store::tournaments::{self as store, EntryRow, PairingRow, TournamentRow};

/// Most sets of one match.
pub const MAX_SETS: i64 = 10_000;
/// Default cap on the sets of an SPRT match without `sets`.
pub const DEFAULT_SPRT_SETS: i64 = 1_000;

/// The largest `sprt.elo0` / `sprt.elo1`, in either direction (Elo).
pub const MAX_SPRT_ELO: f64 = 1000.0;

/// SPRT parameters: H0 says the first bot is `elo0` stronger, H1 `elo1`; error rates.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

impl Sprt {
    /// Errors: 400 naming the field (`elo0`, `elo1` within +-[`MAX_SPRT_ELO`], `elo1` above
    /// `elo0`; alpha, beta in 0..0.5).
    pub fn check(&self) -> ArenaResult<()> {
        let bad = |f: &str, m: &str| {
            ArenaError::bad_request(m.to_string())
                .with_details(json!({"field": format!("sprt.{f}")}))
        };
        // Beyond 1,000 Elo the expected score is within 0.4% of 0 or 1: no test between
        // such bounds means anything, and far beyond it the statistic no longer moves.
        for (f, v) in [("elo0", self.elo0), ("elo1", self.elo1)] {
            if !(v.is_finite() && v.abs() <= MAX_SPRT_ELO) {
                return Err(bad(
                    f,
                    &format!("sprt.{f} must be between -{MAX_SPRT_ELO} and {MAX_SPRT_ELO}"),
                ));
            }
        }
        if self.elo1 <= self.elo0 {
            return Err(bad("elo1", "sprt.elo1 must be greater than sprt.elo0"));
        }
        for (f, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v > 0.0 && v < 0.5) {
                return Err(bad(f, "sprt.alpha and sprt.beta must be between 0 and 0.5"));
            }
        }
        Ok(())
    }
}

/// A validated match request.
#[derive(Debug, Clone)]
pub struct NewMatch {
    /// Two bot names or ids, both the player's.
    pub bots: [String; 2],
    /// Sets to play (with an SPRT: the most to play).
    pub sets: Option<i64>,
    pub sprt: Option<Sprt>,
    pub options: GameOptions,
    pub initial_ms: i64,
    pub increment_ms: i64,
    /// Sets played at once.
    pub concurrency: i64,
}

/// A match's figures from the first bot's side.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchStats {
    pub wdl: Wdl,
    pub llr: Option<f64>,
    pub bounds: Option<(f64, f64)>,
    /// `H1` (the first bot is at least `elo1` stronger) or `H0`, once the SPRT decided.
    pub decision: Option<&'static str>,
}

/// A finished set of a match as its own page words it (SPEC section 8): the winner's name
/// and `"<bot> wins"`, `"<bot> wins on the tiebreak"` (level game points) or `"draw"`
/// (winner `None`); `(None, None)` for a set not finished. `names` are the match's bots by
/// seed.
fn set_result(p: &PairingRow, names: &[String]) -> (Option<String>, Option<String>) {
    if p.status != PairingStatus::Finished {
        return (None, None);
    }
    let seed2 = p.seed2.unwrap_or(1 - p.seed1);
    let winner = match p.points2_1.cmp(&p.points2_2) {
        std::cmp::Ordering::Greater => p.seed1,
        std::cmp::Ordering::Less => seed2,
        std::cmp::Ordering::Equal => return (None, Some("draw".into())),
    };
    let Some(name) = usize::try_from(winner).ok().and_then(|i| names.get(i)) else {
        return (None, None);
    };
    let how = if p.games2_1 == p.games2_2 {
        " on the tiebreak"
    } else {
        ""
    };
    (Some(name.clone()), Some(format!("{name} wins{how}")))
}

/// The figures of a match from its pairings.
#[must_use]
pub fn stats(t: &TournamentRow, pairings: &[PairingRow]) -> MatchStats {
    let mut wdl = Wdl::default();
    for p in pairings
        .iter()
        .filter(|p| p.status == PairingStatus::Finished)
    {
        let mine = if p.seed1 == 0 {
            p.points2_1
        } else {
            p.points2_2
        };
        match mine {
            2 => wdl.w += 1,
            1 => wdl.d += 1,
            _ => wdl.l += 1,
        }
    }
    let sprt: Option<Sprt> = t.sprt.as_deref().and_then(|s| serde_json::from_str(s).ok());
    let (llr, bounds, decision) = match sprt {
        Some(s) => {
            let llr = wdl.llr(s.elo0, s.elo1);
            let (lo, hi) = sprt_bounds(s.alpha, s.beta);
            let d = if llr >= hi {
                Some("H1")
            } else if llr <= lo {
                Some("H0")
            } else {
                None
            };
            (Some(llr), Some((lo, hi)), d)
        }
        None => (None, None, None),
    };
    MatchStats {
        wdl,
        llr,
        bounds,
        decision,
    }
}

/// The next round of a match: up to `max_concurrent` sets, creators alternating.
#[must_use]
pub fn next_round(t: &TournamentRow, pairings: &[PairingRow]) -> Round {
    let paired = pairings.len() as i64;
    let left = t.match_sets.unwrap_or(0) - paired;
    let boards = left.clamp(0, t.max_concurrent.max(1));
    Round {
        pairs: (0..boards)
            .map(|b| {
                if (paired + b) % 2 == 0 {
                    (0, 1)
                } else {
                    (1, 0)
                }
            })
            .collect(),
        bye: None,
    }
}

/// Whether a match is over before its planned sets: the SPRT decided.
#[must_use]
pub fn decided(t: &TournamentRow, pairings: &[PairingRow]) -> bool {
    t.format == "match" && stats(t, pairings).decision.is_some()
}

impl Arena {
    /// Creates and starts a match for `player`: `proposed` when the second bot is another
    /// player's, running at once (one set at a time) when it is a house bot. Errors: 400
    /// (fields), 404 (bot), 403 `forbidden` (a first bot that is not the player's).
    pub async fn create_match(&self, player: &PlayerRow, req: NewMatch) -> ArenaResult<Value> {
        if let Some(s) = &req.sprt {
            s.check()?;
        }
        let sets = match (req.sets, req.sprt) {
            (Some(n), _) => n,
            (None, Some(_)) => DEFAULT_SPRT_SETS,
            (None, None) => {
                return Err(
                    ArenaError::bad_request("a match needs 'sets', 'sprt' or both")
                        .with_details(json!({"field": "sets"})),
                );
            }
        };
        if !(1..=MAX_SETS).contains(&sets) {
            return Err(
                ArenaError::bad_request(format!("sets must be 1 to {MAX_SETS}"))
                    .with_details(json!({"field": "sets"})),
            );
        }
        NewSet {
            options: req.options,
            initial_ms: req.initial_ms,
            increment_ms: req.increment_ms,
            stake: 0,
            opponent: None,
            rated: false,
            practice: false,
            pool: false,
        }
        .check_stake()?;
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        let mut entries = vec![];
        let mut other_owner = false;
        let mut house_opponent = false;
        for (seed, r) in req.bots.iter().enumerate() {
            let b = acc::bot_by_ref(&mut tx, r)
                .await?
                .ok_or_else(|| ArenaError::not_found(format!("no bot '{r}'")))?;
            if b.retired_ms.is_some() {
                return Err(super::sets::retired(&b));
            }
            if seed == 0 && b.owner_id != player.id {
                return Err(ArenaError::forbidden(format!(
                    "{} is not your bot; the first bot of a match must be yours",
                    b.name
                )));
            }
            // A house bot's owner is the house, which nobody can speak for: it accepts at once
            // (a proposal to it could never start).
            if seed == 1 && b.house != 0 {
                house_opponent = true;
            } else if seed == 1 && b.owner_id != player.id {
                other_owner = true;
            }
            if entries.iter().any(|e: &EntryRow| e.bot_id == b.id) {
                return Err(ArenaError::bad_request("a match needs two different bots")
                    .with_details(json!({"field": "bots"})));
            }
            entries.push(EntryRow::new(seed as i64, b.id, b.rating));
        }
        // The house plays a match one set at a time: its threads serve every practice set too.
        let concurrency = if house_opponent {
            1
        } else {
            req.concurrency.min(sets)
        };
        let t = TournamentRow {
            id: format!("match_{}", ulid::Ulid::generate()),
            name: format!("{} vs {}", req.bots[0], req.bots[1]),
            format: "match".into(),
            rounds: (sets + concurrency - 1) / concurrency,
            // Another player's bot: the match waits for that player to accept it.
            status: if other_owner { "proposed" } else { "running" }.into(),
            size: req.options.size,
            random_stones: req.options.random_stones,
            initial_ms: req.initial_ms,
            increment_ms: req.increment_ms,
            stake: 0,
            rated: 0,
            max_concurrent: concurrency,
            absent: "wait".into(),
            forfeit_after_ms: 0,
            start_ms: None,
            current_round: 0,
            created_ms: now,
            started_ms: None,
            finished_ms: None,
            owner_id: Some(player.id.clone()),
            match_sets: Some(sets),
            sprt: req
                .sprt
                .map(|s| serde_json::to_string(&s))
                .transpose()
                .map_err(ArenaError::internal)?,
        };
        store::insert(&mut tx, &t).await?;
        // `insert` writes no started_ms: set it with the status.
        store::set_status(&mut tx, &t.id, "running", "running", now).await?;
        for e in &entries {
            store::insert_entry(&mut tx, &t.id, e).await?;
        }
        tx.commit().await?;
        self.tournament_wake.notify_one();
        self.match_view(&t.id).await
    }

    /// Accepts a match proposed to `player` (the owner of its second bot): it starts. A retry
    /// once it runs (or finished) is the same success. Errors: 404; 403 unless `player` owns
    /// the second bot; 409 `tournament_state` when cancelled.
    pub async fn accept_match(&self, player: &PlayerRow, id: &str) -> ArenaResult<Value> {
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        let t = store::get(&mut tx, id, self.store.for_update())
            .await?
            .filter(|t| t.format == "match")
            .ok_or_else(|| ArenaError::not_found(format!("no match '{id}'")))?;
        let second = store::entries(&mut tx, id)
            .await?
            .into_iter()
            .find(|e| e.seed == 1)
            .ok_or_else(|| ArenaError::internal("match without a second bot"))?;
        let bot = acc::bot_by_ref(&mut tx, &second.bot_id)
            .await?
            .ok_or_else(|| ArenaError::internal("match bot missing"))?;
        if bot.owner_id != player.id {
            return Err(ArenaError::forbidden(format!(
                "only the owner of {} may accept this match",
                bot.name
            )));
        }
        if t.status == TournamentStatus::Proposed {
            // Neither bot may have retired since the proposal (issue 20).
            for e in store::entries(&mut tx, id).await? {
                if let Some(b) = acc::bot_by_ref(&mut tx, &e.bot_id).await?
                    && b.retired_ms.is_some()
                {
                    return Err(super::sets::retired(&b));
                }
            }
        }
        if store::set_status(&mut tx, id, "proposed", "running", now).await? != 1 {
            if TournamentStatus::is_in(
                &t.status,
                &[TournamentStatus::Running, TournamentStatus::Finished],
            ) {
                // A retry of an accept that took effect: the same success (agents.md, retries).
                drop(tx);
                return self.match_view(id).await;
            }
            return Err(ArenaError::new(
                Code::TournamentState,
                format!("the match is {}, not proposed", t.status),
            )
            .with_details(json!({"status": t.status})));
        }
        tx.commit().await?;
        self.tournament_wake.notify_one();
        self.match_view(id).await
    }

    /// Cancels (or, while proposed, declines) a match: the player who started it, or the owner
    /// of its second bot. A retry once cancelled is the same success. Errors: 404, 403, 409
    /// `tournament_state` (finished).
    pub async fn cancel_match(&self, player: &PlayerRow, id: &str) -> ArenaResult<Value> {
        let mut c = self.store.conn().await?;
        let t = store::get(&mut c, id, "")
            .await?
            .filter(|t| t.format == "match")
            .ok_or_else(|| ArenaError::not_found(format!("no match '{id}'")))?;
        let mut allowed = t.owner_id.as_deref() == Some(player.id.as_str());
        for e in store::entries(&mut c, id).await? {
            allowed |= acc::bot_by_ref(&mut c, &e.bot_id)
                .await?
                .is_some_and(|b| b.owner_id == player.id);
        }
        drop(c);
        if !allowed {
            return Err(ArenaError::forbidden(
                "only the owners of a match's bots may cancel it",
            ));
        }
        if t.status == TournamentStatus::Cancelled {
            // A retry of a cancel that took effect: the same success (agents.md, retries).
            return self.match_view(id).await;
        }
        self.transition(id, "cancel", true).await?;
        self.match_view(id).await
    }

    /// Matches, newest first, as summaries (public).
    pub async fn list_matches(&self, limit: i64) -> ArenaResult<Value> {
        let mut c = self.store.conn().await?;
        let rows = store::list(&mut c, true, None, None, limit).await?;
        drop(c);
        let mut out = vec![];
        for t in rows {
            let mut v = self.match_view(&t.id).await?;
            if let Some(o) = v.as_object_mut() {
                o.remove("set_list");
            }
            out.push(v);
        }
        Ok(json!({"matches": out}))
    }

    /// A match (public): bots, sets planned and played, W/D/L, score, Elo difference with its
    /// 95% error, and with an SPRT the LLR, its bounds and the decision. Errors: 404.
    pub async fn match_view(&self, id: &str) -> ArenaResult<Value> {
        let mut c = self.store.conn().await?;
        let t = store::get(&mut c, id, "")
            .await?
            .filter(|t| t.format == "match")
            .ok_or_else(|| ArenaError::not_found(format!("no match '{id}'")))?;
        let entries = store::entries(&mut c, id).await?;
        let mut names = vec![];
        for e in &entries {
            names.push(self.bot_name(&mut c, &e.bot_id).await?);
        }
        let pairings = store::pairings(&mut c, id).await?;
        drop(c);
        let s = stats(&t, &pairings);
        let elo = s.wdl.elo_with_error();
        let set_list: Vec<Value> = pairings
            .iter()
            .map(|p| {
                let (winner, result) = set_result(p, &names);
                json!({"n": (p.round - 1) * t.max_concurrent + p.board, "status": p.status, "set_id": p.set_id,
                       "set_url": p.set_id.as_ref().map(|s| format!("/v1/sets/{s}")),
                       "winner": winner, "result": result})
            })
            .collect();
        let sprt: Option<Sprt> = t.sprt.as_deref().and_then(|x| serde_json::from_str(x).ok());
        Ok(json!({
            "id": t.id,
            "bots": names,
            "status": t.status,
            "sets": t.match_sets,
            "sets_played": s.wdl.n(),
            "concurrency": t.max_concurrent,
            "options": {"size": t.size, "random_stones": t.random_stones},
            "clock": {"initial_s": t.initial_ms / 1000, "increment_s": t.increment_ms / 1000},
            "w": s.wdl.w, "d": s.wdl.d, "l": s.wdl.l,
            "score": s.wdl.score(),
            "elo": elo.map(|e| e.0),
            "elo_error": elo.and_then(|e| e.1),
            "sprt": sprt.map(|p| json!({
                "elo0": p.elo0, "elo1": p.elo1, "alpha": p.alpha, "beta": p.beta,
                "llr": s.llr,
                "lower_bound": s.bounds.map(|b| b.0),
                "upper_bound": s.bounds.map(|b| b.1),
                "decision": s.decision,
            })),
            "created_at": super::views::rfc3339(t.created_ms),
            "finished_at": super::views::opt_time(t.finished_ms),
            "set_list": set_list,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_SPRT_ELO, Sprt, set_result};
    use crate::store::status::PairingStatus;
    use crate::store::tournaments::PairingRow;

    /// A match's pairing of seeds 1 (the second bot) and 0, with set points and game points
    /// doubled, from seed 1's side first.
    fn pairing(status: PairingStatus, points2: [i64; 2], games2: [i64; 2]) -> PairingRow {
        PairingRow {
            tournament_id: "tour_x".into(),
            round: 1,
            board: 1,
            seed1: 1,
            seed2: Some(0),
            status: status.as_str().into(),
            set_id: Some("set_x".into()),
            points2_1: points2[0],
            points2_2: points2[1],
            games2_1: games2[0],
            games2_2: games2[1],
            moves_1: 0,
            moves_2: 0,
            games_json: None,
            created_ms: 0,
            finished_ms: None,
            withdrawn_seed: None,
        }
    }

    #[test]
    fn a_set_of_a_match_is_worded_as_its_set_page_words_it() {
        let names = ["One".to_string(), "Two".to_string()];
        let result = |p: PairingRow| set_result(&p, &names);
        let some = |w: &str, r: &str| (Some(w.to_string()), Some(r.to_string()));
        let done = PairingStatus::Finished;
        assert_eq!(
            result(pairing(done, [2, 0], [4, 0])),
            some("Two", "Two wins")
        );
        assert_eq!(
            result(pairing(done, [0, 2], [2, 2])),
            some("One", "One wins on the tiebreak")
        );
        assert_eq!(
            result(pairing(done, [1, 1], [2, 2])),
            (None, Some("draw".into()))
        );
        assert_eq!(
            result(pairing(PairingStatus::Playing, [0, 0], [0, 0])),
            (None, None)
        );
    }

    fn check(elo0: f64, elo1: f64) -> Result<(), String> {
        let s = Sprt {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
        };
        s.check()
            .map_err(|e| e.details["field"].as_str().unwrap_or("?").to_string())
    }

    #[test]
    fn sprt_bounds_lie_within_a_thousand_elo_either_way_and_in_order() {
        assert_eq!(check(-MAX_SPRT_ELO, MAX_SPRT_ELO), Ok(()));
        assert_eq!(check(0.0, 10.0), Ok(()));
        assert_eq!(check(-1000.5, 0.0), Err("sprt.elo0".into()));
        assert_eq!(check(0.0, 1000.5), Err("sprt.elo1".into()));
        assert_eq!(check(f64::NAN, 5.0), Err("sprt.elo0".into()));
        assert_eq!(check(5.0, 5.0), Err("sprt.elo1".into()));
    }
}
