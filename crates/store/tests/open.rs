//! Opening stores: the backend comes from the URL scheme; SQLite needs no setup.

mod common;

use sqlx::Connection;
use store::{Backend, StoreError};

#[tokio::test]
async fn sqlite_file_and_folder_are_created_on_first_start_in_wal_mode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data").join("nested").join("fourkings.db");
    let url = format!("sqlite://{}", path.display());
    let store = store::open(&url).await.unwrap();
    assert_eq!(store.backend(), Backend::Sqlite);
    assert!(path.exists());
    store.create_player("Ann").await.unwrap();
    store.close().await;

    let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(mode, "wal");
    conn.close().await.unwrap();

    // Reopening keeps the data and does not re-run the migrations.
    let store = store::open(&url).await.unwrap();
    let board = store
        .leaderboard(rating::Pool::Chaturaji, Default::default())
        .await
        .unwrap();
    assert!(board.is_empty());
    assert!(store.player("cpu:easy").await.unwrap().is_some());
    store.close().await;
}

/// `PRAGMA synchronous` of a pooled connection: 2 = FULL, 1 = NORMAL.
async fn synchronous_of(options: &store::OpenOptions) -> i64 {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("sync.db").display());
    let store = store::SqliteStore::open(&url, options).await.unwrap();
    let level = sqlx::query_scalar("PRAGMA synchronous")
        .fetch_one(store.pool())
        .await
        .unwrap();
    store.pool().close().await;
    level
}

#[tokio::test]
async fn sqlite_fsyncs_every_commit_unless_the_operator_chooses_normal() {
    assert_eq!(synchronous_of(&store::OpenOptions::default()).await, 2);
    let normal = store::OpenOptions {
        sqlite_sync: store::SqliteSync::Normal,
        ..Default::default()
    };
    assert_eq!(synchronous_of(&normal).await, 1);
}

#[tokio::test]
async fn postgres_url_opens_a_postgres_store() {
    let Some(db) = common::TestDb::postgres().await else {
        return;
    };
    let store = db.open().await;
    assert_eq!(store.backend(), Backend::Postgres);
    store.ping().await.unwrap();
    store.close().await;
    // Opening an already migrated database again is fine.
    let again = db.open().await;
    again.ping().await.unwrap();
    again.close().await;
    db.cleanup().await;
}

/// PostgreSQL opened to read: every transaction is read-only, so a tool beside the server cannot
/// change what it reads.
#[tokio::test]
async fn postgres_opened_to_read_refuses_writes() {
    let Some(db) = common::TestDb::postgres().await else {
        return;
    };
    let owner = db.open().await;
    let player = owner.create_player("Owner").await.unwrap();
    let reader = store::open_to_read(db.url()).await.unwrap();
    assert_eq!(
        reader
            .player(&player.player.id)
            .await
            .unwrap()
            .map(|p| p.display_name),
        Some("Owner".to_owned())
    );
    assert!(reader.create_player("Reader").await.is_err());
    reader.close().await;
    owner.close().await;
    db.cleanup().await;
}

#[tokio::test]
async fn unknown_schemes_are_refused() {
    for url in ["mysql://localhost/x", "data/fourkings.db", ""] {
        assert!(matches!(
            store::open(url).await,
            Err(StoreError::UnsupportedUrl(_))
        ));
    }
}

#[tokio::test]
async fn unreachable_postgres_is_a_transient_error() {
    // Port 1 on loopback: nothing listens there.
    let options = store::OpenOptions {
        max_connections: 1,
        acquire_timeout: std::time::Duration::from_millis(300),
        ..Default::default()
    };
    let err = store::open_with("postgres://postgres@127.0.0.1:1/x", &options)
        .await
        .unwrap_err();
    assert!(err.is_transient(), "{err}");
}

/// A room for log entries to belong to (the log's rows reference it).
fn room_r1() -> store::NewRoom {
    store::NewRoom {
        id: "r1".into(),
        game_kind: "chaturaji".into(),
        options: serde_json::json!({}),
        host_token: "t".into(),
        settings: serde_json::json!({}),
    }
}

