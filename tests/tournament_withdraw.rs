//! Issue 18, part C, over HTTP: the operator withdraws participants from running tournaments.
//! A Swiss with stakes forfeits a set in play (the ledger settles it, the clocks stop) and
//! pairs the withdrawn bots no more; a round robin turns a withdrawn bot's remaining pairings
//! into forfeits and leaves out the results of one that played fewer than half its sets
//! (FIDE C.06 art. 5.4); an absent bot is withdrawn by the arena after two forfeits in a row;
//! a cancelled tournament records the set that was playing.

mod common;
use common::paths;

use std::time::{Duration, Instant};

use common::TestApp;
use reqwest::StatusCode;
use serde_json::{Value, json};

const OP: &str = "op-secret";

/// A participant: bot name, bot token, owner's player token.
struct Bot {
    name: String,
    token: String,
    player: String,
}

/// Bots with their own players, each online (a 0 s long-poll) for the next 60 s.
async fn bots(app: &TestApp, names: &[&str]) -> Vec<Bot> {
    let mut out = vec![];
    for n in names {
        let (_, player, token) = app.player_with_bot(n).await;
        app.get_turn(Some(&token), "wait_s=0").await;
        out.push(Bot {
            name: n.to_string(),
            token,
            player,
        });
    }
    out
}

async fn create(app: &TestApp, body: Value) -> String {
    let r = app.create_tournament(Some(OP), body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    let r = app.start_tournament(Some(OP), &id, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    id
}

async fn withdraw(app: &TestApp, id: &str, bot: &str, in_play: &str) -> common::Resp {
    app.withdraw(Some(OP), &id, json!({"bot": bot, "in_play": in_play}))
        .await
}

/// Polls the tournament until `pred` holds (or fails after 20 s).
async fn wait_for(app: &TestApp, id: &str, pred: impl Fn(&Value) -> bool) -> Value {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let t = app.get_tournament(&id).await.body;
        if pred(&t) {
            return t;
        }
        assert!(Instant::now() < until, "tournament never got there: {t}");
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
}

/// The pairing of `bots` (in either order) in round `round`.
fn pairing<'a>(t: &'a Value, round: usize, a: &str, b: &str) -> &'a Value {
    t["rounds_played"][round - 1]["pairings"]
        .as_array()
        .and_then(|ps| {
            ps.iter()
                .find(|p| p["bots"] == json!([a, b]) || p["bots"] == json!([b, a]))
        })
        .unwrap_or_else(|| panic!("no pairing {a}-{b} in round {round}: {t}"))
}

/// Waits until the pairing of `a` and `b` in `round` plays, and returns its set id.
async fn set_of(app: &TestApp, id: &str, round: usize, a: &str, b: &str) -> String {
    let t = wait_for(app, id, |t| {
        t["rounds_played"][round - 1]["pairings"]
            .as_array()
            .is_some_and(|ps| {
                ps.iter().any(|p| {
                    (p["bots"] == json!([a, b]) || p["bots"] == json!([b, a]))
                        && p["status"] == "playing"
                })
            })
    })
    .await;
    pairing(&t, round, a, b)["set_id"]
        .as_str()
        .expect("set id")
        .to_string()
}

async fn resign(app: &TestApp, set_id: &str, game_no: i64, loser: &Bot) {
    let r = app
        .resign(Some(&loser.token), &set_id, &game_no, json!({}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
}

/// `loser` resigns both games of the set.
async fn lose_set(app: &TestApp, set_id: &str, loser: &Bot) {
    resign(app, set_id, 1, loser).await;
    resign(app, set_id, 2, loser).await;
}

fn standing<'a>(t: &'a Value, bot: &str) -> &'a Value {
    t["standings"]
        .as_array()
        .and_then(|s| s.iter().find(|r| r["bot"] == bot))
        .unwrap_or_else(|| panic!("no standing for {bot}: {t}"))
}

/// The crosstable cell of `a` against `b`.
fn cross(t: &Value, a: &str, b: &str) -> Value {
    let bots = t["crosstable"]["bots"].as_array().expect("bots");
    let col = bots.iter().position(|x| x == b).expect("column");
    t["crosstable"]["rows"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["bot"] == a))
        .map(|r| r["results"][col].clone())
        .expect("row")
}

