//! The PTS ledger (SPEC section 8): money moves only as a transfer, a group of postings with one
//! `transfer_key` whose amounts sum to zero, written in the caller's transaction. A player's
//! `balance` column is the running sum of the postings on `player:<id>`, updated alongside.

use sqlx::AnyConnection;

/// One leg of a transfer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Posting {
    /// `player:<id>`, `escrow:<set_id>`, `mint` or `fees`.
    pub account: String,
    /// The player whose balance this leg moves, if any.
    pub player_id: Option<String>,
    /// `grant`, `escrow`, `payout`, `refund`, `fee`.
    pub kind: &'static str,
    /// Signed PTS; positive credits the account.
    pub amount: i64,
}

impl Posting {
    pub fn player(player_id: &str, kind: &'static str, amount: i64) -> Posting {
        Posting {
            account: format!("player:{player_id}"),
            player_id: Some(player_id.into()),
            kind,
            amount,
        }
    }
    pub fn account(account: String, kind: &'static str, amount: i64) -> Posting {
        Posting {
            account,
            player_id: None,
            kind,
            amount,
        }
    }
}

/// Why a transfer was refused.
#[derive(Debug)]
pub enum TransferError {
    /// The legs do not sum to zero (a bug in the caller).
    Unbalanced(i64),
    /// A player's balance would go below zero.
    InsufficientBalance {
        player_id: String,
    },
    Db(sqlx::Error),
}

impl From<sqlx::Error> for TransferError {
    fn from(e: sqlx::Error) -> Self {
        TransferError::Db(e)
    }
}

/// Writes a transfer once: a second call with the same key changes nothing and returns false.
pub async fn transfer(
    c: &mut AnyConnection,
    key: &str,
    set_id: Option<&str>,
    legs: &[Posting],
    now_ms: i64,
) -> Result<bool, TransferError> {
    let sum: i64 = legs.iter().map(|l| l.amount).sum();
    if sum != 0 {
        return Err(TransferError::Unbalanced(sum));
    }
    let seen: Option<(i64,)> =
        sqlx::query_as("SELECT id FROM ledger WHERE transfer_key = $1 LIMIT 1")
            .bind(key)
            .fetch_optional(&mut *c)
            .await?;
    if seen.is_some() {
        return Ok(false);
    }
    // Balances first, in player-id order: concurrent transfers between the same players lock
    // their rows in one order, so PostgreSQL never deadlocks two escrows of swapped owners.
    let mut movers: Vec<(&String, i64)> = legs
        .iter()
        .filter_map(|l| Some((l.player_id.as_ref()?, l.amount)))
        .collect();
    movers.sort();
    for (pid, amount) in movers {
        let r = sqlx::query(
            "UPDATE players SET balance = balance + $1 WHERE id = $2 AND balance + $1 >= 0",
        )
        .bind(amount)
        .bind(pid)
        .execute(&mut *c)
        .await?;
        if r.rows_affected() != 1 {
            return Err(TransferError::InsufficientBalance {
                player_id: pid.clone(),
            });
        }
    }
    for leg in legs {
        sqlx::query(
            "INSERT INTO ledger (transfer_key, account, player_id, set_id, kind, amount, at_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(key)
        .bind(&leg.account)
        .bind(&leg.player_id)
        .bind(set_id)
        .bind(leg.kind)
        .bind(leg.amount)
        .bind(now_ms)
        .execute(&mut *c)
        .await?;
    }
    Ok(true)
}

/// A posting as a player sees it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PostingRow {
    pub id: i64,
    pub kind: String,
    pub amount: i64,
    pub set_id: Option<String>,
    pub at_ms: i64,
}

/// One leg of a transfer as shown with a settlement: the player (if any) and its name.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TransferLeg {
    pub account: String,
    pub player_id: Option<String>,
    pub kind: String,
    pub amount: i64,
    pub player_name: Option<String>,
}

/// The legs of the transfer with idempotency key `key`, in the order written.
pub async fn legs_of_transfer(c: &mut AnyConnection, key: &str) -> sqlx::Result<Vec<TransferLeg>> {
    sqlx::query_as(
        "SELECT l.account, l.player_id, l.kind, l.amount, p.name AS player_name FROM ledger l \
         LEFT JOIN players p ON p.id = l.player_id WHERE l.transfer_key = $1 ORDER BY l.id",
    )
    .bind(key)
    .fetch_all(c)
    .await
}

/// A player's postings, newest first, before posting id `before` if given.
pub async fn of_player(
    c: &mut AnyConnection,
    player_id: &str,
    before: Option<i64>,
    limit: i64,
) -> sqlx::Result<Vec<PostingRow>> {
    sqlx::query_as(
        "SELECT id, kind, amount, set_id, at_ms FROM ledger WHERE player_id = $1 \
         AND ($2 IS NULL OR id < $2) ORDER BY id DESC LIMIT $3",
    )
    .bind(player_id)
    .bind(before)
    .bind(limit)
    .fetch_all(c)
    .await
}

/// The balance of any account (sum of its postings).
pub async fn account_balance(c: &mut AnyConnection, account: &str) -> sqlx::Result<i64> {
    let (sum,): (Option<i64>,) =
        sqlx::query_as("SELECT CAST(SUM(amount) AS BIGINT) FROM ledger WHERE account = $1")
            .bind(account)
            .fetch_one(c)
            .await?;
    Ok(sum.unwrap_or(0))
}

/// PTS a player has in escrow across its bots' active sets.
pub async fn escrow_of_player(c: &mut AnyConnection, player_id: &str) -> sqlx::Result<i64> {
    let (sum,): (Option<i64>,) = sqlx::query_as(
        "SELECT CAST(SUM(-l.amount) AS BIGINT) FROM ledger l JOIN sets s ON s.id = l.set_id \
         WHERE l.player_id = $1 AND l.kind = 'escrow' AND s.status = 'active'",
    )
    .bind(player_id)
    .fetch_one(c)
    .await?;
    Ok(sum.unwrap_or(0))
}
