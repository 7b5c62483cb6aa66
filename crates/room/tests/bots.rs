//! CPU players: the worker pool alone (a full queue, a decision that waited too long, tables with a
//! human first, its threads' scheduling class), then in a room with the real actor: which level plays
//! which seat, stale results, a saturated pool, Chaturaji turns played one action at a time from one
//! plan, and rooms of four CPU players on the CPU lane.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use bots::{Budget, Clock, Level};
use protocol::{Actor, Event, GameKind, Seat, ServerMsg, TurnTime};
use room::bot::{BotConfig, BotsThinker, Plan, Thinker, greedy_plan};
use room::bot_pool::{BotPool, Job, Table};
use room::game::{TableAction, TableGame, TableOptions};
use room::lane::{CpuLane, Lanes};
use room::log::MemoryLog;
use room::outbox::{self, Outbox};
use room::{RoomConfig, RoomHandle, RoomSettings};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(20);

fn settings(game: GameKind, options: Value) -> RoomSettings {
    RoomSettings {
        options: TableOptions::normalize(game, &options).unwrap(),
        turn_time: TurnTime::None,
        rated: false,
        public: false,
        spectator_chat: false,
    }
}

fn room_config(grace: Duration, cpu_delay: Duration) -> Arc<RoomConfig> {
    Arc::new(RoomConfig {
        cpu_delay,
        grace,
        ..RoomConfig::default()
    })
}

fn fast_bots() -> BotConfig {
    BotConfig {
        easy: Duration::from_millis(2),
        medium: Duration::from_millis(2),
        hard: Duration::from_millis(2),
        workers: 1,
        queue: 16,
        ..BotConfig::default()
    }
}

async fn spawn(
    game: GameKind,
    options: Value,
    config: Arc<RoomConfig>,
    pool: Arc<BotPool>,
) -> RoomHandle {
    room::create(
        "r".into(),
        settings(game, options),
        "host",
        config,
        Arc::new(MemoryLog::default()),
        pool,
    )
    .await
    .expect("an in-memory log always takes the room")
}

/// Watch the room as a spectator; every frame parsed.
async fn watch(room: &RoomHandle) -> Outbox {
    let (tx, rx) = outbox::channel(100_000);
    room.connect(None, None, tx).await.unwrap();
    rx
}

async fn next_msg(rx: &mut Outbox) -> ServerMsg {
    let frame = tokio::time::timeout(WAIT, rx.recv())
        .await
        .expect("a frame in time")
        .expect("open");
    serde_json::from_str(&frame).unwrap()
}

/// The next `acted` event: (seat, by, arrival).
async fn next_acted(rx: &mut Outbox) -> (Seat, Actor, Instant) {
    loop {
        if let ServerMsg::Event(e) = next_msg(rx).await {
            if let Event::Acted { seat, by, .. } = e.event {
                return (seat, by, Instant::now());
            }
        }
    }
}

/// Follows the game until `n` actions were played or it ended (CPU players can mate each other
/// within a few moves): how many were played, each asserted to be a CPU's.
async fn cpu_actions(rx: &mut Outbox, n: u32) -> u32 {
    let mut played = 0;
    while played < n {
        let ServerMsg::Event(e) = next_msg(rx).await else {
            continue;
        };
        match e.event {
            Event::Acted { by, .. } => {
                assert_eq!(by, Actor::Cpu);
                played += 1;
            }
            Event::GameOver { .. } => break,
            _ => {}
        }
    }
    played
}

/// Whether the game is over, read from the watcher's frames, waiting at most `wait`.
async fn game_over_within(rx: &mut Outbox, wait: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + wait;
    while let Ok(frame) = tokio::time::timeout_at(deadline, rx.recv()).await {
        let frame = frame.expect("open");
        if let ServerMsg::Event(e) = serde_json::from_str(&frame).unwrap() {
            if matches!(e.event, Event::GameOver { .. }) {
                return true;
            }
        }
    }
    false
}

