//! SQLite WAL checkpoints in the background, never inside a commit.
//!
//! SQLite's own policy (`wal_autocheckpoint`, 1,000 pages) has the commit that crosses the threshold
//! copy the WAL into the database file and fsync it before it returns. On the action log that commit
//! is a group commit: every action waiting in it, and every one queued behind it, waited for the
//! copy and the fsync. At 1,000 rooms × 1 act/s that was most of the act→event p99 (6.9–8.2 ms, and
//! 1.8–1.9 ms with this task; docs/benchmarks.md, session 15). So every connection opens with
//! `wal_autocheckpoint = 0` and this task, on a connection of its own, checkpoints instead:
//!
//! - every `interval`, a PASSIVE checkpoint: it copies what is committed without taking any lock a
//!   writer needs, so commits go on meanwhile;
//! - when the WAL has grown past `restart_pages`, a RESTART checkpoint. A PASSIVE one never lets the
//!   WAL start over while commits keep coming (SQLite rewinds it only when a writer starts with every
//!   frame already copied), so under steady load the file would grow without end. RESTART needs the
//!   write lock, which a steady stream of appends on another connection hardly ever leaves free
//!   (SQLite's busy handler polls for it every few milliseconds), so it runs on the store's writing
//!   connection: it waits there for the write in progress, copies the few frames since the last
//!   PASSIVE checkpoint while the next writes wait for the connection, and the next commit writes
//!   from the start of the file again.

use std::sync::Arc;
use std::time::Duration;

use sqlx::{Sqlite, SqlitePool};
use tokio::time::Instant;

use crate::held::HeldConnection;

/// When the background checkpoints run (the `database.sqlite_checkpoint_*` settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckpointPolicy {
    /// Between two PASSIVE checkpoints.
    pub interval: Duration,
    /// WAL pages past which a checkpoint also restarts the WAL.
    pub restart_pages: u32,
}

impl Default for CheckpointPolicy {
    fn default() -> Self {
        CheckpointPolicy {
            interval: Duration::from_millis(200),
            restart_pages: 65_536,
        }
    }
}

/// What one `PRAGMA wal_checkpoint` reported (its third column, the pages copied, is not used).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Checkpointed {
    /// The checkpoint could not finish (a RESTART that readers or a writer held back).
    busy: bool,
    /// Pages in the WAL.
    wal_pages: i64,
}

/// A checkpoint mode of `PRAGMA wal_checkpoint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Passive,
    Restart,
}

impl Mode {
    /// The statement, and the metrics label.
    fn sql_and_label(self) -> (&'static str, &'static str) {
        match self {
            Mode::Passive => ("PRAGMA wal_checkpoint(PASSIVE)", "passive"),
            Mode::Restart => ("PRAGMA wal_checkpoint(RESTART)", "restart"),
        }
    }
}

/// Runs one checkpoint on `on` (a pool or a connection) and records it in the metrics.
async fn checkpoint<'e>(
    on: impl sqlx::Executor<'e, Database = Sqlite>,
    mode: Mode,
) -> Result<Checkpointed, sqlx::Error> {
    let started = Instant::now();
    let (sql, label) = mode.sql_and_label();
    let (busy, wal_pages, _copied): (i64, i64, i64) = sqlx::query_as(sql).fetch_one(on).await?;
    metrics::histogram!("fourkings_store_checkpoint_seconds", "mode" => label)
        .record(started.elapsed());
    metrics::counter!("fourkings_store_checkpoints_total", "mode" => label).increment(1);
    metrics::gauge!("fourkings_store_wal_pages").set(wal_pages as f64);
    Ok(Checkpointed {
        busy: busy != 0,
        wal_pages,
    })
}

/// PASSIVE checkpoints at most before a RESTART, each copying what came during the one before...
const CATCH_UP_ROUNDS: usize = 4;
/// ... until fewer pages than this came meanwhile.
const CATCH_UP_PAGES: i64 = 256;

/// The checkpointing task: PASSIVE checkpoints on `pool` (its own connection), RESTART ones on
/// `writer` (the store's writing connection); runs until `pool` is closed.
pub(crate) async fn run(
    pool: SqlitePool,
    writer: Arc<HeldConnection<Sqlite>>,
    policy: CheckpointPolicy,
) {
    let every = policy.interval.max(Duration::from_millis(1));
    let mut tick = tokio::time::interval_at(Instant::now() + every, every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if pool.is_closed() {
            return;
        }
        let passive = match checkpoint(&pool, Mode::Passive).await {
            Ok(done) => done,
            Err(e) => {
                // The database is unreachable or closing; the log writer reports outages.
                tracing::debug!(error = %e, "WAL checkpoint failed");
                continue;
            }
        };
        if passive.wal_pages >= i64::from(policy.restart_pages) {
            // Catch up first, alongside the appends: the RESTART holds them back while it copies
            // what came since the last PASSIVE checkpoint, so that should be little.
            let mut behind = passive.wal_pages;
            for _ in 0..CATCH_UP_ROUNDS {
                match checkpoint(&pool, Mode::Passive).await {
                    Ok(done) if done.wal_pages - behind > CATCH_UP_PAGES => behind = done.wal_pages,
                    _ => break,
                }
            }
            match writer
                .run(async |conn| checkpoint(conn, Mode::Restart).await)
                .await
            {
                Ok(done) if done.busy => {
                    tracing::debug!(
                        wal_pages = done.wal_pages,
                        "WAL restart held back; next tick"
                    )
                }
                Ok(_) => {}
                Err(e) => tracing::debug!(error = %e, "WAL restart failed"),
            }
        }
    }
}
