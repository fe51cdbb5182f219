//! `hexarena play`: a complete bot on the client library ([`hexarena_client::run`]), its moves
//! chosen by a rung of the house ladder ([`RungBot`], thinking exactly as the house bot of
//! that name does) or by a Hex GTP engine ([`Bridge`], `--gtp`).

use std::time::Instant;

use clap::Args;
use hex_search::ladder::Rung;
use hex_search::think;
use hexarena_client::contract::{
    GameState, MoveInfo, NewSet, OptionsRequest, PoolJoin, PracticeRequest,
};
use hexarena_client::position::{body_of, clock_left_ms, position_of};
use hexarena_client::{Bot, Choice, Client, PlayConfig};
use rand_core::SeedableRng;
use rand_pcg::Pcg64;

use crate::gtp::bridge::Bridge;

/// The house bot `random` stands for.
const WEAKEST: &str = "house-random";
/// The house bot `strong` stands for (not the strongest rung).
const STRONG: &str = "house-bridge";

/// Options of `hexarena play`.
#[derive(Debug, Clone, Args)]
pub struct PlayArgs {
    /// Base URL of the arena.
    #[arg(long, env = "HEXARENA_URL", default_value = "http://127.0.0.1:8080")]
    pub url: String,
    /// The bot's token (`hxb_...`).
    #[arg(long, env = "HEXARENA_TOKEN", hide_env_values = true)]
    pub token: String,
    /// How moves are chosen: the name of a rung of the house ladder (`house-random`,
    /// `house-novice`, `house-club`, `house-bridge`, `house-master`); `random` is short for
    /// `house-random` and `strong` for `house-bridge` (not the strongest rung). It thinks from its own clock with the rung's playout cap,
    /// exactly as the house bot of that name does on an idle server.
    #[arg(long, default_value = "strong", value_parser = parse_strategy)]
    pub strategy: &'static Rung,
    /// Exit once this many of the bot's sets have finished; 0 = run until stopped.
    #[arg(long, default_value_t = 0)]
    pub sets: u32,
    /// Play practice sets against this house bot, one after another.
    #[arg(long, value_name = "OPPONENT")]
    pub practice: Option<String>,
    /// Create one challenge at start (open, or private with --opponent) and play it.
    #[arg(long)]
    pub create: bool,
    /// Stake of the challenge made by --create (PTS).
    #[arg(long, requires = "create")]
    pub stake: Option<i64>,
    /// Make the --create challenge private to this bot.
    #[arg(long, requires = "create", value_name = "NAME")]
    pub opponent: Option<String>,
    /// Accept open challenges (and private ones addressed to this bot) as they appear.
    #[arg(long)]
    pub accept_open: bool,
    /// Join the matchmaking pool (rated; unstaked unless --pool-stake) and play the sets the
    /// arena starts; --size and --random-stones become what the entry asks for. The run
    /// leaves the pool once --sets of them have finished.
    #[arg(long)]
    pub pool: bool,
    /// Stake of the pool entry (PTS; 0 unstaked).
    #[arg(long, requires = "pool")]
    pub pool_stake: Option<i64>,
    /// Board size of the sets this client creates (--create, --practice); server default 11.
    #[arg(long)]
    pub size: Option<u8>,
    /// Opening stones per seat of the sets this client creates; 0 allows the swap.
    #[arg(long)]
    pub random_stones: Option<u8>,
    /// Let this Hex GTP engine choose the moves ("COMMAND ARGS", one engine process per game)
    /// instead of --strategy. See the bridge's rules in agents.md.
    #[arg(long, value_name = "COMMAND")]
    pub gtp: Option<String>,
}

