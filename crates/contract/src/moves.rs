//! The move body (SPEC section 6, agents.md section 3): exactly one of `{"cell": [row, col]}`
//! or `{"swap": true}`.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A move as a bot posts it and as `legal_moves` lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MoveBody {
    /// `{"cell": [row, col]}`, both 0-based from the top-left corner.
    Cell([u8; 2]),
    /// `{"swap": true}`: seat 2's first move when `random_stones` is 0.
    Swap,
}

impl MoveBody {
    /// The cell `[row, col]`.
    #[must_use]
    pub fn cell(row: u8, col: u8) -> MoveBody {
        MoveBody::Cell([row, col])
    }

    /// The human name: `a1` style (column letter, then row from 1), or `swap`.
    #[must_use]
    pub fn name(&self) -> String {
        match self {
            MoveBody::Cell([r, c]) => cell_name(*r, *c),
            MoveBody::Swap => "swap".to_string(),
        }
    }
}

/// `[row, col]` in the `a1` notation: column letter `a..z`, then the row counted from 1.
#[must_use]
pub fn cell_name(row: u8, col: u8) -> String {
    let letter = char::from(b'a'.saturating_add(col.min(25)));
    format!("{letter}{}", u32::from(row) + 1)
}

/// The wire shape: both keys optional, exactly one present.
#[derive(Serialize, Deserialize)]
struct Wire {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cell: Option<[u8; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    swap: Option<bool>,
}

impl Serialize for MoveBody {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let wire = match self {
            MoveBody::Cell(c) => Wire {
                cell: Some(*c),
                swap: None,
            },
            MoveBody::Swap => Wire {
                cell: None,
                swap: Some(true),
            },
        };
        wire.serialize(s)
    }
}

impl<'de> Deserialize<'de> for MoveBody {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<MoveBody, D::Error> {
        match Wire::deserialize(d)? {
            Wire {
                cell: Some(c),
                swap: None,
            } => Ok(MoveBody::Cell(c)),
            Wire {
                cell: None,
                swap: Some(true),
            } => Ok(MoveBody::Swap),
            _ => Err(D::Error::custom(
                "a move has exactly one of 'cell' or 'swap': true",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_move_reads_and_writes_the_two_wire_shapes_and_refuses_the_rest() {
        let cell: MoveBody = serde_json::from_value(json!({"cell": [2, 4]})).expect("a cell");
        assert_eq!(cell, MoveBody::cell(2, 4));
        assert_eq!(cell.name(), "e3");
        assert_eq!(
            serde_json::to_value(cell).expect("serializes"),
            json!({"cell": [2, 4]})
        );
        let swap: MoveBody = serde_json::from_value(json!({"swap": true})).expect("a swap");
        assert_eq!(swap, MoveBody::Swap);
        assert_eq!(
            serde_json::to_value(swap).expect("serializes"),
            json!({"swap": true})
        );
        for bad in [
            json!({}),
            json!({"swap": false}),
            json!({"cell": [1, 2], "swap": true}),
            json!({"cell": [1]}),
        ] {
            assert!(
                serde_json::from_value::<MoveBody>(bad.clone()).is_err(),
                "{bad}"
            );
        }
        assert_eq!(cell_name(10, 10), "k11");
    }
}
