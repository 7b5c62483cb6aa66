//! CPU players in rooms: the levels a host chooses on the wire, their think-time budgets, and the
//! [`Thinker`] that turns a position into a plan (the `bots` crate's players in production). The
//! worker pool that runs thinkers off the async runtime is in [`crate::bot_pool`].

use std::time::Duration;

use bots::{Budget, ChaturajiBot, Clock, FourChessBot, Level};
use protocol::{GameKind, Seat};

use crate::game::{TableAction, TableGame};

/// The highest CPU level a host may choose (wire levels: 1 easy, 2 medium, 3 hard).
pub const MAX_LEVEL: u8 = 3;

/// The bots level of a wire level (`1..=MAX_LEVEL`).
pub fn level_of(wire: u8) -> Option<Level> {
    match wire {
        1 => Some(Level::Easy),
        2 => Some(Level::Medium),
        3 => Some(Level::Hard),
        _ => None,
    }
}

/// CPU behaviour shared by every room of the server (the `[bots]` configuration section).
#[derive(Debug, Clone, PartialEq)]
pub struct BotConfig {
    /// Think-time caps per level. Node budgets scale with them, so a short cap (tests) also means a
    /// small, quick search.
    pub easy: Duration,
    pub medium: Duration,
    pub hard: Duration,
    /// Pool threads that search.
    pub workers: usize,
    /// Decisions waiting for a worker at most; past that a greedy move is computed in place.
    pub queue: usize,
    /// A decision that waited longer than this for a worker is answered greedily instead of
    /// searched, so a backlog drains in microseconds rather than making every table wait.
    pub max_wait: Duration,
    /// Wire level of the CPU players that fill empty seats at the start.
    pub fill_level: u8,
    /// Wire level at which the CPU plays for an away human or a timed-out turn.
    pub takeover_level: u8,
}

/// Cores minus one (one is left to the async runtime that serves the humans), at least one.
pub fn default_workers() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get().saturating_sub(1))
        .unwrap_or(1)
        .max(1)
}

impl Default for BotConfig {
    fn default() -> Self {
        BotConfig {
            easy: Level::Easy.max_time(),
            medium: Level::Medium.max_time(),
            hard: Level::Hard.max_time(),
            workers: default_workers(),
            queue: 256,
            max_wait: Duration::from_secs(1),
            fill_level: 2,
            takeover_level: 2,
        }
    }
}

impl BotConfig {
    /// The configured think-time cap of a level (the baselines keep the bots crate's).
    pub fn max_time(&self, level: Level) -> Duration {
        match level {
            Level::Easy => self.easy,
            Level::Medium => self.medium,
            Level::Hard => self.hard,
            other => other.max_time(),
        }
    }

    /// The budget of one decision: the bots crate's default node budget for the level, scaled by
    /// how the configured cap compares with the level's standard cap, and the configured cap.
    pub fn budget(&self, game: GameKind, level: Level) -> Budget {
        let standard = match game {
            GameKind::Chaturaji => ChaturajiBot::default_budget(level),
            GameKind::Fourchess => FourChessBot::default_budget(level),
        };
        let cap = self.max_time(level);
        let scale = cap.as_secs_f64() / standard.max_time.as_secs_f64();
        Budget {
            max_time: cap,
            max_nodes: ((standard.max_nodes as f64 * scale) as u64).max(1),
        }
    }
}

/// What a thinker decided: the actions to apply in order (Chaturaji: the rest of the turn).
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub actions: Vec<TableAction>,
    /// The clock cut the search short.
    pub timed_out: bool,
}

/// Turns a position into a plan for the seat to act. Runs on pool threads, so it may take its time
/// (within the budget).
pub trait Thinker: Send + Sync + std::fmt::Debug + 'static {
    fn think(
        &self,
        game: &TableGame,
        seat: Seat,
        level: Level,
        budget: Budget,
        seed: u64,
        clock: &dyn Clock,
    ) -> Plan;
}

