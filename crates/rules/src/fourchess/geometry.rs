//! The cross-shaped board (F.1) as a padded 16×16 mailbox, and the per-seat geometry (F.2, F.5, F.7, F.8).
//!
//! Square index = `(rank + 1) * 16 + file` with files `a..n` = 0..13 and ranks `1..14` = 0..13. Columns
//! 14–15, rows 0 and 15, and the four 3×3 corners hold an off-board sentinel. Indices are `u8` and step with
//! wrapping arithmetic, so a knight jumping two rows or columns off any edge always lands on a sentinel
//! (row −1 wraps to row 15, column −1 is the previous row's column 15): no bounds checks, no special cases.

use std::fmt;
use std::str::FromStr;

use crate::Seat;

/// Rows and columns of the mailbox.
pub(crate) const WIDTH: i16 = 16;

/// One of the 160 squares of the board.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(pub(crate) u8);

impl Square {
    /// The square at `file` (0 = a) and `rank` (0 = rank 1), if it is on the board.
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if on_board(file, rank) {
            Some(Square((rank + 1) * 16 + file))
        } else {
            None
        }
    }

    /// File index, 0 = `a` … 13 = `n`.
    pub const fn file(self) -> u8 {
        self.0 % 16
    }

    /// Rank index, 0 = rank 1 … 13 = rank 14.
    pub const fn rank(self) -> u8 {
        self.0 / 16 - 1
    }

    /// Mailbox index (0..256).
    pub(crate) const fn index(self) -> usize {
        self.0 as usize
    }

    /// Every board square, rank 1 first, files a→n.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..14u8).flat_map(|rank| (0..14u8).filter_map(move |file| Square::new(file, rank)))
    }
}

/// Whether (file, rank) is one of the 160 squares: inside 14×14 and not in a 3×3 corner.
pub const fn on_board(file: u8, rank: u8) -> bool {
    if file >= 14 || rank >= 14 {
        return false;
    }
    let edge_file = file < 3 || file > 10;
    let edge_rank = rank < 3 || rank > 10;
    !(edge_file && edge_rank)
}

/// Whether a mailbox index is one of the 160 squares.
pub(crate) const fn is_board_square(sq: u8) -> bool {
    let row = sq / 16;
    row >= 1 && on_board(sq % 16, row - 1)
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank() + 1)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a square of the four-player board (files a-n, ranks 1-14, no corners)")]
pub struct BadSquare(pub String);

impl FromStr for Square {
    type Err = BadSquare;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BadSquare(s.to_owned());
        let mut chars = s.chars();
        let file = chars.next().ok_or_else(bad)?;
        if !file.is_ascii_lowercase() {
            return Err(bad());
        }
        let digits = chars.as_str();
        if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let rank: u8 = digits.parse().map_err(|_| bad())?;
        if rank == 0 || digits.starts_with('0') {
            return Err(bad());
        }
        Square::new(file as u8 - b'a', rank - 1).ok_or_else(bad)
    }
}

