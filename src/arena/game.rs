//! The game aggregate (SPEC sections 2, 6, 7): one game's seats, status, position, clock and
//! version advance together in pure code. [`Game::play`], [`Game::resign`] and
//! [`Game::expire`] take the time as an argument and return a [`Transition`] (the new game
//! plus what happened) or a [`GameError`]; the caller stores the transition, then publishes it.
//! Nothing here touches the database, the clock of the machine or HTTP.

use hex::{Move, PlayError, Position, Seat};

use super::clock::{Clock, FIRST_MOVE_MS, TimeLoss};
use crate::store::games::GameRow;

/// Why a game ended (SPEC section 6, `result.reason`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    Connection,
    Resignation,
    Timeout,
    FirstMoveTimeout,
    MoveCap,
}

impl EndReason {
    /// The reason as the API and the database spell it.
    pub const fn as_str(self) -> &'static str {
        match self {
            EndReason::Connection => "connection",
            EndReason::Resignation => "resignation",
            EndReason::Timeout => "timeout",
            EndReason::FirstMoveTimeout => "first_move_timeout",
            EndReason::MoveCap => "move_cap",
        }
    }

    /// Parses a stored reason.
    pub fn parse(s: &str) -> Option<EndReason> {
        Some(match s {
            "connection" => EndReason::Connection,
            "resignation" => EndReason::Resignation,
            "timeout" => EndReason::Timeout,
            "first_move_timeout" => EndReason::FirstMoveTimeout,
            "move_cap" => EndReason::MoveCap,
            _ => return None,
        })
    }
}

impl From<TimeLoss> for EndReason {
    fn from(l: TimeLoss) -> Self {
        match l {
            TimeLoss::FirstMove => EndReason::FirstMoveTimeout,
            TimeLoss::Clock => EndReason::Timeout,
        }
    }
}

/// Where a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Game 2 before game 1 ends.
    Pending,
    /// Running, with `to_move` on move.
    Active { to_move: Seat },
    /// Over: `winner` None is a move-cap draw.
    Finished {
        winner: Option<Seat>,
        reason: EndReason,
    },
}

impl Status {
    /// `pending`, `active` or `finished`, as stored and served.
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Active { .. } => "active",
            Status::Finished { .. } => "finished",
        }
    }
}

/// One game of a set as the rules see it. `seats[0]` is seat 1's bot id.
#[derive(Clone, Debug)]
pub struct Game {
    pub set_id: String,
    pub game_no: i64,
    pub seats: [String; 2],
    pub status: Status,
    pub position: Position,
    pub clock: Clock,
    /// Moves played (a swap counts; opening stones do not).
    pub ply: i64,
    pub started_ms: Option<i64>,
    pub finished_ms: Option<i64>,
    /// Increases with every stored change; caches and writes check against it (SPEC 12).
    pub version: i64,
    /// The seat that lost on time had gone away (issue 18: `result.offline`).
    pub offline: bool,
    /// The game ended because a seat's bot was withdrawn from its tournament (issue 18:
    /// `result.forfeit`).
    pub forfeit: bool,
}

/// A move as played: its ply, seat, the move, the ms its seat's clock was charged, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    pub ply: i64,
    pub seat: Seat,
    pub mv: Move,
    pub elapsed_ms: i64,
    pub at_ms: i64,
}

/// How a transition ended the game. `strike` is the seat that missed its first-move deadline
/// (SPEC 7: a strike when the set is staked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ending {
    pub winner: Option<Seat>,
    pub reason: EndReason,
    pub strike: Option<Seat>,
}

/// What one accepted command did: the game after it (version + 1), the move it stored if any,
/// and the end of the game if it ended.
#[derive(Clone, Debug)]
pub struct Transition {
    pub game: Game,
    pub played: Option<Played>,
    pub ended: Option<Ending>,
}

