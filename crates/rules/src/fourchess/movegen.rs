//! Legal move generation (F.4–F.9) for the side to move.
//!
//! Checks and pins are found once per position by scanning out from the king ([`KingSafety`]); with them
//! every move except en passant and king steps is known legal without playing it, which is what lets
//! perft count the last ply in bulk. En passant (it removes a second piece) is played on a copy and
//! tested; king steps test the target square with the king lifted off the board.

use super::attacks::{KingSafety, is_attacked};
use super::bits::Bits;
use super::geometry::{
    ALL_DIRS, CASTLES, DIAG, FFA_PROMOTION_PROGRESS, HOME_PROGRESS, KNIGHT as KNIGHT_JUMPS, ORTHO,
    TEAMS_PROMOTION_PROGRESS, castle_bit, pawn_captures, pawn_forward, progress, step,
};
use super::moves::{CASTLE_LONG, CASTLE_SHORT, DOUBLE_PUSH, EN_PASSANT, Move};
use super::options::Mode;
use super::piece::{
    BISHOP, EMPTY, KING, KNIGHT, ONE_POINT_QUEEN, PAWN, QUEEN, ROOK, kind_of, owner_of,
};
use super::position::Position;

#[inline(always)]
fn owned_by(code: u8, owners: u32) -> bool {
    (owners >> owner_of(code)) & 1 != 0
}

/// Where generated moves go: a list, or just a count (perft's last ply).
pub(crate) trait MoveSink {
    fn push(&mut self, m: Move);
}

impl MoveSink for Vec<Move> {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        Vec::push(self, m);
    }
}

/// Counts moves without storing them.
#[derive(Debug, Default)]
pub(crate) struct Counter(pub u64);

impl MoveSink for Counter {
    #[inline(always)]
    fn push(&mut self, _: Move) {
        self.0 += 1;
    }
}

/// Appends the legal moves of the side to move to `out`.
pub(crate) fn legal_moves(pos: &Position, out: &mut Vec<Move>) {
    generate(pos, out);
}

/// The number of legal moves of the side to move.
pub(crate) fn count_legal_moves(pos: &Position) -> u64 {
    let mut counter = Counter(0);
    generate(pos, &mut counter);
    counter.0
}

#[inline(always)]
fn generate<S: MoveSink>(pos: &Position, out: &mut S) {
    let me = pos.to_move;
    let seat = me as u8;
    if pos.is_eliminated(me) {
        return;
    }
    let board = &pos.board;
    let owners = pos.attackers_of(me);
    let capturable = pos.capturable_by(me);
    let teams = pos.mode == Mode::Teams;
    let king = pos.kings[me as usize];
    let safety = (king != 0).then(|| KingSafety::compute(board, king, seat, owners));
    let promotion_progress = if teams {
        TEAMS_PROMOTION_PROGRESS
    } else {
        FFA_PROMOTION_PROGRESS
    };
    // F.9, Teams: capturing an enemy king is always legal, whatever it leaves attacked.
    let king_capture = |code: u8| teams && kind_of(code) == KING && owned_by(code, owners);

    let mut ep_squares = Bits::EMPTY;
    for pusher in 0..4 {
        let e = pos.ep[pusher];
        if e.is_some() && (owners >> pusher) & 1 != 0 && pos.is_pawn_of(e.t, pusher) {
            ep_squares.set(e.m);
        }
    }

    for from in pos.occ[seat as usize].iter() {
        let kind = kind_of(board[from as usize]);
        if kind == KING {
            king_moves(
                pos,
                from,
                owners,
                capturable,
                teams,
                safety.map_or(0, |s| s.checkers),
                out,
            );
            continue;
        }
        // Where this piece may land without exposing its king; `None` = anywhere.
        let restrict: Option<Bits> = match &safety {
            None => None,
            Some(s) if s.checkers >= 2 => Some(Bits::EMPTY),
            Some(s) => {
                let mut r = (s.checkers == 1).then_some(s.evasion);
                if s.pinned.has(from) {
                    let line = s.pin_line(board, from);
                    r = Some(match r {
                        Some(e) => Bits(std::array::from_fn(|w| e.0[w] & line.0[w])),
                        None => line,
                    });
                }
                r
            }
        };
        let ok = |t: u8| restrict.is_none_or(|b| b.has(t)) || king_capture(board[t as usize]);
        match kind {
            PAWN => {
                let fwd = pawn_forward(me);
                let t1 = step(from, fwd);
                if board[t1 as usize] == EMPTY {
                    if ok(t1) {
                        push_pawn(
                            out,
                            from,
                            t1,
                            0,
                            teams,
                            progress(me, t1) == promotion_progress,
                        );
                    }
                    let t2 = step(t1, fwd);
                    if progress(me, from) == HOME_PROGRESS && board[t2 as usize] == EMPTY && ok(t2)
                    {
                        out.push(Move::new(from, t2, 0, DOUBLE_PUSH));
                    }
                }
                for c in pawn_captures(me) {
                    let t = step(from, c);
                    let p = board[t as usize];
                    let promotes = progress(me, t) == promotion_progress;
                    if ep_squares.has(t) && (p == EMPTY || owned_by(p, capturable)) {
                        // F.6: en passant, and the double capture when a capturable piece stands on M.
                        let candidate = Move::new(from, t, 0, EN_PASSANT);
                        if king_capture(p) || leaves_king_safe(pos, candidate) {
                            push_pawn(out, from, t, EN_PASSANT, teams, promotes);
                        }
                    } else if p != EMPTY && owned_by(p, capturable) && ok(t) {
                        push_pawn(out, from, t, 0, teams, promotes);
                    }
                }
            }
            KNIGHT => {
                for d in KNIGHT_JUMPS {
                    let t = step(from, d);
                    let p = board[t as usize];
                    if (p == EMPTY || owned_by(p, capturable)) && ok(t) {
                        out.push(Move::new(from, t, 0, 0));
                    }
                }
            }
            _ => {
                let dirs: &[i16] = match kind {
                    BISHOP => &DIAG,
                    ROOK => &ORTHO,
                    _ => &ALL_DIRS,
                };
                debug_assert!(matches!(kind, BISHOP | ROOK | QUEEN | ONE_POINT_QUEEN));
                for &d in dirs {
                    let mut t = step(from, d);
                    loop {
                        let p = board[t as usize];
                        if p == EMPTY {
                            if ok(t) {
                                out.push(Move::new(from, t, 0, 0));
                            }
                            t = step(t, d);
                            continue;
                        }
                        if owned_by(p, capturable) && ok(t) {
                            out.push(Move::new(from, t, 0, 0));
                        }
                        break;
                    }
                }
            }
        }
    }
}

