//! The two backends. They share one implementation: the SQL text is the same for SQLite and
//! PostgreSQL (sqlx binds `$n` parameters on both; both have `ON CONFLICT … DO NOTHING` and
//! `RETURNING`), so the `impl Store` body is written once in a macro and instantiated per database.
//! The differences are row locking (`FOR UPDATE`), which SQLite does not need: its write
//! transaction already holds the database lock from its first statement; the one JSON function they
//! spell differently; and the action log's appends, which SQLite writes to its tail ([`crate::tail`],
//! read back through the `room_log_all` view).

use std::collections::{HashMap, HashSet};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rating::{GameResult, Pool, Rating, anchor_of};
use rules::Seat;
use secrets::{hash_secret, new_player_id, new_secret, secret_matches};
use serde_json::Value;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::types::Json;
use sqlx::{Postgres, QueryBuilder, Row, Sqlite};

use crate::held::HeldConnection;
use crate::model::now_millis;
use crate::rated::{rated_players, rating_changes};
use crate::tail::Tail;
use crate::{
    AppendOutcome, Backend, EntryKind, FinishedGame, GameRecord, GameSummary, HistoryEntry,
    HistoryQuery, LeaderboardQuery, LeaderboardRow, LogEntry, Millis, NewPlayer, NewRoom,
    OpenOptions, Player, PlayerGamesQuery, PoolRating, Profile, RatingChange, Recorded, Room,
    RoomGamesQuery, RoomState, SeatPlayer, SqliteSync, Store, StoreError, UnfinishedRoom,
    UnratedReason,
};

/// The entry `room_log` holds at a key, to tell a retry from a conflict (both backends).
pub(crate) const ENTRY_AT_KEY: &str = "SELECT room_id, game_no, seq, kind, payload, at FROM room_log \
     WHERE room_id = $1 AND game_no = $2 AND seq = $3";

/// Rows per multi-row INSERT: 6 parameters each stays far below SQLite's 32,766 and PostgreSQL's
/// 65,535 bound parameters per statement.
const APPEND_CHUNK: usize = 1000;

/// The SQLite backend (the default).
#[derive(Debug, Clone)]
pub struct SqliteStore {
    pool: sqlx::SqlitePool,
    /// The one connection that writes (see [`SqliteStore::open`]), held between writes.
    writer: Arc<HeldConnection<Sqlite>>,
    /// The background checkpointer's connection ([`crate::checkpoint`]); none when opened to read.
    checkpointer: Option<sqlx::SqlitePool>,
    /// The action log's newest entries, before they move into `room_log` ([`crate::tail`]).
    tail: Arc<Tail>,
}

impl SqliteStore {
    /// Opens (creating the file and its folder if needed) and migrates a SQLite database.
    pub async fn open(url: &str, options: &OpenOptions) -> Result<SqliteStore, StoreError> {
        let connect = SqliteConnectOptions::from_str(url)?
            .create_if_missing(!options.read_only)
            .read_only(options.read_only)
            .journal_mode(SqliteJournalMode::Wal)
            // FULL (the default): fsync at every commit, so an acknowledged action survives a power
            // cut; NORMAL only a process crash (see the crate documentation).
            .synchronous(match options.sqlite_sync {
                SqliteSync::Full => SqliteSynchronous::Full,
                SqliteSync::Normal => SqliteSynchronous::Normal,
            })
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10))
            // No commit checkpoints: the checkpointer task does, off the write path.
            .pragma("wal_autocheckpoint", "0");
        if let Some(dir) = connect.get_filename().parent()
            && !dir.as_os_str().is_empty()
        {
            std::fs::create_dir_all(dir)?;
        }
        let pool = SqlitePoolOptions::new()
            .max_connections(options.max_connections.max(1))
            .idle_timeout(options.pool_idle)
            // A local file does not drop like a network connection: no ping (a round trip to the
            // connection's worker thread) before every use.
            .test_before_acquire(false)
            .acquire_timeout(options.acquire_timeout)
            .connect_with(connect.clone())
            .await?;
        if !options.read_only {
            sqlx::migrate!("../../migrations/sqlite").run(&pool).await?;
        }
        // Every write goes through one connection of its own, held between writes; the pool only
        // reads. SQLite lets one connection write at a time: a second writer that finds the lock
        // taken sleeps in SQLite's busy handler (1, 2, 5, 10, 15, 20 ms … between tries). Beside
        // 1,000 CPU tables recording their games on pooled connections, the log's connection slept
        // there 184 times in 30 s, up to 53 ms in a row (docs/benchmarks.md, session 20). Here a
        // write waits for the one before it, for as long as that one takes, and never sleeps. The
        // connection's page cache, large enough for the pages the rooms append to, also stays
        // warm: a pooled one found it stale at every use (another connection had written since:
        // SQLite drops the whole cache then) and read the B-tree pages it needed again. And REST
        // reads that hold every pooled connection never make a game wait.
        let single = || {
            SqlitePoolOptions::new()
                .max_connections(1)
                .test_before_acquire(false)
                .acquire_timeout(options.acquire_timeout)
        };
        let writer = single()
            .connect_with(connect.clone().pragma(
                "cache_size",
                format!("-{}", options.sqlite_log_cache_kib.max(1)),
            ))
            .await?;
        let writer = Arc::new(HeldConnection::new(writer));
        let merge = options.sqlite_log_merge;
        let (tail, checkpointer) = if options.read_only {
            (Arc::new(Tail::beside(merge)), None)
        } else {
            let tail = Arc::new(
                writer
                    .run(async |conn| Tail::open(conn, merge).await)
                    .await?,
            );
            tokio::spawn(crate::tail::run(Arc::clone(&writer), Arc::clone(&tail)));
            let checkpointer = single().connect_with(connect).await?;
            tokio::spawn(crate::checkpoint::run(
                checkpointer.clone(),
                Arc::clone(&writer),
                options.sqlite_checkpoint,
            ));
            (tail, Some(checkpointer))
        };
        Ok(SqliteStore {
            pool,
            writer,
            checkpointer,
            tail,
        })
    }

    /// The connection pool (for tests of the connection settings).
    pub fn pool(&self) -> &sqlx::SqlitePool {
        &self.pool
    }

    /// Runs `query` on the writing connection (for tests of its settings and of who waits for it).
    pub async fn on_writing_connection<T>(
        &self,
        query: impl AsyncFnOnce(&mut sqlx::SqliteConnection) -> Result<T, sqlx::Error>,
    ) -> Result<T, StoreError> {
        Ok(self.writer.run(query).await?)
    }

    /// Whether the writing connection sits idle in its pool (for tests: between writes it is held).
    pub fn writing_connection_in_pool(&self) -> bool {
        self.writer.idle_in_pool()
    }

    /// Runs a write on the one writing connection, after the writes queued before it.
    async fn writing<T>(
        &self,
        write: impl AsyncFnOnce(&mut sqlx::SqliteConnection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.writer.run(write).await
    }

    /// Appends `entries` to the log's tail, on the writing connection.
    async fn append_entries(&self, entries: &[LogEntry]) -> Result<Vec<AppendOutcome>, StoreError> {
        self.writing(async |conn| self.tail.append(conn, entries).await)
            .await
    }

    /// A closed room writes no more: its entries in the tail move at the next look instead of
    /// waiting out their age (the memory of their keys goes with them).
    fn room_closed(&self, id: &str) {
        self.tail.hurry(id);
    }

    /// Closes the writing and the checkpointer's connections (the checkpointer task then ends).
    async fn close_own_connections(&self) {
        self.writer.close().await;
        if let Some(checkpointer) = &self.checkpointer {
            checkpointer.close().await;
        }
    }
}

