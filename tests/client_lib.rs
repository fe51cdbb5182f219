//! The Rust client library (`crates/client`) against a live server: typed calls, the event
//! stream resumed with `Last-Event-ID`, the turn long-poll, and the whole turn loop of two
//! bots playing a staked set with nothing but a move-chooser callback.

mod common;
use common::paths;

use std::time::{Duration, Instant};

use common::spawn_app;
use hexarena_client::contract::{
    BotEvent, ErrorCode, GameKey, GameStatus, MoveBody, NewSet, OptionsRequest, SetStatus,
};
use hexarena_client::stream::STREAM_IDLE;
use hexarena_client::{Choice, Client, EventStream, FnBot, PlayConfig, Transport, run};

/// A new player with one bot, through the library; returns the bot's client.
async fn bot(t: &Transport, name: &str) -> Client {
    let p = t
        .register_player(&format!("owner of {name}"))
        .await
        .expect("registered");
    let b = t
        .create_bot(&p.token, name, None)
        .await
        .expect("bot created");
    Client::with_transport(t.clone(), &b.token)
}

/// The first legal move: fast, and always accepted.
fn first_legal() -> FnBot<impl Fn(&hexarena_client::contract::GameState) -> Choice> {
    FnBot(|s: &hexarena_client::contract::GameState| {
        s.legal_moves
            .first()
            .copied()
            .map_or_else(|| Choice::Resign("no legal move".into()), Choice::Move)
    })
}

#[tokio::test]
async fn two_bots_on_the_client_library_play_a_staked_set_to_the_end_with_a_callback() {
    let app = spawn_app().await;
    let t = Transport::new(&app.url).expect("transport");
    let ada = bot(&t, "AdaLib").await;
    let bob = bot(&t, "BobLib").await;
    let options = OptionsRequest {
        size: Some(9),
        random_stones: Some(2),
    };
    let create = PlayConfig {
        sets: 1,
        create: Some(NewSet {
            options,
            stake: Some(10),
            opponent: Some("BobLib".into()),
            ..NewSet::default()
        }),
        ..PlayConfig::default()
    };
    let accept = PlayConfig {
        sets: 1,
        accept_open: true,
        ..PlayConfig::default()
    };
    // The acceptor listens first, so the challenge reaches its stream.
    let acceptor = tokio::spawn(run(bob.clone(), first_legal(), accept));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let creator = tokio::spawn(run(ada.clone(), first_legal(), create));
    let within = Duration::from_secs(60);
    let a = tokio::time::timeout(within, creator)
        .await
        .expect("the creator finishes within 60 s")
        .expect("task")
        .expect("the creator's run");
    let b = tokio::time::timeout(within, acceptor)
        .await
        .expect("the acceptor finishes within 60 s")
        .expect("task")
        .expect("the acceptor's run");
    assert_eq!(a.bot, "AdaLib");
    assert_eq!(a.finished.len(), 1);
    assert_eq!(a.finished, b.finished, "both played the same set");
    let set = ada.set(&a.finished[0]).await.expect("the set");
    assert_eq!(set.status, SetStatus::Finished);
    assert_eq!((set.stake, set.options.size), (10, 9));
    assert_eq!(set.opening.as_ref().map(Vec::len), Some(4));
    for g in &set.games {
        assert_eq!(g.status, GameStatus::Finished, "game {}", g.game_no);
    }
    assert_eq!(
        hexarena_client::verify::verify_opening(&set),
        hexarena_client::verify::OpeningCheck::Verified
    );
    let me = ada.me().await.expect("profile");
    assert_eq!(me.sets, 1);
}

#[tokio::test]
async fn two_bots_in_the_pool_on_the_client_library_play_the_set_it_starts_and_leave() {
    let app = spawn_app().await;
    let t = Transport::new(&app.url).expect("transport");
    let ann = bot(&t, "AnnPool").await;
    let ben = bot(&t, "BenPool").await;
    let config = PlayConfig {
        sets: 1,
        pool: Some(hexarena_client::contract::PoolJoin {
            options: Some(OptionsRequest {
                size: Some(9),
                random_stones: None,
            }),
            ..Default::default()
        }),
        ..PlayConfig::default()
    };
    let runs =
        [ann.clone(), ben.clone()].map(|c| tokio::spawn(run(c, first_legal(), config.clone())));
    let mut finished = vec![];
    for r in runs {
        let s = tokio::time::timeout(Duration::from_secs(60), r)
            .await
            .expect("a pool run finishes within 60 s")
            .expect("task")
            .expect("the run");
        assert_eq!(s.finished.len(), 1, "{}", s.bot);
        finished.push(s.finished[0].clone());
    }
    assert_eq!(
        finished[0], finished[1],
        "both played the set the pool started"
    );
    let set = ann.set(&finished[0]).await.expect("the set");
    assert_eq!(set.pool, Some(true));
    assert_eq!(
        (set.status, set.options.size, set.rated),
        (SetStatus::Finished, 9, true)
    );
    // Both runs left the pool once their set was under way: no second set.
    let pool = ann.pool().await.expect("the pool");
    assert!(pool.entries.is_empty(), "{pool:?}");
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let sets = ann.sets(None, None, Some(10), None).await.expect("sets");
    assert_eq!(sets.sets.len(), 1);
}

