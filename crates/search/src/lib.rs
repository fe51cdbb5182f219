//! The house bots' strategies (SPEC section 9) and the Hex knowledge they use, kept out of the
//! rules crate (`hex-engine`, lib `hex`) so that it stays rules, notation, opening and SGF only.
//!
//! - [`random_move`], [`strong_move`] and friends: random play and the Monte Carlo tree search
//!   with RAVE over bridge-aware playouts.
//! - [`ladder`]: the graded house bots and the thinking time a Fischer clock affords.
//! - [`think`]: one move's budget (thinking time, playout cap) from the seat's clock and the
//!   load, and the search within it: what a house bot and `hexarena play` both run.
//! - Hex knowledge (issue 23), each pure and tested on hand-made positions: [`vc`] (bridges,
//!   edge templates, H-search), [`inferior`] (dead and captured cells, fill-in), [`solver`]
//!   (won and lost positions from the connections, the mustplay), on the analysis [`board`].
//!   H-search comes bounded ([`vc::VcLimits::ROOT`], [`vc::VcLimits::TREE`]) or run to closure
//!   ([`vc::VcLimits::CLOSURE`], [`Tuning::CLOSURE`], [`Tuning::CLOSURE_TREE`]).
//!   The search uses them at the root when its [`Tuning`] says so ([`Tuning::FILL_IN`],
//!   [`Tuning::KNOWLEDGE`]); the house bots' [`Tuning::HOUSE`] does not, but house-master
//!   plays [`Tuning::CLOSURE_TREE`] on boards up to 11x11 when it has half a second or more
//!   ([`ladder::Rung::tuning`]; `BENCHMARKS.md`, issue 23, has the measurements). Inside the tree,
//!   a cheap local-shape prior at every expansion (save a bridge, dead cells, own carriers, new
//!   bridges, the last move: [`Tuning::pattern_visits`]), which [`Tuning::HOUSE`] uses, and the
//!   pruning of dead cells ([`Tuning::prune_dead`]), which it does not; and the solver at the
//!   tree's busy nodes ([`Tuning::knowledge_at`], [`Tuning::TREE_KNOWLEDGE`]: proofs made terminal
//!   and backed up, children cut to the mustplay), which it does not either. A long search keeps
//!   growing its tree past half its node cap, more slowly the fuller it is
//!   ([`Tuning::expand_by_room`], in [`Tuning::HOUSE`]; [`Tuning::FROZEN`] without it).
//!
//! - [`patterns`]: a learned move prior (issue 23, ninth piece): a Bradley-Terry strength for
//!   each twelve-cell pattern around a move, fitted to the moves a stronger search chose
//!   (`crates/search/data/`), which the tree can mix with the hand-set shapes or use in their
//!   place ([`Tuning::learned_prior`], [`Tuning::CLOSURE_LEARNED`]). The root's children are
//!   valued knowing the opponent's last move ([`Position::last_index`]) only with
//!   [`Tuning::root_knows_last`].
//!
//! - [`resistance`]: a position as an electrical circuit for each player (the resistance
//!   between its edges, the current through each empty cell), a whole-board judgement the
//!   tree can use as a prior at its busy nodes ([`Tuning::resist_at`], off in every named
//!   tuning: measured in `BENCHMARKS.md`, issue 23, stop 50).
//!
//! - [`analysis`]: the arena's analysis of a game (issue 21): seat 1's win probability per
//!   position and the mistakes, from the same search with [`Tuning::HOUSE`].
//!
//! Everything is pure: a position and an injected RNG in, a move out; no clock, no I/O.
//! All of `hex`'s items are re-exported here, so a user of the strategies needs one crate.

#![warn(missing_docs)]

pub mod analysis;
pub mod board;
mod bots;
pub mod inferior;
pub mod ladder;
pub mod patterns;
mod playout;
pub mod resistance;
pub mod solver;
pub mod think;
pub mod vc;

pub use bots::{
    KeptTree, Limits, STOP_CHECK_EVERY, STRONG_BUDGET, SearchInfo, Tuning, playout_winner,
    random_move, random_playout, strong_budget_for, strong_move, strong_move_kept,
    strong_move_reported, strong_move_tuned, strong_move_tuned_reported, strong_move_within,
};
pub use hex::*;
