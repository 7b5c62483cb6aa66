//! How a game ended and the standings (F.11–F.14, F.20–F.27).

use crate::Seat;
use crate::ranking::competition_places;

use super::options::Mode;

/// Why the game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum EndReason {
    /// Teams F.12: `by` captured the king of `king_of`; `by`'s team wins.
    KingCaptured { by: Seat, king_of: Seat },
    /// Teams F.11: `seat` was mated on its own turn; its team loses.
    Checkmate { seat: Seat },
    /// Teams F.13: `seat` had no legal move and was not in check: draw.
    Stalemate { seat: Seat },
    /// Teams F.14: `seat` resigned; its team loses.
    Resignation { seat: Seat },
    /// FFA F.22: three players are out.
    ThreePlayersOut,
    /// FFA F.22: two players remain and `leader` is at least 21 points ahead.
    PointsLead { leader: Seat },
    /// F.23: the same position for the third time.
    Repetition,
    /// F.24: fifty moves each without a capture or a pawn move.
    FiftyMoves,
    /// F.26: the move limit was reached.
    MoveLimit,
}

impl EndReason {
    /// Whether this end is a draw in the sense of F.25 (FFA: +10 to every remaining player).
    pub fn is_draw_f25(self) -> bool {
        matches!(
            self,
            EndReason::Stalemate { .. } | EndReason::Repetition | EndReason::FiftyMoves
        )
    }
}

/// One seat's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Standing {
    pub seat: Seat,
    /// 1-based place; equal results share a place (1, 1, 3, 4). F.27: for ratings a shared place is
    /// half-way between winning and losing against the seats it is shared with.
    pub place: u8,
    /// Points (FFA); 0 in Teams.
    pub points: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    pub reason: EndReason,
    /// In seat order R, B, Y, G.
    pub standings: [Standing; 4],
}

impl Outcome {
    /// Teams: the winning team's seats (place 1), or none on a draw.
    pub fn winners(&self) -> Vec<Seat> {
        let all_first = self.standings.iter().all(|s| s.place == 1);
        if all_first {
            return Vec::new();
        }
        self.standings
            .iter()
            .filter(|s| s.place == 1)
            .map(|s| s.seat)
            .collect()
    }

    /// F.27: `a`'s score against `b` for ratings: 1 for a better place, 0 for a worse one, and half-way
    /// (0.5) for a shared place, which is what a draw is.
    pub fn score_against(&self, a: Seat, b: Seat) -> f64 {
        let (pa, pb) = (
            self.standings[a.index()].place,
            self.standings[b.index()].place,
        );
        match pa.cmp(&pb) {
            std::cmp::Ordering::Less => 1.0,
            std::cmp::Ordering::Equal => 0.5,
            std::cmp::Ordering::Greater => 0.0,
        }
    }

    /// Teams standings: the winning team shares place 1 and the other place 3; a draw puts all on 1.
    pub(crate) fn teams(reason: EndReason, losing_seat: Option<Seat>) -> Outcome {
        let standings = Seat::ALL.map(|seat| {
            let place = match losing_seat {
                Some(loser) if seat == loser || seat == loser.opposite() => 3,
                _ => 1,
            };
            Standing {
                seat,
                place,
                points: 0,
            }
        });
        Outcome { reason, standings }
    }

    /// FFA standings: ranked by points with shared places (F.22).
    pub(crate) fn ffa(reason: EndReason, points: [u32; 4]) -> Outcome {
        let places = competition_places(&points);
        let standings = Seat::ALL.map(|seat| Standing {
            seat,
            place: places[seat.index()],
            points: points[seat.index()],
        });
        Outcome { reason, standings }
    }

    pub(crate) fn new(mode: Mode, reason: EndReason, points: [u32; 4]) -> Outcome {
        match mode {
            Mode::Ffa => Outcome::ffa(reason, points),
            Mode::Teams => {
                let loser = match reason {
                    EndReason::KingCaptured { king_of, .. } => Some(king_of),
                    EndReason::Checkmate { seat } | EndReason::Resignation { seat } => Some(seat),
                    _ => None,
                };
                Outcome::teams(reason, loser)
            }
        }
    }
}
