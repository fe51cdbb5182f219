//! The ladder's order in a CI-sized match (issue 11): on a small board, with every rung's
//! playout budget scaled down by the same factor, each rung beats the rung below it in at least
//! 70% of the games. Games come in pairs from a shared random 1+1-stone opening with colours
//! swapped, with fixed seeds, so the test is deterministic.
//!
//! The clock-bound top rung (`house-master`) has no playout cap worth scaling; here it gets
//! [`MASTER_OVER_BRIDGE`] times the rung below it, about what it affords at its thinking time.
//! Each rung searches with its own tuning at its longest think ([`Rung::tuning`]: house-master
//! with its Hex knowledge).

use hex_search::ladder::{LADDER, MAX_THINK_MS, Rung};
use hex_search::{
    Cell, Limits, Move, Outcome, Position, Seat, Tuning, random_move, strong_move_tuned,
};
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// The board of the CI match.
const SIZE: u8 = 7;
/// Every rung's budget on [`SIZE`] is divided by this.
const SCALE_DOWN: u32 = 40;
/// The top rung's budget in this match, as a multiple of the rung below it.
const MASTER_OVER_BRIDGE: u32 = 10;
/// Pairs of games per neighbouring rungs.
const PAIRS: u32 = 20;

/// Playouts per move of a rung in the CI match; `None` plays at random.
fn ci_budget(index: usize) -> Option<u32> {
    let rung: &Rung = &LADDER[index];
    let cap = rung.max_playouts(SIZE)?;
    if index + 1 == LADDER.len() && index > 0 {
        return ci_budget(index - 1).map(|b| b * MASTER_OVER_BRIDGE);
    }
    Some((cap / SCALE_DOWN).max(1))
}

/// A rung in the CI match: its playouts per move ([`ci_budget`]) and its tuning; `None`
/// plays at random.
fn ci_player(index: usize) -> Option<(u32, Tuning)> {
    Some((ci_budget(index)?, LADDER[index].tuning(SIZE, MAX_THINK_MS)))
}

fn choose(pos: &Position, rng: &mut Pcg64, player: Option<(u32, Tuning)>) -> Option<Move> {
    match player {
        None => random_move(pos, rng),
        Some((b, tuning)) => {
            let limits = Limits {
                max_playouts: b,
                stop: &mut |_| false,
            };
            strong_move_tuned(pos, rng, limits, &tuning)
        }
    }
}

/// Plays one game from `opening`; `players[0]` is Black (seat 1). Returns the winner's index.
fn play(opening: [Cell; 2], players: [Option<(u32, Tuning)>; 2], rng: &mut Pcg64) -> usize {
    let mut pos = Position::new(SIZE).expect("size");
    pos.play(Move::Place(opening[0])).expect("empty");
    pos.play(Move::Place(opening[1])).expect("empty");
    loop {
        let seat = pos.to_move().expect("a 7x7 game ends by connection");
        let who = if seat == Seat::One { 0 } else { 1 };
        let mv = choose(&pos, rng, players[who]).expect("a move");
        if let Some(Outcome::Connection { winner }) = pos.play(mv).expect("legal") {
            return if winner == Seat::One { 0 } else { 1 };
        }
    }
}

/// Games won by the `upper` rung over the `lower` one.
fn upper_wins(lower: usize, upper: usize) -> u32 {
    let mut rng = Pcg64::seed_from_u64(1_000 + lower as u64);
    let cells = u32::from(SIZE) * u32::from(SIZE);
    let cell = |k: u32| Cell::new((k / u32::from(SIZE)) as u8, (k % u32::from(SIZE)) as u8);
    let mut wins = 0;
    for _ in 0..PAIRS {
        let first = rng.next_u32() % cells;
        let second = (first + 1 + rng.next_u32() % (cells - 1)) % cells;
        let opening = [cell(first), cell(second)];
        let (lo, hi) = (ci_player(lower), ci_player(upper));
        wins += u32::from(play(opening, [hi, lo], &mut rng) == 0);
        wins += u32::from(play(opening, [lo, hi], &mut rng) == 1);
    }
    wins
}

#[test]
fn each_rung_beats_the_rung_below_it_in_at_least_70_percent_of_games() {
    let games = 2 * PAIRS;
    let mut report = Vec::new();
    for upper in 1..LADDER.len() {
        let wins = upper_wins(upper - 1, upper);
        report.push(format!(
            "{} ({:?}) over {} ({:?}): {wins}/{games}",
            LADDER[upper].name,
            ci_budget(upper),
            LADDER[upper - 1].name,
            ci_budget(upper - 1)
        ));
    }
    let text = report.join("\n");
    eprintln!("{text}");
    for line in &report {
        let wins: u32 = line
            .rsplit(": ")
            .next()
            .and_then(|s| s.split('/').next())
            .and_then(|s| s.parse().ok())
            .expect("a count");
        assert!(wins * 10 >= games * 7, "{text}");
    }
}
