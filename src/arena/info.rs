//! What a bot thought of its move (issue 21): the optional `Hexarena-Info` request header of a
//! move, a JSON object of at most [`MAX_INFO_BYTES`] bytes with the optional fields `eval` (the
//! mover's win probability, 0..=1), `pv` (at most [`MAX_PV`] cells in `a1` notation), `depth`
//! and `nodes` (non-negative integers) and `comment` (at most [`MAX_COMMENT_CHARS`] characters,
//! no control characters). Pure: parsing and checking only.
//!
//! The info is stored as compact JSON in a fixed field order, and only when it says something
//! (an empty object stores nothing), so a move without it costs no byte more.

use hex::Cell;
use serde_json::{Map, Value, json};

use super::error::{ArenaError, Code};

/// The request header's name.
pub const HEADER: &str = "Hexarena-Info";
/// Largest header value, bytes.
pub const MAX_INFO_BYTES: usize = 1024;
/// Most cells in `pv`.
pub const MAX_PV: usize = 16;
/// Longest `comment`, characters.
pub const MAX_COMMENT_CHARS: usize = 140;

/// A checked info: its compact JSON (what is stored and served) and the cells of its `pv`
/// (checked against the board when the move is played).
#[derive(Debug, Clone, PartialEq)]
pub struct MoveInfo {
    pub json: String,
    pub pv: Vec<Cell>,
}

/// 400 `invalid_info`, with `details.field` naming the field when one is at fault.
fn invalid(field: Option<&str>, message: impl Into<String>) -> ArenaError {
    let e = ArenaError::new(Code::InvalidInfo, message);
    match field {
        Some(f) => e.with_details(json!({"header": HEADER, "field": f})),
        None => e.with_details(json!({"header": HEADER})),
    }
}

/// A non-negative integer field.
fn count(v: &Value, field: &str) -> Result<u64, ArenaError> {
    hexarena_contract::numbers::non_negative(v).ok_or_else(|| {
        invalid(
            Some(field),
            format!("{field} must be a non-negative integer"),
        )
    })
}

/// Reads a header value. `Ok(None)` for `{}` (nothing to store). Errors are 400
/// `invalid_info`: over 1,024 bytes, not a JSON object, an unknown field or a field out of range
/// (`details.field` names it).
pub fn parse(raw: &[u8]) -> Result<Option<MoveInfo>, ArenaError> {
    if raw.len() > MAX_INFO_BYTES {
        return Err(invalid(
            None,
            format!(
                "{HEADER} is {} bytes; at most {MAX_INFO_BYTES} are allowed",
                raw.len()
            ),
        ));
    }
    let obj: Map<String, Value> = serde_json::from_slice(raw)
        .map_err(|e| invalid(None, format!("{HEADER} is not a JSON object: {e}")))?;
    let mut out = Map::new();
    let mut pv = vec![];
    // A fixed order, whatever the bot sent.
    for key in obj.keys() {
        if !["eval", "pv", "depth", "nodes", "comment"].contains(&key.as_str()) {
            return Err(invalid(
                Some(key),
                format!("unknown field {key:?}; allowed: eval, pv, depth, nodes, comment"),
            ));
        }
    }
    if let Some(v) = obj.get("eval") {
        let e = v
            .as_f64()
            .filter(|e| (0.0..=1.0).contains(e))
            .ok_or_else(|| invalid(Some("eval"), "eval must be a number from 0 to 1"))?;
        // -0.0 is 0 (it would be served and written as "-0.0").
        out.insert("eval".into(), json!(e + 0.0));
    }
    if let Some(v) = obj.get("pv") {
        let bad = || {
            invalid(
                Some("pv"),
                format!("pv must be an array of at most {MAX_PV} cell names such as \"e5\""),
            )
        };
        let items = v.as_array().filter(|a| a.len() <= MAX_PV).ok_or_else(bad)?;
        let mut names = vec![];
        for item in items {
            let cell = item
                .as_str()
                .and_then(hex::parse_cell_name)
                .ok_or_else(bad)?;
            names.push(Value::String(hex::cell_name(cell)));
            pv.push(cell);
        }
        out.insert("pv".into(), Value::Array(names));
    }
    for field in ["depth", "nodes"] {
        if let Some(v) = obj.get(field) {
            out.insert(field.into(), json!(count(v, field)?));
        }
    }
    if let Some(v) = obj.get("comment") {
        let text = v
            .as_str()
            .filter(|t| t.chars().count() <= MAX_COMMENT_CHARS && !t.chars().any(char::is_control))
            .ok_or_else(|| {
                invalid(
                    Some("comment"),
                    format!(
                        "comment must be a string of at most {MAX_COMMENT_CHARS} characters without control characters"
                    ),
                )
            })?;
        // Shown in the game state and the SGF: refused as a name would be (a bidirectional
        // override would make the text around it read backwards).
        if let Some(c) = super::accounts::hidden_char(text) {
            let code_point = format!("U+{:04X}", u32::from(c));
            return Err(ArenaError::new(
                Code::InvalidInfo,
                format!(
                    "comment may not contain {code_point} (a control, invisible, bidirectional formatting or combining character with nothing to combine with)"
                ),
            )
            .with_details(json!({"header": HEADER, "field": "comment", "code_point": code_point})));
        }
        out.insert("comment".into(), Value::String(text.to_string()));
    }
    if out.is_empty() {
        return Ok(None);
    }
    let json = ordered_json(&out);
    Ok(Some(MoveInfo { json, pv }))
}

