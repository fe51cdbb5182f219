//! Tournaments over HTTP (issue 12): a round robin of 5 bots and a Swiss of 7 bots in 4 rounds,
//! played to the end by bots the test drives, with standings checked against hand-computed tables.

mod common;
use common::paths;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use common::{TestApp, spawn_app};
use reqwest::StatusCode;
use serde_json::{Value, json};

const OP: &str = "op-secret";

/// How the test makes a set end: the winner of each game and the ply at which the loser resigns.
/// At ply 2 the winner has made 1 move, at ply 4 it has made 2.
type Script = dyn Fn(&str, &str, i64) -> (String, i64);

/// Bots (name, token), each with its own player.
async fn bots(app: &TestApp, names: &[&str]) -> Vec<(String, String)> {
    let mut out = vec![];
    for n in names {
        let (_, _, t) = app.player_with_bot(n).await;
        out.push((n.to_string(), t));
    }
    out
}

/// A long-poll of 0 s for every bot: each is online for the next 60 s.
async fn poll_all(app: &TestApp, bots: &[(String, String)]) {
    for (_, t) in bots {
        app.get_turn(Some(t), "wait_s=0").await;
    }
}

/// Plays the tournament to its end as `script` says; returns its final view.
async fn drive(app: &TestApp, id: &str, bots: &[(String, String)], script: &Script) -> Value {
    let token = |name: &str| {
        bots.iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone())
            .expect("known bot")
    };
    let mut sides: HashMap<String, (String, String)> = HashMap::new();
    let start = Instant::now();
    loop {
        assert!(
            start.elapsed() < Duration::from_secs(180),
            "tournament did not finish"
        );
        let t = app.get_tournament(&id).await.body;
        if t["status"] == "finished" {
            return t;
        }
        let mut acted = false;
        for (_, tok) in bots {
            let r = app.get_turn(Some(tok), "wait_s=0").await;
            if r.status != StatusCode::OK {
                continue;
            }
            let s = r.body;
            let set_id = s["set_id"].as_str().expect("set_id").to_string();
            let game_no = s["game_no"].as_i64().expect("game_no");
            let ply = s["ply"].as_i64().expect("ply");
            if !sides.contains_key(&set_id) {
                let set = app.get_set(&set_id).await.body;
                let c = set["creator"].as_str().expect("creator").to_string();
                let a = set["acceptor"].as_str().expect("acceptor").to_string();
                sides.insert(set_id.clone(), (c, a));
            }
            let (c, a) = sides[&set_id].clone();
            let (winner, target) = script(&c, &a, game_no);
            let r = if ply >= target {
                let loser = if winner == c { &a } else { &c };
                app.resign(Some(&token(loser)), &set_id, &game_no, json!({}))
                    .await
            } else {
                let mv = s["legal_moves"]
                    .as_array()
                    .and_then(|l| l.iter().find(|m| m.get("cell").is_some()))
                    .cloned()
                    .expect("a legal cell");
                app.play(tok, &set_id, game_no, mv, Some(ply + 1)).await
            };
            assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
            acted = true;
        }
        if !acted {
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    }
}

fn standings_table(t: &Value) -> Vec<(String, f64, f64, f64, f64, i64)> {
    t["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .map(|r| {
            (
                r["bot"].as_str().expect("bot").to_string(),
                r["points"].as_f64().expect("points"),
                r["buchholz"].as_f64().expect("buchholz"),
                r["sonneborn_berger"].as_f64().expect("sb"),
                r["game_points"].as_f64().expect("game points"),
                r["tiebreak_moves"].as_i64().expect("moves"),
            )
        })
        .collect()
}

fn row(name: &str, p: f64, b: f64, sb: f64, gp: f64, m: i64) -> (String, f64, f64, f64, f64, i64) {
    (name.to_string(), p, b, sb, gp, m)
}

