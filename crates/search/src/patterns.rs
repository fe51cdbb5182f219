//! A learned move prior for the tree (issue 23, ninth piece): the twelve cells around an
//! empty cell (its six neighbours and the six cells a bridge away) as one pattern, and a
//! strength (a Bradley-Terry "gamma") for each pattern, learned by minorization-maximization
//! from the moves a stronger search chose (Coulom, "Computing Elo Ratings of Move Patterns in
//! the Game of Go", 2007; MoHex 2.0 learned its prior the same way, from records of strong
//! players' games).
//!
//! A pattern is read relative to the mover: each neighbour is empty (0), the mover's stone or
//! edge (1), or the opponent's (2); each bridge cell the same, with a cell off the board and its
//! padding read as empty. Its code is `sum ring[t] * 3^t + far[t] * 3^(6 + t)`, `t` in the
//! circular order of `crate::bots`' shape reader. A pattern and its images under the board's
//! two symmetries that keep a position's meaning for the mover (the half turn, and the
//! reflection across the long diagonal that trades the two players' edges, read relative to
//! the mover) share one strength: [`canonical`] names the smallest of the four codes.
//!
//! Two smaller groups of strengths say where the move lies from the opponent's last move
//! (next to it, a bridge away, or neither or not known) and how far it lies from the mover's
//! own edges and from the opponent's (0 to 3 rows in, or farther: 25 classes). A move's gamma
//! is the product of its pattern's, its relation's and its edge class's. The patterns the
//! trainer saw too rarely share one strength, `other`, which also stands for those it never saw.
//!
//! Everything is pure: the weights are data compiled into the crate ([`learned`]).

use std::collections::HashMap;
use std::sync::OnceLock;

use hex::{Cell, Position};

use crate::playout::{Filler, empty_indices};

/// How many codes there are: three states for each of twelve cells.
pub const CODES: u32 = 531_441;

/// Padded offsets of the six neighbours, in circular order (consecutive ones touch each
/// other), as `(rows, columns)`.
const RING: [(isize, isize); 6] = [(-1, 0), (-1, 1), (0, 1), (1, 0), (1, -1), (0, -1)];
/// The six cells a bridge away: `FAR[t]` shares neighbours `t` and `t + 1` with the cell.
const FAR: [(isize, isize); 6] = [(-2, 1), (-1, 2), (1, 1), (2, -1), (1, -2), (-1, -1)];

/// The code of a move of `player` (owner 1 or 2) at the empty padded cell `x` of the
/// playouts' padded `board` (stride `w`, an `n` x `n` board): see the module doc. Reads twelve
/// cells; a bridge cell more than one row or column outside the board reads as empty.
#[inline]
pub(crate) fn code_at(board: &[u8], w: usize, n: usize, x: usize, player: u8) -> u32 {
    let (r, c) = ((x / w) as isize, (x % w) as isize);
    let last = n as isize + 1;
    let state = |v: u8| -> u32 {
        let owner = v & 3;
        u32::from(owner == player) + 2 * u32::from(owner == (player ^ 3))
    };
    let read = |(dr, dc): (isize, isize)| -> u32 {
        let (tr, tc) = (r + dr, c + dc);
        if (0..=last).contains(&tr) && (0..=last).contains(&tc) {
            board
                .get(tr as usize * w + tc as usize)
                .map_or(0, |&v| state(v))
        } else {
            0
        }
    };
    let mut code = 0;
    let mut place = 1;
    for d in RING.into_iter().chain(FAR) {
        code += read(d) * place;
        place *= 3;
    }
    code
}

/// Where a move at padded cell `x` lies from the opponent's last move `last` (stride `w`):
/// [`NEXT_TO_LAST`], [`BRIDGE_FROM_LAST`], or [`AWAY_FROM_LAST`] (also when `last` is not
/// known).
#[inline]
pub(crate) fn relation_at(x: usize, last: Option<usize>, w: usize) -> u8 {
    let Some(last) = last else {
        return AWAY_FROM_LAST;
    };
    let w = w as isize;
    let d = last as isize - x as isize;
    let offset = |(dr, dc): (isize, isize)| dr * w + dc;
    if RING.into_iter().any(|o| offset(o) == d) {
        NEXT_TO_LAST
    } else if FAR.into_iter().any(|o| offset(o) == d) {
        BRIDGE_FROM_LAST
    } else {
        AWAY_FROM_LAST
    }
}

/// A move neither next to the opponent's last move nor a bridge away from it (or the last
/// move is not known): the reference relation, gamma 1.
pub const AWAY_FROM_LAST: u8 = 0;
/// A move next to the opponent's last move.
pub const NEXT_TO_LAST: u8 = 1;
/// A move a bridge away from the opponent's last move.
pub const BRIDGE_FROM_LAST: u8 = 2;

/// `relation_at` for cells: where `cell` lies from `last`.
#[must_use]
pub fn relation(cell: Cell, last: Option<Cell>) -> u8 {
    let Some(last) = last else {
        return AWAY_FROM_LAST;
    };
    let d = (
        isize::from(last.row) - isize::from(cell.row),
        isize::from(last.col) - isize::from(cell.col),
    );
    if RING.contains(&d) {
        NEXT_TO_LAST
    } else if FAR.contains(&d) {
        BRIDGE_FROM_LAST
    } else {
        AWAY_FROM_LAST
    }
}

/// How many edge classes there are (`edge_class_at`).
pub const EDGE_CLASSES: usize = 25;

/// The edge class of a move of `player` at padded cell `x` (stride `w`, an `n` x `n` board
/// whose padding above the first row holds the top-bottom owner's edge): `5 * own + theirs`,
/// where `own` is the move's distance in rows from the nearer of the mover's two edges
/// (0 on the edge row) and `theirs` from the nearer of the opponent's, each capped at 4.
#[inline]
pub(crate) fn edge_class_at(board: &[u8], w: usize, n: usize, x: usize, player: u8) -> u8 {
    let (r, c) = (x / w, x % w);
    let from = |k: usize| k.saturating_sub(1).min(n.saturating_sub(k)).min(4) as u8;
    let (rows, cols) = (from(r), from(c));
    let top_bottom = board.get(1).map_or(1, |&v| v & 3);
    if player == top_bottom {
        5 * rows + cols
    } else {
        5 * cols + rows
    }
}

