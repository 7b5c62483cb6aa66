//! Property tests over random legal games, Teams and FFA: no panics, every reached position round-trips
//! through FEN4 and keeps its incremental key exact, PGN4 export→import reproduces the game, and replaying
//! the recorded actions reproduces it too, and the record the game replays from its compact action list
//! is exactly what each action reported when it was applied. (Positions are copied, not unmade, so there is no unmake to
//! check.)

use proptest::prelude::*;
use rules::Seat;
use rules::fourchess::{
    Action, Applied, Game, Mode, Options, export_pgn4, import_pgn4, parse_fen4,
};

/// Plays a random game: each choice picks a legal move, and now and then a resignation (of the seat to
/// move or of another live seat). Returns the game and what each action reported.
fn random_game(mode: Mode, first: usize, choices: &[u16]) -> (Game, Vec<Applied>) {
    let options = Options {
        mode,
        ..Options::default()
    };
    let mut game = Game::new(options, Seat::from_index(first)).unwrap();
    let mut reported = Vec::new();
    for &choice in choices {
        let Some(to_act) = game.to_act() else { break };
        check_position(&game);
        let moves = game.legal_actions();
        assert!(
            !moves.is_empty(),
            "a seat to act always has a move: {}",
            game.fen4()
        );
        let action = if choice % 97 == 0 {
            let seat = Seat::from_index(to_act.index() + (choice as usize / 97) % 4);
            if game.is_out(seat) {
                moves[0]
            } else {
                Action::Resign { seat }
            }
        } else {
            moves[choice as usize % moves.len()]
        };
        let before = game.clone();
        let applied = game.apply(action).expect("a legal action is accepted");
        assert_ne!(game, before);
        assert_eq!(applied.to_act, game.to_act());
        assert_eq!(applied.points, game.points());
        assert_eq!(game.last_applied(), Some(&applied));
        reported.push(applied);
    }
    check_position(&game);
    (game, reported)
}

/// The game keeps only its actions; the record it replays from them is what was reported.
fn check_record(game: &Game, reported: &[Applied]) {
    assert_eq!(game.actions().len(), reported.len());
    assert_eq!(game.record(), reported);
}

fn check_position(game: &Game) {
    let pos = game.position();
    assert_eq!(
        pos.key(),
        pos.key_from_scratch(),
        "incremental key drifted: {}",
        game.fen4()
    );
    let text = game.fen4();
    let parsed = parse_fen4(&text, game.mode()).expect("our FEN4 parses");
    assert_eq!(&parsed.position, pos, "{text}");
    assert_eq!(parsed.points, game.points());
    assert_eq!(parsed.to_fen4(), text, "print(parse(x)) is stable");
}

fn replay(game: &Game) -> Game {
    let mut again = Game::new(game.options().clone(), game.first()).unwrap();
    for applied in game.record() {
        again.apply(applied.action).unwrap();
    }
    again
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_teams_games_hold_every_invariant(first in 0usize..4, choices in prop::collection::vec(any::<u16>(), 0..300)) {
        let (game, reported) = random_game(Mode::Teams, first, &choices);
        check_record(&game, &reported);
        prop_assert_eq!(&replay(&game), &game);
        let pgn = export_pgn4(&game);
        let imported = import_pgn4(&pgn, game.options().clone()).unwrap_or_else(|e| panic!("{e}\n{pgn}"));
        prop_assert_eq!(&imported, &game, "{}", pgn);
    }

    #[test]
    fn random_ffa_games_hold_every_invariant(first in 0usize..4, choices in prop::collection::vec(any::<u16>(), 0..300)) {
        let (game, reported) = random_game(Mode::Ffa, first, &choices);
        check_record(&game, &reported);
        prop_assert_eq!(&replay(&game), &game);
        let pgn = export_pgn4(&game);
        let imported = import_pgn4(&pgn, game.options().clone()).unwrap_or_else(|e| panic!("{e}\n{pgn}"));
        prop_assert_eq!(&imported, &game, "{}", pgn);
    }
}