#[derive(Clone, Copy)]
enum Res {
    /// The first-named wins both games at ply 4.
    Win2,
    /// The first-named wins game 1 at ply 2 (1 move), the other game 2 at ply 4 (2 moves):
    /// 1-1 in games, the first-named wins on the tiebreak.
    Tiebreak,
    /// Each wins one game at ply 4: a drawn set.
    Draw,
}

#[tokio::test]
async fn a_round_robin_of_five_is_played_to_the_end_with_standings_as_computed_by_hand() {
    let app = spawn_app().await;
    let names = ["Ann", "Bob", "Cat", "Dan", "Eve"];
    let bots = bots(&app, &names).await;
    poll_all(&app, &bots).await;
    // (first-named, other, result). Eve upsets Bob.
    let table: Vec<(&str, &str, Res)> = vec![
        ("Ann", "Bob", Res::Draw),
        ("Ann", "Cat", Res::Win2),
        ("Ann", "Dan", Res::Win2),
        ("Ann", "Eve", Res::Tiebreak),
        ("Bob", "Cat", Res::Tiebreak),
        ("Bob", "Dan", Res::Win2),
        ("Eve", "Bob", Res::Win2),
        ("Cat", "Dan", Res::Draw),
        ("Cat", "Eve", Res::Win2),
        ("Dan", "Eve", Res::Tiebreak),
    ];
    let script = move |c: &str, a: &str, game_no: i64| {
        let (first, other, res) = table
            .iter()
            .find(|(x, y, _)| (*x == c && *y == a) || (*x == a && *y == c))
            .copied()
            .expect("scripted pair");
        match (res, game_no) {
            (Res::Win2, _) => (first.to_string(), 4),
            (Res::Tiebreak, 1) => (first.to_string(), 2),
            (Res::Draw, 1) => (first.to_string(), 4),
            _ => (other.to_string(), 4),
        }
    };
    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "Five", "format": "round_robin", "participants": names,
                   "options": {"size": 9, "random_stones": 0},
                   "clock": {"initial_s": 60, "increment_s": 0}, "max_concurrent": 2}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    assert_eq!(r.body["status"], "created");
    assert_eq!(r.body["rounds"], 5);
    assert_eq!(r.body["stake"], 0);
    assert_eq!(r.body["rated"], false);
    let id = r.body["id"].as_str().expect("id").to_string();
    let r = app.start_tournament(Some(OP), &id, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let t = drive(&app, &id, &bots, &script).await;

    // Hand-computed (points, Buchholz, Sonneborn-Berger, game points, own moves in games won):
    // Cat and Dan tie on points, Buchholz and SB; Cat has more game points.
    assert_eq!(
        standings_table(&t),
        vec![
            row("Ann", 3.5, 6.5, 5.25, 6.0, 11),
            row("Bob", 2.5, 7.5, 4.75, 4.0, 7),
            row("Cat", 1.5, 8.5, 1.75, 4.0, 8),
            row("Dan", 1.5, 8.5, 1.75, 2.0, 3),
            row("Eve", 1.0, 9.0, 2.5, 4.0, 8),
        ]
    );
    let ann = &t["standings"][0];
    assert_eq!(
        (ann["w"].clone(), ann["d"].clone(), ann["l"].clone()),
        (json!(3), json!(1), json!(0))
    );
    // Ann: 6 games won of 8 against 1200s: 1200 + 400 log10(3) = 1391; the upper end of the
    // 95% interval passes a score of 1, so no error bar.
    assert_eq!(ann["performance"], 1391);
    assert_eq!(ann["performance_error"], Value::Null);
    // Eve: 4 of 8: 1200 +- 297 (s = 0.5, se = sqrt(0.25 / 8)).
    assert_eq!(t["standings"][4]["performance"], 1200);
    assert_eq!(t["standings"][4]["performance_error"], 297);
    // Every round: two sets and one bot sitting out; each pair met once.
    let rounds = t["rounds_played"].as_array().expect("rounds");
    assert_eq!(rounds.len(), 5);
    let mut sat_out = vec![];
    for r in rounds {
        assert_eq!(r["pairings"].as_array().expect("pairings").len(), 2);
        sat_out.push(r["bye"].as_str().expect("bye").to_string());
        for p in r["pairings"].as_array().expect("pairings") {
            assert_eq!(p["status"], "finished");
            let set = app.get(p["set_url"].as_str().expect("set url")).await.body;
            assert_eq!(set["status"], "finished");
            assert_eq!(set["rated"], false);
            // The pairing says what the set says, tiebreak included.
            assert_eq!(set["result"], p["result"]);
        }
    }
    sat_out.sort();
    assert_eq!(sat_out, vec!["Ann", "Bob", "Cat", "Dan", "Eve"]);
    assert_eq!(
        t["crosstable"]["bots"],
        json!(["Ann", "Bob", "Cat", "Dan", "Eve"])
    );
    assert_eq!(
        t["crosstable"]["rows"][0]["results"],
        json!([null, "½", "1", "1", "1"])
    );
    assert_eq!(
        t["crosstable"]["rows"][4]["results"],
        json!(["0", "1", "0", "0", null])
    );
    // The CSV export carries the same table.
    let r = app
        .http
        .get(format!("{}{}", app.url, paths::standings_csv(&id)))
        .send()
        .await
        .expect("csv");
    assert_eq!(r.status(), StatusCode::OK);
    let csv = r.text().await.expect("csv text");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "rank,bot,seed,points,buchholz,sonneborn_berger,game_points,tiebreak_moves,sets,w,d,l,byes,performance,performance_error,refused_moves,withdrawn_round,withdrawn_by,annulled"
    );
    assert_eq!(
        lines[4],
        "4,Dan,4,1.5,8.5,1.75,2.0,3,4,1,1,2,0,1009,,0,,,false"
    );
    // All 20 games as one SGF collection.
    let r = app
        .http
        .get(format!("{}{}", app.url, paths::tournament_games_sgf(&id)))
        .send()
        .await
        .expect("sgf");
    assert_eq!(r.status(), StatusCode::OK);
    let sgf = r.text().await.expect("sgf text");
    assert_eq!(sgf.matches("(;FF[4]GM[11]").count(), 20);
    assert_eq!(sgf.matches("RE[").count(), 20);
    // Ratings did not move: the tournament was unrated. Its four sets are in Ann's record
    // all the same (issue 18).
    let p = app.get_bot("Ann").await.body;
    assert_eq!(
        (p["rating"].clone(), p["sets"].clone()),
        (json!(1200), json!(4))
    );
}