impl Transition {
    /// A move arrived after its seat's flag fell: the game is lost on time and the move refused.
    pub fn is_late_move_loss(&self) -> bool {
        self.played.is_none()
            && matches!(
                self.ended.map(|e| e.reason),
                Some(EndReason::Timeout | EndReason::FirstMoveTimeout)
            )
    }
}

/// Why a command was refused; the game is unchanged. The HTTP edge maps each to its status
/// and code (SPEC section 10).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameError {
    /// The bot has no seat in this game (403 `not_your_seat`).
    NotYourSeat,
    /// Game 2 before game 1 ended (409 `not_your_turn`).
    NotStarted,
    /// The other seat is on move (409 `not_your_turn`).
    NotYourTurn { to_move: Seat, ply: i64 },
    /// `?ply=K` names another ply than the next one (409 `stale_ply`).
    /// `played` is the move already stored at ply `given` (seat number and move), if any.
    /// `waiting_for` is the seat on move when it is not the sender's.
    StalePly {
        expected: i64,
        ply: i64,
        given: i64,
        played: Option<(i64, Move)>,
        waiting_for: Option<Seat>,
    },
    /// The game has ended (409 `game_over`).
    GameOver,
    /// The engine refused the move (422 `occupied`, `off_board`, `swap_not_allowed`).
    Illegal { error: PlayError, mv: Move },
    /// The stored row does not describe a valid game (500).
    Corrupt(String),
}

impl std::fmt::Display for GameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GameError::NotYourSeat => write!(f, "your bot has no seat in this game"),
            GameError::NotStarted => write!(f, "this game has not started yet"),
            GameError::NotYourTurn { to_move, ply } => write!(
                f,
                "the other seat is on move (seat {}, after {ply} moves); wait for your turn",
                to_move.number()
            ),
            GameError::StalePly {
                given,
                played: Some((seat, mv)),
                ..
            } => write!(
                f,
                "ply {given} was already played (seat {seat} played {}); the next move is ply {}",
                move_name(*mv),
                self.next_ply()
            ),
            GameError::StalePly {
                given,
                ply,
                waiting_for: Some(seat),
                ..
            } => write!(
                f,
                "the other seat is on move (seat {}, after {ply} moves): wait for your turn; \
                 ply {given} is not the next ply either",
                seat.number()
            ),
            GameError::StalePly {
                expected, given, ..
            } => write!(f, "this move would be ply {expected}, not {given}"),
            GameError::GameOver => write!(f, "the game is over"),
            GameError::Illegal {
                error,
                mv: Move::Place(c),
            } => write!(f, "{error}: [{}, {}]", c.row, c.col),
            GameError::Illegal { error, .. } => write!(f, "{error}"),
            GameError::Corrupt(m) => write!(f, "stored game is invalid: {m}"),
        }
    }
}

impl std::error::Error for GameError {}

impl GameError {
    fn next_ply(&self) -> i64 {
        match self {
            GameError::StalePly { expected, .. } => *expected,
            _ => 0,
        }
    }
}

/// A move in `a1` notation (column letter, row from 1), or `swap`.
fn move_name(mv: Move) -> String {
    match mv {
        Move::Swap => "swap".into(),
        Move::Place(c) => format!("{}{}", char::from(b'a' + c.col), u32::from(c.row) + 1),
    }
}

