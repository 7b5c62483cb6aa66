//! The transposition table `fourkings engine` keeps between hard's searches (issue 21): what one
//! search stores serves the next of the same side, and no other side's.

use bots::{Budget, FourChessBot, KeptTable, Level, NoClock};
use rules::Seat;
use rules::fourchess::{Game, Options};

/// Six plies into a Teams game (Yellow to move).
fn middlegame() -> Game {
    let mut game = Game::new(Options::default(), Seat::Red).unwrap();
    for text in ["h2-h3", "b7-c7", "g13-g12", "m8-l8", "i1-h2", "a10-c9"] {
        let m = game
            .legal_moves()
            .into_iter()
            .find(|m| m.to_string() == text)
            .unwrap_or_else(|| panic!("{text} is legal"));
        game.apply(m.into()).unwrap();
    }
    game
}

/// The depth hard completes on `game` at a small node budget, from `kept`.
fn depth(game: &Game, kept: &mut KeptTable) -> u32 {
    let seat = game.to_act().unwrap();
    FourChessBot::new(Level::Hard)
        .choose_keeping(game, seat, Budget::nodes(40_000), 1, &NoClock, kept)
        .unwrap()
        .depth
}

#[test]
fn a_kept_table_serves_the_next_search_of_the_same_side() {
    let game = middlegame();
    let mut kept = KeptTable::new(16);
    let fresh = depth(&game, &mut kept);
    let seat = game.to_act().unwrap();
    let plain = FourChessBot::new(Level::Hard)
        .choose(&game, seat, Budget::nodes(40_000), 1, &NoClock)
        .unwrap();
    assert_eq!(
        plain.depth, fresh,
        "an empty kept table searches as a room's bot does"
    );
    let again = depth(&game, &mut kept);
    assert!(again > fresh, "depth {again} again, {fresh} fresh");
    // Green, the other team, moves next: its search must not read Yellow's values, so it starts
    // afresh.
    let mut green_to_move = game.clone();
    let m = green_to_move.legal_moves()[0];
    green_to_move.apply(m.into()).unwrap();
    assert_eq!(green_to_move.to_act(), Some(Seat::Green));
    let green_fresh = depth(&green_to_move, &mut KeptTable::new(16));
    assert_eq!(
        depth(&green_to_move, &mut kept),
        green_fresh,
        "Green after Yellow"
    );
    kept.clear();
    assert_eq!(depth(&game, &mut kept), fresh, "after clear");
}
