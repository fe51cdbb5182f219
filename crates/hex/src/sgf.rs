//! SGF for Hex as HexGui, benzene's twogtp and other Hex tools write and read it (SPEC 9b).
//!
//! The conventions, checked against the public HexGui and benzene sources:
//! - root: `FF[4]GM[11]SZ[n]`, players `PB`/`PW`, result `RE[B+...]`/`RE[W+...]` by the colour
//!   of the winner at the end, opening stones as setup `AB[..]AW[..]` with `PL[B]`;
//! - one move per node, `;B[e3]`, cells named column letter then row from 1 (row 1 on top);
//! - Black connects top and bottom and moves first;
//! - the swap is `swap-pieces` (`swap` is read too) by White on the second move: the stone stays
//!   where it is and stays black, the players exchange colours, and the next move is White's
//!   again (played by the player who opened). In our seats: seat 1 opens as Black; after a swap
//!   seat 2 owns the stone and connects top-bottom, so seat 2 is Black and seat 1 White.
//!
//! [`write`] turns a [`SgfRecord`] into text; [`parse`] reads the main line of such a file back,
//! checking that each move is by the colour HexGui expects.

use std::fmt;

use crate::{Axis, Cell, Move, PlayError, Position, Seat, SetupError, cell_name, parse_cell_name};

/// A player's colour in Hex tools (SGF, GTP): Black connects top-bottom and moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// Top-bottom, moves first.
    Black,
    /// Left-right.
    White,
}

impl Color {
    /// The other colour.
    pub const fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// `"B"` or `"W"` (SGF property names, GTP answers use lowercase).
    pub const fn letter(self) -> &'static str {
        match self {
            Color::Black => "B",
            Color::White => "W",
        }
    }

    /// The colour of a seat in `pos` right now: Black for the seat connecting top-bottom.
    pub fn of_seat(pos: &Position, seat: Seat) -> Color {
        Color::of_axis(pos.axis(seat))
    }

    /// Black for top-bottom, White for left-right.
    pub const fn of_axis(axis: Axis) -> Color {
        match axis {
            Axis::TopBottom => Color::Black,
            Axis::LeftRight => Color::White,
        }
    }

    /// Reads `b`, `w`, `black`, `white` in any case (GTP colour arguments, SGF `PL`).
    pub fn parse(text: &str) -> Option<Color> {
        match text.to_ascii_lowercase().as_str() {
            "b" | "black" => Some(Color::Black),
            "w" | "white" => Some(Color::White),
            _ => None,
        }
    }
}

/// The colour that plays move number `ply` (0-based) of a game, given whether a swap was
/// played before it: seat 1 is Black until a swap, then White.
pub fn color_of_move(ply: usize, swapped_before: bool) -> Color {
    let seat_one = ply.is_multiple_of(2);
    if seat_one != swapped_before {
        Color::Black
    } else {
        Color::White
    }
}

/// One game as an SGF file carries it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SgfRecord {
    /// Board side, 1..=26.
    pub size: u8,
    /// Opening stones in placement order (even indices Black / seat 1, odd White / seat 2).
    pub opening: Vec<Cell>,
    /// The moves in order, the swap included.
    pub moves: Vec<Move>,
    /// `PB`: the player who opened as Black (seat 1).
    pub black: Option<String>,
    /// `PW`: the player who started as White (seat 2).
    pub white: Option<String>,
    /// `RE` as written, such as `B+`, `W+Resign`, `B+Time` or `0` (a draw).
    pub result: Option<String>,
    /// `DT`: the date, `YYYY-MM-DD`.
    pub date: Option<String>,
    /// `GN`: the game's name.
    pub game_name: Option<String>,
    /// `OT`: overtime (our Fischer increment), free text.
    pub overtime: Option<String>,
    /// `EV`: the event, such as a tournament's name.
    pub event: Option<String>,
    /// `RO`: the round, free text (such as `2 (board 1)`).
    pub round: Option<String>,
    /// `TM`: the main time per player, seconds, as written (such as `60`).
    pub time_limit: Option<String>,
    /// `BL`/`WL` of each move's node: the mover's time left after the move, seconds, as
    /// written (such as `57.250`); empty when no move carries one.
    pub times_left: Vec<Option<String>>,
    /// `C` of the root node: free text.
    pub comment: Option<String>,
    /// `C` of each move's node (what the bot said of its move, issue 21); empty when no move
    /// carries one.
    pub move_comments: Vec<Option<String>>,
}