#[tokio::test]
async fn a_seven_bot_swiss_of_four_rounds_pairs_by_score_groups_with_one_bye_each() {
    let app = spawn_app().await;
    let names = ["Sw0", "Sw1", "Sw2", "Sw3", "Sw4", "Sw5", "Sw6"];
    let bots = bots(&app, &names).await;
    poll_all(&app, &bots).await;
    // The lower seed always wins 2-0.
    let seed = |n: &str| n[2..].parse::<u32>().expect("seed");
    let script = move |c: &str, a: &str, _game: i64| {
        let w = if seed(c) < seed(a) { c } else { a };
        (w.to_string(), 4)
    };
    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "Seven", "format": "swiss", "rounds": 4, "participants": names,
                   "options": {"size": 9, "random_stones": 0}, "max_concurrent": 3}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    app.start_tournament(Some(OP), &id, json!({})).await;
    let t = drive(&app, &id, &bots, &script).await;
    let rounds: Vec<(Vec<Value>, Value)> = t["rounds_played"]
        .as_array()
        .expect("rounds")
        .iter()
        .map(|r| {
            (
                r["pairings"]
                    .as_array()
                    .expect("pairings")
                    .iter()
                    .map(|p| p["bots"].clone())
                    .collect(),
                r["bye"].clone(),
            )
        })
        .collect();
    let pair = |a: &str, b: &str| json!([a, b]);
    assert_eq!(
        rounds,
        vec![
            (
                vec![pair("Sw0", "Sw3"), pair("Sw1", "Sw4"), pair("Sw2", "Sw5")],
                json!("Sw6")
            ),
            (
                vec![pair("Sw0", "Sw2"), pair("Sw1", "Sw6"), pair("Sw3", "Sw4")],
                json!("Sw5")
            ),
            (
                vec![pair("Sw0", "Sw1"), pair("Sw2", "Sw6"), pair("Sw3", "Sw5")],
                json!("Sw4")
            ),
            (
                vec![pair("Sw0", "Sw4"), pair("Sw1", "Sw2"), pair("Sw5", "Sw6")],
                json!("Sw3")
            ),
        ]
    );
    // Hand-computed by FIDE's rule for unplayed rounds: a bye adds 1 point and no game points;
    // in the bot's own Buchholz and Sonneborn-Berger it is a round against a dummy with the
    // bot's own score, and as an opponent the bot counts that round as a draw (Sw3 counts 2.5,
    // Sw4 and Sw6 0.5, Sw5 1.5). Sw3 and Sw1 tie on 3 points, Buchholz 4+0.5+1.5+3 = 9 against
    // 0.5+0.5+4+2 = 7; Sw2 and Sw5 on 2 (9 against 7); Sw4 and Sw6 on 1 (10.5 against 7.5).
    assert_eq!(
        standings_table(&t),
        vec![
            row("Sw0", 4.0, 8.0, 8.0, 8.0, 16),
            row("Sw3", 3.0, 9.0, 5.0, 4.0, 8),
            row("Sw1", 3.0, 7.0, 3.0, 6.0, 12),
            row("Sw2", 2.0, 9.0, 2.0, 4.0, 8),
            row("Sw5", 2.0, 7.0, 2.5, 2.0, 4),
            row("Sw4", 1.0, 10.5, 1.0, 0.0, 0),
            row("Sw6", 1.0, 7.5, 1.0, 0.0, 0),
        ]
    );
    let byes: Vec<(String, i64)> = t["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .map(|r| {
            (
                r["bot"].as_str().expect("bot").to_string(),
                r["byes"].as_i64().expect("byes"),
            )
        })
        .collect();
    // One bye a round, to the lowest-ordered bot without one: no bot has two.
    for (bot, n) in &byes {
        let expect = i64::from(["Sw3", "Sw4", "Sw5", "Sw6"].contains(&bot.as_str()));
        assert_eq!(*n, expect, "{bot}");
    }
    let r = app.pause_tournament(Some(OP), &id, json!({})).await;
    assert_eq!(
        (r.status, r.body["error"]["code"].clone()),
        (StatusCode::CONFLICT, json!("tournament_state"))
    );
}

