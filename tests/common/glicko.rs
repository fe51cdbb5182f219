//! Glicko-2 as Glickman's paper ("Example of the Glicko-2 system", glicko.net) states it,
//! steps 1 to 8, written here independently of the server (which calls `skillratings`), so
//! that tests compare the served figures with the formula rather than with the same code.

/// Glicko-2's scale: mu = (r - 1500) / 173.7178, phi = RD / 173.7178.
const SCALE: f64 = 173.7178;
/// The system constant tau the arena uses, and the paper's convergence tolerance.
const TAU: f64 = 0.5;
const EPSILON: f64 = 0.000_001;

/// A player's figures: rating and RD in rating points, volatility on Glicko-2's scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct G {
    pub r: f64,
    pub rd: f64,
    pub sigma: f64,
}

/// A bot with no rated set on the arena: Elo's start, RD 350, volatility 0.06.
pub const NEW: G = G {
    r: 1200.0,
    rd: 350.0,
    sigma: 0.06,
};

fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

fn expected(mu: f64, mu_j: f64, phi_j: f64) -> f64 {
    1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp())
}

/// One rating period: `p` against each `(opponent, score)`, scores 1, 0.5 or 0.
pub fn period(p: G, results: &[(G, f64)]) -> G {
    // Step 2: the Glicko-2 scale.
    let (mu, phi) = ((p.r - 1500.0) / SCALE, p.rd / SCALE);
    if results.is_empty() {
        // A period without games: only the deviation grows.
        let phi = (phi * phi + p.sigma * p.sigma).sqrt();
        return G {
            rd: (phi * SCALE).min(350.0),
            ..p
        };
    }
    // Steps 3 and 4: the estimated variance v and the improvement delta.
    let mut inv_v = 0.0;
    let mut sum = 0.0;
    for (o, s) in results {
        let (mu_j, phi_j) = ((o.r - 1500.0) / SCALE, o.rd / SCALE);
        let e = expected(mu, mu_j, phi_j);
        inv_v += g(phi_j) * g(phi_j) * e * (1.0 - e);
        sum += g(phi_j) * (s - e);
    }
    let v = 1.0 / inv_v;
    let delta = v * sum;
    // Step 5: the new volatility, by the Illinois algorithm.
    let a = (p.sigma * p.sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex).powi(2))
            - (x - a) / (TAU * TAU)
    };
    let mut lo = a;
    let mut hi = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * TAU) < 0.0 {
            k += 1.0;
        }
        a - k * TAU
    };
    let (mut f_lo, mut f_hi) = (f(lo), f(hi));
    while (hi - lo).abs() > EPSILON {
        let c = lo + (lo - hi) * f_lo / (f_hi - f_lo);
        let f_c = f(c);
        if f_c * f_hi <= 0.0 {
            lo = hi;
            f_lo = f_hi;
        } else {
            f_lo /= 2.0;
        }
        hi = c;
        f_hi = f_c;
    }
    let sigma = (lo / 2.0).exp();
    // Steps 6 to 8: the pre-period deviation, the new deviation and rating, back to scale.
    let phi_star = (phi * phi + sigma * sigma).sqrt();
    let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu_new = mu + phi_new * phi_new * sum;
    G {
        r: mu_new * SCALE + 1500.0,
        rd: phi_new * SCALE,
        sigma,
    }
}

/// A rated set between `a` and `b` (their figures as it ends), `score_a` from `a`'s side:
/// one period of one result for each.
pub fn set(a: G, b: G, score_a: f64) -> (G, G) {
    (period(a, &[(b, score_a)]), period(b, &[(a, 1.0 - score_a)]))
}

/// `days` empty periods: the figures of a bot idle that many whole days.
pub fn idle(mut p: G, days: i64) -> G {
    for _ in 0..days {
        p = period(p, &[]);
    }
    p
}

/// Whether two figures agree within `tol` (rating and RD in points; volatility within
/// `tol / 1000`).
pub fn close(a: G, b: G, tol: f64) -> bool {
    (a.r - b.r).abs() <= tol
        && (a.rd - b.rd).abs() <= tol
        && (a.sigma - b.sigma).abs() <= tol / 1000.0
}
