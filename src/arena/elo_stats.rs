//! Elo arithmetic for tournaments and matches, pure (issue 12): the Elo difference a score
//! implies, its 95% error bar, performance ratings and the SPRT log-likelihood ratio.
//!
//! Scores are fractions in 0..=1 (win 1, draw 1/2, loss 0). The SPRT follows the usual
//! normal approximation (as engine testers use it): with `N` results of mean `s` and per-result
//! variance `v`, and `s0`, `s1` the scores that `elo0`, `elo1` imply,
//! `LLR = N (s1 - s0) (2 s - s0 - s1) / (2 v)`; stop when `LLR >= ln((1 - beta) / alpha)`
//! (accept H1) or `LLR <= ln(beta / (1 - alpha))` (accept H0).

/// The two-sided 95% normal quantile.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The expected score of a side `elo` points stronger: `1 / (1 + 10^(-elo/400))`.
#[must_use]
pub fn score_of(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference a score fraction implies, None at 0 or 1 (infinite), or within 1e-9 of
/// them (an interval bound that is 0 or 1 up to rounding gives thousands of points otherwise).
/// An even score is `0.0`, never `-0.0`.
#[must_use]
pub fn elo_of(score: f64) -> Option<f64> {
    const EDGE: f64 = 1e-9;
    (score > EDGE && score < 1.0 - EDGE).then(|| 400.0 * (score / (1.0 - score)).log10())
}

/// `x` to one decimal, with `-0.0` written as `0.0` (a JSON reader shows the sign).
#[must_use]
pub fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0 + 0.0
}

/// Results as wins, draws and losses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Wdl {
    pub w: u64,
    pub d: u64,
    pub l: u64,
}

impl Wdl {
    /// Number of results.
    #[must_use]
    pub fn n(&self) -> u64 {
        self.w + self.d + self.l
    }

    /// Mean score, None without results.
    #[must_use]
    pub fn score(&self) -> Option<f64> {
        let n = self.n();
        (n > 0).then(|| (self.w as f64 + self.d as f64 / 2.0) / n as f64)
    }

    /// Variance of one result around the mean score (population variance).
    #[must_use]
    pub fn variance(&self) -> Option<f64> {
        let s = self.score()?;
        let n = self.n() as f64;
        Some(
            (self.w as f64 * (1.0 - s).powi(2)
                + self.d as f64 * (0.5 - s).powi(2)
                + self.l as f64 * s.powi(2))
                / n,
        )
    }

    /// Elo difference and the half-width of its 95% interval: `(elo, error)`; the error is
    /// None when an end of the interval leaves 0..1.
    #[must_use]
    pub fn elo_with_error(&self) -> Option<(f64, Option<f64>)> {
        let s = self.score()?;
        let elo = elo_of(s)?;
        let se = (self.variance()? / self.n() as f64).sqrt();
        let err = match (elo_of(s - Z95 * se), elo_of(s + Z95 * se)) {
            (Some(lo), Some(hi)) => Some((hi - lo) / 2.0),
            _ => None,
        };
        Some((elo, err))
    }

    /// The SPRT log-likelihood ratio of H1 (`elo1`) against H0 (`elo0`); 0 with no results.
    /// While every result is the same (no variance yet), the variance is taken from the results
    /// plus one draw, so a bot that wins every set still ends the test.
    #[must_use]
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        let (Some(s), Some(mut v)) = (self.score(), self.variance()) else {
            return 0.0;
        };
        if v <= 0.0 {
            let padded = Wdl {
                d: self.d + 1,
                ..*self
            };
            v = padded.variance().unwrap_or(0.25);
        }
        let (s0, s1) = (score_of(elo0), score_of(elo1));
        self.n() as f64 * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * v)
    }
}