#[tokio::test]
async fn tournament_requests_are_checked_and_only_the_operator_runs_them() {
    let app = spawn_app().await;
    let (_, _, bot) = app.player_with_bot("Solo").await;
    app.player_with_bot("Duo").await;
    let body = json!({"name": "T", "format": "round_robin", "participants": ["Solo", "Duo"]});
    let r = app.create_tournament(Some(&bot), body.clone()).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    for (b, field) in [
        (
            json!({"name": "T", "format": "knockout", "participants": ["Solo", "Duo"]}),
            "format",
        ),
        (
            json!({"name": "T", "format": "swiss", "participants": ["Solo", "Duo"]}),
            "rounds",
        ),
        (
            json!({"name": "T", "format": "round_robin", "participants": ["Solo"]}),
            "participants",
        ),
        (
            json!({"name": "T", "format": "round_robin", "participants": ["Solo", "Solo"]}),
            "participants",
        ),
        (
            json!({"name": "T", "format": "round_robin", "cycles": 3, "participants": ["Solo", "Duo"]}),
            "cycles",
        ),
        (
            json!({"name": "T", "format": "round_robin", "stake": 5, "participants": ["Solo", "Duo"]}),
            "stake",
        ),
        (
            json!({"name": "T", "format": "round_robin", "absent": "maybe", "participants": ["Solo", "Duo"]}),
            "absent",
        ),
    ] {
        let r = app.create_tournament(Some(OP), b.clone()).await;
        assert_eq!(
            (r.status, r.code()),
            (StatusCode::BAD_REQUEST, "bad_request"),
            "{b}"
        );
        assert_eq!(r.body["error"]["details"]["field"], field, "{b}");
    }
    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "T", "format": "round_robin", "participants": ["Solo", "Nobody"]}),
        )
        .await;
    assert_eq!((r.status, r.code()), (StatusCode::NOT_FOUND, "not_found"));
    assert_eq!(
        app.list_tournaments("").await.body["tournaments"],
        json!([])
    );
    let r = app.get_tournament("tour_nope").await;
    assert_eq!((r.status, r.code()), (StatusCode::NOT_FOUND, "not_found"));
    let r = app.create_tournament(Some(OP), body).await;
    let id = r.body["id"].as_str().expect("id").to_string();
    let r = app.resume_tournament(Some(OP), &id, json!({})).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::CONFLICT, "tournament_state")
    );
    let r = app.cancel_tournament(Some(OP), &id, json!({})).await;
    assert_eq!(r.body["status"], "cancelled");
    let list = app.list_tournaments("").await.body;
    assert_eq!(list["tournaments"][0]["participants"], 2);
}

