//! Alpha-beta with iterative deepening, a transposition table, killer and history move ordering, and a
//! quiescence search over captures and promotions, on the rules crate's [`Node`]: a position is copied
//! and a move played on the copy, and nothing allocates per node (move lists are reused per ply).
//!
//! One point of view for the whole tree (the root seat's): a node maximises when its mover is on the
//! root's side — the root seat and its partner in Teams (which is then an exact two-sided game, the
//! teams moving alternately), the root seat alone in FFA (the *paranoid* assumption: the three others
//! play against it).
//!
//! Repetition (F.23) and the fifty-move rule (F.24): the node plays the fifty-move rule and the move
//! limit itself; repetition needs history, so the searcher keeps the keys of the positions on the line
//! it is searching and scores a position that already occurred on that line as the draw F.23 would
//! give, as chess engines do. That approximates the rule in two ways: the second occurrence counts
//! (the rule waits for the third: a line that repeats once can repeat again, so its value is the
//! draw's), and only the line from the root is looked at, not the game's positions before the root.

use super::eval::{Terms, WIN, evaluate, piece_value, repetition_draw};
use crate::budget::Meter;
use rules::Seat;
use rules::fourchess::{Kind, Mode, Move, Node, Owner, Square};

const MAX_PLY: usize = 64;
/// Plies past the end of the quiescence budget that a side in check still gets to answer.
const CHECK_EVASION_PLIES: i32 = 2;
/// The ordering score of the first killer; captures and promotions score above it, quiet moves by
/// their history below it (history is capped at 500 000).
const KILLER_SCORE: i32 = 800_000;
/// At most this many check extensions on one line: checks come often with three armies against a
/// king, and extending every one would never reach the horizon.
const MAX_EXTENSIONS: i32 = 3;
/// How far beyond the bound the static value must stand before a side tries passing (centipawns).
const NULL_MOVE_MARGIN: i32 = 50;

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

/// A fixed-size transposition table: a new entry replaces another position's, and the same
/// position's when it is at least as deep. Rooms allocate one per decision (bots keep no memory
/// between moves, so thousands of idle bots cost nothing); `fourkings engine` keeps one from move to
/// move ([`super::KeptTable`]).
///
/// Forced results are stored counted from the node they belong to, not from the root, so that an
/// entry stays right wherever the position recurs: at another ply of the same search, or in the next
/// search from a later root.
pub(crate) struct Table {
    entries: Vec<Option<Entry>>,
    bits: u32,
}

impl Table {
    pub(crate) fn new(bits: u32) -> Table {
        Table {
            entries: vec![None; 1 << bits],
            bits,
        }
    }

    fn slot(&self, key: u64) -> usize {
        (key >> (64 - self.bits)) as usize
    }

    fn get(&self, key: u64) -> Option<Entry> {
        self.entries[self.slot(key)].filter(|e| e.key == key)
    }

    pub(crate) fn bits(&self) -> u32 {
        self.bits
    }

    fn put(&mut self, entry: Entry) {
        let slot = self.slot(entry.key);
        let slot = &mut self.entries[slot];
        if slot.is_none_or(|old| old.key != entry.key || old.depth <= entry.depth) {
            *slot = Some(entry);
        }
    }
}

/// How deep a level looks, and how large its transposition table is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Depths {
    pub max_depth: i32,
    pub quiescence: i32,
    /// log2 of the table's entries (24 bytes each).
    pub table_bits: u32,
    /// Principal-variation search with late-move reductions, null-move pruning and check extensions
    /// (see [`Searcher::search`]); off, a plain alpha-beta searches every move to full depth.
    pub pruning: bool,
    /// Teams: quiet moves that check the seat moving next are searched at the first quiescence ply
    /// (see [`Searcher::quiesce`]).
    pub quiet_checks: bool,
    /// What the evaluation looks at ([`Terms::PLAIN`] below hard).
    pub terms: Terms,
}

pub(crate) struct Searcher<'m, 'c> {
    me: Seat,
    mode: Mode,
    pub meter: &'m mut Meter<'c>,
    table: Table,
    killers: [[Option<Move>; 2]; MAX_PLY],
    history: Vec<i32>,
    depths: Depths,
    /// The keys of the positions on the line being searched, by ply (the root at 0).
    path: [u64; MAX_PLY + 1],
    /// Per ply, the moves with their ordering scores (reused from node to node).
    lists: Vec<Vec<(i32, Move)>>,
    /// Where the legal moves are generated before they are scored.
    generated: Vec<Move>,
    /// Check extensions on the line being searched.
    extensions: i32,
}

