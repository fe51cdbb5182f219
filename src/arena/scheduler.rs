//! The timeout scheduler (SPEC section 7): deadlines kept ordered in memory, so waking costs
//! O(log n) per game however many games are active; the database stays the authority and
//! every firing re-checks the row. A periodic indexed sweep picks up deadlines set by other
//! instances or before a restart.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;

use super::backoff::Backoff;
use super::clock::{TimeSource, Unsynced};
use super::{Arena, Change};
use crate::store::StoreError;
use crate::store::{Backend, events, games, instances};

#[derive(Default)]
struct Queue {
    by_time: BTreeSet<(i64, String, i64)>,
    by_game: HashMap<(String, i64), i64>,
}

/// Pending deadlines of active games: ms since epoch, per (set_id, game_no).
#[derive(Default)]
pub struct Scheduler {
    queue: Mutex<Queue>,
    wake: Notify,
}

impl Scheduler {
    /// Sets (Some) or clears (None) a game's deadline, replacing any earlier one.
    pub fn set(&self, set_id: &str, game_no: i64, deadline_ms: Option<i64>) {
        let Ok(mut q) = self.queue.lock() else { return };
        let key = (set_id.to_string(), game_no);
        if let Some(old) = q.by_game.remove(&key) {
            q.by_time.remove(&(old, key.0.clone(), key.1));
        }
        let earliest_before = q.by_time.first().map(|e| e.0);
        if let Some(d) = deadline_ms {
            q.by_time.insert((d, key.0.clone(), key.1));
            q.by_game.insert(key, d);
            if earliest_before.is_none_or(|e| d < e) {
                self.wake.notify_one();
            }
        }
    }

    /// The earliest pending deadline.
    pub fn next_ms(&self) -> Option<i64> {
        self.queue.lock().ok()?.by_time.first().map(|e| e.0)
    }

    /// Removes and returns the games whose deadline is before `now_ms`.
    pub fn pop_due(&self, now_ms: i64) -> Vec<(String, i64)> {
        let Ok(mut q) = self.queue.lock() else {
            return vec![];
        };
        let mut due = vec![];
        while let Some((d, set_id, game_no)) = q.by_time.first().cloned() {
            if d >= now_ms {
                break;
            }
            q.by_time.pop_first();
            q.by_game.remove(&(set_id.clone(), game_no));
            due.push((set_id, game_no));
        }
        due
    }

