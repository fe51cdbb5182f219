//! Creating a set (challenge, practice or operator pairing) and starting it.

use super::*;
use crate::store::Conn;

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
        // The authenticated row may be the token cache's: whether it retired, and what it
        // declares, are read fresh.
        let me = not_retired(&mut tx, bot).await?;
        // A challenge outside the creator's own declared ranges could never be accepted (an
        // accept checks them): say so now rather than leave it open (issue 20).
        crate::arena::accepts::accepts_check(
            &me,
            &req.options,
            req.initial_ms,
            req.increment_ms,
            req.stake,
        )?;
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
                if o.retired_ms.is_some() {
                    return Err(retired(&o));
                }
                // What the challenged bot declared it accepts, and its capacity (issue 20).
                crate::arena::accepts::admit(
                    &mut tx,
                    self.store.backend,
                    &o,
                    &req.options,
                    (req.initial_ms, req.increment_ms),
                    req.stake,
                )
                .await?;
                Some(o)
            }
            None => None,
        };
        let balance = acc::player_by_id(&mut tx, &bot.owner_id)
            .await?
            .map_or(0, |p| p.balance);
        if balance < req.stake {
            return Err(ArenaError::new(
                Code::InsufficientBalance,
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

    /// Escrows the stakes, draws the opening and starts game 1 (inside the caller's transaction).
    pub(crate) async fn start_set(
        &self,
        tx: &mut Conn,
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
                deadline_ms: active.then_some(now + crate::arena::clock::FIRST_MOVE_MS),
                winner_seat: None,
                reason: None,
                started_ms: active.then_some(now),
                finished_ms: None,
                version: 0,
                offline: 0,
                forfeit: 0,
                refused1: 0,
                refused2: 0,
            };
            games::insert(tx, &g).await?;
            if active {
                let names = [s1.name.clone(), s2.name.clone()];
                let game = crate::arena::game::Game::from_row(&g, set.increment_ms)?;
                let state = std::sync::Arc::new(crate::arena::live::render(
                    &set,
                    &game,
                    &names,
                    crate::arena::live::MovesFrom::Rows(&[]),
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
            fx.hold(std::sync::Arc::new(crate::arena::live::LiveGame {
                game,
                set: std::sync::Arc::new(set.clone()),
                names,
                snapshot: state,
            }));
        }
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
        for b in [creator, opponent] {
            not_retired(&mut tx, b).await?;
        }
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
        tx: &mut Conn,
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
}
