//! Perft (spec section 8 and 7b): the spec's tables (depth 5 here, deeper in the benchmark) and small
//! positions counted by hand for castling, promotion, en passant, king capture and the FFA differences.

use rules::Seat;
use rules::fourchess::{Mode, Setup, parse_fen4, perft, perft_divide};

const CASTLING: &str = "R-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-x,x,x,yR,2,yK,3,yR,x,x,x/x,x,x,yP,yP,yP,yP,yP,yP,yP,yP,x,x,x/x,x,x,8,x,x,x/bR,bP,10,gP,gR/1,bP,10,gP,1/1,bP,10,gP,1/1,bP,10,gP,gK/bK,bP,10,gP,1/1,bP,10,gP,1/1,bP,10,gP,1/bR,bP,10,gP,gR/x,x,x,8,x,x,x/x,x,x,rP,rP,rP,rP,rP,rP,rP,rP,x,x,x/x,x,x,rR,3,rK,2,rR,x,x,x";

const KINGS: [(&str, &str); 4] = [("h1", "rK"), ("a7", "bK"), ("g14", "yK"), ("n8", "gK")];

fn with_kings(mode: Mode, to_move: Seat, extra: &[(&str, &str)]) -> Setup {
    let mut pieces = KINGS.to_vec();
    pieces.extend_from_slice(extra);
    Setup::from_pieces(mode, to_move, &pieces).unwrap()
}

fn divide_of(setup: &Setup, depth: u32, mv: &str) -> u64 {
    perft_divide(setup, depth)
        .into_iter()
        .find(|(m, _)| m.to_string() == mv)
        .unwrap_or_else(|| panic!("{mv} is not a root move"))
        .1
}

#[test]
fn perft_start_position_teams_to_depth_5() {
    let start = Setup::start(Mode::Teams, Seat::Red);
    let expected = [1, 20, 395, 7_800, 152_050, 3_452_310];
    for (depth, nodes) in expected.into_iter().enumerate() {
        assert_eq!(perft(&start, depth as u32), nodes, "depth {depth}");
    }
}

#[test]
fn f7_perft_castling_position_to_depth_4() {
    let setup = parse_fen4(CASTLING, Mode::Teams).unwrap();
    for (depth, nodes) in [(1, 25), (2, 624), (3, 15_575), (4, 388_127)] {
        assert_eq!(perft(&setup, depth), nodes, "depth {depth}");
    }
}

#[test]
fn perft_divide_sums_to_perft() {
    let start = Setup::start(Mode::Teams, Seat::Red);
    let divide = perft_divide(&start, 3);
    assert_eq!(divide.len(), 20);
    assert_eq!(divide.iter().map(|(_, n)| n).sum::<u64>(), 7_800);
    // The spec's note on depth 2: d2-d4 blocks Blue's b4-d4 (19 replies); after f2-f3 or f2-f4 the
    // queen on g1 pins Blue's b6 pawn, which loses both its moves (18). 17 * 20 + 19 + 18 + 18 = 395.
    let at_2: Vec<(String, u64)> = perft_divide(&start, 2)
        .into_iter()
        .map(|(m, n)| (m.to_string(), n))
        .collect();
    for (m, n) in &at_2 {
        let expected = match m.as_str() {
            "d2-d4" => 19,
            "f2-f3" | "f2-f4" => 18,
            _ => 20,
        };
        assert_eq!(*n, expected, "{m}");
    }
}

#[test]
fn f6_perft_counts_en_passant() {
    // Red has just played d2-d4; Blue's c4 pawn may take on d3. Blue: 5 king moves + c4xd3 = 6, then
    // Yellow's lone king has 5 moves after each.
    let fen = with_kings(Mode::Teams, Seat::Blue, &[("d4", "rP"), ("c4", "bP")])
        .to_fen4()
        .replacen("-0-", "-0-{'enPassant':('d3:d4','','','')}-", 1);
    let setup = parse_fen4(&fen, Mode::Teams).unwrap();
    assert_eq!(perft(&setup, 1), 6);
    assert_eq!(perft(&setup, 2), 30);
    assert_eq!(divide_of(&setup, 1, "c4-d3"), 1);
    // Without the entry there is no capture at all.
    let plain = with_kings(Mode::Teams, Seat::Blue, &[("d4", "rP"), ("c4", "bP")]);
    assert_eq!(perft(&plain, 1), 5);
}

