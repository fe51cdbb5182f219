//! Moves, resignations and timeouts; the end of games and sets with settlement and ratings
//! (SPEC sections 6, 7, 8).
//!
//! A command runs on the game held in memory ([`super::live`]) under that game's turn lock:
//! the pure aggregate ([`super::game::Game`]) decides, then the change is stored. A move that
//! does not end the game is one small write (the move, the game row, one event) through the
//! group-commit writer; a move that ends a game, a resignation or a timeout is one transaction
//! that also starts game 2 or ends the set. Every write checks the game row's version, so a
//! command computed on a stale copy is never stored: the copy is reloaded and the command runs
//! again on the row as it is.

use std::sync::Arc;

use hex::{Move, Seat};
use serde_json::json;

use super::commit::MoveCommit;
pub use super::commit::{Effects, StateMarker};
use super::error::{ArenaError, ArenaResult, Code};
use super::finisher;
use super::game::{Game, GameError, Transition};
use super::live::{self, LiveGame, MovesFrom, Slot, Snapshot};
use super::scoring::{GameEnd, SetOutcome, Side};
use super::views;
use super::{Arena, Change};
use crate::store::Backend;
use crate::store::Conn;
use crate::store::accounts::{self as acc, BotRow};
use crate::store::games::{self, GameRow, MoveRow};
use crate::store::ledger;
use crate::store::move_batch::MoveWrite;
use crate::store::sets::{self, SetRow};
use crate::store::status::SetStatus;

mod ending;
mod moves;
mod set_end;

pub(crate) use super::finisher::Forfeit;

/// How many times a command is recomputed after finding its copy of the game stale.
const STALE_RETRIES: usize = 3;
/// What became of a transition that ends a game.
enum Ending {
    /// Committed: the game's new state.
    Stored(Arc<Snapshot>),
    /// The row had moved on: reload and decide again.
    Stale,
    /// Another instance is committing this timeout now (PostgreSQL; claims only).
    ClaimedElsewhere,
}

impl Ending {
    /// The new state if committed; None otherwise (a claim is made only by timeouts).
    fn stored(self) -> Option<Arc<Snapshot>> {
        match self {
            Ending::Stored(s) => Some(s),
            Ending::Stale | Ending::ClaimedElsewhere => None,
        }
    }
}
/// When a timeout was claimed elsewhere, look again this much later (ms).
const CLAIM_RECHECK_MS: i64 = 500;

impl Arena {
    /// After commit: the effects of a transaction applied in memory (see
    /// [`super::commit::Sinks::apply`], the one path after every commit).
    pub fn apply(&self, fx: Effects) {
        self.writer.apply(fx);
    }

    /// The game as held in memory, loaded from its row when not held (or, on PostgreSQL, when
    /// another instance changed it). Errors: 404 for an unknown game.
    pub async fn live_game(
        &self,
        set_id: &str,
        game_no: i64,
    ) -> ArenaResult<(Arc<Slot>, Arc<LiveGame>)> {
        self.live_game_checked(set_id, game_no, true).await
    }

    /// [`Arena::live_game`]; with `check` false, a copy held in memory is taken as it is, even on
    /// PostgreSQL, where another instance may have moved the game since: for a command whose
    /// write checks the row's version anyway (a stale copy's write fails and the game is read
    /// again), and which confirms any refusal on a checked copy.
    pub(crate) async fn live_game_checked(
        &self,
        set_id: &str,
        game_no: i64,
        check: bool,
    ) -> ArenaResult<(Arc<Slot>, Arc<LiveGame>)> {
        let slot = self
            .live
            .slot(set_id, game_no)
            .ok_or_else(|| not_found(set_id, game_no))?;
        if let Some(l) = slot.current() {
            if self.store.backend == Backend::Sqlite || !check {
                return Ok((slot, l));
            }
            // Several instances may share PostgreSQL: check the copy against the row (with
            // the checks of the other GETs waiting now, in one statement).
            let version = self.versions.version(&self.store, set_id, game_no).await?;
            if version == Some(l.game.version) {
                return Ok((slot, l));
            }
            slot.clear();
            if let Some(l) = self.catch_up(&slot, &l).await? {
                return Ok((slot, l));
            }
        }
        self.load_whole(slot, set_id, game_no).await
    }

    /// The game after another instance committed `version` of it (its notice): the copy held
    /// in `slot` is kept, and used, until the newer one is in place, so a command meanwhile
    /// finds a copy a few moves behind (which it can catch up) rather than none (a whole load);
    /// it is caught up when it can be, else the game is loaded whole.
    pub(crate) async fn live_game_at(
        &self,
        slot: Arc<Slot>,
        set_id: &str,
        game_no: i64,
        version: i64,
    ) -> ArenaResult<(Arc<Slot>, Arc<LiveGame>)> {
        slot.expect(version);
        if let Some(l) = slot.current() {
            if l.game.version >= version {
                return Ok((slot, l));
            }
            if let Some(caught) = self.catch_up(&slot, &l).await? {
                return Ok((slot, caught));
            }
            slot.clear();
        }
        self.load_whole(slot, set_id, game_no).await
    }

