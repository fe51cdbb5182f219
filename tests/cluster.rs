//! Three instances over one PostgreSQL database behave as one arena (issue 13; SPEC sections
//! 12, 13; docs/multi-instance.md): moves made on one instance wake waiters on the others
//! without polling, a move raced to all three is applied once, timeouts end a game once even
//! when the instance that held it is killed, and a listener connection cut by the database is
//! re-opened without losing a wake-up. Needs TEST_DATABASE_URL (skipped, saying so, without).

mod common;
use common::paths;

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::sse::{EventStream, SseEvent, SseItem, SseParser};
use common::{Spawn, TestApp, fresh_pg_db, seat_tokens, spawn_with};
use reqwest::StatusCode;
use serde_json::{Value, json};
use sqlx::Connection;

/// A wake-up across instances must arrive within this (generous: shared, noisy machines).
const WAKE_BOUND: Duration = Duration::from_secs(2);

async fn instances(url: &str, n: usize) -> Vec<TestApp> {
    let mut apps = Vec::new();
    for _ in 0..n {
        apps.push(
            spawn_with(Spawn {
                database_url: Some(url.to_string()),
                ..Spawn::default()
            })
            .await,
        );
    }
    apps
}

async fn db(url: &str) -> sqlx::AnyConnection {
    sqlx::any::install_default_drivers();
    sqlx::AnyConnection::connect(url).await.expect("database")
}

async fn count(c: &mut sqlx::AnyConnection, sql: &str, set_id: &str) -> i64 {
    let (n,): (i64,) = sqlx::query_as(sqlx::AssertSqlSafe(sql.to_string()))
        .bind(set_id)
        .fetch_one(c)
        .await
        .expect("count");
    n
}

/// The cells of a game that never ends: seat 1 fills rows 0 and 2, seat 2 rows 4 and 6, each
/// without column 8, so no group touches both of its edges (32 plies on a 9x9 board).
fn quiet_move(ply: i64) -> Value {
    let k = ply - 1;
    let (seat, i) = (k % 2, k / 2); // i in 0..16
    let row = if seat == 0 { 0 } else { 4 } + 2 * (i / 8);
    json!({"cell": [row, i % 8]})
}

/// An open event stream read chunk by chunk.
struct Stream {
    resp: reqwest::Response,
    parser: SseParser,
    items: VecDeque<SseItem>,
}

impl Stream {
    async fn open(app: &TestApp, path: &str, token: Option<&str>) -> Stream {
        let mut rb = app.http.get(format!("{}{path}", app.url));
        if let Some(t) = token {
            rb = rb.bearer_auth(t);
        }
        let resp = rb.send().await.expect("stream opens");
        assert_eq!(resp.status(), StatusCode::OK);
        Stream {
            resp,
            parser: SseParser::new(),
            items: VecDeque::new(),
        }
    }

    /// The next event (id, kind, data), or None after `within` without one.
    async fn next(&mut self, within: Duration) -> Option<(i64, String, Value)> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            while let Some(item) = self.items.pop_front() {
                if let SseItem::Event(SseEvent { id, event, data }) = item {
                    let id = id.expect("id").parse().expect("numeric id");
                    return Some((id, event, serde_json::from_str(&data).expect("json")));
                }
            }
            match tokio::time::timeout_at(deadline, self.resp.chunk()).await {
                Ok(Ok(Some(bytes))) => self.items.extend(self.parser.push(&bytes)),
                Ok(Ok(None)) => panic!("stream closed"),
                Ok(Err(e)) => panic!("stream read: {e}"),
                Err(_) => return None,
            }
        }
    }
}