/// A forced result `plies` further from the point it is counted from (a win or a loss that far
/// nearer, with `plies` negative); any other value as it is.
fn farther(v: i32, plies: i32) -> i32 {
    if v >= WIN / 2 {
        v - plies
    } else if v <= -WIN / 2 {
        v + plies
    } else {
        v
    }
}

/// A value as the table stores it: a forced result counted in plies from this node, not the root.
fn to_table(v: i32, ply: usize) -> i32 {
    farther(v, -(ply as i32))
}

/// A stored value as a node at `ply` sees it (the inverse of [`to_table`]).
fn from_table(v: i32, ply: usize) -> i32 {
    farther(v, ply as i32)
}

fn square_index(sq: Square) -> usize {
    sq.rank() as usize * 14 + sq.file() as usize
}

/// Zobrist key of the placement, with the points mixed in (FFA values depend on them).
fn key(node: &Node) -> u64 {
    let mut k = node.key();
    if node.mode() == Mode::Ffa {
        for (i, p) in node.points().into_iter().enumerate() {
            k ^= (u64::from(p) + 1)
                .wrapping_mul(0x9E37_79B9_7F4A_7C15_u64.rotate_left(i as u32 * 13));
        }
    }
    k
}

impl<'m, 'c> Searcher<'m, 'c> {
    pub(crate) fn new(root: &Node, me: Seat, meter: &'m mut Meter<'c>, depths: Depths) -> Self {
        Self::with_table(root, me, meter, depths, Table::new(depths.table_bits))
    }

    /// A searcher that starts from `table` (a table kept from earlier searches of the same game, for
    /// the same side) instead of an empty one.
    pub(crate) fn with_table(
        root: &Node,
        me: Seat,
        meter: &'m mut Meter<'c>,
        depths: Depths,
        table: Table,
    ) -> Self {
        let mut path = [0; MAX_PLY + 1];
        path[0] = root.key();
        Searcher {
            me,
            mode: root.mode(),
            meter,
            table,
            killers: [[None; 2]; MAX_PLY],
            history: vec![0; 196 * 196],
            depths,
            path,
            lists: (0..MAX_PLY).map(|_| Vec::with_capacity(128)).collect(),
            generated: Vec::with_capacity(128),
            extensions: 0,
        }
    }

    /// The table, to keep for the next search.
    pub(crate) fn into_table(self) -> Table {
        self.table
    }

    fn evaluate(&self, node: &Node) -> i32 {
        evaluate(node, self.me, &self.depths.terms)
    }

    fn ours(&self, seat: Seat) -> bool {
        seat == self.me || (self.mode == Mode::Teams && seat == self.me.opposite())
    }

