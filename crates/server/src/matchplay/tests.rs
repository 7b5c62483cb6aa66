//! The match runner with internal levels (fast and small), plus two tiny shell-script engines that
//! misbehave: one answers an illegal move, one never answers.

use super::*;
use rules::fourchess::import_pgn4;

fn args(engines: [&str; 4], games: usize) -> MatchArgs {
    MatchArgs {
        game: MatchGame::Fourchess,
        mode: Mode::Teams,
        engines: Seat::ALL
            .iter()
            .zip(engines)
            .map(|(s, e)| format!("{}={e}", s.name()))
            .collect(),
        movetime: 20,
        margin: 400,
        games,
        seed: 3,
        book: None,
        book_plies: 4,
        move_limit: Some(48),
        concurrency: 1,
        pgn_dir: None,
        verbose: false,
    }
}

#[test]
fn internal_levels_play_rotated_games_from_the_book_and_every_game_is_written_as_pgn4() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = args(
        [
            "fourkings:easy",
            "fourkings:random",
            "fourkings:easy",
            "fourkings:random",
        ],
        8,
    );
    a.pgn_dir = Some(dir.path().to_owned());
    let (names, results) = play_match(&a).unwrap();
    assert_eq!(results.len(), 8);
    for (i, r) in results.iter().enumerate() {
        // Game i turns the table i seats: the easy pair plays both colour pairs.
        assert_eq!(
            names[r.engines[0]],
            if i % 2 == 0 {
                "fourkings:easy"
            } else {
                "fourkings:random"
            }
        );
        // Teams: partners share a result, the other team gets the complement.
        assert_eq!(r.score[0], r.score[2]);
        assert!(
            (r.score[0] + r.score[1] - 1.0).abs() < 1e-9,
            "{:?}",
            r.score
        );
        assert!(r.incidents.is_empty());
        let text = std::fs::read_to_string(dir.path().join(format!("game-{i}.pgn4"))).unwrap();
        let options = Options {
            move_limit: Some(48),
            ..Options::default()
        };
        let game = import_pgn4(&text, options).unwrap();
        assert_eq!(game.record().len(), r.plies, "game {i}");
        assert!(game.outcome().is_some());
        assert!(text.contains(&format!("[Red \"{}\"]", names[r.engines[0]])));
    }
    // Games 4..8 start from a book opening of four pawn moves, games 0..4 from the start.
    let opening = |i: usize| {
        let text = std::fs::read_to_string(dir.path().join(format!("game-{i}.pgn4"))).unwrap();
        import_pgn4(
            &text,
            Options {
                move_limit: Some(48),
                ..Options::default()
            },
        )
        .unwrap()
        .record()[..4]
            .to_vec()
    };
    assert_eq!(opening(4), opening(7));
    let table = table::render(&a, &names, &results, Duration::from_secs(1));
    assert!(
        table.contains("fourkings:easy") && table.contains("fourkings:random"),
        "{table}"
    );
}

/// A shell-script engine: answers `uci` and `isready`, and `go` with `answer` (a line, or nothing).
fn script(dir: &std::path::Path, name: &str, answer: &str) -> String {
    let go = if answer.is_empty() {
        ":".to_owned()
    } else {
        format!("echo '{answer}'")
    };
    script_doing(dir, name, &go)
}

/// A shell-script engine that runs the shell command `go` on `go`.
fn script_doing(dir: &std::path::Path, name: &str, go: &str) -> String {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            "while read -r line; do case \"$line\" in\n uci) echo uciok;;\n isready) echo readyok;;\n go*) {go};;\n quit) exit 0;;\n esac; done\n"
        ),
    )
    .unwrap();
    format!("cmd:sh {}", path.display())
}

/// One game with `red` at Red and random players at the other seats.
fn red_and_randoms(red: &str) -> MatchArgs {
    args(
        [
            red,
            "fourkings:random",
            "fourkings:random",
            "fourkings:random",
        ],
        1,
    )
}

/// [`red_and_randoms`], which Red's team is expected to lose by its forfeit: the match's arguments,
/// the engines' names and that game's result.
fn red_forfeits(red: &str) -> (MatchArgs, Vec<String>, GameResult) {
    let a = red_and_randoms(red);
    let (names, mut results) = play_match(&a).unwrap();
    let r = results.remove(0);
    assert_eq!(r.score, [0.0, 1.0, 0.0, 1.0], "Red's team loses");
    (a, names, r)
}

#[test]
fn an_illegal_bestmove_forfeits_for_that_engines_team_and_is_logged() {
    let dir = tempfile::tempdir().unwrap();
    let bad = script(dir.path(), "bad.sh", "bestmove a1-a1");
    let (_, names, r) = red_forfeits(&bad);
    assert_eq!(r.incidents, [(0, Incident::Illegal)]);
    assert_eq!(r.plies, 0);
    assert_eq!(r.end, format!("forfeit (illegal move): {}", names[0]));
}

