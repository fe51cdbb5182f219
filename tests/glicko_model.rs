//! The arena's Glicko-2 arithmetic (`arena::glicko`, over the `skillratings` crate) against
//! Glickman's paper: the tests' own model (`common::glicko`, the paper's steps written out)
//! reproduces the paper's worked example, and the arena's update of a set and its inactivity
//! growth equal the model's for any figures (a property test).

mod common;

use common::glicko::{self, G};
use hexarena::arena::glicko::{Glicko, PERIOD_MS, rate_set};
use proptest::prelude::*;
use skillratings::Outcomes;

#[test]
fn the_papers_worked_example_comes_out_of_the_model() {
    // "Example of the Glicko-2 system": 1500 / 200 / 0.06 against 1400 / 30 (won),
    // 1550 / 100 (lost) and 1700 / 300 (lost) in one period: 1464.06 / 151.52 / 0.05999.
    let p = glicko::period(
        G {
            r: 1500.0,
            rd: 200.0,
            sigma: 0.06,
        },
        &[
            (
                G {
                    r: 1400.0,
                    rd: 30.0,
                    sigma: 0.06,
                },
                1.0,
            ),
            (
                G {
                    r: 1550.0,
                    rd: 100.0,
                    sigma: 0.06,
                },
                0.0,
            ),
            (
                G {
                    r: 1700.0,
                    rd: 300.0,
                    sigma: 0.06,
                },
                0.0,
            ),
        ],
    );
    // The paper rounds its steps (mu' = -0.2069, phi' = 0.8722): unrounded, the same steps
    // give 1464.0507 / 151.5165 / 0.0599960.
    assert!((p.r - 1464.06).abs() < 0.02, "{p:?}");
    assert!((p.rd - 151.52).abs() < 0.01, "{p:?}");
    assert!((p.sigma - 0.05999).abs() < 0.000_01, "{p:?}");
    assert!(
        (p.r - 1464.0507).abs() < 0.0001 && (p.rd - 151.5165).abs() < 0.0001,
        "{p:?}"
    );
}

fn arena(g: G) -> Glicko {
    Glicko {
        rating: g.r,
        deviation: g.rd,
        volatility: g.sigma,
    }
}

fn model(g: Glicko) -> G {
    G {
        r: g.rating,
        rd: g.deviation,
        sigma: g.volatility,
    }
}

fn figures() -> impl Strategy<Value = G> {
    (100.0f64..3000.0, 30.0f64..350.0, 0.03f64..0.1).prop_map(|(r, rd, sigma)| G { r, rd, sigma })
}

proptest! {
    #[test]
    fn the_arenas_update_of_a_set_equals_the_papers_steps_for_any_figures(
        a in figures(),
        b in figures(),
        score in prop::sample::select(vec![0.0, 0.5, 1.0]),
    ) {
        let outcome = if score == 1.0 {
            Outcomes::WIN
        } else if score == 0.0 {
            Outcomes::LOSS
        } else {
            Outcomes::DRAW
        };
        let (ga, gb) = rate_set(arena(a), arena(b), outcome);
        let (wa, wb) = glicko::set(a, b, score);
        prop_assert!(glicko::close(model(ga), wa, 1e-6), "{:?} vs {:?}", ga, wa);
        prop_assert!(glicko::close(model(gb), wb, 1e-6), "{:?} vs {:?}", gb, wb);
        // What one side gains the other does not lose in general (unlike Elo), but the
        // winner never goes down and the loser never up.
        if score == 1.0 {
            prop_assert!(ga.rating >= a.r && gb.rating <= b.r);
        }
    }

    #[test]
    fn whole_days_without_a_set_grow_the_deviation_as_that_many_empty_periods(
        a in figures(),
        days in 0i64..2000,
        part_ms in 0i64..PERIOD_MS,
    ) {
        let t0 = 1_700_000_000_000;
        let got = arena(a).at(Some(t0), t0 + days * PERIOD_MS + part_ms);
        let want = glicko::idle(a, days);
        prop_assert!(glicko::close(model(got), want, 1e-6), "{:?} vs {:?}", got, want);
    }
}
