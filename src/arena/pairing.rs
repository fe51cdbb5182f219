//! Tournament pairings, pure (issue 12, SPEC 14): round robin by the circle method behind Berger
//! tables, gauntlets, and Swiss rounds with score groups, no repeat pairings while avoidable and
//! at most one bye per bot. A set already plays both seat orders, so no colours are allocated.
//!
//! Players are indices into the field (`0..n`), in seed order: the tournament seeds its field by
//! rating at creation (highest first), then by name, and seed order is the last tie order below.

use std::collections::HashSet;

/// One round's pairings: pairs of players (the first is the set's creator) and an optional bye.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Round {
    pub pairs: Vec<(usize, usize)>,
    pub bye: Option<usize>,
}

/// Rounds of a single round robin of `n` players (circle method: the last slot stays put, the
/// others rotate one place a round). With `n` odd, one player sits out each round (`bye`; a
/// round-robin bye scores nothing, everybody has exactly one). `n - 1` rounds for even `n`, `n`
/// for odd; every pair meets exactly once.
#[must_use]
pub fn round_robin(n: usize) -> Vec<Round> {
    if n < 2 {
        return vec![];
    }
    let slots = n + n % 2; // an odd field gets a phantom opponent: meeting it is the bye
    let rounds = slots - 1;
    let mut out = Vec::with_capacity(rounds);
    for r in 0..rounds {
        let mut round = Round::default();
        for i in 0..slots / 2 {
            let a = if i == 0 { slots - 1 } else { (r + i) % rounds };
            let b = (r + rounds - i) % rounds;
            // Alternate who creates, so the fixed slot is not always the creator.
            let (a, b) = if (r + i) % 2 == 0 { (a, b) } else { (b, a) };
            match (a < n, b < n) {
                (true, true) => round.pairs.push((a, b)),
                (true, false) => round.bye = Some(a),
                (false, true) => round.bye = Some(b),
                (false, false) => {}
            }
        }
        out.push(round);
    }
    out
}

/// A gauntlet round: player 0 against every other player.
#[must_use]
pub fn gauntlet(n: usize) -> Round {
    Round {
        pairs: (1..n).map(|i| (0, i)).collect(),
        bye: None,
    }
}

/// A player as Swiss pairing sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwissPlayer {
    /// Index in seed order (0 = top seed).
    pub seed: usize,
    /// Set points so far, doubled (win 2, draw 1, bye 2).
    pub points2: i64,
    /// Seeds of the opponents already met.
    pub met: HashSet<usize>,
    pub had_bye: bool,
}

/// Most pairing attempts tried before repeats are allowed; keeps a pathological field bounded.
const SEARCH_BUDGET: usize = 200_000;

/// Pairs one Swiss round.
///
/// Order: points (descending), then seed. With an odd field the bye goes to the lowest-ordered
/// player who has not had one (moving up the order only if the rest could not be paired without
/// a repeat). Then, from the top, each player meets the player half a score group below it (the
/// Dutch system's S1 against S2), or failing that the next one down, then the ones above; a
/// player alone in its group floats down to the next. Depth-first search with backtracking finds
/// a round without repeat pairings whenever one exists (within a generous budget); otherwise
/// repeats are allowed rather than leaving anyone unpaired.
#[must_use]
pub fn swiss(players: &[SwissPlayer]) -> Round {
    let mut order: Vec<&SwissPlayer> = players.iter().collect();
    order.sort_by(|a, b| b.points2.cmp(&a.points2).then(a.seed.cmp(&b.seed)));
    for allow_repeats in [false, true] {
        let mut budget = SEARCH_BUDGET;
        if order.len().is_multiple_of(2) {
            if let Some(pairs) = pair_all(&order, allow_repeats, &mut budget) {
                return Round { pairs, bye: None };
            }
            continue;
        }
        // Bye candidates from the bottom; a second bye only when nobody else can take it.
        let candidates: Vec<usize> = (0..order.len())
            .rev()
            .filter(|&i| !order[i].had_bye)
            .chain((0..order.len()).rev().filter(|&i| order[i].had_bye))
            .collect();
        for i in candidates {
            let rest: Vec<&SwissPlayer> = order
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, p)| *p)
                .collect();
            if let Some(pairs) = pair_all(&rest, allow_repeats, &mut budget) {
                return Round {
                    pairs,
                    bye: Some(order[i].seed),
                };
            }
        }
    }
    Round::default()
}

