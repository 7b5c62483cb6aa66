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

/// Events kept inline; almost every action has fewer (a move, perhaps a capture, the end of the turn).
/// Rare bigger ones (a triumph with several promotions, say) spill to the heap.
const INLINE: usize = 10;

/// The events of one action, in order. Small, and allocation-free unless an action has more than
/// ten events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    len: u8,
    inline: [Event; INLINE],
    spill: Vec<Event>,
}

impl Applied {
    pub(crate) fn new() -> Applied {
        Applied {
            len: 0,
            inline: [Event::Resigned { seat: Seat::Red }; INLINE],
            spill: Vec::new(),
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, event: Event) {
        let len = self.len as usize;
        if len < INLINE {
            self.inline[len] = event;
            self.len += 1;
        } else {
            if self.spill.is_empty() {
                self.spill.extend_from_slice(&self.inline);
            }
            self.spill.push(event);
        }
    }

    pub fn events(&self) -> &[Event] {
        if self.spill.is_empty() {
            &self.inline[..self.len as usize]
        } else {
            &self.spill
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_beyond_the_inline_capacity_keep_their_order() {
        let mut applied = Applied::new();
        let all: Vec<Event> = (0..25)
            .map(|i| Event::Resigned {
                seat: Seat::from_index(i),
            })
            .collect();
        for (i, &event) in all.iter().enumerate() {
            applied.push(event);
            assert_eq!(applied.events(), &all[..=i]);
        }
    }
}
