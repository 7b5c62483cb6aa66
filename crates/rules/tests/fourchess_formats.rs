//! chess.com FEN4 and PGN4 (spec section 7).

use rules::Seat;
use rules::fourchess::{
    Action, Fen4Error, Game, Kind, Mode, MoveText, Options, Owner, Pgn4Error, Piece, Setup, Square,
    export_pgn4, import_pgn4, parse_fen4,
};

const START: &str = "R-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-x,x,x,yR,yN,yB,yK,yQ,yB,yN,yR,x,x,x/x,x,x,yP,yP,yP,yP,yP,yP,yP,yP,x,x,x/x,x,x,8,x,x,x/bR,bP,10,gP,gR/bN,bP,10,gP,gN/bB,bP,10,gP,gB/bQ,bP,10,gP,gK/bK,bP,10,gP,gQ/bB,bP,10,gP,gB/bN,bP,10,gP,gN/bR,bP,10,gP,gR/x,x,x,8,x,x,x/x,x,x,rP,rP,rP,rP,rP,rP,rP,rP,x,x,x/x,x,x,rR,rN,rB,rQ,rK,rB,rN,rR,x,x,x";

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

fn act(text: &str) -> Action {
    text.parse::<MoveText>().unwrap().into()
}

#[test]
fn fen4_start_position_prints_exactly_as_in_the_spec() {
    assert_eq!(Setup::start(Mode::Teams, Seat::Red).to_fen4(), START);
    let parsed = parse_fen4(START, Mode::Teams).unwrap();
    assert_eq!(parsed, Setup::start(Mode::Teams, Seat::Red));
}

#[test]
fn fen4_reads_corners_inside_empty_runs() {
    // Rank 12 written as one run of 14 and rank 3 as 3,8,3: the same position.
    let runs = START.replacen("x,x,x,8,x,x,x/bR", "14/bR", 1).replacen(
        "x,x,x,8,x,x,x/x,x,x,rP",
        "3,8,3/x,x,x,rP",
        1,
    );
    assert_ne!(runs, START);
    let parsed = parse_fen4(&runs, Mode::Teams).unwrap();
    assert_eq!(parsed.to_fen4(), START);
}

#[test]
fn fen4_grey_pieces_one_point_queens_and_en_passant_extras() {
    let text = "B-0,0,1,0-0,1,0,0-1,0,0,0-12,3,0,7-9-{'enPassant':('','c8:d8','','')}-x,x,x,8,x,x,x/x,x,x,8,x,x,x/x,x,x,8,x,x,x/14/14/14/bK,2,bP,10/14/drN,dK,12/14/14/x,x,x,8,x,x,x/x,x,x,3,rD,4,x,x,x/x,x,x,4,rK,3,x,x,x";
    let setup = parse_fen4(text, Mode::Ffa).unwrap();
    let pos = &setup.position;
    assert_eq!(pos.to_move(), Seat::Blue);
    assert!(pos.is_eliminated(Seat::Yellow));
    assert_eq!(
        pos.piece_at(sq("a6")),
        Some(Piece::new(Owner::Grey, Kind::Knight))
    );
    assert_eq!(
        pos.piece_at(sq("g2")),
        Some(Piece::new(Owner::Seat(Seat::Red), Kind::OnePointQueen))
    );
    assert_eq!(pos.en_passant(Seat::Blue), Some((sq("c8"), sq("d8"))));
    assert!(pos.can_castle(Seat::Blue, false) && pos.can_castle(Seat::Red, true));
    assert_eq!(setup.points, [12, 3, 0, 7]);
    assert_eq!(setup.ply_clock, 9);
    // Canonical print: grey pieces lose their old colour; printing again is a fixed point.
    let printed = setup.to_fen4();
    assert!(
        printed.contains("dN,dK") && printed.contains("{'enPassant':('','c8:d8','','')}"),
        "{printed}"
    );
    assert_eq!(parse_fen4(&printed, Mode::Ffa).unwrap().to_fen4(), printed);
}

#[test]
fn fen4_rejects_malformed_text() {
    assert!(matches!(
        parse_fen4("R-0,0,0,0", Mode::Teams),
        Err(Fen4Error::FieldCount(_))
    ));
    assert!(matches!(
        parse_fen4(&START.replacen('R', "X", 1), Mode::Teams),
        Err(Fen4Error::Turn(_))
    ));
    let short_rank = START.replacen("bR,bP,10,gP,gR", "bR,bP,9,gP,gR", 1);
    assert!(matches!(
        parse_fen4(&short_rank, Mode::Teams),
        Err(Fen4Error::Rank { rank: 11, .. })
    ));
    let on_corner = START.replacen("x,x,x,8,x,x,x/bR", "rP,x,x,8,x,x,x/bR", 1);
    assert!(matches!(
        parse_fen4(&on_corner, Mode::Teams),
        Err(Fen4Error::Rank { rank: 12, .. })
    ));
    let two_kings = START.replacen("rQ", "rK", 1);
    assert!(matches!(
        parse_fen4(&two_kings, Mode::Teams),
        Err(Fen4Error::TwoKings(Seat::Red))
    ));
    assert!(matches!(
        parse_fen4(
            &START.replacen("-0-", "-0-{'enPassant':('z9','','','')}-", 1),
            Mode::Teams
        ),
        Err(Fen4Error::Extras(_))
    ));
}