#[test]
fn f8_perft_counts_promotions() {
    // Teams: 5 king moves + 4 promotions; FFA: 5 + 1 one-point queen.
    assert_eq!(
        perft(&with_kings(Mode::Teams, Seat::Red, &[("e10", "rP")]), 1),
        9
    );
    assert_eq!(
        perft(&with_kings(Mode::Ffa, Seat::Red, &[("e7", "rP")]), 1),
        6
    );
    // Blue promotes on file k (Teams): j5-k5 gives four moves.
    assert_eq!(
        perft(&with_kings(Mode::Teams, Seat::Blue, &[("j5", "bP")]), 1),
        9
    );
}

#[test]
fn f10_f15_perft_differs_between_teams_and_ffa() {
    // Yellow's queen on h3: harmless to Red in Teams (5 king moves), a check in FFA (g1, i1 only).
    assert_eq!(
        perft(&with_kings(Mode::Teams, Seat::Red, &[("h3", "yQ")]), 1),
        5
    );
    assert_eq!(
        perft(&with_kings(Mode::Ffa, Seat::Red, &[("h3", "yQ")]), 1),
        2
    );
}

#[test]
fn f12_perft_a_king_capture_ends_its_line() {
    // Red's knight on c6 can take Blue's king: that line counts at depth 1 and never continues.
    let setup = with_kings(Mode::Teams, Seat::Red, &[("c6", "rN")]);
    assert_eq!(divide_of(&setup, 1, "c6-a7"), 1);
    assert_eq!(divide_of(&setup, 2, "c6-a7"), 0);
    assert_eq!(divide_of(&setup, 3, "c6-a7"), 0);
}

#[test]
fn f16_perft_ffa_mate_eliminates_and_play_goes_on() {
    let pieces = [
        ("h1", "rK"),
        ("a4", "bK"),
        ("g14", "yK"),
        ("n8", "gK"),
        ("b10", "rR"),
        ("d7", "rQ"),
    ];
    // Teams: Qd7-a7 leaves Blue mated on its turn: the game is over, nothing below.
    let teams = Setup::from_pieces(Mode::Teams, Seat::Red, &pieces).unwrap();
    assert_eq!(divide_of(&teams, 2, "d7-a7"), 0);
    // FFA: Blue is out at once and Yellow moves: f14, f13, h13 (g13 and h14 are on the queen's diagonal).
    let ffa = Setup::from_pieces(Mode::Ffa, Seat::Red, &pieces).unwrap();
    assert_eq!(divide_of(&ffa, 2, "d7-a7"), 3);
}

#[test]
fn f13_f20_perft_stalemate_ends_teams_but_not_ffa() {
    let pieces = [
        ("h1", "rK"),
        ("a4", "bK"),
        ("g14", "yK"),
        ("n8", "gK"),
        ("b10", "rR"),
        ("d8", "rQ"),
    ];
    let teams = Setup::from_pieces(Mode::Teams, Seat::Red, &pieces).unwrap();
    assert_eq!(divide_of(&teams, 2, "d8-d5"), 0);
    let ffa = Setup::from_pieces(Mode::Ffa, Seat::Red, &pieces).unwrap();
    assert_eq!(
        divide_of(&ffa, 2, "d8-d5"),
        5,
        "Blue is skipped; Yellow's king has 5 moves"
    );
}

#[test]
fn f22_perft_a_finished_ffa_game_has_no_continuation() {
    // Blue and Green out; Red 30, Yellow 10. g5xg6 wins the 21-point gap: nothing below it.
    let fen = "R-0,1,0,1-0,0,0,0-0,0,0,0-30,0,10,0-0-x,x,x,3,yK,4,x,x,x/x,x,x,8,x,x,x/x,x,x,8,x,x,x/14/14/14/dK,13/14/6,yP,7/6,rR,7/14/x,x,x,8,x,x,x/x,x,x,8,x,x,x/x,x,x,4,rK,3,x,x,x";
    let setup = parse_fen4(fen, Mode::Ffa).unwrap();
    assert_eq!(divide_of(&setup, 2, "g5-g6"), 0);
    // A quiet rook move leaves Yellow to move: the rook on f5 covers f13 and f14, so the king has h14,
    // g13, h13; the pawn has g6-g5 and g6xf5.
    assert_eq!(divide_of(&setup, 2, "g5-f5"), 5);
}
