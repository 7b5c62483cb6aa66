//! The heap as the allocator sees it: bytes the program holds (`allocated`) and bytes the allocator
//! keeps in RAM for it (`resident`), for `/metrics` and the memory benchmarks (docs/benchmarks.md).
//! Only with the `jemalloc` feature (the binary's allocator then is jemalloc); without it there are
//! no figures and the gauges are not set.

/// Heap figures in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heap {
    pub allocated: u64,
    pub resident: u64,
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
    })
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
