//! What a bot declares it accepts, and how many sets it plays at once (issue 20; SPEC 8 for
//! stakes, 7 for clocks, 2 for options). A set another bot starts with it (a challenge aimed at
//! it, an accept of its open challenge, later a tournament pairing) outside the declared ranges
//! or beyond its capacity is refused with 422 `not_accepted`, `details.option` naming the
//! option. A bot's own accept and practice are never refused by its own declarations (it chose
//! the set); its own challenge must lie within its own ranges (an accept checks them, so one
//! outside could never start), and starts only while it has room (capacity is checked when
//! the challenge is accepted, a house bot's at once).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::error::{ArenaError, ArenaResult, Code};
use super::options::{GameOptions, INCREMENT_S, INITIAL_S, STAKE_MAX};
use crate::store::Backend;
use crate::store::Conn;
use crate::store::accounts::{self as acc, BotRow};

/// The contract's limits of each option, `[min, max]`: board `size` 9..=19, `random_stones`
/// 0..=10, `initial_s` 10..=600, `increment_s` 0..=10, `stake` 0 (unstaked) ..=1000.
pub const LIMITS: [(&str, [i64; 2]); 5] = [
    ("sizes", [9, 19]),
    ("random_stones", [0, 10]),
    ("initial_s", [INITIAL_S.0, INITIAL_S.1]),
    ("increment_s", [INCREMENT_S.0, INCREMENT_S.1]),
    ("stake", [0, STAKE_MAX]),
];

/// Largest `max_concurrent_sets` a bot may declare.
pub const MAX_CONCURRENT_MAX: i64 = 1000;

/// Declared ranges, each `[min, max]` inclusive; an absent range is the contract's limit.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Accepts {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<[i64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_stones: Option<[i64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_s: Option<[i64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub increment_s: Option<[i64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stake: Option<[i64; 2]>,
}

impl Accepts {
    /// The declared range of an option by its name in [`LIMITS`].
    #[must_use]
    pub fn range(&self, option: &str) -> Option<[i64; 2]> {
        match option {
            "sizes" => self.sizes,
            "random_stones" => self.random_stones,
            "initial_s" => self.initial_s,
            "increment_s" => self.increment_s,
            "stake" => self.stake,
            _ => None,
        }
    }

    /// The stored accepts of a bot; unreadable text counts as none declared (the column is
    /// only written from a validated body).
    #[must_use]
    pub fn of_bot(b: &BotRow) -> Accepts {
        b.accepts
            .as_deref()
            .and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or_default()
    }

    /// Every option with its effective range (declared, else the contract's), as the profile
    /// shows them: `{"sizes": [9, 19], ...}`.
    #[must_use]
    pub fn effective_json(&self) -> Value {
        let mut o = serde_json::Map::new();
        for (name, limit) in LIMITS {
            o.insert(name.into(), json!(self.range(name).unwrap_or(limit)));
        }
        Value::Object(o)
    }
}

/// A refusal by a bot's declarations: which bot, which option, the value asked and the range
/// it accepts (`range` None for `max_concurrent_sets`, whose `limit` is the capacity).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAccepted {
    pub bot: String,
    pub option: &'static str,
    pub value: i64,
    pub range: Option<[i64; 2]>,
    pub limit: Option<i64>,
}

impl From<NotAccepted> for ArenaError {
    fn from(n: NotAccepted) -> Self {
        let message = match (n.range, n.limit) {
            (Some([lo, hi]), _) => format!(
                "{} does not accept {} {} (it accepts {lo} to {hi})",
                n.bot, n.option, n.value
            ),
            (None, Some(cap)) => format!(
                "{} plays at most {cap} sets at once and is playing {}",
                n.bot, n.value
            ),
            (None, None) => format!("{} does not accept this {}", n.bot, n.option),
        };
        let mut details = json!({"bot": n.bot, "option": n.option, "value": n.value});
        if let Some(r) = n.range {
            details["accepts"] = json!(r);
        }
        if let Some(l) = n.limit {
            details["limit"] = json!(l);
        }
        ArenaError::new(Code::NotAccepted, message).with_details(details)
    }
}

/// Whether `bot` accepts a set with these options, clock (ms, whole seconds as the API takes
/// them) and stake (0 = unstaked), by its declared ranges; the first option outside them, in
/// the order of [`LIMITS`], is named. Pure: capacity is [`capacity_check`].
pub fn accepts_check(
    bot: &BotRow,
    options: &GameOptions,
    initial_ms: i64,
    increment_ms: i64,
    stake: i64,
) -> Result<(), NotAccepted> {
    let a = Accepts::of_bot(bot);
    let asked = [
        ("sizes", options.size),
        ("random_stones", options.random_stones),
        ("initial_s", initial_ms / 1000),
        ("increment_s", increment_ms / 1000),
        ("stake", stake),
    ];
    for (option, value) in asked {
        if let Some([lo, hi]) = a.range(option)
            && !(lo..=hi).contains(&value)
        {
            return Err(NotAccepted {
                bot: bot.name.clone(),
                option,
                value,
                range: Some([lo, hi]),
                limit: None,
            });
        }
    }
    Ok(())
}

