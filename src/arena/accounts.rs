//! Players and bots: names, registration, tokens, strikes and grants (SPEC sections 3 and 7).
//! Token rotation, retirement and declarations are in `hygiene`; profiles and other reads in
//! `profiles`.

use serde_json::json;
use sha2::{Digest, Sha256};

use super::Arena;
use super::error::{ArenaError, ArenaResult, Code};
use super::views::rfc3339;
use crate::store::Conn;
use crate::store::accounts as acc;
/// The account rows handlers see (pure data).
pub use crate::store::accounts::{BotRow, PlayerRow};
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
        // Names are unique regardless of case: the message gives the one that exists (the
        // name asked for when two creations race on PostgreSQL and the key refuses one).
        let taken = |existing: &str| {
            ArenaError::new(Code::NameTaken, format!("a bot named '{existing}' exists"))
                .with_details(json!({"field": "name"}))
        };
        if let Some(b) = acc::bot_by_ref(&mut tx, name).await? {
            return Err(taken(&b.name));
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
                taken(name)
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
        // Read before the database: a revocation committed meanwhile makes the row stale.
        let epoch = self.bot_tokens_epoch();
        let mut c = self.store.conn().await?;
        let bot = acc::bot_by_token(&mut c, &hash).await?;
        if let Some(b) = &bot {
            self.remember_bot_token(hash, b.clone(), epoch);
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

    /// Operator grant: mints `amount` PTS into a player's balance.
    pub async fn grant(&self, player_ref: &str, amount: i64) -> ArenaResult<PlayerRow> {
        if !(1..=1_000_000_000).contains(&amount) {
            return Err(ArenaError::bad_request("amount must be 1 to 1e9")
                .with_details(json!({"field": "amount", "min": 1, "max": 1_000_000_000})));
        }
        let mut tx = self.store.begin_write().await?;
        let now = self.now_ms();
        // Minted PTS must reach the player meant: a name two players share is refused.
        let found = acc::players_by_ref(&mut tx, player_ref, 10).await?;
        let p = match found.iter().position(|p| p.id == player_ref) {
            Some(i) => &found[i],
            None if found.len() > 1 => {
                let ids: Vec<&str> = found.iter().map(|p| p.id.as_str()).collect();
                return Err(ArenaError::bad_request(format!(
                    "{} players are named '{player_ref}'; give the player's id",
                    if found.len() == 10 {
                        "10 or more"
                    } else {
                        "several"
                    }
                ))
                .with_details(json!({"field": "player", "players": ids})));
            }
            None => found
                .first()
                .ok_or_else(|| ArenaError::not_found(format!("no player '{player_ref}'")))?,
        };
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