impl Game {
    /// The aggregate stored in a game row; `increment_ms` comes from the set.
    ///
    /// Errors: [`GameError::Corrupt`] when the board, seat or reason columns are invalid.
    pub fn from_row(g: &GameRow, increment_ms: i64) -> Result<Game, GameError> {
        let position = Position::from_compact(&g.board)
            .map_err(|e| GameError::Corrupt(format!("{} {}: {e}", g.set_id, g.game_no)))?;
        let seat_of_id = |id: &str| {
            if id == g.seat1_id {
                Some(Seat::One)
            } else if id == g.seat2_id {
                Some(Seat::Two)
            } else {
                None
            }
        };
        let status = match g.status.as_str() {
            "pending" => Status::Pending,
            "active" => Status::Active {
                to_move: g
                    .to_move_id
                    .as_deref()
                    .and_then(seat_of_id)
                    .ok_or_else(|| {
                        GameError::Corrupt("active game without a seat on move".into())
                    })?,
            },
            "finished" => Status::Finished {
                winner: g
                    .winner_seat
                    .and_then(|w| u8::try_from(w).ok())
                    .and_then(Seat::from_number),
                reason: g
                    .reason
                    .as_deref()
                    .and_then(EndReason::parse)
                    .ok_or_else(|| GameError::Corrupt("finished game without a reason".into()))?,
            },
            other => return Err(GameError::Corrupt(format!("status '{other}'"))),
        };
        Ok(Game {
            set_id: g.set_id.clone(),
            game_no: g.game_no,
            seats: [g.seat1_id.clone(), g.seat2_id.clone()],
            status,
            position,
            clock: Clock {
                remaining_ms: [g.remaining1_ms, g.remaining2_ms],
                first_move: [g.first1 != 0, g.first2 != 0],
                increment_ms,
                turn_started_ms: g.turn_started_ms,
            },
            ply: g.ply,
            started_ms: g.started_ms,
            finished_ms: g.finished_ms,
            version: g.version,
            offline: g.offline != 0,
            forfeit: g.forfeit != 0,
        })
    }

    /// The row that stores this game.
    pub fn to_row(&self) -> GameRow {
        let (to_move_id, deadline_ms, winner_seat, reason) = match self.status {
            Status::Active { to_move } => (
                Some(self.bot_of(to_move).to_string()),
                self.clock.deadline_ms(to_move),
                None,
                None,
            ),
            Status::Finished { winner, reason } => (
                None,
                None,
                winner.map(|w| i64::from(w.number())),
                Some(reason.as_str().to_string()),
            ),
            Status::Pending => (None, None, None, None),
        };
        GameRow {
            set_id: self.set_id.clone(),
            game_no: self.game_no,
            seat1_id: self.seats[0].clone(),
            seat2_id: self.seats[1].clone(),
            status: self.status.as_str().to_string(),
            board: self.position.to_compact(),
            ply: self.ply,
            to_move_id,
            remaining1_ms: self.clock.remaining_ms[0],
            remaining2_ms: self.clock.remaining_ms[1],
            first1: i64::from(self.clock.first_move[0]),
            first2: i64::from(self.clock.first_move[1]),
            turn_started_ms: self.clock.turn_started_ms,
            deadline_ms,
            winner_seat,
            reason,
            started_ms: self.started_ms,
            finished_ms: self.finished_ms,
            version: self.version,
            offline: i64::from(self.offline),
            forfeit: i64::from(self.forfeit),
            // Counted by `games::add_refused` alone; `games::update` leaves them as they are.
            refused1: 0,
            refused2: 0,
        }
    }

    /// The bot id in `seat`.
    pub fn bot_of(&self, seat: Seat) -> &str {
        &self.seats[usize::from(seat.number() - 1)]
    }

    /// The seat of `bot_id`. Errors: [`GameError::NotYourSeat`].
    pub fn seat_of(&self, bot_id: &str) -> Result<Seat, GameError> {
        if self.seats[0] == bot_id {
            Ok(Seat::One)
        } else if self.seats[1] == bot_id {
            Ok(Seat::Two)
        } else {
            Err(GameError::NotYourSeat)
        }
    }

    /// The seat on move, if the game is active.
    pub fn to_move(&self) -> Option<Seat> {
        match self.status {
            Status::Active { to_move } => Some(to_move),
            _ => None,
        }
    }

    /// The seat that resigned, if the game ended by resignation.
    pub fn resigned_by(&self) -> Option<Seat> {
        match self.status {
            Status::Finished {
                winner: Some(w),
                reason: EndReason::Resignation,
            } => Some(w.other()),
            _ => None,
        }
    }

    /// When the seat on move loses if it does not move (ms since the epoch).
    pub fn deadline_ms(&self) -> Option<i64> {
        self.clock.deadline_ms(self.to_move()?)
    }

