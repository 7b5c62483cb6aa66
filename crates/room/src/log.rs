//! The seam where persistence plugs in: every accepted action is appended here before it is
//! acknowledged or broadcast. Today the log lives in memory; a store will implement [`ActionLog`].

use serde_json::Value;

/// One accepted game action, enough to rebuild the room by replay.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    pub room: String,
    pub game_no: u32,
    /// Position of the action in its game, from 0.
    pub seq: u64,
    pub action: Value,
}

#[derive(Debug, thiserror::Error)]
#[error("action log unavailable: {0}")]
pub struct LogError(pub String);

pub trait ActionLog: Send + std::fmt::Debug + 'static {
    /// Make the entry durable (as durable as this log is) before the room acknowledges it.
    fn append(&mut self, entry: LogEntry) -> Result<(), LogError>;
}

/// Keeps the log in memory: the default until a store exists.
#[derive(Debug, Default)]
pub struct MemoryLog {
    pub entries: Vec<LogEntry>,
}

impl ActionLog for MemoryLog {
    fn append(&mut self, entry: LogEntry) -> Result<(), LogError> {
        self.entries.push(entry);
        Ok(())
    }
}
