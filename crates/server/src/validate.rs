//! Configuration checking: a bad configuration stops the server at start with EVERY problem listed,
//! so an operator fixes them in one round instead of one restart per typo.
//!
//! Two layers: [`extract`] reports what does not deserialize (wrong types, unknown keys), one section
//! at a time so one section's mistake does not hide another's; [`Config::validate`] then checks the
//! values against each other and the world (addresses parse, limits are positive, origins are URLs).

use std::fmt;
use std::net::SocketAddr;

use axum::http::Uri;
use figment::Figment;
use serde::de::DeserializeOwned;

use crate::config::{
    BotsSection, ClusterSection, Config, DatabaseSection, LimitsSection, LogSection,
    RatingsSection, RoomsSection, ServerSection, TimersSection,
};

/// Every problem found in a configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub problems: Vec<String>,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid configuration ({} problem", self.problems.len())?;
        if self.problems.len() != 1 {
            write!(f, "s")?;
        }
        write!(f, "):")?;
        for p in &self.problems {
            write!(f, "\n  - {p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

/// Deserializes the whole configuration; on failure, lists the problems of every section.
pub(crate) fn extract(figment: &Figment) -> Result<Config, ConfigError> {
    let whole = match figment.extract::<Config>() {
        Ok(config) => return Ok(config),
        Err(e) => e,
    };
    // serde stops at the first problem: extract each section alone to find the others.
    let mut problems = Vec::new();
    section::<ServerSection>(figment, "server", &mut problems);
    section::<LimitsSection>(figment, "limits", &mut problems);
    section::<TimersSection>(figment, "timers", &mut problems);
    section::<RoomsSection>(figment, "rooms", &mut problems);
    section::<LogSection>(figment, "log", &mut problems);
    section::<BotsSection>(figment, "bots", &mut problems);
    section::<DatabaseSection>(figment, "database", &mut problems);
    section::<ClusterSection>(figment, "cluster", &mut problems);
    section::<RatingsSection>(figment, "ratings", &mut problems);
    problems.extend(unknown_sections(figment));
    if problems.is_empty() {
        // A problem in a section not listed above.
        problems.extend(whole.into_iter().map(|e| e.to_string()));
    }
    Err(ConfigError { problems })
}

/// Top-level keys that are no section of [`Config`] (the defaults name every section).
fn unknown_sections(figment: &Figment) -> Vec<String> {
    let known = match serde_json::to_value(Config::defaults()) {
        Ok(serde_json::Value::Object(sections)) => sections,
        _ => return Vec::new(),
    };
    let given: figment::value::Dict = figment.extract().unwrap_or_default();
    given
        .keys()
        .filter(|k| !known.contains_key(k.as_str()))
        .map(|k| {
            let names: Vec<&str> = known.keys().map(String::as_str).collect();
            format!("unknown section `{k}` (sections: {})", names.join(", "))
        })
        .collect()
}

fn section<T: DeserializeOwned>(figment: &Figment, name: &str, problems: &mut Vec<String>) {
    if let Err(errors) = figment.extract_inner::<T>(name) {
        problems.extend(errors.into_iter().map(|e| e.to_string()));
    }
}

/// `http(s)://host[:port]` with nothing after it: what a browser sends as `Origin`.
fn is_origin(s: &str) -> bool {
    let Ok(uri) = s.parse::<Uri>() else {
        return false;
    };
    // The `Origin` header is compared as a string: no trailing slash, no path, no user info.
    matches!(uri.scheme_str(), Some("http" | "https"))
        && uri
            .authority()
            .is_some_and(|a| !a.host().is_empty() && !a.as_str().contains('@'))
        && matches!(uri.path(), "" | "/")
        && uri.query().is_none()
        && !s.ends_with('/')
}

fn is_base_url(s: &str) -> bool {
    let Ok(uri) = s.parse::<Uri>() else {
        return false;
    };
    matches!(uri.scheme_str(), Some("http" | "https"))
        && uri.authority().is_some_and(|a| !a.host().is_empty())
        && uri.query().is_none()
}

impl Config {
    /// Checks every value; the error lists all problems.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let mut problems = Vec::new();
        let mut positive = |key: &str, value: u64| {
            if value == 0 {
                problems.push(format!("{key} must be greater than 0"));
            }
        };
        let (s, l, t, r) = (&self.server, &self.limits, &self.timers, &self.rooms);
        positive("server.max_rooms", s.max_rooms as u64);
        positive("server.shutdown_timeout_ms", s.shutdown_timeout_ms);
        positive("limits.max_frame_bytes", l.max_frame_bytes as u64);
        positive("limits.rate_messages", u64::from(l.rate_messages));
        positive("limits.rate_period_ms", l.rate_period_ms);
        positive("limits.outbox_frames", l.outbox_frames as u64);
        positive("limits.max_body_bytes", l.max_body_bytes as u64);
        positive("limits.max_error_details", l.max_error_details as u64);
        positive(
            "limits.rest_write_per_minute",
            u64::from(l.rest_write_per_minute),
        );
        positive("limits.rest_write_burst", u64::from(l.rest_write_burst));
        positive(
            "limits.rest_read_per_minute",
            u64::from(l.rest_read_per_minute),
        );
        positive("limits.rest_read_burst", u64::from(l.rest_read_burst));
        positive(
            "limits.max_open_lobbies_per_client",
            l.max_open_lobbies_per_client as u64,
        );
        positive("limits.rooms_page_default", l.rooms_page_default as u64);
        positive("limits.rooms_page_max", l.rooms_page_max as u64);
        positive("limits.games_page_default", l.games_page_default as u64);
        positive("limits.games_page_max", l.games_page_max as u64);
        positive(
            "limits.max_connections_per_ip",
            l.max_connections_per_ip as u64,
        );
        positive("chat.max_chars", self.chat.max_chars as u64);
        positive("chat.rate_messages", self.chat.rate_messages as u64);
        positive("chat.rate_period_ms", self.chat.rate_period_ms);
        positive("chat.recent", self.chat.recent as u64);
        positive("server.header_timeout_ms", s.header_timeout_ms);
        positive("server.request_timeout_ms", s.request_timeout_ms);
        positive("timers.join_timeout_ms", t.join_timeout_ms);
        positive("timers.turn_second_ms", t.turn_second_ms);
        positive("timers.ping_interval_ms", t.ping_interval_ms);
        positive("timers.idle_timeout_ms", t.idle_timeout_ms);
        positive("rooms.history", r.history as u64);
        positive("rooms.acks_kept", r.acks_kept as u64);
        positive("rooms.idle_close_ms", r.idle_close_ms);
        positive("rooms.lobby_idle_ms", r.lobby_idle_ms);
        positive(
            "rooms.reconnects_per_minute",
            r.reconnects_per_minute as u64,
        );
        // 0 would not mean "never": the pool looks for idle connections once per idle time, so it
        // would spin.
        positive("database.pool_idle_ms", self.database.pool_idle_ms);
        // 0 is PostgreSQL's "never", which would let a frozen server hold its row locks for ever.
        positive(
            "database.pg_idle_in_transaction_ms",
            self.database.pg_idle_in_transaction_ms,
        );

        if s.listen.parse::<SocketAddr>().is_err() {
            problems.push(format!(
                "server.listen = {:?} is not an address like 127.0.0.1:8080 or [::]:8080",
                s.listen
            ));
        }
        if !s.public_url.is_empty() && !is_base_url(&s.public_url) {
            problems.push(format!(
                "server.public_url = {:?} is not an http(s) URL like https://games.example.org",
                s.public_url
            ));
        }
        for origin in &s.allowed_origins {
            if !is_origin(origin) {
                problems.push(format!(
                    "server.allowed_origins: {origin:?} is not an origin like https://games.example.org (scheme, host, optional port, no path)"
                ));
            }
        }
        if l.rooms_page_default > l.rooms_page_max {
            problems.push(format!(
                "limits.rooms_page_default ({}) must not exceed limits.rooms_page_max ({})",
                l.rooms_page_default, l.rooms_page_max
            ));
        }
        if l.games_page_default > l.games_page_max {
            problems.push(format!(
                "limits.games_page_default ({}) must not exceed limits.games_page_max ({})",
                l.games_page_default, l.games_page_max
            ));
        }
        if t.ping_interval_ms > 0 && t.idle_timeout_ms <= t.ping_interval_ms {
            problems.push(format!(
                "timers.idle_timeout_ms ({}) must be longer than timers.ping_interval_ms ({}), or every connection is closed as idle",
                t.idle_timeout_ms, t.ping_interval_ms
            ));
        }
        let ratings = &self.ratings;
        if !(ratings.provisional_sigma.is_finite() && ratings.provisional_sigma > 0.0) {
            problems.push(format!(
                "ratings.provisional_sigma = {} must be a positive number (a newcomer's sigma is 8.33)",
                ratings.provisional_sigma
            ));
        }
        if ratings.provisional_games < 0 {
            problems.push(format!(
                "ratings.provisional_games = {} must not be negative",
                ratings.provisional_games
            ));
        }
        problems.extend(self.cluster_problems());
        if let Err(e) = tracing_subscriber::EnvFilter::try_new(&self.log.filter) {
            problems.push(format!(
                "log.filter = {:?} is not a tracing filter: {e}",
                self.log.filter
            ));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ConfigError { problems })
        }
    }
}

