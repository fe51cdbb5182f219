//! Players, bots, tokens and strikes (SPEC sections 3 and 7).

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::Arena;
use super::error::{ArenaError, ArenaResult, Code};
use super::glicko::Glicko;
use super::views::rfc3339;
use crate::store::Conn;
use crate::store::accounts::{self as acc, BotRow, PlayerRow};
use crate::store::ledger::{self, Posting, TransferError};

/// Strikes count for this long (SPEC section 7).
pub const STRIKE_WINDOW_MS: i64 = 24 * 3600 * 1000;
/// Strikes within the window that suspend a bot from staked sets.
pub const STRIKES_TO_SUSPEND: usize = 3;
/// Default and largest `max_stake` of a bot (SPEC section 3).
pub const DEFAULT_MAX_STAKE: i64 = 500;
pub const MAX_STAKE: i64 = 1000;

/// A fresh token: prefix + 64 hex digits (256 random bits from the OS-seeded CSPRNG).
pub fn new_token(prefix: &str) -> String {
    format!("{prefix}{}", hexcode::encode(rand::random::<[u8; 32]>()))
}

/// What is stored of a token: its SHA-256, hex.
pub fn token_hash(token: &str) -> String {
    hexcode::encode(Sha256::digest(token.as_bytes()))
}

/// `player-` + 6 chars of `[a-z0-9]` (SPEC section 3).
pub fn new_player_id() -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let bytes = rand::random::<[u8; 6]>();
    let suffix: String = bytes
        .iter()
        .map(|b| char::from(ALPHABET[usize::from(*b) % ALPHABET.len()]))
        .collect();
    format!("player-{suffix}")
}

