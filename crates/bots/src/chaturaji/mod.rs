//! The Chaturaji player: it picks a whole turn (its moves for both dice, and the end) by expectimax over
//! the following seats' dice ([`search`]), with an evaluation that knows points, material, kings, the
//! Chaturaji, boat triumph (through the search), waiting pawns and dice-weighted threats ([`eval`]).
//!
//! Levels: `easy` judges each end of its turn statically, with noise (it slips); `medium` adds the
//! next seat's reply over all its throws; `hard` takes medium's best few turns and plays each out to the
//! end of the game many times with seeded dice ([`rollout`]), keeping the turn that most often ends in
//! first place.

mod eval;
mod rollout;
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

/// Turns whose tree value is within this many points of the best go to the rollouts.
const ROLLOUT_MARGIN: f32 = 1.0;

/// How a level searches.
#[derive(Debug, Clone, Copy)]
struct Profile {
    /// Turns searched (1: only its own turn, judged statically).
    max_depth: u32,
    beams: Beams,
    /// Random noise added to each candidate's value: weaker levels make human-like slips.
    noise: f32,
    /// After the tree, this many best turns are compared by rollouts to the end of the game (0: none).
    rollouts: usize,
}

fn profile(level: Level) -> Profile {
    match level {
        Level::Easy => Profile {
            max_depth: 1,
            beams: Beams { root: 0, inner: 0 },
            noise: 0.6,
            rollouts: 0,
        },
        Level::Medium => Profile {
            max_depth: 2,
            beams: Beams { root: 0, inner: 0 },
            noise: 0.05,
            rollouts: 0,
        },
        _ => Profile {
            max_depth: 2,
            beams: Beams { root: 8, inner: 3 },
            noise: 0.01,
            rollouts: 6,
        },
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
            level => search_turn(game, seat, profile(level), &mut rng, &mut meter),
        };
        Ok(Choice {
            actions,
            nodes: meter.nodes,
            depth,
            timed_out: meter.timed_out,
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
    let best = ends.iter().map(|e| (e.points, e.captures)).max();
    let top: Vec<&TurnEnd> = ends
        .iter()
        .filter(|e| Some((e.points, e.captures)) == best)
        .collect();
    top.get(rng.below(top.len().max(1)))
        .map(|e| e.actions.clone())
        .unwrap_or_default()
}

/// Iterative deepening over whole turns; the last completed iteration decides.
fn search_turn(
    game: &Game,
    seat: Seat,
    profile: Profile,
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
    let me = seat.index();
    let noise: Vec<f32> = ends
        .iter()
        .map(|_| (rng.unit() as f32 - 0.5) * 2.0 * profile.noise)
        .collect();
    // Depth 1: every end judged statically.
    let mut values: Vec<f32> = ends.iter().map(|e| eval::evaluate(&e.game)[me]).collect();
    let mut depth = 1;
    let mut search = Search::new(game, meter, profile.beams);
    for d in 2..=profile.max_depth {
        // Search the most promising ends first; beyond depth 2 only a beam of them.
        let mut order: Vec<usize> = (0..ends.len()).collect();
        order.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
        if d > 2 {
            order.truncate(profile.beams.root.max(1));
        }
        let mut next = vec![f32::NEG_INFINITY; ends.len()];
        let mut complete = true;
        for &i in &order {
            match search.between_turns(&ends[i].game, d - 1) {
                Some(v) => next[i] = v[me],
                None => {
                    complete = false;
                    break;
                }
            }
        }
        if !complete {
            break;
        }
        values = next;
        depth = d;
    }
    let mut order: Vec<usize> = (0..ends.len()).collect();
    order.sort_by(|&a, &b| (values[b] + noise[b]).total_cmp(&(values[a] + noise[a])));
    let mut best = order[0];
    if profile.rollouts > 1 && !search.meter.out() && order.len() > 1 {
        // Rollouts are noisy: they only arbitrate between turns the tree finds about equally good, so
        // a clear tactical gain (a king, a triumph) is never traded for sampling luck.
        let top = values[order[0]];
        order.retain(|&i| values[i] >= top - ROLLOUT_MARGIN);
        order.truncate(profile.rollouts);
        let games: Vec<&Game> = order.iter().map(|&i| &ends[i].game).collect();
        let (pick, _) = rollout::choose_by_rollouts(&games, seat, rng, search.meter);
        best = order[pick];
    }
    (ends[best].actions.clone(), depth)
}
