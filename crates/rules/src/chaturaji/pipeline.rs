//! What happens after each single move (section 5), in its fixed order, in one function:
//!
//! 1. move and capture (C.11), recording who captured a king;
//! 2. throne points (C.20), if enabled;
//! 3. boat triumph (C.19), if enabled and a boat moved;
//! 4. Chaturaji (C.21): if it fires the game ends now and the rest is skipped;
//! 5. promotion of every eligible waiting pawn of every seat (C.13–C.17);
//! 6. king count: at most one king on the board ends the game (C.22.2).

use super::board::{THRONES, picture};
use super::events::{Applied, Event};
use super::options::{Options, Promotion};
use super::outcome::EndReason;
use super::piece::{Kind, Piece};
use super::position::Position;
use super::square::{Bits, Square};
use crate::Seat;

/// Points for a throne (C.20) and the Chaturaji floor (C.21).
pub const THRONE_POINTS: u16 = 5;
pub const CHATURAJI_POINTS: u16 = 54;

/// Resolve `seat` moving the piece on `from` to `to` (already checked legal). Sets `pos.end` when the
/// move ends the game (Chaturaji or king count); the caller handles dice and turns.
pub(crate) fn resolve_move(
    pos: &mut Position,
    options: &Options,
    seat: Seat,
    from: Square,
    to: Square,
    events: &mut Applied,
) {
    // 1. Move and capture.
    let kind = pos
        .board
        .kind_at(from)
        .expect("the mover's piece stands on `from`");
    if let Some(victim) = pos.board.piece_at(to) {
        capture(pos, seat, victim, to, events);
        if victim.kind == Kind::King {
            pos.king_captor[victim.seat.index()] = Some(seat);
        }
    }
    pos.board.clear(from);
    pos.board.put(to, Piece { seat, kind });
    if kind == Kind::Pawn && Position::on_far_edge(seat, to) {
        pos.waiting[seat.index()].push(to);
    }

    // 2. Throne points: a king entering another seat's throne, once per throne per seat.
    if options.throne_points && kind == Kind::King {
        if let Some(owner) = Seat::ALL.into_iter().find(|s| THRONES[s.index()] == to) {
            let bit = 1 << owner.index();
            if owner != seat && pos.thrones[seat.index()] & bit == 0 {
                pos.thrones[seat.index()] |= bit;
                pos.points[seat.index()] = pos.points[seat.index()].saturating_add(THRONE_POINTS);
                events.push(Event::ThronePoints {
                    seat,
                    throne: owner,
                    points: THRONE_POINTS,
                });
            }
        }
    }

    // 3. Boat triumph.
    if options.boat_triumph && kind == Kind::Boat {
        boat_triumph(pos, seat, to, events);
    }

    // 4. Chaturaji: the mover keeps a king and took every other seat's last king itself.
    if pos.board.has_king(seat)
        && Seat::ALL
            .into_iter()
            .filter(|&s| s != seat)
            .all(|s| !pos.board.has_king(s) && pos.king_captor[s.index()] == Some(seat))
    {
        let before = pos.points[seat.index()];
        let after = before.max(CHATURAJI_POINTS);
        pos.points[seat.index()] = after;
        events.push(Event::Chaturaji {
            seat,
            points_before: before,
            points_after: after,
        });
        pos.end = Some(EndReason::Chaturaji { seat });
        return;
    }

    // 5. Promotion, every seat.
    promote(pos, options, events);

    // 6. King count.
    if pos.board.king_count() <= 1 {
        pos.end = Some(EndReason::KingsLeft);
    }
}

/// Remove `victim` from `at`, score its current value for `by` (C.11) and drop it from the waiting list.
fn capture(pos: &mut Position, by: Seat, victim: Piece, at: Square, events: &mut Applied) {
    let points = victim.kind.value();
    pos.board.clear(at);
    pos.points[by.index()] = pos.points[by.index()].saturating_add(points);
    pos.captured_this_turn = true;
    if victim.kind == Kind::Pawn {
        pos.waiting[victim.seat.index()].remove(at);
    }
    events.push(Event::Captured {
        by,
        piece: victim,
        at,
        points,
    });
}

/// C.19: every 2×2 block containing the boat's square that holds four boats of four different seats;
/// the mover captures all the other boats in all such blocks.
fn boat_triumph(pos: &mut Position, seat: Seat, at: Square, events: &mut Applied) {
    let boats = pos.board.of_kind(Kind::Boat);
    let mut victims = 0u64;
    let (file, rank) = (at.file() as i8, at.rank() as i8);
    for (f0, r0) in [
        (file - 1, rank - 1),
        (file - 1, rank),
        (file, rank - 1),
        (file, rank),
    ] {
        if !(0..7).contains(&f0) || !(0..7).contains(&r0) {
            continue;
        }
        let corner = (r0 * 8 + f0) as u32;
        let block = (0b11u64 | (0b11u64 << 8)) << corner;
        let in_block = boats & block;
        let one_each = Seat::ALL
            .into_iter()
            .all(|s| (in_block & pos.board.of_seat(s)).count_ones() == 1);
        if one_each {
            victims |= in_block & !pos.board.of_seat(seat);
        }
    }
    if victims == 0 {
        return;
    }
    events.push(Event::BoatTriumph {
        seat,
        at,
        points: victims.count_ones() as u16 * Kind::Boat.value(),
    });
    for sq in Bits(victims) {
        let victim = pos.board.piece_at(sq).expect("a boat stands here");
        capture(pos, seat, victim, sq, events);
    }
}