/// Why an SGF text could not be read as a Hex game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SgfError {
    /// Not well-formed SGF (unbalanced brackets, a value without a property name, ...).
    Syntax(String),
    /// Well-formed but not a Hex game we can represent (`GM` other than 11, a size outside
    /// 1..=26, White to play first, setup after the root, an unknown move value).
    Unsupported(String),
    /// A move by the wrong colour at this 0-based move index.
    WrongColor(usize),
    /// The setup (size, opening stones) is not a valid position.
    Setup(SetupError),
    /// The move at this 0-based index is illegal.
    Illegal(usize, PlayError),
}

impl fmt::Display for SgfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SgfError::Syntax(m) => write!(f, "SGF syntax: {m}"),
            SgfError::Unsupported(m) => write!(f, "unsupported SGF: {m}"),
            SgfError::WrongColor(i) => write!(f, "move {} is played by the wrong colour", i + 1),
            SgfError::Setup(e) => write!(f, "bad setup: {e}"),
            SgfError::Illegal(i, e) => write!(f, "move {} is illegal: {e}", i + 1),
        }
    }
}

impl std::error::Error for SgfError {}

/// Escapes an SGF text value: `\` and `]` get a backslash.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if ch == '\\' || ch == ']' {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

/// The SGF text of a game: one line, a newline at the end. The move colours follow HexGui's
/// swap rule (see the module documentation); `PL[B]` is written when there are setup stones.
pub fn write(rec: &SgfRecord) -> String {
    let mut out = format!("(;FF[4]GM[11]AP[hexarena]SZ[{}]", rec.size);
    let texts = [
        ("GN", &rec.game_name),
        ("EV", &rec.event),
        ("RO", &rec.round),
        ("PB", &rec.black),
        ("PW", &rec.white),
        ("DT", &rec.date),
        ("RE", &rec.result),
        ("TM", &rec.time_limit),
        ("OT", &rec.overtime),
        ("C", &rec.comment),
    ];
    for (name, value) in texts {
        if let Some(v) = value {
            out.push_str(&format!("{name}[{}]", escape(v)));
        }
    }
    if !rec.opening.is_empty() {
        for (name, parity) in [("AB", 0), ("AW", 1)] {
            let cells: Vec<&Cell> = rec.opening.iter().skip(parity).step_by(2).collect();
            if !cells.is_empty() {
                out.push_str(name);
                for c in cells {
                    out.push_str(&format!("[{}]", cell_name(*c)));
                }
            }
        }
        out.push_str("PL[B]");
    }
    let mut swapped = false;
    for (ply, mv) in rec.moves.iter().enumerate() {
        let color = color_of_move(ply, swapped);
        let value = match mv {
            Move::Place(c) => cell_name(*c),
            Move::Swap => {
                swapped = true;
                "swap-pieces".to_string()
            }
        };
        out.push_str(&format!(";{}[{value}]", color.letter()));
        if let Some(Some(left)) = rec.times_left.get(ply) {
            out.push_str(&format!("{}L[{}]", color.letter(), escape(left)));
        }
        if let Some(Some(c)) = rec.move_comments.get(ply) {
            out.push_str(&format!("C[{}]", escape(c)));
        }
    }
    out.push_str(")\n");
    out
}

/// One property: its name and its values.
type Property = (String, Vec<String>);

