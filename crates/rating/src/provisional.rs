//! When a rating means enough to be compared: established players against provisional ones.
//!
//! As on lichess (provisional while the Glicko deviation is above 110) and chess.com (provisional for
//! the first games), a newcomer's rating is a guess with a wide uncertainty; it is shown marked
//! "provisional" and kept off the leaderboard until both enough rated games are played and the
//! uncertainty has fallen below a threshold. The game count alone is not enough: games against other
//! newcomers (a farmer's throwaway identities) teach the system little, so sigma falls slower there.

use crate::Rating;

/// The rule that makes a rating established (`ratings.provisional_games` and
/// `ratings.provisional_sigma` in the server's configuration).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Established {
    /// Rated games in the pool a player needs at least.
    pub min_games: i64,
    /// The largest sigma an established rating may have.
    pub max_sigma: f64,
}

impl Default for Established {
    /// 10 games and sigma ≤ 4.5 (a newcomer's is 8.33): mixed results against established players
    /// or CPUs bring sigma under 4.5 in about 5 games; a player who only beats fresh identities
    /// needs about 40.
    fn default() -> Established {
        Established {
            min_games: 10,
            max_sigma: 4.5,
        }
    }
}

impl Established {
    /// Whether a rating with this many rated games is established (otherwise provisional).
    pub fn holds(&self, rating: &Rating, games: i64) -> bool {
        games >= self.min_games && rating.sigma <= self.max_sigma
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{GameResult, rate};

    #[test]
    fn newcomers_are_provisional_until_games_and_sigma_allow() {
        let rule = Established::default();
        assert!(!rule.holds(&Rating::INITIAL, 0));
        assert!(!rule.holds(&Rating::INITIAL, 50), "sigma too high");
        let sure = Rating {
            mu: 25.0,
            sigma: 3.0,
        };
        assert!(!rule.holds(&sure, 9), "too few games");
        assert!(rule.holds(&sure, 10));
    }

    #[test]
    fn farming_newcomers_stays_provisional_where_real_games_establish() {
        let rule = Established::default();
        // Mixed results against three opponents of known strength (CPU anchors): established as
        // soon as the game count allows.
        let medium = crate::anchor(crate::Pool::Chaturaji, crate::CpuLevel::Medium);
        let mut me = Rating::INITIAL;
        let places = [
            [1, 2, 3, 4],
            [3, 1, 2, 4],
            [4, 3, 1, 2],
            [2, 4, 3, 1],
            [3, 2, 4, 1],
        ];
        for games in 1..=10 {
            let p = places[games as usize % places.len()];
            me = rate([me, medium, medium, medium], &GameResult::Places(p)).unwrap()[0];
            assert_eq!(rule.holds(&me, games), games >= 10, "after {games}: {me:?}");
        }
        // Winning every game against three fresh identities (the farming pattern): beating much
        // weaker opponents teaches the system little, so sigma stays high for dozens of games.
        let mut farmer = Rating::INITIAL;
        for games in 1..=30 {
            farmer = rate(
                [farmer, Rating::INITIAL, Rating::INITIAL, Rating::INITIAL],
                &GameResult::Places([1, 2, 3, 4]),
            )
            .unwrap()[0];
            assert!(!rule.holds(&farmer, games), "after {games}: {farmer:?}");
        }
    }
}
