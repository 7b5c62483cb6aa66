//! Crate-internal checks of the fast machinery against independent slow versions, on random games.

use crate::Seat;

use super::attacks::{AttackMap, for_each_attacker, is_attacked};
use super::fen4::{Setup, parse_fen4, to_fen4};
use super::game::{Action, Game};
use super::geometry::Square;
use super::movegen::legal_moves;
use super::moves::Move;
use super::options::{Mode, Options};
use super::piece::Kind;
use super::position::Position;
use super::reference::naive_legal_moves;
use super::state::State;

/// A small seeded generator (xorshift64*): tests only, the library has no randomness.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

fn sorted(mut moves: Vec<Move>) -> Vec<(u8, u8, u8, u8)> {
    moves.sort_by_key(|m| (m.from, m.to, m.promo, m.flags));
    moves
        .into_iter()
        .map(|m| (m.from, m.to, m.promo, m.flags))
        .collect()
}

/// How often the rarer move kinds came up, so the comparison is known to have covered them.
#[derive(Debug, Default)]
struct Seen {
    positions: usize,
    en_passant: usize,
    castling: usize,
    promotion: usize,
    in_check: usize,
    eliminated: usize,
}

fn check_position(pos: &Position, seen: &mut Seen) {
    let mut fast = Vec::new();
    legal_moves(pos, &mut fast);
    seen.positions += 1;
    seen.en_passant += fast.iter().filter(|m| m.is_en_passant()).count();
    seen.castling += fast.iter().filter(|m| m.castling_long().is_some()).count();
    seen.promotion += fast.iter().filter(|m| m.promo != 0).count();
    seen.in_check += usize::from(super::movegen::in_check(pos, pos.to_move()));
    seen.eliminated += pos.out.count_ones() as usize;
    assert_eq!(
        sorted(fast),
        sorted(naive_legal_moves(pos)),
        "move sets differ in {pos:?}"
    );
    assert_eq!(
        pos.key(),
        pos.key_from_scratch(),
        "incremental key drifted in {pos:?}"
    );
    let text = to_fen4(pos, [1, 2, 3, 4], 7);
    let back = parse_fen4(&text, pos.mode()).expect("printed FEN4 parses");
    assert_eq!(
        &back.position, pos,
        "FEN4 round trip changed the position {text}"
    );
    assert_eq!(back.points, [1, 2, 3, 4]);
    assert_eq!(back.ply_clock, 7);
    check_attack_map(pos);
}

/// F.9: the bots' attack map agrees with the move generator's attack detection and with the scan
/// outward from each square, on every square for every seat: attacked or not, how many (two for two
/// or more), and the least valuable attacker.
fn check_attack_map(pos: &Position) {
    // Kinds are ordered by value except the one-point queen, which moves (and ranks) as a queen.
    let as_queen = |k: Kind| {
        if k == Kind::OnePointQueen {
            Kind::Queen
        } else {
            k
        }
    };
    let map = AttackMap::of(pos);
    for sq in Square::all() {
        for seat in Seat::ALL {
            let owners = 1 << seat as u32;
            let attacked = is_attacked(&pos.board, sq.0, owners, &pos.occ[seat.index()], sq.0);
            let mut attackers = 0;
            let mut least = None;
            for_each_attacker(&pos.board, sq.0, owners, |_, code| {
                attackers += 1;
                let kind = as_queen(Kind::from_code(code));
                least = Some(least.map_or(kind, |l: Kind| l.min(kind)));
            });
            let count = map.count(sq, seat);
            assert_eq!(count > 0, attacked, "{seat:?} on {sq} in {pos:?}");
            assert_eq!(count, attackers.min(2), "{seat:?} on {sq} in {pos:?}");
            assert_eq!(
                map.least(sq, seat).map(as_queen),
                least,
                "{seat:?} on {sq} in {pos:?}"
            );
        }
    }
}

/// Pawns two steps from their Teams promotion line, plus kings and knights.
const PROMOTION_RACE: &[(&str, &str)] = &[
    ("h1", "rK"),
    ("a7", "bK"),
    ("g14", "yK"),
    ("n8", "gK"),
    ("e1", "rN"),
    ("a5", "bN"),
    ("e14", "yN"),
    ("n10", "gN"),
    ("e9", "rP"),
    ("g9", "rP"),
    ("j9", "rP"),
    ("i5", "bP"),
    ("i8", "bP"),
    ("i10", "bP"),
    ("e6", "yP"),
    ("h6", "yP"),
    ("j6", "yP"),
    ("f5", "gP"),
    ("f8", "gP"),
    ("f10", "gP"),
];

fn random_games(mode: Mode, games: u64, max_plies: usize, from: Option<&[(&str, &str)]>) -> Seen {
    let mut seen = Seen::default();
    for seed in 1..=games {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) + mode as u64);
        let first = Seat::from_index(seed as usize);
        let options = Options {
            mode,
            ..Options::default()
        };
        let mut game = match from {
            None => Game::new(options, first).unwrap(),
            Some(pieces) => {
                Game::from_setup(options, Setup::from_pieces(mode, first, pieces).unwrap()).unwrap()
            }
        };
        for _ in 0..max_plies {
            check_position(game.position(), &mut seen);
            let moves = game.legal_moves();
            if moves.is_empty() {
                assert!(game.outcome().is_some(), "no move but the game goes on");
                break;
            }
            // Mostly avoid taking kings so games last long enough to reach promotions and castling.
            let mut m = moves[rng.below(moves.len())];
            for _ in 0..8 {
                let target = game.position().piece_at(m.to());
                if target.is_none_or(|p| p.kind != super::piece::Kind::King) {
                    break;
                }
                m = moves[rng.below(moves.len())];
            }
            game.apply(Action::from(m))
                .expect("a generated move is accepted");
        }
    }
    seen
}

