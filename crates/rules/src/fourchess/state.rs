//! The rules applied to a move (F.10–F.22): captures and points, king capture, FFA check bonuses, immediate
//! FFA mates, eliminations, and the turn passing to the next player who can move. Draw rules that need the
//! game's history (repetition, fifty moves, move limit) live in [`super::game`]; this is what perft plays.

use crate::Seat;

use super::attacks::attackers;
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
        state.settle(&mut eliminations, &mut Vec::new());
        (state, eliminations)
    }

    /// Plays a legal move of the side to move; returns what it did and the eliminations it caused, in
    /// order (including later players stalemated on their turn).
    pub fn play(&mut self, m: Move) -> (MoveReport, Vec<Elimination>) {
        let me = self.pos.to_move;
        let mode = self.pos.mode;
        let piece = Kind::from_code(self.pos.board[m.from as usize]);
        let removed = self.pos.make(m);
        let mut report = MoveReport {
            seat: me,
            mv: m.text(),
            piece,
            castling_long: m.castling_long(),
            en_passant: m.is_en_passant(),
            captures: Vec::new(),
            checks: Vec::new(),
            check_bonus: 0,
            mated: Vec::new(),
            points: 0,
        };
        let mut eliminations = Vec::new();
        let mut king_victim = None;
        for (sq, code) in removed.pieces {
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
            report.captures.push(Capture {
                square: super::geometry::Square(sq),
                piece: Piece::from_code(code).expect("a captured piece"),
                points,
            });
            report.points += points;
        }
        match mode {
            Mode::Teams => {
                report.checks = self.checks_by(me).0;
                if let Some(victim) = king_victim {
                    self.end = Some(EndReason::KingCaptured {
                        by: me,
                        king_of: victim,
                    });
                    return (report, eliminations);
                }
                let mut mated = Vec::new();
                self.settle(&mut eliminations, &mut mated);
                report.mated = mated;
            }
            Mode::Ffa => {
                if let Some(victim) = king_victim {
                    // F.17: 20 points (counted above), the owner is out.
                    self.pos.eliminate(victim);
                    eliminations.push(Elimination {
                        seat: victim,
                        cause: ElimCause::KingCaptured,
                        points: Kind::King.points(),
                    });
                }
                let (checks, all_queens) = self.checks_by(me);
                // F.19 with 7b: kings mated by this move count too; a one-point queen is a queen.
                report.check_bonus = match (checks.len(), all_queens) {
                    (2, false) => 5,
                    (2, true) => 1,
                    (3, false) => 20,
                    (3, true) => 5,
                    _ => 0,
                };
                report.checks = checks;
                // F.16: every other live player in check with no legal move is mated at once, each judged
                // on the position after the move.
                let mated: Vec<Seat> = Seat::ALL
                    .into_iter()
                    .filter(|&q| q != me && !self.pos.is_eliminated(q) && self.is_mated_now(q))
                    .collect();
                report.points += report.check_bonus + 20 * mated.len() as u32;
                for &q in &mated {
                    self.pos.eliminate(q);
                    eliminations.push(Elimination {
                        seat: q,
                        cause: ElimCause::Checkmate,
                        points: 20,
                    });
                }
                report.mated = mated;
                self.points[me.index()] += report.points;
                let next = self.pos.next_live_after(me);
                self.pos.set_to_move(next);
                self.ffa_end_check();
                self.settle(&mut eliminations, &mut Vec::new());
            }
        }
        (report, eliminations)
    }

    /// Live opponents' kings attacked by `seat`'s pieces, and whether every attacker is a queen.
    fn checks_by(&self, seat: Seat) -> (Vec<Seat>, bool) {
        let mut checked = Vec::new();
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
            let hits = attackers(&self.pos.board, k, 1 << seat as u32);
            if !hits.is_empty() {
                checked.push(q);
                all_queens &= hits
                    .iter()
                    .all(|&(_, code)| Kind::from_code(code).is_queen_like());
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
    /// F.13); FFA eliminates that player (stalemate +20, F.20) and passes the turn.
    pub fn settle(&mut self, eliminations: &mut Vec<Elimination>, mated: &mut Vec<Seat>) {
        while self.end.is_none() && !has_legal_move(&self.pos) {
            let p = self.pos.to_move;
            let check = in_check(&self.pos, p);
            match self.pos.mode {
                Mode::Teams => {
                    self.end = Some(if check {
                        mated.push(p);
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
                    eliminations.push(Elimination {
                        seat: p,
                        cause,
                        points,
                    });
                    self.eliminate_and_pass(p);
                }
            }
        }
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
