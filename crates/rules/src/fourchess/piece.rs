//! Pieces: a kind and an owner (a seat, or grey for an eliminated FFA player's pieces, F.18), packed in one
//! byte for the mailbox: `owner << 3 | kind`. 0 is an empty square, `OFF` a missing one.

use std::fmt;

use crate::Seat;

/// What a piece is. A one-point queen (FFA promotion, F.8) moves like a queen but is worth 1 point.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Pawn = 1,
    Knight = 2,
    Bishop = 3,
    Rook = 4,
    Queen = 5,
    King = 6,
    OnePointQueen = 7,
}

impl Kind {
    pub(crate) const fn from_code(code: u8) -> Kind {
        match code & 7 {
            1 => Kind::Pawn,
            2 => Kind::Knight,
            3 => Kind::Bishop,
            4 => Kind::Rook,
            5 => Kind::Queen,
            6 => Kind::King,
            _ => Kind::OnePointQueen,
        }
    }

    /// Letter in FEN4/PGN4 (`P N B R Q K D`).
    pub const fn letter(self) -> char {
        match self {
            Kind::Pawn => 'P',
            Kind::Knight => 'N',
            Kind::Bishop => 'B',
            Kind::Rook => 'R',
            Kind::Queen => 'Q',
            Kind::King => 'K',
            Kind::OnePointQueen => 'D',
        }
    }

    pub fn from_letter(c: char) -> Option<Kind> {
        Some(match c {
            'P' => Kind::Pawn,
            'N' => Kind::Knight,
            'B' => Kind::Bishop,
            'R' => Kind::Rook,
            'Q' => Kind::Queen,
            'K' => Kind::King,
            'D' => Kind::OnePointQueen,
            _ => return None,
        })
    }

    /// FFA capture value of a live piece (F.19); a king is 20.
    pub const fn points(self) -> u32 {
        match self {
            Kind::Pawn | Kind::OnePointQueen => 1,
            Kind::Knight => 3,
            Kind::Bishop | Kind::Rook => 5,
            Kind::Queen => 9,
            Kind::King => 20,
        }
    }

    /// Moves and attacks like a queen (queens and one-point queens).
    pub const fn is_queen_like(self) -> bool {
        matches!(self, Kind::Queen | Kind::OnePointQueen)
    }
}

/// Who a piece belongs to.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Owner {
    Seat(Seat),
    /// An eliminated FFA player's piece: never moves, never attacks, capturable by anyone for 0 (F.18).
    Grey,
}

/// Owner index used in the byte encoding and the per-owner bitsets.
pub(crate) const GREY: u8 = 4;

/// A piece on the board.
#[derive(Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Piece {
    pub owner: Owner,
    pub kind: Kind,
}

impl Piece {
    pub const fn new(owner: Owner, kind: Kind) -> Piece {
        Piece { owner, kind }
    }

    pub(crate) const fn code(self) -> u8 {
        let owner = match self.owner {
            Owner::Seat(seat) => seat as u8,
            Owner::Grey => GREY,
        };
        owner << 3 | self.kind as u8
    }

    pub(crate) const fn from_code(code: u8) -> Option<Piece> {
        if code == EMPTY || code == OFF {
            return None;
        }
        let owner = match code >> 3 {
            GREY => Owner::Grey,
            o => Owner::Seat(Seat::from_index(o as usize)),
        };
        Some(Piece {
            owner,
            kind: Kind::from_code(code),
        })
    }
}

impl fmt::Debug for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let owner = match self.owner {
            Owner::Seat(seat) => seat.letter(),
            Owner::Grey => 'd',
        };
        write!(f, "{owner}{}", self.kind.letter())
    }
}

pub(crate) const EMPTY: u8 = 0;
pub(crate) const OFF: u8 = 0xFF;

pub(crate) const PAWN: u8 = Kind::Pawn as u8;
pub(crate) const KNIGHT: u8 = Kind::Knight as u8;
pub(crate) const BISHOP: u8 = Kind::Bishop as u8;
pub(crate) const ROOK: u8 = Kind::Rook as u8;
pub(crate) const QUEEN: u8 = Kind::Queen as u8;
pub(crate) const KING: u8 = Kind::King as u8;
pub(crate) const ONE_POINT_QUEEN: u8 = Kind::OnePointQueen as u8;

/// Kind bits of a piece code.
#[inline(always)]
pub(crate) const fn kind_of(code: u8) -> u8 {
    code & 7
}

/// Owner index (0..4 seats, 4 grey) of a piece code; 31 for `OFF`.
#[inline(always)]
pub(crate) const fn owner_of(code: u8) -> u8 {
    code >> 3
}

/// Slides along ranks and files.
#[inline(always)]
pub(crate) const fn slides_orthogonally(kind: u8) -> bool {
    matches!(kind, ROOK | QUEEN | ONE_POINT_QUEEN)
}

/// Slides along diagonals.
#[inline(always)]
pub(crate) const fn slides_diagonally(kind: u8) -> bool {
    matches!(kind, BISHOP | QUEEN | ONE_POINT_QUEEN)
}
