//! Games held in memory (SPEC section 12: a cache over the database, which stays the source of
//! truth). Each game has a slot with the current aggregate and its state rendered once per
//! change ([`Snapshot`]); moves, long-polls and streams share that rendering through an `Arc`.
//!
//! A slot is filled from the game row and replaced only after a commit. Every write checks the
//! row's `version`, so a slot that another instance made stale is never written from: the write
//! fails, the slot is reloaded from the row and the command runs again on it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use hex::{Move, Seat};
use serde::Serialize;

use super::clock::Clock;
use super::game::{Game, Status};
use super::views::{self, ClockView, OptionsView, SeatView};
use crate::store::games::MoveRow;
use crate::store::sets::SetRow;

/// One game's state (SPEC section 6) rendered as JSON once, with the clock left out: the clock
/// is rendered per answer, as of the moment it is sent (`server_time`).
#[derive(Debug)]
pub struct Snapshot {
    pub set_id: String,
    pub game_no: i64,
    pub version: i64,
    pub ply: i64,
    pub status: Status,
    /// Bot id and name of the seat on move (None unless active).
    pub on_move: Option<(String, String)>,
    /// When this state came to be (ms since the epoch): events carry the clock as of then.
    pub at_ms: i64,
    clock: Clock,
    to_move: Option<Seat>,
    /// `{"set_id": ..., "legal_moves": [...]` without the closing brace.
    head: String,
    /// Byte range of the moves inside `head` (`{...},{...}`), reused by the next rendering.
    moves: (usize, usize),
    /// `,"result": ...}`.
    tail: String,
}

#[derive(Serialize)]
struct Head<'a> {
    set_id: &'a str,
    game_no: i64,
    status: &'static str,
    options: OptionsView,
    seats: [SeatView; 2],
    to_move: Option<u8>,
    ply: i64,
    opening: &'a [[u8; 2]],
}

impl Snapshot {
    /// The state as of `now_ms`: the shared rendering plus the clock at that moment.
    pub fn body_at(&self, now_ms: i64) -> String {
        let remaining = [Seat::One, Seat::Two]
            .map(|s| self.clock.remaining_at(s, self.to_move == Some(s), now_ms));
        let clock = ClockView {
            remaining_ms: remaining,
            increment_ms: self.clock.increment_ms,
            turn_started_at: self
                .to_move
                .and(self.clock.turn_started_ms)
                .map(views::rfc3339),
            deadline: self
                .to_move
                .and_then(|s| self.clock.deadline_ms(s))
                .map(views::rfc3339),
            first_move: self
                .to_move
                .map(|s| self.clock.first_move[usize::from(s.number() - 1)]),
            server_time: views::rfc3339(now_ms),
        };
        let clock = serde_json::to_string(&clock).unwrap_or_else(|_| "null".into());
        let mut out = String::with_capacity(self.head.len() + clock.len() + self.tail.len() + 12);
        out.push_str(&self.head);
        out.push_str(",\"clock\":");
        out.push_str(&clock);
        out.push_str(&self.tail);
        out
    }

    /// The state as it was when it came to be (what a stream event carries).
    pub fn body(&self) -> String {
        self.body_at(self.at_ms)
    }

    /// Whether the game is over in this state.
    pub fn finished(&self) -> bool {
        matches!(self.status, Status::Finished { .. })
    }

    /// Bytes held by this rendering (for the memory figures).
    pub fn heap_bytes(&self) -> usize {
        self.head.capacity() + self.tail.capacity() + self.set_id.capacity()
    }
}

/// Where the moves of a rendering come from.
pub enum MovesFrom<'a> {
    /// Every stored move, rendered afresh.
    Rows(&'a [MoveRow]),
    /// The previous rendering's moves plus the ones just played.
    Append(&'a Snapshot, &'a [MoveRow]),
}

