//! CPU levels as fixed rating anchors, one per level and pool, derived from the arena measurements of
//! docs/bots.md ("Ratings of the CPU levels" there explains the derivation).
//!
//! An anchor is an opponent like any other in the update (the same Weng-Lin maths against it as
//! against a human), but games never change it: a CPU level plays the same tomorrow as today, so its
//! strength is a fact measured once per release, not something a few games should move. And every CPU
//! seat is its own participant: two medium CPUs in one game are two opponents of medium strength.
//!
//! The derivation is written here as code over the measured shares, so the numbers cannot drift from
//! the table they come from:
//!
//! - The scale is Weng-Lin's Bradley-Terry model: seat *i* beats seat *q* with probability
//!   `1 / (1 + exp((mu_q − mu_i) / c))`, `c = sqrt(sigma_i² + sigma_q² + 2·beta²)`. Between two
//!   anchors `c` is [`pair_c`].
//! - Four-way pools (Chaturaji, FFA): in the arena, level A and level B share a table; the ratio of
//!   their per-seat first-place shares is the ratio of their strengths `exp(mu / c)` (the
//!   Plackett-Luce first-place probability), so `mu_A − mu_B = c · ln(share_A / share_B)`.
//! - Teams: a pair of A against a pair of B scores `w` (wins + half the draws); the team difference
//!   is `c_team · ln(w / (1 − w))` with `c_team` = [`team_c`], half of it per player.
//! - A clean sweep (one level never won) has no finite ratio: the losing side is credited 3 of the
//!   `n` games, the rule-of-three bound, the smallest gap the measurement supports at 95%.
//! - The medium level (the default for empty seats) sits at a newcomer's `mu` in every pool, the
//!   others follow from the measured gaps.

use crate::{Pool, Rating};

/// The uncertainty of every anchor: that of a player with a few dozen games, so that a game against a
/// CPU moves a human as much as a game against an established human of the same strength.
pub const ANCHOR_SIGMA: f64 = 3.0;

/// Weng-Lin's `beta` (the skillratings default, 25/6): the spread of one game's performance.
const BETA: f64 = 25.0 / 6.0;

/// The CPU levels that have a rating identity (`cpu:<level>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CpuLevel {
    Greedy,
    Easy,
    Medium,
    Hard,
}

impl CpuLevel {
    pub const ALL: [CpuLevel; 4] = [
        CpuLevel::Greedy,
        CpuLevel::Easy,
        CpuLevel::Medium,
        CpuLevel::Hard,
    ];

    /// The level's player id (`cpu:medium` …), the identity its seats are recorded under.
    pub const fn player_id(self) -> &'static str {
        match self {
            CpuLevel::Greedy => "cpu:greedy",
            CpuLevel::Easy => "cpu:easy",
            CpuLevel::Medium => "cpu:medium",
            CpuLevel::Hard => "cpu:hard",
        }
    }

    /// The level of a CPU player id, `None` for anyone else.
    pub fn from_player_id(id: &str) -> Option<CpuLevel> {
        CpuLevel::ALL.into_iter().find(|l| l.player_id() == id)
    }
}

/// One arena measurement of docs/bots.md: `stronger` against `weaker` in `pool` over `games` games,
/// `stronger` in `seats` of the four seats of every game (the rest are `weaker`'s). `firsts`: the
/// first places `stronger`'s seats took (shared places split), or in Teams its pair's wins plus half
/// the draws.
struct Measured {
    pool: Pool,
    stronger: CpuLevel,
    weaker: CpuLevel,
    seats: u8,
    games: u32,
    firsts: f64,
}

