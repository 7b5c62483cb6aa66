//! The room actor in-process: slow connections are dropped, never waited for.

use std::sync::Arc;
use std::time::Duration;

use protocol::{GameKind, TurnTime};
use room::bot::BotConfig;
use room::bot_pool::BotPool;
use room::game::TableOptions;
use room::log::MemoryLog;
use room::outbox::{self, Outbox};
use room::{RoomConfig, RoomSettings};
use serde_json::{Value, json};

fn settings(game: GameKind, options: Value) -> RoomSettings {
    RoomSettings {
        options: TableOptions::normalize(game, &options).unwrap(),
        turn_time: TurnTime::None,
        rated: false,
        public: false,
        spectator_chat: false,
    }
}

/// CPU players that think for 2 ms: the tests are about the room, not about play strength.
fn fast_pool() -> Arc<BotPool> {
    BotPool::new(BotConfig {
        easy: Duration::from_millis(2),
        medium: Duration::from_millis(2),
        hard: Duration::from_millis(2),
        workers: 1,
        ..BotConfig::default()
    })
}

fn config() -> Arc<RoomConfig> {
    Arc::new(RoomConfig {
        cpu_delay: Duration::ZERO,
        ..RoomConfig::default()
    })
}

async fn next_json(rx: &mut Outbox) -> Value {
    let frame = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("a frame in time")
        .expect("open");
    serde_json::from_str(&frame).unwrap()
}

#[tokio::test]
async fn a_connection_that_does_not_read_is_dropped_and_the_room_goes_on() {
    let room = room::create(
        "r1".into(),
        settings(GameKind::Chaturaji, json!({"round_limit": 2})),
        "host",
        config(),
        Arc::new(MemoryLog::default()),
        fast_pool(),
    )
    .await
    .unwrap();
    let joined = room.join("Ann".into(), None).await.unwrap();
    // Ann's connection has room for two frames and is never read.
    let (slow_tx, mut slow_rx) = outbox::channel(2);
    room.connect(Some(joined.seat_token), None, slow_tx)
        .await
        .unwrap();
    let (tx, mut watcher) = outbox::channel(1000);
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
            cpu_playing: false,
            handed_over: false,
            muted: false,
        }
    );
}

