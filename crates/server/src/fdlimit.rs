//! How many WebSockets this process may hold. Every connection is a file descriptor; a process that
//! runs out of them fails `accept` for everyone (and the database pool, the spool and the log files
//! with it). So the server raises its soft open-file limit to the hard one at start, keeps a reserve
//! for everything that is not a client, and refuses WebSocket upgrades past the ceiling with a clear
//! 503 (`too_many_connections`) instead.

/// Descriptors kept for the listener, the database pool, the spool, logs and sockets mid-handshake.
pub const RESERVE: u64 = 64;

/// Raises the soft `RLIMIT_NOFILE` to the hard limit (best effort) and returns the soft limit now in
/// force. A process-wide change: the binary's `serve` does it once, before the server is built.
pub fn raise_open_files() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{Resource, getrlimit, setrlimit};
        let mut limit = getrlimit(Resource::Nofile);
        if let Some(hard) = limit.maximum {
            if limit.current != Some(hard) {
                limit.current = Some(hard);
                if let Err(e) = setrlimit(Resource::Nofile, limit) {
                    tracing::warn!(error = %e, "could not raise the open-file limit");
                }
            }
        }
    }
    open_files()
}

/// The soft open-file limit in force; `None` where it cannot be read.
pub fn open_files() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        // `None` from the kernel means unlimited.
        Some(
            rustix::process::getrlimit(rustix::process::Resource::Nofile)
                .current
                .unwrap_or(u64::MAX),
        )
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// The connection ceiling: `configured` when set (non-zero), else the open-file limit minus the
/// reserve and the probe reserve (the connections past the ceiling that only the probes may use),
/// at least 1; no ceiling when neither is known.
pub fn connection_ceiling(configured: u32, open_files: Option<u64>, probe_reserve: usize) -> usize {
    if configured > 0 {
        return configured as usize;
    }
    match open_files {
        Some(n) => usize::try_from(
            n.saturating_sub(RESERVE)
                .saturating_sub(probe_reserve as u64)
                .max(1),
        )
        .unwrap_or(usize::MAX),
        None => usize::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configured_ceiling_wins_over_the_file_limit() {
        assert_eq!(connection_ceiling(100, Some(20_000), 16), 100);
    }

    #[test]
    fn the_automatic_ceiling_keeps_a_reserve_below_the_file_limit() {
        assert_eq!(connection_ceiling(0, Some(20_000), 0), 19_936);
        assert_eq!(connection_ceiling(0, Some(20_000), 16), 19_920);
        assert_eq!(connection_ceiling(0, Some(100), 16), 20);
        assert_eq!(connection_ceiling(0, Some(50), 16), 1);
        assert_eq!(connection_ceiling(0, None, 16), usize::MAX);
    }

    #[test]
    fn the_soft_limit_is_raised_to_the_hard_one() {
        let now = raise_open_files().expect("readable on linux");
        let hard = rustix::process::getrlimit(rustix::process::Resource::Nofile)
            .maximum
            .unwrap_or(u64::MAX);
        assert_eq!(now, hard);
    }
}