/// Renders `game` (of `set`, with seat bots `names`) as of `at_ms`.
pub fn render(
    set: &SetRow,
    game: &Game,
    names: &[String; 2],
    moves: MovesFrom<'_>,
    at_ms: i64,
) -> Snapshot {
    let pos = &game.position;
    let to_move = game.to_move();
    let seat_view = |seat: Seat| SeatView {
        seat: seat.number(),
        bot: names[usize::from(seat.number() - 1)].clone(),
        color: if seat == Seat::One { "red" } else { "blue" },
        edges: pos.axis(seat).name(),
    };
    let opening = views::opening_of(set);
    let head = Head {
        set_id: &set.id,
        game_no: game.game_no,
        status: game.status.as_str(),
        options: OptionsView {
            size: set.size,
            random_stones: set.random_stones,
        },
        seats: [seat_view(Seat::One), seat_view(Seat::Two)],
        to_move: to_move.map(Seat::number),
        ply: game.ply,
        opening: &opening,
    };
    let mut text = serde_json::to_string(&head).unwrap_or_else(|_| "{".into());
    text.pop(); // the closing brace: more fields follow
    text.push_str(",\"moves\":[");
    let start = text.len();
    let push_rows = |text: &mut String, rows: &[MoveRow]| {
        for m in rows {
            if text.len() > start {
                text.push(',');
            }
            text.push_str(&serde_json::to_string(&views::move_view(m)).unwrap_or_default());
        }
    };
    match moves {
        MovesFrom::Rows(rows) => push_rows(&mut text, rows),
        MovesFrom::Append(prev, rows) => {
            text.push_str(prev.head.get(prev.moves.0..prev.moves.1).unwrap_or(""));
            push_rows(&mut text, rows);
        }
    }
    let end = text.len();
    text.push_str("],\"board\":");
    push_board(&mut text, pos);
    text.push_str(",\"legal_moves\":");
    push_legal_moves(&mut text, pos, to_move.is_some());
    let tail = format!(",\"result\":{}}}", result_json(game, names));
    Snapshot {
        set_id: set.id.clone(),
        game_no: game.game_no,
        version: game.version,
        ply: game.ply,
        status: game.status,
        on_move: to_move.map(|s| {
            let i = usize::from(s.number() - 1);
            (game.seats[i].clone(), names[i].clone())
        }),
        at_ms,
        clock: game.clock,
        to_move,
        head: text,
        moves: (start, end),
        tail,
    }
}

/// Appends `n` in decimal.
fn push_u8(out: &mut String, n: u8) {
    if n >= 100 {
        out.push(char::from(b'0' + n / 100));
    }
    if n >= 10 {
        out.push(char::from(b'0' + n / 10 % 10));
    }
    out.push(char::from(b'0' + n % 10));
}

/// Appends the `board` object of the state (SPEC 6), byte for byte what serde writes for
/// [`BoardView`], without its row vectors: a move renders it once per move (issue 22).
fn push_board(out: &mut String, pos: &hex::Position) {
    let n = pos.size();
    out.push_str("{\"size\":");
    push_u8(out, n);
    out.push_str(",\"cells\":[");
    for row in 0..n {
        out.push_str(if row == 0 { "[" } else { ",[" });
        for col in 0..n {
            if col > 0 {
                out.push(',');
            }
            let stone = pos.stone(hex::Cell::new(row, col)).map_or(0, Seat::number);
            push_u8(out, stone);
        }
        out.push(']');
    }
    out.push_str("],\"winning_path\":");
    match pos.winning_path() {
        Some(path) => {
            out.push('[');
            for (i, c) in path.iter().enumerate() {
                out.push_str(if i == 0 { "[" } else { ",[" });
                push_u8(out, c.row);
                out.push(',');
                push_u8(out, c.col);
                out.push(']');
            }
            out.push(']');
        }
        None => out.push_str("null"),
    }
    out.push('}');
}

/// Appends `legal_moves` (SPEC 6): every legal move as its request body, or `[]` when nobody
/// is on move; what serde writes for a `Vec<MoveBody>`.
fn push_legal_moves(out: &mut String, pos: &hex::Position, on_move: bool) {
    out.push('[');
    if on_move {
        for (i, mv) in pos.legal_moves().into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            match mv {
                Move::Place(c) => {
                    out.push_str("{\"cell\":[");
                    push_u8(out, c.row);
                    out.push(',');
                    push_u8(out, c.col);
                    out.push_str("]}");
                }
                Move::Swap => out.push_str("{\"swap\":true}"),
            }
        }
    }
    out.push(']');
}

/// The `result` object (SPEC 6) of a finished game, or null; `"offline": true` is added when
/// the seat that lost on time had gone away, `"forfeit": true` when the game ended because a
/// seat's bot was withdrawn from its tournament (issue 18).
pub fn result_json(game: &Game, names: &[String; 2]) -> serde_json::Value {
    match game.status {
        Status::Finished { winner, reason } => {
            let mut v = serde_json::json!({
                "winner": winner.map(Seat::number),
                "winner_bot": winner.map(|w| names[usize::from(w.number() - 1)].as_str()),
                "reason": reason.as_str(),
            });
            if game.offline {
                v["offline"] = serde_json::Value::Bool(true);
            }
            if game.forfeit {
                v["forfeit"] = serde_json::Value::Bool(true);
            }
            v
        }
        _ => serde_json::Value::Null,
    }
}

