//! Chaturaji speed: (a) legal move generation over a fixed corpus of positions from seeded random
//! games; (b) whole random games to their end (random dice, uniform random legal decisions, default
//! options: round limit 30). Throughput is in positions and in games per second.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rules::Seat;
use rules::chaturaji::{Action, Game, MoveList, Options, Phase};
use std::hint::black_box;

/// Seeded xorshift64*.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        // multiply-shift: unbiased enough for a benchmark and cheaper than `%`
        (((self.next() >> 32) * n as u64) >> 32) as usize
    }
}

/// Play one game to its end through the public API; `visit` sees every position where a seat chooses.
fn random_game(
    rng: &mut Rng,
    options: Options,
    moves: &mut MoveList,
    mut visit: impl FnMut(&Game),
) -> Game {
    let mut game = Game::new(options, Seat::Red).expect("default options are valid");
    loop {
        let action = match game.phase() {
            Phase::Over => return game,
            Phase::AwaitingRoll(_) => Action::Roll {
                dice: [1 + rng.below(6) as u8, 1 + rng.below(6) as u8],
            },
            Phase::Moving(_) => {
                visit(&game);
                game.legal_moves(moves);
                let choices = moves.len() + usize::from(game.can_end_turn());
                let pick = rng.below(choices);
                match moves.as_slice().get(pick) {
                    Some(&m) => m.into(),
                    None => Action::EndTurn,
                }
            }
        };
        let applied = game.apply(action).expect("only legal actions are played");
        black_box(&applied);
    }
}

/// Every decision position of 40 seeded random games (a few thousand positions).
fn corpus() -> Vec<Game> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut moves = MoveList::new();
    let mut positions = Vec::new();
    for _ in 0..40 {
        random_game(&mut rng, Options::default(), &mut moves, |g| {
            positions.push(g.clone())
        });
    }
    positions
}

fn bench(c: &mut Criterion) {
    let positions = corpus();
    let mut group = c.benchmark_group("chaturaji");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function(format!("movegen/{}_positions", positions.len()), |b| {
        let mut moves = MoveList::new();
        b.iter(|| {
            let mut total = 0;
            for game in &positions {
                game.legal_moves(&mut moves);
                total += moves.len();
            }
            black_box(total)
        })
    });

    const GAMES: u64 = 100;
    group.throughput(Throughput::Elements(GAMES));
    group.bench_function("random_games/100", |b| {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let mut moves = MoveList::new();
        b.iter(|| {
            for _ in 0..GAMES {
                black_box(random_game(
                    &mut rng,
                    Options::default(),
                    &mut moves,
                    |_| {},
                ));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
