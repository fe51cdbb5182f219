//! The end of a set decided in pure code (SPEC section 8; lila's `Finisher`): from the facts
//! the transaction loaded (the set, its two games, the bots as locked) to a plan of what to
//! store. No I/O here: [`super::play`] loads, applies the plan, and commits.
//!
//! Two steps, because the set row is finished (and so claimed) before the bots are locked:
//! [`decide`] scores the set and words its result; [`settle`] turns the outcome into the
//! ledger's postings, the ratings and the records.

use skillratings::Outcomes;
use skillratings::elo::{EloConfig, EloRating, elo};

use super::glicko::{self, Glicko};
use super::scoring::{GameEnd, SetOutcome, SetScore, Side, score_set};
use crate::store::accounts::{BotRow, GlickoFigures};
use crate::store::ledger::Posting;
use crate::store::sets::{GlickoMove, SetRow};

/// A set decided by forfeit (issue 18): the side that wins it whatever its games say, and
/// whether any move was played in it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Forfeit {
    pub winner: Side,
    pub played: bool,
}

/// How a set ended, before its bots are read: the score, and whether ratings may move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    pub score: SetScore,
    /// Won by forfeit (issue 18).
    pub forfeit: bool,
    /// False for a set forfeited before its first move: FIDE rates only games played.
    pub rate: bool,
}

impl Verdict {
    /// The winning side, None on a draw.
    #[must_use]
    pub fn winner(&self) -> Option<Side> {
        match self.score.outcome {
            SetOutcome::Win { side, .. } => Some(side),
            SetOutcome::Draw => None,
        }
    }

    /// Whether the fewer-moves tiebreak decided it.
    #[must_use]
    pub fn tiebreak(&self) -> bool {
        matches!(self.score.outcome, SetOutcome::Win { tiebreak: true, .. })
    }

    /// The set's `result` text, given the winner's name: "X wins", "X wins on the tiebreak",
    /// "X wins by forfeit" or "draw".
    #[must_use]
    pub fn result(&self, winner_name: &str) -> String {
        match self.score.outcome {
            SetOutcome::Draw => "draw".to_string(),
            _ if self.forfeit => format!("{winner_name} wins by forfeit"),
            SetOutcome::Win { tiebreak: true, .. } => format!("{winner_name} wins on the tiebreak"),
            SetOutcome::Win { .. } => format!("{winner_name} wins"),
        }
    }
}

/// Scores a set from its two finished games; a `forfeit` decides it for its side whatever
/// the games say.
#[must_use]
pub(crate) fn decide(games: [GameEnd; 2], forfeit: Option<Forfeit>) -> Verdict {
    let mut score = score_set(&games);
    if let Some(f) = forfeit {
        score.outcome = SetOutcome::Win {
            side: f.winner,
            tiebreak: false,
        };
    }
    Verdict {
        score,
        forfeit: forfeit.is_some(),
        rate: forfeit.is_none_or(|f| f.played),
    }
}

/// Whether a set counts in the records and the ledger: rated sets and every tournament or
/// match set (`paired`, issue 18); practice and unrated challenges count nowhere.
#[must_use]
pub fn counts(set: &SetRow, paired: bool) -> bool {
    set.practice == 0 && (set.rated != 0 || paired)
}

/// A ledger transfer to make: its idempotency key and its legs (netting to zero).
#[derive(Debug, Clone)]
pub struct Transfer {
    pub key: String,
    pub legs: Vec<Posting>,
}

/// The ratings a rated set moves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ratings {
    /// Elo before and after, creator then acceptor.
    pub elo: [[f64; 2]; 2],
    /// Glicko-2 before (inactivity included) and after, creator then acceptor, as the set
    /// records them.
    pub glicko: [GlickoMove; 2],
    /// Glicko-2 figures each bot stores after the set, creator then acceptor.
    pub glicko_stored: [GlickoFigures; 2],
}

/// One bot's record after a set: its Elo (unchanged unless rated) and what to add.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub bot_id: String,
    pub rating: f64,
    pub win: i64,
    pub draw: i64,
    pub loss: i64,
    pub won: i64,
    pub net: i64,
}

/// What a counted set's end stores: the payout (None when nothing was staked), then, only
/// if that transfer is new (its key not yet written), the ratings and both records.
#[derive(Debug, Clone)]
pub struct Settlement {
    pub transfer: Option<Transfer>,
    pub ratings: Option<Ratings>,
    /// Creator's, then acceptor's.
    pub records: [Record; 2],
}

