//! Tournament standings and crosstable, pure (issue 12).
//!
//! Order: set points (win 1, draw 1/2, Swiss bye 1; a round-robin bye scores nothing), then
//! Buchholz (the sum of the set points of every opponent met), then Sonneborn-Berger (the
//! points of the opponents beaten plus half of those drawn), then game points, then fewer own
//! moves in games not lost (the arena's tiebreak), then seed. Points are kept doubled
//! (Sonneborn-Berger quadrupled) so every comparison is exact.
//!
//! Unplayed rounds (a forfeit won or lost, a Swiss bye) follow FIDE's tie-break regulations
//! (C.07, 2023, article 16): in the bot's own Buchholz and Sonneborn-Berger such a round is
//! played against a dummy opponent with the bot's own final score, scored as it was; as an
//! opponent, a bot's unplayed rounds count as draws. A forfeit win adds, for each game won,
//! the bot's mean own moves per game in the games not lost that it played (the field's
//! highest mean if it played none), so a forfeit never helps the fewer-moves tiebreak.

use super::elo_stats;

/// How a pairing ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A set was played.
    Set,
    /// A forfeit: no set was played; the points say who was present.
    Forfeit,
    /// A Swiss bye (1 point).
    Bye,
    /// A round-robin bye (sitting out, no points).
    Rest,
}

/// One finished pairing, from the seeds' sides. Points doubled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub seed1: usize,
    pub seed2: Option<usize>,
    pub kind: Kind,
    pub points2: [i64; 2],
    pub games2: [i64; 2],
    pub moves: [i64; 2],
    /// Each game from seed1's side: 1 win, 0 draw, -1 loss.
    pub games: Vec<i8>,
}

/// One row of the standings.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    pub seed: usize,
    pub points2: i64,
    pub buchholz2: i64,
    pub sb4: i64,
    pub games2: i64,
    pub moves: i64,
    /// Sets played (forfeits included, byes not).
    pub sets: i64,
    pub w: i64,
    pub d: i64,
    pub l: i64,
    pub byes: i64,
    /// Performance rating and the half-width of its 95% interval, from the games played.
    pub performance: Option<(f64, Option<f64>)>,
}

