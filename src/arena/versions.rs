//! Checks of held games against their rows, gathered (PostgreSQL; issue 22). Several
//! instances may share the database, so a state GET on PostgreSQL compares the game it holds
//! with the row's version before answering from it (`Arena::live_game`). One check is a round
//! trip of its own; under load the GETs waiting at the same moment now share one statement,
//! as the group-commit writer's moves share one commit. Each answer comes from a statement
//! that started after its GET asked, so no GET answers older than a move committed before it.

use std::collections::HashMap;

use tokio::sync::{mpsc, oneshot};

use crate::store::{Backend, Store, StoreError, games};

/// Most checks answered by one statement.
const BATCH_MAX: usize = 256;

/// One check: the game, and where its row's version goes (`None`: no such row; `Err`: the
/// shared statement failed, and the asker reads the row itself, to meet the error as its own).
type Ask = ((String, i64), oneshot::Sender<Result<Option<i64>, ()>>);

/// The gatherer of version checks: a task on PostgreSQL, nothing on SQLite (one process holds
/// the database, so what it holds is the row).
#[derive(Clone)]
pub struct VersionChecks {
    queue: Option<mpsc::UnboundedSender<Ask>>,
}

impl VersionChecks {
    /// Starts the task on PostgreSQL (must run inside the Tokio runtime).
    pub fn start(store: &Store) -> VersionChecks {
        let queue = (store.backend == Backend::Postgres).then(|| {
            let (tx, rx) = mpsc::unbounded_channel();
            tokio::spawn(run(store.clone(), rx));
            tx
        });
        VersionChecks { queue }
    }

    /// The version of the row of game `game_no` of `set_id` now (`None`: no such row).
    /// Errors: the database's, as a direct read meets them.
    pub async fn version(
        &self,
        store: &Store,
        set_id: &str,
        game_no: i64,
    ) -> Result<Option<i64>, StoreError> {
        if let Some(q) = &self.queue {
            let (tx, rx) = oneshot::channel();
            if q.send(((set_id.to_string(), game_no), tx)).is_ok()
                && let Ok(Ok(v)) = rx.await
            {
                return Ok(v);
            }
        }
        let mut c = store.conn().await?;
        games::version_of(&mut c, set_id, game_no).await
    }
}

/// Answers the checks that wait, one statement for all those waiting when it starts.
async fn run(store: Store, mut rx: mpsc::UnboundedReceiver<Ask>) {
    let mut batch: Vec<Ask> = Vec::with_capacity(BATCH_MAX);
    while let Some(first) = rx.recv().await {
        batch.push(first);
        while batch.len() < BATCH_MAX {
            match rx.try_recv() {
                Ok(a) => batch.push(a),
                Err(_) => break,
            }
        }
        let found = read(&store, &batch).await;
        for (key, tx) in batch.drain(..) {
            let answer = match &found {
                Ok(rows) => Ok(rows.get(&key).copied()),
                Err(()) => Err(()),
            };
            let _ = tx.send(answer);
        }
    }
}

/// The versions of the batch's games, by (set id, game number).
async fn read(store: &Store, batch: &[Ask]) -> Result<HashMap<(String, i64), i64>, ()> {
    let mut keys: Vec<(&str, i64)> = batch.iter().map(|((s, n), _)| (s.as_str(), *n)).collect();
    keys.sort_unstable();
    keys.dedup();
    let mut c = store.conn().await.map_err(|_| ())?;
    let rows = games::versions_of_pg(&mut c, &keys).await.map_err(
        |e| tracing::debug!(error = %e, "a gathered version check failed; each asks alone"),
    )?;
    Ok(rows.into_iter().map(|(s, n, v)| ((s, n), v)).collect())
}
