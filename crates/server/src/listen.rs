//! The accept loop, in place of `axum::serve`, for what a public server must bound before any
//! request is read:
//!
//! - a ceiling on open connections (`limits.max_connections`, automatic from the open-file limit),
//!   with a small reserve past it (`limits.probe_reserve`) whose connections may only ask the
//!   probes, so `/healthz`, `/readyz` and `/metrics` answer while clients hold every other slot;
//! - a cap per client IP (`limits.max_connections_per_ip`; trusted proxies are exempt): past it the
//!   connection gets a 429 `client_limit` answer and is closed;
//! - a header-read timeout (`server.header_timeout_ms`) that also bounds the wait for the next
//!   request on a keep-alive connection, so silent and slowloris connections are swept.
//!
//! A connection's place is held by the socket itself ([`Held`]), so an upgraded WebSocket keeps it
//! for its whole life.

use std::collections::HashMap;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

use protocol::ErrorCode;

use crate::client::Peer;
use crate::error::ApiError;
use crate::linger;
use crate::shutdown::Stopping;
use crate::telemetry::{HTTP_TIMEOUTS, REFUSED_CONNECTIONS, TCP_CONNECTIONS};

/// The paths a connection from the probe reserve may ask.
pub const PROBES: [&str; 3] = ["/healthz", "/readyz", "/metrics"];

/// Who may hold a connection.
#[derive(Debug)]
pub struct Gate {
    ceiling: usize,
    reserve: usize,
    max_per_ip: usize,
    trusted: Vec<IpAddr>,
    held: Mutex<Places>,
}

#[derive(Debug, Default)]
struct Places {
    open: usize,
    by_ip: HashMap<IpAddr, usize>,
}

/// What a new connection gets.
#[derive(Debug)]
enum Admission {
    Serve(Ticket),
    /// Past the ceiling, within the reserve.
    ProbesOnly(Ticket),
    /// Its client holds `max_connections_per_ip` already.
    ClientLimit,
    /// Past the ceiling and the reserve.
    Full,
}

/// One connection's place; given back on drop.
#[derive(Debug)]
struct Ticket {
    gate: Arc<Gate>,
    /// `None` for a trusted proxy (not counted per IP).
    ip: Option<IpAddr>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut held = self.gate.held.lock().expect("gate lock");
        held.open -= 1;
        metrics::gauge!(TCP_CONNECTIONS).set(held.open as f64);
        if let Some(ip) = self.ip {
            if let Some(n) = held.by_ip.get_mut(&ip) {
                *n -= 1;
                if *n == 0 {
                    held.by_ip.remove(&ip);
                }
            }
        }
    }
}

impl Gate {
    pub fn new(ceiling: usize, reserve: usize, max_per_ip: usize, trusted: Vec<IpAddr>) -> Gate {
        Gate {
            ceiling,
            reserve,
            max_per_ip,
            trusted,
            held: Mutex::default(),
        }
    }

    fn admit(self: &Arc<Self>, ip: IpAddr) -> Admission {
        let mut held = self.held.lock().expect("gate lock");
        let counted = (!self.trusted.contains(&ip)).then_some(ip);
        if let Some(ip) = counted {
            if held.by_ip.get(&ip).copied().unwrap_or(0) >= self.max_per_ip {
                return Admission::ClientLimit;
            }
        }
        if held.open >= self.ceiling.saturating_add(self.reserve) {
            return Admission::Full;
        }
        held.open += 1;
        metrics::gauge!(TCP_CONNECTIONS).set(held.open as f64);
        if let Some(ip) = counted {
            *held.by_ip.entry(ip).or_default() += 1;
        }
        let ticket = Ticket {
            gate: self.clone(),
            ip: counted,
        };
        if held.open > self.ceiling {
            Admission::ProbesOnly(ticket)
        } else {
            Admission::Serve(ticket)
        }
    }
}

/// A socket with its place under the gate.
struct Held {
    io: TcpStream,
    _ticket: Ticket,
}

