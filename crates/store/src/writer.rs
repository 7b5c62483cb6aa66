//! The group-commit log writer.
//!
//! Rooms must persist every accepted action before acknowledging it. One transaction (one fsync) per
//! action caps throughput at the disk's fsync rate, so a single task owns the store's write path: it
//! takes every request queued at that moment, writes them all in ONE transaction and answers each
//! request (through its oneshot channel) only after the commit. The more rooms are waiting, the bigger
//! the batch, so the cost per action falls as load rises.
//!
//! Database outages (single node): when a write fails because the database is unreachable (or does not
//! answer within `write_timeout`), the writer appends the batch to the local [`Spool`] file, fsyncs it
//! and acknowledges from there ([`Durable::Spool`]). From then on everything goes to the spool — behind
//! the spooled entries, to keep each room's order — and the writer reports not ready while it retries
//! with exponential backoff. When the database answers again the spool is drained into it, in order and
//! idempotently (appends of identical entries are no-ops), and the writer is ready again. A spool left
//! by a crash is drained at the next start.
//!
//! Without a spool (`spool_path: None`, for cluster mode, where a spool would fork games) an outage
//! makes the writer refuse ([`AppendError::Unavailable`]) and report not ready until the database
//! answers a probe or a write again.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::{AppendOutcome, LogEntry, Spool, Store, StoreError};

/// Tuning of the [`LogWriter`].
#[derive(Debug, Clone)]
pub struct WriterConfig {
    /// The spool file used during database outages; `None` refuses writes during an outage instead.
    pub spool_path: Option<PathBuf>,
    /// Most entries written in one transaction.
    pub max_batch: usize,
    /// How long a commit waits for more entries to join it, when entries come faster than one per
    /// this long (zero: never waits). See [`Pacer`].
    pub commit_delay: Duration,
    /// Requests that may wait in the queue before `append` callers wait for room.
    pub queue_capacity: usize,
    /// A write that takes longer is treated as an outage (a silently cut network never errors).
    pub write_timeout: Duration,
    /// First and longest delay between attempts to drain the spool.
    pub retry_min: Duration,
    pub retry_max: Duration,
}

impl WriterConfig {
    pub fn new(spool_path: impl Into<PathBuf>) -> WriterConfig {
        WriterConfig {
            spool_path: Some(spool_path.into()),
            max_batch: 2048,
            commit_delay: Duration::ZERO,
            queue_capacity: 65_536,
            write_timeout: Duration::from_secs(5),
            retry_min: Duration::from_millis(100),
            retry_max: Duration::from_secs(2),
        }
    }

    /// A writer that never spools (cluster mode): during an outage it refuses to acknowledge.
    pub fn without_spool() -> WriterConfig {
        WriterConfig {
            spool_path: None,
            ..WriterConfig::new("")
        }
    }
}

/// Where an acknowledged entry is durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durable {
    /// Committed to the database (or already there, identical).
    Database,
    /// Fsynced to the local spool during a database outage; it reaches the database later.
    Spool,
}

/// Why an entry was not persisted. The room must not acknowledge the action.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AppendError {
    #[error("a different entry is already stored at room {room_id} game {game_no} seq {seq}")]
    SeqConflict {
        room_id: String,
        game_no: i32,
        seq: i64,
    },
    /// The database refused this entry for a reason other than an outage (e.g. unknown room).
    #[error("the database rejected the entry: {0}")]
    Rejected(String),
    /// Neither the database nor the spool could take the entry.
    #[error("the entry could not be made durable: {0}")]
    Unavailable(String),
    #[error("the log writer has stopped")]
    Closed,
}

