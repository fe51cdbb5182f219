//! A referee for Hex GTP engines: plays engine A against engine B on an N x N board and
//! reports the score and an Elo difference with a 95% interval (issue 11).
//!
//! ```text
//! cargo run --release --example gtp_referee -- \
//!     --a "target/release/hexarena gtp --strategy house-master --seed 1" \
//!     --b "target/release/hexarena gtp --strategy house-bridge --seed 2" \
//!     --size 11 --pairs 20 --move-ms 300
//! ```
//!
//! - Games come in pairs from one shared random opening of one black and one white stone
//!   (played as ordinary moves, so no swap is possible), colours swapped between the two games
//!   of a pair, which cancels most of the first mover's edge and of the opening's luck.
//! - The fixed time per move is sent with the command each engine understands, chosen from its
//!   `name` answer: ours gets `param move_time_ms MS`; MoHex (benzene) gets
//!   `param_mohex max_time S` with `use_time_management 0` and a `max_games` high enough that
//!   the time is what stops it. `--a-cmd` / `--b-cmd` send any further setup commands.
//! - Every move is checked with the `hex` crate; an illegal or unreadable move, an error answer,
//!   `resign`, or no answer within `--timeout-ms` loses the game. The referee sees the
//!   connection itself and ends the game there (engines are never asked who won).
//! - The Elo difference is the logistic one, `400 log10(s / (1 - s))` of A's score fraction
//!   `s` (draws count a half); its 95% interval maps the Wilson score interval of `s` through
//!   the same formula. The interval treats games as independent (the two games of a pair share
//!   an opening, which if anything narrows the true spread).
//!
//! The last line printed is machine-readable: `RESULT a=... b=... games=... a_wins=...`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use clap::Parser;
use hex::{Cell, Color, Move, Position};
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64;

#[derive(Parser, Debug)]
#[command(about = "Plays two Hex GTP engines against each other and reports W/L and Elo")]
struct Args {
    /// Command line of engine A (split on whitespace; no shell quoting).
    #[arg(long)]
    a: String,
    /// Command line of engine B.
    #[arg(long)]
    b: String,
    /// A's name in the report (default: its GTP `name`).
    #[arg(long)]
    a_name: Option<String>,
    /// B's name in the report.
    #[arg(long)]
    b_name: Option<String>,
    /// Board side.
    #[arg(long, default_value_t = 11)]
    size: u8,
    /// Pairs of games (each opening is played twice, colours swapped).
    #[arg(long, default_value_t = 10)]
    pairs: u32,
    /// Fixed thinking time per move in ms sent to both engines (0: send none, let `--a-cmd`
    /// and `--b-cmd` set their limits).
    #[arg(long, default_value_t = 500)]
    move_ms: u64,
    /// A move not answered within this many ms loses the game (default: 10 x move-ms + 10 s,
    /// or 120 s when move-ms is 0).
    #[arg(long)]
    timeout_ms: Option<u64>,
    /// Seed of the openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Extra GTP commands for A after the time setting (repeatable), e.g.
    /// `--a-cmd "param_mohex num_threads 1"`.
    #[arg(long)]
    a_cmd: Vec<String>,
    /// Extra GTP commands for B (repeatable).
    #[arg(long)]
    b_cmd: Vec<String>,
    /// Print every game's moves.
    #[arg(long)]
    verbose: bool,
    /// Equal time by measurement: before each of A's moves, set A's fixed time per move
    /// (`param move_time_ms`, so A must be `hexarena gtp`) to B's average so far over its
    /// searched moves (see `--searched-ms`), minus A's own average overshoot. For opponents
    /// whose time setting is only nominal (MoHex searches at least 1 s after its pre-search,
    /// and builds its knowledge outside the timer).
    #[arg(long)]
    a_follows_b: bool,
    /// With `--a-follows-b`: B's moves answered faster than this many ms are not searched
    /// moves (MoHex plays at once in a position it has proven) and are left out of the
    /// average A follows; without them it was about half B's searched time in issue 23's
    /// match (stop 34). Default: half of `--move-ms`.
    #[arg(long)]
    searched_ms: Option<u64>,
    /// Append the engines' stderr to DIR/a.log and DIR/b.log (default: discarded).
    #[arg(long)]
    log_dir: Option<std::path::PathBuf>,
}