impl PlayArgs {
    /// What the run plays: the practice sets, the challenge, the accepting, the target.
    #[must_use]
    pub fn config(&self) -> PlayConfig {
        let options = OptionsRequest {
            size: self.size,
            random_stones: self.random_stones,
        };
        PlayConfig {
            sets: self.sets,
            practice: self.practice.as_ref().map(|o| PracticeRequest {
                opponent: Some(o.clone()),
                options,
                clock: None,
            }),
            create: self.create.then(|| NewSet {
                options,
                stake: self.stake,
                opponent: self.opponent.clone(),
                ..NewSet::default()
            }),
            accept_open: self.accept_open,
            pool: self.pool.then(|| PoolJoin {
                stake: self.pool_stake,
                rated: Some(true),
                options: (options != OptionsRequest::default()).then_some(options),
                clock: None,
            }),
        }
    }
}

/// The rung a `--strategy` names: a ladder name (any case), or the aliases `random`
/// (`house-random`) and `strong` (`house-bridge`).
///
/// Errors: an unknown name, with the accepted ones.
pub fn parse_strategy(s: &str) -> Result<&'static Rung, String> {
    let lower = s.trim().to_ascii_lowercase();
    let name = match lower.as_str() {
        "random" => WEAKEST,
        "strong" => STRONG,
        other => other,
    };
    hex_search::ladder::rung(name).ok_or_else(|| {
        let names: Vec<&str> = hex_search::ladder::LADDER.iter().map(|r| r.name).collect();
        format!(
            "unknown strategy '{s}': one of random, strong, {}",
            names.join(", ")
        )
    })
}

/// A rung of the house ladder as a [`Bot`]: the house bot's own budget on an idle server (one
/// job on one worker), the same thinking time from the same clock, the same playout cap, on
/// a blocking thread.
#[derive(Debug, Clone, Copy)]
pub struct RungBot {
    /// The rung it plays as.
    pub rung: &'static Rung,
}

impl Bot for RungBot {
    async fn choose(&self, state: &GameState) -> Choice {
        let mut rng = Pcg64::seed_from_u64(rand::random());
        let pos = match position_of(state) {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!("cannot rebuild the position ({e}); picking from legal_moves");
                let n = state.legal_moves.len().max(1) as u64;
                let i = usize::try_from(rand_core::Rng::next_u64(&mut rng) % n).unwrap_or(0);
                return state.legal_moves.get(i).copied().map_or_else(
                    || Choice::Resign(format!("no legal move: {e}")),
                    Choice::Move,
                );
            }
        };
        let rung = self.rung;
        let started = Instant::now();
        let budget = think::budget(
            rung,
            pos.size(),
            clock_left_ms(state),
            u64::try_from(state.clock.increment_ms).unwrap_or(0),
            think::empty_cells(&pos),
            0,
            1,
            1,
        );
        let legal = state.legal_moves.first().copied();
        let (mv, info) = tokio::task::spawn_blocking(move || {
            let (mv, _, info) =
                think::choose_reported(&pos, rung, budget, started, &mut rng, &|| false);
            (mv, info)
        })
        .await
        .unwrap_or((None, None));
        match (mv, legal, info) {
            (Some(mv), _, Some(info)) => Choice::Annotated(body_of(mv), move_info(&info)),
            (Some(mv), _, None) => Choice::Move(body_of(mv)),
            (None, Some(first), _) => Choice::Move(first),
            (None, None, _) => Choice::Resign("the search found no move".into()),
        }
    }
}

/// What the house search knew of its move, as the move's `Hexarena-Info` (issue 21): its win
/// rate, its best line (at most 16 moves, the swap left out) and its playouts.
#[must_use]
pub fn move_info(info: &hex_search::SearchInfo) -> MoveInfo {
    let pv = info.pv_names(16);
    MoveInfo {
        eval: Some((info.win_rate * 1000.0).round() / 1000.0),
        pv: (!pv.is_empty()).then_some(pv),
        nodes: Some(u64::from(info.playouts)),
        ..MoveInfo::default()
    }
}