/// The twelve states of `code`, neighbours first.
fn digits(mut code: u32) -> [u8; 12] {
    let mut d = [0u8; 12];
    for s in &mut d {
        *s = (code % 3) as u8;
        code /= 3;
    }
    d
}

fn code_of(d: &[u8; 12]) -> u32 {
    d.iter().rev().fold(0, |acc, &s| acc * 3 + u32::from(s))
}

/// The smallest of the codes of `code`'s pattern under the half turn (`t -> t + 3` for both
/// rings) and the reflection across the long diagonal (neighbour `t -> 5 - t`, bridge cell
/// `t -> 4 - t`), which keep what a pattern means for the mover. A code at or above
/// [`CODES`] is returned as it is.
#[must_use]
pub fn canonical(code: u32) -> u32 {
    if code >= CODES {
        return code;
    }
    let d = digits(code);
    let turn = |d: &[u8; 12]| {
        let mut e = [0u8; 12];
        for t in 0..6 {
            e[(t + 3) % 6] = d[t];
            e[6 + (t + 3) % 6] = d[6 + t];
        }
        e
    };
    let reflect = |d: &[u8; 12]| {
        let mut e = [0u8; 12];
        for t in 0..6 {
            e[5 - t] = d[t];
            e[6 + (10 - t) % 6] = d[6 + t];
        }
        e
    };
    let (a, b) = (turn(&d), reflect(&d));
    let c = turn(&b);
    [code, code_of(&a), code_of(&b), code_of(&c)]
        .into_iter()
        .min()
        .unwrap_or(code)
}

/// The canonical code and the edge class of a move of the seat on move at each empty cell of
/// `pos`, in the order of the cells' padded indices: what the trainer and the tests read.
/// Empty when the game is over.
#[must_use]
pub fn mover_codes(pos: &Position) -> Vec<(Cell, u32, u8)> {
    if pos.is_over() {
        return Vec::new();
    }
    let filler = Filler::new(pos);
    let (w, n, player) = (pos.stride(), usize::from(pos.size()), pos.mover().number());
    empty_indices(pos)
        .into_iter()
        .map(|i| {
            let x = usize::from(i);
            (
                pos.cell_at(x),
                canonical(code_at(&filler.board, w, n, x, player)),
                edge_class_at(&filler.board, w, n, x, player),
            )
        })
        .collect()
}

/// Learned strengths, one per code (the natural logarithm of its gamma; a pattern the weights
/// do not name has the `other` strength, 0 without it).
pub struct Weights {
    ln_gamma: Vec<f32>,
    /// By relation to the last move ([`AWAY_FROM_LAST`] is always 0).
    ln_last: [f32; 3],
    /// By edge class (`edge_class_at`).
    ln_edge: [f32; EDGE_CLASSES],
    named: usize,
    /// The strength of every pattern the weights do not name.
    ln_other: f32,
}

impl Weights {
    /// Weights read from text: one `CODE LN_GAMMA_X1000` pair of integers per line (a code
    /// from [`canonical`], the logarithm of its gamma times 1,000), and at most one line
    /// `last NEXT BRIDGE` giving the relations' logarithms times 1,000 ([`NEXT_TO_LAST`],
    /// [`BRIDGE_FROM_LAST`]; 0 without the line), and at most one line `edge` followed by
    /// the 25 edge classes' logarithms times 1,000 (0 without it), and at most one line
    /// `other LN_GAMMA_X1000`, the strength of every pattern not named (the rare patterns
    /// [`train`] pooled; 0 without it); blank lines and lines starting with `#` are skipped.
    ///
    /// # Errors
    /// The line number and what was wrong with it, for a line that is not two integers (three
    /// after `last`, 25 after `edge`, two after `other`), a code that is not canonical, or a
    /// code, `last`, `edge` or `other` named twice.
    pub fn parse(text: &str) -> Result<Weights, String> {
        let mut ln_gamma = vec![0.0f32; CODES as usize];
        let mut ln_last = [0.0f32; 3];
        let mut ln_edge = [0.0f32; EDGE_CLASSES];
        let mut seen = vec![false; CODES as usize];
        let (mut seen_last, mut seen_edge) = (false, false);
        let mut ln_other = None;
        let mut named = 0;
        for (k, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(rest) = line.strip_prefix("last ") {
                let values: Vec<Option<i32>> = rest
                    .split_ascii_whitespace()
                    .map(|v| v.parse().ok())
                    .collect();
                let (&[Some(next), Some(bridge)], false) = (values.as_slice(), seen_last) else {
                    return Err(format!("line {}: expected `last NEXT BRIDGE`, once", k + 1));
                };
                ln_last = [0.0, next as f32 / 1000.0, bridge as f32 / 1000.0];
                seen_last = true;
                continue;
            }
            if let Some(rest) = line.strip_prefix("other ") {
                let (Ok(value), None) = (rest.trim().parse::<i32>(), ln_other) else {
                    return Err(format!(
                        "line {}: expected `other LN_GAMMA_X1000`, once",
                        k + 1
                    ));
                };
                ln_other = Some(value as f32 / 1000.0);
                continue;
            }
            if let Some(rest) = line.strip_prefix("edge ") {
                let values: Vec<Option<i32>> = rest
                    .split_ascii_whitespace()
                    .map(|v| v.parse().ok())
                    .collect();
                if values.len() != EDGE_CLASSES || values.contains(&None) || seen_edge {
                    return Err(format!(
                        "line {}: expected `edge` and {EDGE_CLASSES} integers, once",
                        k + 1
                    ));
                }
                for (e, v) in ln_edge.iter_mut().zip(values.into_iter().flatten()) {
                    *e = v as f32 / 1000.0;
                }
                seen_edge = true;
                continue;
            }
            let mut parts = line.split_ascii_whitespace();
            let (Some(code), Some(value), None) = (parts.next(), parts.next(), parts.next()) else {
                return Err(format!("line {}: expected two integers", k + 1));
            };
            let (Ok(code), Ok(value)) = (code.parse::<u32>(), value.parse::<i32>()) else {
                return Err(format!("line {}: expected two integers", k + 1));
            };
            if code >= CODES || canonical(code) != code {
                return Err(format!("line {}: {code} is not a canonical code", k + 1));
            }
            if std::mem::replace(&mut seen[code as usize], true) {
                return Err(format!("line {}: {code} named twice", k + 1));
            }
            ln_gamma[code as usize] = value as f32 / 1000.0;
            named += 1;
        }
        // every image of a code takes its canonical code's value, named or other
        let ln_other = ln_other.unwrap_or(0.0);
        for code in 0..CODES {
            let c = canonical(code);
            ln_gamma[code as usize] = if seen[c as usize] {
                ln_gamma[c as usize]
            } else {
                ln_other
            };
        }
        Ok(Weights {
            ln_gamma,
            ln_last,
            ln_edge,
            named,
            ln_other,
        })
    }

