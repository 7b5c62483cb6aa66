//! Pure rating maths for fourkings: four-way rankings with shared places, and two teams of two.
//! May depend on no other fourkings crate (`skillratings`, serde, thiserror); `protocol`, `room`,
//! `store` and `server` use it (the store applies it when it records a rated game).
//!
//! The system is Weng-Lin (a Bayesian, TrueSkill-like system with a closed-form update, via the
//! `skillratings` crate).
//!
//! Everything here is a function of its inputs: no I/O, no clock, no randomness. Seats are given in the
//! shared seat order of the rules crate: **Red, Blue, Yellow, Green** (index 0..4). Teams in four-player
//! chess are the opposite seats: Red+Yellow against Blue+Green.
//!
//! Ratings are kept per [`Pool`] (game kind and mode), so a Chaturaji rating says nothing about a
//! four-player chess rating. Every seat of a game is its own participant in the update; CPU seats take
//! part with their level's fixed [`anchor`], which no game changes.

#![forbid(unsafe_code)]

mod anchor;
mod pool;
mod provisional;
mod rate;

pub use anchor::{ANCHOR_SIGMA, CpuLevel, anchor, anchor_of};
pub use pool::{Pool, UnknownPool};
pub use provisional::Established;
pub use rate::{GameResult, Rating, ResultError, TeamResult, rate};

/// The fixed player identities under which CPU seats are recorded, by the room's level number
/// (1 easy, 2 medium, 3 hard), then the greedy baseline.
pub const CPU_PLAYERS: [&str; 4] = [
    CpuLevel::Easy.player_id(),
    CpuLevel::Medium.player_id(),
    CpuLevel::Hard.player_id(),
    CpuLevel::Greedy.player_id(),
];

/// Whether a player id is one of the fixed CPU identities (they have anchors, not ratings).
pub fn is_cpu_player(id: &str) -> bool {
    id.starts_with("cpu:")
}
