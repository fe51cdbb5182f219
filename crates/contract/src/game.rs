//! The game state (SPEC section 6, agents.md "The game state"): what
//! `GET /v1/sets/{id}/games/{n}`, the turn long-poll, every move and resign answer, and the
//! `your_turn` / `game_finished` events carry.

use serde::{Deserialize, Serialize};

use crate::moves::MoveBody;

/// Which game: the set's id and the game's number (1 or 2).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct GameKey {
    /// `set_<ULID>`.
    pub set_id: String,
    /// 1 or 2.
    pub game_no: u8,
}

impl std::fmt::Display for GameKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} g{}", self.set_id, self.game_no)
    }
}

/// A game's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    /// Game 2 before game 1 has ended.
    Pending,
    /// Someone is on move.
    Active,
    /// Over: `result` says how.
    Finished,
    /// A status this contract does not know (a newer server).
    #[serde(other)]
    Unknown,
}

/// A set's game options (SPEC section 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GameOptions {
    /// Cells along each side of the rhombus, 9..=19 (default 11).
    pub size: u8,
    /// Opening stones per seat, 0..=10 (default 4); 0 allows the swap.
    pub random_stones: u8,
}

/// A seat's colour (seat 1 red, seat 2 blue; it does not change after a swap).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeatColor {
    /// Seat 1.
    Red,
    /// Seat 2.
    Blue,
}

/// The edges a seat connects; they exchange after a swap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Edges {
    /// Top and bottom (seat 1 until a swap): GTP's Black.
    #[serde(rename = "top-bottom")]
    TopBottom,
    /// Left and right (seat 2 until a swap).
    #[serde(rename = "left-right")]
    LeftRight,
}

/// One seat of a game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    /// 1 or 2.
    pub seat: u8,
    /// The bot's name.
    pub bot: String,
    /// `red` for seat 1, `blue` for seat 2.
    pub color: SeatColor,
    /// What this seat must connect now.
    pub edges: Edges,
}

/// One move played: a cell or the swap, its name, who, how long it took and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayedMove {
    /// The move's number (opening stones excluded, the swap included), from 1.
    pub ply: u32,
    /// The seat that made it.
    pub seat: u8,
    /// The cell, for a placement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell: Option<[u8; 2]>,
    /// `true` for the swap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swap: Option<bool>,
    /// `e5`, or `swap`.
    pub name: String,
    /// Time the seat took for it, ms.
    pub elapsed_ms: i64,
    /// When it was stored (RFC 3339 UTC with milliseconds).
    pub at: String,
    /// What the bot said of the move in its `Hexarena-Info` header (issue 21); absent when it
    /// sent none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<MoveInfo>,
}

/// What a bot thought of its move: the `Hexarena-Info` request header of a move (a JSON object
/// of at most 1,024 bytes, every field optional, no others) and `moves[].info` of the state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveInfo {
    /// The mover's win probability, 0..=1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval: Option<f64>,
    /// The expected line from this move on, at most 16 cells in `a1` notation on this board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pv: Option<Vec<String>>,
    /// Search depth reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u64>,
    /// Nodes (or playouts) searched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Free text, at most 140 characters, no control characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}

/// `eval` is a JSON number, never NaN, so equality is total.
impl Eq for MoveInfo {}

impl MoveInfo {
    /// The header's name.
    pub const HEADER: &'static str = "Hexarena-Info";

    /// The header value: compact JSON, None when it says nothing or would exceed 1,024 bytes
    /// (the server would refuse it).
    #[must_use]
    pub fn header_value(&self) -> Option<String> {
        if *self == MoveInfo::default() {
            return None;
        }
        serde_json::to_string(self).ok().filter(|s| s.len() <= 1024)
    }
}

impl PlayedMove {
    /// The move as a body (None for an entry with neither a cell nor the swap).
    #[must_use]
    pub fn body(&self) -> Option<MoveBody> {
        match (self.cell, self.swap) {
            (Some(c), _) => Some(MoveBody::Cell(c)),
            (None, Some(true)) => Some(MoveBody::Swap),
            _ => None,
        }
    }
}

