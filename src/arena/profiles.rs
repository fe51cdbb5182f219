//! Read models of players and bots (SPEC sections 3 and 8; issues 14 and 20): public
//! profiles, the bot list, the leaderboard, rating history, head-to-head figures, frequent
//! opponents, and a player's own view and ledger. The HTTP handlers and the pages call these
//! and never the store: each opens its own connection.

use serde_json::{Value, json};

use super::Arena;
use super::accounts::STRIKE_WINDOW_MS;
use super::error::{ArenaError, ArenaResult};
use super::glicko::{self, Glicko};
use super::views::{opt_time, rfc3339};
use crate::store::Conn;
pub use crate::store::accounts::Provisional;
use crate::store::accounts::{self as acc, BotRow, PlayerRow};
use crate::store::ledger;

/// Most bots `GET /v1/bots` lists.
const BOT_LIST_MAX: i64 = 1000;
/// Most rated sets a rating history holds (the latest ones).
const RATING_HISTORY_MAX: i64 = 200;

/// The leaderboard's provisional filter (issue 20): `None` all bots, `Some(false)` only
/// established ones (deviation at most [`glicko::PROVISIONAL_ABOVE`]), `Some(true)` only
/// provisional ones.
#[must_use]
pub fn provisional_filter(provisional: Option<bool>) -> Provisional {
    match provisional {
        None => Provisional::All,
        Some(false) => Provisional::AtMost(glicko::PROVISIONAL_ABOVE),
        Some(true) => Provisional::Above(glicko::PROVISIONAL_ABOVE),
    }
}

/// 404 `not_found` for an unknown bot reference.
fn no_bot(bot_ref: &str) -> ArenaError {
    ArenaError::not_found(format!("no bot '{bot_ref}'"))
}

impl Arena {
    /// The bot named `bot_ref` (its name, any case, or its id), if any. Errors: database.
    pub async fn find_bot(&self, bot_ref: &str) -> ArenaResult<Option<BotRow>> {
        let mut c = self.store.conn().await?;
        Ok(acc::bot_by_ref(&mut c, bot_ref).await?)
    }

    /// The bot named `bot_ref` (its name, any case, or its id), as it is now. Errors: 404
    /// `not_found` (`no bot '<ref>'`), database.
    pub async fn bot(&self, bot_ref: &str) -> ArenaResult<BotRow> {
        self.find_bot(bot_ref).await?.ok_or_else(|| no_bot(bot_ref))
    }

    /// The house bot named `name` (SPEC 9), for practice. Errors: 404 `not_found` for a name
    /// that is no house bot, database.
    pub async fn house_bot(&self, name: &str) -> ArenaResult<BotRow> {
        self.find_bot(name)
            .await?
            .filter(|b| b.house != 0)
            .ok_or_else(|| {
                ArenaError::not_found(format!(
                    "no house bot '{name}'; see GET /v1/bots (house: true)"
                ))
            })
    }

    /// A bot's public profile (`GET /v1/bots/{bot}`), its leaderboard rank counted.
    /// Errors: database.
    pub async fn bot_profile(&self, b: &BotRow) -> ArenaResult<Value> {
        let mut c = self.store.conn().await?;
        self.profile_in(&mut c, b, None).await
    }

    /// `GET /v1/bots`: public profiles of at most 1,000 bots by rating, each ranked by its
    /// place among the bots not retired; with `online`, only the bots online now (`true`) or
    /// offline (`false`, SPEC 14). Errors: database.
    pub async fn bot_list(&self, online: Option<bool>) -> ArenaResult<Vec<Value>> {
        let mut c = self.store.conn().await?;
        let mut out = vec![];
        let mut rank = 0;
        for b in &acc::bots_by_rating(&mut c, BOT_LIST_MAX).await? {
            // In the board's order, so the place among the bots not retired is the rank.
            if b.retired_ms.is_none() {
                rank += 1;
            }
            let p = self.profile_in(&mut c, b, Some(rank)).await?;
            if online.is_none_or(|want| p["online"] == want) {
                out.push(p);
            }
        }
        Ok(out)
    }

    /// `GET /v1/players/me`: the player with its balance, the PTS held in escrow by its
    /// open and running sets, and its bots' profiles. Errors: database.
    pub async fn player_view(&self, p: &PlayerRow) -> ArenaResult<Value> {
        let mut c = self.store.conn().await?;
        let escrow = ledger::escrow_of_player(&mut c, &p.id).await?;
        let mut bots = vec![];
        for b in acc::bots_of_owner(&mut c, &p.id).await? {
            bots.push(self.profile_in(&mut c, &b, None).await?);
        }
        Ok(json!({
            "id": p.id, "name": p.name, "balance": p.balance, "escrow": escrow, "bots": bots,
            "created_at": rfc3339(p.created_ms),
        }))
    }

