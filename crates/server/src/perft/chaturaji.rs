//! `fourkings perft --game chaturaji`: parse the flags, build the game, print `nodes N` last.
//! The counting itself is `rules::chaturaji::perft` (see its docs for what a child state is).

use super::PerftArgs;
use anyhow::{Context, bail};
use rules::Seat;
use rules::chaturaji::{DiceKind, DiceUse, Game, Options, perft};

pub fn run(args: &PerftArgs) -> anyhow::Result<()> {
    let mut foreign = Vec::new();
    if args.fen4.is_some() {
        foreign.push("--fen4");
    }
    if args.depth.is_some() {
        foreign.push("--depth");
    }
    if args.divide {
        foreign.push("--divide");
    }
    if args.mode.is_some() {
        foreign.push("--mode");
    }
    if !foreign.is_empty() {
        bail!(
            "{} {} for four-player chess, not for chaturaji",
            foreign.join(", "),
            if foreign.len() == 1 { "is" } else { "are" }
        );
    }
    if args.dice.is_empty() {
        bail!("give at least one turn's dice with --dice A,B");
    }
    let mut options = Options::default();
    match args.dice_use.as_deref() {
        None | Some("optional") => options.dice_use = DiceUse::Optional,
        Some("forced") => options.dice_use = DiceUse::Forced,
        Some(other) => bail!("--dice-use must be optional or forced, got `{other}`"),
    }
    match args.dice_kind.as_deref() {
        None | Some("cube") => options.dice = DiceKind::Cube,
        Some("long") => options.dice = DiceKind::Long,
        Some(other) => bail!("--dice-kind must be cube or long, got `{other}`"),
    }
    for (turn, &(a, b)) in args.dice.iter().enumerate() {
        for face in [a, b] {
            if options.dice.class_of(face).is_none() {
                let faces = options.dice.faces();
                bail!(
                    "--dice #{}: {face} is not a face of the {} dice ({}-{})",
                    turn + 1,
                    options.dice.name(),
                    faces.start(),
                    faces.end()
                );
            }
        }
    }
    let game = match &args.position {
        Some(text) => Game::from_notation(options, text).context("--position")?,
        None => Game::new(options, Seat::Red)
            .map_err(|problems| anyhow::anyhow!("invalid options: {problems:?}"))?,
    };
    let turns: Vec<[u8; 2]> = args.dice.iter().map(|&(a, b)| [a, b]).collect();
    let nodes = perft(&game, &turns)?;
    println!("nodes {nodes}");
    Ok(())
}
