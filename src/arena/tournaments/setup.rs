//! Creating a tournament and changing it before it starts: settings, participants, deletion.

use super::*;
use crate::store::Conn;

/// The checks of creation that need no database: the stake and rating choice.
fn check_settings(req: &NewTournament) -> ArenaResult<()> {
    NewSet {
        options: req.options,
        initial_ms: req.initial_ms,
        increment_ms: req.increment_ms,
        stake: req.stake,
        opponent: None,
        rated: req.rated,
        practice: false,
        pool: false,
    }
    .check_stake()
}

/// Rounds of a tournament of `n` participants: a round robin's from its cycles, a gauntlet's
/// cycles, a Swiss's `rounds` (1 to n - 1). Errors: 400 naming `rounds`.
pub(super) fn planned_rounds(
    format: &str,
    cycles: i64,
    rounds: Option<i64>,
    n: usize,
) -> ArenaResult<i64> {
    let rounds = match format {
        "round_robin" => per_cycle(n) * cycles,
        "gauntlet" => cycles,
        _ => rounds.ok_or_else(|| bad("rounds", "a swiss needs 'rounds'"))?,
    };
    if format == "swiss" && !(1..=(n as i64 - 1).max(1)).contains(&rounds) {
        return Err(bad(
            "rounds",
            format!("a swiss of {n} bots plays 1 to {} rounds", n.max(2) - 1),
        ));
    }
    Ok(rounds)
}

/// Rounds of one round-robin cycle of `n` bots (an odd field adds a round: one bot sits out
/// each).
fn per_cycle(n: usize) -> i64 {
    (n.max(1) - 1 + n % 2) as i64
}

/// How many times each pairing is played (round robin and gauntlet), from the stored rounds.
pub(super) fn cycles_of(t: &TournamentRow, n: usize) -> i64 {
    match t.format.as_str() {
        "round_robin" => (t.rounds / per_cycle(n).max(1)).max(1),
        _ => t.rounds.max(1),
    }
}

/// What every pairing would refuse later is refused now (a tournament whose pairings can never
/// start would stay running for ever): a retired bot, settings outside a bot's declared
/// `accepts` (issue 20: the tournament's options, clock and stake), and, when staked, a stake
/// above a bot's `max_stake` or two bots of one owner. `clock_ms` is (initial, increment).
/// Errors: 409 `bot_retired`; 422 `not_accepted` naming the option; 400 `stake`; 403
/// `same_owner`.
fn check_entrants(
    bots: &[acc::BotRow],
    stake: i64,
    options: &GameOptions,
    clock_ms: (i64, i64),
) -> ArenaResult<()> {
    for b in bots {
        if b.retired_ms.is_some() {
            return Err(crate::arena::sets::retired(b));
        }
        crate::arena::accepts::accepts_check(b, options, clock_ms.0, clock_ms.1, stake)?;
    }
    if stake == 0 {
        return Ok(());
    }
    let mut owners = std::collections::HashMap::new();
    for b in bots {
        if stake > b.max_stake {
            return Err(crate::arena::options::stake_error(
                format!("stake exceeds {}'s max_stake {}", b.name, b.max_stake),
                b.max_stake,
            ));
        }
        if let Some(first) = owners.insert(b.owner_id.as_str(), b.name.as_str()) {
            let e = crate::arena::sets::same_owner();
            return Err(ArenaError::new(
                Code::SameOwner,
                format!("{first} and {} have the same owner: {}", b.name, e.message),
            )
            .with_details(json!({"allowed_stake": 0, "bots": [first, b.name]})));
        }
    }
    Ok(())
}

/// A scheduled start must be ahead of `now_ms`: a past one (a mistyped year) would start the
/// tournament at once with settings no longer changeable. Errors: 400 naming `start_at`.
fn check_start(start_ms: Option<i64>, now_ms: i64) -> ArenaResult<()> {
    match start_ms {
        Some(s) if s < now_ms => Err(bad(
            "start_at",
            format!(
                "'start_at' {} is in the past (now is {}): give a future time, or omit it and \
                 POST /v1/tournaments/{{id}}/start to start now",
                rfc3339(s),
                rfc3339(now_ms)
            ),
        )),
        _ => Ok(()),
    }
}