/// Splits SGF text into the nodes of its main line (the first variation at every branch).
fn main_line(text: &str) -> Result<Vec<Vec<Property>>, SgfError> {
    let syntax = |m: &str| SgfError::Syntax(m.to_string());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut nodes: Vec<Vec<Property>> = Vec::new();
    // depth of '(' nesting; a node's sequence comes before its variations, so the first ')'
    // ends the main line and later nodes belong to other variations
    let mut depth = 0usize;
    let mut started = false;
    let mut done = false;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '(' => {
                depth += 1;
                started = true;
                i += 1;
            }
            ')' => {
                if depth == 0 {
                    return Err(syntax("')' without '('"));
                }
                depth -= 1;
                if depth == 0 {
                    break; // only the first game tree
                }
                done = true;
                i += 1;
            }
            ';' => {
                if !started {
                    return Err(syntax("a node before the first '('"));
                }
                i += 1;
                let mut props: Vec<Property> = Vec::new();
                loop {
                    while i < chars.len() && chars[i].is_whitespace() {
                        i += 1;
                    }
                    let start = i;
                    while i < chars.len() && chars[i].is_ascii_alphabetic() {
                        i += 1;
                    }
                    if start == i {
                        break;
                    }
                    // FF[3] allowed lowercase letters in names: keep only the capitals
                    let name: String = chars[start..i]
                        .iter()
                        .filter(|ch| ch.is_ascii_uppercase())
                        .collect();
                    let mut values = Vec::new();
                    loop {
                        while i < chars.len() && chars[i].is_whitespace() {
                            i += 1;
                        }
                        if i >= chars.len() || chars[i] != '[' {
                            break;
                        }
                        i += 1;
                        let mut value = String::new();
                        loop {
                            let Some(&ch) = chars.get(i) else {
                                return Err(syntax("a value runs to the end of the text"));
                            };
                            i += 1;
                            match ch {
                                ']' => break,
                                '\\' => {
                                    if let Some(&next) = chars.get(i) {
                                        i += 1;
                                        // an escaped line break is a soft break: removed
                                        if next != '\n' && next != '\r' {
                                            value.push(next);
                                        }
                                    }
                                }
                                _ => value.push(ch),
                            }
                        }
                        values.push(value);
                    }
                    if values.is_empty() {
                        return Err(SgfError::Syntax(format!("property {name} has no value")));
                    }
                    props.push((name, values));
                }
                if !done {
                    nodes.push(props);
                }
            }
            ch if ch.is_whitespace() => i += 1,
            _ => return Err(SgfError::Syntax(format!("unexpected character {c:?}"))),
        }
    }
    if !started {
        return Err(syntax("no game tree"));
    }
    if depth != 0 {
        return Err(syntax("unbalanced parentheses"));
    }
    Ok(nodes)
}

fn single<'a>(props: &'a [Property], name: &str) -> Option<&'a str> {
    props
        .iter()
        .find(|(n, _)| n == name)
        .and_then(|(_, v)| v.first())
        .map(String::as_str)
}

fn setup_cells(props: &[Property], name: &str) -> Result<Vec<Cell>, SgfError> {
    let mut cells = Vec::new();
    for (n, values) in props {
        if n == name {
            for v in values {
                let cell = parse_cell_name(v.trim()).ok_or_else(|| {
                    SgfError::Unsupported(format!("setup point {v:?} is not a cell name"))
                })?;
                cells.push(cell);
            }
        }
    }
    Ok(cells)
}