/// What `/readyz` needs to know about the write path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriterHealth {
    /// False while entries wait in the spool (the database is unreachable or the spool is draining).
    pub ready: bool,
    /// Entries in the spool, not yet in the database.
    pub spooled: usize,
    /// The last error that sent or kept the writer in outage mode.
    pub last_error: Option<String>,
    /// Transactions and entries the writer committed directly (not through the spool) since start;
    /// their ratio is the average group-commit batch size.
    pub committed_batches: u64,
    pub committed_entries: u64,
    /// Entries moved from the spool into the database since start.
    pub drained: u64,
    /// Spooled entries the database refused when draining (a conflict or a permanent error); each is
    /// logged. They were acknowledged, so this should stay 0: anything else is a bug to look at.
    pub lost_on_drain: u64,
}

struct Request {
    entry: LogEntry,
    reply: oneshot::Sender<Result<Durable, AppendError>>,
}

/// A cloneable handle to the writer task. The task stops when every handle is dropped.
#[derive(Debug, Clone)]
pub struct LogWriter {
    tx: mpsc::Sender<Request>,
    health: watch::Receiver<WriterHealth>,
}

impl std::fmt::Debug for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Request")
            .field("entry", &self.entry)
            .finish()
    }
}

impl LogWriter {
    /// Opens the spool (loading what a previous run left in it) and starts the writer task. If the spool
    /// is not empty the writer starts not ready and drains it first.
    pub async fn start(
        store: Arc<dyn Store>,
        config: WriterConfig,
    ) -> Result<(LogWriter, JoinHandle<()>), StoreError> {
        let spool = match &config.spool_path {
            Some(path) => Some(Spool::open(path).await?),
            None => None,
        };
        let spooled = spool.as_ref().map_or(0, Spool::len);
        let (tx, rx) = mpsc::channel(config.queue_capacity.max(1));
        let initial = WriterHealth {
            ready: spooled == 0,
            spooled,
            last_error: None,
            committed_batches: 0,
            committed_entries: 0,
            drained: 0,
            lost_on_drain: 0,
        };
        let (health_tx, health_rx) = watch::channel(initial);
        let task = Task {
            pacer: Pacer::new(config.commit_delay),
            store,
            retry_delay: config.retry_min,
            retry_at: Instant::now(),
            config,
            rx,
            spool,
            health: health_tx,
        };
        let handle = tokio::spawn(task.run());
        Ok((
            LogWriter {
                tx,
                health: health_rx,
            },
            handle,
        ))
    }

    /// Persists one entry; returns once it is durable (database or spool), never before.
    pub async fn append(&self, entry: LogEntry) -> Result<Durable, AppendError> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send(Request { entry, reply })
            .await
            .map_err(|_| AppendError::Closed)?;
        answer.await.map_err(|_| AppendError::Closed)?
    }

    /// The writer's current health.
    pub fn health(&self) -> WriterHealth {
        self.health.borrow().clone()
    }

    /// Whether the writer is ready (nothing waiting in the spool).
    pub fn is_ready(&self) -> bool {
        self.health.borrow().ready
    }

    /// Waits until the health satisfies `f` (for tests and readiness probes).
    pub async fn wait_for(&self, f: impl FnMut(&WriterHealth) -> bool) -> WriterHealth {
        let mut rx = self.health.clone();
        match rx.wait_for(f).await {
            Ok(h) => h.clone(),
            Err(_) => self.health(),
        }
    }
}

/// Whether a commit waits for company (PostgreSQL's `commit_delay` does the same for its WAL flushes).
///
/// Most of a commit's cost does not depend on how many entries it carries: the round trip to the
/// database's thread or socket, the transaction, SQLite's WAL header and page-cache upkeep, the
/// fsync under `synchronous = full`. When entries come one at a time (1,000 rooms acting once a
/// second gave 1.00 entries per commit on a quiet machine), waiting `delay` for the next ones makes
/// one commit of several. It is worth it only when several more are likely to come within the delay,
/// so the pacer measures the arrival rate and waits only while at least [`Pacer::COMPANY`] more
/// entries are expected in `delay`: a few tables playing never wait, a busy server waits at most
/// `delay` (tokio's timer rounds up to the next millisecond) per action.
#[derive(Debug)]
pub struct Pacer {
    delay: Duration,
    /// Entries received since `since`...
    count: u64,
    since: Instant,
    /// ... and the arrival rate (entries per second) of the last full window.
    rate: f64,
}

