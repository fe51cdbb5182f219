//! Measures a change of the tree search at equal playouts or equal time (issues 11, 23): two
//! [`hex::Tuning`]s play pairs of games from shared random 1+1-stone openings, colours swapped.
//!
//! ```text
//! cargo run --release -p hex-search --example selfplay -- SIZE PAIRS PLAYOUTS SEED A B [MS]
//! ```
//! where `A` and `B` are tunings: `house` ([`hex::Tuning::HOUSE`]), `plain`
//! ([`hex::Tuning::PLAIN`], the house search before issue 23's in-tree prior), `knowledge`
//! ([`hex::Tuning::KNOWLEDGE`]), `fill-in` ([`hex::Tuning::FILL_IN`]), `tree-knowledge`
//! ([`hex::Tuning::TREE_KNOWLEDGE`]) or `frozen` ([`hex::Tuning::FROZEN`], the house search
//! before `expand_by_room`) or `learned` ([`hex::Tuning::LEARNED`], the learned move prior
//! mixed in) or `closure` ([`hex::Tuning::CLOSURE`], `knowledge` with H-search to closure) or
//! `closure-tree` ([`hex::Tuning::CLOSURE_TREE`], and in the busy nodes near the root) or
//! `closure-deep` ([`hex::Tuning::CLOSURE_DEEP`], deeper and sooner in the tree) or
//! `closure-all` ([`hex::Tuning::CLOSURE_ALL`], at every depth) or `closure-kept`
//! ([`hex::Tuning::CLOSURE_KEPT`], going on from its last search's subtree) or `closure-light`
//! ([`hex::Tuning::CLOSURE_LIGHT`], `closure-tree` with half the local-shape prior) or
//! `closure-learned` ([`hex::Tuning::CLOSURE_LEARNED`], `closure-tree` with the learned prior) or
//! `closure-last` ([`hex::Tuning::CLOSURE_LAST`], its root knowing the last move), each
//! optionally followed by changes `:key=value,...`
//! (`pv`: `pattern_visits`, `pa`: `pattern_amaf`, `dead`: `prune_dead`, `prior`:
//! `prior_visits`, `fill`: `fill_in`, `solver`: `solver`, `ka`: `knowledge_at`, `kd`:
//! `knowledge_depth`, `kroot`: 1 for
//! the root's H-search bounds in the tree's analyses, 0 for the tree's own, 2 for H-search to
//! closure, `closure`: 1 for H-search to closure in the root's analysis, `room`: 1 for
//! `expand_by_room`, `nodes`: `max_nodes`, `lp`: `learned_prior`, `lpow`: `learned_power`,
//! `keep`: 1 for `keep_tree` (each side keeps its own tree from move to move), `dom`: 1 for
//! `prune_dominated`, `last`: 1 for `root_knows_last`, `rb`: `rave_bias`, `exp`: `expand_at`, `uct`: `uct_bias`; e.g.
//! `plain:pv=10,dead=1`); or `rave_bias,expand_at,prior_visits[,max_nodes]` on top of `plain`.
//! With `MS`, each move also stops after MS ms of thinking (equal time; `PLAYOUTS` is then a
//! cap), and the two sides alternate in one process, so they share the machine's load.
//! Prints A's wins, the score, the time each side spent and the playouts a searched move (as
//! counted at the search's last stop check, so in steps of `STOP_CHECK_EVERY`), and after each
//! pair the running count on stderr.
//! Standard library plus the engine only; no clock inside the engine (timing is here).

use std::time::{Duration, Instant};

use hex_search::vc::VcLimits;
use hex_search::{Cell, KeptTree, Limits, Move, Outcome, Position, Seat, Tuning, strong_move_kept};
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn tuning(text: &str) -> Option<Tuning> {
    // a named tuning, optionally followed by `:key=value,...` changes
    let (base, changes) = text.split_once(':').unwrap_or((text, ""));
    let Some(mut t) = Tuning::named(base) else {
        return numeric(text);
    };
    for change in changes.split(',').filter(|c| !c.is_empty()) {
        let (key, value) = change.split_once('=')?;
        let v: f32 = value.parse().ok()?;
        match key {
            "pv" => t.pattern_visits = v,
            "pa" => t.pattern_amaf = v,
            "dead" => t.prune_dead = v != 0.0,
            "prior" => t.prior_visits = v,
            "fill" => t.fill_in = v != 0.0,
            "solver" => t.solver = v != 0.0,
            "ka" => t.knowledge_at = v,
            "kd" => t.knowledge_depth = v as u8,
            "room" => t.expand_by_room = v != 0.0,
            "keep" => t.keep_tree = v != 0.0,
            "dom" => t.prune_dominated = v != 0.0,
            "last" => t.root_knows_last = v != 0.0,
            "nodes" => t.max_nodes = v as usize,
            "lp" => t.learned_prior = v,
            "lpow" => t.learned_power = v,
            "rb" => t.rave_bias = v,
            "exp" => t.expand_at = v,
            "uct" => t.uct_bias = v,
            "ra" => t.resist_at = v,
            "rv" => t.resist_amaf = v,
            "kroot" => {
                t.knowledge_vc = match v as u8 {
                    0 => VcLimits::TREE,
                    1 => VcLimits::ROOT,
                    _ => VcLimits::CLOSURE,
                }
            }
            "closure" => {
                t.root_vc = if v != 0.0 {
                    VcLimits::CLOSURE
                } else {
                    VcLimits::ROOT
                }
            }
            _ => return None,
        }
    }
    Some(t)
}

