//! Perft speed of the four-player chess move generator (one thread). The last ply is counted in bulk:
//! the legal moves at depth 1 are generated (legality from the pin/check scan) and counted, not played.
//! Throughput is reported in perft nodes (leaves) per second.
//!
//! Each benchmark runs twice: against the wall clock (criterion's default) and against this thread's CPU
//! time (from `/proc/thread-self/schedstat`, nanoseconds). On a shared machine the wall clock also counts
//! the time other processes held the core; the CPU-time figures are the engine's own speed.

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rules::Seat;
use rules::fourchess::{Mode, Setup, parse_fen4, perft};

const CASTLING: &str = "R-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-x,x,x,yR,2,yK,3,yR,x,x,x/x,x,x,yP,yP,yP,yP,yP,yP,yP,yP,x,x,x/x,x,x,8,x,x,x/bR,bP,10,gP,gR/1,bP,10,gP,1/1,bP,10,gP,1/1,bP,10,gP,gK/bK,bP,10,gP,1/1,bP,10,gP,1/1,bP,10,gP,1/bR,bP,10,gP,gR/x,x,x,8,x,x,x/x,x,x,rP,rP,rP,rP,rP,rP,rP,rP,x,x,x/x,x,x,rR,3,rK,2,rR,x,x,x";

/// CPU time of the calling thread, in nanoseconds.
#[derive(Debug, Default)]
struct ThreadCpuTime;

/// Formats nanoseconds like the wall clock does.
static NANOSECONDS: WallTime = WallTime;

fn thread_cpu_ns() -> u64 {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").expect("Linux schedstat");
    text.split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a CPU time in ns")
}

impl Measurement for ThreadCpuTime {
    type Intermediate = u64;
    type Value = Duration;

    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, start: u64) -> Duration {
        Duration::from_nanos(thread_cpu_ns() - start)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        NANOSECONDS.formatter()
    }
}

fn perft_benches<M: Measurement>(c: &mut Criterion<M>, clock: &str) {
    let mut group = c.benchmark_group(format!("fourchess_perft_{clock}"));
    group.sample_size(10);

    let start = Setup::start(Mode::Teams, Seat::Red);
    group.throughput(Throughput::Elements(77_430_383));
    group.bench_function("teams_start_d6_bulk", |b| {
        b.iter(|| assert_eq!(perft(black_box(&start), 6), 77_430_383))
    });

    let castling = parse_fen4(CASTLING, Mode::Teams).unwrap();
    group.throughput(Throughput::Elements(388_127));
    group.bench_function("teams_castling_d4_bulk", |b| {
        b.iter(|| assert_eq!(perft(black_box(&castling), 4), 388_127))
    });

    // FFA plays every interior move with the full rules (points, immediate mates, eliminations).
    let ffa = Setup::start(Mode::Ffa, Seat::Red);
    let ffa_nodes = perft(&ffa, 5);
    group.throughput(Throughput::Elements(ffa_nodes));
    group.bench_function("ffa_start_d5_bulk", |b| {
        b.iter(|| assert_eq!(perft(black_box(&ffa), 5), ffa_nodes))
    });
    group.finish();
}

fn wall_clock(c: &mut Criterion) {
    perft_benches(c, "wall");
}

fn cpu_time(c: &mut Criterion<ThreadCpuTime>) {
    perft_benches(c, "cpu");
}

criterion_group!(wall, wall_clock);
criterion_group! {
    name = cpu;
    config = Criterion::default().with_measurement(ThreadCpuTime);
    targets = cpu_time
}
criterion_main!(wall, cpu);
