//! Glicko-2 beside Elo (issue 20): a rating, its deviation (RD) and its volatility per bot,
//! computed by the `skillratings` crate. Elo (`rating`, K = 32, SPEC 8) still orders the
//! leaderboard; Glicko-2 (`glicko_rating`, `rating_deviation`) says how sure the arena is.
//!
//! How sets map onto Glicko-2:
//! - A rated set is one result, scored from its outcome as Elo scores it: a win 1 (more points,
//!   or level points and the tiebreak), a draw ½, a loss 0. Its two games are not two results:
//!   they share an opening with the seats swapped, so they are one measurement.
//! - Each rated set is its own rating period of one result for each side (skillratings'
//!   `glicko2`), so the figures move at once, as Elo's do.
//! - Inactivity: before a set is rated, and whenever a deviation is shown, each side's
//!   deviation grows by one empty rating period per whole day ([`PERIOD_MS`]) since its figures
//!   were computed: `RD' = min(350, sqrt(RD^2 + n (173.7178 sigma)^2))` for `n` days, which is
//!   `n` steps of skillratings' `decay_deviation`.
//! - A bot is provisional while its deviation is above [`PROVISIONAL_ABOVE`] (Lichess's 110).
//!
//! Pure: no SQL, no clock; the arena passes the times in (and the store's rows).

use std::collections::BTreeMap;

use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};

use crate::store::accounts::{BotRow, GlickoFigures};

/// Where every bot starts: Elo's start, so the two numbers read on one scale (Glicko-2 only
/// uses rating differences, so the centre changes nothing else).
pub const START_RATING: f64 = 1200.0;
/// The deviation of a bot with no rated set, and the most inactivity can grow one to.
pub const MAX_DEVIATION: f64 = 350.0;
/// The volatility every bot starts with (Glickman's suggestion).
pub const START_VOLATILITY: f64 = 0.06;
/// Glicko-2's tau, how fast volatility may change (skillratings' default).
pub const TAU: f64 = 0.5;
/// A bot whose deviation is above this is provisional (rating points).
pub const PROVISIONAL_ABOVE: f64 = 110.0;
/// One empty rating period per this many ms without a rated set: a day.
pub const PERIOD_MS: i64 = 86_400_000;
/// Glicko-2's scale factor between rating points and its internal scale.
const SCALE: f64 = 173.7178;

/// A bot's Glicko-2 figures: rating and deviation in rating points, volatility on Glicko-2's
/// own scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Glicko {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

impl Default for Glicko {
    fn default() -> Self {
        Glicko::START
    }
}

impl Glicko {
    /// A bot with no rated set.
    pub const START: Glicko = Glicko {
        rating: START_RATING,
        deviation: MAX_DEVIATION,
        volatility: START_VOLATILITY,
    };

    /// These figures, computed at `since_ms` (None: never), as they stand at `now_ms`: the
    /// deviation grown by one rating period per whole day in between, at most
    /// [`MAX_DEVIATION`].
    #[must_use]
    pub fn at(self, since_ms: Option<i64>, now_ms: i64) -> Glicko {
        let n = periods_between(since_ms, now_ms);
        if n == 0 {
            return self;
        }
        let step = self.volatility * SCALE;
        let grown = (n as f64).mul_add(step * step, self.deviation * self.deviation);
        Glicko {
            deviation: grown.sqrt().min(MAX_DEVIATION),
            ..self
        }
    }

    /// Whether the deviation is above [`PROVISIONAL_ABOVE`].
    #[must_use]
    pub fn provisional(self) -> bool {
        self.deviation > PROVISIONAL_ABOVE
    }

    /// A bot's stored figures as they stand at `now_ms` (see [`Glicko::at`]).
    #[must_use]
    pub fn of_bot(b: &BotRow, now_ms: i64) -> Glicko {
        Glicko {
            rating: b.glicko_rating,
            deviation: b.glicko_deviation,
            volatility: b.glicko_volatility,
        }
        .at(b.glicko_at_ms, now_ms)
    }