/// Refuses one more set for `bot` when it already plays its declared `max_concurrent_sets`
/// (`details.option: "max_concurrent_sets"`), inside the caller's write transaction. On
/// PostgreSQL the bot's row is locked first, so two sets starting at once cannot both take
/// its last place. Errors: database.
pub async fn capacity_check(c: &mut Conn, bot: &BotRow, backend: Backend) -> ArenaResult<()> {
    let Some(cap) = bot.max_concurrent_sets else {
        return Ok(());
    };
    acc::lock_bots(c, &[bot.id.as_str()], backend).await?;
    let playing = acc::active_sets_of(c, &bot.id).await?;
    if playing >= cap {
        return Err(NotAccepted {
            bot: bot.name.clone(),
            option: "max_concurrent_sets",
            value: playing,
            range: None,
            limit: Some(cap),
        }
        .into());
    }
    Ok(())
}

/// Both checks for a set another bot starts with `bot`, inside the caller's write transaction.
pub async fn admit(
    c: &mut Conn,
    backend: Backend,
    bot: &BotRow,
    options: &GameOptions,
    clock_ms: (i64, i64),
    stake: i64,
) -> ArenaResult<()> {
    accepts_check(bot, options, clock_ms.0, clock_ms.1, stake)?;
    capacity_check(c, bot, backend).await
}

/// A validated `PATCH /v1/bots/me` body: `accepts` (replaces the declared ranges; `null`
/// clears them) and `max_concurrent_sets` (`null` clears it). `None`: the field was absent.
#[derive(Debug, Default, PartialEq)]
pub struct Declare {
    pub accepts: Option<Accepts>,
    pub max_concurrent_sets: Option<Option<i64>>,
}

fn bad(field: String, message: String) -> ArenaError {
    ArenaError::bad_request(message).with_details(json!({"field": field}))
}

/// Parses and checks a `PATCH /v1/bots/me` body. Errors: 400 `bad_request` with
/// `details.field` for an unknown field, a range that is not two integers, min above max, a
/// bound outside the contract's limits, or a capacity outside 1..=1000.
pub fn parse_declare(body: &Value) -> ArenaResult<Declare> {
    let Some(o) = body.as_object() else {
        return Err(ArenaError::bad_request("the body must be a JSON object"));
    };
    let mut out = Declare::default();
    for (k, v) in o {
        match k.as_str() {
            "accepts" => out.accepts = Some(parse_accepts(v)?),
            "max_concurrent_sets" => {
                out.max_concurrent_sets = Some(match v {
                    Value::Null => None,
                    v => match hexarena_contract::numbers::integral(v) {
                        Some(n) if (1..=MAX_CONCURRENT_MAX).contains(&n) => Some(n),
                        _ => {
                            return Err(ArenaError::bad_request(format!(
                                "max_concurrent_sets must be an integer 1 to {MAX_CONCURRENT_MAX}, or null"
                            ))
                            .with_details(json!({"field": "max_concurrent_sets", "min": 1,
                                                 "max": MAX_CONCURRENT_MAX})));
                        }
                    },
                });
            }
            other => {
                return Err(ArenaError::bad_request(format!("unknown field '{other}'"))
                    .with_details(
                        json!({"field": other, "allowed": ["accepts", "max_concurrent_sets"]}),
                    ));
            }
        }
    }
    Ok(out)
}

