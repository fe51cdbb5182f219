//! Sets (SPEC section 5): a list row of `GET /v1/sets`, and the whole view of
//! `GET /v1/sets/{id}` that every set answer and the set events carry.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::game::{EndReason, GameOptions, GameStatus};

/// A set's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SetStatus {
    /// A challenge nobody accepted yet.
    Open,
    /// Being played.
    Active,
    /// Both games played (or scored by forfeit).
    Finished,
    /// Withdrawn by its creator while open.
    Cancelled,
    /// Refused by the named opponent.
    Declined,
    /// Nobody accepted it in time.
    Expired,
    /// A status this contract does not know (a newer server).
    #[serde(other)]
    Unknown,
}

impl SetStatus {
    /// Closed without being played: cancelled, declined or expired.
    #[must_use]
    pub fn is_closed(self) -> bool {
        matches!(
            self,
            SetStatus::Cancelled | SetStatus::Declined | SetStatus::Expired
        )
    }
}

/// Set points: a game win is 1, a move-cap draw 1/2. Written as an integer when whole (`1`),
/// with a fraction otherwise (`0.5`), as the server writes them.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
pub struct Points(pub f64);

impl Serialize for Points {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.fract() == 0.0 && self.0.abs() < 1e15 {
            // Whole points are integers on the wire.
            #[allow(clippy::cast_possible_truncation)]
            let whole = self.0 as i64;
            s.serialize_i64(whole)
        } else {
            s.serialize_f64(self.0)
        }
    }
}

impl<'de> Deserialize<'de> for Points {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Points, D::Error> {
        f64::deserialize(d).map(Points)
    }
}

/// A set's Fischer clock (SPEC section 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SetClock {
    /// Initial time per seat and game, s (10..=600, default 60).
    pub initial_s: u32,
    /// Added after each move from a seat's second on, s (0..=10, default 2).
    pub increment_s: u32,
}

/// Where a tournament or match set was paired (the set's `tournament` or `match` field).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairedIn {
    /// `tour_<ULID>` or `match_<ULID>`.
    pub id: String,
    /// The event's name.
    pub name: String,
    /// A tournament's format (`round_robin`, `swiss`, `gauntlet`); absent for a match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// The round (a match: the set's number).
    pub round: i64,
    /// The board within the round.
    pub board: i64,
    /// Where to read the event.
    pub url: String,
}

/// A set as `GET /v1/sets` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetRow {
    /// `set_<ULID>`.
    pub id: String,
    /// Always `hex`.
    pub game: String,
    /// The bot that created it.
    pub creator: String,
    /// The bot that accepted it (null while open).
    pub acceptor: Option<String>,
    /// The named opponent of a private challenge (null for a lobby challenge).
    pub opponent: Option<String>,
    /// A practice set against a house bot.
    pub practice: bool,
    /// Whether it moves ratings.
    pub rated: bool,
    /// Whether it has a stake (escrow, settlement).
    pub staked: bool,
    /// Whether the matchmaking pool made it (`POST /v1/pool`); absent from answers of servers
    /// before the pool, so older recorded answers read back the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<bool>,
    /// The tournament it was paired in.
    pub tournament: Option<PairedIn>,
    /// The match it was paired in.
    #[serde(rename = "match")]
    pub match_: Option<PairedIn>,
    /// `[creator, acceptor]`.
    pub points: [Points; 2],
    /// PTS per side (0: unstaked).
    pub stake: i64,
    /// Open, active, finished, cancelled, declined or expired.
    pub status: SetStatus,
    /// "AlphaHex wins", "AlphaHex wins on the tiebreak", "draw" (null until finished).
    pub result: Option<String>,
    /// The winning bot (null for a draw or until finished).
    pub winner: Option<String>,
    /// Board size and opening stones.
    pub options: GameOptions,
    /// The clock of both games.
    pub clock: SetClock,
    /// RFC 3339 UTC.
    pub created_at: String,
    /// When game 1 started.
    pub started_at: Option<String>,
    /// When it finished or closed.
    pub finished_at: Option<String>,
}

/// A game's summary inside the set view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameSummary {
    /// 1 or 2.
    pub game_no: u8,
    /// Seat 1, then seat 2.
    pub seats: Vec<SeatRef>,
    /// Pending, active or finished.
    pub status: GameStatus,
    /// Moves made.
    pub ply: u32,
    /// The winning seat.
    pub winner: Option<u8>,
    /// The winning seat's bot.
    pub winner_bot: Option<String>,
    /// Why it ended.
    pub reason: Option<EndReason>,
    /// The loser on time had gone away.
    pub offline: bool,
    /// The game ended because its bot was withdrawn from a tournament with its set forfeited
    /// (absent from answers of servers before issue 18 part C).
    #[serde(default)]
    pub forfeit: bool,
    /// Moves each seat made (what the tiebreak counts), `[seat 1, seat 2]`.
    pub moves_used: [u32; 2],
    /// The game state's path.
    pub url: String,
}

/// A seat as the set's game summaries name it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatRef {
    /// 1 or 2.
    pub seat: u8,
    /// The bot.
    pub bot: String,
}

/// The whole set: the list row plus its games, seed, opening and settlement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetView {
    /// The fields of the list row.
    #[serde(flatten)]
    pub row: SetRow,
    /// One summary per game (empty until the set has started).
    pub games: Vec<GameSummary>,
    /// Hex SHA-256 of the seed, published from the start.
    pub seed_sha256: String,
    /// The 64 hex digits of the seed, revealed once the set has finished.
    pub seed: Option<String>,
    /// The opening cells (null until game 1 has started).
    pub opening: Option<Vec<[u8; 2]>>,
    /// Who was paid what (null unless a staked set has finished).
    pub settlement: Option<Settlement>,
    /// Both sides' ratings around the set, creator then acceptor (null unless a rated set
    /// has finished).
    #[serde(default)]
    pub ratings: Option<Vec<SetRating>>,
}

/// One side's ratings around a rated set (the names of `GET /v1/bots/{name}/ratings`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetRating {
    /// The bot.
    pub bot: String,
    /// Elo before the set.
    pub rating_before: f64,
    /// Elo after it.
    pub rating_after: f64,
    /// Glicko-2 rating before (null for a set rated before Glicko-2 was kept).
    pub glicko_rating_before: Option<f64>,
    /// Glicko-2 rating after.
    pub glicko_rating: Option<f64>,
    /// Glicko-2 deviation before.
    pub rating_deviation_before: Option<f64>,
    /// Glicko-2 deviation after.
    pub rating_deviation: Option<f64>,
}

impl std::ops::Deref for SetView {
    type Target = SetRow;
    fn deref(&self) -> &SetRow {
        &self.row
    }
}

/// A staked set's settlement (SPEC section 8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settlement {
    /// Both stakes, PTS.
    pub pot: i64,
    /// Kept by the arena, PTS.
    pub fee: i64,
    /// The ledger legs paid out of escrow.
    pub payouts: Vec<Payout>,
}

/// One leg of a settlement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Payout {
    /// The player paid.
    pub player: String,
    /// Their name.
    pub player_name: String,
    /// PTS.
    pub amount: i64,
    /// `payout` or `refund` (a draw returns each stake).
    pub kind: String,
}

/// `GET /v1/sets`: newest first, with a cursor for the next page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetList {
    /// The rows.
    pub sets: Vec<SetRow>,
    /// Pass as `before=` for the next page (null on the last).
    pub next_before: Option<String>,
}
