//! The rating step of recording a game, shared by both backends: from the seats' current ratings to
//! one change per seat.
//!
//! Every seat is its own participant. A human seat brings the player's rating in the game's pool; a CPU
//! seat brings its level's fixed anchor ([`rating::anchor_of`]), which the game does not change. So two
//! medium CPUs are two opponents of medium strength, and a human's change against CPUs is computed by
//! the same update as against humans.

use std::collections::HashMap;

use rating::{Rating, anchor_of, rate};
use rules::Seat;

use crate::{FinishedGame, RatingChange, StoreError};

/// The rated (non-CPU) players of a game, in seat order; each holds one seat.
pub(crate) fn rated_players(game: &FinishedGame) -> Result<Vec<String>, StoreError> {
    let mut out: Vec<String> = Vec::with_capacity(4);
    for seat in &game.seats {
        if anchor_of(game.pool, &seat.player_id).is_some() {
            continue;
        }
        if out.contains(&seat.player_id) {
            // The server records such a game unrated (`UnratedReason::SameIdentity`); reaching here
            // is a caller's bug, and summing one identity's seats is what made farming pay.
            return Err(StoreError::SameIdentity(seat.player_id.clone()));
        }
        out.push(seat.player_id.clone());
    }
    Ok(out)
}

/// One rating change per seat, given each rated player's current (rating, games) in the game's pool
/// (missing players start at [`Rating::INITIAL`] with no games).
pub(crate) fn rating_changes(
    game: &FinishedGame,
    current: &HashMap<String, (Rating, i64)>,
) -> Result<Vec<RatingChange>, StoreError> {
    rated_players(game)?;
    let seat_rating = |id: &str| {
        anchor_of(game.pool, id)
            .map(|anchor| (anchor, None))
            .unwrap_or_else(|| {
                let (rating, games) = current.get(id).copied().unwrap_or((Rating::INITIAL, 0));
                (rating, Some(games))
            })
    };
    let before: [(Rating, Option<i64>); 4] =
        std::array::from_fn(|i| seat_rating(&game.seats[i].player_id));
    let after = rate(before.map(|(r, _)| r), &game.result)?;
    Ok(Seat::ALL
        .into_iter()
        .map(|seat| {
            let (start, games) = before[seat.index()];
            RatingChange {
                player_id: game.seats[seat.index()].player_id.clone(),
                seats: vec![seat],
                before: start,
                // An anchor stays where it is.
                after: if games.is_some() {
                    after[seat.index()]
                } else {
                    start
                },
                games: games.map_or(0, |g| g + 1),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SeatPlayer;
    use rating::{CpuLevel, GameResult, Pool, anchor};

    fn game(ids: [&str; 4], places: [u8; 4]) -> FinishedGame {
        FinishedGame {
            id: "r-1".into(),
            room_id: "r".into(),
            game_no: 1,
            pool: Pool::Chaturaji,
            unrated: None,
            options: serde_json::json!({}),
            first_seat: Seat::Red,
            dice_commit: None,
            revealed_seed: None,
            seats: ids.map(|id| SeatPlayer {
                player_id: id.into(),
                cpu_finished: false,
            }),
            result: GameResult::Places(places),
            standings: serde_json::json!([]),
            record: serde_json::json!({}),
            finished_at: 0,
        }
    }

    #[test]
    fn two_cpu_seats_of_one_level_are_two_participants_with_the_anchor() {
        let g = game(["cpu:medium", "p_a", "p_b", "cpu:medium"], [1, 2, 3, 4]);
        let changes = rating_changes(&g, &HashMap::new()).unwrap();
        assert_eq!(changes.len(), 4);
        let medium = anchor(Pool::Chaturaji, CpuLevel::Medium);
        for seat in [0, 3] {
            assert_eq!(changes[seat].seats, vec![Seat::ALL[seat]]);
            assert_eq!(
                (changes[seat].before, changes[seat].after),
                (medium, medium)
            );
            assert_eq!(changes[seat].games, 0);
        }
        // The humans' changes are exactly the update with the anchors in the CPU seats.
        let expected = rate(
            [medium, Rating::INITIAL, Rating::INITIAL, medium],
            &g.result,
        )
        .unwrap();
        assert_eq!(changes[1].after, expected[1]);
        assert_eq!(changes[2].after, expected[2]);
        // 2nd place gains, 3rd loses: the CPU winner took nothing from anyone's count.
        assert!(changes[1].after.mu > 25.0 && changes[2].after.mu < 25.0);
        assert_eq!((changes[1].games, changes[2].games), (1, 1));
    }

    #[test]
    fn one_identity_in_two_seats_is_refused() {
        let g = game(["p_a", "p_a", "cpu:easy", "cpu:easy"], [1, 2, 3, 4]);
        assert!(matches!(
            rating_changes(&g, &HashMap::new()),
            Err(StoreError::SameIdentity(id)) if id == "p_a"
        ));
    }
}