/// The board: `cells[r][c]` is 0 (empty) or the seat owning the stone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Board {
    /// Cells along a side.
    pub size: u8,
    /// `size` rows of `size` cells: 0, 1 or 2 (opening stones included).
    pub cells: Vec<Vec<u8>>,
    /// The winner's chain from edge to edge when the game was won by connection.
    pub winning_path: Option<Vec<[u8; 2]>>,
}

/// The clock as the server sees it at `server_time` (SPEC section 7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameClock {
    /// Time left per seat `[seat 1, seat 2]`, ms, the running turn already deducted (except
    /// during a free first move).
    pub remaining_ms: [i64; 2],
    /// Added after each move from a seat's second on, ms.
    pub increment_ms: i64,
    /// When the seat on move came on move (null when nobody is).
    pub turn_started_at: Option<String>,
    /// When the seat on move loses on time (null when nobody is).
    pub deadline: Option<String>,
    /// True while the seat on move has not made its first move of this game (30 s, free).
    pub first_move: Option<bool>,
    /// The server's time of this state: plan with `deadline - server_time`.
    pub server_time: String,
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// A chain between the winner's edges.
    Connection,
    /// The loser resigned.
    Resignation,
    /// The loser's clock ran out.
    Timeout,
    /// The loser's first move did not come within 30 s.
    FirstMoveTimeout,
    /// 362 moves without a connection: a draw.
    MoveCap,
    /// A tournament forfeit or another reason this contract does not know.
    #[serde(other)]
    Unknown,
}

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    /// The winning seat (null for a move-cap draw).
    pub winner: Option<u8>,
    /// The winning seat's bot.
    pub winner_bot: Option<String>,
    /// Why it ended.
    pub reason: EndReason,
    /// A loss on time by a bot that had gone away (no stream or long-poll for 60 s).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub offline: bool,
    /// The game ended because its bot was withdrawn from a tournament with its set forfeited.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub forfeit: bool,
}

/// The whole state of one game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameState {
    /// The set.
    pub set_id: String,
    /// 1 or 2.
    pub game_no: u8,
    /// Pending, active or finished.
    pub status: GameStatus,
    /// Board size and opening stones.
    pub options: GameOptions,
    /// Seat 1, then seat 2.
    pub seats: Vec<SeatView>,
    /// The seat on move (null when nobody is).
    pub to_move: Option<u8>,
    /// Moves made so far (opening excluded, swap included): the next move is `ply + 1`.
    pub ply: u32,
    /// Opening cells in placement order (even indices are seat 1's).
    pub opening: Vec<[u8; 2]>,
    /// Every move, in order.
    pub moves: Vec<PlayedMove>,
    /// The stones.
    pub board: Board,
    /// Every legal move as a body ready to post (empty unless active).
    pub legal_moves: Vec<MoveBody>,
    /// Both clocks.
    pub clock: GameClock,
    /// How it ended (null until it has).
    pub result: Option<GameResult>,
}

impl GameState {
    /// `(set_id, game_no)`.
    #[must_use]
    pub fn key(&self) -> GameKey {
        GameKey {
            set_id: self.set_id.clone(),
            game_no: self.game_no,
        }
    }

    /// The seat (1 or 2) of `bot` (compared case-insensitively), if it plays this game.
    #[must_use]
    pub fn seat_of(&self, bot: &str) -> Option<u8> {
        self.seats
            .iter()
            .find(|s| s.bot.eq_ignore_ascii_case(bot))
            .map(|s| s.seat)
    }

    /// The bot on move in an active game.
    #[must_use]
    pub fn bot_on_move(&self) -> Option<&str> {
        if self.status != GameStatus::Active {
            return None;
        }
        let seat = self.to_move?;
        self.seats
            .iter()
            .find(|s| s.seat == seat)
            .map(|s| s.bot.as_str())
    }

    /// Whether `bot` is on move here (the game active, `to_move` its seat).
    #[must_use]
    pub fn is_turn_of(&self, bot: &str) -> bool {
        self.bot_on_move()
            .is_some_and(|b| b.eq_ignore_ascii_case(bot))
    }

    /// The time left on the clock of `seat` (1 or 2), ms.
    #[must_use]
    pub fn remaining_ms(&self, seat: u8) -> Option<i64> {
        let i = usize::from(seat.checked_sub(1)?);
        self.clock.remaining_ms.get(i).copied()
    }
}
