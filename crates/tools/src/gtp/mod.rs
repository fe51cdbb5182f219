//! GTP (Go Text Protocol, Hex dialect) support (issue 10): [`engine`] serves the house
//! strategies as a GTP engine (`hexarena gtp`); [`bridge`] runs any Hex GTP engine as an arena
//! bot (`hexarena play --gtp "COMMAND ARGS"`).

pub mod bridge;
pub mod engine;

pub use engine::{Engine, Strategy};

/// Options of `hexarena gtp`.
#[derive(Debug, Clone, clap::Args)]
pub struct GtpArgs {
    /// The strategy `genmove` uses: `random`, `strong`, or a house rung's name
    /// (`house-random`, `house-novice`, `house-club`, `house-bridge`, `house-master`).
    #[arg(long, default_value = "strong")]
    pub strategy: Strategy,
    /// Playouts per move of the strong strategy (default: scaled to the board size).
    #[arg(long)]
    pub budget: Option<u32>,
    /// A fixed thinking time per move in ms for the rungs and `strong` (default: from
    /// `time_left`); also `param move_time_ms`.
    #[arg(long)]
    pub move_time_ms: Option<u64>,
    /// Seed of the move generator (default: random).
    #[arg(long)]
    pub seed: Option<u64>,
    /// The tree search's tuning: `house` (what the house bots play) or another named one of
    /// `hex_search::Tuning::NAMED`, for measuring it against an outside engine
    /// (BENCHMARKS.md); also `param search`.
    #[arg(long, default_value = "house")]
    pub search: String,
}

/// `hexarena gtp`: serves GTP on stdin/stdout until `quit` or the end of the input.
pub fn serve(args: &GtpArgs) -> anyhow::Result<()> {
    let seed = args.seed.unwrap_or_else(rand::random);
    let engine = Engine::new(args.strategy, args.budget, seed)
        .with_move_time_ms(args.move_time_ms)
        .with_search(&args.search)
        .map_err(anyhow::Error::msg)?;
    engine::run(engine, std::io::stdin().lock(), std::io::stdout().lock())?;
    Ok(())
}
