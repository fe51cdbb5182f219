use rand_core::SeedableRng;
use std::time::Instant;
fn main() {
    let budget: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(hex::STRONG_BUDGET);
    for size in [9u8, 11, 13, 19] {
        let mut rng = rand_pcg::Pcg64::from_seed([1; 32]);
        let mut pos = hex::Position::new(size).unwrap();
        for _ in 0..6 {
            let m = hex::random_move(&pos, &mut rng).unwrap();
            pos.play(m).unwrap();
        }
        let t = Instant::now();
        let mut n = 0;
        while !pos.is_over() && n < 10 {
            let m = hex::strong_move(&pos, &mut rng, budget).unwrap();
            pos.play(m).unwrap();
            n += 1;
        }
        println!(
            "size {size}: {:.1} ms/move (budget {budget})",
            t.elapsed().as_secs_f64() * 1000.0 / n as f64
        );
    }
}
