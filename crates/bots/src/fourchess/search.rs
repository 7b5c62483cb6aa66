//! Alpha-beta with iterative deepening, a transposition table, killer and history move ordering, and a
//! quiescence search over captures and promotions.
//!
//! One point of view for the whole tree (the root seat's): a node maximises when its mover is on the
//! root's side — the root seat and its partner in Teams (which is then an exact two-sided game, the
//! teams moving alternately), the root seat alone in FFA (the *paranoid* assumption: the three others
//! play against it).

use super::eval::{WIN, evaluate, piece_value};
use crate::budget::Meter;
use rules::Seat;
use rules::fourchess::{Action, Game, Kind, Mode, Move, Owner, Square, in_check};

const MAX_PLY: usize = 64;
const TT_BITS: u32 = 16;
/// Plies past the end of the quiescence budget that a side in check still gets to answer.
const CHECK_EVASION_PLIES: i32 = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    key: u64,
    value: i32,
    depth: i8,
    bound: Bound,
    best: Option<Move>,
}

/// A fixed-size, always-replace transposition table (allocated per decision: bots keep no memory
/// between moves, so thousands of idle bots cost nothing).
struct Table {
    entries: Vec<Option<Entry>>,
}

impl Table {
    fn new() -> Table {
        Table {
            entries: vec![None; 1 << TT_BITS],
        }
    }

    fn slot(key: u64) -> usize {
        (key >> (64 - TT_BITS)) as usize
    }

    fn get(&self, key: u64) -> Option<Entry> {
        self.entries[Self::slot(key)].filter(|e| e.key == key)
    }

    fn put(&mut self, entry: Entry) {
        let slot = &mut self.entries[Self::slot(entry.key)];
        if slot.is_none_or(|old| old.key != entry.key || old.depth <= entry.depth) {
            *slot = Some(entry);
        }
    }
}

/// How deep a level looks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Depths {
    pub max_depth: i32,
    pub quiescence: i32,
}

pub(crate) struct Searcher<'m, 'c> {
    me: Seat,
    mode: Mode,
    pub meter: &'m mut Meter<'c>,
    table: Table,
    killers: [[Option<Move>; 2]; MAX_PLY],
    history: Vec<i32>,
    depths: Depths,
}

fn square_index(sq: Square) -> usize {
    sq.rank() as usize * 14 + sq.file() as usize
}

/// Zobrist key of the placement, with the points mixed in (FFA values depend on them).
fn key(game: &Game) -> u64 {
    let mut k = game.position().key();
    if game.mode() == Mode::Ffa {
        for (i, p) in game.points().into_iter().enumerate() {
            k ^= (u64::from(p) + 1)
                .wrapping_mul(0x9E37_79B9_7F4A_7C15_u64.rotate_left(i as u32 * 13));
        }
    }
    k
}

impl<'m, 'c> Searcher<'m, 'c> {
    pub(crate) fn new(game: &Game, me: Seat, meter: &'m mut Meter<'c>, depths: Depths) -> Self {
        Searcher {
            me,
            mode: game.mode(),
            meter,
            table: Table::new(),
            killers: [[None; 2]; MAX_PLY],
            history: vec![0; 196 * 196],
            depths,
        }
    }

    fn ours(&self, seat: Seat) -> bool {
        seat == self.me || (self.mode == Mode::Teams && seat == self.me.opposite())
    }

    /// Iterative deepening from the root. `root_moves` come in the caller's (seeded) order; returns the
    /// best move of the deepest iteration that searched at least its first move, that depth, and the
    /// move's value (for the root's side).
    pub(crate) fn root(&mut self, game: &Game, mut root_moves: Vec<Move>) -> (Move, u32, i32) {
        let mut best = root_moves[0];
        let mut reached = 0;
        let mut score = evaluate(game, self.me);
        for depth in 1..=self.depths.max_depth {
            if let Some(pos) = root_moves.iter().position(|&m| m == best) {
                let m = root_moves.remove(pos);
                root_moves.insert(0, m);
            }
            if depth > 1 {
                // Stable: the previous best stays first, the rest by the usual ordering.
                let first = root_moves[0];
                let mut rest = root_moves.split_off(1);
                self.order(game, &mut rest, None, 0);
                root_moves.truncate(0);
                root_moves.push(first);
                root_moves.extend(rest);
            }
            let mut alpha = -WIN - 1;
            let mut iteration_best = None;
            for &m in &root_moves {
                let Some(child) = self.play(game, m) else {
                    continue;
                };
                let Some(v) = self.search(&child, depth - 1, 1, alpha, WIN + 1) else {
                    break;
                };
                if v > alpha {
                    alpha = v;
                    iteration_best = Some(m);
                }
            }
            if let Some(m) = iteration_best {
                best = m;
                reached = depth as u32;
                score = alpha;
            }
            if self.meter.out() || alpha >= WIN - MAX_PLY as i32 {
                break;
            }
        }
        (best, reached, score)
    }

