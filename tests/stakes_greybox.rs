//! Stakes, the ledger, ratings and the leaderboard (SPEC section 8), over HTTP: sets won 2-0,
//! 1-1 on the tiebreak, level on moves (the pot is split), by resignation and on time; the fee;
//! the stake checks; practice sets; a settlement that never pays twice; the set list.
//!
//! Grey-box (issue 19): every test's `World::check` also sums the money in the database (the
//! fees and escrow accounts, all balances, all grants: that no PTS was made or lost), which no
//! route shows; the on-time test calls the expiry sweep in-process (`app.arena.expire`) on a
//! fake clock, and the repeated-settlement test settles again and writes a ledger transfer
//! itself. So the whole file is here rather than in a black-box `stakes.rs`.
//!
//! Every expectation is computed here, independently of the server: balances and ledger rows
//! from the stakes, ratings from the Elo formula with K = 32, and the Glicko-2 figures beside
//! them (issue 20) from Glickman's steps (`common::glicko`).

mod common;

use std::sync::Arc;

use common::glicko::{self, G};
use common::{Resp, Spawn, TestApp, spawn_app, spawn_with};
use hexarena::arena::clock::FakeTime;
use hexarena::store::ledger::{self, Posting};
use reqwest::StatusCode;
use serde_json::{Value, json};

const START: i64 = 1000;

fn options() -> Value {
    json!({"size": 9, "random_stones": 0})
}

fn cell(r: u8, c: u8) -> Value {
    json!({"cell": [r, c]})
}

/// Alternates two cell lists (seat 1 first) into one move list of `len` moves.
fn interleave(seat1: &[(u8, u8)], seat2: &[(u8, u8)], len: usize) -> Vec<Value> {
    (0..len)
        .map(|i| {
            if i % 2 == 0 {
                seat1[i / 2]
            } else {
                seat2[i / 2]
            }
        })
        .map(|(r, c)| cell(r, c))
        .collect()
}

/// Seat 1 wins by connection on its `9 + extra`th move (ply `2 * (9 + extra) - 1`): `extra`
/// stones down column 2, then column 0 from top to bottom. Seat 2 answers down columns 5 and 7,
/// which never touch the left edge.
fn seat1_wins(extra: u8) -> Vec<Value> {
    let mut s1: Vec<(u8, u8)> = (0..extra).map(|r| (r, 2)).collect();
    s1.extend((0..9).map(|r| (r, 0)));
    let s2: Vec<(u8, u8)> = (0..9)
        .map(|r| (r, 5))
        .chain((0..9).map(|r| (r, 7)))
        .collect();
    interleave(&s1, &s2, 2 * s1.len() - 1)
}

/// Seat 2 wins by connection on its `9 + extra`th move (ply `2 * (9 + extra)`): `extra` stones
/// along row 2, then row 0 from left to right. Seat 1 plays along rows 4 and 6, which never
/// touch the top edge.
fn seat2_wins(extra: u8) -> Vec<Value> {
    let mut s2: Vec<(u8, u8)> = (0..extra).map(|c| (2, c)).collect();
    s2.extend((0..9).map(|c| (0, c)));
    let s1: Vec<(u8, u8)> = (0..9)
        .map(|c| (4, c))
        .chain((0..9).map(|c| (6, c)))
        .collect();
    interleave(&s1, &s2, 2 * s2.len())
}

/// Elo with K = 32 (skillratings' `EloConfig::new()`), from the formula:
/// expected = 1 / (1 + 10^((rb - ra) / 400)); new = r + 32 * (score - expected).
fn elo(ra: f64, rb: f64, score_a: f64) -> (f64, f64) {
    let ea = 1.0 / (1.0 + 10f64.powf((rb - ra) / 400.0));
    let eb = 1.0 / (1.0 + 10f64.powf((ra - rb) / 400.0));
    (
        ra + 32.0 * (score_a - ea),
        rb + 32.0 * ((1.0 - score_a) - eb),
    )
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Creator,
    Acceptor,
    Draw,
}

/// A player as the test expects it to be.
#[derive(Clone, Debug)]
struct Owner {
    id: String,
    token: String,
    balance: i64,
    escrow: i64,
    /// Expected ledger rows, oldest first: `{"kind", "amount", "set_id"}`.
    postings: Vec<Value>,
}

/// A bot as the test expects it to be.
#[derive(Clone, Debug)]
struct Bot {
    name: String,
    token: String,
    owner: usize,
    rating: f64,
    /// Glicko-2 (issue 20); every set of these tests ends within a day of the last.
    glicko: G,
    sets: i64,
    w: i64,
    d: i64,
    l: i64,
    won: i64,
    net: i64,
}

/// The expected state of every player and bot of one arena.
struct World {
    owners: Vec<Owner>,
    bots: Vec<Bot>,
    fee_bps: i64,
    fees: i64,
}

impl World {
    fn new(fee_bps: i64) -> World {
        World {
            owners: vec![],
            bots: vec![],
            fee_bps,
            fees: 0,
        }
    }

    /// Registers a new player with one bot; returns the bot's index.
    async fn add(&mut self, app: &TestApp, name: &str) -> usize {
        let (id, pt, bt) = app.player_with_bot(name).await;
        self.owners.push(Owner {
            id,
            token: pt,
            balance: START,
            escrow: 0,
            postings: vec![json!({"kind": "grant", "amount": START, "set_id": null})],
        });
        self.bots.push(Bot {
            name: name.into(),
            token: bt,
            owner: self.owners.len() - 1,
            rating: 1200.0,
            glicko: glicko::NEW,
            sets: 0,
            w: 0,
            d: 0,
            l: 0,
            won: 0,
            net: 0,
        });
        self.bots.len() - 1
    }

    fn owner_of(&self, bot: usize) -> &Owner {
        &self.owners[self.bots[bot].owner]
    }

    fn post(&mut self, bot: usize, kind: &str, amount: i64, set_id: &str) {
        let o = &mut self.owners[self.bots[bot].owner];
        o.balance += amount;
        o.postings
            .push(json!({"kind": kind, "amount": amount, "set_id": set_id}));
    }

    /// Both owners pay `stake` into escrow at accept.
    fn escrow(&mut self, set_id: &str, creator: usize, acceptor: usize, stake: i64) {
        for b in [creator, acceptor] {
            self.post(b, "escrow", -stake, set_id);
            self.owners[self.bots[b].owner].escrow += stake;
        }
    }

