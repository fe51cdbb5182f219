//! Caps on what one client can hold open (issue 17): event streams and long-polls per bot token
//! and per client address, 429 `rate_limited` beyond them, a slot freed the moment its
//! connection closes, and a flood from one address that leaves the server answering others.
//! Connections are raw TCP so that hundreds of them stay cheap, and so that a second client
//! can come from another loopback address (127.0.0.2).

mod common;
use common::paths;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use common::{TestApp, spawn_app};
use futures_util::StreamExt;
use hexarena::arena::clock::SteadyTime;
use hexarena::config::ServeConfig;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

const OTHER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

/// An answer's head (and its JSON body when it has a `Content-Length`), with the connection
/// still open: dropping it closes the connection.
struct Held {
    status: u16,
    headers: Vec<(String, String)>,
    body: Value,
    _conn: TcpStream,
}

impl Held {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

fn server_addr(app: &TestApp) -> SocketAddr {
    app.url
        .trim_start_matches("http://")
        .parse()
        .expect("the app's address")
}

/// Connects (from `from` when given) and sends `GET path`, without reading anything.
async fn send_get(
    app: &TestApp,
    path: &str,
    token: Option<&str>,
    from: Option<IpAddr>,
) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("socket");
    if let Some(ip) = from {
        socket.bind(SocketAddr::new(ip, 0)).expect("bind");
    }
    let mut conn = socket.connect(server_addr(app)).await.expect("connect");
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    let req = format!("GET {path} HTTP/1.1\r\nHost: arena\r\n{auth}\r\n");
    conn.write_all(req.as_bytes()).await.expect("request sent");
    conn
}

/// Reads an answer's head, and its body when it declares a length; None if no head arrives
/// within `within`.
async fn read_head(mut conn: TcpStream, within: Duration) -> Option<Held> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = tokio::time::timeout(within, async {
        loop {
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                return i + 4;
            }
            let n = conn.read(&mut chunk).await.expect("read");
            assert!(n > 0, "connection closed before an answer");
            buf.extend_from_slice(&chunk[..n]);
        }
    })
    .await
    .ok()?;
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .expect("status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut held = Held {
        status,
        headers,
        body: Value::Null,
        _conn: conn,
    };
    if let Some(len) = held
        .header("content-length")
        .and_then(|v| v.parse::<usize>().ok())
    {
        let mut body = buf[head_end..].to_vec();
        while body.len() < len {
            let n = held._conn.read(&mut chunk).await.expect("read body");
            assert!(n > 0, "connection closed in the body");
            body.extend_from_slice(&chunk[..n]);
        }
        held.body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    }
    Some(held)
}

/// `GET path` and its answer's head.
async fn get(app: &TestApp, path: &str, token: Option<&str>, from: Option<IpAddr>) -> Held {
    let conn = send_get(app, path, token, from).await;
    read_head(conn, Duration::from_secs(20))
        .await
        .unwrap_or_else(|| panic!("no answer to GET {path}"))
}

/// Asserts the 429 of a full cap.
fn assert_refused(h: &Held, limit: &str, max: u64) {
    assert_eq!(h.status, 429, "{:?}", h.body);
    assert_eq!(h.body["error"]["code"], "rate_limited");
    assert_eq!(h.body["error"]["details"]["limit"], limit);
    assert_eq!(h.body["error"]["details"]["max"], max);
    assert_eq!(h.header("retry-after"), Some("2"));
}

