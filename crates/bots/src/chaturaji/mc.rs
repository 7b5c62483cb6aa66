//! Monte-Carlo over whole games: each end of the bot's turn is judged by simulating the rest of the
//! game many times with random dice, every seat (the bot's own later turns included) played by a fast
//! points-greedy policy, and scoring each simulation by the bot's final standing.
//!
//! Why it works: a Chaturaji game mostly ends when the third king falls (C.22), a few rounds after the
//! kings start to go, and first place is decided by the points at that moment. A greedy player's turn
//! costs a few dozen positions, so whole games can be played out a few thousand times per second; a
//! simulation sees what a one-turn judgement cannot: a piece left to be taken by the next seats, who
//! ends the game while leading, the 54-point Chaturaji (C.21), boat triumphs (C.19), promotions
//! (C.13–C.16) and the round limit.
//!
//! The candidates share common random numbers (simulation `k` throws the same dice for every candidate),
//! so their comparison is low-variance, and successive halving spends most of the budget on the best
//! few.
//!
//! Every seat plays the same cheap greedy policy. Playing the other seats' turns by the static
//! evaluation instead (the most points, then the best end by `eval.rs`) was shipped once and measured
//! worse on the same 400 games (first places 37.2% against 46.9% vs three greedy bots, 28.7% against
//! 33.0% vs three medium): an evaluated turn costs a whole enumeration of its ends, so there are far
//! fewer simulations, and its bias (no piece left hanging) misjudges the replies that actually come.

use super::eval::evaluate;
use super::turns::{TurnEnd, gains};
use crate::budget::Meter;
use crate::rng::Rng;
use rules::Seat;
use rules::chaturaji::{Action, Game, Kind, Move, MoveList, Phase};

/// How the search is shaped.
#[derive(Debug, Clone, Copy)]
pub(crate) struct McProfile {
    /// At most this many turn ends (the best by the static evaluation) enter the simulations.
    pub max_candidates: usize,
    /// Weight of the final points margin (over the best rival) next to first place (1).
    pub margin_weight: f32,
}

/// The value of a finished simulation for `me`: its share of first place (shared places split), plus
/// a small term for its points margin over the best rival that breaks ties between candidates.
fn score(game: &Game, me: Seat, margin_weight: f32) -> f32 {
    let Some(outcome) = game.outcome() else {
        // A simulation cut short (no budget): the static value squashed to a share.
        let v = evaluate(game)[me.index()];
        return 1.0 / (1.0 + (-v / 4.0).exp());
    };
    let firsts = outcome.standings.iter().filter(|s| s.place == 1).count() as f32;
    let mine = outcome.standings[me.index()];
    let best_rival = outcome
        .standings
        .iter()
        .filter(|s| s.seat != me)
        .map(|s| s.points)
        .max()
        .unwrap_or(0);
    let first = if mine.place == 1 { 1.0 / firsts } else { 0.0 };
    let margin = (mine.points as f32 - best_rival as f32).clamp(-20.0, 20.0) / 20.0;
    first + margin_weight * margin
}

/// The seed of simulation `k`: the same for every candidate (common random numbers).
fn sim_seed(seed: u64, k: u64) -> u64 {
    Rng::new(seed ^ k.wrapping_mul(0xD1B5_4A32_D192_ED03)).next_u64()
}

/// Play `game` (between turns) to its end with random dice and the rollout policy. `None` when the
/// meter ran out.
pub(crate) fn simulate(game: &Game, rng: &mut Rng, meter: &mut Meter) -> Option<Game> {
    // One node per simulation, so that even simulations of finished games spend budget.
    if meter.tick() {
        return None;
    }
    let mut game = game.clone();
    let faces: Vec<u8> = game.options().dice.faces().collect();
    loop {
        match game.phase() {
            Phase::Over => return Some(game),
            Phase::AwaitingRoll(_) => {
                if meter.tick() {
                    return None;
                }
                let dice = [0, 0].map(|_| faces[rng.below(faces.len())]);
                if game.apply(Action::Roll { dice }).is_err() {
                    return Some(game);
                }
            }
            Phase::Moving(seat) => rollout_turn(&mut game, seat, rng, meter)?,
        }
    }
}

