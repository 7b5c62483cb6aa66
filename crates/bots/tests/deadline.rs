//! The think-time cap is a hard deadline, tested without a real clock: the bots read an injected
//! clock that advances one millisecond per reading (a deterministic stand-in for a busy machine), and
//! once it says the cap has passed the bot must stop at once. The clock is read every 16 nodes, inside
//! the Monte-Carlo simulations too, so a decision overshoots its cap by at most 16 nodes of work; the
//! loaded-machine figure is measured with the arena (docs/bots.md).

use bots::{Budget, ChaturajiBot, Clock, FourChessBot, Level};
use rules::Seat;
use rules::{chaturaji, fourchess};
use std::cell::Cell;
use std::time::Duration;

/// Advances 1 ms per reading and remembers the readings after the cap had passed.
struct Ticking {
    reads: Cell<u64>,
    cap: Duration,
    late_reads: Cell<u64>,
}

impl Ticking {
    fn new(cap: Duration) -> Ticking {
        Ticking {
            reads: Cell::new(0),
            cap,
            late_reads: Cell::new(0),
        }
    }
}

impl Clock for Ticking {
    fn elapsed(&self) -> Duration {
        let now = Duration::from_millis(self.reads.get());
        if now > self.cap {
            self.late_reads.set(self.late_reads.get() + 1);
        }
        self.reads.set(self.reads.get() + 1);
        now
    }
}

const CAP: Duration = Duration::from_millis(40);

#[test]
fn chaturaji_levels_stop_at_the_first_reading_past_their_cap() {
    let mut game = chaturaji::Game::new(chaturaji::Options::default(), Seat::Red).unwrap();
    game.apply(chaturaji::Action::Roll { dice: [1, 3] })
        .unwrap();
    for level in [Level::Greedy, Level::Easy, Level::Medium, Level::Hard] {
        let clock = Ticking::new(CAP);
        let budget = Budget::nodes(u64::MAX).with_time(CAP);
        let choice = ChaturajiBot::new(level)
            .choose(&game, Seat::Red, budget, 1, &clock)
            .unwrap();
        assert!(!choice.actions.is_empty(), "{level}");
        assert_eq!(
            clock.late_reads.get(),
            0,
            "{level} read the clock again after its cap"
        );
        if level == Level::Hard {
            // Hard's simulations never end by themselves: only the deadline stopped them.
            assert!(choice.timed_out, "{level}");
            assert_eq!(clock.reads.get(), CAP.as_millis() as u64 + 1, "{level}");
        }
    }
}

#[test]
fn fourchess_levels_stop_at_the_first_reading_past_their_cap() {
    let game = fourchess::Game::new(fourchess::Options::default(), Seat::Red).unwrap();
    for level in [Level::Easy, Level::Medium, Level::Hard] {
        let clock = Ticking::new(CAP);
        let budget = Budget::nodes(u64::MAX).with_time(CAP);
        let choice = FourChessBot::new(level)
            .choose(&game, Seat::Red, budget, 1, &clock)
            .unwrap();
        assert_eq!(choice.actions.len(), 1);
        assert_eq!(
            clock.late_reads.get(),
            0,
            "{level} read the clock again after its cap"
        );
        if level == Level::Hard {
            assert!(choice.timed_out, "{level}");
        }
    }
}
