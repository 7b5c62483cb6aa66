//! The heap as the allocator sees it: bytes the program holds (`allocated`, of them `thread_caches`
//! freed but parked for reuse) and bytes the allocator keeps in RAM for it (`resident`), for
//! `/metrics` and the memory benchmarks (docs/benchmarks.md).
//! Only with the `jemalloc` feature (the binary's allocator then is jemalloc); without it there are
//! no figures and the gauges are not set.

/// Heap figures in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heap {
    pub allocated: u64,
    pub resident: u64,
    /// Of `allocated`, the freed objects the threads' caches keep for their next allocations
    /// (jemalloc counts them as allocated): memory no room holds, reused by the next rooms.
    pub thread_caches: u64,
}

/// The allocator's current figures, when the allocator keeps them.
#[cfg(feature = "jemalloc")]
pub fn sample() -> Option<Heap> {
    use tikv_jemalloc_ctl::{epoch, stats};
    // jemalloc's statistics are a snapshot refreshed by advancing the epoch.
    epoch::advance().ok()?;
    Some(Heap {
        allocated: stats::allocated::read().ok()? as u64,
        resident: stats::resident::read().ok()? as u64,
        thread_caches: thread_caches().unwrap_or(0),
    })
}

/// The bytes in the threads' caches: jemalloc publishes them only per arena (`tcache_bytes`), behind
/// its raw interface (an `unsafe` call in the control crate); its statistics report, which is safe to
/// ask for, carries the merged figure. Asked without the per-size-class tables, about 26 KB of JSON.
#[cfg(feature = "jemalloc")]
fn thread_caches() -> Option<u64> {
    use tikv_jemalloc_ctl::stats_print::{Options, stats_print};
    let mut report = Vec::with_capacity(16 * 1024);
    let mut options = Options::default();
    options.json_format = true;
    options.skip_constants = true;
    options.skip_per_arena = true;
    options.skip_bin_size_classes = true;
    options.skip_large_size_classes = true;
    options.skip_mutex_statistics = true;
    stats_print(&mut report, options).ok()?;
    let report: serde_json::Value = serde_json::from_slice(&report).ok()?;
    report["jemalloc"]["stats.arenas"]["merged"]["tcache_bytes"].as_u64()
}

#[cfg(not(feature = "jemalloc"))]
pub fn sample() -> Option<Heap> {
    None
}

/// Ask jemalloc to purge unused pages from a background thread instead of only when the program
/// next allocates: an idle server returns memory too. Best effort.
pub fn start_background_purge() {
    #[cfg(feature = "jemalloc")]
    if let Err(e) = tikv_jemalloc_ctl::background_thread::write(true) {
        tracing::debug!(error = %e, "jemalloc background purging is not available");
    }
}

#[cfg(all(test, feature = "jemalloc"))]
mod tests {
    /// The figure is read from jemalloc's report by its JSON path: a jemalloc whose report moved it
    /// would leave the gauge at 0 without this test.
    #[test]
    fn jemalloc_reports_its_thread_caches() {
        super::thread_caches().expect("tcache_bytes in jemalloc's statistics report");
    }
}
