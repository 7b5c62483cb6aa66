//! The engine protocol's state machine: one line in, the answer lines out, or a search to run. No I/O
//! and no clock of its own, so a conversation can be replayed line by line in a test.

use super::turn;
use bots::{Budget, ChaturajiBot, Clock, FourChessBot, KeptTable, Level};
use rules::{chaturaji, fourchess};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// log2 of the entries of the table hard keeps between searches (about 32 MiB): a 1 s search stores
/// some 40,000 positions, so the table holds the last few dozen searches of a game.
const KEPT_TABLE_BITS: u32 = 20;

/// Which game the engine plays (fixed for its lifetime).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineGame {
    Fourchess,
    Chaturaji,
}

/// The position the next `go` searches.
#[derive(Debug, Clone)]
// One table per engine process, moved rarely: boxing the larger game would buy nothing.
#[allow(clippy::large_enum_variant)]
enum Table {
    Fourchess(fourchess::Game),
    Chaturaji(chaturaji::Game),
}

/// What a line asks of the loop around the session.
#[derive(Debug)]
// A reply is made once per command and moved once; boxing the search would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum Reply {
    /// Write these lines (possibly none).
    Lines(Vec<String>),
    /// Run this search (on another thread, so that `stop` and `isready` are heard meanwhile) and write
    /// what it returns.
    Search(Search),
    /// Leave.
    Quit,
}

fn error(message: impl std::fmt::Display) -> Reply {
    Reply::Lines(vec![format!("info string error {message}")])
}

/// The limits of one `go`. None given: the level's own budget.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Limits {
    movetime: Option<u64>,
    nodes: Option<u64>,
    depth: Option<u32>,
    dice: Option<[u8; 2]>,
}

/// One `go`, detached from the session so that it can run on its own thread.
#[derive(Debug)]
pub struct Search {
    table: Table,
    level: Level,
    limits: Limits,
    seed: u64,
    /// Four-player chess at hard: the transposition table kept from the game's earlier searches.
    kept: Option<Arc<Mutex<KeptTable>>>,
}

#[derive(Debug)]
pub struct Session {
    game: EngineGame,
    level: Level,
    mode: fourchess::Mode,
    seed: u64,
    table: Table,
    /// Hard's transposition table, kept from one `go` to the next until `ucinewgame` or a change of
    /// level or mode, as engines keep theirs; shared with the running search.
    kept: Arc<Mutex<KeptTable>>,
}

fn start(game: EngineGame, mode: fourchess::Mode) -> Table {
    match game {
        EngineGame::Fourchess => {
            let options = fourchess::Options {
                mode,
                ..fourchess::Options::default()
            };
            Table::Fourchess(fourchess::Game::new(options, rules::Seat::Red).expect("valid"))
        }
        EngineGame::Chaturaji => Table::Chaturaji(
            chaturaji::Game::new(chaturaji::Options::default(), rules::Seat::Red).expect("valid"),
        ),
    }
}

impl Session {
    pub fn new(game: EngineGame, level: Level, mode: fourchess::Mode) -> Session {
        Session {
            game,
            level,
            mode,
            seed: 1,
            table: start(game, mode),
            kept: Arc::new(Mutex::new(KeptTable::new(KEPT_TABLE_BITS))),
        }
    }

