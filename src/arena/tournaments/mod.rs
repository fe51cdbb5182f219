//! Tournaments run by the operator (issue 12, SPEC 14): round robin, Swiss and gauntlet, with
//! pairings made by the server, sets started up to `max_concurrent`, standings and a crosstable.
//!
//! Everything is rows: a driver task on every instance ([`run`]) looks at the tournaments that
//! have work every second, or at once when a set finishes, and each step is one transaction on
//! the locked tournament row. A round is claimed by inserting its `tournament_rounds` row (primary
//! key): it is never paired twice, and a restart continues where the rows say.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use hex::Seat;
use serde_json::{Value, json};

use super::Arena;
use super::error::{ArenaError, ArenaResult, Code};
use super::options::GameOptions;
use super::pairing::{self, Round};
use super::scoring::{GameEnd, Side, score_set};
use super::sets::NewSet;
use super::standings::{self, Kind, Outcome};
use super::views::{opt_time, rfc3339};
use crate::store::accounts as acc;
use crate::store::games;
use crate::store::sets;
use crate::store::status::{PairingStatus, SetStatus, TournamentStatus};
use crate::store::tournaments::{self as store, EntryRow, PairingRow, TournamentRow};

mod driver;
mod setup;
mod starting;
mod views;
mod withdraw;

pub use self::driver::run;
pub use self::starting::forfeit_winners;
pub use self::withdraw::absence_streak;

/// The statuses of a pairing still to be decided.
const UNDECIDED: &[PairingStatus] = &[PairingStatus::Pending, PairingStatus::Playing];

/// The statuses of a pairing decided between two bots (a set played, or forfeited).
const DECIDED: &[PairingStatus] = &[PairingStatus::Finished, PairingStatus::Forfeit];

/// Tournament formats.
pub const FORMATS: [&str; 3] = ["round_robin", "swiss", "gauntlet"];
/// Most participants of one tournament.
pub const MAX_PARTICIPANTS: usize = 64;
/// Default `max_concurrent`.
pub const DEFAULT_MAX_CONCURRENT: i64 = 4;
/// Default wait before a pairing with an absent bot is forfeited (absent = forfeit), seconds.
pub const DEFAULT_FORFEIT_AFTER_S: i64 = 120;

/// A validated tournament request (the API layer parses the body).
#[derive(Debug, Clone)]
pub struct NewTournament {
    pub name: String,
    /// One of [`FORMATS`].
    pub format: String,
    /// Round robin and gauntlet: how many times each pairing is played (1 or 2).
    pub cycles: i64,
    /// Swiss: rounds to play.
    pub rounds: Option<i64>,
    /// Bot names or ids in seed order (a gauntlet's first is the bot that meets the field).
    pub participants: Vec<String>,
    pub options: GameOptions,
    pub initial_ms: i64,
    pub increment_ms: i64,
    pub stake: i64,
    pub rated: bool,
    pub max_concurrent: i64,
    /// `wait` or `forfeit`.
    pub absent: String,
    pub forfeit_after_ms: i64,
    pub start_ms: Option<i64>,
}

fn bad(field: &str, msg: impl Into<String>) -> ArenaError {
    ArenaError::bad_request(msg).with_details(json!({"field": field}))
}

fn not_found(id: &str) -> ArenaError {
    ArenaError::not_found(format!("no tournament '{id}'"))
}

fn not_participant(name: &str) -> ArenaError {
    ArenaError::new(
        Code::NotParticipant,
        format!("{name} is not a participant of this tournament"),
    )
    .with_details(json!({"bot": name}))
}

/// Consecutive forfeits by absence after which the arena withdraws a bot by itself (issue 18):
/// a bot that missed two forfeit windows in a row has gone, and every further round would cost
/// its opponent the whole window again.
pub const ABSENT_FORFEITS_TO_WITHDRAW: usize = 2;

/// What one driver step on a pairing did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The set started, or the pairing was forfeited.
    Done,
    /// Nothing, for this pairing (decided meanwhile, or it cannot start now).
    Skipped,
    /// Nothing, and no other pairing may go on now (the tournament is not running, or full).
    Halted,
}

/// What happens to a withdrawn bot's set in play (issue 18).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InPlay {
    /// The set plays on and its result counts.
    Finish,
    /// The set ends at once, won by the opponent.
    Forfeit,
}

/// 409 `tournament_state`: `t` (a tournament, or a match: the message names which) is in a
/// status that does not allow `action`; `details.status` is that status.
fn state_error(action: &str, t: &TournamentRow) -> ArenaError {
    let (noun, status) = (
        if t.format == "match" {
            "match"
        } else {
            "tournament"
        },
        &t.status,
    );
    ArenaError::new(
        Code::TournamentState,
        format!("cannot {action} a {noun} that is {status}"),
    )
    .with_details(json!({"status": status}))
}

