//! The contract endpoint and the schema files (SPEC sections 4 and 11).

mod common;

use common::spawn_app;
use reqwest::StatusCode;
use serde_json::{Value, json};

#[tokio::test]
async fn the_contract_serves_the_schema_files_and_the_defaults() {
    let app = spawn_app().await;
    let r = app.get_contract("hex").await;
    assert_eq!(r.status, StatusCode::OK);
    let move_file: Value =
        serde_json::from_str(include_str!("../schemas/move.json")).expect("move.json");
    let options_file: Value =
        serde_json::from_str(include_str!("../schemas/options.json")).expect("options.json");
    assert_eq!(r.body["move_schema"], move_file);
    assert_eq!(r.body["options_schema"], options_file);
    assert_eq!(
        r.body["default_options"],
        json!({"random_stones": 4, "size": 11})
    );
    assert_eq!(r.body["clock"]["initial_s"], 60);
    assert_eq!(r.body["clock"]["increment_s"], 2);
    assert_eq!(r.body["clock"]["first_move_s"], 30);
    assert_eq!(r.body["clock"]["initial_s_range"], json!([10, 600]));
    assert_eq!(r.body["clock"]["increment_s_range"], json!([0, 10]));
    assert_eq!(r.body["max_moves"], 362);
    assert_eq!(
        r.body["stakes"],
        json!({"currency": "PTS", "min": 10, "max": 1000, "default": 10, "default_max_stake": 500, "fee_bps": 0,
               "unstaked": 0, "unstaked_rated_default": false})
    );
    assert_eq!(r.body["tiebreak"], "fewer_moves");
    assert_eq!(r.body["tier"], "ranked");
    assert_eq!(r.body["chance"], "none");
    assert_eq!(r.body["information"], "perfect");
    assert_eq!(r.body["seats"], 2);
    let games = app.list_games().await;
    assert_eq!(games.body["games"][0]["id"], "hex");
}

#[tokio::test]
async fn the_schema_files_equal_the_spec_documents() {
    // SPEC section 11, as parsed JSON.
    let spec_move = json!({"additionalProperties": false,
        "properties": {"cell": {"items": {"maximum": 18, "minimum": 0, "type": "integer"},
                                "maxItems": 2, "minItems": 2, "type": "array"},
                       "swap": {"const": true, "type": "boolean"}},
        "type": "object"});
    let spec_options = json!({"additionalProperties": false,
        "properties": {"random_stones": {"default": 4, "description": "Stones per side placed at random before the first move; 0 allows the swap rule.", "maximum": 10, "minimum": 0, "title": "Opening stones", "type": "integer"},
                       "size": {"default": 11, "description": "Cells along each side of the rhombus.", "maximum": 19, "minimum": 9, "title": "Board size", "type": "integer"}},
        "type": "object"});
    let move_file: Value =
        serde_json::from_str(include_str!("../schemas/move.json")).expect("move.json");
    let options_file: Value =
        serde_json::from_str(include_str!("../schemas/options.json")).expect("options.json");
    assert_eq!(move_file, spec_move);
    assert_eq!(options_file, spec_options);
}
