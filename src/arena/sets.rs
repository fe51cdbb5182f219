//! Sets: create, accept, cancel, decline, practice and operator pairings (SPEC sections 5, 8, 9).

use hex::Position;
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::accounts::transfer_error;
use super::error::{ArenaError, ArenaResult};
use super::play::Effects;
use super::views::{self, SetNames};
use super::{Arena, Change};
use crate::store::WriteTx;
use crate::store::accounts::{self as acc, BotRow};
use crate::store::events::LOBBY;
use crate::store::games::{self, GameRow};
use crate::store::ledger::{self, Posting};
use crate::store::sets::{self, SetRow};

/// Stake limits (SPEC section 8).
pub const STAKE_MIN: i64 = 10;
pub const STAKE_MAX: i64 = 1000;
pub const STAKE_DEFAULT: i64 = 10;
/// Clock limits and defaults (SPEC section 7), seconds.
pub const INITIAL_S: (i64, i64, i64) = (10, 600, 60);
pub const INCREMENT_S: (i64, i64, i64) = (0, 10, 2);

/// Options of a game after schema validation; defaults filled in.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct GameOptions {
    #[serde(default = "default_size")]
    pub size: i64,
    #[serde(default = "default_stones")]
    pub random_stones: i64,
}
fn default_size() -> i64 {
    11
}
fn default_stones() -> i64 {
    4
}
impl Default for GameOptions {
    fn default() -> Self {
        GameOptions {
            size: 11,
            random_stones: 4,
        }
    }
}

/// A requested clock, seconds.
#[derive(Debug, Clone, Copy, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ClockRequest {
    pub initial_s: Option<i64>,
    pub increment_s: Option<i64>,
}

impl ClockRequest {
    /// Validated (initial_ms, increment_ms). Errors: 400 `bad_request` naming the field and range.
    pub fn resolve(&self) -> ArenaResult<(i64, i64)> {
        let initial = self.initial_s.unwrap_or(INITIAL_S.2);
        let inc = self.increment_s.unwrap_or(INCREMENT_S.2);
        for (field, v, (min, max, _)) in [
            ("clock.initial_s", initial, INITIAL_S),
            ("clock.increment_s", inc, INCREMENT_S),
        ] {
            if !(min..=max).contains(&v) {
                return Err(
                    ArenaError::bad_request(format!("{field} must be {min} to {max}"))
                        .with_details(json!({"field": field, "min": min, "max": max, "value": v})),
                );
            }
        }
        Ok((initial * 1000, inc * 1000))
    }
}

/// What a set is created with, validated.
#[derive(Debug, Clone)]
pub struct NewSet {
    pub options: GameOptions,
    pub initial_ms: i64,
    pub increment_ms: i64,
    /// PTS each bot stakes; 0 = unstaked (no escrow, no settlement; SPEC 14).
    pub stake: i64,
    pub opponent: Option<String>,
    /// Whether the set moves ratings. Always true for a staked set; the creator's choice
    /// (default false) for an unstaked one (SPEC 14).
    pub rated: bool,
    /// A house practice set (POST /v1/practice only): not in the records (issue 18).
    pub practice: bool,
}

impl NewSet {
    /// True when the set stakes PTS (`stake` > 0).
    #[must_use]
    pub fn staked(&self) -> bool {
        self.stake > 0
    }

    /// Checks the stake and rating choice: a staked set stakes 10..=1000 and is always rated;
    /// `stake: 0` makes an unstaked set. Errors: 400 `bad_request` naming `stake` or `rated`.
    pub fn check_stake(&self) -> ArenaResult<()> {
        if self.stake != 0 && !(STAKE_MIN..=STAKE_MAX).contains(&self.stake) {
            return Err(stake_error(
                format!("stake must be 0 (unstaked) or {STAKE_MIN} to {STAKE_MAX}"),
                STAKE_MAX,
            ));
        }
        if self.staked() && !self.rated {
            return Err(ArenaError::bad_request(
                "a staked set is always rated; use stake 0 for rated: false",
            )
            .with_details(json!({"field": "rated"})));
        }
        Ok(())
    }
}

pub(crate) fn stake_error(msg: String, max: i64) -> ArenaError {
    ArenaError::bad_request(msg)
        .with_details(json!({"field": "stake", "min": STAKE_MIN, "max": max}))
}

/// A settlement's ledger row: account, player id, kind, amount and the player's name.
type PayoutRow = (String, Option<String>, String, i64, Option<String>);

