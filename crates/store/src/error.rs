//! The store's error type, and which errors mean "the database is unreachable right now".

/// Everything a store operation can fail with.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Db(#[from] sqlx::Error),
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("unsupported database URL `{0}` (expected sqlite:… or postgres://…)")]
    UnsupportedUrl(String),
    #[error(
        "cluster mode needs PostgreSQL (`postgres://…`), not `{0}`: one node's SQLite file cannot arbitrate between nodes"
    )]
    ClusterNeedsPostgres(String),
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
    #[error("stored JSON is invalid: {0}")]
    Json(#[from] serde_json::Error),
    #[error("{what} `{id}` not found")]
    NotFound { what: &'static str, id: String },
    /// The one rule for display names is the wire's (`protocol::name`): the store keeps no other.
    #[error("invalid display name: {0}")]
    InvalidName(#[from] protocol::name::NameProblem),
    #[error("invalid game result: {0}")]
    InvalidResult(#[from] rating::ResultError),
    #[error("room {room_id} already has a finished game number {game_no} under another id")]
    GameNumberTaken { room_id: String, game_no: i32 },
    #[error("player `{0}` holds several seats of one rated game")]
    SameIdentity(String),
    #[error("stored value is invalid: {0}")]
    Corrupt(String),
}

impl StoreError {
    /// Whether the error says the database could not be reached (network, pool, server shutting down,
    /// lock contention) rather than that the request itself is wrong. Transient errors are retried by
    /// the log writer and send it into outage mode; others are reported to the caller.
    pub fn is_transient(&self) -> bool {
        match self {
            StoreError::Db(e) => sqlx_is_transient(e),
            StoreError::Io(_) => true,
            _ => false,
        }
    }
}

fn sqlx_is_transient(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => match db.code() {
            // PostgreSQL: connection exceptions (class 08), admin/crash shutdown, cannot connect now,
            // too many connections, serialization failure, deadlock.
            Some(code) if code.starts_with("08") => true,
            Some(code) => matches!(
                code.as_ref(),
                "57P01" | "57P02" | "57P03" | "53300" | "40001" | "40P01"
                    // SQLite: SQLITE_BUSY, SQLITE_LOCKED (primary and extended codes).
                    | "5" | "6" | "261" | "517" | "262"
            ),
            None => false,
        },
        _ => false,
    }
}
