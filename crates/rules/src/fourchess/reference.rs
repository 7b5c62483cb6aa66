//! A deliberately naive, independent legal-move generator for tests: plain (file, rank) geometry, every
//! candidate played on a copy and the king tested by looking at every enemy piece. It shares nothing with
//! the fast generator except `Position::make`, so agreement between the two on random games is evidence
//! for the pin/check logic, en passant, castling and promotion.

use crate::Seat;

use super::geometry::Square;
use super::moves::{CASTLE_LONG, CASTLE_SHORT, DOUBLE_PUSH, EN_PASSANT, Move};
use super::options::Mode;
use super::piece::{Kind, Owner, Piece};
use super::position::Position;

/// King from, king to, rook from, rook to, squares that must be empty.
type Castle = (
    (i32, i32),
    (i32, i32),
    (i32, i32),
    (i32, i32),
    &'static [(i32, i32)],
);

fn at(pos: &Position, file: i32, rank: i32) -> Option<Option<Piece>> {
    if !(0..14).contains(&file) || !(0..14).contains(&rank) {
        return None;
    }
    let sq = Square::new(file as u8, rank as u8)?;
    Some(pos.piece_at(sq))
}

fn sq(file: i32, rank: i32) -> u8 {
    Square::new(file as u8, rank as u8).unwrap().0
}

fn enemies(pos: &Position, me: Seat) -> Vec<Seat> {
    Seat::ALL
        .into_iter()
        .filter(|&s| s != me && !pos.is_eliminated(s))
        .filter(|&s| pos.mode() == Mode::Ffa || s != me.opposite())
        .collect()
}

fn forward(seat: Seat) -> (i32, i32) {
    match seat {
        Seat::Red => (0, 1),
        Seat::Blue => (1, 0),
        Seat::Yellow => (0, -1),
        Seat::Green => (-1, 0),
    }
}

fn pawn_caps(seat: Seat) -> [(i32, i32); 2] {
    let (df, dr) = forward(seat);
    if df == 0 {
        [(1, dr), (-1, dr)]
    } else {
        [(df, 1), (df, -1)]
    }
}

fn is_home(seat: Seat, file: i32, rank: i32) -> bool {
    match seat {
        Seat::Red => rank == 1,
        Seat::Blue => file == 1,
        Seat::Yellow => rank == 12,
        Seat::Green => file == 12,
    }
}

fn promotes(seat: Seat, mode: Mode, file: i32, rank: i32) -> bool {
    let line = if mode == Mode::Teams { 10 } else { 7 };
    match seat {
        Seat::Red => rank == line,
        Seat::Blue => file == line,
        Seat::Yellow => rank == 13 - line,
        Seat::Green => file == 13 - line,
    }
}

const ROOK_DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
const KNIGHT_JUMPS: [(i32, i32); 8] = [
    (1, 2),
    (2, 1),
    (-1, 2),
    (-2, 1),
    (1, -2),
    (2, -1),
    (-1, -2),
    (-2, -1),
];

fn attacks(pos: &Position, from: (i32, i32), piece: Piece, target: (i32, i32)) -> bool {
    let (df, dr) = (target.0 - from.0, target.1 - from.1);
    let slide = |dirs: &[(i32, i32)]| {
        dirs.iter().any(|&(sf, sr)| {
            let (mut f, mut r) = (from.0 + sf, from.1 + sr);
            while let Some(content) = at(pos, f, r) {
                if (f, r) == target {
                    return true;
                }
                if content.is_some() {
                    return false;
                }
                f += sf;
                r += sr;
            }
            false
        })
    };
    match piece.kind {
        Kind::Pawn => match piece.owner {
            Owner::Seat(s) => pawn_caps(s).contains(&(df, dr)),
            Owner::Grey => false,
        },
        Kind::Knight => KNIGHT_JUMPS.contains(&(df, dr)),
        Kind::King => df.abs() <= 1 && dr.abs() <= 1 && (df, dr) != (0, 0),
        Kind::Bishop => slide(&BISHOP_DIRS),
        Kind::Rook => slide(&ROOK_DIRS),
        Kind::Queen | Kind::OnePointQueen => slide(&BISHOP_DIRS) || slide(&ROOK_DIRS),
    }
}

fn attacked_by(pos: &Position, target: (i32, i32), by: &[Seat]) -> bool {
    Square::all().any(|s| match pos.piece_at(s) {
        Some(
            p @ Piece {
                owner: Owner::Seat(o),
                ..
            },
        ) if by.contains(&o) => attacks(pos, (s.file() as i32, s.rank() as i32), p, target),
        _ => false,
    })
}