fn sample_game() -> Game {
    let mut game = Game::new(Options::default(), Seat::Red).unwrap();
    for m in [
        "h2-h3", "b7-c7", "g13-g12", "m8-l8", "g1-j4", "a8-b7", "h14-e11", "n7-m8", "j4-b4",
    ] {
        game.apply(act(m)).unwrap();
    }
    game
}

#[test]
fn pgn4_export_writes_tags_and_quarter_moves() {
    let mut game = sample_game();
    game.apply(act("a4-b4")).unwrap();
    let pgn = export_pgn4(&game);
    assert!(
        pgn.starts_with("[Variant \"Teams\"]\n[StartFen4 \""),
        "{pgn}"
    );
    assert!(pgn.contains("[Result \"*\"]"));
    assert!(
        pgn.contains("1. h2-h3 .. b7-c7 .. g13-g12 .. m8-l8\n"),
        "{pgn}"
    );
    assert!(
        pgn.contains("2. Qg1-j4 .. Qa8-b7 .. Qh14-e11 .. Qn7-m8\n"),
        "{pgn}"
    );
    assert!(pgn.contains("3. Qj4xb4 .. Ra4xQb4\n"), "{pgn}");
    let back = import_pgn4(&pgn, Options::default()).unwrap();
    assert_eq!(back, game);
}

#[test]
fn pgn4_records_checks_mates_castling_and_results() {
    // Red captures Blue's king: the game ends 1-0 (Red and Yellow).
    let setup = Setup::from_pieces(
        Mode::Teams,
        Seat::Red,
        &[
            ("h1", "rK"),
            ("a7", "bK"),
            ("g14", "yK"),
            ("n8", "gK"),
            ("c6", "rN"),
        ],
    )
    .unwrap();
    let mut game = Game::from_setup(Options::default(), setup).unwrap();
    game.apply(act("c6-a7")).unwrap();
    let pgn = export_pgn4(&game);
    assert!(
        pgn.contains("[Result \"1-0\"]")
            && pgn.contains("[Termination \"Red captured Blue's king\"]"),
        "{pgn}"
    );
    assert!(pgn.contains("1. Nc6xKa7"), "{pgn}");
    assert_eq!(import_pgn4(&pgn, Options::default()).unwrap(), game);
}

#[test]
fn pgn4_import_replays_chess_com_style_movetext() {
    let text = format!(
        "[Variant \"Teams\"]\n[Site \"chess.com\"]\n[StartFen4 \"{START}\"]\n\n1. h2-h3 .. b7-c7 .. g13-g12 .. m8-l8\n2. Qg1-j4 .. Qa8-b7 .. Qh14-e11 .. Qn7-m8\n3. Qj4xb4 .. Ra4xQb4 .. R\n"
    );
    let game = import_pgn4(&text, Options::default()).unwrap();
    let outcome = game.outcome().unwrap();
    assert_eq!(
        outcome.winners(),
        vec![Seat::Blue, Seat::Green],
        "Yellow resigned"
    );
    assert_eq!(game.record().len(), 11);
}

#[test]
fn pgn4_import_rejects_an_illegal_move_with_its_number() {
    let text = "[Variant \"Teams\"]\n\n1. h2-h3 .. b7-c7 .. g13-g12 .. m8-l8\n2. h3-h5 .. b6-c6\n";
    match import_pgn4(text, Options::default()) {
        Err(Pgn4Error::IllegalMove { number, token, .. }) => {
            assert_eq!(number, 2);
            assert_eq!(token, "h3-h5");
        }
        other => panic!("expected an illegal move, got {other:?}"),
    }
    let wrong_piece = "[Variant \"Teams\"]\n\n1. Nh2-h3\n";
    assert!(matches!(
        import_pgn4(wrong_piece, Options::default()),
        Err(Pgn4Error::IllegalMove { number: 1, .. })
    ));
    assert!(matches!(
        import_pgn4("[Variant \"Chaturaji\"]\n", Options::default()),
        Err(Pgn4Error::Variant(_))
    ));
}

#[test]
fn pgn4_ffa_stalemate_resignations_and_one_point_queens_round_trip() {
    let setup = Setup::from_pieces(
        Mode::Ffa,
        Seat::Red,
        &[
            ("h1", "rK"),
            ("a4", "bK"),
            ("g14", "yK"),
            ("n8", "gK"),
            ("b10", "rR"),
            ("d8", "rQ"),
            ("e7", "rP"),
        ],
    )
    .unwrap();
    let ffa = Options {
        mode: Mode::Ffa,
        ..Options::default()
    };
    let mut game = Game::from_setup(ffa.clone(), setup).unwrap();
    game.apply(act("d8-d5")).unwrap(); // Blue stalemated: S
    game.apply(Action::Resign { seat: Seat::Green }).unwrap(); // out of turn
    game.apply(act("g14-g13")).unwrap();
    game.apply(act("e7-e8")).unwrap(); // =D
    let pgn = export_pgn4(&game);
    assert!(pgn.contains("[Variant \"FFA\"]"), "{pgn}");
    assert!(pgn.contains("Qd8-d5 .. S"), "{pgn}");
    assert!(pgn.contains("{Green resigns}"), "{pgn}");
    assert!(pgn.contains("e7-e8=D"), "{pgn}");
    assert_eq!(import_pgn4(&pgn, ffa).unwrap(), game);
}
