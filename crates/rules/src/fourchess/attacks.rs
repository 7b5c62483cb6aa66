//! Attack detection (F.9): scanning outward from a square along the eight rays, the knight jumps and the
//! pawn diagonals. Attackers are given as a bitmask of owners; grey pieces are never in it (F.18).

use crate::Seat;

use super::bits::Bits;
use super::geometry::Square;
use super::geometry::{
    ALL_DIRS, DIAG, KNIGHT as KNIGHT_JUMPS, ORTHO, is_board_square, pawn_captures, step,
};
use super::piece::{
    EMPTY, KING, KNIGHT, Kind, OFF, ONE_POINT_QUEEN, PAWN, QUEEN, kind_of, owner_of,
    slides_diagonally, slides_orthogonally,
};
use super::position::Position;

/// `PAWN_HITS[i]`: owners whose pawn standing one step along `DIAG[i]` from a square attacks that square
/// (its capture step is the opposite direction).
static PAWN_HITS: [u32; 4] = {
    let mut table = [0u32; 4];
    let mut i = 0;
    while i < 4 {
        let mut seat = 0;
        while seat < 4 {
            let caps = pawn_captures(Seat::from_index(seat));
            if caps[0] == -DIAG[i] || caps[1] == -DIAG[i] {
                table[i] |= 1 << seat;
            }
            seat += 1;
        }
        i += 1;
    }
    table
};

/// `RAYS[sq][i]`: the board squares beyond `sq` along `ALL_DIRS[i]`, up to the edge. A ray with no
/// attacker on it can hold neither a check nor a pinner, so the king scan skips it without walking.
static RAYS: [[Bits; 8]; 256] = {
    let mut table = [[Bits::EMPTY; 8]; 256];
    let mut sq = 0;
    while sq < 256 {
        let mut i = 0;
        while i < 8 {
            let mut t = step(sq as u8, ALL_DIRS[i]);
            while is_board_square(t) {
                table[sq][i].0[(t >> 6) as usize] |= 1 << (t & 63);
                t = step(t, ALL_DIRS[i]);
            }
            i += 1;
        }
        sq += 1;
    }
    table
};

/// `KNIGHT_REACH[sq]`: the board squares a knight jump away from `sq`; with no attacker on them the
/// knight probes are skipped.
static KNIGHT_REACH: [Bits; 256] = {
    let mut table = [Bits::EMPTY; 256];
    let mut sq = 0;
    while sq < 256 {
        let mut i = 0;
        while i < 8 {
            let t = step(sq as u8, KNIGHT_JUMPS[i]);
            if is_board_square(t) {
                table[sq].0[(t >> 6) as usize] |= 1 << (t & 63);
            }
            i += 1;
        }
        sq += 1;
    }
    table
};

#[inline(always)]
fn owned_by(code: u8, owners: u32) -> bool {
    // `OFF` has owner 31, beyond every mask; `EMPTY` never matches a kind test made before this one.
    (owners >> owner_of(code)) & 1 != 0
}

/// Whether a piece of one of `owners` (standing on `enemies`) attacks `sq`. `ignore` is treated as
/// empty (the moving king's own square, so it cannot shield the square it steps to); pass `sq` itself to
/// ignore nothing.
#[inline]
pub(crate) fn is_attacked(
    board: &[u8; 256],
    sq: u8,
    owners: u32,
    enemies: &Bits,
    ignore: u8,
) -> bool {
    if KNIGHT_REACH[sq as usize].intersects(enemies) {
        for d in KNIGHT_JUMPS {
            let p = board[step(sq, d) as usize];
            if kind_of(p) == KNIGHT && owned_by(p, owners) {
                return true;
            }
        }
    }
    let rays = &RAYS[sq as usize];
    for (i, d) in ORTHO.into_iter().enumerate() {
        if !rays[i].intersects(enemies) {
            continue;
        }
        let mut t = step(sq, d);
        let mut p = board[t as usize];
        if kind_of(p) == KING && owned_by(p, owners) {
            return true;
        }
        while p == EMPTY || t == ignore {
            t = step(t, d);
            p = board[t as usize];
        }
        if slides_orthogonally(kind_of(p)) && owned_by(p, owners) {
            return true;
        }
    }
    for (i, d) in DIAG.into_iter().enumerate() {
        if !rays[4 + i].intersects(enemies) {
            continue;
        }
        let mut t = step(sq, d);
        let mut p = board[t as usize];
        if owned_by(p, owners) {
            let k = kind_of(p);
            if k == KING || (k == PAWN && (PAWN_HITS[i] >> owner_of(p)) & 1 != 0) {
                return true;
            }
        }
        while p == EMPTY || t == ignore {
            t = step(t, d);
            p = board[t as usize];
        }
        if slides_diagonally(kind_of(p)) && owned_by(p, owners) {
            return true;
        }
    }
    false
}

