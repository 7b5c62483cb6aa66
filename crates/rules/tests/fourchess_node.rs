//! `Node` (the search's copy-make game) agrees with `Game`: the same random legal moves played through
//! both give the same seat to move (F.10, F.18), legal moves (F.4–F.9), points (F.19, F.20, F.25), ends
//! (F.11–F.13, F.16, F.17, F.22, F.24, F.26), check and elimination flags, repetition keys (F.23) and
//! per-move reports, in Teams and FFA, from the start and from sparse positions where the fifty-move rule
//! comes up. Repetition is the one end `Node` leaves to the search (it needs the game's history): a game
//! that ends by F.23 is compared up to that move.

use proptest::prelude::*;
use rules::Seat;
use rules::fourchess::{Action, EndReason, Game, Mode, Move, Node, Options, Setup};

fn sorted_texts(moves: &[Move]) -> Vec<String> {
    let mut texts: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    texts.sort();
    texts
}

/// Everything a `Node` tells about the position, against the game's answer.
fn assert_same(game: &Game, node: &Node, moves: &mut Vec<Move>) {
    let fen = game.fen4();
    assert_eq!(
        node.to_move(),
        game.to_act(),
        "F.10/F.18 seat to move: {fen}"
    );
    assert_eq!(node.points(), game.points(), "F.19/F.20/F.25 points: {fen}");
    assert_eq!(node.end(), game.outcome().map(|o| o.reason), "end: {fen}");
    assert_eq!(node.outcome().as_ref(), game.outcome(), "standings: {fen}");
    assert_eq!(node.key(), game.position().key(), "F.23 key: {fen}");
    assert_eq!(node.position(), game.position(), "{fen}");
    for seat in Seat::ALL {
        assert_eq!(
            node.in_check(seat),
            game.in_check(seat),
            "F.9 {seat}: {fen}"
        );
        assert_eq!(node.is_out(seat), game.is_out(seat), "F.18 {seat}: {fen}");
    }
    moves.clear();
    node.legal_moves(moves);
    assert_eq!(
        sorted_texts(moves),
        sorted_texts(&game.legal_moves()),
        "F.4-F.9 legal moves: {fen}"
    );
    // The clock and the plies left too: a node built afresh from the game is the one played to here.
    assert_eq!(&Node::new(game), node, "{fen}");
}

/// Plays `choices` through both; returns how the game ended (`None`: not yet).
fn agree(mut game: Game, choices: impl Iterator<Item = usize>) -> Option<EndReason> {
    let mut node = Node::new(&game);
    let mut moves = Vec::new();
    for choice in choices {
        assert_same(&game, &node, &mut moves);
        if game.to_act().is_none() {
            break;
        }
        let m = moves[choice % moves.len()];
        let applied = game.apply(Action::from(m)).expect("a legal move");
        let played = node.play(m);
        let report = applied.report.expect("a move reports");
        assert_eq!(played.seat, report.seat);
        assert_eq!(played.piece, report.piece);
        assert_eq!(played.points, report.points, "F.19 points of {m}");
        assert_eq!(
            played.check_bonus, report.check_bonus,
            "F.19 check bonus of {m}"
        );
        let captures: Vec<_> = played.captures.iter().flatten().copied().collect();
        assert_eq!(captures, report.captures, "captures of {m}");
        assert_eq!(played.is_capture(), !report.captures.is_empty());
        let bits = |seats: &[Seat]| seats.iter().fold(0u8, |b, s| b | 1 << *s as u8);
        assert_eq!(
            played.checks,
            bits(report.checks.as_slice()),
            "checks of {m}"
        );
        assert_eq!(
            played.mated,
            bits(report.mated.as_slice()),
            "F.11/F.16 mates of {m}"
        );
        if game
            .outcome()
            .is_some_and(|o| o.reason == EndReason::Repetition)
        {
            // F.23 is the search's business; up to here everything agreed.
            return Some(EndReason::Repetition);
        }
    }
    assert_same(&game, &node, &mut moves);
    game.outcome().map(|o| o.reason)
}

fn options(mode: Mode, move_limit: Option<u32>) -> Options {
    Options {
        mode,
        move_limit,
        ..Options::default()
    }
}

/// Kings and a knight each: captures are rare enough for F.24 to end games.
fn sparse(mode: Mode, first: Seat, move_limit: Option<u32>) -> Game {
    let pieces = [
        ("h1", "rK"),
        ("j1", "rN"),
        ("a7", "bK"),
        ("a10", "bN"),
        ("g14", "yK"),
        ("e14", "yN"),
        ("n8", "gK"),
        ("n5", "gN"),
    ];
    let setup = Setup::from_pieces(mode, first, &pieces).unwrap();
    Game::from_setup(options(mode, move_limit), setup).unwrap()
}

