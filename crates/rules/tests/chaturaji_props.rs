//! Property tests over random games (random options, random dice, random legal actions): nothing
//! panics, the legal list is exactly what applies, points add up, pieces only disappear (or change by
//! promotion), the notation round-trips, and replaying gives the identical game. Failures print the
//! position notation.

use proptest::prelude::*;
use rules::Seat;
use rules::chaturaji::{
    Action, DiceKind, DiceUse, Event, Game, Kind, Options, Phase, Position, Promotion, Square,
};

/// Seeded xorshift64*: the tests' only randomness.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn options_from(bits: u8, round_limit: u32) -> Options {
    Options {
        dice: if bits & 1 == 0 {
            DiceKind::Cube
        } else {
            DiceKind::Long
        },
        promotion: if bits & 2 == 0 {
            Promotion::LostTypeOnly
        } else {
            Promotion::Always
        },
        boat_triumph: bits & 4 == 0,
        throne_points: bits & 8 != 0,
        dice_use: if bits & 16 == 0 {
            DiceUse::Optional
        } else {
            DiceUse::Forced
        },
        round_limit,
        ..Options::default()
    }
}

/// An independent, slow move generator (square by square, from the rules' text) to compare with.
fn naive_moves(game: &Game) -> Vec<(u8, Square, Square)> {
    let mut out = Vec::new();
    let (Phase::Moving(seat), Some(dice)) = (game.phase(), game.dice()) else {
        return out;
    };
    let board = game.position().board();
    let at = |f: i8, r: i8| {
        if (0..8).contains(&f) && (0..8).contains(&r) {
            Square::new(f as u8, r as u8)
        } else {
            None
        }
    };
    let forward: (i8, i8) = match seat {
        Seat::Red => (0, 1),
        Seat::Blue => (1, 0),
        Seat::Yellow => (0, -1),
        Seat::Green => (-1, 0),
    };
    for (i, die) in dice.iter().enumerate() {
        if die.state != rules::chaturaji::DieState::Unused {
            continue;
        }
        for from in Square::all() {
            let Some(piece) = board.piece_at(from) else {
                continue;
            };
            if piece.seat != seat || rules::chaturaji::DieClass::of_kind(piece.kind) != die.class {
                continue;
            }
            let (f, r) = (from.file() as i8, from.rank() as i8);
            let mut targets = Vec::new();
            let not_own = |sq: Square| board.piece_at(sq).is_none_or(|p| p.seat != seat);
            match piece.kind {
                Kind::Pawn => {
                    if let Some(sq) = at(f + forward.0, r + forward.1) {
                        if board.piece_at(sq).is_none() {
                            targets.push(sq);
                        }
                    }
                    // diagonally forward: forward plus one step sideways
                    let side = (forward.1, forward.0);
                    for s in [1i8, -1] {
                        if let Some(sq) = at(f + forward.0 + s * side.0, r + forward.1 + s * side.1)
                        {
                            if board.piece_at(sq).is_some_and(|p| p.seat != seat) {
                                targets.push(sq);
                            }
                        }
                    }
                }
                Kind::Elephant => {
                    for (df, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                        let (mut x, mut y) = (f + df, r + dr);
                        while let Some(sq) = at(x, y) {
                            if not_own(sq) {
                                targets.push(sq);
                            }
                            if board.piece_at(sq).is_some() {
                                break;
                            }
                            x += df;
                            y += dr;
                        }
                    }
                }
                kind => {
                    let deltas: &[(i8, i8)] = match kind {
                        Kind::King => &[
                            (1, 0),
                            (-1, 0),
                            (0, 1),
                            (0, -1),
                            (1, 1),
                            (1, -1),
                            (-1, 1),
                            (-1, -1),
                        ],
                        Kind::Horse => &[
                            (1, 2),
                            (2, 1),
                            (-1, 2),
                            (-2, 1),
                            (1, -2),
                            (2, -1),
                            (-1, -2),
                            (-2, -1),
                        ],
                        _ => &[(2, 2), (2, -2), (-2, 2), (-2, -2)],
                    };
                    for (df, dr) in deltas {
                        if let Some(sq) = at(f + df, r + dr) {
                            if not_own(sq) {
                                targets.push(sq);
                            }
                        }
                    }
                }
            }
            out.extend(targets.into_iter().map(|to| (i as u8, from, to)));
        }
    }
    out.sort();
    out
}

fn piece_counts(game: &Game) -> [[u32; 5]; 4] {
    Seat::ALL.map(|s| Kind::ALL.map(|k| game.position().board().pieces(s, k).count_ones()))
}

