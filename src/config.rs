//! The server's configuration: flags with environment fallbacks (SPEC section 13). The
//! binary's command line (`src/main.rs`) flattens [`ServeConfig`] in beside the subcommands.

use clap::Args;

/// Server settings; each flag also reads an environment variable.
#[derive(Debug, Clone, Args)]
pub struct ServeConfig {
    /// Address to listen on.
    #[arg(long, env = "ARENA_BIND", default_value = "127.0.0.1:8080")]
    pub bind: String,
    /// `sqlite://relative/path.db` or `sqlite:///absolute/path.db` (created if missing), or
    /// `postgres://user@host:port/database`.
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://data/arena.db")]
    pub database_url: String,
    /// Bearer token of the operator (grants, pairings); operator endpoints are off when unset.
    #[arg(long, env = "ARENA_OPERATOR_TOKEN", hide_env_values = true)]
    pub operator_token: Option<String>,
    /// PTS granted to every new player.
    #[arg(long, env = "ARENA_STARTING_BALANCE", default_value_t = 1000)]
    pub starting_balance: i64,
    /// Fee on a set's pot in basis points (0..=10000), paid to the arena's fee account.
    #[arg(long, env = "ARENA_FEE_BPS", default_value_t = 0)]
    pub fee_bps: i64,
    /// Run the built-in house bots in this process.
    #[arg(long, env = "ARENA_HOUSE_BOTS", default_value_t = true, action = clap::ArgAction::Set)]
    pub house_bots: bool,
    /// Let house bots challenge each other continuously (as `hexarena demo`).
    #[arg(long, env = "ARENA_DEMO", default_value_t = false)]
    pub demo: bool,
    /// Worker threads that think for the house bots (default: the machine's cores).
    #[arg(long, env = "ARENA_HOUSE_THREADS")]
    pub house_threads: Option<usize>,
    /// House games in play per house thread, counted in games at 10+0 on 11x11 (a game
    /// weighs (m / (initial + m x increment)) / (61 / 10 s), m = half the board's cells
    /// rounded up: 60+2 on 11x11 about 1/18), above which new practice sets and private
    /// challenges to a house bot are refused (503 `house_busy`).
    #[arg(long, env = "ARENA_HOUSE_GAMES_PER_THREAD", default_value_t = crate::arena::house::GAMES_PER_THREAD_DEFAULT)]
    pub house_games_per_thread: usize,
    /// A lobby challenge nobody accepted within this many ms is accepted by a house bot
    /// (-1: never).
    #[arg(
        long,
        env = "ARENA_HOUSE_LOBBY_WAIT_MS",
        default_value_t = 10_000,
        allow_negative_numbers = true
    )]
    pub house_lobby_wait_ms: i64,
    /// An outside GTP engine played as the house bot `house-NAME`, as
    /// `NAME=COMMAND`; repeatable. `ARENA_HOUSE_ENGINES` holds several separated by `;`
    /// (`mohex=/opt/mohex/mohex --use-book;kata=katahex gtp`); COMMAND is split like a shell
    /// (quotes group, `\` escapes; no expansions, no `;` inside). Needs the house bots on.
    #[arg(
        long = "house-engine",
        env = "ARENA_HOUSE_ENGINES",
        value_name = "NAME=COMMAND",
        value_delimiter = ';'
    )]
    pub house_engines: Vec<String>,
    /// In demo mode, the least time a house bot takes over a move, ms.
    #[arg(long, env = "ARENA_DEMO_THINK_MS", default_value_t = 2_000)]
    pub demo_think_ms: u64,
    /// Player registrations allowed per client address per minute.
    #[arg(long, env = "ARENA_REGISTER_PER_MIN", default_value_t = 30)]
    pub register_per_min: u32,
    /// Sets (and practice sets) a bot may create per minute.
    #[arg(long, env = "ARENA_SETS_PER_MIN", default_value_t = 60)]
    pub sets_per_min: u32,
    /// An open challenge (lobby or private) that nobody accepted within this many seconds is
    /// closed as `expired` (0: never).
    #[arg(long, env = "ARENA_CHALLENGE_TTL_S", default_value_t = 3_600)]
    pub challenge_ttl_s: u64,
    /// Most sets the matchmaking pool starts between one pair of bots in any hour.
    #[arg(long, env = "ARENA_POOL_PAIR_SETS_PER_HOUR", default_value_t = crate::arena::pool::PAIR_SETS_PER_HOUR_DEFAULT)]
    pub pool_pair_sets_per_hour: i64,
    /// SQLite's `synchronous` setting: `normal` (a 2xx survives a killed process; the last
    /// commits may be lost to a power cut) or `full` (a 2xx also survives a power cut).
    #[arg(long, env = "ARENA_SQLITE_SYNCHRONOUS", default_value = "normal", value_parser = ["normal", "full"])]
    pub sqlite_synchronous: String,
    /// Event streams one bot token may hold open at once (429 `streams_per_bot` beyond).
    #[arg(long, env = "ARENA_STREAMS_PER_BOT", default_value_t = 8)]
    pub streams_per_bot: usize,
    /// Long-polls (`wait_s` > 0) one bot token may hold open at once (429
    /// `long_polls_per_bot` beyond).
    #[arg(long, env = "ARENA_LONG_POLLS_PER_BOT", default_value_t = 16)]
    pub long_polls_per_bot: usize,
    /// Event streams one client address (an IPv6 /64) may hold open at once (429
    /// `streams_per_address` beyond).
    #[arg(long, env = "ARENA_STREAMS_PER_ADDRESS", default_value_t = 128)]
    pub streams_per_address: usize,
    /// Long-polls one client address may hold open at once (429 `long_polls_per_address`).
    #[arg(long, env = "ARENA_LONG_POLLS_PER_ADDRESS", default_value_t = 256)]
    pub long_polls_per_address: usize,
    /// Streams and long-polls the whole process may hold (429 `held_connections` beyond);
    /// 0: three quarters of `max_connections`.
    #[arg(long, env = "ARENA_MAX_HELD", default_value_t = 0)]
    pub max_held: usize,
    /// Connections the server accepts at once, over all workers (more wait in the listen
    /// backlog); 0: the open-file limit (soft, raised to the hard one at start-up) less 128.
    #[arg(long, env = "ARENA_MAX_CONNECTIONS", default_value_t = 0)]
    pub max_connections: usize,
    /// TCP connections one client address (an IPv6 /64) may hold open at once; more are shut
    /// down at accept. 0: no cap. Off with `--trust-forwarded-for` (the proxy caps them).
    #[arg(long, env = "ARENA_CONNECTIONS_PER_ADDRESS", default_value_t = 512)]
    pub connections_per_address: usize,
    /// Count the per-address caps and registrations against the last `X-Forwarded-For`
    /// entry instead of the TCP peer: only behind a proxy that appends it.
    #[arg(long, env = "ARENA_TRUST_FORWARDED_FOR", default_value_t = false, action = clap::ArgAction::Set)]
    pub trust_forwarded_for: bool,
    /// How long a bot counts as online after its last stream or long-poll ended, ms (SPEC 14).
    /// Hidden: the default (60 000) is the contract; tests shorten it.
    #[arg(long, env = "ARENA_PRESENCE_WINDOW_MS", default_value_t = crate::arena::presence::ONLINE_WINDOW_MS, hide = true)]
    pub presence_window_ms: i64,
    /// Analyse every finished game in the background with the house's search, on
    /// one lowest-priority thread that pauses while house bots think.
    #[arg(long, env = "ARENA_ANALYSIS", default_value_t = true, action = clap::ArgAction::Set)]
    pub analysis: bool,
    /// Playouts per position of the analysis (0: the house strong bot's budget for the board
    /// size, 5 000 on 11x11).
    #[arg(long, env = "ARENA_ANALYSIS_PLAYOUTS", default_value_t = 0)]
    pub analysis_playouts: u32,
}

