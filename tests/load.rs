//! Correctness under load (issue 9): the real `hexarena` binary serves a fresh SQLite file while
//! `hexarena bench` plays concurrent sets against it for a few seconds; then every state the
//! server serves must match the replay of its own moves, every stored game must replay through
//! the engine to its stored board and result, and the ledger must balance.

use std::collections::BTreeMap;
use std::process::Command;

mod common;
use common::paths;

use common::process::Server;
use hex::{Cell, Move, Position};
use hexarena_contract::GameState;
use reqwest::StatusCode;
use serde_json::{Value, json};
use sqlx::Connection;

const STARTING_BALANCE: i64 = 1000;

async fn get(http: &reqwest::Client, url: String) -> Value {
    let res = http.get(&url).send().await.expect("GET answers");
    assert_eq!(res.status(), StatusCode::OK, "GET {url}");
    res.json().await.expect("JSON body")
}

/// Every started set (active or finished), paging through `next_before`.
async fn all_sets(http: &reqwest::Client, url: &str) -> Vec<Value> {
    let mut out = vec![];
    for status in ["active", "finished"] {
        let mut before = String::new();
        loop {
            let page = get(
                http,
                format!(
                    "{url}{}",
                    paths::with_query(paths::sets(), &format!("status={status}&limit=100{before}"))
                ),
            )
            .await;
            out.extend(page["sets"].as_array().cloned().unwrap_or_default());
            match page["next_before"].as_str() {
                Some(b) => before = format!("&before={b}"),
                None => break,
            }
        }
    }
    out
}

fn cells_json(cells: &[Cell]) -> Value {
    Value::Array(cells.iter().map(|c| json!([c.row, c.col])).collect())
}

/// A game row with its set's opening, as stored.
#[derive(sqlx::FromRow)]
struct StoredGame {
    set_id: String,
    game_no: i64,
    status: String,
    board: String,
    ply: i64,
    winner_seat: Option<i64>,
    opening: Option<String>,
}

