//! Tournament pairings, pure (issue 12, SPEC 14): round robin by the circle method behind Berger
//! tables, gauntlets, and Swiss rounds by the FIDE Dutch system's criteria (issue 18: no repeat
//! pairings while avoidable, at most one bye per bot, then the fewest floaters). A set already
//! plays both seat orders, so no colours are allocated.
//!
//! Players are indices into the field (`0..n`), in seed order: the tournament seeds its field by
//! rating at creation (highest first), then by name, and seed order is the last tie order below.

use std::collections::HashSet;
use std::convert::Infallible;

use rustworkx_core::max_weight_matching::max_weight_matching;
use rustworkx_core::petgraph::graph::UnGraph;

use super::standings::{Kind, Outcome};

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
    /// Had a bye or won a forfeit: either way a point without playing, so no further bye
    /// while another player can take it (FIDE C.04.1 d).
    pub had_bye: bool,
}

/// The Swiss field of `n` seeds as pairing sees it after `outcomes` (the finished pairings):
/// points, opponents met (a forfeit counts as met, so an absent bot is not paired again with
/// the same bot), and who has had a point without playing: a bye or a forfeit win (FIDE
/// C.04.1 d), so neither gets the bye again while another player can take it.
#[must_use]
pub fn swiss_players(n: usize, outcomes: &[Outcome]) -> Vec<SwissPlayer> {
    let mut players: Vec<SwissPlayer> = (0..n)
        .map(|seed| SwissPlayer {
            seed,
            points2: 0,
            met: HashSet::new(),
            had_bye: false,
        })
        .collect();
    for o in outcomes.iter().filter(|o| o.seed1 < n) {
        match o.seed2 {
            Some(s2) if s2 < n => {
                for (me, other, side) in [(o.seed1, s2, 0), (s2, o.seed1, 1)] {
                    let p = &mut players[me];
                    p.points2 += o.points2[side];
                    p.met.insert(other);
                    if o.kind == Kind::Forfeit && o.points2[side] > o.points2[1 - side] {
                        p.had_bye = true;
                    }
                }
            }
            None => {
                players[o.seed1].points2 += o.points2[0];
                players[o.seed1].had_bye = true;
            }
            Some(_) => {}
        }
    }
    players
}

/// Pairs one Swiss round by the FIDE Dutch system's criteria (FIDE C.04.3; SPEC 14).
///
/// Players are ranked by points (descending), then seed; a score group is the players on equal
/// points. Every way to pair the field is weighed by the criteria below, each one counting
/// only when all the ones before it are equal, and the best is taken:
///
/// 1. no repeat pairings (absolute; a repeat is made only when no round without one exists);
/// 2. no second bye (absolute, the same way): with an odd field the bye is a pseudo-player;
/// 3. the bye to the lowest score possible;
/// 4. the fewest floaters (pairs of different scores);
/// 5. the smallest score differences (sum of the squared differences);
/// 6. the bye to the lowest-ranked player of its score;
/// 7. the Dutch order: inside a score group of `m` the player `a` places below its top meets
///    the one `a + m/2` places below (S1 against S2), a transposition costing more the higher
///    the S1 player, an exchange (two S1 or two S2 players) more than any transposition; a
///    floater is the lowest of its group and meets the top of the group below.
///
/// The best pairing is a maximum-weight perfect matching (Edmonds' blossom algorithm, from
/// `rustworkx-core`), so every criterion is met exactly, in O(n^3) for n players; the weights
/// fit an `i128` for any field the arena admits (64 bots, 63 rounds). Colours are not
/// allocated: a set plays both seat orders; the higher-ranked player of a pair is listed first
/// (it creates the set). Returns pairs of seeds (ordered by the first one's rank) and the bye.
#[must_use]
pub fn swiss(players: &[SwissPlayer]) -> Round {
    let mut order: Vec<&SwissPlayer> = players.iter().collect();
    order.sort_by(|a, b| b.points2.cmp(&a.points2).then(a.seed.cmp(&b.seed)));
    let n = order.len();
    if n < 2 {
        return Round {
            pairs: vec![],
            bye: order.first().map(|p| p.seed),
        };
    }
    // Group start and size for each rank.
    let mut group = vec![(0usize, 0usize); n];
    let mut start = 0;
    while start < n {
        let end = (start..n)
            .find(|&i| order[i].points2 != order[start].points2)
            .unwrap_or(n);
        for g in &mut group[start..end] {
            *g = (start, end - start);
        }
        start = end;
    }
    // First without the Dutch order (criteria 1 to 6), to learn who stays in its score group;
    // then again with it, the order counted among those residents only.
    let Some(first) = best_matching(&order, &group, None) else {
        return Round::default();
    };
    let mut resident = vec![false; n];
    for &(a, b) in &first {
        if b < n && order[a].points2 == order[b].points2 {
            resident[a] = true;
            resident[b] = true;
        }
    }
    let Some(mates) = best_matching(&order, &group, Some(&resident)) else {
        return Round::default();
    };
    let bye = n;
    let mut round = Round::default();
    let mut pairs: Vec<(usize, usize)> = vec![];
    for (a, b) in mates {
        if b == bye {
            round.bye = Some(order[a].seed);
        } else {
            pairs.push((a, b));
        }
    }
    pairs.sort_unstable();
    round.pairs = pairs
        .into_iter()
        .map(|(a, b)| (order[a].seed, order[b].seed))
        .collect();
    round
}