/// Polls the tournament until `pred` holds (or fails after 10 s).
async fn wait_for(app: &TestApp, id: &str, pred: impl Fn(&Value) -> bool) -> Value {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let t = app.get_tournament(&id).await.body;
        if pred(&t) {
            return t;
        }
        assert!(Instant::now() < until, "tournament never got there: {t}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_bot_offline_at_pairing_time_is_not_started_until_it_comes_online() {
    let app = spawn_app().await;
    let bots = bots(&app, &["Here", "Away"]).await;
    poll_all(&app, &bots[..1]).await;
    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "Wait", "format": "round_robin", "participants": ["Here", "Away"],
                   "options": {"size": 9}}),
        )
        .await;
    let id = r.body["id"].as_str().expect("id").to_string();
    app.start_tournament(Some(OP), &id, json!({})).await;
    let t = wait_for(&app, &id, |t| t["current_round"] == 1).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let t2 = app.get_tournament(&id).await.body;
    assert_eq!(
        t2["rounds_played"][0]["pairings"][0]["status"], "pending",
        "{t}"
    );
    assert_eq!(t2["rounds_played"][0]["pairings"][0]["set_id"], Value::Null);
    poll_all(&app, &bots[1..]).await;
    let t = wait_for(&app, &id, |t| {
        t["rounds_played"][0]["pairings"][0]["status"] == "playing"
    })
    .await;
    let set_id = t["rounds_played"][0]["pairings"][0]["set_id"]
        .as_str()
        .expect("set started");
    let set = app.get_set(&set_id).await.body;
    // The circle method's fixed slot (the last seed) creates the set in round 1.
    assert_eq!(
        (
            set["creator"].clone(),
            set["acceptor"].clone(),
            set["status"].clone()
        ),
        (json!("Away"), json!("Here"), json!("active"))
    );
}

