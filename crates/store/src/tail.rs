//! SQLite's action log in two parts: appends go to `room_log_tail`, a table in arrival order, and a
//! background task moves each room's entries into `room_log` (keyed by room, game, seq) many at a
//! time (migration `0004_log_tail.sql`; readers see both through the `room_log_all` view).
//!
//! Why: `room_log` keeps every room's entries together, so an append lands on its room's own page. A
//! commit of entries of k rooms wrote k pages to the WAL (two writes each) and the checkpoint copied
//! them again: at 1,000 rooms × 1 act/s that was the largest part of an action's CPU. The tail takes a
//! commit on its last page or two whatever the number of rooms; a room's entries are moved once it
//! has [`MergePolicy::room_rows`] of them (or its oldest has waited [`MergePolicy::age`], or the room
//! was closed), so a room's page is written once per many entries (docs/benchmarks.md, session 31).
//!
//! The primary key of `room_log` used to tell a retry (`Duplicate`) and a conflict (`SeqConflict`)
//! from a new entry. The tail has no such key (it would be one more page per room per commit again),
//! so [`Tail`] remembers the keys of the entries it holds, and an append checks `room_log` for the
//! rest (`NOT EXISTS`: a read of the room's page, no write). The memory may only say too much, never
//! too little: keys are remembered before their INSERT runs and forgotten only once their rows are in
//! `room_log` or their INSERT certainly failed, because a write timeout can drop an append half-way
//! while the connection still carries it out. A remembered key whose row is not found was never
//! written.
//!
//! All of it runs on the store's one writing connection, so appends and moves never interleave.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use sqlx::types::Json;
use sqlx::{Sqlite, SqliteConnection};
use tokio::time::Instant;

use crate::{AppendOutcome, LogEntry, StoreError};

/// Rows per INSERT at most (larger batches take the slow path, one entry at a time).
const CHUNK: usize = 1000;

/// When the tail's entries move into `room_log` (the `database.sqlite_log_merge_*` settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MergePolicy {
    /// How often the task looks for rooms to move.
    pub interval: Duration,
    /// A room's entries move once it has this many in the tail ...
    pub room_rows: usize,
    /// ... or its oldest has waited this long (a quiet or closed room).
    pub age: Duration,
    /// At most this many entries per move (one transaction that every append waits for).
    pub step_rows: usize,
}

impl Default for MergePolicy {
    fn default() -> Self {
        MergePolicy {
            interval: Duration::from_millis(100),
            room_rows: 32,
            age: Duration::from_secs(30),
            step_rows: 256,
        }
    }
}

/// The move of the tail's rows chosen by the SQL condition `$rows` into `room_log`, in key order. A
/// row `room_log` holds already is skipped, never a key conflict: it was moved by a step whose memory
/// update was lost (the task dropped after its commit), or by a run that ended before deleting it.
macro_rules! move_rows {
    ($rows:literal) => {
        concat!(
            "INSERT INTO room_log (room_id, game_no, seq, kind, payload, at) \
             SELECT t.room_id, t.game_no, t.seq, t.kind, t.payload, t.at FROM room_log_tail t \
             WHERE ",
            $rows,
            " AND NOT EXISTS (SELECT 1 FROM room_log l \
               WHERE l.room_id = t.room_id AND l.game_no = t.game_no AND l.seq = t.seq) \
             ORDER BY t.room_id, t.game_no, t.seq"
        )
    };
}

/// An entry's key in the log.
type Key = (String, i32, i64);

fn key_of(e: &LogEntry) -> Key {
    (e.room_id.clone(), e.game_no, e.seq)
}

/// One room's entries in the tail, oldest first.
#[derive(Debug)]
struct RoomTail {
    /// (tail id, game, seq).
    rows: Vec<(i64, i32, i64)>,
    since: Instant,
    /// The room was closed: nothing more will join these rows.
    closed: bool,
}

#[derive(Debug, Default)]
struct State {
    next_id: i64,
    /// Every entry that may be in the tail and not yet in `room_log`, with its tail id.
    keys: HashMap<Key, i64>,
    rooms: HashMap<String, RoomTail>,
}

