//! A set's options and their limits (SPEC sections 5, 7, 8): board, opening, clock and stake,
//! as the routes that create sets, the accepts a bot declares and the pool all check them.

use serde::Deserialize;
use serde_json::json;

use super::error::{ArenaError, ArenaResult};

/// Stake limits (SPEC section 8).
pub const STAKE_MIN: i64 = 10;
pub const STAKE_MAX: i64 = 1000;
pub const STAKE_DEFAULT: i64 = 10;
/// Clock limits and defaults (SPEC section 7), seconds.
pub const INITIAL_S: (i64, i64, i64) = (10, 600, 60);
pub const INCREMENT_S: (i64, i64, i64) = (0, 10, 2);

/// Options of a game after schema validation; defaults filled in.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct GameOptions {
    #[serde(default = "default_size")]
    pub size: i64,
    #[serde(default = "default_stones")]
    pub random_stones: i64,
}
fn default_size() -> i64 {
    11
}
fn default_stones() -> i64 {
    4
}
impl Default for GameOptions {
    fn default() -> Self {
        GameOptions {
            size: 11,
            random_stones: 4,
        }
    }
}

/// A requested clock, seconds.
#[derive(Debug, Clone, Copy, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ClockRequest {
    pub initial_s: Option<i64>,
    pub increment_s: Option<i64>,
}

impl ClockRequest {
    /// Validated (initial_ms, increment_ms). Errors: 400 `bad_request` naming the field and range.
    pub fn resolve(&self) -> ArenaResult<(i64, i64)> {
        let initial = self.initial_s.unwrap_or(INITIAL_S.2);
        let inc = self.increment_s.unwrap_or(INCREMENT_S.2);
        for (field, v, (min, max, _)) in [
            ("clock.initial_s", initial, INITIAL_S),
            ("clock.increment_s", inc, INCREMENT_S),
        ] {
            if !(min..=max).contains(&v) {
                return Err(
                    ArenaError::bad_request(format!("{field} must be {min} to {max}"))
                        .with_details(json!({"field": field, "min": min, "max": max, "value": v})),
                );
            }
        }
        Ok((initial * 1000, inc * 1000))
    }
}

/// 400 `bad_request` naming `stake`, with its range up to `max`. A `max` of 0 (a bot that
/// plays only unstaked sets) says what to send, since a challenge without `stake` is staked.
pub(crate) fn stake_error(msg: String, max: i64) -> ArenaError {
    let msg = if max == 0 {
        format!(
            "{msg}: only unstaked sets, send \"stake\": 0 (a challenge without it is staked at {STAKE_DEFAULT})"
        )
    } else {
        msg
    };
    ArenaError::bad_request(msg)
        .with_details(json!({"field": "stake", "min": STAKE_MIN, "max": max}))
}
