//! The CPU lane (`room::lane`): a room moves there when its four seats are CPU players, comes home
//! when a human may sit, plays and answers wherever it runs, and leaves no count behind when it ends.

use std::sync::Arc;
use std::time::{Duration, Instant};

use protocol::{Actor, Event, GameKind, Seat, ServerMsg, TurnTime};
use room::bot::BotConfig;
use room::bot_pool::BotPool;
use room::game::TableOptions;
use room::lane::{CpuLane, Lanes};
use room::log::MemoryLog;
use room::outbox::{self, Outbox};
use room::{RoomConfig, RoomHandle, RoomSettings};

const WAIT: Duration = Duration::from_secs(20);

async fn spawn(lanes: &Lanes) -> RoomHandle {
    let config = Arc::new(RoomConfig {
        cpu_delay: Duration::ZERO,
        lanes: Some(lanes.clone()),
        ..RoomConfig::default()
    });
    let bots = BotPool::new(BotConfig {
        easy: Duration::from_millis(2),
        medium: Duration::from_millis(2),
        hard: Duration::from_millis(2),
        workers: 1,
        ..BotConfig::default()
    });
    let settings = RoomSettings {
        options: TableOptions::normalize(GameKind::Fourchess, &serde_json::json!({})).unwrap(),
        turn_time: TurnTime::None,
        rated: false,
        public: false,
        spectator_chat: false,
    };
    room::create(
        "r".into(),
        settings,
        "host",
        config,
        Arc::new(MemoryLog::default()),
        bots,
    )
    .await
    .unwrap()
}

async fn until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// CPU moves seen by a spectator, up to `n` or the end of the game.
async fn cpu_moves(rx: &mut Outbox, n: u32) -> u32 {
    let mut seen = 0;
    while seen < n {
        let frame = tokio::time::timeout(WAIT, rx.recv())
            .await
            .expect("a frame in time")
            .expect("open");
        let ServerMsg::Event(e) = serde_json::from_str(&frame).unwrap() else {
            continue;
        };
        match e.event {
            Event::Acted { by, .. } => {
                assert_eq!(by, Actor::Cpu);
                seen += 1;
            }
            Event::GameOver { .. } => break,
            _ => {}
        }
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_cpu_seats_move_a_room_to_the_cpu_lane_and_a_free_seat_brings_it_home() {
    let lane = CpuLane::start().unwrap();
    let lanes = lane.lanes();
    let room = spawn(&lanes).await;
    for seat in [Seat::Red, Seat::Blue, Seat::Yellow] {
        room.seat_cpu("host".into(), seat, 2).await.unwrap();
    }
    // Three CPU players and an empty seat: a human may still sit, the room stays home.
    room.info().await.unwrap();
    assert_eq!(lanes.rooms_on_cpu_lane(), 0);
    room.seat_cpu("host".into(), Seat::Green, 2).await.unwrap();
    until("the room is on the CPU lane", || {
        lanes.rooms_on_cpu_lane() == 1
    })
    .await;
    // Commands reach it there, and it answers.
    assert!(
        room.info()
            .await
            .unwrap()
            .seats
            .iter()
            .all(|s| matches!(s, protocol::Occupant::Cpu { .. }))
    );
    // The host frees a seat for a friend: home again, and the friend joins.
    room.unseat("host".into(), Seat::Green).await.unwrap();
    until("the room is home", || lanes.rooms_on_cpu_lane() == 0).await;
    let joined = room.join("Ann".into(), None).await.unwrap();
    assert_eq!(joined.seat, Seat::Green);
    assert_eq!(lanes.rooms_on_cpu_lane(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cpu_game_plays_on_the_lane_and_an_ended_room_is_no_longer_counted() {
    let lane = CpuLane::start().unwrap();
    let lanes = lane.lanes();
    let room = spawn(&lanes).await;
    for seat in Seat::ALL {
        room.seat_cpu("host".into(), seat, 2).await.unwrap();
    }
    let (tx, mut rx) = outbox::channel(100_000);
    room.connect(None, None, tx).await.unwrap();
    room.start("host".into(), false).await.unwrap();
    until("the room is on the CPU lane", || {
        lanes.rooms_on_cpu_lane() == 1
    })
    .await;
    // Every seat moves before anyone can be mated.
    assert_eq!(cpu_moves(&mut rx, 4).await, 4);
    assert_eq!(lanes.rooms_on_cpu_lane(), 1);
    room.stop().await;
    until("the stopped room is no longer counted", || {
        lanes.rooms_on_cpu_lane() == 0
    })
    .await;
}