impl Pacer {
    /// How long the arrival rate is counted before it is updated.
    const WINDOW: Duration = Duration::from_millis(250);
    /// How many more entries a wait must expect to gather. Two, not one: with the 5 ms default a
    /// server of 250 tables acting once a second (1.25 expected) would add 5 ms to every action to
    /// save a quarter of its commits; from 400 actions a second on, a wait at least triples a commit.
    const COMPANY: f64 = 2.0;

    pub fn new(delay: Duration) -> Pacer {
        Pacer {
            delay,
            count: 0,
            since: Instant::now(),
            rate: 0.0,
        }
    }

    fn arrived(&mut self, entries: usize, now: Instant) {
        self.count += entries as u64;
        let counted = now.saturating_duration_since(self.since);
        if counted >= Self::WINDOW {
            self.rate = self.count as f64 / counted.as_secs_f64();
            self.count = 0;
            self.since = now;
        }
    }

    /// When to commit a batch started at `now`: after the delay if the rate expects company.
    fn wait_until(&self, now: Instant) -> Option<Instant> {
        let expected = self.rate * self.delay.as_secs_f64();
        (!self.delay.is_zero() && expected >= Self::COMPANY).then(|| now + self.delay)
    }

    /// One commit's batch: `first`, what is queued behind it, and (if `may_wait` and the log is
    /// busy) what comes during the delay; at most `max` requests.
    pub async fn gather<T>(
        &mut self,
        rx: &mut mpsc::Receiver<T>,
        first: T,
        max: usize,
        may_wait: bool,
    ) -> Vec<T> {
        let mut batch = vec![first];
        take_queued(rx, &mut batch, max);
        let now = Instant::now();
        self.arrived(batch.len(), now);
        if may_wait
            && batch.len() < max
            && let Some(until) = self.wait_until(now)
        {
            // Not polling the queue meanwhile: the rooms' sends do not wake the writer.
            metrics::counter!("fourkings_store_commit_delays_total").increment(1);
            tokio::time::sleep_until(until).await;
            let before = batch.len();
            take_queued(rx, &mut batch, max);
            self.arrived(batch.len() - before, Instant::now());
        }
        batch
    }
}

/// Adds what is queued now to `batch`, up to `max` requests.
fn take_queued<T>(rx: &mut mpsc::Receiver<T>, batch: &mut Vec<T>, max: usize) {
    while batch.len() < max {
        match rx.try_recv() {
            Ok(r) => batch.push(r),
            Err(_) => break,
        }
    }
}

/// A write failure, sorted into "try again later" and "this entry is refused".
enum WriteError {
    Transient(String),
    Permanent(String),
}

struct Task {
    pacer: Pacer,
    store: Arc<dyn Store>,
    config: WriterConfig,
    rx: mpsc::Receiver<Request>,
    spool: Option<Spool>,
    health: watch::Sender<WriterHealth>,
    retry_delay: Duration,
    retry_at: Instant,
}

impl Task {
    async fn run(mut self) {
        loop {
            // The timer runs while something is wrong: entries wait in the spool, or (without a spool)
            // the last write failed and a probe should tell when the database is back.
            let first = if self.spooled() == 0 && self.health.borrow().ready {
                match self.rx.recv().await {
                    Some(r) => r,
                    None => break,
                }
            } else {
                tokio::select! {
                    r = self.rx.recv() => match r {
                        Some(r) => r,
                        None => break,
                    },
                    () = tokio::time::sleep_until(self.retry_at) => {
                        if self.spooled() > 0 {
                            self.drain().await;
                        } else {
                            self.probe().await;
                        }
                        continue;
                    }
                }
            };
            // During an outage the batch goes to the spool: nothing to gain by waiting.
            let may_wait = self.spooled() == 0;
            let batch = self
                .pacer
                .gather(&mut self.rx, first, self.config.max_batch, may_wait)
                .await;
            // What is still waiting behind this batch (served as fourkings_store_queue_depth).
            metrics::gauge!("fourkings_store_queue_depth").set(self.rx.len() as f64);
            self.handle(batch).await;
        }
        // Every handle is gone: one last attempt to drain; what remains stays on disk for the next start.
        if self.spooled() > 0 {
            self.drain().await;
        }
    }

