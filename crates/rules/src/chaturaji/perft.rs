//! Perft over whole turns: each turn's children are the **distinct** end-of-turn states reachable with
//! the given dice; `nodes` counts the leaves after the last turn.
//!
//! Choices (documented for the CLI):
//! - With `optional` dice use, stopping after zero or one move is a child like any other.
//! - Identical states count once per parent. A state is the whole [`Position`]; for a state where the
//!   game ended during the turn the record of the turn's dice is ignored (which die was used and which
//!   became void does not make a different state).
//! - A state where the game ended has no children: it counts as a leaf only if reached at the last turn.
//! - Resigned seats' turns pass inside the turn before them (C.23), so they use no `--dice`: each pair
//!   of faces is the turn of the next seat that still decides.

use super::action::{Action, MoveList};
use super::game::{Game, Phase};
use super::position::Position;
use std::collections::HashSet;

/// Why perft could not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PerftError {
    #[error(
        "the position must be at the start of a turn (dice not yet thrown) and the game not over"
    )]
    NotAtTurnStart,
    #[error("turn {turn}: {face} is not a face of the {kind} dice")]
    BadFace {
        turn: usize,
        face: u8,
        kind: &'static str,
    },
}

/// Count the leaves after playing `turns` (one pair of faces per turn) from `game`.
pub fn perft(game: &Game, turns: &[[u8; 2]]) -> Result<u64, PerftError> {
    if game.phase() == Phase::Over || matches!(game.phase(), Phase::Moving(_)) {
        return Err(PerftError::NotAtTurnStart);
    }
    let kind = game.options().dice;
    for (turn, pair) in turns.iter().enumerate() {
        for &face in pair {
            if kind.class_of(face).is_none() {
                return Err(PerftError::BadFace {
                    turn: turn + 1,
                    face,
                    kind: kind.name(),
                });
            }
        }
    }
    Ok(count(game, turns))
}

fn count(game: &Game, turns: &[[u8; 2]]) -> u64 {
    let Some((&dice, rest)) = turns.split_first() else {
        return 1;
    };
    if game.phase() == Phase::Over {
        return 0;
    }
    let children = turn_children(game, dice);
    if rest.is_empty() {
        children.len() as u64
    } else {
        children.iter().map(|child| count(child, rest)).sum()
    }
}

/// The distinct states at the end of the current seat's turn when it throws `dice` (the game must be
/// awaiting the throw).
pub fn turn_children(game: &Game, dice: [u8; 2]) -> Vec<Game> {
    let mut seen = HashSet::new();
    let mut children = Vec::new();
    let mut rolled = game.clone();
    if rolled.apply(Action::Roll { dice }).is_err() {
        return children;
    }
    explore(&rolled, &mut seen, &mut children);
    children
}

fn key(game: &Game) -> Position {
    let mut pos = *game.position();
    if pos.end.is_some() {
        pos.dice = None;
    }
    pos
}

fn explore(game: &Game, seen: &mut HashSet<Position>, children: &mut Vec<Game>) {
    if !matches!(game.phase(), Phase::Moving(_)) {
        if seen.insert(key(game)) {
            children.push(game.clone());
        }
        return;
    }
    let mut moves = MoveList::new();
    game.legal_moves(&mut moves);
    for &m in moves.as_slice() {
        let mut child = game.clone();
        if child.apply(m.into()).is_ok() {
            explore(&child, seen, children);
        }
    }
    if game.can_end_turn() {
        let mut child = game.clone();
        if child.apply(Action::EndTurn).is_ok() {
            explore(&child, seen, children);
        }
    }
}