/// The stored row of a move just played, with what its bot said of it (`info`, compact JSON).
pub fn move_row(game: &Game, p: &super::game::Played, info: Option<String>) -> MoveRow {
    let (cell_row, cell_col) = match p.mv {
        Move::Place(c) => (Some(i64::from(c.row)), Some(i64::from(c.col))),
        Move::Swap => (None, None),
    };
    MoveRow {
        ply: p.ply,
        seat: i64::from(p.seat.number()),
        bot_id: game.bot_of(p.seat).to_string(),
        cell_row,
        cell_col,
        swap: i64::from(p.mv == Move::Swap),
        elapsed_ms: p.elapsed_ms,
        at_ms: p.at_ms,
        info,
    }
}

/// A game in memory: the aggregate, what its rendering needs, and the rendering.
#[derive(Debug)]
pub struct LiveGame {
    pub game: Game,
    pub set: Arc<SetRow>,
    pub names: [String; 2],
    pub snapshot: Arc<Snapshot>,
}

/// One game's place in memory. `turn` serializes the commands on this game within this
/// process, so each reads the state the previous one left (and its time in that order).
#[derive(Default)]
pub struct Slot {
    pub turn: tokio::sync::Mutex<()>,
    state: Mutex<SlotState>,
}

#[derive(Default)]
struct SlotState {
    live: Option<Arc<LiveGame>>,
    /// The newest version known committed: nothing older may be installed.
    floor: i64,
}

impl Slot {
    /// The game as held, if any.
    pub fn current(&self) -> Option<Arc<LiveGame>> {
        self.state.lock().ok()?.live.clone()
    }

    /// Holds `live` unless a newer version is already known.
    pub fn install(&self, live: Arc<LiveGame>) {
        if let Ok(mut s) = self.state.lock()
            && live.game.version >= s.floor
        {
            s.floor = live.game.version;
            s.live = Some(live);
        }
    }

    /// Forgets the held game if it is older than `version` (a change committed elsewhere).
    pub fn invalidate(&self, version: i64) {
        if let Ok(mut s) = self.state.lock() {
            s.floor = s.floor.max(version);
            if s.live.as_ref().is_some_and(|l| l.game.version < version) {
                s.live = None;
            }
        }
    }

    /// Notes that `version` was committed elsewhere, keeping the held copy for now: nothing
    /// older than it may be installed from here on.
    pub fn expect(&self, version: i64) {
        if let Ok(mut s) = self.state.lock() {
            s.floor = s.floor.max(version);
        }
    }

    /// Forgets the held game whatever its version (its row changed behind this process).
    pub fn clear(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.live = None;
        }
    }
}

/// Every game slot of this process, by set id (games 1 and 2).
#[derive(Default)]
pub struct Live {
    sets: Mutex<HashMap<String, [Arc<Slot>; 2]>>,
}

/// Above this many sets held, finished ones are let go when a new one comes in.
const MAX_SETS: usize = 50_000;

impl Live {
    /// The slot of a game (`game_no` 1 or 2), created empty if new; None for other numbers.
    pub fn slot(&self, set_id: &str, game_no: i64) -> Option<Arc<Slot>> {
        let i = usize::try_from(game_no.checked_sub(1)?)
            .ok()
            .filter(|i| *i < 2)?;
        let mut sets = self.sets.lock().ok()?;
        if let Some(slots) = sets.get(set_id) {
            return Some(slots[i].clone());
        }
        if sets.len() >= MAX_SETS {
            sets.retain(|_, slots| {
                slots.iter().any(|s| {
                    s.current()
                        .is_some_and(|l| !matches!(l.game.status, Status::Finished { .. }))
                })
            });
        }
        let slots = [Arc::new(Slot::default()), Arc::new(Slot::default())];
        let slot = slots[i].clone();
        sets.insert(set_id.to_string(), slots);
        Some(slot)
    }

    /// The slot of a game if this process holds one.
    pub fn existing(&self, set_id: &str, game_no: i64) -> Option<Arc<Slot>> {
        let i = usize::try_from(game_no.checked_sub(1)?)
            .ok()
            .filter(|i| *i < 2)?;
        self.sets.lock().ok()?.get(set_id).map(|s| s[i].clone())
    }

    /// Lets a finished set go (its games are read from the database from now on).
    pub fn forget_set(&self, set_id: &str) {
        if let Ok(mut sets) = self.sets.lock() {
            sets.remove(set_id);
        }
    }