#[tokio::test]
async fn the_event_stream_resumes_after_its_last_id_with_only_what_it_missed() {
    let app = spawn_app().await;
    let t = Transport::new(&app.url).expect("transport");
    let ada = bot(&t, "AdaStream").await;
    let bob = bot(&t, "BobStream").await;
    let path = &paths::bot_events();
    let mut s = EventStream::open(&t, path, Some(bob.token()), None, STREAM_IDLE)
        .await
        .expect("stream");
    let first = ada
        .create_set(&NewSet {
            opponent: Some("BobStream".into()),
            ..NewSet::default()
        })
        .await
        .expect("challenge");
    let ev = tokio::time::timeout(Duration::from_secs(5), s.next())
        .await
        .expect("an event within 5 s")
        .expect("the stream is open");
    let parsed = BotEvent::parse(&ev.event, &ev.data).expect("a contract event");
    assert!(matches!(&parsed, BotEvent::Challenge(set) if set.id == first.id));
    let last = s.last_id().expect("events carry ids").to_string();
    drop(s);
    // Missed while away: a second challenge, then the first one cancelled.
    let second = ada
        .create_set(&NewSet {
            opponent: Some("BobStream".into()),
            ..NewSet::default()
        })
        .await
        .expect("challenge");
    ada.cancel(&first.id).await.expect("cancelled");
    let again = ada
        .cancel(&first.id)
        .await
        .expect("a repeated cancel is a 200");
    assert_eq!(again.status, SetStatus::Cancelled);
    let mut s = EventStream::open(&t, path, Some(bob.token()), Some(&last), STREAM_IDLE)
        .await
        .expect("stream resumed");
    let mut seen = vec![];
    while let Ok(Ok(ev)) = tokio::time::timeout(Duration::from_millis(500), s.next()).await {
        let e = BotEvent::parse(&ev.event, &ev.data).expect("a contract event");
        seen.push(match e {
            BotEvent::Challenge(set) => format!("challenge {}", set.id),
            BotEvent::SetClosed(set) => format!("set_closed {}", set.id),
            other => other.name().to_string(),
        });
    }
    assert_eq!(
        seen,
        [
            format!("challenge {}", second.id),
            format!("set_closed {}", first.id)
        ]
    );
    assert!(s.last_id().is_some_and(|id| id != last));
}

#[tokio::test]
async fn the_typed_calls_answer_turns_moves_and_refusals_as_the_contract_says() {
    let app = spawn_app().await;
    let t = Transport::new(&app.url).expect("transport");
    let ada = bot(&t, "AdaCalls").await;
    let bob = bot(&t, "BobCalls").await;
    assert!(
        ada.turn(0).await.expect("a poll").is_none(),
        "204: not on move"
    );
    let set = ada
        .create_set(&NewSet {
            opponent: Some("BobCalls".into()),
            options: OptionsRequest {
                size: Some(9),
                random_stones: Some(0),
            },
            stake: Some(0),
            ..NewSet::default()
        })
        .await
        .expect("challenge");
    let active = bob.accept(&set.id).await.expect("accepted");
    assert_eq!(active.status, SetStatus::Active);
    // Game 1 seats the acceptor first.
    let state = bob.turn(5).await.expect("a poll").expect("on move");
    let key = GameKey {
        set_id: set.id.clone(),
        game_no: 1,
    };
    assert_eq!((state.key(), state.ply), (key.clone(), 0));
    let give_up = Instant::now() + Duration::from_secs(10);
    let next = bob
        .post_move(&key, 1, &MoveBody::cell(4, 4), give_up)
        .await
        .expect("played");
    assert_eq!((next.ply, next.to_move), (1, Some(2)));
    // The same move at the same ply again: the idempotent 200, nothing changes.
    let same = bob
        .post_move(&key, 1, &MoveBody::cell(4, 4), give_up)
        .await
        .expect("a retry is safe");
    assert_eq!(same.ply, 1);
    let e = ada
        .post_move(&key, 2, &MoveBody::cell(4, 4), give_up)
        .await
        .expect_err("occupied");
    assert_eq!(
        e.api().map(|a| (a.status, a.code.clone())),
        Some((422, ErrorCode::Occupied))
    );
    let e = ada
        .post_move(&key, 5, &MoveBody::Swap, give_up)
        .await
        .expect_err("stale");
    assert_eq!(e.code(), "stale_ply");
    assert_eq!(
        e.api().map(|a| a.details["expected_ply"].clone()),
        Some(2.into())
    );
    let swapped = ada
        .post_move(&key, 2, &MoveBody::Swap, give_up)
        .await
        .expect("the swap");
    let pos = hexarena_client::position::position_of(&swapped).expect("replays");
    assert!(pos.swapped());
    let resigned = bob.resign(&key).await.expect("resigned");
    assert_eq!(resigned.status, GameStatus::Finished);
    let again = bob.resign(&key).await.expect("a repeated resign is a 200");
    assert_eq!(again.result, resigned.result);
    let nobody = Client::with_transport(t.clone(), "hxb_nobody");
    let e = nobody.me().await.expect_err("unknown token");
    assert_eq!(e.code(), "unauthorized");
}