    /// The end of a staked, rated set: payout or refunds, W/D/L, won/net and Elo.
    fn settle(
        &mut self,
        set_id: &str,
        creator: usize,
        acceptor: usize,
        stake: i64,
        outcome: Outcome,
    ) {
        let pot = 2 * stake;
        let fee = pot * self.fee_bps / 10_000;
        for b in [creator, acceptor] {
            self.owners[self.bots[b].owner].escrow -= stake;
        }
        let (rc, ra) = (self.bots[creator].rating, self.bots[acceptor].rating);
        let score = match outcome {
            Outcome::Creator => 1.0,
            Outcome::Acceptor => 0.0,
            Outcome::Draw => 0.5,
        };
        let (nc, na) = elo(rc, ra, score);
        self.bots[creator].rating = nc;
        self.bots[acceptor].rating = na;
        let (gc, ga) = glicko::set(self.bots[creator].glicko, self.bots[acceptor].glicko, score);
        self.bots[creator].glicko = gc;
        self.bots[acceptor].glicko = ga;
        for b in [creator, acceptor] {
            self.bots[b].sets += 1;
        }
        match outcome {
            Outcome::Draw => {
                self.post(creator, "refund", stake, set_id);
                self.post(acceptor, "refund", stake, set_id);
                self.bots[creator].d += 1;
                self.bots[acceptor].d += 1;
            }
            Outcome::Creator | Outcome::Acceptor => {
                let (w, l) = if outcome == Outcome::Creator {
                    (creator, acceptor)
                } else {
                    (acceptor, creator)
                };
                self.post(w, "payout", pot - fee, set_id);
                self.fees += fee;
                self.bots[w].w += 1;
                self.bots[w].won += stake - fee;
                self.bots[w].net += stake - fee;
                self.bots[l].l += 1;
                self.bots[l].net -= stake;
            }
        }
    }

    /// Compares every player (balance, escrow, ledger), every bot profile and the leaderboard
    /// with the expectations, and checks that money is conserved.
    async fn check(&self, app: &TestApp) {
        for o in &self.owners {
            let me = app.get_player(Some(&o.token)).await;
            assert_eq!(me.status, StatusCode::OK, "{:?}", me.body);
            assert_eq!(me.body["balance"], o.balance, "balance of {}", o.id);
            assert_eq!(me.body["escrow"], o.escrow, "escrow of {}", o.id);
            let l = app.ledger(Some(&o.token), "limit=500").await;
            assert_eq!(l.status, StatusCode::OK, "{:?}", l.body);
            assert_eq!(l.body["balance"], o.balance);
            let got: Vec<Value> = l.body["postings"]
                .as_array()
                .expect("postings")
                .iter()
                .map(|p| json!({"kind": p["kind"], "amount": p["amount"], "set_id": p["set_id"]}))
                .collect();
            let want: Vec<Value> = o.postings.iter().rev().cloned().collect();
            assert_eq!(got, want, "ledger of {} (newest first)", o.id);
        }
        for b in &self.bots {
            let p = app.get_bot(&b.name).await;
            assert_eq!(p.status, StatusCode::OK, "{:?}", p.body);
            let exact = p.body["rating_exact"].as_f64().expect("rating_exact");
            assert!(
                (exact - b.rating).abs() < 1e-9,
                "{}: rating {exact}, expected {}",
                b.name,
                b.rating
            );
            assert_eq!(p.body["rating"], b.rating.round() as i64, "{}", b.name);
            let served = G {
                r: p.body["glicko_rating"].as_f64().expect("glicko_rating"),
                rd: p.body["rating_deviation"]
                    .as_f64()
                    .expect("rating_deviation"),
                sigma: p.body["rating_volatility"]
                    .as_f64()
                    .expect("rating_volatility"),
            };
            assert!(
                glicko::close(served, b.glicko, 1e-6),
                "{}: Glicko-2 {served:?}, expected {:?}",
                b.name,
                b.glicko
            );
            assert_eq!(p.body["provisional"], b.glicko.rd > 110.0, "{}", b.name);
            for (field, want) in [
                ("sets", b.sets),
                ("w", b.w),
                ("d", b.d),
                ("l", b.l),
                ("won", b.won),
                ("net", b.net),
            ] {
                assert_eq!(p.body[field], want, "{}: {field}", b.name);
            }
        }
        self.check_leaderboard(app).await;
        let m = money(app).await;
        assert_eq!(m.fees, self.fees, "fees account");
        assert_eq!(
            m.escrow,
            self.owners.iter().map(|o| o.escrow).sum::<i64>(),
            "escrow accounts"
        );
        assert_eq!(
            m.balances + m.escrow + m.fees,
            m.grants,
            "balances + escrow + fees == grants: {m:?}"
        );
    }

    async fn check_leaderboard(&self, app: &TestApp) {
        let r = app.leaderboard("game=hex&limit=10").await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        assert_eq!(r.body["game"], "hex");
        let rows = r.body["rows"].as_array().expect("rows");
        let ours: Vec<&Value> = rows.iter().filter(|row| row["house"] != true).collect();
        assert_eq!(ours.len(), self.bots.len().min(10), "{rows:?}");
        let mut keys = vec![];
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(row["rank"], i + 1, "{rows:?}");
            // The Glicko-2 fields (issue 20) are compared within float noise; the rest of
            // the row exactly, as before.
            let mut row = row.clone();
            let mut take = |k: &str| {
                row.as_object_mut()
                    .and_then(|o| o.remove(k))
                    .unwrap_or_else(|| panic!("leaderboard row without {k}"))
            };
            let (gr, rd, prov) = (
                take("glicko_rating"),
                take("rating_deviation"),
                take("provisional"),
            );
            let row = &row;
            if row["house"] == true {
                keys.push((1200.0, 0));
                continue;
            }
            let name = row["bot"].as_str().expect("bot");
            let b = self
                .bots
                .iter()
                .find(|b| b.name == name)
                .unwrap_or_else(|| panic!("unknown bot {name}"));
            let want = json!({
                "rank": i + 1, "bot": b.name, "rating": b.rating.round() as i64, "sets": b.sets,
                "w": b.w, "d": b.d, "l": b.l, "won": b.won, "net": b.net,
                "owner": self.owners[b.owner].id, "house": false,
                // The harness names each bot's owner after it (common::player_with_bot).
                "owner_name": format!("owner of {}", b.name),
            });
            assert_eq!(*row, want);
            assert!(
                (gr.as_f64().expect("glicko_rating") - b.glicko.r).abs() < 1e-6
                    && (rd.as_f64().expect("rating_deviation") - b.glicko.rd).abs() < 1e-6,
                "{}: Glicko-2 {gr} +- {rd}, expected {:?}",
                b.name,
                b.glicko
            );
            assert_eq!(prov, json!(b.glicko.rd > 110.0), "{}", b.name);
            keys.push((b.rating, b.sets));
        }
        // Ordered by rating (then sets played), highest first.
        for pair in keys.windows(2) {
            assert!(
                pair[0].0 > pair[1].0 || (pair[0].0 == pair[1].0 && pair[0].1 >= pair[1].1),
                "order: {keys:?}"
            );
        }
    }
}

