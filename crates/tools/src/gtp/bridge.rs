//! `hexarena play --gtp "COMMAND ARGS"`: runs a Hex GTP engine as a child process, one per game,
//! and asks it for the moves of the arena bot (issue 10): a [`Bot`] of the client library.
//!
//! Per game: the engine is started on the bot's first turn and told `boardsize N`; before every
//! `genmove` it is brought up to date with `play` commands (the opening stones in placement
//! order as `b`, `w`, `b`, ... then the moves, each with the colour of the player who made it:
//! Black is the seat connecting top-bottom, so after a swap the colours follow the players and
//! the opener plays White) and told both clocks with `time_left COLOUR SECONDS 0`. When the game
//! ends the engine is stopped.
//!
//! The game is resigned (and the bridge goes on with its other games) when the engine refuses
//! `boardsize` or one of the moves, dies, answers `pass` (Hex has none), answers a move the
//! rules refuse, or gives no answer to `genmove` before the bot's clock would run out. An
//! answer `resign` resigns.
//!
//! An engine that lists `kata-genmove_analyze` or `lz-genmove_analyze` is asked with it instead
//! of `genmove`, and what it reports of its move (win rate, visits, principal variation) goes
//! with the move as its `Hexarena-Info` (issue 21); other engines play without one. Before accepting a challenge the bridge asks a short-lived engine
//! whether it takes the board size; if not, the challenge is declined (or skipped if open).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hex::{Color, Move, Position};
// The notation, the answer framing and the engine driver are shared with the arena's outside
// house engines (crates/gtp).
use hex_gtp::{AnalyzeCommand, EngineReport, Genmove};
pub use hex_gtp::{letter, plays_of, split_command};
use hexarena_client::contract::{GameKey, GameState, MoveInfo};
use hexarena_client::position::{body_of, moves_of, opening_of, position_of, time_left_ms};
use hexarena_client::{Bot, Choice};

/// Timeout of every command but `genmove` (start-up, `boardsize`, `play`, `time_left`).
const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// Why talking to an engine failed (the game is then resigned): the shared driver's.
type EngineFailure = hex_gtp::Failure;

/// One running engine: the shared blocking driver ([`hex_gtp::Engine`]), each command run on
/// tokio's blocking threads.
struct Session {
    /// None only while a command is running (or after its thread was lost).
    engine: Option<hex_gtp::Engine>,
    /// The `(colour, move)` plays this engine knows, in order (opening stones included).
    known: Vec<(Color, String)>,
    /// The analysing genmove the engine lists, if any (asked once, at start).
    analyze: Option<AnalyzeCommand>,
}

impl Session {
    async fn start(argv: &[String]) -> Result<Session, EngineFailure> {
        let argv = argv.to_vec();
        // The engine's stderr goes to the bridge's, for its author to read.
        let engine = tokio::task::spawn_blocking(move || hex_gtp::Engine::start_with(&argv, true))
            .await
            .map_err(|e| EngineFailure::Dead(format!("start-up thread lost: {e}")))??;
        Ok(Session {
            engine: Some(engine),
            known: Vec::new(),
            analyze: None,
        })
    }

    /// Asks which analysing genmove the engine offers (`list_commands`); a refusal means none.
    async fn learn_commands(&mut self) -> Result<(), EngineFailure> {
        self.analyze = match self.command("list_commands", COMMAND_TIMEOUT).await? {
            Ok(list) => AnalyzeCommand::offered(&list),
            Err(_) => None,
        };
        Ok(())
    }

    /// Sends one command; `Ok(Ok(text))` for `= text`, `Ok(Err(text))` for `? text`.
    async fn command(
        &mut self,
        line: &str,
        timeout: Duration,
    ) -> Result<Result<String, String>, EngineFailure> {
        tracing::debug!("gtp> {line}");
        let mut engine = self
            .engine
            .take()
            .ok_or_else(|| EngineFailure::Dead("the engine was lost".into()))?;
        let owned = line.to_string();
        let (engine, answer) = tokio::task::spawn_blocking(move || {
            let answer = engine.command(&owned, timeout);
            (engine, answer)
        })
        .await
        .map_err(|e| EngineFailure::Dead(format!("command thread lost: {e}")))?;
        self.engine = Some(engine);
        let answer = answer?;
        tracing::debug!("gtp< {answer:?}");
        Ok(answer)
    }
}

/// The engines of one bridged bot, one per game.
pub struct Bridge {
    argv: Vec<String>,
    games: Mutex<HashMap<GameKey, Arc<tokio::sync::Mutex<Option<Session>>>>>,
    sizes: tokio::sync::Mutex<HashMap<u8, bool>>,
}