/// A value of a `/metrics` line such as `name{labels} 12`.
fn metric(text: &str, prefix: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(prefix)?.trim().parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_load_run_leaves_replayable_games_served_states_that_match_and_a_balanced_ledger() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A fee, so the ledger check covers it.
    let balance = STARTING_BALANCE.to_string();
    let server = Server::start(
        dir.path(),
        0,
        &[
            "--house-bots",
            "false",
            "--fee-bps",
            "1000",
            "--starting-balance",
            &balance,
        ],
        &[],
    )
    .await;

    // The load: 6 games of size 9 (short, so whole sets finish and pay out) on three pairs of
    // players (2 games per pair), about 8 s of moves.
    let out = Command::new(env!("CARGO_BIN_EXE_hexarena"))
        .arg("bench")
        .args(["--url", &server.url])
        .args(["--games", "6", "--seconds", "8", "--read-seconds", "1"])
        .args(["--size", "9"])
        .args(["--games-per-pair", "2"])
        .output()
        .expect("bench runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "bench failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let last = stdout.lines().last().expect("bench prints");
    let report: Value = serde_json::from_str(last).expect("the last line is JSON");
    let keys: Vec<&str> = report
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    for k in [
        "moves_per_s",
        "healthz_rps",
        "ratio",
        "state_get_rps",
        "p50_ms",
        "p90_ms",
        "p99_ms",
        "max_ms",
        "server_rss_kib",
        "games",
        "moves",
        "server_cpu_us_per_move",
        "analysis_cpu_us_per_move",
        "bytes_per_move",
        "lone_p50_ms",
        "lone_p99_ms",
        "lone_moves",
    ] {
        assert!(keys.contains(&k), "{k} missing from {last}");
    }
    assert_eq!(keys.len(), 17, "exactly the documented keys: {last}");
    assert!(
        report["server_cpu_us_per_move"]
            .as_f64()
            .is_some_and(|c| c > 0.0),
        "{last}"
    );
    // The data the moves added, from the server's `hexarena_database_bytes` (no --db-file
    // given): every move is a row, so the database grew.
    assert!(
        report["bytes_per_move"].as_f64().is_some_and(|b| b > 0.0),
        "{last}"
    );
    // The analyst's share is a part of the server's CPU, never more.
    let analysis_cpu = report["analysis_cpu_us_per_move"].as_f64();
    let server_cpu = report["server_cpu_us_per_move"].as_f64();
    assert!(
        analysis_cpu
            .zip(server_cpu)
            .is_some_and(|(a, s)| (0.0..=s).contains(&a)),
        "{last}"
    );
    // Every acknowledged move, the move phase's and the lone game's (its fifth phase).
    let lone_moves = report["lone_moves"].as_u64().expect("lone_moves");
    assert!(lone_moves > 0, "the lone game played: {last}");
    let bench_moves = report["moves"].as_u64().expect("moves") + lone_moves;
    assert!(
        bench_moves >= 30,
        "too few moves to test anything: {stdout}"
    );
    assert_eq!(report["games"], 6);
    assert!(report["healthz_rps"].as_f64().is_some_and(|r| r > 0.0));
    assert!(report["state_get_rps"].as_f64().is_some_and(|r| r > 0.0));
    assert!(report["server_rss_kib"].as_u64().is_some_and(|k| k > 1024));
    let p50 = report["p50_ms"].as_f64().expect("p50");
    let p99 = report["p99_ms"].as_f64().expect("p99");
    let max = report["max_ms"].as_f64().expect("max");
    assert!(0.0 < p50 && p50 <= p99 && p99 <= max, "{last}");
    let errors = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("errors"))
        .and_then(|v| v.trim().parse::<u64>().ok());
    assert_eq!(errors, Some(0), "no request of the bench failed: {stdout}");

    // The server counted exactly the moves the bench saw acknowledged.
    let http = reqwest::Client::new();
    let metrics = http
        .get(format!("{}/metrics", server.url))
        .send()
        .await
        .expect("metrics answer")
        .text()
        .await
        .expect("metrics text");
    let posted = metric(
        &metrics,
        &format!(
            r#"hexarena_http_requests_total{{route="{}",method="POST",status="200"}}"#,
            paths::MOVES_ROUTE
        ),
    );
    assert_eq!(posted, Some(bench_moves as f64), "{metrics}");
    assert_eq!(metric(&metrics, "hexarena_waiting_long_polls "), Some(0.0));
    assert_eq!(metric(&metrics, "hexarena_open_event_streams "), Some(0.0));

    // Every state served is the replay of its own move list; remember what was served.
    let sets = all_sets(&http, &server.url).await;
    assert!(
        sets.len() >= 6,
        "the bench started a set per game: {}",
        sets.len()
    );
    let mut served: BTreeMap<(String, i64), Value> = BTreeMap::new();
    let mut active = 0;
    for s in &sets {
        let id = s["id"].as_str().expect("set id").to_string();
        for n in 1..=2i64 {
            let state = get(&http, format!("{}{}", server.url, paths::game(&id, n))).await;
            if state["status"] == "pending" {
                assert_eq!(state["ply"], 0, "a pending game has no moves: {state}");
                continue;
            }
            let typed: GameState = serde_json::from_value(state.clone())
                .unwrap_or_else(|e| panic!("{id} game {n} is not a contract game state: {e}"));
            let pos = hexarena_client::position::position_of(&typed)
                .unwrap_or_else(|e| panic!("{id} game {n} does not replay: {e}"));
            assert_eq!(state["board"]["cells"], json!(pos.cells()), "{id} {n}");
            let path = pos.winning_path().map(|p| cells_json(&p));
            assert_eq!(
                state["board"]["winning_path"],
                path.unwrap_or(Value::Null),
                "{id} {n}"
            );
            match state["status"].as_str() {
                Some("active") => {
                    active += 1;
                    assert!(pos.outcome().is_none(), "{id} {n} is won but active");
                    let to_move = pos.to_move().map(|s| u64::from(s.number()));
                    assert_eq!(state["to_move"].as_u64(), to_move, "{id} {n}");
                    let legal = state["legal_moves"].as_array().map_or(0, Vec::len);
                    assert_eq!(legal, pos.legal_moves().len(), "{id} {n}");
                }
                Some("finished") => {
                    assert_eq!(state["result"]["reason"], "connection", "{id} {n}");
                    let winner = pos.outcome().and_then(|o| o.winner()).map(|s| s.number());
                    assert_eq!(
                        state["result"]["winner"].as_u64(),
                        winner.map(u64::from),
                        "{id} {n}"
                    );
                }
                other => panic!("{id} {n}: status {other:?}"),
            }
            served.insert((id.clone(), n), state);
        }
    }
    assert!(active >= 1, "the bench leaves games in progress");
    assert_eq!(
        metric(&metrics, "hexarena_active_games "),
        Some(f64::from(active)),
        "{metrics}"
    );

    // The stored truth, read after a kill -9 (a 2xx must survive it).
    drop(server);
    let db = format!("sqlite://{}/a.db", dir.path().display());
    let mut c = sqlx::SqliteConnection::connect(&db).await.expect("open db");
    let games: Vec<StoredGame> = sqlx::query_as(
        "SELECT g.set_id, g.game_no, g.status, g.board, g.ply, g.winner_seat, s.opening \
         FROM games g JOIN sets s ON s.id = g.set_id ORDER BY g.set_id, g.game_no",
    )
    .fetch_all(&mut c)
    .await
    .expect("games");
    let mut stored_moves = 0;
    for StoredGame {
        set_id,
        game_no,
        status,
        board,
        ply,
        winner_seat,
        opening,
    } in &games
    {
        let moves: Vec<(i64, Option<i64>, Option<i64>, i64)> = sqlx::query_as(
            "SELECT ply, cell_row, cell_col, swap FROM moves \
             WHERE set_num = (SELECT num FROM sets WHERE sets.id = $1) AND game_no = $2 ORDER BY ply",
        )
        .bind(set_id)
        .bind(game_no)
        .fetch_all(&mut c)
        .await
        .expect("moves");
        stored_moves += moves.len();
        let key = (set_id.clone(), *game_no);
        if status == "pending" {
            assert!(moves.is_empty(), "{key:?}");
            continue;
        }
        let opening: Vec<[u8; 2]> =
            serde_json::from_str(opening.as_deref().expect("an active set has an opening"))
                .expect("opening JSON");
        let opening: Vec<Cell> = opening.into_iter().map(Cell::from).collect();
        let size = Position::from_compact(board).expect("stored board").size();
        let mut pos = Position::with_opening(size, &opening).expect("opening");
        for (i, (n, r, col, swap)) in moves.iter().enumerate() {
            assert_eq!(*n, i as i64 + 1, "{key:?}: plies are 1, 2, 3, ...");
            let mv = if *swap != 0 {
                Move::Swap
            } else {
                let (Some(r), Some(col)) = (r, col) else {
                    panic!("{key:?} ply {n}: neither a cell nor a swap")
                };
                Move::Place(Cell::new(
                    u8::try_from(*r).expect("row"),
                    u8::try_from(*col).expect("col"),
                ))
            };
            pos.play(mv)
                .unwrap_or_else(|e| panic!("{key:?} ply {n}: the engine refuses {mv:?}: {e}"));
        }
        assert_eq!(i64::from(pos.ply()), *ply, "{key:?}: stored ply");
        assert_eq!(&pos.to_compact(), board, "{key:?}: stored board");
        match status.as_str() {
            "finished" => assert_eq!(
                pos.outcome()
                    .and_then(|o| o.winner())
                    .map(|s| i64::from(s.number())),
                *winner_seat,
                "{key:?}: stored winner"
            ),
            "active" => assert!(pos.outcome().is_none(), "{key:?}: won but stored active"),
            other => panic!("{key:?}: status {other}"),
        }
        // What the server served is what it stored.
        let state = served
            .get(&key)
            .unwrap_or_else(|| panic!("{key:?} not served"));
        assert_eq!(state["ply"].as_i64(), Some(*ply), "{key:?}");
        let served_cells: Vec<Value> = state["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| m["cell"].clone())
            .collect();
        let stored_cells: Vec<Value> = moves
            .iter()
            .map(|(_, r, col, _)| match (r, col) {
                (Some(r), Some(col)) => json!([r, col]),
                _ => Value::Null,
            })
            .collect();
        assert_eq!(served_cells, stored_cells, "{key:?}: served moves");
    }
    assert_eq!(
        stored_moves as u64, bench_moves,
        "every acknowledged move is stored, once"
    );

    // The ledger: each balance is the sum of its postings, finished escrows are empty, and all
    // balances plus escrow plus fees equal the grants.
    let players: Vec<(String, i64)> = sqlx::query_as("SELECT id, balance FROM players")
        .fetch_all(&mut c)
        .await
        .expect("players");
    assert_eq!(players.len(), 6, "three pairs of players");
    let mut balances = 0;
    for (id, balance) in &players {
        let (sum,): (i64,) = sqlx::query_as(
            "SELECT COALESCE(SUM(amount), 0) FROM ledger WHERE account = 'player:' || $1",
        )
        .bind(id)
        .fetch_one(&mut c)
        .await
        .expect("postings");
        assert_eq!(
            *balance, sum,
            "player {id}: balance is the sum of its postings"
        );
        assert!(*balance >= 0);
        balances += balance;
    }
    let sum_of = |sql: &'static str| sqlx::query_as::<_, (i64,)>(sql);
    let (escrow,) =
        sum_of("SELECT COALESCE(SUM(amount), 0) FROM ledger WHERE account LIKE 'escrow:%'")
            .fetch_one(&mut c)
            .await
            .expect("escrow");
    let (fees,) = sum_of("SELECT COALESCE(SUM(amount), 0) FROM ledger WHERE account = 'fees'")
        .fetch_one(&mut c)
        .await
        .expect("fees");
    let (grants,) = sum_of("SELECT COALESCE(-SUM(amount), 0) FROM ledger WHERE account = 'mint'")
        .fetch_one(&mut c)
        .await
        .expect("grants");
    let (finished_escrow,) = sum_of(
        "SELECT COALESCE(SUM(l.amount), 0) FROM ledger l JOIN sets s \
         ON l.account = 'escrow:' || s.id WHERE s.status = 'finished'",
    )
    .fetch_one(&mut c)
    .await
    .expect("finished escrow");
    let (active_stakes,) =
        sum_of("SELECT COALESCE(SUM(2 * stake), 0) FROM sets WHERE status = 'active'")
            .fetch_one(&mut c)
            .await
            .expect("active stakes");
    let (finished_sets,) = sum_of("SELECT COUNT(*) FROM sets WHERE status = 'finished'")
        .fetch_one(&mut c)
        .await
        .expect("finished sets");
    assert!(finished_sets >= 1, "some sets finished and paid out");
    assert!(fees > 0, "the 10% fee was taken on finished sets");
    assert_eq!(
        grants,
        STARTING_BALANCE * players.len() as i64,
        "one grant each"
    );
    assert_eq!(finished_escrow, 0, "a finished set's escrow is paid out");
    assert_eq!(escrow, active_stakes, "active sets hold both stakes");
    assert_eq!(balances + escrow + fees, grants, "the ledger balances");
    eprintln!(
        "checked {} stored games ({active} active, {finished_sets} sets finished), {stored_moves} \
         moves; ledger: balances {balances} + escrow {escrow} + fees {fees} = grants {grants}",
        games.len()
    );
}