/// One running engine: its process, its stdin, and a channel of its stdout lines.
struct Engine {
    name: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// Total thinking time (genmove round trips) and moves, for the report.
    think: Duration,
    moves: u32,
    slowest: Duration,
    /// The id of the last command sent (answers carry it, so a late answer to an abandoned
    /// command is recognised and skipped).
    last_id: u32,
    /// The fixed times per move asked of this engine by `--a-follows-b`, added up, in ms.
    asked_ms: u128,
    /// The moves that took at least `--searched-ms`, and their time, for `--a-follows-b`.
    searched: Duration,
    searched_moves: u32,
}

impl Engine {
    fn spawn(command: &str, log: Option<&std::path::Path>) -> Result<Engine, String> {
        let mut words = command.split_whitespace();
        let program = words.next().ok_or("empty engine command")?;
        let stderr = match log {
            None => Stdio::null(),
            Some(path) => std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map(Stdio::from)
                .map_err(|e| format!("cannot open {}: {e}", path.display()))?,
        };
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .map_err(|e| format!("cannot start {command:?}: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Engine {
            name: String::new(),
            child,
            stdin,
            lines: rx,
            think: Duration::ZERO,
            moves: 0,
            searched: Duration::ZERO,
            searched_moves: 0,
            slowest: Duration::ZERO,
            last_id: 0,
            asked_ms: 0,
        })
    }

    /// Sends one command (with a fresh id) and waits up to `timeout` for its answer:
    /// `Ok(text)` after `=`, `Err(text)` after `?`, on a timeout or when the engine is gone.
    /// Answers to earlier commands (a move that came too late) are skipped.
    fn ask(&mut self, command: &str, timeout: Duration) -> Result<String, String> {
        self.last_id += 1;
        let id = self.last_id;
        writeln!(self.stdin, "{id} {command}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("{}: cannot send {command:?}: {e}", self.name))?;
        let deadline = Instant::now() + timeout;
        let mut answer: Vec<String> = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let line = line.trim_end_matches('\r').to_string();
                    if !line.is_empty() {
                        answer.push(line);
                        continue;
                    }
                    if answer.is_empty() {
                        continue; // stray blank line before an answer
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("{}: no answer to {command:?} in time", self.name));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!("{}: gone during {command:?}", self.name));
                }
            }
            let text = answer.join("\n");
            // the status character, then the id
            let (status, rest) = text.split_at(text.chars().next().map_or(0, char::len_utf8));
            let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let (got, rest) = rest.split_at(digits);
            if got != id.to_string() {
                answer.clear(); // a late answer to an abandoned command
                continue;
            }
            return self.status(status, rest.trim(), command);
        }
    }

    fn status(&self, status: &str, rest: &str, command: &str) -> Result<String, String> {
        match status {
            "=" => Ok(rest.to_string()),
            _ => Err(format!("{}: {command:?} refused: {rest}", self.name)),
        }
    }

    /// Whether the process has ended.
    fn gone(&mut self) -> bool {
        std::thread::sleep(Duration::from_millis(100));
        !matches!(self.child.try_wait(), Ok(None))
    }

    fn quit(mut self) {
        let _ = self.ask("quit", Duration::from_secs(2));
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A's fixed time for its next move under `--a-follows-b`, ms (at least 1): B's average over
/// its searched moves (over all its moves while it has none), less what A took beyond what it
/// was asked, on average (process and pipe overhead). `b` has played at least one move.
fn follow_ms(a: &Engine, b: &Engine) -> u128 {
    follow_ms_of(
        (a.think, a.moves, a.asked_ms),
        (b.think, b.moves),
        (b.searched, b.searched_moves),
    )
}

/// [`follow_ms`] on the figures alone: A's (time, moves, ms asked), B's (time, moves) and B's
/// searched (time, moves).
fn follow_ms_of(
    (a_think, a_moves, a_asked_ms): (Duration, u32, u128),
    (b_think, b_moves): (Duration, u32),
    (b_searched, b_searched_moves): (Duration, u32),
) -> u128 {
    let (time, moves) = if b_searched_moves > 0 {
        (b_searched, b_searched_moves)
    } else {
        (b_think, b_moves)
    };
    let target_ms = time.as_millis() / u128::from(moves.max(1));
    let over_ms = a_asked_ms
        .checked_div(u128::from(a_moves))
        .map_or(0, |asked| {
            (a_think.as_millis() / u128::from(a_moves)).saturating_sub(asked)
        });
    target_ms.saturating_sub(over_ms).max(1)
}

/// The commands that give `engine_name` a fixed time of `move_ms` per move.
fn time_commands(engine_name: &str, move_ms: u64) -> Vec<String> {
    let name = engine_name.to_ascii_lowercase();
    if name.contains("hexarena") {
        vec![format!("param move_time_ms {move_ms}")]
    } else if name.contains("mohex") {
        vec![
            "param_mohex use_time_management 0".into(),
            format!("param_mohex max_time {:.3}", move_ms as f64 / 1000.0),
            "param_mohex max_games 100000000".into(),
        ]
    } else {
        eprintln!("warning: {engine_name:?} is neither hexarena nor MoHex: no time command sent");
        Vec::new()
    }
}

/// How a game ended, from A's side.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Result3 {
    AWins,
    BWins,
    Draw,
    /// An engine's process ended (index 0 = A): no result; it is started again.
    Crash(usize),
}

