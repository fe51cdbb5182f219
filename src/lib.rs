//! hexarena: an arena where bots play Hex sets over REST for ranked points.
//!
//! Layout: [`arena`] holds the product's logic with time injected, [`store`] the SQL,
//! [`api`] the HTTP edge, [`web`] the viewers' pages, [`config`] the server's flags and
//! [`metrics`] what `GET /metrics` serves. The rules live in the pure `hex` crate
//! (`crates/hex`), the house strategies in `hex-search`. This library is the server only and
//! depends on no HTTP client: the bot client, the GTP bridge and the load tools are
//! `hexarena-client` and `hexarena-tools` (`crates/`), which the `hexarena` binary adds.

pub mod api;
pub mod arena;
pub mod config;
pub mod error;
pub mod metrics;
pub mod store;
pub mod web;

use std::net::TcpListener;
use std::sync::Arc;

use actix_web::{App, HttpServer, web as aweb};

use arena::clock::{SteadyTime, TimeSource};
use arena::{Arena, ArenaConfig};
use config::ServeConfig;

/// Readings of the database's clock tried at start-up before giving up.
const CLOCK_ATTEMPTS: usize = 10;

/// A running server: its address and a handle to stop it.
pub struct Running {
    pub addr: std::net::SocketAddr,
    pub arena: Arc<Arena>,
    pub server: actix_web::dev::Server,
}

/// Connects the database, registers the house bots, starts the scheduler and binds the HTTP
/// server (not yet awaited). `time` is injected for tests; production passes [`SteadyTime`].
pub async fn start(cfg: &ServeConfig, time: Arc<dyn TimeSource>) -> anyhow::Result<Running> {
    // A malformed `--house-engine` stops the start before anything is touched.
    let engines = arena::house::outside::OutsideEngine::parse_all(&cfg.house_engines)
        .map_err(|e| anyhow::anyhow!("--house-engine / ARENA_HOUSE_ENGINES: {e}"))?;
    if !(engines.is_empty() || cfg.house_bots || cfg.demo) {
        tracing::warn!("outside house engines are configured but the house bots are off");
    }
    let store =
        store::Store::connect_with(&cfg.database_url, cfg.sqlite_synchronous == "full").await?;
    let config = ArenaConfig {
        starting_balance: cfg.starting_balance.max(0),
        fee_bps: cfg.fee_bps.clamp(0, 10_000),
        operator_token_hash: cfg
            .operator_token
            .as_deref()
            .filter(|t| !t.is_empty())
            .map(arena::accounts::token_hash),
        challenge_ttl_ms: (cfg.challenge_ttl_s > 0)
            .then(|| i64::try_from(cfg.challenge_ttl_s.saturating_mul(1000)).unwrap_or(i64::MAX)),
        presence_window_ms: cfg.presence_window_ms.max(0),
        analysis: cfg.analysis(),
        pool_pair_sets_per_hour: cfg.pool_pair_sets_per_hour.max(1),
    };
    let arena = Arena::new(store, time, config);
    // One clock for every instance: the database's, measured before recovery judges downtime.
    let mut unsynced = arena::scheduler::sync_clock(&arena).await;
    for _ in 0..CLOCK_ATTEMPTS {
        if unsynced.is_none() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        unsynced = arena::scheduler::sync_clock(&arena).await;
    }
    if let Some(why) = unsynced {
        anyhow::bail!("the clock cannot be synchronized with the database's: {why}");
    }
    tracing::info!(
        offset_ms = arena.clock.offset_ms(),
        "clock offset to the database measured"
    );
    let was_down = arena::scheduler::recover(&arena).await?;
    // With other instances running, wait until each announces its changes (issue 22).
    arena::cluster::join(&arena, was_down).await?;
    // Once per database (issue 20): Glicko-2 figures from the rated sets stored before it.
    if let Some(r) = arena
        .replay_glicko_once()
        .await
        .map_err(|e| anyhow::anyhow!("replaying the rated sets through Glicko-2: {e}"))?
    {
        tracing::info!(
            sets = r.sets,
            bots = r.bots,
            skipped = r.skipped,
            "Glicko-2 figures computed from the stored rated sets"
        );
    }
    let held = arena
        .hold_active_games()
        .await
        .map_err(|e| anyhow::anyhow!("loading active games: {e}"))?;
    tracing::info!(games = held, "active games held in memory");
    if arena.store.backend == store::Backend::Postgres {
        // Several instances may share the database: hear of their changes (SPEC 12, 13).
        tokio::spawn(arena::cluster::listen(arena.clone()));
        tokio::spawn(arena::cluster::watch_peers(arena.clone()));
        tokio::spawn(arena::cluster::Watermark::run(arena.clone()));
    }
    tokio::spawn(arena::scheduler::run(arena.clone()));
    tokio::spawn(arena::presence::run(arena.clone()));
    tokio::spawn(arena::tournaments::run(arena.clone()));
    arena::analysis::spawn(arena.clone(), cfg.analysis())?;
    tokio::spawn(arena::pool::run(arena.clone()));
    if cfg.house_bots || cfg.demo {
        let bots = arena::house::ensure(&arena, &engines)
            .await
            .map_err(|e| anyhow::anyhow!("house bots: {e}"))?;
        arena::house::spawn(arena.clone(), bots, cfg.house())?;
    }
    let limits = Arc::new(api::ratelimit::Limits::new(
        cfg.register_per_min,
        cfg.sets_per_min,
    ));
    tokio::spawn(api::ratelimit::Limits::forget_idle_every(
        limits.clone(),
        std::time::Duration::from_secs(60),
    ));
    // Every held connection is an open file: raise the soft limit, then size the caps by it.
    let fd_limit = api::holds::raise_fd_limit();
    let (fd_connections, fd_held) = api::holds::fd_budget(fd_limit);
    let max_connections = match cfg.max_connections {
        0 => fd_connections,
        n => n,
    };
    let max_held = match cfg.max_held {
        0 if cfg.max_connections == 0 => fd_held,
        0 => (max_connections * 3 / 4).max(1),
        n => n,
    };
    let holds = api::holds::Holds::new(api::holds::HoldLimits {
        streams_per_bot: cfg.streams_per_bot,
        long_polls_per_bot: cfg.long_polls_per_bot,
        streams_per_address: cfg.streams_per_address,
        long_polls_per_address: cfg.long_polls_per_address,
        total: max_held,
    });
    tracing::info!(fd_limit, max_connections, max_held, "connection limits");
    // actix's own default, within the 1..=512 it accepts.
    let workers = std::thread::available_parallelism()
        .map_or(2, std::num::NonZeroUsize::get)
        .clamp(1, 512);
    let state = aweb::Data::new(api::AppState {
        arena: arena.clone(),
        schemas: api::contract::Schemas::load()?,
        limits,
        holds,
        trust_forwarded_for: cfg.trust_forwarded_for,
    });
    let listener = TcpListener::bind(&cfg.bind)?;
    let addr = listener.local_addr()?;
    // Connections per client address, capped at accept (off behind a trusted proxy, whose
    // own address every connection has).
    let conn_caps = api::conns::ConnCaps::new(cfg.connections_per_address);
    let per_address = !cfg.trust_forwarded_for && cfg.connections_per_address > 0;
    let server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .app_data(api::query_config())
            .app_data(api::path_config())
            // Innermost first: metrics count the status conformance settles on.
            .wrap(actix_web::middleware::from_fn(api::clock_guard))
            .wrap(actix_web::middleware::from_fn(api::conformance::middleware))
            .wrap(actix_web::middleware::from_fn(api::metrics::track))
            .wrap(tracing_actix_web::TracingLogger::<
                api::request_span::RequestSpan,
            >::new())
            // Outermost: the access log must not record a client-supplied address.
            .wrap(actix_web::middleware::from_fn(api::strip_forwarded))
            .configure(api::configure)
            .configure(web::configure)
            .default_service(aweb::to(api::not_found))
    })
    // Bots reuse connections between moves: keep idle ones longer than a client's usual
    // pool timeout so a request never races the server closing its connection.
    .keep_alive(std::time::Duration::from_secs(120))
    // actix counts connections per worker; past this each worker stops accepting and new
    // connections wait in the listen backlog instead of failing on a full descriptor table.
    .workers(workers)
    // A client that closes its side has abandoned its request: drop the handler at once, so
    // an abandoned long-poll frees its slot (and presence) now, not when its wait_s ends.
    .h1_allow_half_closed(false)
    .max_connections(max_connections.div_ceil(workers).max(1))
    .on_connect(move |conn, data| {
        if per_address {
            conn_caps.on_connect(conn, data);
        }
    })
    .listen(listener)?
    .shutdown_timeout(5)
    // Stop signals are handled in [`serve`]: the arena stops its clocks before the drain.
    .disable_signals()
    .run();
    Ok(Running {
        addr,
        arena,
        server,
    })
}

