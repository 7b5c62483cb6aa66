//! The local spool: an append-only file of log entries that the database has not confirmed yet.
//!
//! While the database is unreachable the [`crate::LogWriter`] acknowledges actions from here, so the file
//! is fsynced before any of its entries is acknowledged. Format: one JSON [`LogEntry`] per line. A crash
//! in the middle of a write can leave a torn last line; that line was never acknowledged (the fsync had
//! not returned), so opening the spool drops it. A bad line anywhere else is corruption and an error.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use tokio::io::AsyncWriteExt;

use crate::{LogEntry, StoreError};

/// The spool file and, in memory, the entries it holds that are not yet in the database.
#[derive(Debug)]
pub struct Spool {
    path: PathBuf,
    file: tokio::fs::File,
    /// Length of the well-formed content: a failed write is cut back to it, so that a half-written
    /// batch (never acknowledged) cannot end up in the middle of the file.
    len: u64,
    pending: VecDeque<LogEntry>,
}

impl Spool {
    /// Opens (or creates) the spool at `path` and loads the entries left by a previous run.
    pub async fn open(path: &Path) -> Result<Spool, StoreError> {
        if let Some(dir) = path.parent()
            && !dir.as_os_str().is_empty()
        {
            tokio::fs::create_dir_all(dir).await?;
        }
        let existed = tokio::fs::try_exists(path).await?;
        let bytes = if existed {
            tokio::fs::read(path).await?
        } else {
            Vec::new()
        };
        let (pending, good_len) = parse(&bytes)?;
        let file = tokio::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .await?;
        if good_len < bytes.len() {
            tracing::warn!(
                path = %path.display(),
                dropped_bytes = bytes.len() - good_len,
                "spool: dropping a torn last line (never acknowledged)"
            );
            file.set_len(good_len as u64).await?;
            file.sync_all().await?;
        }
        if !existed {
            sync_dir(path).await?;
        }
        Ok(Spool {
            path: path.to_owned(),
            file,
            len: good_len as u64,
            pending,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Entries waiting for the database, oldest first.
    pub fn pending(&self) -> &VecDeque<LogEntry> {
        &self.pending
    }

    pub fn len(&self) -> usize {
        self.pending.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Appends entries and fsyncs: when this returns `Ok`, they survive a crash.
    pub async fn push(&mut self, entries: &[LogEntry]) -> Result<(), StoreError> {
        let mut buf = Vec::with_capacity(entries.len() * 128);
        for e in entries {
            serde_json::to_writer(&mut buf, e)?;
            buf.push(b'\n');
        }
        if let Err(e) = self.write_durably(&buf).await {
            let _ = self.file.set_len(self.len).await;
            return Err(e.into());
        }
        self.len += buf.len() as u64;
        self.pending.extend(entries.iter().cloned());
        Ok(())
    }

    async fn write_durably(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.file.write_all(buf).await?;
        self.file.flush().await?;
        self.file.sync_data().await
    }

    /// Forgets the oldest `n` entries in memory (they reached the database). The file keeps them until
    /// [`Self::clear`]: replaying them after a crash is harmless, appends being idempotent.
    pub fn confirm(&mut self, n: usize) {
        self.pending.drain(..n.min(self.pending.len()));
    }

    /// Empties the file once every entry reached the database.
    pub async fn clear(&mut self) -> Result<(), StoreError> {
        debug_assert!(self.pending.is_empty());
        self.file.set_len(0).await?;
        self.file.sync_all().await?;
        self.len = 0;
        Ok(())
    }
}

/// The entries of a spool file and the length of its well-formed prefix.
fn parse(bytes: &[u8]) -> Result<(VecDeque<LogEntry>, usize), StoreError> {
    let mut entries = VecDeque::new();
    let mut offset = 0;
    while offset < bytes.len() {
        let Some(nl) = bytes[offset..].iter().position(|&b| b == b'\n') else {
            // No newline: the last write was cut short.
            break;
        };
        let line = &bytes[offset..offset + nl];
        match serde_json::from_slice::<LogEntry>(line) {
            Ok(e) => entries.push_back(e),
            Err(e) => {
                return Err(StoreError::Corrupt(format!(
                    "spool line at byte {offset} is not a log entry: {e}"
                )));
            }
        }
        offset += nl + 1;
    }
    Ok((entries, offset))
}

/// Fsyncs the folder so that a newly created spool file itself survives a crash.
async fn sync_dir(path: &Path) -> Result<(), StoreError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    tokio::fs::File::open(dir).await?.sync_all().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EntryKind;

    fn entry(seq: i64) -> LogEntry {
        LogEntry {
            room_id: "r1".into(),
            game_no: 1,
            seq,
            kind: EntryKind::Action,
            payload: serde_json::json!({"move": format!("m{seq}")}),
            at: 1000 + seq,
        }
    }

    #[tokio::test]
    async fn spooled_entries_survive_a_reopen_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spool").join("log.jsonl");
        let mut spool = Spool::open(&path).await.unwrap();
        spool.push(&[entry(1), entry(2)]).await.unwrap();
        spool.push(&[entry(3)]).await.unwrap();
        drop(spool);
        let spool = Spool::open(&path).await.unwrap();
        let seqs: Vec<i64> = spool.pending().iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [1, 2, 3]);
    }

    #[tokio::test]
    async fn a_torn_last_line_is_dropped_and_the_file_repaired() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let mut spool = Spool::open(&path).await.unwrap();
        spool.push(&[entry(1)]).await.unwrap();
        drop(spool);
        let mut bytes = std::fs::read(&path).unwrap();
        let good = bytes.len();
        bytes.extend_from_slice(b"{\"room_id\":\"r1\",\"game_n");
        std::fs::write(&path, &bytes).unwrap();

        let mut spool = Spool::open(&path).await.unwrap();
        assert_eq!(spool.len(), 1);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), good as u64);
        spool.push(&[entry(2)]).await.unwrap();
        drop(spool);
        let spool = Spool::open(&path).await.unwrap();
        let seqs: Vec<i64> = spool.pending().iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [1, 2]);
    }

    #[tokio::test]
    async fn a_bad_line_in_the_middle_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        std::fs::write(&path, b"garbage\n{}\n").unwrap();
        assert!(matches!(
            Spool::open(&path).await,
            Err(StoreError::Corrupt(_))
        ));
    }

    #[tokio::test]
    async fn clear_empties_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let mut spool = Spool::open(&path).await.unwrap();
        spool.push(&[entry(1), entry(2)]).await.unwrap();
        spool.confirm(2);
        spool.clear().await.unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
        spool.push(&[entry(3)]).await.unwrap();
        drop(spool);
        let spool = Spool::open(&path).await.unwrap();
        assert_eq!(spool.len(), 1);
    }
}