#[tokio::test]
async fn an_absent_bot_forfeits_when_the_operator_says_so_and_collects_no_strike() {
    let app = spawn_app().await;
    let bots = bots(&app, &["Here", "Away", "Late"]).await;
    poll_all(&app, &bots[..1]).await;
    let r = app
        .create_tournament(Some(OP), json!({"name": "Forfeits", "format": "gauntlet", "participants": ["Here", "Away", "Late"],
                   "absent": "forfeit", "forfeit_after_s": 0, "stake": 0}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    assert_eq!(r.body["rounds"], 1);
    let id = r.body["id"].as_str().expect("id").to_string();
    app.start_tournament(Some(OP), &id, json!({})).await;
    let t = wait_for(&app, &id, |t| t["status"] == "finished").await;
    let ps = &t["rounds_played"][0]["pairings"];
    assert_eq!(ps[0]["bots"], json!(["Here", "Away"]));
    assert_eq!(ps[0]["status"], "forfeit");
    assert_eq!(ps[0]["result"], "Here wins by forfeit");
    assert_eq!(ps[0]["set_id"], Value::Null);
    assert_eq!(ps[1]["points"], json!([1.0, 0.0]));
    assert_eq!(t["standings"][0]["bot"], "Here");
    assert_eq!(t["standings"][0]["points"], 2.0);
    assert_eq!(
        t["crosstable"]["rows"][0]["results"],
        json!([null, "+", "+"])
    );
    for name in ["Away", "Late"] {
        let p = app.get_bot(&name).await.body;
        assert_eq!(p["strikes"], json!([]), "{name}");
    }
}

#[tokio::test]
async fn a_second_instance_continues_a_swiss_mid_round_and_no_round_is_paired_twice() {
    let one = spawn_app().await;
    let names = ["Sw0", "Sw1", "Sw2", "Sw3", "Sw4"];
    let bots = bots(&one, &names).await;
    poll_all(&one, &bots).await;
    let r = one
        .create_tournament(
            Some(OP),
            json!({"name": "Two", "format": "swiss", "rounds": 3, "participants": names,
                   "options": {"size": 9, "random_stones": 0}}),
        )
        .await;
    let id = r.body["id"].as_str().expect("id").to_string();
    one.start_tournament(Some(OP), &id, json!({})).await;
    wait_for(&one, &id, |t| {
        t["rounds_played"][0]["pairings"][0]["status"] == "playing"
    })
    .await;
    // A second instance on the same database, with its own driver, takes over the play.
    let two = common::spawn_with(common::Spawn {
        database_url: Some(one.database_url.clone()),
        ..common::Spawn::default()
    })
    .await;
    let seed = |n: &str| n[2..].parse::<u32>().expect("seed");
    let script = move |c: &str, a: &str, _game: i64| {
        let w = if seed(c) < seed(a) { c } else { a };
        (w.to_string(), 2)
    };
    let t = drive(&two, &id, &bots, &script).await;
    let rounds = t["rounds_played"].as_array().expect("rounds");
    assert_eq!(rounds.len(), 3);
    for r in rounds {
        assert_eq!(r["pairings"].as_array().expect("pairings").len(), 2, "{r}");
        assert!(r["bye"].is_string());
    }
    let mut c = one.arena.store.pool.acquire().await.expect("connection");
    let (n,): (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM tournament_pairings WHERE tournament_id = $1")
            .bind(&id)
            .fetch_one(&mut *c)
            .await
            .expect("count");
    assert_eq!(
        n, 9,
        "three rounds of two sets and a bye, nothing paired twice"
    );
    assert_eq!(t["standings"][0]["bot"], "Sw0");
    assert_eq!(t["standings"][0]["points"], 3.0);
}

#[tokio::test]
async fn two_instances_on_one_postgres_database_run_a_round_robin_to_the_end() {
    let Some(url) = common::fresh_pg_db().await else {
        return;
    };
    let one = common::spawn_with(common::Spawn {
        database_url: Some(url.clone()),
        ..common::Spawn::default()
    })
    .await;
    let two = common::spawn_with(common::Spawn {
        database_url: Some(url),
        ..common::Spawn::default()
    })
    .await;
    let names = ["PgA", "PgB", "PgC", "PgD"];
    let bots = bots(&one, &names).await;
    poll_all(&two, &bots).await;
    // A start a moment ahead (a past one is refused): the driver starts it by itself.
    let soon = (chrono::Utc::now() + chrono::Duration::seconds(1))
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let r = one
        .create_tournament(
            Some(OP),
            json!({"name": "Pg", "format": "round_robin", "participants": names,
                   "options": {"size": 9, "random_stones": 0}, "start_at": soon}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    // The earlier name wins both games.
    let script = |c: &str, a: &str, _g: i64| (c.min(a).to_string(), 2);
    let t = drive(&two, &id, &bots, &script).await;
    let points: Vec<(String, f64)> = t["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .map(|r| {
            (
                r["bot"].as_str().expect("bot").to_string(),
                r["points"].as_f64().expect("points"),
            )
        })
        .collect();
    assert_eq!(
        points,
        vec![
            ("PgA".into(), 3.0),
            ("PgB".into(), 2.0),
            ("PgC".into(), 1.0),
            ("PgD".into(), 0.0)
        ]
    );
    let rounds = t["rounds_played"].as_array().expect("rounds");
    assert_eq!(rounds.len(), 3);
    assert!(
        rounds
            .iter()
            .all(|r| r["pairings"].as_array().map(Vec::len) == Some(2))
    );
    assert!(t["started_at"].is_string(), "started by itself at start_at");
}

#[tokio::test]
async fn house_bots_and_a_test_bot_play_a_round_robin_to_the_end() {
    let app = common::spawn_with(common::Spawn {
        house_bots: true,
        ..common::Spawn::default()
    })
    .await;
    let bots = bots(&app, &["Tester"]).await;
    poll_all(&app, &bots).await;
    let online = app.list_bots("online=true").await.body;
    // Every house bot of the ladder is online, and the test bot.
    assert_eq!(
        online["bots"].as_array().map(Vec::len),
        Some(1 + hex_search::ladder::LADDER.len()),
        "{online}"
    );
    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "House", "format": "round_robin",
                   "participants": ["house-bridge", "house-random", "Tester"],
                   "options": {"size": 9, "random_stones": 2}, "max_concurrent": 3}),
        )
        .await;
    let id = r.body["id"].as_str().expect("id").to_string();
    app.start_tournament(Some(OP), &id, json!({})).await;
    // The test bot resigns every game at once; the house bots play theirs out.
    let t = drive(&app, &id, &bots, &|c: &str, a: &str, _g: i64| {
        (if c == "Tester" { a } else { c }.to_string(), 0)
    })
    .await;
    let table = standings_table(&t);
    let total: f64 = table.iter().map(|r| r.1).sum();
    assert_eq!(total, 3.0, "three sets, one point each");
    assert_eq!(table[2].0, "Tester");
    assert_eq!((table[2].1, table[2].4), (0.0, 0.0));
    // The house-vs-house set was played out: someone won at least one of its games.
    assert_eq!(table[0].4 + table[1].4, 4.0 + 2.0, "{:?}", table);
}

#[tokio::test]
async fn a_swiss_that_skips_absent_bots_pairs_only_those_online() {
    let app = spawn_app().await;
    let bots = bots(&app, &["Sw0", "Sw1", "Sw2", "Gone"]).await;
    poll_all(&app, &bots[..3]).await;
    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "Skip", "format": "swiss", "rounds": 1, "absent": "skip",
                   "participants": ["Sw0", "Sw1", "Sw2", "Gone"],
                   "options": {"size": 9, "random_stones": 0}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    app.start_tournament(Some(OP), &id, json!({})).await;
    let seed = |n: &str| n[2..].parse::<u32>().unwrap_or(9);
    let t = drive(&app, &id, &bots[..3], &move |c: &str, a: &str, _g: i64| {
        (if seed(c) < seed(a) { c } else { a }.to_string(), 2)
    })
    .await;
    let round = &t["rounds_played"][0];
    assert_eq!(round["absent"], json!(["Gone"]));
    assert_eq!(round["pairings"][0]["bots"], json!(["Sw0", "Sw1"]));
    assert_eq!(round["bye"], "Sw2");
    let gone = t["standings"]
        .as_array()
        .and_then(|s| s.iter().find(|r| r["bot"] == "Gone"))
        .cloned()
        .expect("Gone");
    assert_eq!(
        (gone["points"].clone(), gone["sets"].clone()),
        (json!(0.0), json!(0))
    );
    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "No", "format": "round_robin", "absent": "skip",
                   "participants": ["Sw0", "Sw1"]}),
        )
        .await;
    assert_eq!(r.body["error"]["details"]["field"], "absent");
}

