//! The `hexarena` binary: parse the command line, set up logging, run the chosen command. The
//! server is the `hexarena` library; every other command comes from `hexarena-tools`, built
//! on the client library (the `cli` feature, on by default).

use clap::{Parser, Subcommand};
use hexarena::config::ServeConfig;
use hexarena_tools::{bench, bench_idle, gtp, offline, play};

/// mimalloc instead of glibc's allocator: the server allocates many small, short-lived buffers
/// per request on several threads (issue 22, BENCHMARKS.md "The move path, fifth pass").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `hexarena`: the Hex arena server and its offline tools.
#[derive(Debug, Parser)]
#[command(
    name = "hexarena",
    version,
    about = "A Hex arena where bots play sets over REST"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Options of `serve` (the default subcommand).
    #[command(flatten)]
    serve: ServeConfig,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the arena (the default).
    Serve(ServeConfig),
    /// Serve the arena and let the house bots challenge each other continuously.
    Demo(ServeConfig),
    /// Replay games given as JSON lines on stdin; one JSON result line per game on stdout.
    Replay,
    /// Print a set's random opening as JSON: `[[row, col], ...]` in placement order.
    Opening {
        /// The set's seed: 64 hex digits (32 bytes).
        #[arg(long)]
        seed: String,
        /// Board size (1..=26).
        #[arg(long, default_value_t = 11)]
        size: u8,
        /// Stones per seat.
        #[arg(long, default_value_t = 4)]
        stones: u8,
    },
    /// Serve the house strategies as a GTP engine on stdin/stdout (for HexGui, twogtp, ...).
    Gtp(gtp::GtpArgs),
    /// Play as a bot over HTTP (event stream, long-poll fallback) until N sets have finished.
    Play(play::PlayArgs),
    /// Load a running arena: N concurrent sets of random moves, then state GETs and /healthz;
    /// prints a table and, as the last line, one JSON object with the figures.
    Bench(bench::BenchArgs),
    /// Measures an idle arena: server memory per active game and CPU with many open streams.
    BenchIdle(bench_idle::IdleArgs),
}

#[actix_web::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,sqlx=warn".into()),
        )
        .with_writer(std::io::stderr)
        // Colour codes only for a terminal: a log file or journal gets plain text, and the
        // server skips styling every span field of every request (issue 22's profile).
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let result = match cli.command {
        None => hexarena::serve(cli.serve).await,
        Some(Command::Serve(cfg)) => hexarena::serve(cfg).await,
        Some(Command::Demo(mut cfg)) => {
            cfg.demo = true;
            hexarena::serve(cfg).await
        }
        Some(Command::Replay) => offline::replay(std::io::stdin().lock(), std::io::stdout().lock()),
        Some(Command::Opening { seed, size, stones }) => offline::opening(&seed, size, stones),
        Some(Command::Gtp(args)) => gtp::serve(&args),
        Some(Command::Play(args)) => play::command(args).await,
        Some(Command::Bench(args)) => bench::command(args).await,
        Some(Command::BenchIdle(args)) => bench_idle::command(args).await,
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hexarena: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_subcommand_parses_and_serve_is_the_default() {
        let cli = Cli::try_parse_from(["hexarena", "--bind", "127.0.0.1:9"]).expect("parses");
        assert!(cli.command.is_none());
        assert_eq!(cli.serve.bind, "127.0.0.1:9");
        for argv in [
            vec!["hexarena", "serve"],
            vec!["hexarena", "demo"],
            vec!["hexarena", "replay"],
            vec!["hexarena", "opening", "--seed", "00"],
            vec!["hexarena", "gtp"],
            vec!["hexarena", "play", "--token", "hxb_x"],
            vec!["hexarena", "bench"],
            vec!["hexarena", "bench-idle"],
        ] {
            let cli = Cli::try_parse_from(&argv).unwrap_or_else(|e| panic!("{argv:?}: {e}"));
            assert!(cli.command.is_some(), "{argv:?}");
        }
    }
}