impl State {
    fn remember(&mut self, e: &LogEntry) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.keys.insert(key_of(e), id);
        self.rooms
            .entry(e.room_id.clone())
            .or_insert_with(|| RoomTail {
                rows: Vec::new(),
                since: Instant::now(),
                closed: false,
            })
            .rows
            .push((id, e.game_no, e.seq));
        id
    }

    /// Forgets one entry (its row is in `room_log`, or was never written).
    fn forget(&mut self, key: &Key) {
        let Some(id) = self.keys.remove(key) else {
            return;
        };
        if let Some(room) = self.rooms.get_mut(&key.0) {
            room.rows.retain(|&(row, _, _)| row != id);
            if room.rows.is_empty() {
                self.rooms.remove(&key.0);
            }
        }
    }

    /// The smallest tail id still to move once the rooms `leaving` have moved: every row below it
    /// is in `room_log` then.
    fn low_water(&self, leaving: &[String]) -> i64 {
        self.rooms
            .iter()
            .filter(|(room, _)| !leaving.contains(room))
            .filter_map(|(_, r)| r.rows.first().map(|&(id, _, _)| id))
            .min()
            .unwrap_or(self.next_id)
    }

    /// Gives back the capacity of a busier moment once the maps are mostly empty
    /// ([`crate::sparse`]).
    fn shrink(&mut self) {
        crate::sparse::give_back(&mut self.keys);
        crate::sparse::give_back(&mut self.rooms);
    }

    fn publish(&self) {
        metrics::gauge!("fourkings_store_log_tail_entries").set(self.keys.len() as f64);
    }
}

/// The tail's memory and policy; lives in the [`crate::SqliteStore`].
#[derive(Debug)]
pub(crate) struct Tail {
    state: std::sync::Mutex<State>,
    policy: MergePolicy,
}

impl Tail {
    /// Moves whatever a previous run left in the tail (it ended before its task moved it) into
    /// `room_log`, so that the memory starts empty and true.
    pub(crate) async fn open(
        conn: &mut SqliteConnection,
        policy: MergePolicy,
    ) -> Result<Tail, StoreError> {
        let mut tx = sqlx::Connection::begin(&mut *conn).await?;
        let last: Option<i64> = sqlx::query_scalar("SELECT MAX(id) FROM room_log_tail")
            .fetch_one(&mut *tx)
            .await?;
        sqlx::query(move_rows!("1")).execute(&mut *tx).await?;
        sqlx::query("DELETE FROM room_log_tail")
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        let state = State {
            next_id: last.unwrap_or(0) + 1,
            ..State::default()
        };
        state.publish();
        Ok(Tail {
            state: std::sync::Mutex::new(state),
            policy,
        })
    }

    /// The tail of a store opened to read beside the server that owns the database: it moves
    /// nothing (those rows are the server's) and, never appended to, remembers nothing; reads see the
    /// server's tail rows through the `room_log_all` view.
    pub(crate) fn beside(policy: MergePolicy) -> Tail {
        Tail {
            state: std::sync::Mutex::new(State::default()),
            policy,
        }
    }

