//! Clocks that disagree, for the clock-sync tests (`clock_sync.rs`, `clock_sync_greybox.rs`):
//! a machine clock set ahead, two instances sharing one database with one of them ahead, and
//! the moves of a game that never ends.

use std::sync::Arc;

use hexarena::arena::clock::TimeSource;
use serde_json::{Value, json};

use super::{Spawn, TestApp, fresh_pg_db, spawn_with};

/// The machine clock of a badly set host: the real time plus `.0` ms.
pub struct Ahead(pub i64);

impl TimeSource for Ahead {
    fn now_ms(&self) -> i64 {
        chrono::Utc::now().timestamp_millis() + self.0
    }
}

/// Largest error allowed between a move's `elapsed_ms` and the real time it took (generous:
/// a shared, noisy machine; the measured error is printed).
pub const ERROR_BOUND_MS: i64 = 500;

/// Instance 0 on the real clock, instance 1 five seconds ahead, on one fresh database.
pub async fn skewed_pair() -> Option<[TestApp; 2]> {
    let url = fresh_pg_db().await?;
    let on_time = spawn_with(Spawn {
        database_url: Some(url.clone()),
        ..Spawn::default()
    })
    .await;
    let ahead = spawn_with(Spawn {
        database_url: Some(url),
        time: Arc::new(Ahead(5_000)),
        ..Spawn::default()
    })
    .await;
    Some([on_time, ahead])
}

/// The cells of a game that never ends (rows 0 and 2 for seat 1, 4 and 6 for seat 2).
pub fn quiet_move(ply: i64) -> Value {
    let k = ply - 1;
    let (seat, i) = (k % 2, k / 2);
    let row = if seat == 0 { 0 } else { 4 } + 2 * (i / 8);
    json!({"cell": [row, i % 8]})
}

/// Two in-process instances on one fresh PostgreSQL database, both on `time` (a shared fake
/// clock, so the test decides what each instance sees); None without `TEST_DATABASE_URL`.
pub async fn pair_on(time: Arc<dyn TimeSource>) -> Option<[TestApp; 2]> {
    let url = fresh_pg_db().await?;
    let first = spawn_with(Spawn {
        time: time.clone(),
        database_url: Some(url.clone()),
        ..Spawn::default()
    })
    .await;
    let second = spawn_with(Spawn {
        time,
        database_url: Some(url),
        ..Spawn::default()
    })
    .await;
    Some([first, second])
}