#[tokio::test]
async fn a_bot_seen_during_the_forfeit_window_but_gone_at_its_end_wins_the_forfeit() {
    let time = std::sync::Arc::new(hexarena::arena::clock::FakeTime::new(1_700_000_000_000));
    let app = common::spawn_with(common::Spawn {
        time: time.clone(),
        ..common::Spawn::default()
    })
    .await;
    let bots = bots(&app, &["Came", "Never"]).await;
    poll_all(&app, &bots[..1]).await;
    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "Memory", "format": "gauntlet", "participants": ["Came", "Never"],
                   "absent": "forfeit", "forfeit_after_s": 100, "stake": 0}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    app.start_tournament(Some(OP), &id, json!({})).await;
    wait_for(&app, &id, |t| {
        t["rounds_played"][0]["pairings"][0]["status"] == "pending"
    })
    .await;
    // "Came" was online when the window opened; at its end it has been gone for 200 s.
    time.advance(200_000);
    let t = wait_for(&app, &id, |t| t["status"] == "finished").await;
    let p = &t["rounds_played"][0]["pairings"][0];
    assert_eq!(p["status"], "forfeit", "{t}");
    assert_eq!(p["result"], "Came wins by forfeit", "{t}");
    assert_eq!(p["points"], json!([1.0, 0.0]), "{t}");
}

