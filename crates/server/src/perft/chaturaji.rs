//! `fourkings perft --game chaturaji`.

use super::PerftArgs;

pub fn run(_args: &PerftArgs) -> anyhow::Result<()> {
    anyhow::bail!("perft for chaturaji is not implemented yet")
}