    /// `first` and the best replies the transposition table remembers after it (at most `max` moves,
    /// each checked against the legal moves).
    pub(crate) fn principal_variation(&self, game: &Game, first: Move, max: usize) -> Vec<Move> {
        let mut line = vec![first];
        let mut game = game.clone();
        let mut m = first;
        while line.len() <= max {
            if game.apply(Action::from(m)).is_err() || game.outcome().is_some() {
                break;
            }
            let Some(next) = self.table.get(key(&game)).and_then(|e| e.best) else {
                break;
            };
            if line.len() == max || !game.legal_moves().contains(&next) {
                break;
            }
            line.push(next);
            m = next;
        }
        line
    }

    /// The child after `m`, or `None` when out of budget (or if the rules refuse `m`, which they never
    /// do for a generated move).
    fn play(&mut self, game: &Game, m: Move) -> Option<Game> {
        if self.meter.tick() {
            return None;
        }
        let mut child = game.clone();
        child.apply(Action::from(m)).ok()?;
        Some(child)
    }

    fn terminal(&self, game: &Game, ply: usize) -> i32 {
        let v = evaluate(game, self.me);
        // Prefer quicker wins and slower losses.
        if v >= WIN / 2 {
            v - ply as i32
        } else if v <= -WIN / 2 {
            v + ply as i32
        } else {
            v
        }
    }

