//! Monte Carlo rollouts: play a game to its end many times with seeded dice and a fast capture-first
//! policy for every seat, and score each finish by what the arena and the players care about — first
//! place, then the points margin.
//!
//! Chaturaji games are short and the dice decide a lot, so the question "how often does this turn end
//! with me in first place?" is better answered by sampling whole games than by a deeper tree: the tree
//! prefilters the candidate turns, the rollouts choose among the best few.

use super::eval::attacked_by_rivals;
use crate::budget::Meter;
use crate::rng::Rng;
use rules::Seat;
use rules::chaturaji::{Action, Game, MoveList, Phase};

/// Hard cap on actions per rollout (a game lasts at most 4 × 200 turns; rollouts rarely need 100).
const MAX_ACTIONS: usize = 2_000;

/// The playout policy for one move: the most valuable capture if there is one; otherwise a random
/// move or, now and then, stopping (as a capture-minded player would).
fn policy(game: &Game, rng: &mut Rng, moves: &mut MoveList) -> Option<Action> {
    game.legal_moves(moves);
    let board = game.position().board();
    let mut best: Option<(u16, Action)> = None;
    for &m in moves.as_slice() {
        if let Some(victim) = board.piece_at(m.to) {
            let value = victim.kind.value();
            if best.is_none_or(|(v, _)| value > v) {
                best = Some((value, m.into()));
            }
        }
    }
    if let Some((_, action)) = best {
        return Some(action);
    }
    // No capture: a king in danger steps to a square no rival attacks, if it can.
    if let Phase::Moving(me) = game.phase() {
        let kings = board.pieces(me, rules::chaturaji::Kind::King);
        if kings != 0 {
            let king = kings.trailing_zeros() as usize;
            if attacked_by_rivals(game, me, king, king) {
                let escapes: Vec<Action> = moves
                    .as_slice()
                    .iter()
                    .filter(|m| {
                        m.from.index() as usize == king
                            && !attacked_by_rivals(game, me, m.to.index() as usize, king)
                    })
                    .map(|&m| m.into())
                    .collect();
                if !escapes.is_empty() {
                    return Some(escapes[rng.below(escapes.len())]);
                }
            }
        }
    }
    let n = moves.len() + usize::from(game.can_end_turn());
    if n == 0 {
        return None;
    }
    let i = rng.below(n);
    Some(if i < moves.len() {
        moves.as_slice()[i].into()
    } else {
        Action::EndTurn
    })
}

/// Play `game` to its end; the score of `me`: 1 for first place alone (1/k when k seats share it),
/// plus a small term for the points margin over the best rival. `None` when the budget ran out.
pub(crate) fn rollout(game: &Game, me: Seat, rng: &mut Rng, meter: &mut Meter) -> Option<f64> {
    let mut game = game.clone();
    let faces: Vec<u8> = game.options().dice.faces().collect();
    let mut moves = MoveList::new();
    for _ in 0..MAX_ACTIONS {
        if meter.tick() {
            return None;
        }
        let action = match game.phase() {
            Phase::Over => break,
            Phase::AwaitingRoll(_) => Action::Roll {
                dice: [0, 0].map(|_| faces[rng.below(faces.len())]),
            },
            Phase::Moving(_) => match policy(&game, rng, &mut moves) {
                Some(a) => a,
                None => Action::EndTurn,
            },
        };
        if game.apply(action).is_err() {
            // Only `EndTurn` under forced dice use can be refused here; play any move instead.
            game.legal_moves(&mut moves);
            let m = *moves.as_slice().first()?;
            game.apply(m.into()).ok()?;
        }
    }
    let outcome = game.outcome()?;
    let firsts = outcome.standings.iter().filter(|s| s.place == 1).count() as f64;
    let mine = &outcome.standings[me.index()];
    let first = if mine.place == 1 { 1.0 / firsts } else { 0.0 };
    let rival = outcome
        .standings
        .iter()
        .filter(|s| s.seat != me)
        .map(|s| s.points)
        .max()
        .unwrap_or(0);
    let margin = f64::from(mine.points) - f64::from(rival);
    Some(first + 0.02 * margin.clamp(-30.0, 30.0))
}

/// Successive halving over `candidates` (games after each candidate turn): every round gives each
/// survivor the same number of rollouts, then keeps the better half, until one is left or the budget
/// ends. The rounds are sized so that the node budget left is spread evenly over them. Returns the
/// index of the best candidate by mean score, and the rollouts played.
pub(crate) fn choose_by_rollouts(
    candidates: &[&Game],
    me: Seat,
    rng: &mut Rng,
    meter: &mut Meter,
) -> (usize, u64) {
    let mut alive: Vec<usize> = (0..candidates.len()).collect();
    let mut sum = vec![0.0f64; candidates.len()];
    let mut count = vec![0u32; candidates.len()];
    let mut played = 0;
    // Common random numbers: rollout number j of every candidate throws the same dice stream, so the
    // candidates are compared on the same luck and the differences show with far fewer rollouts.
    let base = rng.next_u64();
    let stream = |j: u32| Rng::new(base ^ u64::from(j).wrapping_mul(0xD1B5_4A32_D192_ED03));
    // One rollout each to learn what a rollout costs here.
    let before = meter.nodes;
    for &i in &alive {
        if let Some(score) = rollout(candidates[i], me, &mut stream(0), meter) {
            sum[i] += score;
            count[i] += 1;
            played += 1;
        }
    }
    let cost = (meter.nodes - before) / candidates.len().max(1) as u64;
    let rounds = (usize::BITS - candidates.len().leading_zeros()) as u64;
    let mut per_round = (meter.remaining()
        / (cost.max(1) * rounds.max(1) * candidates.len().max(1) as u64))
        .clamp(1, 100_000) as usize;
    'rounds: while alive.len() > 1 {
        for _ in 0..per_round {
            for &i in &alive {
                match rollout(candidates[i], me, &mut stream(count[i]), meter) {
                    Some(score) => {
                        sum[i] += score;
                        count[i] += 1;
                        played += 1;
                    }
                    None => break 'rounds,
                }
            }
        }
        let mean = |i: usize| sum[i] / f64::from(count[i].max(1));
        alive.sort_by(|&a, &b| mean(b).total_cmp(&mean(a)));
        alive.truncate(alive.len().div_ceil(2));
        per_round *= 2;
        if meter.out() {
            break;
        }
    }
    let mean = |i: usize| {
        if count[i] == 0 {
            f64::NEG_INFINITY
        } else {
            sum[i] / f64::from(count[i])
        }
    };
    // Compare by mean among the candidates that reached the furthest round (those left alive), falling
    // back to all when the budget ended in the first round.
    let pool: Vec<usize> = if count.iter().all(|&c| c == 0) {
        vec![0]
    } else if alive.len() == 1 || alive.iter().all(|&i| count[i] > 0) {
        alive
    } else {
        (0..candidates.len()).collect()
    };
    let best = pool
        .into_iter()
        .max_by(|&a, &b| mean(a).total_cmp(&mean(b)))
        .unwrap_or(0);
    (best, played)
}
