//! One test (at least) per rule C.1–C.25 of `shared/rules/chaturaji.md`, and the test vectors T1, T3–T6
//! (T2 is in `chaturaji_perft.rs`). Positions are set up with the position notation.

use rules::Seat;
use rules::chaturaji::{
    Action, DiceKind, DiceUse, DieState, DieView, EndReason, Event, FirstSeatNextGame, Game, Kind,
    MoveList, Options, Phase, Piece, Position, Promotion, START, Square, Unusable,
};

// ---------- helpers ----------

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

/// A board field from `code@square` items, e.g. `"rK@d1 bP@b5"`.
fn board(pieces: &str) -> String {
    let mut grid = [[None::<&str>; 8]; 8];
    for item in pieces.split_whitespace() {
        let (code, at) = item.split_once('@').unwrap();
        let s = sq(at);
        grid[s.rank() as usize][s.file() as usize] = Some(code);
    }
    let mut ranks = Vec::new();
    for rank in (0..8).rev() {
        let mut text = String::new();
        let mut empty = 0;
        for cell in grid[rank] {
            match cell {
                None => empty += 1,
                Some(code) => {
                    if empty > 0 {
                        text += &empty.to_string();
                        empty = 0;
                    }
                    text += code;
                }
            }
        }
        if empty > 0 {
            text += &empty.to_string();
        }
        ranks.push(text);
    }
    ranks.join("/")
}

