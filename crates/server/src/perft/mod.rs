//! `fourkings perft`: one subcommand for both games; each game reads the flags that concern it and
//! rejects the others, so a mistyped invocation fails loudly instead of counting the wrong tree.

mod chaturaji;
mod fourchess;

use clap::{Args, ValueEnum};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GameKind {
    Chaturaji,
    Fourchess,
}

#[derive(Debug, Args)]
pub struct PerftArgs {
    /// Which game's tree to count.
    #[arg(long, value_enum)]
    pub game: GameKind,

    /// Chaturaji: the two dice faces of one turn, e.g. `--dice 1,5`; repeat for successive turns.
    #[arg(long = "dice", value_name = "A,B", value_parser = parse_dice_pair)]
    pub dice: Vec<(u8, u8)>,
    /// Chaturaji: `optional` (may end the turn early) or `forced`.
    #[arg(long, value_name = "optional|forced")]
    pub dice_use: Option<String>,
    /// Chaturaji: `cube` (faces 1-6) or `long` (faces 2-5).
    #[arg(long, value_name = "cube|long")]
    pub dice_kind: Option<String>,
    /// Chaturaji: start from this position (the crate's position notation) instead of the setup.
    #[arg(long, value_name = "TEXT")]
    pub position: Option<String>,

    /// Four-player chess: `teams` (default) or `ffa`.
    #[arg(long, value_name = "teams|ffa")]
    pub mode: Option<String>,
    /// Four-player chess: start from this chess.com FEN4 instead of the setup.
    #[arg(long, value_name = "FEN4")]
    pub fen4: Option<String>,
    /// Four-player chess: depth in plies.
    #[arg(long)]
    pub depth: Option<u32>,
    /// Four-player chess: print the count below each root move before the total.
    #[arg(long)]
    pub divide: bool,
}

fn parse_dice_pair(text: &str) -> Result<(u8, u8), String> {
    let (a, b) = text
        .split_once(',')
        .ok_or_else(|| format!("expected two faces like `1,5`, got `{text}`"))?;
    let face = |s: &str| {
        s.trim()
            .parse::<u8>()
            .map_err(|_| format!("`{s}` is not a die face"))
    };
    Ok((face(a)?, face(b)?))
}

pub fn run(args: &PerftArgs) -> anyhow::Result<()> {
    match args.game {
        GameKind::Chaturaji => chaturaji::run(args),
        GameKind::Fourchess => fourchess::run(args),
    }
}