    /// How many patterns the weights name (the rest have gamma 1).
    #[must_use]
    pub fn named(&self) -> usize {
        self.named
    }

    /// The natural logarithm of the gamma of `code` (any code, canonical or not; a code not
    /// named, or past [`CODES`], has the `other` strength).
    #[must_use]
    pub fn ln_gamma(&self, code: u32) -> f32 {
        self.ln_gamma
            .get(code as usize)
            .copied()
            .unwrap_or(self.ln_other)
    }

    /// The natural logarithm of the gamma of a relation to the last move (0 for
    /// [`AWAY_FROM_LAST`] and for an unknown relation).
    #[must_use]
    pub fn ln_last(&self, relation: u8) -> f32 {
        self.ln_last
            .get(usize::from(relation))
            .copied()
            .unwrap_or(0.0)
    }

    /// The natural logarithm of the gamma of an edge class (0 past [`EDGE_CLASSES`]).
    #[must_use]
    pub fn ln_edge(&self, class: u8) -> f32 {
        self.ln_edge.get(usize::from(class)).copied().unwrap_or(0.0)
    }

    /// The prior win rate of a move of pattern `code` at `relation` to the last move and in
    /// edge class `edge`: `g / (g + 1)` for `g` its gamma (the product of the three) raised to
    /// `scale`, so that a move of average strength (the weights are centred on the moves the
    /// trainer saw) starts at 0.5. Kept within 0.02..=0.98.
    #[must_use]
    pub fn win_rate(&self, code: u32, relation: u8, edge: u8, scale: f32) -> f32 {
        let z = (self.ln_gamma(code) + self.ln_last(relation) + self.ln_edge(edge)) * scale;
        (1.0 / (1.0 + (-z).exp())).clamp(0.02, 0.98)
    }
}

/// The weights learned for the house search, compiled into the crate from `patterns.txt`
/// (made by `examples/learn_prior.rs`; BENCHMARKS.md says how). Parsed once. A file that does
/// not parse gives empty weights (every gamma 1); a unit test keeps that from happening.
pub fn learned() -> &'static Weights {
    static WEIGHTS: OnceLock<Weights> = OnceLock::new();
    WEIGHTS.get_or_init(|| {
        Weights::parse(include_str!("patterns.txt")).unwrap_or_else(|_| Weights {
            ln_gamma: vec![0.0; CODES as usize],
            ln_last: [0.0; 3],
            ln_edge: [0.0; EDGE_CLASSES],
            named: 0,
            ln_other: 0.0,
        })
    })
}

/// One chosen move among its alternatives: the canonical code and the relation to the last
/// move of every legal placement of a position, and the index of the one played.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// The canonical code of each candidate move.
    pub codes: Vec<u32>,
    /// Each candidate's relation to the opponent's last move ([`relation`]); candidates
    /// past its end count as [`AWAY_FROM_LAST`].
    pub relations: Vec<u8>,
    /// Each candidate's edge class ([`mover_codes`]); candidates past its end count as
    /// class 0.
    pub edges: Vec<u8>,
    /// The index in `codes` of the move that was played.
    pub chosen: usize,
}

/// The choice of `played` by the seat on move in `pos`, the opponent's last move being
/// `last`: every candidate of [`mover_codes`] with its relation to `last` and its edge class.
/// None when `played` is not a candidate (occupied, off the board, or the game is over).
#[must_use]
pub fn choice_of(pos: &Position, played: Cell, last: Option<Cell>) -> Option<Choice> {
    let codes = mover_codes(pos);
    let chosen = codes.iter().position(|&(cell, _, _)| cell == played)?;
    Some(Choice {
        relations: codes
            .iter()
            .map(|&(cell, _, _)| relation(cell, last))
            .collect(),
        edges: codes.iter().map(|&(_, _, e)| e).collect(),
        codes: codes.into_iter().map(|(_, k, _)| k).collect(),
        chosen,
    })
}

