//! Players and bots (SPEC section 3, agents.md section 11).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The answer of `POST /v1/players`: the player token is shown only here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerCreated {
    /// `player-` + 6 characters.
    pub id: String,
    /// The name given.
    pub name: String,
    /// `hxp_...`.
    pub token: String,
    /// PTS.
    pub balance: i64,
}

/// The answer of `POST /v1/bots`: the bot token is shown only here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotCreated {
    /// `bot_<ULID>`.
    pub id: String,
    /// Unique, case-insensitively.
    pub name: String,
    /// The owning player's id.
    pub owner: String,
    /// The highest stake it plays for, PTS.
    pub max_stake: i64,
    /// `hxb_...`.
    pub token: String,
}

/// A house bot's rung on the ladder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ladder {
    /// 1 (weakest) ..= `rungs`.
    pub rung: u32,
    /// Rungs in all.
    pub rungs: u32,
    /// How it plays and how strong it measured.
    pub summary: String,
}

/// What plays for an outside engine's house bot (issue 23).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HouseEngine {
    /// Always true: a GTP engine the operator installed, not one of the built-in rungs.
    pub outside: bool,
    /// How the arena talks to it: `gtp`.
    pub protocol: String,
    /// The program's file name (`mohex`), without its directory or arguments.
    pub command_name: String,
}

/// A first-move timeout in a staked set, counted for 24 h.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Strike {
    /// When it happened.
    pub at: String,
    /// When it stops counting.
    pub expires_at: String,
    /// The set.
    pub set_id: String,
    /// The game.
    pub game_no: u8,
}

/// A bot's public profile: `GET /v1/bots/me`, `GET /v1/bots/{name}`, `GET /v1/bots`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BotProfile {
    /// `bot_<ULID>`.
    pub id: String,
    /// The bot's name.
    pub name: String,
    /// The owning player's id.
    pub owner: String,
    /// The owning player's name.
    pub owner_name: String,
    /// A house bot.
    pub house: bool,
    /// A house bot's rung (null for others).
    pub ladder: Option<Ladder>,
    /// An outside engine's house bot: what plays for it (null for others, and from a
    /// server before issue 23).
    #[serde(default)]
    pub engine: Option<HouseEngine>,
    /// PTS.
    pub max_stake: i64,
    /// Rounded rating.
    pub rating: i64,
    /// The rating unrounded.
    pub rating_exact: f64,
    /// Glicko-2 rating on Elo's scale (issue 20); None from a server without Glicko-2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glicko_rating: Option<f64>,
    /// Glicko-2 rating deviation, rating points, as of now (350 with no rated set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating_deviation: Option<f64>,
    /// Glicko-2 volatility, on Glicko-2's own scale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating_volatility: Option<f64>,
    /// `rating_deviation` above 110: too few recent rated sets to say much.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisional: Option<bool>,
    /// Place on the whole leaderboard (1 = first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<i64>,
    /// Rated, tournament and match sets played.
    pub sets: i64,
    /// Sets won.
    pub w: i64,
    /// Sets drawn.
    pub d: i64,
    /// Sets lost.
    pub l: i64,
    /// PTS won from opponents.
    pub won: i64,
    /// Won less lost, PTS.
    pub net: i64,
    /// Strikes of the last 24 h.
    pub strikes: Vec<Strike>,
    /// Moves refused in any game.
    pub refused_moves: i64,
    /// Until when staked sets are refused (403 `suspended`).
    pub suspended_until: Option<String>,
    /// Holds a stream or long-poll, or did within 60 s.
    pub online: bool,
    /// RFC 3339 UTC.
    pub created_at: String,
    /// Fields of newer servers (Glicko-2 deviation, declared accepts, ...), kept as JSON.
    #[serde(flatten)]
    pub more: serde_json::Map<String, Value>,
}

/// One row of `GET /v1/leaderboard` (SPEC section 8).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeaderboardRow {
    /// Place in the list as filtered, counting the rows `offset` skipped.
    pub rank: i64,
    /// The bot's name.
    pub bot: String,
    /// Elo, rounded.
    pub rating: i64,
    /// Glicko-2 rating.
    pub glicko_rating: f64,
    /// Glicko-2 deviation, rating points.
    pub rating_deviation: f64,
    /// Deviation above 110.
    pub provisional: bool,
    /// Sets counted in the record.
    pub sets: i64,
    /// Sets won.
    pub w: i64,
    /// Sets drawn.
    pub d: i64,
    /// Sets lost.
    pub l: i64,
    /// PTS won from opponents.
    pub won: i64,
    /// Won less lost, PTS.
    pub net: i64,
    /// The owning player's id.
    pub owner: String,
    /// The owning player's name.
    pub owner_name: String,
    /// A house bot.
    pub house: bool,
}

/// `GET /v1/leaderboard`: the rows, highest Elo first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Leaderboard {
    /// Always `hex`.
    pub game: String,
    /// The rows of the page.
    pub rows: Vec<LeaderboardRow>,
}

/// One rated set in a bot's rating history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatingPoint {
    /// The set.
    pub set_id: String,
    /// RFC 3339 UTC, when it was settled.
    pub finished_at: Option<String>,
    /// Elo before the set.
    pub rating_before: f64,
    /// Elo after the set.
    pub rating_after: f64,
    /// The other bot's name.
    pub opponent: String,
    /// The other bot's id.
    pub opponent_id: String,
    /// `win`, `draw` or `loss`.
    pub result: String,
    /// The score rated: 1, 0.5 or 0.
    pub score: f64,
    /// Glicko-2 rating before the set (null for sets settled before Glicko-2).
    pub glicko_rating_before: Option<f64>,
    /// Glicko-2 rating after the set.
    pub glicko_rating: Option<f64>,
    /// Glicko-2 deviation before the set.
    pub rating_deviation_before: Option<f64>,
    /// Glicko-2 deviation after the set.
    pub rating_deviation: Option<f64>,
    /// Deviation after the set above 110.
    pub provisional: Option<bool>,
}

/// `GET /v1/bots/{name-or-id}/ratings`: current figures and the history, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatingHistory {
    /// The bot's name.
    pub bot: String,
    /// Current Elo (exact).
    pub rating: f64,
    /// Current Glicko-2 rating.
    pub glicko_rating: f64,
    /// Current Glicko-2 deviation.
    pub rating_deviation: f64,
    /// Deviation above 110.
    pub provisional: bool,
    /// Its last rated sets, oldest first.
    pub history: Vec<RatingPoint>,
}