/// The arena tables of docs/bots.md ("Measurements"), the rows that compare two rated levels.
const MEASURED: [Measured; 9] = [
    // fourkings arena --game chaturaji --seats hard,greedy,greedy,greedy --games 200 --seed 1
    // (hard 53.5% of first places)
    measured(
        Pool::Chaturaji,
        CpuLevel::Hard,
        CpuLevel::Greedy,
        1,
        200,
        107.0,
    ),
    // fourkings arena --game chaturaji --seats hard,medium,medium,medium --games 200 --seed 2 (36.5%)
    measured(
        Pool::Chaturaji,
        CpuLevel::Hard,
        CpuLevel::Medium,
        1,
        200,
        73.0,
    ),
    // fourkings arena --game chaturaji --seats medium,easy,medium,easy --games 200 --seed 3
    // (medium 27.9% per seat, of 400 seat-games)
    measured(
        Pool::Chaturaji,
        CpuLevel::Medium,
        CpuLevel::Easy,
        2,
        200,
        111.6,
    ),
    // fourkings arena --game fourchess --mode teams --seats hard,greedy,hard,greedy --games 40 --seed 1
    measured(
        Pool::FourchessTeams,
        CpuLevel::Hard,
        CpuLevel::Greedy,
        2,
        40,
        40.0,
    ),
    // fourkings arena --game fourchess --mode teams --seats hard,medium,hard,medium --games 20 --seed 11
    // (the hard pair won 17 of 20)
    measured(
        Pool::FourchessTeams,
        CpuLevel::Hard,
        CpuLevel::Medium,
        2,
        20,
        17.0,
    ),
    // fourkings arena --game fourchess --mode teams --seats medium,easy,medium,easy --games 160 --seed 12
    // (the medium pair won 157 of 160)
    measured(
        Pool::FourchessTeams,
        CpuLevel::Medium,
        CpuLevel::Easy,
        2,
        160,
        157.0,
    ),
    // fourkings arena --game fourchess --mode ffa --seats hard,greedy,greedy,greedy --games 40 --seed 5
    measured(
        Pool::FourchessFfa,
        CpuLevel::Hard,
        CpuLevel::Greedy,
        1,
        40,
        40.0,
    ),
    // fourkings arena --game fourchess --mode ffa --seats hard,medium,medium,medium --games 200
    // --seed 41 --threads 2 --nodes-only --verbose (hard 57.5% of first places, medium 14.2% per seat)
    measured(
        Pool::FourchessFfa,
        CpuLevel::Hard,
        CpuLevel::Medium,
        1,
        200,
        115.0,
    ),
    // fourkings arena --game fourchess --mode ffa --seats medium,easy,medium,easy --games 64 --seed 14
    // (medium 44.1% per seat, easy 5.9%)
    measured(
        Pool::FourchessFfa,
        CpuLevel::Medium,
        CpuLevel::Easy,
        2,
        64,
        56.5,
    ),
];

const fn measured(
    pool: Pool,
    stronger: CpuLevel,
    weaker: CpuLevel,
    seats: u8,
    games: u32,
    firsts: f64,
) -> Measured {
    Measured {
        pool,
        stronger,
        weaker,
        seats,
        games,
        firsts,
    }
}

/// `c` between two anchors in a four-way pool.
pub fn pair_c() -> f64 {
    (2.0 * ANCHOR_SIGMA * ANCHOR_SIGMA + 2.0 * BETA * BETA).sqrt()
}

/// `c` between two teams of two anchors (Weng-Lin sums the members' variances).
pub fn team_c() -> f64 {
    (4.0 * ANCHOR_SIGMA * ANCHOR_SIGMA + 2.0 * BETA * BETA).sqrt()
}

impl Measured {
    /// How much higher `stronger`'s mu is than `weaker`'s.
    fn gap(&self) -> f64 {
        let games = f64::from(self.games);
        // A clean sweep: the rule of three (at most 3 of n, at 95%) for the side that never won.
        let firsts = self.firsts.clamp(3.0, games - 3.0);
        if self.pool.is_teams() {
            let w = firsts / games;
            team_c() * (w / (1.0 - w)).ln() / 2.0
        } else {
            let stronger_seats = f64::from(self.seats) * games;
            let weaker_seats = f64::from(4 - self.seats) * games;
            let share = firsts / stronger_seats;
            let other = (games - firsts) / weaker_seats;
            pair_c() * (share / other).ln()
        }
    }
}

