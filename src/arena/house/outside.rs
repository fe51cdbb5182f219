//! Outside engines as house rungs (issue 23): GTP engines the operator installed (MoHex,
//! KataHex, the project's own `hexarena gtp`, ...) registered with `--house-engine NAME=COMMAND`
//! or `ARENA_HOUSE_ENGINES` as house bots named `house-NAME`. They play practice sets and lobby
//! challenges through the same driver, clocks and admission as the built-in rungs.
//!
//! - One engine process per game, started on the bot's first turn in that game and killed
//!   when the game ends; each process has its own thread (and [`hex_gtp::Engine`]'s reader
//!   thread), so engines never run on the async runtime or on the thinking pool.
//! - Before each `genmove` the engine is brought up to date with `play` commands (the opening
//!   stones from Black, then the moves; the seat on top-bottom is Black, the swap is
//!   `swap-pieces`, as [`hex_gtp::plays_of`] writes them).
//! - Its time: when `list_commands` lists `time_left`, it is told both clocks
//!   (`time_left COLOUR SECONDS 0`, its own less [`TOLD_RESERVE_MS`]) and may answer until
//!   [`RESIGN_MARGIN_MS`] before its flag; otherwise it is given [`move_budget_ms`] and must
//!   answer within that plus [`HANG_MARGIN_MS`] (never later than the same margin before its
//!   flag).
//! - Anything but a legal move in time resigns the game (reason `resignation`), logged with
//!   the reason: an engine that dies, hangs, refuses the board size or a move, answers `pass`,
//!   something unreadable or an illegal move. A dead or hung engine is killed; the next game
//!   starts a fresh process. A move is never played for the engine and never lost on time.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use hex::{Cell, Color, Move, Seat};
use hex_gtp::{Engine, Failure, Genmove};
use serde_json::{Value, json};

use super::HouseBot;
use crate::arena::Arena;
use crate::arena::error::{ArenaError, ArenaResult, Code};
use crate::arena::live::LiveGame;

/// Separates engines in `ARENA_HOUSE_ENGINES` (and in one `--house-engine` value).
pub const SEPARATOR: char = ';';
/// The bot name of an outside engine is this prefix plus its NAME.
pub const PREFIX: &str = "house-";
/// The Elo and Glicko-2 rating an outside engine starts from, while it has played no rated
/// set: its strength is not measured, so it starts provisional (deviation
/// [`crate::arena::glicko::MAX_DEVIATION`]) in the middle of the ladder, and results move it.
pub const SEED_RATING: f64 = 1500.0;
/// Time limit of the commands before `genmove` (start-up, `list_commands`, `boardsize`,
/// `play`, `time_left`), ms; never beyond the move's own limit.
pub const COMMAND_TIMEOUT_MS: u64 = 10_000;
/// The engine's answer must come this long before its flag, ms, so that its move or the
/// resignation is stored before the clock would end the game.
pub const RESIGN_MARGIN_MS: i64 = 400;
/// An engine without `time_left` may take this long beyond its [`move_budget_ms`], ms, before
/// it counts as hung.
pub const HANG_MARGIN_MS: u64 = 2_000;
/// Kept off the time told with `time_left`, ms: the answer's trip and the commit.
pub const TOLD_RESERVE_MS: i64 = 1_000;

/// One configured outside engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutsideEngine {
    /// The house bot's name, `house-NAME`.
    pub bot_name: String,
    /// The command (program, then arguments; run without a shell).
    pub argv: Vec<String>,
    /// What profiles show of the command: the program's file name only (no directories, no
    /// arguments, which could carry paths or secrets).
    pub command_name: String,
}

