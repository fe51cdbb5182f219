//! The database: the single source of truth (SPEC section 12).
//!
//! One SQL text serves SQLite and PostgreSQL through sqlx's `Any` driver: times are integer
//! milliseconds, booleans integers, placeholders `$1..` in order of first use. Each state change
//! is one short transaction that locks what it changes: `BEGIN IMMEDIATE` on SQLite (plus an
//! in-process queue so writers wait in order instead of in SQLite's busy handler), and
//! `SELECT ... FOR UPDATE` on the rows it changes in PostgreSQL.

pub mod accounts;
pub mod analysis;
pub mod checkpoint;
pub mod events;
pub mod games;
pub mod health;
pub mod instances;
pub mod ledger;
pub mod move_batch;
pub mod notify;
pub mod pool;
pub mod presence;
pub mod sets;
pub mod status;
pub mod tournaments;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use sqlx::SqlSafeStr;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{Any, AnyPool, Connection, Executor, Transaction};
use tokio::sync::{Mutex, OwnedMutexGuard};

/// A database connection as the store's functions take it: a pooled connection or an open
/// transaction (both dereference to one). The arena and the API name it only through this.
pub type Conn = sqlx::AnyConnection;

/// A connection taken from the pool ([`Store::conn`]); returned to it when dropped.
pub type PooledConn = sqlx::pool::PoolConnection<Any>;

/// A failed statement, as the database driver reports it.
pub type StoreError = sqlx::Error;

/// Result of a store call.
pub type StoreResult<T> = Result<T, StoreError>;

/// What a failed statement means to the arena ([`fault`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The pool is closed or timed out, or the database is busy: retry shortly.
    Busy,
    /// A unique key was already taken (by a concurrent transaction, or an existing row).
    Duplicate,
    /// The storage itself fails ([`health::is_storage_error`]).
    Storage,
    /// The database cannot hold a text the request gave: PostgreSQL refuses U+0000 in any
    /// text (SQLSTATE 22021), even one it is only asked to compare with.
    UnstorableText,
    /// Anything else: a fault of ours.
    Other,
}

/// Classifies a failed statement (the arena maps each [`Fault`] to a refusal).
#[must_use]
pub fn fault(e: &StoreError) -> Fault {
    match e {
        sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed => Fault::Busy,
        sqlx::Error::Database(db) if is_busy(db.message()) => Fault::Busy,
        sqlx::Error::Database(db) if db.is_unique_violation() => Fault::Duplicate,
        sqlx::Error::Database(db) if db.code().as_deref() == Some("22021") => Fault::UnstorableText,
        _ if health::is_storage_error(e) => Fault::Storage,
        _ => Fault::Other,
    }
}

/// Whether a failed statement is a unique key already taken (whatever else it says).
#[must_use]
pub fn is_duplicate(e: &StoreError) -> bool {
    matches!(e, sqlx::Error::Database(db) if db.is_unique_violation())
}

/// Whether a database message says it is locked or busy.
fn is_busy(msg: &str) -> bool {
    msg.contains("database is locked") || msg.contains("busy")
}

/// Which database is behind the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Records a failed statement in `health`: on PostgreSQL a lost connection starts the outage
/// at the last answered heartbeat ([`health::Health::failed_remote`]).
fn health_failed(health: &health::Health, backend: Backend, e: &sqlx::Error) {
    match backend {
        Backend::Sqlite => health.failed(e),
        Backend::Postgres => health.failed_remote(e),
    };
}

/// How long a fresh connection may take to open before the database counts as unreachable.
pub const REACH_TIMEOUT: Duration = Duration::from_secs(2);

/// Longest wait for a pooled connection while storage is down ([`Store::conn`]).
pub const DOWN_ACQUIRE: Duration = Duration::from_millis(500);

/// The connection pool and how to write to it.
#[derive(Clone)]
pub struct Store {
    pub pool: AnyPool,
    pub backend: Backend,
    /// The URL connected to (the change listener opens its own connection from it).
    pub url: Arc<str>,
    /// This process's id: in the `instances` table and on every change notice it sends.
    pub instance_id: Arc<str>,
    /// Whether writes succeed (see [`health`]): shared by every clone.
    pub health: Arc<health::Health>,
    write_queue: Option<Arc<Mutex<()>>>,
    /// SQLite: the one connection every write transaction uses (a pool of one, taken under
    /// the write queue). SQLite lets one connection write at a time anyway, and a connection
    /// keeps its page cache only while no other connection writes; with the writes on one
    /// connection a lone game's move was answered in 0.69 ms instead of about 1.0 (issue 22).
    /// PostgreSQL: the pool itself.
    write_pool: AnyPool,
    /// A SQLite database in a file: its write-ahead log is checkpointed in the background
    /// ([`checkpoint`]).
    wal: bool,
}

