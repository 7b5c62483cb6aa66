//! Persisted actions per second with many concurrent rooms, for both backends:
//! group commit (the `LogWriter`: one transaction for everything queued) against one transaction per
//! action (each room calling `Store::append` for its own entry).
//!
//! Every room appends its actions one after another, each after the previous one's acknowledgement,
//! as a real room does. Run: `cargo bench -p fourkings-store --bench append [-- ROOMS ACTIONS]`
//! (defaults 1000 rooms × 20 actions). PostgreSQL comes from `FK_TEST_PG` like the tests; it
//! is skipped with a message when unreachable.

#[path = "../tests/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::time::Instant;

use serde_json::json;
use store::{Durable, EntryKind, LogEntry, LogWriter, NewRoom, Store, WriterConfig};

fn entry(room: usize, seq: i64) -> LogEntry {
    LogEntry {
        room_id: format!("room-{room:05}"),
        game_no: 1,
        seq,
        kind: EntryKind::Action,
        payload: json!({"type": "move", "seat": "red", "from": "d2", "to": "d3", "ack": seq}),
        at: 1_700_000_000_000 + seq,
    }
}

/// What one run measured.
struct Run {
    secs: f64,
    /// Acknowledgement latency percentiles in milliseconds (p50, p99).
    p50_ms: f64,
    p99_ms: f64,
}

/// Runs `rooms` concurrent rooms appending `actions` entries each through `append`.
async fn run_rooms<F, Fut>(rooms: usize, actions: i64, append: F) -> Run
where
    F: Fn(LogEntry) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let start = Instant::now();
    let tasks: Vec<_> = (0..rooms)
        .map(|r| {
            let append = append.clone();
            tokio::spawn(async move {
                let mut latencies = Vec::with_capacity(actions as usize);
                for seq in 1..=actions {
                    let sent = Instant::now();
                    append(entry(r, seq)).await;
                    latencies.push(sent.elapsed().as_secs_f64() * 1000.0);
                }
                latencies
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for t in tasks {
        latencies.extend(t.await.unwrap());
    }
    let secs = start.elapsed().as_secs_f64();
    latencies.sort_by(f64::total_cmp);
    let pct = |p: f64| latencies[((latencies.len() - 1) as f64 * p) as usize];
    Run {
        secs,
        p50_ms: pct(0.50),
        p99_ms: pct(0.99),
    }
}

fn report(name: &str, mode: &str, rooms: usize, actions: i64, run: &Run, per_tx: f64) {
    let total = rooms as f64 * actions as f64;
    println!(
        "{name:<8} | {mode:<26} | {rooms:>5} rooms x {actions:>3} | {:>6.2} s | {:>7.0} actions/s | p50 {:>7.1} ms | p99 {:>7.1} ms | {per_tx:>6.1} entries/tx",
        run.secs,
        total / run.secs,
        run.p50_ms,
        run.p99_ms,
    );
}

async fn bench_backend(name: &str, db: common::TestDb, rooms: usize, actions: i64) {
    // Group commit.
    let store = db.open().await;
    create_rooms(&store, 0, rooms).await;
    let spool_dir = tempfile::tempdir().unwrap();
    let (writer, task) = LogWriter::start(
        store.clone(),
        WriterConfig::new(spool_dir.path().join("spool")),
    )
    .await
    .unwrap();
    let w = writer.clone();
    let run = run_rooms(rooms, actions, move |e| {
        let w = w.clone();
        async move { assert_eq!(w.append(e).await, Ok(Durable::Database)) }
    })
    .await;
    let h = writer.health();
    let per_tx = h.committed_entries as f64 / h.committed_batches.max(1) as f64;
    report(
        name,
        "group commit (LogWriter)",
        rooms,
        actions,
        &run,
        per_tx,
    );
    drop(writer);
    task.await.unwrap();

    // One transaction per action, on fresh rooms of the same database.
    let s = store.clone();
    let offset = rooms;
    create_rooms(&store, offset, rooms).await;
    let run = run_rooms(rooms, actions, move |mut e| {
        let s = s.clone();
        async move {
            let r: usize = e.room_id[5..].parse().unwrap();
            e.room_id = format!("room-{:05}", r + offset);
            s.append(std::slice::from_ref(&e)).await.unwrap();
        }
    })
    .await;
    report(
        name,
        "one transaction per action",
        rooms,
        actions,
        &run,
        1.0,
    );
    store.close().await;
    db.cleanup().await;
}

async fn create_rooms(store: &Arc<dyn Store>, offset: usize, rooms: usize) {
    for r in offset..offset + rooms {
        store
            .create_room(&NewRoom {
                id: format!("room-{r:05}"),
                game_kind: "fourchess".to_owned(),
                options: json!({}),
                host_token: "t".to_owned(),
                settings: json!({}),
            })
            .await
            .unwrap();
    }
}

fn main() {
    let numbers: Vec<usize> = std::env::args().filter_map(|a| a.parse().ok()).collect();
    let rooms = numbers.first().copied().unwrap_or(1000);
    let actions = numbers.get(1).copied().unwrap_or(20) as i64;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        println!(
            "{rooms} rooms, each appending {actions} actions one after another (waiting for each ack); \
             8 pooled connections; SQLite WAL synchronous=FULL; PostgreSQL on 127.0.0.1"
        );
        bench_backend("sqlite", common::TestDb::sqlite(), rooms, actions).await;
        match common::TestDb::postgres().await {
            Some(db) => bench_backend("postgres", db, rooms, actions).await,
            None => println!("postgres | skipped: server unreachable"),
        }
    });
}
