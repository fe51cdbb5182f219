//! The matchmaking pool (issue 20), black-box: bots join with `POST /v1/pool` and the arena
//! starts sets for them that nobody asked for, never against the pool's rules (agents.md,
//! "The matchmaking pool"): no staked set between one owner's bots, no pair twice in a row
//! while another partner is in the pool, at most the hourly cap per pair, each bot's capacity
//! and declared accepts. Refusals change nothing (pool_greybox.rs, which plants strikes).

mod common;
use common::paths;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

use common::sse::EventStream;
use common::{Spawn, TestApp, round_trip, spawn_with};
use hexarena_contract::{PoolEntry, PoolList, SetView};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// A bot of the test: its name and token.
struct Bot {
    name: &'static str,
    token: String,
}

async fn pool(app: &TestApp) -> PoolList {
    let r = app.list_pool().await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    round_trip(&r.body)
}

async fn join(app: &TestApp, token: &str, body: Value) -> PoolEntry {
    let r = app.join_pool(Some(token), body).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    round_trip(&r.body)
}

/// Online for the presence window (SPEC 14): one long-poll that returns at once.
async fn show_up(app: &TestApp, token: &str) {
    let r = app.get_turn(Some(token), "").await;
    assert!(r.status.is_success(), "{:?}", r.body);
}

/// Every pool set, oldest first (by creation, then id, as the arena orders them).
async fn pool_sets(app: &TestApp) -> Vec<SetView> {
    let mut out = vec![];
    let mut before: Option<String> = None;
    loop {
        let q = before
            .as_deref()
            .map(|b| format!("&before={b}"))
            .unwrap_or_default();
        let r = app.list_sets(&format!("limit=100{q}")).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        for row in r.body["sets"].as_array().expect("sets") {
            if row["pool"] == json!(true) {
                out.push(app.set_view(row["id"].as_str().expect("id")).await);
            }
        }
        match r.body["next_before"].as_str() {
            Some(b) => before = Some(b.to_string()),
            None => break,
        }
    }
    out.sort_by(|a, b| (&a.created_at, &a.id).cmp(&(&b.created_at, &b.id)));
    out
}

fn key(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.into(), b.into())
    } else {
        (b.into(), a.into())
    }
}

/// The most sets `bot` had in play at one moment, from the sets' start and finish times
/// (RFC 3339 with milliseconds, so they compare as text).
fn most_at_once(sets: &[SetView], bot: &str) -> usize {
    let mine: Vec<(&str, &str)> = sets
        .iter()
        .filter(|s| s.creator == bot || s.acceptor.as_deref() == Some(bot))
        .map(|s| {
            (
                s.started_at.as_deref().expect("started"),
                s.finished_at.as_deref().expect("finished"),
            )
        })
        .collect();
    mine.iter()
        .map(|(start, _)| mine.iter().filter(|(s, f)| s <= start && start < f).count())
        .max()
        .unwrap_or(0)
}