    /// `GET /v1/players/me/ledger`: the player's postings newest first, at most `limit`, with
    /// ids below `before` when given; `next_before` is the cursor of the next page (null on
    /// the last). Errors: database.
    pub async fn ledger_page(
        &self,
        p: &PlayerRow,
        before: Option<i64>,
        limit: i64,
    ) -> ArenaResult<Value> {
        let mut c = self.store.conn().await?;
        let rows = ledger::of_player(&mut c, &p.id, before, limit).await?;
        let next = if rows.len() as i64 == limit {
            rows.last().map(|r| r.id)
        } else {
            None
        };
        let postings: Vec<Value> = rows
            .iter()
            .map(|r| json!({"id": r.id, "kind": r.kind, "amount": r.amount, "set_id": r.set_id, "at": rfc3339(r.at_ms)}))
            .collect();
        Ok(json!({"balance": p.balance, "postings": postings, "next_before": next}))
    }

    /// `GET /v1/bots/{a}/versus/{b}`: the head-to-head figures of the bot `a_ref` against
    /// `b_ref`, from a's side (see [`Arena::head_to_head_in`]). Errors: 404 `not_found` for
    /// an unknown bot (a first), 400 `bad_request` for a bot against itself, database.
    pub async fn versus(&self, a_ref: &str, b_ref: &str) -> ArenaResult<Value> {
        let mut c = self.store.conn().await?;
        let a = acc::bot_by_ref(&mut c, a_ref)
            .await?
            .ok_or_else(|| no_bot(a_ref))?;
        let b = acc::bot_by_ref(&mut c, b_ref)
            .await?
            .ok_or_else(|| no_bot(b_ref))?;
        if a.id == b.id {
            return Err(ArenaError::bad_request(
                "a bot has no head-to-head with itself",
            ));
        }
        self.head_to_head_in(&mut c, &a, &b).await
    }

    /// The head-to-head rows of `b` against the (at most `limit`) bots it finished the most
    /// sets with, most sets first (`GET /v1/bots/{bot}/opponents` and the bot's page).
    /// Errors: database.
    pub async fn opponents(&self, b: &BotRow, limit: i64) -> ArenaResult<Vec<Value>> {
        let mut c = self.store.conn().await?;
        let mut rows = vec![];
        for (opp, _) in crate::store::sets::frequent_opponents(&mut c, &b.id, limit).await? {
            if let Some(o) = acc::bot_by_ref(&mut c, &opp).await? {
                rows.push(self.head_to_head_in(&mut c, b, &o).await?);
            }
        }
        Ok(rows)
    }

    /// The body of `GET /v1/bots/{bot}/ratings` (and the bot page's chart): the bot's
    /// ratings before and after each of its last 200 rated sets, oldest first (issue 14),
    /// Elo and Glicko-2 (issue 20), with the opponent and the result. Errors: database.
    pub async fn rating_history(&self, b: &BotRow) -> ArenaResult<Value> {
        let mut c = self.store.conn().await?;
        let history: Vec<Value> =
            crate::store::sets::rating_history(&mut c, &b.id, RATING_HISTORY_MAX)
                .await?
                .iter()
                .map(|p| {
                    let (result, score) = match p.winner_id.as_deref() {
                        None => ("draw", 0.5),
                        Some(w) if w == b.id => ("win", 1.0),
                        Some(_) => ("loss", 0.0),
                    };
                    json!({"set_id": p.set_id, "finished_at": opt_time(p.finished_ms),
                           "rating_before": p.rating_before, "rating_after": p.rating_after,
                           "opponent": p.opponent_name, "opponent_id": p.opponent_id,
                           "result": result, "score": score,
                           "glicko_rating_before": p.glicko_before, "glicko_rating": p.glicko_after,
                           "rating_deviation_before": p.deviation_before,
                           "rating_deviation": p.deviation_after,
                           "provisional": p.deviation_after.map(|d| d > glicko::PROVISIONAL_ABOVE)})
                })
                .collect();
        let g = Glicko::of_bot(b, self.now_ms());
        Ok(json!({
            "bot": b.name, "rating": b.rating, "glicko_rating": g.rating,
            "rating_deviation": g.deviation, "provisional": g.provisional(), "history": history,
        }))
    }