fn seated(round: &Value) -> Vec<String> {
    let mut out: Vec<String> = round["pairings"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|p| p["bots"].as_array().cloned().unwrap_or_default())
        .chain([round["bye"].clone()])
        .chain(round["absent"].as_array().cloned().unwrap_or_default())
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    out.sort();
    out
}

#[tokio::test]
async fn a_staked_swiss_forfeits_the_set_in_play_of_a_withdrawn_bot_and_pairs_it_no_more() {
    let app = common::spawn_app().await;
    let b = bots(&app, &["WsA", "WsB", "WsC", "WsD"]).await;
    let id = create(
        &app,
        json!({"name": "Withdrawals", "format": "swiss", "rounds": 2, "stake": 10,
               "participants": ["WsA", "WsB", "WsC", "WsD"],
               "options": {"size": 9, "random_stones": 0}, "max_concurrent": 4}),
    )
    .await;
    // Round 1: the top half against the bottom half, WsA-WsC and WsB-WsD.
    let ac = set_of(&app, &id, 1, "WsA", "WsC").await;
    let bd = set_of(&app, &id, 1, "WsB", "WsD").await;
    for bot in &b {
        assert_eq!(app.balance(&bot.player).await, 990, "{} escrowed", bot.name);
    }
    let rating_a = app.get_bot("WsA").await.body["rating"].clone();
    // One move in WsA-WsC: the seat on move of game 1 plays its first legal cell.
    let s = app.state(&ac, 1).await;
    let seat = s["to_move"].as_u64().expect("on move") as usize;
    let mover = s["seats"][seat - 1]["bot"].as_str().expect("bot");
    let token = &b.iter().find(|x| x.name == mover).expect("mover").token;
    let mv = s["legal_moves"]
        .as_array()
        .and_then(|l| l.iter().find(|m| m.get("cell").is_some()))
        .cloned()
        .expect("a cell");
    let r = app.play(token, &ac, 1, mv, Some(1)).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);

    // Errors first: they change nothing.
    for (bot, in_play, status, code) in [
        ("Nobody", "forfeit", StatusCode::NOT_FOUND, "not_found"),
        ("WsC", "maybe", StatusCode::BAD_REQUEST, "bad_request"),
    ] {
        let r = withdraw(&app, &id, bot, in_play).await;
        assert_eq!((r.status, r.code()), (status, code), "{:?}", r.body);
    }
    app.player_with_bot("Outsider").await;
    let r = withdraw(&app, &id, "Outsider", "forfeit").await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::CONFLICT, "not_participant")
    );
    let r = withdraw(&app, "tour_nope", "WsC", "forfeit").await;
    assert_eq!((r.status, r.code()), (StatusCode::NOT_FOUND, "not_found"));
    assert_eq!(app.get_set(&ac).await.body["status"], "active");

    // WsC withdraws in the middle of its set: the set ends at once, WsA wins it.
    let r = withdraw(&app, &id, "WsC", "forfeit").await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let c = standing(&r.body, "WsC");
    assert_eq!(c["withdrawn"]["round"], 1, "{c}");
    assert_eq!(c["withdrawn"]["by"], "operator");
    // The answer is the tournament after the forfeit, not before it (found by an outside
    // tester: the pairing was still `playing` and WsA on 0 points until the driver's next step).
    let p = pairing(&r.body, 1, "WsA", "WsC");
    assert_eq!(
        (p["status"].clone(), p["result"].clone()),
        (json!("finished"), json!("WsA wins by forfeit")),
        "{p}"
    );
    assert_eq!(standing(&r.body, "WsA")["points"], 1.0);
    let set = app.get_set(&ac).await.body;
    assert_eq!(set["status"], "finished", "{set}");
    assert_eq!(set["result"], "WsA wins by forfeit");
    for g in [1, 2] {
        let s = app.state(&ac, g).await;
        assert_eq!(s["status"], "finished", "{s}");
        assert_eq!(s["result"]["winner_bot"], "WsA");
        assert_eq!(s["result"]["reason"], "resignation");
        assert_eq!(s["result"]["forfeit"], true);
        assert_eq!(s["to_move"], Value::Null, "the clocks stopped");
        assert_eq!(s["clock"]["deadline"], Value::Null);
    }
    // The pot went to WsA's owner through the ledger; WsB and WsD still have theirs escrowed.
    let balances: Vec<i64> = futures_balances(&app, &b).await;
    assert_eq!(balances, vec![1010, 990, 990, 990]);
    // A move was played: the staked (rated) set moved WsA's rating.
    assert_ne!(app.get_bot("WsA").await.body["rating"], rating_a);
    let r = withdraw(&app, &id, "WsC", "forfeit").await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::CONFLICT, "already_withdrawn")
    );
    assert_eq!(r.body["error"]["details"]["withdrawn"]["round"], 1);

    // WsD withdraws before anyone moved in its set: forfeited unplayed, no rating moves.
    let rating_b = app.get_bot("WsB").await.body["rating"].clone();
    let r = withdraw(&app, &id, "WsD", "forfeit").await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(app.get_set(&bd).await.body["result"], "WsB wins by forfeit");
    assert_eq!(app.get_bot("WsB").await.body["rating"], rating_b);

    // Round 2 pairs the two left; the withdrawn are in no pairing, bye or absent list.
    let t = wait_for(&app, &id, |t| t["current_round"] == 2).await;
    let r1 = &t["rounds_played"][0];
    let p = pairing(&t, 1, "WsA", "WsC");
    assert_eq!(
        (
            p["status"].clone(),
            p["result"].clone(),
            p["withdrawn"].clone()
        ),
        (
            json!("finished"),
            json!("WsA wins by forfeit"),
            json!("WsC")
        ),
        "{r1}"
    );
    let p = pairing(&t, 1, "WsB", "WsD");
    assert_eq!(p["status"], "forfeit", "unplayed: nobody moved");
    assert_eq!(p["set_id"], json!(bd));
    assert_eq!(seated(&t["rounds_played"][1]), vec!["WsA", "WsB"]);
    let ab = set_of(&app, &id, 2, "WsA", "WsB").await;
    // Each round-1 pot paid once (to WsA's and WsB's owners), and their round-2 stakes escrowed.
    assert_eq!(futures_balances(&app, &b).await, vec![1000, 1000, 990, 990]);
    let wsb = b.iter().find(|x| x.name == "WsB").expect("WsB");
    lose_set(&app, &ab, wsb).await;
    let t = wait_for(&app, &id, |t| t["status"] == "finished").await;
    assert_eq!(futures_balances(&app, &b).await, vec![1020, 1000, 990, 990]);
    assert_eq!(standing(&t, "WsA")["rank"], 1);
    assert_eq!(standing(&t, "WsA")["points"], 2.0);
    assert_eq!(standing(&t, "WsD")["withdrawn"]["round"], 1);
    // The set forfeited before a move is an unplayed round (`+`), the one with a move played.
    assert_eq!(cross(&t, "WsB", "WsD"), "+");
    assert_eq!(cross(&t, "WsD", "WsB"), "-");
    assert_eq!(cross(&t, "WsA", "WsC"), "1");
    assert_eq!(standing(&t, "WsB")["points"], 1.0);
    let r = withdraw(&app, &id, "WsA", "finish").await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::CONFLICT, "tournament_state")
    );
    assert_eq!(r.body["error"]["details"]["status"], "finished");
}