/// Where all PTS are, from the database.
#[derive(Debug)]
struct Money {
    balances: i64,
    escrow: i64,
    fees: i64,
    grants: i64,
}

async fn money(app: &TestApp) -> Money {
    let mut c = app.arena.store.pool.acquire().await.expect("connection");
    let mut sum = async |sql: &str| -> i64 {
        // A BIGINT sum is NUMERIC on PostgreSQL, which the Any driver cannot read: cast it.
        let (v,): (Option<i64>,) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT CAST(({sql}) AS BIGINT)"
        )))
        .fetch_one(&mut *c)
        .await
        .expect(sql);
        v.unwrap_or(0)
    };
    Money {
        balances: sum("SELECT SUM(balance) FROM players").await,
        escrow: sum("SELECT SUM(amount) FROM ledger WHERE account LIKE 'escrow:%'").await,
        fees: sum("SELECT SUM(amount) FROM ledger WHERE account = 'fees'").await,
        grants: sum(
            "SELECT SUM(amount) FROM ledger WHERE kind = 'grant' AND account LIKE 'player:%'",
        )
        .await,
    }
}

/// Creates a staked set on the 9x9 board without opening stones, and accepts it.
async fn start(
    app: &TestApp,
    w: &mut World,
    creator: usize,
    acceptor: usize,
    stake: i64,
    clock: Option<Value>,
) -> String {
    let mut body = json!({"options": options(), "stake": stake});
    if let Some(c) = clock {
        body["clock"] = c;
    }
    let id = app
        .start_set(&w.bots[creator].token, &w.bots[acceptor].token, body)
        .await;
    w.escrow(&id, creator, acceptor, stake);
    id
}

/// Seat tokens of a game: game 1 seats the acceptor as seat 1, game 2 the creator.
fn seats(w: &World, creator: usize, acceptor: usize, game_no: i64) -> [String; 2] {
    let (c, a) = (
        w.bots[creator].token.clone(),
        w.bots[acceptor].token.clone(),
    );
    if game_no == 1 { [a, c] } else { [c, a] }
}

/// Plays `moves` alternately (seat 1 first, each with its `?ply=`); returns the final state,
/// which must be finished by connection.
async fn play(
    app: &TestApp,
    tokens: &[String; 2],
    set_id: &str,
    game_no: i64,
    moves: &[Value],
) -> Value {
    let mut last = Value::Null;
    for (i, mv) in moves.iter().enumerate() {
        let r = app
            .play(
                &tokens[i % 2],
                set_id,
                game_no,
                mv.clone(),
                Some(i as i64 + 1),
            )
            .await;
        assert_eq!(
            r.status,
            StatusCode::OK,
            "game {game_no} move {} {mv} refused: {:?}",
            i + 1,
            r.body
        );
        last = r.body;
    }
    assert_eq!(
        last["status"], "finished",
        "game {game_no} did not end: {last}"
    );
    assert_eq!(last["ply"], moves.len());
    assert_eq!(last["result"]["reason"], "connection");
    last
}

async fn resign(app: &TestApp, token: &str, set_id: &str, game_no: i64) -> Resp {
    app.resign(Some(token), &set_id, &game_no, json!({})).await
}

async fn get_set(app: &TestApp, id: &str) -> Value {
    let r = app.get_set(&id).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    r.body
}