    /// Number of pending deadlines.
    pub fn len(&self) -> usize {
        self.queue.lock().map_or(0, |q| q.by_time.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Wakes the firing loop to look again (storage came back, or the arena is stopping).
    pub fn wake_up(&self) {
        self.wake.notify_one();
    }
}

/// Whether timeouts may fire now: not while this instance is stopping (its downtime is
/// credited from the stop moment) nor while storage is down (the outage is credited when it
/// is back), SPEC 7.
fn may_fire(arena: &Arena) -> bool {
    // Nor on a clock not trusted (another instance's clock may disagree): the deadlines wait.
    !arena.is_stopping() && !arena.store.health.is_down() && arena.clock.unsynced().is_none()
}

/// How often the database is swept for deadlines this process does not know about.
const SWEEP_EVERY: Duration = Duration::from_secs(2);
const HEARTBEAT_EVERY: Duration = Duration::from_secs(1);

/// Runs the scheduler until the process ends: fires deadlines, sweeps, writes the heartbeat.
/// While storage is down the heartbeat is the recovery probe ([`recover_storage`]); failing
/// steps back off ([`Backoff`]); once the arena is stopping nothing more is written.
pub async fn run(arena: Arc<Arena>) {
    tokio::spawn(housekeeping(arena.clone()));
    let (a, b, m) = (arena.clone(), arena.clone(), arena.metrics.clone());
    tokio::spawn(crate::store::checkpoint::run(
        arena.store.clone(),
        move || a.store.health.is_down(),
        move || b.is_stopping(),
        move |took| m.checkpoint_took(took),
    ));
    let mut backoff = Backoff::new("timeout scheduler", super::backoff::MAX);
    loop {
        let now = arena.now_ms();
        let due = if may_fire(&arena) {
            arena.scheduler.pop_due(now)
        } else {
            vec![]
        };
        for (set_id, game_no) in due {
            match arena.expire(&set_id, game_no).await {
                Ok(_) => backoff.succeeded(),
                Err(e) => {
                    let pause = backoff.failed(&format!("{set_id}/{game_no}: {e}"));
                    let pause_ms = i64::try_from(pause.as_millis()).unwrap_or(5_000);
                    arena.scheduler.set(&set_id, game_no, Some(now + pause_ms));
                }
            }
        }
        // Sleep until just past the next deadline (a move at exactly the deadline is in time);
        // while timeouts are held, look again shortly (or when woken by the recovery).
        let wait = if may_fire(&arena) {
            arena
                .scheduler
                .next_ms()
                .map_or(Duration::from_secs(3600), |d| {
                    Duration::from_millis(u64::try_from(d + 1 - arena.now_ms()).unwrap_or(0))
                })
        } else {
            Duration::from_millis(250)
        };
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = arena.scheduler.wake.notified() => {}
        }
    }
}

/// The once-a-second side of the scheduler: heartbeat (or recovery probe), peers, pruning,
/// challenge expiry and the deadline sweep.
async fn housekeeping(a: Arc<Arena>) {
    let mut tick = tokio::time::interval(SWEEP_EVERY.min(HEARTBEAT_EVERY));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut n: u64 = 0;
    let mut alive: HashSet<String> = HashSet::new();
    let mut probe = Backoff::new("storage recovery probe", crate::store::health::PROBE_MAX);
    let mut steps = Backoff::new("heartbeat and sweeps", super::backoff::MAX);
    let mut wall_gap_warned: i64 = 0;
    loop {
        tick.tick().await;
        if a.is_stopping() {
            // The final heartbeat marks the stop moment: nothing may move it on.
            return;
        }
        if a.store.health.is_down() {
            // Bounded inside (against an unreachable database the pool would wait its full
            // acquire timeout per probe); not cancelled here, so a committed credit is
            // always recorded as given.
            match recover_storage(&a).await {
                Ok(_) => probe.succeeded(),
                Err(e) => tokio::time::sleep(probe.failed(&e)).await,
            }
            continue;
        }
        n += 1;
        let mut failed: Option<String> = None;
        // The heartbeat first: it is how a database that stopped answering is found (within
        // about [`HEARTBEAT_TIMEOUT`] plus a connection attempt) even when nothing is written.
        if let Err(e) = beat(&a).await {
            if a.store.health.is_down() {
                continue;
            }
            failed.get_or_insert(e);
        }
        // While the clock is not trusted the heartbeat keeps the last trusted offset.
        sync_clock(&a).await;
        // The arena's clock runs on the monotonic clock (`clock::SteadyTime`): a stepped wall
        // clock changes no charge, but the operator should know the two disagree.
        if let Some(gap) = a.clock.wall_gap_ms()
            && super::clock::wall_gap_worth_warning(gap, wall_gap_warned)
        {
            tracing::warn!(
                gap_ms = gap,
                "the machine's wall clock moved away from the arena's clock (which runs on \
                 the monotonic clock, so no bot is charged for it); on SQLite the times shown \
                 keep the start-up reading until a restart, on PostgreSQL the database's clock \
                 sets them"
            );
            wall_gap_warned = gap;
        }
        if a.store.backend == Backend::Postgres {
            match others_alive(&a).await {
                Ok(now_alive) => {
                    // An instance that stopped may have committed changes it never
                    // announced: catch up once from the database.
                    if alive.iter().any(|id| !now_alive.contains(id)) {
                        tracing::info!("an instance stopped; catching up from the database");
                        resync(&a);
                    }
                    a.set_others_alive(now_alive.len());
                    alive = now_alive;
                }
                Err(e) => {
                    failed.get_or_insert(format!("reading instances: {e}"));
                }
            }
        }
        if n.is_multiple_of(60)
            && let Err(e) = prune_events(&a).await
        {
            failed.get_or_insert(format!("event pruning: {}", a.store.note(e)));
        }
        if n.is_multiple_of(10) {
            match a.expire_challenges().await {
                Ok(0) => {}
                Ok(k) => tracing::info!(closed = k, "stale challenges expired"),
                Err(e) => {
                    failed.get_or_insert(format!("expiring challenges: {e}"));
                }
            }
        }
        if n.is_multiple_of(2)
            && let Err(e) = sweep(&a, a.now_ms() + 5_000).await
        {
            failed.get_or_insert(format!("deadline sweep: {e}"));
        }
        match failed {
            None => steps.succeeded(),
            // A storage outage is handled by the probe above from the next tick on.
            Some(_) if a.store.health.is_down() => steps.succeeded(),
            Some(e) => tokio::time::sleep(steps.failed(&e)).await,
        }
    }
}

/// The recovery probe while storage is down (`store::health`): one write transaction that
/// moves every running turn later by the outage (as [`recover`] does after a restart, so no
/// seat is charged time it could not use, SPEC 7) and writes the heartbeat. Turns that
/// started before the credited period are moved; turns that started inside it start again
/// now. On PostgreSQL the period starts no earlier than the newest `serving_ms` of another
/// instance: while another instance served writes the arena was serving (a seat could move
/// there), and an instance that recovered first credited what came before. On commit the
/// outage ends: the games held in memory are reloaded and the deadlines swept again. Returns
/// the credit, ms.
///
/// Writes refused on an untrusted clock (not yet credited) that began before the outage are
/// one refusal with it: the credited period starts at the refusal's start then, and the
/// refusal still owed counts from now on (`SyncedTime::credited_through`), so no refused time
/// is credited twice. A credit writes `serving_ms` too, as [`credit_refused`] does: another
/// instance's credit of the same period then starts after it.
///
/// The probe is bounded by [`PROBE_TIMEOUT`]; what follows a commit is not cancelled with it.
///
/// Errors: the write failed or timed out (storage still down); `PoolClosed` once the arena is
/// stopping.
pub async fn recover_storage(arena: &Arena) -> Result<i64, StoreError> {
    let Some(down_since) = arena.store.health.down_since_ms() else {
        return Ok(0);
    };
    let probe = tokio::time::timeout(PROBE_TIMEOUT, credit_outage(arena, down_since));
    let Ok(done) = probe.await else {
        return Err(StoreError::PoolTimedOut);
    };
    let Credited {
        now,
        credit_ms,
        games,
        gate,
    } = done?;
    // The outage and any refusal owed are accounted for up to `now` (credited, or served by
    // another instance) before anything else can fail; the clocks shown run again.
    arena.clock.credited_through(now);
    arena.outage_credited(true);
    // The held copies predate the shift.
    arena.live.clear_all();
    // Writes are served again at once: the credit ends at `now`, so a write refused after it
    // would be charged (the sweep below may wait for a connection of its own, seconds on a
    // PostgreSQL slow to take them again). A queued deadline from before the shift may fire
    // early meanwhile: the game is read again, found not due, and rescheduled.
    arena.store.health.recovered();
    arena.outage_credited(false);
    // Only now: a final heartbeat waiting for the gate must not find this outage still owed.
    drop(gate);
    match tokio::time::timeout(PROBE_TIMEOUT, sweep(arena, i64::MAX)).await {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => tracing::warn!(error = %e, "deadline sweep after the outage failed"),
        Err(_) => tracing::warn!("deadline sweep after the outage timed out"),
    }
    arena.scheduler.wake_up();
    // Waiters, streams and the house driver look again (the turns moved).
    arena.publish(super::Change {
        resync: true,
        ..super::Change::default()
    });
    tracing::info!(
        credit_ms,
        games,
        "storage outage credited to the running turns"
    );
    Ok(credit_ms)
}

/// What [`credit_outage`] committed.
struct Credited<'a> {
    /// The arena ms the credited period ends at.
    now: i64,
    credit_ms: i64,
    /// Running games moved or started again.
    games: u64,
    /// The right to write this instance's row, held until the outage is marked over.
    gate: tokio::sync::MutexGuard<'a, ()>,
}

