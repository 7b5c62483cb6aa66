//! Perft (spec section 8 and 7b): the number of sequences of exactly `depth` legal moves, the rules deciding
//! who moves next. Captures, mates, stalemates and eliminations apply; repetition, the fifty-move count and
//! the move limit do not. A king capture (Teams), a mate or stalemate (Teams) or the FFA end (F.22) finishes
//! the game, so such a line only counts when it ends exactly at `depth`.
//!
//! The last ply is counted in bulk: the legal moves of the position at depth 1 are generated (legality
//! comes from the pin and check scan) and counted, not played.

use super::fen4::Setup;
use super::movegen::{count_legal_moves, legal_moves};
use super::moves::Move;
use super::options::Mode;
use super::piece::{GREY, KING, kind_of};
use super::position::Position;
use super::state::State;

/// Counts the leaves `depth` plies below `setup`.
pub fn perft(setup: &Setup, depth: u32) -> u64 {
    let (state, _) = State::new(setup);
    if state.end.is_some() {
        return u64::from(depth == 0);
    }
    let mut buf = Vec::with_capacity(4096);
    match setup.position.mode {
        Mode::Teams => teams(&state.pos, depth, &mut buf),
        Mode::Ffa => ffa(&state, depth, &mut buf),
    }
}

/// The count below each legal root move, in generation order.
pub fn perft_divide(setup: &Setup, depth: u32) -> Vec<(Move, u64)> {
    let (state, _) = State::new(setup);
    if state.end.is_some() || depth == 0 {
        return Vec::new();
    }
    let mut roots = Vec::new();
    legal_moves(&state.pos, &mut roots);
    let mut buf = Vec::with_capacity(4096);
    roots
        .into_iter()
        .map(|m| {
            let count = if depth == 1 {
                1
            } else {
                match setup.position.mode {
                    Mode::Teams if captures_king(&state.pos, m) => 0,
                    Mode::Teams => {
                        let mut child = state.pos.clone();
                        child.make(m);
                        teams(&child, depth - 1, &mut buf)
                    }
                    Mode::Ffa => {
                        let mut child = state.clone();
                        child.play(m);
                        ffa(&child, depth - 1, &mut buf)
                    }
                }
            };
            (m, count)
        })
        .collect()
}

#[inline(always)]
fn captures_king(pos: &Position, m: Move) -> bool {
    let code = pos.board[m.to as usize];
    kind_of(code) == KING && code >> 3 != GREY
}

/// Teams: a position whose side to move has no legal move is a finished game (mate or stalemate, F.11,
/// F.13) and contributes nothing; a king capture finishes the game at once (F.12).
fn teams(pos: &Position, depth: u32, buf: &mut Vec<Move>) -> u64 {
    match depth {
        0 => return 1,
        1 => return count_legal_moves(pos),
        _ => {}
    }
    let start = buf.len();
    legal_moves(pos, buf);
    let end = buf.len();
    let mut total = 0;
    for i in start..end {
        let m = buf[i];
        if captures_king(pos, m) {
            continue;
        }
        let mut child = pos.clone();
        child.make(m);
        total += teams(&child, depth - 1, buf);
    }
    buf.truncate(start);
    total
}

/// FFA: the full rules of a move (mates and eliminations change who moves next, points decide F.22).
fn ffa(state: &State, depth: u32, buf: &mut Vec<Move>) -> u64 {
    if depth == 0 {
        return 1;
    }
    if state.end.is_some() {
        return 0;
    }
    if depth == 1 {
        return count_legal_moves(&state.pos);
    }
    let start = buf.len();
    legal_moves(&state.pos, buf);
    let end = buf.len();
    let mut total = 0;
    for i in start..end {
        let mut child = state.clone();
        child.play_with(buf[i], &mut ());
        total += ffa(&child, depth - 1, buf);
    }
    buf.truncate(start);
    total
}
