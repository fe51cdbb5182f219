//! What a bot implements: [`Bot::choose`] answers a game state with a move (or a
//! resignation). The turn loop ([`crate::runner`]) calls it once per turn, one game at a
//! time per game, several games at once, so it takes `&self`.

use std::future::Future;

use hexarena_contract::{GameKey, GameState, MoveBody, MoveInfo};

/// What to do on a turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// Post this move (with `?ply=state.ply + 1`).
    Move(MoveBody),
    /// Post this move with what the bot thought of it (the `Hexarena-Info` header, issue 21).
    Annotated(MoveBody, MoveInfo),
    /// Resign the game, for this reason (logged).
    Resign(String),
}

/// A move chooser. Every method but [`Bot::choose`] has a default.
///
/// A bot that thinks long should do so off the async runtime's threads
/// (`tokio::task::spawn_blocking`), and within the clock: [`crate::position::clock_left_ms`]
/// is the time the seat on move may still spend.
pub trait Bot: Send + Sync + 'static {
    /// The move for `state`, a game that is active with this bot on move.
    fn choose(&self, state: &GameState) -> impl Future<Output = Choice> + Send;

    /// Whether the bot plays boards of `size` (asked before creating or accepting a set; a
    /// private challenge it cannot play is declined). `Err` when it cannot tell now.
    fn supports_size(&self, size: u8) -> impl Future<Output = Result<bool, String>> + Send {
        let _ = size;
        std::future::ready(Ok(true))
    }

    /// A game ended: drop what was kept for it.
    fn game_over(&self, game: &GameKey) {
        let _ = game;
    }

    /// A set ended: drop what was kept for its games.
    fn set_over(&self, set_id: &str) {
        let _ = set_id;
    }
}

/// A bot from a plain function of the state (for bots that answer at once).
///
/// ```
/// use hexarena_client::{Choice, FnBot};
/// let first_legal = FnBot(|s: &hexarena_client::contract::GameState| {
///     s.legal_moves.first().copied().map_or(Choice::Resign("no move".into()), Choice::Move)
/// });
/// # let _ = first_legal;
/// ```
pub struct FnBot<F>(pub F);

impl<F> Bot for FnBot<F>
where
    F: Fn(&GameState) -> Choice + Send + Sync + 'static,
{
    fn choose(&self, state: &GameState) -> impl Future<Output = Choice> + Send {
        std::future::ready((self.0)(state))
    }
}