/// The transaction of [`recover_storage`] for an outage since `down_since` (arena ms).
async fn credit_outage(arena: &Arena, down_since: i64) -> Result<Credited<'_>, StoreError> {
    let gate = arena.beat_gate().await.ok_or(StoreError::PoolClosed)?;
    let mut tx = arena.store.begin_write_probe().await?;
    // Instances recovering or crediting a refusal together do it one after the other: the
    // later one sees the earlier one's `serving_ms`.
    instances::lock(&mut tx, arena.store.backend).await?;
    // The period ends now, after the connection and the lock: on PostgreSQL the pool may
    // spend a second or two reconnecting, time in which writes were still refused (an outside
    // tester measured about 1.2 s of every outage charged when `now` was read first).
    let now = arena.now_ms();
    // A refusal on an untrusted clock still owed that began earlier is part of the period.
    let refused = arena.clock.owed_since_ms().filter(|&r| r < down_since);
    let since = unserved_since(&mut tx, arena, refused.unwrap_or(down_since), now).await?;
    let credit_ms = (now - since).max(0);
    let games = if credit_ms > 0 {
        // A turn that started after the credited period's start (for an outage, between the
        // last answered heartbeat and the failure) was all refused: it starts again now.
        // First, so that the shift below does not move a turn into that range.
        let restarted = games::restart_turns_started_between(&mut tx, since, now).await?;
        let n = restarted + games::shift_turns_started_before(&mut tx, since, credit_ms).await?;
        // An outage, like a restart, counts toward no forfeit window and against no presence.
        crate::store::tournaments::shift_pending(&mut tx, credit_ms).await?;
        crate::store::presence::shift_seen(&mut tx, credit_ms, now).await?;
        n
    } else {
        0
    };
    instances::beat_serving(&mut tx, &arena.instance_id, now, credit_ms > 0).await?;
    tx.commit().await?;
    Ok(Credited {
        now,
        credit_ms,
        games,
        gate,
    })
}