/// Play one random game, checking every property along the way. Returns the actions played.
fn play(options: Options, first: Seat, seed: u64) -> Result<(Game, Vec<Action>), TestCaseError> {
    let mut rng = Rng::new(seed);
    let mut game = Game::new(options, first).unwrap();
    let mut log = Vec::new();
    let mut scored = [0u32; 4];
    let faces: Vec<u8> = options.dice.faces().collect();
    for _ in 0..2000 {
        if game.outcome().is_some() {
            break;
        }
        let here = game.notation();
        // notation round trip for every position reached
        let parsed: Position = here
            .parse()
            .map_err(|e| TestCaseError::fail(format!("{e}: {here}")))?;
        prop_assert_eq!(parsed, *game.position(), "{}", here);
        let rebuilt = Game::from_position(options, parsed)
            .map_err(|e| TestCaseError::fail(format!("{e}: {here}")))?;
        prop_assert_eq!(&rebuilt, &game, "{}", here);

        let legal = game.legal_actions();
        // the move generator agrees with an independent slow one
        let mut listed: Vec<(u8, Square, Square)> = legal
            .iter()
            .filter_map(|a| match *a {
                Action::Move { die, from, to } => Some((die, from, to)),
                _ => None,
            })
            .collect();
        listed.sort();
        prop_assert_eq!(listed, naive_moves(&game), "{}", here);
        // every listed action applies
        for &action in &legal {
            let mut copy = game.clone();
            prop_assert!(
                copy.apply(action).is_ok(),
                "listed {} refused in {}",
                action,
                here
            );
        }
        // random unlisted moves are refused and change nothing
        for _ in 0..6 {
            let action = match rng.below(8) {
                0 => Action::Roll {
                    dice: [rng.below(8) as u8, rng.below(8) as u8],
                },
                1 => Action::EndTurn,
                2 => Action::Resign {
                    seat: Seat::from_index(rng.below(4)),
                },
                _ => Action::Move {
                    die: rng.below(3) as u8,
                    from: Square::from_index(rng.below(64) as u8).unwrap(),
                    to: Square::from_index(rng.below(64) as u8).unwrap(),
                },
            };
            if legal.contains(&action) {
                continue;
            }
            let before = game.clone();
            let mut copy = game.clone();
            prop_assert!(
                copy.apply(action).is_err(),
                "unlisted {} accepted in {}",
                action,
                here
            );
            prop_assert_eq!(&copy, &before);
        }
        if !legal.contains(&Action::EndTurn) {
            let mut copy = game.clone();
            prop_assert!(copy.apply(Action::EndTurn).is_err(), "{}", here);
            prop_assert_eq!(&copy, &game);
        }

        // choose: the dice at random, a resignation rarely, otherwise a uniform legal decision
        let action = match game.phase() {
            Phase::AwaitingRoll(_) => Action::Roll {
                dice: [faces[rng.below(faces.len())], faces[rng.below(faces.len())]],
            },
            _ if rng.below(400) == 0 => {
                let live: Vec<Seat> = Seat::ALL
                    .into_iter()
                    .filter(|&s| !game.position().is_resigned(s))
                    .collect();
                Action::Resign {
                    seat: live[rng.below(live.len())],
                }
            }
            _ => {
                let decisions: Vec<Action> = legal
                    .iter()
                    .copied()
                    .filter(|a| !matches!(a, Action::Resign { .. }))
                    .collect();
                decisions[rng.below(decisions.len())]
            }
        };
        let counts_before = piece_counts(&game);
        let points_before = game.position().points();
        let applied = game
            .apply(action)
            .map_err(|e| TestCaseError::fail(format!("{action}: {e} in {here}")))?;
        // points = values captured + bonuses
        let gained = applied.points_scored();
        for seat in Seat::ALL {
            let i = seat.index();
            prop_assert_eq!(
                u32::from(game.position().points()[i]),
                u32::from(points_before[i]) + u32::from(gained[i]),
                "{} after {} in {}",
                seat,
                action,
                here
            );
            scored[i] += u32::from(gained[i]);
        }
        for event in applied.iter() {
            if let Event::Captured { piece, points, .. } = event {
                prop_assert_eq!(*points, piece.kind.value());
            }
        }
        // piece counts only fall, except by promotion (a pawn becomes another type)
        let counts_after = piece_counts(&game);
        let mut promoted = [[0u32; 5]; 4];
        for event in applied.iter() {
            if let Event::Promoted { seat, to, .. } = event {
                promoted[seat.index()][*to as usize] += 1;
            }
        }
        for seat in Seat::ALL {
            let (b, a, p) = (
                counts_before[seat.index()],
                counts_after[seat.index()],
                promoted[seat.index()],
            );
            prop_assert!(
                a.iter().sum::<u32>() <= b.iter().sum::<u32>(),
                "{} gained pieces after {} in {}",
                seat,
                action,
                here
            );
            for k in 1..5 {
                prop_assert!(a[k] <= b[k] + p[k], "{} {} in {}", seat, action, here);
            }
        }
        log.push(action);
    }
    prop_assert!(
        game.outcome().is_some(),
        "game did not end: {}",
        game.notation()
    );
    for seat in Seat::ALL {
        prop_assert_eq!(
            u32::from(game.position().points()[seat.index()]),
            scored[seat.index()]
        );
    }
    Ok((game, log))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_games_keep_every_invariant_and_replay_identically(
        seed in any::<u64>(),
        bits in 0u8..32,
        round_limit in 1u32..=30,
        first in 0usize..4,
    ) {
        let options = options_from(bits, round_limit);
        let first = Seat::from_index(first);
        let (game, log) = play(options, first, seed)?;
        // replay determinism: the same options, first seat and actions give the identical game
        let mut replay = Game::new(options, first).unwrap();
        for &action in &log {
            replay.apply(action).unwrap();
        }
        prop_assert_eq!(&replay, &game);
        prop_assert!(refuses_everything(&game));
    }

    #[test]
    fn parsing_arbitrary_text_never_panics(text in "\\PC{0,80}") {
        let _ = text.parse::<Position>();
    }

    #[test]
    fn parsing_mutated_positions_never_panics(seed in any::<u64>(), edits in 1usize..4) {
        let mut rng = Rng::new(seed);
        let mut bytes = rules::chaturaji::START.as_bytes().to_vec();
        let alphabet = b"rbygKEHSP012345678/-,*@<uxdv ";
        for _ in 0..edits {
            let at = rng.below(bytes.len());
            bytes[at] = alphabet[rng.below(alphabet.len())];
        }
        let text = String::from_utf8(bytes).unwrap();
        if let Ok(pos) = text.parse::<Position>() {
            prop_assert_eq!(pos.to_string().parse::<Position>().unwrap(), pos);
            // an accepted position plays on without panicking
            if let Ok(mut game) = Game::from_position(Options::default(), pos) {
                for _ in 0..200 {
                    let legal: Vec<Action> = game
                        .legal_actions()
                        .into_iter()
                        .filter(|a| !matches!(a, Action::Resign { .. }))
                        .collect();
                    if legal.is_empty() {
                        break;
                    }
                    let action = legal[rng.below(legal.len())];
                    prop_assert!(game.apply(action).is_ok(), "{} in {}", action, game.notation());
                }
            }
        }
    }
}

