//! One game's turns: choose, post with `?ply=`, resend after transient errors, re-read after
//! `stale_ply` / `not_your_turn`, until the bot is no longer on move (agents.md section 2).

use std::sync::Arc;
use std::time::{Duration, Instant};

use hexarena_contract::{ErrorCode, GameKey, GameState, GameStatus, MoveBody};

use crate::bot::{Bot, Choice};
use crate::http::Client;
use crate::position::time_left_ms;

/// How a game's move task ended.
#[derive(Debug)]
pub(crate) struct TurnDone {
    pub key: GameKey,
    /// The highest `ply` of a state this task answered (or gave up on).
    pub ply: u32,
    /// The game is over (seen finished, or `game_over`).
    pub over: bool,
    /// The token was refused: stop the client.
    pub fatal: Option<String>,
}

/// A uniformly random entry of `legal_moves`.
pub(crate) fn random_legal(state: &GameState) -> Option<MoveBody> {
    let n = state.legal_moves.len();
    (n > 0).then(|| state.legal_moves[rand::random_range(0..n)])
}

/// Plays from `state` until the bot `me` is no longer on move in this game.
pub(crate) async fn play_turns<B: Bot>(
    client: Client,
    bot: Arc<B>,
    me: String,
    mut state: GameState,
) -> TurnDone {
    let key = state.key();
    let mut done = TurnDone {
        key: key.clone(),
        ply: state.ply,
        over: false,
        fatal: None,
    };
    let mut fallback = false; // after a refused cell, one random legal move from a fresh state
    loop {
        done.ply = state.ply;
        let t0 = Instant::now();
        let choice = if fallback {
            match random_legal(&state) {
                Some(mv) => Choice::Move(mv),
                None => return done,
            }
        } else {
            bot.choose(&state).await
        };
        let (mv, info) = match choice {
            Choice::Move(mv) => (mv, None),
            Choice::Annotated(mv, info) => (mv, Some(info)),
            Choice::Resign(why) => {
                resign(&client, &key, &why).await;
                done.over = true;
                return done;
            }
        };
        let think = t0.elapsed();
        let ply = done.ply + 1;
        // Resend the same move with the same ply until a little after our deadline.
        let give_up = Instant::now()
            + Duration::from_millis(u64::try_from(time_left_ms(&state).max(0)).unwrap_or(0))
            + Duration::from_secs(5);
        let t1 = Instant::now();
        let result = client
            .post_move_with_info(&key, ply, &mv, info.as_ref(), give_up)
            .await;
        let tag = format!("{key} ply {ply:>3}");
        let reread = match result {
            Ok(new) => {
                let seat = state.to_move.unwrap_or(1);
                let left = new.remaining_ms(seat).unwrap_or_default();
                tracing::info!(
                    "{tag} seat {seat} {:>4}  think {}ms  rtt {}ms  clock {:.1}s  {}",
                    mv.name(),
                    think.as_millis(),
                    t1.elapsed().as_millis(),
                    left as f64 / 1000.0,
                    status_name(new.status),
                );
                if new.status == GameStatus::Finished {
                    done.over = true;
                    return done;
                }
                // Normally the opponent is on move now; a fresh your_turn will come.
                if !new.is_turn_of(&me) || new.ply <= done.ply {
                    return done;
                }
                state = new;
                fallback = false;
                continue;
            }
            Err(e) => match e.api().map(|a| &a.code) {
                Some(ErrorCode::StalePly | ErrorCode::NotYourTurn) => {
                    tracing::info!("{tag}: {}, re-reading the game", e.code());
                    true
                }
                Some(ErrorCode::GameOver) => {
                    let r = e
                        .api()
                        .map(|a| a.details["result"].clone())
                        .unwrap_or_default();
                    tracing::info!(
                        "{tag}: game over ({}, winner {})",
                        r["reason"].as_str().unwrap_or_default(),
                        r["winner_bot"].as_str().unwrap_or_default()
                    );
                    done.over = true;
                    return done;
                }
                Some(c) if c.is_illegal_move() && !fallback => {
                    tracing::warn!(
                        "{tag}: {e} for {}; re-reading and picking from legal_moves",
                        mv.name()
                    );
                    fallback = true;
                    true
                }
                Some(ErrorCode::Unauthorized) => {
                    done.fatal = Some(format!("{tag}: {e}: check --token (a bot token, hxb_...)"));
                    return done;
                }
                _ => {
                    tracing::warn!("{tag}: {e}; leaving this turn");
                    return done;
                }
            },
        };
        if reread {
            match client.game(&key).await {
                Ok(fresh) if fresh.status == GameStatus::Finished => {
                    done.over = true;
                    return done;
                }
                Ok(fresh) if fresh.is_turn_of(&me) && (fallback || fresh.ply > done.ply) => {
                    state = fresh;
                }
                Ok(_) => return done,
                Err(e) => {
                    tracing::warn!("{tag}: could not re-read the game: {e}");
                    return done;
                }
            }
        }
    }
}

/// `pending`, `active`, `finished`.
pub(crate) fn status_name(s: GameStatus) -> &'static str {
    match s {
        GameStatus::Pending => "pending",
        GameStatus::Active => "active",
        GameStatus::Finished => "finished",
        GameStatus::Unknown => "unknown",
    }
}

/// Resigns a game (the chooser gave up); a retry after a lost answer is safe.
async fn resign(client: &Client, key: &GameKey, why: &str) {
    tracing::warn!("{key}: resigning: {why}");
    match client.resign(key).await {
        Ok(_) => {}
        Err(e) if e.code() == ErrorCode::GameOver.as_str() => {}
        Err(e) => tracing::warn!("{key}: resign: {e}"),
    }
}