impl Arena {
    /// Creates an open set (lobby or private challenge). Errors: bad stake (400), unknown
    /// opponent (404), self-challenge (400), same owner (403), suspended (403), balance (409),
    /// a house bot addressed while the house is busy (503 `house_busy`) or with a clock too
    /// fast for the board (422 `clock_too_fast_for_house`), see [`Arena::house_admit`].
    pub async fn create_set(&self, bot: &BotRow, req: NewSet) -> ArenaResult<Value> {
        req.check_stake()?;
        if req.stake > bot.max_stake {
            return Err(stake_error(
                format!("stake exceeds {}'s max_stake {}", bot.name, bot.max_stake),
                bot.max_stake,
            ));
        }
        // A house bot accepts at once: admit the game now, holding the house's admission lock
        // until the set is stored, or refuse rather than lose on time (issue 11). Taken
        // before the write transaction (whoever holds the lock may be waiting for one).
        let _admitted = match req.opponent.as_deref() {
            Some(name) if self.house_bot_named(name).is_some() => {
                self.house_admit(req.initial_ms, req.increment_ms, req.options.size)
                    .await?
            }
            _ => None,
        };
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        if req.staked() {
            self.ensure_not_suspended(&mut tx, bot).await?;
        }
        let opponent = match &req.opponent {
            Some(name) => {
                let o = acc::bot_by_ref(&mut tx, name)
                    .await?
                    .ok_or_else(|| ArenaError::not_found(format!("no bot named '{name}'")))?;
                if o.id == bot.id {
                    return Err(ArenaError::bad_request("a bot cannot challenge itself")
                        .with_details(json!({"field": "opponent"})));
                }
                if req.staked() && o.owner_id == bot.owner_id {
                    return Err(same_owner());
                }
                if req.stake > o.max_stake {
                    // It could never be accepted; say so now rather than leave it open.
                    return Err(stake_error(
                        format!("stake exceeds {}'s max_stake {}", o.name, o.max_stake),
                        o.max_stake,
                    ));
                }
                Some(o)
            }
            None => None,
        };
        let balance = acc::player_by_id(&mut tx, &bot.owner_id)
            .await?
            .map_or(0, |p| p.balance);
        if balance < req.stake {
            return Err(ArenaError::conflict(
                "insufficient_balance",
                format!("your balance {balance} is below the stake"),
            )
            .with_details(json!({"balance": balance, "stake": req.stake})));
        }
        let set = new_set_row(bot, &req, opponent.as_ref().map(|o| o.id.clone()), now);
        sets::insert(&mut tx, &set).await?;
        let mut fx = Effects::default();
        let view = self.set_view(&mut tx, &set).await?;
        let audience = opponent.as_ref().map_or(LOBBY, |o| o.id.as_str());
        fx.event(
            Some(audience),
            &set.id,
            None,
            "challenge",
            json!({"set": view}),
        );
        fx.change(Change {
            set_id: set.id.clone(),
            game_no: None,
            bots: vec![audience.to_string()],
            ..Change::default()
        });
        fx.commit(tx, self, now).await?;
        Ok(view)
    }

    /// Accepts an open set: escrow, opening, game 1 starts. A retry by the bot that already
    /// accepted answers the set as it is now and changes nothing. Errors: 404, 403 `forbidden`
    /// (own set, private to another bot, over max_stake), `same_owner`, `suspended`, 409
    /// `set_not_open`, `insufficient_balance`.
    pub async fn accept_set(&self, bot: &BotRow, set_id: &str) -> ArenaResult<Value> {
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        let set = sets::get(&mut tx, set_id, self.store.for_update())
            .await?
            .ok_or_else(|| ArenaError::not_found(format!("no set '{set_id}'")))?;
        if set.status != "open" {
            // A retry by the bot whose accept already took effect (its answer may have been
            // lost): the same success, the set as it is now (SPEC 14, retries).
            if set.acceptor_id.as_deref() == Some(bot.id.as_str()) {
                let view = self.set_view(&mut tx, &set).await?;
                tx.commit().await?;
                return Ok(view);
            }
            return Err(not_open(&set));
        }
        if set.creator_id == bot.id {
            return Err(ArenaError::forbidden("you cannot accept your own set"));
        }
        if set.opponent_id.as_deref().is_some_and(|o| o != bot.id) {
            return Err(ArenaError::forbidden(
                "this set is a private challenge to another bot",
            ));
        }
        let creator = acc::bot_by_ref(&mut tx, &set.creator_id)
            .await?
            .ok_or_else(|| ArenaError::internal("creator missing"))?;
        if set.stake > 0 {
            if creator.owner_id == bot.owner_id {
                return Err(same_owner());
            }
            if set.stake > bot.max_stake {
                return Err(ArenaError::forbidden(format!(
                    "stake {} exceeds your max_stake {}",
                    set.stake, bot.max_stake
                ))
                .with_details(json!({"stake": set.stake, "max_stake": bot.max_stake})));
            }
            self.ensure_not_suspended(&mut tx, bot).await?;
        }
        let mut fx = Effects::default();
        let lobby = set.opponent_id.is_none();
        let view = self
            .start_set(&mut tx, set, bot, &creator, now, &mut fx)
            .await?;
        if lobby {
            fx.lobby_closed(&view);
        }
        fx.commit(tx, self, now).await?;
        Ok(view)
    }

