//! The position: placement, side to move, castling rights, en-passant entries and eliminated players, with
//! an incrementally updated Zobrist key (F.23). Moves are applied by copy-make: a `Position` is a plain
//! value (about 450 bytes), so a search copies it instead of undoing moves, and there is no undo to get
//! wrong.

use crate::Seat;

use super::bits::Bits;
use super::geometry::{CASTLE_KEEP, CASTLES, Square, pawn_forward, step};
use super::moves::{CASTLE_LONG, CASTLE_SHORT, DOUBLE_PUSH, EN_PASSANT, Move};
use super::options::Mode;
use super::piece::{EMPTY, GREY, KING, Kind, OFF, Owner, PAWN, Piece, kind_of, owner_of};
use super::zobrist::KEYS;

/// An en-passant entry (F.6): the passed square `m` and the pawn's square `t`; `m == 0` means none
/// (index 0 is a sentinel, never a board square).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) struct EpEntry {
    pub m: u8,
    pub t: u8,
}

impl EpEntry {
    pub const NONE: EpEntry = EpEntry { m: 0, t: 0 };

    pub fn is_some(self) -> bool {
        self.m != 0
    }
}

/// What a move removed from the board: up to two pieces (an en-passant double capture, F.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Removed {
    /// `(square, piece code)`; code 0 = nothing.
    pub pieces: [(u8, u8); 2],
}

#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    pub(crate) board: [u8; 256],
    /// Pieces per owner: the four seats, then grey.
    pub(crate) occ: [Bits; 5],
    /// King square per seat; 0 when the seat has no live king (captured, or eliminated and grey).
    pub(crate) kings: [u8; 4],
    pub(crate) castling: u8,
    pub(crate) ep: [EpEntry; 4],
    pub(crate) to_move: Seat,
    /// Bit per eliminated seat (FFA).
    pub(crate) out: u8,
    pub(crate) mode: Mode,
    pub(crate) hash: u64,
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", super::fen4::to_fen4(self, [0; 4], 0))
    }
}

impl Position {
    /// An empty board with Red to move and no rights.
    pub(crate) fn empty(mode: Mode) -> Position {
        let mut board = [OFF; 256];
        for sq in Square::all() {
            board[sq.index()] = EMPTY;
        }
        Position {
            board,
            occ: [Bits::EMPTY; 5],
            kings: [0; 4],
            castling: 0,
            ep: [EpEntry::NONE; 4],
            to_move: Seat::Red,
            out: 0,
            mode,
            hash: KEYS.to_move[0],
        }
    }

    /// The standard setup (F.3), `first` to move, all castling rights.
    pub fn start(mode: Mode, first: Seat) -> Position {
        use Kind::*;
        let mut pos = Position::empty(mode);
        let back = [Rook, Knight, Bishop, Queen, King, Bishop, Knight, Rook];
        // Red's back rank reads d1..k1 as R N B Q K B N R; the others are its rotations (each king faces
        // the opposite queen): Blue a4..a11 = R N B K Q B N R, Yellow d14..k14 = R N B K Q B N R,
        // Green n4..n11 = R N B Q K B N R.
        let blue_yellow = [Rook, Knight, Bishop, King, Queen, Bishop, Knight, Rook];
        for i in 0..8u8 {
            let line = 3 + i;
            pos.put_piece(
                Square::new(line, 0).unwrap(),
                Piece::new(Owner::Seat(Seat::Red), back[i as usize]),
            );
            pos.put_piece(
                Square::new(line, 1).unwrap(),
                Piece::new(Owner::Seat(Seat::Red), Pawn),
            );
            pos.put_piece(
                Square::new(0, line).unwrap(),
                Piece::new(Owner::Seat(Seat::Blue), blue_yellow[i as usize]),
            );
            pos.put_piece(
                Square::new(1, line).unwrap(),
                Piece::new(Owner::Seat(Seat::Blue), Pawn),
            );
            pos.put_piece(
                Square::new(line, 13).unwrap(),
                Piece::new(Owner::Seat(Seat::Yellow), blue_yellow[i as usize]),
            );
            pos.put_piece(
                Square::new(line, 12).unwrap(),
                Piece::new(Owner::Seat(Seat::Yellow), Pawn),
            );
            pos.put_piece(
                Square::new(13, line).unwrap(),
                Piece::new(Owner::Seat(Seat::Green), back[i as usize]),
            );
            pos.put_piece(
                Square::new(12, line).unwrap(),
                Piece::new(Owner::Seat(Seat::Green), Pawn),
            );
        }
        pos.set_castling(0xFF);
        pos.set_to_move(first);
        pos
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn to_move(&self) -> Seat {
        self.to_move
    }

    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Piece::from_code(self.board[sq.index()])
    }

