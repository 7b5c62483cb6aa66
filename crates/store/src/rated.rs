//! The rating step of recording a game, shared by both backends: from the seats' current ratings to
//! one change per distinct player.

use std::collections::HashMap;

use rating::{Rating, rate};
use rules::Seat;

use crate::{FinishedGame, RatingChange, StoreError};

/// The distinct players of a game's seats, in seat order of first appearance.
pub(crate) fn distinct_players(game: &FinishedGame) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(4);
    for seat in &game.seats {
        if !out.contains(&seat.player_id) {
            out.push(seat.player_id.clone());
        }
    }
    out
}

/// One rating change per distinct player, given each player's current (rating, games) in the game's
/// pool (missing players start at [`Rating::INITIAL`] with no games).
///
/// A player who holds several seats (typically one CPU level filling two or three seats, or a human
/// playing hot-seat) gets the sum of the seats' mu changes and the smallest of their new sigmas, and the
/// game counts once.
pub(crate) fn rating_changes(
    game: &FinishedGame,
    current: &HashMap<String, (Rating, i64)>,
) -> Result<Vec<RatingChange>, StoreError> {
    let lookup = |id: &str| current.get(id).copied().unwrap_or((Rating::INITIAL, 0));
    let before: [Rating; 4] = std::array::from_fn(|i| lookup(&game.seats[i].player_id).0);
    let after = rate(before, &game.result)?;
    let changes = distinct_players(game)
        .into_iter()
        .map(|player_id| {
            let (start, games) = lookup(&player_id);
            let seats: Vec<Seat> = Seat::ALL
                .into_iter()
                .filter(|s| game.seats[s.index()].player_id == player_id)
                .collect();
            let mu = start.mu
                + seats
                    .iter()
                    .map(|s| after[s.index()].mu - start.mu)
                    .sum::<f64>();
            let sigma = seats
                .iter()
                .map(|s| after[s.index()].sigma)
                .fold(start.sigma, f64::min);
            RatingChange {
                player_id,
                seats,
                before: start,
                after: Rating { mu, sigma },
                games: games + 1,
            }
        })
        .collect();
    Ok(changes)
}
