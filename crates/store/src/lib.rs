//! Persistence for fourkings behind one [`Store`] trait: SQLite and PostgreSQL, and the log writer.
//! May depend on `rules`, `rating`, `protocol` (the display-name rule) and `secrets`, never on
//! `room` or `server`: the server adapts it to the room's log port.
//!
//! Two backends over sqlx:
//!
//! - [`SqliteStore`], the default: one file (by default `./data/fourkings.db`), created with its folder
//!   on first start, no setup. WAL journal, by default with `synchronous=FULL`: every commit is
//!   fsynced, so an acknowledged action survives a power cut, not just a process crash. The cost is one
//!   fsync per transaction, which the group-commit [`LogWriter`] spreads over every action queued at
//!   that moment, but an action still waits for up to two fsyncs before its ack. [`SqliteSync::Normal`]
//!   (an operator's choice, `database.sqlite_synchronous`) fsyncs only at WAL checkpoints: an
//!   acknowledged action survives a crash of the server process (it is in the WAL, in the OS), not a
//!   power cut or kernel crash.
//! - [`PgStore`], for production and, later, several server nodes sharing one database.
//!
//! [`open`] picks the backend from the URL scheme and applies the embedded migrations
//! (`migrations/sqlite`, `migrations/postgres`). Both backends run the same SQL text (sqlx accepts
//! `$n` parameters for SQLite too) from one implementation, so they cannot drift apart; the same test
//! suite runs against both. One part differs: SQLite's action log takes appends in arrival order and
//! moves them into the room-keyed table in the background ([`tail`]). PostgreSQL appends directly: its
//! WAL logs a row, not the whole page, except at a page's first change after a checkpoint.
//!
//! The [`LogWriter`] is how rooms persist actions: a task owning the store that writes everything
//! queued in one transaction (group commit), and that keeps acknowledging from a local spool file
//! while the database is unreachable, draining it in order when the database returns.

#![forbid(unsafe_code)]

pub mod checkpoint;
pub mod cluster;
mod error;
mod held;
mod model;
mod rated;
pub mod sparse;
mod spool;
mod sql;
pub mod tail;
mod writer;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rating::Pool;
use serde_json::Value;

pub use error::StoreError;
pub use model::*;
pub use spool::Spool;
pub use sql::{PgStore, SqliteStore};
pub use writer::{AppendError, Durable, LogWriter, Pacer, WriterConfig, WriterHealth};

/// The database used when none is configured: a SQLite file under `./data`.
pub const DEFAULT_URL: &str = "sqlite://data/fourkings.db";

/// The log writer's spool file when none is configured, beside the default database.
pub const DEFAULT_SPOOL_PATH: &str = "data/log-spool.jsonl";

/// Which database a store talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Connection settings for [`open_with`].
#[derive(Debug, Clone)]
pub struct OpenOptions {
    pub max_connections: u32,
    /// A pooled connection idle this long is closed: the connections a busy moment opened (each
    /// with its caches and, for SQLite, a thread) are given back once it has passed.
    pub pool_idle: Duration,
    /// How long to wait for a connection before failing (a short one makes an outage visible fast).
    pub acquire_timeout: Duration,
    /// PostgreSQL only: a session left idle inside a transaction this long is ended by the server,
    /// which rolls it back and releases its row locks. A process frozen between two statements of a
    /// transaction (SIGSTOP, a paused VM) would otherwise hold its rooms' rows locked for as long as
    /// it stays frozen, and whoever takes its rooms over in cluster mode would wait on them.
    pub pg_idle_in_transaction: Duration,
    /// SQLite only: when a commit reaches the disk (PostgreSQL has its own `synchronous_commit`).
    pub sqlite_sync: SqliteSync,
    /// SQLite only: the page cache of the writing connection (every write goes through it), in KiB.
    pub sqlite_log_cache_kib: u32,
    /// SQLite only: when WAL checkpoints run (in the background, see [`checkpoint`]).
    pub sqlite_checkpoint: checkpoint::CheckpointPolicy,
    /// SQLite only: when the action log's newest entries move into its room-keyed table ([`tail`]).
    pub sqlite_log_merge: tail::MergePolicy,
    /// Opened to read beside the server that owns the database (tools, tests): nothing is written,
    /// neither a migration nor the move of a previous run's log tail nor a checkpoint, and a write
    /// fails with the database's own read-only error. A second writer would move the tail rows the
    /// running server still counts as its own (see [`open_to_read`]).
    pub read_only: bool,
}

/// SQLite's `synchronous` setting for the WAL journal: what an acknowledged commit survives.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SqliteSync {
    /// fsync at every commit: survives a power cut.
    #[default]
    Full,
    /// fsync at checkpoints only: survives a crash of the process, not of the machine.
    Normal,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            max_connections: 8,
            pool_idle: Duration::from_secs(60),
            // Generous: a loaded machine can take seconds to open a connection. The log writer has
            // its own, shorter write timeout to notice outages.
            acquire_timeout: Duration::from_secs(10),
            pg_idle_in_transaction: Duration::from_secs(5),
            sqlite_sync: SqliteSync::Full,
            sqlite_log_cache_kib: 4 * 1024,
            sqlite_checkpoint: checkpoint::CheckpointPolicy::default(),
            sqlite_log_merge: tail::MergePolicy::default(),
            read_only: false,
        }
    }
}

