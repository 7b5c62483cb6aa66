//! `fourkings`: the game server binary and its tool subcommands. No subcommand = `serve`.
#![forbid(unsafe_code)]

mod arena;
mod engine;
mod healthcheck;
mod matchplay;
mod perft;
mod spread;
mod verify;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// jemalloc gives freed memory back to the OS on its own (background purging), where glibc's
/// arenas kept a long-running server's peak; `server::heap` reads its statistics for /metrics.
#[cfg(feature = "jemalloc")]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Debug, Parser)]
#[command(
    name = "fourkings",
    version,
    about = "Four-player board game server: Chaturaji and four-player chess"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the game server (the default).
    Serve(ServeArgs),
    /// Count the leaves of the game tree from a position (rules exactness and speed check).
    Perft(perft::PerftArgs),
    /// Play CPU players against each other and print per-level results.
    Arena(arena::ArenaArgs),
    /// The CPU players behind a UCI-style protocol on stdin/stdout (docs/engine.md).
    Engine(engine::EngineArgs),
    /// Four engines at one four-player chess table (internal levels or programs speaking the engine
    /// protocol, such as 4pchess): games, adjudication, PGN4, a per-engine table.
    Match(matchplay::MatchArgs),
    /// Print the effective configuration (defaults, file, FOURKINGS_* variables) as TOML, secrets
    /// masked; fails listing every problem if it is invalid.
    Config(ServeArgs),
    /// Exit 0 if the server answers GET /healthz (the Docker HEALTHCHECK).
    Healthcheck(healthcheck::HealthcheckArgs),
    /// Check a finished game's record: dice commit, every throw, every action, the outcome.
    /// Exit code 0 when everything matches, 1 when the record disagrees, 2 when it cannot be read.
    Verify(verify::VerifyArgs),
}

#[derive(Debug, Args, Default)]
struct ServeArgs {
    /// A TOML file layered over config/default.toml (FOURKINGS_* variables override both).
    #[arg(long)]
    config: Option<PathBuf>,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Perft(args)) => perft::run(&args),
        Some(Command::Serve(args)) => serve(args),
        Some(Command::Arena(args)) => arena::run(&args),
        Some(Command::Engine(args)) => engine::run(&args),
        Some(Command::Match(args)) => matchplay::run(&args),
        Some(Command::Config(args)) => print_config(&args),
        Some(Command::Healthcheck(args)) => healthcheck::run(&args),
        Some(Command::Verify(args)) => std::process::exit(verify::run(&args)),
        None => serve(ServeArgs::default()),
    }
}

fn print_config(args: &ServeArgs) -> anyhow::Result<()> {
    let config = server::Config::load(args.config.as_deref())?;
    print!("{}", server::mask::masked_toml(&config)?);
    Ok(())
}

fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let config = server::Config::load(args.config.as_deref())?;
    server::logging::init(&config.log);
    // Before the runtime and the server exist: the connection ceiling is computed from this limit.
    server::fdlimit::raise_open_files();
    server::heap::start_background_purge();
    let runtime = tokio::runtime::Runtime::new()?;
    let served = runtime.block_on(async {
        let app = server::Application::build(config).await?;
        println!(
            "fourkings listening on {}: open {}/",
            app.addr(),
            app.public_url()
        );
        app.run().await?;
        anyhow::Ok(())
    });
    // A CPU player still thinking on the blocking pool must not hold the exit.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    served
}
