//! Texel-style tuning data for hard's Teams evaluation (issue 21; docs/bots.md, session 26).
//!
//! `texel positions <pgn4 files…>`: quiet positions of finished games, one FEN4 per line (the mover
//! not in check, neither the move before nor the move played from it a capture).
//! `texel features < fen4<TAB>score lines`: the fitted evaluation's terms of each position
//! (`bots::fourchess::fitted::visit`, Red-Yellow minus Blue-Green) as CSV: `score,x0,x1,…`.

use bots::fourchess::fitted;
use rules::Seat;
use rules::fourchess::{Game, Mode, Options, import_pgn4};
use std::io::{BufRead, Write};

fn options() -> Options {
    Options {
        mode: Mode::Teams,
        ..Options::default()
    }
}

fn positions(paths: &[String]) {
    let mut out = std::io::stdout().lock();
    for path in paths {
        let text = std::fs::read_to_string(path).expect("read pgn4");
        let Ok(game) = import_pgn4(&text, options()) else {
            eprintln!("skipped {path}");
            continue;
        };
        let mut replay = Game::from_setup(options(), game.start().clone()).expect("start");
        let mut previous_capture = true;
        for applied in game.record() {
            let capture = applied
                .report
                .as_ref()
                .is_some_and(|r| !r.captures.is_empty());
            let quiet = !previous_capture
                && !capture
                && replay.to_act().is_some_and(|s| !replay.in_check(s));
            if quiet {
                writeln!(out, "{}", replay.fen4()).expect("write");
            }
            previous_capture = capture;
            replay.apply(applied.action).expect("replay");
        }
    }
}

fn features() {
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("read");
        let Some((fen, score)) = line.split_once('\t') else {
            continue;
        };
        let Ok(game) = Game::from_fen4(options(), fen) else {
            eprintln!("bad FEN4 {fen}");
            continue;
        };
        let mut x = [0i32; fitted::TERMS];
        let live = Seat::ALL.map(|s| !game.is_out(s));
        fitted::visit(game.position(), live, |i, n| x[i] += n);
        let row: Vec<String> = x.iter().map(i32::to_string).collect();
        writeln!(out, "{},{}", score.trim(), row.join(",")).expect("write");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("positions") => positions(&args[1..]),
        Some("features") => features(),
        _ => eprintln!("usage: texel positions <pgn4…> | texel features < (FEN4 TAB score) lines"),
    }
}
