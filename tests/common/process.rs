//! Real processes for the black-box tests that run the `hexarena` binary itself (restarts,
//! kill -9, example clients, GTP engines): a child that is killed when its guard drops, and
//! `hexarena serve` waited on until `/healthz` answers.

use std::fs::{File, OpenOptions};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A port that was free a moment ago (for a server restarted on the same port).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// A child process whose stdout and stderr are appended to `dir/<name>.log`. Killed when
/// dropped, also when the test fails, and then its log is printed.
pub struct Proc {
    name: String,
    child: Child,
    log: PathBuf,
    /// Bytes already in the log when this process started (an earlier run's output).
    log_start: usize,
}

impl Proc {
    /// Starts `cmd` (stdin closed, output to the log).
    pub fn spawn(name: &str, dir: &Path, cmd: &mut Command) -> Proc {
        let log = dir.join(format!("{name}.log"));
        let log_start = std::fs::metadata(&log).map_or(0, |m| m.len() as usize);
        let out: File = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .expect("log file");
        let child = cmd
            .stdin(Stdio::null())
            .stdout(out.try_clone().expect("log file handle"))
            .stderr(out)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        Proc {
            name: name.to_string(),
            child,
            log,
            log_start,
        }
    }

    /// Everything this process has written so far (not what an earlier run appended).
    pub fn log(&self) -> String {
        let all = std::fs::read(&self.log).unwrap_or_default();
        String::from_utf8_lossy(all.get(self.log_start..).unwrap_or_default()).into_owned()
    }

    /// The exit status if the process has ended.
    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().expect("child status")
    }

    /// The process id (to find its own children).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// SIGKILL, then reap: no shutdown code runs.
    pub fn kill(mut self) {
        self.child.kill().expect("kill");
        self.child.wait().expect("reaped");
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        if std::thread::panicking() {
            eprintln!("----- {} log -----\n{}", self.name, self.log());
        }
    }
}

/// `hexarena serve` as its own process, answering `/healthz`.
pub struct Server {
    pub proc: Proc,
    /// `http://127.0.0.1:PORT`
    pub url: String,
}

impl Server {
    /// Starts `hexarena serve --bind 127.0.0.1:PORT --database-url sqlite://DIR/a.db` plus
    /// `args` (port 0: the server picks one and the URL is read from its "listening on" line),
    /// with the `ARENA_*` variables of the test's environment removed, `RUST_LOG=warn` and then
    /// `envs`; waits up to 60 s for `/healthz`. Restarting with the same `dir` and port
    /// reopens the same database at the same address.
    pub async fn start(dir: &Path, port: u16, args: &[&str], envs: &[(&str, &str)]) -> Server {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_hexarena"));
        cmd.args(["serve", "--bind", &format!("127.0.0.1:{port}")])
            .args([
                "--database-url",
                &format!("sqlite://{}/a.db", dir.display()),
            ])
            .args(args);
        for (k, _) in std::env::vars() {
            if k.starts_with("ARENA_") {
                cmd.env_remove(k);
            }
        }
        cmd.env("RUST_LOG", "warn");
        // The background analysis (issue 21) only where a test asks for it.
        cmd.env("ARENA_ANALYSIS", "false");
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let proc = Proc::spawn("server", dir, &mut cmd);
        let http = reqwest::Client::new();
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            let url = if port == 0 {
                proc.log()
                    .lines()
                    .find_map(|l| l.split("listening on ").nth(1))
                    .map(|u| u.trim().to_string())
            } else {
                Some(format!("http://127.0.0.1:{port}"))
            };
            if let Some(url) = url {
                let up = http
                    .get(format!("{url}/healthz"))
                    .send()
                    .await
                    .is_ok_and(|r| r.status() == reqwest::StatusCode::OK);
                if up {
                    return Server { proc, url };
                }
            }
            assert!(
                Instant::now() < until,
                "no /healthz within 60 s; see {}",
                dir.join("server.log").display()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// SIGKILL: no shutdown code runs.
    pub fn kill(self) {
        self.proc.kill();
    }
}