/// The `bots` crate's players.
#[derive(Debug, Clone, Copy, Default)]
pub struct BotsThinker;

impl Thinker for BotsThinker {
    fn think(
        &self,
        game: &TableGame,
        seat: Seat,
        level: Level,
        budget: Budget,
        seed: u64,
        clock: &dyn Clock,
    ) -> Plan {
        let result = match game {
            TableGame::Chaturaji(g) => ChaturajiBot::new(level)
                .choose(g, seat, budget, seed, clock)
                .map(|c| {
                    (
                        c.actions.into_iter().map(TableAction::Chaturaji).collect(),
                        c.timed_out,
                    )
                }),
            TableGame::Fourchess { game, .. } => FourChessBot::new(level)
                .choose(game, seat, budget, seed, clock)
                .map(|c| {
                    (
                        c.actions.into_iter().map(TableAction::Fourchess).collect(),
                        c.timed_out,
                    )
                }),
        };
        match result {
            Ok((actions, timed_out)) => Plan { actions, timed_out },
            // The room only asks for the seat to act in a running game; an empty plan is logged
            // by the room and the turn timer (if any) still applies.
            Err(e) => {
                tracing::error!(%seat, error = %e, "a bot was asked out of turn");
                Plan {
                    actions: Vec::new(),
                    timed_out: false,
                }
            }
        }
    }
}

/// A greedy plan (best immediate points, then captures): microseconds, so it can be computed on
/// the spot when the pool is saturated.
pub fn greedy_plan(game: &TableGame, seat: Seat, seed: u64) -> Plan {
    let budget = BotConfig::default().budget(game.kind(), Level::Greedy);
    BotsThinker.think(game, seat, Level::Greedy, budget, seed, &bots::NoClock)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::TableOptions;
    use serde_json::json;

    #[test]
    fn wire_levels_map_to_easy_medium_hard() {
        assert_eq!(level_of(0), None);
        assert_eq!(level_of(1), Some(Level::Easy));
        assert_eq!(level_of(2), Some(Level::Medium));
        assert_eq!(level_of(3), Some(Level::Hard));
        assert_eq!(level_of(MAX_LEVEL + 1), None);
    }

    #[test]
    fn budgets_follow_the_configured_caps() {
        let standard = BotConfig::default();
        for game in [GameKind::Chaturaji, GameKind::Fourchess] {
            let full = standard.budget(game, Level::Hard);
            assert_eq!(full.max_time, Duration::from_secs(1));
            let fast = BotConfig {
                hard: Duration::from_millis(10),
                ..standard.clone()
            }
            .budget(game, Level::Hard);
            assert_eq!(fast.max_time, Duration::from_millis(10));
            // A hundredth of the time, a hundredth of the nodes (rounding aside).
            assert!(fast.max_nodes * 100 <= full.max_nodes + 100, "{game:?}");
            assert!(fast.max_nodes * 100 + 100 >= full.max_nodes, "{game:?}");
        }
    }

    #[test]
    fn greedy_and_searched_plans_are_legal_whole_turns() {
        let options = TableOptions::normalize(GameKind::Chaturaji, &json!({})).unwrap();
        let mut game = TableGame::new(&options, Seat::Red).unwrap();
        game.apply(game.roll([1, 3])).unwrap();
        let fast = BotConfig {
            medium: Duration::from_millis(5),
            ..BotConfig::default()
        };
        for plan in [
            greedy_plan(&game, Seat::Red, 1),
            BotsThinker.think(
                &game,
                Seat::Red,
                Level::Medium,
                fast.budget(GameKind::Chaturaji, Level::Medium),
                1,
                &bots::NoClock,
            ),
        ] {
            assert!(!plan.actions.is_empty());
            let mut after = game.clone();
            for action in plan.actions {
                after.apply(action).unwrap();
            }
            assert_ne!(after.to_act(), Some(Seat::Red), "the plan ends Red's turn");
        }
    }
}