/// The balances of the bots' owners, in the bots' order.
async fn futures_balances(app: &TestApp, bots: &[Bot]) -> Vec<i64> {
    let mut out = vec![];
    for b in bots {
        out.push(app.balance(&b.player).await);
    }
    out
}

#[tokio::test]
async fn a_round_robin_scores_a_withdrawn_bots_remaining_pairings_as_forfeits_and_annuls_one_under_half()
 {
    let app = common::spawn_app().await;
    let b = bots(&app, &["RrA", "RrB", "RrC", "RrD"]).await;
    let bot = |n: &str| b.iter().find(|x| x.name == n).expect("bot");
    let id = create(
        &app,
        json!({"name": "Robin", "format": "round_robin",
               "participants": ["RrA", "RrB", "RrC", "RrD"],
               "options": {"size": 9, "random_stones": 0}, "max_concurrent": 4}),
    )
    .await;
    // Circle method for 4: round 1 D-A, C-B; round 2 B-D, C-A; round 3 D-C, B-A.
    let da = set_of(&app, &id, 1, "RrD", "RrA").await;
    let cb = set_of(&app, &id, 1, "RrC", "RrB").await;
    lose_set(&app, &cb, bot("RrC")).await;
    resign(&app, &da, 1, bot("RrD")).await;
    // RrD withdraws with its set in play and lets it finish: it counts (played, lost).
    let r = withdraw(&app, &id, "RrD", "finish").await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(app.get_set(&da).await.body["status"], "active");
    resign(&app, &da, 2, bot("RrD")).await;
    // Round 2: RrB-RrD is a forfeit won by RrB at once; RrC-RrA plays.
    let ca = set_of(&app, &id, 2, "RrC", "RrA").await;
    let t = app.get_tournament(&id).await.body;
    let p = pairing(&t, 2, "RrB", "RrD");
    assert_eq!(
        (
            p["status"].clone(),
            p["result"].clone(),
            p["withdrawn"].clone()
        ),
        (json!("forfeit"), json!("RrB wins by forfeit"), json!("RrD")),
    );
    assert_eq!(p["set_id"], Value::Null);
    resign(&app, &ca, 1, bot("RrC")).await;
    let r = withdraw(&app, &id, "RrA", "finish").await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    resign(&app, &ca, 2, bot("RrC")).await;
    let t = wait_for(&app, &id, |t| t["status"] == "finished").await;
    // Round 3 was forfeits only: RrD-RrC to RrC, RrB-RrA to RrB.
    assert_eq!(
        pairing(&t, 3, "RrD", "RrC")["result"],
        "RrC wins by forfeit"
    );
    assert_eq!(
        pairing(&t, 3, "RrB", "RrA")["result"],
        "RrB wins by forfeit"
    );
    // RrD played 1 of its 3 sets: under half, so nothing of its pairings counts for the others
    // and it ranks last. RrA played 2 of 3: its results and forfeit stand.
    let rows: Vec<(String, f64, i64, bool)> = t["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .map(|r| {
            (
                r["bot"].as_str().expect("bot").to_string(),
                r["points"].as_f64().expect("points"),
                r["sets"].as_i64().expect("sets"),
                r["annulled"].as_bool().expect("annulled"),
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            ("RrB".into(), 2.0, 2, false),
            ("RrA".into(), 1.0, 2, false),
            ("RrC".into(), 0.0, 2, false),
            ("RrD".into(), 0.0, 3, true),
        ]
    );
    assert_eq!(standing(&t, "RrA")["withdrawn"]["round"], 2);
    assert_eq!(standing(&t, "RrD")["withdrawn"]["round"], 1);
    // RrB's Buchholz: RrC's 0, and for its unplayed round against RrA a dummy opponent on
    // RrB's own 2 points (FIDE C.07 art. 16.4); nothing of RrD's.
    assert_eq!(standing(&t, "RrB")["buchholz"], 2.0);
    // RrC's: RrA and RrB on 1 point each plus half a point for their unplayed round against
    // RrA / RrB (an opponent's unplayed round counts as a draw, art. 16.3).
    assert_eq!(standing(&t, "RrC")["buchholz"], 1.5 + 1.5);
    // The crosstable keeps every result, forfeits marked.
    assert_eq!(t["crosstable"]["bots"], json!(["RrB", "RrA", "RrC", "RrD"]));
    assert_eq!(
        t["crosstable"]["rows"][0]["results"],
        json!([null, "+", "1", "+"])
    );
    assert_eq!(
        t["crosstable"]["rows"][3]["results"],
        json!(["-", "0", "-", null])
    );
}