/// C.13–C.17: every waiting pawn of every seat, first arrived first, becomes the pictured type when
/// allowed. Promoting one pawn can make a later one of the same seat ineligible (C.15).
fn promote(pos: &mut Position, options: &Options, events: &mut Applied) {
    for seat in Seat::ALL {
        let mut i = 0;
        while i < pos.waiting[seat.index()].len() {
            let sq = pos.waiting[seat.index()].get(i);
            let target = picture(seat, sq);
            let eligible = match options.promotion {
                Promotion::LostTypeOnly => pos.board.pieces(seat, target) == 0,
                Promotion::Always => target != Kind::King,
            };
            if eligible {
                pos.board.retype(sq, target);
                pos.waiting[seat.index()].remove_at(i);
                events.push(Event::Promoted {
                    seat,
                    at: sq,
                    to: target,
                });
            } else {
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! The order of the steps, checked on `resolve_move` itself.
    use super::*;

    fn run(text: &str, options: Options, from: &str, to: &str) -> (Position, Vec<Event>) {
        let mut pos: Position = text.parse().unwrap();
        let mut events = Applied::new();
        let seat = pos.to_move;
        resolve_move(
            &mut pos,
            &options,
            seat,
            from.parse().unwrap(),
            to.parse().unwrap(),
            &mut events,
        );
        (pos, events.events().to_vec())
    }

    #[test]
    fn c21_chaturaji_fires_before_promotion_could_recrown() {
        // Green has a pawn waiting on a5, a king picture of its far edge (file a). Red takes Green's king, its third: Chaturaji ends the game before step 5 would
        // re-crown Green.
        let text = "8/8/8/gP7/5gK2/4rK3/8/8 r 1u1u 0,0,0,0 a5 0 0 - b<r,y<r - -";
        let (pos, events) = run(text, Options::default(), "e3", "f4");
        assert_eq!(pos.end, Some(EndReason::Chaturaji { seat: Seat::Red }));
        assert_eq!(pos.points[0], CHATURAJI_POINTS);
        assert!(!events.iter().any(|e| matches!(e, Event::Promoted { .. })));
        assert_eq!(pos.waiting_pawns(Seat::Green).count(), 1);
    }

    #[test]
    fn c16_promotion_runs_before_the_king_count() {
        // Without step 5 first, one king would be left; with it, Green is re-crowned and play goes on.
        let text = "8/8/8/gP7/5gK2/4rK3/8/8 r 1u1u 0,0,0,0 a5 0 0 - b<y,y<r - -";
        let (pos, events) = run(text, Options::default(), "e3", "f4");
        assert_eq!(pos.end, None);
        assert!(events.contains(&Event::Promoted {
            seat: Seat::Green,
            at: "a5".parse().unwrap(),
            to: Kind::King
        }));
    }

    #[test]
    fn c20_throne_points_come_before_promotion() {
        let options = Options {
            throne_points: true,
            ..Options::default()
        };
        let text = "8/4rP3/8/bK7/7gK/8/8/8 r 1u1u 0,0,0,0 - 0 0 - - - -";
        let (pos, events) = run(text, options, "e7", "e8");
        assert_eq!(pos.points, [0; 4]);
        assert_eq!(
            events,
            [Event::Promoted {
                seat: Seat::Red,
                at: "e8".parse().unwrap(),
                to: Kind::King
            }]
        );
    }

    #[test]
    fn c19_boat_triumph_comes_after_the_landing_capture() {
        // Red's boat c3-e5 takes a Yellow pawn, completing d4 e4 d5 e5 with one boat of each seat.
        let text = "8/8/8/3gSyP3/3bSyS3/2rS5/8/rKbKyKgK4 r 2u4u 0,0,0,0 - 0 0 - - - -";
        let (pos, events) = run(text, Options::default(), "c3", "e5");
        assert_eq!(pos.points, [1 + 6, 0, 0, 0]);
        let kinds: Vec<&str> = events
            .iter()
            .map(|e| match e {
                Event::Captured { piece, .. } if piece.kind == Kind::Pawn => "pawn",
                Event::Captured { .. } => "boat",
                Event::BoatTriumph { .. } => "triumph",
                _ => "other",
            })
            .collect();
        assert_eq!(kinds, ["pawn", "triumph", "boat", "boat", "boat"]);
        assert!(pos.captured_this_turn);
    }
}
