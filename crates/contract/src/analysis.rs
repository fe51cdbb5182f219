//! What a bot author reads to get better (agents.md "Why did my bot lose"): the arena's
//! analysis of one game, a bot's worst moves over its analysed games, and head-to-head
//! figures against another bot.

use serde::{Deserialize, Serialize};

/// Whether the background analyst has run on a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnalysisStatus {
    /// Not analysed yet (or never, on a server started with `--analysis false`).
    Pending,
    /// `win_prob` and `mistakes` are filled.
    Ready,
    /// A status this contract does not know (a newer server).
    #[serde(other)]
    Unknown,
}

/// `GET /v1/sets/{id}/games/{n}/analysis`: the arena's analysis of a finished game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// `pending` until the analyst has run; then `ready`.
    pub status: AnalysisStatus,
    /// The engine and its budget, e.g. `hex-search mcts-rave, 5000 playouts per position`.
    pub engine: String,
    /// Seat 1's win probability (0..=1, 3 decimals) before the first move and after each
    /// move: one more value than moves. Empty while pending.
    pub win_prob: Vec<f64>,
    /// Moves that lost their mover at least 0.15 win probability while the search preferred
    /// another, in the order played. Empty while pending.
    pub mistakes: Vec<AnalysedMistake>,
    /// When the analysis was stored, RFC 3339 UTC; `None` while pending.
    #[serde(default)]
    pub analysed_at: Option<String>,
}

/// One mistake in a game's [`Analysis`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnalysedMistake {
    /// The move's number, from 1 (opening stones excluded, the swap included).
    pub ply: u32,
    /// The mover's seat, 1 or 2.
    pub seat: u8,
    /// Win probability the move lost its mover, 0..=1.
    pub drop: f64,
    /// The move played (`a1` name or `swap`); `None` from a server before this field.
    #[serde(default)]
    pub played: Option<String>,
    /// The search's preferred move there, `a1` name.
    pub best: String,
}

/// `GET /v1/bots/{name-or-id}/mistakes`: the positions where a bot's moves lost the most win
/// probability, worst first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BotMistakes {
    /// The bot's name.
    pub bot: String,
    /// Worst first.
    pub mistakes: Vec<Mistake>,
}

/// One position of [`BotMistakes`], whole enough to replay: the opening, the moves before the
/// mistake, what was played and what was better.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mistake {
    /// `set_<ULID>`.
    pub set_id: String,
    /// 1 or 2.
    pub game_no: u8,
    /// The mistaken move's number, from 1.
    pub ply: u32,
    /// The bot's seat in that game, 1 or 2.
    pub seat: u8,
    /// Win probability lost, 0..=1.
    pub drop: f64,
    /// The move played (`a1` name or `swap`).
    pub played: Option<String>,
    /// The better move, `a1` name.
    pub best: String,
    /// Board size.
    pub size: u8,
    /// The opening stones in placement order, `[row, col]`.
    pub opening: Vec<[u8; 2]>,
    /// The moves before the mistake, `a1` names (or `swap`).
    pub moves: Vec<String>,
}

/// `GET /v1/bots/{a}/versus/{b}` (and each row of `/opponents`): finished sets of `bot`
/// against `opponent`, from `bot`'s side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeadToHead {
    /// The first bot's name.
    pub bot: String,
    /// The other bot's name.
    pub opponent: String,
    /// The other bot's id.
    pub opponent_id: String,
    /// Finished sets between them (practice left out).
    pub sets: u32,
    /// Sets won.
    pub w: u32,
    /// Sets drawn.
    pub d: u32,
    /// Sets lost.
    pub l: u32,
    /// Game points of both (one a game).
    pub games: f64,
    /// `bot`'s game points.
    pub game_points: f64,
    /// `opponent`'s game points.
    pub opponent_game_points: f64,
    /// `game_points / games`; `None` with no game.
    pub score: Option<f64>,
    /// The Elo difference the score implies, to 0.1; `None` at a score of 0 or 1.
    pub elo_diff: Option<f64>,
    /// Lower end of its 95% interval; `None` where infinite.
    pub elo_low: Option<f64>,
    /// Upper end of its 95% interval; `None` where infinite.
    pub elo_high: Option<f64>,
    /// Likelihood of superiority over game points, 0..=1 to 4 decimals; `None` with no game.
    pub los: Option<f64>,
}
