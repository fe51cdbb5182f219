use rand_core::SeedableRng;
use std::time::Instant;
fn main() {
    let base = hex::Position::new(11).unwrap();
    for _ in 0..5 {
        let mut rng = rand_pcg::Pcg64::from_seed([2; 32]);
        let iters = 300_000;
        let t = Instant::now();
        let mut w = 0u32;
        for _ in 0..iters { let mut p = base.clone(); let o = hex::random_playout(&mut p, &mut rng); w += o.and_then(|o| o.winner()).map_or(0, |s| s.number() as u32); }
        let a = iters as f64 / t.elapsed().as_secs_f64();
        let t3 = Instant::now();
        for _ in 0..iters { let o = hex::playout_winner(&base, &mut rng); w += o.map_or(0, |s| s.number() as u32); }
        let b = iters as f64 / t3.elapsed().as_secs_f64();
        println!("random_playout {a:.0}/s  playout_winner {b:.0}/s ({w})");
    }
}