/// A write transaction; dropping it without `commit` rolls it back.
pub struct WriteTx {
    pub tx: Transaction<'static, Any>,
    pub backend: Backend,
    /// The instance writing (carried on the change notices sent in this transaction).
    pub origin: Arc<str>,
    health: Arc<health::Health>,
    _queue: Option<OwnedMutexGuard<()>>,
}

impl WriteTx {
    /// Prepares this transaction for appending events. SQLite has a single writer, so event
    /// ids commit in increasing order. On PostgreSQL no lock is taken (see
    /// `docs/multi-instance.md`): the transaction is given its id now, before any event id is
    /// drawn from the sequence, so that [`events::committed_watermark`] can tell when every
    /// event id up to some value has committed or never will.
    pub async fn prepare_events(&mut self) -> Result<(), sqlx::Error> {
        if self.backend == Backend::Postgres {
            sqlx::query("SELECT pg_current_xact_id()::text")
                .execute(&mut *self.tx)
                .await?;
        }
        Ok(())
    }

    /// Commits; on success everything written is durable (WAL on SQLite, fsync'd WAL on PostgreSQL).
    /// A failed commit of the storage starts an outage ([`health`]).
    pub async fn commit(self) -> Result<(), sqlx::Error> {
        let (health, backend) = (self.health.clone(), self.backend);
        self.tx.commit().await.inspect_err(|e| {
            health_failed(&health, backend, e);
        })
    }

    /// Commits, then runs `after` (in-memory effects: caches, wake-ups) before the SQLite write
    /// queue is let go, so effects happen in commit order. `after` does not run on failure.
    pub async fn commit_then(self, after: impl FnOnce()) -> Result<(), sqlx::Error> {
        let WriteTx {
            tx,
            _queue,
            health,
            backend,
            ..
        } = self;
        tx.commit().await.inspect_err(|e| {
            health_failed(&health, backend, e);
        })?;
        after();
        drop(_queue);
        Ok(())
    }
}

impl std::ops::Deref for WriteTx {
    type Target = sqlx::AnyConnection;
    fn deref(&self) -> &Self::Target {
        &self.tx
    }
}
impl std::ops::DerefMut for WriteTx {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.tx
    }
}

impl Store {
    /// Connects, creating a SQLite file (and its folder) if missing, and runs the migrations.
    ///
    /// Errors: unreachable database, unwritable path, failed migration.
    pub async fn connect(url: &str) -> anyhow::Result<Store> {
        Self::connect_with(url, false).await
    }

