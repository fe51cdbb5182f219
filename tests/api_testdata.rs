//! The recorded games of `crates/hex/tests/data/*.jsonl` replayed through the HTTP API, as two
//! bots would play them: every move is accepted, each game ends with the recorded winner exactly
//! at the recorded ply, and a record that stops with the game running leaves it active.
//!
//! Consecutive finished records of one size are played as game 1 and game 2 of one set; a record
//! without a partner is game 1 of its own set, whose game 2 is then resigned.
//!
//! A debug build spends about 10 ms of CPU per move over HTTP, so by default each file replays a
//! sample (its first records plus its shortest and longest game; every edge case). Set
//! `HEX_API_TESTDATA=all` to replay every record of every file.

mod common;

use common::{Spawn, TestApp, seat_tokens, spawn_with};
use futures_util::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Sets replayed at the same time (the HTTP and JSON work overlaps; SQLite writes queue).
const PARALLEL_SETS: usize = 4;

struct Replay {
    app: TestApp,
    alpha: String,
    bravo: String,
}

impl Replay {
    async fn new() -> Replay {
        // A large balance: a file holds up to 75 staked sets lost by either bot.
        let app = spawn_with(Spawn {
            starting_balance: 1_000_000,
            ..Spawn::default()
        })
        .await;
        let (_, _, alpha) = app.player_with_bot("Alpha").await;
        let (_, _, bravo) = app.player_with_bot("Bravo").await;
        Replay { app, alpha, bravo }
    }

    fn bots(&self) -> [(&str, &str); 2] {
        [
            ("Alpha", self.alpha.as_str()),
            ("Bravo", self.bravo.as_str()),
        ]
    }

    /// Plays every move of `rec` in game `game_no` of `set_id` and checks the outcome.
    async fn replay(&self, set_id: &str, game_no: i64, rec: &Value, label: &str) {
        let app = &self.app;
        let state = app.state(set_id, game_no).await;
        assert_eq!(
            state["status"], "active",
            "{label}: game {game_no} is running"
        );
        assert_eq!(state["ply"], 0, "{label}");
        assert_eq!(state["opening"], json!([]), "{label}: no random stones");
        let bots = self.bots();
        let tokens = seat_tokens(&state, &bots);
        let moves = rec["moves"].as_array().expect("moves");
        let mut last = state;
        for (i, mv) in moves.iter().enumerate() {
            assert_eq!(
                last["status"],
                "active",
                "{label}: the game ended before move {}",
                i + 1
            );
            // Seat 1 makes the odd plies, seat 2 the even ones (a swap is seat 2's move too).
            let ply = i as i64 + 1;
            let r = app
                .play(tokens[i % 2], set_id, game_no, mv.clone(), Some(ply))
                .await;
            assert_eq!(
                r.status,
                StatusCode::OK,
                "{label}: move {ply} {mv} refused: {:?}",
                r.body
            );
            assert_eq!(r.body["ply"], ply, "{label}");
            last = r.body;
        }
        let ply = rec["ply"].as_i64().expect("ply");
        assert_eq!(last["ply"], ply, "{label}");
        match rec["winner"].as_u64() {
            Some(w) => {
                assert_eq!(
                    last["status"], "finished",
                    "{label}: the game ends at ply {ply}"
                );
                assert_eq!(last["result"]["winner"], w, "{label}");
                assert_eq!(last["result"]["reason"], "connection", "{label}");
                let path = last["board"]["winning_path"]
                    .as_array()
                    .expect("a winning path");
                assert!(!path.is_empty(), "{label}");
            }
            None => {
                assert_eq!(
                    last["status"], "active",
                    "{label}: the game is still running"
                );
                assert_eq!(last["result"], Value::Null, "{label}");
                let seat = (moves.len() % 2) as u64 + 1;
                assert_eq!(last["to_move"], seat, "{label}");
                if let Some(exp) = rec.get("expect_after") {
                    check_expectations(&last, exp, label);
                }
            }
        }
    }

    /// Starts a set for `size` with no random stones; Alpha creates, Bravo accepts.
    async fn new_set(&self, size: u64) -> String {
        let body = json!({"options": {"size": size, "random_stones": 0}, "clock": {"initial_s": 600, "increment_s": 10}});
        self.app.start_set(&self.alpha, &self.bravo, body).await
    }