#[test]
fn house_rules_fill_defaults_and_report_every_problem() {
    let full = TableOptions::normalize(GameKind::Fourchess, &json!({"mode": "ffa"})).unwrap();
    assert_eq!(
        full.to_json(),
        json!({"mode": "ffa", "move_limit": null, "show_legal_moves": true, "rotate_starter": true})
    );
    let problems = TableOptions::normalize(
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
    assert!(TableOptions::normalize(GameKind::Chaturaji, &json!([1])).is_err());
}

/// The room's log as the store would hand it back.
fn stored(id: &str, log: &MemoryLog) -> room::StoredRoom {
    let mut out = room::StoredRoom {
        id: id.into(),
        ..Default::default()
    };
    for e in log.entries() {
        assert_eq!(e.room, id);
        let list = if e.game_no == 0 {
            &mut out.room_log
        } else {
            out.games.entry(e.game_no).or_default()
        };
        assert_eq!(e.seq as usize, list.len(), "seqs follow each other");
        list.push(e.payload);
    }
    out
}

async fn snapshot_of(room: &room::RoomHandle) -> Value {
    let (tx, mut rx) = outbox::channel(1000);
    room.connect(None, None, tx).await.unwrap();
    let welcome = next_json(&mut rx).await;
    welcome["snapshot"].clone()
}

#[tokio::test]
async fn a_room_rebuilt_from_its_log_is_the_same_room() {
    // Ann (red) starts and the room throws her dice; when neither die can move (early in a game
    // about one turn in four) her turn passes and the humans' turns below never come: take another
    // room then. Each attempt has its own log.
    let mut attempt = 0;
    let (log, room, joined, conn, mut rx, view) = loop {
        attempt += 1;
        assert!(
            attempt <= 20,
            "twenty starts without a usable throw for red"
        );
        let log = MemoryLog::default();
        let room = room::create(
            "r2".into(),
            settings(GameKind::Chaturaji, json!({"round_limit": 30})),
            "host",
            config(),
            Arc::new(log.clone()),
            fast_pool(),
        )
        .await
        .unwrap();
        let joined = room.join("Ann".into(), Some("p_1".into())).await.unwrap();
        // Humans in red, blue and yellow: after Ann's action nobody plays until blue does, so the log
        // and the snapshot below are of the same moment.
        room.join("Bob".into(), None).await.unwrap();
        room.join("Cy".into(), None).await.unwrap();
        room.seat_cpu("host".into(), protocol::Seat::Green, 2)
            .await
            .unwrap();
        room.start("host".into(), false).await.unwrap();
        let (tx, mut rx) = outbox::channel(1000);
        let conn = room
            .connect(Some(joined.seat_token.clone()), None, tx)
            .await
            .unwrap();
        let view = tokio::time::timeout(Duration::from_secs(2), async {
            loop {
                let m = next_json(&mut rx).await;
                if m["t"] == "view" && m["legal"].as_array().is_some_and(|l| !l.is_empty()) {
                    break m;
                }
            }
        })
        .await;
        if let Ok(view) = view {
            break (log, room, joined, conn, rx, view);
        }
    };
    // Play one action so the log has a human action.
    room.act(conn.conn, 41, Some(view["legal"][0].clone()))
        .await
        .unwrap();
    loop {
        let m = next_json(&mut rx).await;
        assert_ne!(m["t"], "error", "{m}");
        if m["t"] == "ack" {
            break;
        }
    }
    let before = snapshot_of(&room).await;

    let rebuilt = room::restore(
        stored("r2", &log),
        config(),
        Arc::new(MemoryLog::default()),
        fast_pool(),
    )
    .unwrap();
    let after = snapshot_of(&rebuilt).await;
    assert_eq!(after["game"]["actions"], before["game"]["actions"]);
    assert_eq!(after["game"]["state"], before["game"]["state"]);
    assert_eq!(after["game"]["dice_commit"], before["game"]["dice_commit"]);
    assert_eq!(
        after["room"]["seats"][3],
        json!({"kind": "cpu", "level": 2})
    );
    // The seat token and the host token still work; the human starts disconnected.
    assert_eq!(
        after["room"]["seats"][0],
        json!({"kind": "human", "name": "Ann", "connected": false, "cpu_playing": false})
    );
    let (tx, mut rx2) = outbox::channel(1000);
    let conn2 = rebuilt
        .connect(Some(joined.seat_token), Some(3), tx)
        .await
        .unwrap();
    let welcome = next_json(&mut rx2).await;
    assert!(
        welcome["snapshot"].is_object(),
        "an old version gets a snapshot"
    );
    // Ack 41 was applied before the rebuild: it is acknowledged again, not applied again.
    rebuilt
        .act(conn2.conn, 41, Some(view["legal"][0].clone()))
        .await
        .unwrap();
    loop {
        let m = next_json(&mut rx2).await;
        assert_ne!(m["t"], "error", "{m}");
        assert_ne!(m["event"]["e"], "acted", "nothing is applied again: {m}");
        if m["t"] == "ack" {
            assert_eq!(m["ack"], 41);
            break;
        }
    }
    assert!(
        rebuilt
            .start("not the host".into(), false)
            .await
            .is_err_and(|e| e.code == protocol::ErrorCode::BadToken)
    );
    // A tampered dice throw is refused instead of rebuilt silently.
    let mut bad = stored("r2", &log);
    let first = bad.games.get_mut(&1).unwrap();
    first[0]["action"]["dice"] = json!([7, 7]);
    assert!(room::restore(bad, config(), Arc::new(MemoryLog::default()), fast_pool()).is_err());
}
