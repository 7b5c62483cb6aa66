//! CPU players for Chaturaji and four-player chess.
//! May depend on `rules` only (and serde): pure like the rules, so that the room decides where and
//! when a bot thinks (its worker pool), and `fourkings arena`/`engine` reuse the same players.
//!
//! Pure like the rules crate: no I/O, no randomness of its own (every choice is driven by the `rng_seed`
//! the caller passes), and no clock of its own: the time limit is a safety cap read through a [`Clock`]
//! the caller hands in. Given the same game, seed and node budget a bot makes the same choice, as long
//! as the clock never fires (tests pass [`NoClock`]).
//!
//! ```
//! use bots::{Budget, ChaturajiBot, Level, NoClock};
//! use rules::chaturaji::{Action, Game, Options};
//! use rules::Seat;
//!
//! let mut game = Game::new(Options::default(), Seat::Red).unwrap();
//! game.apply(Action::Roll { dice: [1, 3] }).unwrap();
//! let mut bot = ChaturajiBot::new(Level::Easy);
//! let choice = bot.choose(&game, Seat::Red, Budget::nodes(2_000), 7, &NoClock).unwrap();
//! for action in choice.actions {
//!     game.apply(action).unwrap();
//! }
//! ```
//!
//! Modules: [`budget`] (budget, clock, node meter), [`rng`] (the seeded generator), [`chaturaji`]
//! (expectimax over whole turns and the dice; Monte-Carlo simulations for `hard`), [`fourchess`]
//! (alpha-beta: Teams as two sides, FFA paranoid).

pub mod budget;
pub mod chaturaji;
pub mod fourchess;
pub mod level;
pub mod rng;

pub use budget::{Budget, Clock, NoClock};
pub use chaturaji::ChaturajiBot;
pub use fourchess::{FourChessBot, KeptTable};
pub use level::Level;

use rules::Seat;

/// What a bot decided, with a few numbers about how it got there.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice<A> {
    /// The actions to apply in order. Chaturaji: the seat's moves for the rest of its turn, then
    /// `EndTurn` if the turn would not end by itself. Four-player chess: one move.
    pub actions: Vec<A>,
    /// Search nodes spent (positions made).
    pub nodes: u64,
    /// Deepest search iteration completed (0: the choice came without search). Chaturaji `hard`: the
    /// simulations the chosen end of the turn got.
    pub depth: u32,
    /// Whether the clock cut the search short (the choice is then not reproducible from the seed).
    pub timed_out: bool,
    /// Four-player chess: the search's value of the choice for the mover, in centipawns (near
    /// ±[`fourchess::WIN`] for a forced result). `None` when no search gave one.
    pub score: Option<i32>,
    /// Four-player chess: the expected line from the choice on (the choice first), as far as the
    /// search remembers it; empty without a search.
    pub pv: Vec<A>,
}

/// Why a bot could not choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BotError {
    /// The game is over.
    GameOver,
    /// It is not this seat's decision now (another seat's turn, or Chaturaji dice not thrown yet).
    NotToAct(Seat),
}

impl std::fmt::Display for BotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BotError::GameOver => f.write_str("the game is over"),
            BotError::NotToAct(seat) => write!(f, "it is not {seat}'s decision now"),
        }
    }
}

impl std::error::Error for BotError {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The room runs bots on a worker pool: they and their results must cross threads.
    #[test]
    fn bots_and_choices_are_send() {
        fn send<T: Send + 'static>() {}
        send::<ChaturajiBot>();
        send::<FourChessBot>();
        send::<Choice<rules::chaturaji::Action>>();
        send::<Choice<rules::fourchess::Action>>();
        send::<Budget>();
    }

    #[test]
    fn levels_parse_and_print_their_names() {
        for level in Level::ALL {
            assert_eq!(level.name().parse::<Level>(), Ok(level));
            assert_eq!(level.to_string(), level.name());
        }
        assert!("expert".parse::<Level>().is_err());
        assert_eq!(Level::default(), Level::Medium);
    }
}
