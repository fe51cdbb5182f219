//! The arena's analysis of a game (issue 21), pure: an opening, the moves and a budget in; seat
//! 1's win probability before the first move and after each move, the search's best move in
//! each position and the mistakes out. The house's search ([`crate::strong_move`]'s tree search
//! with [`crate::Tuning::HOUSE`]) judges each position; no clock, no I/O.
//!
//! A position's value is the mover's win rate after the most visited root move of the search
//! (exact when the game is over, when the mover wins at once, or when the opponent threatens
//! two immediate wins). The swap is not searched: the position before seat 2's first move of a
//! swap game is valued as if seat 2 had to place a stone.

use hex::{Cell, Move, Position, Seat};
use rand_core::Rng;

use crate::bots::{Limits, Tuning, search};
use crate::playout::empty_indices;

/// A move that loses at least this much of its mover's win probability (0..1) is a mistake,
/// unless it is the move the search prefers.
pub const MISTAKE_DROP: f64 = 0.15;

/// What the search thinks of a position, for the seat on move.
#[derive(Clone, Debug, PartialEq)]
pub struct Eval {
    /// The move the search prefers (None when the game is over).
    pub best: Option<Move>,
    /// The mover's win probability after `best`, 0..=1.
    pub win_rate: f64,
    /// The expected line, `best` first (the most visited child at each level of the tree).
    pub pv: Vec<Move>,
    /// Playouts run (0 when the position was decided without a search).
    pub playouts: u32,
}

/// Evaluates `pos` for its mover within `limits`; None when the game is over or the board is
/// full. Deterministic for a given RNG state and `stop` answers.
pub fn evaluate(pos: &Position, rng: &mut impl Rng, limits: Limits<'_>) -> Option<Eval> {
    if pos.is_over() {
        return None;
    }
    let me = pos.mover().number();
    let empties = empty_indices(pos);
    let place = |i: u16| Move::Place(pos.cell_at(usize::from(i)));
    let decided = |i: u16, win_rate: f64| Eval {
        best: Some(place(i)),
        win_rate,
        pv: vec![place(i)],
        playouts: 0,
    };
    if let Some(&win) = empties
        .iter()
        .find(|&&i| pos.connects_if_placed(usize::from(i), me))
    {
        return Some(decided(win, 1.0));
    }
    let threats: Vec<u16> = empties
        .iter()
        .copied()
        .filter(|&i| pos.connects_if_placed(usize::from(i), me ^ 3))
        .collect();
    if threats.len() >= 2 {
        // One stone blocks one of them; the opponent connects through another.
        return Some(decided(threats[0], 0.0));
    }
    let candidates = if threats.is_empty() {
        &empties
    } else {
        &threats
    };
    let r = search(pos, rng, limits, &Tuning::HOUSE, candidates, None)?;
    Some(Eval {
        best: Some(place(r.cell)),
        win_rate: r.win_rate.clamp(0.0, 1.0),
        pv: r.pv.into_iter().map(place).collect(),
        playouts: r.playouts,
    })
}

/// A move that lost its mover much of its win probability.
#[derive(Clone, Debug, PartialEq)]
pub struct Mistake {
    /// The move's number, from 1 (opening stones excluded).
    pub ply: u32,
    /// The seat that played it (1 or 2).
    pub seat: u8,
    /// The mover's win probability lost by it, 0..=1.
    pub drop: f64,
    /// The search's preferred move in the position before it.
    pub best: Move,
}

/// A game's analysis.
#[derive(Clone, Debug, PartialEq)]
pub struct GameAnalysis {
    /// Seat 1's win probability before the first move and after each move (moves + 1 values,
    /// each 0..=1; 1 or 0 once the game is won).
    pub win_prob: Vec<f64>,
    /// The search's preferred move in each position (None once the game is over).
    pub best: Vec<Option<Move>>,
    /// The mistakes, in the order played.
    pub mistakes: Vec<Mistake>,
}

/// Why a game could not be analysed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnalysisError {
    /// The opening is not a position on this board.
    Setup(hex::SetupError),
    /// The move at this 0-based index is illegal.
    Illegal(usize),
    /// `pause` asked to stop.
    Stopped,
}

