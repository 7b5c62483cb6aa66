//! A connection taken from its pool once and kept between uses.
//!
//! sqlx tests every connection that goes back to its pool with a ping: on SQLite a round trip to the
//! connection's worker thread, two thread switches and a wake-up of the runtime thread waiting for
//! the answer. The action log appends hundreds of times a second through a pool of one connection,
//! so every append paid for a second round trip, and the next append waited for it before it could
//! take the connection. Holding the connection removes the ping. A use that fails or is cancelled
//! (the log writer's write timeout drops the append's future) gives the connection back to the pool
//! instead, which tests it and replaces it if it is broken. A use that only finds the request wrong
//! (an unknown id, a game number taken) keeps it: the connection itself is as good as before.

use sqlx::pool::PoolConnection;
use sqlx::{Database, Pool};
use tokio::sync::Mutex;

/// Whether an error may come from the connection itself (the database, the link to it), so that the
/// pool should test the connection before it is used again.
pub(crate) trait ConnectionInDoubt {
    fn in_doubt(&self) -> bool;
}

impl ConnectionInDoubt for sqlx::Error {
    fn in_doubt(&self) -> bool {
        true
    }
}

impl ConnectionInDoubt for crate::StoreError {
    fn in_doubt(&self) -> bool {
        matches!(self, crate::StoreError::Db(_) | crate::StoreError::Io(_))
    }
}

pub(crate) struct HeldConnection<DB: Database> {
    pool: Pool<DB>,
    slot: Mutex<Option<PoolConnection<DB>>>,
}

impl<DB: Database> std::fmt::Debug for HeldConnection<DB> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeldConnection")
            .field("pool", &self.pool)
            .finish_non_exhaustive()
    }
}

impl<DB: Database> HeldConnection<DB> {
    pub(crate) fn new(pool: Pool<DB>) -> HeldConnection<DB> {
        HeldConnection {
            pool,
            slot: Mutex::new(None),
        }
    }

    /// Runs `f` on the connection (taken from the pool if none is held), one caller at a time. The
    /// connection is kept for the next call unless `f` fails with an error that puts the connection
    /// in doubt, or this future is dropped half-way: then it goes back to the pool. (A transaction
    /// left open by a failing `f` is rolled back by sqlx before the connection's next statement.)
    pub(crate) async fn run<T, E: From<sqlx::Error> + ConnectionInDoubt>(
        &self,
        f: impl AsyncFnOnce(&mut DB::Connection) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut slot = self.slot.lock().await;
        let mut conn = match slot.take() {
            Some(conn) => conn,
            None => self.pool.acquire().await?,
        };
        let answer = f(&mut conn).await;
        if answer.as_ref().err().is_none_or(|e| !e.in_doubt()) {
            *slot = Some(conn);
        }
        answer
    }

    /// Whether the pool has the connection idle (not held, not in use).
    pub(crate) fn idle_in_pool(&self) -> bool {
        self.pool.num_idle() > 0
    }

    /// Whether [`Self::close`] has run.
    pub(crate) fn is_closed(&self) -> bool {
        self.pool.is_closed()
    }

    /// Gives the held connection back and closes the pool (which waits for every connection).
    pub(crate) async fn close(&self) {
        drop(self.slot.lock().await.take());
        self.pool.close().await;
    }
}