#[tokio::test]
async fn the_tournament_list_pages_with_before_and_filters_by_status_as_sets_do() {
    let app = spawn_app().await;
    bots(&app, &["LsA", "LsB"]).await;
    let mut ids = vec![];
    for i in 0..3 {
        let r = app
            .create_tournament(
                Some(OP),
                json!({"name": format!("L{i}"), "format": "round_robin",
                       "participants": ["LsA", "LsB"]}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
        ids.push(r.body["id"].as_str().expect("id").to_string());
    }
    let names = |v: &Value| -> Vec<String> {
        v["tournaments"]
            .as_array()
            .expect("tournaments")
            .iter()
            .map(|t| t["name"].as_str().expect("name").to_string())
            .collect()
    };
    let first = app.list_tournaments("limit=2").await;
    assert_eq!(first.status, StatusCode::OK, "{:?}", first.body);
    assert_eq!(names(&first.body), ["L2", "L1"]);
    let next = first.body["next_before"].as_str().expect("next_before");
    assert_eq!(next, ids[1]);
    let rest = app
        .list_tournaments(&format!("limit=2&before={next}"))
        .await;
    assert_eq!(names(&rest.body), ["L0"]);
    assert_eq!(rest.body["next_before"], Value::Null, "the last page");
    // The status filter, and a bad value named as /v1/sets names it.
    app.start_tournament(Some(OP), &ids[0], json!({})).await;
    let running = app.list_tournaments("status=running").await;
    assert_eq!(names(&running.body), ["L0"], "{:?}", running.body);
    let created = app.list_tournaments("status=created").await;
    assert_eq!(names(&created.body), ["L2", "L1"]);
    for (q, field) in [("status=bogus", "status"), ("before=set_x", "before")] {
        let r = app.list_tournaments(q).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{q}: {:?}", r.body);
        assert_eq!(r.body["error"]["details"]["field"], field, "{q}");
    }
    let r = app.list_sets("status=bogus").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        r.body["error"]["details"]["field"], "status",
        "{:?}",
        r.body
    );
}