    fn spooled(&self) -> usize {
        self.spool.as_ref().map_or(0, Spool::len)
    }

    /// Without a spool: checks whether the database answers again.
    async fn probe(&mut self) {
        match tokio::time::timeout(self.config.write_timeout, self.store.ping()).await {
            Ok(Ok(())) => {
                tracing::info!("log writer: database reachable again");
                self.retry_delay = self.config.retry_min;
                self.health.send_modify(|h| h.ready = true);
            }
            Ok(Err(e)) => self.backoff(e.to_string()),
            Err(_) => self.backoff("no answer to a ping".to_owned()),
        }
    }

    async fn write(&self, entries: &[LogEntry]) -> Result<Vec<AppendOutcome>, WriteError> {
        let started = Instant::now();
        let written =
            tokio::time::timeout(self.config.write_timeout, self.store.append(entries)).await;
        metrics::histogram!("fourkings_store_write_seconds").record(started.elapsed());
        match written {
            Ok(Ok(outcomes)) => Ok(outcomes),
            Ok(Err(e)) if e.is_transient() => Err(WriteError::Transient(e.to_string())),
            Ok(Err(e)) => Err(WriteError::Permanent(e.to_string())),
            Err(_) => Err(WriteError::Transient(format!(
                "no answer from the database within {:?}",
                self.config.write_timeout
            ))),
        }
    }

    async fn handle(&mut self, batch: Vec<Request>) {
        if self.spooled() > 0 {
            // Outage: stay behind what is already spooled, so each room's entries keep their order.
            self.spool_batch(batch, None).await;
            return;
        }
        let entries: Vec<LogEntry> = batch.iter().map(|r| r.entry.clone()).collect();
        match self.write(&entries).await {
            Ok(outcomes) => {
                self.committed(batch.len());
                for (req, outcome) in batch.into_iter().zip(outcomes) {
                    reply(req, outcome);
                }
            }
            Err(WriteError::Transient(why)) => self.spool_batch(batch, Some(why)).await,
            Err(WriteError::Permanent(_)) => {
                // One bad entry (e.g. an unknown room) fails the whole transaction: write the entries
                // one by one so that only the culprit is refused.
                let mut rest = batch.into_iter();
                while let Some(req) = rest.next() {
                    match self.write(std::slice::from_ref(&req.entry)).await {
                        Ok(outcomes) => {
                            self.committed(1);
                            reply(req, outcomes[0]);
                        }
                        Err(WriteError::Permanent(why)) => {
                            let _ = req.reply.send(Err(AppendError::Rejected(why)));
                        }
                        Err(WriteError::Transient(why)) => {
                            let remaining: Vec<Request> =
                                std::iter::once(req).chain(rest).collect();
                            self.spool_batch(remaining, Some(why)).await;
                            return;
                        }
                    }
                }
            }
        }
    }