    /// Iterative deepening from the root. `root_moves` come in the caller's (seeded) order; returns the
    /// best move of the deepest iteration that searched at least its first move, that depth, and the
    /// move's value (for the root's side).
    pub(crate) fn root(&mut self, root: &Node, mut root_moves: Vec<Move>) -> (Move, u32, i32) {
        let mut best = root_moves[0];
        let mut reached = 0;
        let mut score = self.evaluate(root);
        for depth in 1..=self.depths.max_depth {
            if let Some(pos) = root_moves.iter().position(|&m| m == best) {
                let m = root_moves.remove(pos);
                root_moves.insert(0, m);
            }
            if depth > 1 {
                // Stable: the previous best stays first, the rest by the usual ordering.
                let mut rest: Vec<(i32, Move)> = root_moves[1..]
                    .iter()
                    .map(|&m| (self.score(root, m, None, 0), m))
                    .collect();
                rest.sort_by_key(|k| std::cmp::Reverse(k.0));
                for (slot, (_, m)) in root_moves[1..].iter_mut().zip(rest) {
                    *slot = m;
                }
            }
            let mut alpha = -WIN - 1;
            let mut iteration_best = None;
            for (i, &m) in root_moves.iter().enumerate() {
                let Some(child) = self.play(root, m, 0) else {
                    break;
                };
                // After the first move, prove a move worse with a null window before searching it
                // whole (most are worse).
                let scout = self.depths.pruning && i > 0;
                let v = if scout {
                    match self.search(&child, depth - 1, 1, alpha, alpha + 1, true) {
                        Some(v) if v > alpha => {
                            self.search(&child, depth - 1, 1, alpha, WIN + 1, true)
                        }
                        other => other,
                    }
                } else {
                    self.search(&child, depth - 1, 1, alpha, WIN + 1, true)
                };
                let Some(v) = v else {
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
    pub(crate) fn principal_variation(&self, root: &Node, first: Move, max: usize) -> Vec<Move> {
        let mut line = vec![first];
        let mut node = root.clone();
        let mut moves = Vec::new();
        let mut m = first;
        while line.len() < max {
            node.play(m);
            if node.end().is_some() {
                break;
            }
            let Some(next) = self.table.get(key(&node)).and_then(|e| e.best) else {
                break;
            };
            moves.clear();
            node.legal_moves(&mut moves);
            if !moves.contains(&next) {
                break;
            }
            line.push(next);
            m = next;
        }
        line
    }

    /// The child after `m` (a legal move of `node`, at `ply`), or `None` when out of budget.
    fn play(&mut self, node: &Node, m: Move, ply: usize) -> Option<Node> {
        if self.meter.tick() {
            return None;
        }
        let mut child = node.clone();
        child.play(m);
        self.path[ply + 1] = child.key();
        Some(child)
    }

    /// Whether the position at `ply` already occurred on the line from the root (F.23, see the
    /// module's comment). Only positions since the last capture or pawn move can recur.
    fn repeated(&self, node: &Node, ply: usize) -> bool {
        let back = (node.ply_clock() as usize).min(ply);
        let key = self.path[ply];
        self.path[ply - back..ply].contains(&key)
    }

    fn terminal(&self, node: &Node, ply: usize) -> i32 {
        // Prefer quicker wins and slower losses: the result counted from the root.
        farther(self.evaluate(node), ply as i32)
    }

    /// Alpha-beta from the root's point of view (`alpha` and `beta` bound the root side's value).
    ///
    /// With [`Depths::pruning`], the hard level's search:
    /// - check extension: a move among the first six that checks the seat moving next is searched a
    ///   ply deeper (at most [`MAX_EXTENSIONS`] on a line): a check at the horizon is where a mate or
    ///   a lost piece hides;
    /// - null move: a side not in check whose static value stands [`NULL_MOVE_MARGIN`] beyond the
    ///   bound it would cut at passes its turn and is searched shallower with a null window; if even
    ///   then the opponents cannot bring it back under the bound, the node is cut (zugzwang, the
    ///   classic failure, is rare with four armies; never twice in a row, nor while the partner is in
    ///   check);
    /// - principal-variation search: after the first move, each move is first searched with a null
    ///   window, and searched again with the whole window only if it may be better;
    /// - late-move reductions: quiet moves after the table's move, captures, promotions, killers and
    ///   the first two moves, that neither check the next seat nor answer a check, are searched one
    ///   or two plies shallower first, and again at full depth if they beat the bound. The null move
    ///   is tried only at null-window nodes, and no node's first move is reduced.
    fn search(
        &mut self,
        node: &Node,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
        null_ok: bool,
    ) -> Option<i32> {
        let Some(mover) = node.to_move() else {
            return Some(self.terminal(node, ply));
        };
        if self.repeated(node, ply) {
            return Some(repetition_draw(node, self.me));
        }
        let pruning = self.depths.pruning;
        let checked = pruning && node.in_check(mover);
        if depth <= 0 || ply >= MAX_PLY - 1 {
            return self.quiesce(node, ply, alpha, beta, self.depths.quiescence);
        }
        let maximising = self.ours(mover);
        let key = key(node);
        let mut hint = None;
        if let Some(e) = self.table.get(key) {
            hint = e.best;
            let value = from_table(e.value, ply);
            if i32::from(e.depth) >= depth {
                match e.bound {
                    Bound::Exact => return Some(value),
                    Bound::Lower if value >= beta => return Some(value),
                    Bound::Upper if value <= alpha => return Some(value),
                    _ => {}
                }
            }
        }
        if pruning && null_ok && !checked && depth >= 3 && beta - alpha == 1 {
            if let Some(v) = self.null_move(node, depth, ply, alpha, beta, maximising) {
                return v;
            }
        }
        let (alpha0, beta0) = (alpha, beta);
        let count = self.generate(node, ply, hint, false, ply);
        let mut best_value = if maximising { -WIN - 1 } else { WIN + 1 };
        let mut best_move = None;
        for i in 0..count {
            let (order, m) = self.next_entry(ply, i);
            let quiet = order < KILLER_SCORE - 1_000;
            let child = self.play(node, m, ply)?;
            let gives_check = pruning && child.to_move().is_some_and(|s| child.in_check(s));
            let extend = gives_check && i < 6 && self.extensions < MAX_EXTENSIONS;
            self.extensions += i32::from(extend);
            let depth = depth + i32::from(extend);
            let v = if !pruning || i == 0 {
                self.search(&child, depth - 1, ply + 1, alpha, beta, true)?
            } else {
                let reduction = if quiet && !checked && !gives_check && depth >= 3 && i >= 2 {
                    if i >= 6 && depth >= 4 { 2 } else { 1 }
                } else {
                    0
                };
                // The null window on the side this node moves.
                let (za, zb) = if maximising {
                    (alpha, alpha + 1)
                } else {
                    (beta - 1, beta)
                };
                let beats = |v: i32| if maximising { v > alpha } else { v < beta };
                let mut v = self.search(&child, depth - 1 - reduction, ply + 1, za, zb, true)?;
                if reduction > 0 && beats(v) {
                    v = self.search(&child, depth - 1, ply + 1, za, zb, true)?;
                }
                // Inside a wider window, a move that may be better is searched with the whole window.
                if alpha + 1 < beta && v > alpha && v < beta {
                    v = self.search(&child, depth - 1, ply + 1, alpha, beta, true)?;
                }
                v
            };
            self.extensions -= i32::from(extend);
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
                if node.position().piece_at(m.to()).is_none() {
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
            value: to_table(best_value, ply),
            depth: depth.clamp(0, 127) as i8,
            bound,
            best: best_move,
        });
        Some(best_value)
    }

    /// The null-move test of [`Searcher::search`] at a null-window node: `Some(Some(v))` cuts the
    /// node with `v`, `Some(None)` means out of budget, `None` searches the node normally.
    fn null_move(
        &mut self,
        node: &Node,
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
        maximising: bool,
    ) -> Option<Option<i32>> {
        let stand = self.evaluate(node);
        let ahead = if maximising {
            stand >= beta + NULL_MOVE_MARGIN && beta < WIN / 2
        } else {
            stand <= alpha - NULL_MOVE_MARGIN && alpha > -WIN / 2
        };
        // A partner in check needs this seat's move more than any other (Teams).
        let mover = node.to_move().unwrap_or(self.me);
        let partner_checked = self.mode == Mode::Teams && node.in_check(mover.opposite());
        if !ahead || partner_checked {
            return None;
        }
        if self.meter.tick() {
            return Some(None);
        }
        let mut child = node.clone();
        child.pass();
        self.path[ply + 1] = child.key();
        let reduced = depth - (2 + depth / 3).min(depth);
        let v = match self.search(&child, reduced, ply + 1, alpha, beta, false) {
            Some(v) => v,
            None => return Some(None),
        };
        let holds = if maximising {
            v >= beta && v < WIN / 2
        } else {
            v <= alpha && v > -WIN / 2
        };
        holds.then_some(Some(v))
    }

    /// Captures and promotions until the position is quiet; the side to move may stand pat, unless it
    /// is in check: then it must answer, and every legal move is searched (a check at the frontier can
    /// win a piece or mate, and the checked side's answer is forced).
    fn quiesce(
        &mut self,
        node: &Node,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
        left: i32,
    ) -> Option<i32> {
        let Some(mover) = node.to_move() else {
            return Some(self.terminal(node, ply));
        };
        let stand = self.evaluate(node);
        let checked = node.in_check(mover);
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
        // Quiet checks of the seat moving next, at the first quiescence ply: most of hard's losses to
        // 4pchess are mates whose mating move is a quiet check just past the horizon (docs/bots.md,
        // session 24). The checked seat must then answer (it searches every reply), so a mate or a
        // fork one ply beyond the search is seen.
        let next = mover.next();
        let check_target = (self.depths.quiet_checks
            && self.mode == Mode::Teams
            && !checked
            && left == self.depths.quiescence)
            .then(|| node.position().king(next))
            .flatten();
        // No killers in quiescence (their slot is past the deepest ply).
        let tactical_only = !checked && check_target.is_none();
        let count = self.generate(node, ply, None, tactical_only, MAX_PLY - 1);
        for i in 0..count {
            let (_, m) = self.next_entry(ply, i);
            if let Some(king) = check_target
                && !is_tactical(node, m)
                && !checks_directly(node, m, next, king)
            {
                continue;
            }
            let child = self.play(node, m, ply)?;
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

    /// Fills the list of `ply` with the legal moves of `node` (only captures, en passant and
    /// promotions when `tactical`) and their ordering scores (with the killers of `killer_ply`);
    /// returns how many.
    fn generate(
        &mut self,
        node: &Node,
        ply: usize,
        hint: Option<Move>,
        tactical: bool,
        killer_ply: usize,
    ) -> usize {
        let mut generated = std::mem::take(&mut self.generated);
        let mut list = std::mem::take(&mut self.lists[ply]);
        generated.clear();
        node.legal_moves(&mut generated);
        list.clear();
        for &m in &generated {
            if tactical && !is_tactical(node, m) {
                continue;
            }
            list.push((self.score(node, m, hint, killer_ply), m));
        }
        let count = list.len();
        self.lists[ply] = list;
        self.generated = generated;
        count
    }

    /// The `i`-th best move of the list of `ply`, picked when needed (most nodes are cut off after a
    /// move or two, so sorting whole lists would be wasted): the first of the highest scores among the
    /// moves not yet tried, moved to place `i` with the others keeping their order, so equal moves come
    /// in generation order (which the root's seeded shuffle decides).
    fn next_entry(&mut self, ply: usize, i: usize) -> (i32, Move) {
        let list = &mut self.lists[ply];
        let mut best = i;
        for (j, entry) in list.iter().enumerate().skip(i + 1) {
            if entry.0 > list[best].0 {
                best = j;
            }
        }
        list[i..=best].rotate_right(1);
        list[i]
    }

    /// Best first: the table's move, king captures, captures (most valuable victim, least valuable
    /// attacker), promotions, killers, then by history.
    fn score(&self, node: &Node, m: Move, hint: Option<Move>, ply: usize) -> i32 {
        if Some(m) == hint {
            return 1 << 30;
        }
        let pos = node.position();
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
            let killers = self.killers.get(ply).copied().unwrap_or([None; 2]);
            s = if killers[0] == Some(m) {
                KILLER_SCORE
            } else if killers[1] == Some(m) {
                KILLER_SCORE - 1_000
            } else {
                self.history[square_index(m.from()) * 196 + square_index(m.to())]
            };
        }
        s
    }
}

/// A capture, an en passant or a promotion: what quiescence searches.
fn is_tactical(node: &Node, m: Move) -> bool {
    m.promotion().is_some() || m.is_en_passant() || node.position().piece_at(m.to()).is_some()
}

/// Whether `m` checks `seat`, whose king stands on `king`, with the piece it moves: only a piece landing
/// on one of the king's lines or a knight's jump from it can (discovered checks are left out, and pawns,
/// which check only from beside the king), and that is confirmed by playing the move on a copy.
fn checks_directly(node: &Node, m: Move, seat: Seat, king: Square) -> bool {
    let df = m.to().file().abs_diff(king.file());
    let dr = m.to().rank().abs_diff(king.rank());
    let reaches = match node.position().piece_at(m.from()).map(|p| p.kind) {
        Some(Kind::Knight) => df.min(dr) == 1 && df.max(dr) == 2,
        Some(Kind::Bishop) => df == dr,
        Some(Kind::Rook) => df == 0 || dr == 0,
        Some(Kind::Queen | Kind::OnePointQueen) => df == dr || df == 0 || dr == 0,
        _ => false,
    };
    reaches && {
        let mut after = node.clone();
        after.play(m);
        after.in_check(seat)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoClock;
    use crate::budget::Budget;
    use rules::fourchess::{Game, Options, Setup};

    /// A Teams position of these pieces (square, code), Red to move.
    fn teams_red_to_move(pieces: &[(&str, &str)]) -> Node {
        let setup = Setup::from_pieces(Mode::Teams, Seat::Red, pieces).unwrap();
        Node::new(&Game::from_setup(Options::default(), setup).unwrap())
    }

    /// Red's value of `node` by quiescence alone (four plies, the whole window).
    fn root_quiescence(node: &Node, terms: Terms, pruning: bool, quiet_checks: bool) -> i32 {
        let mut meter = Meter::new(Budget::nodes(100_000), &NoClock);
        let depths = Depths {
            max_depth: 1,
            quiescence: 4,
            table_bits: 10,
            pruning,
            quiet_checks,
            terms,
        };
        let mut searcher = Searcher::new(node, Seat::Red, &mut meter, depths);
        searcher.quiesce(node, 0, -WIN - 1, WIN + 1, 4).unwrap()
    }

    /// A forced result is stored counted from its own node and read back counted from the reader's,
    /// so a mate found at one ply (or in an earlier search, from another root) is as near as it is.
    #[test]
    fn a_forced_result_in_the_table_is_counted_from_the_node_that_reads_it() {
        // A mate two plies below a node at ply 3: the root sees it at ply 5.
        let stored = to_table(WIN - 5, 3);
        assert_eq!(stored, WIN - 2);
        assert_eq!(from_table(stored, 1), WIN - 3);
        assert_eq!(from_table(to_table(-WIN + 7, 4), 2), -WIN + 5);
        assert_eq!(from_table(to_table(123, 9), 1), 123);
    }

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
        let node = teams_red_to_move(&pieces);
        assert!(node.in_check(Seat::Red));
        let stand = evaluate(&node, Seat::Red, &Terms::PLAIN);
        let v = root_quiescence(&node, Terms::PLAIN, false, false);
        assert!(
            v < stand - 500,
            "quiescence {v}, static {stand}: the fork is missed"
        );
    }

    /// Hard, Teams: a quiet check at the first quiescence ply is searched, so a mate one move past
    /// the horizon is seen (issue 21: most of hard's losses to 4pchess are mates by a quiet check).
    /// Blue's king stands behind its own pawns on the a-file; Red's rook mates it from a9.
    #[test]
    fn quiescence_sees_a_mate_by_a_quiet_check() {
        let pieces = [
            ("h1", "rK"),
            ("e9", "rR"),
            ("a7", "bK"),
            ("b6", "bP"),
            ("b7", "bP"),
            ("b8", "bP"),
            ("g14", "yK"),
            ("n8", "gK"),
        ];
        let node = teams_red_to_move(&pieces);
        let value = |quiet_checks: bool| root_quiescence(&node, Terms::HARD, true, quiet_checks);
        assert!(
            value(true) >= WIN / 2,
            "the mate is missed: {}",
            value(true)
        );
        assert!(
            value(false) < WIN / 2,
            "without quiet checks: {}",
            value(false)
        );
    }

    /// The hard level's pruning (PVS, late-move reductions, null move) must buy depth: on the same
    /// node budget from the start position and from a middlegame, the pruned search completes more
    /// iterations than plain alpha-beta, and still plays a legal move it values near the plain one.
    #[test]
    fn pruning_searches_deeper_on_the_same_budget() {
        let start = Game::new(Options::default(), Seat::Red).unwrap();
        let mut middlegame = start.clone();
        for text in ["h2-h3", "b7-c7", "g13-g12", "m8-l8", "i1-h2", "a10-c9"] {
            let m = middlegame
                .legal_moves()
                .into_iter()
                .find(|m| m.to_string() == text)
                .unwrap_or_else(|| panic!("{text} is legal"));
            middlegame.apply(m.into()).unwrap();
        }
        for game in [start, middlegame] {
            let node = Node::new(&game);
            let seat = game.to_act().unwrap();
            let mut moves = Vec::new();
            node.legal_moves(&mut moves);
            let reached = |pruning: bool| {
                let mut meter = Meter::new(Budget::nodes(400_000), &NoClock);
                let depths = Depths {
                    max_depth: 20,
                    quiescence: 6,
                    table_bits: 16,
                    pruning,
                    quiet_checks: false,
                    terms: Terms::PLAIN,
                };
                let mut searcher = Searcher::new(&node, seat, &mut meter, depths);
                searcher.root(&node, moves.clone())
            };
            let (plain_move, plain_depth, plain_value) = reached(false);
            let (pruned_move, pruned_depth, pruned_value) = reached(true);
            assert!(
                pruned_depth > plain_depth,
                "{}: depth {pruned_depth} pruned vs {plain_depth} plain",
                game.fen4()
            );
            assert!(moves.contains(&plain_move) && moves.contains(&pruned_move));
            assert!(
                (pruned_value - plain_value).abs() < 200,
                "{}: {pruned_value} pruned vs {plain_value} plain",
                game.fen4()
            );
        }
    }
}
