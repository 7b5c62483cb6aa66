//! A match's results: per game (score of each seat, length, how it ended) and the per-engine table.

use super::MatchArgs;
use crate::spread::PerGame;
use rules::Seat;
use rules::fourchess::{EndReason, Game, Mode};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

/// One `go` → `bestmove`.
#[derive(Debug, Clone, Copy)]
pub struct Think {
    took: Duration,
    nodes: Option<u64>,
}

impl Think {
    pub fn new(took: Duration, nodes: Option<u64>) -> Think {
        Think { took, nodes }
    }
}

/// Something the runner, not the board, decided: a forfeit (by its reason) or an adjudication.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Incident {
    /// No `bestmove` within `movetime + margin`.
    Timeout,
    /// A `bestmove` the rules refuse (or that is not a move at all).
    Illegal,
    /// The engine's output ended: it crashed or quit.
    Crash,
    /// The seat to move could take a king, and the runner took it on the engine's behalf (see
    /// `adjudicate` in the match module): not a failure of the engine.
    KingTaken,
}

impl Incident {
    pub fn name(self) -> &'static str {
        match self {
            Incident::Timeout => "timeout",
            Incident::Illegal => "illegal move",
            Incident::Crash => "crash",
            Incident::KingTaken => "king capture adjudicated",
        }
    }

    pub fn is_forfeit(self) -> bool {
        self != Incident::KingTaken
    }
}

#[derive(Debug, Clone)]
pub struct GameResult {
    pub index: usize,
    pub engines: [usize; 4],
    /// Per seat: 1 win, ½ draw, 0 loss (Teams); the share of first place (FFA).
    pub score: [f64; 4],
    pub plies: usize,
    /// How it ended, with the engine it ended against where there is one.
    pub end: String,
    pub think: Vec<(usize, Think)>,
    /// What the runner decided, by engine index.
    pub incidents: Vec<(usize, Incident)>,
}

/// How a game ended; `loser` names the engine at a seat, `runner` says why the runner ended it there
/// (a forfeit's reason, an adjudication), if it did.
fn reason_text(
    reason: EndReason,
    loser: impl Fn(Seat) -> String,
    runner: impl Fn(Seat) -> Option<Incident>,
) -> String {
    match reason {
        EndReason::KingCaptured { by, king_of } => match runner(by) {
            Some(Incident::KingTaken) => format!("king captured (adjudicated): {}", loser(king_of)),
            _ => format!("king captured: {}", loser(king_of)),
        },
        EndReason::Checkmate { seat } => format!("checkmate: {}", loser(seat)),
        EndReason::Resignation { seat } => match runner(seat) {
            Some(why) => format!("forfeit ({}): {}", why.name(), loser(seat)),
            None => format!("forfeit: {}", loser(seat)),
        },
        EndReason::Stalemate { .. } => "stalemate".into(),
        EndReason::ThreePlayersOut => "three players out".into(),
        EndReason::PointsLead { .. } => "points lead".into(),
        EndReason::Repetition => "repetition".into(),
        EndReason::FiftyMoves => "fifty moves".into(),
        EndReason::MoveLimit => "move limit".into(),
    }
}

impl GameResult {
    pub fn of(
        index: usize,
        game: &Game,
        engines: [usize; 4],
        think: Vec<(usize, Think)>,
        incidents: Vec<(usize, Incident)>,
        names: &[String],
    ) -> GameResult {
        let outcome = game.outcome().expect("played to the end");
        let firsts = outcome.standings.iter().filter(|s| s.place == 1).count() as f64;
        let score = outcome.standings.map(|s| match (s.place, game.mode()) {
            (1, Mode::Teams) if firsts == 4.0 => 0.5,
            (1, Mode::Teams) => 1.0,
            (1, Mode::Ffa) => 1.0 / firsts,
            _ => 0.0,
        });
        let plies = game.record().iter().filter(|a| a.report.is_some()).count();
        // The last incident of the engine at a seat is the one that ended the game there.
        let runner = |seat: Seat| {
            incidents
                .iter()
                .rev()
                .find(|(e, _)| *e == engines[seat.index()])
                .map(|(_, why)| *why)
        };
        let end = reason_text(
            outcome.reason,
            |seat| names[engines[seat.index()]].clone(),
            runner,
        );
        GameResult {
            index,
            engines,
            score,
            plies,
            end,
            think,
            incidents,
        }
    }

    pub fn summary(&self, names: &[String]) -> String {
        let seats: Vec<String> = Seat::ALL
            .iter()
            .map(|s| {
                format!(
                    "{}={} {}",
                    s.letter(),
                    names[self.engines[s.index()]],
                    self.score[s.index()]
                )
            })
            .collect();
        format!(
            "game {:>3}: {} plies, {}; {}",
            self.index,
            self.plies,
            self.end,
            seats.join(", ")
        )
    }
}

