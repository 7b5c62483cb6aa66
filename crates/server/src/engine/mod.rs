//! `fourkings engine`: the CPU players behind a UCI-style protocol on stdin/stdout (docs/engine.md).
//!
//! [`session`] is the protocol (pure: a line in, lines out or a search to run); this module is the loop
//! around it: a search runs on its own thread so that `stop`, `isready` and `quit` are answered while
//! it thinks. The match runner drives in-process engines through the same loop ([`serve`]).

mod session;
#[cfg(test)]
mod tests;
pub mod turn;

pub use session::{EngineGame, Reply, Session};

use bots::Level;
use clap::Args;
use rules::fourchess;
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Args)]
pub struct EngineArgs {
    #[arg(long, value_enum, default_value = "fourchess")]
    pub game: EngineGame,
    #[arg(long, default_value = "medium")]
    pub level: Level,
    /// Four-player chess: `teams` or `ffa` (also `setoption name Mode value …`).
    #[arg(long, default_value = "teams")]
    pub mode: fourchess::Mode,
}

/// What the loop waits for: a line of input, the end of input, or a finished search.
#[derive(Debug)]
pub enum Event {
    Line(String),
    Eof,
    Done(Vec<String>),
}

/// Reads `input` line by line into `events` until it ends (an unreadable line ends it too).
pub fn read_lines(input: impl BufRead + Send + 'static, events: Sender<Event>) {
    std::thread::spawn(move || {
        for line in input.lines() {
            let Ok(line) = line else { break };
            if events.send(Event::Line(line)).is_err() {
                return;
            }
        }
        let _ = events.send(Event::Eof);
    });
}

/// Runs a session over `events` (lines from the driver, searches finishing), writing answers with
/// `out`, until `quit` or the end of input. `events_tx` lets a search report back on the same channel.
pub fn serve(
    mut session: Session,
    events: &Receiver<Event>,
    events_tx: &Sender<Event>,
    out: &mut dyn FnMut(&str),
) {
    let mut searching: Option<Arc<AtomicBool>> = None;
    let mut quitting = false;
    while let Ok(event) = events.recv() {
        match event {
            Event::Done(lines) => {
                searching = None;
                lines.iter().for_each(|l| out(l));
                if quitting {
                    return;
                }
            }
            Event::Eof => {
                if let Some(stop) = &searching {
                    stop.store(true, Ordering::Relaxed);
                    quitting = true;
                } else {
                    return;
                }
            }
            Event::Line(line) => {
                if let Some(stop) = &searching {
                    match line.split_whitespace().next() {
                        Some("stop") => stop.store(true, Ordering::Relaxed),
                        Some("isready") => out("readyok"),
                        Some("quit") => {
                            stop.store(true, Ordering::Relaxed);
                            quitting = true;
                        }
                        None => {}
                        Some(_) => out("info string error busy: a search is running (send stop)"),
                    }
                    continue;
                }
                match session.handle(&line) {
                    Reply::Lines(lines) => lines.iter().for_each(|l| out(l)),
                    Reply::Quit => return,
                    Reply::Search(search) => {
                        let stop = Arc::new(AtomicBool::new(false));
                        searching = Some(stop.clone());
                        let tx = events_tx.clone();
                        std::thread::spawn(move || {
                            let began = Instant::now();
                            // `stop` makes the clock jump past any cap.
                            let clock = move || {
                                if stop.load(Ordering::Relaxed) {
                                    Duration::MAX
                                } else {
                                    began.elapsed()
                                }
                            };
                            let _ = tx.send(Event::Done(search.run(&clock)));
                        });
                    }
                }
            }
        }
    }
}

pub fn run(args: &EngineArgs) -> anyhow::Result<()> {
    let (tx, rx) = channel();
    read_lines(std::io::BufReader::new(std::io::stdin()), tx.clone());
    let stdout = std::io::stdout();
    let mut out = |line: &str| {
        let mut handle = stdout.lock();
        // A driver that went away: nothing to do but finish.
        let _ = writeln!(handle, "{line}").and_then(|()| handle.flush());
    };
    serve(
        Session::new(args.game, args.level, args.mode),
        &rx,
        &tx,
        &mut out,
    );
    Ok(())
}
