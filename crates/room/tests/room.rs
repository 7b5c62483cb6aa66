//! The room actor in-process: slow connections are dropped, never waited for.

use std::sync::Arc;
use std::time::Duration;

use protocol::{GameKind, TurnTime};
use room::bot::BotConfig;
use room::bot_pool::BotPool;
use room::game::TableGame;
use room::log::MemoryLog;
use room::{RoomConfig, RoomSettings};
use serde_json::{Value, json};
use tokio::sync::mpsc;

fn settings(game: GameKind, options: Value) -> RoomSettings {
    RoomSettings {
        game,
        options: TableGame::normalize_options(game, &options).unwrap(),
        turn_time: TurnTime::None,
        rated: false,
        public: false,
    }
}

fn config() -> Arc<RoomConfig> {
    Arc::new(RoomConfig {
        cpu_delay: Duration::ZERO,
        ..RoomConfig::default()
    })
}

async fn next_json(rx: &mut mpsc::Receiver<Arc<str>>) -> Value {
    let frame = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("a frame in time")
        .expect("open");
    serde_json::from_str(&frame).unwrap()
}

#[tokio::test]
async fn a_connection_that_does_not_read_is_dropped_and_the_room_goes_on() {
    let room = room::spawn(
        "r1".into(),
        settings(GameKind::Chaturaji, json!({"round_limit": 2})),
        "host".into(),
        config(),
        Box::new(MemoryLog::default()),
        BotPool::new(BotConfig {
            easy: Duration::from_millis(2),
            medium: Duration::from_millis(2),
            hard: Duration::from_millis(2),
            workers: 1,
            ..BotConfig::default()
        }),
    );
    let joined = room.join("Ann".into()).await.unwrap();
    // Ann's connection has room for two frames and is never read.
    let (slow_tx, mut slow_rx) = mpsc::channel(2);
    room.connect(Some(joined.seat_token), None, slow_tx)
        .await
        .unwrap();
    let (tx, mut watcher) = mpsc::channel(1000);
    room.connect(None, None, tx).await.unwrap();
    room.start("host".into(), false).await.unwrap();

    // The watcher sees Red's connection dropped by the room itself.
    loop {
        let m = next_json(&mut watcher).await;
        if m["event"]["e"] == "connection" && m["event"]["connected"] == false {
            assert_eq!(m["event"]["seat"], "red");
            break;
        }
    }
    // The slow outbox holds what fitted, then is closed.
    let mut kept = 0;
    while slow_rx.recv().await.is_some() {
        kept += 1;
    }
    assert!(kept <= 2);
    // The seat stays Ann's: away, not yet covered by the CPU (the grace period runs).
    let info = room.info().await.unwrap();
    assert_eq!(
        info.seats[0],
        protocol::Occupant::Human {
            name: "Ann".into(),
            connected: false,
            cpu_playing: false
        }
    );
}

#[test]
fn house_rules_fill_defaults_and_report_every_problem() {
    let full = TableGame::normalize_options(GameKind::Fourchess, &json!({"mode": "ffa"})).unwrap();
    assert_eq!(
        full,
        json!({"mode": "ffa", "move_limit": null, "show_legal_moves": true, "rotate_starter": true})
    );
    let problems = TableGame::normalize_options(
        GameKind::Chaturaji,
        &json!({"dice": 3, "round_limit": 500, "x": 1}),
    )
    .unwrap_err();
    let names: Vec<_> = problems
        .iter()
        .map(|p| (p.option.as_str(), p.code.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("dice", "bad_value"),
            ("x", "unknown_option"),
            ("round_limit", "out_of_range")
        ]
    );
    assert!(TableGame::normalize_options(GameKind::Chaturaji, &json!([1])).is_err());
}