/// The fixed rating of a CPU level in a pool.
pub fn anchor(pool: Pool, level: CpuLevel) -> Rating {
    let gap = |stronger: CpuLevel, weaker: CpuLevel| {
        MEASURED
            .iter()
            .find(|m| m.pool == pool && m.stronger == stronger && m.weaker == weaker)
            .map_or(0.0, Measured::gap)
    };
    let medium = Rating::INITIAL.mu;
    let hard = medium + gap(CpuLevel::Hard, CpuLevel::Medium);
    let mu = match level {
        CpuLevel::Medium => medium,
        CpuLevel::Hard => hard,
        CpuLevel::Easy => medium - gap(CpuLevel::Medium, CpuLevel::Easy),
        CpuLevel::Greedy => hard - gap(CpuLevel::Hard, CpuLevel::Greedy),
    };
    Rating {
        mu,
        sigma: ANCHOR_SIGMA,
    }
}

/// The anchor of a CPU player id in a pool; `None` for a player who is not a CPU level.
pub fn anchor_of(pool: Pool, player_id: &str) -> Option<Rating> {
    CpuLevel::from_player_id(player_id).map(|level| anchor(pool, level))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rated_level_has_both_measurements_it_needs() {
        for pool in Pool::ALL {
            for (s, w) in [
                (CpuLevel::Hard, CpuLevel::Medium),
                (CpuLevel::Medium, CpuLevel::Easy),
                (CpuLevel::Hard, CpuLevel::Greedy),
            ] {
                let found = MEASURED
                    .iter()
                    .filter(|m| m.pool == pool && m.stronger == s && m.weaker == w)
                    .count();
                assert_eq!(found, 1, "{pool}: {s:?} over {w:?}");
            }
        }
    }

    #[test]
    fn levels_are_ordered_and_medium_is_a_newcomer() {
        for pool in Pool::ALL {
            let [greedy, easy, medium, hard] = CpuLevel::ALL.map(|l| anchor(pool, l).mu);
            assert_eq!(medium, Rating::INITIAL.mu, "{pool}");
            assert!(
                easy <= medium && medium <= hard,
                "{pool}: {easy} {medium} {hard}"
            );
            assert!(greedy < hard, "{pool}: greedy {greedy} hard {hard}");
        }
    }

    #[test]
    fn chaturaji_anchors_follow_the_arena_shares() {
        // hard vs 3 medium: 36.5% against 21.2% per seat.
        let c = pair_c();
        let hard = anchor(Pool::Chaturaji, CpuLevel::Hard).mu;
        let medium_share = 127.0 / 600.0;
        assert!((hard - (25.0 + c * (0.365f64 / medium_share).ln())).abs() < 1e-9);
        // The model gives back the measured share: hard's first-place probability at a table with
        // three mediums is exp(hard/c) / (exp(hard/c) + 3 exp(medium/c)).
        let e = |mu: f64| (mu / c).exp();
        let share = e(hard) / (e(hard) + 3.0 * e(25.0));
        assert!((share - 0.365).abs() < 1e-9, "{share}");
    }

    #[test]
    fn a_clean_sweep_counts_as_the_rule_of_three_bound() {
        // 40 of 40 games: greedy is credited 3 (2.5% of its 120 seat-games), hard 37 (92.5%).
        let hard = anchor(Pool::FourchessFfa, CpuLevel::Hard).mu;
        let greedy = anchor(Pool::FourchessFfa, CpuLevel::Greedy).mu;
        let expected = pair_c() * (0.925f64 / 0.025).ln();
        assert!((hard - greedy - expected).abs() < 1e-9, "{hard} {greedy}");
    }

    #[test]
    fn only_cpu_ids_have_anchors() {
        assert!(anchor_of(Pool::Chaturaji, "cpu:medium").is_some());
        assert!(anchor_of(Pool::Chaturaji, "p_abc").is_none());
        assert!(anchor_of(Pool::Chaturaji, "guest").is_none());
    }
}