    /// Escrows the stakes, draws the opening and starts game 1 (inside the caller's transaction).
    pub(crate) async fn start_set(
        &self,
        tx: &mut sqlx::AnyConnection,
        mut set: SetRow,
        acceptor: &BotRow,
        creator: &BotRow,
        now: i64,
        fx: &mut Effects,
    ) -> ArenaResult<Value> {
        if set.stake > 0 {
            let legs = [
                Posting::player(&creator.owner_id, "escrow", -set.stake),
                Posting::player(&acceptor.owner_id, "escrow", -set.stake),
                Posting::account(format!("escrow:{}", set.id), "escrow", 2 * set.stake),
            ];
            ledger::transfer(tx, &format!("escrow:{}", set.id), Some(&set.id), &legs, now)
                .await
                .map_err(transfer_error)?;
        }
        let seed = hex::parse_seed_hex(&set.seed_hex)
            .ok_or_else(|| ArenaError::internal("bad stored seed"))?;
        let size = u8::try_from(set.size).map_err(ArenaError::internal)?;
        let stones = u8::try_from(set.random_stones).map_err(ArenaError::internal)?;
        let opening = hex::opening(&seed, size, stones)
            .map_err(|e| ArenaError::internal(format!("opening: {e}")))?;
        let pos = Position::with_opening(size, &opening)
            .map_err(|e| ArenaError::internal(format!("opening: {e}")))?;
        let opening_json = serde_json::to_string(&opening).map_err(ArenaError::internal)?;
        if sets::start(tx, &set.id, &acceptor.id, &opening_json, now).await? != 1 {
            return Err(not_open(&set));
        }
        set.status = "active".into();
        set.acceptor_id = Some(acceptor.id.clone());
        set.opening = Some(opening_json);
        set.started_ms = Some(now);
        let mut first_game = None;
        // Game 1 seats the acceptor as seat 1; game 2 the creator.
        for (game_no, s1, s2) in [(1, acceptor, creator), (2, creator, acceptor)] {
            let active = game_no == 1;
            let g = GameRow {
                set_id: set.id.clone(),
                game_no,
                seat1_id: s1.id.clone(),
                seat2_id: s2.id.clone(),
                status: if active { "active" } else { "pending" }.into(),
                board: pos.to_compact(),
                ply: 0,
                to_move_id: active.then(|| s1.id.clone()),
                remaining1_ms: set.initial_ms,
                remaining2_ms: set.initial_ms,
                first1: 1,
                first2: 1,
                turn_started_ms: active.then_some(now),
                deadline_ms: active.then_some(now + super::clock::FIRST_MOVE_MS),
                winner_seat: None,
                reason: None,
                started_ms: active.then_some(now),
                finished_ms: None,
                version: 0,
                offline: 0,
                refused1: 0,
                refused2: 0,
            };
            games::insert(tx, &g).await?;
            if active {
                let names = [s1.name.clone(), s2.name.clone()];
                let game = super::game::Game::from_row(&g, set.increment_ms)?;
                let state = std::sync::Arc::new(super::live::render(
                    &set,
                    &game,
                    &names,
                    super::live::MovesFrom::Rows(&[]),
                    now,
                ));
                first_game = Some((state, g, game, names));
            }
        }
        let view = self.set_view(tx, &set).await?;
        for b in [&creator.id, &acceptor.id] {
            fx.event(Some(b), &set.id, None, "set_started", json!({"set": view}));
        }
        // After `set_started`, so a bot hears of the set before its first turn in it.
        if let Some((state, g, game, names)) = first_game {
            fx.game_state(&g, state.clone());
            fx.hold(std::sync::Arc::new(super::live::LiveGame {
                game,
                set: std::sync::Arc::new(set.clone()),
                names,
                snapshot: state,
            }));
        }
        Ok(view)
    }

