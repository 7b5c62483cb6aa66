//! The engine protocol: the transcript in docs/engine.md replayed line by line, random input that must
//! never panic nor change the position, and the loop's answers while a search runs.

use super::*;
use bots::NoClock;
use proptest::prelude::*;
use std::sync::mpsc::channel;

/// Feeds `input` to a session, running each search at once with no clock (node budgets only), and
/// returns every output line.
fn replay(session: &mut Session, input: &str) -> Vec<String> {
    match session.handle(input) {
        Reply::Lines(lines) => lines,
        Reply::Search(search) => search.run(&NoClock),
        Reply::Quit => Vec::new(),
    }
}

/// `*` in an expected line stands for one word that varies from run to run (times, nodes per second).
fn matches(expected: &str, actual: &str) -> bool {
    let (e, a): (Vec<&str>, Vec<&str>) = (
        expected.split_whitespace().collect(),
        actual.split_whitespace().collect(),
    );
    e.len() == a.len() && e.iter().zip(&a).all(|(e, a)| *e == "*" || e == a)
}

/// The ```` ```transcript ```` blocks of docs/engine.md: `> ` lines are sent, the others expected.
fn transcripts() -> Vec<(String, Vec<String>)> {
    let doc = include_str!("../../../../docs/engine.md");
    let mut blocks = Vec::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        if let Some(options) = line.strip_prefix("```transcript") {
            let body: Vec<String> = lines
                .by_ref()
                .take_while(|l| !l.starts_with("```"))
                .map(str::to_owned)
                .collect();
            blocks.push((options.trim().to_owned(), body));
        }
    }
    blocks
}

#[test]
fn the_transcripts_in_docs_engine_md_replay_exactly() {
    let blocks = transcripts();
    assert!(blocks.len() >= 2, "docs/engine.md lost its transcripts");
    for (game, body) in blocks {
        let game = match game.as_str() {
            "chaturaji" => EngineGame::Chaturaji,
            _ => EngineGame::Fourchess,
        };
        let mut session = Session::new(game, Level::Medium, fourchess::Mode::Teams);
        let mut expected = Vec::new();
        let mut actual = Vec::new();
        for line in &body {
            if let Some(input) = line.strip_prefix("> ") {
                actual.extend(replay(&mut session, input));
            } else {
                expected.push(line.clone());
            }
        }
        assert_eq!(expected.len(), actual.len(), "{actual:#?}");
        for (e, a) in expected.iter().zip(&actual) {
            assert!(matches(e, a), "expected `{e}`, got `{a}`");
        }
    }
}

