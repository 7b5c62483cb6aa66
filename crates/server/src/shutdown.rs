//! Graceful shutdown on SIGTERM/SIGINT: stop accepting, close every WebSocket with 1012 (service
//! restart: clients reconnect and resume), wait for the connections to be gone, then run the drain
//! hooks (e.g. "the action log writer has written everything"), all within
//! `server.shutdown_timeout_ms`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::telemetry::Connections;

/// Close code sent to every client when the server stops: "service restart".
pub const CLOSE_RESTART: u16 = 1012;

/// Work to finish before the process exits, after every connection is closed.
pub type DrainHook = Pin<Box<dyn Future<Output = ()> + Send>>;

/// The hooks of one server, in registration order.
#[derive(Default)]
pub struct DrainHooks(pub Vec<DrainHook>);

impl std::fmt::Debug for DrainHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DrainHooks({})", self.0.len())
    }
}

/// What connections watch: whether the server is stopping.
#[derive(Debug, Clone)]
pub struct Stopping(watch::Receiver<bool>);

impl Stopping {
    /// Resolves once the server is stopping (at once if it already is).
    pub async fn wait(&mut self) {
        // An error means the sender is gone, which only happens when the server is gone too.
        let _ = self.0.wait_for(|stopping| *stopping).await;
    }

    pub fn is_stopping(&self) -> bool {
        *self.0.borrow()
    }
}

/// Starts a shutdown from code (tests, or an admin endpoint); signals do the same.
#[derive(Debug, Clone)]
pub struct ShutdownTrigger(Arc<watch::Sender<bool>>);

impl ShutdownTrigger {
    pub fn trigger(&self) {
        self.0.send_replace(true);
    }
}

pub fn channel() -> (ShutdownTrigger, Stopping) {
    let (tx, rx) = watch::channel(false);
    (ShutdownTrigger(Arc::new(tx)), Stopping(rx))
}

/// Resolves on SIGTERM or SIGINT (Ctrl-C).
pub async fn signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => tracing::info!("SIGTERM: shutting down"),
                    _ = tokio::signal::ctrl_c() => tracing::info!("SIGINT: shutting down"),
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM; only Ctrl-C stops the server");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Ran out of `server.shutdown_timeout_ms` before everything was closed and flushed.
#[derive(Debug, thiserror::Error)]
#[error("shutdown took longer than {0:?}: {1} connection(s) still open, drain hooks unfinished")]
pub struct ShutdownTimeout(pub Duration, pub usize);

/// After the trigger: wait for the connections to close, then run every hook, within `timeout`.
pub async fn finish(
    connections: &Connections,
    hooks: DrainHooks,
    timeout: Duration,
) -> Result<(), ShutdownTimeout> {
    let work = async {
        connections.all_closed().await;
        futures_util::future::join_all(hooks.0).await;
    };
    tokio::time::timeout(timeout, work)
        .await
        .map_err(|_| ShutdownTimeout(timeout, connections.count()))
}