impl OutsideEngine {
    /// Reads one `NAME=COMMAND`: NAME is 1 to 18 of `[A-Za-z0-9_-]` (the bot is `house-NAME`,
    /// at most 24 characters), COMMAND is split like a shell would (quotes group, a backslash
    /// escapes; no expansions, no pipes).
    ///
    /// # Errors
    /// The reason, for the start-up error.
    pub fn parse(text: &str) -> Result<OutsideEngine, String> {
        let (name, command) = text
            .split_once('=')
            .ok_or_else(|| format!("house engine {text:?}: expected NAME=COMMAND"))?;
        let name = name.trim();
        let bot_name = format!("{PREFIX}{name}");
        if name.is_empty() || !crate::arena::accounts::valid_bot_name(&bot_name) {
            return Err(format!(
                "house engine {name:?}: NAME must be 1 to {} of A-Z a-z 0-9 _ -",
                24 - PREFIX.len()
            ));
        }
        let argv = hex_gtp::split_command(command).ok_or_else(|| {
            format!("house engine {name:?}: an empty command or an unclosed quote")
        })?;
        let command_name = std::path::Path::new(&argv[0])
            .file_name()
            .map_or_else(|| argv[0].clone(), |f| f.to_string_lossy().into_owned());
        Ok(OutsideEngine {
            bot_name,
            argv,
            command_name,
        })
    }

    /// Reads every `--house-engine` value (each may hold several, separated by
    /// [`SEPARATOR`]; blank entries are skipped).
    ///
    /// # Errors
    /// A malformed entry, two engines with one name (any case), or a name the ladder uses.
    pub fn parse_all(values: &[String]) -> Result<Vec<OutsideEngine>, String> {
        let mut out: Vec<OutsideEngine> = vec![];
        for entry in values
            .iter()
            .flat_map(|v| v.split(SEPARATOR))
            .filter(|e| !e.trim().is_empty())
        {
            let e = OutsideEngine::parse(entry.trim())?;
            if hex_search::ladder::rung(&e.bot_name.to_ascii_lowercase()).is_some() {
                return Err(format!(
                    "house engine {}: the name of a built-in rung",
                    e.bot_name
                ));
            }
            if out
                .iter()
                .any(|o| o.bot_name.eq_ignore_ascii_case(&e.bot_name))
            {
                return Err(format!("house engine {}: named twice", e.bot_name));
            }
            out.push(e);
        }
        Ok(out)
    }

    /// The `engine` entry of its bot's profile.
    #[must_use]
    pub fn profile_json(&self) -> Value {
        json!({"outside": true, "protocol": "gtp", "command_name": self.command_name})
    }
}

/// The thinking time an engine without `time_left` is given for a move, ms, from its clock:
/// `time_left_ms` now, `increment_ms` after each move, `empty_cells` on the board. Like the
/// built-in rungs' plan ([`hex_search::ladder::think_time_ms`]: a third of the empty cells
/// still to play, at least 8) but without their cap: what is usable after a reserve (a tenth,
/// 0.5 to 2 s) over the moves expected, plus nine tenths of the increment, at most a quarter
/// of what is usable. 10+0 on an empty 11x11 board: 225 ms; 60+2: 3,250 ms.
#[must_use]
pub fn move_budget_ms(time_left_ms: u64, increment_ms: u64, empty_cells: u32) -> u64 {
    let expected_moves = u64::from(empty_cells / 3).max(8);
    let reserve_ms = (time_left_ms / 10).clamp(500, 2_000);
    let usable = time_left_ms.saturating_sub(reserve_ms);
    (usable / expected_moves + increment_ms * 9 / 10).min(usable / 4 + increment_ms / 2)
}

/// What a session thread answers to one move's request.
#[derive(Debug)]
enum Answer {
    /// The `genmove` answer's text.
    Genmove(String),
    /// The engine refused a command it needs (board size, a move): the reason.
    Refused(String),
    /// The engine died or hung: it was killed.
    Failed(Failure),
}

/// One move asked of a game's engine.
struct Request {
    size: u8,
    plays: Vec<(Color, String)>,
    me: Color,
    /// The seat's own time and its opponent's, ms.
    time_left_ms: (i64, i64),
    /// The no-`time_left` budget, ms.
    budget_ms: u64,
    /// The latest moment the answer is waited for.
    answer_by: Instant,
    reply: tokio::sync::oneshot::Sender<Answer>,
}

/// The engine processes of the outside bots, one per game in play.
#[derive(Default)]
pub struct Sessions {
    games: Mutex<HashMap<(String, i64), mpsc::Sender<Request>>>,
}

