//! [`Strategy`]: how `genmove` chooses (a rung of the house ladder, or a uniformly random cell),
//! and its names on the command line.

use hex_search::ladder::{LADDER, Rung};

/// How `genmove` chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// A uniformly random empty cell (the house bot `house-random`).
    Random,
    /// Monte Carlo tree search with RAVE and a playout budget (5,000 playouts on 11x11, as
    /// `house-bridge`), cut when `time_left` says time is short.
    Strong,
    /// A rung of the house ladder ([`hex_search::ladder::LADDER`]), played as the house bot of that
    /// name plays: its playout cap, and a thinking time from `time_left` (or the fixed time per
    /// move, `param move_time_ms`).
    Rung(&'static Rung),
}

impl Strategy {
    /// The strategy called `text` (`random`, `strong` or a rung's name such as
    /// `house-master`; any case), `None` for anything else.
    pub fn parse(text: &str) -> Option<Strategy> {
        match text.to_ascii_lowercase().as_str() {
            "random" => Some(Strategy::Random),
            "strong" => Some(Strategy::Strong),
            name => hex_search::ladder::rung(name).map(Strategy::Rung),
        }
    }

    /// The name `parse` reads back.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Random => "random",
            Strategy::Strong => "strong",
            Strategy::Rung(r) => r.name,
        }
    }

    /// Every strategy name, `/`-separated (for `param`'s list and the error messages).
    pub(super) fn names() -> String {
        let mut names = vec!["random", "strong"];
        names.extend(LADDER.iter().map(|r| r.name));
        names.join("/")
    }
}

impl std::str::FromStr for Strategy {
    type Err = String;

    fn from_str(text: &str) -> Result<Strategy, String> {
        Strategy::parse(text).ok_or_else(|| format!("expected one of {}", Strategy::names()))
    }
}
