//! Chaturaji (dice, four players): `shared/rules/chaturaji.md`, rules C.1–C.25.
//!
//! Pure: the dice are an input ([`Action::Roll`], thrown by the room's seeded RNG), so a game is fully
//! determined by its options, first seat, dice and actions.
//!
//! # Using it
//!
//! ```
//! use rules::chaturaji::{Action, Game, Options, Phase};
//! use rules::Seat;
//!
//! let mut game = Game::new(Options::default(), Seat::Red).unwrap();
//! assert_eq!(game.phase(), Phase::AwaitingRoll(Seat::Red));
//! game.apply(Action::Roll { dice: [1, 3] }).unwrap(); // pawn-or-king and horse
//! game.apply(Action::Move { die: 1, from: "b1".parse().unwrap(), to: "c3".parse().unwrap() })
//!     .unwrap();
//! game.apply(Action::EndTurn).unwrap(); // optional dice use: the pawn-or-king die is declined
//! assert_eq!(game.phase(), Phase::AwaitingRoll(Seat::Blue));
//! ```
//!
//! # Position notation
//!
//! One line, eleven fields separated by spaces:
//!
//! 1. **board**, rank 8 first, ranks separated by `/`; a piece is its seat letter (`r b y g`) and its type
//!    letter (`K` king, `E` elephant, `H` horse, `S` boat, `P` pawn); digits count empty squares;
//! 2. **seat to move** (`r b y g`; once the game is over, the seat whose turn it was);
//! 3. **dice**: `-` before the throw, else each die's face and state (`u` unused, `x` used, `d` declined,
//!    `v` void), followed by `*` if a capture already happened this turn: `1x3u*`;
//! 4. **points** of Red, Blue, Yellow, Green: `0,6,1,0`;
//! 5. **waiting pawns**: pawns standing on their own far edge, each seat's in arrival order (first
//!    arrived first, C.15), e.g. `c8,d8`; or `-`;
//! 6. **turns without capture** (completed turns, C.22.3);
//! 7. **turn**: completed turns since the start (the round limit counts them);
//! 8. **thrones already scored** (C.20): `r@y` = Red scored Yellow's throne; comma-separated or `-`;
//! 9. **king captors** (C.21): `y<r` = Yellow's most recent king was captured by Red; or `-`;
//! 10. **resigned seats**: letters such as `bg`, or `-`;
//! 11. **end**: `-` while the game runs, else `chaturaji` (won by the seat in field 2), `kings_left`,
//!     `no_capture`, `round_limit` or `resignations`.
//!
//! The start position, Red to move ([`START`]):
//!
//! ```text
//! bSbP2yKyEyHyS/bHbP2yPyPyPyP/bEbP6/bKbP6/6gPgK/6gPgE/rPrPrPrP2gPgH/rSrHrErK2gPgS r - 0,0,0,0 - 0 0 - - - -
//! ```
//!
//! A later position: Blue to move after throwing 1 and 2, having used the 2 to capture; Red has a pawn
//! waiting on c8; Red took Green's king; Green resigned:
//!
//! ```
//! use rules::chaturaji::{Game, Options, Position};
//! let text = "bSbPrP1yKyEyHyS/bHbP2yPyPyPyP/bEbP6/bKbP6/8/6gPgE/rPrP1rP2gPgH/rSrHrErK2gPgS b 1u2x* 5,4,0,0 c8 0 21 - g<r g -";
//! let pos: Position = text.parse().unwrap();
//! assert_eq!(pos.to_string(), text);
//! Game::from_position(Options::default(), pos).unwrap();
//! ```
//!
//! Modules: [`board`] (bitboards, setup, move generation), [`dice`], [`options`], [`pipeline`] (the
//! post-move pipeline of section 5), [`action`] (actions, refusals, the move buffer), [`game`] (turn flow), [`outcome`] (ends and ranking),
//! [`notation`], [`mod@perft`].

pub mod action;
pub mod board;
pub mod dice;
pub mod events;
pub mod game;
pub mod notation;
pub mod options;
pub mod outcome;
pub mod perft;
pub mod piece;
pub mod pipeline;
pub mod position;
pub mod square;
pub mod tables;

pub use action::{Action, IllegalAction, Move, MoveList};
pub use board::{Board, THRONES};
pub use dice::{DiceKind, Die, DieClass, DieState, DieView, Unusable};
pub use events::{Applied, Event};
pub use game::{Game, NO_CAPTURE_TURNS, Phase, SetupError};
pub use notation::{NotationError, START};
pub use options::{DiceUse, FirstSeatNextGame, Options, Promotion};
pub use outcome::{EndReason, Outcome, Standing};
pub use perft::{PerftError, perft, turn_children};
pub use piece::{Kind, Piece};
pub use position::Position;
pub use square::Square;