impl Sessions {
    /// Stops the engine of a game (its thread ends and kills the process).
    pub fn forget(&self, set_id: &str, game_no: i64) {
        if let Ok(mut g) = self.games.lock() {
            g.remove(&(set_id.to_string(), game_no));
        }
    }

    /// Stops the engines of the games for which `done` says so.
    pub fn forget_where(&self, done: impl Fn(&str, i64) -> bool) {
        if let Ok(mut g) = self.games.lock() {
            g.retain(|(s, n), _| !done(s, *n));
        }
    }

    /// Engines running.
    pub fn len(&self) -> usize {
        self.games.lock().map_or(0, |g| g.len())
    }

    /// Whether no engine runs.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The sender of a game's session, started (a thread, no process yet) if new.
    fn session(
        &self,
        key: &(String, i64),
        engine: &OutsideEngine,
    ) -> Option<mpsc::Sender<Request>> {
        let mut g = self.games.lock().ok()?;
        if let Some(tx) = g.get(key) {
            return Some(tx.clone());
        }
        let (tx, rx) = mpsc::channel::<Request>();
        let argv = engine.argv.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("{}-{}", engine.bot_name, key.1))
            .spawn(move || session_thread(&argv, &rx));
        if let Err(e) = spawned {
            tracing::error!(error = %e, "no thread for an outside engine");
            return None;
        }
        g.insert(key.clone(), tx.clone());
        Some(tx)
    }
}

/// What a session thread holds: its engine once started, whether it takes `time_left`, and
/// the plays it knows.
struct Held {
    engine: Engine,
    time_left: bool,
    known: Vec<(Color, String)>,
}

/// Serves one game's requests until the game's sender is dropped or the engine fails.
fn session_thread(argv: &[String], rx: &mpsc::Receiver<Request>) {
    let mut held: Option<Held> = None;
    while let Ok(req) = rx.recv() {
        let answer = ask(argv, &mut held, &req);
        let failed = matches!(answer, Answer::Failed(_));
        let _ = req.reply.send(answer);
        if failed {
            return; // `held` drops here: the process is killed
        }
    }
}

fn ask(argv: &[String], held: &mut Option<Held>, req: &Request) -> Answer {
    match try_ask(argv, held, req) {
        Ok(a) => a,
        Err(f) => {
            *held = None;
            Answer::Failed(f)
        }
    }
}

fn try_ask(argv: &[String], held: &mut Option<Held>, req: &Request) -> Result<Answer, Failure> {
    let left = || req.answer_by.saturating_duration_since(Instant::now());
    let short = || left().min(Duration::from_millis(COMMAND_TIMEOUT_MS));
    if held.is_none() {
        let mut engine = Engine::start(argv)?;
        let time_left = engine
            .list_commands(short())?
            .iter()
            .any(|c| c == "time_left");
        if let Err(why) = engine.command(&format!("boardsize {}", req.size), short())? {
            return Ok(Answer::Refused(format!(
                "the engine refuses boardsize {}: {why}",
                req.size
            )));
        }
        *held = Some(Held {
            engine,
            time_left,
            known: vec![],
        });
    }
    let Some(h) = held.as_mut() else {
        return Err(Failure::Dead("no engine".into()));
    };
    if !req.plays.starts_with(&h.known) {
        if let Err(why) = h.engine.command("clear_board", short())? {
            return Ok(Answer::Refused(format!(
                "the engine refuses clear_board: {why}"
            )));
        }
        h.known.clear();
    }
    for (color, mv) in req.plays[h.known.len()..].iter().cloned() {
        let cmd = format!("play {} {mv}", hex_gtp::letter(color));
        if let Err(why) = h.engine.command(&cmd, short())? {
            return Ok(Answer::Refused(format!("the engine refuses {cmd}: {why}")));
        }
        h.known.push((color, mv));
    }
    let answer_by = if h.time_left {
        let (mine, theirs) = req.time_left_ms;
        for (color, ms) in [(req.me, mine - TOLD_RESERVE_MS), (req.me.other(), theirs)] {
            let secs = (ms / 1000).max(1);
            let cmd = format!("time_left {} {secs} 0", hex_gtp::letter(color));
            // A refusal is harmless: the engine then plays on its own settings.
            let _ = h.engine.command(&cmd, short())?;
        }
        req.answer_by
    } else {
        req.answer_by
            .min(Instant::now() + Duration::from_millis(req.budget_ms + HANG_MARGIN_MS))
    };
    let wait = answer_by.saturating_duration_since(Instant::now());
    let cmd = format!("genmove {}", hex_gtp::letter(req.me));
    match h.engine.command(&cmd, wait)? {
        Ok(text) => {
            // The engine played it on its board: it knows it, whatever becomes of it.
            if let Genmove::Move(mv) = hex_gtp::parse_genmove(&text) {
                h.known.push((req.me, hex_gtp::move_name(mv)));
            }
            Ok(Answer::Genmove(text))
        }
        Err(why) => Ok(Answer::Refused(format!("the engine refuses {cmd}: {why}"))),
    }
}

