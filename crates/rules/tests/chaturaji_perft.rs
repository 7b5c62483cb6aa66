//! Perft over whole turns: test vector T2 (Red's first turn, every dice-class pair, both dice-use
//! options) and the leaf conventions of multi-turn perft.

use rules::Seat;
use rules::chaturaji::{Action, DiceUse, Game, Options, PerftError, Phase, perft, turn_children};
use std::collections::HashSet;

fn start(dice_use: DiceUse) -> Game {
    Game::new(
        Options {
            dice_use,
            ..Options::default()
        },
        Seat::Red,
    )
    .unwrap()
}

fn check_t2(faces: [u8; 2], optional: u64, forced: u64) {
    assert_eq!(
        perft(&start(DiceUse::Optional), &[faces]).unwrap(),
        optional,
        "{faces:?} optional"
    );
    assert_eq!(
        perft(&start(DiceUse::Forced), &[faces]).unwrap(),
        forced,
        "{faces:?} forced"
    );
    // every face of the same class, in either order, gives the same count
    let same = |f: u8| match f {
        1 => 5,
        5 => 1,
        4 => 6,
        6 => 4,
        f => f,
    };
    let other = [same(faces[1]), same(faces[0])];
    assert_eq!(
        perft(&start(DiceUse::Optional), &[other]).unwrap(),
        optional
    );
    assert_eq!(perft(&start(DiceUse::Forced), &[other]).unwrap(), forced);
}

#[test]
fn t2_pk_pk() {
    check_t2([1, 1], 32, 28);
}
#[test]
fn t2_pk_s() {
    check_t2([1, 2], 13, 6);
}
#[test]
fn t2_pk_h() {
    check_t2([1, 3], 20, 11);
}
#[test]
fn t2_pk_e() {
    check_t2([1, 4], 13, 9);
}
#[test]
fn t2_s_s() {
    check_t2([2, 2], 5, 4);
}
#[test]
fn t2_s_h() {
    check_t2([2, 3], 5, 2);
}
#[test]
fn t2_s_e() {
    check_t2([2, 4], 2, 1);
}
#[test]
fn t2_h_h() {
    check_t2([3, 3], 9, 7);
}
#[test]
fn t2_h_e() {
    check_t2([3, 4], 5, 2);
}
#[test]
fn t2_e_e() {
    check_t2([4, 4], 1, 1);
}

/// An independent count: walk the public `legal_actions` and key states by their notation text.
fn naive(game: &Game, turns: &[[u8; 2]]) -> u64 {
    let Some((&dice, rest)) = turns.split_first() else {
        return 1;
    };
    if game.outcome().is_some() {
        return 0;
    }
    let mut rolled = game.clone();
    rolled.apply(Action::Roll { dice }).unwrap();
    let mut seen = HashSet::new();
    let mut leaves = Vec::new();
    let mut stack = vec![rolled];
    while let Some(g) = stack.pop() {
        if !matches!(g.phase(), Phase::Moving(_)) {
            // an ended game's dice record does not make a different state
            let text = g.notation();
            let key = if g.outcome().is_some() {
                let mut fields: Vec<&str> = text.split(' ').collect();
                fields[2] = "-";
                fields.join(" ")
            } else {
                text
            };
            if seen.insert(key) {
                leaves.push(g);
            }
            continue;
        }
        for action in g.legal_actions() {
            if matches!(action, Action::Resign { .. }) {
                continue;
            }
            let mut child = g.clone();
            child.apply(action).unwrap();
            stack.push(child);
        }
    }
    if rest.is_empty() {
        leaves.len() as u64
    } else {
        leaves.iter().map(|g| naive(g, rest)).sum()
    }
}

#[test]
fn perft_over_several_turns_agrees_with_a_naive_count() {
    for dice_use in [DiceUse::Optional, DiceUse::Forced] {
        let game = start(dice_use);
        for turns in [
            vec![[1, 3], [1, 2]],
            vec![[1, 4], [3, 3]],
            vec![[2, 3], [5, 5], [6, 1]],
        ] {
            assert_eq!(
                perft(&game, &turns).unwrap(),
                naive(&game, &turns),
                "{dice_use:?} {turns:?}"
            );
        }
    }
}

#[test]
fn perft_counts_an_ended_game_only_at_the_last_turn() {
    // Red can end the game at once by taking Green's king (Chaturaji: Red took the other two itself).
    let text = "8/7yP/8/8/5gK2/4rK3/rP7/6gP1 r - 0,0,0,0 - 0 0 - b<r,y<r - -";
    let game = Game::from_notation(Options::default(), text).unwrap();
    let children = turn_children(&game, [1, 1]);
    let ended = children.iter().filter(|c| c.outcome().is_some()).count();
    assert!(ended >= 1);
    let one = perft(&game, &[[1, 1]]).unwrap();
    assert_eq!(one, children.len() as u64);
    let two = perft(&game, &[[1, 1], [4, 4]]).unwrap();
    // [4,4] is a pass for everyone here: every live child has exactly one child, ended ones none
    assert_eq!(two, (children.len() - ended) as u64);
}

#[test]
fn perft_rejects_positions_mid_turn_and_bad_faces() {
    let mut game = start(DiceUse::Optional);
    assert!(matches!(
        perft(&game, &[[7, 1]]),
        Err(PerftError::BadFace { face: 7, .. })
    ));
    game.apply(Action::Roll { dice: [1, 1] }).unwrap();
    assert_eq!(perft(&game, &[[1, 1]]), Err(PerftError::NotAtTurnStart));
}
