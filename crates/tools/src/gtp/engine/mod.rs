//! `hexarena gtp`: the house strategies as a GTP (Go Text Protocol, Hex dialect) engine, so
//! HexGui, twogtp and `hexarena play --gtp` can play them (issue 10).
//!
//! Hex GTP conventions (as in benzene and HexGui): colours `b`/`w` (also `black`/`white`);
//! Black connects top and bottom and moves first; cells are `a1` names with row 1 on top; the
//! swap is `swap-pieces` (`swap` is read too): the stone stays, the players exchange colours,
//! and the same colour (White) moves again. `play` must be for the colour on move; `genmove`
//! for a finished game answers `resign`.
//!
//! Input is untrusted: every line gets an answer (`= ...` or `? ...`, with the command's id if
//! it had one), nothing panics, lines longer than [`MAX_LINE_BYTES`] are refused.

use std::io::{BufRead, Read, Write};

use hex::{Cell, Color, Move, Position, Seat};
use hex_search::{KeptTree, Tuning};
use rand_core::SeedableRng;
use rand_pcg::Pcg64;

/// Longest command line read, in bytes; longer lines are answered `? line too long`.
pub const MAX_LINE_BYTES: usize = 4096;

mod strategy;
mod think;

pub use strategy::Strategy;

/// Every command this engine knows, in `list_commands` order.
pub const COMMANDS: [&str; 19] = [
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "boardsize",
    "clear_board",
    "play",
    "genmove",
    "kata-genmove_analyze",
    "undo",
    "showboard",
    "time_left",
    "final_score",
    "param",
    "param_strategy",
    "param_budget",
    "param_move_time_ms",
    "quit",
];

/// The engine's state: the game so far (replayed from the move list on `undo`), the strategy
/// and its budget, the clocks the controller told us.
pub struct Engine {
    size: u8,
    moves: Vec<Move>,
    pos: Position,
    strategy: Strategy,
    /// Playouts per move of the strong strategy; `None` = [`hex_search::strong_budget_for`] the size.
    budget_playouts: Option<u32>,
    rng: Pcg64,
    /// Seconds left per colour (Black, White) as told by `time_left`.
    time_left_s: [Option<f64>; 2],
    /// A fixed thinking time per move in ms (`param move_time_ms`), for equal-time matches;
    /// `None` = from `time_left`.
    move_time_ms: Option<u64>,
    /// The tree search's tuning and its name (`param search`): the house bots' unless a
    /// measurement asks for another of [`hex_search::Tuning::NAMED`].
    search: (&'static str, Tuning),
    /// The last search's tree, for a tuning that goes on from it
    /// ([`hex_search::Tuning::keep_tree`]; it serves only the position it leads to).
    kept: KeptTree,
}

/// The longest fixed time per move `param move_time_ms` accepts, in ms (one minute).
pub const MAX_MOVE_TIME_MS: u64 = 60_000;

/// The names of [`hex_search::Tuning::NAMED`], `/`-separated.
fn search_names() -> String {
    Tuning::NAMED
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join("/")
}

/// The tuning called `name`, with its name as written in [`hex_search::Tuning::NAMED`].
fn named_search(name: &str) -> Result<(&'static str, Tuning), String> {
    Tuning::NAMED
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .copied()
        .ok_or_else(|| format!("search must be one of {}", search_names()))
}

/// One answer: the text after `=`/`?`, whether it is a success, and whether to stop.
struct Reply {
    ok: bool,
    text: String,
    quit: bool,
}

fn ok(text: impl Into<String>) -> Reply {
    Reply {
        ok: true,
        text: text.into(),
        quit: false,
    }
}

fn err(text: impl Into<String>) -> Reply {
    Reply {
        ok: false,
        text: text.into(),
        quit: false,
    }
}

fn color_index(c: Color) -> usize {
    match c {
        Color::Black => 0,
        Color::White => 1,
    }
}

impl Engine {
    /// A new engine on an empty 11x11 board. `seed` makes `genmove` reproducible.
    pub fn new(strategy: Strategy, budget_playouts: Option<u32>, seed: u64) -> Engine {
        let size = 11;
        Engine {
            size,
            moves: Vec::new(),
            pos: Position::new(size).unwrap_or_else(|_| unreachable_position()),
            strategy,
            budget_playouts,
            rng: Pcg64::seed_from_u64(seed),
            time_left_s: [None, None],
            move_time_ms: None,
            search: ("house", Tuning::HOUSE),
            kept: KeptTree::default(),
        }
    }