/// Plays one game: `black` is 0 (A) or 1 (B). Returns the result and a line describing it.
fn play_game(
    engines: &mut [Engine; 2],
    black: usize,
    size: u8,
    opening: [Cell; 2],
    timeout: Duration,
    (verbose, a_follows_b): (bool, bool),
    searched_ms: u64,
) -> Result<(Result3, String), String> {
    let quick = Duration::from_secs(30);
    let mut pos = Position::new(size).map_err(|e| e.to_string())?;
    let mut record: Vec<String> = Vec::new();
    let mut setup = vec![format!("boardsize {size}"), "clear_board".into()];
    for (colour, cell) in [("b", opening[0]), ("w", opening[1])] {
        pos.play(Move::Place(cell)).map_err(|e| e.to_string())?;
        let name = hex::cell_name(cell);
        setup.push(format!("play {colour} {name}"));
        record.push(name);
    }
    for (k, e) in engines.iter_mut().enumerate() {
        for command in &setup {
            if let Err(why) = e.ask(command, quick) {
                if e.gone() {
                    return Ok((Result3::Crash(k), why));
                }
                return Err(why);
            }
        }
    }
    let winner_is = |engine: usize| {
        if engine == 0 {
            Result3::AWins
        } else {
            Result3::BWins
        }
    };
    loop {
        let Some(seat) = pos.to_move() else {
            // the move cap: a draw
            return Ok((
                Result3::Draw,
                format!("draw at the move cap: {}", record.join(" ")),
            ));
        };
        let colour = Color::of_seat(&pos, seat);
        let (letter, mover) = match colour {
            Color::Black => ("b", black),
            Color::White => ("w", 1 - black),
        };
        let other = 1 - mover;
        if mover == 0 && a_follows_b && engines[1].moves > 0 {
            let ms = follow_ms(&engines[0], &engines[1]);
            engines[0].ask(&format!("param move_time_ms {ms}"), quick)?;
            engines[0].asked_ms += ms;
        }
        let started = Instant::now();
        let answer = engines[mover].ask(&format!("genmove {letter}"), timeout);
        let took = started.elapsed();
        let e = &mut engines[mover];
        e.think += took;
        e.moves += 1;
        e.slowest = e.slowest.max(took);
        if took >= Duration::from_millis(searched_ms) {
            e.searched += took;
            e.searched_moves += 1;
        }
        let text = match answer {
            Ok(t) => t.to_ascii_lowercase(),
            Err(why) if engines[mover].gone() => return Ok((Result3::Crash(mover), why)),
            Err(why) => return Ok((winner_is(other), format!("{why}: loses"))),
        };
        if text == "resign" {
            let line = format!("{} resigns after {}", engines[mover].name, record.join(" "));
            return Ok((winner_is(other), line));
        }
        let mv = match text.as_str() {
            "swap-pieces" | "swap" => Some(Move::Swap),
            name => hex::parse_cell_name(name).map(Move::Place),
        };
        let Some(mv) = mv else {
            let line = format!("{} answered {text:?}: loses", engines[mover].name);
            return Ok((winner_is(other), line));
        };
        let outcome = match pos.play(mv) {
            Ok(o) => o,
            Err(why) => {
                let line = format!("{} played {text} ({why}): loses", engines[mover].name);
                return Ok((winner_is(other), line));
            }
        };
        record.push(text.clone());
        if verbose {
            eprintln!(
                "  {} {letter} {text} ({} ms)",
                engines[mover].name,
                took.as_millis()
            );
        }
        if let Some(outcome) = outcome {
            let line = match outcome.winner() {
                Some(s) if s == seat => format!(
                    "{} ({}) connects in {} moves: {}",
                    engines[mover].name,
                    colour.letter(),
                    record.len(),
                    record.join(" ")
                ),
                _ => format!("unexpected end: {}", record.join(" ")),
            };
            let result = match outcome.winner() {
                Some(s) if s == seat => winner_is(mover),
                Some(_) => winner_is(other),
                None => Result3::Draw,
            };
            return Ok((result, line));
        }
        if let Err(why) = engines[other].ask(&format!("play {letter} {text}"), quick) {
            if engines[other].gone() {
                return Ok((Result3::Crash(other), why));
            }
            let line = format!("{why} (a legal move): loses");
            return Ok((winner_is(mover), line));
        }
    }
}

