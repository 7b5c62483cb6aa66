//! Playing strengths. The host picks one per seat; `medium` fills empty seats by default. `random` and
//! `greedy` are the measuring baselines.

use crate::budget::Budget;
use serde::{Deserialize, Serialize};
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// A uniformly random legal action (baseline).
    Random,
    /// Best immediate points, then captures, random tie-break (baseline).
    Greedy,
    Easy,
    #[default]
    Medium,
    Hard,
}

impl Level {
    pub const ALL: [Level; 5] = [
        Level::Random,
        Level::Greedy,
        Level::Easy,
        Level::Medium,
        Level::Hard,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Level::Random => "random",
            Level::Greedy => "greedy",
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
        }
    }

    /// Think-time cap per decision: easy 50 ms, medium 300 ms, hard 1 s (the baselines think in
    /// microseconds and get 50 ms).
    pub const fn max_time(self) -> Duration {
        match self {
            Level::Random | Level::Greedy | Level::Easy => Duration::from_millis(50),
            Level::Medium => Duration::from_millis(300),
            Level::Hard => Duration::from_millis(1000),
        }
    }
}

impl std::str::FromStr for Level {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Level::ALL
            .into_iter()
            .find(|l| l.name() == s)
            .ok_or_else(|| format!("unknown level `{s}` (random, greedy, easy, medium, hard)"))
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The default budget of a level for one game: the level's time cap, and a node budget sized so that
/// the node budget, not the clock, normally ends the search on one core of a small server (the game
/// modules give their nodes-per-second estimates).
pub(crate) const fn budget(level: Level, nodes_per_second: u64) -> Budget {
    let time = level.max_time();
    // Aim at 60% of the cap: the clock stays a safety net even on a busy machine.
    let nodes = nodes_per_second * time.as_millis() as u64 / 1000 * 6 / 10;
    Budget {
        max_time: time,
        max_nodes: if nodes == 0 { 1 } else { nodes },
    }
}
