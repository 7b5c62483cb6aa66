//! Per-client REST rate limits: two token buckets per client IP (`client::ClientIp`), one for
//! requests that create or change something and one for reads, so a client that floods one kind
//! cannot starve others of either. Probes (`/healthz`, `/readyz`, `/metrics`), the OpenAPI document,
//! WebSocket upgrades (held by the connection caps) and the static files are not limited.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};

use protocol::ErrorCode;

use crate::app::AppState;
use crate::client::ClientIp;
use crate::config::LimitsSection;
use crate::error::ApiError;
use crate::shutdown::Stopping;
use crate::telemetry::RATE_LIMITED;

/// Which bucket a request draws from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Write,
    Read,
}

impl Kind {
    pub const ALL: [Kind; 2] = [Kind::Write, Kind::Read];

    pub fn label(self) -> &'static str {
        match self {
            Kind::Write => "write",
            Kind::Read => "read",
        }
    }

    /// The bucket of a REST request; `None` for what is not limited here.
    fn of(method: &Method, path: &str) -> Option<Kind> {
        let api = ["/rooms", "/players", "/games", "/leaderboard"]
            .iter()
            .any(|p| path == *p || path.starts_with(&format!("{p}/")));
        match (api, method) {
            (false, _) => None,
            (true, &Method::GET | &Method::HEAD) => Some(Kind::Read),
            (true, _) => Some(Kind::Write),
        }
    }
}

#[derive(Debug)]
pub struct RestLimits {
    write: DefaultKeyedRateLimiter<IpAddr>,
    read: DefaultKeyedRateLimiter<IpAddr>,
}

fn quota(per_minute: u32, burst: u32) -> Quota {
    let at_least_one = |n: u32| NonZeroU32::new(n.max(1)).expect("at least 1");
    Quota::per_minute(at_least_one(per_minute)).allow_burst(at_least_one(burst))
}

impl RestLimits {
    pub fn new(limits: &LimitsSection) -> RestLimits {
        RestLimits {
            write: DefaultKeyedRateLimiter::keyed(quota(
                limits.rest_write_per_minute,
                limits.rest_write_burst,
            )),
            read: DefaultKeyedRateLimiter::keyed(quota(
                limits.rest_read_per_minute,
                limits.rest_read_burst,
            )),
        }
    }

    /// `Err(wait)` when `ip` has used its bucket of this kind up.
    fn check(&self, kind: Kind, ip: IpAddr) -> Result<(), Duration> {
        let limiter = match kind {
            Kind::Write => &self.write,
            Kind::Read => &self.read,
        };
        limiter
            .check_key(&ip)
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }

    /// Forgets clients whose buckets are full again (memory stays bounded by recent clients).
    pub fn forget_idle(&self) {
        for limiter in [&self.write, &self.read] {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
    }
}

/// Every minute until the server stops, forget the clients that are idle again.
pub async fn forget_idle_clients(limits: std::sync::Arc<RestLimits>, mut stopping: Stopping) {
    let mut every = tokio::time::interval(Duration::from_secs(60));
    loop {
        tokio::select! {
            _ = every.tick() => limits.forget_idle(),
            () = stopping.wait() => return,
        }
    }
}

/// Middleware: 429 `rate_limited` with `Retry-After` (whole seconds, rounded up) past the bucket.
pub async fn limit(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let Some(kind) = Kind::of(req.method(), req.uri().path()) else {
        return next.run(req).await;
    };
    let Some(&ClientIp(ip)) = req.extensions().get::<ClientIp>() else {
        return next.run(req).await;
    };
    match state.rest_limits.check(kind, ip) {
        Ok(()) => next.run(req).await,
        Err(wait) => {
            metrics::counter!(RATE_LIMITED, "kind" => kind.label()).increment(1);
            let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            let mut response = ApiError::new(
                ErrorCode::RateLimited,
                format!(
                    "too many {} requests from this client: retry in {secs} s",
                    kind.label()
                ),
            )
            .into_response();
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs.max(1)));
            response
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_sorted_into_buckets() {
        assert_eq!(Kind::of(&Method::POST, "/rooms"), Some(Kind::Write));
        assert_eq!(Kind::of(&Method::POST, "/players"), Some(Kind::Write));
        assert_eq!(
            Kind::of(&Method::PUT, "/rooms/x/settings"),
            Some(Kind::Write)
        );
        assert_eq!(Kind::of(&Method::GET, "/rooms"), Some(Kind::Read));
        assert_eq!(Kind::of(&Method::GET, "/games/1/pgn4"), Some(Kind::Read));
        assert_eq!(Kind::of(&Method::GET, "/healthz"), None);
        assert_eq!(Kind::of(&Method::GET, "/ws"), None);
        assert_eq!(Kind::of(&Method::GET, "/roomsx"), None);
        assert_eq!(Kind::of(&Method::GET, "/js/app.js"), None);
    }
}