/// The choices a teacher's game record holds (`examples/learn_prior.rs` writes them; the
/// records the crate keeps are in `crates/search/data/`): `game SIZE` then every move of the
/// game by its cell name (`f6`), a move the teacher chose by a search followed by `=` and its
/// win rate for the mover after it (`f6=0.532`). The rated moves whose rate lies within
/// `min_rate..=1 - min_rate` become choices, each with the move before it as the last move.
///
/// Errors: the first token that is not a move of the game (a bad name or rate, an occupied
/// cell, a move after the end), as `Err((choices read before it, the token))`, or a line that
/// does not start `game SIZE` with a size the engine takes (`Err((empty, the line))`).
pub fn record_choices(line: &str, min_rate: f64) -> Result<Vec<Choice>, (Vec<Choice>, String)> {
    let mut tokens = line.split_ascii_whitespace();
    let start = (tokens.next(), tokens.next().map(str::parse::<u8>));
    let (Some("game"), Some(Ok(size))) = start else {
        return Err((Vec::new(), line.to_string()));
    };
    let Ok(mut pos) = Position::new(size) else {
        return Err((Vec::new(), line.to_string()));
    };
    let mut choices = Vec::new();
    let mut last = None;
    for token in tokens {
        let (name, rate) = match token.split_once('=') {
            Some((name, rate)) => match rate.parse::<f64>() {
                Ok(rate) if (0.0..=1.0).contains(&rate) => (name, Some(rate)),
                _ => return Err((choices, token.to_string())),
            },
            None => (token, None),
        };
        let Some(played) = hex::parse_cell_name(name) else {
            return Err((choices, token.to_string()));
        };
        if let Some(rate) = rate
            && (min_rate..=1.0 - min_rate).contains(&rate)
            && let Some(ch) = choice_of(&pos, played, last)
        {
            choices.push(ch);
        }
        if pos.play(hex::Move::Place(played)).is_err() {
            return Err((choices, token.to_string()));
        }
        last = Some(played);
    }
    Ok(choices)
}

/// What [`train`] learned.
#[derive(Clone, Debug, PartialEq)]
pub struct Trained {
    /// `(canonical code, ln gamma, times seen among the candidates, times chosen)`, sorted by
    /// code.
    pub patterns: Vec<(u32, f32, u32, u32)>,
    /// The logarithms of the relations' gammas, by relation ([`AWAY_FROM_LAST`]'s is 0).
    pub ln_last: [f32; 3],
    /// The logarithms of the edge classes' gammas, centred on the candidates.
    pub ln_edge: [f32; EDGE_CLASSES],
    /// The logarithm of the gamma the patterns seen fewer than `min_seen` times share (0
    /// when none was pooled).
    pub ln_other: f32,
}