#[tokio::test]
async fn the_client_reads_profiles_the_leaderboard_rating_history_and_set_lists() {
    let app = spawn_app().await;
    let t = Transport::new(&app.url).expect("transport");
    let ada = bot(&t, "AdaRate").await;
    let bob = bot(&t, "BobRate").await;
    let set = ada
        .create_set(&NewSet {
            game: "hex".into(),
            options: OptionsRequest {
                size: Some(9),
                random_stones: Some(0),
            },
            stake: Some(0),
            opponent: Some("BobRate".into()),
            rated: Some(true),
            ..NewSet::default()
        })
        .await
        .expect("created");
    bob.accept(&set.row.id).await.expect("accepted");
    // Each game resigned by its seat 1: one game each, a drawn rated set.
    for game_no in 1..=2u8 {
        let key = GameKey {
            set_id: set.row.id.clone(),
            game_no,
        };
        let state = ada.game(&key).await.expect("state");
        let first = if state.seats[0].bot == "AdaRate" {
            &ada
        } else {
            &bob
        };
        first.resign(&key).await.expect("resigned");
    }
    let me = bob.me().await.expect("me");
    let prof = ada.bot("bobrate").await.expect("profile by name, any case");
    assert_eq!(
        (prof.id.as_str(), prof.sets, prof.d),
        (me.id.as_str(), 1, 1)
    );
    assert_eq!(prof.provisional, Some(true));
    let rd = prof.rating_deviation.expect("deviation");
    assert!(rd > 110.0 && rd < 350.0, "{rd}");
    let glicko = prof.glicko_rating.expect("glicko");
    assert!((glicko - 1200.0).abs() < 1e-6, "{glicko}");
    assert_eq!(prof.rank.map(|r| r >= 1), Some(true));
    let hist = ada.ratings("BobRate").await.expect("history");
    assert_eq!(hist.history.len(), 1);
    let h = &hist.history[0];
    assert_eq!(
        (
            h.set_id.as_str(),
            h.opponent.as_str(),
            h.result.as_str(),
            h.score
        ),
        (set.row.id.as_str(), "AdaRate", "draw", 0.5)
    );
    assert_eq!(h.rating_deviation, Some(rd));
    let board = ada
        .leaderboard(Some(100), None, Some(true))
        .await
        .expect("leaderboard");
    let row = board
        .rows
        .iter()
        .find(|r| r.bot == "BobRate")
        .expect("listed as provisional");
    assert_eq!((row.sets, row.provisional), (1, true));
    let settled = ada
        .leaderboard(Some(100), None, Some(false))
        .await
        .expect("leaderboard");
    assert!(settled.rows.iter().all(|r| r.bot != "BobRate"));
    let page = ada
        .sets(Some("finished"), Some("AdaRate"), Some(10), None)
        .await
        .expect("sets");
    let ids: Vec<&str> = page.sets.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, [set.row.id.as_str()]);
    let e = ada.bot("NoSuchBot").await.expect_err("404");
    assert_eq!(e.code(), "not_found");
}