    /// Plays `mv` for `seat` at `now_ms` (SPEC 6, 7): the engine checks the move, the clock
    /// charges it (the first move is free), and the game ends on a connection or the move cap.
    /// A move that arrives after its seat's flag fell is not played: the transition ends the
    /// game on time instead ([`Transition::is_late_move_loss`]).
    ///
    /// Errors: `GameOver`, `NotStarted`, `NotYourTurn`, `Illegal`.
    pub fn play(&self, seat: Seat, mv: Move, now_ms: i64) -> Result<Transition, GameError> {
        let to_move = self.ensure_on_move(seat)?;
        if let Some(loss) = self.clock.loss_at(to_move, now_ms) {
            return Ok(self.lost_on_time(to_move, loss, now_ms));
        }
        let mut position = self.position.clone();
        let outcome = position
            .play(mv)
            .map_err(|error| GameError::Illegal { error, mv })?;
        let mut clock = self.clock;
        let elapsed_ms = clock
            .charge_move(seat, now_ms)
            .map_err(|_| GameError::Corrupt("the clock refused a checked move".into()))?;
        let played = Played {
            ply: self.ply + 1,
            seat,
            mv,
            elapsed_ms,
            at_ms: now_ms,
        };
        let mut game = Game {
            position,
            clock,
            ply: self.ply + 1,
            version: self.version + 1,
            ..self.clone()
        };
        let ended = outcome.map(|o| {
            let winner = o.winner();
            let reason = if winner.is_some() {
                EndReason::Connection
            } else {
                EndReason::MoveCap
            };
            game.finish(winner, reason, now_ms);
            Ending {
                winner,
                reason,
                strike: None,
            }
        });
        if ended.is_none() {
            game.status = Status::Active {
                to_move: seat.other(),
            };
        }
        Ok(Transition {
            game,
            played: Some(played),
            ended,
        })
    }

    /// Resigns for `seat` at `now_ms`: the other seat wins by `resignation`, unless the seat on
    /// move had already lost on time, which is then the result.
    ///
    /// Errors: `GameOver`, `NotStarted`.
    pub fn resign(&self, seat: Seat, now_ms: i64) -> Result<Transition, GameError> {
        let to_move = match self.status {
            Status::Finished { .. } => return Err(GameError::GameOver),
            Status::Pending => return Err(GameError::NotStarted),
            Status::Active { to_move } => to_move,
        };
        if let Some(loss) = self.clock.loss_at(to_move, now_ms) {
            return Ok(self.lost_on_time(to_move, loss, now_ms));
        }
        let mut game = Game {
            version: self.version + 1,
            ..self.clone()
        };
        game.clock.stop(Some(to_move), now_ms);
        let winner = Some(seat.other());
        game.finish(winner, EndReason::Resignation, now_ms);
        Ok(Transition {
            game,
            played: None,
            ended: Some(Ending {
                winner,
                reason: EndReason::Resignation,
                strike: None,
            }),
        })
    }

    /// The loss on time of the seat on move, if its deadline passed before `now_ms`
    /// (a move at exactly the deadline is in time). None when nothing is due.
    pub fn expire(&self, now_ms: i64) -> Option<Transition> {
        let to_move = self.to_move()?;
        let loss = self.clock.loss_at(to_move, now_ms)?;
        Some(self.lost_on_time(to_move, loss, now_ms))
    }