fn numeric(text: &str) -> Option<Tuning> {
    let v: Vec<f32> = text
        .split(',')
        .map(|s| s.parse().ok())
        .collect::<Option<_>>()?;
    let (rave_bias, expand_at, prior_visits) = (*v.first()?, *v.get(1)?, *v.get(2)?);
    let max_nodes = v.get(3).map_or(Tuning::PLAIN.max_nodes, |&n| n as usize);
    (v.len() <= 4).then_some(Tuning {
        rave_bias,
        expand_at,
        prior_visits,
        max_nodes,
        ..Tuning::PLAIN
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let parsed = (|| {
        Some((
            args.first()?.parse::<u8>().ok()?,
            args.get(1)?.parse::<u32>().ok()?,
            args.get(2)?.parse::<u32>().ok()?,
            args.get(3)?.parse::<u64>().ok()?,
            tuning(args.get(4)?)?,
            tuning(args.get(5)?)?,
            match args.get(6) {
                None => None,
                Some(ms) => Some(Duration::from_millis(ms.parse().ok()?)),
            },
        ))
    })();
    let Some((size, pairs, playouts, seed, a, b, per_move)) = parsed else {
        eprintln!(
            "usage: selfplay SIZE PAIRS PLAYOUTS SEED A B [MS] (A, B: house | knowledge | fill-in | plain | tree-knowledge | frozen | learned | closure | closure-tree | closure-deep | closure-all | closure-kept | closure-light | closure-learned | closure-last, \
             each optionally followed by :pv=N,pa=N,dead=0|1,prior=N,fill=0|1,solver=0|1,ka=N,kd=N,kroot=0|1|2,closure=0|1,room=0|1,nodes=N,lp=X,lpow=X,keep=0|1,dom=0|1,last=0|1; \
             or bias,expand,prior[,nodes])"
        );
        std::process::exit(2);
    };
    let mut rng = Pcg64::seed_from_u64(seed);
    let cells = u32::from(size) * u32::from(size);
    let cell = |k: u32| Cell::new((k / u32::from(size)) as u8, (k % u32::from(size)) as u8);
    let tunings = [a, b];
    let mut spent = [Duration::ZERO; 2];
    let (mut playouts_run, mut searched) = ([0u64; 2], [0u64; 2]);
    let mut a_wins = 0;
    let mut done = 0u32;
    for _ in 0..pairs {
        let first = rng.next_u32() % cells;
        let second = (first + 1 + rng.next_u32() % (cells - 1)) % cells;
        for a_black in [true, false] {
            let mut pos = Position::new(size).expect("size");
            pos.play(Move::Place(cell(first))).expect("empty");
            pos.play(Move::Place(cell(second))).expect("empty");
            let mut kept = [KeptTree::default(), KeptTree::default()];
            let winner = loop {
                let Some(seat) = pos.to_move() else {
                    break None;
                };
                let side = usize::from((seat == Seat::One) != a_black);
                let t = Instant::now();
                let mut ran = 0u32;
                let (mv, _) = strong_move_kept(
                    &pos,
                    &mut rng,
                    Limits {
                        max_playouts: playouts,
                        // equal time: both sides stop at the same wall-clock budget per move
                        stop: &mut |n| {
                            ran = n;
                            per_move.is_some_and(|d| t.elapsed() >= d)
                        },
                    },
                    &tunings[side],
                    &mut kept[side],
                );
                let mv = mv.expect("a move");
                spent[side] += t.elapsed();
                // the playouts of a searched move, as far as its last stop check saw
                if ran > 0 {
                    playouts_run[side] += u64::from(ran);
                    searched[side] += 1;
                }
                if let Some(Outcome::Connection { winner }) = pos.play(mv).expect("legal") {
                    break Some(usize::from((winner == Seat::One) != a_black));
                }
            };
            a_wins += u32::from(winner == Some(0));
        }
        done += 2;
        // progress, so that a run stopped early still says what it had
        eprintln!(
            "after {done} games: A wins {a_wins}; time A {:.1} s, B {:.1} s",
            spent[0].as_secs_f64(),
            spent[1].as_secs_f64()
        );
    }
    let games = 2 * pairs;
    let score = f64::from(a_wins) / f64::from(games);
    println!(
        "A {a:?} vs B {b:?}: A wins {a_wins}/{games} (score {score:.3}); time A {:.1} s, B {:.1} s; \
         playouts a searched move A {}, B {}",
        spent[0].as_secs_f64(),
        spent[1].as_secs_f64(),
        playouts_run[0] / searched[0].max(1),
        playouts_run[1] / searched[1].max(1)
    );
}
