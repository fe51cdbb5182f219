//! Hex GTP (Go Text Protocol, Hex dialect) plumbing shared by the arena's outside house engines
//! (issue 23, `--house-engine NAME=COMMAND`) and the bot bridge `hexarena play --gtp` (issue 10).
//!
//! Conventions (as benzene, MoHex and HexGui use them): Black connects top and bottom (the
//! arena seat on top-bottom is Black, SPEC 14), cells are `a1` names with row 1 on top, and the
//! swap is `swap-pieces`: the stone stays, the players exchange colours, and White moves next.
//!
//! - [`split_command`]: an engine's command line split like a shell would, without expansions.
//! - [`plays_of`]: a game (opening stones, then moves) as the `play` commands that rebuild it.
//! - [`parse_genmove`]: what a `genmove` answer says (a cell, the swap, `resign`, ...).
//! - [`AnalyzeCommand`] and [`parse_analyze`]: the analysing genmove some engines offer
//!   (`kata-genmove_analyze`, `lz-genmove_analyze`) and what it says of the move (issue 21).
//! - [`parse_response`]: one answer's lines (`= text` / `? text`) as success or refusal.
//! - [`Engine`]: a blocking driver of an engine process on `std::process` (no async runtime),
//!   every command with a time limit.

mod driver;

pub use driver::{Engine, Failure};

use hex::sgf::color_of_move;
use hex::{Cell, Color, Move};

/// Longest answer line read from an engine, in bytes (longer lines are cut there).
pub const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// Splits a command line into words: whitespace separates, single or double quotes group, a
/// backslash outside single quotes escapes the next character. `None` for an unclosed quote or
/// an empty command.
#[must_use]
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

/// The GTP plays that describe a game so far: the opening stones alternately from Black, then
/// each move with the colour of the player who made it (a swap as `swap-pieces`).
#[must_use]
pub fn plays_of(opening: &[Cell], moves: &[Move]) -> Vec<(Color, String)> {
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
        out.push((color, move_name(*mv)));
        if *mv == Move::Swap {
            swapped = true;
        }
    }
    out
}

/// A move's GTP name: the cell's `a1` name, or `swap-pieces`.
#[must_use]
pub fn move_name(mv: Move) -> String {
    match mv {
        Move::Place(c) => hex::cell_name(c),
        Move::Swap => "swap-pieces".into(),
    }
}

/// The GTP letter of a colour (`b` or `w`).
#[must_use]
pub fn letter(c: Color) -> &'static str {
    match c {
        Color::Black => "b",
        Color::White => "w",
    }
}

/// What a `genmove` answer says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Genmove {
    /// A cell or the swap (not yet checked against the position).
    Move(Move),
    /// `resign`.
    Resign,
    /// `pass` (Hex has none).
    Pass,
    /// Anything else (the text, trimmed).
    Unparsable(String),
}

/// Reads a `genmove` answer (any case): a cell name, `swap-pieces` or `swap`, `resign`, `pass`.
#[must_use]
pub fn parse_genmove(answer: &str) -> Genmove {
    let word = answer.trim().to_ascii_lowercase();
    match word.as_str() {
        "resign" => Genmove::Resign,
        "pass" => Genmove::Pass,
        "swap-pieces" | "swap" => Genmove::Move(Move::Swap),
        other => hex::parse_cell_name(other).map_or_else(
            || Genmove::Unparsable(answer.trim().into()),
            |c| Genmove::Move(Move::Place(c)),
        ),
    }
}

/// The analysing genmove an engine may offer besides `genmove`: it plays the same move and
/// reports its search as `info move M visits N winrate W ... pv M ...` lines before a closing
/// `play M` line. KataGo-style engines (KataHex among them) give the win rate as 0..1, Leela
/// Zero-style ones in ten-thousandths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnalyzeCommand {
    /// `kata-genmove_analyze`: win rate 0..1.
    Kata,
    /// `lz-genmove_analyze`: win rate 0..10000.
    Lz,
}

impl AnalyzeCommand {
    /// The one an engine offers, from its `list_commands` answer (one command per line);
    /// `kata-` preferred, its win rate being the finer.
    #[must_use]
    pub fn offered(list_commands: &str) -> Option<AnalyzeCommand> {
        let has = |name: &str| list_commands.lines().any(|l| l.trim() == name);
        if has("kata-genmove_analyze") {
            Some(AnalyzeCommand::Kata)
        } else if has("lz-genmove_analyze") {
            Some(AnalyzeCommand::Lz)
        } else {
            None
        }
    }

