//! The bounded pool of threads on which CPU players search, off the async runtime.
//!
//! Why dedicated threads: a search takes up to a second of CPU; on tokio's workers (or its blocking
//! pool, which grows without bound) it would compete with the socket I/O of every human. The pool has
//! a fixed number of threads (cores minus one by default) and two bounded queues (below), and its
//! threads run in the idle scheduling class (see [`crate::lane`]): whenever a runtime thread wakes
//! it preempts a search at once, so a human's act→event path is not delayed by bots.
//!
//! Back-pressure policy: a room never waits for the pool. When its queue is full, [`BotPool::submit`]
//! computes a greedy plan on the spot (microseconds); a queued decision that waited longer than
//! `max_wait` is answered greedily by the worker that picks it up, and a decision not answered by
//! `max_wait` plus 110% of its cap (its search starved of CPU in the idle class) is played greedily
//! by the room itself. Under overload the CPU players get weaker, never slower. Results go back
//! through a oneshot channel; the room discards a result computed for a state that has changed since
//! (see the room actor).
//!
//! Two queues, each bounded by `queue`: decisions for tables where a human sits are taken before any
//! for a table of four CPU players, so a thousand CPU-only tables neither delay nor weaken the CPU
//! opponents of a human (they only wait, and past `max_wait` play greedily themselves).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use bots::Level;
use protocol::Seat;
use tokio::sync::oneshot;

use crate::bot::{BotConfig, BotsThinker, Plan, Thinker, greedy_plan};
use crate::game::TableGame;

/// Counter: CPU decisions answered greedily under overload, by reason: `queue_full` (the pool's
/// queue was full), `waited` (it waited past `max_wait`), `late` (the room had no answer by
/// `max_wait` + 110% of the cap and played greedily itself).
pub const BOT_OVERLOAD: &str = "fourkings_bot_overload_total";
/// The reasons of [`BOT_OVERLOAD`].
pub const BOT_OVERLOAD_REASONS: [&str; 3] = ["queue_full", "waited", "late"];

/// One decision to make.
#[derive(Debug, Clone)]
pub struct Job {
    pub game: TableGame,
    pub seat: Seat,
    pub level: Level,
    /// Drives the bot's tie-breaks (bots have no randomness of their own).
    pub seed: u64,
    pub table: Table,
}

/// Who waits for a decision: it orders the pool's queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// A human sits at the table (or may sit: a free seat): served first.
    WithHumans,
    /// Four CPU players: served when no table with a human is waiting.
    CpuOnly,
}

/// A decision made.
#[derive(Debug, Clone, PartialEq)]
pub struct Thought {
    pub plan: Plan,
    /// The level that actually decided: the one asked for, or `Greedy` under overload.
    pub level: Level,
    /// Time spent thinking (not waiting in the queue).
    pub took: Duration,
}

/// Counters for tests, logs and benchmarks (the metrics facade gets the same figures).
#[derive(Debug, Default)]
pub struct PoolStats {
    /// Decisions made on the pool, per level asked for (index: position in [`Level::ALL`]).
    pub searched: [AtomicU64; 5],
    /// Decisions answered greedily because the queue was full.
    pub queue_full: AtomicU64,
    /// Decisions answered greedily because they waited past `max_wait`.
    pub waited_too_long: AtomicU64,
    /// Decisions that went over their think-time cap by more than 10%.
    pub over_budget: AtomicU64,
    /// Results discarded by rooms because the state had changed (counted by the rooms).
    pub stale: AtomicU64,
}

impl PoolStats {
    pub fn searched(&self, level: Level) -> u64 {
        self.searched[level_index(level)].load(Ordering::Relaxed)
    }
}

fn level_index(level: Level) -> usize {
    Level::ALL
        .iter()
        .position(|l| *l == level)
        .expect("every level is in ALL")
}

#[derive(Debug)]
struct Task {
    job: Job,
    queued: Instant,
    reply: oneshot::Sender<Thought>,
}

/// The waiting decisions, one queue per [`Table`] kind.
#[derive(Debug, Default)]
struct Queues {
    with_humans: VecDeque<Task>,
    cpu_only: VecDeque<Task>,
    /// The pool is gone: the workers finish what they hold and exit.
    closed: bool,
}

impl Queues {
    fn of(&mut self, table: Table) -> &mut VecDeque<Task> {
        match table {
            Table::WithHumans => &mut self.with_humans,
            Table::CpuOnly => &mut self.cpu_only,
        }
    }
}

/// The queues and the condition the workers wait on.
#[derive(Debug, Default)]
struct Shared {
    queues: Mutex<Queues>,
    ready: Condvar,
}

