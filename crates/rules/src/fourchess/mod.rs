//! Four-player chess (Teams and FFA): `../shared/rules/fourchess.md`, rules F.1–F.27.
//!
//! Layers, fast to slow: [`Position`] (placement, rights, en-passant entries, copy-make) with the legal
//! move generator and [`perft`]; the rules of a move (points, mates, eliminations), which a search plays
//! through [`Node`]; and [`Game`] (history, draws, limits, resignation, the [`Action`]/[`Applied`] API
//! the room server drives). FEN4 and PGN4 read and write chess.com's formats.
//!
//! ```
//! use rules::Seat;
//! use rules::fourchess::{Action, Game, Mode, MoveText, Options, export_pgn4, import_pgn4};
//!
//! let options = Options { mode: Mode::Ffa, ..Options::default() };
//! let mut game = Game::new(options.clone(), Seat::Red).unwrap();
//! let m: MoveText = "h2-h3".parse().unwrap();
//! let applied = game.apply_for(Seat::Red, Action::from(m)).unwrap();
//! assert_eq!(applied.to_act, Some(Seat::Blue));
//! assert_eq!(game.legal_actions().len(), 20);
//! let pgn = export_pgn4(&game);
//! assert_eq!(import_pgn4(&pgn, options).unwrap(), game);
//! ```

mod attacks;
mod bits;
mod fen4;
mod game;
mod geometry;
mod movegen;
mod moves;
mod node;
mod options;
mod outcome;
mod perft;
mod pgn4;
mod piece;
mod position;
#[cfg(test)]
mod reference;
mod state;
#[cfg(test)]
mod tests;
mod zobrist;

pub use attacks::AttackMap;
pub use fen4::{Fen4Error, Setup, parse_fen4, to_fen4};
pub use game::{Action, Applied, Game, IllegalAction, NewGameError};
pub use geometry::{BadSquare, Square};
pub use moves::{BadMoveText, Move, MoveText};
pub use node::Node;
pub use options::{Mode, Options, RawLimit, RawOptions};
pub use outcome::{EndReason, Outcome, Standing};
pub use perft::{perft, perft_divide};
pub use pgn4::{Pgn4Error, export_pgn4, import_pgn4};
pub use piece::{Kind, Owner, Piece};
pub use position::Position;
pub use state::{Capture, ElimCause, Elimination, MoveReport, Played};

/// The legal moves of the side to move in `pos` (no game-end logic: see [`Game`] for that).
pub fn legal_moves(pos: &Position) -> Vec<Move> {
    let mut out = Vec::with_capacity(64);
    movegen::legal_moves(pos, &mut out);
    out
}

/// Whether `seat`'s king is attacked by its live opponents (F.9) in `pos`.
pub fn in_check(pos: &Position, seat: crate::Seat) -> bool {
    movegen::in_check(pos, seat)
}
