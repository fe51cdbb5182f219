//! Sets: create, accept, cancel, decline, practice and operator pairings (SPEC sections 5, 8, 9).

use hex::Position;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::accounts::transfer_error;
use super::error::{ArenaError, ArenaResult, Code};
use super::options::{GameOptions, STAKE_MAX, STAKE_MIN, stake_error};
use super::play::Effects;
use super::views::{self, SetNames};
use super::{Arena, Change};
use crate::store::Conn;
use crate::store::WriteTx;
use crate::store::accounts::{self as acc, BotRow};
use crate::store::events::LOBBY;
use crate::store::games::{self, GameRow};
use crate::store::ledger::{self, Posting};
use crate::store::sets::{self, SetRow};
use crate::store::status::SetStatus;

mod accept;
mod close;
mod create;
mod listing;

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
    /// A set the matchmaking pool made (issue 20; `arena::pool`).
    pub pool: bool,
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
        pool: i64::from(req.pool),
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
    ArenaError::new(
        Code::SameOwner,
        "bots of the same owner may not play staked sets against each other; an unstaked \
         one (\"stake\": 0, rated or not) is allowed",
    )
    .with_details(json!({"allowed_stake": 0}))
}

/// 409 `bot_retired`: a retired bot plays no new sets (issue 20).
pub(super) fn retired(b: &BotRow) -> ArenaError {
    ArenaError::new(
        Code::BotRetired,
        format!("{} is retired and plays no new sets", b.name),
    )
    .with_details(json!({"bot": b.name}))
}

/// The bot as stored now; 409 `bot_retired` when it is retired.
pub(crate) async fn not_retired(tx: &mut Conn, b: &BotRow) -> ArenaResult<BotRow> {
    match acc::bot_by_ref(tx, &b.id).await? {
        Some(now) if now.retired_ms.is_some() => Err(retired(&now)),
        Some(now) => Ok(now),
        None => Err(ArenaError::not_found(format!("no bot '{}'", b.id))),
    }
}

fn not_open(set: &SetRow) -> ArenaError {
    ArenaError::new(
        Code::SetNotOpen,
        format!("set {} is {}", set.id, set.status),
    )
    .with_details(json!({"status": set.status}))
}
