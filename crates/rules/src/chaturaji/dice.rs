//! Dice (C.7–C.9): the two dice kinds, the face → class mapping, and the states a die goes through.

use super::piece::Kind;
use serde::{Deserialize, Serialize};

/// Which dice the table uses (option `dice`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiceKind {
    /// Faces 1–6: 1, 5 pawn-or-king · 2 boat · 3 horse · 4, 6 elephant.
    #[default]
    Cube,
    /// Faces 2–5: 2 boat · 3 horse · 4 elephant · 5 pawn-or-king.
    Long,
}

impl DiceKind {
    /// The class a face moves, or `None` if this kind of die has no such face.
    #[inline]
    pub const fn class_of(self, face: u8) -> Option<DieClass> {
        match (self, face) {
            (DiceKind::Cube, 1 | 5) | (DiceKind::Long, 5) => Some(DieClass::PawnOrKing),
            (_, 2) => Some(DieClass::Boat),
            (_, 3) => Some(DieClass::Horse),
            (DiceKind::Cube, 4 | 6) | (DiceKind::Long, 4) => Some(DieClass::Elephant),
            _ => None,
        }
    }

    /// The faces this kind of die shows.
    pub const fn faces(self) -> std::ops::RangeInclusive<u8> {
        match self {
            DiceKind::Cube => 1..=6,
            DiceKind::Long => 2..=5,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            DiceKind::Cube => "cube",
            DiceKind::Long => "long",
        }
    }
}

/// What a die lets the player move (C.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DieClass {
    PawnOrKing,
    Boat,
    Horse,
    Elephant,
}

impl DieClass {
    /// The class that moves a piece of this type.
    #[inline]
    pub const fn of_kind(kind: Kind) -> DieClass {
        match kind {
            Kind::Pawn | Kind::King => DieClass::PawnOrKing,
            Kind::Boat => DieClass::Boat,
            Kind::Horse => DieClass::Horse,
            Kind::Elephant => DieClass::Elephant,
        }
    }
}

/// The recorded state of one die of the current turn (9b). Whether an `Unused` die is usable is not
/// stored: it is judged from the board at the moment of choosing ([`DieView::unusable`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DieState {
    Unused,
    Used,
    /// The player ended the turn while this die was still usable (`optional` dice use).
    Declined,
    /// The game ended during the turn.
    Void,
}

impl DieState {
    pub(crate) const fn letter(self) -> char {
        match self {
            DieState::Unused => 'u',
            DieState::Used => 'x',
            DieState::Declined => 'd',
            DieState::Void => 'v',
        }
    }

    pub(crate) fn from_letter(c: char) -> Option<DieState> {
        Some(match c {
            'u' => DieState::Unused,
            'x' => DieState::Used,
            'd' => DieState::Declined,
            'v' => DieState::Void,
            _ => return None,
        })
    }
}

/// Why an unused die cannot move anything (C.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unusable {
    /// The seat has no piece of the die's class on the board.
    NoPieceOfClass,
    /// The pieces exist but none of them can move.
    NoLegalMove,
}

/// One die as stored in the position: its face and state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Die {
    pub face: u8,
    pub state: DieState,
}

/// One die as the client sees it: face, class, state, and for an unused die why it cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DieView {
    pub face: u8,
    pub class: DieClass,
    pub state: DieState,
    /// `Some` only for an `unused` die that cannot move anything now.
    pub unusable: Option<Unusable>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c7_face_to_class_mapping_for_both_kinds() {
        use DieClass::*;
        let cube: Vec<_> = (0..=7).map(|f| DiceKind::Cube.class_of(f)).collect();
        assert_eq!(
            cube,
            [
                None,
                Some(PawnOrKing),
                Some(Boat),
                Some(Horse),
                Some(Elephant),
                Some(PawnOrKing),
                Some(Elephant),
                None
            ]
        );
        let long: Vec<_> = (0..=7).map(|f| DiceKind::Long.class_of(f)).collect();
        assert_eq!(
            long,
            [
                None,
                None,
                Some(Boat),
                Some(Horse),
                Some(Elephant),
                Some(PawnOrKing),
                None,
                None
            ]
        );
    }
}
