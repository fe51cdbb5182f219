//! `hexarena play --gtp "COMMAND ARGS"`: runs a Hex GTP engine as a child process, one per game,
//! and asks it for the moves of the arena bot (issue 10).
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
//! answer `resign` resigns. Before accepting a challenge the bridge asks a short-lived engine
//! whether it takes the board size; if not, the challenge is declined (or skipped if open).

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hex::sgf::color_of_move;
use hex::{Color, Move, Position};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// Timeout of every command but `genmove` (start-up, `boardsize`, `play`, `time_left`).
const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest answer line read from an engine, in bytes.
const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// `(set_id, game_no)`.
pub type GameKey = (String, i64);

/// What the bridge wants the bot to do on its turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Choice {
    /// Post this move body (`{"cell": [r, c]}` or `{"swap": true}`).
    Move(Value),
    /// Resign the game, for this reason (logged).
    Resign(String),
}

/// Why talking to an engine failed (the game is then resigned).
#[derive(Debug)]
enum EngineFailure {
    /// It could not be started, closed its output, or an I/O error happened.
    Dead(String),
    /// No complete answer within the time allowed.
    Timeout,
}

impl std::fmt::Display for EngineFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineFailure::Dead(m) => write!(f, "engine died: {m}"),
            EngineFailure::Timeout => f.write_str("engine did not answer in time"),
        }
    }
}

/// Splits a command line into words: whitespace separates, single or double quotes group, a
/// backslash outside single quotes escapes the next character. `None` for an unclosed quote or
/// an empty command.
pub fn split_command(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('\''), c) => word.push(c),
            (_, '\\') => {
                word.push(chars.next()?);
                in_word = true;
            }
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return None;
    }
    if in_word {
        words.push(word);
    }
    (!words.is_empty()).then_some(words)
}

/// One running engine.
struct Session {
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// The `(colour, move)` plays this engine knows, in order (opening stones included).
    known: Vec<(Color, String)>,
}

impl Session {
    async fn start(argv: &[String]) -> Result<Session, EngineFailure> {
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| EngineFailure::Dead("empty command".into()))?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| EngineFailure::Dead(format!("cannot start {program}: {e}")))?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| EngineFailure::Dead("no stdin".into()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| EngineFailure::Dead("no stdout".into()))?;
        Ok(Session {
            _child: child,
            stdin,
            stdout: BufReader::new(stdout),
            known: Vec::new(),
        })
    }

    /// Sends one command; `Ok(Ok(text))` for `= text`, `Ok(Err(text))` for `? text`.
    async fn command(
        &mut self,
        line: &str,
        timeout: Duration,
    ) -> Result<Result<String, String>, EngineFailure> {
        tracing::debug!("gtp> {line}");
        let exchange = async {
            self.stdin
                .write_all(format!("{line}\n").as_bytes())
                .await
                .map_err(|e| EngineFailure::Dead(e.to_string()))?;
            self.stdin
                .flush()
                .await
                .map_err(|e| EngineFailure::Dead(e.to_string()))?;
            let mut lines: Vec<String> = Vec::new();
            loop {
                let mut buf = Vec::new();
                let n = AsyncReadExt::take(&mut self.stdout, MAX_ANSWER_BYTES as u64)
                    .read_until(b'\n', &mut buf)
                    .await
                    .map_err(|e| EngineFailure::Dead(e.to_string()))?;
                if n == 0 {
                    return Err(EngineFailure::Dead("end of output".into()));
                }
                let text = String::from_utf8_lossy(&buf)
                    .trim_end_matches(['\n', '\r'])
                    .to_string();
                if text.trim().is_empty() {
                    if lines.is_empty() {
                        continue; // blank lines before an answer
                    }
                    break;
                }
                lines.push(text);
            }
            let first = lines.first().cloned().unwrap_or_default();
            let ok = first.starts_with('=');
            if !ok && !first.starts_with('?') {
                return Err(EngineFailure::Dead(format!("not a GTP answer: {first:?}")));
            }
            // drop the mark and an id
            let head = first[1..].trim_start_matches(|c: char| c.is_ascii_digit());
            let mut body = head.trim().to_string();
            for l in &lines[1..] {
                body.push('\n');
                body.push_str(l);
            }
            Ok(if ok { Ok(body) } else { Err(body) })
        };
        let answer = tokio::time::timeout(timeout, exchange)
            .await
            .map_err(|_| EngineFailure::Timeout)??;
        tracing::debug!("gtp< {answer:?}");
        Ok(answer)
    }
}

