//! Precomputed attack tables, built at compile time: one `u64` per square for the leapers (king, horse,
//! boat), per seat for the pawn (its forward direction depends on the seat, C.5), and rays for the
//! elephant (a rook) so sliding attacks need only a bit scan per direction. Public so that the CPU
//! players' evaluation reads the same geometry instead of keeping a copy.

const fn leaper(deltas: &[(i8, i8)]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let file = (sq % 8) as i8;
        let rank = (sq / 8) as i8;
        let mut i = 0;
        while i < deltas.len() {
            let f = file + deltas[i].0;
            let r = rank + deltas[i].1;
            if f >= 0 && f < 8 && r >= 0 && r < 8 {
                table[sq] |= 1u64 << (r * 8 + f);
            }
            i += 1;
        }
        sq += 1;
    }
    table
}

/// King: one step in any of 8 directions.
pub const KING: [u64; 64] = leaper(&[
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
]);

/// Horse: the knight's (1,2)/(2,1) leap.
pub const HORSE: [u64; 64] = leaper(&[
    (1, 2),
    (2, 1),
    (-1, 2),
    (-2, 1),
    (1, -2),
    (2, -1),
    (-1, -2),
    (-2, -1),
]);

/// Boat: exactly two squares diagonally, jumping the middle square.
pub const BOAT: [u64; 64] = leaper(&[(2, 2), (2, -2), (-2, 2), (-2, -2)]);

/// Pawn forward step per seat (Red up, Blue right, Yellow down, Green left).
pub const PAWN_PUSH: [[u64; 64]; 4] = [
    leaper(&[(0, 1)]),
    leaper(&[(1, 0)]),
    leaper(&[(0, -1)]),
    leaper(&[(-1, 0)]),
];

/// Pawn captures per seat: one square diagonally forward.
pub const PAWN_CAPTURE: [[u64; 64]; 4] = [
    leaper(&[(1, 1), (-1, 1)]),
    leaper(&[(1, 1), (1, -1)]),
    leaper(&[(1, -1), (-1, -1)]),
    leaper(&[(-1, 1), (-1, -1)]),
];

const fn ray(df: i8, dr: i8) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut f = (sq % 8) as i8 + df;
        let mut r = (sq / 8) as i8 + dr;
        while f >= 0 && f < 8 && r >= 0 && r < 8 {
            table[sq] |= 1u64 << (r * 8 + f);
            f += df;
            r += dr;
        }
        sq += 1;
    }
    table
}

const NORTH: [u64; 64] = ray(0, 1);
const EAST: [u64; 64] = ray(1, 0);
const SOUTH: [u64; 64] = ray(0, -1);
const WEST: [u64; 64] = ray(-1, 0);

/// Elephant (rook) attacks from `sq` with `occupied` blocking: each ray stops at (and includes) its first
/// occupied square.
#[inline]
pub fn elephant(sq: usize, occupied: u64) -> u64 {
    // Rays that grow towards higher bit indices: the nearest blocker is the lowest set bit.
    let mut attacks = 0;
    for table in [&NORTH, &EAST] {
        let ray = table[sq];
        let blockers = ray & occupied;
        attacks |= if blockers == 0 {
            ray
        } else {
            ray ^ table[blockers.trailing_zeros() as usize]
        };
    }
    // Rays towards lower indices: the nearest blocker is the highest set bit.
    for table in [&SOUTH, &WEST] {
        let ray = table[sq];
        let blockers = ray & occupied;
        attacks |= if blockers == 0 {
            ray
        } else {
            ray ^ table[63 - blockers.leading_zeros() as usize]
        };
    }
    attacks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c4_leaper_counts_from_corner_and_centre() {
        assert_eq!(KING[0].count_ones(), 3);
        assert_eq!(KING[27].count_ones(), 8);
        assert_eq!(HORSE[0].count_ones(), 2);
        assert_eq!(HORSE[27].count_ones(), 8);
        assert_eq!(BOAT[0].count_ones(), 1);
        assert_eq!(BOAT[27].count_ones(), 4);
        // a pawn on its far edge has no move at all (C.13)
        assert_eq!(PAWN_PUSH[0][60] | PAWN_CAPTURE[0][60], 0);
        assert_eq!(PAWN_PUSH[1][15] | PAWN_CAPTURE[1][15], 0);
    }

    #[test]
    fn c4_elephant_stops_at_first_blocker() {
        // elephant on a1, blocker on a3: a2, a3 and the whole first rank
        let attacks = elephant(0, 1 << 16);
        assert_eq!(attacks, (1 << 8) | (1 << 16) | 0xFE);
        assert_eq!(elephant(27, 0).count_ones(), 14);
    }
}
