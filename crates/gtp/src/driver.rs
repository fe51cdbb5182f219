//! A blocking GTP engine driver on `std::process`: the engine runs as a child process with
//! piped stdin and stdout; a reader thread per engine turns its output into lines on a
//! channel, so every command waits at most its time limit, whatever the engine does.
//!
//! After any [`Failure`] the engine is out of step (a late answer would be read as the next
//! one's): drop it (which kills it) and start a new one.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::{MAX_ANSWER_BYTES, Response, parse_response};

/// Why talking to an engine failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// It could not be started, closed its output (crashed or quit), wrote something that is
    /// not a GTP answer, or an I/O error happened (the reason).
    Dead(String),
    /// No complete answer within the time allowed.
    Timeout,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Dead(m) => write!(f, "engine died: {m}"),
            Failure::Timeout => f.write_str("engine did not answer in time"),
        }
    }
}

impl std::error::Error for Failure {}

/// What the reader thread sends: a line (without its end), or the end of the output.
enum Out {
    Line(String),
    End(String),
}

/// One running engine process. Dropping it kills the process and reaps it.
pub struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Out>,
}

impl Engine {
    /// Starts `argv` (program, then its arguments; no shell) in its own process group (unix),
    /// with its stderr discarded.
    ///
    /// # Errors
    /// [`Failure::Dead`] for an empty command or a program that cannot be started.
    pub fn start(argv: &[String]) -> Result<Engine, Failure> {
        Engine::start_with(argv, false)
    }

    /// As [`Engine::start`], with the engine's stderr going to this process's when
    /// `inherit_stderr` (a tool run by hand), discarded otherwise (a server).
    ///
    /// # Errors
    /// As [`Engine::start`].
    pub fn start_with(argv: &[String], inherit_stderr: bool) -> Result<Engine, Failure> {
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| Failure::Dead("empty command".into()))?;
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if inherit_stderr {
                Stdio::inherit()
            } else {
                Stdio::null()
            });
        // Its own process group, so that killing it also kills what it started.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .map_err(|e| Failure::Dead(format!("cannot start {program}: {e}")))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let (Some(stdin), Some(stdout)) = (stdin, stdout) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Failure::Dead("no pipes to the engine".into()));
        };
        let (tx, lines) = mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("gtp-engine-out".into())
            .spawn(move || read_lines(stdout, &tx));
        if let Err(e) = spawned {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Failure::Dead(format!("no thread to read the engine: {e}")));
        }
        Ok(Engine {
            child,
            stdin,
            lines,
        })
    }

    /// The engine's process id.
    #[must_use]
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Sends one command line and waits at most `timeout` for its whole answer.
    ///
    /// # Errors
    /// [`Failure::Timeout`] when no complete answer came in time; [`Failure::Dead`] when the
    /// engine's output ended, could not be written to, or did not look like GTP.
    pub fn command(&mut self, line: &str, timeout: Duration) -> Result<Response, Failure> {
        let deadline = Instant::now() + timeout;
        self.stdin
            .write_all(format!("{line}\n").as_bytes())
            .and_then(|()| self.stdin.flush())
            .map_err(|e| Failure::Dead(format!("cannot write to the engine: {e}")))?;
        let mut lines: Vec<String> = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(Out::Line(text)) => {
                    if text.trim().is_empty() {
                        if lines.is_empty() {
                            continue; // blank lines before an answer
                        }
                        break;
                    }
                    lines.push(text);
                }
                Ok(Out::End(why)) => return Err(Failure::Dead(why)),
                Err(RecvTimeoutError::Timeout) => return Err(Failure::Timeout),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Failure::Dead("end of output".into()));
                }
            }
        }
        parse_response(&lines).map_err(Failure::Dead)
    }

    /// The commands the engine lists (`list_commands`); empty when it refuses the command.
    ///
    /// # Errors
    /// As [`Engine::command`].
    pub fn list_commands(&mut self, timeout: Duration) -> Result<Vec<String>, Failure> {
        Ok(match self.command("list_commands", timeout)? {
            Ok(text) => text
                .lines()
                .map(|l| l.trim().to_string())
                .filter(|l| !l.is_empty())
                .collect(),
            Err(_) => Vec::new(),
        })
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // Killed, not asked to quit: a hung engine would not read `quit`. The whole group
        // goes (a wrapper script's children too), then the engine is reaped.
        #[cfg(unix)]
        if let Ok(pid) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: kill(2) with a negative pid signals that process group; no memory is
            // touched. The group is the engine's own (`process_group(0)` at spawn).
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The reader thread: lines of at most [`MAX_ANSWER_BYTES`] until the output ends.
fn read_lines(stdout: impl Read, tx: &mpsc::Sender<Out>) {
    let mut reader = BufReader::new(stdout);
    loop {
        let mut buf = Vec::new();
        let read = reader
            .by_ref()
            .take(MAX_ANSWER_BYTES as u64)
            .read_until(b'\n', &mut buf);
        let out = match read {
            Ok(0) => Out::End("end of output".into()),
            Ok(_) => Out::Line(
                String::from_utf8_lossy(&buf)
                    .trim_end_matches(['\n', '\r'])
                    .to_string(),
            ),
            Err(e) => Out::End(format!("cannot read the engine: {e}")),
        };
        let end = matches!(out, Out::End(_));
        if tx.send(out).is_err() || end {
            return;
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(script: &str) -> Vec<String> {
        vec!["/bin/sh".into(), "-c".into(), script.into()]
    }

    #[test]
    fn an_answer_is_read_whole() {
        let mut e = Engine::start(&sh(
            "read l; printf '= a\\nb\\n\\n'; read l; printf '? no\\n\\n'; read l",
        ))
        .expect("starts");
        let t = Duration::from_secs(5);
        assert_eq!(e.command("x", t), Ok(Ok("a\nb".into())));
        assert_eq!(e.command("y", t), Ok(Err("no".into())));
    }

    #[test]
    fn a_silent_engine_times_out_and_a_dead_one_is_dead() {
        let mut e = Engine::start(&sh("exec sleep 30")).expect("starts");
        let started = Instant::now();
        assert_eq!(
            e.command("name", Duration::from_millis(200)),
            Err(Failure::Timeout)
        );
        assert!(started.elapsed() < Duration::from_secs(2));
        drop(e);
        let mut e = Engine::start(&sh("read l; exit 3")).expect("starts");
        assert!(matches!(
            e.command("name", Duration::from_secs(5)),
            Err(Failure::Dead(_))
        ));
        assert!(matches!(
            Engine::start(&["/nonexistent/engine".to_string()]),
            Err(Failure::Dead(m)) if m.contains("cannot start")
        ));
    }

    #[test]
    fn dropping_an_engine_kills_what_it_started() {
        let dir = std::env::temp_dir().join(format!("hex-gtp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temp dir");
        let pid_file = dir.join("child.pid");
        let script = format!("sleep 30 & echo $! > {}; wait", pid_file.display());
        let e = Engine::start(&sh(&script)).expect("starts");
        let until = Instant::now() + Duration::from_secs(5);
        let pid = loop {
            if let Some(p) = std::fs::read_to_string(&pid_file)
                .ok()
                .and_then(|t| t.trim().parse::<u32>().ok())
            {
                break p;
            }
            assert!(
                Instant::now() < until,
                "the wrapper did not start its child"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let alive = || std::path::Path::new(&format!("/proc/{pid}")).exists();
        assert!(alive());
        drop(e);
        let until = Instant::now() + Duration::from_secs(5);
        while alive() {
            assert!(
                Instant::now() < until,
                "the engine's child {pid} outlived it"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