    /// The figures as the store writes them.
    #[must_use]
    pub fn stored(self) -> GlickoFigures {
        GlickoFigures {
            rating: self.rating,
            deviation: self.deviation,
            volatility: self.volatility,
        }
    }

    fn crate_rating(self) -> Glicko2Rating {
        Glicko2Rating {
            rating: self.rating,
            deviation: self.deviation,
            volatility: self.volatility,
        }
    }

    fn from_crate(r: Glicko2Rating) -> Glicko {
        Glicko {
            rating: r.rating,
            deviation: r.deviation,
            volatility: r.volatility,
        }
    }
}

/// Whole days ([`PERIOD_MS`]) from `since_ms` to `now_ms`; 0 when `since_ms` is None or not
/// earlier (another instance's clock may be a little ahead).
#[must_use]
pub fn periods_between(since_ms: Option<i64>, now_ms: i64) -> i64 {
    match since_ms {
        Some(t) if now_ms > t => (now_ms - t) / PERIOD_MS,
        _ => 0,
    }
}

/// The configuration every update uses: tau [`TAU`], skillratings' convergence tolerance.
fn config() -> Glicko2Config {
    Glicko2Config {
        tau: TAU,
        ..Glicko2Config::new()
    }
}

/// Rates one set: both sides' figures as they stand when it ends (see [`Glicko::at`]) and
/// the outcome from the creator's side. Returns (creator, acceptor) after the set.
#[must_use]
pub fn rate_set(creator: Glicko, acceptor: Glicko, creator_outcome: Outcomes) -> (Glicko, Glicko) {
    let (c, a) = glicko2(
        &creator.crate_rating(),
        &acceptor.crate_rating(),
        &creator_outcome,
        &config(),
    );
    (Glicko::from_crate(c), Glicko::from_crate(a))
}

/// One side of a rated set in the replay: its figures before (inactivity included) and after.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SideChange {
    pub before: Glicko,
    pub after: Glicko,
}

/// A finished rated set as the replay needs it.
#[derive(Clone, Debug)]
pub struct ReplaySet {
    pub set_id: String,
    pub creator_id: String,
    pub acceptor_id: String,
    /// None for a draw.
    pub winner_id: Option<String>,
    pub finished_ms: i64,
}

/// What a replay computed: each bot's figures and when (its last rated set), and each set's
/// change for both sides (creator, acceptor), in the order rated.
#[derive(Clone, Debug, Default)]
pub struct Replayed {
    pub bots: BTreeMap<String, (Glicko, i64)>,
    pub sets: Vec<(String, SideChange, SideChange)>,
    /// Sets whose winner is neither side (a damaged row): left out.
    pub skipped: Vec<String>,
}