/// Retries `GET path` until it is no longer refused by a cap; the answer and how long it took.
async fn until_admitted(
    app: &TestApp,
    path: &str,
    token: Option<&str>,
    from: Option<IpAddr>,
    within: Duration,
) -> (Held, Duration) {
    let t0 = Instant::now();
    loop {
        let h = get(app, path, token, from).await;
        if h.status != 429 || t0.elapsed() > within {
            return (h, t0.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// An active set between two new bots; (set id, a bot token).
async fn a_game(app: &TestApp) -> (String, String) {
    let (_, _, a) = app.player_with_bot("holder-a").await;
    let (_, _, b) = app.player_with_bot("holder-b").await;
    let set = app.start_set(&a, &b, json!({})).await;
    (set, a)
}

#[tokio::test]
async fn a_ninth_stream_on_one_bot_token_is_refused_429_and_closing_one_frees_a_slot_at_once() {
    let app = spawn_app().await;
    let (_, token) = a_game(&app).await;
    let mut open = Vec::new();
    for i in 0..8 {
        let h = get(&app, &paths::bot_events(), Some(&token), None).await;
        assert_eq!(h.status, 200, "stream {i}: {:?}", h.body);
        open.push(h);
    }
    let refused = get(&app, &paths::bot_events(), Some(&token), None).await;
    assert_refused(&refused, "streams_per_bot", 8);
    // Another bot from the same address is not held back by the first bot's cap.
    let (_, _, other) = app.player_with_bot("holder-c").await;
    let h = get(&app, &paths::bot_events(), Some(&other), None).await;
    assert_eq!(h.status, 200);

    drop(open.pop());
    let (h, took) = until_admitted(
        &app,
        &paths::bot_events(),
        Some(&token),
        None,
        Duration::from_secs(3),
    )
    .await;
    assert_eq!(
        h.status, 200,
        "a closed stream frees its slot: {:?}",
        h.body
    );
    println!("slot freed and reused after {took:?}");
}

#[tokio::test]
async fn a_seventeenth_long_poll_on_one_bot_token_is_refused_429_and_a_finished_one_frees_a_slot() {
    let app = spawn_app().await;
    let (_, _, token) = app.player_with_bot("poller").await;
    // No game: each poll waits its whole minute.
    let mut waiting = Vec::new();
    for _ in 0..16 {
        waiting.push(
            send_get(
                &app,
                &paths::with_query(paths::turn(), "wait_s=60"),
                Some(&token),
                None,
            )
            .await,
        );
    }
    waiting_polls_reach(&app, 16).await;
    // The 17th is refused at once, while the 16 still wait.
    let refused = get(
        &app,
        &paths::with_query(paths::turn(), "wait_s=60"),
        Some(&token),
        None,
    )
    .await;
    assert_refused(&refused, "long_polls_per_bot", 16);
    // A poll without wait_s holds nothing and is answered.
    let h = get(&app, &paths::turn(), Some(&token), None).await;
    assert_eq!(h.status, 204);

    drop(waiting.pop());
    let (h, took) = until_admitted(
        &app,
        &paths::with_query(paths::turn(), "wait_s=1"),
        Some(&token),
        None,
        Duration::from_secs(3),
    )
    .await;
    assert_eq!(
        h.status, 204,
        "an abandoned poll frees its slot: {:?}",
        h.body
    );
    println!("long-poll slot freed and reused within {took:?} (the poll itself waits 1 s)");
}

/// Waits (up to 10 s) until the server counts `n` long-polls waiting: sent requests are
/// taken in no fixed order, so the cap is only full once all of them are read.
async fn waiting_polls_reach(app: &TestApp, n: u64) {
    let t0 = Instant::now();
    loop {
        let text = app.metrics_text().await;
        let waiting = text
            .lines()
            .find_map(|l| l.strip_prefix("hexarena_waiting_long_polls "))
            .and_then(|v| v.trim().parse::<u64>().ok());
        if waiting == Some(n) {
            return;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "{waiting:?} long-polls waiting, not {n}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn public_game_streams_are_capped_per_address_and_another_address_is_not_held_back() {
    let app = spawn_app().await;
    let (set, _) = a_game(&app).await;
    let path = paths::game_events(&set, 1);
    let mut open = Vec::new();
    for i in 0..128 {
        let h = get(&app, &path, None, None).await;
        assert_eq!(h.status, 200, "stream {i}: {:?}", h.body);
        open.push(h);
    }
    let t0 = Instant::now();
    let refused = get(&app, &path, None, None).await;
    println!("refused in {:?}", t0.elapsed());
    assert_refused(&refused, "streams_per_address", 128);
    let refused = get(&app, &paths::public_events(), None, None).await;
    assert_refused(&refused, "streams_per_address", 128);
    let h = get(&app, &path, None, Some(OTHER)).await;
    assert_eq!(h.status, 200, "another address: {:?}", h.body);

    drop(open.swap_remove(0));
    let (h, took) = until_admitted(&app, &path, None, None, Duration::from_secs(3)).await;
    assert_eq!(
        h.status, 200,
        "a closed stream frees its slot: {:?}",
        h.body
    );
    println!("address slot freed and reused after {took:?}");
}

#[tokio::test]
async fn public_long_polls_are_capped_per_address() {
    let app = spawn_app().await;
    let (set, _) = a_game(&app).await;
    // Ply 1000 never comes: each poll waits its whole minute.
    let path = paths::with_query(paths::game(&set, 1), "after_ply=1000&wait_s=60");
    let mut waiting = Vec::new();
    for _ in 0..256 {
        waiting.push(send_get(&app, &path, None, None).await);
    }
    waiting_polls_reach(&app, 256).await;
    let refused = get(&app, &path, None, None).await;
    assert_refused(&refused, "long_polls_per_address", 256);
    let h = get(
        &app,
        &paths::with_query(paths::game(&set, 1), "after_ply=1000&wait_s=1"),
        None,
        Some(OTHER),
    )
    .await;
    assert_eq!(h.status, 200, "another address waits and is answered");
}

#[tokio::test]
async fn a_flood_of_two_thousand_streams_from_one_address_leaves_the_server_answering_others() {
    // The connection cap per address is raised past the flood: this test is about streams.
    let app = spawn_configured(|cfg| cfg.connections_per_address = 4_000).await;
    let (set, token) = a_game(&app).await;
    let path = paths::game_events(&set, 1);
    let t0 = Instant::now();
    let flood: Vec<Held> = futures_util::stream::iter(0..2000)
        .map(|_| {
            let (app, path) = (&app, path.as_str());
            async move { get(app, path, None, Some(OTHER)).await }
        })
        .buffer_unordered(64)
        .collect()
        .await;
    let took = t0.elapsed();
    let admitted = flood.iter().filter(|h| h.status == 200).count();
    let refused: Vec<&Held> = flood.iter().filter(|h| h.status == 429).collect();
    println!(
        "flood: {} connections held open, {admitted} streams admitted, {} refused, in {took:?}",
        flood.len(),
        refused.len()
    );
    assert_eq!(admitted, 128);
    assert_eq!(refused.len(), 2000 - 128);
    assert!(
        refused
            .iter()
            .all(|h| h.body["error"]["details"]["limit"] == "streams_per_address")
    );

    // With all 2000 connections still open, other clients are served.
    let r = app.get("/healthz").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["status"], "ok");
    let r = app.get_current_bot(Some(&token)).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let h = get(&app, &path, None, None).await;
    assert_eq!(h.status, 200, "a viewer elsewhere opens the stream");
    let h = get(&app, &paths::bot_events(), Some(&token), None).await;
    assert_eq!(h.status, 200, "a bot elsewhere opens its stream");
    drop(flood);
}

/// An app whose whole server holds at most `max_held` streams and long-polls.
async fn spawn_holding(max_held: usize) -> TestApp {
    spawn_configured(|cfg| cfg.max_held = max_held).await
}

/// An app on a fresh database with the test defaults, then `change` applied to its config.
async fn spawn_configured(change: impl FnOnce(&mut ServeConfig)) -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = match common::pg_admin_url() {
        Some(_) => common::fresh_pg_db()
            .await
            .expect("TEST_DATABASE_URL is set"),
        None => format!("sqlite://{}/arena.db", dir.path().display()),
    };
    let mut cfg = ServeConfig {
        database_url: db.clone(),
        house_bots: false,
        register_per_min: 10_000,
        sets_per_min: 10_000,
        ..ServeConfig::default()
    };
    change(&mut cfg);
    let running = hexarena::start(&cfg, std::sync::Arc::new(SteadyTime::new()))
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

#[tokio::test]
async fn a_full_server_refuses_one_more_stream_from_anyone_with_held_connections_and_still_answers()
{
    let app = spawn_holding(3).await;
    let (set, _) = a_game(&app).await;
    let path = paths::game_events(&set, 1);
    let third = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 3));
    let mut open = vec![
        get(&app, &path, None, None).await,
        get(&app, &path, None, Some(OTHER)).await,
        get(&app, &paths::public_events(), None, None).await,
    ];
    assert!(open.iter().all(|h| h.status == 200));
    let refused = get(&app, &path, None, Some(third)).await;
    assert_refused(&refused, "held_connections", 3);
    let refused = get(
        &app,
        &paths::with_query(paths::game(&set, 1), "after_ply=1000&wait_s=30"),
        None,
        Some(third),
    )
    .await;
    assert_refused(&refused, "held_connections", 3);
    // What does not wait holds nothing, and is answered: a state read (its wait_s means
    // nothing without after_ply), /healthz.
    let h = get(
        &app,
        &paths::with_query(paths::game(&set, 1), "wait_s=30"),
        None,
        Some(third),
    )
    .await;
    assert_eq!(h.status, 200, "{:?}", h.body);
    assert_eq!(app.get("/healthz").await.status, 200);

    drop(open.pop());
    let (h, _) = until_admitted(&app, &path, None, Some(third), Duration::from_secs(3)).await;
    assert_eq!(h.status, 200, "{:?}", h.body);
}

/// Connects from `from`, sends `GET /healthz` with keep-alive and reads the status line:
/// Some(status) with the connection left open, or None when the server closed it unanswered.
async fn healthz_kept_open(app: &TestApp, from: IpAddr) -> (Option<u16>, Option<TcpStream>) {
    let socket = TcpSocket::new_v4().expect("socket");
    socket.bind(SocketAddr::new(from, 0)).expect("bind");
    let Ok(mut conn) = socket.connect(server_addr(app)).await else {
        return (None, None);
    };
    if conn
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: arena\r\n\r\n")
        .await
        .is_err()
    {
        return (None, None);
    }
    let mut buf = [0u8; 512];
    match tokio::time::timeout(Duration::from_secs(5), conn.read(&mut buf)).await {
        Ok(Ok(n)) if n >= 12 => {
            let status = std::str::from_utf8(&buf[9..12])
                .ok()
                .and_then(|s| s.parse().ok());
            (status, Some(conn))
        }
        Ok(_) => (None, None),
        Err(_) => panic!("a connection was neither answered nor closed within 5 s"),
    }
}

#[tokio::test]
async fn connections_beyond_an_addresss_cap_are_closed_at_once_and_other_clients_are_served() {
    let app = spawn_configured(|cfg| cfg.connections_per_address = 100).await;
    let t0 = Instant::now();
    let tried: Vec<(Option<u16>, Option<TcpStream>)> = futures_util::stream::iter(0..300)
        .map(|_| {
            let app = &app;
            async move { healthz_kept_open(app, OTHER).await }
        })
        .buffer_unordered(50)
        .collect()
        .await;
    let took = t0.elapsed();
    let answered = tried.iter().filter(|(s, _)| *s == Some(200)).count();
    let closed = tried.iter().filter(|(s, _)| s.is_none()).count();
    println!(
        "300 keep-alive connections from one address: {answered} answered, {closed} closed at accept, in {took:?}"
    );
    assert_eq!(answered, 100, "exactly the cap is served");
    assert_eq!(closed, 200, "the rest are closed unanswered");

    // With the address's 100 connections held idle, other clients are served.
    let r = app.get("/healthz").await;
    assert_eq!(r.status, 200);
    let third = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 3));
    let (status, _kept) = healthz_kept_open(&app, third).await;
    assert_eq!(status, Some(200), "another address connects");

    // Closing one of its connections lets the address in again.
    let mut kept: Vec<TcpStream> = tried.into_iter().filter_map(|(_, c)| c).collect();
    drop(kept.pop());
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let (status, conn) = healthz_kept_open(&app, OTHER).await;
        if status == Some(200) {
            drop(conn);
            break;
        }
        assert!(
            Instant::now() < deadline,
            "a freed place was not reused within 3 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(kept);
}