/// A SQLite store with default options in a new temporary folder (removed when the returned guard
/// drops), holding the room `r1`.
async fn sqlite_with_r1(file: &str) -> (tempfile::TempDir, store::SqliteStore) {
    use store::Store;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join(file).display());
    let store = store::SqliteStore::open(&url, &store::OpenOptions::default())
        .await
        .unwrap();
    store.create_room(&room_r1()).await.unwrap();
    (dir, store)
}

/// The action log appends on a connection of its own, with its own page cache: REST reads holding
/// every pooled connection never make a game wait, and no other connection's writes make it drop
/// its cache.
#[tokio::test]
async fn sqlite_appends_on_their_own_connection_even_when_the_pool_is_busy() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("log.db").display());
    let options = store::OpenOptions {
        max_connections: 1,
        acquire_timeout: std::time::Duration::from_millis(300),
        sqlite_log_cache_kib: 4096,
        ..Default::default()
    };
    let store = store::SqliteStore::open(&url, &options).await.unwrap();
    use store::Store;
    store.create_room(&room_r1()).await.unwrap();
    const CACHE: &str = "PRAGMA cache_size";
    let log_cache: i64 = store
        .on_writing_connection(async |conn| sqlx::query_scalar(CACHE).fetch_one(conn).await)
        .await
        .unwrap();
    assert_eq!(log_cache, -4096);
    let pool_cache: i64 = sqlx::query_scalar(CACHE)
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(pool_cache, -2000, "SQLite's default");
    // Every pooled connection is taken (a slow report, say): the game's log still writes.
    let held = store.pool().acquire().await.unwrap();
    let entry = store::LogEntry {
        room_id: "r1".into(),
        game_no: 1,
        seq: 0,
        kind: store::EntryKind::Action,
        payload: serde_json::json!({"move": "e2e4"}),
        at: 1,
    };
    let outcome = store.append(std::slice::from_ref(&entry)).await.unwrap();
    assert_eq!(outcome, vec![store::AppendOutcome::Inserted]);
    drop(held);
    assert_eq!(store.load_log("r1", 1).await.unwrap(), vec![entry]);
    store.close().await;
}