/// Where the time this instance could not serve since `since_ms` (arena ms) starts to be
/// owed to the running turns, `now_ms` being now: `since_ms`, or on PostgreSQL the newest
/// `serving_ms` of another instance if later (until then the arena served, or that instance
/// credited the time before it), or `now_ms` (nothing owed) if that is within the liveness
/// window of now: another instance serves, so a seat can move. Time after an older
/// `serving_ms` is owed even if another instance served for a while after `since_ms` and then
/// stopped: no instance could take a move then.
async fn unserved_since(
    tx: &mut crate::store::Conn,
    arena: &Arena,
    since_ms: i64,
    now_ms: i64,
) -> Result<i64, StoreError> {
    if arena.store.backend != Backend::Postgres {
        return Ok(since_ms);
    }
    let served = instances::newest_serving_of_others(tx, &arena.instance_id).await?;
    Ok(match served {
        Some(s) if s > now_ms - ALIVE_WITHIN_MS => now_ms,
        Some(s) => s.max(since_ms),
        None => since_ms,
    })
}

/// Writes this instance's last heartbeat at the stop moment (see [`Arena::stop_serving`]);
/// returns that moment, ms since epoch. The stop moment is now, or the start of a refusal
/// not credited yet (storage down, or a clock not trusted or not yet credited for): the
/// next start credits the downtime from the heartbeat, and no turn could start while writes
/// were refused, so the refused time is credited then as the recovery would have.
pub async fn final_heartbeat(arena: &Arena) -> Result<i64, StoreError> {
    // After the stopping flag: every other writer of the row is done or writes nothing. A
    // writer stuck on a hung connection may not hold up the stop: past the wait, the final
    // heartbeat is written without the gate (and that writer, if it ever commits, may still
    // move it: `docs/fair-time.md`).
    let _gate = match tokio::time::timeout(FINAL_GATE_WAIT, arena.beat_gate.lock()).await {
        Ok(gate) => Some(gate),
        Err(_) => {
            tracing::warn!("stopping: a heartbeat write is stuck; the final one goes ahead");
            None
        }
    };
    // A stall not noticed yet (a SIGTERM delivered with the SIGCONT that ends a stop) starts
    // its outage now, so the stop moment is its start, not after it.
    arena.store.health.is_down();
    let now = arena.now_ms();
    let at = [
        arena.store.health.down_since_ms(),
        arena.clock.owed_since_ms(),
    ]
    .into_iter()
    .flatten()
    .fold(now, i64::min);
    let mut c = arena.store.conn().await?;
    instances::last_beat(&mut c, &arena.instance_id, at).await?;
    // The house row (PostgreSQL) is read as a heartbeat too: no later than the stop moment.
    let house_row = instances::house_row_of(&arena.instance_id);
    instances::last_beat_at_most(&mut c, &house_row, at).await?;
    Ok(at)
}

/// Longest wait of the final heartbeat for a write of the instance's row under way.
const FINAL_GATE_WAIT: Duration = Duration::from_secs(2);

/// Catches up from the database after notices may have been missed (this instance's listener
/// reconnected, or another instance died between a commit and its notice): copies are loaded
/// from their rows on next read, deadlines are swept, and every waiter re-reads once.
pub fn resync(arena: &Arc<Arena>) {
    arena.live.clear_all();
    // A token rotation may have been among the missed notices: authenticate afresh.
    arena.forget_all_bot_tokens();
    let a = arena.clone();
    tokio::spawn(async move {
        if let Err(e) = sweep(&a, a.now_ms() + 5_000).await {
            tracing::warn!(error = %e, "deadline sweep after reconnecting failed");
        }
    });
    arena.watermark.refresh();
    arena.publish(Change {
        resync: true,
        ..Change::default()
    });
}

