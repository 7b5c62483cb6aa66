//! Static evaluation of a Chaturaji position for every seat at once (the search is max-n: each seat
//! maximises its own value).
//!
//! A seat's *worth* is its points plus what its position promises: material (which scores nothing by
//! itself but captures, defends and breaks ties, C.24), its king (tie-break, and the target of a
//! Chaturaji), advanced and waiting pawns (promotion, C.13–C.16), progress towards a Chaturaji (C.21),
//! and the dice-weighted captures that are hanging over the board (a piece attacked by a seat that
//! moves before its owner is lost with the probability that the attacker throws a die of an attacking
//! class). A seat's *value* is its worth against the field: first place is what counts.

use rules::Seat;
use rules::chaturaji::tables::{BOAT, HORSE, KING, PAWN_CAPTURE, elephant};
use rules::chaturaji::{DiceKind, DieClass, Game, Kind, Phase};

/// Chance that one die shows each class (C.7): cube PK 2/6, S 1/6, H 1/6, E 2/6; long 1/4 each.
pub(crate) fn class_probabilities(dice: DiceKind) -> [f32; 4] {
    match dice {
        DiceKind::Cube => [2.0 / 6.0, 1.0 / 6.0, 1.0 / 6.0, 2.0 / 6.0],
        DiceKind::Long => [0.25; 4],
    }
}

/// The classes in the order of [`class_probabilities`].
pub(crate) const CLASSES: [DieClass; 4] = [
    DieClass::PawnOrKing,
    DieClass::Boat,
    DieClass::Horse,
    DieClass::Elephant,
];

/// One face showing each class, for throwing a class pair.
pub(crate) fn face_of(dice: DiceKind, class: DieClass) -> u8 {
    match (dice, class) {
        (DiceKind::Cube, DieClass::PawnOrKing) => 1,
        (DiceKind::Long, DieClass::PawnOrKing) => 5,
        (_, DieClass::Boat) => 2,
        (_, DieClass::Horse) => 3,
        (_, DieClass::Elephant) => 4,
    }
}

/// The ten unordered class pairs with their probabilities, as two faces to throw.
pub(crate) fn class_pairs(dice: DiceKind) -> Vec<([u8; 2], f32)> {
    let p = class_probabilities(dice);
    let mut pairs = Vec::with_capacity(10);
    for i in 0..4 {
        for j in i..4 {
            let prob = if i == j {
                p[i] * p[i]
            } else {
                2.0 * p[i] * p[j]
            };
            pairs.push(([face_of(dice, CLASSES[i]), face_of(dice, CLASSES[j])], prob));
        }
    }
    pairs
}

fn bits(mut b: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (b != 0).then(|| {
            let i = b.trailing_zeros() as usize;
            b &= b - 1;
            i
        })
    })
}

/// Steps a pawn of `seat` on `sq` still has to go to its far edge.
fn pawn_distance(seat: Seat, sq: usize) -> i32 {
    let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
    match seat {
        Seat::Red => 7 - r,
        Seat::Blue => 7 - f,
        Seat::Yellow => r,
        Seat::Green => f,
    }
}

/// Value given to having a king, on top of its 5 of material: it ranks above material (C.24) and its
/// loss may hand someone a Chaturaji.
const KING_ALIVE: f32 = 3.0;

/// Terminal values: the points, then first place (shared places split the bonus), then material.
fn terminal(game: &Game) -> [f32; 4] {
    let outcome = game.outcome().expect("terminal");
    let firsts = outcome.standings.iter().filter(|s| s.place == 1).count() as f32;
    let worth = outcome.standings.map(|s| {
        let first = if s.place == 1 { 20.0 / firsts } else { 0.0 };
        s.points as f32 + first + 0.1 * s.material as f32
    });
    against_field(worth)
}

