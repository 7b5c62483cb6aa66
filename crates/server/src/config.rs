//! Layered configuration: `config/default.toml` (compiled in), then an optional file, then
//! `FOURKINGS_<SECTION>__<KEY>` environment variables.

use std::time::Duration;

use figment::Figment;
use figment::providers::{Env, Format, Toml};
use serde::Deserialize;

/// The defaults, compiled in so the binary runs from any directory.
pub const DEFAULT_TOML: &str = include_str!("../../../config/default.toml");

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub server: ServerSection,
    pub limits: LimitsSection,
    pub timers: TimersSection,
    pub rooms: RoomsSection,
    pub database: DatabaseSection,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerSection {
    pub listen: String,
    pub public_url: String,
    pub allowed_origins: Vec<String>,
    pub max_rooms: usize,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsSection {
    pub max_frame_bytes: usize,
    pub rate_messages: u32,
    pub rate_period_ms: u64,
    pub outbox_frames: usize,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimersSection {
    pub turn_second_ms: u64,
    pub grace_ms: u64,
    pub cpu_delay_ms: u64,
    pub ping_interval_ms: u64,
    pub idle_timeout_ms: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoomsSection {
    pub history: usize,
    pub acks_kept: usize,
    pub idle_close_ms: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatabaseSection {
    /// `sqlite://…` (a file, created on first start) or `postgres://…`.
    pub url: String,
}

impl Config {
    /// Defaults, then `file` if given, then the environment.
    pub fn load(file: Option<&std::path::Path>) -> Result<Config, Box<figment::Error>> {
        let mut figment = Figment::from(Toml::string(DEFAULT_TOML));
        if let Some(file) = file {
            figment = figment.merge(Toml::file_exact(file));
        }
        figment
            .merge(Env::prefixed("FOURKINGS_").split("__"))
            .extract()
            .map_err(Box::new)
    }

    /// The compiled-in defaults alone (tests start from these and shorten the timers).
    pub fn defaults() -> Config {
        Figment::from(Toml::string(DEFAULT_TOML))
            .extract()
            .expect("config/default.toml is valid")
    }

    pub fn room_config(&self) -> room::RoomConfig {
        room::RoomConfig {
            history: self.rooms.history,
            turn_second: Duration::from_millis(self.timers.turn_second_ms),
            grace: Duration::from_millis(self.timers.grace_ms),
            cpu_delay: Duration::from_millis(self.timers.cpu_delay_ms),
            outbox: self.limits.outbox_frames,
            commands: 64,
            acks_kept: self.rooms.acks_kept,
            idle_close: Duration::from_millis(self.rooms.idle_close_ms),
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
        figment::Jail::expect_with(|jail| {
            jail.set_env("FOURKINGS_TIMERS__GRACE_MS", "1234");
            jail.set_env("FOURKINGS_SERVER__LISTEN", "127.0.0.1:0");
            let config = Config::load(None).expect("loads");
            assert_eq!(config.timers.grace_ms, 1234);
            assert_eq!(config.server.listen, "127.0.0.1:0");
            Ok(())
        });
    }
}