/// Loads deadlines up to `until_ms` from the database into the queue.
pub async fn sweep(arena: &Arena, until_ms: i64) -> Result<usize, StoreError> {
    let mut c = arena.store.conn().await?;
    let rows = games::deadlines_until(&mut c, until_ms).await?;
    for (d, set_id, game_no) in &rows {
        arena.scheduler.set(set_id, *game_no, Some(*d));
    }
    Ok(rows.len())
}

/// Stream events are kept this long for `Last-Event-ID` resumes; the games themselves stay.
pub const EVENTS_KEPT_MS: i64 = 24 * 3600 * 1000;
/// The per-move events of a finished set are kept this long after it ends.
pub const FINISHED_EVENTS_KEPT_MS: i64 = 10 * 60 * 1000;

async fn prune_events(arena: &Arena) -> Result<(), StoreError> {
    let now = arena.now_ms();
    let mut c = arena.store.conn().await?;
    let n = events::prune(&mut c, now - EVENTS_KEPT_MS, now - FINISHED_EVENTS_KEPT_MS).await?;
    tracing::debug!(deleted = n, "events pruned");
    Ok(())
}

/// Measures this instance's offset to the database's clock once and applies it (PostgreSQL,
/// where instances share the database, and only for a wall clock; elsewhere the offset stays
/// 0). Logs when the clock stops or starts being trusted. Returns why it is not trusted.
pub async fn sync_clock(arena: &Arena) -> Option<Unsynced> {
    if arena.store.backend != Backend::Postgres || !arena.clock.measurable() {
        return None;
    }
    let before = arena.clock.unsynced();
    let now = match read_db_clock(arena).await {
        Ok((sent, db, received)) => arena.clock.record(sent, db, received),
        Err(e) => arena.clock.unreadable(&e.to_string()),
    };
    match (&before, &now) {
        (_, Some(why)) if before.as_ref() != Some(why) => tracing::warn!(
            offset_ms = arena.clock.offset_ms(),
            reason = %why,
            "clock not synchronized with the database: refusing writes until it is measured again"
        ),
        (Some(_), None) => tracing::info!(
            offset_ms = arena.clock.offset_ms(),
            "clock synchronized with the database again"
        ),
        _ => {}
    }
    if now.is_none()
        && let Some(since) = arena.clock.credit_due_ms()
    {
        match credit_refused(arena, since).await {
            Ok(credit_ms) => {
                tracing::info!(
                    credit_ms,
                    "time refused on an untrusted clock credited: serving writes"
                );
            }
            Err(e) => {
                // Writes keep waiting (`Unsynced::Crediting`); the next measurement retries.
                tracing::warn!(error = %e, "crediting the time refused on an untrusted clock failed");
                return arena.clock.unsynced();
            }
        }
    }
    now
}

/// Credits the time this instance refused writes on an untrusted clock, from `since_ms` (arena
/// ms) to now, to the running turns it judges, as [`recover_storage`] does for an outage (SPEC
/// 7): turns that started before it move later by its length, turns started during it start
/// again now, and forfeit windows and presence move too. On PostgreSQL the period starts no
/// earlier than the newest `serving_ms` of another instance (until then the arena was
/// serving, or that instance credited the time before it). Writes this
/// instance's heartbeat and `serving_ms`, and marks the refusal credited
/// (`SyncedTime::credited`). Returns the credit, ms.
///
/// Errors: the transaction failed; `PoolClosed` once the arena is stopping (nothing written).
pub async fn credit_refused(arena: &Arena, since_ms: i64) -> Result<i64, StoreError> {
    let gate = arena.beat_gate().await.ok_or(StoreError::PoolClosed)?;
    let mut tx = arena.store.begin_write().await?;
    // Instances trusted again together credit one after the other: the later one sees the
    // earlier one's serving_ms.
    instances::lock(&mut tx, arena.store.backend).await?;
    let now = arena.now_ms();
    let since = unserved_since(&mut tx, arena, since_ms, now).await?;
    let credit_ms = (now - since).max(0);
    if credit_ms > 0 {
        games::restart_turns_started_between(&mut tx, since, now).await?;
        games::shift_turns_started_before(&mut tx, since, credit_ms).await?;
        crate::store::tournaments::shift_pending(&mut tx, credit_ms).await?;
        crate::store::presence::shift_seen(&mut tx, credit_ms, now).await?;
    }
    instances::beat_serving(&mut tx, &arena.instance_id, now, true).await?;
    tx.commit().await?;
    // Under the gate: a final heartbeat waiting for it must not find this refusal still owed.
    arena.clock.credited();
    drop(gate);
    if credit_ms > 0 {
        arena.live.clear_all();
        if let Err(e) = sweep(arena, i64::MAX).await {
            tracing::warn!(error = %e, "deadline sweep after the credit failed");
        }
        arena.publish(super::Change {
            resync: true,
            ..super::Change::default()
        });
    }
    arena.scheduler.wake_up();
    Ok(credit_ms)
}

