//! Shared helpers of the black-box tests: spawn the arena on port 0 with a fresh database, and
//! drive it over HTTP as a bot would. The database is a fresh SQLite file, or, when
//! `TEST_DATABASE_URL=postgres://...` is set, a fresh PostgreSQL database created on that
//! server for each app (so the same suite runs against PostgreSQL).
//!
//! Requests go through one [`TestApp`] method per route (`api.rs`: `app.create_set(..)`,
//! `app.post_move(..)`, `app.get_game(..)`, ...), and every `/v1/` path is spelled once, in
//! `paths.rs`; a test that needs a path itself (an event stream, a server in another process)
//! takes it from there. `tests/openapi_routes.rs` checks that no other test file spells one.
//! Tests that reach into the server (`app.arena`, the database) live in `*_greybox.rs` files.
#![allow(dead_code)]

pub mod api;
pub mod errors;
pub mod glicko;
pub mod paths;
pub mod process;
pub mod skew;
pub mod sse;

use std::sync::Arc;

use hexarena::arena::Arena;
use hexarena::arena::clock::{SteadyTime, TimeSource};
use hexarena::config::ServeConfig;
use hexarena_contract::{GameState, SetView};
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// A running arena for one test.
pub struct TestApp {
    pub url: String,
    pub arena: Arc<Arena>,
    pub http: reqwest::Client,
    /// Keeps the database folder alive as long as the app.
    pub dir: tempfile::TempDir,
    /// The database the app runs on (another instance may be started on it).
    pub database_url: String,
}

/// A response: status and JSON body (Null when empty or not JSON).
#[derive(Debug)]
pub struct Resp {
    pub status: StatusCode,
    pub body: Value,
    pub headers: reqwest::header::HeaderMap,
}

impl Resp {
    /// The error code of an error envelope.
    pub fn code(&self) -> &str {
        self.body["error"]["code"].as_str().unwrap_or("")
    }

    /// The body read as a contract type (`hexarena-contract`); panics naming the type and
    /// the body when it does not parse.
    pub fn typed<T: DeserializeOwned>(&self) -> T {
        serde_json::from_value(self.body.clone()).unwrap_or_else(|e| {
            panic!("{} is not a {}: {e}", self.body, std::any::type_name::<T>())
        })
    }
}

/// Reads `v` as a contract type and checks that writing it back gives the same JSON: the type
/// names every field the server sent, with the server's shapes.
pub fn round_trip<T: Serialize + DeserializeOwned>(v: &Value) -> T {
    let t: T = serde_json::from_value(v.clone())
        .unwrap_or_else(|e| panic!("{v} is not a {}: {e}", std::any::type_name::<T>()));
    let back = serde_json::to_value(&t).expect("a contract type serializes");
    assert_eq!(
        &back,
        v,
        "{} does not write back the same JSON",
        std::any::type_name::<T>()
    );
    t
}

/// Options of [`spawn_with`].
pub struct Spawn {
    pub house_bots: bool,
    pub operator_token: Option<String>,
    pub fee_bps: i64,
    pub starting_balance: i64,
    pub register_per_min: u32,
    pub sets_per_min: u32,
    pub time: Arc<dyn TimeSource>,
    pub database_url: Option<String>,
    /// House thinking threads (None: the machine's cores).
    pub house_threads: Option<usize>,
    /// House games in play per thread before new house sets are refused.
    pub house_games_per_thread: usize,
    /// Wait before a house bot takes a lobby challenge, ms (-1: never).
    pub house_lobby_wait_ms: i64,
    /// Demo mode, and its least time per house move (ms).
    pub demo: bool,
    pub demo_think_ms: u64,
    /// The background analysis of finished games (issue 21; off unless a test wants it).
    pub analysis: bool,
    /// Its playouts per position (0: the server's default).
    pub analysis_playouts: u32,
    /// Most pool sets between one pair of bots in any hour (issue 20).
    pub pool_pair_sets_per_hour: i64,
    /// Outside GTP engines as house bots (`NAME=COMMAND`, issue 23).
    pub house_engines: Vec<String>,
}

