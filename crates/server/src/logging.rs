//! Logs: `tracing` lines, readable locally (`[log] format = "pretty"`) or one JSON object per line in
//! production (`"json"`, set in the Docker image). Lines about a room carry its id: the room actor
//! logs with a `room` field, each WebSocket connection runs in a `ws` span whose `room` is recorded on
//! join, and each REST request under `/rooms/{id}` runs in an `http` span with `room`.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;
use tracing_subscriber::EnvFilter;

use crate::config::{LogFormat, LogSection};

/// Install the global subscriber (once per process; later calls are ignored). `RUST_LOG` overrides
/// `log.filter`.
pub fn init(log: &LogSection) {
    let filter = EnvFilter::try_from_default_env()
        .or_else(|_| EnvFilter::try_new(&log.filter))
        .unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    let _ = match log.format {
        LogFormat::Pretty => builder.try_init(),
        LogFormat::Json => builder
            .json()
            .with_current_span(true)
            .with_span_list(true)
            .try_init(),
    };
}

/// The room id in a request path `/rooms/{id}…`.
fn room_of(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("/rooms/")?;
    let id = rest.split('/').next()?;
    (!id.is_empty()).then_some(id)
}

/// Middleware: every request runs in an `http` span (with the room id when the path names one).
pub async fn request_span(req: Request, next: Next) -> Response {
    let span = match room_of(req.uri().path()) {
        Some(room) => {
            tracing::info_span!("http", method = %req.method(), path = %req.uri().path(), room)
        }
        None => tracing::info_span!("http", method = %req.method(), path = %req.uri().path()),
    };
    async move {
        let response = next.run(req).await;
        tracing::debug!(status = response.status().as_u16(), "request");
        response
    }
    .instrument(span)
    .await
}

#[cfg(test)]
mod tests {
    use super::room_of;

    #[test]
    fn room_ids_from_paths() {
        assert_eq!(room_of("/rooms/abc123/join"), Some("abc123"));
        assert_eq!(room_of("/rooms/abc123"), Some("abc123"));
        assert_eq!(room_of("/rooms"), None);
        assert_eq!(room_of("/rooms/"), None);
        assert_eq!(room_of("/healthz"), None);
    }
}
