//! Legal move generation (F.4–F.9) for the side to move.
//!
//! Checks and pins are found once per position by scanning out from the king ([`KingSafety`]); with them
//! every move except en passant and king steps is known legal without playing it, which is what lets
//! perft count the last ply in bulk. En passant (it removes a second piece) is played on a copy and
//! tested; king steps test the target square with the king lifted off the board.

use crate::Seat;

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

/// Where generated moves go: a list, or just a count (perft's last ply), or whether there is one.
pub(crate) trait MoveSink {
    fn push(&mut self, m: Move);

    /// Whether moves must come in board order (lists: perft's divide and the bots' move ordering rely
    /// on it). A sink that says no gets the pieces in groups and is never asked [`MoveSink::full`].
    const ORDERED: bool = true;

    /// Whether generation may stop (checked between pieces); a constant `false` for the lists and
    /// counts, so their loops compile as before.
    #[inline(always)]
    fn full(&self) -> bool {
        false
    }
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
    const ORDERED: bool = false;

    #[inline(always)]
    fn push(&mut self, _: Move) {
        self.0 += 1;
    }
}

/// Whether any move was generated: stops the generation at the first piece that has one.
struct Found(bool);

impl MoveSink for Found {
    #[inline(always)]
    fn push(&mut self, _: Move) {
        self.0 = true;
    }

