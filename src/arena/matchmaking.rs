//! The matchmaking pool's choice of pairings (issue 20): a pure function over a snapshot of
//! the pool, so the rules are tested without a database. `arena::pool` reads the snapshot,
//! asks [`choose`], then starts each pairing in its own transaction.
//!
//! The rules, in order:
//! - Only bots in the pool and online (SPEC 14), not retired, with room: fewer sets in play
//!   than their `max_concurrent_sets` (1 when they declared none).
//! - Two entries may be paired when they ask for the same stake and rating choice, each
//!   option and clock value fits both bots' declared accepts ([`settle`]), a staked set has
//!   different owners, both `max_stake`s cover the stake, neither bot is suspended and both
//!   owners can pay the stake, and the pair played fewer than the hourly cap of pool sets.
//! - No same pair twice in a row while others wait: a bot whose latest pool set was against
//!   B is not paired with B again while it may be paired with some other bot in the pool
//!   (busy or not); with nobody else, the pair may play again, up to the hourly cap.
//! - Nearest ratings first (Elo, the leaderboard's order): the allowed pairs are taken in
//!   order of rating difference while both bots have room; ties go to the pair whose bot has
//!   waited longest, then to the bot ids.
//! - House bots stand in for a bot that nobody in the pool may be paired with, once it has
//!   waited the house's lobby wait since it joined or since its latest pool set: the house
//!   bot rated nearest, within the same checks and the hourly cap.

use std::collections::HashMap;

use super::accepts::{Accepts, LIMITS};
use super::options::{INCREMENT_S, INITIAL_S};

/// The options and clock an entry asked for; None: any that both bots accept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ask {
    pub size: Option<i64>,
    pub random_stones: Option<i64>,
    pub initial_s: Option<i64>,
    pub increment_s: Option<i64>,
}

/// A bot the pairing may use: a pool entry, or a house bot standing in.
#[derive(Debug, Clone, Default)]
pub struct Candidate {
    pub bot_id: String,
    pub owner_id: String,
    /// Elo rating.
    pub rating: f64,
    pub house: bool,
    /// PTS per side it plays for (0: unstaked); a house bot takes its opponent's.
    pub stake: i64,
    pub rated: bool,
    pub ask: Ask,
    pub accepts: Accepts,
    pub max_stake: i64,
    /// Sets it may still start now: its capacity less the sets it plays.
    pub room: i64,
    /// Not suspended and its owner's balance covers its stake (always true when unstaked).
    pub may_stake: bool,
    /// The opponent of its latest pool set.
    pub last_opponent: Option<String>,
    /// When it joined, or made its latest pool set if later, ms.
    pub waiting_since_ms: i64,
}

/// What the pairing sees: the online entries (longest waiting first), the house bots that
/// may stand in, and every pool set of the last hour as (creator, acceptor).
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub now_ms: i64,
    pub entries: Vec<Candidate>,
    pub house: Vec<Candidate>,
    pub recent: Vec<(String, String)>,
}

/// The pool's settings (`--pool-pair-sets-per-hour`, the house's lobby wait).
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    /// Most pool sets between one pair in any hour.
    pub pair_sets_per_hour: i64,
    /// Wait before a house bot stands in, ms; None: never.
    pub house_wait_ms: Option<i64>,
    /// Whether the house plays a set of these settings (size, initial ms, increment ms): a
    /// stand-in is chosen only for what the house would accept (the house's own clock floor).
    pub house_plays: fn(i64, i64, i64) -> bool,
}

/// A pairing's set settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub size: i64,
    pub random_stones: i64,
    pub initial_ms: i64,
    pub increment_ms: i64,
    pub stake: i64,
    pub rated: bool,
}

/// One set to start: the creator is the bot that waited longer (game 1 seats the acceptor
/// as seat 1, game 2 the creator, SPEC 5).
#[derive(Debug, Clone, PartialEq)]
pub struct Pairing {
    pub creator: String,
    pub acceptor: String,
    pub settings: Settings,
    /// Whether the acceptor is a house bot standing in.
    pub house: bool,
}

/// One option's value for a pair: what either asked (both must agree), else the contract's
/// default moved into the range both accept; None when no value fits both.
fn pick(
    name: &str,
    default: i64,
    asked: (Option<i64>, Option<i64>),
    a: &Accepts,
    b: &Accepts,
) -> Option<i64> {
    let limit = LIMITS.iter().find(|(n, _)| *n == name).map(|(_, l)| *l)?;
    let [alo, ahi] = a.range(name).unwrap_or(limit);
    let [blo, bhi] = b.range(name).unwrap_or(limit);
    let (lo, hi) = (alo.max(blo), ahi.min(bhi));
    if lo > hi {
        return None;
    }
    let v = match asked {
        (Some(x), Some(y)) if x != y => return None,
        (Some(x), _) | (None, Some(x)) => x,
        (None, None) => default.clamp(lo, hi),
    };
    (lo..=hi).contains(&v).then_some(v)
}

