//! Static evaluation of a four-player chess position, from one seat's point of view (the search keeps
//! one point of view for the whole tree).
//!
//! Teams: the material and placement of one's own team against the other (partners' kings count like
//! one's own). FFA: each seat's worth is its points (what ranks it) plus a share of its live material
//! (what it can still lose, and what it captures with); the value is one's worth against the field.

use rules::Seat;
use rules::fourchess::{Game, Kind, Mode, Owner, Square};

/// Large enough to dominate every material count, small enough for mate-distance arithmetic.
pub(crate) const WIN: i32 = 1_000_000;

/// Centipawn values for search (Teams; in FFA they weigh live material).
pub(crate) const fn piece_value(kind: Kind) -> i32 {
    match kind {
        Kind::Pawn => 100,
        Kind::Knight => 300,
        Kind::Bishop => 400,
        Kind::Rook => 500,
        Kind::Queen | Kind::OnePointQueen => 950,
        Kind::King => 4_000,
    }
}

/// Squares a pawn of `seat` on `sq` has advanced from its home line.
fn pawn_steps(seat: Seat, sq: Square) -> i32 {
    let (f, r) = (sq.file() as i32, sq.rank() as i32);
    match seat {
        Seat::Red => r - 1,
        Seat::Blue => f - 1,
        Seat::Yellow => 12 - r,
        Seat::Green => 12 - f,
    }
}

/// Closeness to the centre, 0 (corner area) .. 12 (centre).
fn centrality(sq: Square) -> i32 {
    let df = (2 * sq.file() as i32 - 13).abs();
    let dr = (2 * sq.rank() as i32 - 13).abs();
    (26 - df - dr) / 2
}

/// Placement and material of every seat's live pieces, in centipawns.
fn seat_material(game: &Game) -> [i32; 4] {
    let pos = game.position();
    let ffa = pos.mode() == Mode::Ffa;
    // Pawns promote on rank 11 in Teams (10 steps), at the middle in FFA (6 steps).
    let promotion_steps = if ffa { 6 } else { 9 };
    let mut sum = [0i32; 4];
    for sq in Square::all() {
        let Some(piece) = pos.piece_at(sq) else {
            continue;
        };
        let Owner::Seat(seat) = piece.owner else {
            continue;
        };
        let mut v = if piece.kind == Kind::King {
            0
        } else {
            piece_value(piece.kind)
        };
        match piece.kind {
            Kind::Pawn => {
                let steps = pawn_steps(seat, sq).clamp(0, promotion_steps);
                v += steps * steps * 4;
            }
            Kind::Knight | Kind::Bishop => v += 4 * centrality(sq),
            Kind::Queen | Kind::OnePointQueen | Kind::Rook => v += centrality(sq),
            Kind::King => v -= 3 * centrality(sq),
        }
        sum[seat.index()] += v;
    }
    sum
}

/// The value of `game` for `me`: higher is better. Terminal positions score ±[`WIN`] (Teams) or by the
/// final standings (FFA).
pub(crate) fn evaluate(game: &Game, me: Seat) -> i32 {
    if let Some(outcome) = game.outcome() {
        return terminal(game, outcome, me);
    }
    let material = seat_material(game);
    match game.mode() {
        Mode::Teams => {
            let mine = material[me.index()] + material[me.opposite().index()];
            let theirs = material[me.next().index()] + material[me.next().opposite().index()];
            mine - theirs
        }
        Mode::Ffa => {
            let points = game.points();
            let worth = Seat::ALL.map(|s| {
                if game.is_out(s) {
                    100 * points[s.index()] as i32
                } else {
                    100 * points[s.index()] as i32 + material[s.index()] / 2
                }
            });
            against_field(worth, me)
        }
    }
}

/// One's worth against the field: half the best rival, half the rivals' mean.
fn against_field(worth: [i32; 4], me: Seat) -> i32 {
    let rivals = Seat::ALL.into_iter().filter(|&s| s != me);
    let best = rivals.clone().map(|s| worth[s.index()]).max().unwrap_or(0);
    let mean = rivals.map(|s| worth[s.index()]).sum::<i32>() / 3;
    worth[me.index()] - best / 2 - mean / 2
}

fn terminal(game: &Game, outcome: &rules::fourchess::Outcome, me: Seat) -> i32 {
    match game.mode() {
        Mode::Teams => {
            let winners = outcome.winners();
            if winners.is_empty() {
                0
            } else if winners.contains(&me) {
                WIN
            } else {
                -WIN
            }
        }
        Mode::Ffa => {
            let worth = outcome.standings.map(|s| 100 * s.points as i32);
            let firsts = outcome.standings.iter().filter(|s| s.place == 1).count() as i32;
            let first = outcome.standings[me.index()].place == 1;
            let bonus = if first { WIN / 2 / firsts } else { -WIN / 4 };
            bonus + against_field(worth, me)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::fourchess::Options;

    #[test]
    fn start_position_is_balanced() {
        for mode in [Mode::Teams, Mode::Ffa] {
            let options = Options {
                mode,
                ..Options::default()
            };
            let game = Game::new(options, Seat::Red).unwrap();
            for seat in Seat::ALL {
                assert_eq!(evaluate(&game, seat), 0, "{mode:?} {seat:?}");
            }
        }
    }
}