/// xorshift64*: the seeded games below.
struct Rng(u64);

impl Rng {
    fn draw(&mut self) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize
    }
}

/// Seeded random games to their end in both modes; the ends they reached show what was compared.
#[test]
fn node_and_game_agree_over_whole_random_games() {
    let mut rng = Rng(0x4E4F_4445);
    for mode in [Mode::Teams, Mode::Ffa] {
        let mut ends: Vec<String> = Vec::new();
        for i in 0..60 {
            let first = Seat::from_index(i % 4);
            let limit = (i % 3 == 0).then_some(40 + (i as u32) * 7);
            let game = if i % 2 == 0 {
                Game::new(options(mode, limit), first).unwrap()
            } else {
                sparse(mode, first, limit)
            };
            let choices: Vec<usize> = (0..1500).map(|_| rng.draw()).collect();
            let end = agree(game, choices.into_iter());
            let name = format!("{end:?}");
            let kind = name.split([' ', '{']).next().unwrap_or("").to_owned();
            ends.push(kind);
        }
        ends.sort();
        ends.dedup();
        // Each mode reached the move limit and the fifty-move rule, and a rules end of its own.
        assert!(
            ends.iter().any(|e| e == "Some(MoveLimit)"),
            "{mode:?}: {ends:?}"
        );
        assert!(
            ends.iter().any(|e| e == "Some(FiftyMoves)"),
            "{mode:?}: {ends:?}"
        );
        let own = match mode {
            Mode::Teams => ["Some(KingCaptured", "Some(Checkmate", "Some(Stalemate"],
            Mode::Ffa => [
                "Some(ThreePlayersOut)",
                "Some(PointsLead",
                "Some(PointsLead",
            ],
        };
        assert!(
            ends.iter().any(|e| own.contains(&e.as_str())),
            "{mode:?}: {ends:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn node_and_game_agree_in_teams(first in 0usize..4, sparse_start: bool, limit in prop::option::of(1u32..300), choices in prop::collection::vec(any::<u16>(), 0..400)) {
        let first = Seat::from_index(first);
        let game = if sparse_start { sparse(Mode::Teams, first, limit) } else { Game::new(options(Mode::Teams, limit), first).unwrap() };
        agree(game, choices.into_iter().map(usize::from));
    }

    #[test]
    fn node_and_game_agree_in_ffa(first in 0usize..4, sparse_start: bool, limit in prop::option::of(1u32..300), choices in prop::collection::vec(any::<u16>(), 0..400)) {
        let first = Seat::from_index(first);
        let game = if sparse_start { sparse(Mode::Ffa, first, limit) } else { Game::new(options(Mode::Ffa, limit), first).unwrap() };
        agree(game, choices.into_iter().map(usize::from));
    }
}

/// A search's null move (`Node::pass`, not a rule): the turn goes to the next seat with the placement
/// unchanged (F.10), so the position is the one where that seat moves first, and the passing seat's
/// en-passant entry expires as if it had moved (F.6).
#[test]
fn a_pass_hands_the_turn_on_and_expires_the_passers_entry() {
    let start = Game::new(options(Mode::Teams, None), Seat::Red).unwrap();
    let blue_first = Game::new(options(Mode::Teams, None), Seat::Blue).unwrap();
    let mut node = Node::new(&start);
    node.pass();
    assert_eq!(node.to_move(), Some(Seat::Blue));
    assert_eq!(node.key(), blue_first.position().key());
    let mut moves = Vec::new();
    node.legal_moves(&mut moves);
    assert_eq!(
        sorted_texts(&moves),
        sorted_texts(&blue_first.legal_moves())
    );

    // Red's double step leaves an entry (F.6) that lasts until Red's own next turn.
    let mut node = Node::new(&start);
    moves.clear();
    node.legal_moves(&mut moves);
    let double = *moves.iter().find(|m| m.to_string() == "h2-h4").unwrap();
    node.play(double);
    for _ in 0..3 {
        node.pass();
    }
    assert_eq!(node.to_move(), Some(Seat::Red));
    let with_entry = node.key();
    node.pass();
    let after_red_passed = node.key();
    for _ in 0..4 {
        node.pass();
    }
    assert_eq!(node.to_move(), Some(Seat::Blue));
    assert_eq!(node.key(), after_red_passed, "four passes come back");
    for _ in 0..3 {
        node.pass();
    }
    assert_ne!(node.key(), with_entry, "Red's entry expired when it passed");
}