/// One turn of the rollout policy, a points-greedy player: the most points, then the most captures,
/// ties broken at random; with nothing to take, random moves. Only moves that can score are tried as
/// the second move (captures, boat moves for a triumph, king moves when thrones score).
pub(crate) fn rollout_turn(
    game: &mut Game,
    seat: Seat,
    rng: &mut Rng,
    meter: &mut Meter,
) -> Option<()> {
    let thrones = game.options().throne_points;
    let mut best_key = (0u16, 0u16);
    let mut best: [Option<Move>; 2] = [None, None];
    let mut ties = 0usize;
    let mut first = MoveList::new();
    let mut second = MoveList::new();
    game.legal_moves(&mut first);
    let firsts = first.as_slice();
    let mut consider = |key: (u16, u16), moves: [Option<Move>; 2], rng: &mut Rng| {
        if key > best_key {
            best_key = key;
            best = moves;
            ties = 1;
        } else if key == best_key && key > (0, 0) {
            ties += 1;
            if rng.below(ties) == 0 {
                best = moves;
            }
        }
    };
    for (i, &m1) in firsts.iter().enumerate() {
        if firsts[..i]
            .iter()
            .any(|m| m.from == m1.from && m.to == m1.to)
        {
            continue;
        }
        if meter.tick() {
            return None;
        }
        let mut after = game.clone();
        let Ok(applied) = after.apply(m1.into()) else {
            continue;
        };
        let key1 = gains(&applied, seat);
        consider(key1, [Some(m1), None], rng);
        if after.phase() != Phase::Moving(seat) {
            continue;
        }
        after.legal_moves(&mut second);
        let board = after.position().board();
        for &m2 in second.as_slice() {
            let scoring = board.piece_at(m2.to).is_some()
                || board
                    .piece_at(m2.from)
                    .is_some_and(|p| p.kind == Kind::Boat || (thrones && p.kind == Kind::King));
            if !scoring {
                continue;
            }
            if meter.tick() {
                return None;
            }
            let mut after2 = after.clone();
            let Ok(applied2) = after2.apply(m2.into()) else {
                continue;
            };
            let key2 = gains(&applied2, seat);
            consider(
                (key1.0 + key2.0, key1.1 + key2.1),
                [Some(m1), Some(m2)],
                rng,
            );
        }
    }
    for m in best.into_iter().flatten() {
        game.apply(m.into()).ok()?;
    }
    // The rest of the turn: random moves (a greedy player's quiet moves are random).
    while game.phase() == Phase::Moving(seat) {
        if meter.tick() {
            return None;
        }
        game.legal_moves(&mut second);
        let n = second.len();
        if n == 0 {
            game.apply(Action::EndTurn).ok()?;
            continue;
        }
        let m = second.as_slice()[rng.below(n)];
        game.apply(m.into()).ok()?;
    }
    Some(())
}