/// A finished game refuses everything and stays unchanged.
fn refuses_everything(game: &Game) -> bool {
    let mut copy = game.clone();
    copy.apply(Action::EndTurn).is_err()
        && copy.apply(Action::Roll { dice: [2, 3] }).is_err()
        && copy.apply(Action::Resign { seat: Seat::Red }).is_err()
        && copy == *game
}

/// Random play really reaches the rules under test: captures, promotions, several kinds of end.
#[test]
fn random_games_exercise_captures_promotions_and_ends() {
    let mut rng = Rng::new(7);
    let (mut captures, mut promotions, mut kings_left, mut round_limit) = (0, 0, 0, 0);
    for i in 0..300 {
        let options = options_from((i % 32) as u8, 30);
        let faces: Vec<u8> = options.dice.faces().collect();
        let mut game = Game::new(options, Seat::from_index(i)).unwrap();
        while game.outcome().is_none() {
            let action = match game.phase() {
                Phase::AwaitingRoll(_) => Action::Roll {
                    dice: [faces[rng.below(faces.len())], faces[rng.below(faces.len())]],
                },
                _ => {
                    let legal: Vec<Action> = game
                        .legal_actions()
                        .into_iter()
                        .filter(|a| !matches!(a, Action::Resign { .. }))
                        .collect();
                    legal[rng.below(legal.len())]
                }
            };
            for event in game.apply(action).unwrap().iter() {
                match event {
                    Event::Captured { .. } => captures += 1,
                    Event::Promoted { .. } => promotions += 1,
                    _ => {}
                }
            }
        }
        match game.outcome().unwrap().reason {
            rules::chaturaji::EndReason::KingsLeft => kings_left += 1,
            rules::chaturaji::EndReason::RoundLimit => round_limit += 1,
            _ => {}
        }
    }
    assert!(captures > 1000, "{captures}");
    assert!(promotions > 10, "{promotions}");
    assert!(
        kings_left > 10 && round_limit > 10,
        "{kings_left} {round_limit}"
    );
}
