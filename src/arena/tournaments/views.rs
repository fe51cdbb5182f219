//! What a tournament shows: summaries, the whole tournament with standings, SGF and CSV exports.

use super::setup::cycles_of;
use super::*;

/// A withdrawn participant's mark (issue 18): the round current when it withdrew, when, and
/// who withdrew it; null while it plays on.
pub(super) fn withdrawn_json(e: &EntryRow) -> Value {
    match e.withdrawn_ms {
        None => Value::Null,
        Some(at) => json!({
            "round": e.withdrawn_round.unwrap_or(0),
            "at": rfc3339(at),
            "by": e.withdrawn_by.as_deref().unwrap_or("operator"),
        }),
    }
}

impl Arena {
    /// A page of tournaments, newest first, as summaries, with `status` (if given) and after
    /// the tournament `before` (the previous page's `next_before`); `next_before` is null on
    /// the last page.
    pub async fn list_tournaments(
        &self,
        status: Option<&str>,
        before: Option<&str>,
        limit: i64,
    ) -> ArenaResult<Value> {
        let mut c = self.store.conn().await?;
        let rows = store::list(&mut c, false, status, before, limit).await?;
        let mut out = vec![];
        for t in &rows {
            let n = store::entries(&mut c, &t.id).await?.len();
            let mut v = summary_json(t);
            v["participants"] = json!(n);
            out.push(v);
        }
        let next = if rows.len() as i64 == limit {
            rows.last().map(|t| t.id.clone())
        } else {
            None
        };
        Ok(json!({"tournaments": out, "next_before": next}))
    }

