//! Checking a finished set's opening against its revealed seed (agents.md section 10).

use hexarena_contract::SetView;

/// Whether the revealed seed gives the set's opening.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpeningCheck {
    /// The seed gives exactly the set's opening.
    Verified,
    /// The seed gives other cells.
    Mismatch(Vec<[u8; 2]>),
    /// No seed yet (the set has not finished), or not 64 hex digits.
    NoSeed,
    /// The seed could not be expanded for these options.
    NotChecked(String),
}

/// Derives the opening from `set.seed` (SPEC section 2) and compares it with `set.opening`.
#[must_use]
pub fn verify_opening(set: &SetView) -> OpeningCheck {
    let Some(seed) = set.seed.as_deref().and_then(hex::parse_seed_hex) else {
        return OpeningCheck::NoSeed;
    };
    match hex::opening(&seed, set.options.size, set.options.random_stones) {
        Ok(cells) => {
            let cells: Vec<[u8; 2]> = cells.iter().map(|c| [c.row, c.col]).collect();
            if set.opening.as_deref().unwrap_or_default() == cells.as_slice() {
                OpeningCheck::Verified
            } else {
                OpeningCheck::Mismatch(cells)
            }
        }
        Err(e) => OpeningCheck::NotChecked(e.to_string()),
    }
}

/// The check as the `set finished` log line says it ("opening verified", ...).
pub(crate) fn opening_check(set: &SetView) -> String {
    match verify_opening(set) {
        OpeningCheck::Verified => "opening verified".into(),
        OpeningCheck::Mismatch(cells) => format!("OPENING MISMATCH: the seed gives {cells:?}"),
        OpeningCheck::NoSeed => "seed not revealed".into(),
        OpeningCheck::NotChecked(e) => format!("opening not checked: {e}"),
    }
}