    /// Cancels (creator) or declines (named opponent) an open set. Repeating the call that
    /// closed the set answers the closed set again and changes nothing.
    pub async fn close_set(&self, bot: &BotRow, set_id: &str, decline: bool) -> ArenaResult<Value> {
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        let set = sets::get(&mut tx, set_id, self.store.for_update())
            .await?
            .ok_or_else(|| ArenaError::not_found(format!("no set '{set_id}'")))?;
        let allowed = if decline {
            set.opponent_id.as_deref() == Some(bot.id.as_str())
        } else {
            set.creator_id == bot.id
        };
        if !allowed {
            return Err(ArenaError::forbidden(if decline {
                "only the challenged bot may decline a set"
            } else {
                "only the creator may cancel a set"
            }));
        }
        let status = if decline { "declined" } else { "cancelled" };
        if set.status == status {
            // A retry of a cancel or decline that already took effect (only its caller gets
            // here): the same success, the closed set (SPEC 14, retries).
            let view = self.set_view(&mut tx, &set).await?;
            tx.commit().await?;
            return Ok(view);
        }
        if set.status != "open" {
            return Err(not_open(&set));
        }
        self.close_open_set(tx, &set, status, now).await
    }

    /// Closes every open challenge older than the arena's challenge TTL as `expired`
    /// (SPEC 5 is silent on stale challenges; a lobby of dead offers misleads), telling the
    /// creator and the named opponent with `set_closed`. Several instances may run it at
    /// once: a set another instance closed first is skipped. Returns how many it closed.
    pub async fn expire_challenges(&self) -> ArenaResult<usize> {
        let Some(ttl_ms) = self.config.challenge_ttl_ms else {
            return Ok(0);
        };
        let stale = {
            let mut c = self.store.pool.acquire().await?;
            sets::open_created_before(&mut c, self.now_ms().saturating_sub(ttl_ms), 100).await?
        };
        let mut closed = 0;
        for set_id in stale {
            let mut tx = self.store.begin_write().await?;
            let now = self.now_ms();
            let set = sets::get(&mut tx, &set_id, self.store.for_update()).await?;
            match set {
                Some(set) if set.status == "open" && set.created_ms < now - ttl_ms => {
                    self.close_open_set(tx, &set, "expired", now).await?;
                    closed += 1;
                }
                _ => {} // accepted, closed or expired meanwhile: dropping `tx` rolls it back
            }
        }
        Ok(closed)
    }

    /// Closes the open set `set` (read in `tx`) as `status` (`cancelled`, `declined` or
    /// `expired`), tells the creator and the named opponent, and commits. 409 `set_not_open`
    /// when it is no longer open.
    async fn close_open_set(
        &self,
        mut tx: WriteTx,
        set: &SetRow,
        status: &str,
        now: i64,
    ) -> ArenaResult<Value> {
        let set_id = set.id.as_str();
        if sets::close_open(&mut tx, set_id, status, now).await? != 1 {
            return Err(not_open(set));
        }
        let set = sets::get(&mut tx, set_id, "")
            .await?
            .ok_or_else(|| ArenaError::internal("set vanished"))?;
        let view = self.set_view(&mut tx, &set).await?;
        let mut fx = Effects::default();
        for b in [Some(set.creator_id.as_str()), set.opponent_id.as_deref()]
            .into_iter()
            .flatten()
        {
            fx.event(Some(b), &set.id, None, "set_closed", json!({"set": view}));
        }
        fx.change(Change {
            set_id: set.id.clone(),
            game_no: None,
            bots: vec![set.creator_id.clone()],
            ..Change::default()
        });
        if set.opponent_id.is_none() {
            fx.lobby_closed(&view);
        }
        fx.commit(tx, self, now).await?;
        Ok(view)
    }

    /// Starts a set between two chosen bots at once: a practice set against a house bot (SPEC
    /// section 9; `stake` 0, unrated), an operator pairing (staked unless `stake` is 0) or a
    /// tournament or match set. Staked sets check owners, `max_stake` and suspensions.
    /// Errors: 400 (self-play, stake), 403 `same_owner` / `suspended`, 409 `insufficient_balance`.
    pub async fn start_now(
        &self,
        creator: &BotRow,
        opponent: &BotRow,
        req: NewSet,
    ) -> ArenaResult<Value> {
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        let (view, fx) = self
            .start_now_in(&mut tx, creator, opponent, req, now)
            .await?;
        fx.commit(tx, self, now).await?;
        Ok(view)
    }

