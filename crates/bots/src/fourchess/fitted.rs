//! Hard's Teams evaluation: a sum of weighted terms, the weights fitted to 4pchess's scores (issue 21;
//! the fit is `crates/bots/examples/texel.rs` with `tools/texel/`, the method in docs/bots.md).
//!
//! Every term is counted from Red-Yellow's side (a Blue or Green term counts negative), so the value
//! is Red-Yellow's and the evaluation turns it to the asking seat's team.

use super::eval::{shield_gaps, square_at};
use rules::Seat;
use rules::fourchess::{AttackMap, Kind, Owner, Position, Square};

/// Per kind (pawn, knight, bishop, rook, queen, king): 14 advances from the seat's own edge, then 7
/// distances from the nearer side edge. A piece counts once in each, so the advance terms carry the
/// piece's value.
const PLACEMENT: usize = 0;
const PER_KIND: usize = 21;
/// Per king: missing pawns of the three in front of it, then pawns one square further on.
pub(crate) const SHIELD: usize = PLACEMENT + 6 * PER_KIND;
/// Per enemy queen at Chebyshev distance 1..=4 from a king.
pub(crate) const QUEEN_NEAR: usize = SHIELD + 2;
/// Enemy attacks on the king's 3×3 block: units, then units squared (at most 125).
pub(crate) const KING_ATTACK: usize = QUEEN_NEAR + 4;
/// The side to move.
pub(crate) const TEMPO: usize = KING_ATTACK + 2;
/// Pieces a seat attacks with a cheaper piece or that their team leaves undefended, by that seat's
/// turn order from the mover (0 the mover .. 3): how many, then their values in half pawns. For the
/// mover only the largest counts: one move takes one piece, and the sum paid for captures that
/// quiescence's stand-pat declines (hard then gave its queen for a pawn with check in the issue-22
/// trap of the tactics suite).
pub(crate) const THREATS: usize = TEMPO + 1;
pub const TERMS: usize = THREATS + 8;

/// Red and Yellow count for, Blue and Green against.
fn sign(seat: Seat) -> i32 {
    if seat.index() % 2 == 0 { 1 } else { -1 }
}

fn kind_index(kind: Kind) -> usize {
    match kind {
        Kind::Pawn => 0,
        Kind::Knight => 1,
        Kind::Bishop => 2,
        Kind::Rook => 3,
        Kind::Queen | Kind::OnePointQueen => 4,
        Kind::King => 5,
    }
}

/// Half-pawn values for the threat terms (and the cheaper-attacker test).
fn half_pawns(kind: Kind) -> i32 {
    match kind {
        Kind::Pawn => 2,
        Kind::Knight => 6,
        Kind::Bishop => 8,
        Kind::Rook => 10,
        Kind::Queen | Kind::OnePointQueen => 19,
        Kind::King => 80,
    }
}

/// (advance from `seat`'s own edge 0..14, distance from the nearer side edge 0..7).
fn relative(seat: Seat, sq: Square) -> (usize, usize) {
    let (f, r) = (sq.file() as usize, sq.rank() as usize);
    let (advance, side) = match seat {
        Seat::Red => (r, f),
        Seat::Blue => (f, r),
        Seat::Yellow => (13 - r, f),
        Seat::Green => (13 - f, r),
    };
    (advance, side.min(13 - side))
}

/// Calls `term(index, count)` for each term of `pos` (counts from Red-Yellow's side; a term may be
/// called several times). `live` says which seats are still playing.
pub fn visit(pos: &Position, live: [bool; 4], mut term: impl FnMut(usize, i32)) {
    let kings = Seat::ALL.map(|s| pos.king(s).filter(|_| live[s.index()]));
    let mover = pos.to_move();
    let mut mover_best = 0;
    let map = AttackMap::of(pos);
    for (sq, piece) in pos.pieces() {
        let Owner::Seat(seat) = piece.owner else {
            continue;
        };
        let k = kind_index(piece.kind);
        let (advance, side) = relative(seat, sq);
        term(PLACEMENT + k * PER_KIND + advance, sign(seat));
        term(PLACEMENT + k * PER_KIND + 14 + side, sign(seat));
        if !live[seat.index()] || piece.kind == Kind::King {
            continue;
        }
        if k == 4 {
            for enemy in [seat.next(), seat.next().opposite()] {
                if let Some(king) = kings[enemy.index()] {
                    let d = (sq.file() as i32 - king.file() as i32)
                        .abs()
                        .max((sq.rank() as i32 - king.rank() as i32).abs());
                    if (1..=4).contains(&d) {
                        term(QUEEN_NEAR + d as usize - 1, -sign(enemy));
                    }
                }
            }
        }
        let value = half_pawns(piece.kind);
        let defended = map.count(sq, seat) + map.count(sq, seat.opposite()) > 0;
        for enemy in [seat.next(), seat.next().opposite()] {
            let Some(by) = map.least(sq, enemy).map(half_pawns) else {
                continue;
            };
            if !live[enemy.index()] || (defended && by >= value) {
                continue;
            }
            let order = (enemy.index() + 4 - mover.index()) % 4;
            term(THREATS + order, sign(enemy));
            if order == 0 {
                mover_best = mover_best.max(value);
            } else {
                term(THREATS + 4 + order, sign(enemy) * value);
            }
        }
    }
    term(THREATS + 4, sign(mover) * mover_best);
    for seat in Seat::ALL {
        if let Some(king) = kings[seat.index()] {
            king_terms(pos, &map, seat, king, &mut term);
        }
    }
    term(TEMPO, sign(mover));
}

/// The pawn shield in front of `seat`'s king and the enemy attacks on its 3×3 block: one unit per
/// square and enemy seat (two if that seat attacks it twice), half as many again when both enemy
/// seats take part (the two move one after the other: that is what mates).
fn king_terms(
    pos: &Position,
    map: &AttackMap,
    seat: Seat,
    king: Square,
    term: &mut impl FnMut(usize, i32),
) {
    let [missing, pushed] = shield_gaps(pos, seat, king);
    term(SHIELD, -sign(seat) * missing);
    term(SHIELD + 1, -sign(seat) * pushed);
    let enemies = [seat.next(), seat.next().opposite()];
    let (f, r) = (king.file() as i32, king.rank() as i32);
    let mut per_enemy = [0i32; 2];
    for df in -1..=1 {
        for dr in -1..=1 {
            let Some(sq) = square_at(f + df, r + dr) else {
                continue;
            };
            for (n, enemy) in per_enemy.iter_mut().zip(enemies) {
                *n += i32::from(map.count(sq, enemy));
            }
        }
    }
    let mut units: i32 = per_enemy.iter().sum();
    if per_enemy.iter().all(|&n| n > 0) {
        units += units / 2;
    }
    term(KING_ATTACK, -sign(seat) * units);
    term(KING_ATTACK + 1, -sign(seat) * (units * units).min(125));
}

/// Red-Yellow's value of `pos`, in 4pchess's centipawns (a knight 300).
pub(crate) fn value(pos: &Position, live: [bool; 4]) -> i32 {
    let mut sum = 0;
    visit(pos, live, |i, n| sum += WEIGHTS[i] * n);
    sum
}

/// Fitted by `tools/texel/fit.py` (docs/bots.md, session 26).
#[rustfmt::skip]
const WEIGHTS: [i32; TERMS] = include!("fitted_weights.in");