/// SPRT bounds `(lower, upper)` for error rates `alpha` and `beta`.
#[must_use]
pub fn sprt_bounds(alpha: f64, beta: f64) -> (f64, f64) {
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

/// A performance rating from games against opponents: `(rating, 95% error)`; the mean opponent
/// rating plus the Elo difference of the score. None with no games or a score of 0 or 1.
#[must_use]
pub fn performance(results: &[(f64, f64)]) -> Option<(f64, Option<f64>)> {
    // results: (opponent rating, score 0 | 0.5 | 1)
    if results.is_empty() {
        return None;
    }
    let mut wdl = Wdl::default();
    let mut opp = 0.0;
    for &(r, s) in results {
        opp += r;
        if s >= 1.0 {
            wdl.w += 1;
        } else if s > 0.0 {
            wdl.d += 1;
        } else {
            wdl.l += 1;
        }
    }
    let (elo, err) = wdl.elo_with_error()?;
    Some((opp / results.len() as f64 + elo, err))
}

/// The 95% Wilson score interval `(lo, hi)` of a score fraction `p` over `n` results (as the
/// referee of BENCHMARKS.md computes it): with `z` = [`Z95`],
/// `(p + z^2/2n +- z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)`. None with no results.
#[must_use]
pub fn wilson(p: f64, n: f64) -> Option<(f64, f64)> {
    if n <= 0.0 {
        return None;
    }
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

/// The likelihood of superiority: the chance that the side with `w` wins and `l` losses is
/// the stronger, `LOS = (1 + erf((w - l) / sqrt(2 (w + l)))) / 2` (draws carry no
/// information). None without a decisive result.
#[must_use]
pub fn los(w: f64, l: f64) -> Option<f64> {
    (w + l > 0.0).then(|| 0.5 * (1.0 + erf((w - l) / (2.0 * (w + l)).sqrt())))
}

/// The error function by Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7).
#[must_use]
pub fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let y = 1.0 - poly * (-x * x).exp();
    if x < 0.0 { -y } else { y }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn the_likelihood_of_superiority_and_the_wilson_interval_match_hand_figures() {
        // 6 wins, 4 losses: (1 + erf(2 / sqrt(20))) / 2 = (1 + erf(0.44721)) / 2 = 0.73645
        assert!(close(los(6.0, 4.0).unwrap_or(0.0), 0.736_455, 1e-6));
        assert_eq!(los(0.0, 0.0), None);
        assert!(close(los(5.0, 5.0).unwrap_or(0.0), 0.5, 1e-9));
        assert!(close(erf(1.0), 0.842_700_79, 2e-7));
        // 7 of 10: centre (0.7 + 0.19208) / 1.38415 = 0.64450, half 0.26625
        let (lo, hi) = wilson(0.7, 10.0).unwrap_or((0.0, 0.0));
        assert!(close(lo, 0.396_78, 1e-4), "{lo}");
        assert!(close(hi, 0.892_22, 1e-4), "{hi}");
        assert_eq!(wilson(0.5, 0.0), None);
    }

    #[test]
    fn a_three_quarter_score_is_about_191_elo() {
        // -400 log10(1/0.75 - 1) = 400 log10(3) = 190.85
        assert!(close(elo_of(0.75).unwrap_or(0.0), 190.849, 0.001));
        assert_eq!(elo_of(1.0), None);
        // An even score: 0, with a positive sign (JSON writes `-0.0` otherwise).
        assert!(elo_of(0.5).is_some_and(|e| e == 0.0 && e.is_sign_positive()));
        assert!(round1(-0.04).is_sign_positive());
        assert_eq!(round1(-120.44), -120.4);
        // a bound that is 0 or 1 but for rounding is infinite too
        assert_eq!(elo_of(1e-12), None);
        assert_eq!(elo_of(1.0 - 1e-12), None);
        assert!(close(score_of(0.0), 0.5, 1e-12));
    }

    #[test]
    fn the_error_bar_of_six_wins_two_draws_two_losses_matches_a_hand_computation() {
        // s = 0.7; v = (6*0.09 + 2*0.04 + 2*0.49)/10 = 0.16; se = sqrt(0.016) = 0.126491
        // bounds 0.7 -+ 1.959964*0.126491 = 0.452081, 0.947919
        // elo(0.452082) = -33.40, elo(0.947918) = 504.03 -> error = 268.72; elo(0.7) = 147.19
        let w = Wdl { w: 6, d: 2, l: 2 };
        assert!(close(w.variance().unwrap_or(0.0), 0.16, 1e-12));
        let (elo, err) = w.elo_with_error().unwrap_or((0.0, None));
        assert!(close(elo, 147.19, 0.01), "{elo}");
        assert!(close(err.unwrap_or(0.0), 268.72, 0.01), "{err:?}");
    }

    #[test]
    fn the_llr_matches_a_hand_computation() {
        // elo0 = 0, elo1 = 100: s0 = 0.5, s1 = 1/(1+10^-0.25) = 0.640065.
        // 8 wins, 1 draw, 1 loss: s = 0.85, v = (8*0.0225 + 0.1225 + 0.7225)/10 = 0.1025
        // LLR = 10 * 0.140065 * (1.7 - 1.140065) / 0.205 = 3.82571
        let w = Wdl { w: 8, d: 1, l: 1 };
        assert!(close(score_of(100.0), 0.640065, 1e-6));
        assert!(
            close(w.llr(0.0, 100.0), 3.82571, 1e-4),
            "{}",
            w.llr(0.0, 100.0)
        );
        // alpha = beta = 0.05: bounds ln(0.05/0.95) = -2.944439, ln(19) = 2.944439
        let (lo, hi) = sprt_bounds(0.05, 0.05);
        assert!(close(lo, -2.944439, 1e-6) && close(hi, 2.944439, 1e-6));
        // Three wins: variance from 3 wins + 1 draw: s' = 0.875, v = (3*0.015625 + 0.140625)/4
        // = 0.046875; LLR = 3 * 0.140065 * (2 - 1.140065) / 0.09375 = 3.85430.
        let three = Wdl { w: 3, d: 0, l: 0 };
        assert!(close(three.llr(0.0, 100.0), 3.85430, 1e-4));
        assert_eq!(Wdl::default().llr(0.0, 100.0), 0.0);
    }

    #[test]
    fn a_performance_rating_is_the_mean_opponent_plus_the_score_difference() {
        // Against 1300 and 1100, one win one loss: 1200 + elo(0.5) = 1200.
        let (p, _) = performance(&[(1300.0, 1.0), (1100.0, 0.0)]).unwrap_or((0.0, None));
        assert!(close(p, 1200.0, 1e-9));
        assert_eq!(performance(&[(1300.0, 1.0)]), None);
    }
}