    /// One set: `first` as game 1 and `second` (if any) as game 2.
    async fn play_set(&self, first: &(usize, Value), second: Option<&(usize, Value)>, file: &str) {
        let size = first.1["size"].as_u64().expect("size");
        let set_id = self.new_set(size).await;
        self.replay(
            &set_id,
            1,
            &first.1,
            &format!("{file} line {}", first.0 + 1),
        )
        .await;
        if first.1["winner"].is_null() {
            return;
        }
        match second {
            Some((line, rec)) => {
                self.replay(&set_id, 2, rec, &format!("{file} line {}", line + 1))
                    .await;
                let set = self.app.get_set(&set_id).await.body;
                assert_eq!(
                    set["status"],
                    "finished",
                    "{file} lines {} and {}",
                    first.0 + 1,
                    line + 1
                );
                let games = set["games"].as_array().expect("games");
                assert_eq!(games[0]["ply"], first.1["ply"]);
                assert_eq!(games[1]["ply"], rec["ply"]);
            }
            None => {
                let g2 = self.app.state(&set_id, 2).await;
                let token = seat_tokens(&g2, &self.bots())[0];
                let r = self.app.resign(Some(token), &set_id, 2, json!({})).await;
                assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
            }
        }
    }
}

/// Checks an edge case's `expect_after` (stones by seat, seat on move, edges by seat).
fn check_expectations(state: &Value, exp: &Value, label: &str) {
    let cells = &state["board"]["cells"];
    for (key, seat) in [("seat1_stones", 1), ("seat2_stones", 2)] {
        if let Some(list) = exp[key].as_array() {
            let mut found = vec![];
            for (r, row) in cells.as_array().expect("rows").iter().enumerate() {
                for (c, v) in row.as_array().expect("row").iter().enumerate() {
                    if *v == seat {
                        found.push(json!([r, c]));
                    }
                }
            }
            let mut want = list.clone();
            want.sort_by_key(Value::to_string);
            found.sort_by_key(Value::to_string);
            assert_eq!(found, want, "{label}: {key}");
        }
    }
    if !exp["to_move"].is_null() {
        assert_eq!(state["to_move"], exp["to_move"], "{label}");
    }
    if let Some(edges) = exp["edges"].as_object() {
        for (seat, e) in edges {
            let i: usize = seat.parse().expect("seat number");
            assert_eq!(
                &state["seats"][i - 1]["edges"],
                e,
                "{label}: edges of seat {seat}"
            );
        }
    }
}

/// A record with its line index.
type Record = (usize, Value);

/// Pairs the records of a file into sets: consecutive finished records of one size share a set.
fn pair_up(records: Vec<Value>) -> Vec<(Record, Option<Record>)> {
    let mut out = vec![];
    let mut it = records.into_iter().enumerate().peekable();
    while let Some(first) = it.next() {
        let pairs = |next: &(usize, Value)| {
            !first.1["winner"].is_null()
                && !next.1["winner"].is_null()
                && next.1["size"] == first.1["size"]
        };
        let second = it.next_if(pairs);
        out.push((first, second));
    }
    out
}

/// The records to replay: all of them with `HEX_API_TESTDATA=all`, else the first `first` ones
/// plus the shortest and the longest game, in file order.
fn sample(records: Vec<Value>, first: usize) -> Vec<Value> {
    if std::env::var("HEX_API_TESTDATA").is_ok_and(|v| v == "all")
        || records.len() <= first.saturating_add(2)
    {
        return records;
    }
    let len = |i: &usize| records[*i]["moves"].as_array().map_or(0, Vec::len);
    let shortest = (0..records.len()).min_by_key(len).expect("records");
    let longest = (0..records.len()).max_by_key(len).expect("records");
    let mut keep: Vec<usize> = (0..first).chain([shortest, longest]).collect();
    keep.sort_unstable();
    keep.dedup();
    keep.into_iter().map(|i| records[i].clone()).collect()
}

async fn replay_file(file: &str, first: usize) {
    let records = sample(common::testdata(file), first);
    assert!(!records.is_empty(), "{file} has records");
    let total = records.len();
    let r = Replay::new().await;
    let sets = pair_up(records);
    let played: usize = sets.iter().map(|(_, b)| 1 + usize::from(b.is_some())).sum();
    assert_eq!(played, total, "every record is played");
    for chunk in sets.chunks(PARALLEL_SETS) {
        join_all(chunk.iter().map(|(a, b)| r.play_set(a, b.as_ref(), file))).await;
    }
}

#[tokio::test]
async fn the_recorded_9x9_games_replay_through_the_api_with_the_same_winners() {
    replay_file("games_9.jsonl", 4).await;
}

#[tokio::test]
async fn the_recorded_11x11_games_replay_through_the_api_with_the_same_winners() {
    replay_file("games_11.jsonl", 4).await;
}

#[tokio::test]
async fn the_recorded_11x11_games_with_a_swap_replay_through_the_api_with_the_same_winners() {
    replay_file("games_11_swap.jsonl", 4).await;
}

#[tokio::test]
async fn the_recorded_13x13_games_replay_through_the_api_with_the_same_winners() {
    replay_file("games_13.jsonl", 2).await;
}

#[tokio::test]
async fn the_recorded_19x19_games_replay_through_the_api_with_the_same_winners() {
    replay_file("games_19.jsonl", 0).await;
}

#[tokio::test]
async fn the_edge_case_records_replay_through_the_api_and_unfinished_ones_stay_active() {
    replay_file("edge_cases.jsonl", usize::MAX).await;
}
