//! Money and ratings under load (SPEC sections 8 and 12): several players and bots play many
//! staked sets at once over HTTP, with random stakes, random legal moves (swaps included) and
//! random resignations, finishing in whatever order the races give. Afterwards no PTS was
//! made or lost, every balance is the sum of its ledger postings, every finished set was settled
//! exactly once, and every bot's statistics and Elo rating are what replaying the settled sets
//! in settlement order gives. Runs on SQLite, and on two instances sharing PostgreSQL
//! (HEXARENA_TEST_PG, as in tests/postgres.rs).
//!
//! The seed is printed; set HEXARENA_PROPERTY_SEED to replay the same choices.
//!
//! Grey-box (issue 19): the money and settlement checks sum the ledger and the players' rows in
//! the database (`app.arena.store.pool`), which no route shows as a whole.

mod common;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use common::{Spawn, TestApp, spawn_with};
use reqwest::StatusCode;
use serde_json::{Value, json};

const FEE_BPS: i64 = 250;
const START: i64 = 1000;
const SETS: usize = 16;

/// SplitMix64: small, seedable, good enough to pick moves.
#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

fn seed() -> u64 {
    std::env::var("HEXARENA_PROPERTY_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_0005)
}

#[derive(Clone, Debug)]
struct BotInfo {
    name: String,
    token: String,
    owner: usize,
}

/// The arena's instances (one on SQLite, two sharing PostgreSQL), picked at random per request.
struct Cluster {
    apps: Vec<TestApp>,
}

impl Cluster {
    fn pick(&self, rng: &mut Rng) -> &TestApp {
        &self.apps[rng.below(self.apps.len() as u64) as usize]
    }
}

/// What one set task ended with.
#[derive(Debug)]
enum Ended {
    /// Create refused for the creator's balance (409 insufficient_balance).
    NotCreated,
    /// Accept refused for a balance (409 insufficient_balance), then cancelled.
    Cancelled(String),
    Finished(String),
}

/// Creates, accepts and plays one set with random moves and resignations.
async fn run_set(
    cluster: Arc<Cluster>,
    bots: Arc<Vec<BotInfo>>,
    creator: usize,
    acceptor: usize,
    stake: i64,
    mut rng: Rng,
) -> Ended {
    tokio::time::sleep(Duration::from_millis(rng.below(30))).await;
    let (c, a) = (&bots[creator], &bots[acceptor]);
    let mut body = json!({"game": "hex", "stake": stake, "options": {"size": 9, "random_stones": rng.below(3)},
                          "clock": {"initial_s": 600, "increment_s": 10}});
    if rng.chance(50) {
        body["opponent"] = json!(a.name);
    }
    let r = cluster
        .pick(&mut rng)
        .create_set(Some(&c.token), body)
        .await;
    if r.status == StatusCode::CONFLICT && r.code() == "insufficient_balance" {
        return Ended::NotCreated;
    }
    assert_eq!(r.status, StatusCode::CREATED, "create: {:?}", r.body);
    let id = r.body["id"].as_str().expect("set id").to_string();
    tokio::time::sleep(Duration::from_millis(rng.below(30))).await;
    let r = cluster
        .pick(&mut rng)
        .accept_set(Some(&a.token), &id, json!({}))
        .await;
    if r.status == StatusCode::CONFLICT && r.code() == "insufficient_balance" {
        let r = cluster
            .pick(&mut rng)
            .cancel_set(Some(&c.token), &id, json!({}))
            .await;
        assert_eq!(r.status, StatusCode::OK, "cancel: {:?}", r.body);
        return Ended::Cancelled(id);
    }
    assert_eq!(r.status, StatusCode::OK, "accept: {:?}", r.body);
    for game_no in [1, 2] {
        // Game 1 seats the acceptor as seat 1, game 2 the creator.
        let tokens = if game_no == 1 {
            [&a.token, &c.token]
        } else {
            [&c.token, &a.token]
        };
        let resign_percent = rng.below(4);
        let mut state = cluster.pick(&mut rng).state(&id, game_no).await;
        assert_eq!(state["status"], "active", "game {game_no} of {id}: {state}");
        while state["status"] == "active" {
            if rng.below(3) == 0 {
                tokio::time::sleep(Duration::from_millis(rng.below(3))).await;
            }
            let app = cluster.pick(&mut rng);
            if rng.chance(resign_percent) {
                let seat = rng.below(2) as usize;
                let r = app
                    .resign(Some(tokens[seat]), &id, &game_no, json!({}))
                    .await;
                assert_eq!(r.status, StatusCode::OK, "resign: {:?}", r.body);
                state = r.body;
                break;
            }
            let seat = state["to_move"].as_u64().expect("someone on move") as usize;
            let legal = state["legal_moves"].as_array().expect("legal moves");
            let mv = legal[rng.below(legal.len() as u64) as usize].clone();
            let ply = state["ply"].as_i64().expect("ply") + 1;
            let r = app
                .play(tokens[seat - 1], &id, game_no, mv.clone(), Some(ply))
                .await;
            assert_eq!(
                r.status,
                StatusCode::OK,
                "move {mv} at ply {ply} of {id}/{game_no}: {:?}",
                r.body
            );
            state = r.body;
        }
        assert_eq!(state["status"], "finished", "{state}");
    }
    Ended::Finished(id)
}

/// Sums of one SQL query's single column.
async fn sum(c: &mut sqlx::AnyConnection, sql: &str, bind: Option<&str>) -> i64 {
    let q = sqlx::query_as(sqlx::AssertSqlSafe(sql.to_string()));
    let q = match bind {
        Some(b) => q.bind(b.to_string()),
        None => q,
    };
    let (v,): (Option<i64>,) = q
        .fetch_one(c)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    v.unwrap_or(0)
}

fn elo(ra: f64, rb: f64, score_a: f64) -> (f64, f64) {
    let ea = 1.0 / (1.0 + 10f64.powf((rb - ra) / 400.0));
    let eb = 1.0 / (1.0 + 10f64.powf((ra - rb) / 400.0));
    (
        ra + 32.0 * (score_a - ea),
        rb + 32.0 * ((1.0 - score_a) - eb),
    )
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Stats {
    rating: f64,
    sets: i64,
    w: i64,
    d: i64,
    l: i64,
    won: i64,
    net: i64,
}

/// Registers 4 players with 6 bots (two players own two bots each), plays [`SETS`] sets at
/// once, then checks the invariants.
async fn property(cluster: Cluster, seed: u64) {
    eprintln!(
        "stakes property: seed {seed} on {} instance(s)",
        cluster.apps.len()
    );
    let cluster = Arc::new(cluster);
    let mut rng = Rng(seed);
    let mut owners = vec![];
    let mut bots = vec![];
    for p in 0..4 {
        let app = cluster.pick(&mut rng);
        let (id, token) = app.player(&format!("player {p}")).await;
        for b in 0..if p < 2 { 2 } else { 1 } {
            let name = format!("Prop{p}x{b}");
            bots.push(BotInfo {
                token: app.bot(&token, &name).await,
                name,
                owner: p,
            });
        }
        owners.push((id, token));
    }
    // One extra grant so grants are not all equal.
    let r = cluster.apps[0]
        .create_grant(
            Some("op-secret"),
            json!({"player": owners[3].0, "amount": 250}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let bots = Arc::new(bots);

    let mut tasks = vec![];
    for _ in 0..SETS {
        let creator = rng.below(bots.len() as u64) as usize;
        let acceptor = loop {
            let a = rng.below(bots.len() as u64) as usize;
            if bots[a].owner != bots[creator].owner {
                break a;
            }
        };
        let stake = 10 + rng.below(141) as i64;
        let task_rng = Rng(rng.next());
        tasks.push(tokio::spawn(run_set(
            cluster.clone(),
            bots.clone(),
            creator,
            acceptor,
            stake,
            task_rng,
        )));
    }
    let mut ended = vec![];
    for t in futures_util::future::join_all(tasks).await {
        ended.push(t.expect("set task"));
    }
    let finished: Vec<&String> = ended
        .iter()
        .filter_map(|e| {
            if let Ended::Finished(id) = e {
                Some(id)
            } else {
                None
            }
        })
        .collect();
    let cancelled: Vec<&String> = ended
        .iter()
        .filter_map(|e| {
            if let Ended::Cancelled(id) = e {
                Some(id)
            } else {
                None
            }
        })
        .collect();
    eprintln!(
        "{} finished, {} cancelled for a balance, {} not created",
        finished.len(),
        cancelled.len(),
        SETS - finished.len() - cancelled.len()
    );
    assert!(
        finished.len() >= SETS / 2,
        "most sets are played: {ended:?}"
    );

    let app = &cluster.apps[0];
    let mut c = app.arena.store.pool.acquire().await.expect("connection");

    // Money: nothing made or lost; nothing left in escrow; no balance below zero.
    let balances = sum(
        &mut c,
        "SELECT CAST(SUM(balance) AS BIGINT) FROM players",
        None,
    )
    .await;
    let escrow = sum(
        &mut c,
        "SELECT CAST(SUM(amount) AS BIGINT) FROM ledger WHERE account LIKE 'escrow:%'",
        None,
    )
    .await;
    let fees = sum(
        &mut c,
        "SELECT CAST(SUM(amount) AS BIGINT) FROM ledger WHERE account = 'fees'",
        None,
    )
    .await;
    let grants = sum(
        &mut c,
        "SELECT CAST(SUM(amount) AS BIGINT) FROM ledger WHERE kind = 'grant' AND account LIKE 'player:%'",
        None,
    )
    .await;
    assert_eq!(grants, 4 * START + 250);
    assert_eq!(escrow, 0, "every set ended, so every escrow was paid out");
    assert_eq!(
        balances + escrow + fees,
        grants,
        "balances {balances} + escrow {escrow} + fees {fees} != grants {grants}"
    );
    let mint = sum(
        &mut c,
        "SELECT CAST(SUM(amount) AS BIGINT) FROM ledger WHERE account = 'mint'",
        None,
    )
    .await;
    assert_eq!(mint, -grants);
    let unbalanced = sum(&mut c, "SELECT COUNT(*) FROM (SELECT transfer_key FROM ledger GROUP BY transfer_key HAVING SUM(amount) <> 0) t", None).await;
    assert_eq!(unbalanced, 0, "every transfer sums to zero");

    // Each player's balance is the sum of its postings, from the database and over the API.
    for (id, token) in &owners {
        let me = app.get_player(Some(token)).await.body;
        let balance = me["balance"].as_i64().expect("balance");
        assert!(balance >= 0, "{id}: {balance}");
        assert_eq!(me["escrow"], 0);
        assert_eq!(
            balance,
            sum(
                &mut c,
                "SELECT CAST(SUM(amount) AS BIGINT) FROM ledger WHERE player_id = $1",
                Some(id)
            )
            .await,
            "{id}"
        );
        let ledger = app.ledger(Some(token), "limit=500").await.body;
        let postings = ledger["postings"].as_array().expect("postings");
        assert_eq!(
            postings
                .iter()
                .filter_map(|p| p["amount"].as_i64())
                .sum::<i64>(),
            balance,
            "{id}: {ledger}"
        );
        assert_eq!(ledger["next_before"], Value::Null);
    }

    // Cancelled sets moved no money.
    for id in &cancelled {
        assert_eq!(
            sum(
                &mut c,
                "SELECT COUNT(*) FROM ledger WHERE set_id = $1",
                Some(id)
            )
            .await,
            0,
            "{id}"
        );
        assert_eq!(app.get_set(&id).await.body["status"], "cancelled");
    }

    // Every finished set: one escrow and one settlement transfer, paid as its result says.
    // Replaying the sets in settlement order gives every bot's statistics and rating.
    let owner_id = |name: &str| {
        bots.iter()
            .find(|b| b.name == name)
            .map(|b| owners[b.owner].0.clone())
            .expect("bot")
    };
    let mut settled: Vec<(i64, Value)> = vec![];
    for id in &finished {
        let set = app.get_set(&id).await.body;
        assert_eq!(set["status"], "finished", "{set}");
        let keys: Vec<(String, i64)> = sqlx::query_as(
            "SELECT transfer_key, MIN(id) FROM ledger WHERE set_id = $1 GROUP BY transfer_key ORDER BY MIN(id)",
        )
        .bind(id.as_str())
        .fetch_all(&mut *c)
        .await
        .expect("keys");
        assert_eq!(
            keys.iter().map(|k| k.0.clone()).collect::<Vec<_>>(),
            [format!("escrow:{id}"), format!("settle:{id}")],
            "{id}"
        );
        assert_eq!(
            sum(
                &mut c,
                "SELECT CAST(SUM(amount) AS BIGINT) FROM ledger WHERE account = 'escrow:' || $1",
                Some(id)
            )
            .await,
            0
        );
        let stake = set["stake"].as_i64().expect("stake");
        let fee = 2 * stake * FEE_BPS / 10_000;
        let rows: Vec<(Option<String>, String, i64)> =
            sqlx::query_as("SELECT player_id, kind, amount FROM ledger WHERE transfer_key = $1 AND player_id IS NOT NULL ORDER BY player_id")
                .bind(format!("settle:{id}"))
                .fetch_all(&mut *c)
                .await
                .expect("settle rows");
        let (creator, acceptor) = (
            set["creator"].as_str().expect("creator"),
            set["acceptor"].as_str().expect("acceptor"),
        );
        match set["winner"].as_str() {
            Some(w) => {
                assert_eq!(
                    rows,
                    [(Some(owner_id(w)), "payout".to_string(), 2 * stake - fee)],
                    "{id}"
                );
                assert_eq!(set["settlement"]["fee"], fee);
                assert!(
                    set["result"] == format!("{w} wins")
                        || set["result"] == format!("{w} wins on the tiebreak"),
                    "{set}"
                );
            }
            None => {
                let mut want = vec![
                    (Some(owner_id(creator)), "refund".to_string(), stake),
                    (Some(owner_id(acceptor)), "refund".to_string(), stake),
                ];
                want.sort();
                assert_eq!(rows, want, "{id}");
                assert_eq!(set["result"], "draw");
                assert_eq!(set["points"][0], set["points"][1]);
            }
        }
        settled.push((keys[1].1, set));
    }
    assert_eq!(
        fees,
        settled
            .iter()
            .filter(|(_, s)| s["winner"].is_string())
            .map(|(_, s)| 2 * s["stake"].as_i64().unwrap_or(0) * FEE_BPS / 10_000)
            .sum::<i64>()
    );

    settled.sort_by_key(|(order, _)| *order);
    let mut stats: HashMap<String, Stats> = bots
        .iter()
        .map(|b| {
            (
                b.name.clone(),
                Stats {
                    rating: 1200.0,
                    ..Stats::default()
                },
            )
        })
        .collect();
    for (_, set) in &settled {
        let (cn, an) = (
            set["creator"].as_str().expect("creator"),
            set["acceptor"].as_str().expect("acceptor"),
        );
        let stake = set["stake"].as_i64().expect("stake");
        let gain = stake - 2 * stake * FEE_BPS / 10_000;
        let score = match set["winner"].as_str() {
            Some(w) if w == cn => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        };
        let (nc, na) = elo(stats[cn].rating, stats[an].rating, score);
        for (name, rating, s) in [(cn, nc, score), (an, na, 1.0 - score)] {
            let st = stats.get_mut(name).expect("bot");
            st.rating = rating;
            st.sets += 1;
            if s == 1.0 {
                st.w += 1;
                st.won += gain;
                st.net += gain;
            } else if s == 0.0 {
                st.l += 1;
                st.net -= stake;
            } else {
                st.d += 1;
            }
        }
    }
    let mut rating_sum = 0.0;
    for b in bots.iter() {
        let p = app.get_bot(&b.name).await.body;
        let want = &stats[&b.name];
        let got = Stats {
            rating: p["rating_exact"].as_f64().expect("rating"),
            sets: p["sets"].as_i64().expect("sets"),
            w: p["w"].as_i64().expect("w"),
            d: p["d"].as_i64().expect("d"),
            l: p["l"].as_i64().expect("l"),
            won: p["won"].as_i64().expect("won"),
            net: p["net"].as_i64().expect("net"),
        };
        rating_sum += got.rating;
        assert!(
            (got.rating - want.rating).abs() < 1e-6,
            "{}: rating {} != replayed {}",
            b.name,
            got.rating,
            want.rating
        );
        assert_eq!(
            Stats {
                rating: want.rating,
                ..got
            },
            *want,
            "{}",
            b.name
        );
    }
    assert!(
        (rating_sum - 1200.0 * bots.len() as f64).abs() < 1e-6,
        "Elo is zero-sum: {rating_sum}"
    );

    // The leaderboard lists the same numbers, by rating.
    let board = app
        .leaderboard(&format!("game=hex&limit={}", bots.len()))
        .await
        .body;
    let rows = board["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), bots.len());
    for (i, row) in rows.iter().enumerate() {
        let name = row["bot"].as_str().expect("bot");
        let st = &stats[name];
        assert_eq!(row["rank"], i + 1);
        assert_eq!(row["rating"], st.rating.round() as i64, "{name}");
        assert_eq!(
            (
                row["sets"].as_i64(),
                row["w"].as_i64(),
                row["d"].as_i64(),
                row["l"].as_i64()
            ),
            (Some(st.sets), Some(st.w), Some(st.d), Some(st.l))
        );
        assert_eq!(
            (row["won"].as_i64(), row["net"].as_i64()),
            (Some(st.won), Some(st.net))
        );
        if i > 0 {
            let prev = &stats[rows[i - 1]["bot"].as_str().expect("bot")];
            assert!(
                prev.rating >= st.rating - 1e-9,
                "ordered by rating: {rows:?}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_random_staked_sets_conserve_money_and_settle_each_set_exactly_once() {
    let app = spawn_with(Spawn {
        fee_bps: FEE_BPS,
        ..Spawn::default()
    })
    .await;
    property(Cluster { apps: vec![app] }, seed()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_random_staked_sets_on_two_instances_sharing_postgres_conserve_money_and_ratings()
 {
    let Some(url) = common::fresh_pg_db().await else {
        return;
    };
    let spawn = || Spawn {
        fee_bps: FEE_BPS,
        database_url: Some(url.clone()),
        ..Spawn::default()
    };
    let apps = vec![spawn_with(spawn()).await, spawn_with(spawn()).await];
    property(Cluster { apps }, seed() ^ 0x9e37).await;
}