/// The opening and the moves of a game, read from its rendered state (the live game holds
/// the position, not the move list).
fn history(l: &LiveGame, now_ms: i64) -> Option<(Vec<Cell>, Vec<Move>)> {
    let state: Value = serde_json::from_str(&l.snapshot.body_at(now_ms)).ok()?;
    let cell = |v: &Value| -> Option<Cell> {
        let rc = v.as_array()?;
        let r = u8::try_from(rc.first()?.as_u64()?).ok()?;
        let c = u8::try_from(rc.get(1)?.as_u64()?).ok()?;
        Some(Cell::new(r, c))
    };
    let opening = state["opening"]
        .as_array()?
        .iter()
        .map(cell)
        .collect::<Option<Vec<_>>>()?;
    let moves = state["moves"]
        .as_array()?
        .iter()
        .map(|m| {
            if m["swap"] == json!(true) {
                Some(Move::Swap)
            } else {
                cell(&m["cell"]).map(Move::Place)
            }
        })
        .collect::<Option<Vec<_>>>()?;
    Some((opening, moves))
}

/// Asks an outside engine for its move at `ply` (its seat `seat` on move, flag at `flag_ms`)
/// and plays it, or resigns the game when the engine gives no legal move in time.
///
/// Errors: the arena's, playing or resigning (a game that ended meanwhile is not an error
/// worth more than a debug line to the caller).
pub async fn play_one(
    arena: &Arena,
    house: &super::House,
    hb: &HouseBot,
    engine: &OutsideEngine,
    l: &LiveGame,
    seat: Seat,
    ply: i64,
) -> ArenaResult<()> {
    let (set_id, game_no) = (l.game.set_id.as_str(), l.game.game_no);
    let clock = l.game.clock;
    let now_ms = arena.now_ms();
    let Some(flag_ms) = clock.deadline_ms(seat) else {
        return Ok(());
    };
    let i = usize::from(seat.number() - 1);
    let mut mine_ms = flag_ms - now_ms;
    if clock.first_move[i] {
        // A free first move: the engine plans as if its clock were charged.
        mine_ms = mine_ms.min(clock.remaining_ms[i]);
    }
    let theirs_ms = clock.remaining_ms[1 - i];
    let Some((opening, moves)) = history(l, now_ms) else {
        return Err(ArenaError::internal(
            "the game's move list could not be read",
        ));
    };
    let pos = &l.game.position;
    let empty = u32::try_from(pos.empty_cells().len()).unwrap_or(u32::MAX);
    let answer_in = u64::try_from(flag_ms - now_ms - RESIGN_MARGIN_MS).unwrap_or(0);
    let (reply, rx) = tokio::sync::oneshot::channel();
    let req = Request {
        size: pos.size(),
        plays: hex_gtp::plays_of(&opening, &moves),
        me: Color::of_seat(pos, seat),
        time_left_ms: (mine_ms, theirs_ms),
        budget_ms: move_budget_ms(
            u64::try_from(mine_ms).unwrap_or(0),
            u64::try_from(clock.increment_ms).unwrap_or(0),
            empty,
        ),
        answer_by: Instant::now() + Duration::from_millis(answer_in),
        reply,
    };
    let key = (set_id.to_string(), game_no);
    let sessions = &house.outside;
    let sent = sessions
        .session(&key, engine)
        .is_some_and(|tx| tx.send(req).is_ok());
    let answer = if sent {
        rx.await
            .unwrap_or_else(|_| Answer::Failed(Failure::Dead("its thread ended".into())))
    } else {
        sessions.forget(set_id, game_no);
        Answer::Failed(Failure::Dead("its thread ended".into()))
    };
    let why = match answer {
        Answer::Genmove(text) => match hex_gtp::parse_genmove(&text) {
            Genmove::Move(mv) => match pos.check(mv) {
                Ok(()) => {
                    match arena
                        .play_move(&hb.bot, set_id, game_no, mv, Some(ply + 1), None)
                        .await
                    {
                        Ok(_) => return Ok(()),
                        // Refused by the rules after all (never expected after the check).
                        Err(e) if e.is_any(&Code::RULES) => {
                            format!("the arena refused its move {text:?}: {e}")
                        }
                        Err(e) => return Err(e),
                    }
                }
                Err(e) => format!("the engine answered an illegal move {text:?}: {e}"),
            },
            Genmove::Resign => {
                tracing::info!(bot = %hb.bot.name, set_id, game_no, "outside engine resigns");
                sessions.forget(set_id, game_no);
                arena.resign(&hb.bot, set_id, game_no).await?;
                return Ok(());
            }
            Genmove::Pass => "the engine passed (Hex has no pass)".to_string(),
            Genmove::Unparsable(t) => format!("the engine answered {t:?}, not a move"),
        },
        Answer::Refused(why) => why,
        Answer::Failed(f) => {
            house
                .outside_restarts
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            format!("{f}; it was stopped, the next game starts a fresh process")
        }
    };
    arena.metrics.house_engine_failure();
    tracing::warn!(
        bot = %hb.bot.name,
        set_id,
        game_no,
        ply,
        reason = %why,
        "outside engine gave no legal move: its game is resigned"
    );
    sessions.forget(set_id, game_no);
    arena.resign(&hb.bot, set_id, game_no).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_are_read_from_name_equals_command() {
        let e = OutsideEngine::parse("mohex=/opt/benzene/bin/mohex --seed 3 'a b'").expect("ok");
        assert_eq!(e.bot_name, "house-mohex");
        assert_eq!(e.argv, ["/opt/benzene/bin/mohex", "--seed", "3", "a b"]);
        assert_eq!(e.command_name, "mohex");
        assert_eq!(
            e.profile_json(),
            json!({"outside": true, "protocol": "gtp", "command_name": "mohex"})
        );
        // The separator splits; blank entries are skipped.
        let all = OutsideEngine::parse_all(&[
            "a=one x; b = two ;".to_string(),
            "KataHex=kata gtp".to_string(),
        ])
        .expect("ok");
        let names: Vec<&str> = all.iter().map(|e| e.bot_name.as_str()).collect();
        assert_eq!(names, ["house-a", "house-b", "house-KataHex"]);
        assert_eq!(all[1].argv, ["two"]);
    }

    #[test]
    fn bad_engine_entries_are_refused_with_the_reason() {
        for (bad, why) in [
            ("mohex", "NAME=COMMAND"),
            ("=mohex", "NAME must be"),
            ("a b=mohex", "NAME must be"),
            ("name-far-too-long-now=x", "NAME must be"),
            ("x=", "empty command"),
            ("x='mohex", "unclosed quote"),
            ("master=mohex", "built-in rung"),
            ("a=x;A=y", "named twice"),
        ] {
            let e = OutsideEngine::parse_all(&[bad.to_string()]).expect_err(bad);
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn the_fixed_budget_follows_the_clock() {
        assert_eq!(move_budget_ms(10_000, 0, 121), 9_000 / 40);
        assert_eq!(move_budget_ms(60_000, 2_000, 121), 58_000 / 40 + 1_800);
        // Late: still planned over at least 8 moves.
        assert_eq!(move_budget_ms(10_000, 0, 9), 9_000 / 8);
        // A large increment: at most a quarter of what is usable plus half the increment.
        assert_eq!(move_budget_ms(10_000, 10_000, 9), 9_000 / 4 + 5_000);
        assert_eq!(move_budget_ms(300, 0, 50), 0);
    }
}
