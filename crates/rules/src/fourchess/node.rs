//! A game position for search: the rules of a move exactly as [`Game`] plays them, without the history
//! and reports a server needs. A [`Node`] is a plain value (the position, points and end, the
//! fifty-move clock and the plies left before the move limit, about 500 bytes): a search copies it and
//! plays a move on the copy, and nothing allocates.
//!
//! What it leaves out: repetition (F.23) needs the positions seen before, which a search keeps itself
//! (its own line of play); resignation (F.14, F.21) is not a move.

use crate::Seat;

use super::game::Game;
use super::moves::Move;
use super::options::Mode;
use super::outcome::{EndReason, Outcome};
use super::piece::{PAWN, kind_of};
use super::position::Position;
use super::state::{Played, State};

/// A four-player chess position with the rules' own ends (F.11–F.13, F.16–F.22), the fifty-move rule
/// (F.24) and the move limit (F.26); built from a [`Game`] with [`Node::new`].
///
/// ```
/// use rules::Seat;
/// use rules::fourchess::{Game, Node, Options};
///
/// let game = Game::new(Options::default(), Seat::Red).unwrap();
/// let mut node = Node::new(&game);
/// let mut moves = Vec::new();
/// node.legal_moves(&mut moves);
/// assert_eq!(moves.len(), 20);
/// let played = node.play(moves[0]);
/// assert_eq!(played.seat, Seat::Red);
/// assert_eq!(node.to_move(), Some(Seat::Blue));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    state: State,
    /// F.24: plies since the last capture or pawn move.
    ply_clock: u32,
    /// F.26: plies left before the move limit ends the game; `None` without a limit.
    plies_left: Option<u32>,
}

impl Node {
    /// The game's current position, points, clock and end.
    pub fn new(game: &Game) -> Node {
        Node {
            state: game.state().clone(),
            ply_clock: game.ply_clock(),
            plies_left: game
                .options()
                .move_limit
                .map(|limit| limit.saturating_sub(game.plies())),
        }
    }

    pub fn mode(&self) -> Mode {
        self.state.pos.mode()
    }

    pub fn position(&self) -> &Position {
        &self.state.pos
    }

    /// The seat to move, or `None` when the game is over.
    pub fn to_move(&self) -> Option<Seat> {
        self.state.end.is_none().then(|| self.state.pos.to_move())
    }

    /// Points per seat (FFA; 0 in Teams).
    pub fn points(&self) -> [u32; 4] {
        self.state.points
    }

    /// How the game ended, if it did.
    pub fn end(&self) -> Option<EndReason> {
        self.state.end
    }

    /// The end with its standings, if the game ended.
    pub fn outcome(&self) -> Option<Outcome> {
        self.state
            .end
            .map(|reason| Outcome::new(self.mode(), reason, self.state.points))
    }

    pub fn is_out(&self, seat: Seat) -> bool {
        self.state.pos.is_eliminated(seat)
    }

    /// Whether `seat`'s king is attacked by a live opponent (F.9).
    pub fn in_check(&self, seat: Seat) -> bool {
        !self.is_out(seat) && super::movegen::in_check(&self.state.pos, seat)
    }

    /// The repetition key of the position (F.23), as [`Position::key`].
    pub fn key(&self) -> u64 {
        self.state.pos.key()
    }

    /// F.24: plies since the last capture or pawn move (no position older than that can come back).
    pub fn ply_clock(&self) -> u32 {
        self.ply_clock
    }

    /// Appends the legal moves of the seat to move to `out` (none when the game is over).
    pub fn legal_moves(&self, out: &mut Vec<Move>) {
        if self.state.end.is_none() {
            super::movegen::legal_moves(&self.state.pos, out);
        }
    }

    /// Plays `m`, which must be one of [`Node::legal_moves`] (it is not checked), with the rules of a
    /// move and the ends [`Game::apply`] judges after it, except repetition.
    pub fn play(&mut self, m: Move) -> Played {
        debug_assert!(self.state.end.is_none(), "a move after the end");
        let pawn_move = kind_of(self.state.pos.board[m.from as usize]) == PAWN;
        let played = self.state.play_with(m, &mut ());
        if pawn_move || played.is_capture() {
            self.ply_clock = 0;
        } else {
            self.ply_clock += 1;
        }
        if let Some(left) = &mut self.plies_left {
            *left = left.saturating_sub(1);
        }
        // In `Game::after_action`'s order (7b): the rules' own end, then fifty moves, then the limit.
        let live = self.state.pos.live_count();
        let end = self.state.end.or_else(|| {
            if self.ply_clock >= 50 * live {
                Some(EndReason::FiftyMoves)
            } else if self.plies_left == Some(0) {
                Some(EndReason::MoveLimit)
            } else {
                None
            }
        });
        if let Some(reason) = end {
            self.state.end = Some(reason);
            if self.mode() == Mode::Ffa && reason.is_draw_f25() {
                // F.25: every remaining player scores 10.
                for s in Seat::ALL {
                    if !self.state.pos.is_eliminated(s) {
                        self.state.points[s.index()] += 10;
                    }
                }
            }
        }
        played
    }

    /// A null move, for searches only (it is not a move of the rules): the side to move, which must
    /// not be in check, lets the next seat move. A search uses it to ask whether the opponents could
    /// hurt it even if it did nothing. Counts as a ply for the fifty-move clock and the move limit,
    /// like a move without a capture.
    pub fn pass(&mut self) {
        debug_assert!(self.state.end.is_none(), "a pass after the end");
        self.state.pass(&mut ());
        self.ply_clock += 1;
        if let Some(left) = &mut self.plies_left {
            *left = left.saturating_sub(1);
        }
    }
}