impl Bridge {
    /// A bridge for `command` (split like a shell would, without expansions).
    ///
    /// # Errors
    /// An empty command or an unclosed quote.
    pub fn new(command: &str) -> anyhow::Result<Bridge> {
        let argv = split_command(command)
            .ok_or_else(|| anyhow::anyhow!("--gtp: an empty command or an unclosed quote"))?;
        Ok(Bridge {
            argv,
            games: Mutex::new(HashMap::new()),
            sizes: tokio::sync::Mutex::new(HashMap::new()),
        })
    }

    /// Whether the engine accepts `boardsize size` (asked once per size of a short-lived
    /// engine). Errors: the engine could not be started or did not answer (the reason), which
    /// is not remembered: it may be back next time.
    pub async fn supports(&self, size: u8) -> Result<bool, String> {
        let mut sizes = self.sizes.lock().await;
        if let Some(&known) = sizes.get(&size) {
            return Ok(known);
        }
        let answer = match Session::start(&self.argv).await {
            Ok(mut s) => {
                let a = s
                    .command(&format!("boardsize {size}"), COMMAND_TIMEOUT)
                    .await;
                let _ = s.command("quit", Duration::from_secs(1)).await;
                a
            }
            Err(e) => Err(e),
        };
        let ok = match answer {
            Ok(Ok(_)) => true,
            Ok(Err(why)) => {
                tracing::warn!("the engine refuses boardsize {size}: {why}");
                false
            }
            Err(e) => {
                tracing::warn!("the engine could not be asked about boardsize {size}: {e}");
                return Err(e.to_string());
            }
        };
        sizes.insert(size, ok);
        Ok(ok)
    }

    /// Stops the engine of a game (its game ended).
    pub fn forget(&self, key: &GameKey) {
        if let Ok(mut g) = self.games.lock() {
            g.remove(key);
        }
    }

    /// Stops the engines of every game of a set.
    pub fn forget_set(&self, set_id: &str) {
        if let Ok(mut g) = self.games.lock() {
            g.retain(|k, _| k.set_id != set_id);
        }
    }

    fn slot(&self, key: &GameKey) -> Arc<tokio::sync::Mutex<Option<Session>>> {
        match self.games.lock() {
            Ok(mut g) => g.entry(key.clone()).or_default().clone(),
            Err(_) => Arc::new(tokio::sync::Mutex::new(None)),
        }
    }

    /// The bot's move in `state` (a game state in which the bot is on move), from its engine.
    /// `pos` is the position after `opening` and `moves`; `time_left_ms` the bot's time before
    /// its deadline (the other seat's clock is read from the state).
    pub async fn choose_in(
        &self,
        state: &GameState,
        pos: &Position,
        opening: &[hex::Cell],
        moves: &[Move],
        time_left_ms: i64,
    ) -> Choice {
        let slot = self.slot(&state.key());
        let mut guard = slot.lock().await;
        let result = self
            .ask(&mut guard, state, pos, opening, moves, time_left_ms)
            .await;
        match result {
            Ok(choice) => choice,
            Err(e) => {
                *guard = None; // stops the engine; a later turn would start a fresh one
                Choice::Resign(e.to_string())
            }
        }
    }