    #[inline(always)]
    fn full(&self) -> bool {
        self.0
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

/// Where a piece may land without exposing its king.
trait Targets {
    fn ok(&self, board: &[u8; 256], t: u8) -> bool;
}

/// Anywhere: no check and the piece is not pinned (the common case, so it compiles to no test at all).
struct Anywhere;

impl Targets for Anywhere {
    #[inline(always)]
    fn ok(&self, _: &[u8; 256], _: u8) -> bool {
        true
    }
}

/// Only these squares (the evasion line and/or the pin line), or onto an enemy king in Teams.
struct Within {
    squares: Bits,
    /// Owners whose king may be captured whatever it exposes (F.9 Teams); 0 in FFA.
    king_capture: u32,
}

impl Targets for Within {
    #[inline(always)]
    fn ok(&self, board: &[u8; 256], t: u8) -> bool {
        let code = board[t as usize];
        self.squares.has(t) || (kind_of(code) == KING && owned_by(code, self.king_capture))
    }
}

/// What every piece's generation needs from the position, computed once per position.
struct Context<'a> {
    pos: &'a Position,
    owners: u32,
    /// Where the pieces of `owners` stand.
    enemies: Bits,
    capturable: u32,
    /// Owners whose king may be captured whatever it exposes (F.9 Teams); 0 in FFA.
    king_capture: u32,
    teams: bool,
    promotion_progress: u8,
    /// The passed squares (M) of the en-passant entries this side may take.
    ep_squares: Bits,
    /// Whether `ep_squares` has any (rarely), so pawn captures usually skip the test.
    any_ep: bool,
}

/// The seat is a const parameter so that pawn directions, home rows and promotion rows fold into
/// constants: one copy of the generator per seat.
#[inline(always)]
fn generate<S: MoveSink>(pos: &Position, out: &mut S) {
    match pos.to_move {
        Seat::Red => generate_for::<S, 0>(pos, out),
        Seat::Blue => generate_for::<S, 1>(pos, out),
        Seat::Yellow => generate_for::<S, 2>(pos, out),
        Seat::Green => generate_for::<S, 3>(pos, out),
    }
}

#[inline(always)]
fn generate_for<S: MoveSink, const SEAT: u8>(pos: &Position, out: &mut S) {
    let me = Seat::from_index(SEAT as usize);
    if pos.is_eliminated(me) {
        return;
    }
    let board = &pos.board;
    let owners = pos.attackers_of(me);
    let teams = pos.mode == Mode::Teams;
    let mut ep_squares = Bits::EMPTY;
    let mut any_ep = false;
    for pusher in 0..4 {
        let e = pos.ep[pusher];
        if e.is_some() && (owners >> pusher) & 1 != 0 && pos.is_pawn_of(e.t, pusher) {
            ep_squares.set(e.m);
            any_ep = true;
        }
    }
    let cx = Context {
        pos,
        owners,
        enemies: pos.pieces_of(owners),
        capturable: pos.capturable_by(me),
        king_capture: if teams { owners } else { 0 },
        teams,
        promotion_progress: if teams {
            TEAMS_PROMOTION_PROGRESS
        } else {
            FFA_PROMOTION_PROGRESS
        },
        ep_squares,
        any_ep,
    };
    let king = pos.kings[SEAT as usize];
    let safety = (king != 0).then(|| KingSafety::compute(board, king, SEAT, owners, &cx.enemies));
    let checkers = safety.map_or(0, |s| s.checkers);
    let own = pos.occ[SEAT as usize];
    // Not in check and nothing pinned (most positions): every non-king move is legal as generated.
    let constraints = safety.filter(|s| s.checkers > 0 || s.any_pinned());

    if !S::ORDERED {
        // A count takes the pieces in any order: each group with the one test it needs, none per piece.
        let others = own.minus(&Bits::single(king));
        let free = match &constraints {
            None => others,
            Some(s) if s.checkers == 0 => {
                s.pinned
                    .for_each(|from| constrained_moves::<S, SEAT>(&cx, s, from, out));
                others.minus(&s.pinned)
            }
            Some(s) if s.checkers == 1 => {
                others.for_each(|from| constrained_moves::<S, SEAT>(&cx, s, from, out));
                Bits::EMPTY
            }
            // Double check: only the king moves.
            Some(_) => Bits::EMPTY,
        };
        free.for_each(|from| {
            let kind = kind_of(board[from as usize]);
            piece_moves::<S, _, SEAT>(&cx, from, kind, &Anywhere, out);
        });
        if king != 0 {
            king_moves(&cx, king, checkers, out);
        }
        return;
    }

    for from in own.iter() {
        if out.full() {
            break;
        }
        let kind = kind_of(board[from as usize]);
        if kind == KING {
            king_moves(&cx, from, checkers, out);
        } else if let Some(s) = constraints
            .as_ref()
            .filter(|s| s.checkers > 0 || s.pinned.has(from))
        {
            constrained_moves::<S, SEAT>(&cx, s, from, out);
        } else {
            piece_moves::<S, _, SEAT>(&cx, from, kind, &Anywhere, out);
        }
    }
}

/// The moves of the pinned or checked side's non-king piece on `from`: onto the evasion line with one
/// checker, none with two, and a pinned piece only along its pin.
#[inline(always)]
fn constrained_moves<S: MoveSink, const SEAT: u8>(
    cx: &Context,
    s: &KingSafety,
    from: u8,
    out: &mut S,
) {
    let board = &cx.pos.board;
    let mut squares = match s.checkers {
        0 => Bits([!0; 4]),
        1 => s.evasion,
        _ => return,
    };
    if s.pinned.has(from) {
        squares = squares.intersection(&s.pin_line(board, from));
    }
    let within = Within {
        squares,
        king_capture: cx.king_capture,
    };
    piece_moves::<S, _, SEAT>(cx, from, kind_of(board[from as usize]), &within, out);
}

/// The moves of the non-king piece `kind` on `from` that land on `targets`.
#[inline(always)]
fn piece_moves<S: MoveSink, T: Targets, const SEAT: u8>(
    cx: &Context,
    from: u8,
    kind: u8,
    targets: &T,
    out: &mut S,
) {
    let me = Seat::from_index(SEAT as usize);
    let board = &cx.pos.board;
    let capturable = cx.capturable;
    match kind {
        PAWN => {
            let fwd = pawn_forward(me);
            let row = progress(me, from);
            // A push and both captures land one row further on, so they promote together.
            let promotes = row + 1 == cx.promotion_progress;
            let t1 = step(from, fwd);
            if board[t1 as usize] == EMPTY {
                if targets.ok(board, t1) {
                    push_pawn(out, from, t1, 0, cx.teams, promotes);
                }
                let t2 = step(t1, fwd);
                if row == HOME_PROGRESS && board[t2 as usize] == EMPTY && targets.ok(board, t2) {
                    out.push(Move::new(from, t2, 0, DOUBLE_PUSH));
                }
            }
            for c in pawn_captures(me) {
                let t = step(from, c);
                let p = board[t as usize];
                if cx.any_ep && cx.ep_squares.has(t) && (p == EMPTY || owned_by(p, capturable)) {
                    // F.6: en passant, and the double capture when a capturable piece stands on M.
                    let candidate = Move::new(from, t, 0, EN_PASSANT);
                    let takes_king = kind_of(p) == KING && owned_by(p, cx.king_capture);
                    if takes_king || leaves_king_safe(cx.pos, candidate) {
                        push_pawn(out, from, t, EN_PASSANT, cx.teams, promotes);
                    }
                } else if p != EMPTY && owned_by(p, capturable) && targets.ok(board, t) {
                    push_pawn(out, from, t, 0, cx.teams, promotes);
                }
            }
        }
        KNIGHT => {
            for d in KNIGHT_JUMPS {
                let t = step(from, d);
                let p = board[t as usize];
                if (p == EMPTY || owned_by(p, capturable)) && targets.ok(board, t) {
                    out.push(Move::new(from, t, 0, 0));
                }
            }
        }
        _ => {
            debug_assert!(matches!(kind, BISHOP | ROOK | QUEEN | ONE_POINT_QUEEN));
            let dirs: &[i16] = match kind {
                BISHOP => &DIAG,
                ROOK => &ORTHO,
                _ => &ALL_DIRS,
            };
            for &d in dirs {
                let mut t = step(from, d);
                loop {
                    let p = board[t as usize];
                    if p == EMPTY {
                        if targets.ok(board, t) {
                            out.push(Move::new(from, t, 0, 0));
                        }
                        t = step(t, d);
                        continue;
                    }
                    if owned_by(p, capturable) && targets.ok(board, t) {
                        out.push(Move::new(from, t, 0, 0));
                    }
                    break;
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

fn king_moves<S: MoveSink>(cx: &Context, from: u8, checkers: u32, out: &mut S) {
    let pos = cx.pos;
    let (owners, capturable, teams) = (cx.owners, cx.capturable, cx.teams);
    let board = &pos.board;
    for d in ALL_DIRS {
        let t = step(from, d);
        let p = board[t as usize];
        if p == EMPTY || owned_by(p, capturable) {
            let captures_king = teams && kind_of(p) == KING && owned_by(p, owners);
            if captures_king || !is_attacked(board, t, owners, &cx.enemies, from) {
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
                || is_attacked(board, c.rook_to, owners, &cx.enemies, c.rook_to)
                || is_attacked(board, c.king_to, owners, &cx.enemies, c.king_to)
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
    k == 0 || !is_attacked(&after.board, k, owners, &after.pieces_of(owners), k)
}

/// Whether `seat`'s king is attacked by its live opponents.
pub(crate) fn in_check(pos: &Position, seat: crate::Seat) -> bool {
    let k = pos.kings[seat as usize];
    let owners = pos.attackers_of(seat);
    k != 0 && is_attacked(&pos.board, k, owners, &pos.pieces_of(owners), k)
}

/// Whether the side to move has any legal move. Every move's rules ask this (F.11, F.13, F.16, F.20),
/// so it stops at the first piece with a move and allocates nothing.
pub(crate) fn has_legal_move(pos: &Position) -> bool {
    let mut found = Found(false);
    generate(pos, &mut found);
    found.0
}