    /// The answer to one input line. Bad input answers `info string error …` and changes nothing.
    pub fn handle(&mut self, line: &str) -> Reply {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, args)) = words.split_first() else {
            return Reply::Lines(Vec::new());
        };
        match command {
            "uci" => Reply::Lines(self.identify()),
            "isready" => Reply::Lines(vec!["readyok".into()]),
            "ucinewgame" => {
                self.table = start(self.game, self.mode);
                self.forget();
                Reply::Lines(Vec::new())
            }
            "setoption" => self.set_option(args),
            "position" => match self.position(args) {
                Ok(table) => {
                    self.table = table;
                    Reply::Lines(Vec::new())
                }
                Err(e) => error(e),
            },
            "go" => match self.go(args) {
                Ok(search) => Reply::Search(search),
                Err(e) => error(e),
            },
            // Nothing is running when the session itself sees these (the loop handles them during a
            // search).
            "stop" | "ponderhit" | "debug" => Reply::Lines(Vec::new()),
            "quit" => Reply::Quit,
            other => error(format!("unknown command `{}`", printable(other))),
        }
    }

    fn identify(&self) -> Vec<String> {
        let levels: String = Level::ALL.iter().map(|l| format!(" var {l}")).collect();
        let mut lines = vec![
            format!(
                "id name fourkings {} {:?}",
                env!("CARGO_PKG_VERSION"),
                self.game
            )
            .to_lowercase(),
            "id author the fourkings project".into(),
            format!(
                "option name Level type combo default {}{levels}",
                self.level
            ),
            "option name Seed type spin default 1 min 0 max 4294967295".into(),
        ];
        if self.game == EngineGame::Fourchess {
            lines.push(format!(
                "option name Mode type combo default {} var teams var ffa",
                self.mode.name()
            ));
        }
        lines.push("uciok".into());
        lines
    }

    fn set_option(&mut self, args: &[&str]) -> Reply {
        // setoption name <id> value <x>
        let (["name", name, "value", value] | ["name", name, "value", value, ..]) = args else {
            return error("expected `setoption name <id> value <x>`");
        };
        if args.len() != 4 {
            return error("option values are one word");
        }
        match name.to_ascii_lowercase().as_str() {
            "level" => match value.parse() {
                Ok(level) => {
                    self.level = level;
                    self.forget();
                }
                Err(e) => return error(e),
            },
            "seed" => match value.parse() {
                Ok(seed) => self.seed = seed,
                Err(_) => {
                    return error(format!("Seed must be a number, not `{}`", printable(value)));
                }
            },
            "mode" if self.game == EngineGame::Fourchess => match value.parse() {
                Ok(mode) => {
                    self.mode = mode;
                    self.table = start(self.game, mode);
                    self.forget();
                }
                Err(e) => return error(e),
            },
            _ => return error(format!("unknown option `{}`", printable(name))),
        }
        Reply::Lines(Vec::new())
    }

    /// `startpos | fen <position> [moves …]`; the position notation may span several words
    /// (Chaturaji's has eleven fields), up to `moves`.
    fn position(&self, args: &[&str]) -> Result<Table, String> {
        let (base, moves) = match args.iter().position(|w| *w == "moves") {
            Some(i) => (&args[..i], &args[i + 1..]),
            None => (args, &[][..]),
        };
        let mut table = match base {
            ["startpos"] => start(self.game, self.mode),
            ["fen", notation @ ..] if !notation.is_empty() => {
                self.parse_position(&notation.join(" "))?
            }
            _ => return Err("expected `position startpos|fen <position> [moves …]`".into()),
        };
        for (i, token) in moves.iter().enumerate() {
            let played = match &mut table {
                Table::Fourchess(game) => play_fourchess(game, token),
                Table::Chaturaji(game) => turn::play(game, token),
            };
            played.map_err(|e| format!("move {} `{}`: {e}", i + 1, printable(token)))?;
        }
        Ok(table)
    }

    fn parse_position(&self, text: &str) -> Result<Table, String> {
        match self.game {
            EngineGame::Fourchess => {
                let options = fourchess::Options {
                    mode: self.mode,
                    ..fourchess::Options::default()
                };
                fourchess::Game::from_fen4(options, text)
                    .map(Table::Fourchess)
                    .map_err(|e| format!("bad FEN4: {e}"))
            }
            EngineGame::Chaturaji => {
                chaturaji::Game::from_notation(chaturaji::Options::default(), text)
                    .map(Table::Chaturaji)
                    .map_err(|e| format!("bad position: {e}"))
            }
        }
    }

    fn go(&self, args: &[&str]) -> Result<Search, String> {
        let mut limits = Limits::default();
        let mut words = args.iter();
        while let Some(&word) = words.next() {
            let mut value = || {
                words
                    .next()
                    .copied()
                    .ok_or_else(|| format!("`{word}` needs a value"))
            };
            let number = |text: &str| {
                text.parse::<u64>().ok().filter(|&n| n > 0).ok_or_else(|| {
                    format!(
                        "`{word}` needs a positive number, not `{}`",
                        printable(text)
                    )
                })
            };
            match word {
                "movetime" => limits.movetime = Some(number(value()?)?),
                "nodes" => limits.nodes = Some(number(value()?)?),
                "depth" => limits.depth = Some(number(value()?)?.min(64) as u32),
                "dice" if self.game == EngineGame::Chaturaji => {
                    limits.dice = Some(turn::parse_dice(value()?)?);
                }
                other => return Err(format!("unknown `go` parameter `{}`", printable(other))),
            }
        }
        let seed = self.seed ^ self.plies().wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Ok(Search {
            table: self.table.clone(),
            level: self.level,
            limits,
            seed,
            kept: (self.game == EngineGame::Fourchess && self.level == Level::Hard)
                .then(|| self.kept.clone()),
        })
    }

    /// Drops what earlier searches learnt (a new game, or another player: level or mode).
    fn forget(&mut self) {
        self.kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }

    fn plies(&self) -> u64 {
        match &self.table {
            Table::Fourchess(g) => g.actions().len() as u64,
            Table::Chaturaji(g) => u64::from(g.position().turn()),
        }
    }
}

/// 4pchess's move text (`h2-h4`, `j10-j11=Q`, castling as the king's move), also with `x` for a capture
/// and a trailing `+` or `#`.
fn play_fourchess(game: &mut fourchess::Game, token: &str) -> Result<(), String> {
    let text: fourchess::MoveText = token
        .trim_end_matches(['+', '#'])
        .parse()
        .map_err(|e: fourchess::BadMoveText| e.to_string())?;
    game.apply(text.into()).map(drop).map_err(|e| e.to_string())
}

/// Input echoed in an error, cut short and without control characters.
fn printable(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).take(40).collect()
}

