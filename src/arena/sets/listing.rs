//! Sets as the API shows them: one set, its names and settlement, and the lists.

use super::*;
use crate::store::Conn;

impl Arena {
    /// The full set view of SPEC section 5.
    pub async fn set_view(&self, c: &mut Conn, set: &SetRow) -> ArenaResult<Value> {
        let names = self.set_names(c, set).await?;
        let mut v = views::set_row_json(set, &names);
        let mut games_json = vec![];
        for g in games::of_set(c, &set.id).await? {
            let n = [
                self.bot_name(c, &g.seat1_id).await?,
                self.bot_name(c, &g.seat2_id).await?,
            ];
            games_json.push(views::game_summary_json(&g, &n));
        }
        v["games"] = json!(games_json);
        v["seed_sha256"] = json!(set.seed_sha256);
        v["seed"] = if set.status == SetStatus::Finished {
            json!(set.seed_hex)
        } else {
            Value::Null
        };
        v["opening"] = match &set.opening {
            Some(_) => json!(views::opening_of(set)),
            None => Value::Null,
        };
        v["settlement"] = self.settlement_json(c, set).await?;
        v["ratings"] = self.set_ratings_json(c, set, &names).await?;
        Ok(v)
    }

    /// A rated set's `ratings`: `[creator, acceptor]`, each `{"bot", "rating_before",
    /// "rating_after", "glicko_rating_before", "glicko_rating", "rating_deviation_before",
    /// "rating_deviation"}` (the names of `GET /v1/bots/{name}/ratings`; the Glicko-2 ones
    /// null for a set rated before issue 20); null for a set not rated, or not yet settled.
    async fn set_ratings_json(
        &self,
        c: &mut Conn,
        set: &SetRow,
        names: &SetNames,
    ) -> ArenaResult<Value> {
        if set.status != SetStatus::Finished || set.rated == 0 {
            return Ok(Value::Null); // nothing was recorded: no read
        }
        let Some(r) = sets::ratings_of(c, &set.id).await? else {
            return Ok(Value::Null);
        };
        let side = |bot: Option<&str>, elo: [Option<f64>; 2], glicko: [Option<f64>; 4]| {
            let [Some(before), Some(after)] = elo else {
                return None;
            };
            Some(
                json!({"bot": bot, "rating_before": before, "rating_after": after,
                        "glicko_rating_before": glicko[0], "glicko_rating": glicko[1],
                        "rating_deviation_before": glicko[2], "rating_deviation": glicko[3]}),
            )
        };
        let creator = side(
            Some(&names.creator),
            [r.rating_creator_before, r.rating_creator_after],
            [
                r.glicko_creator_before,
                r.glicko_creator_after,
                r.deviation_creator_before,
                r.deviation_creator_after,
            ],
        );
        let acceptor = side(
            names.acceptor.as_deref(),
            [r.rating_acceptor_before, r.rating_acceptor_after],
            [
                r.glicko_acceptor_before,
                r.glicko_acceptor_after,
                r.deviation_acceptor_before,
                r.deviation_acceptor_after,
            ],
        );
        Ok(match (creator, acceptor) {
            (Some(a), Some(b)) => json!([a, b]),
            _ => Value::Null,
        })
    }

    /// Names of a set's bots.
    pub async fn set_names(&self, c: &mut Conn, set: &SetRow) -> ArenaResult<SetNames> {
        let mut n = SetNames {
            creator: self.bot_name(c, &set.creator_id).await?,
            ..SetNames::default()
        };
        if let Some(a) = &set.acceptor_id {
            n.acceptor = Some(self.bot_name(c, a).await?);
        }
        if let Some(o) = &set.opponent_id {
            n.opponent = Some(self.bot_name(c, o).await?);
        }
        if let Some(w) = &set.winner_id {
            n.winner = Some(self.bot_name(c, w).await?);
        }
        if set.practice == 0 {
            n.event = crate::store::tournaments::event_of_set(c, &set.id)
                .await?
                .map(|(id, name, format, round, board)| views::SetEvent {
                    id,
                    name,
                    format,
                    round,
                    board,
                });
        }
        Ok(n)
    }

    async fn settlement_json(&self, c: &mut Conn, set: &SetRow) -> ArenaResult<Value> {
        if set.status != SetStatus::Finished || set.stake == 0 {
            return Ok(Value::Null);
        }
        let rows = ledger::legs_of_transfer(c, &format!("settle:{}", set.id)).await?;
        let fee: i64 = rows
            .iter()
            .filter(|r| r.kind == "fee")
            .map(|r| r.amount)
            .sum();
        let payouts: Vec<Value> = rows
            .iter()
            .filter_map(|r| {
                r.player_id.as_ref().map(|p| {
                    json!({"player": p, "player_name": r.player_name, "kind": r.kind, "amount": r.amount})
                })
            })
            .collect();
        Ok(json!({"pot": 2 * set.stake, "fee": fee, "payouts": payouts}))
    }

    /// A page of sets, newest first, as list rows; returns the rows and the next cursor.
    pub async fn list_sets(
        &self,
        status: Option<&str>,
        bot: Option<&str>,
        before: Option<&str>,
        limit: i64,
    ) -> ArenaResult<Value> {
        let mut c = self.store.conn().await?;
        let bot_id = match bot {
            Some(b) => match acc::bot_by_ref(&mut c, b).await? {
                Some(row) => Some(row.id),
                None => return Err(ArenaError::not_found(format!("no bot '{b}'"))),
            },
            None => None,
        };
        let rows = sets::list(&mut c, status, bot_id.as_deref(), before, limit).await?;
        let mut out = Vec::with_capacity(rows.len());
        for s in &rows {
            let names = self.set_names(&mut c, s).await?;
            out.push(views::set_row_json(s, &names));
        }
        let next = if rows.len() as i64 == limit {
            rows.last().map(|s| s.id.clone())
        } else {
            None
        };
        Ok(json!({"sets": out, "next_before": next}))
    }

    /// One set by id.
    pub async fn get_set(&self, set_id: &str) -> ArenaResult<Value> {
        let mut c = self.store.conn().await?;
        let set = sets::get(&mut c, set_id, "")
            .await?
            .ok_or_else(|| ArenaError::not_found(format!("no set '{set_id}'")))?;
        self.set_view(&mut c, &set).await
    }
}