impl Default for Spawn {
    fn default() -> Self {
        Spawn {
            house_bots: false,
            operator_token: Some("op-secret".into()),
            fee_bps: 0,
            starting_balance: 1000,
            register_per_min: 10_000,
            sets_per_min: 10_000,
            time: Arc::new(SteadyTime::new()),
            database_url: None,
            house_threads: None,
            house_games_per_thread: hexarena::arena::house::GAMES_PER_THREAD_DEFAULT,
            house_lobby_wait_ms: 10_000,
            demo: false,
            demo_think_ms: 2_000,
            analysis: false,
            analysis_playouts: 0,
            pool_pair_sets_per_hour: hexarena::arena::pool::PAIR_SETS_PER_HOUR_DEFAULT,
            house_engines: vec![],
        }
    }
}

/// The arena with default test settings (no house bots, generous limits).
pub async fn spawn_app() -> TestApp {
    spawn_with(Spawn::default()).await
}

pub async fn spawn_with(s: Spawn) -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = match (s.database_url.clone(), pg_admin_url()) {
        (Some(url), _) => url,
        (None, Some(_)) => fresh_pg_db().await.expect("TEST_DATABASE_URL is set"),
        (None, None) => format!("sqlite://{}/arena.db", dir.path().display()),
    };
    let cfg = ServeConfig {
        bind: "127.0.0.1:0".into(),
        database_url: db.clone(),
        operator_token: s.operator_token.clone(),
        starting_balance: s.starting_balance,
        fee_bps: s.fee_bps,
        house_bots: s.house_bots,
        demo: s.demo,
        house_threads: s.house_threads,
        house_games_per_thread: s.house_games_per_thread,
        house_lobby_wait_ms: s.house_lobby_wait_ms,
        demo_think_ms: s.demo_think_ms,
        house_engines: s.house_engines.clone(),
        register_per_min: s.register_per_min,
        sets_per_min: s.sets_per_min,
        analysis: s.analysis,
        analysis_playouts: s.analysis_playouts,
        pool_pair_sets_per_hour: s.pool_pair_sets_per_hour,
        ..ServeConfig::default()
    };
    let running = hexarena::start(&cfg, s.time.clone())
        .await
        .expect("arena starts");
    let url = format!("http://{}", running.addr);
    tokio::spawn(running.server);
    TestApp {
        url,
        arena: running.arena,
        http: reqwest::Client::new(),
        dir,
        database_url: db,
    }
}

