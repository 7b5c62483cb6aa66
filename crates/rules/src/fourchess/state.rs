//! The rules applied to a move (F.10–F.22): captures and points, king capture, FFA check bonuses, immediate
//! FFA mates, eliminations, and the turn passing to the next player who can move. Draw rules that need the
//! game's history (repetition, fifty moves, move limit) live in [`super::game`]; this is what perft plays.

use crate::Seat;

use super::attacks::for_each_attacker;
use super::fen4::Setup;
use super::movegen::{has_legal_move, in_check};
use super::moves::Move;
use super::options::Mode;
use super::outcome::EndReason;
use super::piece::{GREY, KING, Kind, Piece, kind_of};
use super::position::Position;

/// A piece taken by a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Capture {
    pub square: super::geometry::Square,
    pub piece: Piece,
    /// Points to the mover (FFA, F.19); 0 in Teams.
    pub points: u32,
}

/// Why a player left the game (FFA).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ElimCause {
    /// F.16 (or, on its own turn, in check with no move).
    Checkmate,
    /// F.17.
    KingCaptured,
    /// F.20: +20 to the stalemated player.
    Stalemate,
    /// F.21.
    Resigned,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Elimination {
    pub seat: Seat,
    pub cause: ElimCause,
    /// Points this elimination gave (to the mover for a mate or king capture, to the player itself for a
    /// stalemate).
    pub points: u32,
}

/// What one move did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MoveReport {
    pub seat: Seat,
    pub mv: super::moves::MoveText,
    pub piece: Kind,
    /// `Some(true)` long castling, `Some(false)` short.
    pub castling_long: Option<bool>,
    pub en_passant: bool,
    pub captures: Vec<Capture>,
    /// Live opponents' kings attacked by the mover's pieces after the move.
    pub checks: Vec<Seat>,
    /// FFA check bonus (F.19).
    pub check_bonus: u32,
    /// Players checkmated by this move (FFA F.16; Teams: the next player, mated on its turn, F.11).
    pub mated: Vec<Seat>,
    /// Points the mover earned with this move (captures, mates, check bonus).
    pub points: u32,
}

/// What one move did, without allocating: the search's view of a [`MoveReport`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Played {
    /// Who moved.
    pub seat: Seat,
    /// The piece that moved (before a promotion).
    pub piece: Kind,
    /// What it took: the piece on the target square, then a second one for an en-passant double
    /// capture (F.6).
    pub captures: [Option<Capture>; 2],
    /// Live opponents' kings attacked by the mover's pieces after the move, a bit per seat
    /// (`1 << seat as u8`).
    pub checks: u8,
    /// FFA check bonus (F.19).
    pub check_bonus: u32,
    /// Players checkmated by this move, a bit per seat (FFA F.16; Teams: the next player, mated on
    /// its turn, F.11).
    pub mated: u8,
    /// Points the mover earned with this move (captures, mates, check bonus).
    pub points: u32,
}

impl Played {
    /// Whether the move took a piece.
    pub fn is_capture(&self) -> bool {
        self.captures[0].is_some() || self.captures[1].is_some()
    }

    /// The full report of the move `m` this was.
    pub(crate) fn report(&self, m: Move) -> MoveReport {
        MoveReport {
            seat: self.seat,
            mv: m.text(),
            piece: self.piece,
            castling_long: m.castling_long(),
            en_passant: m.is_en_passant(),
            captures: self.captures.iter().flatten().copied().collect(),
            checks: seats(self.checks).collect(),
            check_bonus: self.check_bonus,
            mated: seats(self.mated).collect(),
            points: self.points,
        }
    }
}

/// The seats of a bit-per-seat mask, in seat order.
fn seats(mask: u8) -> impl Iterator<Item = Seat> {
    Seat::ALL
        .into_iter()
        .filter(move |s| mask & (1 << *s as u8) != 0)
}

/// Where the rules of a move put the eliminations it caused: a list for [`super::Game`], nowhere for
/// the search.
pub(crate) trait Journal {
    fn eliminated(&mut self, elimination: Elimination);
}

impl Journal for Vec<Elimination> {
    fn eliminated(&mut self, elimination: Elimination) {
        self.push(elimination);
    }
}

impl Journal for () {
    fn eliminated(&mut self, _: Elimination) {}
}

