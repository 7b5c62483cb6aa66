//! Static evaluation of a four-player chess position, from one seat's point of view (the search keeps
//! one point of view for the whole tree).
//!
//! Teams: the material and placement of one's own team against the other (partners' kings count like
//! one's own). FFA: each seat's worth is its points (what ranks it) plus a share of its live material
//! (what it can still lose, and what it captures with); the value is one's worth against the field.

use rules::Seat;
use rules::fourchess::{Game, Kind, Mode, Owner, Square};

/// Large enough to dominate every material count, small enough for mate-distance arithmetic.
pub const WIN: i32 = 1_000_000;

/// Centipawn values for search (Teams; in FFA they weigh live material).
pub(crate) const fn piece_value(kind: Kind) -> i32 {
    match kind {
        Kind::Pawn => 100,
        Kind::Knight => 300,
        Kind::Bishop => 400,
        Kind::Rook => 500,
        Kind::Queen | Kind::OnePointQueen => 950,
        Kind::King => 4_000,
    }
}

/// Squares a pawn of `seat` on `sq` has advanced from its home line.
fn pawn_steps(seat: Seat, sq: Square) -> i32 {
    let (f, r) = (sq.file() as i32, sq.rank() as i32);
    match seat {
        Seat::Red => r - 1,
        Seat::Blue => f - 1,
        Seat::Yellow => 12 - r,
        Seat::Green => 12 - f,
    }
}

/// One step towards `seat`'s opponents' side (its pawns' direction) from (file, rank).
fn forward(seat: Seat, file: i32, rank: i32, steps: i32) -> (i32, i32) {
    match seat {
        Seat::Red => (file, rank + steps),
        Seat::Blue => (file + steps, rank),
        Seat::Yellow => (file, rank - steps),
        Seat::Green => (file - steps, rank),
    }
}

/// Per missing pawn of the three in front of the king (half for a pawn one square further on).
const SHIELD: i32 = 30;
/// Per enemy queen near a king, by closeness (Chebyshev distance 1..=4).
const QUEEN_NEAR_KING: [i32; 4] = [90, 70, 45, 20];

/// King safety, a penalty in centipawns for `seat`'s king on `king`: the pawn shield in front of it
/// (the three squares ahead, by the direction its pawns move), and enemy queens close to it. Without
/// it the search pushed the pawns in front of its own king for their advance bonus, and the opponents'
/// queens came in (issue 22: 78 of 93 Teams games lost by mate in the opening).
fn king_danger(game: &Game, seat: Seat, king: Square, enemy_queens: &[Square]) -> i32 {
    let pos = game.position();
    let (f, r) = (king.file() as i32, king.rank() as i32);
    let own_pawn = |(file, rank): (i32, i32)| {
        u8::try_from(file)
            .ok()
            .zip(u8::try_from(rank).ok())
            .and_then(|(file, rank)| Square::new(file, rank))
            .and_then(|sq| pos.piece_at(sq))
            .is_some_and(|p| p.kind == Kind::Pawn && p.owner == Owner::Seat(seat))
    };
    let mut danger = 0;
    for side in -1..=1 {
        let (sf, sr) = match seat {
            Seat::Red | Seat::Yellow => (f + side, r),
            Seat::Blue | Seat::Green => (f, r + side),
        };
        if own_pawn(forward(seat, sf, sr, 1)) {
            continue;
        }
        danger += if own_pawn(forward(seat, sf, sr, 2)) {
            SHIELD / 2
        } else {
            SHIELD
        };
    }
    for q in enemy_queens {
        let d = (q.file() as i32 - f).abs().max((q.rank() as i32 - r).abs());
        if (1..=4).contains(&d) {
            danger += QUEEN_NEAR_KING[d as usize - 1];
        }
    }
    danger
}

/// Closeness to the centre, 0 (corner area) .. 12 (centre).
fn centrality(sq: Square) -> i32 {
    let df = (2 * sq.file() as i32 - 13).abs();
    let dr = (2 * sq.rank() as i32 - 13).abs();
    (26 - df - dr) / 2
}