    pub(crate) fn policy(&self) -> MergePolicy {
        self.policy
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while the lock was held left at worst keys remembered too long: still safe.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Appends `entries` (see [`crate::Store::append`]).
    pub(crate) async fn append(
        &self,
        conn: &mut SqliteConnection,
        entries: &[LogEntry],
    ) -> Result<Vec<AppendOutcome>, StoreError> {
        let Some(ids) = self.claim(entries) else {
            // A retry, a key repeated in the batch or a very large batch: one entry at a time.
            let mut tx = sqlx::Connection::begin(&mut *conn).await?;
            let mut outcomes = Vec::with_capacity(entries.len());
            for e in entries {
                outcomes.push(self.append_one(&mut tx, e).await?);
            }
            tx.commit().await?;
            return Ok(outcomes);
        };
        let rows: Vec<(i64, &LogEntry)> = ids.iter().copied().zip(entries).collect();
        match insert(&mut *conn, &rows).await {
            Ok(n) if n == entries.len() as u64 => Ok(vec![AppendOutcome::Inserted; entries.len()]),
            Ok(_) => {
                // Some keys are in `room_log` already: which ones, and do they match?
                let mut outcomes = Vec::with_capacity(entries.len());
                for (id, e) in rows {
                    let written: Option<i64> =
                        sqlx::query_scalar("SELECT id FROM room_log_tail WHERE id = $1")
                            .bind(id)
                            .fetch_optional(&mut *conn)
                            .await?;
                    outcomes.push(match written {
                        Some(_) => AppendOutcome::Inserted,
                        None => {
                            self.forget(e);
                            in_room_log(&mut *conn, e).await?
                        }
                    });
                }
                Ok(outcomes)
            }
            Err(e) => {
                // The statement failed as a whole: none of its rows exist.
                let mut state = self.state();
                for e in entries {
                    state.forget(&key_of(e));
                }
                state.publish();
                Err(e)
            }
        }
    }

    /// Remembers `entries` and gives them their tail ids, unless one may be in the tail already (or
    /// comes twice) or they are too many for one INSERT.
    fn claim(&self, entries: &[LogEntry]) -> Option<Vec<i64>> {
        if entries.len() > CHUNK {
            return None;
        }
        let mut state = self.state();
        let mut seen = HashSet::with_capacity(entries.len());
        if !entries.iter().all(|e| {
            let key = key_of(e);
            !state.keys.contains_key(&key) && seen.insert(key)
        }) {
            return None;
        }
        let ids = entries.iter().map(|e| state.remember(e)).collect();
        state.publish();
        Some(ids)
    }

    /// One entry of a batch that needs care, inside the batch's transaction.
    async fn append_one(
        &self,
        conn: &mut SqliteConnection,
        e: &LogEntry,
    ) -> Result<AppendOutcome, StoreError> {
        let remembered = self.state().keys.get(&key_of(e)).copied();
        if let Some(id) = remembered {
            let row = sqlx::query(
                "SELECT room_id, game_no, seq, kind, payload, at FROM room_log_tail WHERE id = $1",
            )
            .bind(id)
            .fetch_optional(&mut *conn)
            .await?;
            match row {
                Some(row) => return judge(&row, e),
                // Remembered, never written (its append was dropped before it ran).
                None => self.forget(e),
            }
        }
        let id = {
            let mut state = self.state();
            let id = state.remember(e);
            state.publish();
            id
        };
        match insert(&mut *conn, &[(id, e)]).await {
            Ok(1) => Ok(AppendOutcome::Inserted),
            Ok(_) => {
                self.forget(e);
                in_room_log(&mut *conn, e).await
            }
            Err(err) => {
                self.forget(e);
                Err(err)
            }
        }
    }

    fn forget(&self, e: &LogEntry) {
        let mut state = self.state();
        state.forget(&key_of(e));
        state.publish();
    }

    /// Whether a room is due to move (read without the writing connection, so that an idle tick
    /// takes nothing from the appends).
    fn any_due(&self) -> bool {
        self.state().rooms.values().any(|r| self.due(r))
    }

    fn due(&self, room: &RoomTail) -> bool {
        room.closed
            || room.rows.len() >= self.policy.room_rows
            || room.since.elapsed() >= self.policy.age
    }

    /// A closed room's entries move at the next look (see [`crate::SqliteStore`]'s `room_closed`).
    pub(crate) fn hurry(&self, room: &str) {
        if let Some(tail) = self.state().rooms.get_mut(room) {
            tail.closed = true;
        }
    }

    /// Moves the entries of the rooms that are due (at most [`MergePolicy::step_rows`], whole rooms)
    /// into `room_log`, and deletes the start of the tail that is all moved. Returns how many entries
    /// it took out of the memory (those never written included): 0 when no room was due.
    pub(crate) async fn merge_step(
        &self,
        conn: &mut SqliteConnection,
    ) -> Result<usize, StoreError> {
        let (rooms, ids, low_water) = {
            let state = self.state();
            let mut due: Vec<(&String, &RoomTail)> =
                state.rooms.iter().filter(|(_, r)| self.due(r)).collect();
            if due.is_empty() {
                return Ok(0);
            }
            // The longest-waiting rooms first.
            due.sort_by_key(|(_, r)| r.since);
            let mut rooms = Vec::new();
            let mut ids = Vec::new();
            for (room, tail) in due {
                if !ids.is_empty() && ids.len() + tail.rows.len() > self.policy.step_rows {
                    break;
                }
                rooms.push(room.clone());
                ids.extend(tail.rows.iter().map(|&(id, _, _)| id));
            }
            let low_water = state.low_water(&rooms);
            (rooms, ids, low_water)
        };
        let started = Instant::now();
        let mut tx = sqlx::Connection::begin(&mut *conn).await?;
        let moved = sqlx::query(move_rows!("t.id IN (SELECT value FROM json_each($1))"))
            .bind(Json(&ids))
            .execute(&mut *tx)
            .await?
            .rows_affected();
        sqlx::query("DELETE FROM room_log_tail WHERE id < $1")
            .bind(low_water)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        metrics::histogram!("fourkings_store_log_merge_seconds").record(started.elapsed());
        metrics::counter!("fourkings_store_log_merged_entries_total").increment(moved);
        let mut state = self.state();
        for room in &rooms {
            if let Some(tail) = state.rooms.remove(room) {
                for (_, game_no, seq) in tail.rows {
                    state.keys.remove(&(room.clone(), game_no, seq));
                }
            }
        }
        state.shrink();
        state.publish();
        Ok(ids.len())
    }
}

/// `INSERT` of `rows` into the tail (at most [`CHUNK`]), skipping keys that `room_log` holds.
/// Returns how many went in.
///
/// The rows travel as one JSON array, so the statement's text is the same for every batch: a
/// `VALUES` list per batch size made one cached statement per size on the writing connection (its
/// text and parameter list in the heap for the life of the connection: about 100 KiB after a load
/// of 1,000 rooms, which stayed once every room had closed; issue 20, target 1). Each row is taken
/// out of the array once, as SQLite's binary JSON, and its fields read from that: `json_each` hands
/// a row over as text at every reference (ten per row here), each parsed again (4.5% of the server's
/// CPU at 1,000 rooms × 1 act/s, docs/benchmarks.md). MATERIALIZED keeps SQLite from folding the
/// conversion back into every reference.
async fn insert(conn: &mut SqliteConnection, rows: &[(i64, &LogEntry)]) -> Result<u64, StoreError> {
    #[derive(serde::Serialize)]
    struct Row<'a>(i64, &'a str, i32, i64, &'a str, &'a serde_json::Value, i64);
    let rows: Vec<Row<'_>> = rows
        .iter()
        .map(|&(id, e)| {
            Row(
                id,
                &e.room_id,
                e.game_no,
                e.seq,
                e.kind.as_str(),
                &e.payload,
                e.at,
            )
        })
        .collect();
    let inserted = sqlx::query(
        "WITH r(b) AS MATERIALIZED (SELECT jsonb(value) FROM json_each($1)) \
         INSERT INTO room_log_tail (id, room_id, game_no, seq, kind, payload, at) \
         SELECT b ->> 0, b ->> 1, b ->> 2, b ->> 3, b ->> 4, b -> 5, b ->> 6 \
         FROM r WHERE NOT EXISTS (SELECT 1 FROM room_log l \
           WHERE l.room_id = b ->> 1 AND l.game_no = b ->> 2 AND l.seq = b ->> 3)",
    )
    .bind(Json(&rows))
    .execute(&mut *conn)
    .await?
    .rows_affected();
    Ok(inserted)
}