    /// The same engine searching with the tuning of [`hex_search::Tuning::NAMED`] called
    /// `name`; see `param search`.
    ///
    /// # Errors
    /// The names there are, for a name that is not one of them.
    pub fn with_search(mut self, name: &str) -> Result<Engine, String> {
        self.search = named_search(name)?;
        Ok(self)
    }

    /// The same engine with a fixed thinking time per move of `ms` milliseconds (`None`:
    /// from `time_left`); see `param move_time_ms`.
    #[must_use]
    pub fn with_move_time_ms(mut self, ms: Option<u64>) -> Engine {
        self.move_time_ms = ms.map(|t| t.min(MAX_MOVE_TIME_MS));
        self
    }

    /// The colour on move, `None` when the game is over.
    fn to_move(&self) -> Option<Color> {
        self.pos.to_move().map(|s| Color::of_seat(&self.pos, s))
    }

    fn reset(&mut self, size: u8) -> Result<(), String> {
        let pos = Position::new(size).map_err(|e| e.to_string())?;
        self.size = size;
        self.pos = pos;
        self.moves.clear();
        Ok(())
    }

    /// Handles one command line (already stripped of comments); `None` for an empty line.
    /// Returns the full response text (ending in a blank line) and whether to quit.
    pub fn handle(&mut self, line: &str) -> Option<(String, bool)> {
        let cleaned: String = line
            .chars()
            .map(|c| if c == '\t' { ' ' } else { c })
            .filter(|c| !c.is_control())
            .collect();
        let cleaned = cleaned.split('#').next().unwrap_or_default().trim();
        if cleaned.is_empty() {
            return None;
        }
        let mut words = cleaned.split_whitespace();
        let first = words.next()?;
        let (id, command) = if first.bytes().all(|b| b.is_ascii_digit()) {
            (first.to_string(), words.next().unwrap_or_default())
        } else {
            (String::new(), first)
        };
        let args: Vec<&str> = words.collect();
        let reply = if command.is_empty() {
            err("missing command")
        } else {
            self.dispatch(command, &args)
        };
        let body = reply.text.trim_end();
        let mark = if reply.ok { '=' } else { '?' };
        let text = if body.is_empty() {
            format!("{mark}{id}\n\n")
        } else {
            format!("{mark}{id} {body}\n\n")
        };
        Some((text, reply.quit))
    }

    fn dispatch(&mut self, command: &str, args: &[&str]) -> Reply {
        match command {
            "protocol_version" => ok("2"),
            "name" => ok("hexarena"),
            "version" => ok(env!("CARGO_PKG_VERSION")),
            "known_command" => match args {
                [name] => ok(if COMMANDS.contains(name) {
                    "true"
                } else {
                    "false"
                }),
                _ => err("syntax error: known_command NAME"),
            },
            "list_commands" => ok(COMMANDS.join("\n")),
            "boardsize" => self.boardsize(args),
            "clear_board" => {
                let size = self.size;
                match self.reset(size) {
                    Ok(()) => ok(""),
                    Err(e) => err(e),
                }
            }
            "play" => self.play(args),
            "genmove" => self.genmove(args),
            "kata-genmove_analyze" => self.genmove_analyze(args),
            "undo" => self.undo(),
            "showboard" => ok(format!("\n{}", self.board_text())),
            "time_left" => self.time_left(args),
            "final_score" => match self.pos.outcome().and_then(|o| o.winner()) {
                Some(s) => ok(format!("{}+", Color::of_seat(&self.pos, s).letter())),
                None => err("cannot score: the game is not over"),
            },
            "param" => self.param(args),
            "param_strategy" => self.param(&[&["strategy"], args].concat()),
            "param_budget" => self.param(&[&["budget"], args].concat()),
            "param_move_time_ms" => self.param(&[&["move_time_ms"], args].concat()),
            "quit" => Reply {
                ok: true,
                text: String::new(),
                quit: true,
            },
            _ => err("unknown command"),
        }
    }

