//! The hexarena wire contract (SPEC sections 3 to 10, agents.md) as plain serde types, for
//! clients and tests to read the server's JSON with names instead of string keys.
//!
//! No I/O, no clock, no HTTP: [`hexarena-client`](../hexarena_client/index.html) and the
//! Python package do the talking; this crate only says what the bytes mean.
//!
//! - [`analysis`]: the arena's analysis of a game, a bot's worst moves, head-to-head figures.
//! - [`game`]: the game state (`GET /v1/sets/{id}/games/{n}`, every move answer, `your_turn`).
//! - [`moves`]: the move body a bot posts (`{"cell": [r, c]}` or `{"swap": true}`).
//! - [`set`]: a set as a list row and as the whole view, with its games' summaries.
//! - [`requests`]: the bodies of `POST /v1/sets` and `POST /v1/practice`.
//! - [`account`]: players and bots as registration and `GET /v1/bots/me` return them.
//! - [`error`]: the error envelope and its codes, and which of them a client retries.
//! - [`events`]: the events of the bot stream, the game stream and the public stream.
//! - [`event`]: tournaments and matches, as far as a bot or its author reads them.
//!
//! Every type keeps the server's field names and shapes, so serializing a parsed response
//! gives the same JSON back (the tests check this on real responses). Unknown fields are
//! ignored when reading, so a client built on an older contract keeps working when the
//! server adds one; an unknown status, reason or error code reads as `Unknown` / `Other`.

pub mod account;
pub mod analysis;
pub mod error;
pub mod event;
pub mod events;
pub mod game;
pub mod moves;
pub mod numbers;
pub mod requests;
pub mod set;

pub use account::{
    BotCreated, BotProfile, HouseEngine, Leaderboard, LeaderboardRow, PlayerCreated, RatingHistory,
    RatingPoint,
};
pub use analysis::{AnalysedMistake, Analysis, AnalysisStatus, BotMistakes, HeadToHead, Mistake};
pub use error::{ErrorBody, ErrorCode, ErrorEnvelope, Retry};
pub use event::{MatchView, TournamentView};
pub use events::{BotEvent, PublicEvent};
pub use game::{
    Board, Edges, EndReason, GameClock, GameKey, GameOptions, GameResult, GameState, GameStatus,
    MoveInfo, PlayedMove, SeatColor, SeatView,
};
pub use moves::MoveBody;
pub use requests::{
    ClockRequest, NewSet, OptionsRequest, PoolEntry, PoolJoin, PoolList, PoolRules, PracticeRequest,
};
pub use set::{GameSummary, Points, SetClock, SetList, SetRating, SetRow, SetStatus, SetView};