/// Placement and material of every seat's live pieces, in centipawns.
fn seat_material(game: &Game) -> [i32; 4] {
    let pos = game.position();
    let ffa = pos.mode() == Mode::Ffa;
    // Pawns promote on rank 11 in Teams (10 steps), at the middle in FFA (6 steps).
    let promotion_steps = if ffa { 6 } else { 9 };
    let mut sum = [0i32; 4];
    let mut kings = [None; 4];
    let mut queens: [Vec<Square>; 4] = Default::default();
    for sq in Square::all() {
        let Some(piece) = pos.piece_at(sq) else {
            continue;
        };
        let Owner::Seat(seat) = piece.owner else {
            continue;
        };
        match piece.kind {
            Kind::King => kings[seat.index()] = Some(sq),
            Kind::Queen | Kind::OnePointQueen => queens[seat.index()].push(sq),
            _ => {}
        }
        let mut v = if piece.kind == Kind::King {
            0
        } else {
            piece_value(piece.kind)
        };
        match piece.kind {
            Kind::Pawn => {
                let steps = pawn_steps(seat, sq).clamp(0, promotion_steps);
                v += steps * steps * 4;
            }
            Kind::Knight | Kind::Bishop => v += 4 * centrality(sq),
            Kind::Queen | Kind::OnePointQueen | Kind::Rook => v += centrality(sq),
            Kind::King => v -= 3 * centrality(sq),
        }
        sum[seat.index()] += v;
    }
    for seat in Seat::ALL {
        let Some(king) = kings[seat.index()] else {
            continue;
        };
        if game.is_out(seat) {
            continue;
        }
        let enemies: Vec<Square> = Seat::ALL
            .into_iter()
            .filter(|&s| s != seat && !(pos.mode() == Mode::Teams && s == seat.opposite()))
            .filter(|&s| !game.is_out(s))
            .flat_map(|s| queens[s.index()].iter().copied())
            .collect();
        sum[seat.index()] -= king_danger(game, seat, king, &enemies);
    }
    sum
}

/// The value of `game` for `me`: higher is better. Terminal positions score ±[`WIN`] (Teams) or by the
/// final standings (FFA).
pub(crate) fn evaluate(game: &Game, me: Seat) -> i32 {
    if let Some(outcome) = game.outcome() {
        return terminal(game, outcome, me);
    }
    let material = seat_material(game);
    match game.mode() {
        Mode::Teams => {
            let mine = material[me.index()] + material[me.opposite().index()];
            let theirs = material[me.next().index()] + material[me.next().opposite().index()];
            mine - theirs
        }
        Mode::Ffa => {
            let points = game.points();
            let worth = Seat::ALL.map(|s| {
                if game.is_out(s) {
                    100 * points[s.index()] as i32
                } else {
                    100 * points[s.index()] as i32 + material[s.index()] / 2
                }
            });
            against_field(worth, me)
        }
    }
}

/// One's worth against the field: half the best rival, half the rivals' mean.
fn against_field(worth: [i32; 4], me: Seat) -> i32 {
    let rivals = Seat::ALL.into_iter().filter(|&s| s != me);
    let best = rivals.clone().map(|s| worth[s.index()]).max().unwrap_or(0);
    let mean = rivals.map(|s| worth[s.index()]).sum::<i32>() / 3;
    worth[me.index()] - best / 2 - mean / 2
}

fn terminal(game: &Game, outcome: &rules::fourchess::Outcome, me: Seat) -> i32 {
    match game.mode() {
        Mode::Teams => {
            let winners = outcome.winners();
            if winners.is_empty() {
                0
            } else if winners.contains(&me) {
                WIN
            } else {
                -WIN
            }
        }
        Mode::Ffa => {
            let worth = outcome.standings.map(|s| 100 * s.points as i32);
            let firsts = outcome.standings.iter().filter(|s| s.place == 1).count() as i32;
            let first = outcome.standings[me.index()].place == 1;
            let bonus = if first { WIN / 2 / firsts } else { -WIN / 4 };
            bonus + against_field(worth, me)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::fourchess::{Action, MoveText, Options, Setup};

    fn after(moves: &[&str]) -> Game {
        let mut game = Game::new(Options::default(), Seat::Red).unwrap();
        for m in moves {
            let m: MoveText = m.parse().unwrap();
            game.apply(Action::from(m)).unwrap();
        }
        game
    }

    /// Issue 22: a double push in front of one's own king (h2-h4, king on h1) is worth less than the
    /// same push in the centre; the old evaluation paid both the same advance bonus.
    #[test]
    fn pushing_the_kings_shield_costs_king_safety() {
        let shield = evaluate(&after(&["h2-h4"]), Seat::Red);
        let centre = evaluate(&after(&["e2-e4"]), Seat::Red);
        assert!(shield < centre, "{shield} vs {centre}");
    }

    /// Issue 22: an enemy queen next to the king is a danger the evaluation sees.
    #[test]
    fn an_enemy_queen_at_the_king_costs_more_than_one_far_away() {
        let game = |queen: &str| {
            let pieces = [
                ("h1", "rK"),
                ("a7", "bK"),
                ("g14", "yK"),
                ("n8", "gK"),
                (queen, "gQ"),
            ];
            let setup = Setup::from_pieces(Mode::Teams, Seat::Red, &pieces).unwrap();
            Game::from_setup(Options::default(), setup).unwrap()
        };
        let near = evaluate(&game("h3"), Seat::Red);
        let far = evaluate(&game("h8"), Seat::Red);
        assert!(near < far - 50, "{near} vs {far}");
    }

    #[test]
    fn start_position_is_balanced() {
        for mode in [Mode::Teams, Mode::Ffa] {
            let options = Options {
                mode,
                ..Options::default()
            };
            let game = Game::new(options, Seat::Red).unwrap();
            for seat in Seat::ALL {
                assert_eq!(evaluate(&game, seat), 0, "{mode:?} {seat:?}");
            }
        }
    }
}