/// Checks a finished set's result, points and stake in its full view and in the list rows.
async fn check_set(
    app: &TestApp,
    id: &str,
    result: &str,
    winner: Option<&str>,
    points: [f64; 2],
    stake: i64,
) -> Value {
    let s = get_set(app, id).await;
    assert_eq!(s["status"], "finished");
    assert_eq!(s["result"], result);
    assert_eq!(s["winner"], json!(winner));
    assert_eq!(s["points"], json!(points.map(points_value)));
    assert_eq!(s["stake"], stake);
    let creator = s["creator"].as_str().expect("creator");
    let list = app
        .list_sets(&format!("bot={creator}&status=finished&limit=100"))
        .await;
    assert_eq!(list.status, StatusCode::OK);
    let row = list.body["sets"]
        .as_array()
        .expect("sets")
        .iter()
        .find(|r| r["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("set {id} not listed"));
    for f in [
        "status",
        "result",
        "points",
        "stake",
        "winner",
        "creator",
        "acceptor",
        "started_at",
        "finished_at",
    ] {
        assert_eq!(row[f], s[f], "list row field {f}");
    }
    s
}

/// 1.0 -> 1, 0.5 -> 0.5, as the API writes points.
fn points_value(p: f64) -> Value {
    if p.fract() == 0.0 {
        json!(p as i64)
    } else {
        json!(p)
    }
}

#[tokio::test]
async fn a_set_won_two_nil_pays_the_whole_pot_to_the_winners_owner_and_moves_both_ratings() {
    let app = spawn_app().await;
    let mut w = World::new(0);
    let (alpha, bravo) = (w.add(&app, "Alpha").await, w.add(&app, "Bravo").await);
    w.check(&app).await;

    let id = start(&app, &mut w, alpha, bravo, 50, None).await;
    // Both stakes sit in escrow while the set runs.
    w.check(&app).await;
    assert_eq!(money(&app).await.escrow, 100);

    // Game 1: Alpha (creator) is seat 2 and connects left-right.
    let g1 = play(&app, &seats(&w, alpha, bravo, 1), &id, 1, &seat2_wins(0)).await;
    assert_eq!(g1["result"]["winner_bot"], "Alpha");
    let mid = get_set(&app, &id).await;
    assert_eq!(mid["status"], "active");
    assert_eq!(mid["points"], json!([1, 0]));
    assert_eq!(mid["result"], Value::Null);
    assert_eq!(mid["settlement"], Value::Null);
    w.check(&app).await;

    // Game 2: Alpha is seat 1 and connects top-bottom.
    let g2 = play(&app, &seats(&w, alpha, bravo, 2), &id, 2, &seat1_wins(0)).await;
    assert_eq!(g2["result"]["winner_bot"], "Alpha");
    w.settle(&id, alpha, bravo, 50, Outcome::Creator);
    let s = check_set(&app, &id, "Alpha wins", Some("Alpha"), [2.0, 0.0], 50).await;
    let alpha_owner = w.owner_of(alpha).id.clone();
    assert_eq!(
        s["settlement"],
        json!({"pot": 100, "fee": 0, "payouts": [{"player": alpha_owner, "player_name": format!("owner of {}", w.bots[alpha].name), "kind": "payout", "amount": 100}]})
    );
    assert_eq!(s["games"][0]["moves_used"], json!([9, 9]));
    assert_eq!(s["games"][1]["moves_used"], json!([9, 8]));
    w.check(&app).await;

    // Exact numbers, besides the model: 1000 - 50 + 100 and 1000 - 50; 1200 +- 16.
    assert_eq!(w.owner_of(alpha).balance, 1050);
    assert_eq!(w.owner_of(bravo).balance, 950);
    assert_eq!(
        (w.bots[alpha].rating, w.bots[bravo].rating),
        (1216.0, 1184.0)
    );
    let board = app.leaderboard("game=hex&limit=10").await;
    assert_eq!(board.body["rows"][0]["bot"], "Alpha");
    assert_eq!(board.body["rows"][0]["rating"], 1216);
    assert_eq!(board.body["rows"][1]["bot"], "Bravo");
    assert_eq!(board.body["rows"][1]["rating"], 1184);
}

#[tokio::test]
async fn a_one_all_set_goes_to_the_bot_with_fewer_moves_in_its_won_game_on_the_tiebreak() {
    let app = spawn_app().await;
    let mut w = World::new(0);
    let (alpha, bravo, charlie) = (
        w.add(&app, "Alpha").await,
        w.add(&app, "Bravo").await,
        w.add(&app, "Charlie").await,
    );

    // First Alpha beats Bravo 2-0, so the ratings differ before the tiebreak set.
    let first = start(&app, &mut w, alpha, bravo, 20, None).await;
    play(&app, &seats(&w, alpha, bravo, 1), &first, 1, &seat2_wins(0)).await;
    play(&app, &seats(&w, alpha, bravo, 2), &first, 2, &seat1_wins(0)).await;
    w.settle(&first, alpha, bravo, 20, Outcome::Creator);
    w.check(&app).await;

    // Bravo (1184) challenges Alpha (1216). Game 1: Alpha (acceptor, seat 1) wins with 10 moves;
    // game 2: Bravo (creator, seat 1) wins with 9 moves. 1-1, and Bravo used fewer moves.
    let id = start(&app, &mut w, bravo, alpha, 100, None).await;
    let g1 = play(&app, &seats(&w, bravo, alpha, 1), &id, 1, &seat1_wins(1)).await;
    assert_eq!(
        (g1["ply"].as_i64(), g1["result"]["winner_bot"].as_str()),
        (Some(19), Some("Alpha"))
    );
    let g2 = play(&app, &seats(&w, bravo, alpha, 2), &id, 2, &seat1_wins(0)).await;
    assert_eq!(
        (g2["ply"].as_i64(), g2["result"]["winner_bot"].as_str()),
        (Some(17), Some("Bravo"))
    );
    w.settle(&id, bravo, alpha, 100, Outcome::Creator);
    let s = check_set(
        &app,
        &id,
        "Bravo wins on the tiebreak",
        Some("Bravo"),
        [1.0, 1.0],
        100,
    )
    .await;
    assert_eq!(s["games"][0]["moves_used"], json!([10, 9]));
    assert_eq!(s["games"][1]["moves_used"], json!([9, 8]));
    w.check(&app).await;

    // Independently of the model: 980 - 100 + 200 for Bravo's owner, 1020 - 100 for Alpha's.
    assert_eq!(w.owner_of(bravo).balance, 1080);
    assert_eq!(w.owner_of(alpha).balance, 920);
    let e = 1.0 / (1.0 + 10f64.powf((1216.0 - 1184.0) / 400.0));
    assert!((w.bots[bravo].rating - (1184.0 + 32.0 * (1.0 - e))).abs() < 1e-12);
    assert!(
        w.bots[bravo].rating > w.bots[alpha].rating,
        "the underdog's win moves it above the favourite"
    );

    // The same with seat 2's wins: Charlie (acceptor) takes game 2 as seat 2 with 9 moves, Bravo
    // game 1 as seat 2 with 11 moves: Charlie wins on the tiebreak.
    let id = start(&app, &mut w, bravo, charlie, 30, None).await;
    play(&app, &seats(&w, bravo, charlie, 1), &id, 1, &seat2_wins(2)).await;
    play(&app, &seats(&w, bravo, charlie, 2), &id, 2, &seat2_wins(0)).await;
    w.settle(&id, bravo, charlie, 30, Outcome::Acceptor);
    let s = check_set(
        &app,
        &id,
        "Charlie wins on the tiebreak",
        Some("Charlie"),
        [1.0, 1.0],
        30,
    )
    .await;
    assert_eq!(s["games"][0]["moves_used"], json!([11, 11]));
    w.check(&app).await;
}

#[tokio::test]
async fn a_one_all_set_level_on_moves_is_a_draw_and_returns_both_stakes_exactly() {
    let app = spawn_app().await;
    let mut w = World::new(0);
    let (alpha, bravo) = (w.add(&app, "Alpha").await, w.add(&app, "Bravo").await);
    let first = start(&app, &mut w, alpha, bravo, 30, None).await;
    play(&app, &seats(&w, alpha, bravo, 1), &first, 1, &seat2_wins(0)).await;
    play(&app, &seats(&w, alpha, bravo, 2), &first, 2, &seat1_wins(0)).await;
    w.settle(&first, alpha, bravo, 30, Outcome::Creator);
    w.check(&app).await;
    let before = [w.owner_of(alpha).balance, w.owner_of(bravo).balance];
    assert_eq!(before, [1030, 970]);

    // Each side wins its seat-1 game with 9 moves: level on points and on moves.
    let id = start(&app, &mut w, alpha, bravo, 75, None).await;
    play(&app, &seats(&w, alpha, bravo, 1), &id, 1, &seat1_wins(0)).await;
    play(&app, &seats(&w, alpha, bravo, 2), &id, 2, &seat1_wins(0)).await;
    w.settle(&id, alpha, bravo, 75, Outcome::Draw);
    let s = check_set(&app, &id, "draw", None, [1.0, 1.0], 75).await;
    let refunds = json!([
        {"player": w.owner_of(alpha).id, "player_name": format!("owner of {}", w.bots[alpha].name), "kind": "refund", "amount": 75},
        {"player": w.owner_of(bravo).id, "player_name": format!("owner of {}", w.bots[bravo].name), "kind": "refund", "amount": 75},
    ]);
    assert_eq!(s["settlement"]["pot"], 150);
    assert_eq!(s["settlement"]["fee"], 0);
    let mut payouts = s["settlement"]["payouts"]
        .as_array()
        .expect("payouts")
        .clone();
    payouts.sort_by_key(|p| p["player"].as_str().map(str::to_string));
    let mut want = refunds.as_array().expect("refunds").clone();
    want.sort_by_key(|p| p["player"].as_str().map(str::to_string));
    assert_eq!(payouts, want);
    w.check(&app).await;
    assert_eq!(
        [w.owner_of(alpha).balance, w.owner_of(bravo).balance],
        before,
        "a draw returns each stake exactly"
    );
    // The favourite loses rating on a draw, the underdog gains the same.
    assert!(w.bots[alpha].rating < 1216.0 && w.bots[bravo].rating > 1184.0);
    assert!((w.bots[alpha].rating + w.bots[bravo].rating - 2400.0).abs() < 1e-9);

    // Seat 2 winning both games with 9 moves each is level too.
    let id = start(&app, &mut w, bravo, alpha, 10, None).await;
    play(&app, &seats(&w, bravo, alpha, 1), &id, 1, &seat2_wins(0)).await;
    play(&app, &seats(&w, bravo, alpha, 2), &id, 2, &seat2_wins(0)).await;
    w.settle(&id, bravo, alpha, 10, Outcome::Draw);
    check_set(&app, &id, "draw", None, [1.0, 1.0], 10).await;
    w.check(&app).await;
    assert_eq!(
        [w.owner_of(alpha).balance, w.owner_of(bravo).balance],
        before
    );
}

#[tokio::test]
async fn a_set_won_by_resignations_pays_the_winner_once_however_often_it_is_resigned() {
    let app = spawn_app().await;
    let mut w = World::new(0);
    let (alpha, bravo) = (w.add(&app, "Alpha").await, w.add(&app, "Bravo").await);
    let id = start(&app, &mut w, alpha, bravo, 200, None).await;
    let [b1, _] = seats(&w, alpha, bravo, 1);

    // Game 1: Bravo (seat 1) moves, then resigns while Alpha is on move.
    let r = app.play(&b1, &id, 1, cell(4, 4), Some(1)).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let r = resign(&app, &b1, &id, 1).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(
        r.body["result"],
        json!({"winner": 2, "winner_bot": "Alpha", "reason": "resignation"})
    );

    // Game 2: Alpha (seat 1) moves, Bravo (seat 2, on move) resigns.
    let [a2, b2] = seats(&w, alpha, bravo, 2);
    let r = app.play(&a2, &id, 2, cell(4, 4), Some(1)).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let r = resign(&app, &b2, &id, 2).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(
        r.body["result"],
        json!({"winner": 1, "winner_bot": "Alpha", "reason": "resignation"})
    );
    w.settle(&id, alpha, bravo, 200, Outcome::Creator);
    check_set(&app, &id, "Alpha wins", Some("Alpha"), [2.0, 0.0], 200).await;
    w.check(&app).await;
    assert_eq!(
        [w.owner_of(alpha).balance, w.owner_of(bravo).balance],
        [1200, 800]
    );
    // A bot's own profile has its new record and rating at once, although its token (used
    // for every move above) authenticates from a cache.
    for (token, name, w_l) in [(&a2, "Alpha", (1, 0)), (&b2, "Bravo", (0, 1))] {
        let me = app.get_current_bot(Some(token)).await.body;
        let public = app.get_bot(&name).await.body;
        assert_eq!(me["name"], name);
        assert_eq!(
            (me["sets"].as_i64(), me["w"].as_i64(), me["l"].as_i64()),
            (Some(1), Some(w_l.0), Some(w_l.1))
        );
        assert_eq!(me["rating_exact"], public["rating_exact"]);
        assert_ne!(me["rating_exact"], json!(1200.0), "{name}'s rating moved");
    }

    // Resigning again is the same success for the seat that resigned (a retry, SPEC 14) and
    // 409 game_over for the winner; moving is game_over. None of it pays anything.
    let r = resign(&app, &b2, &id, 2).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["result"]["winner_bot"], "Alpha");
    let r = resign(&app, &a2, &id, 2).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{:?}", r.body);
    assert_eq!(r.code(), "game_over");
    assert_eq!(r.body["error"]["details"]["result"]["winner_bot"], "Alpha");
    let r = resign(&app, &b1, &id, 1).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["result"]["reason"], "resignation");
    let r = app.play(&b2, &id, 2, cell(0, 0), Some(2)).await;
    assert_eq!((r.status, r.code()), (StatusCode::CONFLICT, "game_over"));
    w.check(&app).await;
}