/// Remembers which level every decision was asked at; plays greedily (fast).
#[derive(Debug, Default)]
struct Recorder {
    asked: Mutex<Vec<(Seat, Level)>>,
}

impl Thinker for Recorder {
    fn think(
        &self,
        game: &TableGame,
        seat: Seat,
        level: Level,
        _: Budget,
        seed: u64,
        _: &dyn Clock,
    ) -> Plan {
        self.asked.lock().unwrap().push((seat, level));
        greedy_plan(game, seat, seed)
    }
}

/// Blocks every decision until opened; counts them.
#[derive(Debug, Default)]
struct Gate {
    open: Mutex<bool>,
    cv: Condvar,
    calls: AtomicU64,
}

impl Gate {
    fn release(&self) {
        *self.open.lock().unwrap() = true;
        self.cv.notify_all();
    }
}

impl Thinker for Gate {
    fn think(
        &self,
        game: &TableGame,
        seat: Seat,
        _: Level,
        _: Budget,
        seed: u64,
        _: &dyn Clock,
    ) -> Plan {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.cv.wait(open).unwrap();
        }
        greedy_plan(game, seat, seed)
    }
}

async fn until(mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !done() {
        assert!(Instant::now() < deadline, "timed out");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_seat_is_played_at_its_level() {
    let recorder = Arc::new(Recorder::default());
    let pool = BotPool::with_thinker(
        BotConfig {
            takeover_level: 1,
            ..fast_bots()
        },
        recorder.clone(),
    );
    let room = spawn(
        GameKind::Fourchess,
        json!({}),
        room_config(Duration::from_millis(20), Duration::ZERO),
        pool,
    )
    .await;
    // Red: a human who never connects (the CPU takes over after the grace period, at the takeover
    // level); Green: seated by the host at level 3; Yellow and Blue: filled at the start.
    room.join("Ann".into(), None).await.unwrap();
    room.seat_cpu("host".into(), Seat::Green, 3).await.unwrap();
    let mut rx = watch(&room).await;
    let info = room.start("host".into(), false).await.unwrap();
    assert_eq!(
        info.seats[Seat::Green.index()],
        protocol::Occupant::Cpu { level: 3 }
    );
    assert_eq!(
        info.seats[Seat::Yellow.index()],
        protocol::Occupant::Cpu { level: 2 }
    );
    // Twelve decisions, or fewer if the game ends first (every seat moves before anyone is mated).
    let deadline = Instant::now() + WAIT;
    while recorder.asked.lock().unwrap().len() < 12 {
        assert!(Instant::now() < deadline, "timed out");
        if game_over_within(&mut rx, Duration::from_millis(2)).await {
            break;
        }
    }
    let asked = recorder.asked.lock().unwrap().clone();
    for seat in Seat::ALL {
        let levels: Vec<Level> = asked
            .iter()
            .filter(|(s, _)| *s == seat)
            .map(|(_, l)| *l)
            .collect();
        let expected = match seat {
            Seat::Red => Level::Easy,
            Seat::Green => Level::Hard,
            _ => Level::Medium,
        };
        assert!(!levels.is_empty(), "{seat} was played");
        assert!(levels.iter().all(|l| *l == expected), "{seat}: {levels:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_hard_player_searches_for_a_hard_seat() {
    let pool = BotPool::new(fast_bots());
    let room = spawn(
        GameKind::Fourchess,
        json!({}),
        room_config(Duration::from_secs(60), Duration::ZERO),
        pool.clone(),
    )
    .await;
    for seat in Seat::ALL {
        room.seat_cpu("host".into(), seat, 3).await.unwrap();
    }
    let mut rx = watch(&room).await;
    room.start("host".into(), false).await.unwrap();
    let played = cpu_actions(&mut rx, 8).await;
    assert!(played >= 4, "every seat moved before a mate");
    let stats = pool.stats();
    assert!(stats.searched(Level::Hard) >= u64::from(played));
    assert_eq!(
        stats.searched(Level::Medium) + stats.searched(Level::Easy),
        0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_for_a_changed_state_is_discarded() {
    let gate = Arc::new(Gate::default());
    let pool = BotPool::with_thinker(fast_bots(), gate.clone());
    let room = spawn(
        GameKind::Fourchess,
        json!({}),
        room_config(Duration::from_millis(20), Duration::ZERO),
        pool.clone(),
    )
    .await;
    let ann = room.join("Ann".into(), None).await.unwrap();
    let mut watcher = watch(&room).await;
    room.start("host".into(), false).await.unwrap();
    // Ann (Red, to act first) is away: after the grace period the CPU starts thinking for her.
    until(|| gate.calls.load(Ordering::SeqCst) == 1).await;
    // She comes back and plays her own move while that decision is still being made.
    let (tx, mut ann_rx) = outbox::channel(1000);
    let conn = room.connect(Some(ann.seat_token), None, tx).await.unwrap();
    let legal = loop {
        if let ServerMsg::View(view) = next_msg(&mut ann_rx).await {
            break view.legal.expect("legal moves shown");
        }
    };
    room.act(conn.conn, 1, Some(legal[0].clone()))
        .await
        .unwrap();
    let (seat, by, _) = next_acted(&mut watcher).await;
    assert_eq!((seat, by), (Seat::Red, Actor::Human));
    // Now the CPU's answer for the old state arrives: it must not be played.
    gate.release();
    until(|| pool.stats().stale.load(Ordering::Relaxed) == 1).await;
    // The game goes on with the next seat (a CPU), never with a second Red move.
    let (seat, by, _) = next_acted(&mut watcher).await;
    assert_ne!(seat, Seat::Red);
    assert_eq!(by, Actor::Cpu);
}

/// A decision for Red at the start of a four-player chess game.
fn fourchess_job(level: Level) -> Job {
    let options = TableOptions::normalize(GameKind::Fourchess, &json!({})).unwrap();
    Job {
        game: TableGame::new(&options, Seat::Red).unwrap(),
        seat: Seat::Red,
        level,
        seed: 3,
        table: Table::WithHumans,
    }
}

/// A pool of one thread answering through `gate`, with room for one waiting decision per queue.
fn one_slot_pool(gate: &Arc<Gate>) -> Arc<BotPool> {
    BotPool::with_thinker(
        BotConfig {
            queue: 1,
            ..fast_bots()
        },
        gate.clone(),
    )
}

/// Waits (blocking) until the pool's thread holds `n` decisions in its gate.
fn until_held(gate: &Gate, n: u64) {
    while gate.calls.load(Ordering::SeqCst) < n {
        std::thread::yield_now();
    }
}

#[test]
fn a_full_queue_answers_greedily_at_once() {
    let gate = Arc::new(Gate::default());
    let pool = one_slot_pool(&gate);
    let first = pool.submit(fourchess_job(Level::Hard)); // taken by the worker, blocked
    until_held(&gate, 1);
    let second = pool.submit(fourchess_job(Level::Hard)); // fills the queue
    let third = pool.submit(fourchess_job(Level::Hard)); // overflows
    let answer = third.blocking_recv().expect("answered without the workers");
    assert_eq!(answer.level, Level::Greedy);
    assert_eq!(answer.plan.actions.len(), 1);
    assert!(matches!(answer.plan.actions[0], TableAction::Fourchess(_)));
    assert_eq!(pool.stats().queue_full.load(Ordering::Relaxed), 1);
    gate.release();
    assert_eq!(first.blocking_recv().unwrap().level, Level::Hard);
    assert_eq!(second.blocking_recv().unwrap().level, Level::Hard);
    assert_eq!(pool.stats().searched(Level::Hard), 2);
}

#[test]
fn a_decision_that_waited_too_long_is_answered_greedily() {
    let gate = Arc::new(Gate::default());
    let pool = BotPool::with_thinker(
        BotConfig {
            max_wait: Duration::from_millis(20),
            ..fast_bots()
        },
        gate.clone(),
    );
    let first = pool.submit(fourchess_job(Level::Medium));
    let waiting = pool.submit(fourchess_job(Level::Medium));
    std::thread::sleep(Duration::from_millis(60));
    gate.release();
    assert_eq!(first.blocking_recv().unwrap().level, Level::Medium);
    assert_eq!(waiting.blocking_recv().unwrap().level, Level::Greedy);
    assert_eq!(gate.calls.load(Ordering::SeqCst), 1);
    assert_eq!(pool.stats().waited_too_long.load(Ordering::Relaxed), 1);
}

/// Blocks its first decision until opened, then answers greedily; records each decision's seed.
#[derive(Debug, Default)]
struct SeedOrder {
    gate: Gate,
    seeds: Mutex<Vec<u64>>,
}

impl Thinker for SeedOrder {
    fn think(
        &self,
        game: &TableGame,
        seat: Seat,
        level: Level,
        budget: Budget,
        seed: u64,
        clock: &dyn Clock,
    ) -> Plan {
        self.seeds.lock().unwrap().push(seed);
        self.gate.think(game, seat, level, budget, seed, clock)
    }
}

#[test]
fn a_table_with_a_human_is_served_before_tables_of_cpu_players() {
    let order = Arc::new(SeedOrder::default());
    let pool = BotPool::with_thinker(fast_bots(), order.clone());
    let job = |seed, table| Job {
        seed,
        table,
        ..fourchess_job(Level::Medium)
    };
    // The only worker is busy with the first decision while the others queue.
    let first = pool.submit(job(1, Table::CpuOnly));
    until_held(&order.gate, 1);
    let cpu_only = pool.submit(job(2, Table::CpuOnly));
    let with_humans = pool.submit(job(3, Table::WithHumans));
    order.gate.release();
    for rx in [first, cpu_only, with_humans] {
        assert_eq!(rx.blocking_recv().unwrap().level, Level::Medium);
    }
    assert_eq!(*order.seeds.lock().unwrap(), [1, 3, 2]);
}

/// Each kind of table has its own bound: CPU-only tables filling theirs leave a human's CPU
/// opponents their search.
#[test]
fn a_full_queue_of_cpu_only_tables_does_not_refuse_a_table_with_a_human() {
    let gate = Arc::new(Gate::default());
    let pool = one_slot_pool(&gate);
    let job = |table| Job {
        table,
        ..fourchess_job(Level::Hard)
    };
    let busy = pool.submit(job(Table::CpuOnly));
    until_held(&gate, 1);
    let queued = pool.submit(job(Table::CpuOnly));
    let refused = pool.submit(job(Table::CpuOnly));
    let human = pool.submit(job(Table::WithHumans));
    assert_eq!(refused.blocking_recv().unwrap().level, Level::Greedy);
    gate.release();
    for rx in [busy, queued, human] {
        assert_eq!(rx.blocking_recv().unwrap().level, Level::Hard);
    }
}

#[test]
fn the_real_players_search_on_the_pool() {
    let pool = BotPool::new(fast_bots());
    let thought = pool
        .submit(fourchess_job(Level::Hard))
        .blocking_recv()
        .unwrap();
    assert_eq!(thought.level, Level::Hard);
    assert_eq!(thought.plan.actions.len(), 1);
    let mut game = fourchess_job(Level::Hard).game;
    game.apply(thought.plan.actions[0].clone()).unwrap();
    assert_eq!(pool.stats().searched(Level::Hard), 1);
}

/// Plays greedily and remembers the scheduling class of the thread that was asked.
#[cfg(target_os = "linux")]
#[derive(Debug, Default)]
struct ClassRecorder(Mutex<Option<thread_priority::ThreadSchedulePolicy>>);

#[cfg(target_os = "linux")]
impl Thinker for ClassRecorder {
    fn think(
        &self,
        game: &TableGame,
        seat: Seat,
        _: Level,
        _: Budget,
        seed: u64,
        _: &dyn Clock,
    ) -> Plan {
        *self.0.lock().unwrap() = thread_priority::thread_schedule_policy().ok();
        greedy_plan(game, seat, seed)
    }
}

/// A search never delays the server's threads: the kernel runs the pool only when they are idle.
#[cfg(target_os = "linux")]
#[test]
fn the_pool_searches_in_the_idle_scheduling_class() {
    use thread_priority::{NormalThreadSchedulePolicy, ThreadSchedulePolicy};
    let recorder = Arc::new(ClassRecorder::default());
    let pool = BotPool::with_thinker(fast_bots(), recorder.clone());
    pool.submit(fourchess_job(Level::Medium))
        .blocking_recv()
        .unwrap();
    assert_eq!(
        *recorder.0.lock().unwrap(),
        Some(ThreadSchedulePolicy::Normal(
            NormalThreadSchedulePolicy::Idle
        ))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_pool_queue_does_not_stall_a_room() {
    let gate = Arc::new(Gate::default());
    let pool = one_slot_pool(&gate);
    // Jam the pool: one decision blocks its only thread, one fills each queue.
    let _blocked = pool.submit(fourchess_job(Level::Hard));
    until(|| gate.calls.load(Ordering::SeqCst) == 1).await;
    let _queued = [Table::WithHumans, Table::CpuOnly].map(|table| {
        pool.submit(Job {
            table,
            ..fourchess_job(Level::Hard)
        })
    });

    let room = spawn(
        GameKind::Fourchess,
        json!({}),
        room_config(Duration::from_secs(60), Duration::ZERO),
        pool.clone(),
    )
    .await;
    let mut rx = watch(&room).await;
    room.start("host".into(), false).await.unwrap();
    let played = cpu_actions(&mut rx, 20).await;
    assert!(played > 0);
    assert!(pool.stats().queue_full.load(Ordering::Relaxed) >= u64::from(played));
    assert_eq!(
        gate.calls.load(Ordering::SeqCst),
        1,
        "the jammed thread took nothing more"
    );
    gate.release();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chaturaji_turn_is_one_plan_played_an_action_at_a_time() {
    let delay = Duration::from_millis(15);
    let pool = BotPool::with_thinker(fast_bots(), Arc::new(BotsThinker));
    let room = spawn(
        GameKind::Chaturaji,
        json!({}),
        room_config(Duration::from_secs(60), delay),
        pool.clone(),
    )
    .await;
    let mut rx = watch(&room).await;
    let started = Instant::now();
    room.start("host".into(), false).await.unwrap();
    // Follow the game for a while: every CPU action is made at least the pause after the event
    // before it, so the n-th comes at least n pauses after the start, and turns with several
    // actions are decided once. (Not the gap between two arrivals: the event before an action can
    // reach this watcher late, which shortens that gap without any pause being skipped.)
    let mut cpu_actions = 0u32;
    while cpu_actions < 24 {
        let msg = next_msg(&mut rx).await;
        let ServerMsg::Event(e) = msg else { continue };
        if let Event::Acted { by: Actor::Cpu, .. } = e.event {
            cpu_actions += 1;
            let since_start = started.elapsed();
            assert!(
                since_start >= delay * cpu_actions,
                "CPU action {cpu_actions} after {since_start:?}"
            );
        }
        if matches!(e.event, Event::GameOver { .. }) {
            break;
        }
    }
    let decisions = pool.stats().searched(Level::Medium);
    assert!(decisions > 0);
    assert!(
        decisions < u64::from(cpu_actions),
        "{decisions} decisions for {cpu_actions} CPU actions: plans are reused"
    );
}

/// The CPU lane (`room::lane`): a room of four CPU players moves there, comes home when a seat is
/// freed for a human, and answers wherever it runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_cpu_seats_move_a_room_to_the_cpu_lane_and_a_free_seat_brings_it_home() {
    let (_lane, lanes, room) = room_with_a_cpu_lane().await;
    for seat in [Seat::Red, Seat::Blue, Seat::Yellow] {
        room.seat_cpu("host".into(), seat, 2).await.unwrap();
    }
    // Three CPU players and an empty seat: a human may still sit, the room stays home.
    room.info().await.unwrap();
    assert_eq!(lanes.rooms_on_cpu_lane(), 0);
    room.seat_cpu("host".into(), Seat::Green, 2).await.unwrap();
    until(|| lanes.rooms_on_cpu_lane() == 1).await;
    let info = room.info().await.unwrap();
    assert!(
        info.seats
            .iter()
            .all(|s| matches!(s, protocol::Occupant::Cpu { .. }))
    );
    // The host frees a seat for a friend: home again, and the friend joins.
    room.unseat("host".into(), Seat::Green).await.unwrap();
    until(|| lanes.rooms_on_cpu_lane() == 0).await;
    assert_eq!(
        room.join("Ann".into(), None).await.unwrap().seat,
        Seat::Green
    );
    assert_eq!(lanes.rooms_on_cpu_lane(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cpu_game_plays_on_the_lane_and_an_ended_room_is_no_longer_counted() {
    let (_lane, lanes, room) = room_with_a_cpu_lane().await;
    for seat in Seat::ALL {
        room.seat_cpu("host".into(), seat, 2).await.unwrap();
    }
    let mut rx = watch(&room).await;
    room.start("host".into(), false).await.unwrap();
    until(|| lanes.rooms_on_cpu_lane() == 1).await;
    // Every seat moves before anyone can be mated.
    assert_eq!(cpu_actions(&mut rx, 4).await, 4);
    assert_eq!(lanes.rooms_on_cpu_lane(), 1);
    room.stop().await;
    until(|| lanes.rooms_on_cpu_lane() == 0).await;
}

/// A four-player chess lobby whose server has a CPU lane; the lane stops when its owner is dropped.
async fn room_with_a_cpu_lane() -> (CpuLane, Lanes, RoomHandle) {
    let lane = CpuLane::start().unwrap();
    let lanes = lane.lanes();
    let config = Arc::new(RoomConfig {
        cpu_delay: Duration::ZERO,
        lanes: Some(lanes.clone()),
        ..RoomConfig::default()
    });
    let room = spawn(
        GameKind::Fourchess,
        json!({}),
        config,
        BotPool::new(fast_bots()),
    )
    .await;
    (lane, lanes, room)
}

/// A decision the pool does not answer in time (on a saturated machine its idle-class thread may
/// not get the CPU) is played greedily by the room at `max_wait` + 110% of the level's cap: the
/// CPU player gets weaker, never slower.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_decision_the_pool_does_not_answer_in_time_is_played_greedily_by_the_room() {
    // The gate holds every decision: a search that never gets the CPU.
    let gate = Arc::new(Gate::default());
    let max_wait = Duration::from_millis(50);
    let pool = BotPool::with_thinker(
        BotConfig {
            max_wait,
            ..fast_bots()
        },
        gate.clone(),
    );
    let room = spawn(
        GameKind::Fourchess,
        json!({}),
        room_config(Duration::from_millis(20), Duration::ZERO),
        pool,
    )
    .await;
    for seat in Seat::ALL {
        room.seat_cpu("host".into(), seat, 2).await.unwrap();
    }
    let mut rx = watch(&room).await;
    let started = Instant::now();
    room.start("host".into(), false).await.unwrap();
    let (seat, by, at) = next_acted(&mut rx).await;
    assert_eq!((seat, by), (Seat::Red, Actor::Cpu));
    assert!(
        gate.calls.load(Ordering::SeqCst) >= 1,
        "the pool had the decision"
    );
    assert!(
        at - started >= max_wait,
        "played at the deadline, not before: {:?}",
        at - started
    );
    gate.release();
}