/// A game from pieces and the remaining ten notation fields.
fn game(options: Options, pieces: &str, rest: &str) -> Game {
    let text = format!("{} {rest}", board(pieces));
    Game::from_notation(options, &text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn opts() -> Options {
    Options::default()
}

fn roll(g: &mut Game, a: u8, b: u8) {
    g.apply(Action::Roll { dice: [a, b] })
        .unwrap_or_else(|e| panic!("roll {a},{b}: {e} in {}", g.notation()));
}

fn mv(g: &mut Game, die: u8, from: &str, to: &str) -> Vec<Event> {
    let action = Action::Move {
        die,
        from: sq(from),
        to: sq(to),
    };
    g.apply(action)
        .unwrap_or_else(|e| panic!("{action}: {e} in {}", g.notation()))
        .events()
        .to_vec()
}

fn end_turn(g: &mut Game) {
    g.apply(Action::EndTurn).unwrap();
}

fn piece(g: &Game, at: &str) -> Option<Piece> {
    g.position().board().piece_at(sq(at))
}

fn p(seat: Seat, kind: Kind) -> Option<Piece> {
    Some(Piece { seat, kind })
}

fn moves(g: &Game) -> Vec<(u8, String)> {
    let mut list = MoveList::new();
    g.legal_moves(&mut list);
    list.as_slice()
        .iter()
        .map(|m| (m.die, format!("{}-{}", m.from, m.to)))
        .collect()
}

fn moves_of_die(g: &Game, die: u8) -> Vec<String> {
    let mut v: Vec<String> = moves(g)
        .into_iter()
        .filter(|(d, _)| *d == die)
        .map(|(_, m)| m)
        .collect();
    v.sort();
    v
}

fn sorted(items: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = items.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

const LIVE: &str = "- 0,0,0,0 - 0 0 - - - -";

/// Four kings and nothing else of interest; Red to move.
const KINGS: &str = "rK@d1 bK@a5 yK@e8 gK@h4";

// ---------- 1. board, seats, turns ----------

#[test]
fn c1_squares_are_named_from_reds_side() {
    assert_eq!(sq("a1").file(), 0);
    assert_eq!(sq("a1").rank(), 0);
    assert_eq!(sq("h8").to_string(), "h8");
    // Red's pawn on a2 moves towards rank 8: a2-a3
    let mut g = Game::new(opts(), Seat::Red).unwrap();
    roll(&mut g, 1, 1);
    assert!(moves_of_die(&g, 0).contains(&"a2-a3".to_string()));
}

#[test]
fn c2_always_four_seats_with_four_standings() {
    let mut g = Game::new(opts(), Seat::Red).unwrap();
    let resigns = g
        .legal_actions()
        .into_iter()
        .filter(|a| matches!(a, Action::Resign { .. }))
        .count();
    assert_eq!(resigns, 4);
    for seat in [Seat::Blue, Seat::Yellow, Seat::Green] {
        g.apply(Action::Resign { seat }).unwrap();
    }
    let outcome = g.outcome().unwrap();
    assert_eq!(outcome.standings.len(), 4);
}

#[test]
fn c3_turns_go_clockwise_from_the_first_seat() {
    let mut g = Game::new(opts(), Seat::Yellow).unwrap();
    let mut order = Vec::new();
    for _ in 0..5 {
        let Phase::AwaitingRoll(seat) = g.phase() else {
            panic!()
        };
        order.push(seat);
        roll(&mut g, 4, 4); // no elephant can move at the start: the turn passes at once
    }
    assert_eq!(
        order,
        [
            Seat::Yellow,
            Seat::Green,
            Seat::Red,
            Seat::Blue,
            Seat::Yellow
        ]
    );
    assert_eq!(g.position().first_seat(), Seat::Yellow);
    assert_eq!(g.next_first_seat(), Seat::Green);
    let fixed = Options {
        first_seat_next_game: FirstSeatNextGame::Fixed,
        ..opts()
    };
    assert_eq!(
        Game::new(fixed, Seat::Yellow).unwrap().next_first_seat(),
        Seat::Yellow
    );
}

#[test]
fn c4_a_round_is_four_turns_counted_from_the_first_seat() {
    let one_round = Options {
        round_limit: 1,
        ..opts()
    };
    let mut g = Game::new(one_round, Seat::Blue).unwrap();
    for i in 0..4 {
        assert!(g.outcome().is_none(), "ended after {i} turns");
        roll(&mut g, 4, 4);
    }
    assert_eq!(g.outcome().unwrap().reason, EndReason::RoundLimit);
    assert_eq!(g.position().turn(), 4);
    assert_eq!(g.position().to_move(), Seat::Red); // the last turn was Red's (Blue, Yellow, Green, Red)
}

// ---------- 2. pieces and setup ----------

#[test]
fn c5_setup_and_start_notation() {
    let g = Game::new(opts(), Seat::Red).unwrap();
    assert_eq!(g.notation(), START);
    assert_eq!(piece(&g, "a1"), p(Seat::Red, Kind::Boat));
    assert_eq!(piece(&g, "a5"), p(Seat::Blue, Kind::King));
    assert_eq!(piece(&g, "f8"), p(Seat::Yellow, Kind::Elephant));
    assert_eq!(piece(&g, "h2"), p(Seat::Green, Kind::Horse));
    assert_eq!(piece(&g, "g4"), p(Seat::Green, Kind::Pawn));
    assert_eq!(piece(&g, "e4"), None);
}

#[test]
fn c6_no_check_kings_walk_into_attack_no_own_captures_no_double_step() {
    // Red's king may step next to Blue's elephant, and Blue then simply captures it.
    let mut g = game(
        opts(),
        "rK@d4 bE@c6 bK@a5 yK@e8 gK@h4 rP@a2",
        &format!("r {LIVE}"),
    );
    roll(&mut g, 1, 4);
    assert!(moves_of_die(&g, 0).contains(&"d4-c5".to_string()));
    mv(&mut g, 0, "d4", "c5"); // the elephant die is unusable (no Red elephant): the turn ends
    roll(&mut g, 4, 4);
    let events = mv(&mut g, 0, "c6", "c5");
    assert!(events.contains(&Event::Captured {
        by: Seat::Blue,
        piece: Piece {
            seat: Seat::Red,
            kind: Kind::King
        },
        at: sq("c5"),
        points: 5
    }));
    // at the start the king cannot take its own pieces, and a pawn has no double step
    let mut g = Game::new(opts(), Seat::Red).unwrap();
    roll(&mut g, 1, 1);
    assert_eq!(
        moves_of_die(&g, 0),
        sorted(&["d1-e1", "d1-e2", "a2-a3", "b2-b3", "c2-c3", "d2-d3"])
    );
    let double = Action::Move {
        die: 0,
        from: sq("a2"),
        to: sq("a4"),
    };
    assert_eq!(g.apply(double).unwrap_err().code(), "illegal_destination");
}

// ---------- 3. dice ----------

#[test]
fn c7_each_die_one_move_any_order_same_piece_twice() {
    let mut g = Game::new(opts(), Seat::Red).unwrap();
    roll(&mut g, 3, 1);
    // the second die first, then the first die moves the same pawn again
    mv(&mut g, 1, "d2", "d3");
    assert_eq!(g.phase(), Phase::Moving(Seat::Red));
    let err = g
        .apply(Action::Move {
            die: 1,
            from: sq("d3"),
            to: sq("d4"),
        })
        .unwrap_err();
    assert_eq!(err.code(), "die_already_used");
    let err = g
        .apply(Action::Move {
            die: 0,
            from: sq("d3"),
            to: sq("d4"),
        })
        .unwrap_err();
    assert_eq!(err.code(), "wrong_class"); // die 0 is a horse die
    mv(&mut g, 0, "b1", "c3");
    assert_eq!(g.phase(), Phase::AwaitingRoll(Seat::Blue));

    let mut g = Game::new(opts(), Seat::Red).unwrap();
    roll(&mut g, 5, 1);
    mv(&mut g, 0, "d2", "d3");
    mv(&mut g, 1, "d3", "d4");
    assert_eq!(piece(&g, "d4"), p(Seat::Red, Kind::Pawn));
    assert_eq!(g.phase(), Phase::AwaitingRoll(Seat::Blue));
}

#[test]
fn c7_long_dice_faces_and_classes() {
    let long = Options {
        dice: DiceKind::Long,
        ..opts()
    };
    let mut g = Game::new(long, Seat::Red).unwrap();
    assert_eq!(
        g.apply(Action::Roll { dice: [1, 3] }).unwrap_err().code(),
        "bad_die_face"
    );
    assert_eq!(
        g.apply(Action::Roll { dice: [6, 3] }).unwrap_err().code(),
        "bad_die_face"
    );
    roll(&mut g, 5, 2);
    assert!(moves_of_die(&g, 0).contains(&"d1-e2".to_string())); // 5: pawn or king
    assert_eq!(moves_of_die(&g, 1), ["a1-c3"]); // 2: boat
}

#[test]
fn c8_unusable_dice_say_why() {
    // At the start Red's elephant exists but cannot move.
    let mut g = Game::new(opts(), Seat::Red).unwrap();
    roll(&mut g, 4, 1);
    let dice = g.dice().unwrap();
    assert_eq!(dice[0].unusable, Some(Unusable::NoLegalMove));
    assert_eq!(dice[1].unusable, None);
    // A seat without a boat: no_piece_of_class.
    let mut g = game(opts(), &format!("{KINGS} rP@a2"), &format!("r {LIVE}"));
    roll(&mut g, 2, 1);
    assert_eq!(
        g.dice().unwrap()[0],
        DieView {
            face: 2,
            class: rules::chaturaji::DieClass::Boat,
            state: DieState::Unused,
            unusable: Some(Unusable::NoPieceOfClass)
        }
    );
}

#[test]
fn c9_turn_ends_when_no_die_is_usable_or_the_player_ends_it() {
    // neither die usable at the throw: the turn passes at once, both dice reported unused with reasons
    let mut g = Game::new(opts(), Seat::Red).unwrap();
    let applied = g.apply(Action::Roll { dice: [4, 6] }).unwrap();
    assert_eq!(g.phase(), Phase::AwaitingRoll(Seat::Blue));
    let ended = applied
        .iter()
        .find_map(|e| match e {
            Event::TurnEnded { seat, dice } => Some((*seat, *dice)),
            _ => None,
        })
        .unwrap();
    assert_eq!(ended.0, Seat::Red);
    assert!(
        ended
            .1
            .unwrap()
            .iter()
            .all(|d| d.state == DieState::Unused && d.unusable == Some(Unusable::NoLegalMove))
    );

    // optional: the player may end the turn with a usable die, which is reported declined
    let mut g = Game::new(opts(), Seat::Red).unwrap();
    roll(&mut g, 1, 3);
    mv(&mut g, 0, "a2", "a3");
    let applied = g.apply(Action::EndTurn).unwrap();
    let Some(Event::TurnEnded {
        dice: Some(dice), ..
    }) = applied.iter().next()
    else {
        panic!("{applied:?}")
    };
    assert_eq!(dice[0].state, DieState::Used);
    assert_eq!(dice[1].state, DieState::Declined);

    // forced: ending the turn is refused while a die is usable; the turn ends by itself afterwards
    let forced = Options {
        dice_use: DiceUse::Forced,
        ..opts()
    };
    let mut g = Game::new(forced, Seat::Red).unwrap();
    roll(&mut g, 1, 3);
    assert_eq!(
        g.apply(Action::EndTurn).unwrap_err().code(),
        "must_use_dice"
    );
    assert!(!g.legal_actions().contains(&Action::EndTurn));
    mv(&mut g, 0, "a2", "a3");
    mv(&mut g, 1, "b1", "c3");
    assert_eq!(g.phase(), Phase::AwaitingRoll(Seat::Blue));
}

#[test]
fn c9_usability_is_judged_at_the_moment_of_choosing() {
    // 4 (elephant) is unusable at the throw; after c2-c3 the elephant can move, so a forced turn goes on.
    let forced = Options {
        dice_use: DiceUse::Forced,
        ..opts()
    };
    let mut g = Game::new(forced, Seat::Red).unwrap();
    roll(&mut g, 1, 4);
    assert_eq!(g.dice().unwrap()[1].unusable, Some(Unusable::NoLegalMove));
    mv(&mut g, 0, "c2", "c3");
    assert_eq!(g.phase(), Phase::Moving(Seat::Red));
    assert_eq!(g.dice().unwrap()[1].unusable, None);
    mv(&mut g, 1, "c1", "c2");
    assert_eq!(g.phase(), Phase::AwaitingRoll(Seat::Blue));
}

#[test]
fn c10_dice_are_an_input_and_the_same_inputs_give_the_same_game() {
    let play = || {
        let mut g = Game::new(opts(), Seat::Red).unwrap();
        roll(&mut g, 1, 2);
        mv(&mut g, 1, "a1", "c3");
        end_turn(&mut g);
        roll(&mut g, 3, 3);
        mv(&mut g, 0, "a7", "c6");
        g
    };
    assert_eq!(play(), play());
    let mut g = Game::new(opts(), Seat::Red).unwrap();
    assert_eq!(
        g.apply(Action::Roll { dice: [0, 1] }).unwrap_err().code(),
        "bad_die_face"
    );
    assert_eq!(
        g.apply(Action::Roll { dice: [7, 1] }).unwrap_err().code(),
        "bad_die_face"
    );
    assert_eq!(g, Game::new(opts(), Seat::Red).unwrap());
}

// ---------- 4. captures and scoring ----------

#[test]
fn c11_capture_scores_the_current_type() {
    // a pawn promoted to a horse is worth 3
    let mut g = game(
        opts(),
        &format!("{KINGS} rE@b3 bH@b7"),
        &format!("r {LIVE}"),
    );
    roll(&mut g, 4, 4);
    let events = mv(&mut g, 0, "b3", "b7");
    assert!(events.contains(&Event::Captured {
        by: Seat::Red,
        piece: Piece {
            seat: Seat::Blue,
            kind: Kind::Horse
        },
        at: sq("b7"),
        points: 3
    }));
    assert_eq!(g.position().points(), [3, 0, 0, 0]);
    assert_eq!(piece(&g, "b3"), None);
}

#[test]
fn c12_a_seat_without_king_plays_on_with_pawns_and_scores() {
    let mut g = game(
        opts(),
        "bK@a5 yK@e8 gK@h4 rP@c3 gS@d4",
        "r - 0,0,0,0 - 0 0 - r<b - -",
    );
    roll(&mut g, 1, 3);
    assert_eq!(
        g.dice().unwrap()[1].unusable,
        Some(Unusable::NoPieceOfClass)
    );
    mv(&mut g, 0, "c3", "d4");
    assert_eq!(g.position().points(), [2, 0, 0, 0]);
    assert_eq!(g.phase(), Phase::AwaitingRoll(Seat::Blue));
}

// ---------- 6. promotion ----------

#[test]
fn c13_a_pawn_on_its_far_edge_cannot_move_but_can_be_captured() {
    let mut g = game(
        opts(),
        &format!("{KINGS} rE@a4 rP@c8 rP@h2 bH@b6"),
        "r - 0,0,0,0 c8 0 0 - - - -",
    );
    roll(&mut g, 1, 1);
    assert_eq!(
        moves_of_die(&g, 0)
            .iter()
            .filter(|m| m.starts_with("c8"))
            .count(),
        0
    );
    end_turn(&mut g);
    roll(&mut g, 3, 3);
    mv(&mut g, 0, "b6", "c8");
    assert_eq!(g.position().points()[1], 1);
    assert_eq!(g.position().waiting_pawns(Seat::Red).count(), 0);
}

#[test]
fn c14_t4_waiting_pawn_promotes_after_opponent_capture() {
    // T4: a Red pawn reaches c8 (elephant picture) while Red's elephant lives: it waits.
    let mut g = game(
        opts(),
        &format!("{KINGS} rP@c7 rE@c3 bE@a3"),
        &format!("r {LIVE}"),
    );
    roll(&mut g, 1, 2);
    mv(&mut g, 0, "c7", "c8");
    assert_eq!(piece(&g, "c8"), p(Seat::Red, Kind::Pawn));
    assert_eq!(
        g.position().waiting_pawns(Seat::Red).collect::<Vec<_>>(),
        [sq("c8")]
    );
    // Blue captures Red's elephant: at the end of Blue's move the c8 pawn becomes a Red elephant.
    roll(&mut g, 4, 2);
    let events = mv(&mut g, 0, "a3", "c3");
    assert!(events.contains(&Event::Promoted {
        seat: Seat::Red,
        at: sq("c8"),
        to: Kind::Elephant
    }));
    assert_eq!(piece(&g, "c8"), p(Seat::Red, Kind::Elephant));
    assert_eq!(g.position().waiting_pawns(Seat::Red).count(), 0);
}

#[test]
fn c15_only_the_first_arrived_pawn_promotes_for_one_type() {
    // f8 arrived before c8 (both elephant pictures); b8 waits for a horse.
    let mut g = game(
        opts(),
        &format!("{KINGS} rP@c8 rP@f8 rP@b8 rE@c3 rH@h1 bE@a3 bS@f3"),
        "b - 0,0,0,0 f8,c8,b8 0 0 - - - -",
    );
    roll(&mut g, 4, 2);
    mv(&mut g, 0, "a3", "c3"); // Red loses its elephant
    assert_eq!(piece(&g, "f8"), p(Seat::Red, Kind::Elephant));
    assert_eq!(piece(&g, "c8"), p(Seat::Red, Kind::Pawn));
    assert_eq!(piece(&g, "b8"), p(Seat::Red, Kind::Pawn));
    assert_eq!(
        g.position().waiting_pawns(Seat::Red).collect::<Vec<_>>(),
        [sq("c8"), sq("b8")]
    );
    // Blue's boat (second die) takes Red's horse on h1: b8 becomes a horse, c8 still waits.
    mv(&mut g, 1, "f3", "h1");
    assert_eq!(piece(&g, "b8"), p(Seat::Red, Kind::Horse));
    assert_eq!(piece(&g, "c8"), p(Seat::Red, Kind::Pawn));
}

#[test]
fn c15_pawns_waiting_for_different_types_promote_together() {
    // Two Red pawns wait on c8 (elephant) and b8 (horse); neither type is on the board (a set-up
    // position): the promotion step after the next move, by anyone, promotes both.
    let mut g = game(
        opts(),
        &format!("{KINGS} rP@c8 rP@b8 rP@g6"),
        "r - 0,0,0,0 c8,b8 0 0 - - - -",
    );
    roll(&mut g, 1, 4);
    let events = mv(&mut g, 0, "g6", "g7");
    let promoted: Vec<_> = events
        .iter()
        .filter(|e| matches!(e, Event::Promoted { .. }))
        .collect();
    assert_eq!(promoted.len(), 2);
    assert_eq!(piece(&g, "c8"), p(Seat::Red, Kind::Elephant));
    assert_eq!(piece(&g, "b8"), p(Seat::Red, Kind::Horse));
}

#[test]
fn c14_every_seats_waiting_pawns_promote_after_any_move() {
    // Red's pawn b7xc8 takes Blue's only elephant. Red has no elephant, so its pawn becomes one on c8;
    // Blue's pawn waiting on h6 (an elephant picture on Blue's far edge, file h) promotes in the same
    // step, at the end of Red's move.
    let mut g = game(
        opts(),
        &format!("{KINGS} rP@b7 bE@c8 bP@h6"),
        "r - 0,0,0,0 h6 0 0 - - - -",
    );
    roll(&mut g, 1, 2);
    let events = mv(&mut g, 0, "b7", "c8");
    let promoted: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::Promoted { seat, at, to } => Some((*seat, *at, *to)),
            _ => None,
        })
        .collect();
    assert_eq!(
        promoted,
        [
            (Seat::Red, sq("c8"), Kind::Elephant),
            (Seat::Blue, sq("h6"), Kind::Elephant)
        ]
    );
    // with another Blue elephant alive, Blue's pawn keeps waiting
    let mut g = game(
        opts(),
        &format!("{KINGS} rP@b7 bE@c8 bP@h6 bE@a1"),
        "r - 0,0,0,0 h6 0 0 - - - -",
    );
    roll(&mut g, 1, 2);
    mv(&mut g, 0, "b7", "c8");
    assert_eq!(piece(&g, "h6"), p(Seat::Blue, Kind::Pawn));
}

#[test]
fn c16_king_square_recrowns_a_kingless_seat_before_the_king_count() {
    // Red has a pawn waiting on d8 (king picture) and its king on b2; Blue's king takes Red's king.
    // Promotion (step 5) runs before the king count (step 6): Red is re-crowned, two kings remain and
    // the game goes on. The new king is a full king.
    let mut g = game(opts(), "rK@b2 rP@d8 bK@a3", "b - 0,0,0,0 d8 0 0 - - - -");
    roll(&mut g, 1, 4);
    let events = mv(&mut g, 0, "a3", "b2");
    assert!(events.contains(&Event::Promoted {
        seat: Seat::Red,
        at: sq("d8"),
        to: Kind::King
    }));
    assert!(g.outcome().is_none());
    assert_eq!(g.position().king_captor(Seat::Red), Some(Seat::Blue));
    roll(&mut g, 1, 1); // Yellow: no pieces at all, passes
    roll(&mut g, 1, 1); // Green passes
    roll(&mut g, 5, 4);
    assert!(moves_of_die(&g, 0).contains(&"d8-e8".to_string()));
}

#[test]
fn c16_a_pawn_reaching_a_king_square_is_crowned_only_without_a_king() {
    let mut g = game(opts(), "rK@a1 rP@e7 bK@a5 gK@h4", &format!("r {LIVE}"));
    roll(&mut g, 1, 4);
    mv(&mut g, 0, "e7", "e8");
    assert_eq!(piece(&g, "e8"), p(Seat::Red, Kind::Pawn));
    let mut g = game(opts(), "rP@e7 bK@a5 gK@h4", &format!("r {LIVE}"));
    roll(&mut g, 1, 4);
    mv(&mut g, 0, "e7", "e8");
    assert_eq!(piece(&g, "e8"), p(Seat::Red, Kind::King));
}

#[test]
fn c17_always_promotes_on_arrival_except_on_king_squares() {
    let always = Options {
        promotion: Promotion::Always,
        ..opts()
    };
    // T4 under `always`: the pawn becomes an elephant on arrival though Red has one.
    let mut g = game(
        always,
        &format!("{KINGS} rP@c7 rE@c3 rP@d7"),
        &format!("r {LIVE}"),
    );
    roll(&mut g, 1, 1);
    mv(&mut g, 0, "c7", "c8");
    assert_eq!(piece(&g, "c8"), p(Seat::Red, Kind::Elephant));
    // on d8 it stays a pawn, even once Red has no king
    mv(&mut g, 1, "d7", "d8");
    assert_eq!(piece(&g, "d8"), p(Seat::Red, Kind::Pawn));
    let mut g = game(
        always,
        "rP@d8 bK@a5 yK@d2 gK@h4 rK@d1",
        "y - 0,0,0,0 d8 0 0 - - - -",
    );
    roll(&mut g, 1, 4);
    mv(&mut g, 0, "d2", "d1"); // Yellow takes Red's king
    assert_eq!(piece(&g, "d8"), p(Seat::Red, Kind::Pawn));
}

#[test]
fn c18_a_promoted_piece_may_use_the_second_die() {
    let always = Options {
        promotion: Promotion::Always,
        ..opts()
    };
    let mut g = game(always, &format!("{KINGS} rP@c7"), &format!("r {LIVE}"));
    roll(&mut g, 1, 4);
    assert_eq!(
        g.dice().unwrap()[1].unusable,
        Some(Unusable::NoPieceOfClass)
    );
    mv(&mut g, 0, "c7", "c8");
    assert_eq!(g.phase(), Phase::Moving(Seat::Red));
    mv(&mut g, 1, "c8", "c2");
    assert_eq!(piece(&g, "c2"), p(Seat::Red, Kind::Elephant));
}

// ---------- 7. boat triumph, thrones, Chaturaji ----------

#[test]
fn c19_t3_boat_triumph_from_the_start() {
    let mut g = Game::new(opts(), Seat::Red).unwrap();
    // each [2,4] throw: the elephant die is unusable at the start, so one boat move ends the turn
    roll(&mut g, 2, 4);
    mv(&mut g, 0, "a1", "c3");
    roll(&mut g, 2, 4);
    mv(&mut g, 0, "a8", "c6");
    roll(&mut g, 2, 4);
    mv(&mut g, 0, "h8", "f6");
    roll(&mut g, 2, 4);
    mv(&mut g, 0, "h1", "f3");
    roll(&mut g, 4, 4); // Red waits
    roll(&mut g, 2, 4);
    mv(&mut g, 0, "c6", "e4");
    roll(&mut g, 2, 4);
    mv(&mut g, 0, "f6", "d4");
    roll(&mut g, 2, 4);
    mv(&mut g, 0, "f3", "d5");
    roll(&mut g, 2, 4);
    let events = mv(&mut g, 0, "c3", "e5");
    assert!(events.contains(&Event::BoatTriumph {
        seat: Seat::Red,
        at: sq("e5"),
        points: 6
    }));
    assert_eq!(g.position().points(), [6, 0, 0, 0]);
    for at in ["d4", "e4", "d5"] {
        assert_eq!(piece(&g, at), None);
    }
    assert_eq!(piece(&g, "e5"), p(Seat::Red, Kind::Boat));
    assert_eq!(g.position().turns_without_capture(), 0);

    // the same with the option off: nothing happens
    let off = Options {
        boat_triumph: false,
        ..opts()
    };
    let mut g = game(
        off,
        &format!("{KINGS} yS@d4 bS@e4 gS@d5 rS@c3"),
        &format!("r {LIVE}"),
    );
    roll(&mut g, 2, 4);
    mv(&mut g, 0, "c3", "e5");
    assert_eq!(g.position().points(), [0, 0, 0, 0]);
}

#[test]
fn c19_two_boats_of_one_seat_never_count_and_only_a_boat_move_triggers() {
    let mut g = game(
        opts(),
        &format!("{KINGS} rS@d4 bS@e4 gS@d5 rS@c3"),
        &format!("r {LIVE}"),
    );
    roll(&mut g, 2, 4);
    mv(&mut g, 0, "c3", "e5");
    assert_eq!(g.position().points(), [0, 0, 0, 0]);
    // a horse completing the square does nothing, nor does the later boat move elsewhere
    let mut g = game(
        opts(),
        &format!("{KINGS} yS@d4 bS@e4 gS@d5 rH@f3 rS@b2"),
        &format!("r {LIVE}"),
    );
    roll(&mut g, 3, 4);
    mv(&mut g, 0, "f3", "e5");
    assert_eq!(g.position().points(), [0, 0, 0, 0]);
}

#[test]
fn c19_capture_on_landing_plus_two_blocks_at_once() {
    // Red's boat lands on d4 taking a Yellow pawn; blocks c3-d4 and d4-e5 both hold one boat of each seat.
    let mut g = game(
        opts(),
        &format!("{KINGS} rS@b2 yP@d4 bS@c3 yS@d3 gS@c4 bS@e4 yS@d5 gS@e5"),
        &format!("r {LIVE}"),
    );
    roll(&mut g, 2, 4);
    let applied = g
        .apply(Action::Move {
            die: 0,
            from: sq("b2"),
            to: sq("d4"),
        })
        .unwrap();
    assert_eq!(applied.points_scored(), [1 + 12, 0, 0, 0]);
    assert_eq!(g.position().points(), [13, 0, 0, 0]);
    assert_eq!(
        g.position().board().pieces(Seat::Blue, Kind::Boat)
            | g.position().board().pieces(Seat::Yellow, Kind::Boat)
            | g.position().board().pieces(Seat::Green, Kind::Boat),
        0
    );
}

#[test]
fn c20_t6_throne_points_once_per_throne() {
    let thrones = Options {
        throne_points: true,
        ..opts()
    };
    // Red's king steps onto e8: +5; it leaves and comes back: +0. Other seats have nothing to move with a
    // boat die, so their [2,2] throws pass at once.
    let mut g = game(thrones, "rK@e7 bK@a5 yK@h6 gK@h4", &format!("r {LIVE}"));
    roll(&mut g, 1, 1);
    let events = mv(&mut g, 0, "e7", "e8");
    assert!(events.contains(&Event::ThronePoints {
        seat: Seat::Red,
        throne: Seat::Yellow,
        points: 5
    }));
    mv(&mut g, 1, "e8", "e7");
    for _ in 0..3 {
        roll(&mut g, 2, 2);
    }
    roll(&mut g, 1, 1);
    mv(&mut g, 0, "e7", "e8");
    assert_eq!(g.position().points(), [5, 0, 0, 0]);
    assert!(g.position().throne_scored(Seat::Red, Seat::Yellow));
    // its own throne never scores
    let mut g = game(thrones, "rK@d2 bK@a5 yK@h6 gK@h4", &format!("r {LIVE}"));
    roll(&mut g, 1, 1);
    mv(&mut g, 0, "d2", "d1");
    assert_eq!(g.position().points(), [0, 0, 0, 0]);
    // capturing Yellow's king on its throne at the first visit: 5 + 5
    let mut g = game(thrones, "rK@e7 bK@a5 yK@e8 gK@h4", &format!("r {LIVE}"));
    roll(&mut g, 1, 1);
    mv(&mut g, 0, "e7", "e8");
    assert_eq!(g.position().points(), [10, 0, 0, 0]);
    // off by default
    let mut g = game(opts(), "rK@e7 bK@a5 yK@h6 gK@h4", &format!("r {LIVE}"));
    roll(&mut g, 1, 1);
    mv(&mut g, 0, "e7", "e8");
    assert_eq!(g.position().points(), [0, 0, 0, 0]);
}

#[test]
fn c20_a_pawn_crowned_on_a_throne_earns_nothing_there() {
    let thrones = Options {
        throne_points: true,
        ..opts()
    };
    let mut g = game(thrones, "rP@e7 bK@a5 gK@h4", &format!("r {LIVE}"));
    roll(&mut g, 1, 4);
    mv(&mut g, 0, "e7", "e8");
    assert_eq!(piece(&g, "e8"), p(Seat::Red, Kind::King));
    assert_eq!(g.position().points(), [0, 0, 0, 0]);
    assert!(!g.position().throne_scored(Seat::Red, Seat::Yellow));
}

#[test]
fn c21_t5_chaturaji_ends_at_once_with_54() {
    // Red took Blue's and Yellow's kings itself; now it takes Green's.
    let mut g = game(
        opts(),
        "rK@e3 gK@f4 rP@a2 bP@b5 yP@h7 gP@g1",
        "r - 10,0,0,0 - 0 0 - b<r,y<r - -",
    );
    roll(&mut g, 1, 1);
    let events = mv(&mut g, 0, "e3", "f4");
    assert!(events.contains(&Event::Chaturaji {
        seat: Seat::Red,
        points_before: 15,
        points_after: 54
    }));
    let outcome = g.outcome().unwrap();
    assert_eq!(outcome.reason, EndReason::Chaturaji { seat: Seat::Red });
    assert_eq!(g.position().points(), [54, 0, 0, 0]);
    // the unused die is void
    assert_eq!(g.dice().unwrap()[1].state, DieState::Void);
    assert_eq!(g.to_act(), None);
    assert_eq!(g.apply(Action::EndTurn).unwrap_err().code(), "game_over");

    // a score above 54 stays
    let mut g = game(
        opts(),
        "rK@e3 gK@f4 rP@a2 bP@b5 yP@h7 gP@g1",
        "r - 60,0,0,0 - 0 0 - b<r,y<r - -",
    );
    roll(&mut g, 1, 1);
    mv(&mut g, 0, "e3", "f4");
    assert_eq!(g.position().points(), [65, 0, 0, 0]);

    // one of the kings was taken by Yellow: one king left ends the game, nobody gets 54
    let mut g = game(
        opts(),
        "rK@e3 gK@f4 rP@a2 bP@b5 yP@h7 gP@g1",
        "r - 10,0,0,0 - 0 0 - b<y,y<r - -",
    );
    roll(&mut g, 1, 1);
    mv(&mut g, 0, "e3", "f4");
    assert_eq!(g.outcome().unwrap().reason, EndReason::KingsLeft);
    assert_eq!(g.position().points(), [15, 0, 0, 0]);
}

#[test]
fn c21_chaturaji_counts_the_most_recent_king() {
    // Blue's first king fell to Yellow (b<y). Blue's pawn g5-h5 is crowned on a king square; Red then
    // takes that king and Green's: every other seat lost its most recent king to Red.
    let mut g = game(
        opts(),
        "rK@g4 gK@g6 bP@g5 rP@a2 yP@h7 gP@c1",
        "b - 0,0,0,0 - 0 0 - b<y,y<r - -",
    );
    roll(&mut g, 1, 4);
    mv(&mut g, 0, "g5", "h5");
    assert_eq!(piece(&g, "h5"), p(Seat::Blue, Kind::King));
    roll(&mut g, 2, 2); // Yellow has no boat: passes
    roll(&mut g, 2, 2); // Green too
    roll(&mut g, 1, 1);
    mv(&mut g, 0, "g4", "h5");
    assert_eq!(g.position().king_captor(Seat::Blue), Some(Seat::Red));
    assert!(g.outcome().is_none());
    mv(&mut g, 1, "h5", "g6");
    assert_eq!(
        g.outcome().unwrap().reason,
        EndReason::Chaturaji { seat: Seat::Red }
    );
    assert_eq!(g.position().points()[0], 54);
}

// ---------- 8. end and ranking ----------

#[test]
fn c22_at_most_one_king_ends_the_game() {
    let mut g = game(
        opts(),
        "rK@d1 bK@d2 bP@b5 yP@h7 gP@g1",
        "r - 0,0,0,0 - 0 0 - y<g,g<b - -",
    );
    roll(&mut g, 1, 1);
    mv(&mut g, 0, "d1", "d2");
    assert_eq!(g.outcome().unwrap().reason, EndReason::KingsLeft);
}

#[test]
fn c22_48_turns_without_capture() {
    let mut g = game(opts(), KINGS, "r - 0,0,0,0 - 46 46 - - - -");
    roll(&mut g, 2, 2); // no boat: passes, 47
    assert!(g.outcome().is_none());
    roll(&mut g, 2, 2); // 48
    assert_eq!(g.outcome().unwrap().reason, EndReason::NoCapture);
    // a capture in the turn resets the count
    let mut g = game(
        opts(),
        &format!("{KINGS} rP@c3 bP@d4"),
        "r - 0,0,0,0 - 47 47 - - - -",
    );
    roll(&mut g, 1, 2);
    mv(&mut g, 0, "c3", "d4");
    assert!(g.outcome().is_none());
    assert_eq!(g.position().turns_without_capture(), 0);
}

#[test]
fn c22_round_limit_and_first_end_in_the_list_is_reported() {
    let limit = Options {
        round_limit: 12,
        ..opts()
    };
    let mut g = game(limit, KINGS, "r - 0,0,0,0 - 0 46 - - - -");
    roll(&mut g, 2, 2);
    assert!(g.outcome().is_none());
    roll(&mut g, 2, 2);
    assert_eq!(g.outcome().unwrap().reason, EndReason::RoundLimit);
    // both the no-capture count and the round limit fall on turn 48: no_capture (3) before (4)
    let mut g = game(limit, KINGS, "r - 0,0,0,0 - 47 47 - - - -");
    roll(&mut g, 2, 2);
    assert_eq!(g.outcome().unwrap().reason, EndReason::NoCapture);
}

#[test]
fn c22_third_resignation_ends_the_game() {
    let mut g = Game::new(opts(), Seat::Red).unwrap();
    roll(&mut g, 1, 1);
    g.apply(Action::Resign { seat: Seat::Blue }).unwrap();
    g.apply(Action::Resign { seat: Seat::Green }).unwrap();
    assert!(g.outcome().is_none());
    let applied = g.apply(Action::Resign { seat: Seat::Yellow }).unwrap();
    assert_eq!(applied.game_over(), Some(EndReason::Resignations));
    assert_eq!(g.dice().unwrap()[0].state, DieState::Void);
}

#[test]
fn c23_resigned_seats_pass_at_once_and_their_turns_count() {
    let mut g = Game::new(opts(), Seat::Red).unwrap();
    g.apply(Action::Resign { seat: Seat::Blue }).unwrap();
    assert_eq!(
        g.apply(Action::Resign { seat: Seat::Blue })
            .unwrap_err()
            .code(),
        "already_resigned"
    );
    roll(&mut g, 1, 1);
    mv(&mut g, 0, "a2", "a3");
    let applied = g.apply(Action::EndTurn).unwrap();
    assert!(applied.events().contains(&Event::TurnEnded {
        seat: Seat::Blue,
        dice: None
    }));
    assert_eq!(g.phase(), Phase::AwaitingRoll(Seat::Yellow));
    assert_eq!(g.position().turn(), 2);
    // the resigned seat's pieces stay and are captured at full value
    assert_eq!(piece(&g, "a5"), p(Seat::Blue, Kind::King));
    // resigning during one's own turn ends that turn
    roll(&mut g, 1, 1);
    g.apply(Action::Resign { seat: Seat::Yellow }).unwrap();
    assert_eq!(g.phase(), Phase::AwaitingRoll(Seat::Green));
    assert_eq!(g.position().turn(), 3);
    // a resigned seat may not be the one to move: Green, Red, then Blue and Yellow pass
    roll(&mut g, 4, 4);
    roll(&mut g, 4, 4);
    assert_eq!(g.phase(), Phase::AwaitingRoll(Seat::Green));
    assert_eq!(g.position().turn(), 7);
}

#[test]
fn c24_ranking_points_then_king_then_material_resigned_last() {
    // finished positions: Red 10 points with king; Blue 10 without king; Yellow 3, Green 3 resigned
    let g = game(
        opts(),
        "rK@d1 rP@a2 bP@b5 bE@b6 yK@e8 gK@h4 gE@h3",
        "r - 10,10,3,3 - 0 120 - b<y g round_limit",
    );
    let s = g.outcome().unwrap().standings;
    assert_eq!(s.map(|s| s.place), [1, 2, 3, 4]);
    // equal points and kings: more material first; equal on all three: shared
    let g = game(
        opts(),
        "rK@d1 rP@a2 bK@a5 bE@b6 yK@e8 yE@f8 gK@h4 gP@g1",
        "r - 5,5,5,5 - 0 120 - - - round_limit",
    );
    let s = g.outcome().unwrap().standings;
    assert_eq!(s.map(|s| s.place), [3, 1, 1, 3]);
    assert_eq!(s[1].material, 9);
}

#[test]
fn c25_a_shared_place_is_a_draw_between_those_seats() {
    let g = game(
        opts(),
        "rK@d1 bK@a5 yK@e8 gK@h4",
        "r - 7,7,0,0 - 0 120 - - - round_limit",
    );
    let outcome = g.outcome().unwrap();
    assert_eq!(
        outcome.seats_on(1).collect::<Vec<_>>(),
        [Seat::Red, Seat::Blue]
    );
    assert_eq!(
        outcome.seats_on(3).collect::<Vec<_>>(),
        [Seat::Yellow, Seat::Green]
    );
    assert_eq!(outcome.seats_on(2).count(), 0);
}

// ---------- test vectors ----------

#[test]
fn t1_opening_moves_per_class() {
    let expect = [
        (
            Seat::Red,
            [
                vec!["d1-e1", "d1-e2", "a2-a3", "b2-b3", "c2-c3", "d2-d3"],
                vec!["a1-c3"],
                vec!["b1-a3", "b1-c3"],
                vec![],
            ],
        ),
        (
            Seat::Blue,
            [
                vec!["a5-a4", "a5-b4", "b8-c8", "b7-c7", "b6-c6", "b5-c5"],
                vec!["a8-c6"],
                vec!["a7-c6", "a7-c8"],
                vec![],
            ],
        ),
    ];
    for (seat, classes) in expect {
        for (face, want) in [1u8, 2, 3, 4].into_iter().zip(classes) {
            let mut g = Game::new(opts(), seat).unwrap();
            roll(&mut g, face, face);
            if want.is_empty() {
                assert_eq!(g.phase(), Phase::AwaitingRoll(seat.next()), "{seat} {face}");
            } else {
                assert_eq!(moves_of_die(&g, 0), sorted(&want), "{seat} face {face}");
            }
        }
    }
    // Yellow and Green have the same counts (the armies are rotations of each other)
    for seat in [Seat::Yellow, Seat::Green] {
        let counts: Vec<usize> = [1u8, 2, 3]
            .iter()
            .map(|&f| {
                let mut g = Game::new(opts(), seat).unwrap();
                roll(&mut g, f, f);
                moves_of_die(&g, 0).len()
            })
            .collect();
        assert_eq!(counts, [6, 1, 2]);
    }
}

#[test]
fn t2_pk_plus_e_takes_a_green_pawn_on_the_first_turn() {
    let mut g = Game::new(opts(), Seat::Red).unwrap();
    roll(&mut g, 1, 4);
    mv(&mut g, 0, "d1", "e2");
    mv(&mut g, 1, "c1", "g1");
    assert_eq!(g.position().points(), [1, 0, 0, 0]);
}

#[test]
fn notation_round_trips_and_rejects_bad_text_clearly() {
    let pos: Position = START.parse().unwrap();
    assert_eq!(pos.to_string(), START);
    for bad in [
        "",
        "x",
        "8/8/8/8/8/8/8/8 r - 0,0,0,0 - 0 0 - - -",
        "9/8/8/8/8/8/8/8 r - 0,0,0,0 - 0 0 - - - -",
        "8/8/8/8/8/8/8/7 r - 0,0,0,0 - 0 0 - - - -",
        "rX7/8/8/8/8/8/8/8 r - 0,0,0,0 - 0 0 - - - -",
        "8/8/8/8/8/8/8/8 q - 0,0,0,0 - 0 0 - - - -",
        "8/8/8/8/8/8/8/8 r 7u1u 0,0,0,0 - 0 0 - - - -",
        "8/8/8/8/8/8/8/8 r - 0,0,0 - 0 0 - - - -",
        "8/8/8/8/8/8/8/8 r - 0,0,0,0 c8 0 0 - - - -",
        "2rP5/8/8/8/8/8/8/8 r - 0,0,0,0 - 0 0 - - - -",
        "8/8/8/8/8/8/8/8 r - 0,0,0,0 - 0 0 r@r - - -",
        "8/8/8/8/8/8/8/8 r - 0,0,0,0 - 0 0 - - - won",
        "8/8/8/8/8/8/8/8 r - 0,0,0,0 - 99999 0 - - - -",
        "8/8/8/8/8/8/8/8 r -* 0,0,0,0 - 0 0 - - - -",
        "r",
        "rK",
        "€€€€€€€€/8/8/8/8/8/8/8 r - 0,0,0,0 - 0 0 - - - -",
    ] {
        let err = bad.parse::<Position>().unwrap_err();
        assert!(!err.to_string().is_empty(), "{bad}");
    }
    // valid text, but not playable under the options: a face the long dice lack
    let long = Options {
        dice: DiceKind::Long,
        ..opts()
    };
    let text = format!("{} r 1u2u 0,0,0,0 - 0 0 - - - -", board(KINGS));
    assert!(Game::from_notation(long, &text).is_err());
}

// ---------- options and wire forms ----------

#[test]
fn options_defaults_serde_names_and_every_problem_listed() {
    let defaults = opts();
    assert_eq!(defaults.dice, DiceKind::Cube);
    assert_eq!(defaults.promotion, Promotion::LostTypeOnly);
    assert!(defaults.boat_triumph);
    assert!(!defaults.throne_points);
    assert_eq!(defaults.dice_use, DiceUse::Optional);
    assert_eq!(defaults.round_limit, 30);
    assert_eq!(defaults.first_seat_next_game, FirstSeatNextGame::Rotate);
    let json = serde_json::to_value(defaults).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "dice": "cube", "promotion": "lost_type_only", "boat_triumph": true,
            "throne_points": false, "dice_use": "optional", "round_limit": 30,
            "first_seat_next_game": "rotate"
        })
    );
    let partial: Options = serde_json::from_str(r#"{"dice": "long", "round_limit": 12}"#).unwrap();
    assert_eq!(partial.dice, DiceKind::Long);
    assert_eq!(partial.round_limit, 12);
    assert_eq!(partial.promotion, Promotion::LostTypeOnly);
    assert!(serde_json::from_str::<Options>(r#"{"dice": "d20"}"#).is_err());
    assert!(serde_json::from_str::<Options>(r#"{"colour": "red"}"#).is_err());

    for bad in [0, 201] {
        let o = Options {
            round_limit: bad,
            ..opts()
        };
        let problems = o.validate().unwrap_err();
        assert_eq!(problems.len(), 1);
        assert_eq!(
            (problems[0].option, problems[0].code),
            ("round_limit", "out_of_range")
        );
        assert!(Game::new(o, Seat::Red).is_err());
    }
    for good in [1, 200] {
        assert!(
            Options {
                round_limit: good,
                ..opts()
            }
            .validate()
            .is_ok()
        );
    }
    let problems = Options::from_settings([
        ("dice", "d20"),
        ("promotion", "never"),
        ("round_limit", "500"),
        ("colour", "red"),
        ("dice_use", "forced"),
    ])
    .unwrap_err();
    let listed: Vec<_> = problems.iter().map(|p| (p.option, p.code)).collect();
    assert_eq!(
        listed,
        [
            ("dice", "unknown_value"),
            ("promotion", "unknown_value"),
            ("unknown", "unknown_option"),
            ("round_limit", "out_of_range"),
        ]
    );
    let set = Options::from_settings([("throne_points", "on"), ("first_seat_next_game", "fixed")])
        .unwrap();
    assert!(set.throne_points);
    assert_eq!(set.first_seat_next_game, FirstSeatNextGame::Fixed);
}

#[test]
fn actions_and_events_have_stable_json() {
    let action = Action::Move {
        die: 1,
        from: sq("d2"),
        to: sq("d3"),
    };
    let json = serde_json::to_string(&action).unwrap();
    assert_eq!(json, r#"{"type":"move","die":1,"from":"d2","to":"d3"}"#);
    assert_eq!(serde_json::from_str::<Action>(&json).unwrap(), action);
    assert_eq!(
        serde_json::from_str::<Action>(r#"{"type":"roll","dice":[1,5]}"#).unwrap(),
        Action::Roll { dice: [1, 5] }
    );
    assert_eq!(
        serde_json::from_str::<Action>(r#"{"type":"resign","seat":"blue"}"#).unwrap(),
        Action::Resign { seat: Seat::Blue }
    );
    assert_eq!(
        serde_json::to_string(&Action::EndTurn).unwrap(),
        r#"{"type":"end_turn"}"#
    );
    let mut g = Game::new(opts(), Seat::Red).unwrap();
    let applied = g.apply(Action::Roll { dice: [4, 6] }).unwrap();
    let json = serde_json::to_value(applied).unwrap();
    assert_eq!(json[0]["type"], "rolled");
    assert_eq!(json[0]["dice"][0]["unusable"], "no_legal_move");
    assert_eq!(json[1]["type"], "turn_ended");
    let err = g.apply(Action::EndTurn).unwrap_err();
    assert_eq!(err.code(), "not_rolled");
}
