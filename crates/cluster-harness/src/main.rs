//! `fourkings-cluster-harness`: the fault harness of cluster mode (issue #9); see docs/cluster.md.
//! A dev tool: it runs the `fourkings` binary as separate processes and may depend on no fourkings
//! crate but `testkit` (it checks the nodes from outside, by their wire, metrics and database).
//!
//! It starts three `fourkings` nodes on a fresh PostgreSQL database, opens rooms of four seat clients
//! that connect to random nodes, injects faults at random moments (seeded), and at the end checks the
//! database's log against everything the clients were told ([`checker`]). It prints the invariants
//! (all must be 0, or the exit status is 1) and the figures: failover time, client reconnect time, and
//! the latency one redirect adds to a join.
#![forbid(unsafe_code)]

mod bot;
mod checker;
mod db;
mod faults;
mod inject;
mod netns;
mod nodes;
mod run;

use std::path::PathBuf;

use clap::Parser;

#[derive(Debug, Clone, Parser)]
#[command(
    name = "fourkings-cluster-harness",
    // The run inside the hub namespace gets the outer command line plus its own overrides.
    args_override_self = true,
    about = "Cluster fault harness: 3 nodes on a fresh PostgreSQL database, rooms of 4 seat clients, \
             faults at random moments, then the log checked against what every client was told"
)]
struct Args {
    /// The `fourkings` binary to run as the nodes.
    #[arg(long, default_value = "target/release/fourkings")]
    server_bin: PathBuf,
    /// The PostgreSQL server (no database name): the run creates its own database there.
    #[arg(long, default_value = "postgres://postgres@127.0.0.1:5432")]
    pg: String,
    #[arg(long, default_value_t = 3)]
    nodes: usize,
    /// Rooms of four seat clients each.
    #[arg(long, default_value_t = 50)]
    rooms: usize,
    /// `fourchess` (free-for-all) or `chaturaji`.
    #[arg(long, default_value = "fourchess")]
    game: String,
    /// Seconds of play (the faults are spread over them; each needs about three leases plus the
    /// clients' silence timeout).
    #[arg(long, default_value_t = 150)]
    seconds: u64,
    /// Seeds the fault moments and targets and every client's choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Faults to inject, in a random order: kill9, stop, drain, netcut, dbcut. The last two need
    /// network namespaces (root); without them they are skipped with a notice.
    #[arg(long, default_value = "kill9,stop,drain,netcut,dbcut")]
    faults: String,
    #[arg(long, default_value_t = 3000)]
    lease_ttl_ms: u64,
    #[arg(long, default_value_t = 1000)]
    renew_ms: u64,
    /// Mean think time of a seat client before it acts.
    #[arg(long, default_value_t = 150)]
    think_ms: u64,
    /// A connection with no frame at all for this long is dead (nodes ping every 500 ms).
    #[arg(long, default_value_t = 2000)]
    silence_ms: u64,
    /// Network namespaces for the nodes (needed by netcut and dbcut): `auto` uses them when running
    /// as root.
    #[arg(long, default_value = "auto")]
    netns: String,
    /// RUST_LOG of the nodes (their stderr goes to files in the run's directory).
    #[arg(long, default_value = "warn")]
    node_log: String,
    /// Keep the database and the nodes' logs even when the run passes.
    #[arg(long)]
    keep: bool,
    /// Internal: running inside this hub namespace.
    #[arg(long, hide = true)]
    inside_hub: Option<String>,
    /// Internal: the Unix socket the outer process relays to PostgreSQL.
    #[arg(long, hide = true)]
    hub_relay: Option<PathBuf>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let passed = run::run(Args::parse()).await?;
    std::process::exit(if passed { 0 } else { 1 });
}