fn fen_of(session: &mut Session) -> Vec<String> {
    // The position is what `go` would search: its line at a fixed budget shows it (times left out).
    replay(session, "go nodes 300")
        .into_iter()
        .map(|l| {
            l.split_whitespace()
                .filter(|w| w.parse::<u64>().is_err())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[test]
fn bad_input_answers_an_error_and_changes_nothing() {
    let mut session = Session::new(EngineGame::Fourchess, Level::Easy, fourchess::Mode::Teams);
    replay(&mut session, "position startpos moves h2-h3 b7-c7");
    let before = fen_of(&mut session);
    for bad in [
        "position fen R-0,0,0,0-nonsense",
        "position startpos moves h2-h3 b7-c7 a1-a2",
        "position startpos moves h2-h9",
        "go movetime -5",
        "go wtime 10",
        "setoption name Level value expert",
        "setoption name Colour value red",
        "flip",
    ] {
        let out = replay(&mut session, bad);
        assert_eq!(out.len(), 1, "{bad}: {out:?}");
        assert!(out[0].starts_with("info string error "), "{bad}: {out:?}");
        assert_eq!(fen_of(&mut session), before, "{bad} changed the position");
    }
}

#[test]
fn moves_in_4pchess_notation_are_read_and_written() {
    let mut session = Session::new(EngineGame::Fourchess, Level::Easy, fourchess::Mode::Teams);
    // 4pchess writes `from-to`, `=Q` promotions, and castling as the king's move; a trailing `+` is read.
    assert!(
        replay(
            &mut session,
            "position startpos moves j2-j4 b7-c7 g13-g11 m8-l8+"
        )
        .is_empty()
    );
    let out = replay(&mut session, "go nodes 500");
    let best = out.last().unwrap().strip_prefix("bestmove ").unwrap();
    assert!(
        replay(
            &mut session,
            &format!("position startpos moves j2-j4 b7-c7 g13-g11 m8-l8 {best}")
        )
        .is_empty(),
        "{best}"
    );
}

#[test]
fn chaturaji_plans_the_whole_turn_for_the_dice_given() {
    let mut session = Session::new(EngineGame::Chaturaji, Level::Medium, fourchess::Mode::Teams);
    let out = replay(&mut session, "go dice 1,3 nodes 3000");
    let best = out
        .last()
        .unwrap()
        .strip_prefix("bestmove ")
        .unwrap()
        .to_owned();
    let moves = best.split(',').count();
    assert!((1..=3).contains(&moves), "{best}");
    assert!(replay(&mut session, &format!("position startpos moves 1,3:{best}")).is_empty());
    // Blue is to move now, awaiting its throw: a `go` without dice is refused.
    let out = replay(&mut session, "go nodes 100");
    assert!(out[0].starts_with("info string error the dice"), "{out:?}");
}

/// Lines built from the protocol's words and some junk, so that most are almost valid.
fn line_strategy() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        Just("uci".to_owned()),
        Just("isready".to_owned()),
        Just("ucinewgame".to_owned()),
        Just("position".to_owned()),
        Just("startpos".to_owned()),
        Just("fen".to_owned()),
        Just("moves".to_owned()),
        Just("go".to_owned()),
        Just("nodes".to_owned()),
        Just("movetime".to_owned()),
        Just("depth".to_owned()),
        Just("dice".to_owned()),
        Just("setoption".to_owned()),
        Just("name".to_owned()),
        Just("value".to_owned()),
        Just("Level".to_owned()),
        Just("Mode".to_owned()),
        Just("ffa".to_owned()),
        Just("hard".to_owned()),
        Just("h2-h3".to_owned()),
        Just("b7-c7".to_owned()),
        Just("1,3:b1-c3/1,end".to_owned()),
        Just("1,3".to_owned()),
        Just(crate::engine::turn::NOTHING.to_owned()),
        Just("R-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-x".to_owned()),
        "[0-9]{1,12}",
        "[a-n][0-9]{1,2}-[a-n][0-9]{1,2}(=[QRBND])?",
        "\\PC{0,12}",
    ];
    prop::collection::vec(word, 0..8).prop_map(|w| w.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    /// Random lines never panic the engine; each answer is a protocol line; an error line leaves the
    /// position as it was.
    #[test]
    fn random_lines_never_panic_nor_corrupt_the_position(
        chaturaji in any::<bool>(),
        lines in prop::collection::vec(line_strategy(), 1..12),
    ) {
        let game = if chaturaji { EngineGame::Chaturaji } else { EngineGame::Fourchess };
        let mut session = Session::new(game, Level::Easy, fourchess::Mode::Teams);
        // A clock that has always run out: every search stops within a few nodes.
        let out_of_time = || Duration::MAX;
        for line in lines {
            let before = format!("{:?}", session);
            let out = match session.handle(&line) {
                Reply::Lines(lines) => lines,
                Reply::Search(search) => search.run(&out_of_time),
                Reply::Quit => continue,
            };
            for l in &out {
                let word = l.split_whitespace().next().unwrap_or("");
                prop_assert!(
                    ["id", "option", "uciok", "readyok", "info", "bestmove"].contains(&word),
                    "`{line}` answered `{l}`"
                );
            }
            if out.iter().any(|l| l.starts_with("info string error")) {
                prop_assert_eq!(before, format!("{:?}", session), "`{}` changed the session", line);
            }
        }
    }
}

#[test]
fn the_loop_answers_isready_and_stop_while_a_search_runs() {
    let (tx, rx) = channel();
    let (out_tx, out_rx) = channel();
    let loop_tx = tx.clone();
    let session = Session::new(EngineGame::Fourchess, Level::Hard, fourchess::Mode::Teams);
    let handle = std::thread::spawn(move || {
        let mut out = |line: &str| out_tx.send(line.to_owned()).unwrap();
        serve(session, &rx, &loop_tx, &mut out);
    });
    let send = |line: &str| tx.send(Event::Line(line.into())).unwrap();
    // A search that would take 10 minutes: only `stop` ends it.
    send("go movetime 600000");
    send("isready");
    assert_eq!(out_rx.recv().unwrap(), "readyok");
    send("position startpos");
    assert!(out_rx.recv().unwrap().starts_with("info string error busy"));
    send("stop");
    let info = out_rx.recv().unwrap();
    assert!(info.starts_with("info depth "), "{info}");
    let best = out_rx.recv().unwrap();
    assert!(best.starts_with("bestmove "), "{best}");
    send("quit");
    handle.join().unwrap();
}

/// The nodes of the `info` line a search answers.
fn nodes_of(lines: &[String]) -> u64 {
    let info = lines.iter().find(|l| l.starts_with("info depth")).unwrap();
    let words: Vec<&str> = info.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "nodes").unwrap();
    words[at + 1].parse().unwrap()
}

/// Issue 21: hard keeps its transposition table from one `go` to the next, so the same search again
/// costs far fewer nodes; `ucinewgame` and a change of level start it afresh.
#[test]
fn hard_keeps_its_table_between_searches_until_a_new_game() {
    let mut session = Session::new(EngineGame::Fourchess, Level::Hard, fourchess::Mode::Teams);
    let position = "position startpos moves h2-h3 b7-c7 g13-g12 m8-l8";
    let search = |session: &mut Session| {
        replay(session, position);
        nodes_of(&replay(session, "go depth 5 nodes 5000000"))
    };
    let fresh = search(&mut session);
    let again = search(&mut session);
    assert!(
        again * 2 < fresh,
        "{again} nodes after a search, {fresh} fresh"
    );
    replay(&mut session, "ucinewgame");
    assert_eq!(search(&mut session), fresh, "after ucinewgame");
    search(&mut session);
    replay(&mut session, "setoption name Level value hard");
    assert_eq!(search(&mut session), fresh, "after a change of level");
    // Medium plays as in a room: every search from an empty table.
    replay(&mut session, "setoption name Level value medium");
    let medium = search(&mut session);
    assert_eq!(search(&mut session), medium);
}
