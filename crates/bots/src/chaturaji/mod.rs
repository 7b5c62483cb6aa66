//! The Chaturaji player: it picks a whole turn (its moves for both dice, and the end) among every
//! distinct end of its turn ([`turns`]), with an evaluation that knows points, material, kings, the
//! Chaturaji, waiting pawns and dice-weighted threats ([`eval`]).
//!
//! Levels: `easy` judges each end of its turn statically, with noise (it slips); `medium` adds the
//! next seat's reply over all its throws (max-n expectimax, [`search`]: that seat plays for its own
//! evaluation); `hard` plays the rest of the game out many times from its best ends with random dice
//! and judges each end by its share of first places ([`mc`]: Monte-Carlo with common random numbers
//! and successive halving).

mod eval;
mod mc;
mod search;
mod turns;

use crate::budget::{Budget, Clock, Meter};
use crate::level::{Level, budget};
use crate::rng::Rng;
use crate::{BotError, Choice};
use rules::Seat;
use rules::chaturaji::{Action, Game, Phase};
use search::{Beams, Search};
use turns::{TurnEnd, turn_ends};

/// How a level searches.
#[derive(Debug, Clone, Copy)]
enum Profile {
    /// Iterative deepening over the max-n tree ([`search`]).
    Tree {
        /// Turns searched (1: only its own turn, judged statically).
        max_depth: u32,
        beams: Beams,
        /// Random noise added to each candidate's value: weaker levels make human-like slips.
        noise: f32,
    },
    /// Monte-Carlo simulations of the rest of the game ([`mc`]).
    MonteCarlo(mc::McProfile),
}

fn profile(level: Level) -> Profile {
    match level {
        Level::Easy => Profile::Tree {
            max_depth: 1,
            beams: Beams { root: 0, inner: 0 },
            noise: 0.6,
        },
        Level::Medium => Profile::Tree {
            max_depth: 2,
            beams: Beams { root: 0, inner: 0 },
            noise: 0.05,
        },
        _ => Profile::MonteCarlo(mc::McProfile {
            max_candidates: 32,
            margin_weight: 0.05,
        }),
    }
}

/// A CPU player for one Chaturaji seat. Cheap to create; `Send`.
#[derive(Debug, Clone)]
pub struct ChaturajiBot {
    level: Level,
}

impl ChaturajiBot {
    pub fn new(level: Level) -> ChaturajiBot {
        ChaturajiBot { level }
    }

    pub fn level(&self) -> Level {
        self.level
    }

    /// The level's time cap and a node budget that normally fits inside it (about 2 million nodes per
    /// second on one core of the reference machine).
    pub fn default_budget(level: Level) -> Budget {
        budget(level, 2_000_000)
    }

    /// The rest of `seat`'s turn: its moves, then `EndTurn` when the turn would not end by itself. The
    /// dice must be thrown (the room throws them). Deterministic given the game, seed and node budget
    /// as long as the clock does not fire.
    pub fn choose(
        &mut self,
        game: &Game,
        seat: Seat,
        budget: Budget,
        rng_seed: u64,
        clock: &dyn Clock,
    ) -> Result<Choice<Action>, BotError> {
        match game.phase() {
            Phase::Over => return Err(BotError::GameOver),
            Phase::Moving(s) if s == seat => {}
            _ => return Err(BotError::NotToAct(seat)),
        }
        let mut rng = Rng::new(rng_seed);
        let mut meter = Meter::new(budget, clock);
        let (actions, depth) = match self.level {
            Level::Random => (random_turn(game, seat, &mut rng), 0),
            Level::Greedy => (greedy_turn(game, seat, &mut rng, &mut meter), 0),
            level => search_turn(game, seat, profile(level), rng_seed, &mut rng, &mut meter),
        };
        Ok(Choice {
            actions,
            nodes: meter.nodes,
            depth,
            timed_out: meter.timed_out,
            score: None,
            pv: Vec::new(),
        })
    }
}

