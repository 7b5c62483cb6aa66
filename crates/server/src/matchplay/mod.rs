//! `fourkings match`: any four engines at one four-player chess table (cutechess-cli is the model).
//!
//! Engines are named by the seat they take in game 0 (`--engine red=fourkings:hard --engine
//! blue=cmd:/path/to/4pchess/cli …`); game `i` turns the table `i` seats clockwise, so over four games
//! every engine plays every colour and, in Teams, both colour pairs. Games `4k … 4k+3` share opening `k`
//! of the book (`k = 0` is the start position), so every opening is played from both sides. The
//! project's rules adjudicate: an illegal `bestmove`, or none within `movetime + margin` (a hung or dead
//! engine), resigns that engine's seat (its team loses in Teams, F.14; it is eliminated in FFA, F.21),
//! is logged, and a hung or dead engine is restarted. Each game is written as PGN4.

mod book;
mod player;
mod table;

use anyhow::{Context, bail};
use clap::Args;
use player::{Failure, Player, Spec};
use rules::Seat;
use rules::fourchess::{Action, Game, Kind, Mode, Move, MoveText, Options, Owner, export_pgn4};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use table::{GameResult, Incident, Think};

#[derive(Debug, Args)]
pub struct MatchArgs {
    /// Only four-player chess is played by engines over the protocol today.
    #[arg(long, default_value = "fourchess")]
    pub game: MatchGame,
    #[arg(long, default_value = "teams")]
    pub mode: Mode,
    /// `seat=fourkings:<level>` or `seat=cmd:<program> [args…]`, once per seat (red, blue, yellow,
    /// green): the seat it takes in game 0.
    #[arg(long = "engine", required = true)]
    pub engines: Vec<String>,
    /// Think time per move, sent as `go movetime N`.
    #[arg(long, default_value_t = 1000)]
    pub movetime: u64,
    /// Extra wait for a `bestmove` beyond `movetime` before the engine counts as hung.
    #[arg(long, default_value_t = 1000)]
    pub margin: u64,
    #[arg(long, default_value_t = 4)]
    pub games: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Openings, one per line: moves from the start (`h2-h3 b7-c7 …`) or `fen <FEN4> [moves …]`; `#`
    /// comments. Without a file: the start position, then openings of `--book-plies` random pawn
    /// moves drawn from `--seed`.
    #[arg(long)]
    pub book: Option<PathBuf>,
    #[arg(long, default_value_t = 4)]
    pub book_plies: usize,
    /// End a game as a draw after this many plies in all (F.26), to bound a run.
    #[arg(long)]
    pub move_limit: Option<u32>,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Write each game as `<dir>/game-<i>.pgn4`.
    #[arg(long)]
    pub pgn_dir: Option<PathBuf>,
    /// Print one line per finished game.
    #[arg(long)]
    pub verbose: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MatchGame {
    Fourchess,
}

/// The engines by the seat they take in game 0.
fn lineup(args: &MatchArgs) -> anyhow::Result<[(String, Spec); 4]> {
    let mut seats: [Option<(String, Spec)>; 4] = Default::default();
    for text in &args.engines {
        let (seat, spec) = text
            .split_once('=')
            .with_context(|| format!("`--engine {text}`: expected seat=spec"))?;
        let seat: Seat = seat.parse().map_err(|e| anyhow::anyhow!("{e}"))?;
        let slot = &mut seats[seat.index()];
        if slot.is_some() {
            bail!("{seat} is given twice");
        }
        *slot = Some((spec.to_owned(), Spec::parse(spec)?));
    }
    let missing: Vec<&str> = Seat::ALL
        .iter()
        .filter(|s| seats[s.index()].is_none())
        .map(|s| s.name())
        .collect();
    if !missing.is_empty() {
        bail!("no engine for {}", missing.join(", "));
    }
    Ok(seats.map(|s| s.expect("checked")))
}

/// The engines of one worker, one per seat of game 0, started once and reused.
struct Seats {
    players: Vec<Player>,
}

/// Everything one game produced.
struct Played {
    game: Game,
    /// Engine index (seat in game 0) sitting at each seat.
    engines: [usize; 4],
    think: Vec<(usize, Think)>,
    /// Forfeits and adjudications, by engine index.
    incidents: Vec<(usize, Incident)>,
    /// The same as log lines.
    log: Vec<String>,
}

struct Ctx<'a> {
    args: &'a MatchArgs,
    names: Vec<String>,
    patience: Duration,
}

