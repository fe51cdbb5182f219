//! Set points and the fewer-moves tiebreak (SPEC section 8), pure.

use hex::Seat;

/// The two bots of a set, by role. Game 1 seats the acceptor as seat 1, game 2 the creator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Creator = 0,
    Acceptor = 1,
}

impl Side {
    /// Which side sits in `seat` in game `game_no` (1 or 2).
    pub fn in_seat(game_no: i64, seat: Seat) -> Side {
        match (game_no == 1, seat) {
            (true, Seat::One) | (false, Seat::Two) => Side::Acceptor,
            _ => Side::Creator,
        }
    }
    pub fn other(self) -> Side {
        match self {
            Side::Creator => Side::Acceptor,
            Side::Acceptor => Side::Creator,
        }
    }
}

/// Moves a seat made in a game of `ply` moves (swap included, opening excluded):
/// seat 1 makes moves 1, 3, 5, ...; seat 2 moves 2, 4, ...
pub fn moves_of(seat: Seat, ply: i64) -> i64 {
    match seat {
        Seat::One => (ply + 1) / 2,
        Seat::Two => ply / 2,
    }
}

/// The end of one game as scoring needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameEnd {
    pub game_no: i64,
    /// None for a move-cap draw.
    pub winner: Option<Seat>,
    pub ply: i64,
}

/// How a set ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetOutcome {
    Win { side: Side, tiebreak: bool },
    Draw,
}

/// The scored set: points doubled (so a draw's half point stays an integer), indexed by [`Side`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SetScore {
    pub points2: [i64; 2],
    /// Own moves in games not lost, per side (the tiebreak count).
    pub tiebreak_moves: [i64; 2],
    pub outcome: SetOutcome,
}

/// Scores a finished set from its two games.
pub fn score_set(games: &[GameEnd; 2]) -> SetScore {
    let mut points2 = [0i64; 2];
    let mut tiebreak_moves = [0i64; 2];
    for g in games {
        for seat in [Seat::One, Seat::Two] {
            let side = Side::in_seat(g.game_no, seat) as usize;
            let pts = match g.winner {
                Some(w) if w == seat => 2,
                Some(_) => 0,
                None => 1,
            };
            points2[side] += pts;
            if pts > 0 {
                tiebreak_moves[side] += moves_of(seat, g.ply);
            }
        }
    }
    let outcome = if points2[0] != points2[1] {
        let side = if points2[0] > points2[1] {
            Side::Creator
        } else {
            Side::Acceptor
        };
        SetOutcome::Win {
            side,
            tiebreak: false,
        }
    } else if tiebreak_moves[0] != tiebreak_moves[1] {
        let side = if tiebreak_moves[0] < tiebreak_moves[1] {
            Side::Creator
        } else {
            Side::Acceptor
        };
        SetOutcome::Win {
            side,
            tiebreak: true,
        }
    } else {
        SetOutcome::Draw
    };
    SetScore {
        points2,
        tiebreak_moves,
        outcome,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end(game_no: i64, winner: Option<Seat>, ply: i64) -> GameEnd {
        GameEnd {
            game_no,
            winner,
            ply,
        }
    }

    #[test]
    fn sides_swap_seats_between_games() {
        assert_eq!(Side::in_seat(1, Seat::One), Side::Acceptor);
        assert_eq!(Side::in_seat(1, Seat::Two), Side::Creator);
        assert_eq!(Side::in_seat(2, Seat::One), Side::Creator);
        assert_eq!(Side::in_seat(2, Seat::Two), Side::Acceptor);
    }

    #[test]
    fn two_nil_wins_without_tiebreak() {
        // Creator is seat 2 in game 1 and seat 1 in game 2.
        let s = score_set(&[end(1, Some(Seat::Two), 30), end(2, Some(Seat::One), 41)]);
        assert_eq!(s.points2, [4, 0]);
        assert_eq!(
            s.outcome,
            SetOutcome::Win {
                side: Side::Creator,
                tiebreak: false
            }
        );
    }

    #[test]
    fn one_all_goes_to_the_quicker_win() {
        // Game 1: acceptor (seat 1) wins at ply 31 with 16 moves.
        // Game 2: acceptor loses; creator (seat 1) wins at ply 25 with 13 moves.
        let s = score_set(&[end(1, Some(Seat::One), 31), end(2, Some(Seat::One), 25)]);
        assert_eq!(s.points2, [2, 2]);
        assert_eq!(s.tiebreak_moves, [13, 16]);
        assert_eq!(
            s.outcome,
            SetOutcome::Win {
                side: Side::Creator,
                tiebreak: true
            }
        );
    }

    #[test]
    fn one_all_with_equal_move_counts_is_a_draw() {
        // Game 1: seat 2 (creator) wins at ply 20 -> 10 moves; game 2: seat 2 (acceptor) at 20.
        let s = score_set(&[end(1, Some(Seat::Two), 20), end(2, Some(Seat::Two), 20)]);
        assert_eq!(s.tiebreak_moves, [10, 10]);
        assert_eq!(s.outcome, SetOutcome::Draw);
    }

    #[test]
    fn a_move_cap_draw_gives_half_a_point_and_counts_moves_for_both() {
        let s = score_set(&[end(1, None, 362), end(2, Some(Seat::One), 21)]);
        assert_eq!(s.points2, [3, 1]);
        assert_eq!(s.tiebreak_moves, [181 + 11, 181]);
        assert_eq!(
            s.outcome,
            SetOutcome::Win {
                side: Side::Creator,
                tiebreak: false
            }
        );
    }

    #[test]
    fn moves_split_between_seats() {
        assert_eq!((moves_of(Seat::One, 0), moves_of(Seat::Two, 0)), (0, 0));
        assert_eq!((moves_of(Seat::One, 7), moves_of(Seat::Two, 7)), (4, 3));
        assert_eq!((moves_of(Seat::One, 8), moves_of(Seat::Two, 8)), (4, 4));
    }
}