/// What a house bot's search knew of its move, as the info a bot may send with its own: `eval`
/// (the mover's win rate after the move, to 3 decimals), `pv` (the search's line from the move
/// on, at most [`MAX_PV`] cells, a swap left out) and `nodes` (its playouts). None only if the
/// search's figures could not pass the checks a bot's info passes (they always do).
#[must_use]
pub fn of_search(s: &hex_search::SearchInfo) -> Option<MoveInfo> {
    let pv = s.pv_names(MAX_PV);
    let mut fields = Map::new();
    fields.insert(
        "eval".into(),
        json!((s.win_rate.clamp(0.0, 1.0) * 1000.0).round() / 1000.0),
    );
    if !pv.is_empty() {
        fields.insert("pv".into(), json!(pv));
    }
    fields.insert("nodes".into(), json!(s.playouts));
    parse(Value::Object(fields).to_string().as_bytes())
        .ok()
        .flatten()
}

/// The fields in the order of the contract (eval, pv, depth, nodes, comment), compact.
fn ordered_json(fields: &Map<String, Value>) -> String {
    let mut parts = vec![];
    for key in ["eval", "pv", "depth", "nodes", "comment"] {
        if let Some(v) = fields.get(key) {
            parts.push(format!("\"{key}\":{v}"));
        }
    }
    format!("{{{}}}", parts.join(","))
}

impl MoveInfo {
    /// Checks that every `pv` cell lies on a board of `size` (400 `invalid_info`, field `pv`).
    pub fn check_board(&self, size: i64) -> Result<(), ArenaError> {
        match self
            .pv
            .iter()
            .find(|c| i64::from(c.row) >= size || i64::from(c.col) >= size)
        {
            Some(c) => Err(invalid(
                Some("pv"),
                format!(
                    "pv cell {} is off this {size}x{size} board",
                    hex::cell_name(*c)
                ),
            )),
            None => Ok(()),
        }
    }
}