/// Bot names: 3..=24 of `[A-Za-z0-9_-]`.
pub fn valid_bot_name(name: &str) -> bool {
    (3..=24).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Player names: 1..=40 characters, none of them hidden (see [`hidden_char`]), and at least
/// one that shows: not all blank, and not only fillers that render as nothing (Hangul
/// fillers, the blank Braille pattern, variation selectors ...).
pub fn valid_player_name(name: &str) -> bool {
    let n = name.chars().count();
    (1..=40).contains(&n) && name.chars().any(shows) && hidden_char(name).is_none()
}

/// The first character of `name` that could disguise it or break the text around it (issue
/// 17): controls (Cc), format characters (Cf: soft hyphen, the Arabic letter mark, zero-width
/// characters, bidirectional marks, embeddings, overrides and isolates, the byte order mark,
/// interlinear annotations, tags), private use (Co), unassigned code points (Cn), the line
/// and paragraph separators (Zl, Zp), the default-ignorable fillers that render as nothing
/// (Hangul fillers, variation selectors, the combining grapheme joiner, ...: see [`filler`]),
/// and a combining mark (Mn, Mc, Me) with no character before it to combine with.
pub fn hidden_char(name: &str) -> Option<char> {
    use unicode_general_category::{GeneralCategory as G, get_general_category};
    let first_is_mark = name.chars().next().filter(|&c| {
        matches!(
            get_general_category(c),
            G::NonspacingMark | G::SpacingMark | G::EnclosingMark
        )
    });
    let mut prev: Option<char> = None;
    first_is_mark.or_else(|| {
        name.chars().find(|&c| {
            let after = prev.replace(c);
            // A variation selector picks a glyph for the character before it (the emoji
            // form of a heart): it is hidden only where it has nothing to select from.
            if variation_selector(c) {
                return after.is_none_or(|p| p.is_ascii() || filler(p) || variation_selector(p));
            }
            filler(c)
                || matches!(
                    get_general_category(c),
                    G::Control
                        | G::Format
                        | G::PrivateUse
                        | G::Unassigned
                        | G::Surrogate
                        | G::LineSeparator
                        | G::ParagraphSeparator
                )
        })
    })
}

/// Default-ignorable or blank-looking code points that are not already format characters
/// (variation selectors aside, see [`variation_selector`]): they render as nothing, so a
/// name holding one looks like another name.
fn filler(c: char) -> bool {
    matches!(c,
        '\u{034F}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}' | '\u{180B}'..='\u{180F}'
        | '\u{2800}' | '\u{3164}' | '\u{FFA0}' | '\u{1BCA0}'..='\u{1BCA3}'
        | '\u{1D173}'..='\u{1D17A}')
}

/// The variation selectors (VS1..VS256).
fn variation_selector(c: char) -> bool {
    matches!(c, '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}')
}

/// Whether a character renders as something: not whitespace, not hidden, not a filler.
fn shows(c: char) -> bool {
    !c.is_whitespace()
        && !filler(c)
        && !variation_selector(c)
        && hidden_char(c.encode_utf8(&mut [0; 4])).is_none()
}

/// Checks a player name before anything is counted or stored. Errors: 400 naming the field,
/// and `details.code_point` (`"U+200B"`) for a hidden character.
pub fn check_player_name(name: &str) -> ArenaResult<()> {
    check_shown_text("name", name)?;
    if valid_player_name(name) {
        Ok(())
    } else {
        Err(
            ArenaError::bad_request("name must be 1 to 40 visible characters, not all blank")
                .with_details(json!({"field": "name"})),
        )
    }
}

/// Refuses a text shown to viewers (a player or tournament name) that holds a hidden
/// character (see [`hidden_char`]). Errors: 400 `bad_request` with `details.field` and
/// `details.code_point` (`"U+200B"`).
pub fn check_shown_text(field: &str, text: &str) -> ArenaResult<()> {
    match hidden_char(text) {
        None => Ok(()),
        Some(c) => {
            let code_point = format!("U+{:04X}", u32::from(c));
            Err(ArenaError::bad_request(format!(
                "{field} may not contain {code_point} (a control, invisible, bidirectional \
                 formatting or combining character with nothing to combine with)"
            ))
            .with_details(json!({"field": field, "code_point": code_point})))
        }
    }
}

/// Names that start with this (in any case) belong to the house bots (SPEC 9): a player's bot
/// may not take one, so no player can stand in for a rung of the ladder, even a future one.
pub const HOUSE_PREFIX: &str = "house-";

/// Checks a new bot's name and `max_stake` before anything is counted or stored; returns the
/// `max_stake` to use. `house`: the bot is a house bot (which alone may use
/// [`HOUSE_PREFIX`]). Errors: 400 naming the field.
pub fn check_new_bot(name: &str, max_stake: Option<i64>, house: bool) -> ArenaResult<i64> {
    if !valid_bot_name(name) {
        return Err(
            ArenaError::bad_request("bot name must be 3 to 24 of A-Z a-z 0-9 _ -")
                .with_details(json!({"field": "name"})),
        );
    }
    let reserved = name
        .get(..HOUSE_PREFIX.len())
        .is_some_and(|p| p.eq_ignore_ascii_case(HOUSE_PREFIX));
    if reserved && !house {
        return Err(ArenaError::bad_request(format!(
            "bot names starting with '{HOUSE_PREFIX}' are kept for the house bots"
        ))
        .with_details(json!({"field": "name"})));
    }
    let max_stake = max_stake.unwrap_or(DEFAULT_MAX_STAKE);
    if !(0..=MAX_STAKE).contains(&max_stake) {
        return Err(ArenaError::bad_request("max_stake must be 0 to 1000")
            .with_details(json!({"field": "max_stake", "min": 0, "max": MAX_STAKE})));
    }
    Ok(max_stake)
}

impl Arena {
    /// Registers a player and grants the starting balance. Returns (player, token).
    pub async fn register_player(
        &self,
        name: &str,
        house: bool,
    ) -> ArenaResult<(PlayerRow, String)> {
        check_player_name(name)?;
        let token = new_token("hxp_");
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        // Six random characters can collide; retry with a new id a few times.
        let mut id = new_player_id();
        for _ in 0..5 {
            if acc::player_by_id(&mut tx, &id).await?.is_none() {
                break;
            }
            id = new_player_id();
        }
        acc::insert_player(&mut tx, &id, name, &token_hash(&token), house, now).await?;
        let grant = if house {
            1_000_000
        } else {
            self.config.starting_balance
        };
        if grant > 0 {
            grant_in(&mut tx, &id, grant, &format!("grant:{id}:signup"), now).await?;
        }
        let player = acc::player_by_id(&mut tx, &id)
            .await?
            .ok_or_else(|| ArenaError::internal("player vanished"))?;
        tx.commit().await?;
        Ok((player, token))
    }

    /// Creates a bot for `owner`. Errors: bad name or max_stake (400), name taken (409).
    pub async fn create_bot(
        &self,
        owner: &PlayerRow,
        name: &str,
        max_stake: Option<i64>,
        house: bool,
    ) -> ArenaResult<(BotRow, String)> {
        let max_stake = check_new_bot(name, max_stake, house)?;
        let token = new_token("hxb_");
        let id = format!("bot_{}", ulid::Ulid::generate());
        let mut tx = self.store.begin_write().await?;
        let taken = || {
            ArenaError::new(Code::NameTaken, format!("a bot named '{name}' exists"))
                .with_details(json!({"field": "name"}))
        };
        if acc::bot_by_ref(&mut tx, name).await?.is_some() {
            return Err(taken());
        }
        // On PostgreSQL two concurrent creations can both pass the check above; the unique
        // name key then refuses the second insert, which is the same 409 (issue 10).
        acc::insert_bot(
            &mut tx,
            &id,
            name,
            &owner.id,
            max_stake,
            &token_hash(&token),
            house,
            self.now_ms(),
        )
        .await
        .map_err(|e| {
            if crate::store::is_duplicate(&e) {
                taken()
            } else {
                ArenaError::from(e)
            }
        })?;
        let bot = acc::bot_by_ref(&mut tx, &id)
            .await?
            .ok_or_else(|| ArenaError::internal("bot vanished"))?;
        tx.commit().await?;
        Ok((bot, token))
    }

    /// The player a bearer token belongs to.
    pub async fn player_by_token(&self, token: &str) -> ArenaResult<Option<PlayerRow>> {
        let mut c = self.store.conn().await?;
        Ok(acc::player_by_token(&mut c, &token_hash(token)).await?)
    }

    /// The bot a bearer token belongs to.
    /// Only the bot's immutable columns (id, name, owner, `max_stake`, house) may be relied on:
    /// the row is remembered per token, so a move costs no query to authenticate.
    pub async fn bot_by_token(&self, token: &str) -> ArenaResult<Option<BotRow>> {
        let hash = token_hash(token);
        if let Some(bot) = self.cached_bot_token(&hash) {
            return Ok(Some(bot));
        }
        let mut c = self.store.conn().await?;
        let bot = acc::bot_by_token(&mut c, &hash).await?;
        if let Some(b) = &bot {
            self.remember_bot_token(hash, b.clone());
        }
        Ok(bot)
    }

    /// Strikes of a bot in the last 24 h, oldest first, and when its suspension ends (if suspended).
    pub async fn strikes(
        &self,
        c: &mut Conn,
        bot_id: &str,
    ) -> ArenaResult<(Vec<acc::StrikeRow>, Option<i64>)> {
        let now = self.now_ms();
        // A strike counts while now < at + 24 h: at `expires_at` it no longer does.
        let strikes = acc::strikes_since(c, bot_id, now - STRIKE_WINDOW_MS + 1).await?;
        let until = (strikes.len() >= STRIKES_TO_SUSPEND).then(|| {
            // Suspended until enough of the oldest strikes expire to leave fewer than 3.
            let k = strikes.len() - STRIKES_TO_SUSPEND;
            strikes[k].at_ms + STRIKE_WINDOW_MS
        });
        Ok((strikes, until))
    }

    /// 403 `suspended` if the bot may not play staked sets now.
    pub async fn ensure_not_suspended(&self, c: &mut Conn, bot: &BotRow) -> ArenaResult<()> {
        let (_, until) = self.strikes(c, &bot.id).await?;
        match until {
            Some(u) => Err(ArenaError::new(
                Code::Suspended,
                format!(
                    "{} has 3 strikes in 24 h and may not play staked sets until {}",
                    bot.name,
                    rfc3339(u)
                ),
            )
            .with_details(json!({"bot": bot.name, "until": rfc3339(u)}))),
            None => Ok(()),
        }
    }

    /// A bot's public profile.
    pub async fn bot_profile(&self, c: &mut Conn, b: &BotRow) -> ArenaResult<Value> {
        self.bot_profile_ranked(c, b, None).await
    }

    /// A bot's public profile, with its leaderboard `rank` when the caller knows it (a list
    /// in the board's order), else counted.
    pub async fn bot_profile_ranked(
        &self,
        c: &mut Conn,
        b: &BotRow,
        rank: Option<i64>,
    ) -> ArenaResult<Value> {
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
    pub async fn head_to_head(&self, c: &mut Conn, a: &BotRow, b: &BotRow) -> ArenaResult<Value> {
        use super::elo_stats::{elo_of, los, wilson};
        let v = crate::store::sets::versus(c, &a.id, &b.id).await?;
        let (pa, pb) = (v.points2_a as f64 / 2.0, v.points2_b as f64 / 2.0);
        let games = pa + pb;
        let score = (games > 0.0).then(|| pa / games);
        let interval = score.and_then(|s| wilson(s, games));
        let round1 = |x: f64| (x * 10.0).round() / 10.0;
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

    /// Issues a new token for a bot and revokes the old one at once (issue 20): requests with
    /// the old token are 401 from the commit on, on this instance its open streams end.
    /// Returns the new token. Errors: database.
    ///
    /// Of two rotations with one token at once, one wins; the other is 401 (the token it
    /// called with is revoked by then), so exactly one new token exists.
    pub async fn rotate_bot_token(&self, bot: &BotRow, old_token: &str) -> ArenaResult<String> {
        let old_hash = token_hash(old_token);
        let token = new_token("hxb_");
        let mut tx = self.store.begin_write().await?;
        if acc::set_bot_token(&mut tx, &bot.id, &token_hash(&token), &old_hash).await? != 1 {
            return Err(rotated_already());
        }
        tx.commit().await?;
        self.revoke_bot_token(bot, old_hash);
        Ok(token)
    }

    /// A new token for bot `bot_ref` of `player` (issue 20: the owner's way back to a bot whose
    /// token is lost, or whose rotation's answer never arrived); the bot's token is revoked at
    /// once, as by [`Arena::rotate_bot_token`]. Returns the bot and its new token.
    /// Errors: 404 unknown bot, 403 `forbidden` for another player's bot.
    pub async fn reset_bot_token(
        &self,
        player: &PlayerRow,
        bot_ref: &str,
    ) -> ArenaResult<(BotRow, String)> {
        let token = new_token("hxb_");
        let mut tx = self.store.begin_write().await?;
        let bot = acc::bot_by_ref(&mut tx, bot_ref)
            .await?
            .ok_or_else(|| ArenaError::not_found(format!("no bot '{bot_ref}'")))?;
        if bot.owner_id != player.id {
            return Err(ArenaError::forbidden(format!(
                "{} is not your bot",
                bot.name
            )));
        }
        let old_hash = acc::bot_token_hash(&mut tx, &bot.id)
            .await?
            .ok_or_else(|| ArenaError::not_found(format!("no bot '{bot_ref}'")))?;
        if acc::set_bot_token(&mut tx, &bot.id, &token_hash(&token), &old_hash).await? != 1 {
            return Err(ArenaError::unavailable(
                "the bot's token changed meanwhile; retry",
            ));
        }
        tx.commit().await?;
        self.revoke_bot_token(&bot, old_hash);
        Ok((bot, token))
    }

    /// After a bot's token changed: forgets it here, ends its streams, and tells the other
    /// instances (PostgreSQL) to do the same.
    fn revoke_bot_token(&self, bot: &BotRow, old_hash: String) {
        self.forget_bot_tokens(&bot.id);
        let _ = self.revoked_tokens.send(old_hash.clone().into());
        // The other instances (PostgreSQL) forget it too and end its streams there.
        self.notifier.send(vec![crate::store::notify::Notice {
            origin: self.store.instance_id.to_string(),
            revoked: Some((bot.id.clone(), old_hash)),
            ..Default::default()
        }]);
    }

    /// Issues a new token for a player and revokes the old one at once (issue 20).
    /// Returns the new token. Errors: database.
    pub async fn rotate_player_token(
        &self,
        player: &PlayerRow,
        old_token: &str,
    ) -> ArenaResult<String> {
        let old_hash = token_hash(old_token);
        let token = new_token("hxp_");
        let mut tx = self.store.begin_write().await?;
        if acc::set_player_token(&mut tx, &player.id, &token_hash(&token), &old_hash).await? != 1 {
            return Err(rotated_already());
        }
        tx.commit().await?;
        let _ = self.revoked_tokens.send(old_hash.into());
        Ok(token)
    }

    /// Retires a bot (issue 20): it plays no new sets from now on, its open challenges are
    /// cancelled and those aimed at it declined; its running sets finish, its name stays
    /// taken, its history stays. Retiring a retired bot changes nothing. Returns the bot as
    /// it is now. Errors: database.
    pub async fn retire_bot(&self, bot: &BotRow) -> ArenaResult<BotRow> {
        let mut tx = self.store.begin_write().await?;
        // Out of the matchmaking pool (issue 20); its row first, as a pool pairing locks the
        // pool row before the bot's.
        crate::store::pool::remove(&mut tx, &bot.id).await?;
        acc::retire_bot(&mut tx, &bot.id, self.now_ms()).await?;
        let open = crate::store::sets::open_involving(&mut tx, &bot.id).await?;
        tx.commit().await?;
        for s in open {
            // Accepted meanwhile: then it runs and finishes; nothing to close.
            match self.close_set(bot, &s.id, s.creator_id != bot.id).await {
                Ok(_) => {}
                Err(e) if e.is(Code::SetNotOpen) => {}
                Err(e) => return Err(e),
            }
        }
        // Its tournaments pair it no more; a set it is playing there finishes (issue 20).
        let mut c = self.store.conn().await?;
        let events = crate::store::tournaments::active_entries_of(&mut c, &bot.id).await?;
        let (unstarted, matches) =
            crate::store::tournaments::unstarted_and_matches_of(&mut c, &bot.id).await?;
        drop(c);
        // A tournament not started yet loses the participant (unless too few would be left:
        // then its start refuses the retired bot until the operator removes it).
        for t in unstarted {
            match self.remove_participant(&t, &bot.id).await {
                Ok(_) => {}
                Err(e)
                    if e.is_any(&[
                        Code::TournamentState,
                        Code::TooFewParticipants,
                        Code::NotParticipant,
                    ]) => {}
                Err(e) => return Err(e),
            }
        }
        // Its matches stop: cancelled, their sets in play finish.
        for m in matches {
            match self.transition(&m, "cancel", true).await {
                Ok(()) => {}
                Err(e) if e.is(Code::TournamentState) => {}
                Err(e) => return Err(e),
            }
        }
        for t in events {
            match self
                .withdraw_by(&t, &bot.id, super::tournaments::InPlay::Finish, "retired")
                .await
            {
                Ok(_) => {}
                // Finished, cancelled or withdrawn meanwhile: nothing left to do there.
                Err(e) if e.is_any(&[Code::TournamentState, Code::AlreadyWithdrawn]) => {}
                Err(e) => return Err(e),
            }
        }
        let mut c = self.store.conn().await?;
        acc::bot_by_ref(&mut c, &bot.id)
            .await?
            .ok_or_else(|| ArenaError::internal("bot vanished"))
    }

    /// Stores what a bot declares it accepts and its capacity (`PATCH /v1/bots/me`); absent
    /// fields keep their value. Returns the bot as it is now. Errors: database.
    pub async fn declare(&self, bot: &BotRow, d: super::accepts::Declare) -> ArenaResult<BotRow> {
        let mut tx = self.store.begin_write().await?;
        let now = acc::bot_by_ref(&mut tx, &bot.id)
            .await?
            .ok_or_else(|| ArenaError::not_found(format!("no bot '{}'", bot.id)))?;
        let accepts = match d.accepts {
            None => now.accepts.clone(),
            Some(a) if a == super::accepts::Accepts::default() => None,
            Some(a) => Some(serde_json::to_string(&a).map_err(ArenaError::internal)?),
        };
        let cap = d.max_concurrent_sets.unwrap_or(now.max_concurrent_sets);
        acc::set_declared(&mut tx, &bot.id, accepts.as_deref(), cap).await?;
        let out = acc::bot_by_ref(&mut tx, &bot.id)
            .await?
            .ok_or_else(|| ArenaError::internal("bot vanished"))?;
        tx.commit().await?;
        Ok(out)
    }

    /// Operator grant: mints `amount` PTS into a player's balance.
    pub async fn grant(&self, player_ref: &str, amount: i64) -> ArenaResult<PlayerRow> {
        if !(1..=1_000_000_000).contains(&amount) {
            return Err(ArenaError::bad_request("amount must be 1 to 1e9")
                .with_details(json!({"field": "amount", "min": 1, "max": 1_000_000_000})));
        }
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        let p = acc::player_by_ref(&mut tx, player_ref)
            .await?
            .ok_or_else(|| ArenaError::not_found(format!("no player '{player_ref}'")))?;
        let key = format!("grant:{}:{}", p.id, ulid::Ulid::generate());
        grant_in(&mut tx, &p.id, amount, &key, now).await?;
        let p = acc::player_by_id(&mut tx, &p.id)
            .await?
            .ok_or_else(|| ArenaError::internal("player vanished"))?;
        tx.commit().await?;
        Ok(p)
    }
}

async fn grant_in(
    c: &mut Conn,
    player_id: &str,
    amount: i64,
    key: &str,
    now: i64,
) -> ArenaResult<()> {
    let legs = [
        Posting::player(player_id, "grant", amount),
        Posting::account("mint".into(), "grant", -amount),
    ];
    ledger::transfer(c, key, None, &legs, now)
        .await
        .map_err(transfer_error)?;
    Ok(())
}

/// Maps a ledger refusal to the API's errors.
pub fn transfer_error(e: TransferError) -> ArenaError {
    match e {
        TransferError::InsufficientBalance { player_id } => ArenaError::new(
            Code::InsufficientBalance,
            format!("{player_id} has too few PTS for this stake"),
        )
        .with_details(json!({"player": player_id})),
        TransferError::Unbalanced(sum) => {
            ArenaError::internal(format!("unbalanced transfer ({sum})"))
        }
        TransferError::Db(e) => ArenaError::from(e),
    }
}

/// 401 for a rotation whose token another rotation replaced first.
fn rotated_already() -> ArenaError {
    ArenaError::unauthorized("this token was rotated already and is revoked")
}