#[test]
fn a_hung_engine_forfeits_and_is_restarted_for_the_next_game() {
    let dir = tempfile::tempdir().unwrap();
    let mute = script(dir.path(), "mute.sh", "");
    let mut a = args(
        [
            "fourkings:random",
            mute.as_str(),
            "fourkings:random",
            "fourkings:random",
        ],
        2,
    );
    a.margin = 150;
    let (_, results) = play_match(&a).unwrap();
    // Game 0: Blue hangs at its first move; game 1: it sits at Yellow and hangs again (restarted).
    assert_eq!(results[0].score, [1.0, 0.0, 1.0, 0.0]);
    assert_eq!(results[0].plies, 1);
    assert_eq!(results[1].score, [0.0, 1.0, 0.0, 1.0]);
    assert_eq!(results[1].plies, 2);
    assert!(
        results
            .iter()
            .all(|r| r.incidents == [(1, Incident::Timeout)])
    );
    assert!(results[0].end.starts_with("forfeit (timeout): "));
}

#[test]
fn an_engine_that_dies_forfeits_by_crash_and_is_restarted() {
    let dir = tempfile::tempdir().unwrap();
    let dying = script_doing(dir.path(), "dying.sh", "exit 3");
    let (a, names, r) = red_forfeits(&dying);
    assert_eq!(r.incidents, [(0, Incident::Crash)]);
    assert_eq!(r.end, format!("forfeit (crash): {}", names[0]));
    let table = table::render(&a, &names, std::slice::from_ref(&r), Duration::from_secs(1));
    assert!(
        table.contains(&format!("forfeits by crash: 1 ({})", names[0])),
        "{table}"
    );
}

/// Red to move with a rook that can take Blue's king (a7 from c7). 4pchess answers no `bestmove` in
/// such a position when its move generator meets the king capture first (it judges the game won); the
/// runner takes the king for the seat to move instead of timing it out.
#[test]
fn a_king_capture_open_to_the_seat_to_move_is_adjudicated_not_forfeited() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.txt");
    std::fs::write(
        &book,
        "fen R-0,0,0,0-0,0,0,0-0,0,0,0-0,0,0,0-0-x,x,x,yR,2,yK,3,yR,x,x,x/x,x,x,yP,yP,yP,yP,yP,yP,yP,yP,x,x,x/x,x,x,8,x,x,x/bR,bP,10,gP,gR/1,bP,10,gP,1/1,bP,10,gP,1/1,bP,10,gP,gK/bK,1,rR,9,gP,1/1,bP,10,gP,1/1,bP,10,gP,1/bR,bP,10,gP,gR/x,x,x,8,x,x,x/x,x,x,rP,rP,rP,rP,rP,rP,rP,rP,x,x,x/x,x,x,rR,3,rK,3,x,x,x\n",
    )
    .unwrap();
    let mute = script(dir.path(), "mute.sh", "");
    let mut a = red_and_randoms(&mute);
    a.book = Some(book);
    a.margin = 150;
    let (names, results) = play_match(&a).unwrap();
    let r = &results[0];
    assert_eq!(r.score, [1.0, 0.0, 1.0, 0.0], "Red's team takes the king");
    assert_eq!(r.plies, 1);
    assert_eq!(r.incidents, [(0, Incident::KingTaken)]);
    assert_eq!(r.end, format!("king captured (adjudicated): {}", names[1]));
    let table = table::render(&a, &names, &results, Duration::from_secs(1));
    assert!(
        table.contains(&format!("king capture adjudicated: 1 ({})", names[0])),
        "{table}"
    );
}

/// Teams partners share one game's result: two games, one won and one lost by the pair, are two
/// trials, not four; the interval is over the games (±69.3 points, not the seat-games' ±49.0).
#[test]
fn the_score_interval_counts_games_not_seats() {
    let a = red_and_randoms("fourkings:random");
    let names = vec!["pair".to_owned(), "other".to_owned()];
    let game = |index, score| GameResult {
        index,
        engines: [0, 1, 0, 1],
        score,
        plies: 10,
        end: "checkmate".into(),
        think: Vec::new(),
        incidents: Vec::new(),
    };
    let results = [game(0, [1.0, 0.0, 1.0, 0.0]), game(1, [0.0, 1.0, 0.0, 1.0])];
    let table = table::render(&a, &names, &results, Duration::from_secs(1));
    let line = table
        .lines()
        .find(|l| l.starts_with("pair "))
        .expect("the pair's line");
    let cells: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(&cells[1..5], ["4", "2", "50.0%", "±"], "{table}");
    assert_eq!(cells[5], "69.3", "{table}");
}
