//! Perft speed of the four-player chess move generator (one thread). The last ply is counted in bulk:
//! the legal moves at depth 1 are generated (legality from the pin/check scan) and counted, not played.
//! Throughput is reported in perft nodes (leaves) per second.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rules::Seat;
use rules::fourchess::{Mode, Setup, parse_fen4, perft};

const CASTLING: &str = "R-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-x,x,x,yR,2,yK,3,yR,x,x,x/x,x,x,yP,yP,yP,yP,yP,yP,yP,yP,x,x,x/x,x,x,8,x,x,x/bR,bP,10,gP,gR/1,bP,10,gP,1/1,bP,10,gP,1/1,bP,10,gP,gK/bK,bP,10,gP,1/1,bP,10,gP,1/1,bP,10,gP,1/bR,bP,10,gP,gR/x,x,x,8,x,x,x/x,x,x,rP,rP,rP,rP,rP,rP,rP,rP,x,x,x/x,x,x,rR,3,rK,2,rR,x,x,x";

fn perft_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("fourchess_perft");
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

criterion_group!(benches, perft_benches);
criterion_main!(benches);