    /// The command line for `color`, asking for a report every `interval_cs` centiseconds (the
    /// last report before `play` is the one read).
    #[must_use]
    pub fn line(self, color: Color, interval_cs: u32) -> String {
        let name = match self {
            AnalyzeCommand::Kata => "kata-genmove_analyze",
            AnalyzeCommand::Lz => "lz-genmove_analyze",
        };
        format!("{name} {} {interval_cs}", letter(color))
    }

    fn win_rate_scale(self) -> f64 {
        match self {
            AnalyzeCommand::Kata => 1.0,
            AnalyzeCommand::Lz => 10_000.0,
        }
    }
}

/// What an engine reported of the move it played, from its last `info` line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineReport {
    /// The mover's win rate, 0..=1 (None when missing or not a number).
    pub win_rate: Option<f64>,
    /// Visits (nodes) of the move.
    pub visits: Option<u64>,
    /// The expected line, the move first: the leading `a1` names (or `swap-pieces`) of its
    /// `pv`, lower-cased.
    pub pv: Vec<String>,
}

/// Reads an analysing genmove's answer ([`AnalyzeCommand`]): the move from its last `play`
/// line (as [`parse_genmove`] reads it; [`Genmove::Unparsable`] with the whole answer when
/// there is none), and the report of that move from the last `info` line (the candidate
/// whose `move` is the one played, else the first), None when there is no such line.
#[must_use]
pub fn parse_analyze(answer: &str, command: AnalyzeCommand) -> (Genmove, Option<EngineReport>) {
    let lines: Vec<&str> = answer.lines().map(str::trim).collect();
    let Some(played) = lines.iter().rev().find_map(|l| l.strip_prefix("play ")) else {
        return (Genmove::Unparsable(answer.trim().into()), None);
    };
    let genmove = parse_genmove(played);
    let played = played.trim().to_ascii_lowercase();
    let Some(info) = lines.iter().rev().find(|l| l.starts_with("info ")) else {
        return (genmove, None);
    };
    // One line holds every candidate, each opened by the word `info`.
    let mut candidates: Vec<Vec<&str>> = Vec::new();
    for word in info.split_whitespace() {
        match candidates.last_mut() {
            Some(c) if word != "info" => c.push(word),
            _ => candidates.push(Vec::new()),
        }
    }
    let value = |c: &[&str], key: &str| {
        c.windows(2)
            .find(|w| w[0] == key)
            .map(|w| w[1].to_ascii_lowercase())
    };
    let chosen = candidates
        .iter()
        .find(|c| value(c, "move").as_deref() == Some(played.as_str()))
        .or_else(|| candidates.first());
    let Some(c) = chosen else {
        return (genmove, None);
    };
    let win_rate = value(c, "winrate")
        .and_then(|w| w.parse::<f64>().ok())
        .map(|w| w / command.win_rate_scale())
        .filter(|w| w.is_finite())
        .map(|w| w.clamp(0.0, 1.0));
    let visits = value(c, "visits").and_then(|v| v.parse::<u64>().ok());
    let pv = c
        .iter()
        .position(|w| *w == "pv")
        .map(|at| {
            c[at + 1..]
                .iter()
                .map(|w| w.to_ascii_lowercase())
                .take_while(|w| {
                    w == "swap-pieces" || w == "swap" || hex::parse_cell_name(w).is_some()
                })
                .collect()
        })
        .unwrap_or_default();
    (
        genmove,
        Some(EngineReport {
            win_rate,
            visits,
            pv,
        }),
    )
}

/// One answer: `Ok(text)` for `= text`, `Err(text)` for `? text` (an id after the mark dropped,
/// later lines joined with `\n`).
pub type Response = Result<String, String>;

