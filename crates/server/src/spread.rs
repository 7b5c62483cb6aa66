//! The ± printed beside a share in `arena` and `match`: a 95% normal-approximation interval over
//! *games*, from the spread of one number per game (a level's or engine's mean result over the seats
//! it held in that game).
//!
//! Counting seat-games as trials would be wrong whenever one side holds several seats of a game:
//! Teams partners share one result (two seats, one trial: the interval came out √2 too narrow), and
//! three seats of one level in FFA or Chaturaji are not independent (at most one of them is first).

/// Running sums of one number per game.
#[derive(Debug, Default, Clone, Copy)]
pub struct PerGame {
    games: usize,
    sum: f64,
    sum_sq: f64,
}

impl PerGame {
    /// One game's value (the mean over the seats held in it).
    pub fn add(&mut self, value: f64) {
        self.games += 1;
        self.sum += value;
        self.sum_sq += value * value;
    }

    pub fn games(&self) -> usize {
        self.games
    }

    /// The half-width of the 95% interval of the mean per-game value.
    pub fn interval(&self) -> f64 {
        let n = (self.games as f64).max(1.0);
        let mean = self.sum / n;
        let variance = (self.sum_sq / n - mean * mean).max(0.0);
        1.96 * (variance / n).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A share of one half over 100 independent games: ±9.8 points, narrowing with more games.
    #[test]
    fn the_interval_of_a_coin_shrinks_with_more_games() {
        let coin = |n: usize| {
            let mut s = PerGame::default();
            for i in 0..n {
                s.add((i % 2) as f64);
            }
            s.interval()
        };
        assert!((coin(100) - 0.098).abs() < 1e-3, "{}", coin(100));
        assert!(coin(400) < coin(100));
    }
}