fn parse_accepts(v: &Value) -> ArenaResult<Accepts> {
    let mut a = Accepts::default();
    let o = match v {
        Value::Null => return Ok(a),
        Value::Object(o) => o,
        _ => {
            return Err(bad(
                "accepts".into(),
                "accepts must be an object of [min, max] ranges".into(),
            ));
        }
    };
    for (k, v) in o {
        let Some((name, [lo, hi])) = LIMITS.iter().find(|(n, _)| n == k).copied() else {
            let names: Vec<&str> = LIMITS.iter().map(|(n, _)| *n).collect();
            return Err(
                ArenaError::bad_request(format!("unknown field 'accepts.{k}'"))
                    .with_details(json!({"field": format!("accepts.{k}"), "allowed": names})),
            );
        };
        let field = format!("accepts.{name}");
        let range = match v.as_array().map(Vec::as_slice) {
            Some([a, b]) => match (
                hexarena_contract::numbers::integral(a),
                hexarena_contract::numbers::integral(b),
            ) {
                (Some(a), Some(b)) => [a, b],
                _ => return Err(bad(field, format!("accepts.{name} must be two integers"))),
            },
            _ => return Err(bad(field, format!("accepts.{name} must be [min, max]"))),
        };
        if range[0] > range[1] {
            return Err(bad(
                field,
                format!("accepts.{name}: min {} is above max {}", range[0], range[1]),
            ));
        }
        if range[0] < lo || range[1] > hi {
            return Err(ArenaError::bad_request(format!(
                "accepts.{name} must lie within {lo} to {hi}"
            ))
            .with_details(json!({"field": field, "min": lo, "max": hi})));
        }
        // A stake is 0 or 10..=1000: a range holding neither admits no set at all.
        if name == "stake" && range[0] > 0 && range[1] < super::options::STAKE_MIN {
            return Err(bad(
                field,
                format!(
                    "accepts.stake [{}, {}] admits no stake: a stake is 0 or {} to {}",
                    range[0],
                    range[1],
                    super::options::STAKE_MIN,
                    super::options::STAKE_MAX
                ),
            ));
        }
        match name {
            "sizes" => a.sizes = Some(range),
            "random_stones" => a.random_stones = Some(range),
            "initial_s" => a.initial_s = Some(range),
            "increment_s" => a.increment_s = Some(range),
            _ => a.stake = Some(range),
        }
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bot(accepts: &str) -> BotRow {
        BotRow {
            name: "b".into(),
            accepts: Some(accepts.into()),
            ..BotRow::default()
        }
    }

    #[test]
    fn an_option_outside_a_declared_range_is_named() {
        let b = bot(r#"{"sizes":[9,13],"stake":[0,50]}"#);
        let o = GameOptions {
            size: 15,
            random_stones: 4,
        };
        let e = accepts_check(&b, &o, 60_000, 2_000, 10).expect_err("size 15 is outside");
        assert_eq!(e.option, "sizes");
        assert_eq!(e.range, Some([9, 13]));
        let o = GameOptions {
            size: 13,
            random_stones: 4,
        };
        assert_eq!(accepts_check(&b, &o, 60_000, 2_000, 50), Ok(()));
        let e = accepts_check(&b, &o, 60_000, 2_000, 100).expect_err("stake 100 is outside");
        assert_eq!((e.option, e.value), ("stake", 100));
    }

    #[test]
    fn a_bot_without_declarations_accepts_everything_the_contract_allows() {
        let b = BotRow::default();
        let o = GameOptions {
            size: 19,
            random_stones: 10,
        };
        assert_eq!(accepts_check(&b, &o, 600_000, 10_000, 1000), Ok(()));
        assert_eq!(
            Accepts::of_bot(&b).effective_json(),
            json!({"sizes": [9, 19], "random_stones": [0, 10], "initial_s": [10, 600],
                   "increment_s": [0, 10], "stake": [0, 1000]})
        );
    }

    #[test]
    fn the_patch_body_is_checked_field_by_field() {
        let field = |v: Value| {
            parse_declare(&v).expect_err("refused").details["field"]
                .as_str()
                .map(String::from)
        };
        assert_eq!(
            field(json!({"accepts": {"sizes": [13, 9]}})).as_deref(),
            Some("accepts.sizes")
        );
        assert_eq!(
            field(json!({"accepts": {"sizes": [7, 9]}})).as_deref(),
            Some("accepts.sizes")
        );
        assert_eq!(
            field(json!({"accepts": {"colour": [0, 1]}})).as_deref(),
            Some("accepts.colour")
        );
        assert_eq!(field(json!({"nope": 1})).as_deref(), Some("nope"));
        // No stake is 5..9: such a range admits nothing.
        assert_eq!(
            field(json!({"accepts": {"stake": [5, 9]}})).as_deref(),
            Some("accepts.stake")
        );
        // Whole floats are integers (agents.md conventions).
        let d =
            parse_declare(&json!({"accepts": {"sizes": [11.0, 13e0]}, "max_concurrent_sets": 2.0}))
                .expect("valid");
        assert_eq!(d.accepts.and_then(|a| a.sizes), Some([11, 13]));
        assert_eq!(d.max_concurrent_sets, Some(Some(2)));
        assert_eq!(
            field(json!({"max_concurrent_sets": 0})).as_deref(),
            Some("max_concurrent_sets")
        );
        let d = parse_declare(&json!({"accepts": {"stake": [0, 100]}, "max_concurrent_sets": 2}))
            .expect("valid");
        assert_eq!(d.accepts.and_then(|a| a.stake), Some([0, 100]));
        assert_eq!(d.max_concurrent_sets, Some(Some(2)));
    }
}