#[tokio::test]
async fn run_plays_a_set_left_in_progress_to_its_end_but_counts_only_its_own() {
    let app = common::spawn_with(common::Spawn {
        house_bots: true,
        house_threads: Some(1),
        ..common::Spawn::default()
    })
    .await;
    let t = Transport::new(&app.url).expect("transport");
    let me = bot(&t, "CrashedLib").await;
    let practice = hexarena_client::contract::PracticeRequest {
        opponent: Some("house-random".into()),
        options: OptionsRequest {
            size: Some(9),
            random_stones: Some(2),
        },
        ..Default::default()
    };
    // A set an earlier run started and left running.
    let left = me.practice(&practice).await.expect("practice");
    let done = tokio::time::timeout(
        Duration::from_secs(120),
        run(
            me.clone(),
            first_legal(),
            PlayConfig {
                sets: 1,
                practice: Some(practice),
                ..PlayConfig::default()
            },
        ),
    )
    .await
    .expect("in time")
    .expect("run");
    assert_eq!(done.finished.len(), 1);
    assert_ne!(
        done.finished[0], left.row.id,
        "the abandoned set is not counted"
    );
    assert_eq!(
        me.set(&left.row.id).await.expect("set").row.status,
        SetStatus::Finished,
        "but it was played to its end"
    );
    let active = me
        .sets(Some("active"), Some("CrashedLib"), None, None)
        .await
        .expect("sets");
    assert!(active.sets.is_empty(), "nothing left mid-game");
}

#[tokio::test]
async fn the_client_reads_what_a_bot_learns_analysis_mistakes_head_to_head_and_sgf() {
    let app = common::spawn_with(common::Spawn {
        analysis: true,
        analysis_playouts: 200,
        ..common::Spawn::default()
    })
    .await;
    let t = Transport::new(&app.url).expect("transport");
    let ada = bot(&t, "AdaLearn").await;
    let bob = bot(&t, "BobLearn").await;
    let accept = PlayConfig {
        sets: 1,
        accept_open: true,
        ..PlayConfig::default()
    };
    let create = PlayConfig {
        sets: 1,
        create: Some(NewSet {
            options: OptionsRequest {
                size: Some(9),
                random_stones: Some(2),
            },
            stake: Some(0),
            opponent: Some("BobLearn".into()),
            ..NewSet::default()
        }),
        ..PlayConfig::default()
    };
    let acceptor = tokio::spawn(run(bob.clone(), first_legal(), accept));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let done = tokio::time::timeout(
        Duration::from_secs(60),
        run(ada.clone(), first_legal(), create),
    )
    .await
    .expect("in time")
    .expect("run");
    acceptor.await.expect("task").expect("the acceptor's run");
    let set_id = done.finished[0].clone();

    // The analysis: pending until the analyst has run, then one value per position.
    let key = GameKey {
        set_id: set_id.clone(),
        game_no: 1,
    };
    let until = Instant::now() + Duration::from_secs(90);
    let analysis = loop {
        let a = ada.analysis(&key).await.expect("analysis");
        if a.status == hexarena_client::contract::AnalysisStatus::Ready {
            break a;
        }
        assert!(Instant::now() < until, "analysis never ready: {a:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let state = ada.game(&key).await.expect("state");
    assert_eq!(analysis.win_prob.len(), state.moves.len() + 1);
    assert!(analysis.analysed_at.is_some());

    // A bot's mistakes come from its analysed games only, worst first.
    let m = ada.mistakes("adalearn", Some(100)).await.expect("mistakes");
    assert_eq!(m.bot, "AdaLearn");
    assert!(m.mistakes.iter().all(|x| x.set_id == set_id && x.size == 9));
    assert!(m.mistakes.windows(2).all(|w| w[0].drop >= w[1].drop));
    let e = ada.mistakes("NoSuchBot", None).await.expect_err("404");
    assert_eq!(e.code(), "not_found");

    // Head-to-head: one set, two games, seen from both sides.
    let v = ada.versus("AdaLearn", "BobLearn").await.expect("versus");
    let w = ada.versus("BobLearn", "AdaLearn").await.expect("versus");
    assert_eq!((v.sets, v.games), (1, 2.0));
    assert_eq!((v.w, v.d, v.l), (w.l, w.d, w.w));
    assert_eq!(v.game_points, w.opponent_game_points);
    let e = ada.versus("AdaLearn", "adalearn").await.expect_err("400");
    assert_eq!(e.code(), "bad_request");

    // The exports: one game, and the bot's games as one collection.
    let sgf = ada.game_sgf(&key).await.expect("sgf");
    assert!(sgf.starts_with("(;") && sgf.contains("SZ[9]"), "{sgf}");
    let all = ada
        .bot_games_sgf("AdaLearn", None)
        .await
        .expect("collection");
    assert_eq!(all.matches("(;").count(), 2, "{all}");
    assert!(all.contains(sgf.trim()), "{all}");
    let e = ada
        .bot_games_sgf("AdaLearn", Some("yesterday"))
        .await
        .expect_err("400");
    assert_eq!(e.code(), "bad_request");
}
