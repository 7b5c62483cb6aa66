//! The four-player chess player: alpha-beta ([`search`]) over the rules crate's search node
//! ([`rules::fourchess::Node`]), with a material and placement evaluation ([`eval`]). Teams plays as a
//! team (the partner's king is as precious as its own); FFA plays for points against the field.

mod eval;
pub mod fitted;
mod search;

pub use eval::WIN;

use crate::budget::{Budget, Clock, Meter};
use crate::level::{Level, budget};
use crate::rng::Rng;
use crate::{BotError, Choice};
use eval::{Terms, piece_value};
use rules::Seat;
use rules::fourchess::{Action, Game, Kind, Mode, Move, Node};
use search::{Depths, Searcher, Table};

fn depths(level: Level) -> Depths {
    match level {
        Level::Easy => Depths {
            max_depth: 1,
            quiescence: 2,
            table_bits: 12,
            pruning: false,
            quiet_checks: false,
            terms: Terms::PLAIN,
        },
        Level::Medium => Depths {
            max_depth: 3,
            quiescence: 4,
            table_bits: 16,
            pruning: false,
            quiet_checks: false,
            terms: Terms::PLAIN,
        },
        _ => Depths {
            max_depth: 12,
            quiescence: 6,
            table_bits: 18,
            pruning: true,
            quiet_checks: true,
            terms: Terms::HARD,
        },
    }
}

/// A transposition table kept from one search to the next of the same game, as chess engines keep
/// theirs: what the last searches learnt about the positions ahead orders and cuts the next one.
/// `fourkings engine` keeps one at hard; rooms do not (a bot there is made per decision, and a table
/// of megabytes per CPU seat of every room is more memory than a server has to spare for it).
///
/// Values in the table are from one side's point of view (a team in Teams, a seat in FFA), so a
/// search for another side, or of another mode, starts it afresh; so does [`KeptTable::clear`],
/// which the engine calls on `ucinewgame`.
pub struct KeptTable {
    bits: u32,
    kept: Option<(Mode, Seat, Table)>,
}

impl KeptTable {
    /// A table of 2^`bits` entries (about 32 bytes each), allocated at the first search.
    pub fn new(bits: u32) -> KeptTable {
        KeptTable { bits, kept: None }
    }

    pub fn clear(&mut self) {
        self.kept = None;
    }

    /// The table for a search of `mode` for `seat`: the kept one if it was for the same side.
    fn take(&mut self, mode: Mode, seat: Seat) -> Table {
        let side = side(mode, seat);
        match self.kept.take() {
            Some((m, s, table)) if m == mode && s == side => table,
            _ => Table::new(self.bits),
        }
    }

    fn keep(&mut self, mode: Mode, seat: Seat, table: Table) {
        self.kept = Some((mode, side(mode, seat), table));
    }
}

impl std::fmt::Debug for KeptTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeptTable")
            .field("bits", &self.bits)
            .field(
                "kept",
                &self.kept.as_ref().map(|(m, s, t)| (m, s, t.bits())),
            )
            .finish()
    }
}

/// Whose point of view a search takes: the seat's team in Teams (partners share one), the seat in FFA.
fn side(mode: Mode, seat: Seat) -> Seat {
    match (mode, seat) {
        (Mode::Teams, Seat::Yellow) => Seat::Red,
        (Mode::Teams, Seat::Green) => Seat::Blue,
        _ => seat,
    }
}

/// A CPU player for one four-player chess seat. Cheap to create; `Send`.
#[derive(Debug, Clone)]
pub struct FourChessBot {
    level: Level,
    /// A cap on the level's search depth (the engine protocol's `go depth N`).
    max_depth: Option<u32>,
}

impl FourChessBot {
    pub fn new(level: Level) -> FourChessBot {
        FourChessBot {
            level,
            max_depth: None,
        }
    }

    /// This bot searching at most `depth` plies (before quiescence), fewer if the level's own limit is
    /// lower.
    pub fn with_max_depth(self, depth: u32) -> FourChessBot {
        FourChessBot {
            max_depth: Some(depth.max(1)),
            ..self
        }
    }

    pub fn level(&self) -> Level {
        self.level
    }

