//! Database outages (design.md, "Database outages", single node): the log writer in front of a real
//! PostgreSQL reached through a TCP proxy that the test cuts and restores.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{Proxy, TestDb, split_pg_url};
use serde_json::json;
use store::{
    AppendError, Durable, EntryKind, LogEntry, LogWriter, NewRoom, OpenOptions, Store, WriterConfig,
};

fn entry(room: &str, seq: i64) -> LogEntry {
    LogEntry {
        room_id: room.to_owned(),
        game_no: 1,
        seq,
        kind: EntryKind::Action,
        payload: json!({"room": room, "seq": seq}),
        at: 1_700_000_000_000 + seq,
    }
}

fn new_room(id: &str) -> NewRoom {
    NewRoom {
        id: id.to_owned(),
        game_kind: "fourchess".to_owned(),
        options: json!({}),
        host_token: "t".to_owned(),
        settings: json!({}),
    }
}

/// A fresh database, a store connected to it directly, a proxy in front of it and a store connected
/// through the proxy (short timeouts so that the outage shows quickly).
async fn setup() -> Option<(TestDb, Arc<dyn Store>, Proxy, Arc<dyn Store>)> {
    let db = TestDb::postgres().await?;
    let direct = db.open().await;
    let (prefix, upstream, rest) = split_pg_url(db.url());
    let proxy = Proxy::start(upstream).await;
    let proxied_url = format!("{prefix}127.0.0.1:{}{rest}", proxy.port);
    let options = OpenOptions {
        max_connections: 4,
        acquire_timeout: Duration::from_millis(1500),
        ..Default::default()
    };
    let proxied = store::open_with(&proxied_url, &options).await.unwrap();
    Some((db, direct, proxy, proxied))
}

fn writer_config(spool: std::path::PathBuf) -> WriterConfig {
    WriterConfig {
        write_timeout: Duration::from_secs(3),
        retry_min: Duration::from_millis(50),
        retry_max: Duration::from_millis(400),
        // Small batches, so that draining takes several transactions.
        max_batch: 4,
        ..WriterConfig::new(spool)
    }
}

async fn spool_lines(path: &std::path::Path) -> usize {
    tokio::fs::read_to_string(path)
        .await
        .unwrap()
        .lines()
        .count()
}