    /// Loads a game from its rows (set, game, moves, names) and holds it.
    async fn load_whole(
        &self,
        slot: Arc<Slot>,
        set_id: &str,
        game_no: i64,
    ) -> ArenaResult<(Arc<Slot>, Arc<LiveGame>)> {
        match self.load_live(&slot, set_id, game_no).await {
            Ok(l) => {
                if l.set.status == SetStatus::Finished {
                    // A finished set is read from the database: anyone may walk the archive,
                    // and holding every game read would pin them all in memory.
                    self.live.forget_set(set_id);
                }
                Ok((slot, l))
            }
            Err(e) => {
                if e.is(Code::NotFound) {
                    // No slot is kept for a game that does not exist (any id can be asked for).
                    self.live.forget_set(set_id);
                }
                Err(e)
            }
        }
    }

    /// Brings `held` up to its row when another instance has only added moves to the game
    /// since (PostgreSQL): the game row and the moves after the held ply, two reads instead of
    /// a whole load's four, and the rendering extended instead of redone (issue 22). The set and
    /// the seats' names cannot change while a game is active. `held` itself when the row is
    /// still at its version; None when the row is no longer an active game at a later ply or
    /// its moves do not follow on: the caller loads it whole.
    async fn catch_up(
        &self,
        slot: &Slot,
        held: &Arc<LiveGame>,
    ) -> ArenaResult<Option<Arc<LiveGame>>> {
        let active = |status: &str| status == "active";
        if !active(held.game.status.as_str()) {
            return Ok(None);
        }
        let (set_id, game_no, ply) = (&held.set.id, held.game.game_no, held.game.ply);
        let mut c = self.store.conn().await?;
        let Some(g) = games::get(&mut c, set_id, game_no, "").await? else {
            return Ok(None);
        };
        if g.version == held.game.version {
            return Ok(Some(held.clone())); // nothing happened since: the copy is current
        }
        if !active(&g.status) || g.ply < ply || g.version < held.game.version {
            return Ok(None);
        }
        let moves = games::moves_after(&mut c, set_id, game_no, ply).await?;
        drop(c);
        let follows = moves.iter().map(|m| m.ply).eq(ply + 1..=g.ply);
        if !follows {
            return Ok(None);
        }
        let game = Game::from_row(&g, held.set.increment_ms)?;
        let at = g.turn_started_ms.unwrap_or_else(|| self.now_ms());
        let snapshot = Arc::new(live::render(
            &held.set,
            &game,
            &held.names,
            MovesFrom::Append(&held.snapshot, &moves),
            at,
        ));
        let l = Arc::new(LiveGame {
            game,
            set: held.set.clone(),
            names: held.names.clone(),
            snapshot,
        });
        slot.install(l.clone());
        self.metrics.game_caught_up();
        Ok(Some(l))
    }

    async fn load_live(
        &self,
        slot: &Slot,
        set_id: &str,
        game_no: i64,
    ) -> ArenaResult<Arc<LiveGame>> {
        let mut c = self.store.conn().await?;
        let (set, g) = load(&mut c, set_id, game_no, "").await?;
        let moves = games::moves(&mut c, set_id, game_no).await?;
        let names = self.bot_names(&mut c, &g).await?;
        drop(c);
        let game = Game::from_row(&g, set.increment_ms)?;
        let at = g
            .turn_started_ms
            .or(g.finished_ms)
            .unwrap_or_else(|| self.now_ms());
        let snapshot = Arc::new(live::render(
            &set,
            &game,
            &names,
            MovesFrom::Rows(&moves),
            at,
        ));
        let l = Arc::new(LiveGame {
            game,
            set: Arc::new(set),
            names,
            snapshot,
        });
        slot.install(l.clone());
        self.metrics.game_loaded();
        Ok(l)
    }

    /// Loads every active game into memory (at start, so the first move of each is as cheap as
    /// the rest). Returns how many.
    pub async fn hold_active_games(&self) -> ArenaResult<usize> {
        let active = {
            let mut c = self.store.conn().await?;
            games::active(&mut c).await?
        };
        for (set_id, game_no) in &active {
            self.live_game(set_id, *game_no).await?;
        }
        Ok(active.len())
    }

    /// A game's state (public), rendered once per change and shared.
    pub async fn game_snapshot(&self, set_id: &str, game_no: i64) -> ArenaResult<Arc<Snapshot>> {
        Ok(self.live_game(set_id, game_no).await?.1.snapshot.clone())
    }

    /// A game's state as of now, as JSON text (SPEC section 6).
    pub async fn game_state_body(&self, set_id: &str, game_no: i64) -> ArenaResult<String> {
        Ok(self
            .game_snapshot(set_id, game_no)
            .await?
            .body_at(self.clock_view_ms()))
    }

