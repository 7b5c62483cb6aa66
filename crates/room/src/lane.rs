//! Where a room's actor runs, and the scheduling priority of the threads that serve only CPU players.
//!
//! A table where a human plays runs on the server's runtime, beside the sockets. A table of four CPU
//! players has nobody waiting on its latency, so its actor moves to the *CPU lane*: a runtime of its
//! own, one thread at nice 19, so that the humans' runtime thread neither queues behind CPU rooms'
//! tasks nor shares a time slice with them. The bot pool's threads run in the kernel's idle class
//! (`SCHED_IDLE`, see `bot_pool`): a search yields the core at once to any other thread that wakes.
//!
//! Measured on one core (docs/benchmarks.md, session 18): beside 1,000 CPU tables the humans' p99
//! act→event was 2.3–2.7 ms with the CPU rooms on the shared runtime and 1.4–1.8 ms with them on the
//! lane (0.8–1.1 ms with no CPU tables), with stalls left in some runs. The lane is not put in the idle
//! class: the runtime waits on locks it shares with other threads (the allocator's, the database
//! driver's channels), and an idle-class thread preempted while holding one runs again only after
//! tens of milliseconds; measured so, the p99 was worse. Under overload CPU-only tables slow down
//! first (nice 19 gets about 1/70 of a contended core), and CPU players everywhere get weaker rather
//! than slower: a search ends at its think-time cap by the clock.
//!
//! Every database call a room makes runs on the server's runtime (the server's `StoreLog`): a thread
//! inherits its creator's priority, and a connection thread opened from the lane would serve
//! everybody at nice 19.
//!
//! A room moves when its seats change: all four seats CPU → the lane; a human may sit → back to the
//! runtime it came from. The actor's state moves with it (it is one `Send` value); the tasks it
//! spawned (a pending CPU decision, a game record) finish where they started and answer through
//! the room's command channel, which does not care where the actor runs.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::runtime::{Handle, Runtime};

/// Gauge: rooms whose actor runs on the CPU lane now.
pub const ROOMS_ON_CPU_LANE: &str = "fourkings_rooms_on_cpu_lane";

/// The two places a room can run. Cheap to clone (two runtime handles and a counter).
#[derive(Debug, Clone)]
pub struct Lanes {
    /// The server's runtime: where rooms are created and where tables with a human run.
    home: Handle,
    cpu: Handle,
    on_cpu: Arc<AtomicUsize>,
}

impl Lanes {
    /// Rooms running on the CPU lane now.
    pub fn rooms_on_cpu_lane(&self) -> usize {
        self.on_cpu.load(Ordering::Relaxed)
    }

    pub(crate) fn home(&self) -> &Handle {
        &self.home
    }

    /// The lane for a room that is about to run there: it is counted until the returned mark is
    /// dropped (the room moved back or ended).
    pub(crate) fn enter_cpu_lane(&self) -> (&Handle, OnCpuLane) {
        self.on_cpu.fetch_add(1, Ordering::Relaxed);
        metrics::gauge!(ROOMS_ON_CPU_LANE).increment(1.0);
        (
            &self.cpu,
            OnCpuLane {
                on_cpu: self.on_cpu.clone(),
            },
        )
    }
}

/// Held by a room while its actor runs on the CPU lane.
#[derive(Debug)]
pub(crate) struct OnCpuLane {
    on_cpu: Arc<AtomicUsize>,
}

impl Drop for OnCpuLane {
    fn drop(&mut self) {
        self.on_cpu.fetch_sub(1, Ordering::Relaxed);
        metrics::gauge!(ROOMS_ON_CPU_LANE).decrement(1.0);
    }
}

/// The CPU lane's runtime, owned by whoever serves the rooms. Dropping it stops the lane without
/// waiting (allowed inside an async context, unlike dropping a `Runtime`); rooms still on it end.
#[derive(Debug)]
pub struct CpuLane {
    runtime: Option<Runtime>,
    lanes: Lanes,
}

impl CpuLane {
    /// Starts the lane's thread. Call it inside the server's runtime: that runtime becomes the rooms'
    /// home.
    pub fn start() -> std::io::Result<CpuLane> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("cpu-rooms")
            .enable_all()
            .on_thread_start(|| nice(19, "a CPU-lane thread"))
            .build()?;
        let lanes = Lanes {
            home: Handle::current(),
            cpu: runtime.handle().clone(),
            on_cpu: Arc::default(),
        };
        Ok(CpuLane {
            runtime: Some(runtime),
            lanes,
        })
    }

    pub fn lanes(&self) -> Lanes {
        self.lanes.clone()
    }
}

impl Drop for CpuLane {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Puts the calling thread in the idle scheduling class (Linux `SCHED_IDLE`): it runs when no other
/// thread wants the core, and any thread that wakes preempts it at once. For threads that take no
/// lock the runtime needs (a search). Best effort: where the class is refused the thread keeps its
/// priority (logged at debug).
pub(crate) fn idle_class(what: &str) {
    #[cfg(target_os = "linux")]
    {
        use thread_priority::{
            NormalThreadSchedulePolicy, ThreadPriority, ThreadSchedulePolicy,
            set_thread_priority_and_policy, thread_native_id,
        };
        if let Err(e) = set_thread_priority_and_policy(
            thread_native_id(),
            ThreadPriority::Min,
            ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle),
        ) {
            tracing::debug!(error = ?e, "could not put {what} in the idle class");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = what;
}

/// Sets the calling thread's nice value (Linux gives each thread its own). Best effort.
fn nice(value: i32, what: &str) {
    #[cfg(target_os = "linux")]
    {
        let tid = rustix::thread::gettid();
        if let Err(e) = rustix::process::setpriority_process(Some(tid), value) {
            tracing::debug!(error = %e, "could not lower the priority of {what}");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (value, what);
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_lanes_thread_runs_at_nice_19() {
        let lane = CpuLane::start().unwrap();
        let nice = lane
            .lanes
            .cpu
            .spawn(async {
                rustix::process::getpriority_process(Some(rustix::thread::gettid())).unwrap()
            })
            .await
            .unwrap();
        assert_eq!(nice, 19);
    }
}
