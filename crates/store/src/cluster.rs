//! Cluster mode: PostgreSQL as the single arbiter of which node owns each room (leases + fencing).
//!
//! - A node *incarnation* registers a row in `nodes` with a lease measured on the database clock
//!   (`now()`), never on the node's own clock, and renews it in the background. A fresh id at every
//!   start means a restarted node is a stranger to its old rooms: it must claim them like anyone else.
//! - A room is owned by `(owner_node, owner_epoch)`. [`Cluster::claim_room`] is one `UPDATE …
//!   RETURNING` that succeeds only when the room is unowned or its owner's lease has expired, and bumps
//!   the epoch (a fencing token that only ever increases).
//! - Every append is ONE statement ([`Cluster::fenced_append`]): it advances `rooms.last_seq` only
//!   where the owner, the epoch, the expected `last_seq` AND the writer's own lease still hold, and
//!   inserts the entries in the same statement. Zero rows means the node has lost the room (or its
//!   lease): it must stop at once and acknowledge nothing more. A paused or partitioned old owner can
//!   therefore never write, whatever its own clock believes.
//!
//! There is no spool here: a node that cannot reach PostgreSQL cannot append, so it acknowledges
//! nothing; its lease expires and another node claims its rooms. A local spool would fork games.

use std::time::Duration;

use sqlx::{PgPool, Row};

use crate::{LogEntry, OpenOptions, PgStore, StoreError};

/// Lease timing. The lease is renewed every `renew_every`; a node that misses renewals for `ttl` is
/// dead to the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaseConfig {
    pub ttl: Duration,
    pub renew_every: Duration,
}

impl Default for LeaseConfig {
    fn default() -> Self {
        LeaseConfig {
            ttl: Duration::from_secs(6),
            renew_every: Duration::from_secs(2),
        }
    }
}

/// The right to write one room's log: which incarnation, under which epoch.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Fence {
    pub room_id: String,
    pub node_id: String,
    pub epoch: i64,
}

/// The answer of [`Cluster::claim_room`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// This node now owns the room under `fence.epoch`; `last_seq` entries are in its log.
    Claimed { fence: Fence, last_seq: i64 },
    /// Another node holds a valid lease on the room: send the client there.
    OwnedBy { node_id: String, public_url: String },
    /// No such room.
    NoSuchRoom,
}

/// Who validly owns a room now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    pub node_id: String,
    pub public_url: String,
    pub epoch: i64,
}

/// The answer of [`Cluster::fenced_append`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Appended {
    /// Written; the room's log now holds `last_seq` entries.
    Written { last_seq: i64 },
    /// Refused: the room has another owner or epoch, the writer's lease has expired, or `last_seq`
    /// moved. The node must stop serving the room.
    Fenced,
}

/// A node's handle on the cluster tables. Cheap to clone (a pool).
#[derive(Debug, Clone)]
pub struct Cluster {
    pool: PgPool,
    lease: LeaseConfig,
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

impl Cluster {
    /// Connects to (and migrates) the PostgreSQL database at `url`. Cluster mode refuses anything
    /// else: SQLite is one process's file and cannot arbitrate between nodes.
    pub async fn open(
        url: &str,
        options: &OpenOptions,
        lease: LeaseConfig,
    ) -> Result<Cluster, StoreError> {
        if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
            return Err(StoreError::ClusterNeedsPostgres(url.to_owned()));
        }
        let store = PgStore::open(url, options).await?;
        Ok(Cluster::on(&store, lease))
    }

    /// The cluster tables over an open (migrated) store's pool: a node needs one pool, not two.
    pub fn on(store: &PgStore, lease: LeaseConfig) -> Cluster {
        Cluster {
            pool: store.pool().clone(),
            lease,
        }
    }

    pub fn lease(&self) -> LeaseConfig {
        self.lease
    }

    /// Registers a new node incarnation with a fresh lease; returns its id.
    pub async fn register_node(&self, public_url: &str) -> Result<String, StoreError> {
        let id = format!("node-{:016x}", rand::random::<u64>());
        sqlx::query(
            "INSERT INTO nodes (id, public_url, lease_until) \
             VALUES ($1, $2, now() + $3 * interval '1 millisecond')",
        )
        .bind(&id)
        .bind(public_url)
        .bind(millis(self.lease.ttl))
        .execute(&self.pool)
        .await?;
        Ok(id)
    }