#[inline(always)]
fn push_pawn<S: MoveSink>(out: &mut S, from: u8, to: u8, flags: u8, teams: bool, promotes: bool) {
    if !promotes {
        out.push(Move::new(from, to, 0, flags));
    } else if teams {
        // F.8 Teams: queen, rook, bishop or knight.
        for kind in [QUEEN, ROOK, BISHOP, KNIGHT] {
            out.push(Move::new(from, to, kind, flags));
        }
    } else {
        // F.8 FFA: a one-point queen only.
        out.push(Move::new(from, to, ONE_POINT_QUEEN, flags));
    }
}

fn king_moves<S: MoveSink>(
    pos: &Position,
    from: u8,
    owners: u32,
    capturable: u32,
    teams: bool,
    checkers: u32,
    out: &mut S,
) {
    let board = &pos.board;
    for d in ALL_DIRS {
        let t = step(from, d);
        let p = board[t as usize];
        if p == EMPTY || owned_by(p, capturable) {
            let captures_king = teams && kind_of(p) == KING && owned_by(p, owners);
            if captures_king || !is_attacked(board, t, owners, from) {
                out.push(Move::new(from, t, 0, 0));
            }
        }
    }
    // F.7: castling, never out of check, through or into an attacked square.
    let me = pos.to_move as usize;
    if checkers == 0 && pos.castling & (3 << (2 * me)) != 0 {
        for (side, flag) in [(0, CASTLE_SHORT), (1, CASTLE_LONG)] {
            let c = CASTLES[me][side];
            if pos.castling & castle_bit(pos.to_move, side) == 0
                || from != c.king_from
                || board[c.rook_from as usize] != (me as u8) << 3 | ROOK
                || c.empty[..c.empty_len as usize]
                    .iter()
                    .any(|&s| board[s as usize] != EMPTY)
                || is_attacked(board, c.rook_to, owners, c.rook_to)
                || is_attacked(board, c.king_to, owners, c.king_to)
            {
                continue;
            }
            out.push(Move::new(from, c.king_to, 0, flag));
        }
    }
}

/// Plays `m` on a copy and tests the mover's king.
fn leaves_king_safe(pos: &Position, m: Move) -> bool {
    let me = pos.to_move;
    let owners = pos.attackers_of(me);
    let mut after = pos.clone();
    after.make(m);
    let k = after.kings[me as usize];
    k == 0 || !is_attacked(&after.board, k, owners, k)
}

/// Whether `seat`'s king is attacked by its live opponents.
pub(crate) fn in_check(pos: &Position, seat: crate::Seat) -> bool {
    let k = pos.kings[seat as usize];
    k != 0 && is_attacked(&pos.board, k, pos.attackers_of(seat), k)
}

/// Whether the side to move has any legal move.
pub(crate) fn has_legal_move(pos: &Position) -> bool {
    let mut buf = Vec::with_capacity(64);
    legal_moves(pos, &mut buf);
    !buf.is_empty()
}