/// The PostgreSQL backend.
#[derive(Debug, Clone)]
pub struct PgStore {
    pool: sqlx::PgPool,
}

impl PgStore {
    /// Connects to and migrates a PostgreSQL database.
    pub async fn open(url: &str, options: &OpenOptions) -> Result<PgStore, StoreError> {
        let idle_in_transaction = format!("{}ms", options.pg_idle_in_transaction.as_millis());
        let mut connect = PgConnectOptions::from_str(url)?
            .options([("idle_in_transaction_session_timeout", idle_in_transaction)]);
        if options.read_only {
            // Only then: the server's own sessions keep whatever the database's default is.
            connect = connect.options([("default_transaction_read_only", "on")]);
        }
        let pool = PgPoolOptions::new()
            .max_connections(options.max_connections.max(1))
            .idle_timeout(options.pool_idle)
            .acquire_timeout(options.acquire_timeout)
            .connect_with(connect)
            .await?;
        if !options.read_only {
            sqlx::migrate!("../../migrations/postgres")
                .run(&pool)
                .await?;
        }
        Ok(PgStore { pool })
    }

    /// The connection pool (cluster mode shares it: one pool per node, not two).
    pub fn pool(&self) -> &sqlx::PgPool {
        &self.pool
    }

    /// Runs a write on a pooled connection: PostgreSQL takes concurrent writers (row locks where
    /// two writes meet), and a connection held for writing would be one fewer for everything else
    /// in a small pool.
    async fn writing<T>(
        &self,
        write: impl AsyncFnOnce(&mut sqlx::PgConnection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut conn = self.pool.acquire().await?;
        write(&mut conn).await
    }

    /// Nothing to do: PostgreSQL's log has no tail.
    fn room_closed(&self, _id: &str) {}

    /// Nothing beside the pool to close.
    async fn close_own_connections(&self) {}

    /// Appends `entries` on a pooled connection.
    async fn append_entries(&self, entries: &[LogEntry]) -> Result<Vec<AppendOutcome>, StoreError> {
        self.writing(async |conn| Self::append_with(conn, entries).await)
            .await
    }

    /// Appends on `conn`. A batch of one chunk (every batch under load) runs without BEGIN
    /// and COMMIT, each of which is one more round trip to the database: first as a plain
    /// INSERT, which is atomic on its own and answers once. Asking with `RETURNING` which rows
    /// went in costs a message per row instead, so that is only done when the plain INSERT met
    /// a key already stored (a retry or a conflict): it then failed as a whole, wrote nothing,
    /// and [`Self::append_on`] sorts the entries.
    async fn append_with(
        conn: &mut sqlx::PgConnection,
        entries: &[LogEntry],
    ) -> Result<Vec<AppendOutcome>, StoreError> {
        if entries.len() <= APPEND_CHUNK {
            match Self::insert(entries).build().execute(&mut *conn).await {
                Ok(_) => return Ok(vec![AppendOutcome::Inserted; entries.len()]),
                Err(sqlx::Error::Database(e))
                    if e.kind() == sqlx::error::ErrorKind::UniqueViolation => {}
                Err(e) => return Err(e.into()),
            }
            return Self::append_on(conn, entries).await;
        }
        let mut tx = sqlx::Connection::begin(conn).await?;
        let outcomes = Self::append_on(&mut tx, entries).await?;
        tx.commit().await?;
        Ok(outcomes)
    }

    /// `INSERT` of the entries (at most [`APPEND_CHUNK`]), to be completed or built.
    fn insert(entries: &[LogEntry]) -> QueryBuilder<'_, Postgres> {
        let mut insert = QueryBuilder::<Postgres>::new(
            "INSERT INTO room_log (room_id, game_no, seq, kind, payload, at) ",
        );
        insert.push_values(entries, |mut row, e| {
            row.push_bind(e.room_id.as_str())
                .push_bind(e.game_no)
                .push_bind(e.seq)
                .push_bind(e.kind.as_str())
                .push_bind(Json(&e.payload))
                .push_bind(e.at);
        });
        insert
    }