    /// Locks a SQLite database file for this process (`PATH.lock`, created beside it, an
    /// advisory lock the operating system drops when the process ends, however it ends), so
    /// that a second `hexarena serve` on the same file refuses to start: two processes on one
    /// file would each judge the clocks on their own copy of the games, and neither hears of
    /// the other's moves. None for PostgreSQL (instances share it by design) and for an
    /// in-memory database; the lock is held while the returned file lives.
    ///
    /// Errors: another process holds the lock; the folder cannot be created. A file system
    /// that has no locks is logged and let through.
    pub fn lock_sqlite_file(url: &str) -> anyhow::Result<Option<std::fs::File>> {
        if !url.starts_with("sqlite:") || url.contains(":memory:") || url.contains("mode=memory") {
            return Ok(None);
        }
        let path = url.trim_start_matches("sqlite:").trim_start_matches("//");
        let path = path.split('?').next().unwrap_or(path);
        let lock_path = format!("{path}.lock");
        if let Some(dir) = std::path::Path::new(path).parent()
            && !dir.as_os_str().is_empty()
        {
            std::fs::create_dir_all(dir)
                .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            // A lock file left by another user: a read-only descriptor locks as well.
            .or_else(|_| std::fs::File::open(&lock_path))
            .map_err(|e| anyhow::anyhow!("cannot open {lock_path}: {e}"))?;
        match file.try_lock() {
            Ok(()) => Ok(Some(file)),
            Err(std::fs::TryLockError::WouldBlock) => Err(anyhow::anyhow!(
                "another hexarena process serves {path} (it holds {lock_path}): stop it first; \
                 several instances share a PostgreSQL database, never a SQLite file"
            )),
            Err(std::fs::TryLockError::Error(e)) => {
                tracing::warn!(file = lock_path, error = %e, "cannot lock the database file: a second process on it would not be refused");
                Ok(None)
            }
        }
    }

    /// As [`Store::connect`]; `sync_full` sets SQLite's `synchronous=FULL` (every commit is
    /// synced to disk, surviving a power cut) instead of `NORMAL` (surviving a killed process).
    pub async fn connect_with(url: &str, sync_full: bool) -> anyhow::Result<Store> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Backend::Postgres
        } else if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else {
            return Err(anyhow::anyhow!(
                "unsupported DATABASE_URL '{url}': use sqlite://path or postgres://..."
            ));
        };
        let mut url = url.to_string();
        let memory = url.contains(":memory:") || url.contains("mode=memory");
        if backend == Backend::Sqlite && !memory {
            let path = url.trim_start_matches("sqlite:").trim_start_matches("//");
            let path = path.split('?').next().unwrap_or(path);
            if let Some(dir) = std::path::Path::new(path).parent()
                && !dir.as_os_str().is_empty()
            {
                std::fs::create_dir_all(dir)
                    .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
            }
            if !url.contains("mode=") {
                url.push_str(if url.contains('?') {
                    "&mode=rwc"
                } else {
                    "?mode=rwc"
                });
            }
        }
        let opts: AnyConnectOptions = url.parse().map_err(anyhow::Error::from)?;
        let sqlite_pool = |size: u32| {
            AnyPoolOptions::new()
                .max_connections(size)
                .acquire_timeout(Duration::from_secs(10))
                // A local file: no round trip to ping a connection before each use.
                .test_before_acquire(false)
                .after_connect(move |conn, _meta| {
                    Box::pin(async move {
                        // WAL: readers never block the writer; NORMAL sync is durable against a
                        // killed process (only an OS crash may lose the last commits). The log's
                        // checkpoints run beside the writer (`checkpoint`); the committing
                        // connection's own is only a backstop. Temporary storage in memory:
                        // a batch's multi-row statements keep their statement journals (undo
                        // of one statement, never used for crash recovery) off the disk; on
                        // a file, past 64 KiB, they cost 10 KB of writes a move (issue 22).
                        let sync = if sync_full { "FULL" } else { "NORMAL" };
                        let sql = format!(
                            "PRAGMA journal_mode=WAL; PRAGMA synchronous={sync}; \
                             PRAGMA busy_timeout=10000; PRAGMA foreign_keys=ON; \
                             PRAGMA temp_store=MEMORY; PRAGMA wal_autocheckpoint={};",
                            checkpoint::BACKSTOP_PAGES
                        );
                        conn.execute(sqlx::AssertSqlSafe(sql)).await?;
                        Ok(())
                    })
                })
        };
        let pool = match backend {
            Backend::Sqlite => {
                sqlite_pool(if memory { 1 } else { 8 })
                    .connect_with(opts.clone())
                    .await
            }
            Backend::Postgres => {
                AnyPoolOptions::new()
                    .max_connections(16)
                    .acquire_timeout(Duration::from_secs(10))
                    .connect_with(opts.clone())
                    .await
            }
        }
        .map_err(anyhow::Error::from)?;
        // An in-memory database lives in its one connection: writes must use that one too.
        let write_pool = if backend == Backend::Sqlite && !memory {
            sqlite_pool(1)
                .connect_with(opts)
                .await
                .map_err(anyhow::Error::from)?
        } else {
            pool.clone()
        };
        let store = Store {
            pool,
            write_pool,
            backend,
            url: Arc::from(url.as_str()),
            instance_id: Arc::from(format!("inst_{}", ulid::Ulid::generate())),
            health: Arc::default(),
            write_queue: (backend == Backend::Sqlite).then(|| Arc::new(Mutex::new(()))),
            wal: backend == Backend::Sqlite && !memory,
        };
        store.migrate().await?;
        Ok(store)
    }

    async fn migrate(&self) -> anyhow::Result<()> {
        let migrator = match self.backend {
            Backend::Sqlite => sqlx::migrate!("migrations/sqlite"),
            Backend::Postgres => sqlx::migrate!("migrations/postgres"),
        };
        migrator.run(&self.pool).await.map_err(anyhow::Error::from)
    }

    /// Starts a write transaction (see the module docs for the locking).
    ///
    /// Errors: while storage is down ([`health`]) or the arena is stopping, at once, without
    /// touching the database.
    pub async fn begin_write(&self) -> Result<WriteTx, sqlx::Error> {
        if let Some(e) = self.health.write_refusal() {
            return Err(e);
        }
        self.begin_write_probe().await
    }

    /// PostgreSQL: a pooled connection for a write that is one statement, its own transaction
    /// (`move_batch::commit_moves_pg`). Errors: the refusal while storage is down; the pool's,
    /// told apart by [`Store::classify`].
    pub async fn write_conn(&self) -> Result<PooledConn, sqlx::Error> {
        if let Some(e) = self.health.write_refusal() {
            return Err(e);
        }
        match self.pool.acquire().await {
            Ok(c) => Ok(c),
            Err(e) => Err(self.classify(e).await),
        }
    }

    /// As [`Store::begin_write`], also while storage is down: the recovery probe's write.
    pub async fn begin_write_probe(&self) -> Result<WriteTx, sqlx::Error> {
        let queue = match &self.write_queue {
            Some(q) => Some(q.clone().lock_owned().await),
            None => None,
        };
        let tx = match self.backend {
            Backend::Sqlite => {
                let conn = self.clean_connection().await?;
                Transaction::begin(conn, Some("BEGIN IMMEDIATE".into_sql_str()))
                    .await
                    .inspect_err(|e| {
                        self.health.failed(e);
                    })?
            }
            Backend::Postgres => match self.pool.begin().await {
                Ok(tx) => tx,
                Err(e) => return Err(self.classify(e).await),
            },
        };
        Ok(WriteTx {
            tx,
            backend: self.backend,
            origin: self.instance_id.clone(),
            health: self.health.clone(),
            _queue: queue,
        })
    }

    /// The SQLite write connection, outside any transaction. A commit that failed (a full disk)
    /// may leave its connection marked inside one even after SQLite rolled it back, and every
    /// later `BEGIN` on it would fail: such a connection is closed (the pool opens a new one).
    async fn clean_connection(&self) -> Result<sqlx::pool::PoolConnection<Any>, sqlx::Error> {
        // The write pool holds one connection; a try after closing it gets a fresh one.
        for _ in 0..9 {
            let conn = self.write_pool.acquire().await?;
            if !conn.is_in_transaction() {
                return Ok(conn);
            }
            tracing::info!("closing a connection left inside a failed transaction");
            let _ = conn.close().await;
        }
        Err(sqlx::Error::Protocol(
            "no connection outside a transaction".into(),
        ))
    }

    /// Records a failed write outside [`WriteTx`] (a background loop's own statement):
    /// a storage error starts an outage. Returns the error.
    pub fn note(&self, e: sqlx::Error) -> sqlx::Error {
        health_failed(&self.health, self.backend, &e);
        e
    }

    /// As [`Store::note`], and a pool timeout on PostgreSQL is told apart: a busy pool (a fresh
    /// connection opens) stays load, 503 `unavailable`; a database that cannot be reached
    /// starts an outage ([`health::Health::unreachable`]) and the refusal is returned.
    pub async fn classify(&self, e: sqlx::Error) -> sqlx::Error {
        if matches!(e, sqlx::Error::PoolTimedOut) && self.backend == Backend::Postgres {
            if let Err(why) = self.reachable().await {
                self.health.unreachable(&why);
                return self.health.refusal();
            }
            return e;
        }
        self.note(e)
    }

    /// A connection from the pool. While a PostgreSQL store is down ([`health`]) a connection
    /// that does not come within [`DOWN_ACQUIRE`] is the outage's refusal (503
    /// `storage_unavailable`): a database that cannot be reached would hold every read for
    /// the pool's 10 s acquire timeout, and a read then answered 503 `unavailable`, "busy"
    /// (found by an outside tester); a SQLite file that refuses writes still serves reads.
    /// Errors: the pool's (timeout, closed), or the refusal.
    pub async fn conn(&self) -> StoreResult<PooledConn> {
        if self.backend == Backend::Postgres && self.health.is_down() {
            return match tokio::time::timeout(DOWN_ACQUIRE, self.pool.acquire()).await {
                Ok(r) => r,
                Err(_) => Err(self.health.refusal()),
            };
        }
        self.pool.acquire().await
    }

    /// Whether the database answers a fresh connection (outside the pool) within
    /// [`REACH_TIMEOUT`]: always on SQLite (a local file). Errors: why not.
    pub async fn reachable(&self) -> Result<(), String> {
        use sqlx::Connection;
        if self.backend == Backend::Sqlite {
            return Ok(());
        }
        match tokio::time::timeout(REACH_TIMEOUT, sqlx::AnyConnection::connect(&self.url)).await {
            Ok(Ok(c)) => {
                let _ = c.close().await;
                Ok(())
            }
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!(
                "no connection opened within {} ms",
                REACH_TIMEOUT.as_millis()
            )),
        }
    }

    /// SQLite's writer: the in-process write queue's lock and a connection, for a writer that
    /// runs its own `BEGIN IMMEDIATE ... COMMIT` (see `move_batch::commit_moves_sqlite`). None on
    /// PostgreSQL. Errors: while storage is down, at once.
    pub async fn sqlite_writer(
        &self,
    ) -> Result<Option<(OwnedMutexGuard<()>, sqlx::pool::PoolConnection<Any>)>, sqlx::Error> {
        let Some(q) = &self.write_queue else {
            return Ok(None);
        };
        if let Some(e) = self.health.write_refusal() {
            return Err(e);
        }
        let guard = q.clone().lock_owned().await;
        let conn = self.clean_connection().await?;
        Ok(Some((guard, conn)))
    }

    /// Bytes of data in the database (`/metrics`, the bench's bytes per move): on SQLite the
    /// pages in use times the page size, as of the last commit, whatever the size of the
    /// write-ahead log (a journal that is checkpointed and reused, not data); on PostgreSQL
    /// `pg_database_size`. Errors: database.
    pub async fn database_bytes(&self) -> sqlx::Result<i64> {
        let sql = match self.backend {
            Backend::Sqlite => {
                "SELECT ((SELECT page_count FROM pragma_page_count()) \
                 - (SELECT freelist_count FROM pragma_freelist_count())) \
                 * (SELECT page_size FROM pragma_page_size())"
            }
            Backend::Postgres => "SELECT pg_database_size(current_database())",
        };
        sqlx::query_scalar(sql).fetch_one(&self.pool).await
    }

    /// Whether this is a SQLite database in a file, with a write-ahead log to checkpoint.
    pub fn has_wal(&self) -> bool {
        self.wal
    }

    /// `" FOR UPDATE"` on PostgreSQL (row lock), empty on SQLite (the transaction holds the lock).
    pub fn for_update(&self) -> &'static str {
        match self.backend {
            Backend::Sqlite => "",
            Backend::Postgres => " FOR UPDATE",
        }
    }
}