/// Reads the main line of an SGF text back into a [`SgfRecord`]. Accepts what [`write`]
/// writes and HexGui's files of ordinary games: `GM[11]` (or none), `SZ[n]` (11 when absent;
/// `n:n` accepted), setup only in the root with as many black as white stones (placement order
/// is restored by alternating them), `PL[B]` or none, one move per node as `B[..]`/`W[..]`
/// with a cell name, `swap-pieces`/`swap`, or `resign` (which ends the move list).
///
/// Each move's colour must be the one HexGui expects: Black first, then alternating, except
/// that after `swap-pieces` the same colour moves again.
///
/// # Errors
/// [`SgfError`]; never panics on any input. Cells are not checked against the size here: use
/// [`SgfRecord::replay`] for that.
pub fn parse(text: &str) -> Result<SgfRecord, SgfError> {
    let nodes = main_line(text)?;
    let Some(root) = nodes.first() else {
        return Err(SgfError::Syntax("no node".into()));
    };
    if let Some(gm) = single(root, "GM")
        && gm.trim() != "11"
    {
        return Err(SgfError::Unsupported(format!("GM[{gm}] is not Hex")));
    }
    let size = match single(root, "SZ") {
        None => 11,
        Some(sz) => {
            let mut parts = sz.split(':').map(str::trim);
            let w = parts.next().unwrap_or_default();
            if let Some(h) = parts.next()
                && h != w
            {
                return Err(SgfError::Unsupported(format!("a {sz} board is not square")));
            }
            w.parse::<u8>()
                .ok()
                .filter(|s| (1..=crate::MAX_SIZE).contains(s))
                .ok_or_else(|| SgfError::Unsupported(format!("board size {sz:?}")))?
        }
    };
    if let Some(pl) = single(root, "PL")
        && Color::parse(pl.trim()) != Some(Color::Black)
    {
        return Err(SgfError::Unsupported(format!(
            "PL[{pl}]: Black must move first"
        )));
    }
    let black_setup = setup_cells(root, "AB")?;
    let white_setup = setup_cells(root, "AW")?;
    if black_setup.len() != white_setup.len() {
        return Err(SgfError::Unsupported(
            "an opening needs as many black as white setup stones".into(),
        ));
    }
    let opening: Vec<Cell> = black_setup
        .iter()
        .zip(&white_setup)
        .flat_map(|(b, w)| [*b, *w])
        .collect();
    let text_of = |name: &str| single(root, name).map(str::to_string);
    let mut rec = SgfRecord {
        size,
        opening,
        moves: Vec::new(),
        black: text_of("PB"),
        white: text_of("PW"),
        result: text_of("RE"),
        date: text_of("DT"),
        game_name: text_of("GN"),
        overtime: text_of("OT"),
        event: text_of("EV"),
        round: text_of("RO"),
        time_limit: text_of("TM"),
        comment: text_of("C"),
        times_left: Vec::new(),
        move_comments: Vec::new(),
    };
    let mut expected = Color::Black;
    for (k, node) in nodes.iter().enumerate() {
        if k > 0
            && node
                .iter()
                .any(|(n, _)| n == "AB" || n == "AW" || n == "AE")
        {
            return Err(SgfError::Unsupported("setup after the root node".into()));
        }
        let mv: Vec<(Color, &str)> = node
            .iter()
            .filter_map(|(n, v)| {
                let color = match n.as_str() {
                    "B" => Color::Black,
                    "W" => Color::White,
                    _ => return None,
                };
                Some((color, v.first().map(String::as_str).unwrap_or_default()))
            })
            .collect();
        let (color, value) = match mv.as_slice() {
            [] => continue,
            [one] => *one,
            _ => return Err(SgfError::Unsupported("two moves in one node".into())),
        };
        let index = rec.moves.len();
        if color != expected {
            return Err(SgfError::WrongColor(index));
        }
        let value = value.trim().to_ascii_lowercase();
        let mv = match value.as_str() {
            "swap-pieces" | "swap" => Move::Swap,
            "resign" => break,
            other => Move::Place(parse_cell_name(other).ok_or_else(|| {
                SgfError::Unsupported(format!("move value {other:?} at move {}", index + 1))
            })?),
        };
        if mv != Move::Swap {
            expected = expected.other();
        }
        rec.moves.push(mv);
        let left_name = format!("{}L", color.letter());
        rec.times_left.push(
            node.iter()
                .find(|(n, _)| *n == left_name)
                .and_then(|(_, v)| v.first().cloned()),
        );
        rec.move_comments.push(
            node.iter()
                .find(|(n, _)| n == "C")
                .and_then(|(_, v)| v.first().cloned()),
        );
    }
    // No move with a time left (or a comment) reads as none at all, as written.
    if rec.times_left.iter().all(Option::is_none) {
        rec.times_left.clear();
    }
    if rec.move_comments.iter().all(Option::is_none) {
        rec.move_comments.clear();
    }
    Ok(rec)
}

