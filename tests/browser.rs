//! The viewers' pages in a real browser (issue 14): starts the `hexarena` binary on a fresh
//! SQLite database and runs `node tests/browser/run.mjs` against it, which plays sets over
//! HTTP and checks every page in headless Chromium (leaderboard owners, bot chart, replay,
//! live game, tournament standings, the phone layout, console errors, axe-core), and (issue 21)
//! that every page is complete without JavaScript, goes idle, and scrolls nothing sideways.
//! Screenshots are kept in `target/browser-artifacts/`.
//!
//! Needs `/usr/bin/chromium` (Debian's `chromium`), `node`, and `tests/browser/node_modules`
//! (`npm ci --prefix tests/browser`); `.ci/run` provides all three. Without them the test says
//! what is missing and passes without running.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const OP: &str = "op-browser-secret";

/// The server process, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn chromium() -> PathBuf {
    std::env::var_os("CHROMIUM").map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from)
}

/// What is missing to run the browser tests, if anything.
fn missing(root: &Path) -> Vec<String> {
    let mut out = vec![];
    if !chromium().exists() {
        out.push(format!(
            "{} (apt-get install -y chromium)",
            chromium().display()
        ));
    }
    if Command::new("node").arg("--version").output().is_err() {
        out.push("node".into());
    }
    for m in ["playwright-core", "axe-core"] {
        if !root.join("tests/browser/node_modules").join(m).exists() {
            out.push(format!(
                "tests/browser/node_modules/{m} (npm ci --prefix tests/browser)"
            ));
        }
    }
    out
}

#[test]
fn the_viewers_pages_work_in_a_real_browser() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let missing = missing(root);
    if !missing.is_empty() {
        eprintln!(
            "SKIPPED the browser tests: missing {}. `.ci/run` installs them.",
            missing.join(", ")
        );
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let _server = Server(
        Command::new(env!("CARGO_BIN_EXE_hexarena"))
            .arg("serve")
            .args(["--bind", &format!("127.0.0.1:{port}")])
            .args([
                "--database-url",
                &format!("sqlite://{}/browser.db", dir.path().display()),
            ])
            .args(["--house-bots", "false"])
            .env("ARENA_OPERATOR_TOKEN", OP)
            // A small analysis budget, so the finished games' analyses are ready (and drawn on
            // every page) before the browser looks, on a fast machine or a loaded one.
            .env("ARENA_ANALYSIS_PLAYOUTS", "200")
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("hexarena starts"),
    );
    let until = Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < until,
            "the server did not listen within 60 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let artifacts = root.join("target/browser-artifacts");
    let started = Instant::now();
    let out = Command::new("node")
        .arg(root.join("tests/browser/run.mjs"))
        .arg(&url)
        .arg(&artifacts)
        .env("ARENA_OPERATOR_TOKEN", OP)
        .stderr(Stdio::inherit())
        .output()
        .expect("node runs");
    let log = String::from_utf8_lossy(&out.stdout);
    println!("{log}");
    eprintln!(
        "browser tests took {:.1} s; screenshots in {}",
        started.elapsed().as_secs_f64(),
        artifacts.display()
    );
    // The failed checks in the panic message itself, which a truncated CI log keeps.
    let failed: Vec<&str> = log.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert!(
        out.status.success(),
        "the browser checks failed:\n{}",
        failed.join("\n")
    );
}