/// Long-polls `app` for game 1 of `set_id` past `after_ply`; returns the state and when it came.
fn poll(app: &TestApp, set_id: &str, after_ply: i64) -> tokio::task::JoinHandle<(Instant, Value)> {
    let url = format!(
        "{}{}",
        app.url,
        paths::with_query(
            paths::game(set_id, 1),
            &format!("after_ply={after_ply}&wait_s=30")
        )
    );
    let http = app.http.clone();
    tokio::spawn(async move {
        let r = http.get(url).send().await.expect("poll");
        let body: Value = r.json().await.expect("json");
        (Instant::now(), body)
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_move_on_one_instance_wakes_long_polls_and_streams_on_the_others_within_a_bound() {
    let Some(url) = fresh_pg_db().await else {
        return;
    };
    let apps = instances(&url, 3).await;
    let (_, _, alpha) = apps[0].player_with_bot("ClAlpha").await;
    let (_, _, beta) = apps[1].player_with_bot("ClBeta").await;
    let set_id = apps[2]
        .start_set(
            &alpha,
            &beta,
            json!({"options": {"size": 9, "random_stones": 0}, "clock": {"initial_s": 600}, "stake": 20}),
        )
        .await;
    let s = apps[0].state(&set_id, 1).await;
    let tokens = seat_tokens(&s, &[("ClAlpha", &alpha), ("ClBeta", &beta)]);
    // Both streams live on instance 2; moves are made on 0 and 1 (and 2 now and then).
    let mut game_stream = Stream::open(&apps[2], &paths::game_events(&set_id, 1), None).await;
    let (_, kind, first) = game_stream
        .next(Duration::from_secs(5))
        .await
        .expect("state on connect");
    assert_eq!((kind.as_str(), first["ply"].as_i64()), ("state", Some(0)));
    let mut seat2_stream = Stream::open(&apps[2], &paths::bot_events(), Some(tokens[1])).await;

    let mut lags = Vec::new();
    let mut last_id = 0;
    for ply in 1..=24i64 {
        let mover = &apps[(ply as usize) % 3];
        let waiter = &apps[(ply as usize + 1) % 3];
        let pending = poll(waiter, &set_id, ply - 1);
        tokio::time::sleep(Duration::from_millis(30)).await; // the poll is waiting
        let seat = usize::from(ply % 2 == 0);
        let r = mover
            .play(tokens[seat], &set_id, 1, quiet_move(ply), Some(ply))
            .await;
        assert_eq!(r.status, StatusCode::OK, "ply {ply}: {:?}", r.body);
        let moved = Instant::now();
        let (woke, body) = tokio::time::timeout(WAKE_BOUND * 2, pending)
            .await
            .expect("the waiter woke")
            .expect("join");
        assert_eq!(body["ply"], ply, "the waiter got the new state");
        lags.push(woke.saturating_duration_since(moved));
        // The public stream on instance 2 gets this ply, in order, none skipped.
        let (id, kind, st) = game_stream.next(WAKE_BOUND).await.expect("stream event");
        assert_eq!((kind.as_str(), st["ply"].as_i64()), ("state", Some(ply)));
        assert!(id > last_id, "ids increase: {id} after {last_id}");
        last_id = id;
        if seat == 0 {
            // Seat 2 is now on move: its own stream says so with this very state.
            let (_, kind, ev) = seat2_stream.next(WAKE_BOUND).await.expect("your_turn");
            assert_eq!(
                (kind.as_str(), ev["state"]["ply"].as_i64()),
                ("your_turn", Some(ply))
            );
        }
    }
    lags.sort();
    let worst = lags.last().copied().unwrap_or_default();
    eprintln!(
        "cross-instance wake: median {:?}, worst {:?} over {} moves",
        lags[lags.len() / 2],
        worst,
        lags.len()
    );
    assert!(worst < WAKE_BOUND, "worst wake {worst:?}");
    // Every move is stored once.
    let mut c = db(&url).await;
    let n = count(
        &mut c,
        "SELECT COUNT(*) FROM moves WHERE set_num = (SELECT num FROM sets WHERE sets.id = $1)",
        &set_id,
    )
    .await;
    assert_eq!(n, 24);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_same_move_raced_to_three_instances_is_applied_once() {
    let Some(url) = fresh_pg_db().await else {
        return;
    };
    let apps = instances(&url, 3).await;
    let (_, _, alpha) = apps[0].player_with_bot("RaceAlpha").await;
    let (_, _, beta) = apps[1].player_with_bot("RaceBeta").await;
    let set_id = apps[2]
        .start_set(
            &alpha,
            &beta,
            json!({"options": {"size": 9, "random_stones": 0}}),
        )
        .await;
    let s = apps[0].state(&set_id, 1).await;
    let tokens = seat_tokens(&s, &[("RaceAlpha", &alpha), ("RaceBeta", &beta)]);
    for ply in 1..=6i64 {
        let seat = usize::from(ply % 2 == 0);
        let calls = apps
            .iter()
            .map(|a| a.play(tokens[seat], &set_id, 1, quiet_move(ply), Some(ply)));
        let answers = futures_util::future::join_all(calls).await;
        for r in &answers {
            // A retry of the move that took effect is the same success (SPEC 6, 14).
            assert_eq!(r.status, StatusCode::OK, "ply {ply}: {:?}", r.body);
            assert_eq!(r.body["ply"], ply);
        }
    }
    for a in &apps {
        assert_eq!(a.state(&set_id, 1).await["ply"], 6);
    }
    let mut c = db(&url).await;
    assert_eq!(
        count(
            &mut c,
            "SELECT COUNT(*) FROM moves WHERE set_num = (SELECT num FROM sets WHERE sets.id = $1)",
            &set_id
        )
        .await,
        6
    );
    assert_eq!(
        count(
            &mut c,
            "SELECT COUNT(*) FROM events WHERE set_num = (SELECT num FROM sets WHERE id = $1) \
             AND kind = 'state'",
            &set_id
        )
        .await,
        7,
        "one state event per move, plus the start"
    );
}

/// State GETs on PostgreSQL check the game they hold against its row, and concurrent checks
/// share one statement (issue 22): every GET that starts after a move's 2xx, on any instance,
/// answers with that move, however many ask at once, even when no notice of the move came;
/// several games' checks in one statement answer each its own game; an unknown game is still
/// a 404.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_state_gets_on_every_instance_answer_with_the_last_committed_move() {
    let Some(url) = fresh_pg_db().await else {
        return;
    };
    let apps = instances(&url, 2).await;
    let (_, _, alpha) = apps[0].player_with_bot("GetAlpha").await;
    let (_, _, beta) = apps[1].player_with_bot("GetBeta").await;
    let options = json!({"options": {"size": 9, "random_stones": 0}});
    let one = apps[0].start_set(&alpha, &beta, options.clone()).await;
    let two = apps[1].start_set(&beta, &alpha, options).await;
    let names = [("GetAlpha", alpha.as_str()), ("GetBeta", beta.as_str())];
    let s1 = apps[0].state(&one, 1).await;
    let t1 = seat_tokens(&s1, &names);
    let s2 = apps[1].state(&two, 1).await;
    let t2 = seat_tokens(&s2, &names);
    // Both instances hold both games.
    for a in &apps {
        assert_eq!(a.state(&one, 1).await["ply"], 0);
        assert_eq!(a.state(&two, 1).await["ply"], 0);
    }
    let mut c = db(&url).await;
    for ply in 1..=8i64 {
        let seat = usize::from(ply % 2 == 0);
        // No notice tells the other instance of these moves (its listening connection is cut
        // and comes back only after a pause): only the check against the row can.
        sqlx::query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = current_database() AND query LIKE 'LISTEN%' \
             AND pid <> pg_backend_pid()",
        )
        .execute(&mut c)
        .await
        .expect("terminate");
        // Game one moves on instance 0, game two on instance 1 (one ply behind after the
        // first), so each instance's held copy of the other's game is stale until checked.
        let r = apps[0]
            .play(t1[seat], &one, 1, quiet_move(ply), Some(ply))
            .await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        if ply > 1 {
            let r = apps[1]
                .play(t2[1 - seat], &two, 1, quiet_move(ply - 1), Some(ply - 1))
                .await;
            assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        }
        let gets = (0..24).map(|k| {
            let app = &apps[k % 2];
            let set_id = if k % 3 == 0 { &two } else { &one };
            async move { (set_id, app.get(&paths::game(set_id, 1)).await) }
        });
        for (set_id, r) in futures_util::future::join_all(gets).await {
            assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
            let want = if *set_id == one { ply } else { ply - 1 };
            assert_eq!(r.body["ply"], want, "set {set_id} after ply {ply}");
        }
    }
    let r = apps[1].get(&paths::game(&one, 3)).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{:?}", r.body);
}

/// The state of a game without its clock (the one part that depends on when it is read).
fn without_clock(mut state: Value) -> Value {
    if let Some(o) = state.as_object_mut() {
        o.remove("clock");
    }
    state
}

/// A copy of a game that another instance moved on is brought up to date by reading only the
/// moves it lacks (issue 22), and what it then serves is what a whole load serves: moves on
/// alternating instances, each answered state equal on both and on a third instance started
/// afresh, moves with a bot's info included; a resignation (the game no longer active) is
/// loaded whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_copy_another_instance_moved_on_catches_up_and_serves_what_a_whole_load_serves() {
    let Some(url) = fresh_pg_db().await else {
        return;
    };
    let apps = instances(&url, 2).await;
    let (_, _, alpha) = apps[0].player_with_bot("UpAlpha").await;
    let (_, _, beta) = apps[1].player_with_bot("UpBeta").await;
    let set_id = apps[0]
        .start_set(
            &alpha,
            &beta,
            json!({"options": {"size": 9, "random_stones": 2}}),
        )
        .await;
    let s = apps[0].state(&set_id, 1).await;
    let tokens = seat_tokens(&s, &[("UpAlpha", &alpha), ("UpBeta", &beta)]);
    assert_eq!(
        without_clock(apps[1].state(&set_id, 1).await),
        without_clock(s.clone()),
        "both hold the started game"
    );
    let empty: Vec<Value> = s["legal_moves"]
        .as_array()
        .expect("legal moves")
        .iter()
        .filter(|m| m.get("cell").is_some())
        .cloned()
        .collect();
    let caught_before = [
        apps[0].metric("hexarena_games_caught_up_total").await,
        apps[1].metric("hexarena_games_caught_up_total").await,
    ];
    for ply in 1..=10i64 {
        let seat = usize::from(ply % 2 == 0);
        let mover = &apps[(ply % 2) as usize];
        // Five stones a seat cannot connect two edges of a 9x9 board: no ply ends the game.
        let mv = empty[(ply as usize * 7) % empty.len()].clone();
        let info = format!(r#"{{"comment": "ply {ply}", "eval": 0.5}}"#);
        let r = mover
            .play_with_info(tokens[seat], &set_id, 1, mv, Some(ply), &info)
            .await;
        assert_eq!(r.status, StatusCode::OK, "ply {ply}: {:?}", r.body);
        let answered = without_clock(r.body);
        for (k, app) in apps.iter().enumerate() {
            let st = without_clock(app.state(&set_id, 1).await);
            assert_eq!(st, answered, "instance {k} after ply {ply}");
        }
    }
    for (k, app) in apps.iter().enumerate() {
        let caught = app.metric("hexarena_games_caught_up_total").await;
        assert!(
            caught.unwrap_or(0.0) > caught_before[k].unwrap_or(0.0),
            "instance {k} caught its copy up at least once: {caught:?}"
        );
    }
    let fresh = instances(&url, 1).await;
    let whole = without_clock(fresh[0].state(&set_id, 1).await);
    assert_eq!(whole["ply"], 10);
    assert_eq!(whole, without_clock(apps[0].state(&set_id, 1).await));
    // An ending is not caught up but loaded whole, on every instance alike.
    let r = apps[1]
        .post(&paths::resign(&set_id, 1), Some(tokens[0]), json!({}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let ended = without_clock(fresh[0].state(&set_id, 1).await);
    assert_eq!(ended["status"], "finished");
    for (k, app) in apps.iter().enumerate() {
        assert_eq!(
            without_clock(app.state(&set_id, 1).await),
            ended,
            "instance {k}"
        );
    }
}

/// A server process of its own, so it can be killed; returns it and its URL.
fn spawn_process(url: &str) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hexarena"))
        .args(["serve", "--bind", "127.0.0.1:0", "--house-bots", "false"])
        .env("DATABASE_URL", url)
        .env("ARENA_REGISTER_PER_MIN", "10000")
        .env("ARENA_SETS_PER_MIN", "10000")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("server process starts");
    let out = child.stdout.take().expect("stdout");
    let mut out = BufReader::new(out);
    let mut line = String::new();
    out.read_line(&mut line).expect("first line");
    // Keep reading, so the process never writes into a closed pipe.
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    let addr = line
        .trim()
        .rsplit(' ')
        .next()
        .expect("listening on URL")
        .to_string();
    (child, addr)
}

/// Plays plies 1 and 2 of game 1 so seat 1 runs on its 10 s clock; returns the deadline (ms).
async fn start_clock(app: &TestApp, set_id: &str, tokens: [&str; 2]) -> i64 {
    for ply in 1..=2 {
        let seat = usize::from(ply % 2 == 0);
        let r = app
            .play(tokens[seat], set_id, 1, quiet_move(ply), Some(ply))
            .await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    }
    let s = app.state(set_id, 1).await;
    let deadline = s["clock"]["deadline"].as_str().expect("deadline");
    chrono::DateTime::parse_from_rfc3339(deadline)
        .expect("rfc3339")
        .timestamp_millis()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_game_times_out_once_with_three_instances_and_also_when_its_instance_is_killed() {
    let Some(url) = fresh_pg_db().await else {
        return;
    };
    let apps = instances(&url, 3).await;
    let (mut child, child_url) = spawn_process(&url);
    let body = json!({"options": {"size": 9, "random_stones": 0}, "clock": {"initial_s": 10, "increment_s": 0},
                      "stake": 20});
    // Set A: all three in-process instances run; set B is played on the process then killed.
    let (_, pa, alpha) = apps[0].player_with_bot("ToAlpha").await;
    let (_, pb, beta) = apps[1].player_with_bot("ToBeta").await;
    let (_, _, gamma) = apps[2].player_with_bot("ToGamma").await;
    let (_, _, delta) = apps[0].player_with_bot("ToDelta").await;
    let set_a = apps[0].start_set(&alpha, &beta, body.clone()).await;
    let s = apps[1].state(&set_a, 1).await;
    let tokens_a = seat_tokens(&s, &[("ToAlpha", &alpha), ("ToBeta", &beta)]);
    let deadline_a = start_clock(&apps[2], &set_a, tokens_a).await;

    let http = reqwest::Client::new();
    let post = |path: String, token: &str, body: Value| {
        http.post(format!("{child_url}{path}"))
            .bearer_auth(token)
            .json(&body)
            .send()
    };
    let r = post(paths::sets(), &gamma, {
        let mut b = body.clone();
        b["game"] = json!("hex");
        b
    })
    .await
    .expect("create");
    assert_eq!(r.status(), StatusCode::CREATED);
    let set_b = r.json::<Value>().await.expect("json")["id"]
        .as_str()
        .expect("id")
        .to_string();
    let r = post(paths::accept(&set_b), &delta, json!({}))
        .await
        .expect("accept");
    assert_eq!(r.status(), StatusCode::OK);
    let s = apps[0].state(&set_b, 1).await;
    let tokens_b = seat_tokens(&s, &[("ToGamma", &gamma), ("ToDelta", &delta)]);
    for ply in 1..=2i64 {
        let seat = usize::from(ply % 2 == 0);
        let r = post(
            paths::with_query(paths::moves(&set_b, 1), &format!("ply={ply}")),
            tokens_b[seat],
            quiet_move(ply),
        )
        .await
        .expect("move");
        assert_eq!(r.status(), StatusCode::OK);
    }
    let s = apps[0].state(&set_b, 1).await;
    let deadline_b =
        chrono::DateTime::parse_from_rfc3339(s["clock"]["deadline"].as_str().expect("deadline"))
            .expect("rfc3339")
            .timestamp_millis();
    // The instance that played set B dies before its deadline.
    child.kill().expect("kill");
    let _ = child.wait();

    for (set_id, deadline) in [(&set_a, deadline_a), (&set_b, deadline_b)] {
        let (_, body) = tokio::time::timeout(Duration::from_secs(30), poll(&apps[1], set_id, 2))
            .await
            .expect("the game ended")
            .expect("join");
        assert_eq!(body["status"], "finished", "{body}");
        assert_eq!(body["result"]["reason"], "timeout");
        assert_eq!(body["result"]["winner"], 2);
        let mut c = db(&url).await;
        let (finished_ms,): (i64,) =
            sqlx::query_as("SELECT finished_ms FROM games WHERE set_id = $1 AND game_no = 1")
                .bind(set_id.as_str())
                .fetch_one(&mut c)
                .await
                .expect("finished");
        let late = finished_ms - deadline;
        eprintln!("set {set_id}: ended {late} ms after its deadline");
        assert!(
            (0..1_000).contains(&late),
            "ended {late} ms after the deadline"
        );
    }
    // End both sets (game 2 resigned) and check every row exists once.
    for (set_id, bots) in [(&set_a, [&alpha, &beta]), (&set_b, [&gamma, &delta])] {
        let s = apps[2].state(set_id, 2).await;
        assert_eq!(s["status"], "active");
        let r = apps[2]
            .resign(Some(bots[0].as_str()), &set_id, 2, json!({}))
            .await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        let set = apps[0].get_set(&set_id).await.body;
        assert_eq!(set["status"], "finished");
        let mut c = db(&url).await;
        assert_eq!(
            count(
                &mut c,
                "SELECT COUNT(*) FROM games WHERE set_id = $1 AND reason = 'timeout'",
                set_id
            )
            .await,
            1
        );
        assert_eq!(
            count(
                &mut c,
                "SELECT COUNT(*) FROM moves WHERE set_num = (SELECT num FROM sets WHERE sets.id = $1)",
                set_id
            )
            .await,
            2
        );
        assert_eq!(
            count(
                &mut c,
                "SELECT COUNT(*) FROM events WHERE set_num = (SELECT num FROM sets WHERE id = $1) \
             AND kind = 'set_finished'",
                set_id
            )
            .await,
            2,
            "one set_finished per bot"
        );
        // Escrow (two stakes in, one leg each way) and settlement (pot out, winner in): once.
        assert_eq!(
            count(
                &mut c,
                "SELECT COUNT(*) FROM ledger WHERE transfer_key = 'settle:' || $1",
                set_id
            )
            .await,
            2
        );
        let (sum,): (i64,) = sqlx::query_as("SELECT COALESCE(SUM(amount), 0)::BIGINT FROM ledger")
            .fetch_one(&mut c)
            .await
            .expect("sum");
        assert_eq!(sum, 0, "the ledger balances");
    }
    // Each set had one winner of the pot: 20 won by one player, lost by the other.
    let balances = [apps[0].balance(&pa).await, apps[0].balance(&pb).await];
    let mut sorted = balances;
    sorted.sort_unstable();
    assert_eq!(sorted[0] + sorted[1], 2000, "{balances:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_listener_connection_killed_by_the_database_comes_back_and_no_wake_up_is_lost() {
    let Some(url) = fresh_pg_db().await else {
        return;
    };
    let apps = instances(&url, 2).await;
    let (_, _, alpha) = apps[0].player_with_bot("LsAlpha").await;
    let (_, _, beta) = apps[0].player_with_bot("LsBeta").await;
    let set_id = apps[0]
        .start_set(
            &alpha,
            &beta,
            json!({"options": {"size": 9, "random_stones": 0}}),
        )
        .await;
    let s = apps[0].state(&set_id, 1).await;
    let tokens = seat_tokens(&s, &[("LsAlpha", &alpha), ("LsBeta", &beta)]);
    // Read over `GET /metrics`, as an operator would.
    let listener = "hexarena_change_listener_connections_total";
    let connections_before = apps[1]
        .metric(listener)
        .await
        .expect("the listener counter");
    assert!(connections_before >= 1.0);
    let mut c = db(&url).await;
    for ply in 1..=4i64 {
        let pending = poll(&apps[1], &set_id, ply - 1);
        tokio::time::sleep(Duration::from_millis(50)).await;
        // Cut every listening connection to this database, then move at once.
        let (killed,): (i64,) = sqlx::query_as(
            "SELECT COUNT(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = current_database() AND query LIKE 'LISTEN%' \
             AND pid <> pg_backend_pid()) t",
        )
        .fetch_one(&mut c)
        .await
        .expect("terminate");
        assert!(killed >= 1, "a listener was found and cut");
        let seat = usize::from(ply % 2 == 0);
        let r = apps[0]
            .play(tokens[seat], &set_id, 1, quiet_move(ply), Some(ply))
            .await;
        assert_eq!(r.status, StatusCode::OK);
        let (_, body) = tokio::time::timeout(Duration::from_secs(10), pending)
            .await
            .expect("the waiter woke although its instance's listener was cut")
            .expect("join");
        assert_eq!(body["ply"], ply);
    }
    assert!(
        apps[1]
            .metric(listener)
            .await
            .expect("the listener counter")
            > connections_before,
        "the listener reconnected"
    );
    // And pushed wake-ups work again once reconnected.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pending = poll(&apps[1], &set_id, 4);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let r = apps[0]
        .play(tokens[0], &set_id, 1, quiet_move(5), Some(5))
        .await;
    assert_eq!(r.status, StatusCode::OK);
    let moved = Instant::now();
    let (woke, body) = pending.await.expect("join");
    assert_eq!(body["ply"], 5);
    assert!(woke.saturating_duration_since(moved) < WAKE_BOUND);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_public_stream_of_one_instance_hears_sets_made_and_ended_on_another() {
    let Some(url) = fresh_pg_db().await else {
        return;
    };
    let apps = instances(&url, 2).await;
    let (_, _, alpha) = apps[0].player_with_bot("PubAlpha").await;
    let (_, _, beta) = apps[0].player_with_bot("PubBeta").await;
    let mut public = EventStream::open(&apps[1], &paths::public_events(), None, None).await;
    // The public stream's events carry no ids: (kind, data) of the next one.
    async fn next(s: &mut EventStream, within: Duration) -> Option<(String, Value)> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if let SseItem::Event(e) = s.next_item(left).await? {
                return Some((e.event, serde_json::from_str(&e.data).expect("json")));
            }
        }
    }
    // Everything happens on instance 0.
    let set_id = apps[0]
        .start_set(
            &alpha,
            &beta,
            json!({"options": {"size": 9, "random_stones": 0}, "stake": 20}),
        )
        .await;
    let mut heard = Vec::new();
    while let Some((kind, data)) = next(&mut public, Duration::from_millis(1500)).await {
        assert_eq!(kind, "set");
        heard.push(data["set_id"].clone());
    }
    assert!(
        heard.iter().any(|s| *s == json!(set_id)),
        "the set's creation and start reach instance 1's public stream: {heard:?}"
    );
    // A plain move is not news for the lists; a resignation that ends game 1 is.
    let s = apps[0].state(&set_id, 1).await;
    let tokens = seat_tokens(&s, &[("PubAlpha", &alpha), ("PubBeta", &beta)]);
    let r = apps[0]
        .play(tokens[0], &set_id, 1, quiet_move(1), Some(1))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(next(&mut public, Duration::from_millis(700)).await, None);
    let r = apps[0].resign(Some(tokens[1]), &set_id, 1, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let (kind, data) = next(&mut public, WAKE_BOUND * 4)
        .await
        .expect("game 1's end reaches the other instance's public stream");
    assert_eq!((kind.as_str(), &data["set_id"]), ("set", &json!(set_id)));
}

/// Stop 35's breaker (F5): on a database already set up, two instances started at once with
/// house bots both registered the missing rungs, and one exited on `name_taken`. They take
/// turns now: both start, and each rung has one bot and one owner.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_instances_starting_at_once_register_each_house_bot_once() {
    let Some(url) = fresh_pg_db().await else {
        return;
    };
    // Migrated by an instance without house bots, as the tester had it.
    let first = instances(&url, 1).await;
    let house = || {
        spawn_with(Spawn {
            database_url: Some(url.clone()),
            house_bots: true,
            ..Spawn::default()
        })
    };
    let (a, b) = tokio::join!(house(), house());
    assert_ne!(a.url, b.url);
    let mut c = db(&url).await;
    let one = |sql: &'static str| sqlx::query_as::<_, (i64,)>(sql);
    let (random,) = one("SELECT COUNT(*) FROM bots WHERE name = 'house-random'")
        .fetch_one(&mut c)
        .await
        .expect("count");
    assert_eq!(random, 1);
    let (bots,) = one("SELECT COUNT(*) FROM bots WHERE house <> 0")
        .fetch_one(&mut c)
        .await
        .expect("count");
    let (owners,) = one("SELECT COUNT(*) FROM players WHERE house <> 0")
        .fetch_one(&mut c)
        .await
        .expect("count");
    assert!(bots >= 4, "{bots} house bots");
    assert_eq!(
        owners, bots,
        "one owner per house bot, none left without one"
    );
    drop(first);
}

/// A lone instance on `url` with a set between two new bots (`names`), its first `plies`
/// moves played after the instance has looked for others and found none (it looks once a
/// second): (the instance, the set id, the seats' tokens).
async fn lone_game(url: &str, names: [&str; 2], plies: i64) -> (TestApp, String, [String; 2]) {
    let lone = instances(url, 1).await.remove(0);
    let (_, _, alpha) = lone.player_with_bot(names[0]).await;
    let (_, _, beta) = lone.player_with_bot(names[1]).await;
    let set_id = lone
        .start_set(
            &alpha,
            &beta,
            json!({"options": {"size": 9, "random_stones": 0}, "clock": {"initial_s": 600}}),
        )
        .await;
    let s = lone.state(&set_id, 1).await;
    let tokens = seat_tokens(&s, &[(names[0], &alpha), (names[1], &beta)]).map(str::to_string);
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    for ply in 1..=plies {
        let seat = usize::from(ply % 2 == 0);
        let r = lone
            .play(&tokens[seat], &set_id, 1, quiet_move(ply), Some(ply))
            .await;
        assert_eq!(r.status, StatusCode::OK, "ply {ply}: {:?}", r.body);
    }
    (lone, set_id, tokens)
}

/// Plays `plies` of game 1, odd plies on `a` and even ones on `b`, each awaited by a long-poll
/// on the other instance, which must wake with that ply within [`WAKE_BOUND`].
async fn moves_wake_across(
    (a, b): (&TestApp, &TestApp),
    set_id: &str,
    tokens: &[String; 2],
    plies: std::ops::RangeInclusive<i64>,
) {
    for ply in plies {
        let (mover, waiter) = if ply % 2 == 1 { (a, b) } else { (b, a) };
        let pending = poll(waiter, set_id, ply - 1);
        tokio::time::sleep(Duration::from_millis(30)).await; // the poll is waiting
        let seat = usize::from(ply % 2 == 0);
        let r = mover
            .play(&tokens[seat], set_id, 1, quiet_move(ply), Some(ply))
            .await;
        assert_eq!(r.status, StatusCode::OK, "ply {ply}: {:?}", r.body);
        let (_, body) = tokio::time::timeout(WAKE_BOUND, pending)
            .await
            .unwrap_or_else(|_| panic!("ply {ply}: the waiter on the other instance never woke"))
            .expect("join");
        assert_eq!(body["ply"], ply, "the waiter got the new state");
    }
}

/// Issue 22: an instance alone on the database leaves its change notices out (they cost the
/// database a transaction each and nobody would hear them), and one that joins misses no
/// move: it waits until the lone one announces every change, and moves either side make
/// wake the other's waiters.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_lone_instance_leaves_its_notices_out_and_one_that_joins_misses_no_move() {
    let Some(url) = fresh_pg_db().await else {
        return;
    };
    let (lone, set_id, tokens) = lone_game(&url, ["LoneAlpha", "LoneBeta"], 4).await;
    let left_out = lone
        .metric("hexarena_change_notices_left_out_total")
        .await
        .expect("metric");
    assert!(
        left_out >= 4.0,
        "a lone instance sent its notices: {left_out} left out"
    );

    // A second instance joins and is asked at once to wait for the next move, which the one
    // that was alone makes: it must wake (the lone instance's window has passed by then).
    let joined = instances(&url, 1).await.remove(0);
    moves_wake_across((&lone, &joined), &set_id, &tokens, 5..=8).await;
    assert_eq!(
        lone.metric("hexarena_change_notices_left_out_total").await,
        Some(left_out),
        "no notice is left out once another instance runs"
    );
}

/// The outside breaker's case (stop 36): an instance starting while a transaction holds the
/// `instances` table wrote its row with a time already stale (its own recovery waited behind
/// the lock, and so did the lone instance's heartbeat). The lone instance then counted it as
/// dead and left out a notice after it began serving. The newcomer now writes its heartbeat
/// afresh and waits while another instance was alive moments ago.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_newcomer_whose_row_waited_behind_a_lock_is_seen_before_it_serves() {
    let Some(url) = fresh_pg_db().await else {
        return;
    };
    let (lone, set_id, tokens) = lone_game(&url, ["LockAlpha", "LockBeta"], 2).await;
    // A transaction holds the table for 4 s: the newcomer's recovery (`LOCK TABLE`) queues
    // behind it, and the lone instance's heartbeat behind that.
    let mut blocker = db(&url).await;
    let held = tokio::spawn(async move {
        let mut tx = blocker.begin().await.expect("begin");
        sqlx::query("UPDATE instances SET heartbeat_ms = heartbeat_ms WHERE id = 'nobody'")
            .execute(&mut *tx)
            .await
            .expect("update");
        tokio::time::sleep(Duration::from_secs(4)).await;
        tx.commit().await.expect("commit");
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let joined = instances(&url, 1).await.remove(0);
    held.await.expect("blocker");
    let left_out = lone
        .metric("hexarena_change_notices_left_out_total")
        .await
        .expect("metric");
    moves_wake_across((&lone, &joined), &set_id, &tokens, 3..=6).await;
    assert_eq!(
        lone.metric("hexarena_change_notices_left_out_total").await,
        Some(left_out),
        "a notice was left out while the newcomer served"
    );
}
