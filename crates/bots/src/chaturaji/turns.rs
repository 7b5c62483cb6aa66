//! A whole turn as one decision: every distinct way the seat to move can finish its turn with the dice
//! already thrown (both dice in either order, one die, or none when dice use is optional), each with the
//! actions that reach it. The bot picks among these ends, so the two dice are always planned together.

use crate::budget::Meter;
use rules::Seat;
use rules::chaturaji::{Action, Applied, Event, Game, MoveList, Phase, Position};
use std::collections::HashSet;

/// One way to finish the turn.
#[derive(Debug, Clone)]
pub(crate) struct TurnEnd {
    /// The moves (and a final `EndTurn` when the turn would not end by itself).
    pub actions: Vec<Action>,
    /// The game after the turn: awaiting the next seat's throw, or over.
    pub game: Game,
    /// Points the seat scored during the turn.
    pub points: u16,
    /// Pieces the seat captured during the turn.
    pub captures: u16,
}

/// Every distinct end of `seat`'s running turn (distinct by the resulting position, the first action
/// sequence found kept). Empty if it is not `seat`'s turn to move, or if the meter ran out (the caller
/// then discards the result).
pub(crate) fn turn_ends(game: &Game, seat: Seat, meter: &mut Meter) -> Vec<TurnEnd> {
    let mut ends = Vec::new();
    if game.phase() != Phase::Moving(seat) {
        return ends;
    }
    let mut seen = HashSet::new();
    let mut path = Vec::with_capacity(3);
    explore(game, seat, &mut path, 0, 0, &mut seen, &mut ends, meter);
    ends
}

/// The ends a points-greedy player would pick from: the most points, then the most captures.
pub(crate) fn greediest(ends: Vec<TurnEnd>) -> Vec<TurnEnd> {
    let best = ends.iter().map(|e| (e.points, e.captures)).max();
    ends.into_iter()
        .filter(|e| Some((e.points, e.captures)) == best)
        .collect()
}

/// What one action brought `seat`: the points it scored and the pieces it captured (a points-greedy
/// player's two criteria).
pub(crate) fn gains(applied: &Applied, seat: Seat) -> (u16, u16) {
    let points = applied.points_scored()[seat.index()];
    let captures = applied
        .iter()
        .filter(|e| matches!(e, Event::Captured { by, .. } if *by == seat))
        .count() as u16;
    (points, captures)
}

#[allow(clippy::too_many_arguments)]
fn explore(
    game: &Game,
    seat: Seat,
    path: &mut Vec<Action>,
    points: u16,
    captures: u16,
    seen: &mut HashSet<Position>,
    ends: &mut Vec<TurnEnd>,
    meter: &mut Meter,
) {
    if game.phase() != Phase::Moving(seat) {
        // A finished game may appear twice (which die became void differs); harmless.
        if seen.insert(*game.position()) {
            ends.push(TurnEnd {
                actions: path.clone(),
                game: game.clone(),
                points,
                captures,
            });
        }
        return;
    }
    let mut moves = MoveList::new();
    game.legal_moves(&mut moves);
    let mut children: Vec<Action> = moves.as_slice().iter().map(|&m| m.into()).collect();
    if game.can_end_turn() {
        children.push(Action::EndTurn);
    }
    for action in children {
        if meter.tick() {
            return;
        }
        let mut child = game.clone();
        let Ok(applied) = child.apply(action) else {
            continue;
        };
        let (gained, took) = gains(&applied, seat);
        path.push(action);
        explore(
            &child,
            seat,
            path,
            points + gained,
            captures + took,
            seen,
            ends,
            meter,
        );
        path.pop();
    }
}