fn play_game(
    ctx: &Ctx,
    seats: &mut Seats,
    index: usize,
    opening: &book::Opening,
) -> anyhow::Result<Played> {
    let args = ctx.args;
    let options = Options {
        mode: args.mode,
        move_limit: args.move_limit,
        ..Options::default()
    };
    let (mut game, start_fen, mut moves) = opening.setup(options)?;
    // Engine `e` (seat e in game 0) sits `index` seats further clockwise.
    let engines: [usize; 4] = std::array::from_fn(|s| (s + 4 - index % 4) % 4);
    for player in &mut seats.players {
        player.send("ucinewgame");
        player.send("isready");
    }
    for (e, player) in seats.players.iter_mut().enumerate() {
        if player
            .wait_for("readyok", Instant::now() + ctx.patience)
            .is_err()
        {
            player
                .restart(ctx.patience)
                .with_context(|| format!("restarting {}", ctx.names[e]))?;
        }
    }
    let mut think = Vec::new();
    let mut incidents = Vec::new();
    let mut log = Vec::new();
    while let Some(seat) = game.to_act() {
        let e = engines[seat.index()];
        if let Some((m, king)) = adjudicate(&game, seat) {
            game.apply(Action::from(m))
                .map_err(|err| anyhow::anyhow!("adjudicating {m}: {err}"))?;
            moves.push(m.to_string());
            incidents.push((e, Incident::KingTaken));
            log.push(format!(
                "game {index}: {} ({seat}) can take the {king} king: {m} played for it (adjudicated)",
                ctx.names[e]
            ));
            continue;
        }
        let player = &mut seats.players[e];
        let mut position = format!("position fen {start_fen}");
        if !moves.is_empty() {
            position.push_str(" moves ");
            position.push_str(&moves.join(" "));
        }
        player.send(&position);
        player.send(&format!("go movetime {}", args.movetime));
        let sent = Instant::now();
        let deadline = sent + Duration::from_millis(args.movetime + args.margin);
        let answer = player.wait_for("bestmove", deadline);
        let took = sent.elapsed();
        let played = match answer {
            Ok((line, info)) => {
                think.push((e, Think::new(took, nodes_of(&info))));
                let text = line.split_whitespace().nth(1).unwrap_or("");
                match parse_move(text).and_then(|m| {
                    game.apply(m.into())
                        .map(|_| m)
                        .map_err(|err| err.to_string())
                }) {
                    Ok(m) => Some(m),
                    Err(why) => {
                        incidents.push((e, Incident::Illegal));
                        log.push(format!(
                            "game {index}: {} ({seat}) bestmove `{text}` is illegal: {why}",
                            ctx.names[e]
                        ));
                        None
                    }
                }
            }
            Err(no) => {
                incidents.push((
                    e,
                    match no.failure {
                        Failure::Hung => Incident::Timeout,
                        Failure::Dead => Incident::Crash,
                    },
                ));
                let said = no
                    .last_message()
                    .map(|m| format!(" (it said: {m})"))
                    .unwrap_or_default();
                log.push(format!(
                    "game {index}: {} ({seat}): {} after {} ms{said}; restarted; position: {position}",
                    ctx.names[e],
                    no.failure,
                    took.as_millis()
                ));
                player
                    .restart(ctx.patience)
                    .with_context(|| format!("restarting {}", ctx.names[e]))?;
                None
            }
        };
        match played {
            Some(m) => moves.push(m.to_string()),
            None => {
                game.apply(Action::Resign { seat })
                    .map_err(|err| anyhow::anyhow!("resigning {seat}: {err}"))?;
            }
        }
    }
    Ok(Played {
        game,
        engines,
        think,
        incidents,
        log,
    })
}