    /// Spools a batch and acknowledges it from the spool; `why` is the failure that started an outage.
    async fn spool_batch(&mut self, batch: Vec<Request>, why: Option<String>) {
        let Some(spool) = self.spool.as_mut() else {
            // No spool: refuse, and probe until the database answers.
            let why = why.unwrap_or_else(|| "database unreachable".to_owned());
            if self.health.borrow().ready {
                tracing::warn!(error = %why, "log writer: database unreachable, refusing writes");
                self.retry_delay = self.config.retry_min;
                self.retry_at = Instant::now() + self.retry_delay;
            }
            self.health.send_modify(|h| {
                h.ready = false;
                h.last_error = Some(why.clone());
            });
            for req in batch {
                let _ = req.reply.send(Err(AppendError::Unavailable(why.clone())));
            }
            return;
        };
        let was_empty = spool.is_empty();
        let entries: Vec<LogEntry> = batch.iter().map(|r| r.entry.clone()).collect();
        match spool.push(&entries).await {
            Ok(()) => {}
            Err(e) => {
                tracing::error!(error = %e, "log writer: database and spool both unavailable");
                for req in batch {
                    let _ = req
                        .reply
                        .send(Err(AppendError::Unavailable(format!("spool: {e}"))));
                }
                // Nothing was acknowledged; the next batch tries the database again.
                self.health.send_modify(|h| {
                    h.ready = false;
                    h.last_error = Some(format!("spool: {e}"));
                });
                return;
            }
        }
        if was_empty && !spool.is_empty() {
            tracing::warn!(
                error = why.as_deref().unwrap_or("unknown"),
                spool = %spool.path().display(),
                "log writer: database unreachable, spooling"
            );
            self.retry_delay = self.config.retry_min;
            self.retry_at = Instant::now() + self.retry_delay;
        }
        let spooled = spool.len();
        self.health.send_modify(|h| {
            h.ready = spooled == 0;
            h.spooled = spooled;
            if why.is_some() {
                h.last_error = why;
            }
        });
        // Acknowledge last, so that whoever sees the acknowledgement also sees the outage.
        for req in batch {
            let _ = req.reply.send(Ok(Durable::Spool));
        }
    }

    /// Moves the spool into the database, oldest first, a batch per transaction. Stops at the first
    /// transient failure and schedules the next attempt with exponential backoff.
    async fn drain(&mut self) {
        while self.spooled() > 0 {
            let Some(spool) = self.spool.as_ref() else {
                return;
            };
            let chunk: Vec<LogEntry> = spool
                .pending()
                .iter()
                .take(self.config.max_batch)
                .cloned()
                .collect();
            match self.write(&chunk).await {
                Ok(outcomes) => {
                    let lost = outcomes
                        .iter()
                        .zip(&chunk)
                        .filter(|(o, e)| {
                            let conflict = **o == AppendOutcome::SeqConflict;
                            if conflict {
                                tracing::error!(room = %e.room_id, game = e.game_no, seq = e.seq,
                                    "log writer: spooled entry conflicts with the database; kept the stored one");
                            }
                            conflict
                        })
                        .count() as u64;
                    self.confirm(chunk.len(), lost);
                }
                Err(WriteError::Transient(why)) => return self.backoff(why),
                Err(WriteError::Permanent(_)) => {
                    // Isolate the entry the database refuses; the others go in.
                    for e in &chunk {
                        match self.write(std::slice::from_ref(e)).await {
                            Ok(o) => self.confirm(1, u64::from(o[0] == AppendOutcome::SeqConflict)),
                            Err(WriteError::Permanent(why)) => {
                                tracing::error!(room = %e.room_id, game = e.game_no, seq = e.seq, error = %why,
                                    "log writer: database refused a spooled entry");
                                self.confirm(1, 1);
                            }
                            Err(WriteError::Transient(why)) => return self.backoff(why),
                        }
                    }
                }
            }
        }
        let Some(spool) = self.spool.as_mut() else {
            return;
        };
        match spool.clear().await {
            Ok(()) => {
                tracing::info!("log writer: spool drained, database reachable again");
                self.retry_delay = self.config.retry_min;
                self.health.send_modify(|h| {
                    h.ready = true;
                    h.spooled = 0;
                });
            }
            Err(e) => {
                // The entries are in the database; the stale file is replayed harmlessly at the next
                // start. Stay not ready until the file can be truncated.
                self.backoff(format!("cannot truncate the spool: {e}"));
            }
        }
    }

