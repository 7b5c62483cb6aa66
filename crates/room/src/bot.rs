//! CPU players behind one interface. The room runs [`Bot::choose`] on the blocking pool and discards
//! a result computed for a state that has changed since.

use protocol::Seat;
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

use crate::game::{TableAction, TableGame};

/// The highest CPU level a host may choose.
pub const MAX_LEVEL: u8 = 3;

pub trait Bot: Send + Sync + std::fmt::Debug + 'static {
    /// An action for `seat`, which is to act in `game`; `None` only if the rules offer nothing.
    fn choose(&self, game: &TableGame, seat: Seat, level: u8) -> Option<TableAction>;
}

/// Plays legal moves and prefers the one that scores most, then the one that captures most; ties are
/// broken by a generator seeded from the position, so a choice is reproducible. It ends a Chaturaji
/// turn early only when nothing else is legal. Every level plays the same way for now.
#[derive(Debug, Clone, Copy, Default)]
pub struct SimpleBot;

impl Bot for SimpleBot {
    fn choose(&self, game: &TableGame, seat: Seat, _level: u8) -> Option<TableAction> {
        let actions = game.legal_actions();
        let points_before = game.points()[seat.index()];
        let enemies_before = game.enemy_pieces(seat);
        let mut best: Vec<(i64, &TableAction)> = Vec::new();
        for action in &actions {
            let mut next = game.clone();
            if next.apply(action.clone()).is_err() {
                continue;
            }
            let gained = next.points()[seat.index()] - points_before;
            let captured = enemies_before - next.enemy_pieces(seat);
            let ends_turn = matches!(
                action,
                TableAction::Chaturaji(rules::chaturaji::Action::EndTurn)
            );
            let score = gained * 100 + captured * 10 - i64::from(ends_turn);
            match best.first() {
                Some((s, _)) if *s > score => {}
                Some((s, _)) if *s == score => best.push((score, action)),
                _ => best = vec![(score, action)],
            }
        }
        let mut rng = ChaCha8Rng::seed_from_u64(actions.len() as u64 ^ points_before as u64);
        best.choose(&mut rng).map(|(_, a)| (*a).clone())
    }
}
