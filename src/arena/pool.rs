//! The matchmaking pool (issue 20): `POST /v1/pool` joins, `DELETE /v1/pool` leaves,
//! `GET /v1/pool` lists who waits. While a bot is in the pool and online (SPEC 14), the
//! arena starts sets for it by itself: every second, and at once after a join or the end of
//! a set, a pass reads the pool, asks [`matchmaking::choose`] (the rules are there), then
//! starts each pairing through the same path as practice, tournaments and matches
//! ([`Arena::start_now_in`]), which announces it to both bots with `set_started`.
//!
//! Several instances may pass at once over one database: each pairing is its own write
//! transaction that first locks the pool rows of its bots and checks that their `version` is
//! the one the pass read. A pairing stored by another instance (or a join, a leave, a change)
//! moved it on, so the same bots are never paired twice from one reading; the bots' rows are
//! then locked and their sets in play counted again, as an accept does.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::accepts::{self, Accepts, LIMITS, NotAccepted};
use super::error::{ArenaError, ArenaResult, Code};
use super::matchmaking::{self, Ask, Candidate, Pairing, Rules, Snapshot};
use super::options::{GameOptions, INCREMENT_S, INITIAL_S, stake_error};
use super::sets::NewSet;
use super::views::rfc3339;
use super::{Arena, Change};
use crate::store::Conn;
use crate::store::accounts::{self as acc, BotRow};
use crate::store::pool::{self as store, PoolEntryRow};

/// Most pool sets between one pair in any hour, unless the operator says otherwise.
pub const PAIR_SETS_PER_HOUR_DEFAULT: i64 = 6;
/// How often the pool is passed over when nothing wakes it.
const TICK: Duration = Duration::from_secs(1);
const HOUR_MS: i64 = 3_600_000;

/// A validated `POST /v1/pool` body: the stake (0 unstaked, 10..=1000), whether the sets are
/// rated (always, when staked) and the options and clock asked for (None: any).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JoinRequest {
    pub stake: i64,
    pub rated: bool,
    pub ask: Ask,
}

/// An option's value for a bot alone: what it asked, else the contract's default moved into
/// its declared range.
fn own_value(a: &Accepts, name: &str, default: i64, asked: Option<i64>) -> i64 {
    asked.unwrap_or_else(|| {
        let limit = LIMITS
            .iter()
            .find(|(n, _)| *n == name)
            .map_or([default, default], |(_, l)| *l);
        let [lo, hi] = a.range(name).unwrap_or(limit);
        default.clamp(lo, hi)
    })
}

fn ask_of(e: &PoolEntryRow) -> Ask {
    Ask {
        size: e.size,
        random_stones: e.random_stones,
        initial_s: e.initial_ms.map(|v| v / 1000),
        increment_s: e.increment_ms.map(|v| v / 1000),
    }
}

/// How many sets a bot in the pool plays at once: its `max_concurrent_sets`, else 1.
fn capacity(b: &BotRow) -> i64 {
    b.max_concurrent_sets.unwrap_or(1)
}

impl Arena {
    /// The pool's rules as configured.
    #[must_use]
    pub fn pool_rules(&self) -> Rules {
        Rules {
            pair_sets_per_hour: self.config.pool_pair_sets_per_hour,
            house_wait_ms: self.house.get().and_then(|h| h.config.lobby_wait_ms),
            house_plays: super::house::clock_pays_floor,
        }
    }