    pub fn is_eliminated(&self, seat: Seat) -> bool {
        self.out & (1 << seat as u8) != 0
    }

    /// The pieces on the board with their squares: each seat's, then grey ones, each in square order.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.occ.iter().flat_map(|occ| occ.iter()).map(|sq| {
            let piece = Piece::from_code(self.board[sq as usize]);
            (Square(sq), piece.expect("an occupied square holds a piece"))
        })
    }

    /// The square of `seat`'s king, if it has a live one.
    pub fn king(&self, seat: Seat) -> Option<Square> {
        let k = self.kings[seat.index()];
        (k != 0).then_some(Square(k))
    }

    /// Castling right of `seat`, `long` = queen-side.
    pub fn can_castle(&self, seat: Seat, long: bool) -> bool {
        self.castling & super::geometry::castle_bit(seat, long as usize) != 0
    }

    /// `seat`'s en-passant entry `(M, T)`, if any (F.6).
    pub fn en_passant(&self, seat: Seat) -> Option<(Square, Square)> {
        let e = self.ep[seat.index()];
        e.is_some().then_some((Square(e.m), Square(e.t)))
    }

    /// The repetition key (F.23).
    pub fn key(&self) -> u64 {
        self.hash
    }

    /// Seats still playing, as a bitmask.
    pub(crate) fn live_mask(&self) -> u8 {
        !self.out & 0xF
    }

    pub(crate) fn live_count(&self) -> u32 {
        self.live_mask().count_ones()
    }

    /// Owners (bit per owner index, grey = bit 4) whose pieces attack `seat`'s king (F.9): the live
    /// opponents; in Teams the partner never attacks.
    #[inline(always)]
    pub(crate) fn attackers_of(&self, seat: Seat) -> u32 {
        let me = seat as u8;
        let opponents = match self.mode {
            Mode::Teams => (1 << ((me + 1) & 3)) | (1 << ((me + 3) & 3)),
            Mode::Ffa => 0xF & !(1 << me),
        };
        (opponents & self.live_mask()) as u32
    }

    /// The squares of the pieces of `owners` (a bitmask of owner indices).
    #[inline(always)]
    pub(crate) fn pieces_of(&self, owners: u32) -> Bits {
        let mut pieces = Bits::EMPTY;
        for (owner, occ) in self.occ.iter().enumerate() {
            if (owners >> owner) & 1 != 0 {
                pieces = pieces.union(occ);
            }
        }
        pieces
    }

    /// Owners `seat` may capture: its attackers and grey pieces (F.4, F.18).
    #[inline(always)]
    pub(crate) fn capturable_by(&self, seat: Seat) -> u32 {
        self.attackers_of(seat) | 1 << GREY
    }

    pub(crate) fn put(&mut self, sq: u8, code: u8) {
        debug_assert_eq!(self.board[sq as usize], EMPTY);
        self.board[sq as usize] = code;
        let owner = owner_of(code);
        self.occ[owner as usize].set(sq);
        self.hash ^= KEYS.piece[code as usize][sq as usize];
        if kind_of(code) == KING && owner != GREY {
            self.kings[owner as usize] = sq;
        }
    }

    /// Removes and returns the piece code on `sq`.
    pub(crate) fn remove(&mut self, sq: u8) -> u8 {
        let code = self.board[sq as usize];
        debug_assert!(code != EMPTY && code != OFF);
        self.board[sq as usize] = EMPTY;
        let owner = owner_of(code);
        self.occ[owner as usize].clear(sq);
        self.hash ^= KEYS.piece[code as usize][sq as usize];
        if kind_of(code) == KING && owner != GREY && self.kings[owner as usize] == sq {
            self.kings[owner as usize] = 0;
        }
        code
    }

    pub(crate) fn put_piece(&mut self, sq: Square, piece: Piece) {
        self.put(sq.0, piece.code());
    }

    pub(crate) fn set_to_move(&mut self, seat: Seat) {
        self.hash ^= KEYS.to_move[self.to_move.index()] ^ KEYS.to_move[seat.index()];
        self.to_move = seat;
    }

    pub(crate) fn set_castling(&mut self, rights: u8) {
        self.hash ^= KEYS.castling[self.castling as usize] ^ KEYS.castling[rights as usize];
        self.castling = rights;
    }

    pub(crate) fn set_ep(&mut self, seat: usize, entry: EpEntry) {
        let old = self.ep[seat];
        if old.is_some() {
            self.hash ^= KEYS.en_passant[seat][old.m as usize];
        }
        if entry.is_some() {
            self.hash ^= KEYS.en_passant[seat][entry.m as usize];
        }
        self.ep[seat] = entry;
    }

    /// The next seat after `seat` that is still playing (itself if it is the only one).
    pub(crate) fn next_live_after(&self, seat: Seat) -> Seat {
        let mut s = seat.next();
        while self.out & (1 << s as u8) != 0 && s != seat {
            s = s.next();
        }
        s
    }

    /// The side to move gives up its turn (a search's null move, not a move of the rules): its own
    /// en-passant entry expires as if it had moved (F.6) and the next live seat is to move.
    pub(crate) fn pass(&mut self) {
        let me = self.to_move;
        self.expire_entry_of(me);
        let next = self.next_live_after(me);
        self.set_to_move(next);
    }

    /// F.6: a player's entry lasts until its own next move (or pass).
    #[inline(always)]
    fn expire_entry_of(&mut self, seat: Seat) {
        if self.ep[seat.index()].is_some() {
            self.set_ep(seat.index(), EpEntry::NONE);
        }
    }

    /// Applies a move of the side to move and passes the turn to the next live seat. Scoring and game
    /// ends are the caller's business; this only moves pieces and updates rights and entries.
    #[inline]
    pub(crate) fn make(&mut self, m: Move) -> Removed {
        let me = self.to_move;
        let mut removed = Removed::default();
        self.expire_entry_of(me);
        if self.board[m.to as usize] != EMPTY {
            removed.pieces[0] = (m.to, self.remove(m.to));
            // 7b: the entry dies when its pawn is no longer there.
            for seat in 0..4 {
                if self.ep[seat].t == m.to && self.ep[seat].is_some() {
                    self.set_ep(seat, EpEntry::NONE);
                }
            }
        }
        if m.flags & EN_PASSANT != 0 {
            for seat in 0..4 {
                let e = self.ep[seat];
                if e.is_some() && e.m == m.to {
                    removed.pieces[1] = (e.t, self.remove(e.t));
                    self.set_ep(seat, EpEntry::NONE);
                    break;
                }
            }
        }
        let piece = self.remove(m.from);
        let placed = if m.promo != 0 {
            (piece & !7) | m.promo
        } else {
            piece
        };
        self.put(m.to, placed);
        if m.flags & (CASTLE_SHORT | CASTLE_LONG) != 0 {
            let side = usize::from(m.flags & CASTLE_LONG != 0);
            let c = CASTLES[me.index()][side];
            let rook = self.remove(c.rook_from);
            self.put(c.rook_to, rook);
        }
        if m.flags & DOUBLE_PUSH != 0 {
            let entry = EpEntry {
                m: step(m.from, pawn_forward(me)),
                t: m.to,
            };
            self.set_ep(me.index(), entry);
        }
        let rights = self.castling & CASTLE_KEEP[m.from as usize] & CASTLE_KEEP[m.to as usize];
        if rights != self.castling {
            self.set_castling(rights);
        }
        let next = self.next_live_after(me);
        self.set_to_move(next);
        removed
    }

    /// Eliminates `seat` (F.18): its pieces turn grey where they stand, its en-passant entry and castling
    /// rights go. Does not change the side to move.
    pub(crate) fn eliminate(&mut self, seat: Seat) {
        let s = seat.index();
        if self.out & (1 << s) != 0 {
            return;
        }
        for sq in self.occ[s].iter() {
            let code = self.remove(sq);
            self.put(sq, GREY << 3 | kind_of(code));
        }
        self.kings[s] = 0;
        self.set_ep(s, EpEntry::NONE);
        let rights = self.castling & !(3 << (2 * s));
        self.set_castling(rights);
        self.out |= 1 << s;
        self.hash ^= KEYS.eliminated[s];
    }

    /// The repetition key computed from scratch; always equal to [`Position::key`], which is kept up to
    /// date move by move (tests check one against the other).
    pub fn key_from_scratch(&self) -> u64 {
        let mut h = KEYS.to_move[self.to_move.index()] ^ KEYS.castling[self.castling as usize];
        for sq in Square::all() {
            let code = self.board[sq.index()];
            if code != EMPTY {
                h ^= KEYS.piece[code as usize][sq.index()];
            }
        }
        for seat in 0..4 {
            if self.ep[seat].is_some() {
                h ^= KEYS.en_passant[seat][self.ep[seat].m as usize];
            }
            if self.out & (1 << seat) != 0 {
                h ^= KEYS.eliminated[seat];
            }
        }
        h
    }

    /// Whether a pawn of `pusher` stands on `t` (a live en-passant entry's pawn).
    #[inline(always)]
    pub(crate) fn is_pawn_of(&self, t: u8, pusher: usize) -> bool {
        self.board[t as usize] == ((pusher as u8) << 3 | PAWN)
    }
}
