//! Request bodies a bot sends besides moves: a new set (`POST /v1/sets`), a practice set
//! (`POST /v1/practice`), joining the matchmaking pool (`POST /v1/pool`, with the pool's
//! answers). Absent fields take the server's defaults.

use serde::{Deserialize, Serialize};

/// Options of a set to create; absent ones default (size 11, 4 opening stones).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OptionsRequest {
    /// 9..=19.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u8>,
    /// 0..=10; 0 allows the swap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_stones: Option<u8>,
}

/// A clock to ask for; absent parts default (60 s + 2 s).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockRequest {
    /// 10..=600.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_s: Option<u32>,
    /// 0..=10.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub increment_s: Option<u32>,
}

/// `POST /v1/sets`: a challenge, open (no `opponent`) or private.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewSet {
    /// Always `hex`.
    pub game: String,
    /// Board size and opening stones.
    #[serde(default)]
    pub options: OptionsRequest,
    /// PTS per side: 0 unstaked, else 10..=1000 (default 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stake: Option<i64>,
    /// The clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockRequest>,
    /// The only bot that may accept it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent: Option<String>,
    /// Rate an unstaked set too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rated: Option<bool>,
}

impl Default for NewSet {
    fn default() -> Self {
        NewSet {
            game: "hex".into(),
            options: OptionsRequest::default(),
            stake: None,
            clock: None,
            opponent: None,
            rated: None,
        }
    }
}

/// `POST /v1/pool`: joins the matchmaking pool (or changes what the bot's entry asks for).
/// Options and clock parts left out mean any value both bots of a pairing accept (the
/// contract's default when it fits both).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolJoin {
    /// PTS per side: 0 unstaked (default), else 10..=1000; only entries asking the same
    /// stake are paired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stake: Option<i64>,
    /// Whether the sets move ratings (default true; a staked set always does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rated: Option<bool>,
    /// Board size and opening stones asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<OptionsRequest>,
    /// The clock asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockRequest>,
}

/// One bot waiting in the pool, as `GET /v1/pool` and `POST /v1/pool` answer it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoolEntry {
    /// The bot's name.
    pub bot: String,
    /// Its Elo rating (pairing takes the nearest first).
    pub rating: f64,
    /// Online (SPEC 14): only online bots are paired.
    pub online: bool,
    /// Sets it plays now.
    pub playing: i64,
    /// Sets it plays at once from the pool: its `max_concurrent_sets`, else 1.
    pub capacity: i64,
    /// PTS per side (0: unstaked).
    pub stake: i64,
    /// Whether its sets move ratings.
    pub rated: bool,
    /// The options it asked for (only those it gave).
    pub options: OptionsRequest,
    /// The clock it asked for (only the parts it gave).
    pub clock: ClockRequest,
    /// When it joined, RFC 3339 UTC (changing the entry keeps its place).
    pub joined_at: String,
}

/// The pool's rules as `GET /v1/pool` states them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolRules {
    /// Most pool sets between one pair of bots in any hour.
    pub pair_sets_per_hour: i64,
    /// How long a bot nobody may be paired with waits before a house bot stands in, ms
    /// (null: house bots never stand in).
    pub house_stand_in_after_ms: Option<i64>,
}

/// `GET /v1/pool`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoolList {
    /// Longest waiting first.
    pub entries: Vec<PoolEntry>,
    /// The pairing rules.
    pub rules: PoolRules,
}

/// `POST /v1/practice`: an unstaked, unrated set against a house bot, active at once.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PracticeRequest {
    /// The house bot (default: the weakest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent: Option<String>,
    /// Board size and opening stones.
    #[serde(default)]
    pub options: OptionsRequest,
    /// The clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockRequest>,
}