#[tokio::test]
async fn a_set_won_on_time_pays_the_winner_and_strikes_the_bot_that_missed_its_first_move() {
    const T0: i64 = 1_800_000_000_000;
    let fake = Arc::new(FakeTime::new(T0));
    let app = spawn_with(Spawn {
        time: fake.clone(),
        ..Spawn::default()
    })
    .await;
    let mut w = World::new(0);
    let (alpha, bravo) = (w.add(&app, "Alpha").await, w.add(&app, "Bravo").await);
    let id = start(
        &app,
        &mut w,
        alpha,
        bravo,
        40,
        Some(json!({"initial_s": 10, "increment_s": 0})),
    )
    .await;

    // Game 1: Bravo (seat 1) never moves. At the deadline exactly nothing happens.
    fake.advance(30_000);
    app.arena.expire(&id, 1).await.expect("expire");
    assert_eq!(app.state(&id, 1).await["status"], "active");
    fake.advance(1);
    app.arena.expire(&id, 1).await.expect("expire");
    let g1 = app.state(&id, 1).await;
    assert_eq!(
        g1["result"],
        json!({"winner": 2, "winner_bot": "Alpha", "reason": "first_move_timeout"})
    );
    let strikes = app.get_bot("Bravo").await.body["strikes"].clone();
    assert_eq!(strikes.as_array().map(Vec::len), Some(1), "{strikes}");
    assert_eq!(strikes[0]["set_id"], id);
    assert_eq!(strikes[0]["game_no"], 1);
    assert_eq!(app.get_bot("Alpha").await.body["strikes"], json!([]));
    w.check(&app).await;

    // Game 2 started at once: both first moves are free, then Alpha spends 1 s, and Bravo
    // lets its 10 s run out.
    let g2 = app.state(&id, 2).await;
    assert_eq!(g2["status"], "active");
    let [a2, b2] = seats(&w, alpha, bravo, 2);
    for (i, (token, mv)) in [(&a2, cell(0, 0)), (&b2, cell(0, 5))]
        .into_iter()
        .enumerate()
    {
        let r = app.play(token, &id, 2, mv, Some(i as i64 + 1)).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    }
    fake.advance(1_000);
    let r = app.play(&a2, &id, 2, cell(1, 0), Some(3)).await;
    assert_eq!(r.body["clock"]["remaining_ms"], json!([9_000, 10_000]));
    fake.advance(10_001);
    app.arena.expire(&id, 2).await.expect("expire");
    let g2 = app.state(&id, 2).await;
    assert_eq!(
        g2["result"],
        json!({"winner": 1, "winner_bot": "Alpha", "reason": "timeout"})
    );
    assert_eq!(g2["clock"]["remaining_ms"], json!([9_000, 0]));
    w.settle(&id, alpha, bravo, 40, Outcome::Creator);
    check_set(&app, &id, "Alpha wins", Some("Alpha"), [2.0, 0.0], 40).await;
    w.check(&app).await;
    assert_eq!(
        [w.owner_of(alpha).balance, w.owner_of(bravo).balance],
        [1040, 960]
    );
    // A clock timeout is no strike; expiring again changes nothing.
    assert_eq!(
        app.get_bot("Bravo").await.body["strikes"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    assert!(!app.arena.expire(&id, 2).await.expect("expire"));
    w.check(&app).await;
}

#[tokio::test]
async fn the_fee_goes_to_the_fees_account_and_money_is_conserved() {
    let app = spawn_with(Spawn {
        fee_bps: 500,
        ..Spawn::default()
    })
    .await;
    assert_eq!(app.get_contract("hex").await.body["stakes"]["fee_bps"], 500);
    let mut w = World::new(500);
    let (alpha, bravo) = (w.add(&app, "Alpha").await, w.add(&app, "Bravo").await);

    let id = start(&app, &mut w, alpha, bravo, 100, None).await;
    play(&app, &seats(&w, alpha, bravo, 1), &id, 1, &seat2_wins(0)).await;
    play(&app, &seats(&w, alpha, bravo, 2), &id, 2, &seat1_wins(0)).await;
    w.settle(&id, alpha, bravo, 100, Outcome::Creator);
    let s = check_set(&app, &id, "Alpha wins", Some("Alpha"), [2.0, 0.0], 100).await;
    assert_eq!(
        s["settlement"],
        json!({"pot": 200, "fee": 10, "payouts": [{"player": w.owner_of(alpha).id, "player_name": format!("owner of {}", w.bots[alpha].name), "kind": "payout", "amount": 190}]})
    );
    w.check(&app).await;
    // 5 % of the 200 pot: Alpha's owner gets 190, the fees account 10.
    assert_eq!(
        [w.owner_of(alpha).balance, w.owner_of(bravo).balance],
        [1090, 900]
    );
    let m = money(&app).await;
    assert_eq!(
        (m.fees, m.escrow, m.balances, m.grants),
        (10, 0, 1990, 2000)
    );
    let alpha_profile = app.get_bot("Alpha").await.body;
    assert_eq!(
        (alpha_profile["won"].as_i64(), alpha_profile["net"].as_i64()),
        (Some(90), Some(90))
    );

    // A draw takes no fee: both stakes come back whole.
    let id = start(&app, &mut w, bravo, alpha, 250, None).await;
    play(&app, &seats(&w, bravo, alpha, 1), &id, 1, &seat1_wins(0)).await;
    play(&app, &seats(&w, bravo, alpha, 2), &id, 2, &seat1_wins(0)).await;
    w.settle(&id, bravo, alpha, 250, Outcome::Draw);
    let s = check_set(&app, &id, "draw", None, [1.0, 1.0], 250).await;
    assert_eq!(s["settlement"]["fee"], 0);
    w.check(&app).await;
    assert_eq!(
        [w.owner_of(alpha).balance, w.owner_of(bravo).balance],
        [1090, 900]
    );

    // A fee that does not divide evenly rounds down: 5 % of 2 x 15 = 1.5 -> 1.
    let id = start(&app, &mut w, alpha, bravo, 15, None).await;
    play(&app, &seats(&w, alpha, bravo, 1), &id, 1, &seat1_wins(0)).await;
    play(&app, &seats(&w, alpha, bravo, 2), &id, 2, &seat2_wins(0)).await;
    w.settle(&id, alpha, bravo, 15, Outcome::Acceptor);
    let s = check_set(&app, &id, "Bravo wins", Some("Bravo"), [0.0, 2.0], 15).await;
    assert_eq!(s["settlement"]["fee"], 1);
    w.check(&app).await;
    assert_eq!(money(&app).await.fees, 11);
}

#[tokio::test]
async fn stakes_beyond_max_stake_or_balance_or_between_one_owners_bots_are_refused_and_change_nothing()
 {
    let app = spawn_with(Spawn {
        starting_balance: 300,
        ..Spawn::default()
    })
    .await;
    let (rich_id, rich_pt) = app.player("rich").await;
    let rich = app.bot(&rich_pt, "Rich").await;
    let sibling = app.bot(&rich_pt, "RichSibling").await;
    let (poor_id, poor_pt) = app.player("poor").await;
    let r = app
        .create_bot(Some(&poor_pt), json!({"name": "Poor", "max_stake": 1000}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let poor = r.body["token"].as_str().expect("token").to_string();
    let r = app
        .create_grant(Some("op-secret"), json!({"player": rich_id, "amount": 700}))
        .await;
    assert_eq!(
        (r.status, r.body["balance"].as_i64()),
        (StatusCode::OK, Some(1000))
    );
    let ledger_of = async |pt: &str| app.ledger(Some(pt), "").await.body["postings"].clone();
    let (rich_ledger, poor_ledger) = (ledger_of(&rich_pt).await, ledger_of(&poor_pt).await);
    let create = async |token: &str, body: Value| {
        let mut b = json!({"game": "hex", "options": options()});
        for (k, v) in body.as_object().expect("object") {
            b[k] = v.clone();
        }
        app.create_set(Some(token), b).await
    };

    // Above the bot's max_stake (default 500) and outside 10..=1000: 400 naming the field.
    let r = create(&rich, json!({"stake": 501})).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::BAD_REQUEST, "bad_request"),
        "{:?}",
        r.body
    );
    assert_eq!(r.body["error"]["details"]["field"], "stake");
    assert_eq!(r.body["error"]["details"]["max"], 500);
    for stake in [9, 1001] {
        let r = create(&poor, json!({"stake": stake})).await;
        assert_eq!(
            (r.status, r.body["error"]["details"]["field"].as_str()),
            (StatusCode::BAD_REQUEST, Some("stake"))
        );
    }
    // Above the owner's balance (300): 409 insufficient_balance at create.
    let r = create(&poor, json!({"stake": 301})).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::CONFLICT, "insufficient_balance"),
        "{:?}",
        r.body
    );
    // Exactly the balance is fine.
    let r = create(&poor, json!({"stake": 300})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let r = app
        .cancel_set(Some(&poor), &r.body["id"].as_str().expect("id"), json!({}))
        .await;
    assert_eq!(r.status, StatusCode::OK);

    // At accept, the acceptor's owner cannot cover 400: 409, the set stays open, no money moves.
    let r = create(&rich, json!({"stake": 400})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let big = r.body["id"].as_str().expect("id").to_string();
    let r = app.accept_set(Some(&poor), &big, json!({})).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::CONFLICT, "insufficient_balance"),
        "{:?}",
        r.body
    );
    assert_eq!(r.body["error"]["details"]["player"], poor_id);
    let s = get_set(&app, &big).await;
    assert_eq!(
        (
            s["status"].as_str(),
            s["acceptor"].as_str(),
            s["opening"].as_array()
        ),
        (Some("open"), None, None)
    );
    assert_eq!(s["games"], json!([]));
    assert_eq!(
        (app.balance(&rich_pt).await, app.balance(&poor_pt).await),
        (1000, 300)
    );
    assert_eq!(
        (ledger_of(&rich_pt).await, ledger_of(&poor_pt).await),
        (rich_ledger.clone(), poor_ledger.clone())
    );
    let m = money(&app).await;
    assert_eq!((m.escrow, m.balances, m.grants), (0, 1300, 1300));
    let r = app.cancel_set(Some(&rich), &big, json!({})).await;
    assert_eq!(r.status, StatusCode::OK);

    // Bots of one owner may not play a staked set: private challenge or open one accepted.
    let r = create(&rich, json!({"stake": 10, "opponent": "RichSibling"})).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::FORBIDDEN, "same_owner"),
        "{:?}",
        r.body
    );
    let r = create(&rich, json!({"stake": 10})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let open = r.body["id"].as_str().expect("id").to_string();
    let r = app.accept_set(Some(&sibling), &open, json!({})).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::FORBIDDEN, "same_owner"),
        "{:?}",
        r.body
    );
    assert_eq!(get_set(&app, &open).await["status"], "open");

    // Another owner's bot may accept it; both pay 10 into escrow in one go.
    let r = app.accept_set(Some(&poor), &open, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(
        (app.balance(&rich_pt).await, app.balance(&poor_pt).await),
        (990, 290)
    );
    let me = app.get_player(Some(&rich_pt)).await.body;
    assert_eq!(me["escrow"], 10);
    let m = money(&app).await;
    assert_eq!(
        (m.escrow, m.balances + m.escrow, m.grants),
        (20, 1300, 1300)
    );
}

