//! SQLite's action log in two parts (`crates/store/src/tail.rs`): appends go to `room_log_tail` in
//! arrival order and move into `room_log` by room, in the background; reads, retries and conflicts
//! see one log whichever part an entry is in.

use std::time::Duration;

use serde_json::json;
use sqlx::Connection;
use store::tail::MergePolicy;
use store::{AppendOutcome, EntryKind, LogEntry, SqliteStore, Store};

fn new_room(id: &str) -> store::NewRoom {
    store::NewRoom {
        id: id.into(),
        game_kind: "chaturaji".into(),
        options: json!({}),
        host_token: "t".into(),
        settings: json!({}),
    }
}

fn entry(room: &str, seq: i64, payload: serde_json::Value) -> LogEntry {
    LogEntry {
        room_id: room.into(),
        game_no: 1,
        seq,
        kind: EntryKind::Action,
        payload,
        at: seq,
    }
}

/// A store whose tail moves a room at `room_rows` entries or after `age`, looked at every 5 ms, with
/// the rooms `a` and `b`.
async fn store_with(room_rows: usize, age: Duration) -> (tempfile::TempDir, String, SqliteStore) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("tail.db").display());
    let options = store::OpenOptions {
        sqlite_log_merge: MergePolicy {
            interval: Duration::from_millis(5),
            room_rows,
            age,
            step_rows: 1000,
        },
        ..Default::default()
    };
    let store = SqliteStore::open(&url, &options).await.unwrap();
    store.create_room(&new_room("a")).await.unwrap();
    store.create_room(&new_room("b")).await.unwrap();
    (dir, url, store)
}

/// Rows of `table` for `room`, read on a pooled connection.
async fn rows_in(store: &SqliteStore, table: &str, room: &str) -> i64 {
    sqlx::query_scalar(&format!("SELECT COUNT(*) FROM {table} WHERE room_id = $1"))
        .bind(room)
        .fetch_one(store.pool())
        .await
        .unwrap()
}