    /// Puts `bot` in the pool, or changes what its entry asks for (its place is kept); the
    /// same request again changes nothing. Answers the entry as [`Arena::pool_list`] shows it.
    ///
    /// Errors: 400 `bad_request` (stake not 0 or 10..=1000, above the bot's `max_stake`,
    /// staked with `rated: false`), 409 `bot_retired`, 422 `not_accepted` (an option, clock
    /// value or stake outside the bot's own accepts), 403 `suspended` and 409
    /// `insufficient_balance` (staked only). A refusal changes nothing.
    pub async fn pool_join(&self, bot: &BotRow, req: JoinRequest) -> ArenaResult<Value> {
        let Ask {
            size,
            random_stones,
            initial_s,
            increment_s,
        } = req.ask;
        let check = NewSet {
            options: GameOptions::default(),
            initial_ms: 0,
            increment_ms: 0,
            stake: req.stake,
            opponent: None,
            rated: req.rated,
            practice: false,
            pool: true,
        };
        check.check_stake()?;
        if req.stake > bot.max_stake {
            return Err(stake_error(
                format!("stake exceeds {}'s max_stake {}", bot.name, bot.max_stake),
                bot.max_stake,
            ));
        }
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        let me = super::sets::not_retired(&mut tx, bot).await?;
        let a = Accepts::of_bot(&me);
        let options = GameOptions {
            size: own_value(&a, "sizes", 11, size),
            random_stones: own_value(&a, "random_stones", 4, random_stones),
        };
        let initial_ms = own_value(&a, "initial_s", INITIAL_S.2, initial_s) * 1000;
        let increment_ms = own_value(&a, "increment_s", INCREMENT_S.2, increment_s) * 1000;
        accepts::accepts_check(&me, &options, initial_ms, increment_ms, req.stake)?;
        if req.stake > 0 {
            self.ensure_not_suspended(&mut tx, &me).await?;
            let balance = acc::player_by_id(&mut tx, &me.owner_id)
                .await?
                .map_or(0, |p| p.balance);
            if balance < req.stake {
                return Err(ArenaError::new(
                    Code::InsufficientBalance,
                    format!("your balance {balance} is below the stake"),
                )
                .with_details(json!({"balance": balance, "stake": req.stake})));
            }
        }
        let mut row = PoolEntryRow {
            bot_id: me.id.clone(),
            stake: req.stake,
            rated: i64::from(req.stake > 0 || req.rated),
            size,
            random_stones,
            initial_ms: initial_s.map(|s| s * 1000),
            increment_ms: increment_s.map(|s| s * 1000),
            joined_ms: now,
            version: 0,
        };
        match store::entry(&mut tx, &me.id, self.store.for_update()).await? {
            None => store::insert(&mut tx, &row).await?,
            Some(old) => {
                row.joined_ms = old.joined_ms;
                row.version = old.version;
                if old != row {
                    store::update(&mut tx, &row).await?;
                }
            }
        }
        tx.commit().await?;
        self.pool_wake.notify_one();
        let mut c = self.store.conn().await?;
        let row = store::entry(&mut c, &me.id, "")
            .await?
            .ok_or_else(|| ArenaError::internal("pool entry vanished"))?;
        self.pool_entry_json(&mut c, &row, &me).await
    }

    /// Takes `bot` out of the pool (sets already started go on); leaving again changes
    /// nothing. Returns whether it was in the pool. Errors: database.
    pub async fn pool_leave(&self, bot: &BotRow) -> ArenaResult<bool> {
        let mut tx = self.store.begin_write().await?;
        let n = store::remove(&mut tx, &bot.id).await?;
        tx.commit().await?;
        Ok(n > 0)
    }