/// Standings of `n` seeds from `outcomes`, best first. `ratings[seed]` are the ratings the
/// performance is measured against.
#[must_use]
pub fn standings(n: usize, ratings: &[f64], outcomes: &[Outcome]) -> Vec<Standing> {
    let mut rows: Vec<Standing> = (0..n)
        .map(|seed| Standing {
            seed,
            points2: 0,
            buchholz2: 0,
            sb4: 0,
            games2: 0,
            moves: 0,
            sets: 0,
            w: 0,
            d: 0,
            l: 0,
            byes: 0,
            performance: None,
        })
        .collect();
    let mut perf: Vec<Vec<(f64, f64)>> = vec![vec![]; n];
    for o in outcomes.iter().filter(|o| o.seed1 < n) {
        let Some(s2) = o.seed2.filter(|&s| s < n) else {
            let r = &mut rows[o.seed1];
            if o.kind == Kind::Bye {
                r.points2 += 2;
                r.byes += 1;
            }
            continue;
        };
        for (me, side) in [(o.seed1, 0), (s2, 1)] {
            let r = &mut rows[me];
            r.points2 += o.points2[side];
            r.games2 += o.games2[side];
            r.moves += o.moves[side];
            r.sets += 1;
            match o.points2[side].cmp(&o.points2[1 - side]) {
                std::cmp::Ordering::Greater => r.w += 1,
                // A double forfeit is no draw: neither bot came, both lost (issue 18).
                std::cmp::Ordering::Equal if o.kind == Kind::Forfeit && o.points2[side] == 0 => {
                    r.l += 1;
                }
                std::cmp::Ordering::Equal => r.d += 1,
                std::cmp::Ordering::Less => r.l += 1,
            }
        }
        for &g in &o.games {
            let s1 = f64::from(g + 1) / 2.0;
            perf[o.seed1].push((ratings.get(s2).copied().unwrap_or(1200.0), s1));
            perf[s2].push((ratings.get(o.seed1).copied().unwrap_or(1200.0), 1.0 - s1));
        }
    }
    let points: Vec<i64> = rows.iter().map(|r| r.points2).collect();
    // Unplayed rounds (FIDE C.07 (2023) art. 16): a forfeit either way or a Swiss bye. A
    // round-robin rest is no round of the bot's (every bot of an odd field has one).
    let mut unplayed = vec![0i64; n];
    let mut unplayed_points2 = vec![0i64; n];
    let mut not_lost = vec![(0i64, 0i64); n]; // (own moves, games not lost) in sets played
    for o in outcomes.iter().filter(|o| o.seed1 < n) {
        match (o.kind, o.seed2.filter(|&s| s < n)) {
            (Kind::Bye, _) => {
                unplayed[o.seed1] += 1;
                unplayed_points2[o.seed1] += 2;
            }
            (Kind::Forfeit, Some(s2)) => {
                for (me, side) in [(o.seed1, 0), (s2, 1)] {
                    unplayed[me] += 1;
                    unplayed_points2[me] += o.points2[side];
                }
            }
            (Kind::Set, Some(s2)) => {
                for (me, side, sign) in [(o.seed1, 0, 1), (s2, 1, -1)] {
                    let games = o.games.iter().filter(|&&g| i64::from(g) * sign >= 0);
                    not_lost[me].0 += o.moves[side];
                    not_lost[me].1 += i64::try_from(games.count()).unwrap_or(0);
                }
            }
            _ => {}
        }
    }
    // As an opponent, a bot's unplayed rounds count as draws (art. 16.3; 1 point doubled).
    let adjusted: Vec<i64> = (0..n)
        .map(|s| points[s] - unplayed_points2[s] + unplayed[s])
        .collect();
    // A forfeit win's games count the bot's mean own moves per game not lost in the sets it
    // played (rounded up), or the field's highest mean if it played none: never fewer moves.
    let mean = |s: usize| {
        let (m, g) = not_lost[s];
        (g > 0).then(|| (m + g - 1) / g)
    };
    let field_mean = (0..n).filter_map(mean).max().unwrap_or(0);
    for o in outcomes.iter().filter(|o| o.seed1 < n) {
        let Some(s2) = o.seed2.filter(|&s| s < n) else {
            // Own unplayed round without an opponent: a dummy with the bot's own score.
            if o.kind == Kind::Bye {
                let r = &mut rows[o.seed1];
                r.buchholz2 += points[o.seed1];
                r.sb4 += points[o.seed1] * 2;
            }
            continue;
        };
        for (me, other, side) in [(o.seed1, s2, 0), (s2, o.seed1, 1)] {
            let mine = o.points2[side];
            let r = &mut rows[me];
            if o.kind == Kind::Forfeit {
                // Art. 16.4: the bot's own unplayed round is against a dummy opponent with the
                // bot's own score ("a draw against itself"), not the absent opponent.
                r.buchholz2 += points[me];
                r.sb4 += points[me] * mine;
                if mine > o.points2[1 - side] {
                    r.moves += mean(me).unwrap_or(field_mean) * (o.games2[side] / 2);
                }
            } else {
                r.buchholz2 += adjusted[other];
                r.sb4 += adjusted[other] * mine;
            }
        }
    }
    for (r, p) in rows.iter_mut().zip(&perf) {
        r.performance = elo_stats::performance(p);
    }
    rows.sort_by(|a, b| {
        b.points2
            .cmp(&a.points2)
            .then(b.buchholz2.cmp(&a.buchholz2))
            .then(b.sb4.cmp(&a.sb4))
            .then(b.games2.cmp(&a.games2))
            .then(a.moves.cmp(&b.moves))
            .then(a.seed.cmp(&b.seed))
    });
    rows
}