/// Pairs every player of `order` (already sorted), or None.
fn pair_all(
    order: &[&SwissPlayer],
    allow_repeats: bool,
    budget: &mut usize,
) -> Option<Vec<(usize, usize)>> {
    let Some((top, rest)) = order.split_first() else {
        return Some(vec![]);
    };
    if *budget == 0 {
        return None;
    }
    *budget -= 1;
    let group = 1 + rest.iter().filter(|p| p.points2 == top.points2).count();
    let preferred = (group / 2).max(1); // index in `order` of S2's top
    let candidates = (preferred..order.len()).chain((1..preferred).rev());
    for c in candidates {
        let other = order[c];
        if !allow_repeats && top.met.contains(&other.seed) {
            continue;
        }
        let remaining: Vec<&SwissPlayer> = rest
            .iter()
            .filter(|p| p.seed != other.seed)
            .copied()
            .collect();
        if let Some(mut pairs) = pair_all(&remaining, allow_repeats, budget) {
            pairs.insert(0, (top.seed, other.seed));
            return Some(pairs);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn key(a: usize, b: usize) -> (usize, usize) {
        (a.min(b), a.max(b))
    }

    #[test]
    fn a_round_robin_of_four_is_three_rounds_meeting_everyone_once() {
        let rounds = round_robin(4);
        assert_eq!(rounds.len(), 3);
        assert_eq!(rounds[0].pairs, vec![(3, 0), (2, 1)]);
        let mut met = HashSet::new();
        for r in &rounds {
            assert_eq!(r.bye, None);
            for &(a, b) in &r.pairs {
                assert!(met.insert(key(a, b)));
            }
        }
        assert_eq!(met.len(), 6);
    }

    #[test]
    fn a_round_robin_of_five_gives_each_player_one_bye() {
        let rounds = round_robin(5);
        assert_eq!(rounds.len(), 5);
        let mut byes: Vec<usize> = rounds.iter().filter_map(|r| r.bye).collect();
        byes.sort_unstable();
        assert_eq!(byes, vec![0, 1, 2, 3, 4]);
    }

    fn fresh(n: usize) -> Vec<SwissPlayer> {
        (0..n)
            .map(|seed| SwissPlayer {
                seed,
                points2: 0,
                met: HashSet::new(),
                had_bye: false,
            })
            .collect()
    }

    #[test]
    fn the_first_swiss_round_pairs_top_half_against_bottom_half_and_byes_the_last_seed() {
        let r = swiss(&fresh(7));
        assert_eq!(r.pairs, vec![(0, 3), (1, 4), (2, 5)]);
        assert_eq!(r.bye, Some(6));
    }

    #[test]
    fn a_swiss_round_avoids_a_repeat_by_taking_the_next_opponent_down() {
        let mut ps = fresh(4);
        // 0 and 2 already met, all on equal points: 0 takes 3, then 1 meets 2.
        ps[0].met.insert(2);
        ps[2].met.insert(0);
        let r = swiss(&ps);
        assert_eq!(r.pairs, vec![(0, 3), (1, 2)]);
    }

    /// Plays `rounds` Swiss rounds where the lower seed always wins.
    fn simulate(n: usize, rounds: usize) -> Vec<Round> {
        let mut ps = fresh(n);
        let mut out = vec![];
        for _ in 0..rounds {
            let r = swiss(&ps);
            for &(a, b) in &r.pairs {
                ps[a].met.insert(b);
                ps[b].met.insert(a);
                ps[a.min(b)].points2 += 2;
            }
            if let Some(b) = r.bye {
                ps[b].had_bye = true;
                ps[b].points2 += 2;
            }
            out.push(r);
        }
        out
    }

    proptest! {
        #[test]
        fn berger_tables_are_complete(n in 2usize..17) {
            let rounds = round_robin(n);
            let mut met = HashSet::new();
            for r in &rounds {
                let mut seen = HashSet::new();
                for &(a, b) in &r.pairs {
                    prop_assert!(a != b && a < n && b < n);
                    prop_assert!(seen.insert(a) && seen.insert(b));
                    prop_assert!(met.insert(key(a, b)), "pair {:?} twice", (a, b));
                }
                if let Some(b) = r.bye { prop_assert!(seen.insert(b)); }
                prop_assert_eq!(seen.len(), n, "everyone plays or sits out once a round");
            }
            prop_assert_eq!(met.len(), n * (n - 1) / 2);
        }

        #[test]
        fn swiss_rounds_pair_everyone_once_with_no_repeats_and_rotating_byes(
            n in 2usize..14,
            rounds in 1usize..6,
            results in proptest::collection::vec(0u8..3, 0..200),
        ) {
            // At most half as many rounds as players: a repeat-free round always exists then.
            let rounds = rounds.min(n / 2).max(1);
            let mut ps = fresh(n);
            let mut met = HashSet::new();
            let mut k = 0;
            for _ in 0..rounds {
                let r = swiss(&ps);
                let mut seen = HashSet::new();
                for &(a, b) in &r.pairs {
                    prop_assert!(seen.insert(a) && seen.insert(b));
                    prop_assert!(met.insert(key(a, b)), "repeat {:?}", (a, b));
                    let res = results.get(k).copied().unwrap_or(0);
                    k += 1;
                    let (pa, pb) = [(2, 0), (1, 1), (0, 2)][usize::from(res)];
                    ps[a].points2 += pa;
                    ps[b].points2 += pb;
                    ps[a].met.insert(b);
                    ps[b].met.insert(a);
                }
                prop_assert_eq!(r.bye.is_some(), n % 2 == 1, "one bye exactly when odd");
                if let Some(b) = r.bye {
                    prop_assert!(seen.insert(b));
                    prop_assert!(!ps[b].had_bye, "no bot gets two byes");
                    ps[b].had_bye = true;
                    ps[b].points2 += 2;
                }
                prop_assert_eq!(seen.len(), n, "every bot paired once a round");
            }
        }
    }

    #[test]
    fn a_seven_bot_swiss_where_the_lower_seed_wins_pairs_as_computed_by_hand() {
        let rounds = simulate(7, 4);
        let expect = [
            (vec![(0, 3), (1, 4), (2, 5)], Some(6)),
            (vec![(0, 2), (1, 6), (3, 4)], Some(5)),
            (vec![(0, 1), (2, 6), (3, 5)], Some(4)),
            (vec![(0, 4), (1, 2), (5, 6)], Some(3)),
        ];
        for (r, (pairs, bye)) in rounds.iter().zip(expect) {
            assert_eq!((r.pairs.clone(), r.bye), (pairs, bye));
        }
    }
}