/// Waits (up to 5 s) until `room_log` holds `n` entries of `room`.
async fn until_moved(store: &SqliteStore, room: &str, n: i64) {
    for _ in 0..500 {
        if rows_in(store, "room_log", room).await == n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!(
        "room {room}: {} entries in room_log, expected {n}",
        rows_in(store, "room_log", room).await
    );
}

fn seqs(log: &[LogEntry]) -> Vec<i64> {
    log.iter().map(|e| e.seq).collect()
}

#[tokio::test]
async fn a_room_moves_out_of_the_tail_at_its_entry_count_and_reads_see_each_entry_once() {
    let (_dir, _url, store) = store_with(3, Duration::from_secs(600)).await;
    // `b` first: its entry has the tail's lowest id and keeps the tail's start in place after
    // `a` has moved, so `a`'s rows stay in the tail table too (hidden from reads).
    store.append(&[entry("b", 0, json!("b0"))]).await.unwrap();
    for seq in 0..2 {
        store.append(&[entry("a", seq, json!(seq))]).await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(rows_in(&store, "room_log", "a").await, 0, "2 < 3 entries");
    assert_eq!(seqs(&store.load_log("a", 1).await.unwrap()), [0, 1]);

    store.append(&[entry("a", 2, json!(2))]).await.unwrap();
    until_moved(&store, "a", 3).await;
    assert_eq!(rows_in(&store, "room_log", "b").await, 0);
    assert_eq!(rows_in(&store, "room_log_tail", "a").await, 3);
    assert_eq!(seqs(&store.load_log("a", 1).await.unwrap()), [0, 1, 2]);
    assert_eq!(seqs(&store.load_log("b", 1).await.unwrap()), [0]);
    assert_eq!(store.last_game_no("a").await.unwrap(), Some(1));

    // Once `b` moves too, the tail is deleted from its start.
    for seq in 1..3 {
        store.append(&[entry("b", seq, json!(seq))]).await.unwrap();
    }
    until_moved(&store, "b", 3).await;
    let tail: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM room_log_tail")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(tail, 0);
    assert_eq!(seqs(&store.load_log("b", 1).await.unwrap()), [0, 1, 2]);
    store.close().await;
}

#[tokio::test]
async fn a_quiet_room_moves_once_its_oldest_entry_has_waited() {
    let (_dir, _url, store) = store_with(1000, Duration::from_millis(200)).await;
    store.append(&[entry("a", 0, json!(0))]).await.unwrap();
    assert_eq!(rows_in(&store, "room_log", "a").await, 0);
    until_moved(&store, "a", 1).await;
    assert_eq!(seqs(&store.load_log("a", 1).await.unwrap()), [0]);
    store.close().await;
}

/// A closed room writes no more, so its entries move at once instead of after their age (their
/// keys leave the memory with them: after every room of a load has closed, nothing of it stays).
#[tokio::test]
async fn a_closed_room_moves_at_the_next_look() {
    let (_dir, _url, store) = store_with(1000, Duration::from_secs(600)).await;
    for seq in 0..3 {
        store.append(&[entry("a", seq, json!(seq))]).await.unwrap();
    }
    store.append(&[entry("b", 0, json!(0))]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(rows_in(&store, "room_log", "a").await, 0, "open: waits");
    store
        .update_room("a", &json!({}), &json!({}), store::RoomState::Closed)
        .await
        .unwrap();
    until_moved(&store, "a", 3).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(rows_in(&store, "room_log", "b").await, 0, "b is still open");
    store.close().await;
}

/// A retry is a `Duplicate` and another entry at a taken key a `SeqConflict`, whether the stored
/// entry is still in the tail or has moved, alone or in a batch with new entries.
#[tokio::test]
async fn retries_and_conflicts_are_told_apart_in_the_tail_and_after_the_move() {
    let (_dir, _url, store) = store_with(2, Duration::from_secs(600)).await;
    let first = entry("a", 0, json!("first"));
    assert_eq!(
        store.append(std::slice::from_ref(&first)).await.unwrap(),
        [AppendOutcome::Inserted]
    );
    // In the tail.
    assert_eq!(
        store
            .append(&[first.clone(), entry("a", 0, json!("other"))])
            .await
            .unwrap(),
        [AppendOutcome::Duplicate, AppendOutcome::SeqConflict]
    );
    store.append(&[entry("a", 1, json!(1))]).await.unwrap();
    until_moved(&store, "a", 2).await;
    // Moved: the same answers, next to a new entry that goes in.
    assert_eq!(
        store
            .append(&[
                entry("a", 0, json!("other")),
                entry("a", 2, json!(2)),
                first.clone()
            ])
            .await
            .unwrap(),
        [
            AppendOutcome::SeqConflict,
            AppendOutcome::Inserted,
            AppendOutcome::Duplicate
        ]
    );
    let log = store.load_log("a", 1).await.unwrap();
    assert_eq!(seqs(&log), [0, 1, 2]);
    assert_eq!(log[0].payload, json!("first"));
    store.close().await;
}

/// A run that ended before its entries moved (a crash, `kill -9`) leaves them in the tail: the next
/// start moves them, and they are retried, conflicted and read as before.
#[tokio::test]
async fn a_tail_left_by_a_previous_run_moves_at_the_next_start() {
    let (_dir, url, store) = store_with(1000, Duration::from_secs(600)).await;
    store
        .append(&[entry("a", 0, json!(0)), entry("a", 1, json!(1))])
        .await
        .unwrap();
    store.close().await;
    // The rows as the crashed run left them.
    let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    let tail: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM room_log_tail")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(tail, 2);
    conn.close().await.unwrap();

    let store = SqliteStore::open(&url, &store::OpenOptions::default())
        .await
        .unwrap();
    assert_eq!(rows_in(&store, "room_log", "a").await, 2);
    assert_eq!(rows_in(&store, "room_log_tail", "a").await, 0);
    assert_eq!(
        store
            .append(&[
                entry("a", 1, json!(1)),
                entry("a", 0, json!("other")),
                entry("a", 2, json!(2))
            ])
            .await
            .unwrap(),
        [
            AppendOutcome::Duplicate,
            AppendOutcome::SeqConflict,
            AppendOutcome::Inserted
        ]
    );
    assert_eq!(seqs(&store.load_log("a", 1).await.unwrap()), [0, 1, 2]);
    store.close().await;
}

/// A store opened to read beside the running server (tests, tools) leaves the server's tail rows
/// where they are: moving them would take rows the server still counts as its own, and the write
/// could meet the server's writer (`database is locked`). It writes nothing at all.
#[tokio::test]
async fn a_store_opened_to_read_moves_none_of_the_running_servers_tail_and_writes_nothing() {
    let (_dir, url, owner) = store_with(1000, Duration::from_secs(600)).await;
    owner
        .append(&[entry("a", 0, json!(0)), entry("a", 1, json!(1))])
        .await
        .unwrap();
    let reader = store::open_to_read(&url).await.unwrap();
    assert_eq!(seqs(&reader.load_log("a", 1).await.unwrap()), [0, 1]);
    assert_eq!(rows_in(&owner, "room_log_tail", "a").await, 2);
    assert_eq!(rows_in(&owner, "room_log", "a").await, 0);
    assert!(reader.append(&[entry("a", 2, json!(2))]).await.is_err());
    assert!(reader.create_player("Reader").await.is_err());
    assert_eq!(
        owner.append(&[entry("a", 2, json!(2))]).await.unwrap(),
        [AppendOutcome::Inserted]
    );
    assert_eq!(seqs(&reader.load_log("a", 1).await.unwrap()), [0, 1, 2]);
    reader.close().await;
    owner.close().await;
}

/// The tail's batch insert reads each row out of one JSON array: every payload, whatever its JSON
/// type, lands as the same JSON text (a string keeps its quotes, an object its nesting) and reads back
/// equal, in the tail and after the move.
#[tokio::test]
async fn payloads_of_every_json_type_are_stored_as_json_text_and_read_back_equal() {
    let (_dir, _url, store) = store_with(1000, Duration::from_secs(600)).await;
    let payloads = [
        json!({"action": {"from": "d2", "to": "d4"}, "n": [1, 2.5, null]}),
        json!("text with \"quotes\" and é"),
        json!(42),
        json!(null),
        json!([true, {"a": []}]),
    ];
    let entries: Vec<LogEntry> = (0..)
        .zip(&payloads)
        .map(|(seq, p)| entry("a", seq, p.clone()))
        .collect();
    assert!(
        store
            .append(&entries)
            .await
            .unwrap()
            .iter()
            .all(|o| *o == AppendOutcome::Inserted)
    );
    let stored: Vec<(String, String)> =
        sqlx::query_as("SELECT typeof(payload), payload FROM room_log_tail ORDER BY seq")
            .fetch_all(store.pool())
            .await
            .unwrap();
    for ((kind, text), p) in stored.iter().zip(&payloads) {
        assert_eq!(kind, "text");
        assert_eq!(serde_json::from_str::<serde_json::Value>(text).unwrap(), *p);
    }
    let read_back = async || -> Vec<serde_json::Value> {
        let log = store.load_log("a", 1).await.unwrap();
        log.into_iter().map(|e| e.payload).collect()
    };
    assert_eq!(read_back().await, payloads, "from the tail");
    store
        .update_room("a", &json!({}), &json!({}), store::RoomState::Closed)
        .await
        .unwrap();
    until_moved(&store, "a", payloads.len() as i64).await;
    assert_eq!(read_back().await, payloads, "after the move");
    store.close().await;
}
