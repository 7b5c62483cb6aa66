//! Expectimax over whole turns (max-n for the players, expectation for the dice).
//!
//! A turn node lists every end of the running turn ([`super::turns`]) and the seat to move picks the
//! end best for itself. Between turns a chance node throws the next seat's dice: the ten unordered
//! class pairs with their probabilities (only the classes matter to the rules, so one face per class
//! stands for all). Deeper turns are searched in a beam: only the few ends that look best statically
//! are searched further, which keeps a four-turn search inside a second.

use super::eval::{class_pairs, evaluate};
use super::turns::{TurnEnd, turn_ends};
use crate::budget::Meter;
use rules::chaturaji::{Action, Game, Phase};

/// How wide the search stays at each remaining depth (in turns).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Beams {
    /// Root ends searched at iteration depth 3 and deeper (all at depth 2).
    pub root: usize,
    /// Ends of an inner turn searched further when more than one turn is left below it.
    pub inner: usize,
}

pub(crate) struct Search<'m, 'c> {
    pub meter: &'m mut Meter<'c>,
    pairs: Vec<([u8; 2], f32)>,
    beams: Beams,
}

impl<'m, 'c> Search<'m, 'c> {
    pub(crate) fn new(game: &Game, meter: &'m mut Meter<'c>, beams: Beams) -> Search<'m, 'c> {
        Search {
            meter,
            pairs: class_pairs(game.options().dice),
            beams,
        }
    }

    /// The value of a game between turns (awaiting a throw, or over) searched `depth` turns deep.
    /// `None` when the budget ran out.
    pub(crate) fn between_turns(&mut self, game: &Game, depth: u32) -> Option<[f32; 4]> {
        if depth == 0 || game.outcome().is_some() {
            return Some(evaluate(game));
        }
        let mut total = [0.0f32; 4];
        for i in 0..self.pairs.len() {
            let (dice, p) = self.pairs[i];
            if self.meter.tick() {
                return None;
            }
            let mut rolled = game.clone();
            if rolled.apply(Action::Roll { dice }).is_err() {
                return Some(evaluate(game));
            }
            let v = self.turn(&rolled, depth)?;
            for s in 0..4 {
                total[s] += p * v[s];
            }
        }
        Some(total)
    }

    /// The value of a turn whose dice are thrown: its seat picks the end best for itself.
    fn turn(&mut self, rolled: &Game, depth: u32) -> Option<[f32; 4]> {
        let Phase::Moving(seat) = rolled.phase() else {
            // No die was usable: the turn passed at once.
            return self.between_turns(rolled, depth - 1);
        };
        let ends = turn_ends(rolled, seat, self.meter);
        if self.meter.out() {
            return None;
        }
        let me = seat.index();
        let mut scored: Vec<([f32; 4], &TurnEnd)> =
            ends.iter().map(|e| (evaluate(&e.game), e)).collect();
        if depth == 1 {
            return scored
                .into_iter()
                .map(|(v, _)| v)
                .max_by(|a, b| a[me].total_cmp(&b[me]));
        }
        scored.sort_by(|a, b| b.0[me].total_cmp(&a.0[me]));
        scored.truncate(self.beams.inner.max(1));
        let mut best: Option<[f32; 4]> = None;
        for (_, end) in scored {
            let v = self.between_turns(&end.game, depth - 1)?;
            if best.is_none_or(|b| v[me] > b[me]) {
                best = Some(v);
            }
        }
        best
    }
}