/// The settlement of a counted set: the pot (less `fee_bps` of it, basis points) to the
/// winner's owner or both stakes back on a draw; W/D/L, won/net; Elo and Glicko-2 only when
/// the set is rated and `rate` (see [`Verdict::rate`]). `now_ms` ages the Glicko-2 deviations.
#[must_use]
pub fn settle(
    set: &SetRow,
    outcome: SetOutcome,
    [creator, acceptor]: [&BotRow; 2],
    fee_bps: i64,
    rate: bool,
    now_ms: i64,
) -> Settlement {
    let pot = 2 * set.stake;
    let escrow = format!("escrow:{}", set.id);
    let fee = pot * fee_bps.clamp(0, 10_000) / 10_000;
    let legs = match outcome {
        SetOutcome::Win { side, .. } => {
            let w = if side == Side::Creator {
                creator
            } else {
                acceptor
            };
            let mut legs = vec![
                Posting::account(escrow, "payout", -pot),
                Posting::player(&w.owner_id, "payout", pot - fee),
            ];
            if fee > 0 {
                legs.push(Posting::account("fees".into(), "fee", fee));
            }
            legs
        }
        SetOutcome::Draw => vec![
            Posting::account(escrow, "refund", -pot),
            Posting::player(&creator.owner_id, "refund", set.stake),
            Posting::player(&acceptor.owner_id, "refund", set.stake),
        ],
    };
    let transfer = (pot > 0).then(|| Transfer {
        key: format!("settle:{}", set.id),
        legs,
    });
    let (sc, sa) = match outcome {
        SetOutcome::Win {
            side: Side::Creator,
            ..
        } => (Outcomes::WIN, Outcomes::LOSS),
        SetOutcome::Win {
            side: Side::Acceptor,
            ..
        } => (Outcomes::LOSS, Outcomes::WIN),
        SetOutcome::Draw => (Outcomes::DRAW, Outcomes::DRAW),
    };
    // Unrated (tournament, match or unstaked) sets count in the record, not the rating.
    let ratings = (set.rated != 0 && rate).then(|| rate_set(creator, acceptor, sc, now_ms));
    let elo_after = ratings.map_or([creator.rating, acceptor.rating], |r| {
        [r.elo[0][1], r.elo[1][1]]
    });
    let gain = set.stake - fee; // what the winner took from the loser, net of the fee
    let record = |bot: &BotRow, outcome: Outcomes, rating: f64| {
        let (win, draw, loss, won, net) = match outcome {
            Outcomes::WIN => (1, 0, 0, gain, gain),
            Outcomes::LOSS => (0, 0, 1, 0, -set.stake),
            _ => (0, 1, 0, 0, 0),
        };
        Record {
            bot_id: bot.id.clone(),
            rating,
            win,
            draw,
            loss,
            won,
            net,
        }
    };
    Settlement {
        transfer,
        ratings,
        records: [
            record(creator, sc, elo_after[0]),
            record(acceptor, sa, elo_after[1]),
        ],
    }
}