/// Position plus points and a rules end; always *settled*: the game is over or the side to move has a
/// legal move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct State {
    pub pos: Position,
    pub points: [u32; 4],
    pub end: Option<EndReason>,
}

impl State {
    pub fn new(setup: &Setup) -> (State, Vec<Elimination>) {
        let mut state = State {
            pos: setup.position.clone(),
            points: setup.points,
            end: None,
        };
        let mut eliminations = Vec::new();
        let turn = state.pos.to_move;
        if state.pos.is_eliminated(turn) {
            let next = state.pos.next_live_after(turn);
            state.pos.set_to_move(next);
        }
        if state.pos.mode == Mode::Teams {
            // A Teams position with a king gone is a finished game (F.12).
            if let Some(seat) = Seat::ALL
                .into_iter()
                .find(|s| state.pos.kings[s.index()] == 0)
            {
                // Who took it is not in the position: say the last mover (the seat before the one to move).
                let by = Seat::from_index(state.pos.to_move.index() + 3);
                state.end = Some(EndReason::KingCaptured { by, king_of: seat });
            }
        } else {
            state.ffa_end_check();
        }
        state.settle(&mut eliminations);
        (state, eliminations)
    }

    /// Plays a legal move of the side to move; returns what it did and the eliminations it caused, in
    /// order (including later players stalemated on their turn).
    pub fn play(&mut self, m: Move) -> (MoveReport, Vec<Elimination>) {
        let mut eliminations = Vec::new();
        let played = self.play_with(m, &mut eliminations);
        (played.report(m), eliminations)
    }

    /// The rules of a move (F.10–F.22) without allocating: what the mover did comes back as a
    /// [`Played`], eliminations go to `journal` (the search keeps none: `()`).
    pub(crate) fn play_with<J: Journal>(&mut self, m: Move, journal: &mut J) -> Played {
        let me = self.pos.to_move;
        let mode = self.pos.mode;
        let piece = Kind::from_code(self.pos.board[m.from as usize]);
        let removed = self.pos.make(m);
        let mut played = Played {
            seat: me,
            piece,
            captures: [None; 2],
            checks: 0,
            check_bonus: 0,
            mated: 0,
            points: 0,
        };
        let mut king_victim = None;
        for (slot, (sq, code)) in removed.pieces.into_iter().enumerate() {
            if code == 0 {
                continue;
            }
            let grey = code >> 3 == GREY;
            let kind = Kind::from_code(code);
            if kind_of(code) == KING && !grey {
                king_victim = Some(Seat::from_index((code >> 3) as usize));
            }
            let points = if mode == Mode::Teams || grey {
                0
            } else {
                kind.points()
            };
            played.captures[slot] = Some(Capture {
                square: super::geometry::Square(sq),
                piece: Piece::from_code(code).expect("a captured piece"),
                points,
            });
            played.points += points;
        }
        match mode {
            Mode::Teams => {
                played.checks = self.checks_by(me).0;
                if let Some(victim) = king_victim {
                    self.end = Some(EndReason::KingCaptured {
                        by: me,
                        king_of: victim,
                    });
                    return played;
                }
                if let Some(mated) = self.settle(journal) {
                    played.mated = 1 << mated as u8;
                }
            }
            Mode::Ffa => {
                if let Some(victim) = king_victim {
                    // F.17: 20 points (counted above), the owner is out.
                    self.pos.eliminate(victim);
                    journal.eliminated(Elimination {
                        seat: victim,
                        cause: ElimCause::KingCaptured,
                        points: Kind::King.points(),
                    });
                }
                let (checks, all_queens) = self.checks_by(me);
                // F.19 with 7b: kings mated by this move count too; a one-point queen is a queen.
                played.check_bonus = match (checks.count_ones(), all_queens) {
                    (2, false) => 5,
                    (2, true) => 1,
                    (3, false) => 20,
                    (3, true) => 5,
                    _ => 0,
                };
                played.checks = checks;
                // F.16: every other live player in check with no legal move is mated at once, each judged
                // on the position after the move.
                let mut mated = 0u8;
                for q in Seat::ALL {
                    if q != me && !self.pos.is_eliminated(q) && self.is_mated_now(q) {
                        mated |= 1 << q as u8;
                    }
                }
                played.points += played.check_bonus + 20 * mated.count_ones();
                for q in seats(mated) {
                    self.pos.eliminate(q);
                    journal.eliminated(Elimination {
                        seat: q,
                        cause: ElimCause::Checkmate,
                        points: 20,
                    });
                }
                played.mated = mated;
                self.points[me.index()] += played.points;
                let next = self.pos.next_live_after(me);
                self.pos.set_to_move(next);
                self.ffa_end_check();
                self.settle(journal);
            }
        }
        played
    }