/// The log's connection is held between appends, never given back to its pool (sqlx pings a
/// connection given back: one more round trip to its worker thread per append); an append cancelled
/// half-way (the writer's timeout) gives it back, and the next append takes it again.
#[tokio::test]
async fn sqlite_holds_the_logs_connection_between_appends() {
    use store::Store;
    let (_dir, store) = sqlite_with_r1("held.db").await;
    let entry = |seq| store::LogEntry {
        room_id: "r1".into(),
        game_no: 1,
        seq,
        kind: store::EntryKind::Action,
        payload: serde_json::json!({"seq": seq}),
        at: 1,
    };
    let in_pool_within = async |want: bool| {
        for _ in 0..200 {
            if store.writing_connection_in_pool() == want {
                return true;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        false
    };
    for seq in 0..3 {
        store.append(&[entry(seq)]).await.unwrap();
    }
    // A connection given back would be in the pool again as soon as its ping is answered.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert!(!store.writing_connection_in_pool(), "held after appends");
    // Another connection holds the write lock, so the INSERT waits in SQLite's busy handler until
    // the append is cancelled: the connection goes back to the pool (the INSERT, already sent to
    // the worker thread, may still land once the lock is free).
    let mut blocker = store.pool().acquire().await.unwrap();
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut *blocker)
        .await
        .unwrap();
    let cancelled = tokio::time::timeout(
        std::time::Duration::from_millis(100),
        store.append(&[entry(3)]),
    )
    .await;
    assert!(cancelled.is_err(), "the append was cancelled half-way");
    sqlx::query("COMMIT").execute(&mut *blocker).await.unwrap();
    drop(blocker);
    assert!(in_pool_within(true).await, "given back after the cancel");
    store.append(&[entry(3)]).await.unwrap();
    store.append(&[entry(4)]).await.unwrap();
    assert!(in_pool_within(false).await, "held again");
    let seqs: Vec<i64> = store
        .load_log("r1", 1)
        .await
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(seqs, vec![0, 1, 2, 3, 4]);
    store.close().await;
}

/// A write that only finds the request wrong (an unknown id) keeps the writing connection: giving it
/// back would make the next write pay a pool acquire and its ping for nothing.
#[tokio::test]
async fn sqlite_keeps_the_writing_connection_after_a_refused_request() {
    use store::Store;
    let (_dir, store) = sqlite_with_r1("refused.db").await;
    let settings = serde_json::json!({});
    for _ in 0..3 {
        let renamed = store.rename_player("nobody", "Ann").await;
        assert!(
            matches!(
                renamed,
                Err(store::StoreError::NotFound { what: "player", .. })
            ),
            "{renamed:?}"
        );
        let updated = store
            .update_room("nowhere", &settings, &settings, store::RoomState::Lobby)
            .await;
        assert!(
            matches!(
                updated,
                Err(store::StoreError::NotFound { what: "room", .. })
            ),
            "{updated:?}"
        );
    }
    // A connection given back would be in the pool again as soon as its ping is answered.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert!(!store.writing_connection_in_pool(), "held after refusals");
    store.close().await;
}

/// Every write of the SQLite store goes through the one writing connection, behind the write before
/// it: no two connections ever want SQLite's write lock, so no write sleeps in SQLite's busy handler
/// (1, 2, 5, 10 … ms between tries; a game record written on a pooled connection while the log
/// appended held actions back by 40–140 ms). While the writing connection is taken, each kind of
/// write waits; once it is free, each one completes; reads do not wait.
#[tokio::test]
async fn sqlite_every_write_waits_for_the_one_writing_connection() {
    use std::future::Future;
    use std::pin::Pin;
    use store::Store;
    let (_dir, store) = sqlite_with_r1("writer.db").await;
    let store = std::sync::Arc::new(store);
    let ann = store.create_player("Ann").await.unwrap().player.id;
    let cpu = |level: &str| store::SeatPlayer {
        player_id: format!("cpu:{level}"),
        cpu_finished: false,
    };
    let game = store::FinishedGame {
        id: "r1-1".into(),
        room_id: "r1".into(),
        game_no: 1,
        pool: rating::Pool::Chaturaji,
        unrated: None,
        options: serde_json::json!({}),
        first_seat: rules::Seat::Red,
        dice_commit: None,
        revealed_seed: None,
        seats: [cpu("easy"), cpu("medium"), cpu("hard"), cpu("greedy")],
        result: rating::GameResult::Places([1, 2, 3, 4]),
        standings: serde_json::json!([]),
        record: serde_json::json!({}),
        finished_at: 1,
    };
    type Write = Pin<Box<dyn Future<Output = Result<(), StoreError>> + Send>>;
    let writes: Vec<(&str, Write)> = vec![
        ("create_player", {
            let s = store.clone();
            Box::pin(async move { s.create_player("Bo").await.map(drop) })
        }),
        ("rename_player", {
            let (s, ann) = (store.clone(), ann.clone());
            Box::pin(async move { s.rename_player(&ann, "Anne").await.map(drop) })
        }),
        ("create_room", {
            let s = store.clone();
            let mut r2 = room_r1();
            r2.id = "r2".into();
            Box::pin(async move { s.create_room(&r2).await.map(drop) })
        }),
        ("update_room", {
            let s = store.clone();
            Box::pin(async move {
                let (o, st) = (serde_json::json!({}), serde_json::json!({}));
                s.update_room("r1", &o, &st, store::RoomState::Playing)
                    .await
                    .map(drop)
            })
        }),
        ("close_rooms", {
            let s = store.clone();
            Box::pin(async move { s.close_rooms(&["nobody".to_owned()]).await.map(drop) })
        }),
        ("record_game", {
            let s = store.clone();
            Box::pin(async move { s.record_game(&game).await.map(drop) })
        }),
        ("append", {
            let s = store.clone();
            let entry = store::LogEntry {
                room_id: "r1".into(),
                game_no: 1,
                seq: 0,
                kind: store::EntryKind::Action,
                payload: serde_json::json!({}),
                at: 1,
            };
            Box::pin(async move { s.append(&[entry]).await.map(drop) })
        }),
    ];
    let (taken_tx, taken) = tokio::sync::oneshot::channel();
    let (free, free_rx) = tokio::sync::oneshot::channel::<()>();
    let holder = tokio::spawn({
        let store = store.clone();
        async move {
            store
                .on_writing_connection(async |_| {
                    taken_tx.send(()).unwrap();
                    free_rx.await.unwrap();
                    Ok(())
                })
                .await
                .unwrap()
        }
    });
    taken.await.unwrap();
    let running: Vec<_> = writes
        .into_iter()
        .map(|(name, w)| (name, tokio::spawn(w)))
        .collect();
    // Reads go on meanwhile.
    assert!(store.room("r1").await.unwrap().is_some());
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    for (name, task) in &running {
        assert!(
            !task.is_finished(),
            "{name} wrote without the writing connection"
        );
    }
    free.send(()).unwrap();
    holder.await.unwrap();
    for (name, task) in running {
        task.await
            .unwrap()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    assert!(store.game("r1-1").await.unwrap().is_some());
    assert_eq!(store.load_log("r1", 1).await.unwrap().len(), 1);
    store.close().await;
}

/// Commits never checkpoint (`wal_autocheckpoint = 0` on every connection): the store's own task
/// does, in the background, and restarts the WAL once it is past the configured size, so the file
/// stays bounded under a steady stream of commits.
#[tokio::test]
async fn sqlite_checkpoints_in_the_background_and_keeps_the_wal_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wal.db");
    let url = format!("sqlite://{}", path.display());
    let options = store::OpenOptions {
        sqlite_sync: store::SqliteSync::Normal,
        sqlite_checkpoint: store::checkpoint::CheckpointPolicy {
            interval: std::time::Duration::from_millis(5),
            restart_pages: 32,
        },
        ..Default::default()
    };
    let store = store::SqliteStore::open(&url, &options).await.unwrap();
    const AUTO: &str = "PRAGMA wal_autocheckpoint";
    let auto: i64 = sqlx::query_scalar(AUTO)
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(auto, 0);
    let auto: i64 = store
        .on_writing_connection(async |conn| sqlx::query_scalar(AUTO).fetch_one(conn).await)
        .await
        .unwrap();
    assert_eq!(auto, 0);
    use store::Store;
    store.create_room(&room_r1()).await.unwrap();
    // Start from an empty WAL file (the migrations wrote theirs).
    store
        .on_writing_connection(async |conn| {
            sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
                .execute(conn)
                .await
        })
        .await
        .unwrap();
    let wal_frames = || {
        let len = std::fs::metadata(dir.path().join("wal.db-wal"))
            .unwrap()
            .len();
        // A 32-byte header, then frames of a 24-byte header and one 4 KiB page.
        len.saturating_sub(32) / (24 + 4096)
    };
    assert_eq!(wal_frames(), 0);
    // 3,000 commits write at least 3,000 frames. A server's log has pauses between its group
    // commits; here one every 100 commits lets the checkpointer's ticks come. SQLite's own policy
    // (a checkpoint at 1,000 pages) would let the file reach 1,000 frames.
    const N: i64 = 3000;
    for seq in 0..N {
        let entry = store::LogEntry {
            room_id: "r1".into(),
            game_no: 1,
            seq,
            kind: store::EntryKind::Action,
            payload: serde_json::json!({"seq": seq}),
            at: seq,
        };
        store.append(&[entry]).await.unwrap();
        if seq % 100 == 99 {
            tokio::time::sleep(std::time::Duration::from_millis(30)).await;
        }
    }
    let frames = wal_frames();
    assert!(frames <= 600, "the WAL grew to {frames} frames");
    assert_eq!(store.load_log("r1", 1).await.unwrap().len(), N as usize);
    store.close().await;
}

/// The connections a busy moment opened are closed once idle for `pool_idle`: what they hold (their
/// caches; a SQLite connection's thread) is given back (issue 20, target 1: after a 1,000-room load
/// the extra pooled connections held ~230 KiB of the heap that stayed).
#[tokio::test]
async fn idle_pooled_connections_are_closed_after_pool_idle() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("idle.db").display());
    let options = store::OpenOptions {
        max_connections: 4,
        pool_idle: std::time::Duration::from_millis(100),
        ..Default::default()
    };
    let store = store::SqliteStore::open(&url, &options).await.unwrap();
    let pool = store.pool();
    // A busy moment: four connections at once.
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(pool.acquire().await.unwrap());
    }
    drop(held);
    assert_eq!(pool.size(), 4);
    let started = std::time::Instant::now();
    while pool.size() > 0 && started.elapsed() < std::time::Duration::from_secs(5) {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(pool.size(), 0, "idle connections still open");
    use store::Store;
    store.close().await;
}