    fn boardsize(&mut self, args: &[&str]) -> Reply {
        let parse = |s: &str| s.parse::<u8>().ok();
        let size = match args {
            [n] => parse(n),
            [w, h] => parse(w).filter(|w| parse(h) == Some(*w)),
            _ => return err("syntax error: boardsize N"),
        };
        match size.filter(|s| (1..=hex::MAX_SIZE).contains(s)) {
            Some(s) => match self.reset(s) {
                Ok(()) => ok(""),
                Err(e) => err(e),
            },
            None => err("unacceptable size"),
        }
    }

    fn parse_move(text: &str) -> Option<Move> {
        match text.to_ascii_lowercase().as_str() {
            "swap-pieces" | "swap" => Some(Move::Swap),
            name => hex::parse_cell_name(name).map(Move::Place),
        }
    }

    fn move_name(mv: Move) -> String {
        match mv {
            Move::Place(c) => hex::cell_name(c),
            Move::Swap => "swap-pieces".into(),
        }
    }

    fn play(&mut self, args: &[&str]) -> Reply {
        let [color, mv] = args else {
            return err("syntax error: play COLOR MOVE");
        };
        let Some(color) = Color::parse(color) else {
            return err("syntax error: unknown colour");
        };
        match mv.to_ascii_lowercase().as_str() {
            "resign" => return ok(""),
            "pass" => return err("illegal move: Hex has no pass"),
            _ => {}
        }
        let Some(mv) = Engine::parse_move(mv) else {
            return err("illegal move: not a cell name");
        };
        match self.to_move() {
            None => return err("illegal move: the game is over"),
            Some(c) if c != color => {
                return err(format!(
                    "illegal move: {} is on move",
                    c.letter().to_lowercase()
                ));
            }
            Some(_) => {}
        }
        match self.pos.play(mv) {
            Ok(_) => {
                self.moves.push(mv);
                ok("")
            }
            Err(e) => err(format!("illegal move: {e}")),
        }
    }

    fn undo(&mut self) -> Reply {
        if self.moves.pop().is_none() {
            return err("cannot undo");
        }
        let mut pos = match Position::new(self.size) {
            Ok(p) => p,
            Err(e) => return err(e.to_string()),
        };
        for mv in &self.moves {
            if let Err(e) = pos.play(*mv) {
                return err(format!("internal error: {e}"));
            }
        }
        self.pos = pos;
        ok("")
    }

    fn time_left(&mut self, args: &[&str]) -> Reply {
        let show = |t: Option<f64>| t.map_or("unknown".to_string(), |t| format!("{t}"));
        match args {
            [] => ok(format!(
                "Black: {}, White: {}",
                show(self.time_left_s[0]),
                show(self.time_left_s[1])
            )),
            [color] => match Color::parse(color) {
                Some(c) => ok(show(self.time_left_s[color_index(c)])),
                None => err("syntax error: unknown colour"),
            },
            [color, time] | [color, time, _] => {
                let Some(c) = Color::parse(color) else {
                    return err("syntax error: unknown colour");
                };
                match time.parse::<f64>() {
                    Ok(t) if t.is_finite() && t >= 0.0 => {
                        self.time_left_s[color_index(c)] = Some(t);
                        ok("")
                    }
                    _ => err("syntax error: time must be a number of seconds"),
                }
            }
            _ => err("syntax error: time_left COLOR SECONDS [STONES]"),
        }
    }

