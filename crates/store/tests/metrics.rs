//! The log writer reports its write latency and queue depth through the `metrics` facade (served by
//! the server's `/metrics`). Own test binary: it installs the process-wide recorder.

mod common;

use common::TestDb;
use metrics_exporter_prometheus::PrometheusBuilder;
use serde_json::json;
use store::{Durable, EntryKind, LogEntry, LogWriter, NewRoom, WriterConfig};

/// The value of the first sample line of `name` (exact name, no labels) in the Prometheus text.
fn sample(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writer_records_write_latency_and_queue_depth() {
    let recorder = PrometheusBuilder::new().build_recorder();
    let handle = recorder.handle();
    metrics::set_global_recorder(recorder).expect("the only recorder of this test binary");

    let db = TestDb::sqlite();
    let store = db.open().await;
    store
        .create_room(&NewRoom {
            id: "m1".to_owned(),
            game_kind: "chaturaji".to_owned(),
            options: json!({}),
            host_token: "t".to_owned(),
            settings: json!({}),
        })
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Twenty appends at once: at least one transaction, each entry acknowledged from the database.
    let (writer, _task) = LogWriter::start(store, WriterConfig::new(dir.path().join("spool")))
        .await
        .unwrap();
    let mut appends = tokio::task::JoinSet::new();
    for seq in 1..=20 {
        let writer = writer.clone();
        appends.spawn(async move {
            writer
                .append(LogEntry {
                    room_id: "m1".to_owned(),
                    game_no: 1,
                    seq,
                    kind: EntryKind::Action,
                    payload: json!({ "seq": seq }),
                    at: 1_700_000_000_000 + seq,
                })
                .await
        });
    }
    while let Some(result) = appends.join_next().await {
        assert_eq!(result.unwrap(), Ok(Durable::Database));
    }
    let text = handle.render();
    // Without configured buckets the exporter renders a summary: `_count` and `_sum` lines.
    let writes = sample(&text, "fourkings_store_write_seconds_count").expect(&text);
    let committed = writer.health().committed_batches as f64;
    assert!(
        writes >= 1.0 && writes == committed,
        "{writes} vs {committed}:\n{text}"
    );
    let seconds = sample(&text, "fourkings_store_write_seconds_sum").expect(&text);
    assert!(seconds > 0.0 && seconds < 60.0, "{text}");
    // Entries per commit (group commit at work).
    assert_eq!(
        sample(&text, "fourkings_store_commits_total"),
        Some(committed),
        "{text}"
    );
    assert_eq!(
        sample(&text, "fourkings_store_committed_entries_total"),
        Some(20.0),
        "{text}"
    );
    let depth = sample(&text, "fourkings_store_queue_depth").expect(&text);
    assert!((0.0..20.0).contains(&depth), "{text}");
}
