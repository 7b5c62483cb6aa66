//! The seam where persistence plugs in: every change of a room (seats, settings, game starts, every
//! action and dice throw) is appended here, and the room waits for the append to be durable before it
//! acknowledges or broadcasts anything. The server implements [`ActionLog`] over the store's
//! group-commit writer; [`MemoryLog`] keeps everything in memory (tests, and rooms without a store).
//!
//! Keys: game number 0 is the room's own log (see [`crate::persist::RoomRecord`]); game `n ≥ 1` is the
//! log of the room's n-th game, one entry per applied action (see [`crate::persist::GameRecordEntry`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::record::GameRecordDoc;

/// What a log entry holds: a dice throw made by the room, or anything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    Action,
    Dice,
}

/// One entry of a room's append-only log.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    pub room: String,
    /// 0: the room's own log; n ≥ 1: the n-th game's log.
    pub game_no: u32,
    /// Position in its log, from 0.
    pub seq: u64,
    pub kind: EntryKind,
    pub payload: Value,
}

/// Why an entry was not kept. Either way the room acknowledges and applies nothing of it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LogError {
    /// The log cannot take entries now (e.g. the database is unreachable); the room may retry.
    #[error("action log unavailable: {0}")]
    Unavailable(String),
    /// Cluster mode: this node no longer owns the room (another node claimed it, or this node's
    /// lease ran out). The room must stop at once: another node serves it now.
    #[error("this node no longer serves the room: {0}")]
    Fenced(String),
}

/// A boxed future that does not borrow the log (the room awaits it while it owns `&mut self`).
pub type LogFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// The rating changes a recorded, rated game caused (`None`: unrated, or recorded before).
pub type Rated = Option<Vec<protocol::RatingChange>>;

pub trait ActionLog: Send + Sync + std::fmt::Debug + 'static {
    /// Makes the entry durable (as durable as this log is); resolves only then. An error means the
    /// entry was not kept: the room must not acknowledge or apply what it records.
    fn append(&self, entry: LogEntry) -> LogFuture<Result<(), LogError>>;

    /// Keeps a finished game's record, exactly once (idempotent by game id), retrying through
    /// outages; resolves with the rating changes once it is written.
    fn record_game(&self, doc: GameRecordDoc) -> LogFuture<Rated> {
        let _ = doc;
        Box::pin(async { None })
    }

    /// The room closed (idle): it is not rebuilt after a restart.
    fn room_closed(&self, room: &str) {
        let _ = room;
    }
}

/// Keeps the log in memory (shared, so a test can read what the room wrote).
#[derive(Debug, Default, Clone)]
pub struct MemoryLog {
    pub entries: Arc<Mutex<Vec<LogEntry>>>,
    pub records: Arc<Mutex<Vec<GameRecordDoc>>>,
}

impl MemoryLog {
    pub fn entries(&self) -> Vec<LogEntry> {
        self.entries.lock().expect("memory log lock").clone()
    }
}

impl ActionLog for MemoryLog {
    fn append(&self, entry: LogEntry) -> LogFuture<Result<(), LogError>> {
        self.entries.lock().expect("memory log lock").push(entry);
        Box::pin(async { Ok(()) })
    }

    fn record_game(&self, doc: GameRecordDoc) -> LogFuture<Rated> {
        self.records.lock().expect("memory log lock").push(doc);
        Box::pin(async { None })
    }
}
