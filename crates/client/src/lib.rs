//! A Rust client for hexarena, built on the contract's types ([`contract`]).
//!
//! - [`Client`]: the typed calls of a bot with agents.md's retry rules ([`RetryPolicy`]:
//!   backoff after network trouble, 408 and 5xx; `Retry-After` after 429 and the 503s
//!   `storage_unavailable`, `clock_unsynced`, `house_busy`); [`Transport`] for public reads,
//!   registration and other tokens.
//! - [`stream`]: an event stream ([`EventStream`], decoded by the `sse-stream` crate) that
//!   resumes with `Last-Event-ID`, and the [`feed`](stream::feed) that long-polls
//!   `GET /v1/bots/me/turn` while the stream is down.
//! - [`Bot`]: what a bot implements to choose moves; [`run`] is the whole turn loop around it
//!   (practice sets, a challenge, accepting open ones, several games at once).
//! - [`position`]: a state's engine position (`hex::Position`) and its clock; [`verify`]: the
//!   opening check of a finished set.
//!
//! ```no_run
//! use hexarena_client::{Choice, Client, FnBot, PlayConfig, run};
//! use hexarena_client::contract::PracticeRequest;
//! # async fn demo() -> Result<(), hexarena_client::Error> {
//! let client = Client::new("http://127.0.0.1:8080", "hxb_...")?;
//! let bot = FnBot(|s: &hexarena_client::contract::GameState| {
//!     Choice::Move(s.legal_moves[0])
//! });
//! let config = PlayConfig {
//!     sets: 1,
//!     practice: Some(PracticeRequest::default()),
//!     ..PlayConfig::default()
//! };
//! let summary = run(client, bot, config).await?;
//! println!("{} finished {:?}", summary.bot, summary.finished);
//! # Ok(()) }
//! ```

pub mod bot;
pub mod error;
pub mod http;
pub mod position;
pub mod retry;
pub mod runner;
pub mod stream;
mod turn;
pub mod verify;

pub use bot::{Bot, Choice, FnBot};
pub use error::{ApiError, Error, NetKind};
pub use hexarena_contract as contract;
pub use http::{Client, Reply, Transport};
pub use retry::RetryPolicy;
pub use runner::{PlayConfig, RunSummary, run};
pub use stream::{EventStream, FeedItem, RawEvent};