    /// As [`Arena::start_now`] inside the caller's write transaction (so a tournament pairing
    /// row and its set commit together); the caller writes the effects' events, commits, then applies them.
    pub(crate) async fn start_now_in(
        &self,
        tx: &mut sqlx::AnyConnection,
        creator: &BotRow,
        opponent: &BotRow,
        req: NewSet,
        now: i64,
    ) -> ArenaResult<(Value, Effects)> {
        if creator.id == opponent.id {
            return Err(ArenaError::bad_request("a bot cannot play itself"));
        }
        req.check_stake()?;
        if req.staked() {
            if creator.owner_id == opponent.owner_id {
                return Err(same_owner());
            }
            for b in [creator, opponent] {
                if req.stake > b.max_stake {
                    return Err(stake_error(
                        format!("stake exceeds {}'s max_stake {}", b.name, b.max_stake),
                        b.max_stake,
                    ));
                }
                self.ensure_not_suspended(tx, b).await?;
            }
        }
        // Inserted open and started at once in one transaction: nobody ever sees it open.
        let set = new_set_row(creator, &req, Some(opponent.id.clone()), now);
        sets::insert(tx, &set).await?;
        let mut fx = Effects::default();
        let view = self
            .start_set(tx, set, opponent, creator, now, &mut fx)
            .await?;
        Ok((view, fx))
    }

    /// The full set view of SPEC section 5.
    pub async fn set_view(&self, c: &mut sqlx::AnyConnection, set: &SetRow) -> ArenaResult<Value> {
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
        v["seed"] = if set.status == "finished" {
            json!(set.seed_hex)
        } else {
            Value::Null
        };
        v["opening"] = match &set.opening {
            Some(_) => json!(views::opening_of(set)),
            None => Value::Null,
        };
        v["settlement"] = self.settlement_json(c, set).await?;
        Ok(v)
    }

    /// Names of a set's bots.
    pub async fn set_names(
        &self,
        c: &mut sqlx::AnyConnection,
        set: &SetRow,
    ) -> ArenaResult<SetNames> {
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

    async fn settlement_json(
        &self,
        c: &mut sqlx::AnyConnection,
        set: &SetRow,
    ) -> ArenaResult<Value> {
        if set.status != "finished" || set.stake == 0 {
            return Ok(Value::Null);
        }
        let rows: Vec<PayoutRow> = sqlx::query_as(
            "SELECT l.account, l.player_id, l.kind, l.amount, p.name FROM ledger l \
             LEFT JOIN players p ON p.id = l.player_id WHERE l.transfer_key = $1 ORDER BY l.id",
        )
        .bind(format!("settle:{}", set.id))
        .fetch_all(c)
        .await?;
        let fee: i64 = rows.iter().filter(|r| r.2 == "fee").map(|r| r.3).sum();
        let payouts: Vec<Value> = rows
            .iter()
            .filter_map(|(_, p, kind, amount, name)| {
                p.as_ref().map(
                    |p| json!({"player": p, "player_name": name, "kind": kind, "amount": amount}),
                )
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
        let mut c = self.store.pool.acquire().await?;
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
        let mut c = self.store.pool.acquire().await?;
        let set = sets::get(&mut c, set_id, "")
            .await?
            .ok_or_else(|| ArenaError::not_found(format!("no set '{set_id}'")))?;
        self.set_view(&mut c, &set).await
    }
}

/// A new open set row: `practice` only for house practice, `rated` for staked sets and those
/// whose creator asked for a rating (issue 18); an unrated set never stakes.
fn new_set_row(creator: &BotRow, req: &NewSet, opponent_id: Option<String>, now: i64) -> SetRow {
    let unrated = !req.staked() && !req.rated;
    let seed: [u8; 32] = rand::random();
    SetRow {
        id: format!("set_{}", ulid::Ulid::generate()),
        creator_id: creator.id.clone(),
        acceptor_id: None,
        opponent_id,
        status: "open".into(),
        practice: i64::from(req.practice),
        rated: i64::from(!unrated),
        size: req.options.size,
        random_stones: req.options.random_stones,
        initial_ms: req.initial_ms,
        increment_ms: req.increment_ms,
        stake: if unrated { 0 } else { req.stake },
        seed_hex: hexcode::encode(seed),
        seed_sha256: hexcode::encode(Sha256::digest(seed)),
        opening: None,
        points2_creator: 0,
        points2_acceptor: 0,
        winner_id: None,
        result: None,
        tiebreak: 0,
        created_ms: now,
        started_ms: None,
        finished_ms: None,
    }
}

pub(crate) fn same_owner() -> ArenaError {
    ArenaError::forbidden_code(
        "same_owner",
        "bots of the same owner may not play staked sets against each other",
    )
}

fn not_open(set: &SetRow) -> ArenaError {
    ArenaError::conflict("set_not_open", format!("set {} is {}", set.id, set.status))
        .with_details(json!({"status": set.status}))
}