/// The logistic Elo difference of a score fraction (infinite at 0 and 1).
fn elo(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        400.0 * (score / (1.0 - score)).log10()
    }
}

/// The 95% Wilson score interval of a proportion `p` over `n` trials.
fn wilson(p: f64, n: f64) -> (f64, f64) {
    let z = 1.959_964;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Starts engine `k` (0 = A) and sends its setup: the time commands and the extra ones.
fn start(args: &Args, k: usize) -> Result<Engine, String> {
    let (command, name, extra, file) = match k {
        0 => (&args.a, &args.a_name, &args.a_cmd, "a.log"),
        _ => (&args.b, &args.b_name, &args.b_cmd, "b.log"),
    };
    let log = args.log_dir.as_ref().map(|d| d.join(file));
    let mut e = Engine::spawn(command, log.as_deref())?;
    e.name = "engine".into();
    let gtp_name = e.ask("name", Duration::from_secs(60))?;
    e.name = name.clone().unwrap_or_else(|| gtp_name.clone());
    let mut setup = Vec::new();
    if args.move_ms > 0 {
        setup.extend(time_commands(&gtp_name, args.move_ms));
    }
    setup.extend(extra.iter().cloned());
    for command in setup {
        e.ask(&command, Duration::from_secs(30))?;
    }
    Ok(e)
}

fn main() -> Result<(), String> {
    let args = Args::parse();
    if !(2..=hex::MAX_SIZE).contains(&args.size) {
        return Err(format!("size must be 2..={}", hex::MAX_SIZE));
    }
    let timeout = Duration::from_millis(args.timeout_ms.unwrap_or(match args.move_ms {
        0 => 120_000,
        ms => ms.saturating_mul(10).saturating_add(10_000),
    }));
    let mut engines = [start(&args, 0)?, start(&args, 1)?];
    if engines[0].name == engines[1].name {
        engines[0].name.push_str("(A)");
        engines[1].name.push_str("(B)");
    }
    let mut crashes = 0u32;

    let mut rng = Pcg64::seed_from_u64(args.seed);
    let cells = u32::from(args.size) * u32::from(args.size);
    let cell = |k: u32| {
        Cell::new(
            (k / u32::from(args.size)) as u8,
            (k % u32::from(args.size)) as u8,
        )
    };
    let (mut a_wins, mut b_wins, mut draws) = (0u32, 0u32, 0u32);
    let mut a_black_wins = 0u32;
    let per_move = |e: &Engine| e.think.as_secs_f64() * 1000.0 / f64::from(e.moves.max(1));
    for pair in 0..args.pairs {
        let first = (rng.next_u64() % u64::from(cells)) as u32;
        let mut second = (rng.next_u64() % u64::from(cells - 1)) as u32;
        if second >= first {
            second += 1;
        }
        let opening = [cell(first), cell(second)];
        for black in [0usize, 1] {
            let (result, line) = play_game(
                &mut engines,
                black,
                args.size,
                opening,
                timeout,
                (args.verbose, args.a_follows_b),
                args.searched_ms.unwrap_or(args.move_ms / 2),
            )?;
            match result {
                Result3::AWins => {
                    a_wins += 1;
                    if black == 0 {
                        a_black_wins += 1;
                    }
                }
                Result3::BWins => b_wins += 1,
                Result3::Draw => draws += 1,
                Result3::Crash(k) => {
                    // no result; the crashed engine starts again with its setup, keeping its
                    // name and its time statistics
                    crashes += 1;
                    let mut fresh = start(&args, k)?;
                    let old = &engines[k];
                    fresh.name.clone_from(&old.name);
                    (fresh.think, fresh.moves, fresh.slowest) = (old.think, old.moves, old.slowest);
                    (fresh.searched, fresh.searched_moves) = (old.searched, old.searched_moves);
                    fresh.asked_ms = old.asked_ms;
                    let old = std::mem::replace(&mut engines[k], fresh);
                    old.quit();
                }
            }
            let game = pair * 2 + black as u32 + 1;
            println!(
                "game {game}: {} black, opening {} {}: {line}  [{}-{}-{}; {:.0} / {:.0} ms a move]",
                engines[black].name,
                hex::cell_name(opening[0]),
                hex::cell_name(opening[1]),
                a_wins,
                b_wins,
                draws,
                per_move(&engines[0]),
                per_move(&engines[1]),
            );
        }
    }
    let games = a_wins + b_wins + draws;
    let n = f64::from(games.max(1));
    let score = (f64::from(a_wins) + f64::from(draws) / 2.0) / n;
    let (lo, hi) = wilson(score, n);
    for e in &engines {
        println!(
            "{}: {} moves, {:.0} ms a move on average (genmove round trip), slowest {} ms; \
             {} searched moves (at least --searched-ms), {:.0} ms a move on average",
            e.name,
            e.moves,
            per_move(e),
            e.slowest.as_millis(),
            e.searched_moves,
            e.searched.as_secs_f64() * 1000.0 / f64::from(e.searched_moves.max(1)),
        );
    }
    println!(
        "{} vs {}: {a_wins} wins, {b_wins} losses, {draws} draws in {games} games \
         ({a_black_wins} of A's wins as black; {crashes} more games without a result, an \
         engine crashed); score {:.3}, 95% Wilson interval {:.3}..{:.3}",
        engines[0].name, engines[1].name, score, lo, hi
    );
    println!(
        "Elo difference (A - B, logistic): {:+.0}, 95% interval {:+.0}..{:+.0}",
        elo(score),
        elo(lo),
        elo(hi)
    );
    println!(
        "RESULT a={} b={} games={games} a_wins={a_wins} b_wins={b_wins} draws={draws} \
         crashes={crashes} score={score:.4} elo={:.1} elo_lo={:.1} elo_hi={:.1} a_ms={:.0} b_ms={:.0}",
        engines[0].name.replace(' ', "_"),
        engines[1].name.replace(' ', "_"),
        elo(score),
        elo(lo),
        elo(hi),
        per_move(&engines[0]),
        per_move(&engines[1])
    );
    let [a, b] = engines;
    a.quit();
    b.quit();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn a_follows_the_searched_moves_of_b_less_its_own_overshoot() {
        // B: 10 moves in 12 s, of which 6 searched in 11.4 s (1.9 s each) and 4 instant.
        let b_all = (MS(12_000), 10);
        let b_searched = (MS(11_400), 6);
        // A so far: 5 moves asked 1,000 ms each, taking 1,040 on average.
        let a = (MS(5_200), 5, 5_000);
        assert_eq!(follow_ms_of(a, b_all, b_searched), 1_900 - 40);
        // Before A's first move: no overshoot known.
        assert_eq!(follow_ms_of((MS(0), 0, 0), b_all, b_searched), 1_900);
        // B with no searched move yet: its average over all moves (1.2 s).
        assert_eq!(follow_ms_of(a, b_all, (MS(0), 0)), 1_200 - 40);
        // A faster than asked: no credit; an overshoot past the target: 1 ms, never 0.
        assert_eq!(
            follow_ms_of((MS(4_000), 5, 5_000), b_all, b_searched),
            1_900
        );
        assert_eq!(follow_ms_of((MS(20_000), 5, 5), b_all, b_searched), 1);
    }
}
