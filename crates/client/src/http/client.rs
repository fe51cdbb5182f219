//! [`Client`]: a transport with a bot token and a retry policy, and the typed calls a bot makes.

use std::time::{Duration, Instant};

use hexarena_contract::{
    Analysis, BotMistakes, BotProfile, GameKey, GameState, HeadToHead, Leaderboard, MoveBody,
    MoveInfo, NewSet, PoolEntry, PoolJoin, PoolList, PracticeRequest, RatingHistory, SetList,
    SetView,
};
use reqwest::Method;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::{CALL_TIMEOUT, Reply, Transport, game_path, path_segment, query, required};
use crate::error::Error;
use crate::retry::RetryPolicy;

/// A bot's view of the arena: a transport, the bot's token and the retry policy.
#[derive(Debug, Clone)]
pub struct Client {
    transport: Transport,
    token: String,
    policy: RetryPolicy,
}

impl Client {
    /// A client for the bot whose token is `token` (`hxb_...`).
    ///
    /// # Errors
    /// The HTTP client could not be built.
    pub fn new(base_url: &str, token: &str) -> Result<Client, Error> {
        Ok(Client::with_transport(Transport::new(base_url)?, token))
    }

    /// A client over an existing transport.
    #[must_use]
    pub fn with_transport(transport: Transport, token: &str) -> Client {
        Client {
            transport,
            token: token.to_string(),
            policy: RetryPolicy::default(),
        }
    }

    /// The transport (public reads, other tokens).
    #[must_use]
    pub fn transport(&self) -> &Transport {
        &self.transport
    }

    /// The bot's token.
    #[must_use]
    pub fn token(&self) -> &str {
        &self.token
    }