/// Elo and Glicko-2 after a rated set, from the creator's `outcome`. Each side's Glicko-2
/// deviation first grows by its days without a rated set (see [`glicko`]).
fn rate_set(creator: &BotRow, acceptor: &BotRow, outcome: Outcomes, now_ms: i64) -> Ratings {
    let (rc, ra) = elo(
        &EloRating {
            rating: creator.rating,
        },
        &EloRating {
            rating: acceptor.rating,
        },
        &outcome,
        &EloConfig::new(),
    );
    let (cb, ab) = (
        Glicko::of_bot(creator, now_ms),
        Glicko::of_bot(acceptor, now_ms),
    );
    let (ca, aa) = glicko::rate_set(cb, ab, outcome);
    let side = |b: Glicko, a: Glicko| GlickoMove {
        rating_before: b.rating,
        deviation_before: b.deviation,
        rating_after: a.rating,
        deviation_after: a.deviation,
    };
    Ratings {
        elo: [[creator.rating, rc.rating], [acceptor.rating, ra.rating]],
        glicko: [side(cb, ca), side(ab, aa)],
        glicko_stored: [ca.stored(), aa.stored()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hex::Seat;

    fn set(stake: i64, rated: bool) -> SetRow {
        SetRow {
            id: "set_1".into(),
            creator_id: "bot_c".into(),
            acceptor_id: Some("bot_a".into()),
            stake,
            rated: i64::from(rated),
            ..SetRow::default()
        }
    }

    fn bot(id: &str, owner: &str, rating: f64) -> BotRow {
        BotRow {
            id: id.into(),
            owner_id: owner.into(),
            rating,
            glicko_rating: 1500.0,
            glicko_deviation: 350.0,
            glicko_volatility: 0.06,
            ..BotRow::default()
        }
    }

    fn end(game_no: i64, winner: Option<Seat>, ply: i64) -> GameEnd {
        GameEnd {
            game_no,
            winner,
            ply,
        }
    }

    /// Game 1 seats the acceptor first, game 2 the creator: seat 2 winning both is one game
    /// each, so the fewer moves decide.
    #[test]
    fn a_set_split_one_game_each_is_won_on_the_tiebreak_and_says_so() {
        let v = decide(
            [end(1, Some(Seat::Two), 30), end(2, Some(Seat::Two), 20)],
            None,
        );
        assert_eq!(v.score.points2, [2, 2]);
        assert!(v.tiebreak());
        let w = v.winner().expect("a tiebreak has a winner");
        assert_eq!(v.result("Ada"), "Ada wins on the tiebreak");
        // Game 2's seat 2 (the acceptor) won in 20 moves, 10 of its own; the creator won game 1
        // in 30 moves, 15 of its own: fewer moves win.
        assert_eq!(w, Side::Acceptor);
        assert!(v.rate);
    }

    #[test]
    fn a_forfeit_decides_the_set_whatever_the_games_say_and_rates_only_if_played() {
        let games = [end(1, Some(Seat::One), 9), end(2, Some(Seat::Two), 9)];
        let f = Forfeit {
            winner: Side::Creator,
            played: false,
        };
        let v = decide(games, Some(f));
        assert_eq!(v.winner(), Some(Side::Creator));
        assert!(!v.tiebreak());
        assert!(!v.rate);
        assert_eq!(v.result("Bo"), "Bo wins by forfeit");
        let v = decide(games, Some(Forfeit { played: true, ..f }));
        assert!(v.rate);
    }

    #[test]
    fn a_drawn_set_is_worded_draw() {
        let v = decide([end(1, None, 362), end(2, None, 362)], None);
        assert_eq!(v.winner(), None);
        assert_eq!(v.score.points2, [2, 2]);
        assert_eq!(v.result("ignored"), "draw");
    }

    #[test]
    fn only_rated_or_paired_sets_outside_practice_count() {
        let mut s = set(100, false);
        assert!(!counts(&s, false));
        assert!(counts(&s, true));
        s.rated = 1;
        assert!(counts(&s, false));
        s.practice = 1;
        assert!(!counts(&s, true));
    }

    #[test]
    fn a_won_staked_set_pays_the_pot_less_the_fee_and_moves_both_ratings() {
        let (c, a) = (bot("bot_c", "p_c", 1500.0), bot("bot_a", "p_a", 1500.0));
        let win = SetOutcome::Win {
            side: Side::Acceptor,
            tiebreak: false,
        };
        let s = settle(&set(100, true), win, [&c, &a], 250, true, 0);
        let t = s.transfer.expect("a staked set pays out");
        assert_eq!(t.key, "settle:set_1");
        let legs: Vec<(&str, &str, i64)> = t
            .legs
            .iter()
            .map(|p| (p.account.as_str(), p.kind, p.amount))
            .collect();
        assert_eq!(
            legs,
            [
                ("escrow:set_1", "payout", -200),
                ("player:p_a", "payout", 195),
                ("fees", "fee", 5),
            ]
        );
        assert_eq!(t.legs.iter().map(|p| p.amount).sum::<i64>(), 0);
        let r = s.ratings.expect("a rated set moves ratings");
        assert_eq!(r.elo, [[1500.0, 1484.0], [1500.0, 1516.0]]);
        assert!(r.glicko[1].rating_after > 1500.0 && r.glicko[0].rating_after < 1500.0);
        assert!((r.glicko_stored[1].rating - r.glicko[1].rating_after).abs() < 1e-9);
        let [rc, ra] = &s.records;
        assert_eq!(
            (rc.win, rc.loss, rc.won, rc.net, rc.rating),
            (0, 1, 0, -100, 1484.0)
        );
        assert_eq!(
            (ra.win, ra.loss, ra.won, ra.net, ra.rating),
            (1, 0, 95, 95, 1516.0)
        );
    }

    #[test]
    fn a_drawn_set_refunds_both_stakes_and_records_a_draw() {
        let (c, a) = (bot("bot_c", "p_c", 1400.0), bot("bot_a", "p_a", 1600.0));
        let s = settle(&set(50, true), SetOutcome::Draw, [&c, &a], 250, true, 0);
        let legs: Vec<(String, i64)> = s
            .transfer
            .expect("staked")
            .legs
            .into_iter()
            .map(|p| (p.account, p.amount))
            .collect();
        assert_eq!(
            legs,
            [
                ("escrow:set_1".to_string(), -100),
                ("player:p_c".to_string(), 50),
                ("player:p_a".to_string(), 50),
            ]
        );
        for r in &s.records {
            assert_eq!((r.win, r.draw, r.loss, r.won, r.net), (0, 1, 0, 0, 0));
        }
        // The lower-rated side gains from a draw.
        assert!(s.records[0].rating > 1400.0 && s.records[1].rating < 1600.0);
    }

    #[test]
    fn an_unrated_or_unplayed_set_counts_in_the_record_but_moves_no_rating() {
        let (c, a) = (bot("bot_c", "p_c", 1500.0), bot("bot_a", "p_a", 1500.0));
        let win = SetOutcome::Win {
            side: Side::Creator,
            tiebreak: false,
        };
        for (s, rate) in [(set(0, false), true), (set(0, true), false)] {
            let plan = settle(&s, win, [&c, &a], 250, rate, 0);
            assert!(plan.transfer.is_none(), "nothing staked, nothing paid");
            assert!(plan.ratings.is_none());
            assert_eq!(plan.records[0].rating, 1500.0);
            assert_eq!(
                (
                    plan.records[0].win,
                    plan.records[1].loss,
                    plan.records[0].won
                ),
                (1, 1, 0)
            );
        }
    }
}
