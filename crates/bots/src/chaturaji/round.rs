//! Expectimax over the opponents' turns that follow one's own, with every opponent modelled as a
//! points-greedy player ([`super::greedy`]): a chance node over the ten class pairs of each opponent's
//! throw, and for each throw the one turn the model predicts. With the opponents' choices fixed by the
//! model the tree has no choice nodes below the root, so a whole round (three opponents, a thousand
//! throw sequences) fits in a `hard` budget for the most promising turns.

use super::eval::{class_pairs, evaluate};
use super::greedy::greedy_reply;
use crate::budget::Meter;
use rules::Seat;
use rules::chaturaji::{Action, Game, Phase};

pub(crate) struct RoundSearch<'m, 'c> {
    pub meter: &'m mut Meter<'c>,
    pairs: Vec<([u8; 2], f32)>,
}

impl<'m, 'c> RoundSearch<'m, 'c> {
    pub(crate) fn new(game: &Game, meter: &'m mut Meter<'c>) -> RoundSearch<'m, 'c> {
        RoundSearch {
            meter,
            pairs: class_pairs(game.options().dice),
        }
    }

    /// The expected value for `me` of `game` (between turns) after at most `depth` further opponent
    /// turns; the search stops early when it is `me`'s turn again or the game is over. `None` when the
    /// budget ran out.
    pub(crate) fn expect(&mut self, game: &Game, me: Seat, depth: u32) -> Option<f32> {
        let Phase::AwaitingRoll(next) = game.phase() else {
            return Some(evaluate(game)[me.index()]);
        };
        if depth == 0 || next == me {
            return Some(evaluate(game)[me.index()]);
        }
        let mut total = 0.0;
        for i in 0..self.pairs.len() {
            let (dice, p) = self.pairs[i];
            if self.meter.tick() {
                return None;
            }
            let mut rolled = game.clone();
            if rolled.apply(Action::Roll { dice }).is_err() {
                return Some(evaluate(game)[me.index()]);
            }
            let after = greedy_reply(&rolled, self.meter)?;
            total += p * self.expect(&after, me, depth - 1)?;
        }
        Some(total)
    }
}
