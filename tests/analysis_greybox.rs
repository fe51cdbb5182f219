//! Grey-box: the analyst leaves the CPU to a busy move path (issue 22). The load's move count
//! is driven in-process (`app.arena.metrics.move_played`, which every stored move calls), so
//! the test has the count of a fast load without its CPU; the analyst's rest is read on
//! `/metrics`.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{Spawn, spawn_with};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn while_moves_come_fast_the_analyst_rests_and_analyses_the_game_once_they_slow() {
    let app = spawn_with(Spawn {
        analysis: true,
        analysis_playouts: 100_000,
        ..Spawn::default()
    })
    .await;
    // 1,000 moves a second, five times the rate from which the analyst rests.
    let load = Arc::new(AtomicBool::new(true));
    let driver = {
        let (metrics, load) = (app.arena.metrics.clone(), load.clone());
        tokio::spawn(async move {
            while load.load(Ordering::Relaxed) {
                for _ in 0..10 {
                    metrics.move_played(Duration::ZERO);
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
    };
    let (_, _, a) = app.player_with_bot("Pacer").await;
    let (_, _, b) = app.player_with_bot("Paced").await;
    let set = app.start_set(&a, &b, json!({"stake": 0})).await;
    // Game 1 resigned at once, game 2 after one move: three positions to analyse.
    app.lose_set(&b, &a, &set).await;

    let rest = "hexarena_analysis_rest_seconds_total";
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let rested = app.metric(rest).await.expect("the rest is exported");
        if rested >= 0.9 {
            break;
        }
        assert!(
            Instant::now() < until,
            "the analyst rested {rested} s in 30 s of fast moves"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    load.store(false, Ordering::Relaxed);
    driver.await.expect("the driver ends");

    // Once the moves stop, the analyst works on and finishes.
    let until = Instant::now() + Duration::from_secs(120);
    for n in [1, 2] {
        loop {
            let r = app.analysis(&set, n).await;
            assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
            if r.body["status"] == "ready" {
                let positions = r.body["win_prob"].as_array().map(Vec::len);
                assert_eq!(positions, Some(n as usize), "{:?}", r.body);
                break;
            }
            assert!(
                Instant::now() < until,
                "game {n} never analysed after the load"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}