/// The text of a multi-row statement: `head ($1, .., $cols), (..) tail` for `rows` rows, with
/// `$n` placeholders for PostgreSQL (sqlx's `QueryBuilder` writes `?` for the `Any` driver,
/// which PostgreSQL refuses) and plain `?` in order for SQLite (SQLite looks a `$n` name up
/// by a linear search per parameter, which a batch of hundreds of values feels). Built once
/// per shape and remembered, so a batch costs no formatting.
pub(crate) fn values_sql(
    c: &sqlx::AnyConnection,
    head: &'static str,
    cols: usize,
    rows: usize,
    tail: &'static str,
) -> Arc<str> {
    type Shapes =
        std::sync::Mutex<HashMap<(&'static str, &'static str, usize, usize, bool), Arc<str>>>;
    static SHAPES: OnceLock<Shapes> = OnceLock::new();
    let shapes = SHAPES.get_or_init(Default::default);
    let positional = c.backend_name() == "SQLite";
    let key = (head, tail, cols, rows, positional);
    if let Some(s) = shapes.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return s;
    }
    let mut sql = String::with_capacity(head.len() + tail.len() + rows * cols * 5);
    sql.push_str(head);
    for r in 0..rows {
        sql.push_str(if r == 0 { " (" } else { ", (" });
        for c in 0..cols {
            if c > 0 {
                sql.push_str(", ");
            }
            if positional {
                sql.push('?');
            } else {
                sql.push('$');
                sql.push_str(&(r * cols + c + 1).to_string());
            }
        }
        sql.push(')');
    }
    sql.push_str(tail);
    let sql: Arc<str> = Arc::from(sql);
    if let Ok(mut m) = shapes.lock() {
        m.insert(key, sql.clone());
    }
    sql
}
