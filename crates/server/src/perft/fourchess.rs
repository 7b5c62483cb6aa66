//! `fourkings perft --game fourchess`.

use super::PerftArgs;

pub fn run(_args: &PerftArgs) -> anyhow::Result<()> {
    anyhow::bail!("perft for fourchess is not implemented yet")
}
