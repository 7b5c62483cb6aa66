//! How much a bot may think: a node budget (deterministic) and a time cap (a safety net), read through a
//! [`Clock`] the caller provides so that the crate itself never touches the system clock.

use std::time::Duration;

/// The limits of one decision. The node budget makes a choice reproducible; the time cap only guards
/// against a slow machine and is checked every [`Meter::CHECK_EVERY`] nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub max_time: Duration,
    pub max_nodes: u64,
}

impl Budget {
    /// Only a node budget (no time cap): fully deterministic.
    pub const fn nodes(max_nodes: u64) -> Budget {
        Budget {
            max_time: Duration::MAX,
            max_nodes,
        }
    }

    /// This budget with another time cap.
    pub const fn with_time(self, max_time: Duration) -> Budget {
        Budget { max_time, ..self }
    }
}

/// Time elapsed since the decision started. The room server passes a closure over `Instant`; tests
/// pass [`NoClock`].
pub trait Clock {
    fn elapsed(&self) -> Duration;
}

/// A clock that never advances: only the node budget limits the search.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoClock;

impl Clock for NoClock {
    fn elapsed(&self) -> Duration {
        Duration::ZERO
    }
}

impl<F: Fn() -> Duration> Clock for F {
    fn elapsed(&self) -> Duration {
        self()
    }
}

/// Counts nodes against a budget and consults the clock now and then. Once out of budget it stays out,
/// so a search can unwind by checking [`Meter::out`].
pub(crate) struct Meter<'c> {
    budget: Budget,
    clock: &'c dyn Clock,
    pub(crate) nodes: u64,
    next_check: u64,
    out: bool,
    pub(crate) timed_out: bool,
}

impl<'c> Meter<'c> {
    /// Reading the clock costs far less than a node; every 16 nodes keeps the overshoot under a
    /// millisecond of computing.
    pub(crate) const CHECK_EVERY: u64 = 16;

    pub(crate) fn new(budget: Budget, clock: &'c dyn Clock) -> Meter<'c> {
        Meter {
            budget,
            clock,
            nodes: 0,
            next_check: Self::CHECK_EVERY,
            out: budget.max_nodes == 0,
            timed_out: false,
        }
    }

    /// Count one node; `true` when the budget is spent.
    #[inline]
    pub(crate) fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.budget.max_nodes {
            self.out = true;
        } else if self.nodes >= self.next_check {
            self.next_check = self.nodes + Self::CHECK_EVERY;
            self.check_clock();
        }
        self.out
    }

    fn check_clock(&mut self) {
        if self.clock.elapsed() >= self.budget.max_time {
            self.out = true;
            self.timed_out = true;
        }
    }

    #[inline]
    pub(crate) fn out(&self) -> bool {
        self.out
    }

    /// Nodes left in the node budget.
    pub(crate) fn remaining(&self) -> u64 {
        self.budget.max_nodes.saturating_sub(self.nodes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn node_budget_stops_exactly() {
        let mut meter = Meter::new(Budget::nodes(10), &NoClock);
        let spent = (0..100).take_while(|_| !meter.tick()).count();
        assert_eq!(spent, 9);
        assert!(meter.out());
        assert!(!meter.timed_out);
    }

    #[test]
    fn the_clock_cuts_a_search_short() {
        let now = Cell::new(Duration::ZERO);
        let clock = || now.get();
        let budget = Budget::nodes(1_000_000).with_time(Duration::from_millis(5));
        let mut meter = Meter::new(budget, &clock);
        for _ in 0..1000 {
            assert!(!meter.tick());
        }
        now.set(Duration::from_millis(6));
        let more = (0..10_000).take_while(|_| !meter.tick()).count();
        assert!(more < Meter::CHECK_EVERY as usize, "{more}");
        assert!(meter.timed_out);
    }
}