    /// Ends this game, pending or active, as forfeited by `loser` at `now_ms` (its bot was
    /// withdrawn from its tournament; issue 18): the other seat wins by `resignation` with
    /// [`Game::forfeit`] set. If the seat on move had already lost on time, that loss stands.
    /// None when the game is over.
    #[must_use]
    pub fn forfeit(&self, loser: Seat, now_ms: i64) -> Option<Transition> {
        let to_move = match self.status {
            Status::Finished { .. } => return None,
            Status::Pending => None,
            Status::Active { to_move } => Some(to_move),
        };
        if let Some(s) = to_move
            && let Some(loss) = self.clock.loss_at(s, now_ms)
        {
            return Some(self.lost_on_time(s, loss, now_ms));
        }
        let mut game = Game {
            version: self.version + 1,
            forfeit: true,
            ..self.clone()
        };
        game.clock.stop(to_move, now_ms);
        let winner = Some(loser.other());
        game.finish(winner, EndReason::Resignation, now_ms);
        Some(Transition {
            game,
            played: None,
            ended: Some(Ending {
                winner,
                reason: EndReason::Resignation,
                strike: None,
            }),
        })
    }

    /// Starts this (pending) game at `now_ms` with seat 1 on move and its first-move deadline.
    pub fn start(&self, now_ms: i64) -> Option<Game> {
        if self.status != Status::Pending {
            return None;
        }
        let mut game = Game {
            status: Status::Active { to_move: Seat::One },
            started_ms: Some(now_ms),
            version: self.version + 1,
            ..self.clone()
        };
        game.clock.turn_started_ms = Some(now_ms);
        debug_assert_eq!(game.deadline_ms(), Some(now_ms + FIRST_MOVE_MS));
        Some(game)
    }

    fn ensure_on_move(&self, seat: Seat) -> Result<Seat, GameError> {
        match self.status {
            Status::Finished { .. } => Err(GameError::GameOver),
            Status::Pending => Err(GameError::NotStarted),
            Status::Active { to_move } if to_move == seat => Ok(to_move),
            Status::Active { to_move } => Err(GameError::NotYourTurn {
                to_move,
                ply: self.ply,
            }),
        }
    }

    /// `loser` (on move) ran out of time: on the clock it has 0 ms left; a missed first move was
    /// never charged, so that clock keeps what it had and the seat earns a strike.
    fn lost_on_time(&self, loser: Seat, loss: TimeLoss, now_ms: i64) -> Transition {
        let mut game = Game {
            version: self.version + 1,
            ..self.clone()
        };
        if loss == TimeLoss::Clock {
            game.clock.remaining_ms[usize::from(loser.number() - 1)] = 0;
        }
        let winner = Some(loser.other());
        let reason = EndReason::from(loss);
        game.finish(winner, reason, now_ms);
        Transition {
            game,
            played: None,
            ended: Some(Ending {
                winner,
                reason,
                strike: (loss == TimeLoss::FirstMove).then_some(loser),
            }),
        }
    }