    /// One call with the bot's token, no retry.
    ///
    /// # Errors
    /// As [`Transport::call`].
    pub async fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&(impl Serialize + ?Sized)>,
        timeout: Duration,
    ) -> Result<Reply<T>, Error> {
        self.transport
            .call(method, path, Some(&self.token), body, Some(timeout))
            .await
    }

    /// Like [`Client::call`], but sends the same request again as the [`RetryPolicy`] says
    /// until `give_up`. Only for requests that are safe to repeat.
    ///
    /// # Errors
    /// The last error, once the policy refuses or the next wait would pass `give_up`.
    pub async fn call_retrying<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&(impl Serialize + ?Sized)>,
        timeout: Duration,
        give_up: Instant,
    ) -> Result<Reply<T>, Error> {
        self.call_retrying_with(method, path, body, timeout, give_up, None)
            .await
    }

    /// [`Client::call_retrying`] with one more request header, sent on every attempt.
    ///
    /// # Errors
    /// As [`Client::call_retrying`].
    pub async fn call_retrying_with<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&(impl Serialize + ?Sized)>,
        timeout: Duration,
        give_up: Instant,
        header: Option<(&str, &str)>,
    ) -> Result<Reply<T>, Error> {
        let mut attempt = 0;
        loop {
            let sent = self
                .transport
                .call_with(
                    method.clone(),
                    path,
                    Some(&self.token),
                    body,
                    Some(timeout),
                    header,
                )
                .await;
            let err = match sent {
                Ok(ok) => return Ok(ok),
                Err(e) => e,
            };
            let Some(wait) = self.policy.wait(&err, attempt) else {
                return Err(err);
            };
            if Instant::now() + wait > give_up {
                return Err(err);
            }
            tracing::warn!(
                "{method} {path}: {err}; retrying in {:.1}s",
                wait.as_secs_f64()
            );
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }

    async fn get_retrying<T: DeserializeOwned>(&self, path: &str) -> Result<T, Error> {
        let give_up = Instant::now() + Duration::from_secs(30);
        required(
            self.call_retrying(Method::GET, path, None::<&Value>, CALL_TIMEOUT, give_up)
                .await?,
        )
    }

    /// `GET /v1/bots/me`, retried for up to 30 s.
    ///
    /// # Errors
    /// 401 `unauthorized` for a token that is not a bot's, or the last transient error.
    pub async fn me(&self) -> Result<BotProfile, Error> {
        self.get_retrying("/v1/bots/me").await
    }

    /// The game's state, retried for up to 30 s.
    ///
    /// # Errors
    /// 404 `not_found`, or the last transient error.
    pub async fn game(&self, key: &GameKey) -> Result<GameState, Error> {
        self.get_retrying(&game_path(key)).await
    }

    /// The set, retried for up to 30 s.
    ///
    /// # Errors
    /// 404 `not_found`, or the last transient error.
    pub async fn set(&self, set_id: &str) -> Result<SetView, Error> {
        self.get_retrying(&format!("/v1/sets/{set_id}")).await
    }

    /// `GET /v1/bots/me/turn?wait_s=N`: the game in which the bot has been on move the
    /// longest, or None after `wait_s` (0..=60) without one. Not retried.
    ///
    /// # Errors
    /// As [`Transport::call`]; 429 when the bot holds too many long-polls.
    pub async fn turn(&self, wait_s: u64) -> Result<Option<GameState>, Error> {
        let reply = self
            .call(
                Method::GET,
                &format!("/v1/bots/me/turn?wait_s={wait_s}"),
                None::<&Value>,
                Duration::from_secs(wait_s + 15),
            )
            .await?;
        Ok(if reply.status == 204 {
            None
        } else {
            reply.body
        })
    }

    /// Posts `mv` as ply `ply` (the state's `ply + 1`), resending the same move with the same
    /// ply after transient errors until `give_up` (agents.md section 3).
    ///
    /// # Errors
    /// `stale_ply`, `not_your_turn`, `game_over`, an illegal move, or the last transient error.
    pub async fn post_move(
        &self,
        key: &GameKey,
        ply: u32,
        mv: &MoveBody,
        give_up: Instant,
    ) -> Result<GameState, Error> {
        self.post_move_with_info(key, ply, mv, None, give_up).await
    }

    /// [`Client::post_move`] with what the bot thought of the move, sent as the
    /// `Hexarena-Info` header (issue 21; left out when it says nothing or is over 1,024 bytes).
    ///
    /// # Errors
    /// As [`Client::post_move`]; 400 `invalid_info` when the server refuses the info.
    pub async fn post_move_with_info(
        &self,
        key: &GameKey,
        ply: u32,
        mv: &MoveBody,
        info: Option<&MoveInfo>,
        give_up: Instant,
    ) -> Result<GameState, Error> {
        let path = format!("{}/moves?ply={ply}", game_path(key));
        let value = info.and_then(MoveInfo::header_value);
        let header = value.as_deref().map(|v| (MoveInfo::HEADER, v));
        required(
            self.call_retrying_with(Method::POST, &path, Some(mv), CALL_TIMEOUT, give_up, header)
                .await?,
        )
    }

    /// Resigns a game; a repeat after a lost answer is safe (200 with the same state).
    ///
    /// # Errors
    /// `game_over` when it had ended otherwise, or the last transient error.
    pub async fn resign(&self, key: &GameKey) -> Result<GameState, Error> {
        let path = format!("{}/resign", game_path(key));
        self.post_set_action(&path).await
    }

    /// Accepts a challenge, resent after transient errors: a repeat by the bot that accepted
    /// is a 200 with the set as it is now (agents.md section 3).
    ///
    /// # Errors
    /// `set_not_open` (another bot was faster), `forbidden`, `insufficient_balance`,
    /// `suspended`, ...
    pub async fn accept(&self, set_id: &str) -> Result<SetView, Error> {
        self.post_set_action(&format!("/v1/sets/{set_id}/accept"))
            .await
    }

    /// Declines a private challenge addressed to this bot (retried: a repeat is a 200).
    ///
    /// # Errors
    /// `set_not_open`, `forbidden`, or the last transient error.
    pub async fn decline(&self, set_id: &str) -> Result<SetView, Error> {
        self.post_set_action(&format!("/v1/sets/{set_id}/decline"))
            .await
    }

    /// Cancels a challenge this bot created (retried: a repeat is a 200).
    ///
    /// # Errors
    /// `set_not_open`, `forbidden`, or the last transient error.
    pub async fn cancel(&self, set_id: &str) -> Result<SetView, Error> {
        self.post_set_action(&format!("/v1/sets/{set_id}/cancel"))
            .await
    }

    async fn post_set_action<T: DeserializeOwned>(&self, path: &str) -> Result<T, Error> {
        let give_up = Instant::now() + Duration::from_secs(20);
        required(
            self.call_retrying(Method::POST, path, Some(&json!({})), CALL_TIMEOUT, give_up)
                .await?,
        )
    }

    /// `POST /v1/sets`: a challenge. Not retried (it would create a second set).
    ///
    /// # Errors
    /// `bad_request`, `invalid_options`, `same_owner`, `rate_limited`, ...
    pub async fn create_set(&self, set: &NewSet) -> Result<SetView, Error> {
        required(
            self.call(Method::POST, "/v1/sets", Some(set), CALL_TIMEOUT)
                .await?,
        )
    }

    /// `POST /v1/practice`: a set against a house bot, active at once. Not retried.
    ///
    /// # Errors
    /// `not_found` (no such house bot), `house_busy`, `rate_limited`, ...
    pub async fn practice(&self, practice: &PracticeRequest) -> Result<SetView, Error> {
        required(
            self.call(Method::POST, "/v1/practice", Some(practice), CALL_TIMEOUT)
                .await?,
        )
    }

    /// `POST /v1/pool`: joins the matchmaking pool (or changes the entry), retried for up to
    /// 20 s (the same request again changes nothing). While the bot is in the pool and online,
    /// the arena starts sets for it; each arrives as `set_started` with `pool: true`.
    ///
    /// # Errors
    /// `bad_request`, `invalid_options`, `not_accepted`, `suspended`, `bot_retired`,
    /// `insufficient_balance`, or the last transient error.
    pub async fn join_pool(&self, join: &PoolJoin) -> Result<PoolEntry, Error> {
        let give_up = Instant::now() + Duration::from_secs(20);
        required(
            self.call_retrying(Method::POST, "/v1/pool", Some(join), CALL_TIMEOUT, give_up)
                .await?,
        )
    }

    /// `DELETE /v1/pool`: leaves the pool (sets already started go on), retried for up to
    /// 20 s (leaving again is the same success).
    ///
    /// # Errors
    /// `unauthorized`, or the last transient error.
    pub async fn leave_pool(&self) -> Result<(), Error> {
        let give_up = Instant::now() + Duration::from_secs(20);
        self.call_retrying::<Value>(
            Method::DELETE,
            "/v1/pool",
            None::<&Value>,
            CALL_TIMEOUT,
            give_up,
        )
        .await
        .map(|_| ())
    }

    /// `GET /v1/pool`: who waits in the pool, and its rules, retried for up to 30 s.
    ///
    /// # Errors
    /// The last transient error.
    pub async fn pool(&self) -> Result<PoolList, Error> {
        self.get_retrying("/v1/pool").await
    }

    /// `GET /v1/bots/{name-or-id}`: any bot's public profile (name in any case), retried for
    /// up to 30 s.
    ///
    /// # Errors
    /// 404 `not_found`, or the last transient error.
    pub async fn bot(&self, name_or_id: &str) -> Result<BotProfile, Error> {
        self.get_retrying(&format!("/v1/bots/{}", path_segment(name_or_id)))
            .await
    }

    /// `GET /v1/bots/{name-or-id}/ratings`: Elo and Glicko-2 around each rated set.
    ///
    /// # Errors
    /// 404 `not_found`, or the last transient error.
    pub async fn ratings(&self, name_or_id: &str) -> Result<RatingHistory, Error> {
        self.get_retrying(&format!("/v1/bots/{}/ratings", path_segment(name_or_id)))
            .await
    }

    /// `GET /v1/sets/{id}/games/{n}/analysis`: the arena's analysis of a finished game
    /// (`status` `pending` until the background analyst has run; poll, or wait for the game
    /// stream's `analysis` event).
    ///
    /// # Errors
    /// 404 `not_found`, 409 `game_not_finished`, or the last transient error.
    pub async fn analysis(&self, key: &GameKey) -> Result<Analysis, Error> {
        self.get_retrying(&format!("{}/analysis", game_path(key)))
            .await
    }

    /// `GET /v1/bots/{name-or-id}/mistakes?limit=`: the positions where the bot's moves lost
    /// the most win probability, worst first (`limit` 1..=100, default 20).
    ///
    /// # Errors
    /// 404 `not_found`, 400 `bad_request` for a bad limit, or the last transient error.
    pub async fn mistakes(
        &self,
        name_or_id: &str,
        limit: Option<u32>,
    ) -> Result<BotMistakes, Error> {
        let q = query(&[("limit", limit.map(|v| v.to_string()))]);
        self.get_retrying(&format!(
            "/v1/bots/{}/mistakes{q}",
            path_segment(name_or_id)
        ))
        .await
    }

    /// `GET /v1/bots/{a}/versus/{b}`: head-to-head figures of `a` against `b`, from `a`'s side.
    ///
    /// # Errors
    /// 404 `not_found`, 400 `bad_request` when both name one bot, or the last transient error.
    pub async fn versus(&self, a: &str, b: &str) -> Result<HeadToHead, Error> {
        self.get_retrying(&format!(
            "/v1/bots/{}/versus/{}",
            path_segment(a),
            path_segment(b)
        ))
        .await
    }

    /// `GET /v1/sets/{id}/games/{n}/sgf`: the game as SGF text, with the bots' infos as
    /// comments. Sent once.
    ///
    /// # Errors
    /// 404 `not_found`, or the network error.
    pub async fn game_sgf(&self, key: &GameKey) -> Result<String, Error> {
        self.transport
            .get_text_ok(&format!("{}/sgf", game_path(key)))
            .await
    }

    /// `GET /v1/bots/{name-or-id}/games.sgf?since=`: the bot's finished games as one SGF
    /// collection, oldest first (`since`: RFC 3339). Sent once.
    ///
    /// # Errors
    /// 404 `not_found`, 400 `bad_request` for a bad `since`, or the network error.
    pub async fn bot_games_sgf(
        &self,
        name_or_id: &str,
        since: Option<&str>,
    ) -> Result<String, Error> {
        let q = query(&[("since", since.map(str::to_string))]);
        self.transport
            .get_text_ok(&format!(
                "/v1/bots/{}/games.sgf{q}",
                path_segment(name_or_id)
            ))
            .await
    }

    /// `GET /v1/leaderboard?limit=&offset=&provisional=`: rows by Elo; `provisional`
    /// `Some(false)` leaves out bots whose deviation is above 110, `Some(true)` keeps only them.
    ///
    /// # Errors
    /// 400 `bad_request` for a limit below 1, or the last transient error.
    pub async fn leaderboard(
        &self,
        limit: Option<u32>,
        offset: Option<u32>,
        provisional: Option<bool>,
    ) -> Result<Leaderboard, Error> {
        let q = query(&[
            ("limit", limit.map(|v| v.to_string())),
            ("offset", offset.map(|v| v.to_string())),
            ("provisional", provisional.map(|v| v.to_string())),
        ]);
        self.get_retrying(&format!("/v1/leaderboard{q}")).await
    }

    /// `GET /v1/sets?status=&bot=&limit=&before=`: one page, newest first.
    ///
    /// # Errors
    /// 400 `bad_request` for an unknown status or a limit below 1, or the last transient error.
    pub async fn sets(
        &self,
        status: Option<&str>,
        bot: Option<&str>,
        limit: Option<u32>,
        before: Option<&str>,
    ) -> Result<SetList, Error> {
        let q = query(&[
            ("status", status.map(str::to_string)),
            ("bot", bot.map(str::to_string)),
            ("limit", limit.map(|v| v.to_string())),
            ("before", before.map(str::to_string)),
        ]);
        self.get_retrying(&format!("/v1/sets{q}")).await
    }
}
