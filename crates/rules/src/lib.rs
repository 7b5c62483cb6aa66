//! Pure rules of the games fourkings serves: dice **Chaturaji** and **four-player chess**.
//! May depend on no other fourkings crate (serde and thiserror only); `bots`, `protocol`, `room`,
//! `store` and `server` build on it, and nothing in it knows whether a seat is a human or a CPU.
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