/// What `e` is to the entry `room_log` holds at its key.
async fn in_room_log(
    conn: &mut SqliteConnection,
    e: &LogEntry,
) -> Result<AppendOutcome, StoreError> {
    let row = sqlx::query(crate::sql::ENTRY_AT_KEY)
        .bind(&e.room_id)
        .bind(e.game_no)
        .bind(e.seq)
        .fetch_one(&mut *conn)
        .await?;
    judge(&row, e)
}

/// A retry (the same entry) or a conflict (another entry at its key), against the stored `row`.
fn judge(row: &sqlx::sqlite::SqliteRow, e: &LogEntry) -> Result<AppendOutcome, StoreError> {
    Ok(e.outcome_against(&crate::SqliteStore::entry_from_row(row)?))
}

/// The moving task: every [`MergePolicy::interval`], steps until no room is due, each on the writing
/// connection after the writes queued before it (appends go on between steps). Ends when the writing
/// connection's pool is closed.
pub(crate) async fn run(
    writer: std::sync::Arc<crate::held::HeldConnection<Sqlite>>,
    tail: std::sync::Arc<Tail>,
) {
    let every = tail.policy().interval.max(Duration::from_millis(1));
    let mut tick = tokio::time::interval_at(Instant::now() + every, every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        loop {
            if writer.is_closed() {
                return;
            }
            if !tail.any_due() {
                break;
            }
            match writer.run(async |conn| tail.merge_step(conn).await).await {
                Ok(0) => break,
                Ok(_) => tokio::task::yield_now().await,
                Err(e) => {
                    // The database is unreachable or closing; the log writer reports outages.
                    tracing::debug!(error = %e, "moving the log's tail failed");
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EntryKind, NewRoom, Store};
    use sqlx::Connection;

    /// A migrated database with the room `a`, and a connection to it.
    async fn connection() -> (tempfile::TempDir, SqliteConnection) {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("t.db").display());
        let store = crate::SqliteStore::open(&url, &crate::OpenOptions::default())
            .await
            .unwrap();
        store
            .create_room(&NewRoom {
                id: "a".into(),
                game_kind: "chaturaji".into(),
                options: serde_json::json!({}),
                host_token: "t".into(),
                settings: serde_json::json!({}),
            })
            .await
            .unwrap();
        store.close().await;
        let conn = SqliteConnection::connect(&url).await.unwrap();
        (dir, conn)
    }

    fn entry(seq: i64) -> LogEntry {
        LogEntry {
            room_id: "a".into(),
            game_no: 1,
            seq,
            kind: EntryKind::Action,
            payload: serde_json::json!(seq),
            at: seq,
        }
    }

    async fn tail_rows(conn: &mut SqliteConnection) -> i64 {
        sqlx::query_scalar("SELECT COUNT(*) FROM room_log_tail")
            .fetch_one(conn)
            .await
            .unwrap()
    }

    /// An append dropped by the write timeout before it ran left its key remembered and no row: the
    /// retry is written, not taken for a duplicate of nothing.
    #[tokio::test]
    async fn a_remembered_key_without_its_row_is_written_by_the_retry() {
        let (_dir, mut conn) = connection().await;
        let tail = Tail::open(&mut conn, MergePolicy::default()).await.unwrap();
        tail.state().remember(&entry(0));
        assert_eq!(
            tail.append(&mut conn, &[entry(0), entry(1)]).await.unwrap(),
            [AppendOutcome::Inserted, AppendOutcome::Inserted]
        );
        assert_eq!(tail_rows(&mut conn).await, 2);
        assert_eq!(
            tail.append(&mut conn, &[entry(0)]).await.unwrap(),
            [AppendOutcome::Duplicate]
        );
    }

    /// A move whose memory update was lost (its task dropped after the commit) leaves keys
    /// remembered whose rows are in `room_log`: the next move skips them and a retry is a duplicate.
    #[tokio::test]
    async fn keys_remembered_after_their_move_are_neither_moved_twice_nor_written_twice() {
        let (_dir, mut conn) = connection().await;
        let policy = MergePolicy {
            room_rows: 1,
            ..MergePolicy::default()
        };
        let tail = Tail::open(&mut conn, policy).await.unwrap();
        tail.append(&mut conn, &[entry(0)]).await.unwrap();
        assert_eq!(tail.merge_step(&mut conn).await.unwrap(), 1);
        assert_eq!(tail_rows(&mut conn).await, 0);
        tail.state().remember(&entry(0));
        assert_eq!(tail.merge_step(&mut conn).await.unwrap(), 1);
        let moved: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM room_log")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        assert_eq!(moved, 1);
        tail.state().remember(&entry(0));
        assert_eq!(
            tail.append(&mut conn, &[entry(0)]).await.unwrap(),
            [AppendOutcome::Duplicate]
        );
        assert_eq!(tail_rows(&mut conn).await, 0);
    }

    /// Issue 20, target 1: once a busy moment's entries have moved, the memory gives back the room
    /// it needed then (a map otherwise keeps its largest capacity for the life of the server).
    #[tokio::test]
    async fn the_memory_shrinks_once_the_entries_have_moved() {
        let (_dir, mut conn) = connection().await;
        let policy = MergePolicy {
            room_rows: 5000,
            step_rows: 5000,
            ..MergePolicy::default()
        };
        let tail = Tail::open(&mut conn, policy).await.unwrap();
        for start in (0..5000).step_by(500) {
            let batch: Vec<LogEntry> = (start..start + 500).map(entry).collect();
            tail.append(&mut conn, &batch).await.unwrap();
        }
        assert!(tail.state().keys.capacity() >= 5000);
        assert_eq!(tail.merge_step(&mut conn).await.unwrap(), 5000);
        let state = tail.state();
        assert!(state.keys.is_empty() && state.rooms.is_empty());
        assert!(state.keys.capacity() <= 64, "{}", state.keys.capacity());
    }
}
