//! One rating update for one finished game.

use skillratings::weng_lin::{
    WengLinConfig, WengLinRating, weng_lin_multi_team, weng_lin_two_teams,
};
use skillratings::{MultiTeamOutcome, Outcomes};

/// A Weng-Lin rating: the skill estimate `mu` and its uncertainty `sigma`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Rating {
    pub mu: f64,
    pub sigma: f64,
}

impl Rating {
    /// A newcomer: mu 25, sigma 25/3 (the Weng-Lin / TrueSkill defaults).
    pub const INITIAL: Rating = Rating {
        mu: 25.0,
        sigma: 25.0 / 3.0,
    };

    /// The conservative skill estimate `mu - 3·sigma`: the player is better than this with ~99.7%
    /// confidence. Leaderboards sort by it so that one lucky first game does not top the board.
    pub fn conservative(&self) -> f64 {
        self.mu - 3.0 * self.sigma
    }

    /// The number shown to people: `round(1000 + 40·(mu − 3·sigma))`. A newcomer shows 1000 and climbs
    /// as games shrink sigma; the factor 40 turns the Weng-Lin scale (≈ 0..50) into familiar
    /// chess-like numbers (≈ 1000..2500). Sorting by it is the same as sorting by [`Self::conservative`].
    pub fn display(&self) -> i32 {
        (1000.0 + 40.0 * self.conservative()).round() as i32
    }
}

impl Default for Rating {
    fn default() -> Rating {
        Rating::INITIAL
    }
}

/// The result of a Teams game, from the point of view of Red+Yellow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TeamResult {
    RedYellowWin,
    Draw,
    BlueGreenWin,
}

/// What a finished game says about its four seats (seat order Red, Blue, Yellow, Green).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", tag = "type", content = "value")]
pub enum GameResult {
    /// Four-way ranking: each seat's place, 1-based, with shared places in competition style
    /// (1, 1, 3, 4): a seat's place is one more than the number of seats strictly ahead of it.
    Places([u8; 4]),
    /// Two teams: Red+Yellow against Blue+Green.
    Teams(TeamResult),
}

/// A four-way result that is not a competition ranking.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ResultError {
    #[error(
        "places {0:?} are not a competition ranking (each place must be 1 + the number of seats ahead)"
    )]
    InvalidPlaces([u8; 4]),
    #[error("rating is not finite or sigma is not positive: mu {mu}, sigma {sigma}")]
    InvalidRating { mu: f64, sigma: f64 },
}

impl GameResult {
    /// Checks that places form a competition ranking: place = 1 + number of seats with a better place.
    /// This rules out places 0, 5, gaps such as (1, 1, 2, 4), and so on.
    pub fn validate(&self) -> Result<(), ResultError> {
        if let GameResult::Places(places) = self {
            let ok = places.iter().all(|&p| {
                let ahead = places.iter().filter(|&&q| q < p).count();
                usize::from(p) == ahead + 1
            });
            if !ok {
                return Err(ResultError::InvalidPlaces(*places));
            }
        }
        Ok(())
    }
}

fn to_wl(r: Rating) -> WengLinRating {
    WengLinRating {
        rating: r.mu,
        uncertainty: r.sigma,
    }
}

fn from_wl(r: WengLinRating) -> Rating {
    Rating {
        mu: r.rating,
        sigma: r.uncertainty,
    }
}

