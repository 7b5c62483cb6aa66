//! One test (at least) per rule F.1–F.27 of `shared/rules/fourchess.md`, through the public API.

use rules::Seat;
use rules::fourchess::{
    Action, EndReason, Game, Kind, Mode, MoveText, Options, Owner, Piece, RawLimit, RawOptions,
    Setup, Square, parse_fen4,
};

const KINGS: [(&str, &str); 4] = [("h1", "rK"), ("a7", "bK"), ("g14", "yK"), ("n8", "gK")];

fn pieces_with_kings(extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut all: Vec<_> = KINGS.to_vec();
    all.extend_from_slice(extra);
    all
}

fn game_with(mode: Mode, to_move: Seat, pieces: &[(&str, &str)]) -> Game {
    let setup = Setup::from_pieces(mode, to_move, pieces).unwrap();
    Game::from_setup(
        Options {
            mode,
            ..Options::default()
        },
        setup,
    )
    .unwrap()
}

/// The four kings on their home squares plus `extra`.
fn with_kings(mode: Mode, to_move: Seat, extra: &[(&'static str, &'static str)]) -> Game {
    game_with(mode, to_move, &pieces_with_kings(extra))
}

/// FFA, Blue and Green out, Red 30 and Yellow 10 points; Red's rook on g5 can take Yellow's g6 pawn.
const TWO_LEFT: &str = "R-0,1,0,1-0,0,0,0-0,0,0,0-30,0,10,0-0-x,x,x,3,yK,4,x,x,x/x,x,x,8,x,x,x/x,x,x,8,x,x,x/14/14/14/dK,13/14/6,yP,7/6,rR,7/14/x,x,x,8,x,x,x/x,x,x,8,x,x,x/x,x,x,4,rK,3,x,x,x";

/// FFA, Blue out, points 3/4/5/6, fifty-move clock at 148 (three players: the game ends at 150).
const THREE_LEFT: &str = "R-0,1,0,0-0,0,0,0-0,0,0,0-3,4,5,6-148-x,x,x,3,yK,4,x,x,x/x,x,x,8,x,x,x/x,x,x,8,x,x,x/14/14/14/dK,12,gK/14/14/6,rN,7/14/x,x,x,8,x,x,x/x,x,x,8,x,x,x/x,x,x,4,rK,3,x,x,x";

fn ffa_from_fen4(fen: &str) -> Game {
    Game::from_fen4(
        Options {
            mode: Mode::Ffa,
            ..Options::default()
        },
        fen,
    )
    .unwrap()
}

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

fn act(text: &str) -> Action {
    text.parse::<MoveText>().unwrap().into()
}

fn play(game: &mut Game, moves: &[&str]) {
    for m in moves {
        game.apply(act(m))
            .unwrap_or_else(|e| panic!("{m}: {e} in {}", game.fen4()));
    }
}

/// Legal moves from one square, as sorted text.
fn moves_from(game: &Game, from: &str) -> Vec<String> {
    let mut v: Vec<String> = game
        .legal_moves()
        .into_iter()
        .filter(|m| m.from() == sq(from))
        .map(|m| m.to_string())
        .collect();
    v.sort();
    v
}