impl AsyncRead for Held {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl AsyncWrite for Held {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

/// Serves `router` on `listener` until `stopping`, then lets the requests in flight finish.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    gate: Arc<Gate>,
    header_timeout: Duration,
    stopping: Stopping,
) {
    // Every connection task holds a receiver: the loop ends when all are gone.
    let (all_done, done) = tokio::sync::watch::channel(());
    let mut stop = stopping.clone();
    loop {
        let (stream, addr) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    accept_failed(e).await;
                    continue;
                }
            },
            () = stop.wait() => break,
        };
        let (ticket, probes_only) = match gate.admit(addr.ip()) {
            Admission::Serve(ticket) => (ticket, false),
            Admission::ProbesOnly(ticket) => (ticket, true),
            Admission::ClientLimit => {
                metrics::counter!(REFUSED_CONNECTIONS, "reason" => "client_limit").increment(1);
                tokio::spawn(refuse(stream));
                continue;
            }
            Admission::Full => {
                metrics::counter!(REFUSED_CONNECTIONS, "reason" => "full").increment(1);
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let peer = Peer { addr, probes_only };
        let service = TowerToHyperService::new(router.clone());
        let service = hyper::service::service_fn(move |mut req: hyper::Request<_>| {
            req.extensions_mut().insert(peer);
            hyper::service::Service::call(&service, req)
        });
        let done = done.clone();
        let mut stopping = stopping.clone();
        tokio::spawn(async move {
            let mut builder = http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                // A probe connection answers one request and closes, giving its place back.
                .keep_alive(!probes_only);
            let io = TokioIo::new(Held {
                io: stream,
                _ticket: ticket,
            });
            let conn = builder.serve_connection(io, service).with_upgrades();
            tokio::pin!(conn);
            let served = tokio::select! {
                served = conn.as_mut() => served,
                () = stopping.wait() => {
                    conn.as_mut().graceful_shutdown();
                    conn.await
                }
            };
            if let Err(e) = served {
                if e.is_timeout() {
                    metrics::counter!(HTTP_TIMEOUTS, "kind" => "header").increment(1);
                }
                tracing::trace!(error = %e, "connection ended with an error");
            }
            drop(done);
        });
    }
    drop(done);
    drop(listener);
    all_done.closed().await;
}

/// Out of descriptors (or another transient failure): wait a little rather than spin; the probe
/// reserve and the per-client caps are there so that this is rare.
async fn accept_failed(e: io::Error) {
    if matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset
    ) {
        return;
    }
    metrics::counter!(REFUSED_CONNECTIONS, "reason" => "accept_error").increment(1);
    tracing::warn!(error = %e, "accept failed");
    tokio::time::sleep(Duration::from_millis(50)).await;
}

/// A short 429 for a client over its connection cap, then close; bounded in time so that refusing
/// costs the server nothing lasting.
async fn refuse(mut stream: TcpStream) {
    const BODY: &str = r#"{"error":{"code":"client_limit","message":"this client holds as many connections as one client may"}}"#;
    let answer = format!(
        "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{BODY}",
        BODY.len()
    );
    let _ = tokio::time::timeout(Duration::from_millis(500), async {
        if stream.write_all(answer.as_bytes()).await.is_ok() {
            linger::shut_and_drain(&mut stream, 64 * 1024).await;
        }
    })
    .await;
}

/// Middleware: a connection from the probe reserve gets the probes and nothing else.
pub async fn probes_only(req: Request, next: Next) -> Response {
    let reserved = req
        .extensions()
        .get::<Peer>()
        .is_some_and(|p| p.probes_only);
    if reserved && !PROBES.contains(&req.uri().path()) {
        return ApiError::new(
            ErrorCode::TooManyConnections,
            "this server holds its maximum of connections; try again later",
        )
        .into_response();
    }
    next.run(req).await
}

/// Middleware: a REST request (header, body, answer) must be done within the deadline
/// (`server.request_timeout_ms`), so a body sent a byte at a time does not hold its connection.
pub async fn request_deadline(
    State(deadline): State<Duration>,
    req: Request,
    next: Next,
) -> Response {
    match tokio::time::timeout(deadline, next.run(req)).await {
        Ok(response) => response,
        Err(_) => {
            metrics::counter!(HTTP_TIMEOUTS, "kind" => "request").increment(1);
            ApiError::new(
                ErrorCode::RequestTimeout,
                "the request was not complete in time",
            )
            .into_response()
        }
    }
}