#[tokio::test]
async fn an_absent_bot_is_withdrawn_after_two_forfeits_in_a_row_and_costs_no_more_windows() {
    let app = common::spawn_app().await;
    let here = bots(&app, &["AbA", "AbB", "AbC"]).await;
    app.player_with_bot("AbGone").await; // never connects
    let id = create(
        &app,
        json!({"name": "Absence", "format": "round_robin",
               "participants": ["AbA", "AbB", "AbC", "AbGone"],
               "options": {"size": 9, "random_stones": 0}, "max_concurrent": 4,
               "absent": "forfeit", "forfeit_after_s": 0}),
    )
    .await;
    let bot = |n: &str| here.iter().find(|x| x.name == n).expect("bot");
    // Round 1: AbGone-AbA forfeited at once (a 0 s window), AbC-AbB plays.
    let cb = set_of(&app, &id, 1, "AbC", "AbB").await;
    lose_set(&app, &cb, bot("AbC")).await;
    // Round 2: AbB-AbGone forfeited: the second in a row, so the arena withdraws AbGone.
    let ca = set_of(&app, &id, 2, "AbC", "AbA").await;
    let t = app.get_tournament(&id).await.body;
    let gone = standing(&t, "AbGone");
    assert_eq!(gone["withdrawn"]["by"], "absence", "{t}");
    assert_eq!(gone["withdrawn"]["round"], 2);
    for (round, other) in [(1, "AbA"), (2, "AbB")] {
        let p = pairing(&t, round, "AbGone", other);
        assert_eq!(p["status"], "forfeit");
        assert_eq!(p["withdrawn"], Value::Null, "lost by absence");
    }
    lose_set(&app, &ca, bot("AbC")).await;
    // Round 3: AbGone-AbC is a withdrawal's forfeit, made when the round is paired.
    let ba = set_of(&app, &id, 3, "AbB", "AbA").await;
    let t = app.get_tournament(&id).await.body;
    let p = pairing(&t, 3, "AbGone", "AbC");
    assert_eq!(
        (p["status"].clone(), p["withdrawn"].clone()),
        (json!("forfeit"), json!("AbGone"))
    );
    lose_set(&app, &ba, bot("AbB")).await;
    let t = wait_for(&app, &id, |t| t["status"] == "finished").await;
    assert_eq!(standing(&t, "AbGone")["points"], 0.0);
    assert_eq!(standing(&t, "AbGone")["annulled"], true, "it played no set");
    assert_eq!(standing(&t, "AbA")["points"], 2.0);
    assert_eq!(standing(&t, "AbB")["points"], 1.0);
    // The CSV carries the marks too, in columns after the old ones (issue 18, report #5).
    let (status, csv) = app.get_text(&paths::standings_csv(&id)).await;
    assert_eq!(status, StatusCode::OK);
    let head: Vec<&str> = csv.lines().next().expect("header").split(',').collect();
    assert_eq!(
        head[15..],
        [
            "refused_moves",
            "withdrawn_round",
            "withdrawn_by",
            "annulled"
        ]
    );
    let gone = csv
        .lines()
        .find(|l| l.split(',').nth(1) == Some("AbGone"))
        .expect("AbGone's row");
    assert!(gone.ends_with(",0,2,absence,true"), "{gone}");
    let a = csv
        .lines()
        .find(|l| l.split(',').nth(1) == Some("AbA"))
        .expect("AbA's row");
    assert!(a.ends_with(",0,,,false"), "{a}");
}

