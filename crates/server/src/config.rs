//! Layered configuration: `config/default.toml` (compiled in), then an optional file, then
//! `FOURKINGS_<SECTION>__<KEY>` environment variables. `DATABASE_URL`, the conventional variable,
//! also sets `database.url` (a `FOURKINGS_DATABASE__URL` wins over it).

use std::time::Duration;

use figment::Figment;
use figment::providers::{Env, Format, Toml};
use serde::{Deserialize, Serialize};

use crate::validate::{ConfigError, extract};

/// The defaults, compiled in so the binary runs from any directory.
pub const DEFAULT_TOML: &str = include_str!("../../../config/default.toml");

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub server: ServerSection,
    pub limits: LimitsSection,
    pub timers: TimersSection,
    pub rooms: RoomsSection,
    pub bots: BotsSection,
    pub log: LogSection,
    pub database: DatabaseSection,
    pub cluster: ClusterSection,
    pub ratings: RatingsSection,
    pub chat: ChatSection,
}

/// Room chat (docs/protocol.md, "Chat").
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ChatSection {
    /// Write every chat line (and every hiding) to the server's log, target `fourkings::chat`, so
    /// the operator's log storage keeps it after the room closes. Off: chat lives only in the room's
    /// memory.
    pub keep: bool,
    /// Characters of free text after trimming, at most (`chat_too_long` past it).
    pub max_chars: usize,
    /// Chat messages one connection may send per `rate_period_ms` (`chat_too_fast` past it).
    pub rate_messages: usize,
    pub rate_period_ms: u64,
    /// Recent lines kept per channel for the snapshot and resuming clients.
    pub recent: usize,
}

/// When a game counts for ratings and who is on the leaderboard (docs/protocol.md, "Ratings").
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RatingsSection {
    /// Moves of its own every human seat must have made for a rated game to count; 0 counts every
    /// finished game.
    pub min_moves: u32,
    /// Rated games in a pool before a rating is established.
    pub provisional_games: i64,
    /// The largest sigma an established rating has.
    pub provisional_sigma: f64,
    /// Leaderboards list players with a rated game in the pool in this many days; 0 = any time.
    pub leaderboard_active_days: u32,
}

impl RatingsSection {
    pub fn established(&self) -> rating::Established {
        rating::Established {
            min_games: self.provisional_games,
            max_sigma: self.provisional_sigma,
        }
    }
}