/// (local ms before, database ms, local ms after) of one reading of the database's clock; the
/// connection is taken first so the bracket holds only the query.
async fn read_db_clock(arena: &Arena) -> Result<(i64, i64, i64), StoreError> {
    let mut c = arena.store.conn().await?;
    let sent = arena.clock.local_ms();
    let db = instances::database_now_ms(&mut c).await?;
    let received = arena.clock.local_ms();
    Ok((sent, db, received))
}

/// A heartbeat that gets no answer within this long makes the scheduler check whether the
/// database can be reached at all (`Store::reachable`).
pub const HEARTBEAT_TIMEOUT: Duration = Duration::from_millis(1_000);
/// Longest wait for one recovery probe while storage is down.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// Writes the heartbeat and records that the database answered it. A heartbeat slower than
/// [`HEARTBEAT_TIMEOUT`] is told apart: if no fresh connection opens either, the database is
/// unreachable and an outage starts at the last answered heartbeat (`store::health`); if one
/// opens the pool is only busy and the heartbeat is awaited. Errors: why it failed.
async fn beat(a: &Arena) -> Result<(), String> {
    let at = a.now_ms();
    let hb = heartbeat(a, at);
    tokio::pin!(hb);
    let r = match tokio::time::timeout(HEARTBEAT_TIMEOUT, &mut hb).await {
        Ok(r) => r,
        Err(_) => match a.store.reachable().await {
            Err(why) => {
                a.store.health.unreachable(&why);
                return Err(format!("heartbeat: the database cannot be reached: {why}"));
            }
            Ok(()) => hb.await,
        },
    };
    match r {
        Ok(()) => {
            a.store.health.answered(at);
            Ok(())
        }
        Err(e) => Err(format!("heartbeat: {}", a.store.classify(e).await)),
    }
}

/// Writes the heartbeat at `at_ms`, and `serving_ms` too while this instance serves writes
/// (clock trusted, storage up, not stopping): what [`credit_refused`] reads of the others.
/// Once the arena is stopping it writes nothing: the final heartbeat stays the stop moment
/// ([`Arena::beat_gate`]). Public for the grey-box tests.
#[doc(hidden)]
pub async fn heartbeat(arena: &Arena, at_ms: i64) -> Result<(), StoreError> {
    let Some(_gate) = arena.beat_gate().await else {
        return Ok(());
    };
    let serving = arena.clock.unsynced().is_none() && !arena.is_stopping();
    let mut c = arena.store.conn().await?;
    instances::beat_serving(&mut c, &arena.instance_id, at_ms, serving).await
}

/// The other instances whose heartbeat is recent (PostgreSQL: several share the database).
pub(crate) async fn others_alive(arena: &Arena) -> Result<HashSet<String>, StoreError> {
    others_seen_within(arena, ALIVE_WITHIN_MS).await
}

/// The other instances whose heartbeat is at most `within_ms` old. The house driver's rows
/// (an instance's id plus a suffix) are not instances.
pub(crate) async fn others_seen_within(
    arena: &Arena,
    within_ms: i64,
) -> Result<HashSet<String>, StoreError> {
    let mut c = arena.store.conn().await?;
    let ids =
        instances::alive_since(&mut c, arena.now_ms() - within_ms, &arena.instance_id).await?;
    Ok(ids
        .into_iter()
        .filter(|id| !instances::is_house_row(id))
        .collect())
}

/// A heartbeat younger than this may be a live instance's.
const ALIVE_WITHIN_MS: i64 = 3 * HEARTBEAT_EVERY.as_millis() as i64;

