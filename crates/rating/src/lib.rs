//! Pure rating maths for fourkings: the Weng-Lin system (a Bayesian, TrueSkill-like system with a
//! closed-form update, via the `skillratings` crate) for four-way rankings with shared places and for
//! two teams of two.
//!
//! Everything here is a function of its inputs: no I/O, no clock, no randomness. Seats are given in the
//! shared seat order of the rules crate: **Red, Blue, Yellow, Green** (index 0..4). Teams in four-player
//! chess are the opposite seats: Red+Yellow against Blue+Green.
//!
//! Ratings are kept per [`Pool`] (game kind and mode), so a Chaturaji rating says nothing about a
//! four-player chess rating.

#![forbid(unsafe_code)]

mod pool;
mod rate;

pub use pool::{Pool, UnknownPool};
pub use rate::{GameResult, Rating, ResultError, TeamResult, rate};

/// Fixed player identities under which CPU seats take part in ratings, one per bot level. A seat that a
/// CPU played from the start is rated under the level's identity; a human whose seat the CPU finished
/// (after a disconnect or a timeout) keeps the seat and gets the result.
pub const CPU_PLAYERS: [&str; 4] = ["cpu:easy", "cpu:medium", "cpu:hard", "cpu:greedy"];

/// Whether a player id is one of the fixed CPU identities (they are left out of leaderboards by default).
pub fn is_cpu_player(id: &str) -> bool {
    id.starts_with("cpu:")
}