    /// Forgets every held game (each is loaded from its row on next use): after changes may
    /// have been missed.
    pub fn clear_all(&self) {
        let slots: Vec<Arc<Slot>> = self
            .sets
            .lock()
            .map(|s| s.values().flat_map(|v| v.iter().cloned()).collect())
            .unwrap_or_default();
        for s in slots {
            s.clear();
        }
    }

    /// Every game held (a snapshot of the slots' current contents).
    fn held(&self) -> Vec<Arc<LiveGame>> {
        let slots: Vec<Arc<Slot>> = self
            .sets
            .lock()
            .map(|s| s.values().flat_map(|v| v.iter().cloned()).collect())
            .unwrap_or_default();
        slots.iter().filter_map(|s| s.current()).collect()
    }

    /// Active games held for which `weight` gives a value: how many, and the values summed
    /// (the house's games in play and their load, issue 11).
    pub fn sum_active(&self, weight: impl Fn(&LiveGame) -> Option<f64>) -> (usize, f64) {
        self.held()
            .iter()
            .filter(|l| matches!(l.game.status, Status::Active { .. }))
            .filter_map(|l| weight(l))
            .fold((0, 0.0), |(n, sum), w| (n + 1, sum + w))
    }

    /// Games held whose bot on move passes `pred`: (set_id, game_no, ply, bot id on move).
    pub fn on_move_among(&self, pred: impl Fn(&str) -> bool) -> Vec<(String, i64, i64, String)> {
        self.held()
            .iter()
            .filter_map(|l| {
                let seat = l.game.to_move()?;
                let bot = l.game.bot_of(seat);
                pred(bot).then(|| {
                    (
                        l.game.set_id.clone(),
                        l.game.game_no,
                        l.game.ply,
                        bot.to_string(),
                    )
                })
            })
            .collect()
    }

    /// Sets with slots in this process.
    pub fn sets_held(&self) -> usize {
        self.sets.lock().map_or(0, |s| s.len())
    }

    /// Games held and active; bytes held by their renderings.
    pub fn stats(&self) -> (usize, usize) {
        let Ok(sets) = self.sets.lock() else {
            return (0, 0);
        };
        let mut active = 0;
        let mut bytes = 0;
        for slots in sets.values() {
            for s in slots {
                if let Some(l) = s.current() {
                    bytes += l.snapshot.heap_bytes();
                    if l.game.to_move().is_some() {
                        active += 1;
                    }
                }
            }
        }
        (active, bytes)
    }
}

#[cfg(test)]
mod tests {
    use hex::Position;

    use super::views::{BoardView, MoveBody};
    use super::*;

    /// The hand-written board and legal moves are byte for byte what serde writes, at every ply
    /// of whole random games (swap offered, a winning path at the end, two-digit rows on 19x19).
    #[test]
    fn the_board_and_legal_moves_render_as_serde_writes_them() {
        // A fixed xorshift: the same games on every run.
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut checked = 0;
        for size in [1u8, 5, 11, 19] {
            for _game in 0..3 {
                let mut pos = Position::new(size).expect("a legal size");
                loop {
                    let on_move = pos.outcome().is_none();
                    let mut board = String::new();
                    push_board(&mut board, &pos);
                    let want = BoardView {
                        size: i64::from(size),
                        cells: pos.cells(),
                        winning_path: pos
                            .winning_path()
                            .map(|p| p.iter().map(|c| [c.row, c.col]).collect()),
                    };
                    assert_eq!(board, serde_json::to_string(&want).expect("json"));
                    let mut legal = String::new();
                    push_legal_moves(&mut legal, &pos, on_move);
                    let want: Vec<MoveBody> =
                        pos.legal_moves().into_iter().map(MoveBody::from).collect();
                    assert_eq!(legal, serde_json::to_string(&want).expect("json"));
                    checked += 1;
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        assert!(board.contains("\"winning_path\":[["), "{board}");
                        break;
                    }
                    let pick = moves[(next() % moves.len() as u64) as usize];
                    pos.play(pick).expect("a legal move");
                }
            }
        }
        let mut none = String::new();
        push_legal_moves(&mut none, &Position::new(5).expect("size"), false);
        assert_eq!(none, "[]");
        assert!(checked > 300, "{checked}");
    }

    #[test]
    fn numbers_are_written_in_decimal() {
        for n in [0u8, 7, 10, 99, 100, 255] {
            let mut s = String::new();
            push_u8(&mut s, n);
            assert_eq!(s, n.to_string());
        }
    }
}