impl Search {
    /// The budget of this search: `nodes` alone is exact (no clock); `movetime` is a time cap with
    /// room for the answer to travel; neither: the level's own budget.
    fn budget(&self, default: Budget, nodes_per_second: u64) -> Budget {
        let Limits {
            movetime, nodes, ..
        } = self.limits;
        match (movetime, nodes) {
            (None, None) => default,
            (None, Some(n)) => Budget::nodes(n),
            (Some(ms), nodes) => {
                // 3% (at most 30 ms) for the reply to reach the driver.
                let time = Duration::from_millis(ms - (ms * 3 / 100).min(30));
                let max_nodes = nodes.unwrap_or(nodes_per_second.saturating_mul(ms) / 1000);
                Budget::nodes(max_nodes.max(1)).with_time(time)
            }
        }
    }

    /// Runs the search; `clock` is the time since `go` (the loop folds `stop` into it). Returns the
    /// `info` line(s) and the `bestmove` line.
    pub fn run(self, clock: &dyn Clock) -> Vec<String> {
        let began = Instant::now();
        let result = match &self.table {
            Table::Fourchess(game) => self.run_fourchess(game, clock),
            Table::Chaturaji(game) => self.run_chaturaji(game, clock),
        };
        match result {
            Ok(found) => {
                let ms = began.elapsed().as_millis() as u64;
                let nps = found.nodes * 1000 / ms.max(1);
                let score = match found.score {
                    Some(s) => format!(" score {s}"),
                    None => String::new(),
                };
                vec![
                    format!(
                        "info depth {}{score} nodes {} nps {nps} time {ms} pv {}",
                        found.depth, found.nodes, found.best
                    ),
                    format!("bestmove {}", found.best),
                ]
            }
            Err(e) => vec![format!("info string error {e}"), "bestmove (none)".into()],
        }
    }

    fn run_fourchess(&self, game: &fourchess::Game, clock: &dyn Clock) -> Result<Found, String> {
        let seat = game.to_act().ok_or("the game is over")?;
        // Iterative deepening stops by itself; only the clock (or `nodes`) ends a `movetime` search.
        let budget = self.budget(FourChessBot::default_budget(self.level), u64::MAX / 2000);
        let mut bot = FourChessBot::new(self.level);
        if let Some(depth) = self.limits.depth {
            bot = bot.with_max_depth(depth);
        }
        let choice = match &self.kept {
            Some(kept) => {
                let mut kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
                bot.choose_keeping(game, seat, budget, self.seed, clock, &mut kept)
            }
            None => bot.choose(game, seat, budget, self.seed, clock),
        }
        .map_err(|e| e.to_string())?;
        let best = match choice.actions.first() {
            Some(fourchess::Action::Move {
                from,
                to,
                promotion,
            }) => fourchess::MoveText {
                from: *from,
                to: *to,
                promotion: *promotion,
            }
            .to_string(),
            _ => return Err("no move".into()),
        };
        Ok(Found {
            best,
            depth: choice.depth,
            nodes: choice.nodes,
            score: choice.score.map(score_text),
        })
    }

    fn run_chaturaji(&self, game: &chaturaji::Game, clock: &dyn Clock) -> Result<Found, String> {
        if self.limits.depth.is_some() {
            return Err("`depth` is not supported for Chaturaji (use nodes or movetime)".into());
        }
        let mut game = game.clone();
        match (game.phase(), self.limits.dice) {
            (chaturaji::Phase::Over, _) => return Err("the game is over".into()),
            (chaturaji::Phase::AwaitingRoll(_), None) => {
                return Err("the dice are not thrown: `go dice A,B …`".into());
            }
            (chaturaji::Phase::AwaitingRoll(_), Some(dice)) => {
                game.apply(chaturaji::Action::Roll { dice })
                    .map_err(|e| e.to_string())?;
            }
            (chaturaji::Phase::Moving(_), Some(_)) => {
                return Err("the dice of this turn are already thrown".into());
            }
            (chaturaji::Phase::Moving(_), None) => {}
        }
        let chaturaji::Phase::Moving(seat) = game.phase() else {
            // The throw left nothing to do: the turn passed at once.
            return Ok(Found {
                best: turn::NOTHING.into(),
                depth: 0,
                nodes: 0,
                score: None,
            });
        };
        let budget = self.budget(ChaturajiBot::default_budget(self.level), 2_000_000);
        let choice = ChaturajiBot::new(self.level)
            .choose(&game, seat, budget, self.seed, clock)
            .map_err(|e| e.to_string())?;
        Ok(Found {
            best: turn::print(&choice.actions),
            depth: choice.depth,
            nodes: choice.nodes,
            score: None,
        })
    }
}

/// `cp N` from the mover's side, or `mate ±N` (plies to the end) near the win value.
fn score_text(v: i32) -> String {
    let win = bots::fourchess::WIN;
    if v.abs() >= win / 2 {
        let plies = win - v.abs();
        format!("mate {}{plies}", if v < 0 { "-" } else { "" })
    } else {
        format!("cp {v}")
    }
}

struct Found {
    best: String,
    depth: u32,
    nodes: u64,
    score: Option<String>,
}