fn sorted(list: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = list.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

fn piece(owner: Seat, kind: Kind) -> Option<Piece> {
    Some(Piece::new(Owner::Seat(owner), kind))
}

#[test]
fn f1_sliders_stop_at_corners_and_knights_jump_them() {
    let game = game_with(
        Mode::Teams,
        Seat::Red,
        &[
            ("j3", "rK"),
            ("a7", "bK"),
            ("g14", "yK"),
            ("n8", "gK"),
            ("d1", "rR"),
            ("d2", "rB"),
            ("d3", "rN"),
        ],
    );
    // The rook on d1: e1..k1 (l1 is a corner) and nothing left of it (c1 is a corner); d2 is its own bishop.
    assert_eq!(
        moves_from(&game, "d1"),
        sorted(&[
            "d1-e1", "d1-f1", "d1-g1", "d1-h1", "d1-i1", "d1-j1", "d1-k1"
        ])
    );
    // The bishop on d2 must not pass the corner c3 to reach b4 or a5.
    let bishop = moves_from(&game, "d2");
    assert!(bishop.contains(&"d2-e1".to_owned()));
    assert!(
        !bishop
            .iter()
            .any(|m| m.ends_with("b4") || m.ends_with("a5") || m.ends_with("c3"))
    );
    // The knight on d3 jumps over the corner to b4, never lands on b2 (corner).
    let knight = moves_from(&game, "d3");
    assert!(knight.contains(&"d3-b4".to_owned()));
    assert!(
        !knight
            .iter()
            .any(|m| m.ends_with("b2") || m.ends_with("c1"))
    );
    assert_eq!(Square::all().count(), 160);
}

#[test]
fn f2_turns_go_clockwise_from_the_first_seat_and_the_starter_rotates() {
    let mut game = Game::new(Options::default(), Seat::Yellow).unwrap();
    assert_eq!(game.to_act(), Some(Seat::Yellow));
    play(&mut game, &["g13-g12"]);
    assert_eq!(game.to_act(), Some(Seat::Green));
    play(&mut game, &["m8-l8"]);
    assert_eq!(game.to_act(), Some(Seat::Red));
    play(&mut game, &["h2-h3"]);
    assert_eq!(game.to_act(), Some(Seat::Blue));
    let options = Options::default();
    assert!(options.rotate_starter);
    assert_eq!(options.next_first_seat(Seat::Green), Seat::Red);
    let fixed = Options {
        rotate_starter: false,
        ..Options::default()
    };
    assert_eq!(fixed.next_first_seat(Seat::Green), Seat::Green);
}

#[test]
fn f3_start_position_matches_the_spec() {
    let game = Game::new(Options::default(), Seat::Red).unwrap();
    assert_eq!(
        game.fen4(),
        "R-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-x,x,x,yR,yN,yB,yK,yQ,yB,yN,yR,x,x,x/x,x,x,yP,yP,yP,yP,yP,yP,yP,yP,x,x,x/x,x,x,8,x,x,x/bR,bP,10,gP,gR/bN,bP,10,gP,gN/bB,bP,10,gP,gB/bQ,bP,10,gP,gK/bK,bP,10,gP,gQ/bB,bP,10,gP,gB/bN,bP,10,gP,gN/bR,bP,10,gP,gR/x,x,x,8,x,x,x/x,x,x,rP,rP,rP,rP,rP,rP,rP,rP,x,x,x/x,x,x,rR,rN,rB,rQ,rK,rB,rN,rR,x,x,x"
    );
    let pos = game.position();
    for (square, seat, kind) in [
        ("h1", Seat::Red, Kind::King),
        ("g1", Seat::Red, Kind::Queen),
        ("a7", Seat::Blue, Kind::King),
        ("a8", Seat::Blue, Kind::Queen),
        ("g14", Seat::Yellow, Kind::King),
        ("h14", Seat::Yellow, Kind::Queen),
        ("n8", Seat::Green, Kind::King),
        ("n7", Seat::Green, Kind::Queen),
    ] {
        assert_eq!(pos.piece_at(sq(square)), piece(seat, kind), "{square}");
    }
    assert_eq!(game.legal_moves().len(), 20);
}

#[test]
fn f4_no_capture_of_own_or_partner_pieces_and_every_piece_blocks() {
    let extra = [("d4", "rR"), ("d6", "yP"), ("g4", "bN"), ("b4", "rP")];
    let teams = with_kings(Mode::Teams, Seat::Red, &extra);
    let rook = moves_from(&teams, "d4");
    assert!(
        rook.contains(&"d4-g4".to_owned()),
        "captures the enemy knight"
    );
    assert!(
        !rook.contains(&"d4-d6".to_owned()),
        "never the partner's pawn"
    );
    assert!(
        !rook.contains(&"d4-d7".to_owned()),
        "the partner's pawn blocks"
    );
    assert!(
        !rook.contains(&"d4-b4".to_owned()) && !rook.contains(&"d4-a4".to_owned()),
        "own pawn blocks"
    );
    assert!(rook.contains(&"d4-c4".to_owned()));
    let ffa = with_kings(Mode::Ffa, Seat::Red, &extra);
    assert!(
        moves_from(&ffa, "d4").contains(&"d4-d6".to_owned()),
        "FFA: the opposite seat is an opponent"
    );
}

#[test]
fn f5_pawns_step_toward_the_opposite_side_double_from_home_capture_forward() {
    let extra = [
        ("e2", "rP"),
        ("f2", "rP"),
        ("f4", "bN"),
        ("b5", "bP"),
        ("e13", "yP"),
        ("m5", "gP"),
        ("c9", "bP"),
        ("d10", "gN"),
        ("d8", "yN"),
        ("b10", "gN"),
    ];
    let mut game = with_kings(Mode::Teams, Seat::Red, &extra);
    assert_eq!(moves_from(&game, "e2"), sorted(&["e2-e3", "e2-e4"]));
    assert_eq!(
        moves_from(&game, "f2"),
        sorted(&["f2-f3"]),
        "double step blocked on f4"
    );
    play(&mut game, &["h1-h2"]);
    assert_eq!(moves_from(&game, "b5"), sorted(&["b5-c5", "b5-d5"]));
    // Blue captures toward +file only: d8 (Yellow) yes, d10 is its partner's, b10 is behind.
    assert_eq!(moves_from(&game, "c9"), sorted(&["c9-d8", "c9-d9"]));
    play(&mut game, &["a7-a6"]);
    assert_eq!(moves_from(&game, "e13"), sorted(&["e13-e12", "e13-e11"]));
    play(&mut game, &["g14-g13"]);
    assert_eq!(moves_from(&game, "m5"), sorted(&["m5-l5", "m5-k5"]));
}

/// Red d2-d4 with a Blue pawn on c4 and a Green pawn on e2 able to take on d3.
fn en_passant_game(mode: Mode, extra: &[(&'static str, &'static str)]) -> Game {
    let mut pieces = pieces_with_kings(&[("d2", "rP"), ("c4", "bP"), ("e2", "gP")]);
    pieces.extend_from_slice(extra);
    let mut game = game_with(mode, Seat::Red, &pieces);
    play(&mut game, &["d2-d4"]);
    game
}

#[test]
fn f6_en_passant_takes_the_pushed_pawn() {
    let mut game = en_passant_game(Mode::Teams, &[]);
    assert_eq!(
        game.position().en_passant(Seat::Red),
        Some((sq("d3"), sq("d4")))
    );
    assert!(
        game.fen4().contains("{'enPassant':('d3:d4','','','')}"),
        "{}",
        game.fen4()
    );
    assert!(moves_from(&game, "c4").contains(&"c4-d3".to_owned()));
    let applied = game.apply(act("c4-d3")).unwrap();
    let report = applied.report.unwrap();
    assert!(report.en_passant);
    assert_eq!(report.captures.len(), 1);
    assert_eq!(report.captures[0].square, sq("d4"));
    assert_eq!(game.position().piece_at(sq("d4")), None);
    assert_eq!(
        game.position().piece_at(sq("d3")),
        piece(Seat::Blue, Kind::Pawn)
    );
}

#[test]
fn f6_en_passant_lasts_until_the_pusher_moves_again() {
    let mut game = en_passant_game(Mode::Teams, &[]);
    play(&mut game, &["a7-a8", "g14-g13"]);
    assert!(
        moves_from(&game, "e2").contains(&"e2-d3=Q".to_owned()),
        "Green still may take (and promotes)"
    );
    let mut later = en_passant_game(Mode::Teams, &[]);
    play(
        &mut later,
        &["a7-a8", "g14-g13", "n8-n9", "h1-h2", "a8-a9", "g13-g12"],
    );
    assert!(later.position().en_passant(Seat::Red).is_none());
    assert!(
        !moves_from(&later, "e2").iter().any(|m| m.contains("-d3")),
        "the entry died with Red's move"
    );
}

#[test]
fn f6_en_passant_double_capture_when_a_piece_stands_on_the_passed_square() {
    for mode in [Mode::Teams, Mode::Ffa] {
        let mut game = en_passant_game(mode, &[("e5", "yN")]);
        play(&mut game, &["a7-a8", "e5-d3"]);
        // In Teams, d3 is on Green's promotion file d as well.
        let capture = if mode == Mode::Teams {
            "e2-d3=Q"
        } else {
            "e2-d3"
        };
        let applied = game.apply(act(capture)).unwrap();
        let report = applied.report.unwrap();
        assert!(report.en_passant);
        let taken: Vec<Kind> = report.captures.iter().map(|c| c.piece.kind).collect();
        assert_eq!(taken, vec![Kind::Knight, Kind::Pawn], "{mode:?}");
        assert_eq!(game.position().piece_at(sq("d4")), None);
        let landed = if mode == Mode::Teams {
            Kind::Queen
        } else {
            Kind::Pawn
        };
        assert_eq!(
            game.position().piece_at(sq("d3")),
            piece(Seat::Green, landed)
        );
        if mode == Mode::Ffa {
            assert_eq!(report.points, 4, "both captures score in FFA");
            assert_eq!(game.points()[Seat::Green.index()], 4);
        }
    }
}

#[test]
fn f6_no_en_passant_onto_a_partner_piece_and_entry_dies_with_its_pawn() {
    // Blue's knight steps onto d3: its partner Green may not take there.
    let mut game = en_passant_game(Mode::Teams, &[("c5", "bN")]);
    play(&mut game, &["c5-d3", "g14-g13"]);
    assert!(moves_from(&game, "e2").contains(&"e2-d2=Q".to_owned()));
    assert!(!moves_from(&game, "e2").iter().any(|m| m.contains("-d3")));
    // The pushed pawn is captured normally: the entry goes.
    let mut gone = en_passant_game(Mode::Teams, &[("c6", "bN")]);
    play(&mut gone, &["c6-d4"]);
    assert!(gone.position().en_passant(Seat::Red).is_none());
    play(&mut gone, &["g14-g13"]);
    assert!(!moves_from(&gone, "e2").iter().any(|m| m.contains("-d3")));
}

#[test]
fn f6_en_passant_onto_the_promotion_line_promotes() {
    // Red k2-k4 passes k3, on Blue's promotion file k (Teams).
    let mut game = with_kings(Mode::Teams, Seat::Red, &[("k2", "rP"), ("j4", "bP")]);
    play(&mut game, &["k2-k4"]);
    assert_eq!(
        moves_from(&game, "j4"),
        sorted(&["j4-k3=Q", "j4-k3=R", "j4-k3=B", "j4-k3=N"])
    );
    play(&mut game, &["j4-k3=N"]);
    assert_eq!(
        game.position().piece_at(sq("k3")),
        piece(Seat::Blue, Kind::Knight)
    );
    assert_eq!(game.position().piece_at(sq("k4")), None);
}

const CASTLING: &str = "R-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-x,x,x,yR,2,yK,3,yR,x,x,x/x,x,x,yP,yP,yP,yP,yP,yP,yP,yP,x,x,x/x,x,x,8,x,x,x/bR,bP,10,gP,gR/1,bP,10,gP,1/1,bP,10,gP,1/1,bP,10,gP,gK/bK,bP,10,gP,1/1,bP,10,gP,1/1,bP,10,gP,1/bR,bP,10,gP,gR/x,x,x,8,x,x,x/x,x,x,rP,rP,rP,rP,rP,rP,rP,rP,x,x,x/x,x,x,rR,3,rK,2,rR,x,x,x";

#[test]
fn f7_castling_on_all_four_sides() {
    let mut game = Game::from_fen4(Options::default(), CASTLING).unwrap();
    assert!(moves_from(&game, "h1").contains(&"h1-j1".to_owned()));
    assert!(moves_from(&game, "h1").contains(&"h1-f1".to_owned()));
    play(&mut game, &["h1-j1"]);
    assert_eq!(
        game.position().piece_at(sq("i1")),
        piece(Seat::Red, Kind::Rook)
    );
    assert_eq!(game.position().piece_at(sq("k1")), None);
    assert!(moves_from(&game, "a7").contains(&"a7-a5".to_owned()));
    play(&mut game, &["a7-a9"]);
    assert_eq!(
        game.position().piece_at(sq("a8")),
        piece(Seat::Blue, Kind::Rook)
    );
    assert!(moves_from(&game, "g14").contains(&"g14-i14".to_owned()));
    play(&mut game, &["g14-e14"]);
    assert_eq!(
        game.position().piece_at(sq("f14")),
        piece(Seat::Yellow, Kind::Rook)
    );
    assert!(moves_from(&game, "n8").contains(&"n8-n10".to_owned()));
    let applied = game.apply(act("n8-n6")).unwrap();
    assert_eq!(applied.report.unwrap().castling_long, Some(true));
    assert_eq!(
        game.position().piece_at(sq("n7")),
        piece(Seat::Green, Kind::Rook)
    );
    assert_eq!(
        game.position().piece_at(sq("n6")),
        piece(Seat::Green, Kind::King)
    );
    for seat in Seat::ALL {
        assert!(
            !game.position().can_castle(seat, false) && !game.position().can_castle(seat, true)
        );
    }
}

#[test]
fn f7_castling_rights_are_lost_by_king_and_rook_moves_and_rook_capture() {
    let mut game = Game::from_fen4(Options::default(), CASTLING).unwrap();
    // Red's king steps and comes back: no castling any more.
    play(
        &mut game,
        &[
            "h1-g1", "a4-a5", "d14-e14", "n11-n10", "g1-h1", "a5-a4", "e14-d14", "n10-n11",
        ],
    );
    assert_eq!(moves_from(&game, "h1"), sorted(&["h1-g1", "h1-i1"]));
    // Blue's short rook moved (a4-a5-a4): only long castling left; Yellow's short rook likewise.
    assert!(
        !game.position().can_castle(Seat::Blue, false)
            && game.position().can_castle(Seat::Blue, true)
    );
    assert!(
        !game.position().can_castle(Seat::Yellow, false)
            && game.position().can_castle(Seat::Yellow, true)
    );
    assert!(
        !game.position().can_castle(Seat::Green, false)
            && game.position().can_castle(Seat::Green, true)
    );
    // A rook captured on its home square takes its side's right with it.
    let pieces = pieces_with_kings(&[("k1", "rR"), ("k6", "bR")]);
    let fen = Setup::from_pieces(Mode::Teams, Seat::Blue, &pieces)
        .unwrap()
        .to_fen4()
        .replacen("-0,0,0,0-0,0,0,0-0,0,0,0-", "-0,0,0,0-1,0,0,0-0,0,0,0-", 1);
    let mut capture = Game::from_fen4(Options::default(), &fen).unwrap();
    assert!(capture.position().can_castle(Seat::Red, false));
    play(&mut capture, &["k6-k1"]);
    assert!(!capture.position().can_castle(Seat::Red, false));
}

#[test]
fn f7_no_castling_out_of_through_or_into_check() {
    let with_rights = |extra: &[(&'static str, &'static str)]| {
        let pieces = pieces_with_kings(&[&[("k1", "rR"), ("d1", "rR")], extra].concat());
        let fen = Setup::from_pieces(Mode::Teams, Seat::Red, &pieces)
            .unwrap()
            .to_fen4()
            .replacen("-0,0,0,0-0,0,0,0-0,0,0,0-", "-0,0,0,0-1,0,0,0-1,0,0,0-", 1);
        let game = Game::from_fen4(Options::default(), &fen).unwrap();
        let king = moves_from(&game, "h1");
        (
            king.contains(&"h1-j1".to_owned()),
            king.contains(&"h1-f1".to_owned()),
        )
    };
    assert_eq!(with_rights(&[]), (true, true));
    assert_eq!(
        with_rights(&[("i5", "gR")]),
        (false, true),
        "crossing i1 attacked"
    );
    assert_eq!(
        with_rights(&[("j5", "gR")]),
        (false, true),
        "landing on j1 attacked"
    );
    assert_eq!(with_rights(&[("h5", "bR")]), (false, false), "in check");
    assert_eq!(
        with_rights(&[("e5", "bR")]),
        (true, true),
        "e1 is only passed by the rook"
    );
    assert_eq!(
        with_rights(&[("i5", "yR")]),
        (true, true),
        "the partner never attacks"
    );
}

#[test]
fn f8_teams_promotion_on_the_eleventh_rank_to_q_r_b_n() {
    let mut game = with_kings(Mode::Teams, Seat::Red, &[("e10", "rP")]);
    assert_eq!(
        moves_from(&game, "e10"),
        sorted(&["e10-e11=Q", "e10-e11=R", "e10-e11=B", "e10-e11=N"])
    );
    let err = game.apply(act("e10-e11")).unwrap_err();
    assert_eq!(err.code(), "promotion_required");
    play(&mut game, &["e10-e11=R"]);
    assert_eq!(
        game.position().piece_at(sq("e11")),
        piece(Seat::Red, Kind::Rook)
    );
}

#[test]
fn f8_ffa_promotion_on_the_middle_rank_to_a_one_point_queen() {
    let mut game = with_kings(Mode::Ffa, Seat::Red, &[("e7", "rP"), ("d11", "bR")]);
    assert_eq!(moves_from(&game, "e7"), vec!["e7-e8=D".to_owned()]);
    let mut asked_queen = game.clone();
    asked_queen.apply(act("e7-e8=Q")).unwrap();
    assert_eq!(
        asked_queen.position().piece_at(sq("e8")),
        piece(Seat::Red, Kind::OnePointQueen)
    );
    assert_eq!(
        game.clone().apply(act("e7-e8=R")).unwrap_err().code(),
        "illegal_move"
    );
    play(&mut game, &["e7-e8"]);
    assert_eq!(
        game.position().piece_at(sq("e8")),
        piece(Seat::Red, Kind::OnePointQueen)
    );
    assert!(game.fen4().contains("rD"));
    // Blue's rook takes it: worth 1 point.
    play(&mut game, &["d11-d8"]);
    play(&mut game, &["g14-g13", "n8-n9", "e8-e9"]);
    let applied = game.apply(act("d8-d9")).unwrap();
    assert!(applied.report.unwrap().captures.is_empty());
    play(&mut game, &["g13-g12", "n9-n10", "e9-d9"]);
    assert_eq!(
        game.points()[Seat::Red.index()],
        5,
        "the queen took the rook"
    );
}

#[test]
fn f8_one_point_queen_is_worth_one_when_captured() {
    let mut game = with_kings(Mode::Ffa, Seat::Blue, &[("e8", "rD"), ("d9", "bB")]);
    let applied = game.apply(act("d9-e8")).unwrap();
    assert_eq!(applied.report.unwrap().captures[0].points, 1);
}

#[test]
fn f9_a_pinned_piece_stays_on_its_line() {
    let pinned_knight = with_kings(Mode::Teams, Seat::Red, &[("h3", "rN"), ("h10", "gR")]);
    assert!(
        moves_from(&pinned_knight, "h3").is_empty(),
        "a knight cannot stay on the line"
    );
    let shielded = with_kings(
        Mode::Teams,
        Seat::Red,
        &[("h3", "rN"), ("h10", "gR"), ("h5", "rR")],
    );
    assert_eq!(
        moves_from(&shielded, "h3").len(),
        8,
        "the rook on h5 shields it"
    );
    let partner = with_kings(Mode::Teams, Seat::Red, &[("h3", "rN"), ("h10", "yR")]);
    assert_eq!(
        moves_from(&partner, "h3").len(),
        8,
        "the partner's rook pins nothing"
    );
    let pinned = with_kings(Mode::Teams, Seat::Red, &[("h3", "rR"), ("h10", "gR")]);
    assert_eq!(
        moves_from(&pinned, "h3"),
        sorted(&[
            "h3-h2", "h3-h4", "h3-h5", "h3-h6", "h3-h7", "h3-h8", "h3-h9", "h3-h10"
        ])
    );
}

#[test]
fn f9_teams_king_capture_is_always_legal_ffa_only_when_legal() {
    let pieces = [
        ("h1", "rK"),
        ("a7", "bK"),
        ("g14", "yK"),
        ("e9", "gK"),
        ("e5", "rQ"),
        ("h8", "bR"),
    ];
    let teams = game_with(Mode::Teams, Seat::Red, &pieces);
    let queen = moves_from(&teams, "e5");
    assert!(
        queen.contains(&"e5-e9".to_owned()),
        "taking a king ignores the check"
    );
    assert!(queen.contains(&"e5-h5".to_owned()), "blocking is legal");
    assert!(
        !queen.contains(&"e5-e6".to_owned()),
        "other moves must answer the check"
    );
    let ffa = game_with(Mode::Ffa, Seat::Red, &pieces);
    assert!(
        !moves_from(&ffa, "e5").contains(&"e5-e9".to_owned()),
        "F.17: must still be legal"
    );
}

#[test]
fn f10_partners_never_attack_each_other() {
    let pieces = pieces_with_kings(&[("h3", "yQ")]);
    let teams = game_with(Mode::Teams, Seat::Red, &pieces);
    assert!(moves_from(&teams, "h1").contains(&"h1-h2".to_owned()));
    let ffa = game_with(Mode::Ffa, Seat::Red, &pieces);
    assert!(
        !moves_from(&ffa, "h1").contains(&"h1-h2".to_owned()),
        "in FFA Yellow attacks"
    );
}

/// Yellow is about to check Blue's king (a7, boxed by its pawns) from a11; a6 is covered by Red's knight.
fn mate_net() -> Game {
    game_with(
        Mode::Teams,
        Seat::Yellow,
        &[
            ("h1", "rK"),
            ("a7", "bK"),
            ("g14", "yK"),
            ("n8", "gK"),
            ("b6", "bP"),
            ("b7", "bP"),
            ("b8", "bP"),
            ("c5", "rN"),
            ("d11", "yR"),
            ("n11", "gR"),
        ],
    )
}

#[test]
fn f11_teams_mate_is_judged_on_the_mated_players_turn() {
    let mut game = mate_net();
    play(&mut game, &["d11-a11"]);
    assert!(
        game.outcome().is_none(),
        "not judged yet: Green may still help"
    );
    play(&mut game, &["n8-n9", "h1-h2"]);
    let outcome = game.outcome().expect("Blue is mated on its turn");
    assert_eq!(outcome.reason, EndReason::Checkmate { seat: Seat::Blue });
    let mut winners = outcome.winners();
    winners.sort();
    assert_eq!(winners, vec![Seat::Red, Seat::Yellow]);
    assert_eq!(game.to_act(), None);
}

#[test]
fn f11_the_partner_may_save_the_king_first() {
    let mut game = mate_net();
    play(&mut game, &["d11-a11", "n11-a11", "h1-h2"]);
    assert!(game.outcome().is_none());
    assert_eq!(game.to_act(), Some(Seat::Blue));
    assert!(!game.legal_moves().is_empty());
}

#[test]
fn f12_an_earlier_opponent_captures_the_king_and_wins() {
    // Blue's king stands attacked by Red's knight; Yellow and Green move; Red, before Blue, takes it.
    let mut game = with_kings(Mode::Teams, Seat::Yellow, &[("c6", "rN")]);
    play(&mut game, &["g14-g13", "n8-n9"]);
    assert!(game.outcome().is_none());
    let applied = game.apply(act("c6-a7")).unwrap();
    let outcome = applied.game_over.expect("king capture ends the game");
    assert_eq!(
        outcome.reason,
        EndReason::KingCaptured {
            by: Seat::Red,
            king_of: Seat::Blue
        }
    );
    assert_eq!(outcome.standings.map(|s| s.place), [1, 3, 1, 3]);
    assert_eq!(game.to_act(), None);
}

#[test]
fn f12_king_capture_works_from_the_first_move_too() {
    let mut direct = with_kings(Mode::Teams, Seat::Red, &[("c6", "rN")]);
    let applied = direct.apply(act("c6-a7")).unwrap();
    let outcome = applied.game_over.expect("king capture ends the game");
    assert_eq!(
        outcome.reason,
        EndReason::KingCaptured {
            by: Seat::Red,
            king_of: Seat::Blue
        }
    );
    assert_eq!(outcome.standings.map(|s| s.place), [1, 3, 1, 3]);
    assert_eq!(direct.to_act(), None);
}

/// Blue's king on a4 with every neighbour covered but not attacked itself, after Red's Qd8-d5.
fn stalemate_net(mode: Mode) -> Game {
    let mut game = game_with(
        mode,
        Seat::Red,
        &[
            ("h1", "rK"),
            ("a4", "bK"),
            ("g14", "yK"),
            ("n8", "gK"),
            ("b10", "rR"),
            ("d8", "rQ"),
        ],
    );
    play(&mut game, &["d8-d5"]);
    game
}

#[test]
fn f13_teams_stalemate_is_a_draw() {
    let game = stalemate_net(Mode::Teams);
    let outcome = game.outcome().expect("Blue has no move");
    assert_eq!(outcome.reason, EndReason::Stalemate { seat: Seat::Blue });
    assert!(outcome.winners().is_empty());
    assert_eq!(outcome.standings.map(|s| s.place), [1, 1, 1, 1]);
}

#[test]
fn f14_teams_resignation_loses_for_the_team_at_any_time() {
    let mut game = Game::new(Options::default(), Seat::Red).unwrap();
    let applied = game.apply(Action::Resign { seat: Seat::Green }).unwrap();
    let outcome = applied.game_over.unwrap();
    assert_eq!(outcome.reason, EndReason::Resignation { seat: Seat::Green });
    assert_eq!(outcome.standings.map(|s| s.place), [1, 3, 1, 3]);
    assert_eq!(game.apply(act("h2-h3")).unwrap_err().code(), "game_over");
}

#[test]
fn f15_ffa_every_other_player_is_an_opponent() {
    let game = with_kings(Mode::Ffa, Seat::Red, &[("d4", "rR"), ("d9", "yP")]);
    assert!(moves_from(&game, "d4").contains(&"d4-d9".to_owned()));
}

#[test]
fn f16_ffa_mate_is_immediate_scores_20_and_eliminates() {
    let mut game = game_with(
        Mode::Ffa,
        Seat::Red,
        &[
            ("h1", "rK"),
            ("a4", "bK"),
            ("g14", "yK"),
            ("n8", "gK"),
            ("b10", "rR"),
            ("d7", "rQ"),
            ("k10", "bN"),
        ],
    );
    // Blue's knight on k10 cannot help. Qd7-a7 mates at once.
    let applied = game.apply(act("d7-a7")).unwrap();
    let report = applied.report.unwrap();
    assert_eq!(report.mated, vec![Seat::Blue]);
    assert_eq!(report.points, 20);
    assert_eq!(game.points()[Seat::Red.index()], 20);
    assert!(game.is_out(Seat::Blue));
    assert_eq!(game.to_act(), Some(Seat::Yellow), "Blue's turn is skipped");
    assert_eq!(
        game.position().piece_at(sq("a4")),
        Some(Piece::new(Owner::Grey, Kind::King))
    );
    assert_eq!(
        game.position().piece_at(sq("k10")),
        Some(Piece::new(Owner::Grey, Kind::Knight))
    );
}

#[test]
fn f17_ffa_king_capture_scores_20_and_must_be_legal() {
    let mut game = with_kings(Mode::Ffa, Seat::Blue, &[("g5", "bR")]);
    let applied = game.apply(act("g5-g14")).unwrap();
    assert_eq!(applied.report.as_ref().unwrap().points, 20);
    assert!(game.is_out(Seat::Yellow));
    assert_eq!(applied.eliminations[0].seat, Seat::Yellow);
    assert_eq!(game.to_act(), Some(Seat::Green));
    // A pinned rook may not take the king in FFA; in Teams it may.
    let pieces = [
        ("h1", "rK"),
        ("a7", "bK"),
        ("c11", "yK"),
        ("n8", "gK"),
        ("c7", "bR"),
        ("f7", "rR"),
    ];
    let ffa = game_with(Mode::Ffa, Seat::Blue, &pieces);
    assert!(!moves_from(&ffa, "c7").contains(&"c7-c11".to_owned()));
    let teams = game_with(Mode::Teams, Seat::Blue, &pieces);
    assert!(moves_from(&teams, "c7").contains(&"c7-c11".to_owned()));
}

#[test]
fn f18_grey_pieces_never_move_never_attack_block_and_are_free_to_take() {
    let mut game = with_kings(
        Mode::Ffa,
        Seat::Red,
        &[("h3", "dQ"), ("d4", "rR"), ("d9", "dR"), ("d12", "bR")],
    );
    assert!(
        moves_from(&game, "h1").contains(&"h1-h2".to_owned()),
        "a grey queen attacks nothing"
    );
    let rook = moves_from(&game, "d4");
    assert!(
        rook.contains(&"d4-d9".to_owned()) && !rook.contains(&"d4-d10".to_owned()),
        "grey blocks"
    );
    let applied = game.apply(act("d4-d9")).unwrap();
    assert_eq!(applied.report.unwrap().captures[0].points, 0);
    assert_eq!(game.points(), [0, 0, 0, 0]);
}

#[test]
fn f19_capture_points_follow_the_table() {
    for (token, points) in [
        ("bP", 1),
        ("bN", 3),
        ("bB", 5),
        ("bR", 5),
        ("bQ", 9),
        ("bD", 1),
        ("dN", 0),
    ] {
        let mut game = with_kings(Mode::Ffa, Seat::Red, &[("d4", "rR"), ("d9", token)]);
        let applied = game.apply(act("d4-d9")).unwrap();
        assert_eq!(applied.report.unwrap().points, points, "{token}");
    }
}

#[test]
fn f19_check_bonuses_for_two_and_three_kings() {
    let three = [("e1", "rK"), ("a7", "bK"), ("h14", "yK"), ("n7", "gK")];
    let two = [("e1", "rK"), ("a7", "bK"), ("g14", "yK"), ("n7", "gK")];
    type Case<'a> = (&'a [(&'a str, &'a str)], (&'a str, &'a str), &'a str, u32);
    let cases: [Case; 4] = [
        (&three, ("h3", "rR"), "h3-h7", 20),
        (&three, ("d3", "rQ"), "d3-h7", 5),
        (&two, ("h3", "rR"), "h3-h7", 5),
        (&two, ("d3", "rQ"), "d3-h7", 1),
    ];
    for (kings, mover, mv, bonus) in cases {
        let mut pieces = kings.to_vec();
        pieces.push(mover);
        let mut game = game_with(Mode::Ffa, Seat::Red, &pieces);
        let report = game.apply(act(mv)).unwrap().report.unwrap();
        assert_eq!(report.check_bonus, bonus, "{mover:?} {mv}");
        assert_eq!(report.points, bonus);
        assert!(report.mated.is_empty());
    }
    // A one-point queen counts as a queen; Teams has no bonus.
    let mut d = three.to_vec();
    d.push(("d3", "rD"));
    let mut game = game_with(Mode::Ffa, Seat::Red, &d);
    assert_eq!(
        game.apply(act("d3-h7"))
            .unwrap()
            .report
            .unwrap()
            .check_bonus,
        5
    );
    let mut teams = game_with(
        Mode::Teams,
        Seat::Red,
        &[&three[..], &[("h3", "rR")]].concat(),
    );
    assert_eq!(
        teams
            .apply(act("h3-h7"))
            .unwrap()
            .report
            .unwrap()
            .check_bonus,
        0
    );
}

#[test]
fn f20_ffa_stalemate_scores_20_and_eliminates() {
    let game = stalemate_net(Mode::Ffa);
    assert!(game.outcome().is_none());
    assert!(game.is_out(Seat::Blue));
    assert_eq!(game.points(), [0, 20, 0, 0]);
    assert_eq!(game.to_act(), Some(Seat::Yellow));
    let record = game.record();
    let last = record.last().unwrap();
    assert_eq!(last.eliminations[0].seat, Seat::Blue);
}

#[test]
fn f21_ffa_resignation_is_out_without_points() {
    let mut game = Game::new(
        Options {
            mode: Mode::Ffa,
            ..Options::default()
        },
        Seat::Red,
    )
    .unwrap();
    play(&mut game, &["h2-h3"]);
    game.apply(Action::Resign { seat: Seat::Blue }).unwrap();
    assert!(game.is_out(Seat::Blue));
    assert_eq!(game.to_act(), Some(Seat::Yellow));
    assert_eq!(game.points(), [0, 0, 0, 0]);
    assert_eq!(
        game.position().piece_at(sq("a7")),
        Some(Piece::new(Owner::Grey, Kind::King))
    );
    assert_eq!(
        game.apply(Action::Resign { seat: Seat::Blue })
            .unwrap_err()
            .code(),
        "seat_out"
    );
    // Out of turn: Green resigns while Yellow is to move.
    game.apply(Action::Resign { seat: Seat::Green }).unwrap();
    assert_eq!(game.to_act(), Some(Seat::Yellow));
}

#[test]
fn f22_ffa_ends_with_three_out_or_a_21_point_lead() {
    // Blue and Green out; Red 30, Yellow 10: a pawn capture makes the gap 21.
    let mut game = ffa_from_fen4(TWO_LEFT);
    assert!(game.outcome().is_none());
    let applied = game.apply(act("g5-g6")).unwrap();
    let outcome = applied.game_over.expect("21 ahead with two left");
    assert_eq!(outcome.reason, EndReason::PointsLead { leader: Seat::Red });
    assert_eq!(
        outcome.standings.map(|s| s.place),
        [1, 3, 2, 3],
        "shared places by points"
    );
    // Three out.
    let mut three = ffa_from_fen4(TWO_LEFT);
    play(&mut three, &["h1-h2"]);
    let applied = three.apply(Action::Resign { seat: Seat::Yellow }).unwrap();
    assert_eq!(
        applied.game_over.unwrap().reason,
        EndReason::ThreePlayersOut
    );
}

/// Every seat moves a knight out and back twice: the start position comes back a third time at ply 16.
const KNIGHT_DANCE: [&str; 8] = [
    "j1-i3", "a10-c9", "j14-i12", "n10-l9", "i3-j1", "c9-a10", "i12-j14", "l9-n10",
];

#[test]
fn f23_threefold_repetition_ends_the_game() {
    for mode in [Mode::Teams, Mode::Ffa] {
        let mut game = Game::new(
            Options {
                mode,
                ..Options::default()
            },
            Seat::Red,
        )
        .unwrap();
        play(&mut game, &KNIGHT_DANCE);
        play(&mut game, &KNIGHT_DANCE[..7]);
        assert!(
            game.outcome().is_none(),
            "the start position has occurred twice"
        );
        let applied = game.apply(act(KNIGHT_DANCE[7])).unwrap();
        let outcome = applied.game_over.expect("third occurrence");
        assert_eq!(outcome.reason, EndReason::Repetition);
        match mode {
            Mode::Teams => assert_eq!(outcome.standings.map(|s| s.place), [1, 1, 1, 1]),
            Mode::Ffa => assert_eq!(
                outcome.standings.map(|s| s.points),
                [10, 10, 10, 10],
                "F.25"
            ),
        }
    }
}

#[test]
fn f23_the_position_key_includes_en_passant_and_castling_rights() {
    let start = Setup::start(Mode::Teams, Seat::Red);
    let mut game = Game::new(Options::default(), Seat::Red).unwrap();
    play(&mut game, &["d2-d4"]);
    let with_entry = game.position().key();
    let fen_without = game.fen4().replace("-{'enPassant':('d3:d4','','','')}", "");
    let without = parse_fen4(&fen_without, Mode::Teams).unwrap();
    assert_ne!(with_entry, without.position.key());
    let no_rights = parse_fen4(
        &start.to_fen4().replacen("-1,1,1,1-", "-1,1,1,0-", 1),
        Mode::Teams,
    )
    .unwrap();
    assert_ne!(no_rights.position.key(), start.position.key());
    let blue_first = Setup::start(Mode::Teams, Seat::Blue);
    assert_ne!(
        blue_first.position.key(),
        start.position.key(),
        "side to move"
    );
}

#[test]
fn f24_fifty_moves_each_with_the_players_still_moving() {
    // Four players: the clock ends the game at 200.
    let start =
        Setup::start(Mode::Teams, Seat::Red)
            .to_fen4()
            .replacen("-0,0,0,0-0-", "-0,0,0,0-198-", 1);
    let mut game = Game::from_fen4(Options::default(), &start).unwrap();
    play(&mut game, &["j1-i3"]);
    assert!(game.outcome().is_none());
    let applied = game.apply(act("a10-c9")).unwrap();
    assert_eq!(applied.game_over.unwrap().reason, EndReason::FiftyMoves);
    // A pawn move resets the clock.
    let mut reset = Game::from_fen4(Options::default(), &start).unwrap();
    play(&mut reset, &["h2-h3", "a10-c9"]);
    assert!(reset.outcome().is_none());
    // Three players still moving (FFA, Blue out): 150 plies; F.25 gives +10 to the three.
    let mut ffa = ffa_from_fen4(THREE_LEFT);
    play(&mut ffa, &["g5-f7"]);
    let applied = ffa.apply(act("g14-g13")).unwrap();
    let outcome = applied.game_over.unwrap();
    assert_eq!(outcome.reason, EndReason::FiftyMoves);
    assert_eq!(outcome.standings.map(|s| s.points), [13, 4, 15, 16]);
}

#[test]
fn f25_ffa_draw_gives_ten_to_each_remaining_player() {
    let mut game = ffa_from_fen4(THREE_LEFT);
    play(&mut game, &["g5-f7", "g14-g13"]);
    let outcome = game.outcome().unwrap();
    assert_eq!(
        outcome.standings.map(|s| s.points),
        [13, 4, 15, 16],
        "Blue is out: no +10"
    );
    assert_eq!(outcome.standings.map(|s| s.place), [3, 4, 2, 1]);
}

#[test]
fn f26_move_limit_ends_teams_in_a_draw_and_ffa_by_points() {
    let teams = Options {
        move_limit: Some(4),
        ..Options::default()
    };
    let mut game = Game::new(teams, Seat::Red).unwrap();
    play(&mut game, &["h2-h3", "b7-c7", "g13-g12"]);
    assert!(game.outcome().is_none());
    play(&mut game, &["m8-l8"]);
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.reason, EndReason::MoveLimit);
    assert_eq!(outcome.standings.map(|s| s.place), [1, 1, 1, 1]);
    let ffa = Options {
        mode: Mode::Ffa,
        move_limit: Some(1),
        ..Options::default()
    };
    let mut game = with_kings(Mode::Ffa, Seat::Red, &[("d4", "rR"), ("d9", "bN")]);
    game = Game::from_fen4(ffa, &game.fen4()).unwrap();
    play(&mut game, &["d4-d9"]);
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.reason, EndReason::MoveLimit);
    assert_eq!(
        outcome.standings.map(|s| s.points),
        [3, 0, 0, 0],
        "no +10 at the move limit"
    );
    assert_eq!(outcome.standings.map(|s| s.place), [1, 2, 2, 2]);
}

