//! The move and read phases: a task playing set after set between its two bots, and the
//! read rate of many tasks on a few paths.

use std::sync::Arc;
use std::time::{Duration, Instant};

use hexarena_client::contract::{GameKey, GameState, GameStatus, MoveBody};
use reqwest::Method;
use serde_json::{Value, json};

use super::BenchArgs;
use super::http::{Failure, Http};
use super::setup::Bot;

/// What one game task did.
#[derive(Default)]
pub(super) struct Played {
    /// Client-side latency of each acknowledged move, microseconds.
    pub(super) latencies_us: Vec<u64>,
    pub(super) moves: u64,
    pub(super) games_finished: u64,
    pub(super) sets_started: u64,
    /// The last game this task played: (set id, game number).
    pub(super) last_game: Option<(String, i64)>,
}

/// A game's state, waiting (briefly polling) while it is `pending`. None at the deadline.
pub(super) async fn started_state(
    http: &Http,
    at: usize,
    key: &GameKey,
    deadline: Instant,
) -> Option<GameState> {
    let path = hexarena_client::http::game_path(key);
    while Instant::now() < deadline {
        match http
            .call_at::<GameState>(at, Method::GET, &path, None, None)
            .await
        {
            Ok(s) if s.status != GameStatus::Pending => return Some(s),
            Ok(_) => tokio::time::sleep(Duration::from_millis(2)).await,
            Err(f) => http.back_off(&f, deadline).await,
        }
    }
    None
}

/// Plays sets between `a` and `b` (creators alternating) until `deadline`.
pub(super) async fn play(
    http: Arc<Http>,
    a: Bot,
    b: Bot,
    args: BenchArgs,
    deadline: Instant,
) -> Played {
    let mut out = Played::default();
    let set_body = |opponent: &str| {
        json!({"game": "hex", "options": {"size": args.size, "random_stones": 4},
               "clock": {"initial_s": 600, "increment_s": 10}, "stake": args.stake,
               "opponent": opponent})
    };
    let mut k = 0u64;
    'sets: while Instant::now() < deadline {
        let (creator, acceptor) = if k.is_multiple_of(2) {
            (&a, &b)
        } else {
            (&b, &a)
        };
        k += 1;
        let body = set_body(&acceptor.name);
        let set: Value = match http
            .call_at(
                creator.at,
                Method::POST,
                "/v1/sets",
                Some(&creator.token),
                Some(&body),
            )
            .await
        {
            Ok(s) => s,
            Err(f) => {
                http.back_off(&f, deadline).await;
                continue;
            }
        };
        let Some(set_id) = set["id"].as_str().map(str::to_string) else {
            http.back_off(&Failure::Transport("set without id".into()), deadline)
                .await;
            continue;
        };
        let accept = format!("/v1/sets/{set_id}/accept");
        if let Err(f) = http
            .call_at::<Value>(
                acceptor.at,
                Method::POST,
                &accept,
                Some(&acceptor.token),
                None,
            )
            .await
        {
            http.back_off(&f, deadline).await;
            continue;
        }
        out.sets_started += 1;
        for game_no in 1..=2 {
            let key = GameKey {
                set_id: set_id.clone(),
                game_no,
            };
            let Some(mut state) = started_state(&http, acceptor.at, &key, deadline).await else {
                break 'sets;
            };
            out.last_game = Some((set_id.clone(), i64::from(game_no)));
            let moves_path = format!("/v1/sets/{set_id}/games/{game_no}/moves");
            // The client keeps the empty cells itself and reads only ply, status and seat on
            // move from each answer, so its own work per move stays small (issue 22).
            let mut brief = Brief::of(&state);
            let mut empty = empty_cells(&state);
            while brief.status == GameStatus::Active {
                if Instant::now() >= deadline {
                    break 'sets;
                }
                let on_move = brief
                    .to_move
                    .and_then(|seat| state.seats.iter().find(|s| s.seat == seat))
                    .map(|s| s.bot.as_str());
                let mover = [&a, &b]
                    .into_iter()
                    .find(|bot| Some(bot.name.as_str()) == on_move);
                let (Some(mover), false) = (mover, empty.is_empty()) else {
                    let f = Failure::Transport("active state without a move".into());
                    http.back_off(&f, deadline).await;
                    continue 'sets;
                };
                let cell = empty.swap_remove(rand::random_range(0..empty.len()));
                let mv = json!({"cell": cell});
                // `ply` names the number the move will have: the state's ply + 1.
                let path = format!("{moves_path}?ply={}", brief.ply + 1);
                let t0 = Instant::now();
                match http
                    .call_at::<Brief>(mover.at, Method::POST, &path, Some(&mover.token), Some(&mv))
                    .await
                {
                    Ok(next) => {
                        let us = t0.elapsed().as_micros();
                        out.latencies_us.push(u64::try_from(us).unwrap_or(u64::MAX));
                        out.moves += 1;
                        brief = next;
                    }
                    Err(f) => {
                        http.back_off(&f, deadline).await;
                        match started_state(&http, mover.at, &key, deadline).await {
                            Some(s) => {
                                brief = Brief::of(&s);
                                empty = empty_cells(&s);
                                state = s;
                            }
                            None => break 'sets,
                        }
                    }
                }
            }
            if brief.status == GameStatus::Finished {
                out.games_finished += 1;
            }
        }
    }
    out
}

/// What the move loop reads of a game state: the rest of the answer is skipped unparsed.
#[derive(serde::Deserialize)]
struct Brief {
    ply: u32,
    status: GameStatus,
    to_move: Option<u8>,
}

impl Brief {
    fn of(s: &GameState) -> Brief {
        Brief {
            ply: s.ply,
            status: s.status,
            to_move: s.to_move,
        }
    }
}

/// The cells of a state's legal moves (the swap left out: the bench only places stones).
fn empty_cells(s: &GameState) -> Vec<[u8; 2]> {
    s.legal_moves
        .iter()
        .filter_map(|m| match m {
            MoveBody::Cell(c) => Some(*c),
            MoveBody::Swap => None,
        })
        .collect()
}

/// `concurrency` tasks GET `paths` round robin for `dur`; returns answers per second.
pub(super) async fn read_rate(
    http: &Arc<Http>,
    paths: &[String],
    concurrency: usize,
    dur: Duration,
) -> f64 {
    if paths.is_empty() || concurrency == 0 {
        return 0.0;
    }
    let start = Instant::now();
    let until = start + dur;
    let tasks: Vec<_> = (0..concurrency)
        .map(|i| {
            let http = http.clone();
            let path = paths[i % paths.len()].clone();
            tokio::spawn(async move {
                let mut ok = 0u64;
                while Instant::now() < until {
                    if http.get_ok(i, &path).await {
                        ok += 1;
                    }
                }
                ok
            })
        })
        .collect();
    let mut total = 0u64;
    for t in tasks {
        total += t.await.unwrap_or(0);
    }
    total as f64 / start.elapsed().as_secs_f64()
}
