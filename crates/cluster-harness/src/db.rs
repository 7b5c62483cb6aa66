//! The run's own PostgreSQL database: created fresh, read by the checker, dropped when the run passed.

use std::collections::BTreeMap;
use std::str::FromStr;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{Connection, PgPool, Row};

use crate::checker::LogRow;

#[derive(Debug)]
pub struct Db {
    base: String,
    pub name: String,
    pub url: String,
    pool: Option<PgPool>,
}

impl Db {
    /// A new database `fk_cluster_<random>` on the server at `base` (`postgres://user@host:port`).
    pub async fn create(base: &str) -> anyhow::Result<Db> {
        let base = base.trim_end_matches('/').to_owned();
        let mut admin = sqlx::PgConnection::connect(&format!("{base}/postgres")).await?;
        let name = format!("fk_cluster_{:016x}", rand::random::<u64>());
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut admin)
            .await?;
        admin.close().await?;
        let url = format!("{base}/{name}");
        Ok(Db {
            base,
            name,
            url,
            pool: None,
        })
    }

    /// The tables exist once the first node has migrated the database: connect on first use.
    async fn pool(&mut self) -> anyhow::Result<&PgPool> {
        if self.pool.is_none() {
            let options = PgConnectOptions::from_str(&self.url)?;
            let pool = PgPoolOptions::new()
                .max_connections(2)
                .connect_with(options)
                .await?;
            self.pool = Some(pool);
        }
        Ok(self.pool.as_ref().expect("set above"))
    }

    /// Rooms whose owner is the live incarnation with this public URL.
    pub async fn rooms_owned_by(&mut self, public_url: &str) -> anyhow::Result<Vec<String>> {
        let rows = sqlx::query(
            "SELECT r.id FROM rooms r JOIN nodes n ON n.id = r.owner_node \
             WHERE n.public_url = $1 AND n.lease_until > now() ORDER BY r.id",
        )
        .bind(public_url)
        .fetch_all(self.pool().await?)
        .await?;
        Ok(rows.iter().map(|r| r.get("id")).collect())
    }

    /// The public URL of the room's valid owner, if any.
    pub async fn owner_url(&mut self, room: &str) -> anyhow::Result<Option<String>> {
        let row = sqlx::query(
            "SELECT n.public_url FROM rooms r JOIN nodes n ON n.id = r.owner_node \
             WHERE r.id = $1 AND n.lease_until > now()",
        )
        .bind(room)
        .fetch_optional(self.pool().await?)
        .await?;
        Ok(row.map(|r| r.get("public_url")))
    }

    /// The id of the live incarnation with this public URL.
    pub async fn live_node_id(&mut self, public_url: &str) -> anyhow::Result<Option<String>> {
        let row = sqlx::query(
            "SELECT id FROM nodes WHERE public_url = $1 AND lease_until > now() \
             ORDER BY started_at DESC LIMIT 1",
        )
        .bind(public_url)
        .fetch_optional(self.pool().await?)
        .await?;
        Ok(row.map(|r| r.get("id")))
    }

    /// Log rows an incarnation wrote with a timestamp after `since_ms`.
    pub async fn rows_written_by_since(
        &mut self,
        node: &str,
        since_ms: i64,
    ) -> anyhow::Result<i64> {
        let row =
            sqlx::query("SELECT count(*) AS n FROM room_log WHERE writer_node = $1 AND at > $2")
                .bind(node)
                .bind(since_ms)
                .fetch_one(self.pool().await?)
                .await?;
        Ok(row.try_get("n")?)
    }

    /// The whole log, with who wrote each row.
    pub async fn log(&mut self) -> anyhow::Result<Vec<LogRow>> {
        let rows = sqlx::query(
            "SELECT room_id, game_no, seq, payload::text AS payload, at, writer_node, writer_epoch \
             FROM room_log",
        )
        .fetch_all(self.pool().await?)
        .await?;
        rows.iter()
            .map(|r| {
                let payload: String = r.try_get("payload")?;
                Ok(LogRow {
                    room: r.try_get("room_id")?,
                    game_no: r.try_get("game_no")?,
                    seq: r.try_get("seq")?,
                    payload: serde_json::from_str(&payload)?,
                    at: r.try_get("at")?,
                    writer_node: r.try_get("writer_node")?,
                    writer_epoch: r.try_get("writer_epoch")?,
                })
            })
            .collect()
    }

    /// Every room's `last_seq`.
    pub async fn last_seqs(&mut self) -> anyhow::Result<BTreeMap<String, Option<i64>>> {
        let rows = sqlx::query("SELECT id, last_seq FROM rooms")
            .fetch_all(self.pool().await?)
            .await?;
        rows.iter()
            .map(|r| Ok((r.try_get("id")?, r.try_get("last_seq")?)))
            .collect()
    }

    /// Drops the database (every node must be stopped).
    pub async fn drop_database(mut self) -> anyhow::Result<()> {
        if let Some(pool) = self.pool.take() {
            pool.close().await;
        }
        let mut admin = sqlx::PgConnection::connect(&format!("{}/postgres", self.base)).await?;
        sqlx::query(&format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            self.name
        ))
        .execute(&mut admin)
        .await?;
        admin.close().await?;
        Ok(())
    }
}