    fn committed(&self, entries: usize) {
        metrics::counter!("fourkings_store_commits_total").increment(1);
        metrics::counter!("fourkings_store_committed_entries_total").increment(entries as u64);
        // Only called while the spool is empty: the database takes writes again.
        self.health.send_modify(|h| {
            h.ready = true;
            h.committed_batches += 1;
            h.committed_entries += entries as u64;
        });
    }

    fn confirm(&mut self, n: usize, lost: u64) {
        if let Some(spool) = self.spool.as_mut() {
            spool.confirm(n);
        }
        let spooled = self.spooled();
        self.health.send_modify(|h| {
            h.spooled = spooled;
            h.drained += n as u64 - lost;
            h.lost_on_drain += lost;
        });
    }

    fn backoff(&mut self, why: String) {
        self.retry_delay = (self.retry_delay * 2).min(self.config.retry_max);
        self.retry_at = Instant::now() + self.retry_delay;
        self.health.send_modify(|h| {
            h.ready = false;
            h.last_error = Some(why);
        });
    }
}

fn reply(req: Request, outcome: AppendOutcome) {
    let answer = match outcome {
        AppendOutcome::Inserted | AppendOutcome::Duplicate => Ok(Durable::Database),
        AppendOutcome::SeqConflict => Err(AppendError::SeqConflict {
            room_id: req.entry.room_id.clone(),
            game_no: req.entry.game_no,
            seq: req.entry.seq,
        }),
    };
    let _ = req.reply.send(answer);
}

#[cfg(test)]
mod pacer_tests {
    use super::*;

    /// A pacer that has seen `per_window` entries arrive in each of two windows.
    fn after(delay: Duration, per_window: usize) -> (Pacer, Instant) {
        let mut pacer = Pacer::new(delay);
        let start = pacer.since;
        pacer.arrived(per_window, start + Pacer::WINDOW);
        pacer.arrived(per_window, start + Pacer::WINDOW * 2);
        (pacer, start + Pacer::WINDOW * 2)
    }

    #[test]
    fn a_busy_log_waits_the_delay_for_company() {
        // 1,000 entries a second: five more expected in the default 5 ms.
        let (pacer, now) = after(Duration::from_millis(5), 250);
        assert_eq!(pacer.wait_until(now), Some(now + Duration::from_millis(5)));
        // 400 a second: two more expected.
        let (pacer, now) = after(Duration::from_millis(5), 100);
        assert_eq!(pacer.wait_until(now), Some(now + Duration::from_millis(5)));
    }

    #[test]
    fn a_quiet_log_commits_at_once() {
        // 500 a second: half an entry expected in a millisecond, not worth the wait.
        let (pacer, now) = after(Duration::from_millis(1), 125);
        assert_eq!(pacer.wait_until(now), None);
        // Nothing measured yet (the first window is still counting).
        let pacer = Pacer::new(Duration::from_millis(1));
        assert_eq!(pacer.wait_until(pacer.since), None);
    }

    #[test]
    fn a_few_hundred_tables_are_not_held_back_for_one_more_entry() {
        // 250 a second with the default 5 ms: 1.25 more expected, a wait would save too little.
        let (pacer, now) = after(Duration::from_millis(5), 62);
        assert_eq!(pacer.wait_until(now), None);
    }

    #[test]
    fn no_delay_never_waits() {
        let (pacer, now) = after(Duration::ZERO, 100_000);
        assert_eq!(pacer.wait_until(now), None);
    }

    #[test]
    fn the_rate_follows_the_load_down() {
        let (mut pacer, now) = after(Duration::from_millis(1), 250);
        // A quiet second after the busy ones: one entry.
        pacer.arrived(1, now + Duration::from_secs(1));
        assert_eq!(pacer.wait_until(now + Duration::from_secs(1)), None);
    }
}
