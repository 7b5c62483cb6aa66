//! What one applied action did, as a fixed-capacity list of events: the room turns them into messages
//! without recomputing the rules, and the hot path (random playouts, search) allocates nothing.

use super::dice::DieView;
use super::outcome::EndReason;
use super::piece::{Kind, Piece};
use super::square::Square;
use crate::Seat;
use serde::Serialize;

/// One thing that happened, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The dice of `seat`'s turn, with their usability at the throw.
    Rolled {
        seat: Seat,
        dice: [DieView; 2],
    },
    /// A piece moved using die `die` (0 or 1).
    Moved {
        seat: Seat,
        die: u8,
        from: Square,
        to: Square,
        piece: Kind,
    },
    /// `by` captured `piece` on `at` and scored `points` (its current type's value, C.11).
    Captured {
        by: Seat,
        piece: Piece,
        at: Square,
        points: u16,
    },
    /// `seat`'s king entered `throne`'s throne for the first time (C.20).
    ThronePoints {
        seat: Seat,
        throne: Seat,
        points: u16,
    },
    /// `seat`'s boat on `at` completed a boat triumph (C.19); the captured boats follow as `Captured`.
    BoatTriumph {
        seat: Seat,
        at: Square,
        points: u16,
    },
    /// C.21: the score was raised to at least 54.
    Chaturaji {
        seat: Seat,
        points_before: u16,
        points_after: u16,
    },
    /// The pawn on `at` became `to` (C.13–C.17).
    Promoted {
        seat: Seat,
        at: Square,
        to: Kind,
    },
    /// `seat`'s turn ended; `dice` are the final states (an unused die says why it was unusable), or
    /// `None` for a resigned seat's pass (C.23).
    TurnEnded {
        seat: Seat,
        dice: Option<[DieView; 2]>,
    },
    Resigned {
        seat: Seat,
    },
    GameOver {
        reason: EndReason,
    },
}

/// Upper bound on one action's events: a move (1), its capture (1), throne points (1), a triumph (1) with
/// up to six boats (6), Chaturaji (1), promotions (at most 16 pawns), the end of the turn (1), two
/// resigned seats' passes (2) and the game over (1): 31.
const CAPACITY: usize = 36;

/// The events of one action (at most a few dozen: a move, its captures, a triumph, every promotion, the
/// end of the turn, resigned seats' passes, the end of the game).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Applied {
    len: u8,
    events: [Event; CAPACITY],
}

impl Applied {
    pub(crate) fn new() -> Applied {
        Applied {
            len: 0,
            events: [Event::Resigned { seat: Seat::Red }; CAPACITY],
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, event: Event) {
        // The capacity is above the largest possible count (see the type's doc); never panic in play.
        if (self.len as usize) < CAPACITY {
            self.events[self.len as usize] = event;
            self.len += 1;
        } else {
            debug_assert!(false, "event list overflow");
        }
    }

    pub fn events(&self) -> &[Event] {
        &self.events[..self.len as usize]
    }

    pub fn iter(&self) -> impl Iterator<Item = &Event> {
        self.events().iter()
    }

    /// Points scored by each seat in this action (captures, triumph, thrones, the Chaturaji raise).
    pub fn points_scored(&self) -> [u16; 4] {
        let mut points = [0u16; 4];
        for event in self.events() {
            match *event {
                Event::Captured { by, points: p, .. } => {
                    points[by.index()] = points[by.index()].saturating_add(p)
                }
                Event::ThronePoints {
                    seat, points: p, ..
                } => points[seat.index()] += p,
                Event::Chaturaji {
                    seat,
                    points_before,
                    points_after,
                } => {
                    points[seat.index()] =
                        points[seat.index()].saturating_add(points_after - points_before)
                }
                _ => {}
            }
        }
        points
    }

    /// The game-over event's reason, if this action ended the game.
    pub fn game_over(&self) -> Option<EndReason> {
        self.events().iter().find_map(|e| match e {
            Event::GameOver { reason } => Some(*reason),
            _ => None,
        })
    }
}

impl Serialize for Applied {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.events())
    }
}
