use hex::*;
use rand_core::SeedableRng;
fn game(seed: u64, size: u8, a_seat: Seat, a: u32, b: u32) -> Option<Seat> {
    let mut s = [0u8; 32];
    s[..8].copy_from_slice(&seed.to_le_bytes());
    let mut r = rand_pcg::Pcg64::from_seed(s);
    let op = opening(&s, size, 2).unwrap();
    let mut pos = Position::with_opening(size, &op).unwrap();
    while let Some(seat) = pos.to_move() {
        let budget = if seat == a_seat { a } else { b };

        let mv = if budget == 0 {
            random_move(&pos, &mut r)
        } else {
            strong_move(&pos, &mut r, budget)
        };
        pos.play(mv.unwrap()).unwrap();
    }
    pos.outcome().and_then(|o| o.winner())
}
fn main() {
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .map(|s| s.parse().unwrap())
        .collect();
    let (size, a, b, n) = (args[0] as u8, args[1], args[2], args[3] as u64);
    let mut wins = 0;
    for g in 0..n {
        let seat = if g % 2 == 0 { Seat::One } else { Seat::Two };
        if game(g / 2, size, seat, a, b) == Some(seat) {
            wins += 1;
        }
    }
    println!("size {size}: budget {a} vs {b}: {wins}/{n}");
}
