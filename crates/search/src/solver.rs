//! A solver from virtual connections (issue 23), run on the filled-in board
//! ([`crate::inferior::fill_in`]):
//!
//! - the player on move has won when it has a full connection between its edges, or a semi
//!   one (then its key wins); the winning move is checked by playing it and finding a full
//!   connection afterwards;
//! - it has lost when the opponent has a full connection between the opponent's edges;
//! - otherwise, when the opponent has semi connections between its edges (it threatens to win
//!   at their keys), the *mustplay* is the intersection of their carriers: a move outside
//!   leaves one of those threats intact, so the opponent wins. The root search is limited to it.

use crate::board::{Board, CellSet};
use crate::inferior::{FillIn, fill_in};
use crate::vc::{VcLimits, h_search_until};

/// What the solver knows about a position, for the player on move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Proven won: playing `win` (a padded index) keeps a full connection between the
    /// player's edges.
    Won {
        /// The winning move.
        win: usize,
    },
    /// Proven lost: the opponent is connected whatever the player does. `prolong` is the
    /// intersection of the opponent's carriers (moves there at least make it play on; empty
    /// when none is common).
    Lost {
        /// Cells worth resisting in.
        prolong: CellSet,
    },
    /// Not proven; `mustplay` is `Some` when the opponent threatens to connect (then only
    /// moves in it can save the game).
    Open {
        /// The cells outside of which the player loses, when the opponent threatens.
        mustplay: Option<CellSet>,
    },
}

/// The solver's answer and the fill-in it worked on.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Won, lost or open.
    pub verdict: Verdict,
    /// The dead and captured cells (no use playing there).
    pub fill: FillIn,
}

/// Solves what it can for `player` (1 or 2) on move on `board` (see the module doc). Pure;
/// costs a few H-searches (more only in a won position, to check the winning move).
pub fn analyse(board: &Board, player: u8, limits: &VcLimits) -> Analysis {
    analyse_with(board, player, limits, true, &mut || false)
}

/// [`analyse`] that a caller with a clock can end early ([`crate::vc::h_search_until`]): a
/// win or loss then rests on the connections found so far, each of which holds; an ended
/// analysis claims no mustplay (that needs the player's own connections in full: with the
/// fill-in, a move outside the mustplay can intrude into a captured pair with a threat).
pub fn analyse_until(
    board: &Board,
    player: u8,
    limits: &VcLimits,
    stop: &mut dyn FnMut() -> bool,
) -> Analysis {
    analyse_with(board, player, limits, true, stop)
}

/// [`analyse`] at the cost of two H-searches, for the tree's many analyses: the winning move is
/// not checked by a further H-search. A semi connection's key is trusted (H-search makes a
/// semi only from two full connections through that empty cell, so playing it joins them), a
/// full connection wins with any move (the first empty cell of its carrier, or of the board),
/// and the player's captured cells are not tried as winning moves.
pub fn analyse_quick(board: &Board, player: u8, limits: &VcLimits) -> Analysis {
    analyse_with(board, player, limits, false, &mut || false)
}

/// [`analyse_quick`] that a caller with a clock can end early, as [`analyse_until`].
pub fn analyse_quick_until(
    board: &Board,
    player: u8,
    limits: &VcLimits,
    stop: &mut dyn FnMut() -> bool,
) -> Analysis {
    analyse_with(board, player, limits, false, stop)
}

fn analyse_with(
    board: &Board,
    player: u8,
    limits: &VcLimits,
    check: bool,
    stop: &mut dyn FnMut() -> bool,
) -> Analysis {
    // whether `stop` ended an H-search: its connections hold, but not finding the player's
    // own win does not mean it has none, and the mustplay needs that (below)
    let stopped = std::cell::Cell::new(false);
    let stop = &mut || {
        let s = stop();
        stopped.set(stopped.get() || s);
        s
    };
    let fill = fill_in(board);
    let opp = player ^ 3;
    let theirs = h_search_until(&fill.board, opp, limits, stop);
    if let Some(c) = theirs.edge_to_edge_full() {
        let prolong = theirs
            .fulls(theirs.edge_node(0), theirs.edge_node(1))
            .iter()
            .fold(c, |acc, f| acc.intersection(f));
        return Analysis {
            verdict: Verdict::Lost { prolong },
            fill,
        };
    }
    let mine = h_search_until(&fill.board, player, limits, stop);
    if !check {
        let empty = |i: &usize| board.cells.get(*i) == Some(&hex::EMPTY);
        let win = match mine.edge_to_edge_full() {
            Some(c) => c
                .iter()
                .find(empty)
                .or_else(|| board.empties().first().copied()),
            None => mine.edge_to_edge_semis().iter().map(|s| s.key).find(empty),
        };
        if let Some(win) = win {
            return Analysis {
                verdict: Verdict::Won { win },
                fill,
            };
        }
    }
    let mut candidates: Vec<usize> = mine.edge_to_edge_semis().iter().map(|s| s.key).collect();
    if let Some(c) = mine.edge_to_edge_full() {
        candidates.extend(c.iter());
    }
    // a filled cell of the player's own (captured) may be the one its connection needs
    candidates.extend(fill.captured[usize::from(player != 1)].iter());
    if !check {
        candidates.clear();
    }
    for win in candidates {
        if board.cells.get(win) != Some(&hex::EMPTY) {
            continue;
        }
        let mut after = fill.board.clone();
        after.cells[win] = player;
        if h_search_until(&after, player, limits, stop)
            .edge_to_edge_full()
            .is_some()
        {
            return Analysis {
                verdict: Verdict::Won { win },
                fill,
            };
        }
    }
    if stopped.get() {
        // A mustplay is only sound when the player has no win of its own: with the fill-in,
        // a move outside it may intrude into a captured pair with a threat of its own.
        return Analysis {
            verdict: Verdict::Open { mustplay: None },
            fill,
        };
    }
    let threats = theirs.edge_to_edge_semis();
    let mustplay = threats.first().map(|first| {
        threats
            .iter()
            .fold(first.carrier, |acc, s| acc.intersection(&s.carrier))
    });
    if mustplay.is_some_and(|m| m.is_empty()) {
        // threats with no common cell: no one move stops them all (the bounded OR rule just
        // did not combine them)
        return Analysis {
            verdict: Verdict::Lost {
                prolong: CellSet::EMPTY,
            },
            fill,
        };
    }
    Analysis {
        verdict: Verdict::Open { mustplay },
        fill,
    }
}