    /// The level's time cap and a node budget that normally fits inside it: 130 000 positions per
    /// second, the 70 000 this constant said for the search through `Game` times the 1.86 measured for
    /// the search through `Node` on the same searches (CPU time, session 10, docs/bots.md).
    pub fn default_budget(level: Level) -> Budget {
        budget(level, 130_000)
    }

    /// One move for `seat`, which must be the seat to act. Deterministic given the game, seed and node
    /// budget as long as the clock does not fire.
    pub fn choose(
        &mut self,
        game: &Game,
        seat: Seat,
        budget: Budget,
        rng_seed: u64,
        clock: &dyn Clock,
    ) -> Result<Choice<Action>, BotError> {
        self.choose_with(game, seat, budget, rng_seed, clock, None)
    }

    /// [`FourChessBot::choose`], starting from the table `kept` holds and leaving this search's
    /// table there. The choice then depends on the searches before it, not only on the seed and the
    /// budget.
    pub fn choose_keeping(
        &mut self,
        game: &Game,
        seat: Seat,
        budget: Budget,
        rng_seed: u64,
        clock: &dyn Clock,
        kept: &mut KeptTable,
    ) -> Result<Choice<Action>, BotError> {
        self.choose_with(game, seat, budget, rng_seed, clock, Some(kept))
    }

    fn choose_with(
        &mut self,
        game: &Game,
        seat: Seat,
        budget: Budget,
        rng_seed: u64,
        clock: &dyn Clock,
        mut kept: Option<&mut KeptTable>,
    ) -> Result<Choice<Action>, BotError> {
        match game.to_act() {
            None => return Err(BotError::GameOver),
            Some(s) if s != seat => return Err(BotError::NotToAct(seat)),
            Some(_) => {}
        }
        let mut moves = game.legal_moves();
        if moves.is_empty() {
            // A settled game always has a move for the seat to act; be safe anyway.
            return Err(BotError::GameOver);
        }
        let mut rng = Rng::new(rng_seed);
        // Seeded shuffle: equal moves are then chosen differently from game to game.
        for i in (1..moves.len()).rev() {
            moves.swap(i, rng.below(i + 1));
        }
        let mut meter = Meter::new(budget, clock);
        let node = Node::new(game);
        let (m, depth, score, pv) = match self.level {
            Level::Random => (moves[0], 0, None, Vec::new()),
            Level::Greedy => (greedy(&node, &moves, &mut meter), 0, None, Vec::new()),
            level => {
                let mut depths = depths(level);
                if let Some(cap) = self.max_depth {
                    depths.max_depth = depths.max_depth.min(cap as i32);
                }
                let mode = node.mode();
                let mut searcher = match kept.as_deref_mut() {
                    Some(kept) => {
                        let table = kept.take(mode, seat);
                        Searcher::with_table(&node, seat, &mut meter, depths, table)
                    }
                    None => Searcher::new(&node, seat, &mut meter, depths),
                };
                let (m, depth, score) = searcher.root(&node, moves);
                let pv = searcher.principal_variation(&node, m, depth.max(1) as usize);
                if let Some(kept) = kept {
                    kept.keep(mode, seat, searcher.into_table());
                }
                (m, depth, Some(score), pv)
            }
        };
        Ok(Choice {
            actions: vec![Action::from(m)],
            nodes: meter.nodes,
            depth,
            timed_out: meter.timed_out,
            score,
            pv: pv.into_iter().map(Action::from).collect(),
        })
    }
}

/// Immediate result first (a win now), then points, then the value of what it captures; the moves
/// come shuffled, so the first best is a random one among equals.
fn greedy(node: &Node, moves: &[Move], meter: &mut Meter) -> Move {
    let mover = node.to_move().unwrap_or(Seat::Red);
    let mut best = moves[0];
    let mut best_key = (false, 0u32, 0i32);
    for &m in moves {
        meter.nodes += 1;
        let mut child = node.clone();
        let played = child.play(m);
        let won = child
            .outcome()
            .is_some_and(|o| o.winners().contains(&mover));
        let captured: i32 = played
            .captures
            .iter()
            .flatten()
            .map(|c| match c.piece.kind {
                Kind::King => 10_000,
                kind => piece_value(kind),
            })
            .sum();
        let key = (won, played.points, captured);
        if key > best_key {
            best_key = key;
            best = m;
        }
    }
    best
}