    /// A search's null move: the side to move passes, and the next seat's turn is settled as after a
    /// move (in Teams a next seat without a move ends the game; in FFA it is eliminated).
    pub(crate) fn pass<J: Journal>(&mut self, journal: &mut J) {
        self.pos.pass();
        self.settle(journal);
    }

    /// Live opponents' kings attacked by `seat`'s pieces (a bit per seat), and whether every attacker
    /// is a queen.
    fn checks_by(&self, seat: Seat) -> (u8, bool) {
        let mut checked = 0u8;
        let mut all_queens = true;
        for q in Seat::ALL {
            let k = self.pos.kings[q.index()];
            if q == seat
                || k == 0
                || self.pos.is_eliminated(q)
                || self.pos.attackers_of(q) & (1 << seat as u32) == 0
            {
                continue;
            }
            let mut hit = false;
            for_each_attacker(&self.pos.board, k, 1 << seat as u32, |_, code| {
                hit = true;
                all_queens &= Kind::from_code(code).is_queen_like();
            });
            if hit {
                checked |= 1 << q as u8;
            }
        }
        (checked, all_queens)
    }

    /// Whether `q` is in check and would have no legal move on its turn.
    fn is_mated_now(&self, q: Seat) -> bool {
        if !in_check(&self.pos, q) {
            return false;
        }
        let mut probe = self.pos.clone();
        probe.set_to_move(q);
        !has_legal_move(&probe)
    }

    /// F.22: three out, or two left at least 21 points apart.
    fn ffa_end_check(&mut self) {
        if self.end.is_some() || self.pos.mode != Mode::Ffa {
            return;
        }
        let live: Vec<Seat> = Seat::ALL
            .into_iter()
            .filter(|&s| !self.pos.is_eliminated(s))
            .collect();
        if live.len() <= 1 {
            self.end = Some(EndReason::ThreePlayersOut);
        } else if live.len() == 2 {
            let (a, b) = (self.points[live[0].index()], self.points[live[1].index()]);
            if a.abs_diff(b) >= 21 {
                let leader = if a > b { live[0] } else { live[1] };
                self.end = Some(EndReason::PointsLead { leader });
            }
        }
    }

    /// While the game goes on and the side to move has no legal move: Teams ends (mate F.11 / stalemate
    /// F.13); FFA eliminates that player (stalemate +20, F.20) and passes the turn. Returns the Teams
    /// player mated on its turn.
    pub(crate) fn settle<J: Journal>(&mut self, journal: &mut J) -> Option<Seat> {
        let mut mated = None;
        while self.end.is_none() && !has_legal_move(&self.pos) {
            let p = self.pos.to_move;
            let check = in_check(&self.pos, p);
            match self.pos.mode {
                Mode::Teams => {
                    self.end = Some(if check {
                        mated = Some(p);
                        EndReason::Checkmate { seat: p }
                    } else {
                        EndReason::Stalemate { seat: p }
                    });
                }
                Mode::Ffa => {
                    let (cause, points) = if check {
                        (ElimCause::Checkmate, 0)
                    } else {
                        (ElimCause::Stalemate, 20)
                    };
                    self.points[p.index()] += points;
                    journal.eliminated(Elimination {
                        seat: p,
                        cause,
                        points,
                    });
                    self.eliminate_and_pass(p);
                }
            }
        }
        mated
    }

    /// FFA: takes `seat` out (F.18) and, if it was to move, passes the turn; then checks F.22.
    pub fn eliminate_and_pass(&mut self, seat: Seat) {
        self.pos.eliminate(seat);
        if self.pos.to_move == seat {
            let next = self.pos.next_live_after(seat);
            self.pos.set_to_move(next);
        }
        self.ffa_end_check();
    }
}