    /// The rows of `GET /v1/leaderboard` (and the home page): bots in Elo order (SPEC 8)
    /// from place `offset + 1`, at most `limit`, filtered by `which` (see
    /// [`provisional_filter`]), each with its Glicko-2 rating, deviation and provisional
    /// mark. Errors: database.
    pub async fn leaderboard_rows(
        &self,
        which: Provisional,
        limit: i64,
        offset: i64,
    ) -> ArenaResult<Vec<Value>> {
        let now = self.now_ms();
        let mut c = self.store.conn().await?;
        let rows: Vec<Value> = acc::leaderboard_page(&mut c, now, which, limit, offset)
            .await?
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let g = Glicko::of_bot(b, now);
                json!({"rank": offset.saturating_add(i as i64 + 1), "bot": b.name,
                       "rating": b.rating.round() as i64, "sets": b.sets,
                       "w": b.wins, "d": b.draws, "l": b.losses, "won": b.won, "net": b.net,
                       "owner": b.owner_id, "owner_name": b.owner_name, "house": b.house != 0,
                       "glicko_rating": g.rating, "rating_deviation": g.deviation,
                       "provisional": g.provisional()})
            })
            .collect();
        Ok(rows)
    }

    /// A bot's public profile on connection `c`, with its leaderboard `rank` when the caller
    /// knows it (a list in the board's order), else counted.
    async fn profile_in(&self, c: &mut Conn, b: &BotRow, rank: Option<i64>) -> ArenaResult<Value> {
        // A retired bot is off the leaderboard (issue 20): no rank.
        let rank = match (rank, b.retired_ms) {
            (_, Some(_)) => None,
            (Some(r), None) => Some(r),
            (None, None) => Some(acc::rank_of(c, b).await?),
        };
        let g = Glicko::of_bot(b, self.now_ms());
        let (strikes, until) = self.strikes(c, &b.id).await?;
        let strikes: Vec<Value> = strikes
            .iter()
            .map(|s| {
                json!({"set_id": s.set_id, "game_no": s.game_no, "at": rfc3339(s.at_ms),
                       "expires_at": rfc3339(s.at_ms + STRIKE_WINDOW_MS)})
            })
            .collect();
        Ok(json!({
            "id": b.id,
            "name": b.name,
            "owner": b.owner_id,
            "owner_name": b.owner_name,
            "house": b.house != 0,
            // What a house bot is: its rung of the ladder (issue 11), from the code.
            "ladder": if b.house != 0 { super::house::ladder_json(&b.name) } else { None },
            // An outside engine played as a house bot (issue 23): never its command line.
            "engine": if b.house != 0 { super::house::engine_json(self, &b.name) } else { None },
            "max_stake": b.max_stake,
            "rating": b.rating.round() as i64,
            "rating_exact": b.rating,
            // Glicko-2 (issue 20): its rating, deviation as of now, volatility, the mark.
            "glicko_rating": g.rating,
            "rating_deviation": g.deviation,
            "rating_volatility": g.volatility,
            "provisional": g.provisional(),
            "rank": rank,
            "sets": b.sets,
            "w": b.wins,
            "d": b.draws,
            "l": b.losses,
            "won": b.won,
            "net": b.net,
            "strikes": strikes,
            // Illegal moves, moves out of turn and stale plies refused (issue 18).
            "refused_moves": crate::store::games::refused_of_bot(c, &b.id).await?,
            "online": b.house != 0 || self.is_online(c, &b.id).await?,
            "suspended_until": until.map(rfc3339),
            "created_at": rfc3339(b.created_ms),
            // Account hygiene and declarations (issue 20).
            "retired": b.retired_ms.is_some(),
            "retired_at": b.retired_ms.map(rfc3339),
            "accepts": super::accepts::Accepts::of_bot(b).effective_json(),
            "max_concurrent_sets": b.max_concurrent_sets,
        }))
    }

    /// Head-to-head figures of `a` against `b` (issue 20), from `a`'s side: finished sets
    /// (practice left out) with W/D/L, the game score, the Elo difference the game score
    /// implies (`400 log10(s / (1 - s))`) with the 95% Wilson interval of `s` mapped through
    /// the same formula (as BENCHMARKS.md), and the likelihood of superiority over game points
    /// (`(1 + erf((W - L) / sqrt(2 (W + L)))) / 2`). Figures that would be infinite are null.
    async fn head_to_head_in(&self, c: &mut Conn, a: &BotRow, b: &BotRow) -> ArenaResult<Value> {
        use super::elo_stats::{elo_of, los, round1, wilson};
        let v = crate::store::sets::versus(c, &a.id, &b.id).await?;
        let (pa, pb) = (v.points2_a as f64 / 2.0, v.points2_b as f64 / 2.0);
        let games = pa + pb;
        let score = (games > 0.0).then(|| pa / games);
        let interval = score.and_then(|s| wilson(s, games));
        Ok(json!({
            "bot": a.name,
            "opponent": b.name,
            "opponent_id": b.id,
            "sets": v.sets,
            "w": v.wins,
            "d": v.sets - v.wins - v.losses,
            "l": v.losses,
            "games": games,
            "game_points": pa,
            "opponent_game_points": pb,
            "score": score,
            "elo_diff": score.and_then(elo_of).map(round1),
            "elo_low": interval.and_then(|(lo, _)| elo_of(lo)).map(round1),
            "elo_high": interval.and_then(|(_, hi)| elo_of(hi)).map(round1),
            "los": los(pa, pb).map(|p| (p * 10_000.0).round() / 10_000.0),
        }))
    }
}