/// Teams: a king capture open to the seat to move, which the runner plays for it. By the project's
/// rules the game goes on until the king is taken (F.12); an engine that stops at a capturable king
/// (4pchess judges the game won there and answers no `bestmove`) would otherwise lose on time a game its
/// team has won. Taking the king ends the game at once, so the result is the rules' own.
fn adjudicate(game: &Game, seat: Seat) -> Option<(Move, Seat)> {
    if game.mode() != Mode::Teams {
        return None;
    }
    let pos = game.position();
    game.legal_moves().into_iter().find_map(|m| {
        let victim = pos.piece_at(m.to())?;
        match victim.owner {
            Owner::Seat(s) if victim.kind == Kind::King && s != seat && s != seat.opposite() => {
                Some((m, s))
            }
            _ => None,
        }
    })
}

fn parse_move(text: &str) -> Result<MoveText, String> {
    text.trim_end_matches(['+', '#'])
        .parse()
        .map_err(|e: rules::fourchess::BadMoveText| e.to_string())
}

/// The `nodes` of the last `info` line that has one.
fn nodes_of(info: &[String]) -> Option<u64> {
    info.iter().rev().find_map(|line| {
        let mut words = line.split_whitespace();
        words.find(|w| *w == "nodes")?;
        words.next()?.parse().ok()
    })
}

fn pgn4(played: &Played, names: &[String]) -> String {
    let mut text = String::new();
    for seat in Seat::ALL {
        let name = &names[played.engines[seat.index()]];
        let label = seat.name();
        let mut chars = label.chars();
        let tag: String = chars
            .next()
            .map(|c| c.to_ascii_uppercase())
            .into_iter()
            .chain(chars)
            .collect();
        text.push_str(&format!("[{tag} \"{name}\"]\n"));
    }
    text.push_str(&export_pgn4(&played.game));
    text
}

pub fn run(args: &MatchArgs) -> anyhow::Result<()> {
    let wall = Instant::now();
    let (names, results) = play_match(args)?;
    print!("{}", table::render(args, &names, &results, wall.elapsed()));
    Ok(())
}

/// Plays the match: the engines' names (by their seat in game 0) and the results in game order.
fn play_match(args: &MatchArgs) -> anyhow::Result<(Vec<String>, Vec<GameResult>)> {
    let lineup = lineup(args)?;
    let names: Vec<String> = lineup.iter().map(|(n, _)| n.clone()).collect();
    let options = Options {
        mode: args.mode,
        ..Options::default()
    };
    let openings = match &args.book {
        Some(path) => book::read(path, &options)?,
        None => book::generated(&options, args.games.div_ceil(4), args.book_plies, args.seed),
    };
    if let Some(dir) = &args.pgn_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let ctx = Ctx {
        args,
        names: names.clone(),
        patience: Duration::from_millis(args.margin.max(1000) * 5),
    };
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<GameResult>> = Mutex::new(Vec::new());
    let failure: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..args.concurrency.max(1) {
            scope.spawn(|| {
                let started: anyhow::Result<Vec<Player>> = lineup
                    .iter()
                    .map(|(_, spec)| Player::start(spec, args.mode, ctx.patience))
                    .collect();
                let mut seats = match started {
                    Ok(players) => Seats { players },
                    Err(e) => {
                        *failure.lock().expect("not poisoned") = Some(e);
                        next.store(args.games, Ordering::Relaxed);
                        return;
                    }
                };
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= args.games {
                        break;
                    }
                    let opening = &openings[(i / 4) % openings.len()];
                    match play_game(&ctx, &mut seats, i, opening) {
                        Ok(played) => {
                            for line in &played.log {
                                eprintln!("{line}");
                            }
                            if let Some(dir) = &args.pgn_dir {
                                let path = dir.join(format!("game-{i}.pgn4"));
                                if let Err(e) = std::fs::write(&path, pgn4(&played, &ctx.names)) {
                                    eprintln!("writing {}: {e}", path.display());
                                }
                            }
                            let result = GameResult::of(
                                i,
                                &played.game,
                                played.engines,
                                played.think,
                                played.incidents,
                                &ctx.names,
                            );
                            if args.verbose {
                                println!("{}", result.summary(&ctx.names));
                            }
                            results.lock().expect("not poisoned").push(result);
                        }
                        Err(e) => {
                            *failure.lock().expect("not poisoned") = Some(e);
                            next.store(args.games, Ordering::Relaxed);
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().expect("not poisoned") {
        return Err(e);
    }
    let mut results = results.into_inner().expect("not poisoned");
    results.sort_by_key(|r| r.index);
    Ok((names, results))
}

#[cfg(test)]
mod tests;
