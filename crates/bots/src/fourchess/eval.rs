//! Static evaluation of a four-player chess position, from one seat's point of view (the search keeps
//! one point of view for the whole tree).
//!
//! Teams: the material and placement of one's own team against the other (partners' kings count like
//! one's own). FFA: each seat's worth is its points (what ranks it) plus a share of its live material
//! (what it can still lose, and what it captures with); the value is one's worth against the field.

use rules::Seat;
use rules::fourchess::{EndReason, Kind, Mode, Node, Owner, Position, Square};

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

/// The square at (file, rank), if it is on the board.
pub(super) fn square_at(file: i32, rank: i32) -> Option<Square> {
    u8::try_from(file)
        .ok()
        .zip(u8::try_from(rank).ok())
        .and_then(|(file, rank)| Square::new(file, rank))
}

/// `steps` towards `seat`'s opponents' side (its pawns' direction) from (file, rank).
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

/// The pawn shield of `seat`'s king on `king`, of the three squares ahead of it (by the direction its
/// pawns move): [no pawn on the square or the one beyond it, a pawn one square further on]. Without
/// king safety the search pushed the pawns in front of its own king for their advance bonus, and the
/// opponents' queens came in (issue 22: 78 of 93 Teams games lost by mate in the opening).
pub(super) fn shield_gaps(pos: &Position, seat: Seat, king: Square) -> [i32; 2] {
    let (f, r) = (king.file() as i32, king.rank() as i32);
    let own_pawn = |(file, rank): (i32, i32)| {
        square_at(file, rank)
            .and_then(|sq| pos.piece_at(sq))
            .is_some_and(|p| p.kind == Kind::Pawn && p.owner == Owner::Seat(seat))
    };
    let mut gaps = [0; 2];
    for side in -1..=1 {
        let (sf, sr) = match seat {
            Seat::Red | Seat::Yellow => (f + side, r),
            Seat::Blue | Seat::Green => (f, r + side),
        };
        if !own_pawn(forward(seat, sf, sr, 1)) {
            gaps[usize::from(own_pawn(forward(seat, sf, sr, 2)))] += 1;
        }
    }
    gaps
}

/// The danger an enemy queen on `queen` brings to a king on `king`.
fn queen_near(queen: Square, king: Square) -> i32 {
    let d = (queen.file() as i32 - king.file() as i32)
        .abs()
        .max((queen.rank() as i32 - king.rank() as i32).abs());
    if (1..=4).contains(&d) {
        QUEEN_NEAR_KING[d as usize - 1]
    } else {
        0
    }
}

/// Closeness to the centre, 0 (corner area) .. 12 (centre).
fn centrality(sq: Square) -> i32 {
    let df = (2 * sq.file() as i32 - 13).abs();
    let dr = (2 * sq.rank() as i32 - 13).abs();
    (26 - df - dr) / 2
}

/// What the evaluation looks at beyond material, placement and the pawn shield, and how it weighs
/// them. Easy's and medium's rating anchors were measured with [`Terms::PLAIN`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Terms {
    /// Teams: the fitted evaluation ([`super::fitted`]) instead of the hand-set one.
    pub fitted: bool,
    /// FFA: a live seat's worth is 100 × its points plus this percentage of its material (in
    /// centipawns, 100 to a pawn, the pawn's one point).
    pub ffa_material_percent: i32,
}

impl Terms {
    pub(crate) const PLAIN: Terms = Terms {
        fitted: false,
        ffa_material_percent: 50,
    };
    /// FFA material at twice its points (issue 21, session 22): at half (`PLAIN`) a capture raised
    /// the capturer's worth twice as much as it lowered the victim's, so every even trade looked
    /// like a gain to both traders while the two others were the ones who gained, and a piece left
    /// to be taken cost half of what taking one earned. On the same 200 games against three mediums
    /// the weight lifted hard's first places from 26.8% to the figures in docs/bots.md.
    pub(crate) const HARD: Terms = Terms {
        fitted: true,
        ffa_material_percent: 200,
    };
}