    /// Extends the node's lease. `false` means it had already expired (or was released): the node may
    /// have lost any of its rooms and must stop serving them all; it never revives an expired lease.
    pub async fn renew(&self, node_id: &str) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE nodes SET lease_until = now() + $2 * interval '1 millisecond' \
             WHERE id = $1 AND lease_until > now()",
        )
        .bind(node_id)
        .bind(millis(self.lease.ttl))
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Graceful drain: gives up every room of the node and ends its lease, in one transaction, so other
    /// nodes can claim the rooms at once. Returns the rooms released.
    pub async fn release_node(&self, node_id: &str) -> Result<u64, StoreError> {
        let mut tx = self.pool.begin().await?;
        let rooms = sqlx::query("UPDATE rooms SET owner_node = NULL WHERE owner_node = $1")
            .bind(node_id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        sqlx::query("UPDATE nodes SET lease_until = now() WHERE id = $1")
            .bind(node_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(rooms)
    }

    /// Gives up one room (e.g. it closed), if the fence still holds.
    pub async fn release_room(&self, fence: &Fence) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE rooms SET owner_node = NULL \
             WHERE id = $1 AND owner_node = $2 AND owner_epoch = $3",
        )
        .bind(&fence.room_id)
        .bind(&fence.node_id)
        .bind(fence.epoch)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Takes the room when nobody validly owns it (unowned, or its owner's lease expired), bumping the
    /// epoch. The claimant's own lease must be valid too: a node that lost its lease claims nothing.
    pub async fn claim_room(&self, node_id: &str, room_id: &str) -> Result<Claim, StoreError> {
        let claimed = sqlx::query(
            "UPDATE rooms SET owner_node = $1, owner_epoch = COALESCE(owner_epoch, 0) + 1 \
             WHERE id = $2 \
               AND EXISTS (SELECT 1 FROM nodes WHERE id = $1 AND lease_until > now()) \
               AND (owner_node IS NULL OR NOT EXISTS ( \
                    SELECT 1 FROM nodes n WHERE n.id = rooms.owner_node AND n.lease_until > now())) \
             RETURNING owner_epoch, COALESCE(last_seq, 0) AS last_seq",
        )
        .bind(node_id)
        .bind(room_id)
        .fetch_optional(&self.pool)
        .await?;
        if let Some(row) = claimed {
            return Ok(Claim::Claimed {
                fence: Fence {
                    room_id: room_id.to_owned(),
                    node_id: node_id.to_owned(),
                    epoch: row.try_get("owner_epoch")?,
                },
                last_seq: row.try_get("last_seq")?,
            });
        }
        let exists = sqlx::query("SELECT 1 FROM rooms WHERE id = $1")
            .bind(room_id)
            .fetch_optional(&self.pool)
            .await?
            .is_some();
        if !exists {
            return Ok(Claim::NoSuchRoom);
        }
        Ok(match self.owner(room_id).await? {
            Some(owner) => Claim::OwnedBy {
                node_id: owner.node_id,
                public_url: owner.public_url,
            },
            // The owner's lease ran out between the two statements, or our own lease is gone: the
            // caller retries (or, with no lease of its own, stops).
            None => Claim::OwnedBy {
                node_id: String::new(),
                public_url: String::new(),
            },
        })
    }

    /// The room's owner if its lease is valid now.
    pub async fn owner(&self, room_id: &str) -> Result<Option<Owner>, StoreError> {
        let row = sqlx::query(
            "SELECT r.owner_node, r.owner_epoch, n.public_url FROM rooms r \
             JOIN nodes n ON n.id = r.owner_node \
             WHERE r.id = $1 AND n.lease_until > now()",
        )
        .bind(room_id)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|row| {
            Ok(Owner {
                node_id: row.try_get("owner_node")?,
                public_url: row.try_get("public_url")?,
                epoch: row.try_get("owner_epoch")?,
            })
        })
        .transpose()
    }

    /// Up to `limit` rooms, in random order, with a game in progress (its log started and no finished
    /// game recorded for it) that nobody validly owns: their node died (lease expired) or drained.
    /// Live nodes sweep these up, so a game whose players are all away or CPUs goes on without
    /// waiting for someone to ask for it. Rooms between games are left to whoever asks for them
    /// next (nothing runs in them: no turn, no timer), and so are closed rooms.
    pub async fn orphaned_rooms(&self, limit: i64) -> Result<Vec<String>, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT r.id FROM rooms r \
             CROSS JOIN LATERAL (SELECT max(l.game_no) AS game_no FROM room_log l \
                                 WHERE l.room_id = r.id) last \
             WHERE r.state IN ('lobby', 'playing') AND last.game_no >= 1 \
               AND NOT EXISTS (SELECT 1 FROM games g \
                               WHERE g.room_id = r.id AND g.game_no = last.game_no) \
               AND NOT EXISTS (SELECT 1 FROM nodes n \
                               WHERE n.id = r.owner_node AND n.lease_until > now()) \
             ORDER BY random() LIMIT $1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Every node with a valid lease: (id, public URL).
    pub async fn live_nodes(&self) -> Result<Vec<(String, String)>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT id, public_url FROM nodes WHERE lease_until > now() ORDER BY public_url, id",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    /// Rooms the node owns according to the database (what it must serve, or drop if it disagrees).
    pub async fn rooms_owned_by(&self, node_id: &str) -> Result<Vec<String>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT id FROM rooms WHERE owner_node = $1 ORDER BY id")
                .bind(node_id)
                .fetch_all(&self.pool)
                .await?,
        )
    }

    /// Appends `entries` (in order) to the room's log in ONE statement, fenced: only if `fence` still
    /// owns the room, the writer's lease is valid, and the log holds exactly `expected_last_seq`
    /// entries. Either all entries are written or none.
    pub async fn fenced_append(
        &self,
        fence: &Fence,
        expected_last_seq: i64,
        entries: &[LogEntry],
    ) -> Result<Appended, StoreError> {
        let mut out = self
            .fenced_append_many(&[(fence.clone(), expected_last_seq, entries.to_vec())])
            .await?;
        Ok(out.pop().unwrap_or(Appended::Fenced))
    }

    /// Group commit across rooms: one transaction holding one fenced statement per room. A fenced-out
    /// room does not abort the others (a statement that matches no row is not an error).
    pub async fn fenced_append_many(
        &self,
        batches: &[(Fence, i64, Vec<LogEntry>)],
    ) -> Result<Vec<Appended>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let mut out = Vec::with_capacity(batches.len());
        for (fence, expected, entries) in batches {
            let count = i64::try_from(entries.len()).unwrap_or(i64::MAX);
            let game_nos: Vec<i32> = entries.iter().map(|e| e.game_no).collect();
            let seqs: Vec<i64> = entries.iter().map(|e| e.seq).collect();
            let kinds: Vec<&str> = entries.iter().map(|e| e.kind.as_str()).collect();
            let payloads: Vec<String> = entries.iter().map(|e| e.payload.to_string()).collect();
            let ats: Vec<i64> = entries.iter().map(|e| e.at).collect();
            let row = sqlx::query(
                "WITH fence AS ( \
                    UPDATE rooms SET last_seq = $4 + $5 \
                    WHERE id = $1 AND owner_node = $2 AND owner_epoch = $3 \
                      AND COALESCE(last_seq, 0) = $4 \
                      AND EXISTS (SELECT 1 FROM nodes WHERE id = $2 AND lease_until > now()) \
                    RETURNING id \
                 ), ins AS ( \
                    INSERT INTO room_log \
                        (room_id, game_no, seq, kind, payload, at, writer_node, writer_epoch) \
                    SELECT fence.id, e.game_no, e.seq, e.kind, e.payload::jsonb, e.at, $2, $3 \
                    FROM fence, UNNEST($6::int[], $7::bigint[], $8::text[], $9::text[], $10::bigint[]) \
                        AS e(game_no, seq, kind, payload, at) \
                    RETURNING 1 \
                 ) \
                 SELECT (SELECT count(*) FROM fence) AS fenced_ok, \
                        (SELECT count(*) FROM ins) AS inserted",
            )
            .bind(&fence.room_id)
            .bind(&fence.node_id)
            .bind(fence.epoch)
            .bind(*expected)
            .bind(count)
            .bind(&game_nos)
            .bind(&seqs)
            .bind(&kinds)
            .bind(&payloads)
            .bind(&ats)
            .fetch_one(&mut *tx)
            .await?;
            let ok: i64 = row.try_get("fenced_ok")?;
            out.push(if ok == 1 {
                Appended::Written {
                    last_seq: expected + count,
                }
            } else {
                Appended::Fenced
            });
        }
        tx.commit().await?;
        Ok(out)
    }

    /// Every log row of a room with the incarnation and epoch that wrote it, in (game, seq) order: what
    /// the fault harness's checker reads.
    pub async fn audit_log(&self, room_id: &str) -> Result<Vec<AuditRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT game_no, seq, writer_node, writer_epoch FROM room_log \
             WHERE room_id = $1 ORDER BY game_no, seq",
        )
        .bind(room_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(AuditRow {
                    game_no: r.try_get("game_no")?,
                    seq: r.try_get("seq")?,
                    writer_node: r.try_get("writer_node")?,
                    writer_epoch: r.try_get("writer_epoch")?,
                })
            })
            .collect()
    }
}

/// One log row as [`Cluster::audit_log`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditRow {
    pub game_no: i32,
    pub seq: i64,
    pub writer_node: Option<String>,
    pub writer_epoch: Option<i64>,
}