    /// The whole tournament: settings, participants, rounds with pairings (set links and
    /// results), standings and crosstable. Errors: 404.
    pub async fn tournament(&self, id: &str) -> ArenaResult<Value> {
        let mut c = self.store.conn().await?;
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
        let held = match t.start_ms {
            Some(s) if t.status == TournamentStatus::Created && s <= self.now_ms() => {
                super::start_refusal(&mut c, &t).await?
            }
            _ => None,
        };
        // Refused move attempts in this tournament's games, by bot (issue 18).
        let refused: std::collections::HashMap<String, i64> =
            crate::store::games::refused_in_tournament(&mut c, id)
                .await?
                .into_iter()
                .collect();
        // Which participants of pending pairings are offline: what those pairings wait for.
        let mut offline = HashSet::new();
        for p in pairings
            .iter()
            .filter(|p| p.status == PairingStatus::Pending)
        {
            for seed in [Some(p.seed1), p.seed2].into_iter().flatten() {
                if let Some(e) = entries.iter().find(|e| e.seed == seed)
                    && !offline.contains(&seed)
                    && !self.is_online(&mut c, &e.bot_id).await?
                {
                    offline.insert(seed);
                }
            }
        }
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
            if p.status == PairingStatus::Absent {
                if let Some(a) = rounds[idx]["absent"].as_array_mut() {
                    a.push(json!(name_of(Some(p.seed1))));
                }
                continue;
            }
            if p.seed2.is_none() {
                rounds[idx]["bye"] = json!(name_of(Some(p.seed1)));
                continue;
            }
            let done = PairingStatus::is_in(&p.status, DECIDED);
            let waiting_for: Vec<Option<String>> = [Some(p.seed1), p.seed2]
                .into_iter()
                .flatten()
                .filter(|s| p.status == PairingStatus::Pending && offline.contains(s))
                .map(|s| name_of(Some(s)))
                .collect();
            let pj = json!({
                "board": p.board,
                "bots": [name_of(Some(p.seed1)), name_of(p.seed2)],
                "status": p.status,
                "set_id": p.set_id,
                "set_url": p.set_id.as_ref().map(|s| format!("/v1/sets/{s}")),
                "points": if done { json!([half(p.points2_1), half(p.points2_2)]) } else { Value::Null },
                "game_points": if done { json!([half(p.games2_1), half(p.games2_2)]) } else { Value::Null },
                "result": if done { json!(result_text(p, &name_of)) } else { Value::Null },
                "withdrawn": name_of(p.withdrawn_seed),
                "waiting_for": waiting_for,
            });
            if let Some(a) = rounds[idx]["pairings"].as_array_mut() {
                a.push(pj);
            }
        }
        let ratings: Vec<f64> = entries.iter().map(|e| e.rating).collect();
        let outcomes = outcomes_of(&t, &pairings);
        let annulled = annulled_seeds(&t, &entries, &outcomes);
        let table = standings::counted(entries.len(), &ratings, &outcomes, &annulled);
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
                    "withdrawn": entries.get(r.seed).map_or(Value::Null, withdrawn_json),
                    "annulled": annulled.get(r.seed).copied().unwrap_or(false),
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
        v["participants"] =
            json!(entries
            .iter()
            .zip(&names)
            .map(|(e, n)| json!({"seed": e.seed + 1, "bot": n, "rating": e.rating.round() as i64,
                "withdrawn": withdrawn_json(e)}))
            .collect::<Vec<_>>());
        // A scheduled start that is due but refused, and why (as `POST .../start` answers).
        v["start_held"] = held.map_or(
            Value::Null,
            |e| json!({"code": e.code.as_str(), "message": e.message, "details": e.details}),
        );
        v["rounds_played"] = json!(rounds);
        v["standings"] = json!(standings_json);
        v["crosstable"] = json!({
            "bots": order.iter().map(|&i| names.get(i)).collect::<Vec<_>>(),
            "rows": cross_rows,
        });
        Ok(v)
    }

    /// Every game of a tournament's sets (started ones), by round and board, as one SGF
    /// collection (the game trees one after another). Errors: 404.
    pub async fn tournament_sgf(&self, id: &str) -> ArenaResult<String> {
        let pairings = {
            let mut c = self.store.conn().await?;
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
                // After the first columns, so readers of the older file keep working.
                "refused_moves",
                "withdrawn_round",
                "withdrawn_by",
                "annulled",
            ];
            out.push_str(&cols.join(","));
            out.push('\n');
            for r in v["standings"].as_array().into_iter().flatten() {
                let row: Vec<String> = cols
                    .iter()
                    .map(|c| match c.strip_prefix("withdrawn_") {
                        Some(k) => cell(&r["withdrawn"][k]),
                        None => cell(&r[c]),
                    })
                    .collect();
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
pub(super) fn csv_field(s: &str) -> String {
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

/// Round robin (issue 18; FIDE Tournament Rules C.06 art. 5.4): a bot withdrawn before it
/// played half its sets has its results left out of the standings (they stay in the
/// crosstable). `annulled[seed]` says so; a Swiss or gauntlet annuls nothing (art. 5.5).
fn annulled_seeds(t: &TournamentRow, entries: &[EntryRow], outcomes: &[Outcome]) -> Vec<bool> {
    let n = entries.len();
    if t.format != "round_robin" {
        return vec![false; n];
    }
    let due = (n.max(1) - 1) as i64 * cycles_of(t, n);
    entries
        .iter()
        .map(|e| {
            let seed = usize::try_from(e.seed).ok();
            let played = outcomes
                .iter()
                .filter(|o| o.kind == Kind::Set && (Some(o.seed1) == seed || o.seed2 == seed))
                .count() as i64;
            e.withdrawn() && 2 * played < due
        })
        .collect()
}

/// The finished pairings as standings outcomes.
pub(super) fn outcomes_of(t: &TournamentRow, pairings: &[PairingRow]) -> Vec<Outcome> {
    pairings
        .iter()
        .filter_map(|p| {
            let kind = match (PairingStatus::parse(&p.status)?, p.seed2) {
                (PairingStatus::Bye, _) if t.format == "swiss" => Kind::Bye,
                (PairingStatus::Bye, _) => Kind::Rest,
                (PairingStatus::Finished, Some(_)) => Kind::Set,
                (PairingStatus::Forfeit, Some(_)) => Kind::Forfeit,
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
    let forfeit = *p.status == PairingStatus::Forfeit;
    match (forfeit, p.points2_1.cmp(&p.points2_2)) {
        // A set forfeited in play by a withdrawn bot: its games do not decide it.
        (_, std::cmp::Ordering::Greater) if p.withdrawn_seed.is_some() => {
            format!("{n1} wins by forfeit")
        }
        (_, std::cmp::Ordering::Less) if p.withdrawn_seed.is_some() => {
            format!("{n2} wins by forfeit")
        }
        (true, std::cmp::Ordering::Greater) => format!("{n1} wins by forfeit"),
        (true, std::cmp::Ordering::Less) => format!("{n2} wins by forfeit"),
        (true, _) => "double forfeit".into(),
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