async fn wait_ready(writer: &LogWriter) {
    tokio::time::timeout(Duration::from_secs(30), writer.wait_for(|h| h.ready))
        .await
        .expect("the writer did not drain its spool within 30 s");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_outage_acknowledges_from_the_spool_and_drains_in_order() {
    let Some((db, direct, proxy, proxied)) = setup().await else {
        return;
    };
    for r in ["r1", "r2"] {
        direct.create_room(&new_room(r)).await.unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool.jsonl");
    let (writer, _task) = LogWriter::start(proxied.clone(), writer_config(spool.clone()))
        .await
        .unwrap();

    for seq in 1..=5 {
        for r in ["r1", "r2"] {
            assert_eq!(writer.append(entry(r, seq)).await, Ok(Durable::Database));
        }
    }
    assert!(writer.is_ready());

    proxy.cut().await;
    // Two rooms keep playing through the outage, concurrently.
    let rooms: Vec<_> = ["r1", "r2"]
        .into_iter()
        .map(|r| {
            let writer = writer.clone();
            tokio::spawn(async move {
                for seq in 6..=15 {
                    assert_eq!(writer.append(entry(r, seq)).await, Ok(Durable::Spool));
                }
            })
        })
        .collect();
    for room in rooms {
        room.await.unwrap();
    }
    let health = writer.health();
    assert!(!health.ready, "{health:?}");
    assert_eq!(health.spooled, 20);
    assert!(health.last_error.is_some());
    assert_eq!(
        spool_lines(&spool).await,
        20,
        "acknowledged entries are on disk"
    );
    assert_eq!(
        direct.load_log("r1", 1).await.unwrap().len(),
        5,
        "nothing reached the database"
    );

    proxy.restore().await;
    wait_ready(&writer).await;
    let health = writer.health();
    assert_eq!(
        (health.spooled, health.drained, health.lost_on_drain),
        (0, 20, 0)
    );
    assert_eq!(spool_lines(&spool).await, 0);
    for r in ["r1", "r2"] {
        let log = direct.load_log(r, 1).await.unwrap();
        assert_eq!(log, (1..=15).map(|seq| entry(r, seq)).collect::<Vec<_>>());
    }
    assert_eq!(writer.append(entry("r1", 16)).await, Ok(Durable::Database));

    drop(writer);
    proxied.close().await;
    direct.close().await;
    db.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_crash_during_an_outage_loses_nothing() {
    let Some((db, direct, proxy, proxied)) = setup().await else {
        return;
    };
    direct.create_room(&new_room("r1")).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool.jsonl");

    let (writer, task) = LogWriter::start(proxied.clone(), writer_config(spool.clone()))
        .await
        .unwrap();
    proxy.cut().await;
    for seq in 1..=10 {
        assert_eq!(writer.append(entry("r1", seq)).await, Ok(Durable::Spool));
    }
    // The process dies: the writer task is gone with its memory; only the spool file remains.
    task.abort();
    let _ = task.await;
    drop(writer);
    // Say the first two entries had reached the database just before the crash (a commit whose answer
    // was lost): draining them again must be harmless. And say something else wrote a different seq 5
    // (impossible on a single node; here to see it reported): the stored one wins and it is counted.
    let mut other_5 = entry("r1", 5);
    other_5.payload = json!({"written": "elsewhere"});
    direct
        .append(&[entry("r1", 1), entry("r1", 2), other_5.clone()])
        .await
        .unwrap();

    // Restart while the database is still unreachable: the writer starts not ready, keeps spooling
    // behind the old entries, and drains everything once the database is back.
    let (writer, _task) = LogWriter::start(proxied.clone(), writer_config(spool.clone()))
        .await
        .unwrap();
    let health = writer.health();
    assert!(!health.ready);
    assert_eq!(health.spooled, 10);
    assert_eq!(writer.append(entry("r1", 11)).await, Ok(Durable::Spool));

    proxy.restore().await;
    wait_ready(&writer).await;
    let health = writer.health();
    assert_eq!(
        (health.drained, health.lost_on_drain),
        (10, 1),
        "{health:?}"
    );
    let log = direct.load_log("r1", 1).await.unwrap();
    let expected: Vec<LogEntry> = (1..=11)
        .map(|seq| {
            if seq == 5 {
                other_5.clone()
            } else {
                entry("r1", seq)
            }
        })
        .collect();
    assert_eq!(log, expected);
    assert_eq!(spool_lines(&spool).await, 0);

    drop(writer);
    proxied.close().await;
    direct.close().await;
    db.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_silent_network_cut_times_out_into_the_spool() {
    let Some((db, direct, proxy, proxied)) = setup().await else {
        return;
    };
    direct.create_room(&new_room("r1")).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = WriterConfig {
        write_timeout: Duration::from_millis(1500),
        ..writer_config(dir.path().join("spool.jsonl"))
    };
    let (writer, _task) = LogWriter::start(proxied.clone(), config).await.unwrap();
    assert_eq!(writer.append(entry("r1", 1)).await, Ok(Durable::Database));

    // Packets vanish: no error ever comes back, only the write timeout notices.
    proxy.stall();
    let acked = tokio::time::timeout(Duration::from_secs(10), writer.append(entry("r1", 2)))
        .await
        .expect("a stalled database must not stall the game");
    assert_eq!(acked, Ok(Durable::Spool));
    assert!(!writer.is_ready());

    proxy.restore().await;
    wait_ready(&writer).await;
    let log = direct.load_log("r1", 1).await.unwrap();
    assert_eq!(log, vec![entry("r1", 1), entry("r1", 2)]);

    drop(writer);
    proxied.close().await;
    direct.close().await;
    db.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_outage_without_a_spool_refuses_and_recovers() {
    // Cluster mode: a spool would fork games, so the writer stops acknowledging instead.
    let Some((db, direct, proxy, proxied)) = setup().await else {
        return;
    };
    direct.create_room(&new_room("r1")).await.unwrap();
    let config = WriterConfig {
        spool_path: None,
        ..writer_config("unused".into())
    };
    let (writer, _task) = LogWriter::start(proxied.clone(), config).await.unwrap();
    assert_eq!(writer.append(entry("r1", 1)).await, Ok(Durable::Database));

    proxy.cut().await;
    assert!(matches!(
        writer.append(entry("r1", 2)).await,
        Err(AppendError::Unavailable(_))
    ));
    assert!(!writer.is_ready());
    assert_eq!(direct.load_log("r1", 1).await.unwrap().len(), 1);

    // The writer probes by itself and becomes ready again without any traffic.
    proxy.restore().await;
    wait_ready(&writer).await;
    assert_eq!(writer.append(entry("r1", 2)).await, Ok(Durable::Database));
    assert_eq!(
        direct.load_log("r1", 1).await.unwrap(),
        vec![entry("r1", 1), entry("r1", 2)]
    );
    assert!(!std::path::Path::new("unused").exists());

    drop(writer);
    proxied.close().await;
    direct.close().await;
    db.cleanup().await;
}