/// The GTP plays that describe a game so far: the opening stones alternately from Black, then
/// each move with the colour of the player who made it.
pub fn plays_of(opening: &[hex::Cell], moves: &[Move]) -> Vec<(Color, String)> {
    let mut out: Vec<(Color, String)> = opening
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let color = if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            (color, hex::cell_name(*c))
        })
        .collect();
    let mut swapped = false;
    for (ply, mv) in moves.iter().enumerate() {
        let color = color_of_move(ply, swapped);
        match mv {
            Move::Place(c) => out.push((color, hex::cell_name(*c))),
            Move::Swap => {
                swapped = true;
                out.push((color, "swap-pieces".into()));
            }
        }
    }
    out
}

fn letter(c: Color) -> &'static str {
    match c {
        Color::Black => "b",
        Color::White => "w",
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
            g.retain(|k, _| k.0 != set_id);
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
    pub async fn choose(
        &self,
        state: &Value,
        pos: &Position,
        opening: &[hex::Cell],
        moves: &[Move],
        time_left_ms: i64,
    ) -> Choice {
        let key: GameKey = (
            state["set_id"].as_str().unwrap_or_default().to_string(),
            state["game_no"].as_i64().unwrap_or_default(),
        );
        let slot = self.slot(&key);
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
        state: &Value,
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
        let remaining = |seat: hex::Seat| {
            state["clock"]["remaining_ms"][usize::from(seat.number() - 1)]
                .as_i64()
                .unwrap_or_default()
        };
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
        let answer = match s.command(&format!("genmove {}", letter(me)), think).await? {
            Ok(a) => a,
            Err(why) => return Ok(Choice::Resign(format!("genmove refused: {why}"))),
        };
        let word = answer.trim().to_ascii_lowercase();
        let mv = match word.as_str() {
            "resign" => return Ok(Choice::Resign("the engine resigned".into())),
            "pass" => return Ok(Choice::Resign("the engine passed (Hex has no pass)".into())),
            "swap-pieces" | "swap" => Move::Swap,
            other => match hex::parse_cell_name(other) {
                Some(c) => Move::Place(c),
                None => {
                    return Ok(Choice::Resign(format!(
                        "the engine answered {answer:?}, not a move"
                    )));
                }
            },
        };
        if let Err(e) = pos.check(mv) {
            return Ok(Choice::Resign(format!(
                "the engine answered an illegal move {answer:?}: {e}"
            )));
        }
        let name = match mv {
            Move::Place(c) => hex::cell_name(c),
            Move::Swap => "swap-pieces".to_string(),
        };
        s.known.push((me, name));
        Ok(Choice::Move(match mv {
            Move::Place(c) => json!({"cell": [c.row, c.col]}),
            Move::Swap => json!({"swap": true}),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hex::Cell;

    #[tokio::test]
    async fn an_engine_that_cannot_start_is_an_error_not_a_refused_size() {
        let b = Bridge::new("/nonexistent/gtp-engine --x").expect("a command");
        let e = b.supports(11).await.expect_err("nothing to ask");
        assert!(e.contains("cannot start /nonexistent/gtp-engine"), "{e}");
        // Not remembered: asked again (and failing again) next time.
        assert!(b.supports(11).await.is_err());
    }

    #[test]
    fn commands_split_like_a_shell() {
        assert_eq!(
            split_command(r#"  mohex --seed 3 "a b" 'c "d"' e\ f "#),
            Some(vec![
                "mohex".to_string(),
                "--seed".into(),
                "3".into(),
                "a b".into(),
                "c \"d\"".into(),
                "e f".into()
            ])
        );
        assert_eq!(split_command(""), None);
        assert_eq!(split_command("a 'b"), None);
        assert_eq!(split_command("a \\"), None);
    }

    #[test]
    fn plays_follow_the_players_colours_after_a_swap() {
        let plays = plays_of(
            &[Cell::new(0, 0), Cell::new(1, 1)],
            &[Move::Place(Cell::new(2, 2))],
        );
        assert_eq!(
            plays,
            vec![
                (Color::Black, "a1".to_string()),
                (Color::White, "b2".to_string()),
                (Color::Black, "c3".to_string())
            ]
        );
        let plays = plays_of(
            &[],
            &[
                Move::Place(Cell::new(2, 2)),
                Move::Swap,
                Move::Place(Cell::new(0, 0)),
                Move::Place(Cell::new(4, 4)),
            ],
        );
        let colours: Vec<Color> = plays.iter().map(|p| p.0).collect();
        assert_eq!(
            colours,
            [Color::Black, Color::White, Color::White, Color::Black]
        );
        assert_eq!(plays[1].1, "swap-pieces");
    }
}