/// `hexarena play`: runs until `--sets` of the bot's sets have finished (forever with 0).
///
/// # Errors
/// The token is refused, the GTP command is malformed, the engine refuses the board size,
/// or the one challenge ended unplayed.
pub async fn command(args: PlayArgs) -> anyhow::Result<()> {
    let client = Client::new(&args.url, &args.token)?;
    let config = args.config();
    let summary = match &args.gtp {
        Some(cmd) => {
            tracing::info!("moves from the GTP engine `{cmd}`");
            hexarena_client::run(client, Bridge::new(cmd)?, config).await?
        }
        None => {
            tracing::info!("moves from strategy {}", args.strategy.name);
            let bot = RungBot {
                rung: args.strategy,
            };
            hexarena_client::run(client, bot, config).await?
        }
    };
    tracing::debug!("finished sets: {:?}", summary.finished);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_s_knowledge_becomes_a_header_the_server_accepts() {
        let c = |r, c| hex_search::Move::Place(hex_search::Cell::new(r, c));
        let mut pv = vec![hex_search::Move::Swap];
        pv.extend((0..20).map(|i| c(i % 11, i / 11)));
        let info = move_info(&hex_search::SearchInfo {
            win_rate: 0.62345,
            pv,
            playouts: 4000,
        });
        assert_eq!(info.eval, Some(0.623));
        assert_eq!(info.nodes, Some(4000));
        let pv = info.pv.clone().unwrap_or_default();
        assert_eq!(pv.len(), 16);
        assert_eq!(pv[0], "a1");
        let header = info.header_value().unwrap_or_default();
        assert!(
            header.starts_with(r#"{"eval":0.623,"pv":["a1","a2""#),
            "{header}"
        );
        assert!(header.len() <= 1024);
    }

    #[test]
    fn a_strategy_is_a_rung_of_the_ladder_with_the_old_names_as_aliases() {
        assert_eq!(parse_strategy("random").map(|r| r.name), Ok("house-random"));
        assert_eq!(parse_strategy("Strong").map(|r| r.name), Ok("house-bridge"));
        for r in hex_search::ladder::LADDER {
            assert_eq!(parse_strategy(r.name).map(|x| x.name), Ok(r.name));
        }
        let e = parse_strategy("house-nobody").expect_err("not a rung");
        assert!(e.contains("house-master"), "{e}");
    }

    #[test]
    fn the_flags_become_the_run_s_practice_and_challenge() {
        use clap::Parser;
        #[derive(Parser)]
        struct T {
            #[command(flatten)]
            play: PlayArgs,
        }
        let t = T::try_parse_from([
            "t",
            "--token",
            "hxb_x",
            "--create",
            "--stake",
            "20",
            "--opponent",
            "Bob",
            "--size",
            "9",
            "--sets",
            "2",
        ])
        .expect("parses");
        let c = t.play.config();
        assert_eq!(c.sets, 2);
        let new = c.create.expect("a challenge");
        assert_eq!(
            serde_json::to_value(&new).expect("serializes"),
            serde_json::json!({"game": "hex", "options": {"size": 9}, "stake": 20, "opponent": "Bob"})
        );
        assert!(c.practice.is_none() && !c.accept_open && c.pool.is_none());
    }

    #[test]
    fn pool_flags_become_the_pool_entry() {
        use clap::Parser;
        #[derive(Parser)]
        struct T {
            #[command(flatten)]
            play: PlayArgs,
        }
        let parse = |args: &[&str]| {
            let mut all = vec!["t", "--token", "hxb_x"];
            all.extend_from_slice(args);
            T::try_parse_from(all).map(|t| t.play.config())
        };
        let c = parse(&["--pool", "--pool-stake", "20", "--size", "9"]).expect("parses");
        assert_eq!(
            serde_json::to_value(c.pool.expect("an entry")).expect("serializes"),
            serde_json::json!({"stake": 20, "rated": true, "options": {"size": 9}})
        );
        let c = parse(&["--pool"]).expect("parses");
        assert_eq!(
            serde_json::to_value(c.pool.expect("an entry")).expect("serializes"),
            serde_json::json!({"rated": true})
        );
        assert!(
            parse(&["--pool-stake", "20"]).is_err(),
            "--pool-stake needs --pool"
        );
    }
}
