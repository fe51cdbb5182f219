//! The client-side commands of the `hexarena` binary, each built on the client library
//! (`hexarena-client`) or the engine crates, none on the server:
//!
//! - [`play`]: `hexarena play`, a complete bot (a house rung, or a GTP engine through
//!   [`gtp::bridge`]).
//! - [`gtp`]: `hexarena gtp`, the house strategies as a GTP engine ([`gtp::engine`]), and the
//!   bridge that runs any Hex GTP engine as an arena bot.
//! - [`bench`] and [`bench_idle`]: `hexarena bench` and `hexarena bench-idle`, the load tools.
//! - [`offline`]: `hexarena replay` and `hexarena opening`, over the pure engine.

pub mod bench;
pub mod bench_idle;
pub mod gtp;
pub mod offline;
pub mod play;