#[derive(Debug, Default)]
struct Line {
    seat_games: usize,
    /// The engine's score per game it sat in (the mean over its seats in the game), for the ±.
    per_game: PerGame,
    score: f64,
    wins: usize,
    draws: usize,
    losses: usize,
    moves: u64,
    total: Duration,
    max: Duration,
    over: u64,
    nodes: u64,
    timed_nodes: Duration,
}

pub fn render(
    args: &MatchArgs,
    names: &[String],
    results: &[GameResult],
    wall: Duration,
) -> String {
    let mut out = String::new();
    let cap = Duration::from_millis(args.movetime).mul_f64(1.1);
    let mut lines: BTreeMap<&str, Line> = BTreeMap::new();
    // First seen first: the order of the engines on the command line.
    let mut order: Vec<&str> = Vec::new();
    for name in names {
        if !order.contains(&name.as_str()) {
            order.push(name);
        }
    }
    for r in results {
        let mut in_game: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
        for seat in Seat::ALL {
            let entry = in_game.entry(&names[r.engines[seat.index()]]).or_default();
            entry.0 += r.score[seat.index()];
            entry.1 += 1.0;
        }
        for (name, (sum, seats)) in in_game {
            let line = lines.entry(name).or_default();
            line.per_game.add(sum / seats);
        }
        for seat in Seat::ALL {
            let line = lines.entry(&names[r.engines[seat.index()]]).or_default();
            let s = r.score[seat.index()];
            line.seat_games += 1;
            line.score += s;
            if s == 1.0 || (args.mode == Mode::Ffa && s > 0.0) {
                line.wins += 1;
            } else if s > 0.0 {
                line.draws += 1;
            } else {
                line.losses += 1;
            }
        }
        for (e, t) in &r.think {
            let line = lines.entry(&names[*e]).or_default();
            line.moves += 1;
            line.total += t.took;
            line.max = line.max.max(t.took);
            line.over += u64::from(t.took > cap);
            if let Some(n) = t.nodes {
                line.nodes += n;
                line.timed_nodes += t.took;
            }
        }
    }
    let _ = writeln!(
        out,
        "match fourchess {}: {} games, movetime {} ms, seed {}, {:.0} s",
        args.mode.name(),
        results.len(),
        args.movetime,
        args.seed,
        wall.as_secs_f64()
    );
    let _ = writeln!(
        out,
        "{:<28} {:>5} {:>5} {:>15} {:>11} {:>8} {:>8} {:>6} {:>8}",
        "engine", "seats", "games", "score", "W/D/L", "mean ms", "max ms", ">110%", "knps"
    );
    for name in order {
        let Some(l) = lines.get(name) else { continue };
        let share = l.score / (l.seat_games as f64).max(1.0);
        let knps = if l.timed_nodes.is_zero() {
            "-".to_owned()
        } else {
            format!(
                "{:.0}",
                l.nodes as f64 / l.timed_nodes.as_secs_f64() / 1000.0
            )
        };
        let _ = writeln!(
            out,
            "{:<28} {:>5} {:>5} {:>6.1}% ±{:>5.1} {:>11} {:>8.1} {:>8.0} {:>6} {:>8}",
            name,
            l.seat_games,
            l.per_game.games(),
            100.0 * share,
            100.0 * l.per_game.interval(),
            format!("{}/{}/{}", l.wins, l.draws, l.losses),
            l.total.as_secs_f64() * 1000.0 / l.moves.max(1) as f64,
            l.max.as_secs_f64() * 1000.0,
            l.over,
            knps
        );
    }
    let mut plies: Vec<usize> = results.iter().map(|r| r.plies).collect();
    plies.sort_unstable();
    let median = plies.get(plies.len() / 2).copied().unwrap_or(0);
    let _ = writeln!(
        out,
        "plies per game: median {median}, min {}, max {}",
        plies.first().unwrap_or(&0),
        plies.last().unwrap_or(&0)
    );
    let mut ends: BTreeMap<&str, usize> = BTreeMap::new();
    for r in results {
        *ends.entry(&r.end).or_default() += 1;
    }
    let ends: Vec<String> = ends.iter().map(|(e, n)| format!("{n} {e}")).collect();
    let _ = writeln!(out, "ends: {}", ends.join("; "));
    let mut incidents: BTreeMap<(&str, Incident), usize> = BTreeMap::new();
    for r in results {
        for (e, why) in &r.incidents {
            *incidents.entry((&names[*e], *why)).or_default() += 1;
        }
    }
    for ((name, why), n) in incidents {
        let what = if why.is_forfeit() { "forfeits by " } else { "" };
        let _ = writeln!(out, "{what}{}: {n} ({name})", why.name());
    }
    out
}