#[test]
fn f27_draws_and_shared_places_sit_between_win_and_loss() {
    // A Teams draw puts everyone on place 1; for ratings a shared place scores half-way (0.5).
    let game = stalemate_net(Mode::Teams);
    let draw = game.outcome().unwrap();
    assert_eq!(draw.standings.map(|s| s.place), [1, 1, 1, 1]);
    assert_eq!(draw.score_against(Seat::Red, Seat::Blue), 0.5);
    let mut lost = Game::new(Options::default(), Seat::Red).unwrap();
    lost.apply(Action::Resign { seat: Seat::Red }).unwrap();
    let decided = lost.outcome().unwrap();
    assert_eq!(decided.standings.map(|s| s.place), [3, 1, 3, 1]);
    assert_eq!(decided.score_against(Seat::Blue, Seat::Red), 1.0);
    assert_eq!(decided.score_against(Seat::Red, Seat::Blue), 0.0);
    assert_eq!(
        decided.score_against(Seat::Blue, Seat::Green),
        0.5,
        "partners share their place"
    );
}

#[test]
fn options_defaults_wire_names_and_validation_lists_every_problem() {
    let defaults = Options::default();
    assert_eq!(defaults.mode, Mode::Teams);
    assert_eq!(defaults.move_limit, None);
    assert!(defaults.show_legal_moves && defaults.rotate_starter);
    let json = serde_json::to_value(&defaults).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"mode": "teams", "move_limit": null, "show_legal_moves": true, "rotate_starter": true})
    );
    let parsed: Options = serde_json::from_str(r#"{"mode":"ffa","move_limit":300}"#).unwrap();
    assert_eq!(parsed.mode, Mode::Ffa);
    assert_eq!(parsed.move_limit, Some(300));
    assert!(parsed.show_legal_moves);
    let zero = Options {
        move_limit: Some(0),
        ..Options::default()
    };
    assert_eq!(zero.validate().unwrap_err()[0].option, "move_limit");
    assert!(Game::new(zero, Seat::Red).is_err());
    let raw = RawOptions {
        mode: Some("chaos".into()),
        move_limit: Some(RawLimit::Plies(-3)),
        ..RawOptions::default()
    };
    let errors = raw.validate().unwrap_err();
    let named: Vec<&str> = errors.iter().map(|e| e.option).collect();
    assert_eq!(named, vec!["mode", "move_limit"]);
    let ok: RawOptions = serde_json::from_str(r#"{"mode":"ffa","move_limit":"none"}"#).unwrap();
    assert_eq!(
        ok.validate().unwrap(),
        Options {
            mode: Mode::Ffa,
            ..Options::default()
        }
    );
}

#[test]
fn illegal_actions_change_nothing_and_say_why() {
    let mut game = Game::new(Options::default(), Seat::Red).unwrap();
    let before = game.clone();
    let err = game.apply_for(Seat::Blue, act("b7-c7")).unwrap_err();
    assert_eq!(err.code(), "not_your_turn");
    let err = game
        .apply_for(Seat::Blue, Action::Resign { seat: Seat::Red })
        .unwrap_err();
    assert_eq!(err.code(), "not_your_seat", "only one's own resignation");
    assert_eq!(game.apply(act("h2-h5")).unwrap_err().code(), "illegal_move");
    assert_eq!(
        game.apply(act("b7-c7")).unwrap_err().code(),
        "illegal_move",
        "Blue's pawn on Red's turn"
    );
    assert_eq!(game, before);
}

#[test]
fn replaying_the_same_actions_gives_the_same_game() {
    let actions = ["h2-h3", "b7-c7", "g13-g12", "m8-l8", "g1-h2"];
    let build = || {
        let mut g = Game::new(
            Options {
                mode: Mode::Ffa,
                ..Options::default()
            },
            Seat::Red,
        )
        .unwrap();
        play(&mut g, &actions);
        g
    };
    assert_eq!(build(), build());
    let json = serde_json::to_string(&act("h10-h11=Q")).unwrap();
    assert_eq!(
        json,
        r#"{"type":"move","from":"h10","to":"h11","promotion":"queen"}"#
    );
    let resign: Action = serde_json::from_str(r#"{"type":"resign","seat":"blue"}"#).unwrap();
    assert_eq!(resign, Action::Resign { seat: Seat::Blue });
}