    /// Inserts the entries (a key already stored is compared: `Duplicate` or `SeqConflict`).
    async fn append_on(
        conn: &mut sqlx::PgConnection,
        entries: &[LogEntry],
    ) -> Result<Vec<AppendOutcome>, StoreError> {
        let mut outcomes: Vec<Option<AppendOutcome>> = vec![None; entries.len()];
        for (chunk_no, chunk) in entries.chunks(APPEND_CHUNK).enumerate() {
            let mut insert = Self::insert(chunk);
            insert.push(
                " ON CONFLICT (room_id, game_no, seq) DO NOTHING \
                     RETURNING room_id, game_no, seq",
            );
            let rows = insert.build().fetch_all(&mut *conn).await?;
            let mut inserted: HashSet<(String, i32, i64)> = HashSet::new();
            for row in &rows {
                inserted.insert((
                    row.try_get("room_id")?,
                    row.try_get("game_no")?,
                    row.try_get("seq")?,
                ));
            }
            for (i, e) in chunk.iter().enumerate() {
                // A key repeated inside one batch was inserted once: the first copy takes
                // the `Inserted`, later copies are compared with it below.
                if inserted.remove(&(e.room_id.clone(), e.game_no, e.seq)) {
                    outcomes[chunk_no * APPEND_CHUNK + i] = Some(AppendOutcome::Inserted);
                }
            }
        }
        // Entries not inserted hit an existing key: a retry or a conflict.
        let mut resolved = Vec::with_capacity(entries.len());
        for (e, outcome) in entries.iter().zip(outcomes) {
            if let Some(outcome) = outcome {
                resolved.push(outcome);
                continue;
            }
            let row = sqlx::query(ENTRY_AT_KEY)
                .bind(&e.room_id)
                .bind(e.game_no)
                .bind(e.seq)
                .fetch_one(&mut *conn)
                .await?;
            resolved.push(e.outcome_against(&Self::entry_from_row(&row)?));
        }
        Ok(resolved)
    }
}

fn corrupt(what: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(what.to_string())
}

fn parse_seat(name: &str) -> Result<Seat, StoreError> {
    Seat::ALL
        .into_iter()
        .find(|s| s.name() == name)
        .ok_or_else(|| corrupt(format!("seat `{name}`")))
}

fn parse_pool(name: &str) -> Result<Pool, StoreError> {
    name.parse().map_err(corrupt)
}

fn parse_state(name: &str) -> Result<RoomState, StoreError> {
    RoomState::parse(name).ok_or_else(|| corrupt(format!("room state `{name}`")))
}

fn parse_kind(name: &str) -> Result<EntryKind, StoreError> {
    EntryKind::parse(name).ok_or_else(|| corrupt(format!("log entry kind `{name}`")))
}

fn not_found(what: &'static str, id: &str) -> StoreError {
    StoreError::NotFound {
        what,
        id: id.to_owned(),
    }
}