impl TestApp {
    /// Sends a request with an optional bearer token and JSON body.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Resp {
        let mut rb = self.http.request(method, format!("{}{}", self.url, path));
        if let Some(t) = token {
            rb = rb.bearer_auth(t);
        }
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        let r = rb.send().await.expect("request sent");
        let status = r.status();
        let headers = r.headers().clone();
        let text = r.text().await.expect("body read");
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Resp {
            status,
            body,
            headers,
        }
    }

    /// The text of `GET /metrics` (Prometheus exposition).
    pub async fn metrics_text(&self) -> String {
        self.http
            .get(format!("{}/metrics", self.url))
            .send()
            .await
            .expect("metrics answer")
            .text()
            .await
            .expect("text")
    }

    /// The value of the unlabelled sample `name` in `GET /metrics` (None: no such line).
    pub async fn metric(&self, name: &str) -> Option<f64> {
        metric_sample(&self.metrics_text().await, name)
    }

    pub async fn get(&self, path: &str) -> Resp {
        self.call(Method::GET, path, None, None).await
    }

    pub async fn get_auth(&self, path: &str, token: &str) -> Resp {
        self.call(Method::GET, path, Some(token), None).await
    }

    pub async fn post(&self, path: &str, token: Option<&str>, body: Value) -> Resp {
        self.call(Method::POST, path, token, Some(body)).await
    }

    pub async fn patch(&self, path: &str, token: Option<&str>, body: Value) -> Resp {
        self.call(Method::PATCH, path, token, Some(body)).await
    }

    pub async fn delete(&self, path: &str, token: Option<&str>) -> Resp {
        self.call(Method::DELETE, path, token, None).await
    }

    /// Sends a raw body (for malformed JSON and size limits).
    pub async fn post_raw(&self, path: &str, token: Option<&str>, body: Vec<u8>) -> Resp {
        let mut rb = self.http.post(format!("{}{}", self.url, path)).body(body);
        if let Some(t) = token {
            rb = rb.bearer_auth(t);
        }
        let r = rb.send().await.expect("request sent");
        let status = r.status();
        let headers = r.headers().clone();
        let text = r.text().await.expect("body read");
        Resp {
            status,
            body: serde_json::from_str(&text).unwrap_or(Value::Null),
            headers,
        }
    }

    /// Registers a player; returns (player id, player token).
    pub async fn player(&self, name: &str) -> (String, String) {
        let r = self.create_player(json!({"name": name})).await;
        assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
        (
            r.body["id"].as_str().expect("id").into(),
            r.body["token"].as_str().expect("token").into(),
        )
    }

    /// Registers a bot for a player token; returns the bot token.
    pub async fn bot(&self, player_token: &str, name: &str) -> String {
        let r = self
            .create_bot(Some(player_token), json!({"name": name}))
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
        r.body["token"].as_str().expect("token").into()
    }

    /// A new player with one bot; returns (player id, player token, bot token).
    pub async fn player_with_bot(&self, bot_name: &str) -> (String, String, String) {
        let (id, pt) = self.player(&format!("owner of {bot_name}")).await;
        let bt = self.bot(&pt, bot_name).await;
        (id, pt, bt)
    }

    /// Creates a set with `body` merged over `{"game": "hex"}` and accepts it; returns the set id.
    pub async fn start_set(&self, creator: &str, acceptor: &str, body: Value) -> String {
        let mut b = json!({"game": "hex"});
        if let (Some(o), Some(extra)) = (b.as_object_mut(), body.as_object()) {
            for (k, v) in extra {
                o.insert(k.clone(), v.clone());
            }
        }
        let r = self.create_set(Some(creator), b).await;
        assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
        let id = r.body["id"].as_str().expect("set id").to_string();
        let r = self.accept_set(Some(acceptor), &id, json!({})).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        id
    }

    /// `GET /v1/sets/{id}/games/{n}` as the contract's [`GameState`].
    pub async fn game(&self, set_id: &str, game_no: i64) -> GameState {
        let r = self.get_game(set_id, game_no).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        r.typed()
    }

    /// `GET /v1/sets/{id}` as the contract's [`SetView`].
    pub async fn set_view(&self, set_id: &str) -> SetView {
        let r = self.get_set(set_id).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        r.typed()
    }

    pub async fn state(&self, set_id: &str, game_no: i64) -> Value {
        let r = self.get_game(set_id, game_no).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        r.body
    }

    /// Posts a move (`{"cell": [r, c]}` or `{"swap": true}`), with `?ply=` when given.
    pub async fn play(
        &self,
        token: &str,
        set_id: &str,
        game_no: i64,
        mv: Value,
        ply: Option<i64>,
    ) -> Resp {
        let q = ply.map(|k| format!("?ply={k}")).unwrap_or_default();
        self.call(
            Method::POST,
            &format!("{}{q}", paths::moves(set_id, game_no)),
            Some(token),
            Some(mv),
        )
        .await
    }

    /// Posts a move with a `Hexarena-Info` header value (issue 21), with `?ply=` when given.
    pub async fn play_with_info(
        &self,
        token: &str,
        set_id: &str,
        game_no: i64,
        mv: Value,
        ply: Option<i64>,
        info: &str,
    ) -> Resp {
        let q = ply.map(|k| format!("?ply={k}")).unwrap_or_default();
        let r = self
            .http
            .post(format!("{}{}{q}", self.url, paths::moves(set_id, game_no)))
            .bearer_auth(token)
            .header("Hexarena-Info", info)
            .json(&mv)
            .send()
            .await
            .expect("request sent");
        let status = r.status();
        let headers = r.headers().clone();
        let text = r.text().await.expect("body read");
        Resp {
            status,
            body: serde_json::from_str(&text).unwrap_or(Value::Null),
            headers,
        }
    }

    /// `GET path` as text, with its status (SGF exports).
    pub async fn get_text(&self, path: &str) -> (StatusCode, String) {
        let r = self
            .http
            .get(format!("{}{path}", self.url))
            .send()
            .await
            .expect("request sent");
        let status = r.status();
        (status, r.text().await.expect("body read"))
    }

    /// `GET /v1/sets/{id}/games/{n}/analysis`.
    pub async fn analysis(&self, set_id: &str, game_no: i64) -> Resp {
        self.get(&paths::analysis(set_id, game_no)).await
    }

    /// Plays a list of moves alternately for whoever is on move (tokens by seat 1, seat 2).
    pub async fn play_moves(
        &self,
        seat_tokens: [&str; 2],
        set_id: &str,
        game_no: i64,
        moves: &[Value],
    ) -> Resp {
        let mut last = None;
        for mv in moves {
            let s = self.state(set_id, game_no).await;
            let to_move = s["to_move"].as_u64().expect("someone on move") as usize;
            let r = self
                .play(
                    seat_tokens[to_move - 1],
                    set_id,
                    game_no,
                    mv.clone(),
                    Some(s["ply"].as_i64().expect("ply") + 1),
                )
                .await;
            assert_eq!(r.status, StatusCode::OK, "move {mv} refused: {:?}", r.body);
            last = Some(r);
        }
        last.expect("at least one move")
    }

    /// A whole set between Alpha (`alpha`, the creator) and Bravo (`bravo`) on 9x9 without
    /// opening stones: game 1 with a swap, won by connection; game 2 resigned by Alpha.
    /// Returns the set id.
    pub async fn play_whole_set(&self, alpha: &str, bravo: &str) -> String {
        let cell = |r: u8, c: u8| json!({"cell": [r, c]});
        let set = self
            .start_set(
                alpha,
                bravo,
                json!({"options": {"size": 9, "random_stones": 0}}),
            )
            .await;
        let st = self.state(&set, 1).await;
        let seats = seat_tokens(&st, &[("Alpha", alpha), ("Bravo", bravo)]);
        let mut moves = vec![cell(4, 4), json!({"swap": true})];
        for c in 0..9u8 {
            moves.push(cell(0, c)); // seat 1, now left-right after the swap
            if c < 8 {
                moves.push(cell(8, c)); // seat 2
            }
        }
        let last = self.play_moves(seats, &set, 1, &moves).await;
        assert_eq!(last.body["result"]["reason"], "connection");
        let st = self.state(&set, 2).await;
        assert_eq!(st["status"], "active");
        let r = self.resign(Some(alpha), &set, 2, json!({})).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        set
    }

    /// Ends a running set with `loser` losing both games: it resigns game 1, `winner` (seat 1
    /// of game 2) makes game 2's first move, and `loser` resigns game 2.
    pub async fn lose_set(&self, loser: &str, winner: &str, set_id: &str) {
        let r = self.resign(Some(loser), set_id, 1, json!({})).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        let first = self.state(set_id, 2).await["legal_moves"][0].clone();
        let r = self.play(winner, set_id, 2, first, Some(1)).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        let r = self.resign(Some(loser), set_id, 2, json!({})).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    }

    pub async fn balance(&self, player_token: &str) -> i64 {
        self.get_player(Some(player_token)).await.body["balance"]
            .as_i64()
            .expect("balance")
    }
}

