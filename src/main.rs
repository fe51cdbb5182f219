//! The `hexarena` binary: parse the command line, set up logging, run the chosen command.

use clap::Parser;
use hexarena::config::{Cli, Command};

#[actix_web::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,sqlx=warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let result = match cli.command {
        None => hexarena::serve(cli.serve).await,
        Some(Command::Serve(cfg)) => hexarena::serve(cfg).await,
        Some(Command::Demo(mut cfg)) => {
            cfg.demo = true;
            hexarena::serve(cfg).await
        }
        Some(Command::Replay) => {
            hexarena::cli::replay(std::io::stdin().lock(), std::io::stdout().lock())
        }
        Some(Command::Opening { seed, size, stones }) => {
            hexarena::cli::opening(&seed, size, stones)
        }
        Some(Command::Gtp(args)) => hexarena::gtp::serve(&args),
        Some(Command::Play(args)) => hexarena::client::play(args).await,
        Some(Command::Bench(args)) => hexarena::bench::command(args).await,
        Some(Command::BenchIdle(args)) => hexarena::bench_idle::command(args).await,
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hexarena: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
