//! Dev tooling: clients of a running fourkings server for its end-to-end tests, the load generator
//! and the cluster fault harness. It may depend on no fourkings crate (it speaks the wire as text and
//! JSON, as a foreign client would), and only those test and tool crates may depend on it.
//!
//! [`http`] is one HTTP/1.1 request per connection, written by hand so that a test sees exactly what
//! the server sent (status, headers, body); [`rest`] builds on it the REST calls the tools make
//! (following a cluster node's redirect to the room's owner) and the rooms they open; [`percentile`]
//! is how they report latencies.

#![forbid(unsafe_code)]

pub mod http;
pub mod rest;

/// The `p` quantile (0..=1) of sorted microsecond samples, in milliseconds (nearest rank).
pub fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank_in_ms() {
        let s: Vec<u64> = (1..=100).map(|ms| ms * 1000).collect();
        assert_eq!(percentile(&s, 0.5), 51.0);
        assert_eq!(percentile(&s, 1.0), 100.0);
        assert!(percentile(&[], 0.5).is_nan());
    }
}