/// Cluster mode: several nodes on one PostgreSQL, each room served by one node (docs/cluster.md).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterSection {
    pub enabled: bool,
    /// This node's base URL as clients reach it directly (not through the load balancer):
    /// `http(s)://host[:port][/prefix]`, no trailing slash. REST redirects go to the same path under
    /// it; WebSocket redirects to it with `ws(s)://` and `/ws`.
    pub public_url: String,
    pub lease_ttl_ms: u64,
    pub renew_ms: u64,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DatabaseSection {
    pub url: String,
    pub spool_path: String,
    pub max_connections: u32,
    /// A pooled connection idle this long is closed, ms.
    pub pool_idle_ms: u64,
    pub write_timeout_ms: u64,
    /// Longest wait of a log commit for more entries, µs (only while they come faster than one
    /// per wait); 0 never waits.
    pub commit_delay_us: u64,
    pub connect_timeout_ms: u64,
    /// PostgreSQL only: a session idle inside a transaction this long is ended (its locks released).
    pub pg_idle_in_transaction_ms: u64,
    /// SQLite only: `full` (fsync every commit) or `normal` (fsync at checkpoints).
    pub sqlite_synchronous: store::SqliteSync,
    /// SQLite only: page cache of the action log's own connection, KiB.
    pub sqlite_log_cache_kib: u32,
    /// SQLite only: background WAL checkpoints, every this many ms.
    pub sqlite_checkpoint_ms: u64,
    /// SQLite only: WAL pages past which a checkpoint restarts the WAL.
    pub sqlite_wal_restart_pages: u32,
    /// SQLite only: how often the action log's tail is looked at for rooms to move, ms.
    pub sqlite_log_merge_ms: u64,
    /// SQLite only: a room's entries move out of the tail once it has this many ...
    pub sqlite_log_merge_room_entries: usize,
    /// ... or its oldest has waited this long, ms.
    pub sqlite_log_merge_age_ms: u64,
    /// SQLite only: at most this many entries per move (whole rooms).
    pub sqlite_log_merge_step_entries: usize,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ServerSection {
    pub listen: String,
    pub public_url: String,
    pub allowed_origins: Vec<String>,
    pub max_rooms: usize,
    /// Proxies whose `X-Forwarded-For` is believed (exact addresses).
    pub trusted_proxies: Vec<std::net::IpAddr>,
    pub header_timeout_ms: u64,
    pub request_timeout_ms: u64,
    /// On SIGTERM/SIGINT: how long closing connections and flushing may take before the process
    /// exits anyway.
    pub shutdown_timeout_ms: u64,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsSection {
    pub max_frame_bytes: usize,
    /// After a WebSocket close frame: how long, and how many bytes, the client's remaining input is
    /// read and dropped before the socket is closed (a lingering close: see `linger`).
    pub close_linger_ms: u64,
    pub close_linger_bytes: usize,
    pub rate_messages: u32,
    pub rate_period_ms: u64,
    pub outbox_frames: usize,
    /// Connections held at most; 0 = the open-file limit minus `fdlimit::RESERVE` and `probe_reserve`.
    pub max_connections: u32,
    pub max_body_bytes: usize,
    pub max_error_details: usize,
    pub rest_write_per_minute: u32,
    pub rest_write_burst: u32,
    pub rest_read_per_minute: u32,
    pub rest_read_burst: u32,
    pub max_open_lobbies_per_client: usize,
    pub rooms_page_default: usize,
    pub rooms_page_max: usize,
    /// Games per `GET /rooms/{id}/games` and `GET /players/{id}/games` page: the default and the
    /// most a `limit` may ask.
    pub games_page_default: usize,
    pub games_page_max: usize,
    pub max_connections_per_ip: usize,
    pub probe_reserve: usize,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TimersSection {
    pub turn_second_ms: u64,
    pub grace_ms: u64,
    pub cpu_delay_ms: u64,
    pub ping_interval_ms: u64,
    pub idle_timeout_ms: u64,
    pub join_timeout_ms: u64,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RoomsSection {
    pub history: usize,
    pub history_bytes: usize,
    pub acks_kept: usize,
    pub idle_close_ms: u64,
    pub lobby_idle_ms: u64,
    pub reconnects_per_minute: usize,
    pub connection_settle_ms: u64,
    /// Tables of four CPU players run on a runtime thread of their own at nice 19 (`room::lane`).
    pub cpu_lane: bool,
}

/// CPU players: think-time caps per level, the worker pool, and the levels used by default.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BotsSection {
    pub easy_ms: u64,
    pub medium_ms: u64,
    pub hard_ms: u64,
    /// Pool threads; 0 = cores minus one (at least one).
    pub workers: usize,
    pub queue: usize,
    pub max_wait_ms: u64,
    pub fill_level: u8,
    pub takeover_level: u8,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LogSection {
    pub format: LogFormat,
    /// `tracing` filter directives (`RUST_LOG` wins when set).
    pub filter: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// Human-readable lines (local runs).
    Pretty,
    /// One JSON object per line (production, the Docker image).
    Json,
}

impl Config {
    /// Defaults, then `file` if given, then the environment; then [`Config::validate`]. The error
    /// lists every problem found, not just the first.
    pub fn load(file: Option<&std::path::Path>) -> Result<Config, ConfigError> {
        let config = extract(&Self::figment(file))?;
        config.validate()?;
        Ok(config)
    }

    /// The layered sources, unextracted.
    fn figment(file: Option<&std::path::Path>) -> Figment {
        let mut figment = Figment::from(Toml::string(DEFAULT_TOML));
        if let Some(file) = file {
            figment = figment.merge(Toml::file_exact(file));
        }
        figment
            .merge(
                Env::raw()
                    .only(&["DATABASE_URL"])
                    .map(|_| "database.url".into()),
            )
            .merge(Env::prefixed("FOURKINGS_").split("__"))
    }

    /// The compiled-in defaults alone (tests start from these and shorten the timers).
    pub fn defaults() -> Config {
        Figment::from(Toml::string(DEFAULT_TOML))
            .extract()
            .expect("config/default.toml is valid")
    }

    pub fn bot_config(&self) -> room::bot::BotConfig {
        let b = &self.bots;
        room::bot::BotConfig {
            easy: Duration::from_millis(b.easy_ms),
            medium: Duration::from_millis(b.medium_ms),
            hard: Duration::from_millis(b.hard_ms),
            workers: match b.workers {
                0 => room::bot::default_workers(),
                n => n,
            },
            queue: b.queue,
            max_wait: Duration::from_millis(b.max_wait_ms),
            // Out-of-range levels are read as the nearest valid one rather than refused here.
            fill_level: b.fill_level.clamp(1, room::bot::MAX_LEVEL),
            takeover_level: b.takeover_level.clamp(1, room::bot::MAX_LEVEL),
        }
    }

    pub fn room_config(&self) -> room::RoomConfig {
        room::RoomConfig {
            history: self.rooms.history,
            history_bytes: self.rooms.history_bytes,
            turn_second: Duration::from_millis(self.timers.turn_second_ms),
            grace: Duration::from_millis(self.timers.grace_ms),
            cpu_delay: Duration::from_millis(self.timers.cpu_delay_ms),
            outbox: self.limits.outbox_frames,
            commands: 64,
            acks_kept: self.rooms.acks_kept,
            idle_close: Duration::from_millis(self.rooms.idle_close_ms),
            lobby_idle: Duration::from_millis(self.rooms.lobby_idle_ms),
            reconnects_per_minute: self.rooms.reconnects_per_minute,
            connection_settle: Duration::from_millis(self.rooms.connection_settle_ms),
            chat: room::ChatConfig {
                keep: self.chat.keep,
                max_chars: self.chat.max_chars,
                rate_messages: self.chat.rate_messages,
                rate_period: Duration::from_millis(self.chat.rate_period_ms),
                recent: self.chat.recent,
            },
            lanes: None,
        }
    }

    /// The log writer's settings (spool, write timeout) from `[database]`.
    pub fn writer_config(&self) -> store::WriterConfig {
        let mut writer = store::WriterConfig::new(&self.database.spool_path);
        writer.write_timeout = Duration::from_millis(self.database.write_timeout_ms);
        writer.commit_delay = Duration::from_micros(self.database.commit_delay_us);
        writer
    }

    pub fn lease_config(&self) -> store::cluster::LeaseConfig {
        store::cluster::LeaseConfig {
            ttl: Duration::from_millis(self.cluster.lease_ttl_ms),
            renew_every: Duration::from_millis(self.cluster.renew_ms),
        }
    }

    pub fn open_options(&self) -> store::OpenOptions {
        store::OpenOptions {
            max_connections: self.database.max_connections,
            pool_idle: Duration::from_millis(self.database.pool_idle_ms),
            acquire_timeout: Duration::from_millis(self.database.connect_timeout_ms),
            pg_idle_in_transaction: Duration::from_millis(self.database.pg_idle_in_transaction_ms),
            sqlite_sync: self.database.sqlite_synchronous,
            sqlite_log_cache_kib: self.database.sqlite_log_cache_kib,
            sqlite_checkpoint: store::checkpoint::CheckpointPolicy {
                interval: Duration::from_millis(self.database.sqlite_checkpoint_ms),
                restart_pages: self.database.sqlite_wal_restart_pages,
            },
            sqlite_log_merge: store::tail::MergePolicy {
                interval: Duration::from_millis(self.database.sqlite_log_merge_ms),
                room_rows: self.database.sqlite_log_merge_room_entries,
                age: Duration::from_millis(self.database.sqlite_log_merge_age_ms),
                step_rows: self.database.sqlite_log_merge_step_entries,
            },
            read_only: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::result_large_err)] // figment's Jail API returns its own error type
    fn defaults_parse_and_environment_overrides() {
        let config = Config::defaults();
        assert_eq!(config.limits.max_frame_bytes, 4096);
        let bots = config.bot_config();
        assert_eq!(bots.medium, Duration::from_millis(300));
        assert_eq!(bots.fill_level, 2);
        assert!(bots.workers >= 1);
        figment::Jail::expect_with(|jail| {
            jail.set_env("FOURKINGS_TIMERS__GRACE_MS", "1234");
            jail.set_env("FOURKINGS_SERVER__LISTEN", "127.0.0.1:0");
            let config = Config::load(None).expect("loads");
            assert_eq!(config.timers.grace_ms, 1234);
            assert_eq!(config.server.listen, "127.0.0.1:0");
            assert_eq!(config.database.url, store::DEFAULT_URL);
            jail.set_env("DATABASE_URL", "postgres://db/a");
            assert_eq!(
                Config::load(None).expect("loads").database.url,
                "postgres://db/a"
            );
            jail.set_env("FOURKINGS_DATABASE__URL", "postgres://db/b");
            assert_eq!(
                Config::load(None).expect("loads").database.url,
                "postgres://db/b"
            );
            Ok(())
        });
    }
}