/// The value of the unlabelled sample line `name` in a metrics text (None: no such line).
pub fn metric_sample(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

/// The tokens of a game's seats 1 and 2, given the bots' names and tokens.
pub fn seat_tokens<'a>(state: &Value, bots: &[(&str, &'a str)]) -> [&'a str; 2] {
    let find = |seat: usize| {
        let name = state["seats"][seat]["bot"].as_str().expect("seat bot");
        bots.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
            .expect("known bot")
    };
    [find(0), find(1)]
}

/// Reads a JSON-lines test-data file of the engine crate.
pub fn testdata(file: &str) -> Vec<Value> {
    let path = format!(
        "{}/crates/hex/tests/data/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

/// The PostgreSQL server tests create their databases on: `TEST_DATABASE_URL` (or the older
/// `HEXARENA_TEST_PG`), e.g. `postgres://postgres@127.0.0.1:5432/test`; None when neither is set.
pub fn pg_admin_url() -> Option<String> {
    ["TEST_DATABASE_URL", "HEXARENA_TEST_PG"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.trim().is_empty()))
}

/// A fresh, empty PostgreSQL database for one test; returns its URL, or None (after saying on
/// stderr that the test is skipped) when no server is configured (see [`pg_admin_url`]).
/// Panics when a configured server is unreachable.
pub async fn fresh_pg_db() -> Option<String> {
    use sqlx::Connection;
    let Some(admin) = pg_admin_url() else {
        // Written past the test harness's output capture, so it shows in a plain `cargo test`.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: this test needs PostgreSQL; set TEST_DATABASE_URL=postgres://user@host:port/db to run it"
        );
        return None;
    };
    sqlx::any::install_default_drivers();
    let mut c = sqlx::AnyConnection::connect(&admin)
        .await
        .unwrap_or_else(|e| panic!("PostgreSQL at {admin} (TEST_DATABASE_URL): {e}"));
    drop_stale_pg_dbs(&admin, &mut c).await;
    let name = format!(
        "hx_{}_{}",
        std::process::id(),
        ulid::Ulid::generate().to_string().to_lowercase()
    );
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut c)
        .await
        .expect("create database");
    let base = admin
        .rsplit_once('/')
        .map_or(admin.as_str(), |(b, _)| b)
        .to_string();
    Some(format!("{base}/{name}"))
}