/// Why tournament `t` may not start now, by `POST .../start` or at its `start_at` (issue 20):
/// 409 `bot_retired` for a participant that retired after it was entered and could not be
/// removed (too few would be left), 422 `not_accepted` for one whose declared `accepts` no
/// longer cover the settings (its pairings would stay pending for ever); the operator removes
/// it first.
async fn start_refusal(
    c: &mut crate::store::Conn,
    t: &TournamentRow,
) -> ArenaResult<Option<ArenaError>> {
    let options = GameOptions {
        size: t.size,
        random_stones: t.random_stones,
    };
    for e in store::entries(c, &t.id).await? {
        let Some(b) = acc::bot_by_ref(c, &e.bot_id).await? else {
            continue;
        };
        if b.retired_ms.is_some() {
            return Ok(Some(crate::arena::sets::retired(&b)));
        }
        if let Err(refused) = crate::arena::accepts::accepts_check(
            &b,
            &options,
            t.initial_ms,
            t.increment_ms,
            t.stake,
        ) {
            return Ok(Some(refused.into()));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::setup::planned_rounds;
    use super::starting::new_pairing;
    use super::views::csv_field;
    use super::withdraw::withdrawal_forfeit;
    use super::*;

    fn decided(round: i64, seeds: (i64, i64), points2: (i64, i64), status: &str) -> PairingRow {
        let mut p = new_pairing("tour_x", round, 1, 0, None, 0);
        p.seed1 = seeds.0;
        p.seed2 = Some(seeds.1);
        p.status = status.into();
        (p.points2_1, p.points2_2) = points2;
        p
    }

    #[test]
    fn an_absence_streak_counts_forfeits_lost_in_a_row_and_skips_byes() {
        let mut bye = new_pairing("tour_x", 3, 2, 2, None, 0);
        bye.status = "bye".into();
        let mut rows = vec![
            decided(1, (2, 0), (0, 2), "finished"),
            decided(2, (1, 2), (2, 0), "forfeit"),
            bye,
            decided(4, (2, 3), (0, 0), "forfeit"),
        ];
        assert_eq!(absence_streak(&rows, 2), 2, "a bye does not break it");
        assert_eq!(
            absence_streak(&rows, 3),
            1,
            "a double forfeit is lost by both"
        );
        assert_eq!(absence_streak(&rows, 0), 0, "a set played ends it");
        // Boards of one round (a gauntlet's first bot) are one missed window.
        let gauntlet = vec![
            decided(1, (0, 1), (0, 0), "forfeit"),
            decided(1, (0, 2), (0, 0), "forfeit"),
            decided(1, (0, 3), (0, 0), "forfeit"),
        ];
        assert_eq!(absence_streak(&gauntlet, 0), 1);
        // A withdrawal's forfeit is no absence.
        rows[3].withdrawn_seed = Some(3);
        assert_eq!(absence_streak(&rows, 2), 0);
    }

    #[test]
    fn a_withdrawal_forfeit_goes_to_the_side_still_in_the_tournament() {
        let p = decided(2, (4, 5), (0, 0), "pending");
        let f = withdrawal_forfeit(&p, &HashSet::from([5]), 9);
        assert_eq!(
            (
                f.status.as_str(),
                f.points2_1,
                f.points2_2,
                f.games2_1,
                f.games2_2
            ),
            ("forfeit", 2, 0, 4, 0)
        );
        assert_eq!((f.withdrawn_seed, f.finished_ms), (Some(5), Some(9)));
        let f = withdrawal_forfeit(&p, &HashSet::from([4, 5]), 9);
        assert_eq!(
            (f.points2_1, f.points2_2),
            (0, 0),
            "both gone: a double forfeit"
        );
    }

    #[test]
    fn a_round_robin_of_an_odd_field_plays_one_round_more_per_cycle() {
        assert_eq!(planned_rounds("round_robin", 2, None, 5).ok(), Some(10));
        assert_eq!(planned_rounds("round_robin", 1, None, 4).ok(), Some(3));
        assert_eq!(planned_rounds("gauntlet", 2, None, 7).ok(), Some(2));
        assert!(planned_rounds("swiss", 1, Some(4), 4).is_err());
        assert!(planned_rounds("swiss", 1, None, 4).is_err());
    }

    #[test]
    fn a_text_cell_a_spreadsheet_would_run_as_a_formula_is_made_inert() {
        assert_eq!(csv_field("=1+2"), "'=1+2");
        assert_eq!(csv_field("+1"), "'+1");
        assert_eq!(csv_field("-2-3"), "'-2-3");
        assert_eq!(csv_field("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv_field("\tx"), "'\tx");
        assert_eq!(csv_field("\rx"), "\"'\rx\"");
        assert_eq!(
            csv_field("=HYPERLINK(\"http://x\",\"y\")"),
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"",
        );
        assert_eq!(csv_field("Ann"), "Ann");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("x-1"), "x-1");
    }
}