/// Placement and material of every seat's live pieces, in centipawns, less each live king's danger
/// (its pawn shield and the enemy queens near it).
fn seat_material(node: &Node) -> [i32; 4] {
    let pos = node.position();
    let mode = pos.mode();
    // Pawns promote on rank 11 in Teams (10 steps), at the middle in FFA (6 steps).
    let promotion_steps = if mode == Mode::Ffa { 6 } else { 9 };
    // The kings whose safety counts: live seats' (an eliminated seat's king is grey).
    let kings = Seat::ALL.map(|s| pos.king(s).filter(|_| !node.is_out(s)));
    let mut sum = [0i32; 4];
    for (sq, piece) in pos.pieces() {
        let Owner::Seat(seat) = piece.owner else {
            continue;
        };
        let v = match piece.kind {
            Kind::Pawn => {
                let steps = pawn_steps(seat, sq).clamp(0, promotion_steps);
                piece_value(Kind::Pawn) + steps * steps * 4
            }
            Kind::Knight | Kind::Bishop => piece_value(piece.kind) + 4 * centrality(sq),
            Kind::Queen | Kind::OnePointQueen => {
                if !node.is_out(seat) {
                    // An enemy queen near a live king (Teams: the other team's kings).
                    for (i, &king) in kings.iter().enumerate() {
                        let other = Seat::from_index(i);
                        let enemy =
                            other != seat && !(mode == Mode::Teams && other == seat.opposite());
                        if let Some(king) = king.filter(|_| enemy) {
                            sum[i] -= queen_near(sq, king);
                        }
                    }
                }
                piece_value(piece.kind) + centrality(sq)
            }
            Kind::Rook => piece_value(Kind::Rook) + centrality(sq),
            Kind::King => -3 * centrality(sq),
        };
        sum[seat.index()] += v;
    }
    for seat in Seat::ALL {
        if let Some(king) = kings[seat.index()] {
            let [missing, pushed] = shield_gaps(pos, seat, king);
            sum[seat.index()] -= SHIELD * missing + SHIELD / 2 * pushed;
        }
    }
    sum
}

