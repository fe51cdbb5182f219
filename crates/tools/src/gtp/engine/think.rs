//! `genmove` and its analysing form: how long and how hard a rung thinks (from the controller's
//! `time_left` or the fixed time per move), the search, and playing the chosen move.

use std::time::{Duration, Instant};

use hex::{Color, Move};
use hex_search::ladder::{Play, Rung};
use hex_search::{Limits, SearchInfo, Tuning};

use super::{Engine, Reply, Strategy, color_index, err, ok};

impl Engine {
    /// Playouts for the next strong move: the configured budget, cut so that about a twentieth
    /// of the time left is spent when the controller told us our time (at least 100).
    pub(super) fn budget_for(&self, color: Color) -> u32 {
        let base = self
            .budget_playouts
            .unwrap_or_else(|| hex_search::strong_budget_for(self.size));
        match self.time_left_s[color_index(color)] {
            // roughly 100 000 playouts per second in a release build; spend ~1/20 of the time
            Some(t) if t.is_finite() => {
                let affordable = (t.max(0.0) * 5_000.0).min(f64::from(u32::MAX)) as u32;
                base.min(affordable).max(100)
            }
            _ => base,
        }
    }

    /// How long a rung thinks on this move, in ms: the fixed time per move if one is set,
    /// else what [`hex_search::ladder::think_time_ms`] affords from `time_left` (no increment: GTP
    /// does not tell one), else [`hex_search::ladder::MAX_THINK_MS`] (the rung's playout cap is
    /// then what usually stops it).
    pub(super) fn think_time_for(&self, color: Color, rung: &Rung) -> u64 {
        if let Some(ms) = self.move_time_ms {
            return ms;
        }
        match (self.time_left_s[color_index(color)], rung.play) {
            (Some(t), Play::Search { .. }) if t.is_finite() => {
                let left_ms = (t.max(0.0) * 1000.0).min(u64::MAX as f64) as u64;
                let cells = usize::from(self.size) * usize::from(self.size);
                let empty = cells.saturating_sub(self.pos.stone_count());
                hex_search::ladder::think_time_ms(
                    left_ms,
                    0,
                    u32::try_from(empty).unwrap_or(u32::MAX),
                )
            }
            _ => hex_search::ladder::MAX_THINK_MS,
        }
    }

    /// The tree search with `tuning` and at most `max_playouts` playouts, stopped after
    /// `think_ms` ms of this process's clock (checked every [`hex_search::STOP_CHECK_EVERY`]
    /// playouts); going on from the engine's kept tree when the tuning keeps one
    /// ([`hex_search::Tuning::keep_tree`]).
    pub(super) fn think(
        &mut self,
        max_playouts: u32,
        think_ms: u64,
        tuning: &Tuning,
    ) -> (Option<Move>, Option<SearchInfo>) {
        let start = Instant::now();
        let budget = Duration::from_millis(think_ms);
        let mut stop = |_done: u32| start.elapsed() >= budget;
        hex_search::strong_move_kept(
            &self.pos,
            &mut self.rng,
            Limits {
                max_playouts,
                stop: &mut stop,
            },
            tuning,
            &mut self.kept,
        )
    }

    pub(super) fn genmove(&mut self, args: &[&str]) -> Reply {
        let [color] = args else {
            return err("syntax error: genmove COLOR");
        };
        match self.choose_and_play(color) {
            Ok(Some((mv, _))) => ok(Engine::move_name(mv)),
            Ok(None) => ok("resign"),
            Err(reply) => reply,
        }
    }

    /// `kata-genmove_analyze COLOR [INTERVAL ...]`: `genmove` with what the search knew of the
    /// move, as one `info move M visits N winrate W pv M ...` line (win rate 0..1 for the
    /// mover) before `play M`. The search reports once, at its end, whatever the interval;
    /// a move chosen without a search (random play, the pie rule's first moves) has no line.
    pub(super) fn genmove_analyze(&mut self, args: &[&str]) -> Reply {
        let Some(color) = args.first() else {
            return err("syntax error: kata-genmove_analyze COLOR [INTERVAL]");
        };
        match self.choose_and_play(color) {
            Ok(Some((mv, info))) => {
                let name = Engine::move_name(mv);
                let report = info.map(|i| {
                    let pv: Vec<String> = i.pv.iter().map(|m| Engine::move_name(*m)).collect();
                    format!(
                        "info move {name} visits {} winrate {:.4} pv {}\n",
                        i.playouts,
                        i.win_rate,
                        pv.join(" ")
                    )
                });
                ok(format!("\n{}play {name}", report.unwrap_or_default()))
            }
            Ok(None) => ok("\nplay resign"),
            Err(reply) => reply,
        }
    }

    /// Chooses a move for `color` and plays it: `Ok(None)` to resign (the game is over or
    /// no move was found), `Err` with the refusal for a bad colour or the colour not on move.
    pub(super) fn choose_and_play(
        &mut self,
        color: &str,
    ) -> Result<Option<(Move, Option<SearchInfo>)>, Reply> {
        let Some(color) = Color::parse(color) else {
            return Err(err("syntax error: unknown colour"));
        };
        match self.to_move() {
            None => return Ok(None),
            Some(c) if c != color => {
                return Err(err(format!("{} is on move", c.letter().to_lowercase())));
            }
            Some(_) => {}
        }
        let (chosen, info) = match self.strategy {
            Strategy::Random => (hex_search::random_move(&self.pos, &mut self.rng), None),
            Strategy::Strong => {
                let budget = self.budget_for(color);
                match self.move_time_ms {
                    None => hex_search::strong_move_kept(
                        &self.pos,
                        &mut self.rng,
                        Limits {
                            max_playouts: budget,
                            stop: &mut |_| false,
                        },
                        &self.search.1,
                        &mut self.kept,
                    ),
                    Some(ms) => {
                        let tuning = self.search.1;
                        self.think(budget, ms, &tuning)
                    }
                }
            }
            Strategy::Rung(rung) => match rung.max_playouts(self.size) {
                None => (hex_search::random_move(&self.pos, &mut self.rng), None),
                Some(cap) => {
                    let cap = self.budget_playouts.unwrap_or(cap);
                    let ms = self.think_time_for(color, rung);
                    // A rung plays as in the arena unless `--search` names another tuning.
                    let tuning = if self.search.0 == "house" {
                        rung.tuning(self.size, ms)
                    } else {
                        self.search.1
                    };
                    self.think(cap, ms, &tuning)
                }
            },
        };
        let Some(mv) = chosen else {
            return Ok(None);
        };
        match self.pos.play(mv) {
            Ok(_) => {
                self.moves.push(mv);
                Ok(Some((mv, info)))
            }
            Err(e) => Err(err(format!("internal error: {e}"))),
        }
    }
}
