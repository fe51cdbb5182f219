use rand_core::SeedableRng;
use std::time::Instant;
fn main() {
    let budget: u32 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(hex::STRONG_BUDGET);
    for size in [11u8] {
        let mut rng = rand_pcg::Pcg64::from_seed([1; 32]);
        let mut pos = hex::Position::new(size).unwrap();
        for _ in 0..6 { let m = hex::random_move(&pos, &mut rng).unwrap(); pos.play(m).unwrap(); }
        let t = Instant::now();
        let mut n = 0;
        while !pos.is_over() && n < 10 {
            let m = hex::strong_move(&pos, &mut rng, budget).unwrap();
            pos.play(m).unwrap(); n += 1;
        }
        println!("size {size}: {:.1} ms/move (budget {budget})", t.elapsed().as_secs_f64() * 1000.0 / n as f64);
    }
    // playouts/s
    let mut rng = rand_pcg::Pcg64::from_seed([2; 32]);
    let base = hex::Position::new(11).unwrap();
    let t = Instant::now();
    let mut w = [0u32; 3];
    let iters = 1_000_000;
    for _ in 0..iters { let mut p = base.clone(); let o = hex::random_playout(&mut p, &mut rng); w[o.and_then(|o| o.winner()).map_or(0, |s| s.number() as usize)] += 1; }
    let s = t.elapsed().as_secs_f64();
    let t2 = Instant::now();
    let mut acc = 0usize;
    for _ in 0..iters { let p = std::hint::black_box(base.clone()); acc += p.ply() as usize; }
    println!("clone only: {:.1} ns (acc {acc})", t2.elapsed().as_secs_f64() * 1e9 / iters as f64);
    let t3 = Instant::now();
    let mut w2 = [0u32; 3];
    for _ in 0..iters { let o = hex::playout_winner(&base, &mut rng); w2[o.map_or(0, |s| s.number() as usize)] += 1; }
    println!("playout_winner: {:.0}/s wins {:?}", iters as f64 / t3.elapsed().as_secs_f64(), w2);
    println!("random_playout 11x11: {:.0}/s  wins {:?}", iters as f64 / s, w);
}
#[allow(dead_code)]
fn clone_only() {}
