//! The setup phase: players and bots registered through rate limits.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use super::BenchArgs;
use super::http::{Failure, Http};

/// A bot's name and token.
#[derive(Debug, Clone)]
pub(super) struct Bot {
    pub(super) name: String,
    pub(super) token: String,
    /// The instance this bot talks to (index into the `--url`s, mod their count).
    pub(super) at: usize,
}

/// Retries a setup call through rate limits for up to 70 s (one minute's quota refills).
pub(super) async fn setup_call(
    http: &Http,
    path: &str,
    token: Option<&str>,
    body: &Value,
) -> anyhow::Result<Value> {
    let until = Instant::now() + Duration::from_secs(70);
    loop {
        match http.call(Method::POST, path, token, Some(body)).await {
            Ok(v) => return Ok(v),
            Err(f @ Failure::Status { status: 429, .. }) if Instant::now() < until => {
                eprintln!(
                    "bench: rate limited on POST {path}; waiting (start the server with a higher \
                     ARENA_REGISTER_PER_MIN to avoid this)"
                );
                http.back_off(&f, until).await;
            }
            Err(f) => anyhow::bail!("setup: POST {path} failed: {}", f.key()),
        }
    }
}

/// Registers the players and bots: pair `p` plays games `p * games_per_pair ..`; returns one
/// (bot of the pair's first player, bot of its second player) per game.
pub(super) async fn register(http: &Http, args: &BenchArgs) -> anyhow::Result<Vec<(Bot, Bot)>> {
    let run: String = (0..6)
        .map(|_| char::from(b'a' + rand::random_range(0..26u8)))
        .collect();
    let per_pair = args.games_per_pair.max(1);
    let mut out = Vec::with_capacity(args.games);
    let mut pair = 0;
    while out.len() < args.games {
        let in_pair = per_pair.min(args.games - out.len());
        let mut sides: [Vec<Bot>; 2] = [vec![], vec![]];
        for (side, bots) in sides.iter_mut().enumerate() {
            let p = setup_call(
                http,
                "/v1/players",
                None,
                &json!({"name": format!("bench {run} {pair}{side}")}),
            )
            .await?;
            let Some(ptoken) = p["token"].as_str() else {
                anyhow::bail!("setup: player without token: {p}");
            };
            for i in 0..in_pair {
                let name = format!("b{run}{pair}{}{i}", ["a", "b"][side]);
                let b = setup_call(
                    http,
                    "/v1/bots",
                    Some(ptoken),
                    &json!({"name": name, "max_stake": args.stake.clamp(0, 1000)}),
                )
                .await?;
                let Some(token) = b["token"].as_str() else {
                    anyhow::bail!("setup: bot without token: {b}");
                };
                bots.push(Bot {
                    name,
                    token: token.to_string(),
                    at: 0,
                });
            }
        }
        let [a, b] = sides;
        out.extend(a.into_iter().zip(b));
        pair += 1;
    }
    Ok(out)
}