    /// The state a stored game-state event stands for: the current one when it is that ply,
    /// otherwise rebuilt from the stored moves up to `m.ply` (a stream resumed from an old id).
    pub async fn state_body_at(
        &self,
        set_id: &str,
        game_no: i64,
        m: StateMarker,
    ) -> ArenaResult<String> {
        let (_, l) = self.live_game(set_id, game_no).await?;
        if (l.game.ply == m.ply && l.snapshot.finished() == m.is_final) || m.is_final {
            return Ok(l.snapshot.body());
        }
        let mut c = self.store.conn().await?;
        let moves = games::moves(&mut c, set_id, game_no).await?;
        drop(c);
        let k = usize::try_from(m.ply).unwrap_or(0).min(moves.len());
        let game = game_at(&l, &moves[..k])?;
        let at = game.clock.turn_started_ms.unwrap_or(l.snapshot.at_ms);
        Ok(live::render(&l.set, &game, &l.names, MovesFrom::Rows(&moves[..k]), at).body())
    }
}

fn game_end(g: &GameRow) -> GameEnd {
    GameEnd {
        game_no: g.game_no,
        winner: g
            .winner_seat
            .and_then(|w| u8::try_from(w).ok())
            .and_then(Seat::from_number),
        ply: g.ply,
    }
}

/// Doubled points of one finished game, by side.
fn game_points(g: &GameRow) -> [i64; 2] {
    let mut p = [0; 2];
    for seat in [Seat::One, Seat::Two] {
        let side = Side::in_seat(g.game_no, seat) as usize;
        p[side] += match game_end(g).winner {
            Some(w) if w == seat => 2,
            Some(_) => 0,
            None => 1,
        };
    }
    p
}

async fn load(
    c: &mut Conn,
    set_id: &str,
    game_no: i64,
    lock: &str,
) -> ArenaResult<(SetRow, GameRow)> {
    if !(1..=2).contains(&game_no) {
        return Err(not_found(set_id, game_no));
    }
    // The game first (`lock` takes its row), then its set, as every writer does.
    let g = games::get(c, set_id, game_no, lock).await?;
    let set = sets::get(c, set_id, "").await?;
    match (set, g) {
        (Some(set), Some(g)) => Ok((set, g)),
        // Say which is missing: an unknown set is not a wrong game number.
        (None, _) => Err(ArenaError::not_found(format!("no set '{set_id}'"))),
        (Some(set), None) => Err(not_started(&set, game_no)),
    }
}

/// The game of `l` as it stood after `moves` (a prefix of its stored moves): the position
/// replayed from the opening, the clocks charged move by move, the next seat on move.
fn game_at(l: &LiveGame, moves: &[MoveRow]) -> ArenaResult<Game> {
    let set = &l.set;
    let size = u8::try_from(set.size).map_err(ArenaError::internal)?;
    let opening: Vec<hex::Cell> = views::opening_of(set)
        .into_iter()
        .map(hex::Cell::from)
        .collect();
    let mut position = hex::Position::with_opening(size, &opening)
        .map_err(|e| ArenaError::internal(format!("opening: {e}")))?;
    let mut clock = super::clock::Clock::new(set.initial_ms, set.increment_ms);
    clock.turn_started_ms = l.game.started_ms;
    for m in moves {
        let mv = views::move_of_row(m).ok_or_else(|| ArenaError::internal("bad stored move"))?;
        position
            .play(mv)
            .map_err(|e| ArenaError::internal(format!("stored move refused: {e}")))?;
        let i = usize::try_from(m.seat - 1).unwrap_or(0).min(1);
        if clock.first_move[i] {
            clock.first_move[i] = false;
        } else {
            clock.remaining_ms[i] += clock.increment_ms - m.elapsed_ms;
        }
        clock.turn_started_ms = Some(m.at_ms);
    }
    let to_move = position
        .to_move()
        .ok_or_else(|| ArenaError::internal("no seat on move in a past position"))?;
    Ok(Game {
        status: super::game::Status::Active { to_move },
        position,
        clock,
        ply: i64::try_from(moves.len()).unwrap_or(0),
        finished_ms: None,
        ..l.game.clone()
    })
}

fn not_found(set_id: &str, game_no: i64) -> ArenaError {
    ArenaError::not_found(format!("no game {game_no} in set '{set_id}'"))
}

/// 404 for a game of a set that has no game rows: one never accepted. The message says why,
/// since the set exists: it is still open (its games start when it is accepted), or it ended
/// unplayed (declined, cancelled, expired).
fn not_started(set: &SetRow, game_no: i64) -> ArenaError {
    let why = if set.status == "open" {
        "its games start when it is accepted".to_string()
    } else {
        format!("it was never played: the set is {}", set.status)
    };
    ArenaError::not_found(format!("no game {game_no} in set '{}': {why}", set.id))
        .with_details(json!({"set_status": set.status}))
}

/// 409 `game_over` with the result (the same body however the game ended).
fn game_over(l: &LiveGame) -> ArenaError {
    ArenaError::new(Code::GameOver, "the game is over")
        .with_details(json!({"result": live::result_json(&l.game, &l.names)}))
}
