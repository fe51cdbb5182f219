//! The machine-readable contract (SPEC sections 4 and 11) and the schema checks built from it.

use actix_web::{HttpResponse, web};
use hex::{Cell, Move};
use serde_json::{Value, json};

use super::AppState;
use crate::arena::options::{
    GameOptions, INCREMENT_S, INITIAL_S, STAKE_DEFAULT, STAKE_MAX, STAKE_MIN,
};
use crate::error::ApiError;

/// The schema files, served as they are and used for validation.
pub const MOVE_SCHEMA: &str = include_str!("../../schemas/move.json");
pub const OPTIONS_SCHEMA: &str = include_str!("../../schemas/options.json");

/// Compiled validators of the two schemas (built once, shared).
pub struct Schemas {
    pub move_json: Value,
    pub options_json: Value,
    move_v: jsonschema::Validator,
    options_v: jsonschema::Validator,
}

impl Schemas {
    /// Parses and compiles the schema files. Errors only if a file is broken (a build defect).
    pub fn load() -> anyhow::Result<Schemas> {
        let move_json: Value = serde_json::from_str(MOVE_SCHEMA)?;
        let options_json: Value = serde_json::from_str(OPTIONS_SCHEMA)?;
        let move_v = jsonschema::validator_for(&move_json)
            .map_err(|e| anyhow::anyhow!("move schema: {e}"))?;
        let options_v = jsonschema::validator_for(&options_json)
            .map_err(|e| anyhow::anyhow!("options schema: {e}"))?;
        Ok(Schemas {
            move_json,
            options_json,
            move_v,
            options_v,
        })
    }

    /// A move body checked against `move_schema`, then for exactly one of `cell` / `swap`.
    /// Errors: 400 `invalid_move` with the schema error's instance path.
    pub fn parse_move(&self, body: &Value) -> Result<Move, ApiError> {
        schema_errors(&self.move_v, body, "the move").map_err(|(path, errors)| {
            ApiError::invalid_move(format!(
                "move does not match move_schema: {}; {MOVE_SHAPES}",
                errors[0]
            ))
            .with_details(json!({"instance_path": path, "errors": errors}))
        })?;
        match (body.get("cell"), body.get("swap")) {
            (Some(cell), None) => {
                let rc: Option<Vec<u8>> = cell.as_array().map(|a| {
                    a.iter()
                        .filter_map(integral)
                        .filter_map(|x| u8::try_from(x).ok())
                        .collect()
                });
                match rc.as_deref() {
                    Some([r, c]) => Ok(Move::Place(Cell::new(*r, *c))),
                    _ => Err(ApiError::invalid_move("cell must be [row, col]")),
                }
            }
            (None, Some(_)) => Ok(Move::Swap),
            _ => Err(ApiError::invalid_move(format!(
                "a move has exactly one of 'cell' or 'swap'; {MOVE_SHAPES}"
            ))
            .with_details(json!({"instance_path": ""}))),
        }
    }

    /// Set options checked against `options_schema`, defaults filled in.
    /// Errors: 400 `invalid_options` with the instance path.
    pub fn parse_options(&self, options: Option<&Value>) -> Result<GameOptions, ApiError> {
        let Some(v) = options.filter(|v| !v.is_null()) else {
            return Ok(GameOptions::default());
        };
        schema_errors(&self.options_v, v, "options").map_err(|(path, errors)| {
            ApiError::invalid_options(format!(
                "options do not match options_schema: {}",
                errors[0]
            ))
            .with_details(json!({"instance_path": path, "errors": errors}))
        })?;
        // The schema passed, so each present field is an integer in range (maybe written `11.0`).
        let field = |name: &str, default: i64| v.get(name).and_then(integral).unwrap_or(default);
        Ok(GameOptions {
            size: field("size", 11),
            random_stones: field("random_stones", 4),
        })
    }
}

/// A JSON number that JSON Schema calls an integer: `7`, and also `7.0` or `7e0`.
pub use hexarena_contract::numbers::integral;

/// What a move body looks like, for the errors of a body that is not one.
const MOVE_SHAPES: &str = r#"a move is {"cell": [row, col]} or {"swap": true}"#;