    fn finish(&mut self, winner: Option<Seat>, reason: EndReason, now_ms: i64) {
        self.clock.turn_started_ms = None;
        self.status = Status::Finished { winner, reason };
        self.finished_ms = Some(now_ms);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hex::Cell;

    const T0: i64 = 1_700_000_000_000;

    fn game(size: u8) -> Game {
        let pos = Position::new(size).expect("size");
        let mut clock = Clock::new(60_000, 2_000);
        clock.turn_started_ms = Some(T0);
        Game {
            set_id: "set_x".into(),
            game_no: 1,
            seats: ["bot_a".into(), "bot_b".into()],
            status: Status::Active { to_move: Seat::One },
            position: pos,
            clock,
            ply: 0,
            started_ms: Some(T0),
            finished_ms: None,
            version: 1,
            offline: false,
            forfeit: false,
        }
    }

    fn place(r: u8, c: u8) -> Move {
        Move::Place(Cell::new(r, c))
    }

    #[test]
    fn a_move_advances_ply_version_clock_and_seat_on_move_and_leaves_the_old_game_alone() {
        let g = game(5);
        let t = g.play(Seat::One, place(2, 2), T0 + 3_000).expect("legal");
        assert_eq!(t.game.ply, 1);
        assert_eq!(t.game.version, 2);
        assert_eq!(t.game.to_move(), Some(Seat::Two));
        assert_eq!(t.game.position.stone(Cell::new(2, 2)), Some(Seat::One));
        assert_eq!(
            t.played,
            Some(Played {
                ply: 1,
                seat: Seat::One,
                mv: place(2, 2),
                elapsed_ms: 3_000,
                at_ms: T0 + 3_000
            })
        );
        assert_eq!(t.ended, None);
        assert_eq!(t.game.deadline_ms(), Some(T0 + 3_000 + 30_000));
        assert_eq!((g.ply, g.version), (0, 1));
        assert_eq!(g.position.stone(Cell::new(2, 2)), None);
    }

    #[test]
    fn refusals_name_their_cause_and_change_nothing() {
        let g = game(5);
        assert_eq!(
            g.play(Seat::Two, place(0, 0), T0).err(),
            Some(GameError::NotYourTurn {
                to_move: Seat::One,
                ply: 0
            })
        );
        assert!(matches!(
            g.play(Seat::One, Move::Swap, T0).err(),
            Some(GameError::Illegal {
                error: PlayError::SwapNotAllowed,
                ..
            })
        ));
        assert!(matches!(
            g.play(Seat::One, place(9, 9), T0).err(),
            Some(GameError::Illegal {
                error: PlayError::OffBoard,
                ..
            })
        ));
        assert_eq!(g.seat_of("bot_z"), Err(GameError::NotYourSeat));
        let pending = Game {
            status: Status::Pending,
            ..game(5)
        };
        assert_eq!(
            pending.play(Seat::One, place(0, 0), T0).err(),
            Some(GameError::NotStarted)
        );
    }

    #[test]
    fn a_connection_ends_the_game_with_the_winner_and_stops_the_clock() {
        let mut g = game(2);
        for (i, (seat, r, c)) in [(Seat::One, 0, 1), (Seat::Two, 0, 0)]
            .into_iter()
            .enumerate()
        {
            g = g
                .play(seat, place(r, c), T0 + 1_000 * (i as i64 + 1))
                .expect("legal")
                .game;
        }
        let t = g.play(Seat::One, place(1, 0), T0 + 5_000).expect("legal");
        assert_eq!(
            t.ended,
            Some(Ending {
                winner: Some(Seat::One),
                reason: EndReason::Connection,
                strike: None
            })
        );
        assert_eq!(t.game.clock.turn_started_ms, None);
        assert_eq!(t.game.finished_ms, Some(T0 + 5_000));
        let row = t.game.to_row();
        assert_eq!(
            (row.status.as_str(), row.winner_seat, row.reason.as_deref()),
            ("finished", Some(1), Some("connection"))
        );
        assert_eq!(
            t.game.play(Seat::Two, place(1, 1), T0 + 6_000).err(),
            Some(GameError::GameOver)
        );
    }

    #[test]
    fn a_late_move_is_a_loss_on_time_and_a_late_first_move_a_strike() {
        let g = game(5);
        let t = g
            .play(Seat::One, place(0, 0), T0 + 30_001)
            .expect("a transition");
        assert!(t.is_late_move_loss());
        assert_eq!(
            t.ended,
            Some(Ending {
                winner: Some(Seat::Two),
                reason: EndReason::FirstMoveTimeout,
                strike: Some(Seat::One)
            })
        );
        assert_eq!(t.game.clock.remaining_ms, [60_000, 60_000]);
        assert!(g.play(Seat::One, place(0, 0), T0 + 30_000).is_ok());

        // Past its first move, the seat's flag falls at its remaining time: 0 ms left.
        let g = g
            .play(Seat::One, place(0, 0), T0)
            .expect("legal")
            .game
            .play(Seat::Two, place(1, 1), T0)
            .expect("legal")
            .game;
        assert!(g.expire(T0 + 60_000).is_none());
        let t = g.expire(T0 + 60_001).expect("due");
        assert_eq!(
            t.ended.map(|e| (e.reason, e.strike)),
            Some((EndReason::Timeout, None))
        );
        assert_eq!(t.game.clock.remaining_ms[0], 0);
    }

    #[test]
    fn a_forfeit_ends_an_active_or_pending_game_for_the_other_seat_and_stops_the_clock() {
        let g = game(5)
            .play(Seat::One, place(0, 0), T0)
            .expect("legal")
            .game
            .play(Seat::Two, place(1, 1), T0 + 1_000)
            .expect("legal")
            .game;
        // Seat 1 on move since T0 + 1 s: charged 4 s; seat 2's bot is the one withdrawn.
        let t = g.forfeit(Seat::Two, T0 + 5_000).expect("active");
        assert_eq!(
            t.game.status,
            Status::Finished {
                winner: Some(Seat::One),
                reason: EndReason::Resignation
            }
        );
        assert!(t.game.forfeit && t.played.is_none());
        assert_eq!(t.game.clock.turn_started_ms, None);
        assert_eq!(t.game.deadline_ms(), None);
        assert_eq!(t.game.clock.remaining_ms, [56_000, 60_000]);
        assert_eq!(t.game.version, g.version + 1);
        assert!(
            t.game.forfeit(Seat::One, T0 + 6_000).is_none(),
            "over already"
        );
        let pending = Game {
            status: Status::Pending,
            started_ms: None,
            ..game(5)
        };
        let t = pending.forfeit(Seat::One, T0).expect("pending");
        assert_eq!(
            t.game.status,
            Status::Finished {
                winner: Some(Seat::Two),
                reason: EndReason::Resignation
            }
        );
        assert_eq!(t.game.ply, 0);
    }

    #[test]
    fn a_forfeit_after_the_flag_fell_is_the_loss_on_time_it_already_was() {
        let g = game(5)
            .play(Seat::One, place(0, 0), T0)
            .expect("legal")
            .game
            .play(Seat::Two, place(1, 1), T0 + 1_000)
            .expect("legal")
            .game;
        let t = g.forfeit(Seat::Two, T0 + 1_000 + 61_000).expect("active");
        assert_eq!(t.ended.map(|e| e.reason), Some(EndReason::Timeout));
        assert_eq!(t.ended.and_then(|e| e.winner), Some(Seat::Two));
        assert!(!t.game.forfeit);
    }

    #[test]
    fn resigning_gives_the_other_seat_the_game_and_charges_the_running_turn() {
        let g = game(5)
            .play(Seat::One, place(0, 0), T0)
            .expect("legal")
            .game
            .play(Seat::Two, place(1, 1), T0 + 1_000)
            .expect("legal")
            .game;
        let t = g.resign(Seat::Two, T0 + 11_000).expect("active");
        assert_eq!(
            t.game.status,
            Status::Finished {
                winner: Some(Seat::One),
                reason: EndReason::Resignation
            }
        );
        assert_eq!(t.game.clock.remaining_ms, [50_000, 60_000]);
        assert_eq!(
            t.game.resign(Seat::One, T0).err(),
            Some(GameError::GameOver)
        );
    }

    #[test]
    fn a_row_round_trips_through_the_aggregate() {
        let g = game(7)
            .play(Seat::One, place(3, 3), T0 + 10)
            .expect("legal")
            .game;
        let row = g.to_row();
        let back = Game::from_row(&row, 2_000).expect("valid row");
        assert_eq!(back.to_row().board, row.board);
        assert_eq!(back.to_move(), Some(Seat::Two));
        assert_eq!(back.version, g.version);
        assert_eq!(back.clock, g.clock);
        let mut bad = row.clone();
        bad.status = "exploded".into();
        assert!(matches!(
            Game::from_row(&bad, 0),
            Err(GameError::Corrupt(_))
        ));
    }

    #[test]
    fn a_pending_game_starts_with_seat_one_on_its_first_move_deadline() {
        let g = Game {
            status: Status::Pending,
            ..game(5)
        };
        let s = g.start(T0 + 500).expect("pending");
        assert_eq!(s.to_move(), Some(Seat::One));
        assert_eq!(s.deadline_ms(), Some(T0 + 500 + FIRST_MOVE_MS));
        assert!(s.start(T0).is_none());
    }
}