/// The best matching of ranks `0..n` (with a bye vertex `n` when `n` is odd) by the criteria
/// of [`swiss`], as pairs `(a, b)` with `a < b`; the Dutch order only when `resident` says who
/// stays in its score group. None if the weights overflow.
fn best_matching(
    order: &[&SwissPlayer],
    group: &[(usize, usize)],
    resident: Option<&[bool]>,
) -> Option<Vec<(usize, usize)>> {
    let n = order.len();
    let lowest = order.last()?.points2;
    // Rank among the residents of its group, and how many residents the group has.
    let mut place = vec![(0usize, 0usize); n];
    if let Some(res) = resident {
        for i in 0..n {
            let (g, m) = group[i];
            let before = (g..i).filter(|&k| res[k]).count();
            let count = (g..g + m).filter(|&k| res[k]).count();
            place[i] = (before, count);
        }
    }
    let mut edges: Vec<(u32, u32, [i128; TIERS])> = vec![];
    for i in 0..n {
        for j in i + 1..n {
            let mut cost = pair_cost(order, group, i, j, &place);
            if resident.is_none() {
                cost[TIERS - 1] = 0;
            }
            edges.push((vertex(i), vertex(j), cost));
        }
        if n % 2 == 1 {
            let p = order[i];
            let cost = [
                0,
                i128::from(p.had_bye),
                i128::from(p.points2 - lowest),
                0,
                0,
                small(n - 1 - i),
                0,
            ];
            edges.push((vertex(i), vertex(n), cost));
        }
    }
    let weighted = weigh(&edges, n.div_ceil(2))?;
    let graph = UnGraph::<(), i128>::from_edges(&weighted);
    let Ok(mates) =
        max_weight_matching(&graph, true, |e| Ok::<i128, Infallible>(*e.weight()), false);
    Some(
        mates
            .into_iter()
            .map(|(a, b)| (a.min(b), a.max(b)))
            .collect(),
    )
}

/// How many criteria an edge is weighed by (see [`swiss`]).
const TIERS: usize = 7;

