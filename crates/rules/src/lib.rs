//! Pure rules of the games fourkings serves: dice **Chaturaji** and **four-player chess**.
//!
//! No I/O, no clock, no randomness: dice are an input (the room owns the seeded RNG), so a game is fully
//! determined by its options, first seat, dice sequence and actions.
//!
//! One folder per game: [`chaturaji`] and [`fourchess`]; what both share lives at the crate root.
#![forbid(unsafe_code)]

pub mod chaturaji;
pub mod fourchess;
pub mod options;
pub mod ranking;
pub mod seat;

pub use options::OptionError;
pub use seat::Seat;