    fn param(&mut self, args: &[&str]) -> Reply {
        let show_budget = self
            .budget_playouts
            .map_or("auto".to_string(), |b| b.to_string());
        let show_time = self
            .move_time_ms
            .map_or("off".to_string(), |t| t.to_string());
        match args {
            // the listing stays as it was before `search` (a measurement's knob, not listed)
            [] => ok(format!(
                "[list/{}] strategy {}\n[string] budget {show_budget}\n[string] move_time_ms {show_time}",
                Strategy::names(),
                self.strategy.name(),
            )),
            ["search"] => ok(self.search.0),
            ["search", value] => match named_search(value) {
                Ok(s) => {
                    self.search = s;
                    ok("")
                }
                Err(e) => err(e),
            },
            ["strategy"] => ok(self.strategy.name()),
            ["budget"] => ok(show_budget),
            ["move_time_ms"] => ok(show_time),
            ["strategy", value] => match Strategy::parse(value) {
                Some(s) => {
                    self.strategy = s;
                    ok("")
                }
                None => err(format!("strategy must be one of {}", Strategy::names())),
            },
            ["budget", value] => {
                if value.eq_ignore_ascii_case("auto") {
                    self.budget_playouts = None;
                    return ok("");
                }
                match value.parse::<u32>() {
                    Ok(n) if (1..=10_000_000).contains(&n) => {
                        self.budget_playouts = Some(n);
                        ok("")
                    }
                    _ => err("budget must be 1..=10000000 playouts or auto"),
                }
            }
            ["move_time_ms", value] => {
                if value.eq_ignore_ascii_case("off") {
                    self.move_time_ms = None;
                    return ok("");
                }
                match value.parse::<u64>() {
                    Ok(ms) if ms <= MAX_MOVE_TIME_MS => {
                        self.move_time_ms = Some(ms);
                        ok("")
                    }
                    _ => err(format!(
                        "move_time_ms must be 0..={MAX_MOVE_TIME_MS} ms or off"
                    )),
                }
            }
            _ => err("syntax error: param [strategy NAME] [budget N|auto] [move_time_ms MS|off]"),
        }
    }