/// The settings a set between `a` and `b` would have, or None when the two may not play
/// (stake or rating choice differ, an option fits one bot's accepts only, same owner on a
/// staked set, a `max_stake` below the stake, a suspension or a balance below the stake).
/// A house bot takes the other bot's stake and rating choice.
#[must_use]
pub fn settle(a: &Candidate, b: &Candidate) -> Option<Settings> {
    if a.bot_id == b.bot_id {
        return None;
    }
    let (stake, rated) = match (a.house, b.house) {
        (false, false) if (a.stake, a.rated) != (b.stake, b.rated) => return None,
        (true, true) => return None,
        (true, false) => (b.stake, b.rated),
        _ => (a.stake, a.rated),
    };
    if stake > 0 {
        if a.owner_id == b.owner_id || !a.may_stake || !b.may_stake {
            return None;
        }
        if stake > a.max_stake || stake > b.max_stake {
            return None;
        }
    }
    let (aa, ba) = (&a.accepts, &b.accepts);
    let size = pick("sizes", 11, (a.ask.size, b.ask.size), aa, ba)?;
    let random_stones = pick(
        "random_stones",
        4,
        (a.ask.random_stones, b.ask.random_stones),
        aa,
        ba,
    )?;
    let initial_s = pick(
        "initial_s",
        INITIAL_S.2,
        (a.ask.initial_s, b.ask.initial_s),
        aa,
        ba,
    )?;
    let increment_s = pick(
        "increment_s",
        INCREMENT_S.2,
        (a.ask.increment_s, b.ask.increment_s),
        aa,
        ba,
    )?;
    // The stake must lie in both declared stake ranges.
    pick("stake", stake, (Some(stake), None), aa, ba)?;
    Some(Settings {
        size,
        random_stones,
        initial_ms: initial_s * 1000,
        increment_ms: increment_s * 1000,
        stake,
        rated: stake > 0 || rated,
    })
}

/// An unordered pair's key.
fn key<'a>(a: &'a str, b: &'a str) -> (&'a str, &'a str) {
    if a <= b { (a, b) } else { (b, a) }
}