/// Rates `sets` in the order given, each bot starting from `start(bot_id)`, exactly as the
/// arena rates a set when it ends (inactivity by `finished_ms`). The same sets in the same
/// order give the same figures every time.
#[must_use]
pub fn replay(sets: &[ReplaySet], start: impl Fn(&str) -> Glicko) -> Replayed {
    let mut out = Replayed::default();
    let mut now: BTreeMap<String, (Glicko, Option<i64>)> = BTreeMap::new();
    for s in sets {
        let outcome = match s.winner_id.as_deref() {
            None => Outcomes::DRAW,
            Some(w) if w == s.creator_id => Outcomes::WIN,
            Some(w) if w == s.acceptor_id => Outcomes::LOSS,
            Some(_) => {
                out.skipped.push(s.set_id.clone());
                continue;
            }
        };
        let mut before = |id: &str| {
            let (g, at) = *now
                .entry(id.to_string())
                .or_insert_with(|| (start(id), None));
            g.at(at, s.finished_ms)
        };
        let (cb, ab) = (before(&s.creator_id), before(&s.acceptor_id));
        let (ca, aa) = rate_set(cb, ab, outcome);
        now.insert(s.creator_id.clone(), (ca, Some(s.finished_ms)));
        now.insert(s.acceptor_id.clone(), (aa, Some(s.finished_ms)));
        out.sets.push((
            s.set_id.clone(),
            SideChange {
                before: cb,
                after: ca,
            },
            SideChange {
                before: ab,
                after: aa,
            },
        ));
    }
    out.bots = now
        .into_iter()
        .filter_map(|(id, (g, at))| at.map(|t| (id, (g, t))))
        .collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillratings::glicko2::decay_deviation;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn a_first_win_between_two_new_bots_moves_each_by_the_crates_figures() {
        // skillratings' own example at 1500 (1662 / 290 after a win), moved to 1200: Glicko-2
        // sees only the difference of the ratings.
        let (w, l) = rate_set(Glicko::START, Glicko::START, Outcomes::WIN);
        assert!(close(w.rating, 1362.310, 0.001), "{w:?}");
        assert!(close(l.rating, 1037.690, 0.001), "{l:?}");
        assert!(close(w.deviation, 290.319, 0.001), "{w:?}");
        assert!(close(w.deviation, l.deviation, 1e-9));
        assert!(w.provisional() && l.provisional());
    }

    #[test]
    fn whole_days_of_inactivity_are_as_many_steps_of_the_crates_decay() {
        let g = Glicko {
            rating: 1500.0,
            deviation: 60.0,
            volatility: 0.06,
        };
        let mut stepped = g.crate_rating();
        for _ in 0..30 {
            stepped = decay_deviation(&stepped);
        }
        // 30 days and a bit: the part day does not count.
        let grown = g.at(Some(0), 30 * PERIOD_MS + PERIOD_MS - 1);
        assert!(close(grown.deviation, stepped.deviation, 1e-9), "{grown:?}");
        assert!(close(
            grown.deviation,
            (3600.0f64 + 30.0 * 10.423068_f64.powi(2)).sqrt(),
            1e-3
        ));
        assert_eq!((grown.rating, grown.volatility), (g.rating, g.volatility));
        // Never beyond 350; no growth without a time or backwards.
        assert_eq!(g.at(Some(0), 10_000 * PERIOD_MS).deviation, MAX_DEVIATION);
        assert_eq!(g.at(None, 10_000 * PERIOD_MS), g);
        assert_eq!(g.at(Some(5 * PERIOD_MS), 0), g);
    }

    #[test]
    fn the_provisional_mark_is_above_110_only() {
        let at = |deviation| Glicko {
            deviation,
            ..Glicko::START
        };
        assert!(!at(110.0).provisional());
        assert!(at(110.000_001).provisional());
    }

    #[test]
    fn a_replay_rates_sets_in_order_and_counts_inactivity_between_them() {
        let sets = [
            ReplaySet {
                set_id: "s1".into(),
                creator_id: "a".into(),
                acceptor_id: "b".into(),
                winner_id: Some("a".into()),
                finished_ms: 1_000,
            },
            ReplaySet {
                set_id: "s2".into(),
                creator_id: "b".into(),
                acceptor_id: "a".into(),
                winner_id: None,
                finished_ms: 1_000 + 3 * PERIOD_MS,
            },
            ReplaySet {
                set_id: "bad".into(),
                creator_id: "a".into(),
                acceptor_id: "b".into(),
                winner_id: Some("z".into()),
                finished_ms: 1_000 + 4 * PERIOD_MS,
            },
        ];
        let r = replay(&sets, |_| Glicko::START);
        let (a1, b1) = rate_set(Glicko::START, Glicko::START, Outcomes::WIN);
        let (b2, a2) = rate_set(
            b1.at(Some(1_000), 1_000 + 3 * PERIOD_MS),
            a1.at(Some(1_000), 1_000 + 3 * PERIOD_MS),
            Outcomes::DRAW,
        );
        assert_eq!(r.bots["a"], (a2, 1_000 + 3 * PERIOD_MS));
        assert_eq!(r.bots["b"], (b2, 1_000 + 3 * PERIOD_MS));
        assert_eq!(r.sets.len(), 2);
        assert!(r.sets[1].1.before.deviation > b1.deviation);
        assert_eq!(r.skipped, vec!["bad".to_string()]);
        let again = replay(&sets, |_| Glicko::START);
        assert_eq!(again.bots, r.bots);
    }
}