/// Standings as [`standings`] gives them, leaving out every result of the seeds marked in
/// `annulled` (a round-robin bot withdrawn before half its sets; issue 18): the others' rows
/// count nothing of their pairings with it, and its own row, kept whole for the record, ranks
/// below every bot not annulled.
#[must_use]
pub fn counted(
    n: usize,
    ratings: &[f64],
    outcomes: &[Outcome],
    annulled: &[bool],
) -> Vec<Standing> {
    let out = |s: usize| annulled.get(s).copied().unwrap_or(false);
    if !(0..n).any(out) {
        return standings(n, ratings, outcomes);
    }
    let kept: Vec<Outcome> = outcomes
        .iter()
        .filter(|o| !out(o.seed1) && !o.seed2.is_some_and(out))
        .cloned()
        .collect();
    let mut rows: Vec<Standing> = standings(n, ratings, &kept)
        .into_iter()
        .filter(|r| !out(r.seed))
        .collect();
    rows.extend(
        standings(n, ratings, outcomes)
            .into_iter()
            .filter(|r| out(r.seed)),
    );
    rows
}

/// The crosstable: `cells[i][j]` lists seed `i`'s results against seed `j` in pairing order
/// (`1`, `½`, `0`; `+` / `-` for a forfeit won / lost), empty when they did not meet.
#[must_use]
pub fn crosstable(n: usize, outcomes: &[Outcome]) -> Vec<Vec<String>> {
    let mut cells = vec![vec![String::new(); n]; n];
    for o in outcomes {
        let Some(s2) = o.seed2.filter(|&s| s < n && o.seed1 < n) else {
            continue;
        };
        for (me, other, side) in [(o.seed1, s2, 0), (s2, o.seed1, 1)] {
            let mark = match (o.kind, o.points2[side]) {
                (Kind::Forfeit, p) if p > 0 => "+",
                (Kind::Forfeit, _) => "-",
                (_, 2) => "1",
                (_, 1) => "½",
                _ => "0",
            };
            let cell = &mut cells[me][other];
            if !cell.is_empty() {
                cell.push(' ');
            }
            cell.push_str(mark);
        }
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(a: usize, b: usize, p: [i64; 2], g: [i64; 2], m: [i64; 2], games: Vec<i8>) -> Outcome {
        Outcome {
            seed1: a,
            seed2: Some(b),
            kind: Kind::Set,
            points2: p,
            games2: g,
            moves: m,
            games,
        }
    }

    fn forfeit(a: usize, b: usize, p: [i64; 2], g: [i64; 2]) -> Outcome {
        Outcome {
            seed1: a,
            seed2: Some(b),
            kind: Kind::Forfeit,
            points2: p,
            games2: g,
            moves: [0, 0],
            games: vec![],
        }
    }

    #[test]
    fn a_bot_that_never_played_gets_no_buchholz_from_the_opponents_it_forfeited_to() {
        // Seed 2 never came: it lost to 1 and 0 by forfeit. Seed 3 played and lost both sets.
        let o = vec![
            set(0, 3, [2, 0], [4, 0], [10, 0], vec![1, 1]),
            forfeit(1, 2, [2, 0], [4, 0]),
            set(1, 3, [2, 0], [4, 0], [12, 0], vec![1, 1]),
            forfeit(0, 2, [2, 0], [4, 0]),
        ];
        let s = standings(4, &[1200.0; 4], &o);
        let order: Vec<usize> = s.iter().map(|r| r.seed).collect();
        assert_eq!(order, vec![0, 1, 3, 2], "the bot that played ranks above");
        let mut rows = s.clone();
        rows.sort_by_key(|r| r.seed);
        let by_seed = |seed: usize| &rows[seed];
        // Own unplayed round: a dummy opponent with the bot's own score (2 points, doubled 4).
        // Opponents' unplayed rounds count as draws: 0 and 1 each count 1 + 1/2 for seed 3.
        assert_eq!((by_seed(0).buchholz2, by_seed(0).sb4), (4, 8));
        assert_eq!((by_seed(3).buchholz2, by_seed(3).sb4), (3 + 3, 0));
        assert_eq!((by_seed(2).buchholz2, by_seed(2).sb4), (0, 0));
        // A forfeit win adds the bot's mean moves per game not lost, for each game it won.
        assert_eq!(
            (by_seed(0).moves, by_seed(1).moves),
            (10 + 2 * 5, 12 + 2 * 6)
        );
    }

    #[test]
    fn an_annulled_bot_counts_for_nobody_and_ranks_last_with_its_own_results_kept() {
        // Seed 3 beat seed 0, then withdrew (annulled): its forfeits to 1 and 2 are left out
        // too. 0 beat 1, 1 drew 2; a double forfeit between 2 and 3 is a loss for both.
        let o = vec![
            set(3, 0, [2, 0], [4, 0], [9, 0], vec![1, 1]),
            set(0, 1, [2, 0], [4, 0], [7, 0], vec![1, 1]),
            set(1, 2, [1, 1], [2, 2], [6, 6], vec![1, -1]),
            forfeit(1, 3, [2, 0], [4, 0]),
            forfeit(2, 3, [0, 0], [0, 0]),
        ];
        let s = counted(4, &[1200.0; 4], &o, &[false, false, false, true]);
        let rows: Vec<(usize, i64, i64, i64, i64)> = s
            .iter()
            .map(|r| (r.seed, r.points2, r.w, r.d, r.l))
            .collect();
        assert_eq!(
            rows,
            vec![
                (0, 2, 1, 0, 0),
                (1, 1, 0, 1, 1),
                (2, 1, 0, 1, 0),
                (3, 2, 1, 0, 2),
            ],
            "0's loss to 3 and 1's forfeit win over 3 are not counted; 3 keeps its own"
        );
        assert_eq!(s[0].buchholz2, 1, "only 1's point: 3 counts for nobody");
        let full = standings(4, &[1200.0; 4], &o);
        assert_eq!(
            full.iter().find(|r| r.seed == 2).map(|r| (r.d, r.l)),
            Some((1, 1)),
            "the double forfeit is a loss, the drawn set a draw"
        );
    }

    #[test]
    fn buchholz_and_sonneborn_berger_break_a_tie_on_points() {
        // 0 beats 1, 1 beats 2, 2 draws 0; 3 gets a bye and beats nobody.
        let o = vec![
            set(0, 1, [2, 0], [4, 0], [8, 0], vec![1, 1]),
            set(1, 2, [2, 0], [4, 0], [6, 0], vec![1, 1]),
            set(2, 0, [1, 1], [2, 2], [5, 5], vec![1, -1]),
            Outcome {
                seed1: 3,
                seed2: None,
                kind: Kind::Bye,
                points2: [2, 0],
                games2: [0, 0],
                moves: [0, 0],
                games: vec![],
            },
        ];
        let s = standings(4, &[1200.0; 4], &o);
        // points2: 0 -> 3, 1 -> 2, 2 -> 1, 3 -> 2 (bye).
        let order: Vec<usize> = s.iter().map(|r| r.seed).collect();
        assert_eq!(order, vec![0, 1, 3, 2]);
        assert_eq!((s[0].buchholz2, s[0].sb4), (2 + 1, 2 * 2 + 1));
        assert_eq!((s[1].buchholz2, s[1].sb4), (3 + 1, 2));
        // The bye is an unplayed round: a dummy opponent with 3's own score (FIDE C.07 art. 16).
        assert_eq!((s[2].buchholz2, s[2].sb4, s[2].byes), (2, 2 * 2, 1));
        assert_eq!(crosstable(4, &o)[0][2], "½");
    }
}