macro_rules! impl_store {
    ($store:ty, $db:ty, $backend:expr, $for_update:literal, $record_seats:literal, $log:literal) => {
        impl $store {
            fn player_from_row(row: &<$db as sqlx::Database>::Row) -> Result<Player, StoreError> {
                Ok(Player {
                    id: row.try_get("id")?,
                    display_name: row.try_get("display_name")?,
                    is_cpu: row.try_get("is_cpu")?,
                    created_at: row.try_get("created_at")?,
                })
            }

            fn room_from_row(row: &<$db as sqlx::Database>::Row) -> Result<Room, StoreError> {
                let state: String = row.try_get("state")?;
                Ok(Room {
                    id: row.try_get("id")?,
                    game_kind: row.try_get("game_kind")?,
                    options: row.try_get::<Json<Value>, _>("options")?.0,
                    settings: row.try_get::<Json<Value>, _>("settings")?.0,
                    state: parse_state(&state)?,
                    created_at: row.try_get("created_at")?,
                    updated_at: row.try_get("updated_at")?,
                })
            }

            pub(crate) fn entry_from_row(row: &<$db as sqlx::Database>::Row) -> Result<LogEntry, StoreError> {
                let kind: String = row.try_get("kind")?;
                Ok(LogEntry {
                    room_id: row.try_get("room_id")?,
                    game_no: row.try_get("game_no")?,
                    seq: row.try_get("seq")?,
                    kind: parse_kind(&kind)?,
                    payload: row.try_get::<Json<Value>, _>("payload")?.0,
                    at: row.try_get("at")?,
                })
            }

            fn history_from_row(
                row: &<$db as sqlx::Database>::Row,
            ) -> Result<HistoryEntry, StoreError> {
                let pool: String = row.try_get("pool")?;
                Ok(HistoryEntry {
                    pool: parse_pool(&pool)?,
                    game_id: row.try_get("game_id")?,
                    games: row.try_get("games")?,
                    before: Self::rating_from_row(row, "mu_before", "sigma_before")?,
                    after: Self::rating_from_row(row, "mu_after", "sigma_after")?,
                    at: row.try_get("at")?,
                })
            }

            fn unrated_from_row(
                row: &<$db as sqlx::Database>::Row,
                id: &str,
            ) -> Result<Option<UnratedReason>, StoreError> {
                Ok(match row.try_get::<Option<String>, _>("unrated_reason")? {
                    None if row.try_get::<bool, _>("rated")? => None,
                    // Written by a version before the reasons: a casual room's game.
                    None => Some(UnratedReason::Casual),
                    Some(reason) => Some(UnratedReason::parse(&reason).ok_or_else(|| {
                        corrupt(format!("game {id}: unrated reason `{reason}`"))
                    })?),
                })
            }

            fn summary_from_row(
                row: &<$db as sqlx::Database>::Row,
            ) -> Result<GameSummary, StoreError> {
                let id: String = row.try_get("id")?;
                let pool: String = row.try_get("pool")?;
                let rating = match row.try_get::<Option<f64>, _>("mu_before")? {
                    None => None,
                    Some(_) => Some((
                        Self::rating_from_row(row, "mu_before", "sigma_before")?,
                        Self::rating_from_row(row, "mu_after", "sigma_after")?,
                    )),
                };
                Ok(GameSummary {
                    unrated: Self::unrated_from_row(row, &id)?,
                    room_id: row.try_get("room_id")?,
                    game_no: row.try_get("game_no")?,
                    pool: parse_pool(&pool)?,
                    seats: row
                        .try_get::<Option<Json<Value>>, _>("seats")?
                        .map(|j| j.0)
                        .ok_or_else(|| corrupt(format!("game {id}: the record has no seats")))?,
                    standings: row.try_get::<Json<Value>, _>("standings")?.0,
                    finished_at: row.try_get("finished_at")?,
                    rating,
                    id,
                })
            }

            fn rating_from_row(
                row: &<$db as sqlx::Database>::Row,
                mu: &str,
                sigma: &str,
            ) -> Result<Rating, StoreError> {
                Ok(Rating {
                    mu: row.try_get(mu)?,
                    sigma: row.try_get(sigma)?,
                })
            }

        }

        #[async_trait]
        impl Store for $store {
            fn backend(&self) -> Backend {
                $backend
            }

            async fn ping(&self) -> Result<(), StoreError> {
                sqlx::query("SELECT 1").execute(&self.pool).await?;
                Ok(())
            }

            async fn close(&self) {
                self.pool.close().await;
                self.close_own_connections().await;
            }

            async fn create_player(&self, display_name: &str) -> Result<NewPlayer, StoreError> {
                let display_name = protocol::name::display_name(display_name)?;
                let secret = new_secret();
                let player = Player {
                    id: new_player_id(),
                    display_name,
                    is_cpu: false,
                    created_at: now_millis(),
                };
                self.writing(async |conn| {
                    sqlx::query(
                        "INSERT INTO players (id, secret_hash, display_name, is_cpu, created_at) \
                         VALUES ($1, $2, $3, FALSE, $4)",
                    )
                    .bind(&player.id)
                    .bind(hash_secret(&secret))
                    .bind(&player.display_name)
                    .bind(player.created_at)
                    .execute(&mut *conn)
                    .await?;
                    Ok(NewPlayer { player, secret })
                })
                .await
            }

            async fn authenticate_player(
                &self,
                id: &str,
                secret: &str,
            ) -> Result<Option<Player>, StoreError> {
                let row = sqlx::query(
                    "SELECT id, secret_hash, display_name, is_cpu, created_at FROM players \
                     WHERE id = $1",
                )
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
                let Some(row) = row else { return Ok(None) };
                let hash: Option<String> = row.try_get("secret_hash")?;
                match hash {
                    Some(hash) if secret_matches(secret, &hash) => {
                        Ok(Some(Self::player_from_row(&row)?))
                    }
                    _ => Ok(None),
                }
            }

            async fn rename_player(
                &self,
                id: &str,
                display_name: &str,
            ) -> Result<Player, StoreError> {
                let display_name = protocol::name::display_name(display_name)?;
                self.writing(async |conn| {
                    let row = sqlx::query(
                        "UPDATE players SET display_name = $2 WHERE id = $1 AND NOT is_cpu \
                         RETURNING id, display_name, is_cpu, created_at",
                    )
                    .bind(id)
                    .bind(&display_name)
                    .fetch_optional(&mut *conn)
                    .await?;
                    row.as_ref()
                        .map(Self::player_from_row)
                        .transpose()?
                        .ok_or_else(|| not_found("player", id))
                })
                .await
            }

            async fn player(&self, id: &str) -> Result<Option<Player>, StoreError> {
                let row = sqlx::query(
                    "SELECT id, display_name, is_cpu, created_at FROM players WHERE id = $1",
                )
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
                row.as_ref().map(Self::player_from_row).transpose()
            }

            async fn create_room(&self, room: &NewRoom) -> Result<Room, StoreError> {
                let now = now_millis();
                self.writing(async |conn| {
                    let row = sqlx::query(
                        "INSERT INTO rooms (id, game_kind, options, host_token_hash, settings, state, \
                         created_at, updated_at) VALUES ($1, $2, $3, $4, $5, 'lobby', $6, $6) \
                         RETURNING id, game_kind, options, settings, state, created_at, updated_at",
                    )
                    .bind(&room.id)
                    .bind(&room.game_kind)
                    .bind(Json(&room.options))
                    .bind(hash_secret(&room.host_token))
                    .bind(Json(&room.settings))
                    .bind(now)
                    .fetch_one(&mut *conn)
                    .await?;
                    Self::room_from_row(&row)
                })
                .await
            }

            async fn update_room(
                &self,
                id: &str,
                options: &Value,
                settings: &Value,
                state: RoomState,
            ) -> Result<Room, StoreError> {
                self.writing(async |conn| {
                    let row = sqlx::query(
                        "UPDATE rooms SET options = $2, settings = $3, state = $4, updated_at = $5 \
                         WHERE id = $1 \
                         RETURNING id, game_kind, options, settings, state, created_at, updated_at",
                    )
                    .bind(id)
                    .bind(Json(options))
                    .bind(Json(settings))
                    .bind(state.as_str())
                    .bind(now_millis())
                    .fetch_optional(&mut *conn)
                    .await?;
                    row.as_ref()
                        .map(Self::room_from_row)
                        .transpose()?
                        .ok_or_else(|| not_found("room", id))
                })
                .await
                .inspect(|room| {
                    if room.state == RoomState::Closed {
                        self.room_closed(id);
                    }
                })
            }

            async fn authenticate_host(
                &self,
                room_id: &str,
                host_token: &str,
            ) -> Result<bool, StoreError> {
                let hash: Option<String> =
                    sqlx::query_scalar("SELECT host_token_hash FROM rooms WHERE id = $1")
                        .bind(room_id)
                        .fetch_optional(&self.pool)
                        .await?;
                Ok(hash.is_some_and(|h| secret_matches(host_token, &h)))
            }

            async fn room(&self, id: &str) -> Result<Option<Room>, StoreError> {
                let row = sqlx::query(
                    "SELECT id, game_kind, options, settings, state, created_at, updated_at \
                     FROM rooms WHERE id = $1",
                )
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
                row.as_ref().map(Self::room_from_row).transpose()
            }

            async fn unfinished_rooms(&self) -> Result<Vec<UnfinishedRoom>, StoreError> {
                // Games are numbered from 1 in the order the room's own log (game 0) records
                // their start, and a finished game's id is `{room}-{game_no}` (the games table's
                // key): the newest game runs if it started and has no result recorded.
                let rows = sqlx::query(concat!(
                    "SELECT x.*, (x.started > 0 AND NOT EXISTS (SELECT 1 FROM games g \
                       WHERE g.id = x.id || '-' || x.started)) AS game_running \
                     FROM (SELECT r.id, r.game_kind, r.options, r.settings, r.state, r.created_at, \
                       r.updated_at, \
                       COALESCE((SELECT MAX(l.at) FROM ", $log, " l WHERE l.room_id = r.id), \
                         r.created_at) AS last_activity, \
                       (SELECT COUNT(*) FROM ", $log, " l WHERE l.room_id = r.id AND l.game_no = 0 \
                         AND l.payload ->> 't' = 'started') AS started \
                       FROM rooms r WHERE r.state IN ('lobby', 'playing')) x \
                     ORDER BY x.created_at, x.id",
                ))
                .fetch_all(&self.pool)
                .await?;
                rows.iter()
                    .map(|row| {
                        Ok(UnfinishedRoom {
                            room: Self::room_from_row(row)?,
                            last_activity: row.try_get("last_activity")?,
                            game_running: row.try_get("game_running")?,
                        })
                    })
                    .collect()
            }

            async fn close_rooms(&self, ids: &[String]) -> Result<u64, StoreError> {
                let now = now_millis();
                self.writing(async |conn| {
                    let mut changed = 0;
                    let mut tx = sqlx::Connection::begin(conn).await?;
                    for chunk in ids.chunks(APPEND_CHUNK) {
                        let mut update = QueryBuilder::<$db>::new("UPDATE rooms SET state = 'closed', updated_at = ");
                        update.push_bind(now).push(" WHERE state <> 'closed' AND id IN (");
                        let mut list = update.separated(", ");
                        for id in chunk {
                            list.push_bind(id.as_str());
                        }
                        update.push(")");
                        changed += update.build().execute(&mut *tx).await?.rows_affected();
                    }
                    tx.commit().await?;
                    Ok(changed)
                })
                .await
            }

            async fn append(&self, entries: &[LogEntry]) -> Result<Vec<AppendOutcome>, StoreError> {
                if entries.is_empty() {
                    return Ok(Vec::new());
                }
                self.append_entries(entries).await
            }

            async fn load_log(
                &self,
                room_id: &str,
                game_no: i32,
            ) -> Result<Vec<LogEntry>, StoreError> {
                let rows = sqlx::query(concat!(
                    "SELECT room_id, game_no, seq, kind, payload, at FROM ", $log,
                    " WHERE room_id = $1 AND game_no = $2 ORDER BY seq",
                ))
                .bind(room_id)
                .bind(game_no)
                .fetch_all(&self.pool)
                .await?;
                rows.iter().map(Self::entry_from_row).collect()
            }

            async fn last_game_no(&self, room_id: &str) -> Result<Option<i32>, StoreError> {
                let n: Option<i32> =
                    sqlx::query_scalar(concat!("SELECT MAX(game_no) FROM ", $log, " WHERE room_id = $1"))
                        .bind(room_id)
                        .fetch_one(&self.pool)
                        .await?;
                Ok(n)
            }

            async fn record_game(&self, game: &FinishedGame) -> Result<Recorded, StoreError> {
                game.result.validate()?;
                let now = now_millis();
                self.writing(async |conn| {
                    let mut tx = sqlx::Connection::begin(conn).await?;
                    // The game row goes first: it is the idempotency key, and (on SQLite) the first
                    // write takes the database lock before anything is read.
                    let inserted = sqlx::query(
                        "INSERT INTO games (id, room_id, game_no, pool, rated, options, first_seat, \
                         dice_commit, revealed_seed, result, standings, record, finished_at, \
                         unrated_reason) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) \
                         ON CONFLICT DO NOTHING RETURNING id",
                    )
                    .bind(&game.id)
                    .bind(&game.room_id)
                    .bind(game.game_no)
                    .bind(game.pool.as_str())
                    .bind(game.is_rated())
                    .bind(Json(&game.options))
                    .bind(game.first_seat.name())
                    .bind(&game.dice_commit)
                    .bind(&game.revealed_seed)
                    .bind(Json(&game.result))
                    .bind(Json(&game.standings))
                    .bind(Json(&game.record))
                    .bind(game.finished_at)
                    .bind(game.unrated.map(UnratedReason::as_str))
                    .fetch_optional(&mut *tx)
                    .await?;
                    if inserted.is_none() {
                        // No target on ON CONFLICT: with a target, PostgreSQL can still raise a unique
                        // violation on the other unique index (room, game number) when two identical
                        // calls race. Tell the two conflicts apart here instead.
                        let same_id: Option<String> =
                            sqlx::query_scalar("SELECT id FROM games WHERE id = $1")
                                .bind(&game.id)
                                .fetch_optional(&mut *tx)
                                .await?;
                        tx.rollback().await?;
                        return match same_id {
                            Some(_) => Ok(Recorded::AlreadyRecorded),
                            None => Err(StoreError::GameNumberTaken {
                                room_id: game.room_id.clone(),
                                game_no: game.game_no,
                            }),
                        };
                    }
                    for seat in Seat::ALL {
                        let sp = &game.seats[seat.index()];
                        sqlx::query(
                            "INSERT INTO game_seats (game_id, seat, player_id, cpu_finished) \
                             VALUES ($1, $2, $3, $4)",
                        )
                        .bind(&game.id)
                        .bind(seat.name())
                        .bind(&sp.player_id)
                        .bind(sp.cpu_finished)
                        .execute(&mut *tx)
                        .await?;
                    }
                    if !game.is_rated() {
                        tx.commit().await?;
                        return Ok(Recorded::Written {
                            rating_changes: Vec::new(),
                        });
                    }
                    // Lock the players' rating rows in a fixed order (no deadlock between two games
                    // sharing players), creating missing ones at the initial rating. CPU seats have
                    // anchors, no rows.
                    let mut players = rated_players(game)?;
                    players.sort();
                    let mut current: HashMap<String, (Rating, i64)> = HashMap::new();
                    for player in &players {
                        sqlx::query(
                            "INSERT INTO ratings (player_id, pool, mu, sigma, games, updated_at) \
                             VALUES ($1, $2, $3, $4, 0, $5) ON CONFLICT (player_id, pool) DO NOTHING",
                        )
                        .bind(player)
                        .bind(game.pool.as_str())
                        .bind(Rating::INITIAL.mu)
                        .bind(Rating::INITIAL.sigma)
                        .bind(now)
                        .execute(&mut *tx)
                        .await?;
                        let row = sqlx::query(concat!(
                            "SELECT mu, sigma, games FROM ratings WHERE player_id = $1 AND pool = $2",
                            $for_update
                        ))
                        .bind(player)
                        .bind(game.pool.as_str())
                        .fetch_one(&mut *tx)
                        .await?;
                        let rating = Self::rating_from_row(&row, "mu", "sigma")?;
                        current.insert(player.clone(), (rating, row.try_get("games")?));
                    }
                    let changes = rating_changes(game, &current)?;
                    for change in changes.iter().filter(|c| anchor_of(game.pool, &c.player_id).is_none()) {
                        sqlx::query(
                            "UPDATE ratings SET mu = $3, sigma = $4, games = $5, updated_at = $6 \
                             WHERE player_id = $1 AND pool = $2",
                        )
                        .bind(&change.player_id)
                        .bind(game.pool.as_str())
                        .bind(change.after.mu)
                        .bind(change.after.sigma)
                        .bind(change.games)
                        .bind(now)
                        .execute(&mut *tx)
                        .await?;
                        sqlx::query(
                            "INSERT INTO rating_history (player_id, pool, game_id, mu_before, \
                             sigma_before, mu_after, sigma_after, at, games) \
                             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                        )
                        .bind(&change.player_id)
                        .bind(game.pool.as_str())
                        .bind(&game.id)
                        .bind(change.before.mu)
                        .bind(change.before.sigma)
                        .bind(change.after.mu)
                        .bind(change.after.sigma)
                        .bind(game.finished_at)
                        .bind(change.games)
                        .execute(&mut *tx)
                        .await?;
                    }
                    tx.commit().await?;
                    Ok(Recorded::Written {
                        rating_changes: changes,
                    })
                })
                .await
            }

            async fn game(&self, id: &str) -> Result<Option<GameRecord>, StoreError> {
                let row = sqlx::query(
                    "SELECT id, room_id, game_no, pool, rated, options, first_seat, dice_commit, \
                     revealed_seed, result, standings, record, finished_at, unrated_reason \
                     FROM games WHERE id = $1",
                )
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
                let Some(row) = row else { return Ok(None) };
                let seat_rows = sqlx::query(
                    "SELECT seat, player_id, cpu_finished FROM game_seats WHERE game_id = $1",
                )
                .bind(id)
                .fetch_all(&self.pool)
                .await?;
                let mut seats: [Option<SeatPlayer>; 4] = Default::default();
                for seat_row in &seat_rows {
                    let seat: String = seat_row.try_get("seat")?;
                    seats[parse_seat(&seat)?.index()] = Some(SeatPlayer {
                        player_id: seat_row.try_get("player_id")?,
                        cpu_finished: seat_row.try_get("cpu_finished")?,
                    });
                }
                let seats = seats.map(|s| s.ok_or_else(|| corrupt(format!("game {id}: seat missing"))));
                let [red, blue, yellow, green] = seats;
                let seats = [red?, blue?, yellow?, green?];
                let pool: String = row.try_get("pool")?;
                let first_seat: String = row.try_get("first_seat")?;
                let game = FinishedGame {
                    id: row.try_get("id")?,
                    room_id: row.try_get("room_id")?,
                    game_no: row.try_get("game_no")?,
                    pool: parse_pool(&pool)?,
                    unrated: Self::unrated_from_row(&row, id)?,
                    options: row.try_get::<Json<Value>, _>("options")?.0,
                    first_seat: parse_seat(&first_seat)?,
                    dice_commit: row.try_get("dice_commit")?,
                    revealed_seed: row.try_get("revealed_seed")?,
                    seats,
                    result: row.try_get::<Json<GameResult>, _>("result")?.0,
                    standings: row.try_get::<Json<Value>, _>("standings")?.0,
                    record: row.try_get::<Json<Value>, _>("record")?.0,
                    finished_at: row.try_get("finished_at")?,
                };
                let history = sqlx::query(
                    "SELECT player_id, mu_before, sigma_before, mu_after, sigma_after, games \
                     FROM rating_history WHERE game_id = $1",
                )
                .bind(id)
                .fetch_all(&self.pool)
                .await?;
                let mut rating_changes = Vec::with_capacity(4);
                for seat in Seat::ALL {
                    let player = &game.seats[seat.index()].player_id;
                    if let Some(anchor) = anchor_of(game.pool, player) {
                        // A CPU seat of a rated game took part with its level's anchor (the
                        // anchors of this version: they are constants of a release).
                        if game.is_rated() {
                            rating_changes.push(RatingChange {
                                player_id: player.clone(),
                                seats: vec![seat],
                                before: anchor,
                                after: anchor,
                                games: 0,
                            });
                        }
                        continue;
                    }
                    if rating_changes.iter().any(|c: &RatingChange| &c.player_id == player) {
                        continue; // an older version's game: one identity, several seats
                    }
                    let Some(h) = history
                        .iter()
                        .find(|h| h.try_get::<String, _>("player_id").ok().as_ref() == Some(player))
                    else {
                        continue;
                    };
                    rating_changes.push(RatingChange {
                        seats: Seat::ALL
                            .into_iter()
                            .filter(|s| &game.seats[s.index()].player_id == player)
                            .collect(),
                        player_id: player.clone(),
                        before: Self::rating_from_row(h, "mu_before", "sigma_before")?,
                        after: Self::rating_from_row(h, "mu_after", "sigma_after")?,
                        games: h.try_get("games")?,
                    });
                }
                Ok(Some(GameRecord {
                    game,
                    rating_changes,
                }))
            }

            async fn leaderboard(
                &self,
                pool: Pool,
                query: LeaderboardQuery,
            ) -> Result<Vec<LeaderboardRow>, StoreError> {
                let rows = sqlx::query(
                    "SELECT r.player_id, p.display_name, p.is_cpu, r.mu, r.sigma, r.games \
                     FROM ratings r JOIN players p ON p.id = r.player_id \
                     WHERE r.pool = $1 AND r.games >= $2 AND r.sigma <= $3 AND r.updated_at >= $4 \
                     AND NOT p.is_cpu \
                     ORDER BY (r.mu - 3 * r.sigma) DESC, r.player_id \
                     LIMIT $5 OFFSET $6",
                )
                .bind(pool.as_str())
                .bind(query.established.min_games)
                .bind(query.established.max_sigma)
                .bind(query.active_since)
                .bind(query.limit.max(0))
                .bind(query.offset.max(0))
                .fetch_all(&self.pool)
                .await?;
                rows.iter()
                    .enumerate()
                    .map(|(i, row)| {
                        let rating = Self::rating_from_row(row, "mu", "sigma")?;
                        Ok(LeaderboardRow {
                            rank: query.offset.max(0) + i as i64 + 1,
                            player_id: row.try_get("player_id")?,
                            display_name: row.try_get("display_name")?,
                            is_cpu: row.try_get("is_cpu")?,
                            display: rating.display(),
                            rating,
                            games: row.try_get("games")?,
                        })
                    })
                    .collect()
            }

            async fn rating_history(
                &self,
                player_id: &str,
                query: HistoryQuery,
            ) -> Result<Vec<HistoryEntry>, StoreError> {
                let rows = sqlx::query(
                    "SELECT pool, game_id, games, mu_before, sigma_before, mu_after, sigma_after, at \
                     FROM rating_history WHERE player_id = $1 AND pool = $2 \
                     ORDER BY at DESC, game_id DESC LIMIT $3 OFFSET $4",
                )
                .bind(player_id)
                .bind(query.pool.as_str())
                .bind(query.limit.max(0))
                .bind(query.offset.max(0))
                .fetch_all(&self.pool)
                .await?;
                rows.iter().map(Self::history_from_row).collect()
            }

            async fn profile(
                &self,
                player_id: &str,
                history_limit: i64,
            ) -> Result<Option<Profile>, StoreError> {
                let Some(player) = self.player(player_id).await? else {
                    return Ok(None);
                };
                let rating_rows = sqlx::query(
                    "SELECT pool, mu, sigma, games, updated_at FROM ratings WHERE player_id = $1 \
                     ORDER BY pool",
                )
                .bind(player_id)
                .fetch_all(&self.pool)
                .await?;
                let mut ratings = Vec::with_capacity(rating_rows.len());
                for row in &rating_rows {
                    let pool: String = row.try_get("pool")?;
                    let rating = Self::rating_from_row(row, "mu", "sigma")?;
                    ratings.push(PoolRating {
                        pool: parse_pool(&pool)?,
                        display: rating.display(),
                        rating,
                        games: row.try_get("games")?,
                        updated_at: row.try_get("updated_at")?,
                    });
                }
                let history_rows = sqlx::query(
                    "SELECT pool, game_id, games, mu_before, sigma_before, mu_after, sigma_after, at \
                     FROM rating_history WHERE player_id = $1 \
                     ORDER BY at DESC, game_id DESC LIMIT $2",
                )
                .bind(player_id)
                .bind(history_limit.max(0))
                .fetch_all(&self.pool)
                .await?;
                let history = history_rows
                    .iter()
                    .map(Self::history_from_row)
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Some(Profile {
                    player,
                    ratings,
                    history,
                }))
            }

            async fn room_games(
                &self,
                room_id: &str,
                query: RoomGamesQuery,
            ) -> Result<Vec<GameSummary>, StoreError> {
                let rows = sqlx::query(concat!(
                    "SELECT g.id, g.room_id, g.game_no, g.pool, g.rated, g.unrated_reason, \
                     g.standings, g.finished_at, ",
                    $record_seats,
                    " AS seats, CAST(NULL AS DOUBLE PRECISION) AS mu_before, \
                     CAST(NULL AS DOUBLE PRECISION) AS sigma_before, \
                     CAST(NULL AS DOUBLE PRECISION) AS mu_after, \
                     CAST(NULL AS DOUBLE PRECISION) AS sigma_after \
                     FROM games g WHERE g.room_id = $1 AND g.game_no < $2 \
                     ORDER BY g.game_no DESC LIMIT $3"
                ))
                .bind(room_id)
                .bind(query.before.unwrap_or(i32::MAX))
                .bind(query.limit.max(0))
                .fetch_all(&self.pool)
                .await?;
                rows.iter().map(Self::summary_from_row).collect()
            }

            async fn player_games(
                &self,
                player_id: &str,
                query: PlayerGamesQuery,
            ) -> Result<Vec<GameSummary>, StoreError> {
                let (at, id) = query.before.unwrap_or((Millis::MAX, String::new()));
                let rows = sqlx::query(concat!(
                    "SELECT g.id, g.room_id, g.game_no, g.pool, g.rated, g.unrated_reason, \
                     g.standings, g.finished_at, ",
                    $record_seats,
                    " AS seats, h.mu_before, h.sigma_before, h.mu_after, h.sigma_after \
                     FROM games g LEFT JOIN rating_history h \
                       ON h.game_id = g.id AND h.player_id = $1 \
                     WHERE EXISTS (SELECT 1 FROM game_seats s \
                                   WHERE s.game_id = g.id AND s.player_id = $1) \
                       AND (g.finished_at < $2 OR (g.finished_at = $2 AND g.id < $3)) \
                     ORDER BY g.finished_at DESC, g.id DESC LIMIT $4"
                ))
                .bind(player_id)
                .bind(at)
                .bind(id)
                .bind(query.limit.max(0))
                .fetch_all(&self.pool)
                .await?;
                rows.iter().map(Self::summary_from_row).collect()
            }
        }
    };
}

// The record's `seats`, taken out of the stored record by the database (a list needs them, not the
// actions): the only JSON function the two backends spell differently. The action log is read from
// `room_log_all` on SQLite: `room_log` and the tail not yet moved into it (`tail.rs`).
impl_store!(
    SqliteStore,
    Sqlite,
    Backend::Sqlite,
    "",
    "json_extract(g.record, '$.seats')",
    "room_log_all"
);
impl_store!(
    PgStore,
    Postgres,
    Backend::Postgres,
    " FOR UPDATE",
    "g.record->'seats'",
    "room_log"
);
