//! The board as bitboards (8×8 fits a `u64` exactly): one mask per seat and one per piece type. Small and
//! `Copy`, so the engine copies positions instead of undoing moves.

use super::dice::DieClass;
use super::piece::{Kind, Piece};
use super::square::{Bits, Square};
use super::tables;
use crate::Seat;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Board {
    seats: [u64; 4],
    kinds: [u64; 5],
}

/// Setup (C.5): each seat's boat, horse, elephant, king and four pawns.
const SETUP: [[&str; 8]; 4] = [
    ["a1", "b1", "c1", "d1", "a2", "b2", "c2", "d2"],
    ["a8", "a7", "a6", "a5", "b8", "b7", "b6", "b5"],
    ["h8", "g8", "f8", "e8", "h7", "g7", "f7", "e7"],
    ["h1", "h2", "h3", "h4", "g1", "g2", "g3", "g4"],
];
const SETUP_KINDS: [Kind; 8] = [
    Kind::Boat,
    Kind::Horse,
    Kind::Elephant,
    Kind::King,
    Kind::Pawn,
    Kind::Pawn,
    Kind::Pawn,
    Kind::Pawn,
];

/// The pictures ↟ along every edge, from either corner (C.13).
const PICTURES: [Kind; 8] = [
    Kind::Boat,
    Kind::Horse,
    Kind::Elephant,
    Kind::King,
    Kind::King,
    Kind::Elephant,
    Kind::Horse,
    Kind::Boat,
];

const RANK_1: u64 = 0xFF;
const RANK_8: u64 = 0xFF << 56;
const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

/// Each seat's far edge (C.5): Red rank 8, Blue file h, Yellow rank 1, Green file a.
pub(crate) const FAR_EDGE: [u64; 4] = [RANK_8, FILE_H, RANK_1, FILE_A];

/// The starting square of each seat's king: its throne (C.20). Red d1, Blue a5, Yellow e8, Green h4.
pub const THRONES: [Square; 4] = [
    Square::at(3),
    Square::at(32),
    Square::at(60),
    Square::at(31),
];

/// The piece type pictured on `sq` of `seat`'s far edge (C.13). Only meaningful on that edge.
pub(crate) fn picture(seat: Seat, sq: Square) -> Kind {
    match seat {
        Seat::Red | Seat::Yellow => PICTURES[sq.file() as usize],
        Seat::Blue | Seat::Green => PICTURES[sq.rank() as usize],
    }
}

impl Board {
    /// An empty board.
    pub const fn empty() -> Board {
        Board {
            seats: [0; 4],
            kinds: [0; 5],
        }
    }

