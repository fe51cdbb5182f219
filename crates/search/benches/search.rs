//! Engine and search benchmarks: `cargo bench -p hex-search --bench search`.
//!
//! - `play/19x19`: time per `Position::play` (win check included), playing a fixed random
//!   permutation of all 361 cells on a clone of the empty board until the game ends; reported
//!   per move via the throughput (elements = moves).
//! - `playout/11x11/*`: random full playouts from the empty 11x11 board; the throughput line is
//!   playouts per second. `random_playout` plays every move through the incremental engine and
//!   leaves the exact final position; `playout_winner` is the fill-then-judge fast path.
//! - `from_compact/19x19`: rebuilding a finished 19x19 game from its stored form.
//! - `strong_move/{11x11,19x19}`: one house-bot move with `strong_budget_for(size)` playouts.
//! - `search_playouts/11x11`: the playouts the strongest rung (`house-master`) actually runs:
//!   one tree search of 20,000 playouts (tree descent, bridge-answering playout, RAVE update)
//!   from an 11x11 position 10 stones in; the throughput line is search playouts per second.
//! - `circuit/11x11`: both players' circuits ([`hex_search::resistance::circuit`]) of an
//!   11x11 position 30 stones in (the prior of `Tuning::resist_at`).

use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use hex_search::board::Board;
use hex_search::resistance::circuit;
use hex_search::{
    Limits, Position, playout_winner, random_move, random_playout, strong_budget_for, strong_move,
    strong_move_within,
};
use rand_core::SeedableRng;
use rand_pcg::Pcg64;

fn bench_play(c: &mut Criterion) {
    let size = 19u8;
    let mut rng = Pcg64::from_seed([9; 32]);
    // a random game: the order of moves until it ends
    let mut game = Position::new(size).expect("size");
    let mut moves = Vec::new();
    while let Some(mv) = random_move(&game, &mut rng) {
        game.play(mv).expect("legal");
        moves.push(mv);
    }
    let empty = Position::new(size).expect("size");
    let mut group = c.benchmark_group("play");
    group.throughput(Throughput::Elements(moves.len() as u64));
    group.bench_function("19x19", |b| {
        b.iter_batched_ref(
            || empty.clone(),
            |pos| {
                for &mv in &moves {
                    let _ = black_box(pos.play(black_box(mv)));
                }
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn bench_playouts(c: &mut Criterion) {
    let empty = Position::new(11).expect("size");
    let mut group = c.benchmark_group("playout/11x11");
    group.throughput(Throughput::Elements(1));
    let mut rng = Pcg64::from_seed([1; 32]);
    group.bench_function("random_playout", |b| {
        b.iter(|| {
            let mut pos = empty.clone();
            black_box(random_playout(&mut pos, &mut rng))
        })
    });
    let mut rng = Pcg64::from_seed([2; 32]);
    group.bench_function("playout_winner", |b| {
        b.iter(|| black_box(playout_winner(black_box(&empty), &mut rng)))
    });
    group.finish();
}

fn bench_compact(c: &mut Criterion) {
    let mut rng = Pcg64::from_seed([3; 32]);
    let mut pos = Position::new(19).expect("size");
    random_playout(&mut pos, &mut rng);
    let text = pos.to_compact();
    c.bench_function("from_compact/19x19", |b| {
        b.iter(|| black_box(Position::from_compact(black_box(&text))))
    });
}

fn bench_strong(c: &mut Criterion) {
    let mut group = c.benchmark_group("strong_move");
    group.sample_size(10);
    for size in [11u8, 19] {
        let mut rng = Pcg64::from_seed([4; 32]);
        let mut pos = Position::new(size).expect("size");
        // a few stones in, with the opponent on move so no shortcut applies
        for _ in 0..10 {
            if let Some(mv) = random_move(&pos, &mut rng) {
                let _ = pos.play(mv);
            }
        }
        let budget = strong_budget_for(size);
        group.bench_function(format!("{size}x{size}/budget_{budget}"), |b| {
            b.iter(|| black_box(strong_move(&pos, &mut rng, budget)))
        });
    }
    group.finish();
}

fn bench_search_playouts(c: &mut Criterion) {
    const PLAYOUTS: u32 = 20_000;
    let mut rng = Pcg64::from_seed([5; 32]);
    let mut pos = Position::new(11).expect("size");
    for _ in 0..10 {
        if let Some(mv) = random_move(&pos, &mut rng) {
            let _ = pos.play(mv);
        }
    }
    let mut group = c.benchmark_group("search_playouts");
    group.sample_size(10);
    group.throughput(Throughput::Elements(u64::from(PLAYOUTS)));
    group.bench_function("11x11", |b| {
        b.iter(|| {
            let mut run = 0;
            let mv = strong_move_within(
                &pos,
                &mut rng,
                Limits {
                    max_playouts: PLAYOUTS,
                    stop: &mut |done| {
                        run = done;
                        false
                    },
                },
            );
            black_box((mv, run))
        })
    });
    group.finish();
}

fn bench_circuit(c: &mut Criterion) {
    let mut rng = Pcg64::from_seed([7; 32]);
    let mut pos = Position::new(11).expect("size");
    // 30 stones, none of them ending the game
    while pos.ply() < 30 {
        match random_move(&pos, &mut rng) {
            Some(mv) if pos.clone().play(mv).is_ok_and(|o| o.is_none()) => {
                let _ = pos.play(mv);
            }
            Some(_) => continue,
            None => break,
        }
    }
    let board = Board::of(&pos);
    c.bench_function("circuit/11x11", |b| {
        b.iter(|| black_box((circuit(&board, 1).resistance, circuit(&board, 2).resistance)))
    });
}

criterion_group!(
    benches,
    bench_circuit,
    bench_play,
    bench_playouts,
    bench_compact,
    bench_strong,
    bench_search_playouts
);
criterion_main!(benches);