/// First error's instance path and all messages, if the value does not validate. Each
/// message starts with the JSON pointer of what it is about, or with `whole` (`the move`,
/// `options`) when that is the value itself, whose pointer is empty.
fn schema_errors(
    v: &jsonschema::Validator,
    value: &Value,
    whole: &str,
) -> Result<(), (String, Vec<String>)> {
    let errors: Vec<_> = v.iter_errors(value).collect();
    let at = |e: &jsonschema::ValidationError| match e.instance_path().as_str() {
        "" => whole.to_string(),
        path => path.to_string(),
    };
    match errors.first() {
        None => Ok(()),
        Some(first) => Err((
            first.instance_path().as_str().to_string(),
            errors.iter().map(|e| format!("{}: {e}", at(e))).collect(),
        )),
    }
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/v1/games", web::get().to(list_games))
        .route("/v1/games/hex", web::get().to(get_contract));
}

async fn list_games() -> HttpResponse {
    HttpResponse::Ok()
        .json(json!({"games": [{"id": "hex", "name": "Hex", "url": "/v1/games/hex"}]}))
}

/// The whole contract of the Hex game.
pub fn contract(st: &AppState) -> Value {
    json!({
        "id": "hex",
        "name": "Hex",
        "seats": 2,
        "rules": "Two seats take turns placing one stone on an empty cell of a size x size rhombus. \
                  Seat 1 (red) moves first and wins by linking the top and bottom edges with a chain \
                  of its stones; seat 2 (blue) links left and right. Corner cells touch both edges. \
                  Cell [r, c] touches [r-1, c], [r-1, c+1], [r, c-1], [r, c+1], [r+1, c-1] and [r+1, c]. \
                  With random_stones = 0, seat 2 may answer the first move with {\"swap\": true}: the \
                  stone becomes seat 2's, the seats exchange edges and seat 1 moves next. A set is two \
                  games from one seeded opening with the seats swapped.",
        "move_schema": st.schemas.move_json,
        "options_schema": st.schemas.options_json,
        "default_options": {"random_stones": 4, "size": 11},
        "clock": {
            "type": "fischer",
            "initial_s": INITIAL_S.2,
            "increment_s": INCREMENT_S.2,
            "initial_s_range": [INITIAL_S.0, INITIAL_S.1],
            "increment_s_range": [INCREMENT_S.0, INCREMENT_S.1],
            "first_move_s": crate::arena::clock::FIRST_MOVE_MS / 1000,
        },
        "max_moves": hex::MAX_MOVES,
        "stakes": {
            "currency": "PTS",
            "min": STAKE_MIN,
            "max": STAKE_MAX,
            "default": STAKE_DEFAULT,
            "default_max_stake": crate::arena::accounts::DEFAULT_MAX_STAKE,
            "fee_bps": st.arena.config.fee_bps,
            // SPEC 14: `stake: 0` is an unstaked set; min..=max applies to staked sets only.
            "unstaked": 0,
            "unstaked_rated_default": false,
        },
        "tiebreak": "fewer_moves",
        "ratings": ratings_contract(),
        "tier": "ranked",
        "chance": "none",
        "information": "perfect",
    })
}

/// Which rating systems the arena keeps and their parameters (SPEC 8, issue 20): Elo orders
/// the leaderboard; Glicko-2 says how sure that is.
fn ratings_contract() -> Value {
    use crate::arena::{glicko, house};
    json!({
        "order": "elo",
        "result": "one per rated set: a win 1, a draw 0.5, a loss 0 (points, then the tiebreak)",
        "elo": {"field": "rating", "start": 1200, "k": 32},
        "glicko2": {
            "field": "glicko_rating",
            "deviation_field": "rating_deviation",
            "start": glicko::START_RATING,
            "start_deviation": glicko::MAX_DEVIATION,
            "max_deviation": glicko::MAX_DEVIATION,
            "start_volatility": glicko::START_VOLATILITY,
            "tau": glicko::TAU,
            "rating_period": "each rated set, plus one empty period per whole day without one",
            "inactivity_period_s": glicko::PERIOD_MS / 1000,
            "provisional_above": glicko::PROVISIONAL_ABOVE,
            "house_seed_deviation": house::HOUSE_SEED_DEVIATION,
        },
    })
}

async fn get_contract(st: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(contract(&st))
}