    /// The setup of C.5.
    pub fn setup() -> Board {
        let mut board = Board::empty();
        for seat in Seat::ALL {
            for (name, kind) in SETUP[seat.index()].iter().zip(SETUP_KINDS) {
                let sq = name.parse().expect("setup squares are valid");
                board.put(sq, Piece { seat, kind });
            }
        }
        board
    }

    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let bit = sq.bit();
        let seat = Seat::ALL
            .into_iter()
            .find(|s| self.seats[s.index()] & bit != 0)?;
        let kind = Kind::ALL
            .into_iter()
            .find(|k| self.kinds[k.index()] & bit != 0)?;
        Some(Piece { seat, kind })
    }

    #[inline]
    pub(crate) fn seat_at(&self, sq: Square) -> Option<Seat> {
        let bit = sq.bit();
        Seat::ALL
            .into_iter()
            .find(|s| self.seats[s.index()] & bit != 0)
    }

    #[inline]
    pub(crate) fn kind_at(&self, sq: Square) -> Option<Kind> {
        let bit = sq.bit();
        Kind::ALL
            .into_iter()
            .find(|k| self.kinds[k.index()] & bit != 0)
    }

    /// Put a piece on an empty square.
    #[inline]
    pub fn put(&mut self, sq: Square, piece: Piece) {
        self.seats[piece.seat.index()] |= sq.bit();
        self.kinds[piece.kind.index()] |= sq.bit();
    }

    /// Remove whatever stands on `sq`.
    #[inline]
    pub(crate) fn clear(&mut self, sq: Square) {
        let keep = !sq.bit();
        for mask in &mut self.seats {
            *mask &= keep;
        }
        for mask in &mut self.kinds {
            *mask &= keep;
        }
    }

    /// Change the type of the piece on `sq` (promotion), keeping its seat.
    #[inline]
    pub(crate) fn retype(&mut self, sq: Square, kind: Kind) {
        let bit = sq.bit();
        for mask in &mut self.kinds {
            *mask &= !bit;
        }
        self.kinds[kind.index()] |= bit;
    }

    #[inline]
    pub(crate) fn occupied(&self) -> u64 {
        self.seats[0] | self.seats[1] | self.seats[2] | self.seats[3]
    }

    #[inline]
    pub(crate) fn of_seat(&self, seat: Seat) -> u64 {
        self.seats[seat.index()]
    }

    #[inline]
    pub(crate) fn of_kind(&self, kind: Kind) -> u64 {
        self.kinds[kind.index()]
    }

    /// The squares of `seat`'s pieces of type `kind`.
    #[inline]
    pub fn pieces(&self, seat: Seat, kind: Kind) -> u64 {
        self.seats[seat.index()] & self.kinds[kind.index()]
    }

    /// The squares of `seat`'s pieces that a die of `class` moves (C.7).
    #[inline]
    pub(crate) fn of_class(&self, seat: Seat, class: DieClass) -> u64 {
        let kinds = match class {
            DieClass::PawnOrKing => self.kinds[Kind::Pawn.index()] | self.kinds[Kind::King.index()],
            DieClass::Boat => self.kinds[Kind::Boat.index()],
            DieClass::Horse => self.kinds[Kind::Horse.index()],
            DieClass::Elephant => self.kinds[Kind::Elephant.index()],
        };
        self.seats[seat.index()] & kinds
    }

    pub fn has_king(&self, seat: Seat) -> bool {
        self.pieces(seat, Kind::King) != 0
    }

    /// Number of kings on the board, all seats.
    pub fn king_count(&self) -> u32 {
        self.kinds[Kind::King.index()].count_ones()
    }

    /// Sum of the values of `seat`'s pieces on the board (C.24).
    pub fn material(&self, seat: Seat) -> u16 {
        Kind::ALL
            .into_iter()
            .map(|k| self.pieces(seat, k).count_ones() as u16 * k.value())
            .sum()
    }

    /// Destinations of the `kind` piece of `seat` on `from` (C.6: never onto one's own piece; a pawn
    /// steps forward onto an empty square and captures diagonally forward; nothing else is special).
    #[inline]
    pub(crate) fn targets(&self, seat: Seat, kind: Kind, from: Square) -> u64 {
        let own = self.seats[seat.index()];
        let sq = from.index() as usize;
        match kind {
            Kind::Pawn => {
                let occupied = self.occupied();
                (tables::PAWN_PUSH[seat.index()][sq] & !occupied)
                    | (tables::PAWN_CAPTURE[seat.index()][sq] & occupied & !own)
            }
            Kind::Boat => tables::BOAT[sq] & !own,
            Kind::Horse => tables::HORSE[sq] & !own,
            Kind::Elephant => tables::elephant(sq, self.occupied()) & !own,
            Kind::King => tables::KING[sq] & !own,
        }
    }

    /// The piece types a die of `class` moves.
    #[inline]
    fn kinds_of(class: DieClass) -> &'static [Kind] {
        match class {
            DieClass::PawnOrKing => &[Kind::Pawn, Kind::King],
            DieClass::Boat => &[Kind::Boat],
            DieClass::Horse => &[Kind::Horse],
            DieClass::Elephant => &[Kind::Elephant],
        }
    }

    /// Whether some piece of `seat` in `class` has a legal move (C.8).
    #[inline]
    pub(crate) fn class_can_move(&self, seat: Seat, class: DieClass) -> bool {
        Board::kinds_of(class).iter().any(|&kind| {
            Bits(self.pieces(seat, kind)).any(|from| self.targets(seat, kind, from) != 0)
        })
    }

    /// Call `f(from, to)` for every legal move of `seat`'s pieces in `class`.
    #[inline]
    pub(crate) fn for_each_move(
        &self,
        seat: Seat,
        class: DieClass,
        mut f: impl FnMut(Square, Square),
    ) {
        for &kind in Board::kinds_of(class) {
            for from in Bits(self.pieces(seat, kind)) {
                for to in Bits(self.targets(seat, kind, from)) {
                    f(from, to);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c5_setup_matches_the_table() {
        let board = Board::setup();
        let at = |s: &str| board.piece_at(s.parse().unwrap());
        assert_eq!(
            at("d1"),
            Some(Piece {
                seat: Seat::Red,
                kind: Kind::King
            })
        );
        assert_eq!(
            at("a6"),
            Some(Piece {
                seat: Seat::Blue,
                kind: Kind::Elephant
            })
        );
        assert_eq!(
            at("g8"),
            Some(Piece {
                seat: Seat::Yellow,
                kind: Kind::Horse
            })
        );
        assert_eq!(
            at("g4"),
            Some(Piece {
                seat: Seat::Green,
                kind: Kind::Pawn
            })
        );
        assert_eq!(board.occupied().count_ones(), 32);
        for seat in Seat::ALL {
            assert_eq!(board.material(seat), 4 + 2 + 3 + 4 + 5); // four pawns, S, H, E, K
            assert_eq!(board.pieces(seat, Kind::King), THRONES[seat.index()].bit());
        }
    }

    #[test]
    fn c13_pictures_run_boat_horse_elephant_king_from_each_corner() {
        let names: String = (0..8)
            .map(|f| picture(Seat::Red, Square::new(f, 7).unwrap()).letter())
            .collect();
        assert_eq!(names, "SHEKKEHS");
        let names: String = (0..8)
            .map(|r| picture(Seat::Blue, Square::new(7, r).unwrap()).letter())
            .collect();
        assert_eq!(names, "SHEKKEHS");
    }
}
