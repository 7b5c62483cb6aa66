//! `fourkings perft --game fourchess [--mode teams|ffa] [--fen4 FEN4] --depth N [--divide]`.
//!
//! Prints `nodes N` as the last line; with `--divide`, one `move: count` line per root move before it.

use anyhow::{Context, bail};
use rules::Seat;
use rules::fourchess::{Mode, Setup, parse_fen4, perft, perft_divide};

use super::PerftArgs;

pub fn run(args: &PerftArgs) -> anyhow::Result<()> {
    let mut foreign = Vec::new();
    if !args.dice.is_empty() {
        foreign.push("--dice");
    }
    if args.dice_use.is_some() {
        foreign.push("--dice-use");
    }
    if args.dice_kind.is_some() {
        foreign.push("--dice-kind");
    }
    if args.position.is_some() {
        foreign.push("--position");
    }
    if !foreign.is_empty() {
        bail!(
            "{} only apply to chaturaji, not to fourchess",
            foreign.join(", ")
        );
    }
    let depth = args.depth.context("--depth is required")?;
    let mode: Mode = match args.mode.as_deref() {
        None => Mode::Teams,
        Some(text) => text.parse().map_err(anyhow::Error::msg)?,
    };
    let setup = match &args.fen4 {
        Some(text) => parse_fen4(text, mode).context("bad --fen4")?,
        None => Setup::start(mode, Seat::Red),
    };
    if args.divide {
        let mut total = 0;
        for (m, count) in perft_divide(&setup, depth) {
            println!("{m}: {count}");
            total += count;
        }
        println!("nodes {total}");
    } else {
        println!("nodes {}", perft(&setup, depth));
    }
    Ok(())
}