/// The SGF comment of a stored info (compact JSON): `eval 0.62 depth 4 nodes 1200 pv e5 f6:
/// comment`, the fields the bot sent in that order.
pub fn sgf_comment(info: &Value) -> Option<String> {
    let obj = info.as_object()?;
    let mut words = vec![];
    if let Some(e) = obj.get("eval").and_then(Value::as_f64) {
        words.push(format!("eval {e:.3}"));
    }
    for field in ["depth", "nodes"] {
        if let Some(n) = obj.get(field).and_then(Value::as_u64) {
            words.push(format!("{field} {n}"));
        }
    }
    if let Some(pv) = obj.get("pv").and_then(Value::as_array) {
        let cells: Vec<&str> = pv.iter().filter_map(Value::as_str).collect();
        if !cells.is_empty() {
            words.push(format!("pv {}", cells.join(" ")));
        }
    }
    let mut text = words.join(" ");
    // A comment stored before such characters were refused is left out rather than shown.
    let shown = |c: &&str| super::accounts::hidden_char(c).is_none();
    if let Some(c) = obj.get("comment").and_then(Value::as_str).filter(shown) {
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(c);
    }
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_and_field(raw: &str) -> (&'static str, Value) {
        let e = parse(raw.as_bytes()).expect_err(raw);
        (e.code.as_str(), e.details["field"].clone())
    }

    #[test]
    fn a_full_info_is_stored_compactly_in_the_contract_order() {
        let i = parse(br#"{ "comment": "centre", "nodes": 1200, "pv": ["E5", "f6"], "depth": 4, "eval": 0.625 }"#)
            .expect("valid")
            .expect("not empty");
        assert_eq!(
            i.json,
            r#"{"eval":0.625,"pv":["e5","f6"],"depth":4,"nodes":1200,"comment":"centre"}"#
        );
        assert_eq!(i.pv, vec![Cell::new(4, 4), Cell::new(5, 5)]);
        assert!(i.check_board(11).is_ok());
        assert_eq!(
            i.check_board(5).map_err(|e| e.code.as_str()),
            Err("invalid_info")
        );
    }

    #[test]
    fn whole_floats_are_counts_and_a_negative_zero_eval_is_zero() {
        let i = parse(br#"{"eval": -0.0, "depth": 7.0, "nodes": 12e3}"#)
            .expect("valid")
            .expect("not empty");
        assert_eq!(i.json, r#"{"eval":0.0,"depth":7,"nodes":12000}"#);
        assert_eq!(
            code_and_field(r#"{"depth": 7.5}"#),
            ("invalid_info", json!("depth"))
        );
    }

    #[test]
    fn an_empty_object_stores_nothing() {
        assert_eq!(parse(b"{}").map_err(|e| e.code.as_str()), Ok(None));
    }

    #[test]
    fn each_bad_field_is_named() {
        assert_eq!(
            code_and_field(r#"{"eval": 1.5}"#),
            ("invalid_info", json!("eval"))
        );
        assert_eq!(
            code_and_field(r#"{"eval": "high"}"#),
            ("invalid_info", json!("eval"))
        );
        assert_eq!(
            code_and_field(r#"{"pv": ["zz99"]}"#),
            ("invalid_info", json!("pv"))
        );
        assert_eq!(
            code_and_field(r#"{"pv": "e5"}"#),
            ("invalid_info", json!("pv"))
        );
        let long_pv = format!(r#"{{"pv": [{}]}}"#, vec!["\"a1\""; 17].join(","));
        assert_eq!(code_and_field(&long_pv), ("invalid_info", json!("pv")));
        assert_eq!(
            code_and_field(r#"{"depth": -1}"#),
            ("invalid_info", json!("depth"))
        );
        assert_eq!(
            code_and_field(r#"{"nodes": 1.5}"#),
            ("invalid_info", json!("nodes"))
        );
        assert_eq!(
            code_and_field(r#"{"comment": "a\nb"}"#),
            ("invalid_info", json!("comment"))
        );
        // Text that would reorder or hide what is shown around it, as in names.
        for text in [r#""\u202e""#, r#""ok \u200b""#, r#""\u0301a""#] {
            let header = format!(r#"{{"comment": {text}}}"#);
            assert_eq!(
                code_and_field(&header),
                ("invalid_info", json!("comment")),
                "{header}"
            );
        }
        assert!(parse(r#"{"comment": "a\u0301 ok"}"#.as_bytes()).is_ok());
        let long = format!(r#"{{"comment": "{}"}}"#, "x".repeat(141));
        assert_eq!(code_and_field(&long), ("invalid_info", json!("comment")));
        assert_eq!(
            code_and_field(r#"{"score": 3}"#),
            ("invalid_info", json!("score"))
        );
        assert_eq!(code_and_field("[1]"), ("invalid_info", Value::Null));
        assert_eq!(code_and_field("{\"eval\""), ("invalid_info", Value::Null));
    }

    #[test]
    fn a_comment_of_140_characters_fits_and_1025_bytes_do_not() {
        let ok = format!(r#"{{"comment": "{}"}}"#, "é".repeat(140));
        assert!(parse(ok.as_bytes()).is_ok());
        let big = format!(r#"{{"comment": "{}"}}"#, " ".repeat(1024));
        assert_eq!(code_and_field(&big), ("invalid_info", Value::Null));
    }

    #[test]
    fn the_sgf_comment_lists_the_fields_then_the_text() {
        let v = json!({"eval": 0.625, "pv": ["e5", "f6"], "depth": 4, "comment": "centre"});
        assert_eq!(
            sgf_comment(&v).as_deref(),
            Some("eval 0.625 depth 4 pv e5 f6: centre")
        );
        // A comment stored before hidden characters were refused is left out.
        let v = json!({"eval": 0.5, "comment": "ab\u{202e}cd"});
        assert_eq!(sgf_comment(&v).as_deref(), Some("eval 0.500"));
    }
}