/// The pairings to start now, in the order to start them (see the module docs for the rules).
#[must_use]
pub fn choose(s: &Snapshot, rules: &Rules) -> Vec<Pairing> {
    let mut played: HashMap<(&str, &str), i64> = HashMap::new();
    for (a, b) in &s.recent {
        *played.entry(key(a, b)).or_default() += 1;
    }
    let under_cap =
        |a: &str, b: &str| played.get(&key(a, b)).copied().unwrap_or(0) < rules.pair_sets_per_hour;
    let e = &s.entries;
    let n = e.len();
    // Every pair that may play, whether or not both have room now.
    let mut compatible: Vec<(usize, usize, Settings)> = vec![];
    let mut partners = vec![0usize; n];
    for i in 0..n {
        for j in i + 1..n {
            if e[i].house || e[j].house || !under_cap(&e[i].bot_id, &e[j].bot_id) {
                continue;
            }
            if let Some(st) = settle(&e[i], &e[j]) {
                compatible.push((i, j, st));
                partners[i] += 1;
                partners[j] += 1;
            }
        }
    }
    // A repeat of either bot's latest pool pair waits while that bot has another partner.
    let repeat = |x: usize, y: usize| {
        e[x].last_opponent.as_deref() == Some(e[y].bot_id.as_str()) && partners[x] > 1
    };
    let mut allowed: Vec<(usize, usize, Settings)> = compatible
        .into_iter()
        .filter(|&(i, j, _)| !repeat(i, j) && !repeat(j, i))
        .collect();
    let waited = |i: usize| (e[i].waiting_since_ms, e[i].bot_id.as_str());
    allowed.sort_by(|(i1, j1, _), (i2, j2, _)| {
        let d1 = (e[*i1].rating - e[*j1].rating).abs();
        let d2 = (e[*i2].rating - e[*j2].rating).abs();
        d1.total_cmp(&d2)
            .then_with(|| {
                waited(*i1)
                    .min(waited(*j1))
                    .cmp(&waited(*i2).min(waited(*j2)))
            })
            .then_with(|| {
                waited(*i1)
                    .max(waited(*j1))
                    .cmp(&waited(*i2).max(waited(*j2)))
            })
    });
    let mut room: Vec<i64> = e.iter().map(|c| c.room).collect();
    let mut out = vec![];
    for (i, j, settings) in allowed {
        if room[i] <= 0 || room[j] <= 0 {
            continue;
        }
        room[i] -= 1;
        room[j] -= 1;
        let (c, a) = if waited(i) <= waited(j) {
            (i, j)
        } else {
            (j, i)
        };
        out.push(Pairing {
            creator: e[c].bot_id.clone(),
            acceptor: e[a].bot_id.clone(),
            settings,
            house: false,
        });
    }
    let Some(wait_ms) = rules.house_wait_ms else {
        return out;
    };
    for (i, c) in e.iter().enumerate() {
        if c.house || partners[i] > 0 || room[i] <= 0 || s.now_ms - c.waiting_since_ms < wait_ms {
            continue;
        }
        let stand_in = s
            .house
            .iter()
            .enumerate()
            .filter(|(_, h)| h.house && under_cap(&c.bot_id, &h.bot_id))
            .filter_map(|(k, h)| settle(c, h).map(|st| (k, h, st)))
            .filter(|(_, _, st)| (rules.house_plays)(st.size, st.initial_ms, st.increment_ms))
            .min_by(|(k1, h1, _), (k2, h2, _)| {
                (h1.rating - c.rating)
                    .abs()
                    .total_cmp(&(h2.rating - c.rating).abs())
                    .then(k1.cmp(k2))
            });
        if let Some((_, h, settings)) = stand_in {
            room[i] -= 1;
            out.push(Pairing {
                creator: c.bot_id.clone(),
                acceptor: h.bot_id.clone(),
                settings,
                house: true,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bot(id: &str, rating: f64) -> Candidate {
        Candidate {
            bot_id: id.into(),
            owner_id: format!("owner-{id}"),
            rating,
            stake: 10,
            rated: true,
            max_stake: 500,
            room: 1,
            may_stake: true,
            ..Candidate::default()
        }
    }

    fn rules() -> Rules {
        Rules {
            house_plays: |_, _, _| true,
            pair_sets_per_hour: 2,
            house_wait_ms: None,
        }
    }

    fn snap(entries: Vec<Candidate>) -> Snapshot {
        Snapshot {
            now_ms: 1_000_000,
            entries,
            ..Snapshot::default()
        }
    }

    fn pairs(p: &[Pairing]) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = p
            .iter()
            .map(|p| {
                let (a, b) = key(&p.creator, &p.acceptor);
                (a.to_string(), b.to_string())
            })
            .collect();
        v.sort();
        v
    }

    fn pair(a: &str, b: &str) -> (String, String) {
        (a.into(), b.into())
    }

    #[test]
    fn the_nearest_ratings_are_paired_first() {
        let s = snap(vec![
            bot("a", 1000.0),
            bot("b", 1500.0),
            bot("c", 1010.0),
            bot("d", 1520.0),
        ]);
        assert_eq!(
            pairs(&choose(&s, &rules())),
            vec![pair("a", "c"), pair("b", "d")]
        );
    }

    #[test]
    fn bots_of_one_owner_never_meet_in_a_staked_set_but_may_unstaked() {
        let mut a = bot("a", 1200.0);
        let mut b = bot("b", 1200.0);
        b.owner_id = a.owner_id.clone();
        assert!(choose(&snap(vec![a.clone(), b.clone()]), &rules()).is_empty());
        (a.stake, b.stake) = (0, 0);
        let p = choose(&snap(vec![a, b]), &rules());
        assert_eq!(pairs(&p), vec![pair("a", "b")]);
        assert_eq!(p[0].settings.stake, 0);
    }

    #[test]
    fn the_latest_pair_waits_while_another_partner_is_in_the_pool() {
        let mut a = bot("a", 1200.0);
        let mut b = bot("b", 1200.0);
        let mut c = bot("c", 1600.0);
        a.last_opponent = Some("b".into());
        b.last_opponent = Some("a".into());
        // c is busy, but in the pool: a and b wait for it rather than meet again.
        c.room = 0;
        let s = snap(vec![a.clone(), b.clone(), c.clone()]);
        assert!(choose(&s, &rules()).is_empty());
        // c has room: one of them plays c, though c is rated far away.
        c.room = 1;
        let s = snap(vec![a.clone(), b.clone(), c]);
        let p = pairs(&choose(&s, &rules()));
        assert_eq!(p.len(), 1);
        assert!(p[0].1 == "c", "{p:?}");
        // Nobody else: the pair may play again.
        let s = snap(vec![a, b]);
        assert_eq!(pairs(&choose(&s, &rules())), vec![pair("a", "b")]);
    }

    #[test]
    fn a_pair_at_the_hourly_cap_is_not_paired_and_frees_the_repeat_rule() {
        let mut a = bot("a", 1200.0);
        let b = bot("b", 1200.0);
        let c = bot("c", 1200.0);
        a.last_opponent = Some("b".into());
        let mut s = snap(vec![a, b, c]);
        s.recent = vec![pair("a", "c"), pair("c", "a")];
        // a-c is capped, so b is a's only partner and the repeat is allowed.
        assert_eq!(pairs(&choose(&s, &rules())), vec![pair("a", "b")]);
        s.recent.push(pair("b", "a"));
        s.recent.push(pair("a", "b"));
        // Both of a's pairs are capped; b and c are left to each other.
        assert_eq!(pairs(&choose(&s, &rules())), vec![pair("b", "c")]);
    }

    #[test]
    fn capacity_bounds_the_sets_a_bot_gets_in_one_pass() {
        let mut a = bot("a", 1200.0);
        a.room = 2;
        let s = snap(vec![a.clone(), bot("b", 1200.0), bot("c", 1200.0)]);
        assert_eq!(
            pairs(&choose(&s, &rules())),
            vec![pair("a", "b"), pair("a", "c")]
        );
        a.room = 0;
        let s = snap(vec![a, bot("b", 1200.0), bot("c", 1200.0)]);
        assert_eq!(pairs(&choose(&s, &rules())), vec![pair("b", "c")]);
    }

    #[test]
    fn settings_fit_both_bots_accepts_or_there_is_no_pairing() {
        let mut a = bot("a", 1200.0);
        let mut b = bot("b", 1200.0);
        a.accepts.sizes = Some([9, 9]);
        // Nothing asked: the default 11 moves into the range both accept.
        let st = settle(&a, &b).expect("both accept 9");
        assert_eq!((st.size, st.random_stones, st.initial_ms), (9, 4, 60_000));
        // b asks for 13, which a does not accept.
        b.ask.size = Some(13);
        assert_eq!(settle(&a, &b), None);
        a.accepts.sizes = Some([9, 13]);
        assert_eq!(settle(&a, &b).map(|s| s.size), Some(13));
        // Both ask, differently.
        a.ask.size = Some(9);
        assert_eq!(settle(&a, &b), None);
        // A stake outside a declared stake range.
        a.ask.size = None;
        a.accepts.stake = Some([0, 5]);
        assert_eq!(settle(&a, &b), None);
    }

    #[test]
    fn stake_rating_choice_max_stake_and_suspension_must_agree() {
        let a = bot("a", 1200.0);
        let mut b = bot("b", 1200.0);
        b.stake = 20;
        assert_eq!(settle(&a, &b), None);
        b.stake = 10;
        b.max_stake = 5;
        assert_eq!(settle(&a, &b), None);
        b.max_stake = 500;
        b.may_stake = false;
        assert_eq!(settle(&a, &b), None);
        let (mut a, mut b) = (a, bot("b", 1200.0));
        (a.stake, b.stake, a.rated, b.rated) = (0, 0, true, false);
        assert_eq!(settle(&a, &b), None);
        b.rated = true;
        // An unstaked pairing does not need the owners' balances.
        b.may_stake = false;
        assert_eq!(settle(&a, &b).map(|s| (s.stake, s.rated)), Some((0, true)));
    }

    #[test]
    fn a_house_bot_stands_in_only_for_a_bot_nobody_may_play_after_the_wait() {
        let mut h1 = bot("house-novice", 1000.0);
        let mut h2 = bot("house-club", 1400.0);
        h1.house = true;
        h2.house = true;
        let mut a = bot("a", 1350.0);
        a.waiting_since_ms = 995_000;
        let mut s = snap(vec![a.clone()]);
        s.house = vec![h1, h2];
        let mut r = rules();
        // Off: nobody stands in.
        assert!(choose(&s, &r).is_empty());
        r.house_wait_ms = Some(10_000);
        // Waited 5 s of 10.
        assert!(choose(&s, &r).is_empty());
        s.now_ms = 1_005_000;
        let p = choose(&s, &r);
        assert_eq!(pairs(&p), vec![pair("a", "house-club")]);
        assert!(p[0].house);
        assert_eq!(p[0].settings.stake, 10);
        // Another bot a may play is in the pool (busy): no stand-in.
        let mut b = bot("b", 1200.0);
        b.room = 0;
        s.entries.push(b);
        assert!(choose(&s, &r).is_empty());
        // The hourly cap holds for house pairs too: the next nearest stands in.
        s.entries.truncate(1);
        s.recent = vec![pair("a", "house-club"), pair("house-club", "a")];
        assert_eq!(pairs(&choose(&s, &r)), vec![pair("a", "house-novice")]);
        // A set the house would refuse (its clock floor) gets no stand-in at all.
        r.house_plays = |_, _, _| false;
        assert!(choose(&s, &r).is_empty());
    }
}