/// Calls `found(square, piece code)` for each piece of `owners` attacking `sq` (FFA check bonuses need
/// to know whether every checker is a queen); a callback, not a list, so that a move's rules allocate
/// nothing.
pub(crate) fn for_each_attacker(
    board: &[u8; 256],
    sq: u8,
    owners: u32,
    mut found: impl FnMut(u8, u8),
) {
    for d in KNIGHT_JUMPS {
        let t = step(sq, d);
        let p = board[t as usize];
        if kind_of(p) == KNIGHT && owned_by(p, owners) {
            found(t, p);
        }
    }
    for (i, d) in ALL_DIRS.into_iter().enumerate() {
        let diagonal = i >= 4;
        let mut t = step(sq, d);
        let mut adjacent = true;
        while board[t as usize] == EMPTY {
            t = step(t, d);
            adjacent = false;
        }
        let p = board[t as usize];
        if !owned_by(p, owners) {
            continue;
        }
        let k = kind_of(p);
        let hits = if diagonal {
            slides_diagonally(k)
        } else {
            slides_orthogonally(k)
        } || (adjacent && k == KING)
            || (adjacent && diagonal && k == PAWN && (PAWN_HITS[i - 4] >> owner_of(p)) & 1 != 0);
        if hits {
            found(t, p);
        }
    }
}

/// Checks and pins against one king, computed once per position so most moves are known legal without
/// playing them. Lines are only built when there is a check or a pin, which is rare: the common case
/// costs eight short ray walks and eight knight probes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KingSafety {
    pub checkers: u32,
    /// With one checker: its square and the squares between it and the king (capture or block there).
    pub evasion: Bits,
    pub pinned: Bits,
    /// Pinned piece squares and the index (in `ALL_DIRS`) of the ray from the king through them.
    pins: [(u8, u8); 8],
    pin_count: usize,
    king: u8,
}

impl KingSafety {
    /// Scans from `king` (owned by `seat`, attacked by `owners`, whose pieces stand on `enemies`).
    #[inline]
    pub(crate) fn compute(
        board: &[u8; 256],
        king: u8,
        seat: u8,
        owners: u32,
        enemies: &Bits,
    ) -> KingSafety {
        let mut safety = KingSafety {
            checkers: 0,
            evasion: Bits::EMPTY,
            pinned: Bits::EMPTY,
            pins: [(0, 0); 8],
            pin_count: 0,
            king,
        };
        if KNIGHT_REACH[king as usize].intersects(enemies) {
            for d in KNIGHT_JUMPS {
                let t = step(king, d);
                let p = board[t as usize];
                if kind_of(p) == KNIGHT && owned_by(p, owners) {
                    safety.checkers += 1;
                    safety.evasion.set(t);
                }
            }
        }
        for (i, d) in ALL_DIRS.into_iter().enumerate() {
            if !RAYS[king as usize][i].intersects(enemies) {
                continue;
            }
            let diagonal = i >= 4;
            let first = step(king, d);
            let mut t = first;
            while board[t as usize] == EMPTY {
                t = step(t, d);
            }
            let p = board[t as usize];
            let k = kind_of(p);
            if owned_by(p, owners) {
                let slides = if diagonal {
                    slides_diagonally(k)
                } else {
                    slides_orthogonally(k)
                };
                let adjacent = t == first;
                let hits = slides
                    || (adjacent && k == KING)
                    || (adjacent
                        && diagonal
                        && k == PAWN
                        && (PAWN_HITS[i - 4] >> owner_of(p)) & 1 != 0);
                if hits {
                    safety.checkers += 1;
                    let mut s = first;
                    loop {
                        safety.evasion.set(s);
                        if s == t {
                            break;
                        }
                        s = step(s, d);
                    }
                }
            } else if owner_of(p) == seat {
                // Own piece: pinned if the next piece behind it is an attacker sliding this way.
                let mut u = step(t, d);
                while board[u as usize] == EMPTY {
                    u = step(u, d);
                }
                let q = board[u as usize];
                let slides = if diagonal {
                    slides_diagonally(kind_of(q))
                } else {
                    slides_orthogonally(kind_of(q))
                };
                if slides && owned_by(q, owners) {
                    safety.pinned.set(t);
                    safety.pins[safety.pin_count] = (t, i as u8);
                    safety.pin_count += 1;
                }
            }
        }
        safety
    }