impl Shared {
    /// A poisoned lock means a worker panicked while holding it, which the short critical
    /// sections here cannot do; the queues themselves are still sound.
    fn lock(&self) -> MutexGuard<'_, Queues> {
        self.queues.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next decision to make, tables with a human first; `None` once the pool is closed.
    fn take(&self) -> Option<Task> {
        let mut queues = self.lock();
        loop {
            if let Some(task) = queues
                .with_humans
                .pop_front()
                .or_else(|| queues.cpu_only.pop_front())
            {
                return Some(task);
            }
            if queues.closed {
                return None;
            }
            queues = self.ready.wait(queues).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// The pool. Dropping the last handle closes the queues; the threads finish their decision and exit.
#[derive(Debug)]
pub struct BotPool {
    shared: Arc<Shared>,
    config: BotConfig,
    stats: Arc<PoolStats>,
}

impl BotPool {
    /// A pool of the `bots` crate's players.
    pub fn new(config: BotConfig) -> Arc<BotPool> {
        BotPool::with_thinker(config, Arc::new(BotsThinker))
    }

    /// A pool whose threads use `thinker` (tests pass instrumented ones).
    pub fn with_thinker(config: BotConfig, thinker: Arc<dyn Thinker>) -> Arc<BotPool> {
        let shared = Arc::new(Shared::default());
        let stats = Arc::new(PoolStats::default());
        for i in 0..config.workers.max(1) {
            let worker = Worker {
                shared: shared.clone(),
                thinker: thinker.clone(),
                config: config.clone(),
                stats: stats.clone(),
            };
            std::thread::Builder::new()
                .name(format!("bot-{i}"))
                .spawn(move || worker.run())
                .expect("the OS starts a bot thread");
        }
        Arc::new(BotPool {
            shared,
            config,
            stats,
        })
    }

    pub fn config(&self) -> &BotConfig {
        &self.config
    }

    pub fn stats(&self) -> &PoolStats {
        &self.stats
    }

    /// Ask for a decision. Never blocks: the answer arrives on the returned channel, from a pool
    /// thread, or at once (greedy) when the job's queue is full.
    pub fn submit(&self, job: Job) -> oneshot::Receiver<Thought> {
        let (reply, rx) = oneshot::channel();
        let table = job.table;
        let task = Task {
            job,
            queued: Instant::now(),
            reply,
        };
        let refused = {
            let mut queues = self.shared.lock();
            let queue = queues.of(table);
            if queue.len() < self.config.queue.max(1) {
                queue.push_back(task);
                None
            } else {
                Some(task)
            }
        };
        match refused {
            None => self.shared.ready.notify_one(),
            Some(task) => {
                self.stats.queue_full.fetch_add(1, Ordering::Relaxed);
                metrics::counter!(BOT_OVERLOAD, "reason" => "queue_full").increment(1);
                let _ = task.reply.send(greedy(&task.job));
            }
        }
        rx
    }
}

impl Drop for BotPool {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.ready.notify_all();
    }
}

fn greedy(job: &Job) -> Thought {
    let start = Instant::now();
    let plan = greedy_plan(&job.game, job.seat, job.seed);
    Thought {
        plan,
        level: Level::Greedy,
        took: start.elapsed(),
    }
}

struct Worker {
    shared: Arc<Shared>,
    thinker: Arc<dyn Thinker>,
    config: BotConfig,
    stats: Arc<PoolStats>,
}

impl Worker {
    fn run(self) {
        crate::lane::idle_class("a bot thread");
        // `None`: the pool is gone.
        while let Some(task) = self.shared.take() {
            if task.reply.is_closed() {
                continue; // the room closed meanwhile
            }
            let thought = if task.queued.elapsed() > self.config.max_wait {
                self.stats.waited_too_long.fetch_add(1, Ordering::Relaxed);
                metrics::counter!(BOT_OVERLOAD, "reason" => "waited").increment(1);
                greedy(&task.job)
            } else {
                self.think(&task.job)
            };
            let _ = task.reply.send(thought);
        }
    }

    fn think(&self, job: &Job) -> Thought {
        let budget = self.config.budget(job.game.kind(), job.level);
        let start = Instant::now();
        let clock = || start.elapsed();
        let plan = self
            .thinker
            .think(&job.game, job.seat, job.level, budget, job.seed, &clock);
        let took = start.elapsed();
        self.stats.searched[level_index(job.level)].fetch_add(1, Ordering::Relaxed);
        metrics::histogram!("fourkings_bot_think_seconds", "level" => job.level.name())
            .record(took.as_secs_f64());
        if took > budget.max_time.mul_f64(1.1) {
            self.stats.over_budget.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(
                level = job.level.name(),
                took_ms = took.as_millis() as u64,
                cap_ms = budget.max_time.as_millis() as u64,
                "a CPU player overshot its think time"
            );
        }
        Thought {
            plan,
            level: job.level,
            took,
        }
    }
}

// Tests: crates/room/tests/bots.rs (the pool alone, then in rooms), sharing one blocking thinker.
