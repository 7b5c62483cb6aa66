//! The full rules state of a game apart from its options: everything the notation prints.

use super::board::{Board, FAR_EDGE};
use super::dice::Die;
use super::outcome::EndReason;
use super::square::Square;
use crate::Seat;

/// A seat's pawns standing on its far edge, in arrival order (C.15: the first arrived promotes first).
/// Unused slots stay zero so that equal lists compare equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) struct Waiting {
    squares: [u8; 8],
    len: u8,
}

impl Waiting {
    pub(crate) fn squares(&self) -> impl Iterator<Item = Square> + '_ {
        self.squares[..self.len as usize]
            .iter()
            .map(|&i| Square::at(i))
    }

    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }

    pub(crate) fn get(&self, i: usize) -> Square {
        Square::at(self.squares[i])
    }

    pub(crate) fn push(&mut self, sq: Square) {
        // A far edge has 8 squares, so the list cannot overflow.
        if (self.len as usize) < self.squares.len() {
            self.squares[self.len as usize] = sq.index();
            self.len += 1;
        }
    }

    pub(crate) fn remove_at(&mut self, i: usize) {
        let len = self.len as usize;
        self.squares.copy_within(i + 1..len, i);
        self.squares[len - 1] = 0;
        self.len -= 1;
    }

    pub(crate) fn remove(&mut self, sq: Square) {
        if let Some(i) = self.squares[..self.len as usize]
            .iter()
            .position(|&s| s == sq.index())
        {
            self.remove_at(i);
        }
    }
}

/// Everything about a game in progress except its options. Small and `Copy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) board: Board,
    /// The seat whose turn it is (when the game is over: the seat whose turn it was).
    pub(crate) to_move: Seat,
    /// `None` until the turn's dice are thrown.
    pub(crate) dice: Option<[Die; 2]>,
    /// Some capture happened in the current turn (C.22.3 counts turns, not moves).
    pub(crate) captured_this_turn: bool,
    pub(crate) points: [u16; 4],
    pub(crate) waiting: [Waiting; 4],
    /// Consecutive completed turns without a capture.
    pub(crate) no_capture_turns: u16,
    /// Completed turns since the start (passes included).
    pub(crate) turn: u16,
    /// Bit `t` of `thrones[s]`: seat `s` has scored seat `t`'s throne (C.20).
    pub(crate) thrones: [u8; 4],
    /// Who captured each seat's most recent king (C.21).
    pub(crate) king_captor: [Option<Seat>; 4],
    /// Bit `s`: seat `s` resigned.
    pub(crate) resigned: u8,
    pub(crate) end: Option<EndReason>,
}

impl Position {
    /// The setup of C.5 with `first` to move.
    pub fn start(first: Seat) -> Position {
        Position {
            board: Board::setup(),
            to_move: first,
            dice: None,
            captured_this_turn: false,
            points: [0; 4],
            waiting: [Waiting::default(); 4],
            no_capture_turns: 0,
            turn: 0,
            thrones: [0; 4],
            king_captor: [None; 4],
            resigned: 0,
            end: None,
        }
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn to_move(&self) -> Seat {
        self.to_move
    }

    pub fn dice(&self) -> Option<[Die; 2]> {
        self.dice
    }

    pub fn points(&self) -> [u16; 4] {
        self.points
    }

    pub fn turns_without_capture(&self) -> u16 {
        self.no_capture_turns
    }

    /// Completed turns since the start of the game.
    pub fn turn(&self) -> u16 {
        self.turn
    }

    pub fn is_resigned(&self, seat: Seat) -> bool {
        self.resigned & (1 << seat.index()) != 0
    }

    pub fn resigned_count(&self) -> u32 {
        self.resigned.count_ones()
    }

    /// Whether `seat` has already scored `throne`'s throne (C.20).
    pub fn throne_scored(&self, seat: Seat, throne: Seat) -> bool {
        self.thrones[seat.index()] & (1 << throne.index()) != 0
    }

    /// Who captured `seat`'s most recent king, if it was captured.
    pub fn king_captor(&self, seat: Seat) -> Option<Seat> {
        self.king_captor[seat.index()]
    }

    /// `seat`'s pawns on its far edge, first arrived first.
    pub fn waiting_pawns(&self, seat: Seat) -> impl Iterator<Item = Square> + '_ {
        self.waiting[seat.index()].squares()
    }

    pub fn end(&self) -> Option<EndReason> {
        self.end
    }

    /// The seat that started the game: each completed turn moves the turn one seat on.
    pub fn first_seat(&self) -> Seat {
        Seat::from_index(self.to_move.index() + 4 - (self.turn % 4) as usize)
    }

    /// Whether `sq` is on `seat`'s far edge.
    pub(crate) fn on_far_edge(seat: Seat, sq: Square) -> bool {
        FAR_EDGE[seat.index()] & sq.bit() != 0
    }
}