    /// Whether any piece is pinned. Read from the count, not the set: the set was just written a word at a
    /// time, and a whole-set comparison would wait for those stores.
    #[inline(always)]
    pub(crate) fn any_pinned(&self) -> bool {
        self.pin_count > 0
    }

    /// The line a pinned piece on `sq` may move along: from the king (exclusive) to the pinner
    /// (inclusive).
    #[inline]
    pub(crate) fn pin_line(&self, board: &[u8; 256], sq: u8) -> Bits {
        let mut line = Bits::EMPTY;
        let Some(&(_, dir)) = self.pins[..self.pin_count].iter().find(|(s, _)| *s == sq) else {
            return line;
        };
        let d = ALL_DIRS[dir as usize];
        let mut t = step(self.king, d);
        let mut blockers = 0;
        loop {
            line.set(t);
            if board[t as usize] != EMPTY {
                blockers += 1;
                if blockers == 2 {
                    return line;
                }
            }
            t = step(t, d);
        }
    }
}

/// Who attacks each square (F.9), per seat: how many pieces (at most two) and the least valuable
/// kind — the bots' evaluation asks it of every piece (threats, defence) and of the nine squares around
/// every king. Built forward from each piece once per position: about a hundred questions then cost a
/// lookup each instead of a scan outward from the square each (a scan per question halved hard's node
/// rate).
#[derive(Debug)]
pub struct AttackMap {
    counts: [[u8; 4]; 256],
    /// Kind code of the least valuable attacker (one-point queens rank as queens), 0 for none.
    least: [[u8; 4]; 256],
}

/// Attacker order for `AttackMap::least`: by value, a one-point queen moving like a queen.
const fn rank(kind: u8) -> u8 {
    if kind == ONE_POINT_QUEEN { QUEEN } else { kind }
}

impl AttackMap {
    pub fn of(pos: &Position) -> AttackMap {
        let mut map = AttackMap {
            counts: [[0; 4]; 256],
            least: [[0; 4]; 256],
        };
        let board = &pos.board;
        for (seat, occ) in pos.occ[..4].iter().enumerate() {
            occ.for_each(|from| {
                let kind = kind_of(board[from as usize]);
                let mut hit = |t: u8| map.add(board, t, seat, kind);
                match kind {
                    PAWN => pawn_captures(Seat::from_index(seat))
                        .into_iter()
                        .for_each(|d| hit(step(from, d))),
                    KNIGHT => KNIGHT_JUMPS.into_iter().for_each(|d| hit(step(from, d))),
                    KING => ALL_DIRS.into_iter().for_each(|d| hit(step(from, d))),
                    _ => {
                        for (i, d) in ALL_DIRS.into_iter().enumerate() {
                            let slides = if i >= 4 {
                                slides_diagonally(kind)
                            } else {
                                slides_orthogonally(kind)
                            };
                            if !slides {
                                continue;
                            }
                            let mut t = step(from, d);
                            while board[t as usize] == EMPTY {
                                hit(t);
                                t = step(t, d);
                            }
                            hit(t);
                        }
                    }
                }
            });
        }
        map
    }

    #[inline(always)]
    fn add(&mut self, board: &[u8; 256], sq: u8, seat: usize, kind: u8) {
        if board[sq as usize] == OFF {
            return;
        }
        let count = &mut self.counts[sq as usize][seat];
        *count = (*count + 1).min(2);
        let least = &mut self.least[sq as usize][seat];
        if *least == 0 || rank(kind) < rank(*least) {
            *least = kind;
        }
    }

    /// How many of `seat`'s pieces attack `sq`: 0, 1, or 2 for two or more.
    #[inline]
    pub fn count(&self, sq: Square, seat: Seat) -> u8 {
        self.counts[sq.index()][seat.index()]
    }

    /// The least valuable of `seat`'s pieces attacking `sq`.
    #[inline]
    pub fn least(&self, sq: Square, seat: Seat) -> Option<Kind> {
        match self.least[sq.index()][seat.index()] {
            0 => None,
            code => Some(Kind::from_code(code)),
        }
    }
}