impl Arena {
    /// A staked tournament refuses a suspended bot as its sets would (403 `suspended`).
    async fn check_suspended(
        &self,
        c: &mut crate::store::Conn,
        bots: &[acc::BotRow],
        stake: i64,
    ) -> ArenaResult<()> {
        if stake > 0 {
            for b in bots {
                self.ensure_not_suspended(c, b).await?;
            }
        }
        Ok(())
    }

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
        check_settings(&req)?;
        let rounds = planned_rounds(&req.format, req.cycles, req.rounds, n)?;
        let now = self.now_ms();
        check_start(req.start_ms, now)?;
        let mut tx = self.store.begin_write().await?;
        let mut seen = HashSet::new();
        let mut bots = Vec::with_capacity(n);
        for r in &req.participants {
            let b = acc::bot_by_ref(&mut tx, r)
                .await?
                .ok_or_else(|| ArenaError::not_found(format!("no bot '{r}'")))?;
            if !seen.insert(b.id.clone()) {
                return Err(bad("participants", format!("{} is listed twice", b.name)));
            }
            bots.push(b);
        }
        check_entrants(
            &bots,
            req.stake,
            &req.options,
            (req.initial_ms, req.increment_ms),
        )?;
        self.check_suspended(&mut tx, &bots, req.stake).await?;
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
        for (seed, b) in bots.into_iter().enumerate() {
            store::insert_entry(&mut tx, &t.id, &EntryRow::new(seed as i64, b.id, b.rating))
                .await?;
        }
        tx.commit().await?;
        self.tournament_wake.notify_one();
        self.tournament(&t.id).await
    }

    /// The body a `PATCH` of tournament `id` is merged into (issue 18): its settings as
    /// `POST /v1/tournaments` takes them. Errors: 404.
    pub async fn tournament_request(&self, id: &str) -> ArenaResult<Value> {
        let mut c = self.store.conn().await?;
        let t = store::get(&mut c, id, "")
            .await?
            .filter(|t| t.format != "match")
            .ok_or_else(|| not_found(id))?;
        let n = store::entries(&mut c, id).await?.len();
        let mut v = json!({
            "name": t.name,
            "format": t.format,
            "participants": [],
            "options": {"size": t.size, "random_stones": t.random_stones},
            "clock": {"initial_s": t.initial_ms / 1000, "increment_s": t.increment_ms / 1000},
            "stake": t.stake,
            "rated": t.rated != 0,
            "max_concurrent": t.max_concurrent,
            "absent": t.absent,
            "forfeit_after_s": t.forfeit_after_ms / 1000,
            "start_at": opt_time(t.start_ms),
        });
        if t.format == "swiss" {
            v["rounds"] = json!(t.rounds);
        } else {
            v["cycles"] = json!(cycles_of(&t, n));
        }
        Ok(v)
    }

    /// Changes the settings of a tournament that has not started (issue 18): name, options,
    /// clock, stake, rating, `max_concurrent`, `absent`, `forfeit_after_s`, `start_at`, and a
    /// Swiss's `rounds` or the others' `cycles`; `req.format` and `req.participants` are
    /// ignored (they are the tournament's). Validated as creation validates them.
    /// Errors: 400 naming the field; 403 `same_owner`; 404; 409 `tournament_state` once it started.
    pub async fn update_tournament(&self, id: &str, req: NewTournament) -> ArenaResult<Value> {
        check_settings(&req)?;
        let mut tx = self.store.begin_write().await?;
        let mut t = store::get(&mut tx, id, self.store.for_update())
            .await?
            .filter(|t| t.format != "match")
            .ok_or_else(|| not_found(id))?;
        if t.status != TournamentStatus::Created {
            return Err(state_error("change", &t));
        }
        if req.start_ms != t.start_ms {
            check_start(req.start_ms, self.now_ms())?;
        }
        let entries = store::entries(&mut tx, id).await?;
        let rounds = planned_rounds(&t.format, req.cycles, req.rounds, entries.len())?;
        let mut bots = Vec::with_capacity(entries.len());
        for e in &entries {
            bots.push(self.entrant(&mut tx, &e.bot_id).await?);
        }
        check_entrants(
            &bots,
            req.stake,
            &req.options,
            (req.initial_ms, req.increment_ms),
        )?;
        self.check_suspended(&mut tx, &bots, req.stake).await?;
        t.name = req.name;
        t.rounds = rounds;
        t.size = req.options.size;
        t.random_stones = req.options.random_stones;
        t.initial_ms = req.initial_ms;
        t.increment_ms = req.increment_ms;
        t.stake = req.stake;
        t.rated = i64::from(req.rated || req.stake > 0);
        t.max_concurrent = req.max_concurrent;
        t.absent = req.absent;
        t.forfeit_after_ms = req.forfeit_after_ms;
        t.start_ms = req.start_ms;
        if store::update_settings(&mut tx, &t).await? != 1 {
            return Err(ArenaError::unavailable("tournament changed concurrently"));
        }
        tx.commit().await?;
        self.tournament_wake.notify_one();
        self.tournament(id).await
    }

    /// Adds bot `bot_ref` to a tournament that has not started (issue 18), as seed `seed`
    /// (1-based; the last by default): the checks of creation apply (stake within its
    /// `max_stake`, no second bot of an owner in a staked tournament), and a round robin's
    /// rounds follow the new field. Errors: 400 `seed`; 403 `same_owner`; 404 unknown
    /// tournament or bot; 409 `tournament_state` once started, `already_participant`,
    /// `tournament_full` at [`MAX_PARTICIPANTS`].
    pub async fn add_participant(
        &self,
        id: &str,
        bot_ref: &str,
        seed: Option<i64>,
    ) -> ArenaResult<Value> {
        let mut tx = self.store.begin_write().await?;
        let t = self.unstarted(&mut tx, id, "add a participant to").await?;
        let b = acc::bot_by_ref(&mut tx, bot_ref)
            .await?
            .ok_or_else(|| ArenaError::not_found(format!("no bot '{bot_ref}'")))?;
        let mut entries = store::entries(&mut tx, id).await?;
        if entries.iter().any(|e| e.bot_id == b.id) {
            return Err(ArenaError::new(
                Code::AlreadyParticipant,
                format!("{} is already a participant", b.name),
            )
            .with_details(json!({"bot": b.name})));
        }
        if entries.len() >= MAX_PARTICIPANTS {
            return Err(ArenaError::new(
                Code::TournamentFull,
                format!("a tournament has at most {MAX_PARTICIPANTS} participants"),
            )
            .with_details(json!({"max": MAX_PARTICIPANTS})));
        }
        let n = entries.len() as i64;
        let at = match seed {
            None => n,
            Some(s) if (1..=n + 1).contains(&s) => s - 1,
            Some(s) => {
                return Err(bad("seed", format!("'seed' must be 1 to {}", n + 1))
                    .with_details(json!({"field": "seed", "min": 1, "max": n + 1, "value": s})));
            }
        };
        let mut bots = Vec::with_capacity(entries.len() + 1);
        for e in &entries {
            bots.push(self.entrant(&mut tx, &e.bot_id).await?);
        }
        bots.push(b.clone());
        let options = GameOptions {
            size: t.size,
            random_stones: t.random_stones,
        };
        check_entrants(&bots, t.stake, &options, (t.initial_ms, t.increment_ms))?;
        self.check_suspended(&mut tx, &bots, t.stake).await?;
        entries.insert(
            usize::try_from(at).unwrap_or(0),
            EntryRow::new(0, b.id.clone(), b.rating),
        );
        self.reseed(&mut tx, &t, entries).await?;
        tx.commit().await?;
        tracing::info!(tournament = id, bot = %b.name, "participant added");
        self.tournament(id).await
    }

    /// Removes bot `bot_ref` from a tournament that has not started (issue 18); the seeds below
    /// it move up. Errors: 404 unknown tournament or bot; 409 `tournament_state` once started,
    /// `not_participant`, `too_few_participants` (a tournament keeps 2, a Swiss one more than
    /// its rounds).
    pub async fn remove_participant(&self, id: &str, bot_ref: &str) -> ArenaResult<Value> {
        let mut tx = self.store.begin_write().await?;
        let t = self
            .unstarted(&mut tx, id, "remove a participant from")
            .await?;
        let b = acc::bot_by_ref(&mut tx, bot_ref)
            .await?
            .ok_or_else(|| ArenaError::not_found(format!("no bot '{bot_ref}'")))?;
        let mut entries = store::entries(&mut tx, id).await?;
        let Some(i) = entries.iter().position(|e| e.bot_id == b.id) else {
            return Err(not_participant(&b.name));
        };
        let left = entries.len() - 1;
        let least = if t.format == "swiss" {
            usize::try_from(t.rounds + 1).unwrap_or(2).max(2)
        } else {
            2
        };
        if left < least {
            return Err(ArenaError::new(
                Code::TooFewParticipants,
                format!(
                    "this {} needs at least {least} participants (lower its rounds first)",
                    t.format.replace('_', " ")
                ),
            )
            .with_details(json!({"min": least})));
        }
        entries.remove(i);
        self.reseed(&mut tx, &t, entries).await?;
        tx.commit().await?;
        tracing::info!(tournament = id, bot = %b.name, "participant removed");
        self.tournament(id).await
    }

    /// Deletes a tournament that never started (issue 18): nothing of it is left (no pairing was
    /// ever made and no stake escrowed). Errors: 404; 409 `tournament_state` once started.
    pub async fn delete_tournament(&self, id: &str) -> ArenaResult<()> {
        let mut tx = self.store.begin_write().await?;
        let t = store::get(&mut tx, id, self.store.for_update())
            .await?
            .filter(|t| t.format != "match")
            .ok_or_else(|| not_found(id))?;
        if t.started_ms.is_some()
            || !TournamentStatus::is_in(
                &t.status,
                &[TournamentStatus::Created, TournamentStatus::Cancelled],
            )
        {
            let mut e = state_error("delete", &t);
            e.message = format!(
                "only a tournament that never started can be deleted; this one started (it is \
                 {}), and its record is kept",
                t.status
            );
            return Err(e);
        }
        if store::delete_unstarted(&mut tx, id).await? != 1 {
            return Err(ArenaError::unavailable("tournament changed concurrently"));
        }
        tx.commit().await?;
        tracing::info!(tournament = id, "tournament deleted");
        Ok(())
    }

    /// The tournament `id`, locked in `tx`, if it has not started. Errors: 404; 409
    /// `tournament_state` (`action` names what could not be done).
    async fn unstarted(&self, tx: &mut Conn, id: &str, action: &str) -> ArenaResult<TournamentRow> {
        let t = store::get(tx, id, self.store.for_update())
            .await?
            .filter(|t| t.format != "match")
            .ok_or_else(|| not_found(id))?;
        if t.status != TournamentStatus::Created {
            return Err(state_error(action, &t));
        }
        Ok(t)
    }

    /// A participant's bot as stored now (for the checks of creation).
    async fn entrant(&self, tx: &mut Conn, bot_id: &str) -> ArenaResult<acc::BotRow> {
        acc::bot_by_ref(tx, bot_id)
            .await?
            .ok_or_else(|| ArenaError::internal("tournament bot missing"))
    }

    /// Stores `entries` as the participants of `t` (not started) in their order, seeds 0..n,
    /// and a round robin's rounds for the new field (its cycles kept).
    async fn reseed(
        &self,
        tx: &mut Conn,
        t: &TournamentRow,
        mut entries: Vec<EntryRow>,
    ) -> ArenaResult<()> {
        let before = store::entries(tx, &t.id).await?.len();
        for (i, e) in entries.iter_mut().enumerate() {
            e.seed = i as i64;
        }
        store::replace_entries(tx, &t.id, &entries).await?;
        if t.format == "round_robin" {
            let mut u = t.clone();
            u.rounds = per_cycle(entries.len()) * cycles_of(t, before);
            store::update_settings(tx, &u).await?;
        }
        Ok(())
    }
}