/// The newest heartbeat if no instance is alive (the arena is down since then), or None (no
/// instance ever ran, or one is alive). A heartbeat too young to tell a live instance from a
/// process that just died (a quick restart) is watched until it moves on (alive) or ages.
async fn stale_heartbeat(arena: &Arena) -> Result<Option<i64>, StoreError> {
    // Real time bounds the watch even when the injected clock stands still.
    let give_up = tokio::time::Instant::now() + Duration::from_millis(ALIVE_WITHIN_MS as u64 + 200);
    let mut seen = None;
    loop {
        let last = {
            let mut c = arena.store.conn().await?;
            instances::newest_heartbeat(&mut c, arena.now_ms()).await?
        };
        let Some(last) = last else { return Ok(None) };
        if seen.is_some_and(|s| last > s) {
            return Ok(None);
        }
        if arena.now_ms() - last > ALIVE_WITHIN_MS || tokio::time::Instant::now() >= give_up {
            return Ok(Some(last));
        }
        seen = Some(last);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// At start-up: if no instance is alive, the whole arena was down since it was last seen
/// working, and every running turn is moved later by that downtime so no seat is charged for
/// it (SPEC section 7); so are the forfeit windows of waiting pairings and the bots'
/// last-seen times (SPEC 14). Then every pending deadline is loaded. Returns whether the
/// arena was found down (no instance alive), so the start-up adds no wait the credit did not
/// cover (`cluster::join`).
pub async fn recover(arena: &Arena) -> Result<bool, StoreError> {
    let stale = stale_heartbeat(arena).await?;
    let mut tx = arena.store.begin_write().await?;
    // Instances starting together recover one after the other: the later one sees the
    // earlier one's heartbeat and does not credit the downtime a second time.
    instances::lock(&mut tx, arena.store.backend).await?;
    // After the lock: an earlier instance's rows, written before it let the lock go, are
    // stamped before this `now`, so the filter of rows stamped after now keeps them.
    let now = arena.now_ms();
    // Down since `last`: the newest heartbeat has not moved since the stale look. Rows
    // stamped after now (a wall clock stepped back since) are left out: the newest of them
    // would make the downtime 0 (found by an outside tester: a crash a minute after such a
    // step credited nothing).
    let down_since = instances::newest_heartbeat(&mut tx, now)
        .await?
        .filter(|l| Some(*l) == stale);
    let was_down = down_since.is_some();
    let mut credited = false;
    if let Some(last) = down_since {
        // A turn that started after the last heartbeat shows the arena was still up then;
        // shifting from before it would start that turn in the future.
        let newest_turn = games::newest_turn_start(&mut tx, now).await?;
        let down_ms = now - newest_turn.unwrap_or(last).max(last).min(now);
        if down_ms > 0 {
            credited = true;
            let n = games::shift_turns(&mut tx, down_ms).await?;
            // The downtime counts toward no forfeit window and against no bot's presence.
            let pairings = crate::store::tournaments::shift_pending(&mut tx, down_ms).await?;
            let bots = crate::store::presence::shift_seen(&mut tx, down_ms, now).await?;
            tracing::info!(
                down_ms,
                games = n,
                pairings,
                bots,
                "arena was down; running turns, waiting pairings and presence resume with the time they had"
            );
        }
    }
    instances::start(&mut tx, &arena.instance_id, now, now - 60_000).await?;
    if credited {
        // As every credit does: an instance in an outage of its own that recovers next
        // credits only what comes after (`unserved_since`).
        instances::beat_serving(&mut tx, &arena.instance_id, now, true).await?;
    }
    tx.commit().await?;
    sweep(arena, i64::MAX).await?;
    Ok(was_down)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_come_out_in_order_and_replacing_one_drops_the_old() {
        let s = Scheduler::default();
        s.set("a", 1, Some(300));
        s.set("b", 1, Some(100));
        s.set("c", 2, Some(200));
        s.set("a", 1, Some(50)); // a move moved a's deadline
        assert_eq!(s.len(), 3);
        assert_eq!(s.next_ms(), Some(50));
        assert_eq!(
            s.pop_due(150),
            vec![("a".to_string(), 1), ("b".to_string(), 1)]
        );
        assert_eq!(s.pop_due(200), vec![]); // exactly at the deadline is not due
        s.set("c", 2, None);
        assert!(s.is_empty());
    }
}
