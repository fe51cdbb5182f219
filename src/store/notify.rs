//! Change notices between instances sharing one PostgreSQL database (SPEC sections 12, 13;
//! `docs/multi-instance.md`). A notice is sent with `pg_notify` inside the transaction that
//! made the change, so PostgreSQL delivers it only if, and once, that transaction commits. It
//! carries ids and numbers only, never a state: each instance rebuilds what it needs itself.

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
}

/// Queues `notices` on `c`'s transaction (PostgreSQL only): delivered at its commit.
pub async fn send(c: &mut AnyConnection, notices: &[Notice]) -> sqlx::Result<()> {
    for n in notices {
        let text = serde_json::to_string(n).map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
        sqlx::query("SELECT pg_notify($1, $2)::text")
            .bind(CHANNEL)
            .bind(text)
            .execute(&mut *c)
            .await?;
    }
    Ok(())
}