#[tokio::test]
async fn practice_sets_are_unstaked_and_unrated() {
    let app = spawn_with(Spawn {
        house_bots: true,
        ..Spawn::default()
    })
    .await;
    let (_, pt, bot) = app.player_with_bot("Learner").await;
    let r = app
        .create_practice_set(Some(&bot), json!({"options": options()}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    assert_eq!(
        (
            r.body["stake"].as_i64(),
            r.body["practice"].as_bool(),
            r.body["rated"].as_bool()
        ),
        (Some(0), Some(true), Some(false))
    );
    let house = r.body["acceptor"].as_str().expect("house bot").to_string();
    assert_eq!(app.balance(&pt).await, 1000);
    let mut before = vec![];
    for name in ["Learner", house.as_str()] {
        before.push(app.get_bot(&name).await.body["rating_exact"].clone());
    }
    assert_eq!(before[0], 1200.0);
    for game_no in [1, 2] {
        let r = resign(&app, &bot, &id, game_no).await;
        assert_eq!(r.status, StatusCode::OK, "game {game_no}: {:?}", r.body);
    }
    let s = get_set(&app, &id).await;
    assert_eq!(s["status"], "finished");
    assert_eq!(s["result"], format!("{house} wins"));
    assert_eq!(s["settlement"], Value::Null);
    assert_eq!(app.balance(&pt).await, 1000);
    let l = app.ledger(Some(&pt), "").await.body;
    assert_eq!(
        l["postings"].as_array().map(Vec::len),
        Some(1),
        "only the signup grant: {l}"
    );
    assert_eq!(l["postings"][0]["kind"], "grant");
    for (name, rating) in ["Learner", house.as_str()].into_iter().zip(before) {
        let p = app.get_bot(&name).await.body;
        assert_eq!(p["rating_exact"], rating, "{name}: unrated, so unchanged");
        for f in ["sets", "w", "d", "l", "won", "net"] {
            assert_eq!(p[f], 0, "{name}: {f}");
        }
    }
    let board = app.leaderboard("game=hex&limit=10").await.body;
    let row = board["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["bot"] == "Learner")
        .cloned()
        .expect("listed");
    assert_eq!(
        (row["rating"].as_i64(), row["sets"].as_i64()),
        (Some(1200), Some(0))
    );
    let m = money(&app).await;
    assert_eq!((m.escrow, m.fees, m.balances), (0, 0, m.grants));
}

#[tokio::test]
async fn a_repeated_settlement_pays_and_rates_nothing_twice() {
    let app = spawn_app().await;
    let mut w = World::new(0);
    let (alpha, bravo) = (w.add(&app, "Alpha").await, w.add(&app, "Bravo").await);
    let id = start(&app, &mut w, alpha, bravo, 60, None).await;

    // Not finished yet: there is nothing to settle.
    assert!(app.arena.settle_again(&id).await.is_err());
    play(&app, &seats(&w, alpha, bravo, 1), &id, 1, &seat2_wins(0)).await;
    play(&app, &seats(&w, alpha, bravo, 2), &id, 2, &seat1_wins(0)).await;
    w.settle(&id, alpha, bravo, 60, Outcome::Creator);
    w.check(&app).await;
    let before = get_set(&app, &id).await;

    // The whole end-of-set path again, twice: the set is already finished and the transfer
    // `settle:<set_id>` already written.
    for _ in 0..2 {
        app.arena.settle_again(&id).await.expect("settle again");
        w.check(&app).await;
    }
    assert_eq!(get_set(&app, &id).await, before);

    // The ledger itself refuses a second transfer with the key, whatever its legs.
    let mut c = app.arena.store.pool.acquire().await.expect("connection");
    let legs = [
        Posting::account(format!("escrow:{id}"), "payout", -120),
        Posting::player(&w.owner_of(alpha).id, "payout", 120),
    ];
    let fresh = ledger::transfer(&mut c, &format!("settle:{id}"), Some(&id), &legs, 0)
        .await
        .expect("transfer");
    assert!(!fresh);
    drop(c);
    w.check(&app).await;

    // Exactly one settlement transfer exists for the set.
    let mut c = app.arena.store.pool.acquire().await.expect("connection");
    let rows: Vec<(String, String, i64)> = sqlx::query_as(
        "SELECT transfer_key, kind, amount FROM ledger WHERE set_id = $1 ORDER BY id",
    )
    .bind(&id)
    .fetch_all(&mut *c)
    .await
    .expect("rows");
    let keys: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    let (escrow_key, settle_key) = (format!("escrow:{id}"), format!("settle:{id}"));
    assert_eq!(
        keys,
        [escrow_key.as_str(); 3]
            .into_iter()
            .chain([settle_key.as_str(); 2])
            .collect::<Vec<_>>()
    );
    assert_eq!(rows.iter().map(|r| r.2).sum::<i64>(), 0);
}

#[tokio::test]
async fn the_set_list_shows_points_stake_status_result_and_start_newest_first_and_pages_with_before()
 {
    let app = spawn_app().await;
    let mut w = World::new(0);
    let (alpha, bravo) = (w.add(&app, "Alpha").await, w.add(&app, "Bravo").await);
    let pause = || tokio::time::sleep(std::time::Duration::from_millis(3));

    // finished (2-0 by resignations), active, cancelled, open: oldest to newest.
    let finished = start(&app, &mut w, alpha, bravo, 10, None).await;
    let [b1, _] = seats(&w, alpha, bravo, 1);
    assert_eq!(resign(&app, &b1, &finished, 1).await.status, StatusCode::OK);
    assert_eq!(resign(&app, &b1, &finished, 2).await.status, StatusCode::OK);
    w.settle(&finished, alpha, bravo, 10, Outcome::Creator);
    pause().await;
    let active = start(&app, &mut w, bravo, alpha, 20, None).await;
    pause().await;
    let r = app
        .create_set(
            Some(&w.bots[alpha].token),
            json!({"game": "hex", "stake": 30}),
        )
        .await;
    let cancelled = r.body["id"].as_str().expect("id").to_string();
    assert_eq!(
        app.cancel_set(Some(&w.bots[alpha].token), &cancelled, json!({}))
            .await
            .status,
        StatusCode::OK
    );
    pause().await;
    let r = app
        .create_set(
            Some(&w.bots[bravo].token),
            json!({"game": "hex", "stake": 40, "options": options()}),
        )
        .await;
    let open = r.body["id"].as_str().expect("id").to_string();
    w.check(&app).await;

    let all = app.list_sets("").await;
    assert_eq!(all.status, StatusCode::OK);
    let rows = all.body["sets"].as_array().expect("sets").clone();
    let ids: Vec<&str> = rows.iter().filter_map(|r| r["id"].as_str()).collect();
    assert_eq!(
        ids,
        [
            open.as_str(),
            cancelled.as_str(),
            active.as_str(),
            finished.as_str()
        ]
    );
    assert_eq!(all.body["next_before"], Value::Null);
    let want = [
        (json!([0, 0]), 40, "open", Value::Null, false),
        (json!([0, 0]), 30, "cancelled", Value::Null, false),
        (json!([0, 0]), 20, "active", Value::Null, true),
        (json!([2, 0]), 10, "finished", json!("Alpha wins"), true),
    ];
    for (row, (points, stake, status, result, started)) in rows.iter().zip(want) {
        assert_eq!(row["points"], points, "{row}");
        assert_eq!(row["stake"], stake, "{row}");
        assert_eq!(row["status"], status, "{row}");
        assert_eq!(row["result"], result, "{row}");
        assert!(
            row["id"]
                .as_str()
                .is_some_and(|id| id.starts_with("set_") && id.len() == 30),
            "{row}"
        );
        for (field, present) in [("started_at", started), ("created_at", true)] {
            match row[field].as_str() {
                Some(t) => {
                    assert!(present, "{field} should be null: {row}");
                    let parsed = chrono::DateTime::parse_from_rfc3339(t)
                        .unwrap_or_else(|e| panic!("{field} {t}: {e}"));
                    assert_eq!(parsed.offset().local_minus_utc(), 0, "UTC: {t}");
                    assert!(t.ends_with('Z'), "{t}");
                }
                None => assert!(!present && row[field].is_null(), "{field} missing: {row}"),
            }
        }
        for f in ["games", "seed", "opening"] {
            assert!(row.get(f).is_none(), "list rows carry no {f}: {row}");
        }
    }

    // Pages of two: the cursor is the last row's id; the last page has no cursor.
    let mut paged = vec![];
    let mut cursor: Option<String> = None;
    for _ in 0..4 {
        let q = cursor
            .as_ref()
            .map(|c| format!("&before={c}"))
            .unwrap_or_default();
        let page = app.list_sets(&format!("limit=2{q}")).await.body;
        let page_rows = page["sets"].as_array().expect("sets").clone();
        assert!(page_rows.len() <= 2);
        paged.extend(page_rows.iter().cloned());
        match page["next_before"].as_str() {
            Some(c) => {
                assert_eq!(Some(c), page_rows.last().and_then(|r| r["id"].as_str()));
                cursor = Some(c.to_string());
            }
            None => break,
        }
    }
    assert_eq!(paged, rows, "the pages together are the whole list");

    // Filters keep the order and the cursor.
    let fin = app.list_sets("status=finished").await.body;
    assert_eq!(fin["sets"].as_array().map(Vec::len), Some(1));
    assert_eq!(fin["sets"][0]["id"], finished);
    let page = app
        .list_sets(&format!("bot=Bravo&before={active}"))
        .await
        .body;
    let ids: Vec<&str> = page["sets"]
        .as_array()
        .expect("sets")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(ids, [finished.as_str()]);
}

#[tokio::test]
async fn operator_pairings_follow_the_stake_rules_of_accepted_sets() {
    let app = spawn_app().await;
    let mut w = World::new(0);
    let (alpha, bravo) = (w.add(&app, "Alpha").await, w.add(&app, "Bravo").await);
    let pair = async |stake: i64| {
        let body = json!({"bots": ["Alpha", "Bravo"], "stake": stake, "options": options()});
        app.create_operator_set(Some("op-secret"), body).await
    };

    // Above the bots' max_stake (500 by default): 400 naming the stake, no set, no money moved.
    let r = pair(501).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::BAD_REQUEST, "bad_request"),
        "{:?}",
        r.body
    );
    assert_eq!(r.body["error"]["details"]["field"], "stake");
    assert_eq!(r.body["error"]["details"]["max"], 500);
    assert_eq!(app.list_sets("").await.body["sets"], json!([]));
    w.check(&app).await;

    // Within it: active at once, both stakes in escrow, twice, until the balances run out.
    for _ in 0..2 {
        let r = pair(500).await;
        assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
        assert_eq!(r.body["status"], "active");
        w.escrow(r.body["id"].as_str().expect("id"), alpha, bravo, 500);
        w.check(&app).await;
    }
    assert_eq!(
        [w.owner_of(alpha).balance, w.owner_of(bravo).balance],
        [0, 0]
    );
    let r = pair(10).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::CONFLICT, "insufficient_balance"),
        "{:?}",
        r.body
    );
    assert_eq!(
        app.list_sets("").await.body["sets"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    w.check(&app).await;
}