#[test]
fn f9_fast_generator_agrees_with_brute_force_teams() {
    let mut seen = random_games(Mode::Teams, 40, 300, None);
    seen.promotion += random_games(Mode::Teams, 20, 100, Some(PROMOTION_RACE)).promotion;
    println!("{seen:?}");
    assert!(
        seen.en_passant > 0 && seen.castling > 0 && seen.promotion > 0 && seen.in_check > 0,
        "{seen:?}"
    );
}

#[test]
fn f18_fast_generator_agrees_with_brute_force_ffa() {
    let mut seen = random_games(Mode::Ffa, 40, 300, None);
    seen.promotion += random_games(Mode::Ffa, 10, 100, Some(PROMOTION_RACE)).promotion;
    println!("{seen:?}");
    assert!(
        seen.en_passant > 0 && seen.castling > 0 && seen.promotion > 0 && seen.eliminated > 0,
        "{seen:?}"
    );
}

/// Counts with the full rules of a move (the slow path perft uses for FFA).
fn state_perft(state: &State, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if state.end.is_some() {
        return 0;
    }
    let mut moves = Vec::new();
    legal_moves(&state.pos, &mut moves);
    moves
        .into_iter()
        .map(|m| {
            let mut child = state.clone();
            child.play(m);
            state_perft(&child, depth - 1)
        })
        .sum()
}

#[test]
fn perft_fast_teams_path_matches_the_rules_path() {
    let castling = "R-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-x,x,x,yR,2,yK,3,yR,x,x,x/x,x,x,yP,yP,yP,yP,yP,yP,yP,yP,x,x,x/x,x,x,8,x,x,x/bR,bP,10,gP,gR/1,bP,10,gP,1/1,bP,10,gP,1/1,bP,10,gP,gK/bK,bP,10,gP,1/1,bP,10,gP,1/1,bP,10,gP,1/bR,bP,10,gP,gR/x,x,x,8,x,x,x/x,x,x,rP,rP,rP,rP,rP,rP,rP,rP,x,x,x/x,x,x,rR,3,rK,2,rR,x,x,x";
    for setup in [
        Setup::start(Mode::Teams, Seat::Red),
        parse_fen4(castling, Mode::Teams).unwrap(),
    ] {
        let (state, _) = State::new(&setup);
        for depth in 1..=3 {
            assert_eq!(
                super::perft(&setup, depth),
                state_perft(&state, depth),
                "depth {depth}"
            );
        }
    }
}

/// Perft with the brute-force generator at every node and the full rules of a move.
fn naive_perft(state: &State, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if state.end.is_some() {
        return 0;
    }
    naive_legal_moves(&state.pos)
        .into_iter()
        .map(|m| {
            let mut child = state.clone();
            child.play(m);
            naive_perft(&child, depth - 1)
        })
        .sum()
}

#[test]
fn f6_f7_f8_perft_agrees_with_brute_force_on_positions_from_random_games() {
    let mut checked = 0;
    for mode in [Mode::Teams, Mode::Ffa] {
        for seed in 1..=6u64 {
            let mut rng = Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0xABCD);
            let options = Options {
                mode,
                ..Options::default()
            };
            let setup = Setup::from_pieces(mode, Seat::Red, PROMOTION_RACE).unwrap();
            let mut game = if seed % 2 == 0 {
                Game::new(options, Seat::from_index(seed as usize)).unwrap()
            } else {
                Game::from_setup(options, setup).unwrap()
            };
            for ply in 0..60 {
                let moves = game.legal_moves();
                if moves.is_empty() {
                    break;
                }
                if ply % 20 == 19 {
                    let setup = parse_fen4(&game.fen4(), mode).unwrap();
                    let (state, _) = State::new(&setup);
                    assert_eq!(
                        super::perft(&setup, 3),
                        naive_perft(&state, 3),
                        "{}",
                        game.fen4()
                    );
                    checked += 1;
                }
                game.apply(Action::from(moves[rng.below(moves.len())]))
                    .unwrap();
            }
        }
    }
    assert!(checked >= 18, "{checked}");
}

#[test]
fn f7_castling_position_perft_agrees_with_brute_force_in_both_modes() {
    let castling = "R-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-x,x,x,yR,2,yK,3,yR,x,x,x/x,x,x,yP,yP,yP,yP,yP,yP,yP,yP,x,x,x/x,x,x,8,x,x,x/bR,bP,10,gP,gR/1,bP,10,gP,1/1,bP,10,gP,1/1,bP,10,gP,gK/bK,bP,10,gP,1/1,bP,10,gP,1/1,bP,10,gP,1/bR,bP,10,gP,gR/x,x,x,8,x,x,x/x,x,x,rP,rP,rP,rP,rP,rP,rP,rP,x,x,x/x,x,x,rR,3,rK,2,rR,x,x,x";
    for mode in [Mode::Teams, Mode::Ffa] {
        let setup = parse_fen4(castling, mode).unwrap();
        let (state, _) = State::new(&setup);
        assert_eq!(super::perft(&setup, 3), naive_perft(&state, 3), "{mode:?}");
    }
}
