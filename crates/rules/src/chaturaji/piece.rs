//! The five piece types (section 2) and their capture values (C.11).

use crate::Seat;
use std::fmt;

/// A piece type. The discriminant indexes the board's per-type bitboards.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Pawn = 0,
    Boat = 1,
    Horse = 2,
    Elephant = 3,
    King = 4,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Pawn,
        Kind::Boat,
        Kind::Horse,
        Kind::Elephant,
        Kind::King,
    ];

    /// Capture value (C.11): P 1, S 2, H 3, E 4, K 5. Also the ranking's piece value (C.24).
    pub const fn value(self) -> u16 {
        match self {
            Kind::Pawn => 1,
            Kind::Boat => 2,
            Kind::Horse => 3,
            Kind::Elephant => 4,
            Kind::King => 5,
        }
    }

    /// Upper-case letter used in the notation: `P S H E K` (S for the boat, as on the site).
    pub const fn letter(self) -> char {
        match self {
            Kind::Pawn => 'P',
            Kind::Boat => 'S',
            Kind::Horse => 'H',
            Kind::Elephant => 'E',
            Kind::King => 'K',
        }
    }

    pub fn from_letter(c: char) -> Option<Kind> {
        Some(match c {
            'P' => Kind::Pawn,
            'S' => Kind::Boat,
            'H' => Kind::Horse,
            'E' => Kind::Elephant,
            'K' => Kind::King,
            _ => return None,
        })
    }

    pub(crate) const fn index(self) -> usize {
        self as usize
    }
}

/// A piece on the board: its seat and type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Piece {
    pub seat: Seat,
    pub kind: Kind,
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.seat.letter(), self.kind.letter())
    }
}