/// Uniform over the legal actions at each step (moves and `EndTurn`; never resigning).
fn random_turn(game: &Game, seat: Seat, rng: &mut Rng) -> Vec<Action> {
    let mut game = game.clone();
    let mut actions = Vec::new();
    while game.phase() == Phase::Moving(seat) {
        let legal: Vec<Action> = game
            .legal_actions()
            .into_iter()
            .filter(|a| matches!(a, Action::Move { .. } | Action::EndTurn))
            .collect();
        if legal.is_empty() {
            break;
        }
        let action = legal[rng.below(legal.len())];
        if game.apply(action).is_err() {
            break;
        }
        actions.push(action);
    }
    actions
}

/// All ends of the turn, counted apart from the search budget: even a tiny budget must yield a legal
/// turn, and a turn has at most a few hundred ends.
fn all_ends(game: &Game, seat: Seat) -> Vec<TurnEnd> {
    let mut unlimited = Meter::new(Budget::nodes(u64::MAX), &crate::NoClock);
    turn_ends(game, seat, &mut unlimited)
}

/// The turn scoring the most points, then capturing the most pieces; ties broken at random.
fn greedy_turn(game: &Game, seat: Seat, rng: &mut Rng, meter: &mut Meter) -> Vec<Action> {
    let ends = all_ends(game, seat);
    meter.nodes += ends.len() as u64;
    let top = turns::greediest(ends);
    top.get(rng.below(top.len().max(1)))
        .map(|e| e.actions.clone())
        .unwrap_or_default()
}

/// Iterative deepening over whole turns; the last completed iteration decides.
fn search_turn(
    game: &Game,
    seat: Seat,
    profile: Profile,
    seed: u64,
    rng: &mut Rng,
    meter: &mut Meter,
) -> (Vec<Action>, u32) {
    let ends = all_ends(game, seat);
    if ends.len() <= 1 {
        return (
            ends.into_iter()
                .next()
                .map(|e| e.actions)
                .unwrap_or_default(),
            0,
        );
    }
    let (max_depth, beams, noise) = match profile {
        Profile::Tree {
            max_depth,
            beams,
            noise,
        } => (max_depth, beams, noise),
        Profile::MonteCarlo(mc) => {
            let (best, sims) = mc::choose(&ends, seat, mc, seed, meter);
            return (ends[best].actions.clone(), sims);
        }
    };
    let me = seat.index();
    let noise: Vec<f32> = ends
        .iter()
        .map(|_| (rng.unit() as f32 - 0.5) * 2.0 * noise)
        .collect();
    // Depth 1: every end judged statically.
    let mut values: Vec<f32> = ends.iter().map(|e| eval::evaluate(&e.game)[me]).collect();
    let mut depth = 1;
    let mut search = Search::new(game, meter, beams);
    for d in 2..=max_depth {
        // Beyond depth 2 only a beam of the most promising ends.
        let beam = if d > 2 { beams.root } else { usize::MAX };
        let Some(next) = deepen(&ends, &values, beam, |g| {
            search.between_turns(g, d - 1).map(|v| v[me])
        }) else {
            break;
        };
        values = next;
        depth = d;
    }
    let best = (0..ends.len())
        .max_by(|&a, &b| (values[a] + noise[a]).total_cmp(&(values[b] + noise[b])))
        .unwrap_or(0);
    (ends[best].actions.clone(), depth)
}

/// One iteration of the deepening: the `beam` ends best by `values` (the previous iteration) get a
/// new value from `search`, the others none (minus infinity). `None` when the search ran out of budget
/// before the iteration completed: the caller keeps the previous values.
fn deepen(
    ends: &[TurnEnd],
    values: &[f32],
    beam: usize,
    mut search: impl FnMut(&Game) -> Option<f32>,
) -> Option<Vec<f32>> {
    let mut order: Vec<usize> = (0..ends.len()).collect();
    order.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
    order.truncate(beam.max(1));
    let mut next = vec![f32::NEG_INFINITY; ends.len()];
    for i in order {
        next[i] = search(&ends[i].game)?;
    }
    Some(next)
}
