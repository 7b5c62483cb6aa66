//! The four-player chess player: legal moves everywhere (Teams and FFA), reproducible choices, and the
//! tactics it must not miss.

use bots::rng::Rng;
use bots::{Budget, FourChessBot, Level, NoClock};
use rules::Seat;
use rules::fourchess::{Action, Game, Kind, Mode, Options, Owner, Square};

fn options(mode: Mode) -> Options {
    Options {
        mode,
        ..Options::default()
    }
}

/// A FEN4 position holding only `pieces` (square, token such as `rK`), `turn` to move, no castling.
fn fen4(turn: char, pieces: &[(&str, &str)]) -> String {
    let mut grid = vec![vec![String::new(); 14]; 14];
    for &(sq, token) in pieces {
        let sq: Square = sq.parse().unwrap();
        grid[sq.rank() as usize][sq.file() as usize] = token.to_owned();
    }
    let mut ranks = Vec::new();
    for rank in (0..14u8).rev() {
        let mut cells = Vec::new();
        let mut empty = 0;
        for file in 0..14u8 {
            let token = &grid[rank as usize][file as usize];
            let on_board = Square::new(file, rank).is_some();
            if on_board && token.is_empty() {
                empty += 1;
                continue;
            }
            if empty > 0 {
                cells.push(empty.to_string());
                empty = 0;
            }
            cells.push(if on_board { token.clone() } else { "x".into() });
        }
        if empty > 0 {
            cells.push(empty.to_string());
        }
        ranks.push(cells.join(","));
    }
    format!(
        "{turn}-0,0,0,0-0,0,0,0-0,0,0,0-0,0,0,0-0-{}",
        ranks.join("/")
    )
}

fn random_position(mode: Mode, plies: usize, rng: &mut Rng) -> Option<Game> {
    let mut game = Game::new(options(mode), Seat::Red).unwrap();
    for _ in 0..plies {
        let moves = game.legal_moves();
        if moves.is_empty() {
            break;
        }
        game.apply(moves[rng.below(moves.len())].into()).unwrap();
    }
    game.to_act().is_some().then_some(game)
}

#[test]
fn every_level_plays_legal_moves_in_random_positions_of_both_modes() {
    let mut rng = Rng::new(31);
    let mut checked = 0;
    for i in 0..24 {
        let mode = if i % 2 == 0 { Mode::Teams } else { Mode::Ffa };
        let Some(game) = random_position(mode, rng.below(120), &mut rng) else {
            continue;
        };
        let seat = game.to_act().unwrap();
        for level in Level::ALL {
            let choice = FourChessBot::new(level)
                .choose(&game, seat, Budget::nodes(400), i, &NoClock)
                .unwrap();
            assert_eq!(choice.actions.len(), 1);
            let mut after = game.clone();
            after
                .apply(choice.actions[0])
                .unwrap_or_else(|e| panic!("{level}: {e} in {}", game.fen4()));
            checked += 1;
        }
    }
    assert!(checked >= 80, "{checked}");
}

#[test]
fn same_seed_and_node_budget_give_the_same_move() {
    let mut rng = Rng::new(5);
    let mut differ = 0;
    for i in 0..8 {
        let mode = if i % 2 == 0 { Mode::Teams } else { Mode::Ffa };
        let Some(game) = random_position(mode, 10 + 7 * i, &mut rng) else {
            continue;
        };
        let seat = game.to_act().unwrap();
        for level in [
            Level::Random,
            Level::Greedy,
            Level::Easy,
            Level::Medium,
            Level::Hard,
        ] {
            let budget = Budget::nodes(1_500);
            let a = FourChessBot::new(level)
                .choose(&game, seat, budget, 42, &NoClock)
                .unwrap();
            let b = FourChessBot::new(level)
                .choose(&game, seat, budget, 42, &NoClock)
                .unwrap();
            assert_eq!(a, b, "{level} in {}", game.fen4());
            let c = FourChessBot::new(level)
                .choose(&game, seat, budget, 43, &NoClock)
                .unwrap();
            differ += usize::from(a.actions != c.actions);
        }
    }
    assert!(differ > 0, "the seed never matters");
}

#[test]
fn a_bot_refuses_another_seats_turn() {
    let game = Game::new(Options::default(), Seat::Red).unwrap();
    assert_eq!(
        FourChessBot::new(Level::Hard).choose(&game, Seat::Blue, Budget::nodes(10), 1, &NoClock),
        Err(bots::BotError::NotToAct(Seat::Blue))
    );
}

/// Kings for the seats not named, far from the action.
const QUIET_KINGS: [(&str, &str); 4] = [("h1", "rK"), ("a7", "bK"), ("g14", "yK"), ("n8", "gK")];

fn with_kings<'a>(pieces: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut all: Vec<(&str, &str)> = pieces.to_vec();
    for (sq, k) in QUIET_KINGS {
        if !all.iter().any(|(_, t)| *t == k) {
            all.push((sq, k));
        }
    }
    all
}

#[test]
fn f16_ffa_finds_a_mate_in_one() {
    // Blue's king on d1 (corner pocket): Red's queen e10-e2, guarded by the knight on g3, mates it.
    let pieces = with_kings(&[("d1", "bK"), ("e10", "rQ"), ("g3", "rN")]);
    let game = Game::from_fen4(options(Mode::Ffa), &fen4('R', &pieces)).unwrap();
    for level in [Level::Easy, Level::Medium, Level::Hard] {
        let choice = FourChessBot::new(level)
            .choose(&game, Seat::Red, Budget::nodes(20_000), 1, &NoClock)
            .unwrap();
        let mut after = game.clone();
        let applied = after.apply(choice.actions[0]).unwrap();
        let mated = applied.report.map(|r| r.mated).unwrap_or_default();
        assert_eq!(mated, vec![Seat::Blue], "{level}: {:?}", choice.actions);
    }
}