/// Opens the database at `url` (`sqlite:…` or `postgres://…`/`postgresql://…`) and migrates it.
pub async fn open(url: &str) -> Result<Arc<dyn Store>, StoreError> {
    open_with(url, &OpenOptions::default()).await
}

/// Opens the database at `url` to read it beside the server that writes it (see
/// [`OpenOptions::read_only`]).
pub async fn open_to_read(url: &str) -> Result<Arc<dyn Store>, StoreError> {
    let options = OpenOptions {
        read_only: true,
        ..OpenOptions::default()
    };
    open_with(url, &options).await
}

/// [`open`] with explicit connection settings.
pub async fn open_with(url: &str, options: &OpenOptions) -> Result<Arc<dyn Store>, StoreError> {
    if url.starts_with("sqlite:") {
        Ok(Arc::new(SqliteStore::open(url, options).await?))
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Arc::new(PgStore::open(url, options).await?))
    } else {
        Err(StoreError::UnsupportedUrl(url.to_owned()))
    }
}

/// Everything the server persists. Both backends implement it identically.
#[async_trait]
pub trait Store: Send + Sync + std::fmt::Debug + 'static {
    fn backend(&self) -> Backend;

    /// Checks that the database answers.
    async fn ping(&self) -> Result<(), StoreError>;

    /// Closes the connection pool (waits for connections in use to be returned).
    async fn close(&self);

    // ---- players ----

    /// Creates an anonymous player; the returned secret is the only copy (only its hash is stored).
    async fn create_player(&self, display_name: &str) -> Result<NewPlayer, StoreError>;

    /// The player if `secret` is theirs; `None` for an unknown id, a wrong secret or a CPU identity.
    async fn authenticate_player(
        &self,
        id: &str,
        secret: &str,
    ) -> Result<Option<Player>, StoreError>;

    async fn rename_player(&self, id: &str, display_name: &str) -> Result<Player, StoreError>;

    async fn player(&self, id: &str) -> Result<Option<Player>, StoreError>;

    // ---- rooms ----

    async fn create_room(&self, room: &NewRoom) -> Result<Room, StoreError>;

    /// Replaces a room's options, settings and state.
    async fn update_room(
        &self,
        id: &str,
        options: &Value,
        settings: &Value,
        state: RoomState,
    ) -> Result<Room, StoreError>;

    /// Whether `host_token` is the room's host token (false for an unknown room).
    async fn authenticate_host(&self, room_id: &str, host_token: &str) -> Result<bool, StoreError>;

    async fn room(&self, id: &str) -> Result<Option<Room>, StoreError>;

    /// Rooms in the lobby or playing, oldest first: what a restarted server chooses from.
    async fn unfinished_rooms(&self) -> Result<Vec<UnfinishedRoom>, StoreError>;

    /// Marks these rooms closed in one transaction (e.g. lobbies that expired while the server was
    /// down); unknown ids are skipped. Answers how many rooms changed.
    async fn close_rooms(&self, ids: &[String]) -> Result<u64, StoreError>;

    // ---- the action log ----

    /// Appends entries in ONE transaction and says what happened to each, in order. Appending an
    /// entry identical to the stored one (same key, kind and payload) is a harmless `Duplicate`; a
    /// different entry at an existing key is a `SeqConflict` and leaves the stored one as it was.
    /// Neither aborts the rest of the batch. An `Err` means nothing was written.
    async fn append(&self, entries: &[LogEntry]) -> Result<Vec<AppendOutcome>, StoreError>;

    /// The log of one game of a room, in seq order.
    async fn load_log(&self, room_id: &str, game_no: i32) -> Result<Vec<LogEntry>, StoreError>;

    /// The highest game number in a room's log, if any.
    async fn last_game_no(&self, room_id: &str) -> Result<Option<i32>, StoreError>;

    // ---- finished games and ratings ----

    /// Writes a finished game and (if rated) its seats' rating updates in ONE transaction. Idempotent
    /// by game id: a second call changes nothing and answers [`Recorded::AlreadyRecorded`].
    async fn record_game(&self, game: &FinishedGame) -> Result<Recorded, StoreError>;

    /// A finished game's full record and the rating changes it caused.
    async fn game(&self, id: &str) -> Result<Option<GameRecord>, StoreError>;

    /// The established players of a pool who played since `query.active_since`, sorted by the
    /// conservative rating `mu - 3·sigma`, best first. CPU levels are anchors and never listed.
    async fn leaderboard(
        &self,
        pool: Pool,
        query: LeaderboardQuery,
    ) -> Result<Vec<LeaderboardRow>, StoreError>;

    /// A page of a player's rating history in one pool, newest first.
    async fn rating_history(
        &self,
        player_id: &str,
        query: HistoryQuery,
    ) -> Result<Vec<HistoryEntry>, StoreError>;

    /// A player's ratings in every pool and the latest `history_limit` rating changes, newest first.
    async fn profile(
        &self,
        player_id: &str,
        history_limit: i64,
    ) -> Result<Option<Profile>, StoreError>;

    /// A page of a room's finished games, highest game number first.
    async fn room_games(
        &self,
        room_id: &str,
        query: RoomGamesQuery,
    ) -> Result<Vec<GameSummary>, StoreError>;

    /// A page of the finished games a player held a seat in, newest first, each with the player's
    /// rating change.
    async fn player_games(
        &self,
        player_id: &str,
        query: PlayerGamesQuery,
    ) -> Result<Vec<GameSummary>, StoreError>;
}
