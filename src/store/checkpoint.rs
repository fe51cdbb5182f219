//! SQLite's WAL checkpoints, off the commit path (issue 22).
//!
//! A checkpoint copies the pages committed to the write-ahead log back into the database file
//! and syncs it. Left to SQLite, it runs inside the commit that takes the log past its
//! threshold, on the one connection that writes: about one move in a hundred of a lone game
//! waited 4 to 8 ms for it (`hexarena_commit_batch_duration_seconds`), which set the lone game's
//! p99. Here a background task checkpoints every [`EVERY_MS`] on a reading connection (its own
//! thread), beside the writer, in SQLite's `PASSIVE` mode, which never blocks a writer or a
//! reader. The writer keeps SQLite's own checkpoint as a backstop at [`BACKSTOP_PAGES`]: when
//! commits never pause (a long heavy load) the log can only start over after a checkpoint that
//! runs between two commits, and by then the background has copied all but the last pages.
//!
//! Durability is unchanged: a commit is answered once its log frames are written (and synced
//! with `synchronous=FULL`), checkpointed or not.

use std::time::{Duration, Instant};

use super::Store;

/// How often the background checkpoint runs, ms.
pub const EVERY_MS: u64 = 100;

/// Log pages (4 KiB each) at which a committing connection checkpoints by itself
/// (`PRAGMA wal_autocheckpoint`; SQLite's default is 1000).
pub const BACKSTOP_PAGES: u32 = 4000;

/// What one checkpoint did: SQLite's answer to `PRAGMA wal_checkpoint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checkpointed {
    /// 1 when a lock held elsewhere stopped it short (it runs again next time).
    pub busy: i64,
    /// Frames in the log.
    pub log_frames: i64,
    /// Frames of the log now copied to the database file.
    pub checkpointed_frames: i64,
}

/// Runs one `PASSIVE` checkpoint on a reading connection. Errors: database (a full disk, an
/// I/O error); nothing is lost by one that fails, the next one copies the same frames.
pub async fn checkpoint(store: &Store) -> sqlx::Result<Checkpointed> {
    let mut c = store.pool.acquire().await?;
    let (busy, log_frames, checkpointed_frames): (i64, i64, i64) =
        sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)")
            .fetch_one(&mut *c)
            .await?;
    Ok(Checkpointed {
        busy,
        log_frames,
        checkpointed_frames,
    })
}

/// Checkpoints every [`EVERY_MS`] until `stop` says so, reporting each one's wall time to
/// `took`; a database in memory or on PostgreSQL has no log to checkpoint (returns at once).
/// Skips while `pause` says so (storage down: the recovery probe comes first). A failure is
/// logged once per run of failures.
pub async fn run(
    store: Store,
    pause: impl Fn() -> bool,
    stop: impl Fn() -> bool,
    took: impl Fn(Duration),
) {
    if !store.has_wal() {
        return;
    }
    let mut tick = tokio::time::interval(Duration::from_millis(EVERY_MS));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut failing = false;
    while !stop() {
        tick.tick().await;
        if pause() {
            continue;
        }
        let started = Instant::now();
        match checkpoint(&store).await {
            Ok(_) => {
                took(started.elapsed());
                failing = false;
            }
            Err(e) => {
                if !failing {
                    tracing::warn!(error = %e, "WAL checkpoint failed; retrying every {EVERY_MS} ms");
                }
                failing = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh database in a temporary directory (its migrations fill the log).
    async fn file_store(dir: &std::path::Path) -> Store {
        let url = format!("sqlite://{}/a.db", dir.display());
        Store::connect(&url).await.expect("store")
    }

    #[tokio::test]
    async fn a_checkpoint_copies_the_whole_log_and_leaves_the_data_as_it_was() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = file_store(dir.path()).await;
        assert!(store.has_wal());
        let data = store.database_bytes().await.expect("size");
        assert!(data > 0 && data % 4096 == 0, "{data}");

        let done = checkpoint(&store).await.expect("checkpoint");
        assert_eq!(done.busy, 0);
        assert!(
            done.log_frames > 0,
            "the migrations were in the log: {done:?}"
        );
        assert_eq!(done.checkpointed_frames, done.log_frames);
        // The data did not change; the file now holds all of it: every page, those in use
        // and those a migration freed (a dropped table's pages stay in the file's free list).
        assert_eq!(store.database_bytes().await.expect("size"), data);
        let (pages, free): (i64, i64) = sqlx::query_as(
            "SELECT (SELECT page_count FROM pragma_page_count()), \
             (SELECT freelist_count FROM pragma_freelist_count())",
        )
        .fetch_one(&store.pool)
        .await
        .expect("page counts");
        assert_eq!((pages - free) * 4096, data);
        let file = std::fs::metadata(dir.path().join("a.db"))
            .expect("file")
            .len();
        assert_eq!(i64::try_from(file).ok(), Some(pages * 4096));
    }

    #[tokio::test]
    async fn the_writer_checkpoints_by_itself_only_as_a_backstop() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = file_store(dir.path()).await;
        let (_queue, mut c) = store
            .sqlite_writer()
            .await
            .expect("writer")
            .expect("sqlite");
        let pages: i64 = sqlx::query_scalar("PRAGMA wal_autocheckpoint")
            .fetch_one(&mut *c)
            .await
            .expect("pragma");
        assert_eq!(pages, i64::from(BACKSTOP_PAGES));
    }

    #[tokio::test]
    async fn nothing_to_checkpoint_in_memory() {
        let store = Store::connect("sqlite::memory:").await.expect("store");
        assert!(!store.has_wal());
        // Returns at once rather than looping.
        tokio::time::timeout(
            Duration::from_secs(5),
            run(store, || false, || false, |_| {}),
        )
        .await
        .expect("run returns for a database in memory");
    }
}