/// Analyses a game: `playouts` per position; `pause` is asked between positions and every
/// [`crate::STOP_CHECK_EVERY`] playouts, may block (to leave the CPU to others) and ends the
/// analysis by answering `true`.
///
/// # Errors
/// A bad opening or an illegal move; [`AnalysisError::Stopped`] when `pause` said so.
pub fn analyse_game(
    size: u8,
    opening: &[Cell],
    moves: &[Move],
    playouts: u32,
    rng: &mut impl Rng,
    pause: &mut dyn FnMut() -> bool,
) -> Result<GameAnalysis, AnalysisError> {
    let mut pos = Position::with_opening(size, opening).map_err(AnalysisError::Setup)?;
    let mut win_prob = Vec::with_capacity(moves.len() + 1);
    let mut best = Vec::with_capacity(moves.len() + 1);
    let mut movers = Vec::with_capacity(moves.len());
    for k in 0..=moves.len() {
        if pause() {
            return Err(AnalysisError::Stopped);
        }
        let (p1, b) = match pos.outcome() {
            Some(o) => (
                match o.winner() {
                    Some(Seat::One) => 1.0,
                    Some(Seat::Two) => 0.0,
                    None => 0.5,
                },
                None,
            ),
            None => {
                let mut stop = |_: u32| pause();
                let e = evaluate(
                    &pos,
                    rng,
                    Limits {
                        max_playouts: playouts,
                        stop: &mut stop,
                    },
                );
                if pause() {
                    return Err(AnalysisError::Stopped);
                }
                match e {
                    Some(e) if pos.mover() == Seat::One => (e.win_rate, e.best),
                    Some(e) => (1.0 - e.win_rate, e.best),
                    None => (0.5, None),
                }
            }
        };
        win_prob.push(p1);
        best.push(b);
        if let Some(&mv) = moves.get(k) {
            movers.push(pos.mover());
            pos.play(mv).map_err(|_| AnalysisError::Illegal(k))?;
        }
    }
    let mut mistakes = vec![];
    for (k, (&mv, &seat)) in moves.iter().zip(&movers).enumerate() {
        let mine = |p: f64| if seat == Seat::One { p } else { 1.0 - p };
        let drop = mine(win_prob[k]) - mine(win_prob[k + 1]);
        if let Some(b) = best[k]
            && drop >= MISTAKE_DROP
            && b != mv
        {
            mistakes.push(Mistake {
                ply: u32::try_from(k + 1).unwrap_or(u32::MAX),
                seat: seat.number(),
                drop,
                best: b,
            });
        }
    }
    Ok(GameAnalysis {
        win_prob,
        best,
        mistakes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;
    use rand_pcg::Pcg64;

    fn rng() -> Pcg64 {
        Pcg64::seed_from_u64(21)
    }

    /// A random game on `size` from `seed`, to its end.
    fn random_game(size: u8, seed: u64) -> Vec<Move> {
        let mut r = Pcg64::seed_from_u64(seed);
        let mut pos = Position::new(size).expect("size");
        let mut moves = vec![];
        while let Some(mv) = crate::random_move(&pos, &mut r) {
            moves.push(mv);
            pos.play(mv).expect("legal");
        }
        moves
    }

    #[test]
    fn a_finished_game_has_one_value_per_position_ending_with_the_winner() {
        for seed in 0..4 {
            let moves = random_game(7, seed);
            let a = analyse_game(7, &[], &moves, 300, &mut rng(), &mut || false).expect("analysed");
            assert_eq!(a.win_prob.len(), moves.len() + 1);
            assert!(
                a.win_prob.iter().all(|p| (0.0..=1.0).contains(p)),
                "{:?}",
                a.win_prob
            );
            let mut pos = Position::new(7).expect("size");
            for mv in &moves {
                pos.play(*mv).expect("legal");
            }
            let winner = pos.outcome().and_then(|o| o.winner()).expect("a winner");
            let last = *a.win_prob.last().expect("values");
            assert_eq!(last, if winner == Seat::One { 1.0 } else { 0.0 });
            assert_eq!(a.best.last(), Some(&None));
        }
    }

    #[test]
    fn random_play_makes_mistakes_and_each_names_a_better_move() {
        let moves = random_game(7, 7);
        let a = analyse_game(7, &[], &moves, 400, &mut rng(), &mut || false).expect("analysed");
        assert!(!a.mistakes.is_empty(), "{:?}", a.win_prob);
        for m in &a.mistakes {
            let k = (m.ply - 1) as usize;
            assert!(m.drop >= MISTAKE_DROP && m.drop <= 1.0, "{m:?}");
            assert_ne!(Some(m.best), moves.get(k).copied(), "{m:?}");
            assert_eq!(m.seat, if k.is_multiple_of(2) { 1 } else { 2 }, "{m:?}");
        }
    }

    #[test]
    fn a_missed_immediate_win_that_hands_over_the_game_is_a_whole_mistake() {
        // 3x3: seat 1 (top-bottom) holds c1 and b3, seat 2 (left-right) a2 and b2; c2 wins
        // for whoever takes it. Seat 1 plays a1 instead and seat 2 takes c2.
        let opening = [
            Cell::new(0, 2),
            Cell::new(1, 0),
            Cell::new(2, 1),
            Cell::new(1, 1),
        ];
        let c2 = Move::Place(Cell::new(1, 2));
        let moves = [Move::Place(Cell::new(0, 0)), c2];
        let a = analyse_game(3, &opening, &moves, 200, &mut rng(), &mut || false).expect("ok");
        assert_eq!(a.win_prob, vec![1.0, 0.0, 0.0]);
        assert_eq!(a.best[0], Some(c2));
        assert_eq!(
            a.mistakes,
            vec![Mistake {
                ply: 1,
                seat: 1,
                drop: 1.0,
                best: c2
            }]
        );
    }

    #[test]
    fn after_a_swap_the_values_stay_with_the_seats() {
        // Seat 1 opens in the centre, seat 2 swaps and owns it; then play on to a win.
        let mut pos = Position::new(5).expect("size");
        let mut moves = vec![Move::Place(Cell::new(2, 2)), Move::Swap];
        for mv in &moves {
            pos.play(*mv).expect("legal");
        }
        let mut r = Pcg64::seed_from_u64(3);
        while let Some(mv) = crate::random_move(&pos, &mut r) {
            moves.push(mv);
            pos.play(mv).expect("legal");
        }
        let a = analyse_game(5, &[], &moves, 300, &mut rng(), &mut || false).expect("ok");
        let winner = pos.outcome().and_then(|o| o.winner()).expect("winner");
        let last = *a.win_prob.last().expect("values");
        assert_eq!(last, if winner == Seat::One { 1.0 } else { 0.0 });
        // Seat 2 owns the centre stone after the swap, so seat 1's chances fall below even.
        assert!(a.win_prob[2] < 0.5, "{:?}", a.win_prob);
    }

    #[test]
    fn a_pause_that_says_stop_ends_the_analysis() {
        let moves = random_game(5, 1);
        let r = analyse_game(5, &[], &moves, 100, &mut rng(), &mut || true);
        assert_eq!(r, Err(AnalysisError::Stopped));
    }
}
