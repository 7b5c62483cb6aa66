//! `fourkings`: the game server binary and its tool subcommands.
#![forbid(unsafe_code)]

mod arena;
mod perft;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "fourkings",
    version,
    about = "Four-player board game server: Chaturaji and four-player chess"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Count the leaves of the game tree from a position (rules exactness and speed check).
    Perft(perft::PerftArgs),
    /// Play CPU players against each other and print per-level results.
    Arena(arena::ArenaArgs),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Perft(args) => perft::run(&args),
        Command::Arena(args) => arena::run(&args),
    }
}