    /// `GET /v1/pool`: every entry, longest waiting first, and the pool's rules:
    /// `{"entries": [{"bot", "rating", "online", "playing", "capacity", "stake", "rated",
    /// "options", "clock", "joined_at"}], "rules": {"pair_sets_per_hour",
    /// "house_stand_in_after_ms"}}`. `options` and `clock` hold only what the bot asked for.
    pub async fn pool_list(&self) -> ArenaResult<Value> {
        let mut c = self.store.conn().await?;
        let rows = store::entries(&mut c).await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            if let Some(b) = acc::bot_by_ref(&mut c, &row.bot_id).await? {
                out.push(self.pool_entry_json(&mut c, row, &b).await?);
            }
        }
        let rules = self.pool_rules();
        Ok(json!({
            "entries": out,
            "rules": {
                "pair_sets_per_hour": rules.pair_sets_per_hour,
                "house_stand_in_after_ms": rules.house_wait_ms,
            },
        }))
    }

    async fn pool_entry_json(
        &self,
        c: &mut Conn,
        row: &PoolEntryRow,
        b: &BotRow,
    ) -> ArenaResult<Value> {
        let mut options = serde_json::Map::new();
        if let Some(v) = row.size {
            options.insert("size".into(), json!(v));
        }
        if let Some(v) = row.random_stones {
            options.insert("random_stones".into(), json!(v));
        }
        let mut clock = serde_json::Map::new();
        if let Some(v) = row.initial_ms {
            clock.insert("initial_s".into(), json!(v / 1000));
        }
        if let Some(v) = row.increment_ms {
            clock.insert("increment_s".into(), json!(v / 1000));
        }
        Ok(json!({
            "bot": b.name,
            "rating": b.rating,
            "online": self.is_online(c, &b.id).await?,
            "playing": acc::active_sets_of(c, &b.id).await?,
            "capacity": capacity(b),
            "stake": row.stake,
            "rated": row.rated != 0,
            "options": options,
            "clock": clock,
            "joined_at": rfc3339(row.joined_ms),
        }))
    }

    /// What a pass sees (see [`matchmaking::Snapshot`]), and the version of each entry read.
    async fn pool_snapshot(&self) -> ArenaResult<(Snapshot, HashMap<String, i64>)> {
        let mut c = self.store.conn().await?;
        let rows = store::entries(&mut c).await?;
        let mut snap = Snapshot {
            now_ms: self.now_ms(),
            ..Snapshot::default()
        };
        let mut versions = HashMap::new();
        if rows.is_empty() {
            return Ok((snap, versions));
        }
        for row in rows {
            let Some(b) = acc::bot_by_ref(&mut c, &row.bot_id).await? else {
                continue;
            };
            if b.retired_ms.is_some() || b.house != 0 || !self.is_online(&mut c, &b.id).await? {
                continue;
            }
            let playing = acc::active_sets_of(&mut c, &b.id).await?;
            let last = store::last_set_of(&mut c, &b.id).await?;
            let may_stake = row.stake == 0
                || (self.strikes(&mut c, &b.id).await?.1.is_none()
                    && acc::player_by_id(&mut c, &b.owner_id)
                        .await?
                        .is_some_and(|p| p.balance >= row.stake));
            versions.insert(b.id.clone(), row.version);
            snap.entries.push(Candidate {
                rating: b.rating,
                house: false,
                stake: row.stake,
                rated: row.rated != 0,
                ask: ask_of(&row),
                accepts: Accepts::of_bot(&b),
                max_stake: b.max_stake,
                room: capacity(&b) - playing,
                may_stake,
                waiting_since_ms: last
                    .as_ref()
                    .map_or(row.joined_ms, |l| l.1.max(row.joined_ms)),
                last_opponent: last.map(|l| l.0),
                owner_id: b.owner_id.clone(),
                bot_id: b.id,
            });
        }
        if snap.entries.is_empty() {
            return Ok((snap, versions));
        }
        if let Some(house) = self.house.get()
            && house.config.lobby_wait_ms.is_some()
        {
            for hb in &house.bots {
                if let Some(b) = acc::bot_by_ref(&mut c, &hb.bot.id).await? {
                    snap.house.push(Candidate {
                        rating: b.rating,
                        house: true,
                        accepts: Accepts::of_bot(&b),
                        max_stake: b.max_stake,
                        room: 1,
                        may_stake: true,
                        owner_id: b.owner_id,
                        bot_id: b.id,
                        ..Candidate::default()
                    });
                }
            }
        }
        snap.recent = store::sets_since(&mut c, snap.now_ms - HOUR_MS)
            .await?
            .into_iter()
            .map(|(_, a, b, _)| (a, b.unwrap_or_default()))
            .collect();
        Ok((snap, versions))
    }

    /// One pass over the pool: the sets it started. A pairing that can no longer be made
    /// (another instance paired a bot first, a check failed) is skipped.
    pub async fn pool_pass(&self) -> ArenaResult<usize> {
        let (snap, mut versions) = self.pool_snapshot().await?;
        if snap.entries.is_empty() {
            return Ok(0);
        }
        let mut started = 0;
        for p in matchmaking::choose(&snap, &self.pool_rules()) {
            match self.pool_start(&p, &versions).await {
                Ok(true) => {
                    started += 1;
                    for id in [&p.creator, &p.acceptor] {
                        if let Some(v) = versions.get_mut(id.as_str()) {
                            *v += 1;
                        }
                    }
                }
                Ok(false) => {}
                // The house is at its load: the bot waits for the next pass.
                Err(e) if e.is(Code::HouseBusy) => tracing::debug!(error = %e, "no stand-in"),
                Err(e) => tracing::info!(
                    creator = %p.creator, acceptor = %p.acceptor, error = %e,
                    "pool pairing not made"
                ),
            }
        }
        Ok(started)
    }

    /// Starts one pairing if its entries are still as read (`versions`); Ok(false) when not.
    async fn pool_start(&self, p: &Pairing, versions: &HashMap<String, i64>) -> ArenaResult<bool> {
        let st = p.settings;
        // A house bot accepts only what the house can play well (held until the set is stored).
        let _admitted = if p.house {
            self.house_admit(st.initial_ms, st.increment_ms, st.size)
                .await?
        } else {
            None
        };
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        let mut in_pool: Vec<&str> = vec![p.creator.as_str()];
        if !p.house {
            in_pool.push(p.acceptor.as_str());
        }
        in_pool.sort_unstable();
        for id in &in_pool {
            let v = store::entry(&mut tx, id, self.store.for_update())
                .await?
                .map(|e| e.version);
            if v.is_none() || v != versions.get(*id).copied() {
                return Ok(false);
            }
        }
        let mut bots = Vec::with_capacity(2);
        for id in [&p.creator, &p.acceptor] {
            match acc::bot_by_ref(&mut tx, id).await? {
                Some(b) if b.retired_ms.is_none() => bots.push(b),
                _ => return Ok(false),
            }
        }
        let options = GameOptions {
            size: st.size,
            random_stones: st.random_stones,
        };
        let ids: Vec<&str> = bots.iter().map(|b| b.id.as_str()).collect();
        acc::lock_bots(&mut tx, &ids, self.store.backend).await?;
        for b in &bots {
            accepts::accepts_check(b, &options, st.initial_ms, st.increment_ms, st.stake)?;
            if b.house == 0 {
                let playing = acc::active_sets_of(&mut tx, &b.id).await?;
                if playing >= capacity(b) {
                    return Err(NotAccepted {
                        bot: b.name.clone(),
                        option: "max_concurrent_sets",
                        value: playing,
                        range: None,
                        limit: Some(capacity(b)),
                    }
                    .into());
                }
            }
        }
        let req = NewSet {
            options,
            initial_ms: st.initial_ms,
            increment_ms: st.increment_ms,
            stake: st.stake,
            opponent: None,
            rated: st.rated,
            practice: false,
            pool: true,
        };
        let (view, fx) = self
            .start_now_in(&mut tx, &bots[0], &bots[1], req, now)
            .await?;
        for id in &in_pool {
            store::bump(&mut tx, id).await?;
        }
        fx.commit(tx, self, now).await?;
        tracing::info!(
            set_id = view["id"].as_str().unwrap_or_default(),
            creator = %bots[0].name,
            acceptor = %bots[1].name,
            house = p.house,
            "the pool started a set"
        );
        Ok(true)
    }
}

/// Runs for the life of the process: a pass every second, and at once after a join or a
/// set-level change (a set ended, so its bots have room again).
pub async fn run(arena: Arc<Arena>) {
    let mut rx = arena.changes.subscribe_listed();
    let mut backoff = super::backoff::Backoff::new("matchmaking pool", super::backoff::MAX);
    loop {
        if arena.store.health.is_down() {
            tokio::time::sleep(crate::store::health::PROBE_MAX).await;
            continue;
        }
        if arena.clock.unsynced().is_none() && !arena.is_stopping() {
            match arena.pool_pass().await {
                Ok(_) => backoff.succeeded(),
                Err(e) => tokio::time::sleep(backoff.failed(&e)).await,
            }
        }
        let until = tokio::time::Instant::now() + TICK;
        loop {
            tokio::select! {
                () = tokio::time::sleep_until(until) => break,
                () = arena.pool_wake.notified() => break,
                r = rx.recv() => match r {
                    Ok(c) if is_set_change(&c) => break,
                    Ok(_) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => break,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                },
            }
        }
    }
}

/// A set-level change (a set started, ended or closed), not a move.
fn is_set_change(c: &Change) -> bool {
    c.game_no.is_none() && !c.resync
}
