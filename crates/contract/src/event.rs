//! Tournaments and matches (SPEC section 14, docs/operators.md), as far as a bot or its
//! author reads them: who plays, the rounds' pairings and their sets, the standings, a
//! match's score. The views carry more (crosstable, ratings' errors, settings); those fields
//! are kept as JSON in `more`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::game::GameOptions;
use crate::set::{Points, SetClock};

/// A tournament entrant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Participant {
    /// The bot.
    pub bot: String,
    /// Its rating when entered.
    pub rating: i64,
    /// Its seed (1 = highest rated).
    pub seed: u32,
}

/// One pairing of a round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pairing {
    /// The board within the round.
    pub board: u32,
    /// `[creator, acceptor]` of its set.
    pub bots: [String; 2],
    /// `pending`, `active`, `finished`, `forfeit` ...
    pub status: String,
    /// Its set, once started.
    pub set_id: Option<String>,
    /// Where to read the set.
    pub set_url: Option<String>,
    /// The set's result text.
    pub result: Option<String>,
    /// Set points `[first, second]`, once played.
    pub points: Option<[Points; 2]>,
    /// Game points `[first, second]`, once played.
    pub game_points: Option<Value>,
    /// The bot whose withdrawal decided this pairing (a forfeit made for it, or its set
    /// forfeited in play); null otherwise.
    #[serde(default)]
    pub withdrawn: Option<String>,
    /// On a pending pairing, its bots offline now (what it waits for); empty otherwise.
    #[serde(default)]
    pub waiting_for: Vec<String>,
}

/// A round: its pairings, its bye and the bots absent from it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Round {
    /// From 1.
    pub round: u32,
    /// The pairings.
    pub pairings: Vec<Pairing>,
    /// The bot without an opponent this round.
    pub bye: Option<String>,
    /// Bots that did not play it.
    pub absent: Vec<String>,
}

/// A row of the standings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    /// 1 = first.
    pub rank: u32,
    /// The bot.
    pub bot: String,
    /// Set points.
    pub points: f64,
    /// Sets played.
    pub sets: u32,
    /// Sets won.
    pub w: u32,
    /// Sets drawn.
    pub d: u32,
    /// Sets lost.
    pub l: u32,
    /// Tiebreaks and the rest (Buchholz, Sonneborn-Berger, performance ...).
    #[serde(flatten)]
    pub more: Map<String, Value>,
}

/// `GET /v1/tournaments/{id}` (the list `GET /v1/tournaments` has the same head, with
/// `participants` as a count and no rounds or standings).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TournamentView {
    /// `tour_<ULID>`.
    pub id: String,
    /// Its name.
    pub name: String,
    /// `round_robin`, `swiss` or `gauntlet`.
    pub format: String,
    /// `created`, `running`, `paused`, `finished`, `cancelled`.
    pub status: String,
    /// Rounds in all.
    pub rounds: u32,
    /// The round being played.
    pub current_round: Option<u32>,
    /// Board size and opening stones of every set.
    pub options: GameOptions,
    /// The clock of every set.
    pub clock: SetClock,
    /// PTS per side (0: unstaked).
    pub stake: i64,
    /// Whether its sets move ratings.
    pub rated: bool,
    /// The entrants (a count in the list).
    pub participants: Value,
    /// The rounds so far (absent in the list).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds_played: Option<Vec<Round>>,
    /// The standings (absent in the list).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standings: Option<Vec<Standing>>,
    /// Everything else (crosstable, times, absence rules ...).
    #[serde(flatten)]
    pub more: Map<String, Value>,
}

impl TournamentView {
    /// The entrants, when the view lists them (the single view, not the list).
    #[must_use]
    pub fn entrants(&self) -> Vec<Participant> {
        serde_json::from_value(self.participants.clone()).unwrap_or_default()
    }
}

/// One set of a match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchSet {
    /// From 1.
    pub n: u32,
    /// Its set, once started.
    pub set_id: Option<String>,
    /// Where to read it.
    pub set_url: Option<String>,
    /// `pending`, `active`, `finished` ...
    pub status: String,
    /// The finished set's winner (a bot name); `None` for a draw or a set not finished.
    #[serde(default)]
    pub winner: Option<String>,
    /// A finished set's result as its set words it (`"<bot> wins"`, `"<bot> wins on the
    /// tiebreak"`, `"draw"`); `None` until it finishes.
    #[serde(default)]
    pub result: Option<String>,
}

/// `GET /v1/matches/{id}` (the list has the same fields without `set_list`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchView {
    /// `match_<ULID>`.
    pub id: String,
    /// The two bots; `w`, `d`, `l` count from the first one's side.
    pub bots: [String; 2],
    /// `proposed`, `running`, `finished`, `cancelled`.
    pub status: String,
    /// Sets asked for.
    pub sets: u32,
    /// Sets played.
    pub sets_played: u32,
    /// Sets the first bot won.
    pub w: u32,
    /// Sets drawn.
    pub d: u32,
    /// Sets the first bot lost.
    pub l: u32,
    /// The first bot's score fraction.
    pub score: Option<f64>,
    /// Elo difference estimate.
    pub elo: Option<f64>,
    /// Its 95% error.
    pub elo_error: Option<f64>,
    /// The SPRT's settings, log-likelihood ratio, bounds and decision.
    pub sprt: Option<Value>,
    /// The sets (absent in the list).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_list: Option<Vec<MatchSet>>,
    /// Everything else (clock, options, concurrency, times ...).
    #[serde(flatten)]
    pub more: Map<String, Value>,
}
