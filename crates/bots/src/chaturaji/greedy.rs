//! The opponents as points-greedy players, computed cheaply enough to sit inside a search.
//!
//! Most CPU seats a `hard` player meets play for the immediate points (the `greedy` baseline does so
//! exactly, `easy` and `medium` mostly), so the strongest forecast of an opponent's turn for a given
//! throw is the turn scoring the most points, then capturing the most pieces. Only moves that can
//! score need to be tried as the second move (captures, boat moves for a triumph, king moves when
//! thrones score), which makes one reply a few dozen positions instead of a full turn enumeration.

use super::turns::gains;
use crate::budget::Meter;
use rules::chaturaji::{Action, Game, Kind, MoveList, Phase};

/// The game after the seat to move plays the turn a points-greedy player would: the most points, then
/// the most captures (the first such turn found). With nothing to take it ends its turn at once: a
/// greedy player's quiet moves are random, and standing still is their average. When the turn may not
/// be ended (forced dice use) it plays its first legal moves. A game not awaiting a move comes back
/// unchanged. `None` when the meter ran out.
pub(crate) fn greedy_reply(game: &Game, meter: &mut Meter) -> Option<Game> {
    let Phase::Moving(seat) = game.phase() else {
        return Some(game.clone());
    };
    let thrones = game.options().throne_points;
    let mut best_key = (0u16, 0u16);
    let mut best: Vec<Action> = Vec::new();
    let mut first = MoveList::new();
    let mut second = MoveList::new();
    game.legal_moves(&mut first);
    let firsts = first.as_slice();
    for (i, &m1) in firsts.iter().enumerate() {
        // Two dice of one class list every move twice; the positions after them are the same.
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
        if key1 > best_key {
            best_key = key1;
            best = vec![m1.into()];
        }
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
            let key = (key1.0 + key2.0, key1.1 + key2.1);
            if key > best_key {
                best_key = key;
                best = vec![m1.into(), m2.into()];
            }
        }
    }
    let mut out = game.clone();
    for action in best {
        out.apply(action).ok()?;
    }
    finish_turn(&mut out, seat, meter)?;
    Some(out)
}

/// End `seat`'s turn: `EndTurn` when allowed, else (forced dice use) its first legal moves.
fn finish_turn(game: &mut Game, seat: rules::Seat, meter: &mut Meter) -> Option<()> {
    let mut moves = MoveList::new();
    while game.phase() == Phase::Moving(seat) {
        if meter.tick() {
            return None;
        }
        if game.can_end_turn() {
            game.apply(Action::EndTurn).ok()?;
        } else {
            game.legal_moves(&mut moves);
            let m = *moves.as_slice().first()?;
            game.apply(m.into()).ok()?;
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoClock;
    use crate::budget::{Budget, Meter};
    use crate::chaturaji::turns::turn_ends;
    use crate::rng::Rng;
    use rules::Seat;
    use rules::chaturaji::Options;

    /// The model scores exactly what the full enumeration's best turn scores, in random positions.
    #[test]
    fn greedy_reply_scores_as_much_as_the_best_turn() {
        let mut rng = Rng::new(5);
        let mut compared = 0;
        let mut scoring = 0;
        for _ in 0..300 {
            let mut game = Game::new(Options::default(), Seat::Red).unwrap();
            let turns = rng.below(30);
            for t in 0..=turns {
                if game.phase() == Phase::Over {
                    break;
                }
                let faces = [0, 0].map(|_| 1 + rng.below(6) as u8);
                game.apply(Action::Roll { dice: faces }).unwrap();
                let Phase::Moving(seat) = game.phase() else {
                    continue;
                };
                if t == turns {
                    let mut meter = Meter::new(Budget::nodes(u64::MAX), &NoClock);
                    let ends = turn_ends(&game, seat, &mut meter);
                    let best = ends.iter().map(|e| (e.points, e.captures)).max().unwrap();
                    let reply = greedy_reply(&game, &mut meter).unwrap();
                    assert_ne!(reply.phase(), Phase::Moving(seat));
                    let before = game.position().points()[seat.index()];
                    let after = reply.position().points()[seat.index()];
                    assert_eq!(after - before, best.0, "{}", game.notation());
                    compared += 1;
                    scoring += usize::from(best.0 > 0);
                    break;
                }
                // Random play to reach varied positions.
                let mut moves = MoveList::new();
                while game.phase() == Phase::Moving(seat) {
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
        }
        assert!(compared > 200 && scoring > 30, "{compared} {scoring}");
    }

    #[test]
    fn greedy_reply_respects_the_meter() {
        let mut game = Game::new(Options::default(), Seat::Red).unwrap();
        game.apply(Action::Roll { dice: [1, 3] }).unwrap();
        let mut meter = Meter::new(Budget::nodes(3), &NoClock);
        assert!(greedy_reply(&game, &mut meter).is_none());
    }
}