/// The value of `node` for `me`: higher is better. Terminal positions score ±[`WIN`] (Teams) or by
/// the final standings (FFA).
/// `terms`: [`Terms::HARD`] for the hard level, [`Terms::PLAIN`] for the others.
pub(crate) fn evaluate(node: &Node, me: Seat, terms: &Terms) -> i32 {
    if let Some(end) = node.end() {
        return terminal(node, end, me);
    }
    if terms.fitted && node.mode() == Mode::Teams {
        let live = Seat::ALL.map(|s| !node.is_out(s));
        let red_yellow = super::fitted::value(node.position(), live);
        return if me.index() % 2 == 0 {
            red_yellow
        } else {
            -red_yellow
        };
    }
    let material = seat_material(node);
    match node.mode() {
        Mode::Teams => {
            let mine = material[me.index()] + material[me.opposite().index()];
            let theirs = material[me.next().index()] + material[me.next().opposite().index()];
            mine - theirs
        }
        Mode::Ffa => {
            let points = node.points();
            let worth = Seat::ALL.map(|s| {
                let scored = 100 * points[s.index()] as i32;
                if node.is_out(s) {
                    scored
                } else {
                    scored + material[s.index()] * terms.ffa_material_percent / 100
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

fn terminal(node: &Node, end: EndReason, me: Seat) -> i32 {
    match node.mode() {
        Mode::Teams => match end {
            EndReason::KingCaptured { king_of: loser, .. }
            | EndReason::Checkmate { seat: loser }
            | EndReason::Resignation { seat: loser } => {
                if loser == me || loser == me.opposite() {
                    -WIN
                } else {
                    WIN
                }
            }
            _ => 0,
        },
        Mode::Ffa => ffa_final(node.points(), me),
    }
}

/// An FFA game over with these points: first place (shared places split the bonus) and the points
/// against the field.
pub(crate) fn ffa_final(points: [u32; 4], me: Seat) -> i32 {
    let worth = points.map(|p| 100 * p as i32);
    let top = points.into_iter().max().unwrap_or(0);
    let firsts = points.iter().filter(|&&p| p == top).count() as i32;
    let bonus = if points[me.index()] == top {
        WIN / 2 / firsts
    } else {
        -WIN / 4
    };
    bonus + against_field(worth, me)
}

/// The value for `me` of a draw by repetition here (F.23, F.25): Teams 0; FFA the game ends with 10
/// more points to every remaining player.
pub(crate) fn repetition_draw(node: &Node, me: Seat) -> i32 {
    match node.mode() {
        Mode::Teams => 0,
        Mode::Ffa => {
            let mut points = node.points();
            for s in Seat::ALL {
                if !node.is_out(s) {
                    points[s.index()] += 10;
                }
            }
            ffa_final(points, me)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::fourchess::{Action, Game, MoveText, Options, Setup};

    fn after(moves: &[&str]) -> Node {
        let mut game = Game::new(Options::default(), Seat::Red).unwrap();
        for m in moves {
            let m: MoveText = m.parse().unwrap();
            game.apply(Action::from(m)).unwrap();
        }
        Node::new(&game)
    }

    /// Issue 22: a double push in front of one's own king (h2-h4, king on h1) is worth less than the
    /// same push in the centre; the old evaluation paid both the same advance bonus.
    #[test]
    fn pushing_the_kings_shield_costs_king_safety() {
        let shield = evaluate(&after(&["h2-h4"]), Seat::Red, &Terms::PLAIN);
        let centre = evaluate(&after(&["e2-e4"]), Seat::Red, &Terms::PLAIN);
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
            Node::new(&Game::from_setup(Options::default(), setup).unwrap())
        };
        let near = evaluate(&game("h3"), Seat::Red, &Terms::PLAIN);
        let far = evaluate(&game("h8"), Seat::Red, &Terms::PLAIN);
        assert!(near < far - 50, "{near} vs {far}");
    }

    fn teams(to_move: Seat, pieces: &[(&str, &str)]) -> Node {
        let kings = [("h1", "rK"), ("a7", "bK"), ("g14", "yK"), ("n8", "gK")];
        let all: Vec<(&str, &str)> = kings.iter().chain(pieces).copied().collect();
        let setup = Setup::from_pieces(Mode::Teams, to_move, &all).unwrap();
        Node::new(&Game::from_setup(Options::default(), setup).unwrap())
    }

    /// Enemy rooks on the files beside Red's king (both enemy seats) cost king safety beyond what the
    /// same rooks cost further away.
    #[test]
    fn enemy_attacks_around_the_king_cost_king_safety() {
        let near = [("g8", "bR"), ("i8", "gR")];
        let far = [("e8", "bR"), ("k8", "gR")];
        let diff = |terms: &Terms| {
            evaluate(&teams(Seat::Blue, &near), Seat::Red, terms)
                - evaluate(&teams(Seat::Blue, &far), Seat::Red, terms)
        };
        assert!(
            diff(&Terms::HARD) < diff(&Terms::PLAIN) - 50,
            "{} vs {}",
            diff(&Terms::HARD),
            diff(&Terms::PLAIN)
        );
    }

    /// F.19: in FFA a capture scores for the capturer alone, so an even trade between two seats
    /// gains nothing on the two others, who kept their pieces. Hard's evaluation says so (it values
    /// material at twice its points); the plain one, which values material at half its points, sees
    /// the trade as a gain for Red.
    #[test]
    fn f19_an_even_trade_in_ffa_is_a_loss_against_the_two_others_for_hard() {
        let ffa = |pieces: &[(&str, &str)], points: [u32; 4]| {
            let kings = [("h1", "rK"), ("a7", "bK"), ("g14", "yK"), ("n8", "gK")];
            let all: Vec<(&str, &str)> = kings.iter().chain(pieces).copied().collect();
            let mut setup = Setup::from_pieces(Mode::Ffa, Seat::Red, &all).unwrap();
            setup.points = points;
            let options = Options {
                mode: Mode::Ffa,
                ..Options::default()
            };
            Node::new(&Game::from_setup(options, setup).unwrap())
        };
        let others = [("j14", "yN"), ("n10", "gN")];
        let knights: Vec<(&str, &str)> = [("e1", "rN"), ("a5", "bN")]
            .into_iter()
            .chain(others)
            .collect();
        let before = ffa(&knights, [0; 4]);
        let traded = ffa(&others, [3, 3, 0, 0]);
        let gain = |terms: &Terms| {
            evaluate(&traded, Seat::Red, terms) - evaluate(&before, Seat::Red, terms)
        };
        assert!(gain(&Terms::HARD) < -100, "{}", gain(&Terms::HARD));
        assert!(gain(&Terms::PLAIN) > 0, "{}", gain(&Terms::PLAIN));
    }

    /// Hard's fitted Teams evaluation: Red to move, a Red knight that Blue, moving next, can take with
    /// a pawn costs Red's team, against the same knight on a square of the same placement class (the
    /// hand-set evaluation had no such term: quiescence settles the mover's captures only).
    #[test]
    fn a_piece_the_next_seat_can_take_costs_its_team() {
        let attacked = teams(Seat::Red, &[("e7", "bP"), ("f8", "rN")]);
        let safe = teams(Seat::Red, &[("e7", "bP"), ("i8", "rN")]);
        let hard = |node: &Node| evaluate(node, Seat::Red, &Terms::HARD);
        assert!(
            hard(&attacked) < hard(&safe) - 50,
            "{} vs {}",
            hard(&attacked),
            hard(&safe)
        );
    }

    /// The start position is level for every seat, but for the side to move's tempo in hard's fitted
    /// Teams evaluation (Red and Yellow's, with Red to move).
    #[test]
    fn start_position_is_balanced() {
        for mode in [Mode::Teams, Mode::Ffa] {
            let options = Options {
                mode,
                ..Options::default()
            };
            let node = Node::new(&Game::new(options, Seat::Red).unwrap());
            for seat in Seat::ALL {
                assert_eq!(evaluate(&node, seat, &Terms::PLAIN), 0, "{mode:?} {seat:?}");
            }
            let hard = Seat::ALL.map(|seat| evaluate(&node, seat, &Terms::HARD));
            match mode {
                Mode::Ffa => assert_eq!(hard, [0; 4]),
                Mode::Teams => {
                    assert!((0..=100).contains(&hard[0]), "{hard:?}");
                    assert_eq!(hard, [hard[0], -hard[0], hard[0], -hard[0]]);
                }
            }
        }
    }
}
