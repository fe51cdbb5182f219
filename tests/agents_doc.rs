//! agents.md's "Worked example: seed to opening" is what the arena computes: the same cells from
//! the engine, from `hexarena opening` and from a finished set's revealed seed, and the same PCG
//! numbers as the guide's step-by-step description (SPEC section 2, agents.md section 10).

mod common;

use std::process::Command;

use common::spawn_app;
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use reqwest::StatusCode;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const HEADING: &str = "## Worked example: seed to opening";

/// The example as the guide states it.
struct Example {
    seed: String,
    seed_sha256: String,
    size: u8,
    stones: u8,
    cells: Value,
    state: u128,
    increment: u128,
    zone: u64,
    /// The table's rows: (x, i, placed cell or None when skipped).
    draws: Vec<(u64, u64, Option<[u8; 2]>)>,
}

fn section() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/agents.md");
    let text = std::fs::read_to_string(path).expect("agents.md");
    let start = text
        .find(HEADING)
        .unwrap_or_else(|| panic!("agents.md has no '{HEADING}'"));
    let rest = &text[start + HEADING.len()..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    rest[..end].to_string()
}

/// The text between `prefix` and the next backquote, e.g. "`zone = 123`".
fn quoted_after<'a>(text: &'a str, prefix: &str) -> &'a str {
    let start = text
        .find(prefix)
        .unwrap_or_else(|| panic!("no '{prefix}' in the example"))
        + prefix.len();
    let len = text[start..].find('`').expect("closing backquote");
    &text[start..start + len]
}

fn hex_u128(s: &str) -> u128 {
    u128::from_str_radix(s.trim_start_matches("0x"), 16).expect("hex number")
}

fn example() -> Example {
    let text = section();
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{key}: ")))
            .unwrap_or_else(|| panic!("the example has no '{key}:' line"))
            .trim()
            .to_string()
    };
    let is_row = |l: &&str| l.starts_with("| ") && l[2..].starts_with(|c: char| c.is_ascii_digit());
    // The first table of draws (later vectors of the guide have their own).
    let draws = text
        .lines()
        .skip_while(|l| !is_row(l))
        .take_while(is_row)
        .map(|l| {
            let cols: Vec<&str> = l.split('|').map(str::trim).collect();
            let x = cols[2].parse().expect("x");
            let i = cols[3].parse().expect("i");
            let cell = cols[4].strip_prefix('[').map(|c| {
                let rc: Vec<u8> = c[..c.find(']').expect("]")]
                    .split(',')
                    .map(|n| n.parse().expect("coordinate"))
                    .collect();
                [rc[0], rc[1]]
            });
            (x, i, cell)
        })
        .collect();
    Example {
        seed: field("seed"),
        seed_sha256: field("seed_sha256"),
        size: field("size").parse().expect("size"),
        stones: field("random_stones").parse().expect("random_stones"),
        cells: serde_json::from_str(&field("cells")).expect("cells is JSON"),
        state: hex_u128(quoted_after(&text, "`state = ")),
        increment: hex_u128(quoted_after(&text, "`increment = ")),
        zone: quoted_after(&text, "`zone = ").parse().expect("zone"),
        draws,
    }
}

fn cells_json(cells: &[hex::Cell]) -> Value {
    json!(cells.iter().map(|c| [c.row, c.col]).collect::<Vec<_>>())
}

/// `hexarena opening` of the real binary, parsed.
fn opening_command(seed: &str, size: u8, stones: u8) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_hexarena"))
        .args([
            "opening",
            "--seed",
            seed,
            "--size",
            &size.to_string(),
            "--stones",
            &stones.to_string(),
        ])
        .output()
        .expect("hexarena runs");
    assert!(
        out.status.success(),
        "hexarena opening failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[test]
fn the_worked_example_gives_the_same_cells_from_the_engine_and_the_opening_command() {
    let ex = example();
    assert_eq!((ex.size, ex.stones), (11, 4));
    let seed = hex::parse_seed_hex(&ex.seed).expect("64 hex digits");
    assert_eq!(hexcode::encode(Sha256::digest(seed)), ex.seed_sha256);
    assert_eq!(
        ex.cells.as_array().map(Vec::len),
        Some(2 * usize::from(ex.stones))
    );
    let engine = hex::opening(&seed, ex.size, ex.stones).expect("opening");
    assert_eq!(cells_json(&engine), ex.cells);
    assert_eq!(opening_command(&ex.seed, ex.size, ex.stones), ex.cells);
}

#[test]
fn the_worked_example_draws_follow_the_pcg_steps_the_guide_describes() {
    let ex = example();
    let seed = hex::parse_seed_hex(&ex.seed).expect("64 hex digits");
    // Seeding as described: state = first half + increment, then one LCG step.
    const M: u128 = 0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645;
    let lo = u128::from_le_bytes(seed[..16].try_into().expect("16 bytes"));
    let inc = u128::from_le_bytes(seed[16..].try_into().expect("16 bytes")) | 1;
    let mut state = lo.wrapping_add(inc).wrapping_mul(M).wrapping_add(inc);
    assert_eq!((state, inc), (ex.state, ex.increment));
    let n = u64::from(ex.size) * u64::from(ex.size);
    assert_eq!(
        u128::from(ex.zone),
        (1u128 << 64) / u128::from(n) * u128::from(n)
    );

    let mut rng = Pcg64::from_seed(seed);
    let mut placed = vec![];
    assert!(
        ex.draws.len() >= 2 * usize::from(ex.stones),
        "the table lists every draw"
    );
    for &(x, i, cell) in &ex.draws {
        // The guide's next_u64, step by step, and rand_pcg's own.
        state = state.wrapping_mul(M).wrapping_add(inc);
        let xored = ((state >> 64) as u64) ^ (state as u64);
        assert_eq!(xored.rotate_right((state >> 122) as u32), x);
        assert_eq!(rng.next_u64(), x);
        assert!(x < ex.zone, "no draw of the example is rejected");
        assert_eq!(x % n, i);
        match cell {
            Some(c) => {
                assert_eq!((u64::from(c[0]) * u64::from(ex.size) + u64::from(c[1])), i);
                placed.push(json!(c));
            }
            None => assert!(
                placed.contains(&json!([i / u64::from(ex.size), i % u64::from(ex.size)])),
                "a skip repeats a cell"
            ),
        }
    }
    assert_eq!(json!(placed), ex.cells);
}

#[tokio::test]
async fn a_finished_sets_revealed_seed_gives_its_opening_by_engine_and_command() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    let id = app
        .start_set(
            &alpha,
            &bravo,
            json!({"options": {"size": 13, "random_stones": 6}}),
        )
        .await;
    for game in [1, 2] {
        let r = app.resign(Some(&alpha), &id, &game, json!({})).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    }
    let set = app.get_set(&id).await.body;
    assert_eq!(set["status"], "finished");
    let seed_hex = set["seed"].as_str().expect("seed revealed once finished");
    let seed = hex::parse_seed_hex(seed_hex).expect("64 hex digits");
    assert_eq!(
        hexcode::encode(Sha256::digest(seed)),
        set["seed_sha256"].as_str().expect("seed_sha256")
    );
    assert_eq!(set["opening"].as_array().map(Vec::len), Some(12));
    assert_eq!(
        cells_json(&hex::opening(&seed, 13, 6).expect("opening")),
        set["opening"]
    );
    assert_eq!(opening_command(seed_hex, 13, 6), set["opening"]);
}