#[tokio::test]
async fn six_bots_in_the_pool_play_sets_nobody_asked_for_and_never_against_the_rules() {
    const CAP: i64 = 2;
    let app = spawn_with(Spawn {
        pool_pair_sets_per_hour: CAP,
        ..Spawn::default()
    })
    .await;
    // Ada and Bob share an owner; the others have one each.
    let (_, shared) = app.player("pool owner").await;
    let mut bots = vec![
        Bot {
            name: "PoolAda",
            token: app.bot(&shared, "PoolAda").await,
        },
        Bot {
            name: "PoolBob",
            token: app.bot(&shared, "PoolBob").await,
        },
    ];
    for name in ["PoolCid", "PoolDee", "PoolEve", "PoolFay"] {
        let (_, _, token) = app.player_with_bot(name).await;
        bots.push(Bot { name, token });
    }
    let token = |name: &str| {
        bots.iter()
            .find(|b| b.name == name)
            .map(|b| b.token.clone())
            .expect("a test bot")
    };
    // Cid plays two sets at once; Eve accepts 9x9 boards only; Fay asks for 13x13.
    let r = app
        .declare_bot(Some(&token("PoolCid")), json!({"max_concurrent_sets": 2}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let r = app
        .declare_bot(
            Some(&token("PoolEve")),
            json!({"accepts": {"sizes": [9, 9]}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    for b in &bots {
        show_up(&app, &b.token).await;
    }
    for b in &bots {
        let body = if b.name == "PoolFay" {
            json!({"stake": 10, "options": {"size": 13}})
        } else {
            json!({"stake": 10})
        };
        let e = join(&app, &b.token, body).await;
        assert_eq!((e.bot.as_str(), e.stake, e.rated), (b.name, 10, true));
    }
    let listed = pool(&app).await;
    let names: HashSet<&str> = listed.entries.iter().map(|e| e.bot.as_str()).collect();
    assert_eq!(names.len(), 6, "{listed:?}");
    assert_eq!(listed.rules.pair_sets_per_hour, CAP);

    // Who may meet: not Ada and Bob (one owner, staked), not Eve and Fay (9 against 13).
    let all: Vec<&str> = bots.iter().map(|b| b.name).collect();
    let forbidden = [key("PoolAda", "PoolBob"), key("PoolEve", "PoolFay")];
    let mut allowed = vec![];
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            if !forbidden.contains(&key(a, b)) {
                allowed.push(key(a, b));
            }
        }
    }
    let expected = allowed.len() * CAP as usize;

    // Play every set the pool starts (the acceptor resigns both games) until the pool has
    // made every allowed pair play its hourly cap.
    let mut played: HashSet<String> = HashSet::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(150);
    let mut seen_at = tokio::time::Instant::now();
    loop {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the pool made {} of {expected} sets",
            played.len()
        );
        if seen_at.elapsed() > Duration::from_secs(20) {
            for b in &bots {
                show_up(&app, &b.token).await;
            }
            seen_at = tokio::time::Instant::now();
        }
        let r = app.list_sets("status=active&limit=100").await;
        let active: Vec<Value> = r.body["sets"].as_array().cloned().unwrap_or_default();
        if active.is_empty() && played.len() >= expected {
            break;
        }
        if active.is_empty() {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        }
        for s in active {
            assert_eq!(
                s["pool"],
                json!(true),
                "a set nobody but the pool made: {s}"
            );
            let id = s["id"].as_str().expect("id").to_string();
            let creator = s["creator"].as_str().expect("creator");
            let acceptor = s["acceptor"].as_str().expect("acceptor");
            app.lose_set(&token(acceptor), &token(creator), &id).await;
            played.insert(id);
        }
    }
    // Two more passes find nothing left to pair.
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let sets = pool_sets(&app).await;
    assert_eq!(sets.len(), expected, "no set past the hourly caps");
    assert!(
        sets.iter()
            .all(|s| s.status == hexarena_contract::SetStatus::Finished),
        "every pool set finished"
    );

    let mut per_pair: BTreeMap<(String, String), i64> = BTreeMap::new();
    for s in &sets {
        let acceptor = s.acceptor.as_deref().expect("acceptor");
        *per_pair.entry(key(&s.creator, acceptor)).or_default() += 1;
        assert_eq!((s.stake, s.rated, s.pool), (10, true, Some(true)));
        // The board fits both: Eve's sets are 9x9, Fay's 13x13, the rest the default 11.
        let size = if [s.creator.as_str(), acceptor].contains(&"PoolEve") {
            9
        } else if [s.creator.as_str(), acceptor].contains(&"PoolFay") {
            13
        } else {
            11
        };
        assert_eq!(s.options.size, size, "{} against {acceptor}", s.creator);
    }
    for pair in &forbidden {
        assert_eq!(per_pair.get(pair), None, "{pair:?} must never meet");
    }
    for pair in &allowed {
        assert_eq!(
            per_pair.get(pair),
            Some(&CAP),
            "{pair:?} plays the hourly cap"
        );
    }

    // No pair twice in a row for a bot while it had another partner under the cap.
    let mut count: HashMap<(String, String), i64> = HashMap::new();
    let mut last: HashMap<String, String> = HashMap::new();
    for s in &sets {
        let (a, b) = (s.creator.clone(), s.acceptor.clone().expect("acceptor"));
        for (x, y) in [(&a, &b), (&b, &a)] {
            if last.get(x) == Some(y) {
                let other = allowed
                    .iter()
                    .filter(|p| (&p.0 == x || &p.1 == x) && !(&p.0 == y || &p.1 == y))
                    .find(|p| count.get(*p).copied().unwrap_or(0) < CAP);
                assert!(
                    other.is_none(),
                    "{x} met {y} twice in a row while {other:?} was open"
                );
            }
        }
        *count.entry(key(&a, &b)).or_default() += 1;
        last.insert(a.clone(), b.clone());
        last.insert(b, a);
    }

    // Capacity: Cid two sets at once at most, every other bot one.
    for b in &all {
        let cap = if *b == "PoolCid" { 2 } else { 1 };
        let most = most_at_once(&sets, b);
        assert!((1..=cap).contains(&most), "{b} had {most} sets at once");
    }

    // Every pool set was announced on the bots' streams: Ada's stream, read from its start.
    let ada_sets: HashSet<&str> = sets
        .iter()
        .filter(|s| s.creator == "PoolAda" || s.acceptor.as_deref() == Some("PoolAda"))
        .map(|s| s.id.as_str())
        .collect();
    let mut stream = EventStream::open(
        &app,
        &paths::bot_events(),
        Some(&token("PoolAda")),
        Some("0"),
    )
    .await;
    let mut announced = HashSet::new();
    while announced.len() < ada_sets.len() {
        let Some((_, kind, data)) = stream.next_event_within(Duration::from_secs(5)).await else {
            break;
        };
        if kind == "set_started" {
            announced.insert(data["set"]["id"].as_str().expect("id").to_string());
        }
    }
    let announced: HashSet<&str> = announced.iter().map(String::as_str).collect();
    assert_eq!(announced, ada_sets);
}

#[tokio::test]
async fn bots_join_change_list_and_leave_the_pool_and_only_online_bots_are_paired() {
    let app = spawn_with(Spawn::default()).await;
    let (_, _, ann) = app.player_with_bot("PoolAnn").await;
    let (_, _, ben) = app.player_with_bot("PoolBen").await;
    assert!(pool(&app).await.entries.is_empty());

    let body =
        json!({"stake": 0, "rated": true, "options": {"size": 9}, "clock": {"initial_s": 30}});
    let first = join(&app, &ann, body.clone()).await;
    assert_eq!(first.bot, "PoolAnn");
    assert_eq!((first.stake, first.rated, first.online), (0, true, false));
    assert_eq!((first.playing, first.capacity), (0, 1));
    assert_eq!(
        (first.options.size, first.options.random_stones),
        (Some(9), None)
    );
    assert_eq!(
        (first.clock.initial_s, first.clock.increment_s),
        (Some(30), None)
    );
    // The same request again: the same entry.
    assert_eq!(join(&app, &ann, body).await, first);
    // A change keeps the entry's place.
    let changed = join(&app, &ann, json!({"options": {"size": 9}})).await;
    assert_eq!(changed.joined_at, first.joined_at);
    assert_eq!(changed.clock.initial_s, None);
    let e = join(&app, &ben, json!({})).await;
    assert_eq!((e.stake, e.rated), (0, true));
    let listed = pool(&app).await;
    let names: Vec<&str> = listed.entries.iter().map(|e| e.bot.as_str()).collect();
    assert_eq!(names, ["PoolAnn", "PoolBen"], "longest waiting first");

    // Neither is online: nobody is paired.
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    assert!(
        app.list_sets("").await.body["sets"]
            .as_array()
            .expect("sets")
            .is_empty()
    );

    // Both come online by opening their streams, and hear of the set the pool starts.
    let mut streams = vec![];
    for t in [&ann, &ben] {
        streams.push(EventStream::open(&app, &paths::bot_events(), Some(t), None).await);
    }
    let mut ids = vec![];
    for s in &mut streams {
        let id = loop {
            let (_, kind, data) = s
                .next_event_within(Duration::from_secs(10))
                .await
                .expect("set_started within 10 s");
            if kind == "set_started" {
                break data["set"]["id"].as_str().expect("id").to_string();
            }
        };
        ids.push(id);
    }
    assert_eq!(ids[0], ids[1]);
    let set = app.set_view(&ids[0]).await;
    assert_eq!(set.pool, Some(true));
    assert_eq!(
        (set.options.size, set.clock.initial_s, set.clock.increment_s),
        (9, 60, 2)
    );
    assert_eq!((set.stake, set.rated), (0, true));
    assert_eq!(set.creator, "PoolAnn", "the bot that waited longer creates");
    let listed = pool(&app).await;
    assert!(
        listed.entries.iter().all(|e| e.online && e.playing == 1),
        "{listed:?}"
    );

    // Leaving: 204, then 204 again; the set goes on.
    for _ in 0..2 {
        let r = app.leave_pool(Some(&ann)).await;
        assert_eq!(r.status, StatusCode::NO_CONTENT, "{:?}", r.body);
    }
    let names: Vec<String> = pool(&app)
        .await
        .entries
        .into_iter()
        .map(|e| e.bot)
        .collect();
    assert_eq!(names, ["PoolBen"]);
    assert_eq!(
        app.set_view(&ids[0]).await.status,
        hexarena_contract::SetStatus::Active
    );
    // After the set, Ben waits alone: no new set.
    app.lose_set(&ben, &ann, &ids[0]).await;
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    assert_eq!(
        app.list_sets("").await.body["sets"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
}

#[tokio::test]
async fn a_house_bot_stands_in_for_a_bot_alone_in_the_pool() {
    let app = spawn_with(Spawn {
        house_bots: true,
        house_lobby_wait_ms: 500,
        ..Spawn::default()
    })
    .await;
    let (_, _, token) = app.player_with_bot("PoolSolo").await;
    let listed = pool(&app).await;
    assert_eq!(listed.rules.house_stand_in_after_ms, Some(500));
    join(
        &app,
        &token,
        json!({"options": {"size": 9}, "clock": {"initial_s": 60}}),
    )
    .await;
    let mut stream = EventStream::open(&app, &paths::bot_events(), Some(&token), None).await;
    let set_id = loop {
        let (_, kind, data) = stream
            .next_event_within(Duration::from_secs(10))
            .await
            .expect("set_started within 10 s");
        if kind == "set_started" {
            break data["set"]["id"].as_str().expect("id").to_string();
        }
    };
    let set = app.set_view(&set_id).await;
    assert_eq!(set.pool, Some(true));
    assert_eq!(set.creator, "PoolSolo");
    let house = set.acceptor.clone().expect("acceptor");
    assert!(house.starts_with("house-"), "{house}");
    assert_eq!((set.options.size, set.rated, set.stake), (9, true, 0));
    // Out of the pool: no further set once this one ends.
    let r = app.leave_pool(Some(&token)).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
}

/// Active pool sets, as (id, creator, acceptor).
async fn active_pool_sets(app: &TestApp) -> Vec<(String, String, String)> {
    let r = app.list_sets("status=active&limit=100").await;
    r.body["sets"]
        .as_array()
        .expect("sets")
        .iter()
        .filter(|s| s["pool"] == json!(true))
        .map(|s| {
            let f = |k: &str| s[k].as_str().expect("name").to_string();
            (f("id"), f("creator"), f("acceptor"))
        })
        .collect()
}

#[tokio::test]
async fn two_instances_on_one_database_never_pair_past_capacity_or_the_hourly_cap() {
    let Some(url) = common::fresh_pg_db().await else {
        return;
    };
    let mut apps = vec![];
    for _ in 0..2 {
        apps.push(
            spawn_with(Spawn {
                database_url: Some(url.clone()),
                pool_pair_sets_per_hour: 3,
                ..Spawn::default()
            })
            .await,
        );
    }
    let (one, two) = (&apps[0], &apps[1]);
    let (_, _, kim) = one.player_with_bot("PoolKim").await;
    let (_, _, lou) = two.player_with_bot("PoolLou").await;
    let tokens: HashMap<&str, &str> = [("PoolKim", kim.as_str()), ("PoolLou", lou.as_str())]
        .into_iter()
        .collect();
    // Two sets at once each: with nobody else in the pool the pair may meet again at once,
    // so only capacity and the hourly cap hold them back.
    for (app, t) in [(one, &kim), (two, &lou)] {
        let r = app
            .declare_bot(Some(t), json!({"max_concurrent_sets": 2}))
            .await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        show_up(app, t).await;
        join(app, t, json!({})).await;
    }
    // Both instances pass over the pool every second: still two sets, not four.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    while active_pool_sets(one).await.len() < 2 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "two pool sets within 15 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(3_000)).await;
    let active = active_pool_sets(two).await;
    assert_eq!(active.len(), 2, "capacity 2 on both instances: {active:?}");
    // One ends: the third set of the hour follows; then the cap holds.
    let (id, creator, acceptor) = active[0].clone();
    one.lose_set(tokens[acceptor.as_str()], tokens[creator.as_str()], &id)
        .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    loop {
        let n = active_pool_sets(two).await.len();
        if n == 2 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the third set within 15 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for (id, creator, acceptor) in active_pool_sets(one).await {
        two.lose_set(tokens[acceptor.as_str()], tokens[creator.as_str()], &id)
            .await;
    }
    tokio::time::sleep(Duration::from_millis(3_000)).await;
    assert!(
        active_pool_sets(one).await.is_empty(),
        "the hourly cap holds"
    );
    assert_eq!(pool_sets(two).await.len(), 3);
}