impl SgfRecord {
    /// Plays the record on our engine: the opening as setup, then every move.
    ///
    /// # Errors
    /// [`SgfError::Setup`] for a bad size or opening, [`SgfError::Illegal`] for the first
    /// illegal move (moves after the game ended included).
    pub fn replay(&self) -> Result<Position, SgfError> {
        let mut pos = Position::with_opening(self.size, &self.opening).map_err(SgfError::Setup)?;
        for (i, mv) in self.moves.iter().enumerate() {
            pos.play(*mv).map_err(|e| SgfError::Illegal(i, e))?;
        }
        Ok(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(moves: Vec<Move>) -> SgfRecord {
        SgfRecord {
            size: 11,
            moves,
            black: Some("Alpha".into()),
            white: Some("Beta".into()),
            ..SgfRecord::default()
        }
    }

    #[test]
    fn a_swapped_game_keeps_the_colours_with_the_players() {
        let r = SgfRecord {
            result: Some("W+Resign".into()),
            ..rec(vec![
                Move::Place(Cell::new(2, 4)),
                Move::Swap,
                Move::Place(Cell::new(10, 10)),
                Move::Place(Cell::new(5, 5)),
            ])
        };
        let text = write(&r);
        assert_eq!(
            text,
            "(;FF[4]GM[11]AP[hexarena]SZ[11]PB[Alpha]PW[Beta]RE[W+Resign];B[e3];W[swap-pieces];W[k11];B[f6])\n"
        );
        assert_eq!(parse(&text), Ok(r));
    }

    #[test]
    fn setup_stones_are_interleaved_back_into_placement_order() {
        let r = SgfRecord {
            size: 9,
            opening: vec![
                Cell::new(0, 0),
                Cell::new(1, 1),
                Cell::new(2, 2),
                Cell::new(3, 3),
            ],
            ..rec(vec![Move::Place(Cell::new(8, 8))])
        };
        let text = write(&r);
        assert_eq!(
            text,
            "(;FF[4]GM[11]AP[hexarena]SZ[9]PB[Alpha]PW[Beta]AB[a1][c3]AW[b2][d4]PL[B];B[i9])\n"
        );
        assert_eq!(parse(&text), Ok(r));
    }

    #[test]
    fn a_move_comment_is_written_on_its_node_and_read_back() {
        let r = SgfRecord {
            move_comments: vec![None, Some("eval 0.62 pv c3 [x]".into())],
            ..rec(vec![
                Move::Place(Cell::new(0, 0)),
                Move::Place(Cell::new(1, 1)),
            ])
        };
        let text = write(&r);
        assert!(
            text.trim_end()
                .ends_with(r";B[a1];W[b2]C[eval 0.62 pv c3 [x\]])"),
            "{text}"
        );
        assert_eq!(parse(&text), Ok(r));
    }

    #[test]
    fn text_values_are_escaped_and_read_back() {
        let r = SgfRecord {
            comment: Some("a ] b \\ c\nd".into()),
            ..rec(vec![])
        };
        let text = write(&r);
        assert!(text.contains(r"C[a \] b \\ c"), "{text}");
        assert_eq!(parse(&text).map(|p| p.comment), Ok(r.comment));
    }

    #[test]
    fn hexgui_style_files_with_variations_and_line_breaks_are_read() {
        let text = "(;FF[4]AP[HexGui:0.9]GM[11]SZ[11:11]\n;B[E3]\n(;W[swap];W[a1];B[b2])(;W[c3]))";
        let r = parse(text).expect("readable");
        assert_eq!(
            r.moves,
            vec![
                Move::Place(Cell::new(2, 4)),
                Move::Swap,
                Move::Place(Cell::new(0, 0)),
                Move::Place(Cell::new(1, 1)),
            ]
        );
        let pos = r.replay().expect("legal");
        assert_eq!(pos.stone(Cell::new(2, 4)), Some(Seat::Two));
        assert_eq!(Color::of_seat(&pos, Seat::Two), Color::Black);
    }

    #[test]
    fn wrong_colours_and_junk_are_errors_not_panics() {
        assert_eq!(parse("(;SZ[5];W[a1])"), Err(SgfError::WrongColor(0)));
        // after a swap White moves again, so Black is wrong
        assert_eq!(
            parse("(;SZ[5];B[c3];W[swap-pieces];B[a1])"),
            Err(SgfError::WrongColor(2))
        );
        for junk in [
            "",
            "(",
            ")",
            "(;",
            "(;SZ[5]",
            "(;SZ[abc])",
            "(;SZ[0])",
            "(;GM[1]SZ[9])",
            "(;SZ[9];B[zz99])",
            "(;SZ[9];B[pass])",
            "(;SZ[9]PL[W])",
            "(;SZ[9]AB[a1])",
            "(;SZ[9];B[a1]W[b1])",
            "(;SZ[9]B)",
            "x",
            "(;SZ[9];AB[a1]AW[b2])",
            "(;SZ[9]C[\\",
        ] {
            assert!(parse(junk).is_err(), "{junk:?} parsed");
        }
        assert_eq!(
            parse("(;SZ[3];B[d1])").map(|r| r.replay()),
            Ok(Err(SgfError::Illegal(0, PlayError::OffBoard)))
        );
    }

    #[test]
    fn resign_ends_the_move_list() {
        let r = parse("(;SZ[5];B[c3];W[resign])").expect("readable");
        assert_eq!(r.moves, vec![Move::Place(Cell::new(2, 2))]);
    }

    #[test]
    fn move_colours() {
        assert_eq!(color_of_move(0, false), Color::Black);
        assert_eq!(color_of_move(1, false), Color::White);
        assert_eq!(color_of_move(2, true), Color::White);
        assert_eq!(color_of_move(3, true), Color::Black);
        assert_eq!(Color::parse("BLACK"), Some(Color::Black));
        assert_eq!(Color::parse("w"), Some(Color::White));
        assert_eq!(Color::parse("x"), None);
    }
}