/// Legal moves by brute force.
pub(crate) fn naive_legal_moves(pos: &Position) -> Vec<Move> {
    let me = pos.to_move();
    if pos.is_eliminated(me) {
        return Vec::new();
    }
    let foes = enemies(pos, me);
    let teams = pos.mode() == Mode::Teams;
    let capturable = |p: Piece| match p.owner {
        Owner::Grey => true,
        Owner::Seat(s) => foes.contains(&s),
    };
    let mut candidates = Vec::new();
    for s in Square::all() {
        let Some(piece) = pos.piece_at(s) else {
            continue;
        };
        if piece.owner != Owner::Seat(me) {
            continue;
        }
        let (f, r) = (s.file() as i32, s.rank() as i32);
        let mut add = |tf: i32, tr: i32, flags: u8, promo: bool| {
            if promo {
                let kinds: &[Kind] = if teams {
                    &[Kind::Queen, Kind::Rook, Kind::Bishop, Kind::Knight]
                } else {
                    &[Kind::OnePointQueen]
                };
                for &k in kinds {
                    candidates.push(Move::new(s.0, sq(tf, tr), k as u8, flags));
                }
            } else {
                candidates.push(Move::new(s.0, sq(tf, tr), 0, flags));
            }
        };
        match piece.kind {
            Kind::Pawn => {
                let (df, dr) = forward(me);
                if at(pos, f + df, r + dr) == Some(None) {
                    add(f + df, r + dr, 0, promotes(me, pos.mode(), f + df, r + dr));
                    if is_home(me, f, r) && at(pos, f + 2 * df, r + 2 * dr) == Some(None) {
                        add(f + 2 * df, r + 2 * dr, DOUBLE_PUSH, false);
                    }
                }
                for (cf, cr) in pawn_caps(me) {
                    let (tf, tr) = (f + cf, r + cr);
                    let Some(content) = at(pos, tf, tr) else {
                        continue;
                    };
                    let promo = promotes(me, pos.mode(), tf, tr);
                    let ep = foes.iter().any(|&x| {
                        pos.en_passant(x).is_some_and(|(m, t)| {
                            m == Square::new(tf as u8, tr as u8).unwrap()
                                && pos.piece_at(t) == Some(Piece::new(Owner::Seat(x), Kind::Pawn))
                        })
                    });
                    match content {
                        None if ep => add(tf, tr, EN_PASSANT, promo),
                        Some(p) if capturable(p) => {
                            add(tf, tr, if ep { EN_PASSANT } else { 0 }, promo)
                        }
                        _ => {}
                    }
                }
            }
            _ => {
                let (dirs, reach): (&[(i32, i32)], i32) = match piece.kind {
                    Kind::Knight => (&KNIGHT_JUMPS, 1),
                    Kind::Bishop => (&BISHOP_DIRS, 13),
                    Kind::Rook => (&ROOK_DIRS, 13),
                    Kind::King => (
                        &[
                            (1, 0),
                            (-1, 0),
                            (0, 1),
                            (0, -1),
                            (1, 1),
                            (1, -1),
                            (-1, 1),
                            (-1, -1),
                        ],
                        1,
                    ),
                    _ => (
                        &[
                            (1, 0),
                            (-1, 0),
                            (0, 1),
                            (0, -1),
                            (1, 1),
                            (1, -1),
                            (-1, 1),
                            (-1, -1),
                        ],
                        13,
                    ),
                };
                for &(df, dr) in dirs {
                    for n in 1..=reach {
                        let (tf, tr) = (f + n * df, r + n * dr);
                        match at(pos, tf, tr) {
                            None => break,
                            Some(None) => add(tf, tr, 0, false),
                            Some(Some(p)) => {
                                if capturable(p) {
                                    add(tf, tr, 0, false);
                                }
                                break;
                            }
                        }
                    }
                }
            }
        }
    }
    // Castling, straight from the F.7 table.
    let table: [[Castle; 2]; 4] = [
        [
            ((7, 0), (9, 0), (10, 0), (8, 0), &[(8, 0), (9, 0)]),
            ((7, 0), (5, 0), (3, 0), (6, 0), &[(4, 0), (5, 0), (6, 0)]),
        ],
        [
            ((0, 6), (0, 4), (0, 3), (0, 5), &[(0, 4), (0, 5)]),
            ((0, 6), (0, 8), (0, 10), (0, 7), &[(0, 7), (0, 8), (0, 9)]),
        ],
        [
            ((6, 13), (4, 13), (3, 13), (5, 13), &[(4, 13), (5, 13)]),
            (
                (6, 13),
                (8, 13),
                (10, 13),
                (7, 13),
                &[(7, 13), (8, 13), (9, 13)],
            ),
        ],
        [
            ((13, 7), (13, 9), (13, 10), (13, 8), &[(13, 8), (13, 9)]),
            (
                (13, 7),
                (13, 5),
                (13, 3),
                (13, 6),
                &[(13, 4), (13, 5), (13, 6)],
            ),
        ],
    ];
    for (side, &(k, kt, rk, rt, empty)) in table[me.index()].iter().enumerate() {
        let own = |kind| Some(Some(Piece::new(Owner::Seat(me), kind)));
        if pos.can_castle(me, side == 1)
            && at(pos, k.0, k.1) == own(Kind::King)
            && at(pos, rk.0, rk.1) == own(Kind::Rook)
            && empty.iter().all(|&(f, r)| at(pos, f, r) == Some(None))
            && ![k, rt, kt].iter().any(|&t| attacked_by(pos, t, &foes))
        {
            candidates.push(Move::new(
                sq(k.0, k.1),
                sq(kt.0, kt.1),
                0,
                if side == 0 { CASTLE_SHORT } else { CASTLE_LONG },
            ));
        }
    }
    candidates
        .into_iter()
        .filter(|&m| {
            let target = pos.piece_at(Square(m.to));
            let king_capture = matches!(target, Some(Piece { kind: Kind::King, owner: Owner::Seat(o) }) if foes.contains(&o));
            if teams && king_capture {
                return true;
            }
            let mut after = pos.clone();
            after.make(m);
            match Square::all().find(|&s| after.piece_at(s) == Some(Piece::new(Owner::Seat(me), Kind::King))) {
                None => true,
                Some(k) => !attacked_by(&after, (k.file() as i32, k.rank() as i32), &foes),
            }
        })
        .collect()
}