/// Reads one answer from its non-blank lines (the blank line that ends it not included).
///
/// # Errors
/// No lines, or a first line that starts with neither `=` nor `?` (the text, for the log).
pub fn parse_response(lines: &[String]) -> Result<Response, String> {
    let Some(first) = lines.first() else {
        return Err("an empty answer".into());
    };
    let ok = first.starts_with('=');
    if !ok && !first.starts_with('?') {
        return Err(format!("not a GTP answer: {first:?}"));
    }
    let head = first[1..].trim_start_matches(|c: char| c.is_ascii_digit());
    let mut body = head.trim().to_string();
    for l in &lines[1..] {
        body.push('\n');
        body.push_str(l);
    }
    Ok(if ok { Ok(body) } else { Err(body) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_analysing_genmove_is_offered_kata_first() {
        assert_eq!(
            AnalyzeCommand::offered("genmove\nlz-genmove_analyze\nkata-genmove_analyze"),
            Some(AnalyzeCommand::Kata)
        );
        assert_eq!(
            AnalyzeCommand::offered("genmove\n lz-genmove_analyze \n"),
            Some(AnalyzeCommand::Lz)
        );
        assert_eq!(AnalyzeCommand::offered("genmove\nkata-analyze"), None);
        assert_eq!(
            AnalyzeCommand::Kata.line(Color::White, 10),
            "kata-genmove_analyze w 10"
        );
    }

    #[test]
    fn an_analysing_answer_gives_the_played_moves_report() {
        // Two reports; the last one counts, and in it the candidate that was played.
        let answer = "info move c3 visits 4 winrate 0.4 pv c3 d4\n\
            info move D4 visits 90 winrate 0.625 prior 0.2 order 1 pv D4 c5 SWAP-PIECES e6 pvVisits 90 40 \
            info move c3 visits 80 winrate 0.6 order 0 pv c3\n\
            play D4";
        let (mv, report) = parse_analyze(answer, AnalyzeCommand::Kata);
        assert_eq!(
            mv,
            Genmove::Move(Move::Place(hex::parse_cell_name("d4").expect("a cell")))
        );
        let r = report.expect("a report");
        assert_eq!(r.win_rate, Some(0.625));
        assert_eq!(r.visits, Some(90));
        assert_eq!(r.pv, ["d4", "c5", "swap-pieces", "e6"]);
        // Leela Zero's scale; a candidate list without the played move: the first one.
        let (_, lz) = parse_analyze(
            "info move a1 visits 7 winrate 5123 pv a1 b2\nplay e5",
            AnalyzeCommand::Lz,
        );
        let lz = lz.expect("a report");
        assert_eq!(lz.win_rate, Some(0.5123));
        assert_eq!(lz.pv, ["a1", "b2"]);
    }

    #[test]
    fn an_analysing_answer_without_play_or_info_says_so() {
        assert_eq!(
            parse_analyze("info move a1 visits 3", AnalyzeCommand::Kata),
            (Genmove::Unparsable("info move a1 visits 3".into()), None)
        );
        assert_eq!(
            parse_analyze("play resign", AnalyzeCommand::Kata),
            (Genmove::Resign, None)
        );
        // A win rate out of range is clamped; one that is not a number is left out.
        let (_, r) = parse_analyze("info move a1 winrate 1.7\nplay a1", AnalyzeCommand::Kata);
        assert_eq!(r.and_then(|r| r.win_rate), Some(1.0));
        let (_, r) = parse_analyze("info move a1 winrate nan\nplay a1", AnalyzeCommand::Kata);
        assert_eq!(r.and_then(|r| r.win_rate), None);
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

    #[test]
    fn genmove_answers_are_read_in_any_case() {
        assert_eq!(
            parse_genmove(" E3\n"),
            Genmove::Move(Move::Place(Cell::new(2, 4)))
        );
        assert_eq!(parse_genmove("swap-pieces"), Genmove::Move(Move::Swap));
        assert_eq!(parse_genmove("SWAP"), Genmove::Move(Move::Swap));
        assert_eq!(parse_genmove("Resign"), Genmove::Resign);
        assert_eq!(parse_genmove("pass"), Genmove::Pass);
        assert_eq!(
            parse_genmove("zz99 now"),
            Genmove::Unparsable("zz99 now".into())
        );
    }

    #[test]
    fn answers_keep_their_text_and_lose_their_id() {
        let lines = |v: &[&str]| v.iter().map(|s| (*s).to_string()).collect::<Vec<_>>();
        assert_eq!(parse_response(&lines(&["= e5"])), Ok(Ok("e5".into())));
        assert_eq!(parse_response(&lines(&["=12 e5"])), Ok(Ok("e5".into())));
        assert_eq!(
            parse_response(&lines(&["? unknown command"])),
            Ok(Err("unknown command".into()))
        );
        assert_eq!(
            parse_response(&lines(&["= play", "genmove"])),
            Ok(Ok("play\ngenmove".into()))
        );
        assert!(parse_response(&lines(&["hello"])).is_err());
        assert!(parse_response(&[]).is_err());
    }
}