impl ServeConfig {
    /// The analyst's settings from these flags.
    pub fn analysis(&self) -> crate::arena::analysis::AnalysisConfig {
        crate::arena::analysis::AnalysisConfig {
            enabled: self.analysis,
            playouts: self.analysis_playouts,
        }
    }

    /// The house's settings from these flags.
    pub fn house(&self) -> crate::arena::house::HouseConfig {
        let d = crate::arena::house::HouseConfig::default();
        crate::arena::house::HouseConfig {
            threads: self.house_threads.unwrap_or(d.threads).max(1),
            games_per_thread: self.house_games_per_thread.max(1),
            lobby_wait_ms: (self.house_lobby_wait_ms >= 0).then_some(self.house_lobby_wait_ms),
            demo: self.demo,
            demo_think_ms: self.demo_think_ms,
        }
    }
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            bind: "127.0.0.1:0".into(),
            database_url: "sqlite::memory:".into(),
            operator_token: None,
            starting_balance: 1000,
            fee_bps: 0,
            house_bots: true,
            demo: false,
            house_threads: None,
            house_games_per_thread: crate::arena::house::GAMES_PER_THREAD_DEFAULT,
            house_lobby_wait_ms: 10_000,
            house_engines: vec![],
            demo_think_ms: 2_000,
            register_per_min: 30,
            sets_per_min: 60,
            challenge_ttl_s: 3_600,
            pool_pair_sets_per_hour: crate::arena::pool::PAIR_SETS_PER_HOUR_DEFAULT,
            sqlite_synchronous: "normal".into(),
            streams_per_bot: 8,
            long_polls_per_bot: 16,
            streams_per_address: 128,
            long_polls_per_address: 256,
            max_held: 0,
            max_connections: 0,
            connections_per_address: 512,
            trust_forwarded_for: false,
            presence_window_ms: crate::arena::presence::ONLINE_WINDOW_MS,
            analysis: true,
            analysis_playouts: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// The binary's top level as far as the server sees it: `hexarena [SERVE FLAGS]`.
    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeConfig,
    }

    #[test]
    fn the_caps_on_held_connections_have_their_documented_defaults_and_flags() {
        let d = Cli::try_parse_from(["hexarena"]).expect("parses").serve;
        assert_eq!(
            (
                d.streams_per_bot,
                d.long_polls_per_bot,
                d.streams_per_address,
                d.long_polls_per_address,
                d.max_held,
                d.max_connections,
                d.trust_forwarded_for,
            ),
            (8, 16, 128, 256, 0, 0, false)
        );
        let c = Cli::try_parse_from([
            "hexarena",
            "--streams-per-bot",
            "3",
            "--long-polls-per-address",
            "9",
            "--max-held",
            "100",
            "--trust-forwarded-for",
            "true",
        ])
        .expect("parses")
        .serve;
        assert_eq!(
            (c.streams_per_bot, c.long_polls_per_address, c.max_held),
            (3, 9, 100)
        );
        assert!(c.trust_forwarded_for);
    }

    #[test]
    fn house_engines_are_repeated_flags_each_of_which_may_hold_several() {
        let none = Cli::try_parse_from(["hexarena"]).expect("parses").serve;
        assert!(none.house_engines.is_empty());
        let c = Cli::try_parse_from([
            "hexarena",
            "--house-engine",
            "mohex=/opt/mohex --use-book 'a b'",
            "--house-engine",
            "kata=katahex gtp;own=hexarena gtp",
        ])
        .expect("parses")
        .serve;
        assert_eq!(
            c.house_engines,
            [
                "mohex=/opt/mohex --use-book 'a b'",
                "kata=katahex gtp",
                "own=hexarena gtp"
            ]
        );
        let engines = crate::arena::house::outside::OutsideEngine::parse_all(&c.house_engines)
            .expect("valid");
        assert_eq!(engines[0].argv, ["/opt/mohex", "--use-book", "a b"]);
        assert_eq!(engines[2].bot_name, "house-own");
    }
}