/// The four seats' ratings after a game, given their ratings before it.
///
/// Shared places and team draws are scored as half a win and half a loss against the seats they tie
/// with, so a tied seat's change lies between its change as the sole winner and as the sole loser.
pub fn rate(before: [Rating; 4], result: &GameResult) -> Result<[Rating; 4], ResultError> {
    result.validate()?;
    if let Some(bad) = before
        .iter()
        .find(|r| !r.mu.is_finite() || !r.sigma.is_finite() || r.sigma <= 0.0)
    {
        return Err(ResultError::InvalidRating {
            mu: bad.mu,
            sigma: bad.sigma,
        });
    }
    let config = WengLinConfig::new();
    let wl = before.map(to_wl);
    match result {
        GameResult::Places(places) => {
            let teams: Vec<[WengLinRating; 1]> = wl.iter().map(|&r| [r]).collect();
            let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
                .iter()
                .zip(places)
                .map(|(team, &place)| (&team[..], MultiTeamOutcome::new(usize::from(place))))
                .collect();
            let after = weng_lin_multi_team(&ranked, &config);
            Ok(std::array::from_fn(|i| from_wl(after[i][0])))
        }
        GameResult::Teams(team_result) => {
            let red_yellow = [wl[0], wl[2]];
            let blue_green = [wl[1], wl[3]];
            let outcome = match team_result {
                TeamResult::RedYellowWin => Outcomes::WIN,
                TeamResult::Draw => Outcomes::DRAW,
                TeamResult::BlueGreenWin => Outcomes::LOSS,
            };
            let (ry, bg) = weng_lin_two_teams(&red_yellow, &blue_green, &outcome, &config);
            Ok([ry[0], bg[0], ry[1], bg[1]].map(from_wl))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const NEW: [Rating; 4] = [Rating::INITIAL; 4];

    fn mu_change(before: [Rating; 4], result: GameResult, seat: usize) -> f64 {
        rate(before, &result).unwrap()[seat].mu - before[seat].mu
    }

    #[test]
    fn winner_gains_last_loses_and_everyone_gets_surer() {
        let after = rate(NEW, &GameResult::Places([1, 2, 3, 4])).unwrap();
        assert!(after[0].mu > 25.0, "winner {after:?}");
        assert!(after[3].mu < 25.0, "last {after:?}");
        assert!(
            after[0].mu > after[1].mu && after[1].mu > after[2].mu && after[2].mu > after[3].mu
        );
        for r in after {
            assert!(r.sigma < Rating::INITIAL.sigma, "{r:?}");
        }
    }

    #[test]
    fn shared_first_place_lies_between_sole_winner_and_sole_loser() {
        // Seats 0 and 1 share first place; compare seat 0 with the results where it beat seat 1 and
        // where seat 1 beat it, everything else equal.
        let tie = mu_change(NEW, GameResult::Places([1, 1, 3, 4]), 0);
        let win = mu_change(NEW, GameResult::Places([1, 2, 3, 4]), 0);
        let loss = mu_change(NEW, GameResult::Places([2, 1, 3, 4]), 0);
        assert!(loss < tie && tie < win, "loss {loss} tie {tie} win {win}");
        // With equal ratings before, a tie is exactly half-way between.
        assert!(
            (tie - (win + loss) / 2.0).abs() < 1e-9,
            "loss {loss} tie {tie} win {win}"
        );
    }

    #[test]
    fn shared_middle_place_with_unequal_ratings_lies_between() {
        let before = [
            Rating {
                mu: 30.0,
                sigma: 3.0,
            },
            Rating {
                mu: 22.0,
                sigma: 5.0,
            },
            Rating {
                mu: 26.0,
                sigma: 2.0,
            },
            Rating {
                mu: 18.0,
                sigma: 7.0,
            },
        ];
        // Seats 1 and 2 share second place.
        let tie = mu_change(before, GameResult::Places([1, 2, 2, 4]), 1);
        let win = mu_change(before, GameResult::Places([1, 2, 3, 4]), 1);
        let loss = mu_change(before, GameResult::Places([1, 3, 2, 4]), 1);
        assert!(loss < tie && tie < win, "loss {loss} tie {tie} win {win}");
    }

    #[test]
    fn everyone_shares_first_with_equal_ratings_changes_no_mu() {
        let after = rate(NEW, &GameResult::Places([1, 1, 1, 1])).unwrap();
        for r in after {
            assert!((r.mu - 25.0).abs() < 1e-9, "{r:?}");
        }
    }

    #[test]
    fn team_draw_lies_between_win_and_loss_for_both_teams() {
        let before = [
            Rating {
                mu: 28.0,
                sigma: 4.0,
            },
            Rating {
                mu: 24.0,
                sigma: 6.0,
            },
            Rating {
                mu: 21.0,
                sigma: 3.0,
            },
            Rating {
                mu: 27.0,
                sigma: 5.0,
            },
        ];
        for seat in 0..4 {
            let draw = mu_change(before, GameResult::Teams(TeamResult::Draw), seat);
            let ry = mu_change(before, GameResult::Teams(TeamResult::RedYellowWin), seat);
            let bg = mu_change(before, GameResult::Teams(TeamResult::BlueGreenWin), seat);
            let (win, loss) = if seat % 2 == 0 { (ry, bg) } else { (bg, ry) };
            assert!(
                loss < draw && draw < win,
                "seat {seat}: loss {loss} draw {draw} win {win}"
            );
        }
    }

    #[test]
    fn team_partners_move_together() {
        let after = rate(NEW, &GameResult::Teams(TeamResult::RedYellowWin)).unwrap();
        assert!(after[0].mu > 25.0 && after[2].mu > 25.0, "{after:?}");
        assert!(after[1].mu < 25.0 && after[3].mu < 25.0, "{after:?}");
        assert!((after[0].mu - after[2].mu).abs() < 1e-9);
    }

    #[test]
    fn places_that_are_not_a_competition_ranking_are_rejected() {
        for bad in [
            [1, 1, 2, 4],
            [0, 1, 2, 3],
            [1, 2, 3, 5],
            [2, 2, 3, 4],
            [1, 2, 4, 4],
        ] {
            assert_eq!(
                rate(NEW, &GameResult::Places(bad)),
                Err(ResultError::InvalidPlaces(bad))
            );
        }
        for good in [
            [1, 1, 3, 4],
            [1, 2, 2, 2],
            [4, 3, 2, 1],
            [1, 1, 1, 1],
            [2, 1, 2, 4],
            [1, 2, 3, 3],
        ] {
            assert!(rate(NEW, &GameResult::Places(good)).is_ok(), "{good:?}");
        }
    }

    #[test]
    fn non_finite_ratings_are_rejected() {
        let mut before = NEW;
        before[2].sigma = 0.0;
        assert!(matches!(
            rate(before, &GameResult::Places([1, 2, 3, 4])),
            Err(ResultError::InvalidRating { .. })
        ));
    }

    #[test]
    fn display_is_the_scaled_conservative_estimate() {
        assert_eq!(Rating::INITIAL.display(), 1000);
        assert_eq!(
            Rating {
                mu: 30.0,
                sigma: 2.0
            }
            .display(),
            1000 + 40 * 24
        );
    }

    fn places() -> impl Strategy<Value = [u8; 4]> {
        // Random scores ranked in competition style (shared places for equal scores).
        proptest::array::uniform4(0u8..4).prop_map(|keys| {
            std::array::from_fn(|i| 1 + keys.iter().filter(|&&k| k > keys[i]).count() as u8)
        })
    }

    fn rating() -> impl Strategy<Value = Rating> {
        (0.0f64..50.0, 0.5f64..9.0).prop_map(|(mu, sigma)| Rating { mu, sigma })
    }

    fn ratings() -> impl Strategy<Value = [Rating; 4]> {
        proptest::array::uniform4(rating())
    }

    /// A permutation of the four seats: `perm[k]` is the seat whose data moves to seat `k`.
    fn permutation() -> impl Strategy<Value = [usize; 4]> {
        Just([0usize, 1, 2, 3])
            .prop_shuffle()
            .prop_map(|v| [v[0], v[1], v[2], v[3]])
    }

    fn close(a: Rating, b: Rating) -> bool {
        (a.mu - b.mu).abs() < 1e-9 && (a.sigma - b.sigma).abs() < 1e-9
    }

    fn teams() -> impl Strategy<Value = TeamResult> {
        prop_oneof![
            Just(TeamResult::RedYellowWin),
            Just(TeamResult::Draw),
            Just(TeamResult::BlueGreenWin)
        ]
    }

    fn flipped(r: TeamResult) -> TeamResult {
        match r {
            TeamResult::RedYellowWin => TeamResult::BlueGreenWin,
            TeamResult::Draw => TeamResult::Draw,
            TeamResult::BlueGreenWin => TeamResult::RedYellowWin,
        }
    }

    proptest! {
        #[test]
        fn updates_are_finite_and_never_raise_sigma(before in ratings(), places in places()) {
            let after = rate(before, &GameResult::Places(places)).unwrap();
            for (b, a) in before.iter().zip(after) {
                prop_assert!(a.mu.is_finite() && a.sigma.is_finite() && a.sigma > 0.0);
                prop_assert!(a.sigma <= b.sigma + 1e-12);
            }
        }

        /// Equal ratings and uncertainties (any common value): a better place never gains less,
        /// neither in mu nor in the number shown, and a shared place gains the same.
        #[test]
        fn with_equal_ratings_a_better_place_never_gains_less(common in rating(), places in places()) {
            let before = [common; 4];
            let after = rate(before, &GameResult::Places(places)).unwrap();
            for i in 0..4 {
                for j in 0..4 {
                    if places[i] < places[j] {
                        prop_assert!(after[i].mu > after[j].mu);
                        prop_assert!(after[i].display() >= after[j].display());
                    }
                    if places[i] == places[j] {
                        prop_assert!((after[i].mu - after[j].mu).abs() < 1e-9);
                    }
                }
            }
        }

        /// With any ratings: sharing a place with one other seat lies strictly between finishing
        /// just ahead of it and just behind it (the rest of the result unchanged).
        #[test]
        fn a_shared_place_lies_strictly_between_win_and_loss(
            before in ratings(), order in permutation(), k in 0usize..3,
        ) {
            // `order[r]` finishes (r+1)-th; the seats at places k+1 and k+2 are compared.
            let (i, j) = (order[k], order[k + 1]);
            let mut win = [0u8; 4];
            for (r, &seat) in order.iter().enumerate() {
                win[seat] = r as u8 + 1;
            }
            let mut loss = win;
            loss.swap(i, j);
            let mut tie = win;
            tie[j] = tie[i];
            let change = |places| rate(before, &GameResult::Places(places)).unwrap()[i].mu - before[i].mu;
            let (w, d, l) = (change(win), change(tie), change(loss));
            prop_assert!(l < d && d < w, "loss {l} tie {d} win {w}");
        }

        #[test]
        fn a_team_draw_lies_strictly_between_win_and_loss(before in ratings(), seat in 0usize..4) {
            let change = |r| rate(before, &GameResult::Teams(r)).unwrap()[seat].mu - before[seat].mu;
            let ry = change(TeamResult::RedYellowWin);
            let bg = change(TeamResult::BlueGreenWin);
            let (w, l) = if seat % 2 == 0 { (ry, bg) } else { (bg, ry) };
            let d = change(TeamResult::Draw);
            prop_assert!(l < d && d < w, "seat {seat}: loss {l} draw {d} win {w}");
        }

        /// Relabelling the seats (moving every seat's rating and place to another seat) relabels the
        /// new ratings the same way: no seat is favoured.
        #[test]
        fn four_way_updates_are_symmetric_under_relabelling(
            before in ratings(), places in places(), perm in permutation(),
        ) {
            let after = rate(before, &GameResult::Places(places)).unwrap();
            let moved = rate(perm.map(|s| before[s]), &GameResult::Places(perm.map(|s| places[s]))).unwrap();
            for k in 0..4 {
                prop_assert!(close(moved[k], after[perm[k]]), "seat {k}: {:?} vs {:?}", moved[k], after[perm[k]]);
            }
        }

        /// A seat's new rating depends on its own rating, the others' ratings and the result only:
        /// shuffling who sits in the other three seats changes nothing for it.
        #[test]
        fn a_change_never_depends_on_the_others_seat_order(
            before in ratings(), places in places(), seat in 0usize..4, perm in permutation(),
        ) {
            // Turn `perm` into a permutation that keeps `seat` where it is.
            let mut others: Vec<usize> = perm.iter().copied().filter(|&s| s != seat).collect();
            let fixed: [usize; 4] = std::array::from_fn(|k| if k == seat { seat } else { others.remove(0) });
            let after = rate(before, &GameResult::Places(places)).unwrap();
            let moved = rate(fixed.map(|s| before[s]), &GameResult::Places(fixed.map(|s| places[s]))).unwrap();
            prop_assert!(close(moved[seat], after[seat]));
        }

        /// Teams: swapping partners, or swapping the two teams' sides (and the result with them),
        /// relabels the new ratings the same way.
        #[test]
        fn team_updates_are_symmetric_under_relabelling(
            before in ratings(), result in teams(), swap_red in any::<bool>(), swap_blue in any::<bool>(), swap_sides in any::<bool>(),
        ) {
            let after = rate(before, &GameResult::Teams(result)).unwrap();
            // Seats: Red 0, Blue 1, Yellow 2, Green 3; partners 0+2 and 1+3.
            let mut perm = [0usize, 1, 2, 3];
            if swap_red { perm.swap(0, 2); }
            if swap_blue { perm.swap(1, 3); }
            if swap_sides { perm = [perm[1], perm[0], perm[3], perm[2]]; }
            let moved_result = if swap_sides { flipped(result) } else { result };
            let moved = rate(perm.map(|s| before[s]), &GameResult::Teams(moved_result)).unwrap();
            for k in 0..4 {
                prop_assert!(close(moved[k], after[perm[k]]), "seat {k}");
            }
        }

        /// Equal ratings in Teams: the winners gain the same, the losers lose the same, a draw
        /// moves nobody's mu.
        #[test]
        fn with_equal_ratings_team_winners_gain_and_losers_lose(common in rating(), result in teams()) {
            let after = rate([common; 4], &GameResult::Teams(result)).unwrap();
            let d: Vec<f64> = after.iter().map(|a| a.mu - common.mu).collect();
            prop_assert!((d[0] - d[2]).abs() < 1e-9 && (d[1] - d[3]).abs() < 1e-9);
            match result {
                TeamResult::RedYellowWin => prop_assert!(d[0] > 0.0 && d[1] < 0.0),
                TeamResult::BlueGreenWin => prop_assert!(d[0] < 0.0 && d[1] > 0.0),
                TeamResult::Draw => prop_assert!(d[0].abs() < 1e-9 && d[1].abs() < 1e-9),
            }
        }
    }
}