#[cfg(test)]
mod tests {
    // tests may unwrap (house rules): the cells they name are on their boards
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn b(rows: &[&str]) -> Board {
        Board::parse(rows).expect("a square board")
    }

    #[test]
    fn a_group_with_connections_to_both_edges_is_a_proven_win() {
        // seat 1 (top-bottom): a bridge chain from edge to edge on 5x5
        let board = b(&[".....", "..1..", ".....", ".1...", "....."]);
        let a = analyse(&board, 1, &VcLimits::ROOT);
        let Verdict::Won { win } = a.verdict else {
            panic!("{:?}", a.verdict)
        };
        // any move in the carrier keeps it; the solver's first is the top edge cell (0, 2)
        assert!(board.cells[win] == hex::EMPTY, "{win}");
        // and for seat 2 on move the same position is lost
        let lost = analyse(&board, 2, &VcLimits::ROOT);
        assert!(
            matches!(lost.verdict, Verdict::Lost { .. }),
            "{:?}",
            lost.verdict
        );
    }

    #[test]
    fn a_solved_endgame_one_move_from_a_won_connection_finds_the_winning_move() {
        // seat 1 has (1,2) and (3,1) but seat 2 broke their bridge at (2,2): only (2,1) joins
        // them, and then both edge templates hold
        let board = b(&[".....", "..1..", "..2..", ".1...", "....."]);
        let a = analyse(&board, 1, &VcLimits::ROOT);
        assert_eq!(
            a.verdict,
            Verdict::Won {
                win: board.at(2, 1).unwrap()
            }
        );
        // after it, seat 2 on move is proven lost
        let mut after = board.clone();
        after.cells[board.at(2, 1).unwrap()] = 1;
        let lost = analyse(&after, 2, &VcLimits::ROOT);
        assert!(
            matches!(lost.verdict, Verdict::Lost { .. }),
            "{:?}",
            lost.verdict
        );
    }

    #[test]
    fn the_mustplay_against_a_threat_is_the_intersection_of_its_carriers() {
        // seat 2 on move on 7x7: seat 1's (1,3) (template II to the top) and (3,2)-(4,2) (a
        // ziggurat to the bottom) lost their bridge to seat 2's (2,3): seat 1 threatens to win
        // at (2,2), so seat 2's mustplay holds (2,2) and leaves out most of the board
        let board = b(&[
            ".......", "...1...", "...2...", "..1....", "..1....", ".......", ".......",
        ]);
        let a = analyse(&board, 2, &VcLimits::ROOT);
        let Verdict::Open { mustplay: Some(m) } = a.verdict else {
            panic!("{:?}", a.verdict)
        };
        assert!(m.contains(board.at(2, 2).unwrap()), "{m:?}");
        assert!(m.iter().all(|i| board.cells[i] == hex::EMPTY));
        assert!(m.len() <= 12, "{m:?}");
        // a quiet position has no mustplay
        let mut rows = vec![".........".to_string(); 9];
        rows[0] = "1........".into();
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let quiet = b(&rows);
        let q = analyse(&quiet, 2, &VcLimits::ROOT);
        assert_eq!(q.verdict, Verdict::Open { mustplay: None });
    }

    #[test]
    fn the_quick_analysis_trusts_a_semi_key_and_agrees_on_these_positions() {
        // one move from a won connection: the key (2,1) of seat 1's edge-to-edge semi
        let board = b(&[".....", "..1..", "..2..", ".1...", "....."]);
        assert_eq!(
            analyse_quick(&board, 1, &VcLimits::TREE).verdict,
            Verdict::Won {
                win: board.at(2, 1).unwrap()
            }
        );
        // already connected: any empty cell wins; for the other seat, lost
        let won = b(&[".....", "..1..", ".....", ".1...", "....."]);
        let Verdict::Won { win } = analyse_quick(&won, 1, &VcLimits::TREE).verdict else {
            panic!("a full connection is a win")
        };
        assert_eq!(won.cells[win], hex::EMPTY);
        assert!(matches!(
            analyse_quick(&won, 2, &VcLimits::TREE).verdict,
            Verdict::Lost { .. }
        ));
        // the threat of the mustplay test: the same mustplay as the full analysis
        let threat = b(&[
            ".......", "...1...", "...2...", "..1....", "..1....", ".......", ".......",
        ]);
        assert_eq!(
            analyse_quick(&threat, 2, &VcLimits::ROOT).verdict,
            analyse(&threat, 2, &VcLimits::ROOT).verdict
        );
    }
}