#[tokio::test]
async fn a_set_playing_when_its_tournament_is_cancelled_leaves_its_pairing_finished_with_its_result()
 {
    let app = common::spawn_app().await;
    let b = bots(&app, &["CxA", "CxB", "CxC", "CxD"]).await;
    let id = create(
        &app,
        json!({"name": "Cancelled", "format": "swiss", "rounds": 2,
               "participants": ["CxA", "CxB", "CxC", "CxD"],
               "options": {"size": 9, "random_stones": 0}, "max_concurrent": 1}),
    )
    .await;
    // One set at a time: CxA-CxC plays, CxB-CxD waits.
    let ac = set_of(&app, &id, 1, "CxA", "CxC").await;
    let r = app.cancel_tournament(Some(OP), &id, json!({})).await;
    assert_eq!(r.body["status"], "cancelled");
    assert_eq!(pairing(&r.body, 1, "CxB", "CxD")["status"], "cancelled");
    assert_eq!(pairing(&r.body, 1, "CxA", "CxC")["status"], "playing");
    let r = withdraw(&app, &id, "CxA", "forfeit").await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::CONFLICT, "tournament_state")
    );
    // The set plays on and ends; its pairing records the result instead of staying `playing`.
    lose_set(&app, &ac, &b[2]).await;
    let t = wait_for(&app, &id, |t| {
        pairing(t, 1, "CxA", "CxC")["status"] != "playing"
    })
    .await;
    let p = pairing(&t, 1, "CxA", "CxC");
    assert_eq!(
        (
            p["status"].clone(),
            p["points"].clone(),
            p["result"].clone()
        ),
        (json!("finished"), json!([1.0, 0.0]), json!("CxA wins")),
        "{t}"
    );
    assert_eq!(standing(&t, "CxA")["points"], 1.0);
    assert_eq!(t["status"], "cancelled");
    assert_eq!(t["current_round"], 1, "no round is paired after the cancel");
}

