//! Stream events (SPEC section 6, agents.md section 2): the bot stream
//! `GET /v1/bots/me/events`, the game stream `GET /v1/sets/{id}/games/{n}/events` (each event
//! `state` with the game state as its data) and the public stream `GET /v1/events`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::game::GameState;
use crate::set::SetView;

/// `{"set": Set}`, the data of the set events.
#[derive(Deserialize)]
struct SetData {
    set: SetView,
}

/// `{"state": GameState}`, the data of the game events.
#[derive(Deserialize)]
struct StateData {
    state: GameState,
}

/// One event of the bot stream, by its `event:` name.
#[derive(Debug, Clone, PartialEq)]
pub enum BotEvent {
    /// A new open challenge this bot may accept.
    Challenge(SetView),
    /// A lobby challenge is no longer open.
    ChallengeClosed(SetView),
    /// One of the bot's sets became active.
    SetStarted(SetView),
    /// The bot is on move: the complete state, clock included.
    YourTurn(GameState),
    /// One of the bot's games ended.
    GameFinished(GameState),
    /// One of the bot's sets ended (the seed is revealed).
    SetFinished(SetView),
    /// A challenge it made or was sent was cancelled, declined or expired.
    SetClosed(SetView),
    /// An event this contract does not know, kept as it came.
    Other {
        /// The `event:` name.
        event: String,
        /// The `data:` parsed as JSON (Null if it is not JSON).
        data: Value,
    },
}

impl BotEvent {
    /// Reads an event from its `event:` name and `data:` text.
    ///
    /// # Errors
    /// The data of a known event does not have its shape.
    pub fn parse(event: &str, data: &str) -> Result<BotEvent, serde_json::Error> {
        let set = || serde_json::from_str::<SetData>(data).map(|d| d.set);
        let state = || serde_json::from_str::<StateData>(data).map(|d| d.state);
        Ok(match event {
            "challenge" => BotEvent::Challenge(set()?),
            "challenge_closed" => BotEvent::ChallengeClosed(set()?),
            "set_started" => BotEvent::SetStarted(set()?),
            "your_turn" => BotEvent::YourTurn(state()?),
            "game_finished" => BotEvent::GameFinished(state()?),
            "set_finished" => BotEvent::SetFinished(set()?),
            "set_closed" => BotEvent::SetClosed(set()?),
            other => BotEvent::Other {
                event: other.to_string(),
                data: serde_json::from_str(data).unwrap_or(Value::Null),
            },
        })
    }

    /// The `event:` name.
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            BotEvent::Challenge(_) => "challenge",
            BotEvent::ChallengeClosed(_) => "challenge_closed",
            BotEvent::SetStarted(_) => "set_started",
            BotEvent::YourTurn(_) => "your_turn",
            BotEvent::GameFinished(_) => "game_finished",
            BotEvent::SetFinished(_) => "set_finished",
            BotEvent::SetClosed(_) => "set_closed",
            BotEvent::Other { event, .. } => event,
        }
    }
}

/// The data of the public stream's `set` event: a set changed (its id), or `null`: reload
/// everything (the stream missed some changes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublicEvent {
    /// The set that changed, or null.
    pub set_id: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_event_is_kept_and_a_known_one_with_a_wrong_shape_is_an_error() {
        let e = BotEvent::parse("brand_new", r#"{"x": 1}"#).expect("kept");
        assert_eq!(e.name(), "brand_new");
        assert!(matches!(e, BotEvent::Other { ref data, .. } if data["x"] == 1));
        assert!(BotEvent::parse("your_turn", r#"{"set": {}}"#).is_err());
    }
}
