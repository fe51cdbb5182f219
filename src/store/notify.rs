//! Change notices between instances sharing one PostgreSQL database (SPEC sections 12, 13;
//! `docs/multi-instance.md`). A notice is sent with `pg_notify` right after the transaction
//! that made the change committed (never before: only committed changes are announced), by
//! one notifier per instance that batches what accumulated, and only while another instance
//! may be listening (`arena::cluster::Peers`). It carries ids and numbers only, never a
//! state: each instance rebuilds what it needs itself.

use serde::{Deserialize, Serialize};
use sqlx::AnyConnection;

/// The channel every instance listens on.
pub const CHANNEL: &str = "hexarena_changes";

/// One committed change, as other instances hear of it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notice {
    /// The instance that committed it (an instance ignores its own notices).
    #[serde(rename = "o")]
    pub origin: String,
    #[serde(rename = "s")]
    pub set_id: String,
    /// The game changed, if the change is a game's.
    #[serde(rename = "g", default, skip_serializing_if = "Option::is_none")]
    pub game_no: Option<i64>,
    /// The game row's version after the change.
    #[serde(rename = "v", default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
    /// The game's deadline after the change (ms since the epoch; None: no running turn).
    #[serde(rename = "d", default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<i64>,
    /// Bots whose streams and long-polls the change may concern.
    #[serde(rename = "b", default)]
    pub bots: Vec<String>,
    /// The highest event id the transaction stored (0 when none).
    #[serde(rename = "e", default)]
    pub max_event_id: i64,
    /// The public lists care (a set-level change, or a game that started or ended), so the
    /// receiving instance tells its `GET /v1/events` clients too.
    #[serde(rename = "l", default, skip_serializing_if = "std::ops::Not::not")]
    pub listed: bool,
    /// A bot token rotated (issue 20): (bot id, hash of the revoked token). Every instance
    /// forgets the bot's cached tokens and ends the streams the old token opened.
    #[serde(rename = "r", default, skip_serializing_if = "Option::is_none")]
    pub revoked: Option<(String, String)>,
    /// The origin was alone and may have left changes unannounced (issue 22: a lone instance
    /// sends no notices); every receiver catches up from the database once.
    #[serde(rename = "c", default, skip_serializing_if = "std::ops::Not::not")]
    pub catch_up: bool,
}

/// Largest payload sent in one notification (PostgreSQL refuses 8000 bytes and more).
const MAX_PAYLOAD: usize = 7_000;

/// Sends `notices` (PostgreSQL only) on `c` in as few notifications as fit: each payload is a
/// JSON array of notices. Run outside any move transaction (autocommit), see
/// `docs/multi-instance.md`: a `NOTIFY` inside a transaction holds PostgreSQL's one
/// notification-queue lock through that transaction's commit.
pub async fn send(c: &mut AnyConnection, notices: &[Notice]) -> sqlx::Result<()> {
    let mut payload = String::from("[");
    for n in notices {
        let text = serde_json::to_string(n).map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
        if payload.len() > 1 && payload.len() + text.len() + 2 > MAX_PAYLOAD {
            payload.push(']');
            notify(c, &payload).await?;
            payload = String::from("[");
        }
        if payload.len() > 1 {
            payload.push(',');
        }
        payload.push_str(&text);
    }
    if payload.len() > 1 {
        payload.push(']');
        notify(c, &payload).await?;
    }
    Ok(())
}

async fn notify(c: &mut AnyConnection, payload: &str) -> sqlx::Result<()> {
    sqlx::query("SELECT pg_notify($1, $2)::text")
        .bind(CHANNEL)
        .bind(payload)
        .execute(c)
        .await
        .map(|_| ())
}

/// A connection of its own that listens on [`CHANNEL`] (PostgreSQL), opened from `url`;
/// it does not end when the pool closes.
pub async fn subscribe(url: &str) -> sqlx::Result<sqlx::postgres::PgListener> {
    let mut listener = sqlx::postgres::PgListener::connect(url).await?;
    listener.ignore_pool_close_event(true);
    listener.listen(CHANNEL).await?;
    Ok(listener)
}

/// The notices in a payload (a JSON array of notices, or one notice).
pub fn parse(payload: &str) -> Result<Vec<Notice>, serde_json::Error> {
    if payload.trim_start().starts_with('[') {
        serde_json::from_str(payload)
    } else {
        serde_json::from_str(payload).map(|n| vec![n])
    }
}