    /// The board as text: column letters on top, one row per line shifted right by its index
    /// (the rhombus), `B`/`W` for the stones' current colours, `.` for empty cells.
    fn board_text(&self) -> String {
        let letters: String = (0..self.size)
            .map(|c| {
                let name = hex::cell_name(Cell::new(0, c));
                format!("{:>2}", name.trim_end_matches('1'))
            })
            .collect();
        let mut out = format!("   {letters}\n");
        for (r, row) in self.pos.cells().iter().enumerate() {
            out.push_str(&format!("{:>2} {}", r + 1, " ".repeat(r)));
            for &v in row {
                let mark = match Seat::from_number(v) {
                    Some(s) => Color::of_seat(&self.pos, s).letter(),
                    None => ".",
                };
                out.push_str(&format!(" {mark}"));
            }
            out.push('\n');
        }
        out.push_str(&match self.to_move() {
            Some(c) => format!("{} to move", c.letter()),
            None => "game over".to_string(),
        });
        out
    }
}

/// A 1x1 position: only reached if `Position::new(11)` failed, which it cannot.
fn unreachable_position() -> Position {
    match Position::new(1) {
        Ok(p) => p,
        Err(_) => std::process::abort(),
    }
}

/// Serves GTP on `input`/`output` until `quit` or the end of the input.
pub fn run(
    mut engine: Engine,
    mut input: impl BufRead,
    mut output: impl Write,
) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(256);
    loop {
        buf.clear();
        let n = Read::take(&mut input, MAX_LINE_BYTES as u64 + 1).read_until(b'\n', &mut buf)?;
        if n == 0 {
            return Ok(());
        }
        if buf.len() > MAX_LINE_BYTES && buf.last() != Some(&b'\n') {
            // discard the rest of the long line
            let mut rest = Vec::new();
            loop {
                rest.clear();
                let m = Read::take(&mut input, 64 * 1024).read_until(b'\n', &mut rest)?;
                if m == 0 || rest.last() == Some(&b'\n') {
                    break;
                }
            }
            output.write_all(b"? line too long\n\n")?;
            output.flush()?;
            continue;
        }
        let line = String::from_utf8_lossy(&buf);
        if let Some((text, quit)) = engine.handle(&line) {
            output.write_all(text.as_bytes())?;
            output.flush()?;
            if quit {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use hex_search::ladder::LADDER;

    use super::*;

    fn answer(e: &mut Engine, line: &str) -> String {
        e.handle(line).map(|(t, _)| t).unwrap_or_default()
    }

    #[test]
    fn swap_pieces_keeps_the_stone_and_white_moves_again() {
        let mut e = Engine::new(Strategy::Random, None, 1);
        assert_eq!(answer(&mut e, "boardsize 3"), "=\n\n");
        assert_eq!(answer(&mut e, "play b c1"), "=\n\n");
        assert_eq!(answer(&mut e, "play w swap-pieces"), "=\n\n");
        assert_eq!(
            answer(&mut e, "play b a1"),
            "? illegal move: w is on move\n\n"
        );
        assert_eq!(answer(&mut e, "play w a1"), "=\n\n");
        assert_eq!(
            answer(&mut e, "showboard"),
            "= \n    a b c\n 1  W . B\n 2   . . .\n 3    . . .\nB to move\n\n"
        );
        assert_eq!(answer(&mut e, "9 undo"), "=9\n\n");
        assert_eq!(answer(&mut e, "undo"), "=\n\n");
        assert_eq!(answer(&mut e, "play w swap"), "=\n\n");
    }

    #[test]
    fn junk_gets_an_error_and_never_a_panic() {
        let mut e = Engine::new(Strategy::Strong, Some(50), 1);
        for line in [
            "play",
            "play x a1",
            "play b",
            "play b zz999",
            "play b a1 b2",
            "genmove",
            "genmove q",
            "boardsize",
            "boardsize 0",
            "boardsize 27",
            "boardsize 5 6",
            "boardsize -1",
            "time_left b -3",
            "time_left b NaN",
            "param budget 0",
            "param strategy best",
            "known_command",
            "7",
            "frobnicate",
            "undo",
            "play b pass",
        ] {
            let a = answer(&mut e, line);
            assert!(a.starts_with('?'), "{line:?} -> {a:?}");
            assert!(a.ends_with("\n\n"), "{line:?} -> {a:?}");
        }
        assert_eq!(e.handle("   # only a comment"), None);
        assert_eq!(answer(&mut e, "12 name # comment"), "=12 hexarena\n\n");
    }

    #[test]
    fn every_rung_is_a_strategy_and_the_old_names_still_work() {
        assert_eq!(Strategy::parse("random"), Some(Strategy::Random));
        assert_eq!(Strategy::parse("STRONG"), Some(Strategy::Strong));
        for rung in &LADDER {
            let s = Strategy::parse(rung.name).expect("a rung is a strategy");
            assert_eq!(s.name(), rung.name);
            assert_eq!(s, Strategy::Rung(rung));
        }
        assert_eq!(Strategy::parse("house-nobody"), None);
        assert!("house-grandmaster".parse::<Strategy>().is_err());
    }

    #[test]
    fn a_rung_thinks_from_time_left_or_the_fixed_time_per_move() {
        let master = hex_search::ladder::rung("house-master").expect("on the ladder");
        let mut e = Engine::new(Strategy::Rung(master), None, 1);
        // nothing told: the longest a house bot thinks
        assert_eq!(
            e.think_time_for(Color::Black, master),
            hex_search::ladder::MAX_THINK_MS
        );
        // 10 s left on an empty 11x11 board: the clock's share, as the house bots use it
        assert_eq!(answer(&mut e, "time_left b 10"), "=\n\n");
        assert_eq!(e.think_time_for(Color::Black, master), 237);
        assert_eq!(
            e.think_time_for(Color::White, master),
            hex_search::ladder::MAX_THINK_MS
        );
        answer(&mut e, "play b f6");
        answer(&mut e, "play w e5");
        // 119 empty cells: 39 moves expected out of 9.5 s usable
        assert_eq!(e.think_time_for(Color::Black, master), 243);
        // a fixed time per move wins over the clock
        assert_eq!(answer(&mut e, "param move_time_ms 40"), "=\n\n");
        assert_eq!(e.think_time_for(Color::Black, master), 40);
        assert_eq!(answer(&mut e, "param move_time_ms"), "= 40\n\n");
        let t = Instant::now();
        let mv = answer(&mut e, "genmove b");
        assert!(mv.starts_with("= "), "{mv}");
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
        assert!(answer(&mut e, "param move_time_ms 60001").starts_with('?'));
        assert_eq!(answer(&mut e, "param move_time_ms off"), "=\n\n");
        assert_eq!(answer(&mut e, "param move_time_ms"), "= off\n\n");
    }

    #[test]
    fn each_rung_answers_a_legal_move() {
        for rung in &LADDER {
            let mut e = Engine::new(Strategy::Random, None, 3).with_move_time_ms(Some(20));
            answer(&mut e, "boardsize 5");
            assert_eq!(
                answer(&mut e, &format!("param strategy {}", rung.name)),
                "=\n\n"
            );
            answer(&mut e, "play b c3");
            answer(&mut e, "play w b2");
            let mv = answer(&mut e, "genmove b");
            let cell = mv.trim_start_matches("= ").trim_end();
            let parsed = hex::parse_cell_name(cell).expect("a cell name");
            assert!(
                parsed != Cell::new(2, 2) && parsed != Cell::new(1, 1),
                "{cell}"
            );
            assert!(parsed.row < 5 && parsed.col < 5, "{cell}");
        }
    }

    #[test]
    fn the_analysing_genmove_reports_the_search_of_the_move_it_plays() {
        let mut e = Engine::new(Strategy::Strong, Some(300), 5);
        answer(&mut e, "boardsize 5");
        answer(&mut e, "play b c3");
        answer(&mut e, "play w b4");
        let text = answer(&mut e, "kata-genmove_analyze b 10");
        let (mv, report) =
            hex_gtp::parse_analyze(text.trim_start_matches('='), hex_gtp::AnalyzeCommand::Kata);
        let hex_gtp::Genmove::Move(mv) = mv else {
            panic!("no move in {text:?}");
        };
        assert_eq!(
            e.moves.last(),
            Some(&mv),
            "the move reported is the move played"
        );
        let r = report.expect("a searched move is reported");
        assert_eq!(r.visits, Some(300));
        let w = r.win_rate.expect("a win rate");
        assert!((0.0..=1.0).contains(&w), "{w}");
        assert_eq!(r.pv.first(), Some(&Engine::move_name(mv)));
        // The same seed plays the same move through plain genmove.
        let mut plain = Engine::new(Strategy::Strong, Some(300), 5);
        for line in ["boardsize 5", "play b c3", "play w b4"] {
            answer(&mut plain, line);
        }
        assert_eq!(
            answer(&mut plain, "genmove b"),
            format!("= {}\n\n", Engine::move_name(mv))
        );
        // A colour not on move is refused, as by genmove.
        assert!(answer(&mut e, "kata-genmove_analyze b").starts_with("? w is on move"));
    }

    #[test]
    fn param_search_names_the_tuning_and_refuses_an_unknown_one() {
        let mut e = Engine::new(Strategy::Strong, Some(50), 7);
        assert_eq!(e.param(&["search"]).text, "house");
        let r = e.param(&["search", "Knowledge"]);
        assert!(r.ok, "{}", r.text);
        assert_eq!(e.param(&["search"]).text, "knowledge");
        assert_eq!(e.search.1, Tuning::KNOWLEDGE);
        let r = e.param(&["search", "best"]);
        assert!(!r.ok);
        assert!(r.text.contains("house/plain"), "{}", r.text);
        assert_eq!(
            e.search.1,
            Tuning::KNOWLEDGE,
            "a refused value changes nothing"
        );
        assert!(
            Engine::new(Strategy::Strong, None, 1)
                .with_search("nope")
                .is_err()
        );
        let e = Engine::new(Strategy::Strong, None, 1)
            .with_search("learned")
            .expect("a named tuning");
        assert_eq!(e.search, ("learned", Tuning::LEARNED));
    }

    #[test]
    fn a_rung_searches_with_its_own_tuning_unless_search_names_another() {
        // House-master with a playout cap (so the cap, not the clock, ends each search) and
        // time for its Hex knowledge; the position of a game against MoHex 2.0 where only
        // H-search to closure sees White's threat.
        let moves = "b11 f2 c9 g5 d7 d6 f5 g3 i3 h4 f3 f4 j4 i6 h3 g4 c7 e4";
        let mut pos = hex::Position::new(11).expect("a legal size");
        for m in moves.split_whitespace() {
            let cell = hex::parse_cell_name(m).expect("a cell name");
            pos.play(Move::Place(cell)).expect("a legal move");
        }
        let master = hex_search::ladder::rung("house-master").expect("on the ladder");
        let genmove = |search: Option<&str>, seed: u64| {
            let mut e = Engine::new(Strategy::Rung(master), Some(5_000), seed);
            if let Some(name) = search {
                e = e.with_search(name).expect("a named tuning");
            }
            answer(&mut e, "param move_time_ms 10000");
            let mut colour = "b";
            for m in moves.split_whitespace() {
                assert_eq!(answer(&mut e, &format!("play {colour} {m}")), "=\n\n");
                colour = if colour == "b" { "w" } else { "b" };
            }
            answer(&mut e, "genmove b")
        };
        let tuned = |tuning: &Tuning, seed: u64| {
            let mut rng = Pcg64::seed_from_u64(seed);
            let limits = hex_search::Limits {
                max_playouts: 5_000,
                stop: &mut |_| false,
            };
            let mv = hex_search::strong_move_tuned(&pos, &mut rng, limits, tuning);
            format!("= {}\n\n", Engine::move_name(mv.expect("a move")))
        };
        let mut differ = 0;
        for seed in 0..4 {
            let default = genmove(None, seed);
            assert_eq!(default, tuned(&Tuning::CLOSURE_TREE, seed), "seed {seed}");
            let plain = genmove(Some("plain"), seed);
            assert_eq!(plain, tuned(&Tuning::PLAIN, seed), "seed {seed}");
            differ += usize::from(default != tuned(&Tuning::HOUSE, seed));
        }
        // The knowledge changes the play here (so the first check above is not Tuning::HOUSE's).
        assert!(differ > 0);
    }

    #[test]
    fn a_search_that_keeps_its_tree_goes_on_from_it_after_the_opponent_s_answer() {
        let master = hex_search::ladder::rung("house-master").expect("on the ladder");
        let engine = |search: &str| {
            let mut e = Engine::new(Strategy::Rung(master), Some(3_000), 11)
                .with_search(search)
                .expect("a named tuning");
            answer(&mut e, "boardsize 7");
            answer(&mut e, "play b d4");
            answer(&mut e, "play w c5");
            e
        };
        let mut e = engine("closure-kept");
        let (_, info) = e
            .choose_and_play("b")
            .ok()
            .flatten()
            .expect("a searched move");
        assert!(e.kept.nodes() > 1_000, "{}", e.kept.nodes());
        let empties_of = |pos: &hex_search::Position| -> Vec<u16> {
            (0..pos.board_slice().len())
                .filter(|&i| pos.board_slice()[i] == hex::EMPTY)
                .filter_map(|i| u16::try_from(i).ok())
                .collect()
        };
        // the move taken back: asked again, the search would go on from the whole tree
        let pv = info.expect("what the search knew").pv;
        let black = pv.first().copied().expect("the move");
        answer(&mut e, "undo");
        let whole = e
            .kept
            .visits_for(&e.pos, &Tuning::CLOSURE_KEPT, &empties_of(&e.pos));
        assert_eq!(whole, Some(e.kept.root_visits()));
        answer(&mut e, &format!("play b {}", Engine::move_name(black)));
        // White answers as the search expected: the next search starts from that subtree
        let white = pv.get(1).copied().expect("an expected answer");
        answer(&mut e, &format!("play w {}", Engine::move_name(white)));
        let empties = empties_of(&e.pos);
        let reused = e
            .kept
            .visits_for(&e.pos, &Tuning::CLOSURE_KEPT, &empties)
            .expect("the subtree of the expected answer");
        assert!(reused > 100.0, "{reused}");
        // the next search adds its playouts to those visits
        let (_, info) = e
            .choose_and_play("b")
            .ok()
            .flatten()
            .expect("a searched move");
        let playouts = info.expect("what the search knew").playouts;
        assert!(playouts > 0);
        assert_eq!(e.kept.root_visits(), reused + playouts as f32);
        // the house search keeps nothing
        let mut plain = engine("house");
        answer(&mut plain, "genmove b");
        assert_eq!(plain.kept.nodes(), 0);
    }

    #[test]
    fn genmove_plays_for_the_colour_on_move_and_resigns_when_over() {
        let mut e = Engine::new(Strategy::Strong, Some(50), 7);
        answer(&mut e, "boardsize 2");
        let first = answer(&mut e, "genmove b");
        assert!(first.starts_with("= "), "{first}");
        assert!(answer(&mut e, "genmove b").starts_with('?'));
        // play it out: both colours by genmove until someone connects
        for _ in 0..8 {
            for c in ["w", "b"] {
                answer(&mut e, &format!("genmove {c}"));
            }
        }
        assert!(answer(&mut e, "final_score").starts_with("= "));
        assert_eq!(answer(&mut e, "genmove w"), "= resign\n\n");
    }
}
