//! The actions that drive a game, why one can be refused, and the allocation-free move buffer.

use super::square::Square;
use crate::Seat;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Everything a seat (or the room) can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// The room's throw of the two dice at the start of a turn (C.7, C.10).
    Roll { dice: [u8; 2] },
    /// Move the piece on `from` to `to` using die `die` (0 or 1).
    Move { die: u8, from: Square, to: Square },
    /// End the turn with a usable die left (`optional` dice use only).
    EndTurn,
    /// Any live seat, at any time (C.23).
    Resign { seat: Seat },
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Roll { dice } => write!(f, "roll {},{}", dice[0], dice[1]),
            Action::Move { die, from, to } => write!(f, "{from}-{to}/{die}"),
            Action::EndTurn => f.write_str("end"),
            Action::Resign { seat } => write!(f, "resign {seat}"),
        }
    }
}

/// Why an action was refused; the game is unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum IllegalAction {
    #[error("the game is over")]
    GameOver,
    #[error("the dice of this turn are already thrown")]
    AlreadyRolled,
    #[error("the dice of this turn are not thrown yet")]
    NotRolled,
    #[error("{face} is not a face of the {kind} dice")]
    BadDieFace { face: u8, kind: &'static str },
    #[error("there is no die {0} (dice are 0 and 1)")]
    NoSuchDie(u8),
    #[error("die {0} is already used")]
    DieAlreadyUsed(u8),
    #[error("no piece of the seat to move stands on {0}")]
    NotYourPiece(Square),
    #[error("the die does not move this piece's type")]
    WrongClass,
    #[error("the piece cannot move from {from} to {to}")]
    IllegalDestination { from: Square, to: Square },
    #[error("a remaining die can still be used (dice use is forced)")]
    MustUseDice,
    #[error("{0} has already resigned")]
    AlreadyResigned(Seat),
}

impl IllegalAction {
    /// Stable machine-readable code.
    pub const fn code(&self) -> &'static str {
        match self {
            IllegalAction::GameOver => "game_over",
            IllegalAction::AlreadyRolled => "already_rolled",
            IllegalAction::NotRolled => "not_rolled",
            IllegalAction::BadDieFace { .. } => "bad_die_face",
            IllegalAction::NoSuchDie(_) => "no_such_die",
            IllegalAction::DieAlreadyUsed(_) => "die_already_used",
            IllegalAction::NotYourPiece(_) => "not_your_piece",
            IllegalAction::WrongClass => "wrong_class",
            IllegalAction::IllegalDestination { .. } => "illegal_destination",
            IllegalAction::MustUseDice => "must_use_dice",
            IllegalAction::AlreadyResigned(_) => "already_resigned",
        }
    }
}

/// One move for one die, as generated into a [`MoveList`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    pub die: u8,
    pub from: Square,
    pub to: Square,
}

impl From<Move> for Action {
    fn from(m: Move) -> Action {
        Action::Move {
            die: m.die,
            from: m.from,
            to: m.to,
        }
    }
}

/// Fixed-capacity move buffer (no allocation in the hot path). 8 pieces × at most 14 targets per die,
/// two dice: 224 moves at most.
#[derive(Debug, Clone)]
pub struct MoveList {
    len: usize,
    moves: [Move; 256],
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList {
            len: 0,
            moves: [Move {
                die: 0,
                from: Square::at(0),
                to: Square::at(0),
            }; 256],
        }
    }
}

impl MoveList {
    pub fn new() -> MoveList {
        MoveList::default()
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }

    #[inline]
    pub(crate) fn push(&mut self, m: Move) {
        if self.len < self.moves.len() {
            self.moves[self.len] = m;
            self.len += 1;
        }
    }

    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}