/// Once per test process, starts dropping the databases that earlier test processes created
/// and left behind (`hx_<pid>_<ulid>` whose process is gone, and the older `hx_<ulid>`), so a
/// long run of test binaries does not fill the server's disk. The drops run in a detached `psql`
/// (each one forces a checkpoint, which takes seconds: no test waits for them). Best effort:
/// without `psql` the databases stay until `.ci/run` drops them at the end.
async fn drop_stale_pg_dbs(admin_url: &str, c: &mut sqlx::AnyConnection) {
    static ONCE: tokio::sync::OnceCell<()> = tokio::sync::OnceCell::const_new();
    ONCE.get_or_init(|| async {
        let names: Vec<String> =
            sqlx::query_scalar("SELECT datname::text FROM pg_database WHERE datname LIKE 'hx\\_%'")
                .fetch_all(&mut *c)
                .await
                .unwrap_or_default();
        let mut psql = std::process::Command::new("psql");
        psql.arg(admin_url).arg("-q");
        let mut any = false;
        for name in names {
            let owner_alive = name
                .split('_')
                .nth(1)
                .and_then(|p| p.parse::<u32>().ok())
                .is_some_and(|pid| {
                    pid == std::process::id()
                        || std::path::Path::new(&format!("/proc/{pid}")).exists()
                });
            let plain = name
                .chars()
                .all(|ch| ch.is_ascii_alphanumeric() || ch == '_');
            if !owner_alive && plain {
                psql.arg("-c")
                    .arg(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
                any = true;
            }
        }
        if any {
            let _ = psql
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn();
        }
    })
    .await;
}

/// A database at `url` as the builds up to migration `last` of `backend` (`sqlite` or
/// `postgres`) left it: only the migrations with a version up to `last` are run, so an upgrade
/// test can store rows in the old shape before this build opens it.
pub async fn database_at_migration(url: &str, backend: &str, last: i64) -> sqlx::AnyPool {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(url).await.expect("old database");
    let dir = format!("{}/migrations/{backend}", env!("CARGO_MANIFEST_DIR"));
    let mut m = sqlx::migrate::Migrator::new(std::path::Path::new(&dir))
        .await
        .expect("migrations");
    let old: Vec<_> = m
        .migrations
        .iter()
        .filter(|x| x.version <= last)
        .cloned()
        .collect();
    m.migrations = old.into();
    m.run(&pool).await.expect("the migrations up to `last`");
    pool
}