/// The gamma of every pattern, relation and edge class seen in `choices`, by `iterations`
/// rounds of minorization-maximization of the generalized Bradley-Terry likelihood (each
/// choice a win of the chosen candidate over all of them, a candidate's gamma the product of
/// its pattern's, its relation's and its edge class's), with one virtual win and one virtual
/// loss of each pattern against a gamma of 1 (so a pattern seen rarely stays near 1).
/// [`AWAY_FROM_LAST`] is the relations' reference (gamma 1); the edge classes' logarithms
/// are centred on the candidates, and the patterns' so that the mean of a candidate's whole
/// `ln gamma` over every candidate of every choice is 0. Choices whose `chosen` is out of
/// range are skipped. The patterns seen fewer than `min_seen` times among the candidates are
/// pooled into one pattern, `other` ([`Trained::ln_other`]), which then also stands for the
/// patterns the choices never showed. Their strength is learned, not assumed: a gamma of 1
/// would rate them as average moves, but rare patterns are crowded ones, where the fights
/// are, and on the teacher games of `crates/search/data/` they came out far above the common
/// open shapes (`other` e^2.9).
#[must_use]
pub fn train(choices: &[Choice], iterations: usize, min_seen: u32) -> Trained {
    /// A candidate: its pattern's id, its relation and its edge class.
    type Candidate = (usize, usize, usize);
    /// The pooled rare patterns' code (no pattern's: codes lie below [`CODES`]).
    const OTHER: u32 = CODES;
    let valid = || choices.iter().filter(|ch| ch.chosen < ch.codes.len());
    let mut times: HashMap<u32, u32> = HashMap::new();
    for ch in valid() {
        for &c in &ch.codes {
            *times.entry(c).or_insert(0) += 1;
        }
    }
    let mut index: HashMap<u32, usize> = HashMap::new();
    let mut codes: Vec<u32> = Vec::new();
    let mut flat: Vec<(Vec<Candidate>, usize)> = Vec::with_capacity(choices.len());
    for ch in valid() {
        let ids = ch
            .codes
            .iter()
            .enumerate()
            .map(|(k, &c)| {
                let c = if times.get(&c).copied().unwrap_or(0) < min_seen {
                    OTHER
                } else {
                    c
                };
                let id = *index.entry(c).or_insert_with(|| {
                    codes.push(c);
                    codes.len() - 1
                });
                let rel = ch.relations.get(k).map_or(0, |&r| usize::from(r.min(2)));
                let edge = ch
                    .edges
                    .get(k)
                    .map_or(0, |&e| usize::from(e).min(EDGE_CLASSES - 1));
                (id, rel, edge)
            })
            .collect();
        flat.push((ids, ch.chosen));
    }
    let m = codes.len();
    let (mut seen, mut wins) = (vec![0u32; m], vec![0u32; m]);
    let mut rel_wins = [0u32; 3];
    let mut edge_wins = [0u32; EDGE_CLASSES];
    for (ids, chosen) in &flat {
        for &(i, _, _) in ids {
            seen[i] += 1;
        }
        let (i, r, e) = ids[*chosen];
        wins[i] += 1;
        rel_wins[r] += 1;
        edge_wins[e] += 1;
    }
    let mut gamma = vec![1.0f64; m];
    let mut rel = [1.0f64; 3];
    let mut edge = [1.0f64; EDGE_CLASSES];
    let mut denom = vec![0.0f64; m];
    let total_of = |ids: &[Candidate], gamma: &[f64], rel: &[f64; 3], edge: &[f64]| -> f64 {
        ids.iter()
            .map(|&(i, r, e)| gamma[i] * rel[r] * edge[e])
            .sum()
    };
    for _ in 0..iterations {
        // the patterns, then the relations, then the edge classes, each with the others held
        denom.fill(0.0);
        for (ids, _) in &flat {
            let total = total_of(ids, &gamma, &rel, &edge);
            if total > 0.0 {
                for &(i, r, e) in ids {
                    denom[i] += rel[r] * edge[e] / total;
                }
            }
        }
        for i in 0..m {
            // the virtual win and loss against a gamma of 1
            let d = denom[i] + 2.0 / (gamma[i] + 1.0);
            gamma[i] = (f64::from(wins[i]) + 1.0) / d;
        }
        let mut rel_denom = [0.0f64; 3];
        for (ids, _) in &flat {
            let total = total_of(ids, &gamma, &rel, &edge);
            if total > 0.0 {
                for &(i, r, e) in ids {
                    rel_denom[r] += gamma[i] * edge[e] / total;
                }
            }
        }
        for r in 1..3 {
            if rel_denom[r] > 0.0 && rel_wins[r] > 0 {
                rel[r] = f64::from(rel_wins[r]) / rel_denom[r];
            }
        }
        let mut edge_denom = [0.0f64; EDGE_CLASSES];
        for (ids, _) in &flat {
            let total = total_of(ids, &gamma, &rel, &edge);
            if total > 0.0 {
                for &(i, r, e) in ids {
                    edge_denom[e] += gamma[i] * rel[r] / total;
                }
            }
        }
        for e in 0..EDGE_CLASSES {
            if edge_denom[e] > 0.0 && edge_wins[e] > 0 {
                edge[e] = f64::from(edge_wins[e]) / edge_denom[e];
            }
        }
    }
    let (mut pattern_sum, mut rel_sum, mut edge_sum, mut count) = (0.0f64, 0.0f64, 0.0f64, 0u64);
    for (ids, _) in &flat {
        for &(i, r, e) in ids {
            pattern_sum += gamma[i].ln();
            rel_sum += rel[r].ln();
            edge_sum += edge[e].ln();
            count += 1;
        }
    }
    let mean = |sum: f64| if count > 0 { sum / count as f64 } else { 0.0 };
    let edge_centre = mean(edge_sum);
    let pattern_centre = mean(pattern_sum) + mean(rel_sum);
    let ln_other = index
        .get(&OTHER)
        .map_or(0.0, |&i| (gamma[i].ln() - pattern_centre) as f32);
    let mut patterns: Vec<(u32, f32, u32, u32)> = (0..m)
        .filter(|&i| codes[i] != OTHER)
        .map(|i| {
            (
                codes[i],
                (gamma[i].ln() - pattern_centre) as f32,
                seen[i],
                wins[i],
            )
        })
        .collect();
    patterns.sort_unstable_by_key(|e| e.0);
    Trained {
        patterns,
        ln_last: [0.0, rel[1].ln() as f32, rel[2].ln() as f32],
        ln_edge: edge.map(|g| (g.ln() - edge_centre) as f32),
        ln_other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    fn position(rows: &[&str]) -> Position {
        crate::bots::position_of_rows(rows)
    }

    fn code_from(ring: [u8; 6], far: [u8; 6]) -> u32 {
        let mut d = [0u8; 12];
        d[..6].copy_from_slice(&ring);
        d[6..].copy_from_slice(&far);
        code_of(&d)
    }

    #[test]
    fn digits_and_codes_round_trip_and_canonical_is_the_smallest_image() {
        for code in [0, 1, 2, 3, 100, 4_242, 99_999, CODES - 1] {
            assert_eq!(code_of(&digits(code)), code);
            let c = canonical(code);
            assert!(c <= code);
            assert_eq!(canonical(c), c, "canonical of canonical");
        }
        // a lone mover's stone on neighbour 0 has images on neighbours 3 (half turn), 5
        // (reflection) and 2 (both): the smallest code is neighbour 0's
        let n0 = code_from([1, 0, 0, 0, 0, 0], [0; 6]);
        for t in [2usize, 3, 5] {
            let mut ring = [0u8; 6];
            ring[t] = 1;
            assert_eq!(canonical(code_from(ring, [0; 6])), n0, "neighbour {t}");
        }
        // neighbours 1 and 4 are each other's images, and not 0's
        let n1 = code_from([0, 1, 0, 0, 0, 0], [0; 6]);
        let n4 = code_from([0, 0, 0, 0, 1, 0], [0; 6]);
        assert_eq!(canonical(n4), canonical(n1));
        assert_ne!(canonical(n1), n0);
        // bridge cell 0 goes to 3 (half turn) and 4 (reflection); 2 and 5 stay on the diagonal
        let f0 = canonical(code_from([0; 6], [2, 0, 0, 0, 0, 0]));
        for t in [3usize, 4, 1] {
            let mut far = [0u8; 6];
            far[t] = 2;
            assert_eq!(canonical(code_from([0; 6], far)), f0, "bridge cell {t}");
        }
        let f2 = canonical(code_from([0; 6], [0, 0, 2, 0, 0, 0]));
        let f5 = canonical(code_from([0; 6], [0, 0, 0, 0, 0, 2]));
        assert_eq!(f2, f5);
        assert_ne!(f2, f0);
    }

    /// The canonical code of a move of `player` at each empty cell of the position `rows`.
    fn codes_for(rows: &[String], player: u8) -> HashMap<(usize, usize), u32> {
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let pos = position(&rows);
        let filler = Filler::new(&pos);
        let (w, n) = (pos.stride(), rows.len());
        let mut out = HashMap::new();
        for (r, row) in rows.iter().enumerate() {
            for (c, &cell) in row.as_bytes().iter().enumerate() {
                if cell == b'.' {
                    let x = (r + 1) * w + c + 1;
                    out.insert((r, c), canonical(code_at(&filler.board, w, n, x, player)));
                }
            }
        }
        out
    }

    #[test]
    fn a_position_and_its_mirror_image_give_the_same_codes() {
        // the board reflected across its long diagonal with the colours exchanged is the same
        // game with the players' roles exchanged: seat 1's move at (r, c) is seat 2's at (c, r)
        let rows: Vec<String> = ["..1..", ".2..1", "...1.", ".2...", "2...."]
            .iter()
            .map(|r| r.to_string())
            .collect();
        let swap = |ch: u8| match ch {
            b'1' => '2',
            b'2' => '1',
            _ => '.',
        };
        let mirror: Vec<String> = (0..5)
            .map(|r| (0..5).map(|c| swap(rows[c].as_bytes()[r])).collect())
            .collect();
        let p = codes_for(&rows, 1);
        let q = codes_for(&mirror, 2);
        assert_eq!(p.len(), 19);
        for (&(r, c), k) in &p {
            assert_eq!(q.get(&(c, r)), Some(k), "cell ({r}, {c})");
        }
        // and the codes do tell cells apart: not all the same
        let distinct: std::collections::HashSet<u32> = p.values().copied().collect();
        assert!(distinct.len() > 5, "{distinct:?}");
    }

    #[test]
    fn the_bridge_cells_see_the_edge_only_next_to_the_board() {
        // seat 1 connects top-bottom; on the second row, the bridge cell two rows up is the
        // top edge's padding: the mover's. On the first row nothing lies two rows up.
        let pos = position(&[".....", ".....", "..2..", ".....", "....1"]);
        let filler = Filler::new(&pos);
        let w = pos.stride();
        let at = |r: usize, c: usize| (r + 1) * w + c + 1;
        let second = digits(code_at(&filler.board, w, 5, at(1, 2), 1));
        assert_eq!(second[6], 1, "bridge cell 0 of (1,2) is seat 1's top edge");
        assert_eq!(second[0], 0, "neighbour 0 of (1,2) is the empty (0,2)");
        assert_eq!(
            second[3], 2,
            "neighbour 3 of (1,2) is seat 2's stone at (2,2)"
        );
        let beside = digits(code_at(&filler.board, w, 5, at(1, 1), 1));
        assert_eq!(
            beside[8], 2,
            "bridge cell 2 of (1,1) is seat 2's stone at (2,2)"
        );
        let first = digits(code_at(&filler.board, w, 5, at(0, 2), 1));
        assert_eq!(first[0], 1, "neighbour 0 of (0,2) is the top edge");
        assert_eq!(first[6], 0, "two rows above the board is nothing");
        // for seat 2 the same edge is the opponent's
        let second2 = digits(code_at(&filler.board, w, 5, at(1, 2), 2));
        assert_eq!(second2[6], 2);
        // the left column's bridge cell (1,-2) is off the board: nothing, not the right edge
        let left = digits(code_at(&filler.board, w, 5, at(2, 0), 1));
        assert_eq!(left[10], 0);
        assert_eq!(left[5], 2, "neighbour 5 of (2,0) is seat 2's left edge");
    }

    #[test]
    fn training_recovers_the_strengths_that_made_the_choices() {
        // three patterns of gammas 4, 1 and 0.25, and the relations to the last move of
        // gammas 1 (away), 3 (next to it) and 0.5 (a bridge away); each choice offers 6
        // candidates drawn at random and picks one with probability proportional to its gamma
        let truth = [(10u32, 4.0f64), (20, 1.0), (30, 0.25)];
        let rel_truth = [1.0f64, 3.0, 0.5];
        let mut rng = Pcg64::seed_from_u64(7);
        let mut choices = Vec::new();
        for _ in 0..30_000 {
            let codes: Vec<u32> = (0..6)
                .map(|_| truth[(rng.next_u32() % 3) as usize].0)
                .collect();
            let relations: Vec<u8> = (0..6).map(|_| (rng.next_u32() % 3) as u8).collect();
            let g = |k: usize| {
                truth.iter().find(|t| t.0 == codes[k]).map_or(1.0, |t| t.1)
                    * rel_truth[usize::from(relations[k])]
            };
            let total: f64 = (0..6).map(g).sum();
            let mut pick = f64::from(rng.next_u32()) / f64::from(u32::MAX) * total;
            let mut chosen = codes.len() - 1;
            for k in 0..6 {
                pick -= g(k);
                if pick <= 0.0 {
                    chosen = k;
                    break;
                }
            }
            choices.push(Choice {
                codes,
                relations,
                edges: Vec::new(),
                chosen,
            });
        }
        let out = train(&choices, 60, 1);
        let ln = |code: u32| {
            out.patterns
                .iter()
                .find(|e| e.0 == code)
                .map_or(f64::NAN, |e| f64::from(e.1))
        };
        let (a, b, c) = (ln(10), ln(20), ln(30));
        // ratios are what Bradley-Terry identifies: ln 4 between each
        assert!((a - b - 4f64.ln()).abs() < 0.1, "{a} {b}");
        assert!((b - c - 4f64.ln()).abs() < 0.1, "{b} {c}");
        assert!(
            (f64::from(out.ln_last[1]) - 3f64.ln()).abs() < 0.1,
            "{:?}",
            out.ln_last
        );
        assert!(
            (f64::from(out.ln_last[2]) - 0.5f64.ln()).abs() < 0.1,
            "{:?}",
            out.ln_last
        );
        assert_eq!(out.ln_last[0], 0.0);
        // centred on the candidates: a candidate's mean ln gamma is about 0
        let mean_rel = out.ln_last.iter().map(|&x| f64::from(x)).sum::<f64>() / 3.0;
        assert!(
            ((a + b + c) / 3.0 + mean_rel).abs() < 0.05,
            "{a} {b} {c} {mean_rel}"
        );
        let seen: u32 = out.patterns.iter().map(|e| e.2).sum();
        assert_eq!(seen, 180_000);
        let chosen: u32 = out.patterns.iter().map(|e| e.3).sum();
        assert_eq!(chosen, 30_000);
    }

    #[test]
    fn rare_patterns_share_one_learned_strength() {
        // patterns 10 (gamma 1) and 20 (gamma 0.25) are common; every other candidate is a
        // pattern seen once (a fresh code), all of gamma 4
        let mut rng = Pcg64::seed_from_u64(11);
        let mut fresh = 1_000u32;
        let mut choices = Vec::new();
        for _ in 0..20_000 {
            let codes: Vec<u32> = (0..6)
                .map(|_| match rng.next_u32() % 3 {
                    0 => 10,
                    1 => 20,
                    _ => {
                        fresh += 1;
                        fresh
                    }
                })
                .collect();
            let g = |c: u32| match c {
                10 => 1.0,
                20 => 0.25,
                _ => 4.0,
            };
            let total: f64 = codes.iter().map(|&c| g(c)).sum();
            let mut pick = f64::from(rng.next_u32()) / f64::from(u32::MAX) * total;
            let mut chosen = codes.len() - 1;
            for (k, &c) in codes.iter().enumerate() {
                pick -= g(c);
                if pick <= 0.0 {
                    chosen = k;
                    break;
                }
            }
            choices.push(Choice {
                relations: vec![0; codes.len()],
                edges: Vec::new(),
                codes,
                chosen,
            });
        }
        let pooled = train(&choices, 60, 100);
        let named: Vec<u32> = pooled.patterns.iter().map(|e| e.0).collect();
        assert_eq!(named, vec![10, 20], "only the common patterns are named");
        let (a, b) = (
            f64::from(pooled.patterns[0].1),
            f64::from(pooled.patterns[1].1),
        );
        let other = f64::from(pooled.ln_other);
        assert!((other - a - 4f64.ln()).abs() < 0.1, "{other} {a}");
        assert!((a - b - 4f64.ln()).abs() < 0.1, "{a} {b}");
        // unpooled, every rare pattern is named on its own and `other` stays at 0
        let unpooled = train(&choices, 5, 1);
        assert_eq!(unpooled.patterns.len(), 2 + (fresh - 1_000) as usize);
        assert_eq!(unpooled.ln_other, 0.0);
    }

    #[test]
    fn edge_classes_count_rows_from_each_player_s_nearer_edge() {
        // seat 1 joins top and bottom on this 7x7 board
        let pos = position(&[
            ".......", ".......", ".......", "...1...", ".......", ".......", "..2....",
        ]);
        let filler = Filler::new(&pos);
        let w = pos.stride();
        let at = |r: usize, c: usize| (r + 1) * w + c + 1;
        let class = |r, c, player| edge_class_at(&filler.board, w, 7, at(r, c), player);
        // (0, 5): on seat 1's top edge, one column from seat 2's right edge
        // (own rows, opponent's rows) packed as 5 * own + opponent's
        assert_eq!(class(0, 5, 1), 1, "own edge 0 rows away, the opponent's 1");
        assert_eq!(class(0, 5, 2), 5, "own edge 1 row away, the opponent's 0");
        // the centre (3, 3) is three rows from every edge
        assert_eq!(class(3, 2, 1), 5 * 3 + 2);
        assert_eq!(class(3, 2, 2), 5 * 2 + 3);
        // a 13x13 board's centre is 6 from every edge: capped at 4
        let big = Position::new(13).expect("size");
        let f = Filler::new(&big);
        let wb = big.stride();
        assert_eq!(edge_class_at(&f.board, wb, 13, 7 * wb + 7, 1), 24);
        let codes = mover_codes(&pos);
        let (_, _, e) = codes
            .iter()
            .find(|&&(c, _, _)| c == Cell::new(6, 6))
            .copied()
            .expect("(6, 6) is empty");
        assert_eq!(e, 0, "a corner is on both players' edges");
    }

    #[test]
    fn relations_to_the_last_move() {
        let at = |r, c| Cell::new(r, c);
        assert_eq!(relation(at(3, 3), None), AWAY_FROM_LAST);
        assert_eq!(relation(at(3, 3), Some(at(2, 4))), NEXT_TO_LAST);
        assert_eq!(relation(at(3, 3), Some(at(2, 2))), BRIDGE_FROM_LAST);
        assert_eq!(relation(at(3, 3), Some(at(4, 4))), BRIDGE_FROM_LAST);
        assert_eq!(relation(at(3, 3), Some(at(4, 2))), NEXT_TO_LAST);
        assert_eq!(relation(at(3, 3), Some(at(5, 5))), AWAY_FROM_LAST);
        assert_eq!(relation(at(3, 3), Some(at(3, 3))), AWAY_FROM_LAST);
        // the padded form agrees on every pair of cells of a 5x5 board
        let w = 7;
        for r in 0..5u8 {
            for c in 0..5u8 {
                for lr in 0..5u8 {
                    for lc in 0..5u8 {
                        let pad = |r: u8, c: u8| (usize::from(r) + 1) * w + usize::from(c) + 1;
                        assert_eq!(
                            relation_at(pad(r, c), Some(pad(lr, lc)), w),
                            relation(at(r, c), Some(at(lr, lc))),
                            "({r},{c}) from ({lr},{lc})"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_game_record_gives_its_rated_choices_within_the_window() {
        let at = |r, c| Cell::new(r, c);
        // a1 and d4 open; b2 (rated 0.6) is a choice, c3 is not rated, b3's 0.99 lies outside
        // the window, c2 (0.2) answers b3 from next to it
        let read = record_choices("game 4 a1 d4 b2=0.6 c3 b3=0.99 c2=0.2", 0.05).expect("replays");
        assert_eq!(read.len(), 2);
        let mut pos = Position::new(4).expect("4x4");
        for c in [at(0, 0), at(3, 3)] {
            pos.play(hex::Move::Place(c)).expect("empty");
        }
        let first = choice_of(&pos, at(1, 1), Some(at(3, 3))).expect("a candidate");
        assert_eq!(read[0], first);
        assert_eq!(first.codes.len(), 14, "every empty cell is a candidate");
        assert_eq!(first.relations[first.chosen], AWAY_FROM_LAST);
        let second = &read[1];
        assert_eq!(second.codes.len(), 11);
        assert_eq!(second.relations[second.chosen], NEXT_TO_LAST);
        // a wider window keeps b3 too; a narrower one drops b2 and c2
        assert_eq!(
            record_choices("game 4 a1 d4 b2=0.6 c3 b3=0.99 c2=0.2", 0.0).map(|c| c.len()),
            Ok(3)
        );
        assert_eq!(
            record_choices("game 4 a1 d4 b2=0.6 c3 b3=0.99 c2=0.2", 0.45).map(|c| c.len()),
            Ok(0)
        );
        assert_eq!(record_choices("game 4", 0.05), Ok(Vec::new()));
        // the last move is the opponent's, not the mover's own before it: c4 is next to c3,
        // the mover's, and a bridge away from a5, the opponent's last
        let read = record_choices("game 5 a1 e5 c3=0.5 a5 c4=0.5", 0.05).expect("replays");
        assert_eq!(read.len(), 2);
        assert_eq!(read[1].relations[read[1].chosen], BRIDGE_FROM_LAST);
    }

    #[test]
    fn a_bad_game_record_stops_at_its_first_bad_token() {
        let stops =
            |line: &str| record_choices(line, 0.05).map_err(|(read, token)| (read.len(), token));
        assert_eq!(stops("game 4 a1 a1"), Err((0, "a1".to_string())));
        assert_eq!(stops("game 4 a1 d4 b2=0.6 zz"), Err((1, "zz".to_string())));
        assert_eq!(stops("game 4 a1 b2=x"), Err((0, "b2=x".to_string())));
        assert_eq!(stops("game 4 a1 b2=1.5"), Err((0, "b2=1.5".to_string())));
        assert_eq!(
            stops("game 4 a1 e1"),
            Err((0, "e1".to_string())),
            "off the board"
        );
        assert_eq!(stops("gam 4 a1"), Err((0, "gam 4 a1".to_string())));
        assert_eq!(stops("game 0 a1"), Err((0, "game 0 a1".to_string())));
        assert_eq!(stops("game x"), Err((0, "game x".to_string())));
        // a move after the game is won: a 2x2 board is won by seat one's column a1, a2
        assert_eq!(stops("game 2 a1 b1 a2 b2"), Err((0, "b2".to_string())));
    }

    #[test]
    fn weights_parse_and_refuse_bad_lines() {
        let k = canonical(code_from([0, 1, 0, 0, 0, 0], [0; 6]));
        let w =
            Weights::parse(&format!("# a comment\n\n{k} 1500\nlast 700 -200\n")).expect("parses");
        assert_eq!(w.named(), 1);
        assert!((w.ln_gamma(k) - 1.5).abs() < 1e-6);
        // its image takes the same value; others stay at 0
        let image = code_from([0, 0, 0, 0, 1, 0], [0; 6]);
        assert!((w.ln_gamma(image) - 1.5).abs() < 1e-6);
        assert_eq!(w.ln_gamma(0), 0.0);
        let sigmoid = |z: f32| 1.0 / (1.0 + (-z).exp());
        assert!((w.win_rate(k, AWAY_FROM_LAST, 0, 1.0) - sigmoid(1.5)).abs() < 1e-6);
        assert!((w.win_rate(k, NEXT_TO_LAST, 0, 1.0) - sigmoid(2.2)).abs() < 1e-6);
        assert!((w.win_rate(k, BRIDGE_FROM_LAST, 0, 0.5) - sigmoid(0.65)).abs() < 1e-6);
        assert_eq!(w.win_rate(0, AWAY_FROM_LAST, 0, 1.0), 0.5);
        let edges: Vec<String> = (0..25).map(|e| (e * 10).to_string()).collect();
        let w = Weights::parse(&format!("edge {}", edges.join(" "))).expect("parses");
        assert!((w.ln_edge(7) - 0.07).abs() < 1e-6);
        assert!((w.win_rate(0, AWAY_FROM_LAST, 24, 1.0) - sigmoid(0.24)).abs() < 1e-6);
        assert!(Weights::parse("edge 1 2 3").is_err());
        assert!(Weights::parse(&format!("edge {0}\nedge {0}", edges.join(" "))).is_err());
        assert!(Weights::parse("last 1").is_err());
        assert!(Weights::parse("last 1 2\nlast 1 2").is_err());
        assert!(Weights::parse("12").is_err());
        assert!(Weights::parse("a b").is_err());
        assert!(Weights::parse(&format!("{} 5", CODES)).is_err());
        assert!(Weights::parse(&format!("{k} 1\n{k} 2")).is_err());
        // not canonical
        let other = code_from([0, 0, 1, 0, 0, 0], [0; 6]);
        assert!(Weights::parse(&format!("{other} 3")).is_err());
        // `other`: the strength of every code not named, and of codes past the last
        let w = Weights::parse(&format!("other -800\n{k} 1500")).expect("parses");
        assert!((w.ln_gamma(k) - 1.5).abs() < 1e-6);
        assert!((w.ln_gamma(image) - 1.5).abs() < 1e-6);
        assert!((w.ln_gamma(0) + 0.8).abs() < 1e-6);
        // and the images of an unnamed code too
        assert_eq!(canonical(9), 1);
        assert!((w.ln_gamma(1) + 0.8).abs() < 1e-6);
        assert!((w.ln_gamma(9) + 0.8).abs() < 1e-6);
        assert!((w.ln_gamma(CODES + 3) + 0.8).abs() < 1e-6);
        assert_eq!(w.named(), 1);
        assert!(Weights::parse("other 1\nother 2").is_err());
        assert!(Weights::parse("other x").is_err());
        assert!(Weights::parse("other 1 2").is_err());
    }

    #[test]
    fn the_compiled_weights_parse_and_name_patterns() {
        let text = include_str!("patterns.txt");
        let w = Weights::parse(text).expect("patterns.txt parses");
        assert!(w.named() > 1_000, "{} patterns", w.named());
        assert_eq!(learned().named(), w.named());
        // a canonical code the file does not name has the file's `other` strength
        let other: f32 = text
            .lines()
            .find_map(|l| l.strip_prefix("other "))
            .and_then(|v| v.trim().parse::<i32>().ok())
            .map_or(0.0, |v| v as f32 / 1000.0);
        let named: std::collections::HashSet<u32> = text
            .lines()
            .filter_map(|l| l.split_ascii_whitespace().next()?.parse().ok())
            .collect();
        let unnamed = (0..CODES)
            .find(|&c| canonical(c) == c && !named.contains(&c))
            .expect("an unnamed pattern");
        assert!((learned().ln_gamma(unnamed) - other).abs() < 1e-6);
        assert!(
            other != 0.0,
            "the compiled weights give the pooled rare patterns a strength"
        );
    }
}