/// Runs the arena until the process is stopped.
pub async fn serve(cfg: ServeConfig) -> anyhow::Result<()> {
    // One process per SQLite file (found by an outside tester: a second one started cleanly
    // and the two never saw each other's moves); held until the process ends.
    let _sqlite_lock = store::Store::lock_sqlite_file(&cfg.database_url)?;
    let running = start(&cfg, Arc::new(SteadyTime::new())).await?;
    // A stall of this process (SIGSTOP, a paused container) is an outage credited like one;
    // watched on the real clock only (a stall is real time, which an injected clock does
    // not follow).
    running.arena.store.health.watch_stalls();
    println!("hexarena listening on http://{}", running.addr);
    println!(
        "bot authors: read agents.md, or try: curl -s -X POST http://{}/v1/players -d '{{\"name\":\"me\"}}'",
        running.addr
    );
    let handle = running.server.handle();
    let arena = running.arena.clone();
    tokio::spawn(async move {
        stop_signal().await;
        // First the stop moment (clocks held from here, SPEC 7), then the drain.
        arena.stop_serving().await;
        handle.stop(true).await;
    });
    running.server.await?;
    Ok(())
}

/// Resolves on SIGTERM or SIGINT (Ctrl-C); on platforms without SIGTERM, on Ctrl-C only.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
                return;
            }
            Err(e) => tracing::warn!(error = %e, "cannot listen for SIGTERM; Ctrl-C only"),
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