#[test]
fn f12_teams_takes_an_enemy_king() {
    // Green's king on n8 stands in front of Red's rook on f8 (a king capture wins at once, F.12);
    // Red could also take Blue's queen with its knight.
    let pieces = with_kings(&[("f8", "rR"), ("e5", "rN"), ("d7", "bQ")]);
    let game = Game::from_fen4(options(Mode::Teams), &fen4('R', &pieces)).unwrap();
    for level in [Level::Greedy, Level::Easy, Level::Medium, Level::Hard] {
        let choice = FourChessBot::new(level)
            .choose(&game, Seat::Red, Budget::nodes(20_000), 1, &NoClock)
            .unwrap();
        let mut after = game.clone();
        after.apply(choice.actions[0]).unwrap();
        let winners = after.outcome().map(|o| o.winners()).unwrap_or_default();
        assert_eq!(winners, vec![Seat::Red, Seat::Yellow], "{level}");
    }
}

/// Whether the seat to move can capture `victim`'s king.
fn can_take_king(game: &Game, victim: Seat) -> bool {
    let king = game.position().king(victim).unwrap();
    game.legal_moves().iter().any(|m| m.to() == king)
}

#[test]
fn f11_teams_saves_its_partners_king() {
    // Blue's rook on g8 attacks Yellow's king on g14 and Blue moves before Yellow: Red must take the
    // rook (bishop e6xg8) or block. A knight capture of Green's queen tempts the greedy baseline.
    let pieces = with_kings(&[("g8", "bR"), ("e6", "rB"), ("h4", "rN"), ("j5", "gQ")]);
    let game = Game::from_fen4(options(Mode::Teams), &fen4('R', &pieces)).unwrap();
    let greedy = FourChessBot::new(Level::Greedy)
        .choose(&game, Seat::Red, Budget::nodes(1_000), 1, &NoClock)
        .unwrap();
    let mut after = game.clone();
    after.apply(greedy.actions[0]).unwrap();
    assert!(
        can_take_king(&after, Seat::Yellow),
        "the position tests nothing"
    );
    for level in [Level::Easy, Level::Medium, Level::Hard] {
        let choice = FourChessBot::new(level)
            .choose(&game, Seat::Red, Budget::nodes(20_000), 1, &NoClock)
            .unwrap();
        let mut after = game.clone();
        after.apply(choice.actions[0]).unwrap();
        assert_eq!(after.to_act(), Some(Seat::Blue));
        assert!(
            !can_take_king(&after, Seat::Yellow),
            "{level} let Blue take Yellow's king: {:?}",
            choice.actions
        );
    }
}

#[test]
fn f9_teams_does_not_grab_material_into_a_mate_on_its_own_turn() {
    // Red's king h1 sits behind its pawns g2 h2 i2; only the rook on d1 guards the first rank against
    // Blue's rook on a4... which cannot reach rank 1 (corner), so Blue's rook stands on e9 instead,
    // ready for e9-e1#. Red's rook could take Green's queen on d13 (far from rank 1): then Blue mates
    // (Yellow and Green cannot help), judged on Red's turn (F.11).
    let pieces = with_kings(&[
        ("h1", "rK"),
        ("g2", "rP"),
        ("h2", "rP"),
        ("i2", "rP"),
        ("d1", "rR"),
        ("e9", "bR"),
        ("d13", "gQ"),
    ]);
    let game = Game::from_fen4(options(Mode::Teams), &fen4('R', &pieces)).unwrap();
    // The trap is real: after the greedy capture Blue mates in one.
    let greedy = FourChessBot::new(Level::Greedy)
        .choose(&game, Seat::Red, Budget::nodes(1_000), 1, &NoClock)
        .unwrap();
    let mut trapped = game.clone();
    trapped.apply(greedy.actions[0]).unwrap();
    assert_eq!(
        trapped
            .position()
            .piece_at("d13".parse().unwrap())
            .map(|p| p.owner),
        Some(Owner::Seat(Seat::Red))
    );
    trapped
        .apply(Action::Move {
            from: "e9".parse().unwrap(),
            to: "e1".parse().unwrap(),
            promotion: None,
        })
        .unwrap();
    for _ in 0..2 {
        let any = trapped.legal_moves()[0];
        trapped.apply(any.into()).unwrap();
    }
    assert_eq!(
        trapped.outcome().map(|o| o.reason),
        Some(rules::fourchess::EndReason::Checkmate { seat: Seat::Red })
    );
    let choice = FourChessBot::new(Level::Hard)
        .choose(&game, Seat::Red, Budget::nodes(200_000), 1, &NoClock)
        .unwrap();
    assert!(choice.depth >= 4, "searched only {} plies", choice.depth);
    let mut after = game.clone();
    after.apply(choice.actions[0]).unwrap();
    let moved = after.position().piece_at("d13".parse().unwrap());
    assert!(
        moved.is_none_or(|p| p.kind != Kind::Rook),
        "hard grabbed the queen and walks into mate: {:?}",
        choice.actions
    );
}
