//! Rating pools: ratings are kept separately per game kind and mode.

use std::fmt;
use std::str::FromStr;

/// A rating pool: one per game kind and mode. The string forms (`chaturaji`, `fourchess_teams`,
/// `fourchess_ffa`) are what the store writes and what the REST API takes.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Pool {
    /// Dice Chaturaji: four-way ranking by points, shared places allowed.
    Chaturaji,
    /// Four-player chess, Teams: Red+Yellow against Blue+Green (win, draw or loss).
    FourchessTeams,
    /// Four-player chess, free-for-all: four-way ranking by points, shared places allowed.
    FourchessFfa,
}

impl Pool {
    pub const ALL: [Pool; 3] = [Pool::Chaturaji, Pool::FourchessTeams, Pool::FourchessFfa];

    pub const fn as_str(self) -> &'static str {
        match self {
            Pool::Chaturaji => "chaturaji",
            Pool::FourchessTeams => "fourchess_teams",
            Pool::FourchessFfa => "fourchess_ffa",
        }
    }

    /// Whether results in this pool are team results (otherwise four-way rankings).
    pub const fn is_teams(self) -> bool {
        matches!(self, Pool::FourchessTeams)
    }
}

impl fmt::Display for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A pool name that is not one of `chaturaji`, `fourchess_teams`, `fourchess_ffa`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown rating pool `{0}` (expected chaturaji, fourchess_teams or fourchess_ffa)")]
pub struct UnknownPool(pub String);

impl FromStr for Pool {
    type Err = UnknownPool;

    fn from_str(s: &str) -> Result<Pool, UnknownPool> {
        Pool::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| UnknownPool(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_names_round_trip_through_str_and_serde() {
        for pool in Pool::ALL {
            assert_eq!(pool.as_str().parse::<Pool>(), Ok(pool));
            let json = serde_json::to_string(&pool).unwrap();
            assert_eq!(json, format!("\"{}\"", pool.as_str()));
        }
        assert!("fourchess".parse::<Pool>().is_err());
    }
}