impl Config {
    /// Cluster mode needs PostgreSQL (the arbiter of leases), a URL other nodes can send clients to,
    /// and a lease that is renewed before it runs out.
    fn cluster_problems(&self) -> Vec<String> {
        let c = &self.cluster;
        if !c.enabled {
            return Vec::new();
        }
        let mut problems = Vec::new();
        let url = &self.database.url;
        if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
            problems.push(format!(
                "cluster.enabled needs a PostgreSQL database.url (postgres://…), not {:?}: one node's SQLite file cannot arbitrate between nodes",
                url
            ));
        }
        if c.public_url.is_empty() {
            problems.push(
                "cluster.enabled needs cluster.public_url, this node's own URL for redirects (e.g. http://10.0.0.2:8080)"
                    .to_owned(),
            );
        } else if !is_base_url(&c.public_url) || c.public_url.ends_with('/') {
            problems.push(format!(
                "cluster.public_url = {:?} is not an http(s) base URL like http://10.0.0.2:8080 (no trailing slash)",
                c.public_url
            ));
        }
        if c.lease_ttl_ms == 0 || c.renew_ms == 0 {
            problems
                .push("cluster.lease_ttl_ms and cluster.renew_ms must be greater than 0".into());
        } else if c.renew_ms >= c.lease_ttl_ms {
            problems.push(format!(
                "cluster.renew_ms ({}) must be shorter than cluster.lease_ttl_ms ({}), or the lease runs out between renewals",
                c.renew_ms, c.lease_ttl_ms
            ));
        }
        let idle_in_transaction = self.database.pg_idle_in_transaction_ms;
        if c.lease_ttl_ms > 0 && idle_in_transaction >= c.lease_ttl_ms {
            problems.push(format!(
                "database.pg_idle_in_transaction_ms ({idle_in_transaction}) must be shorter than cluster.lease_ttl_ms ({}), or a frozen node's row locks outlive its lease and hold up the node taking its rooms over",
                c.lease_ttl_ms
            ));
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_valid() {
        Config::defaults().validate().expect("valid");
    }

    #[test]
    fn origins_and_urls() {
        assert!(is_origin("https://games.example.org"));
        assert!(is_origin("http://127.0.0.1:8080"));
        assert!(!is_origin("https://games.example.org/"));
        assert!(!is_origin("https://games.example.org/play"));
        assert!(!is_origin("games.example.org"));
        assert!(!is_origin("ftp://games.example.org"));
        assert!(!is_origin("*"));
        assert!(is_base_url("https://games.example.org/fourkings"));
        assert!(!is_base_url("not a url"));
    }

    #[test]
    fn every_value_problem_is_listed() {
        let mut config = Config::defaults();
        config.server.listen = "localhost".into();
        config.server.public_url = "games.example.org".into();
        config.server.allowed_origins = vec!["https://ok.example.org".into(), "*".into()];
        config.server.max_rooms = 0;
        config.server.shutdown_timeout_ms = 0;
        config.limits.rate_messages = 0;
        config.database.pool_idle_ms = 0;
        config.timers.idle_timeout_ms = config.timers.ping_interval_ms;
        config.log.filter = "info,=[".into();
        let problems = config.validate().expect_err("invalid").problems;
        let expect = [
            "server.max_rooms must be greater than 0",
            "server.shutdown_timeout_ms must be greater than 0",
            "limits.rate_messages must be greater than 0",
            "database.pool_idle_ms must be greater than 0",
            "server.listen = \"localhost\"",
            "server.public_url = \"games.example.org\"",
            "server.allowed_origins: \"*\"",
            "timers.idle_timeout_ms",
            "log.filter",
        ];
        assert_eq!(problems.len(), expect.len(), "{problems:#?}");
        for (problem, start) in problems.iter().zip(expect) {
            assert!(problem.starts_with(start), "{problem} / {start}");
        }
    }

    #[test]
    fn cluster_mode_problems_are_all_listed() {
        let mut config = Config::defaults();
        config.cluster.enabled = true;
        config.cluster.renew_ms = config.cluster.lease_ttl_ms;
        config.database.pg_idle_in_transaction_ms = config.cluster.lease_ttl_ms;
        let problems = config.validate().expect_err("invalid").problems;
        let expect = [
            "cluster.enabled needs a PostgreSQL database.url",
            "cluster.enabled needs cluster.public_url",
            "cluster.renew_ms (6000) must be shorter than cluster.lease_ttl_ms (6000)",
            "database.pg_idle_in_transaction_ms (6000) must be shorter than cluster.lease_ttl_ms (6000)",
        ];
        assert_eq!(problems.len(), expect.len(), "{problems:#?}");
        for (problem, start) in problems.iter().zip(expect) {
            assert!(problem.starts_with(start), "{problem} / {start}");
        }
        config.database.url = "postgres://db/fourkings".into();
        config.cluster.public_url = "ws://10.0.0.2:8080".into();
        config.cluster.renew_ms = 2000;
        config.database.pg_idle_in_transaction_ms = 5000;
        let problems = config.validate().expect_err("invalid").problems;
        assert_eq!(problems.len(), 1, "{problems:#?}");
        assert!(problems[0].starts_with("cluster.public_url = \"ws://"));
        config.cluster.public_url = "http://10.0.0.2:8080".into();
        config.validate().expect("valid");
    }

    #[test]
    #[allow(clippy::result_large_err)] // figment's Jail API returns its own error type
    fn type_errors_in_several_sections_are_all_listed() {
        figment::Jail::expect_with(|jail| {
            jail.set_env("FOURKINGS_LIMITS__MAX_FRAME_BYTES", "lots");
            jail.set_env("FOURKINGS_TIMERS__GRACE_MS", "-5");
            jail.set_env("FOURKINGS_LOG__FORMAT", "xml");
            jail.set_env("FOURKINGS_ROOMS__HISTROY", "10");
            jail.set_env("FOURKINGS_NOSUCH__KEY", "1");
            let err = Config::load(None).expect_err("invalid");
            // figment names environment keys in its own case; what matters is that each is named.
            let all = err.to_string().to_lowercase();
            for needle in [
                "max_frame_bytes",
                "grace_ms",
                "xml",
                "histroy",
                "nosuch",
                "5 problems",
            ] {
                assert!(all.contains(needle), "{needle} missing from:\n{all}");
            }
            Ok(())
        });
    }

    #[test]
    #[allow(clippy::result_large_err)]
    fn a_value_problem_fails_load() {
        figment::Jail::expect_with(|jail| {
            jail.set_env("FOURKINGS_SERVER__LISTEN", "nowhere");
            jail.set_env("FOURKINGS_LIMITS__OUTBOX_FRAMES", "0");
            let err = Config::load(None).expect_err("invalid");
            assert_eq!(err.problems.len(), 2, "{err}");
            Ok(())
        });
    }
}
