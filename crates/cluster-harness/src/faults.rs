//! The faults a cluster run injects, and when: each at a random moment (from the run's seed) inside its
//! own slot of the run, so that one fault's failover is over before the next begins.

use std::time::Duration;

use rand::Rng;
use rand::seq::SliceRandom;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// `kill -9` of a node that owns rooms, restarted at once as a new incarnation.
    Kill9,
    /// SIGSTOP of an owner for twice the lease, then SIGCONT: it must find itself fenced.
    Stop,
    /// SIGTERM (graceful drain: leases released), then restarted.
    Drain,
    /// The node's whole network cut (its namespace's links down) for twice the lease.
    NetCut,
    /// Only the node's link to the database cut, for twice the lease.
    DbCut,
}

impl Fault {
    pub const ALL: [Fault; 5] = [
        Fault::Kill9,
        Fault::Stop,
        Fault::Drain,
        Fault::NetCut,
        Fault::DbCut,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Fault::Kill9 => "kill9",
            Fault::Stop => "stop",
            Fault::Drain => "drain",
            Fault::NetCut => "netcut",
            Fault::DbCut => "dbcut",
        }
    }

    /// Needs the nodes in network namespaces (root).
    pub fn needs_netns(self) -> bool {
        matches!(self, Fault::NetCut | Fault::DbCut)
    }

    pub fn parse_list(list: &str) -> anyhow::Result<Vec<Fault>> {
        list.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                Fault::ALL
                    .into_iter()
                    .find(|f| f.name() == s)
                    .ok_or_else(|| {
                        anyhow::anyhow!("unknown fault `{s}` (kill9, stop, drain, netcut, dbcut)")
                    })
            })
            .collect()
    }
}

/// When each fault starts, from the beginning of play. The run is `warmup`, then one slot per fault,
/// then `tail`; a fault starts in the first 40% of its slot, and its slot must hold `needs` (the
/// fault itself plus the failover after it).
pub fn schedule(
    faults: &[Fault],
    run: Duration,
    warmup: Duration,
    tail: Duration,
    needs: Duration,
    rng: &mut impl Rng,
) -> anyhow::Result<Vec<(Duration, Fault)>> {
    let mut order = faults.to_vec();
    order.shuffle(rng);
    if order.is_empty() {
        return Ok(Vec::new());
    }
    let room = run.saturating_sub(warmup + tail);
    let slot = room / order.len() as u32;
    anyhow::ensure!(
        slot.mul_f64(0.6) >= needs,
        "{} s is too short for {} faults: each needs a slot of at least {:.1} s (lease and recovery), \
         after {} s of warm-up and before {} s of tail",
        run.as_secs(),
        order.len(),
        needs.as_secs_f64() / 0.6,
        warmup.as_secs(),
        tail.as_secs()
    );
    Ok(order
        .into_iter()
        .enumerate()
        .map(|(i, fault)| {
            let jitter = slot.mul_f64(rng.random_range(0.0..0.4));
            (warmup + slot * i as u32 + jitter, fault)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    use super::*;

    #[test]
    fn lists_parse_and_unknown_names_are_refused() {
        assert_eq!(
            Fault::parse_list("kill9, stop,drain").unwrap(),
            vec![Fault::Kill9, Fault::Stop, Fault::Drain]
        );
        assert!(Fault::parse_list("kill9,reboot").is_err());
    }

    #[test]
    fn faults_fall_in_their_own_slots_and_follow_the_seed() {
        let faults = [Fault::Kill9, Fault::Stop, Fault::Drain];
        let s = Duration::from_secs;
        let plan = |seed| {
            schedule(
                &faults,
                s(65),
                s(5),
                s(15),
                s(6),
                &mut StdRng::seed_from_u64(seed),
            )
            .unwrap()
        };
        let a = plan(7);
        assert_eq!(a, plan(7));
        assert_eq!(a.len(), 3);
        // Slots of 15 s from 5 s; each fault in the first 40% of its own slot.
        for (i, (at, _)) in a.iter().enumerate() {
            let start = s(5) + s(15) * i as u32;
            assert!(*at >= start && *at < start + s(6), "{a:?}");
        }
        let mut kinds: Vec<&str> = a.iter().map(|(_, f)| f.name()).collect();
        kinds.sort_unstable();
        assert_eq!(kinds, ["drain", "kill9", "stop"]);
    }

    #[test]
    fn a_run_too_short_for_its_faults_is_refused() {
        let s = Duration::from_secs;
        let mut rng = StdRng::seed_from_u64(1);
        assert!(
            schedule(
                &[Fault::Kill9, Fault::Stop],
                s(20),
                s(5),
                s(5),
                s(6),
                &mut rng
            )
            .is_err()
        );
    }
}
