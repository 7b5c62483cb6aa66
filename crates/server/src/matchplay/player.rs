//! One engine at the table, spoken to over the engine protocol: a child process over pipes
//! (`cmd:<program> [args…]`), or one of our levels (`fourkings:<level>`) on a thread through the same
//! loop `fourkings engine` runs. Either way the match sees lines in and lines out, and a deadline.

use crate::engine::{self, EngineGame, Event, Session};
use anyhow::{Context, bail};
use bots::Level;
use rules::fourchess::Mode;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

/// What `--engine seat=<spec>` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spec {
    Internal(Level),
    Command(Vec<String>),
}

impl Spec {
    pub fn parse(text: &str) -> anyhow::Result<Spec> {
        if let Some(level) = text.strip_prefix("fourkings:") {
            return Ok(Spec::Internal(level.parse().map_err(anyhow::Error::msg)?));
        }
        if let Some(command) = text.strip_prefix("cmd:") {
            let words: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
            if words.is_empty() {
                bail!("`cmd:` needs a program");
            }
            return Ok(Spec::Command(words));
        }
        bail!("an engine is `fourkings:<level>` or `cmd:<program> [args…]`, not `{text}`")
    }
}

enum Pipe {
    Child { child: Child, stdin: ChildStdin },
    Thread(Sender<Event>),
}

/// Why an engine produced no usable answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Nothing before the deadline.
    Hung,
    /// Its output ended (the process died).
    Dead,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Failure::Hung => "no answer in time",
            Failure::Dead => "the engine died",
        })
    }
}

/// No usable answer, and what the engine did say before it gave up or died (its `info string` lines
/// tell why, e.g. 4pchess's `info string Game completed. RY won.`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoAnswer {
    pub failure: Failure,
    pub said: Vec<String>,
}

impl NoAnswer {
    /// The engine's last `info string` message, if it sent one.
    pub fn last_message(&self) -> Option<&str> {
        self.said
            .iter()
            .rev()
            .find_map(|line| line.strip_prefix("info string "))
    }
}

pub struct Player {
    spec: Spec,
    mode: Mode,
    pipe: Pipe,
    lines: Receiver<String>,
}

impl std::fmt::Debug for Player {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Player").field("spec", &self.spec).finish()
    }
}

impl Player {
    /// Starts the engine and waits for `uciok` (within `patience`).
    pub fn start(spec: &Spec, mode: Mode, patience: Duration) -> anyhow::Result<Player> {
        let (out_tx, lines) = channel();
        let pipe = match spec {
            Spec::Internal(level) => {
                let (tx, rx) = channel();
                let session = Session::new(EngineGame::Fourchess, *level, mode);
                let loop_tx = tx.clone();
                std::thread::spawn(move || {
                    let mut out = |line: &str| {
                        let _ = out_tx.send(line.to_owned());
                    };
                    engine::serve(session, &rx, &loop_tx, &mut out);
                });
                Pipe::Thread(tx)
            }
            Spec::Command(words) => {
                let mut child = Command::new(&words[0])
                    .args(&words[1..])
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::null())
                    .spawn()
                    .with_context(|| format!("starting {}", words.join(" ")))?;
                let stdin = child.stdin.take().context("child stdin")?;
                let stdout = child.stdout.take().context("child stdout")?;
                std::thread::spawn(move || {
                    for line in BufReader::new(stdout).lines() {
                        let Ok(line) = line else { break };
                        if out_tx.send(line).is_err() {
                            break;
                        }
                    }
                });
                Pipe::Child { child, stdin }
            }
        };
        let mut player = Player {
            spec: spec.clone(),
            mode,
            pipe,
            lines,
        };
        player.send("uci");
        player
            .wait_for("uciok", Instant::now() + patience)
            .map_err(|no| anyhow::anyhow!("{spec:?} at start: {}", no.failure))?;
        if let Spec::Internal(_) = spec {
            player.send(&format!("setoption name Mode value {}", mode.name()));
        }
        Ok(player)
    }

    /// Kills this engine and starts it again (after it hung or died).
    pub fn restart(&mut self, patience: Duration) -> anyhow::Result<()> {
        let fresh = Player::start(&self.spec, self.mode, patience)?;
        *self = fresh;
        Ok(())
    }

    /// Writes one line; a dead engine is noticed by the next wait.
    pub fn send(&mut self, line: &str) {
        match &mut self.pipe {
            Pipe::Child { stdin, .. } => {
                let _ = writeln!(stdin, "{line}").and_then(|()| stdin.flush());
            }
            Pipe::Thread(tx) => {
                let _ = tx.send(Event::Line(line.to_owned()));
            }
        }
    }

    /// Waits for a line starting with the word `word`, returning it and the lines before it.
    pub fn wait_for(
        &mut self,
        word: &str,
        deadline: Instant,
    ) -> Result<(String, Vec<String>), NoAnswer> {
        let mut before = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    if line.split_whitespace().next() == Some(word) {
                        return Ok((line, before));
                    }
                    before.push(line);
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(NoAnswer {
                        failure: Failure::Hung,
                        said: before,
                    });
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(NoAnswer {
                        failure: Failure::Dead,
                        said: before,
                    });
                }
            }
        }
    }
}

impl Drop for Player {
    fn drop(&mut self) {
        match &mut self.pipe {
            Pipe::Child { child, stdin } => {
                let _ = writeln!(stdin, "quit").and_then(|()| stdin.flush());
                // Some engines ignore the end of their input (4pchess loops on it): give it a moment,
                // then kill it.
                let until = Instant::now() + Duration::from_millis(300);
                while Instant::now() < until {
                    if let Ok(Some(_)) = child.try_wait() {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
                let _ = child.kill();
                let _ = child.wait();
            }
            Pipe::Thread(tx) => {
                let _ = tx.send(Event::Line("quit".into()));
            }
        }
    }
}