    fn search(
        &mut self,
        game: &Game,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
    ) -> Option<i32> {
        if game.outcome().is_some() {
            return Some(self.terminal(game, ply));
        }
        if depth <= 0 || ply >= MAX_PLY - 1 {
            return self.quiesce(game, ply, alpha, beta, self.depths.quiescence);
        }
        let Some(mover) = game.to_act() else {
            return Some(self.terminal(game, ply));
        };
        let maximising = self.ours(mover);
        let key = key(game);
        let mut hint = None;
        if let Some(e) = self.table.get(key) {
            hint = e.best;
            if i32::from(e.depth) >= depth {
                match e.bound {
                    Bound::Exact => return Some(e.value),
                    Bound::Lower if e.value >= beta => return Some(e.value),
                    Bound::Upper if e.value <= alpha => return Some(e.value),
                    _ => {}
                }
            }
        }
        let (alpha0, beta0) = (alpha, beta);
        let mut moves = game.legal_moves();
        self.order(game, &mut moves, hint, ply);
        let mut best_value = if maximising { -WIN - 1 } else { WIN + 1 };
        let mut best_move = None;
        for m in moves {
            let child = self.play(game, m)?;
            let v = self.search(&child, depth - 1, ply + 1, alpha, beta)?;
            let improves = if maximising {
                v > best_value
            } else {
                v < best_value
            };
            if improves {
                best_value = v;
                best_move = Some(m);
            }
            if maximising {
                alpha = alpha.max(v);
            } else {
                beta = beta.min(v);
            }
            if alpha >= beta {
                if game.position().piece_at(m.to()).is_none() {
                    self.remember_cutoff(m, depth, ply);
                }
                break;
            }
        }
        let bound = if best_value <= alpha0 {
            Bound::Upper
        } else if best_value >= beta0 {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.table.put(Entry {
            key,
            value: best_value,
            depth: depth.clamp(0, 127) as i8,
            bound,
            best: best_move,
        });
        Some(best_value)
    }

    /// Captures and promotions until the position is quiet; the side to move may stand pat, unless it
    /// is in check: then it must answer, and every legal move is searched (a check at the frontier can
    /// win a piece or mate, and the checked side's answer is forced).
    fn quiesce(
        &mut self,
        game: &Game,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
        left: i32,
    ) -> Option<i32> {
        if game.outcome().is_some() {
            return Some(self.terminal(game, ply));
        }
        let stand = evaluate(game, self.me);
        let Some(mover) = game.to_act() else {
            return Some(stand);
        };
        let pos = game.position();
        let checked = in_check(pos, mover);
        if (left <= 0 && !checked) || left <= -CHECK_EVASION_PLIES || ply >= MAX_PLY - 1 {
            return Some(stand);
        }
        let maximising = self.ours(mover);
        let mut best = if checked {
            if maximising { -WIN - 1 } else { WIN + 1 }
        } else {
            stand
        };
        if !checked {
            if maximising {
                if stand >= beta {
                    return Some(stand);
                }
                alpha = alpha.max(stand);
            } else {
                if stand <= alpha {
                    return Some(stand);
                }
                beta = beta.min(stand);
            }
        }
        let mut moves: Vec<Move> = game
            .legal_moves()
            .into_iter()
            .filter(|m| {
                checked
                    || m.promotion().is_some()
                    || m.is_en_passant()
                    || pos.piece_at(m.to()).is_some()
            })
            .collect();
        self.order(game, &mut moves, None, MAX_PLY - 1);
        for m in moves {
            let child = self.play(game, m)?;
            let v = self.quiesce(&child, ply + 1, alpha, beta, left - 1)?;
            if maximising {
                best = best.max(v);
                alpha = alpha.max(v);
            } else {
                best = best.min(v);
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        // In check without a move would have ended the game; be safe anyway.
        Some(if best.abs() > WIN { stand } else { best })
    }

    fn remember_cutoff(&mut self, m: Move, depth: i32, ply: usize) {
        let k = &mut self.killers[ply];
        if k[0] != Some(m) {
            k[1] = k[0];
            k[0] = Some(m);
        }
        let h = &mut self.history[square_index(m.from()) * 196 + square_index(m.to())];
        *h = (*h + depth * depth).min(500_000);
    }

    /// Best first: the table's move, king captures, captures (most valuable victim, least valuable
    /// attacker), promotions, killers, then by history. Stable, so equal moves keep the caller's order.
    fn order(&self, game: &Game, moves: &mut [Move], hint: Option<Move>, ply: usize) {
        let pos = game.position();
        let killers = self.killers.get(ply).copied().unwrap_or([None; 2]);
        let score = |m: &Move| -> i32 {
            if Some(*m) == hint {
                return 1 << 30;
            }
            let attacker = pos.piece_at(m.from()).map_or(0, |p| piece_value(p.kind));
            let mut s = 0;
            if let Some(victim) = pos.piece_at(m.to()) {
                let value = match victim.owner {
                    Owner::Grey => piece_value(victim.kind) / 4,
                    Owner::Seat(_) => piece_value(victim.kind),
                };
                s = if victim.kind == Kind::King && victim.owner != Owner::Grey {
                    1 << 29
                } else {
                    1_000_000 + 10 * value - attacker / 10
                };
            } else if m.is_en_passant() {
                s = 1_000_000 + 1000 - attacker / 10;
            }
            if let Some(kind) = m.promotion() {
                s += 900_000 + piece_value(kind);
            }
            if s == 0 {
                s = if killers[0] == Some(*m) {
                    800_000
                } else if killers[1] == Some(*m) {
                    799_000
                } else {
                    self.history[square_index(m.from()) * 196 + square_index(m.to())]
                };
            }
            s
        };
        let mut keyed: Vec<(i32, Move)> = moves.iter().map(|m| (score(m), *m)).collect();
        keyed.sort_by_key(|k| std::cmp::Reverse(k.0));
        for (slot, (_, m)) in moves.iter_mut().zip(keyed) {
            *slot = m;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoClock;
    use crate::budget::Budget;
    use rules::fourchess::{Options, Setup};

    /// Issue 22, cause 2: a side in check at the quiescence frontier stood pat as if it had a free
    /// move. Here Red is in check from Blue's knight on f2, which also attacks Red's queen on d1; Red's
    /// king must step away and Blue then takes the queen. Standing pat called the position even.
    #[test]
    fn quiescence_makes_a_checked_side_answer_the_check() {
        let pieces = [
            ("h1", "rK"),
            ("d1", "rQ"),
            ("f2", "bN"),
            ("a7", "bK"),
            ("g14", "yK"),
            ("n8", "gK"),
        ];
        let setup = Setup::from_pieces(Mode::Teams, Seat::Red, &pieces).unwrap();
        let game = Game::from_setup(Options::default(), setup).unwrap();
        assert!(in_check(game.position(), Seat::Red));
        let stand = evaluate(&game, Seat::Red);
        let mut meter = Meter::new(Budget::nodes(100_000), &NoClock);
        let depths = Depths {
            max_depth: 1,
            quiescence: 4,
        };
        let mut searcher = Searcher::new(&game, Seat::Red, &mut meter, depths);
        let v = searcher.quiesce(&game, 0, -WIN - 1, WIN + 1, 4).unwrap();
        assert!(
            v < stand - 500,
            "quiescence {v}, static {stand}: the fork is missed"
        );
    }
}