    async fn ask(
        &self,
        session: &mut Option<Session>,
        state: &GameState,
        pos: &Position,
        opening: &[hex::Cell],
        moves: &[Move],
        time_left_ms: i64,
    ) -> Result<Choice, EngineFailure> {
        let Some(seat) = pos.to_move() else {
            return Ok(Choice::Resign("the game is over".into()));
        };
        let me = Color::of_seat(pos, seat);
        if session.is_none() {
            let mut s = Session::start(&self.argv).await?;
            s.learn_commands().await?;
            if let Err(why) = s
                .command(&format!("boardsize {}", pos.size()), COMMAND_TIMEOUT)
                .await?
            {
                return Ok(Choice::Resign(format!(
                    "the engine refuses boardsize {}: {why}",
                    pos.size()
                )));
            }
            *session = Some(s);
        }
        let Some(s) = session.as_mut() else {
            return Err(EngineFailure::Dead("no session".into()));
        };
        let want = plays_of(opening, moves);
        if !want.starts_with(&s.known) {
            // the engine knows something else (a move we answered was not played): start over
            if let Err(why) = s.command("clear_board", COMMAND_TIMEOUT).await? {
                return Ok(Choice::Resign(format!(
                    "the engine refuses clear_board: {why}"
                )));
            }
            s.known.clear();
        }
        for (color, mv) in want[s.known.len()..].iter().cloned() {
            let cmd = format!("play {} {mv}", letter(color));
            if let Err(why) = s.command(&cmd, COMMAND_TIMEOUT).await? {
                return Ok(Choice::Resign(format!("the engine refuses {cmd}: {why}")));
            }
            s.known.push((color, mv));
        }
        let remaining = |seat: hex::Seat| state.remaining_ms(seat.number()).unwrap_or_default();
        for (color, ms) in [(me, time_left_ms), (me.other(), remaining(seat.other()))] {
            // engines without time_left answer '?': that is fine
            let secs = (ms.max(0) / 1000).max(1);
            let _refused_is_fine = s
                .command(
                    &format!("time_left {} {secs} 0", letter(color)),
                    COMMAND_TIMEOUT,
                )
                .await?;
        }
        let think = Duration::from_millis(u64::try_from(time_left_ms.max(1000)).unwrap_or(1000));
        let line = match s.analyze {
            // A report every 0.1 s: the last one before `play` is read.
            Some(a) => a.line(me, 10),
            None => format!("genmove {}", letter(me)),
        };
        let answer = match s.command(&line, think).await? {
            Ok(a) => a,
            Err(why) => return Ok(Choice::Resign(format!("{line} refused: {why}"))),
        };
        let (genmove, report) = match s.analyze {
            Some(a) => hex_gtp::parse_analyze(&answer, a),
            None => (hex_gtp::parse_genmove(&answer), None),
        };
        let mv = match genmove {
            Genmove::Move(mv) => mv,
            Genmove::Resign => return Ok(Choice::Resign("the engine resigned".into())),
            Genmove::Pass => {
                return Ok(Choice::Resign("the engine passed (Hex has no pass)".into()));
            }
            Genmove::Unparsable(_) => {
                return Ok(Choice::Resign(format!(
                    "the engine answered {answer:?}, not a move"
                )));
            }
        };
        if let Err(e) = pos.check(mv) {
            return Ok(Choice::Resign(format!(
                "the engine answered an illegal move {answer:?}: {e}"
            )));
        }
        s.known.push((me, hex_gtp::move_name(mv)));
        Ok(match report.map(|r| move_info(&r, pos.size())) {
            Some(info) if info != MoveInfo::default() => Choice::Annotated(body_of(mv), info),
            _ => Choice::Move(body_of(mv)),
        })
    }
}

/// An engine's report of its move as the move's `Hexarena-Info` (issue 21): `eval` its win
/// rate (3 decimals), `nodes` its visits, `pv` its line's first 16 cells on this board (cut at
/// the first name that is not one, the swap left out as the house's own info does).
fn move_info(report: &EngineReport, size: u8) -> MoveInfo {
    let pv: Vec<String> = report
        .pv
        .iter()
        .filter(|m| m.as_str() != "swap-pieces" && m.as_str() != "swap")
        .map_while(|m| {
            let cell = hex::parse_cell_name(m)?;
            (cell.col < size && cell.row < size).then(|| m.clone())
        })
        .take(16)
        .collect();
    MoveInfo {
        eval: report.win_rate.map(|w| (w * 1000.0).round() / 1000.0),
        pv: (!pv.is_empty()).then_some(pv),
        nodes: report.visits,
        ..MoveInfo::default()
    }
}

/// The bridge as a [`Bot`]: one engine per game, asked for every move.
impl Bot for Bridge {
    async fn choose(&self, state: &GameState) -> Choice {
        let pos = match position_of(state) {
            Ok(p) => p,
            Err(e) => return Choice::Resign(format!("cannot rebuild the position: {e}")),
        };
        self.choose_in(
            state,
            &pos,
            &opening_of(state),
            &moves_of(state),
            time_left_ms(state),
        )
        .await
    }

    async fn supports_size(&self, size: u8) -> Result<bool, String> {
        self.supports(size).await
    }

    fn game_over(&self, game: &GameKey) {
        self.forget(game);
    }

    fn set_over(&self, set_id: &str) {
        self.forget_set(set_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_engines_report_becomes_the_moves_info() {
        let report = EngineReport {
            win_rate: Some(0.61234),
            visits: Some(812),
            pv: vec![
                "c3".into(),
                "swap-pieces".into(),
                "d4".into(),
                "z9".into(),
                "a1".into(),
            ],
        };
        let info = move_info(&report, 11);
        assert_eq!(info.eval, Some(0.612));
        assert_eq!(info.nodes, Some(812));
        // the swap left out, cut at the first name off the board
        assert_eq!(info.pv, Some(vec!["c3".to_string(), "d4".into()]));
        // On a 3x3 board d4 is off it; a report of nothing is no info.
        assert_eq!(move_info(&report, 3).pv, Some(vec!["c3".to_string()]));
        assert_eq!(move_info(&EngineReport::default(), 11), MoveInfo::default());
    }

    #[tokio::test]
    async fn an_engine_that_cannot_start_is_an_error_not_a_refused_size() {
        let b = Bridge::new("/nonexistent/gtp-engine --x").expect("a command");
        let e = b.supports(11).await.expect_err("nothing to ask");
        assert!(e.contains("cannot start /nonexistent/gtp-engine"), "{e}");
        // Not remembered: asked again (and failing again) next time.
        assert!(b.supports(11).await.is_err());
    }
}