fn vertex(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

fn small(x: usize) -> i128 {
    i128::try_from(x).unwrap_or(i128::MAX / 4)
}

/// The criteria costs of pairing ranks `i < j`.
fn pair_cost(
    order: &[&SwissPlayer],
    group: &[(usize, usize)],
    i: usize,
    j: usize,
    place: &[(usize, usize)],
) -> [i128; TIERS] {
    let (pi, pj) = (order[i], order[j]);
    let repeat = i128::from(pi.met.contains(&pj.seed));
    let diff = i128::from(pi.points2 - pj.points2);
    let (gi, mi) = group[i];
    let (gj, _) = group[j];
    let (a, b) = (i - gi, j - gj);
    let order_cost = if gi == gj {
        // Places among the group's residents: S1 is their top half.
        let ((a, m), (b, _)) = (place[i], place[j]);
        let half = m / 2;
        if a < half && b >= half {
            // A transposition of S2: the higher the S1 player, the more it costs.
            small(b.abs_diff(a + half) * (m - a))
        } else {
            // An exchange between S1 and S2 costs more than any transposition.
            small(m * m * m + b.abs_diff(a) + 1)
        }
    } else {
        // A floater: the lowest of its group, meeting the top of the next one down.
        small((mi - 1 - a) + b * (mi - a))
    };
    [
        repeat,
        0,
        0,
        i128::from(diff != 0),
        diff * diff,
        0,
        order_cost,
    ]
}

/// Folds the criteria costs into one weight per edge for a maximum-weight matching of
/// `pairs` edges: each tier outweighs the sum of all the later ones over a whole matching.
/// None if the field is too large for an `i128` (it is not, for 64 bots).
fn weigh(edges: &[(u32, u32, [i128; TIERS])], pairs: usize) -> Option<Vec<(u32, u32, i128)>> {
    let pairs = i128::try_from(pairs).ok()?;
    let mut scale = [1i128; TIERS];
    let mut total: i128 = 1;
    for t in (0..TIERS).rev() {
        scale[t] = total;
        let max = edges.iter().map(|e| e.2[t]).max().unwrap_or(0);
        total = total.checked_mul(max.checked_mul(pairs)?.checked_add(1)?)?;
    }
    edges
        .iter()
        .map(|&(u, v, cost)| {
            let mut c: i128 = 0;
            for t in 0..TIERS {
                c = c.checked_add(cost[t].checked_mul(scale[t])?)?;
            }
            Some((u, v, total.checked_sub(c)?))
        })
        .collect()
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
    fn a_swiss_round_pairs_inside_the_score_groups_when_a_repeat_free_pairing_there_exists() {
        // Two score groups of four; the leader has met 2 and 3 already, so only 1 is left to it
        // inside its group. A greedy "next one down" rule floats it into the lower group.
        let mut ps = fresh(8);
        for p in &mut ps[..4] {
            p.points2 = 2;
        }
        for other in [2, 3] {
            ps[0].met.insert(other);
            ps[other].met.insert(0);
        }
        let r = swiss(&ps);
        assert_eq!(r.pairs, vec![(0, 1), (2, 3), (4, 6), (5, 7)]);
        assert_eq!(r.bye, None);
    }

    #[test]
    fn the_bye_goes_to_the_lowest_ranked_bot_that_has_not_had_one() {
        // After a first round 0-2 and 1-3 (the upper seeds won) with 4 on the bye.
        let mut ps = fresh(5);
        for (a, b) in [(0, 2), (1, 3)] {
            ps[a].met.insert(b);
            ps[b].met.insert(a);
            ps[a].points2 = 2;
        }
        ps[4].had_bye = true;
        ps[4].points2 = 2;
        let r = swiss(&ps);
        // 3 is the lowest-ranked without a bye; 4, lowest of the 1-point group, floats to 2.
        assert_eq!(r.bye, Some(3));
        assert_eq!(r.pairs, vec![(0, 1), (4, 2)]);
    }

    #[test]
    fn a_repeat_is_avoided_even_when_it_costs_a_floater() {
        // 0 and 1 alone on 1 point have met: each floats into the 0-point group instead.
        let mut ps = fresh(4);
        ps[0].points2 = 2;
        ps[1].points2 = 2;
        ps[0].met.insert(1);
        ps[1].met.insert(0);
        let r = swiss(&ps);
        // Both float into the lower bracket in order: the top floater meets its top resident.
        assert_eq!(r.pairs, vec![(0, 2), (1, 3)]);
    }

    #[test]
    fn a_forfeit_win_counts_as_a_point_without_playing_so_its_winner_gets_no_bye() {
        // Round 1 of five: 0 beat 2, 1 beat 3, 4 had the bye. Round 2: 0 beat 1, 2 won by
        // forfeit against an absent 4, 3 had the bye.
        let o = |seed1, seed2, kind, points2| Outcome {
            seed1,
            seed2,
            kind,
            points2,
            games2: [0, 0],
            moves: [0, 0],
            games: vec![],
        };
        let outcomes = vec![
            o(0, Some(2), Kind::Set, [2, 0]),
            o(1, Some(3), Kind::Set, [2, 0]),
            o(4, None, Kind::Bye, [2, 0]),
            o(0, Some(1), Kind::Set, [2, 0]),
            o(4, Some(2), Kind::Forfeit, [0, 2]),
            o(3, None, Kind::Bye, [2, 0]),
        ];
        let ps = swiss_players(5, &outcomes);
        let flags: Vec<(i64, bool)> = ps.iter().map(|p| (p.points2, p.had_bye)).collect();
        assert_eq!(
            flags,
            vec![(4, false), (2, false), (2, true), (2, true), (2, true)]
        );
        assert!(ps[2].met.contains(&4) && ps[4].met.contains(&2));
        // The bye goes to 1, not to 2 (lower-ranked, but it won a point without playing); 0
        // has met 1 and 2 and floats down to 4, as 2 and 4 have met.
        let r = swiss(&ps);
        assert_eq!(r.bye, Some(1));
        assert_eq!(r.pairs, vec![(0, 4), (2, 3)]);
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