impl serde::Serialize for Square {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Square {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Mailbox step: `sq + d` with wrapping (see the module comment).
#[inline(always)]
pub(crate) const fn step(sq: u8, d: i16) -> u8 {
    sq.wrapping_add(d as u8)
}

pub(crate) const N: i16 = WIDTH;
pub(crate) const S: i16 = -WIDTH;
pub(crate) const E: i16 = 1;
pub(crate) const W: i16 = -1;

/// Rook directions.
pub(crate) const ORTHO: [i16; 4] = [N, E, S, W];
/// Bishop directions.
pub(crate) const DIAG: [i16; 4] = [N + E, N + W, S + E, S + W];
/// Queen/king directions: the four orthogonal ones first, then the diagonals.
pub(crate) const ALL_DIRS: [i16; 8] = [N, E, S, W, N + E, N + W, S + E, S + W];
pub(crate) const KNIGHT: [i16; 8] = [
    2 * N + E,
    2 * N + W,
    2 * S + E,
    2 * S + W,
    2 * E + N,
    2 * E + S,
    2 * W + N,
    2 * W + S,
];

/// Pawn step toward the opposite side (F.5): Red +rank, Blue +file, Yellow −rank, Green −file.
pub(crate) const fn pawn_forward(seat: Seat) -> i16 {
    match seat {
        Seat::Red => N,
        Seat::Blue => E,
        Seat::Yellow => S,
        Seat::Green => W,
    }
}

/// The two diagonal capture steps of a seat's pawns.
pub(crate) const fn pawn_captures(seat: Seat) -> [i16; 2] {
    match seat {
        Seat::Red => [N + E, N + W],
        Seat::Blue => [E + N, E + S],
        Seat::Yellow => [S + E, S + W],
        Seat::Green => [W + N, W + S],
    }
}

/// How far a square is from the seat's back edge, counted along its pawns' direction (0 = own back
/// rank, 1 = pawn home row, 13 = the far edge). Meaningless (but harmless) for off-board squares, which
/// move generation may ask about before it looks at the square.
pub(crate) const fn progress(seat: Seat, sq: u8) -> u8 {
    let file = sq % 16;
    let rank = (sq / 16).wrapping_sub(1);
    match seat {
        Seat::Red => rank,
        Seat::Blue => file,
        Seat::Yellow => 13u8.wrapping_sub(rank),
        Seat::Green => 13u8.wrapping_sub(file),
    }
}

/// Pawn home row progress (F.5): rank 2 / file b / rank 13 / file m.
pub(crate) const HOME_PROGRESS: u8 = 1;
/// Teams promotion on the pawn's 11th rank (F.8).
pub(crate) const TEAMS_PROMOTION_PROGRESS: u8 = 10;
/// FFA promotion on the 8th rank, the middle (F.8).
pub(crate) const FFA_PROMOTION_PROGRESS: u8 = 7;

/// Squares of one castling move (F.7).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Castle {
    pub king_from: u8,
    pub king_to: u8,
    pub rook_from: u8,
    /// The square the king crosses; the rook lands here.
    pub rook_to: u8,
    /// Squares between king and rook that must be empty.
    pub empty: [u8; 3],
    pub empty_len: u8,
}

const fn sq(file: u8, rank: u8) -> u8 {
    (rank + 1) * 16 + file
}

const fn castle(k: (u8, u8), kt: (u8, u8), r: (u8, u8), rt: (u8, u8), e: &[(u8, u8)]) -> Castle {
    let mut empty = [0u8; 3];
    let mut i = 0;
    while i < e.len() {
        empty[i] = sq(e[i].0, e[i].1);
        i += 1;
    }
    Castle {
        king_from: sq(k.0, k.1),
        king_to: sq(kt.0, kt.1),
        rook_from: sq(r.0, r.1),
        rook_to: sq(rt.0, rt.1),
        empty,
        empty_len: e.len() as u8,
    }
}

/// Castling moves per seat: `[short, long]` (F.7 table).
pub(crate) const CASTLES: [[Castle; 2]; 4] = [
    // Red: K h1; short K→j1 R k1→i1; long K→f1 R d1→g1.
    [
        castle((7, 0), (9, 0), (10, 0), (8, 0), &[(8, 0), (9, 0)]),
        castle((7, 0), (5, 0), (3, 0), (6, 0), &[(4, 0), (5, 0), (6, 0)]),
    ],
    // Blue: K a7; short K→a5 R a4→a6; long K→a9 R a11→a8.
    [
        castle((0, 6), (0, 4), (0, 3), (0, 5), &[(0, 4), (0, 5)]),
        castle((0, 6), (0, 8), (0, 10), (0, 7), &[(0, 7), (0, 8), (0, 9)]),
    ],
    // Yellow: K g14; short K→e14 R d14→f14; long K→i14 R k14→h14.
    [
        castle((6, 13), (4, 13), (3, 13), (5, 13), &[(4, 13), (5, 13)]),
        castle(
            (6, 13),
            (8, 13),
            (10, 13),
            (7, 13),
            &[(7, 13), (8, 13), (9, 13)],
        ),
    ],
    // Green: K n8; short K→n10 R n11→n9; long K→n6 R n4→n7.
    [
        castle((13, 7), (13, 9), (13, 10), (13, 8), &[(13, 8), (13, 9)]),
        castle(
            (13, 7),
            (13, 5),
            (13, 3),
            (13, 6),
            &[(13, 4), (13, 5), (13, 6)],
        ),
    ],
];

/// Castling-right bit of `seat` and `side` (0 short, 1 long).
pub(crate) const fn castle_bit(seat: Seat, side: usize) -> u8 {
    1 << (seat as usize * 2 + side)
}

/// Per square: the castling rights that survive a move from or to it (F.7: a king move loses both,
/// a rook move or the rook's capture on its home square loses that side).
pub(crate) static CASTLE_KEEP: [u8; 256] = {
    let mut keep = [0xFFu8; 256];
    let mut seat = 0;
    while seat < 4 {
        let mut side = 0;
        while side < 2 {
            let c = CASTLES[seat][side];
            let bit = 1u8 << (seat * 2 + side);
            keep[c.king_from as usize] &= !bit;
            keep[c.rook_from as usize] &= !bit;
            side += 1;
        }
        seat += 1;
    }
    keep
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f1_board_has_160_squares_and_corners_are_missing() {
        assert_eq!(Square::all().count(), 160);
        for (file, rank) in [
            (0, 0),
            (2, 2),
            (11, 0),
            (13, 2),
            (0, 11),
            (2, 13),
            (11, 11),
            (13, 13),
        ] {
            assert!(Square::new(file, rank).is_none(), "{file},{rank}");
        }
        assert!(Square::new(3, 0).is_some());
        assert!(Square::new(0, 3).is_some());
    }

    #[test]
    fn square_text_round_trips() {
        for s in Square::all() {
            assert_eq!(s.to_string().parse::<Square>(), Ok(s));
        }
        for bad in ["a1", "o5", "d0", "d15", "", "d", "d02", "D2", "n14"] {
            assert!(bad.parse::<Square>().is_err(), "{bad}");
        }
    }
}