#[tokio::test]
async fn a_pairing_waiting_on_an_absent_bot_names_the_bot_it_waits_for() {
    let app = common::spawn_app().await;
    bots(&app, &["WaHere", "WaOn1", "WaOn2"]).await;
    app.player_with_bot("WaAway").await; // never connects
    let id = create(
        &app,
        json!({"name": "Waiting", "format": "round_robin",
               "participants": ["WaHere", "WaAway", "WaOn1", "WaOn2"],
               "options": {"size": 9, "random_stones": 0}, "absent": "wait"}),
    )
    .await;
    let t = wait_for(&app, &id, |t| {
        t["rounds_played"][0]["pairings"]
            .as_array()
            .is_some_and(|ps| ps.iter().any(|p| p["status"] == "playing"))
    })
    .await;
    for p in t["rounds_played"][0]["pairings"]
        .as_array()
        .expect("pairings")
    {
        let waits = if p["bots"]
            .as_array()
            .expect("bots")
            .contains(&json!("WaAway"))
        {
            assert_eq!(p["status"], "pending", "{p}");
            json!(["WaAway"])
        } else {
            json!([])
        };
        assert_eq!(p["waiting_for"], waits, "{p}");
    }
}

#[tokio::test]
async fn a_gauntlets_absence_streak_counts_rounds_and_equally_absent_opponents_score_alike() {
    let app = common::spawn_app().await;
    let names = ["GaFirst", "GaB", "GaC", "GaD"];
    for n in names {
        app.player_with_bot(n).await; // nobody ever connects
    }
    let id = create(
        &app,
        json!({"name": "Empty hall", "format": "gauntlet", "participants": names, "cycles": 2,
               "options": {"size": 9, "random_stones": 0}, "max_concurrent": 4,
               "absent": "forfeit", "forfeit_after_s": 0}),
    )
    .await;
    let t = wait_for(&app, &id, |t| t["status"] == "finished").await;
    let rounds = t["rounds_played"].as_array().expect("rounds");
    assert_eq!(rounds.len(), 2, "one missed window is no streak: {t}");
    for r in rounds {
        for p in r["pairings"].as_array().expect("pairings") {
            assert_eq!(
                (
                    p["status"].clone(),
                    p["points"].clone(),
                    p["withdrawn"].clone()
                ),
                (json!("forfeit"), json!([0.0, 0.0]), Value::Null),
                "every board a double forfeit: {t}"
            );
        }
    }
    let first = standing(&t, "GaFirst");
    assert_eq!(first["withdrawn"]["by"], "absence", "{t}");
    assert_eq!(first["withdrawn"]["round"], 2, "{t}");
    for n in &names[1..] {
        assert_eq!(standing(&t, n)["points"], 0.0, "{n}: {t}");
    }
}
