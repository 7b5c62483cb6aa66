//! A move of one piece, packed in four bytes for the move generator, and its client text form
//! (`d2-d4`, `g10-g11=Q`; castling is written as the king's move, `h1-j1`).

use std::fmt;
use std::str::FromStr;

use super::geometry::{BadSquare, Square};
use super::piece::Kind;

pub(crate) const DOUBLE_PUSH: u8 = 1;
pub(crate) const EN_PASSANT: u8 = 2;
pub(crate) const CASTLE_SHORT: u8 = 4;
pub(crate) const CASTLE_LONG: u8 = 8;

/// One legal (or candidate) move.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    pub(crate) from: u8,
    pub(crate) to: u8,
    /// Kind code of the promoted piece, or 0.
    pub(crate) promo: u8,
    pub(crate) flags: u8,
}

impl Move {
    #[inline(always)]
    pub(crate) const fn new(from: u8, to: u8, promo: u8, flags: u8) -> Move {
        Move {
            from,
            to,
            promo,
            flags,
        }
    }

    pub fn from(self) -> Square {
        Square(self.from)
    }

    pub fn to(self) -> Square {
        Square(self.to)
    }

    pub fn promotion(self) -> Option<Kind> {
        (self.promo != 0).then(|| Kind::from_code(self.promo))
    }

    pub fn is_en_passant(self) -> bool {
        self.flags & EN_PASSANT != 0
    }

    /// `Some(false)` short castling, `Some(true)` long castling.
    pub fn castling_long(self) -> Option<bool> {
        match self.flags & (CASTLE_SHORT | CASTLE_LONG) {
            CASTLE_SHORT => Some(false),
            CASTLE_LONG => Some(true),
            _ => None,
        }
    }

    /// The client's view of this move.
    pub fn text(self) -> MoveText {
        MoveText {
            from: self.from(),
            to: self.to(),
            promotion: self.promotion(),
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.text(), f)
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A move as a client names it: from, to and the promotion piece. The game matches it against the
/// legal moves (castling is the king's two-square move; en passant is the pawn's diagonal move).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct MoveText {
    pub from: Square,
    pub to: Square,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promotion: Option<Kind>,
}

impl fmt::Display for MoveText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.from, self.to)?;
        if let Some(kind) = self.promotion {
            write!(f, "={}", kind.letter())?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadMoveText {
    #[error("`{0}` is not a move like `d2-d4` or `g10-g11=Q`")]
    Shape(String),
    #[error(transparent)]
    Square(#[from] BadSquare),
    #[error("`{0}` is not a promotion piece (Q, R, B, N or D)")]
    Promotion(String),
}

impl FromStr for MoveText {
    type Err = BadMoveText;

    /// Accepts `d2-d4`, `d4xc5` and a promotion suffix `=Q`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (body, promotion) = match s.split_once('=') {
            Some((body, p)) => {
                let kind = match p {
                    "Q" => Kind::Queen,
                    "R" => Kind::Rook,
                    "B" => Kind::Bishop,
                    "N" => Kind::Knight,
                    "D" => Kind::OnePointQueen,
                    _ => return Err(BadMoveText::Promotion(p.to_owned())),
                };
                (body, Some(kind))
            }
            None => (s, None),
        };
        let (from, to) = body
            .split_once(['-', 'x'])
            .ok_or_else(|| BadMoveText::Shape(s.to_owned()))?;
        Ok(MoveText {
            from: from.parse()?,
            to: to.parse()?,
            promotion,
        })
    }
}