/// The index of the best of `ends` for `seat` (at least two ends). Successive halving: each round
/// gives the surviving candidates the same simulations (common random numbers) until the round's share
/// of the meter's remaining node budget is spent, then keeps the better half. Returns the choice and
/// the number of simulations the winner got.
pub(crate) fn choose(
    ends: &[TurnEnd],
    seat: Seat,
    profile: McProfile,
    seed: u64,
    meter: &mut Meter,
) -> (usize, u32) {
    let node_budget = meter.remaining();
    let me = seat.index();
    // Candidates: the best by the static evaluation.
    let statics: Vec<f32> = ends.iter().map(|e| evaluate(&e.game)[me]).collect();
    let mut alive: Vec<usize> = (0..ends.len()).collect();
    alive.sort_by(|&a, &b| statics[b].total_cmp(&statics[a]));
    alive.truncate(profile.max_candidates.max(1));
    let mut total = vec![0.0f32; ends.len()];
    let mut sims = vec![0u32; ends.len()];
    let rounds = (alive.len() as f32).log2().ceil().max(1.0) as u64;
    let start = meter.nodes;
    let mut k = 0u64;
    for round in 1..=rounds {
        let round_end = start + node_budget * round / rounds;
        // At least one simulation per candidate per round.
        loop {
            let mut sweep = Vec::with_capacity(alive.len());
            for &i in &alive {
                let mut rng = Rng::new(sim_seed(seed, k));
                match simulate(&ends[i].game, &mut rng, meter) {
                    Some(end) => sweep.push(score(&end, seat, profile.margin_weight)),
                    None => break,
                }
            }
            if sweep.len() < alive.len() {
                break;
            }
            for (&i, v) in alive.iter().zip(sweep) {
                total[i] += v;
                sims[i] += 1;
            }
            k += 1;
            if meter.nodes >= round_end || meter.out() {
                break;
            }
        }
        if meter.out() || alive.len() == 1 {
            break;
        }
        let mean = |i: usize| {
            if sims[i] == 0 {
                statics[i]
            } else {
                total[i] / sims[i] as f32
            }
        };
        alive.sort_by(|&a, &b| mean(b).total_cmp(&mean(a)));
        if round < rounds {
            alive.truncate(alive.len().div_ceil(2));
        }
    }
    // The best mean among those with the most simulations (the last round's survivors).
    let most = alive.iter().map(|&i| sims[i]).max().unwrap_or(0);
    let best = alive
        .iter()
        .copied()
        .filter(|&i| sims[i] == most)
        .max_by(|&a, &b| {
            let (ma, mb) = if most == 0 {
                (statics[a], statics[b])
            } else {
                (total[a], total[b])
            };
            ma.total_cmp(&mb)
        })
        .unwrap_or(0);
    (best, most)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoClock;
    use crate::budget::Budget;
    use crate::chaturaji::turns::turn_ends;
    use rules::chaturaji::Options;

    fn random_position(rng: &mut Rng, turns: usize) -> Game {
        let mut game = Game::new(Options::default(), Seat::Red).unwrap();
        for _ in 0..turns {
            let Phase::AwaitingRoll(_) = game.phase() else {
                break;
            };
            let dice = [0, 0].map(|_| 1 + rng.below(6) as u8);
            game.apply(Action::Roll { dice }).unwrap();
            let mut moves = MoveList::new();
            while let Phase::Moving(_) = game.phase() {
                game.legal_moves(&mut moves);
                let n = moves.len();
                let i = rng.below(n + 1);
                let action = if i < n {
                    moves.as_slice()[i].into()
                } else {
                    Action::EndTurn
                };
                game.apply(action).unwrap();
            }
        }
        game
    }

    /// C.11: the rollout policy scores exactly what the best end of the turn scores (it is the
    /// points-greedy player), and ends its turn.
    #[test]
    fn c11_the_rollout_turn_scores_as_much_as_the_best_turn() {
        let mut rng = Rng::new(9);
        let mut scoring = 0;
        let mut compared = 0;
        for _ in 0..300 {
            let turns = rng.below(30);
            let mut game = random_position(&mut rng, turns);
            let Phase::AwaitingRoll(seat) = game.phase() else {
                continue;
            };
            let dice = [0, 0].map(|_| 1 + rng.below(6) as u8);
            game.apply(Action::Roll { dice }).unwrap();
            if game.phase() != Phase::Moving(seat) {
                continue;
            }
            let mut meter = Meter::new(Budget::nodes(u64::MAX), &NoClock);
            let best = turn_ends(&game, seat, &mut meter)
                .iter()
                .map(|e| e.points)
                .max()
                .unwrap();
            let before = game.position().points()[seat.index()];
            rollout_turn(&mut game, seat, &mut rng, &mut meter).unwrap();
            assert_ne!(game.phase(), Phase::Moving(seat));
            assert_eq!(game.position().points()[seat.index()] - before, best);
            compared += 1;
            scoring += usize::from(best > 0);
        }
        assert!(compared > 200 && scoring > 30, "{compared} {scoring}");
    }

    /// C.22: a simulation always reaches the end of the game (kings left, no capture for 48 turns, or
    /// the round limit), and the same seed plays the same game.
    #[test]
    fn c22_simulations_play_to_the_end_and_repeat_with_their_seed() {
        let game = Game::new(Options::default(), Seat::Red).unwrap();
        for k in 0..5 {
            let mut meter = Meter::new(Budget::nodes(u64::MAX), &NoClock);
            let play = |meter: &mut Meter| {
                let mut rng = Rng::new(sim_seed(3, k));
                simulate(&game, &mut rng, meter).unwrap()
            };
            let a = play(&mut meter);
            let b = play(&mut meter);
            assert_eq!(a.phase(), Phase::Over);
            assert_eq!(a.outcome(), b.outcome());
            assert_eq!(a.position(), b.position());
            assert!(a.position().turn() <= 4 * 30);
        }
    }

    /// A simulation that runs out of budget says so instead of returning half a game.
    #[test]
    fn a_simulation_respects_the_meter() {
        let game = Game::new(Options::default(), Seat::Red).unwrap();
        let mut meter = Meter::new(Budget::nodes(50), &NoClock);
        let mut rng = Rng::new(1);
        assert!(simulate(&game, &mut rng, &mut meter).is_none());
        assert!(meter.out());
    }
}
