//! How a game ends (C.21, C.22) and the final standings (C.24, C.25).

use super::board::Board;
use crate::Seat;
use crate::ranking::competition_places;
use serde::{Deserialize, Serialize};

/// Why the game ended: the first of C.22's list that applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum EndReason {
    /// C.21: `seat` kept its king and captured the three others itself.
    Chaturaji { seat: Seat },
    /// At most one king left on the board.
    KingsLeft,
    /// 48 consecutive completed turns without a capture.
    NoCapture,
    /// Turn 4 × round limit completed.
    RoundLimit,
    /// The third seat resigned.
    Resignations,
}

impl EndReason {
    /// Position in C.22's list (1-based); when several ends fall on one turn the smallest is reported.
    pub const fn priority(self) -> u8 {
        match self {
            EndReason::Chaturaji { .. } => 1,
            EndReason::KingsLeft => 2,
            EndReason::NoCapture => 3,
            EndReason::RoundLimit => 4,
            EndReason::Resignations => 5,
        }
    }

    /// Stable wire code.
    pub const fn code(self) -> &'static str {
        match self {
            EndReason::Chaturaji { .. } => "chaturaji",
            EndReason::KingsLeft => "kings_left",
            EndReason::NoCapture => "no_capture",
            EndReason::RoundLimit => "round_limit",
            EndReason::Resignations => "resignations",
        }
    }
}

/// One seat's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Standing {
    pub seat: Seat,
    /// Competition place, 1..=4; equal seats share it (C.24). A shared place is a draw for ratings (C.25).
    pub place: u8,
    pub points: u32,
    pub has_king: bool,
    /// Value of the seat's pieces still on the board (P1 S2 H3 E4 K5).
    pub material: u32,
    pub resigned: bool,
}

/// The end of a game: why, and every seat's standing (in seat order Red, Blue, Yellow, Green).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Outcome {
    pub reason: EndReason,
    pub standings: [Standing; 4],
}

impl Outcome {
    /// Rank the seats (C.24): resigned seats below all others; then more points, a king on the board,
    /// more material. Seats equal on every criterion share a place.
    pub(crate) fn rank(
        reason: EndReason,
        board: &Board,
        points: [u16; 4],
        resigned: u8,
    ) -> Outcome {
        let standing = |seat: Seat| Standing {
            seat,
            place: 0,
            points: u32::from(points[seat.index()]),
            has_king: board.has_king(seat),
            material: u32::from(board.material(seat)),
            resigned: resigned & (1 << seat.index()) != 0,
        };
        let mut standings = Seat::ALL.map(standing);
        let keys = standings.map(|s| (!s.resigned, s.points, s.has_king, s.material));
        let places = competition_places(&keys);
        for (standing, place) in standings.iter_mut().zip(places) {
            standing.place = place;
        }
        Outcome { reason, standings }
    }

    /// The seats on the given place.
    pub fn seats_on(&self, place: u8) -> impl Iterator<Item = Seat> + '_ {
        self.standings
            .iter()
            .filter(move |s| s.place == place)
            .map(|s| s.seat)
    }
}