/// Each seat's worth minus the field's (half the best rival, half the rivals' mean).
fn against_field(worth: [f32; 4]) -> [f32; 4] {
    let mut out = [0.0; 4];
    for s in 0..4 {
        let mut best = f32::MIN;
        let mut sum = 0.0;
        for t in (0..4).filter(|&t| t != s) {
            best = best.max(worth[t]);
            sum += worth[t];
        }
        out[s] = worth[s] - 0.5 * best - 0.5 * sum / 3.0;
    }
    out
}

/// The value of `game` for each seat (index = seat index). Higher is better for that seat.
pub(crate) fn evaluate(game: &Game) -> [f32; 4] {
    if game.outcome().is_some() {
        return terminal(game);
    }
    let pos = game.position();
    let options = game.options();
    let board = pos.board();
    let next = match game.phase() {
        Phase::AwaitingRoll(s) | Phase::Moving(s) => s,
        Phase::Over => pos.to_move(),
    };
    let mut seat_occ = [0u64; 4];
    let mut kind_bb = [[0u64; 5]; 4];
    for seat in Seat::ALL {
        for (k, kind) in Kind::ALL.into_iter().enumerate() {
            let b = board.pieces(seat, kind);
            kind_bb[seat.index()][k] = b;
            seat_occ[seat.index()] |= b;
        }
    }
    let occupied = seat_occ.iter().fold(0, |a, b| a | b);

    // Attacks per seat and die class (the squares a die of that class could capture on).
    let mut attacks = [[0u64; 4]; 4];
    for seat in Seat::ALL {
        let s = seat.index();
        let kb = &kind_bb[s];
        let mut pk = 0;
        for sq in bits(kb[Kind::Pawn as usize]) {
            pk |= PAWN_CAPTURE[s][sq];
        }
        for sq in bits(kb[Kind::King as usize]) {
            pk |= KING[sq];
        }
        let boat = bits(kb[Kind::Boat as usize]).fold(0, |a, sq| a | BOAT[sq]);
        let horse = bits(kb[Kind::Horse as usize]).fold(0, |a, sq| a | HORSE[sq]);
        let eleph = bits(kb[Kind::Elephant as usize]).fold(0, |a, sq| a | elephant(sq, occupied));
        attacks[s] = [pk, boat, horse, eleph].map(|a| a & occupied & !seat_occ[s]);
    }

    let p = class_probabilities(options.dice);
    // How many turns until each seat moves, counted from the seat to move now (0).
    let order = |seat: Seat| (seat.index() + 4 - next.index()) % 4;
    let resigned = |seat: Seat| pos.is_resigned(seat);

    let mut worth = [0.0f32; 4];
    // Best two dice-weighted captures open to each seat.
    let mut gains = [[0.0f32; 2]; 4];
    let turns_left = (options.round_limit as f32 * 4.0 - pos.turn() as f32).max(0.0);
    let horizon = (turns_left / (options.round_limit as f32 * 4.0)).clamp(0.0, 1.0);
    let material_weight = 0.15 + 0.35 * horizon;

    for seat in Seat::ALL {
        let s = seat.index();
        let mut w = pos.points()[s] as f32;
        let material = board.material(seat) as f32;
        w += material_weight * material;
        let has_king = board.has_king(seat);
        if has_king {
            w += KING_ALIVE * (0.4 + 0.6 * horizon);
            // C.21: kings this seat has taken itself bring it towards 54.
            let taken = Seat::ALL
                .into_iter()
                .filter(|&t| t != seat && !board.has_king(t) && pos.king_captor(t) == Some(seat))
                .count() as f32;
            if taken > 0.0 {
                let missing = (54.0 - pos.points()[s] as f32).max(0.0);
                w += missing * 0.08 * taken;
            }
        }
        for sq in bits(kind_bb[s][Kind::Pawn as usize]) {
            let d = pawn_distance(seat, sq);
            w += 0.06 * (7 - d) as f32 * horizon;
        }
        w += 0.2 * pos.waiting_pawns(seat).count() as f32;

        // Pieces of this seat hanging to seats that move before it.
        let mut loss = 0.0;
        for sq in bits(seat_occ[s]) {
            let bit = 1u64 << sq;
            let value = Kind::ALL
                .into_iter()
                .find(|&k| kind_bb[s][k as usize] & bit != 0)
                .map_or(0.0, |k| {
                    k.value() as f32 + if k == Kind::King { KING_ALIVE } else { 0.0 }
                });
            let mut survive = 1.0;
            for attacker in Seat::ALL {
                let a = attacker.index();
                if a == s || resigned(attacker) {
                    continue;
                }
                let reach: f32 = (0..4)
                    .filter(|&c| attacks[a][c] & bit != 0)
                    .map(|c| p[c])
                    .sum();
                if reach == 0.0 {
                    continue;
                }
                let roll = 1.0 - (1.0 - reach).powi(2);
                let before_owner = order(attacker) < order(seat);
                let urgency = match (before_owner, order(attacker)) {
                    (true, 0) => 1.0,
                    (true, 1) => 0.75,
                    (true, _) => 0.55,
                    (false, _) => 0.15,
                };
                let chance = roll * urgency;
                survive *= 1.0 - chance;
                let gain = value * chance;
                let g = &mut gains[a];
                if gain > g[0] {
                    g[1] = g[0];
                    g[0] = gain;
                } else if gain > g[1] {
                    g[1] = gain;
                }
            }
            loss += value * (1.0 - survive);
        }
        // A hanging piece costs its owner more than its captor gains: the captor also spends a die.
        w -= 0.8 * material_weight.max(0.5) * loss;
        worth[s] = w;
    }
    for s in 0..4 {
        worth[s] += 0.6 * (gains[s][0] + 0.5 * gains[s][1]);
    }
    against_field(worth)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::chaturaji::Options;

    #[test]
    fn class_pair_probabilities_sum_to_one() {
        for dice in [DiceKind::Cube, DiceKind::Long] {
            let pairs = class_pairs(dice);
            assert_eq!(pairs.len(), 10);
            let total: f32 = pairs.iter().map(|p| p.1).sum();
            assert!((total - 1.0).abs() < 1e-5, "{total}");
        }
        // Cube: PK+PK = (2/6)^2, S+H = 2 (1/6)(1/6).
        let cube = class_pairs(DiceKind::Cube);
        assert!((cube[0].1 - 4.0 / 36.0).abs() < 1e-6);
        assert!((cube[5].1 - 2.0 / 36.0).abs() < 1e-6);
    }

    #[test]
    fn start_position_is_symmetric_up_to_turn_order() {
        let game = Game::new(Options::default(), Seat::Red).unwrap();
        let v = evaluate(&game);
        assert!(v.iter().all(|x| x.abs() < 2.0), "{v:?}");
    }

    #[test]
    fn a_hanging_king_costs_its_owner() {
        // Red's horse on c6 attacks Blue's king on a5... and Blue moves last: Red is to move.
        let safe = "bSbP2yKyEyHyS/bHbP2yPyPyPyP/bEbP6/bKbP6/6gPgK/6gPgE/rPrPrPrP2gPgH/rSrHrErK2gPgS r - 0,0,0,0 - 0 0 - - - -";
        let hanging = "bSbP2yKyEyHyS/bHbP2yPyPyPyP/bEbPrH5/bKbP6/6gPgK/6gPgE/rPrPrPrP2gPgH/rS1rErK2gPgS r - 0,0,0,0 - 0 0 - - - -";
        let a = evaluate(&Game::from_notation(Options::default(), safe).unwrap());
        let b = evaluate(&Game::from_notation(Options::default(), hanging).unwrap());
        assert!(
            b[Seat::Blue.index()] < a[Seat::Blue.index()] - 1.0,
            "{a:?} {b:?}"
        );
        assert!(b[Seat::Red.index()] > a[Seat::Red.index()], "{a:?} {b:?}");
    }
}
