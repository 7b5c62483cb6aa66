//! WebSocket connections: one task per connection, knowing no rules. It parses client frames, enforces
//! the frame size and rate limits, forwards actions to the room, and writes the room's pre-serialized
//! frames. It never blocks the room: the room `try_send`s into this connection's bounded outbox and
//! drops the connection when it is full; the client then reconnects and resyncs.
//!
//! An idle connection must stay small (tens of thousands are held at once): the task owns the
//! socket whole (no reader/writer split), keeps one timer, reads into a small buffer, and writes its
//! text frames itself (`textframe`) so that no write buffer outlives a burst.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::{SinkExt, StreamExt};
use governor::{Quota, RateLimiter};
use hyper::upgrade::{OnUpgrade, Upgraded};
use hyper_util::rt::TokioIo;
use tokio::io::AsyncWriteExt;
use tokio::time::Instant;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::frame::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Error as WsError, Message, Utf8Bytes};
use tracing::Instrument;

use protocol::{ClientMsg, ErrorCode, ErrorMsg, ServerMsg};
use room::outbox::{self, Outbox};
use room::{Connected, RoomHandle};

use crate::app::AppState;
use crate::cluster::{self, Located};
use crate::error::ApiError;
use crate::linger::{self, Lingered};
use crate::shutdown::CLOSE_RESTART;
use crate::telemetry::{
    self, ACT_LATENCY, ACTIONS, CHAT_MESSAGES, CLIENT_LIMITED, CLOSES, LINGER_CUT,
    RATE_LIMIT_CLOSES,
};
use crate::textframe;

/// Close codes.
/// A binary frame: the protocol is JSON text.
pub const CLOSE_UNSUPPORTED: u16 = 1003;
pub const CLOSE_POLICY: u16 = 1008;
pub const CLOSE_TOO_BIG: u16 = 1009;
/// Not joined to a room within `timers.join_timeout_ms`.
pub const CLOSE_JOIN_DEADLINE: u16 = 4003;
/// The room dropped this connection because it did not read fast enough: reconnect and resync.
pub const CLOSE_TOO_SLOW: u16 = 4001;
/// No frame (not even a pong) within the idle timeout.
pub const CLOSE_IDLE: u16 = 4002;
/// After a `redirect` (cluster mode): the client goes to the node named in it.
pub const CLOSE_NORMAL: u16 = 1000;

/// Room frames written together at most (one write for an event, its ack and the next view), and
/// bytes: a burst stops growing past either.
const WRITE_BURST_FRAMES: usize = 64;
const WRITE_BURST_BYTES: usize = 16 * 1024;
/// tungstenite's read buffer, allocated at this capacity up front and kept for the connection's
/// life (grown only for a longer frame). Client frames are about a hundred bytes (an action, a
/// ping; a chat line a few hundred, `limits.max_frame_bytes` bounds them all): 4 KiB here was a
/// third of an idle connection's memory (docs/benchmarks.md).
const READ_BUFFER_BYTES: usize = 256;

/// A WebSocket over the upgraded HTTP connection. The upgrade is done here rather than by axum's
/// extractor so that the connection's end can reach the socket under the WebSocket (see `linger`).
type Socket = WebSocketStream<TokioIo<Upgraded>>;

pub async fn upgrade(State(state): State<AppState>, mut req: Request) -> Response {
    let allowed = &state.config.server.allowed_origins;
    if let Some(origin) = req.headers().get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        if !allowed.is_empty() && !allowed.iter().any(|a| a == origin) {
            return (StatusCode::FORBIDDEN, "origin not allowed").into_response();
        }
    }
    let accept = match accept_key(req.method(), req.headers()) {
        Ok(accept) => accept,
        Err(why) => return ApiError::new(ErrorCode::BadRequest, why).into_response(),
    };
    if req.extensions().get::<OnUpgrade>().is_none() {
        return ApiError::new(
            ErrorCode::BadRequest,
            "this connection cannot be upgraded (HTTP/1.1 only)",
        )
        .into_response();
    }
    if state.connections.full() {
        return ApiError::new(
            ErrorCode::TooManyConnections,
            format!(
                "this server holds its maximum of {} connections; try again later",
                state.connections.ceiling()
            ),
        )
        .into_response();
    }
    // The protocol limit is the transport limit: a frame (or a message) over `max_frame_bytes` is
    // refused on its header, before any of its payload is read or buffered, and closed with 1009.
    let limit = state.config.limits.max_frame_bytes;
    let on_upgrade = hyper::upgrade::on(&mut req);
    // Every line of this connection carries the room id once it has joined.
    let span = tracing::info_span!("ws", room = tracing::field::Empty);
    let mut connection = Connection::new(state);
    let task = async move {
        let mut socket = {
            // The 101 answer is written first; a client gone by then is simply gone.
            let Ok(upgraded) = on_upgrade.await else {
                return;
            };
            // Small buffers: tens of thousands of mostly idle connections must stay cheap
            // (tungstenite's defaults are 128 KiB each way). tungstenite writes only control frames
            // here (text frames are written by `textframe`), each at once. Made here rather than
            // captured: what the task captures, it keeps for its whole life.
            let config = WebSocketConfig::default()
                .max_message_size(Some(limit))
                .max_frame_size(Some(limit))
                .read_buffer_size(READ_BUFFER_BYTES)
                .write_buffer_size(0);
            WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, Some(config))
                .await
        };
        // By reference: moved into `run`, the connection and its socket would take their room
        // twice in every connection's task (here and in `run`'s own state).
        connection.run(&mut socket).await;
    };
    tokio::spawn(task.instrument(span));
    let mut response = Response::new(Body::empty());
    *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let headers = response.headers_mut();
    headers.insert(header::CONNECTION, HeaderValue::from_static("upgrade"));
    headers.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    headers.insert(header::SEC_WEBSOCKET_ACCEPT, accept);
    response
}

/// Whether `headers` ask for a WebSocket (RFC 6455 §4.2.1); the `Sec-WebSocket-Accept` answer.
fn accept_key(method: &Method, headers: &HeaderMap) -> Result<HeaderValue, &'static str> {
    let has_token = |name: header::HeaderName, token: &str| {
        headers.get_all(name).iter().any(|v| {
            v.to_str()
                .is_ok_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
        })
    };
    if method != Method::GET {
        return Err("a WebSocket upgrade is a GET");
    }
    if !has_token(header::CONNECTION, "upgrade") || !has_token(header::UPGRADE, "websocket") {
        return Err(
            "not a WebSocket upgrade: `Connection: upgrade` and `Upgrade: websocket` expected",
        );
    }
    if headers
        .get(header::SEC_WEBSOCKET_VERSION)
        .map(|v| v.as_bytes())
        != Some(b"13")
    {
        return Err("WebSocket version 13 expected (`Sec-WebSocket-Version: 13`)");
    }
    let key = headers
        .get(header::SEC_WEBSOCKET_KEY)
        .ok_or("`Sec-WebSocket-Key` missing")?;
    HeaderValue::from_str(&derive_accept_key(key.as_bytes())).map_err(|_| "bad `Sec-WebSocket-Key`")
}

struct Connection {
    state: AppState,
    joined: Option<(RoomHandle, Connected)>,
    /// When each action still waiting for its ack or error arrived (act→answer latency).
    /// (ack id, arrival); a few at a time, so a list (an empty `HashMap` is twice the size).
    pending: Vec<(u64, Instant)>,
    /// A `redirect` was sent: close once it is out.
    redirected: bool,
}

fn text(msg: &ServerMsg) -> String {
    serde_json::to_string(msg).expect("protocol types always serialize")
}

fn error(code: ErrorCode, message: impl Into<String>, ack: Option<u64>) -> String {
    telemetry::error_sent(code);
    text(&ServerMsg::Error(ErrorMsg {
        code,
        message: message.into(),
        ack,
        details: Vec::new(),
    }))
}

async fn recv_opt(rx: &mut Option<Outbox>) -> Option<Arc<str>> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

impl Connection {
    fn new(state: AppState) -> Connection {
        Connection {
            state,
            joined: None,
            pending: Vec::new(),
            redirected: false,
        }
    }

    /// A frame from the room is leaving: if it answers an action (ack, or error with an ack id),
    /// record the latency; count errors by code.
    fn on_room_frame(&mut self, frame: &str) {
        #[derive(serde::Deserialize)]
        struct Answer {
            ack: Option<u64>,
            code: Option<ErrorCode>,
        }
        // Server frames start with their tag (`{"t":"ack"…`): look inside only acks and errors.
        let is_ack = frame.starts_with(r#"{"t":"ack""#);
        if !is_ack && !frame.starts_with(r#"{"t":"error""#) {
            return;
        }
        let Ok(answer) = serde_json::from_str::<Answer>(frame) else {
            return;
        };
        if is_ack {
            metrics::counter!(ACTIONS).increment(1);
        }
        if let Some(code) = answer.code {
            telemetry::error_sent(code);
        }
        let answered = answer
            .ack
            .and_then(|ack| self.pending.iter().position(|(id, _)| *id == ack));
        if let Some(at) = answered.map(|i| self.pending.swap_remove(i).1) {
            metrics::histogram!(ACT_LATENCY).record(at.elapsed());
        }
    }

    async fn run(&mut self, socket: &mut Socket) {
        let config = self.state.config.clone();
        let (limits, timers) = (&config.limits, &config.timers);
        let period = Duration::from_millis(limits.rate_period_ms.max(1));
        let burst = NonZeroU32::new(limits.rate_messages.max(1)).expect("at least 1");
        // `burst` messages at once, refilled evenly over the period: at most about
        // `rate_messages` per `rate_period_ms`.
        let quota = Quota::with_period(period / burst.get())
            .expect("non-zero period")
            .allow_burst(burst);
        let limiter = RateLimiter::direct(quota);

        let _open = self.state.connections.open();
        let mut stopping = self.state.stopping.clone();
        let mut outbox: Option<Outbox> = None;
        let mut last_seen = Instant::now();
        // Closures over the config (8 bytes each) rather than two `Duration`s (16 each): these live
        // in every idle connection's task.
        let idle = || Duration::from_millis(timers.idle_timeout_ms);
        let ping_every = || Duration::from_millis(timers.ping_interval_ms.max(1));
        // One timer serves both deadlines: the join deadline until the connection has joined, and
        // the next ping.
        let join_by = last_seen + Duration::from_millis(timers.join_timeout_ms);
        let mut ping_at = last_seen + ping_every();
        let timer = tokio::time::sleep_until(join_by.min(ping_at));
        tokio::pin!(timer);

        let close = loop {
            tokio::select! {
                incoming = socket.next() => {
                    let msg = match incoming {
                        Some(Ok(msg)) => msg,
                        // Refused on its header: over `limits.max_frame_bytes`.
                        Some(Err(WsError::Capacity(_))) => break Some((CLOSE_TOO_BIG, "frame too big")),
                        _ => break None,
                    };
                    last_seen = Instant::now();
                    if matches!(msg, Message::Close(_)) {
                        break None;
                    }
                    // Every frame counts, pings and binary frames too.
                    if limiter.check().is_err() {
                        break Some((CLOSE_POLICY, "rate limit exceeded"));
                    }
                    let data = match msg {
                        Message::Text(t) => t,
                        Message::Binary(_) => break Some((CLOSE_UNSUPPORTED, "send JSON text frames")),
                        // Pings are answered by the library; pongs only prove liveness; raw frames
                        // are never read.
                        Message::Ping(_) | Message::Pong(_) | Message::Close(_) | Message::Frame(_) => continue,
                    };
                    // Boxed: joining awaits the room, and that state would otherwise be part of
                    // every idle connection's task for its whole life.
                    if let Some(reply) = Box::pin(self.on_text(data.as_str(), &mut outbox)).await {
                        let mut burst = Vec::new();
                        textframe::push(&mut burst, &reply);
                        if write_burst(socket, &burst).await.is_err() {
                            break None;
                        }
                    }
                    if self.redirected {
                        break Some((CLOSE_NORMAL, "redirect"));
                    }
                }
                frame = recv_opt(&mut outbox) => {
                    let Some(frame) = frame else {
                        // The room dropped us: too slow, or the room stopped here (cluster mode: another
                        // node serves it now, so the client reconnects as after a restart).
                        if self.joined.as_ref().is_some_and(|(h, _)| !h.is_open()) {
                            break Some((CLOSE_RESTART, "the room moved: reconnect"));
                        }
                        break Some((CLOSE_TOO_SLOW, "too slow: reconnect to resync"));
                    };
                    // Whatever else the room queued meanwhile (an action's event, its ack, the next
                    // seat's view) leaves in the same write: one syscall per burst, not per frame.
                    let mut burst = Vec::new();
                    let mut next = Some(frame);
                    let mut frames = 0;
                    while let Some(frame) = next.take() {
                        textframe::push(&mut burst, &frame);
                        self.on_room_frame(&frame);
                        frames += 1;
                        if frames < WRITE_BURST_FRAMES && burst.len() < WRITE_BURST_BYTES {
                            next = outbox.as_mut().and_then(Outbox::try_recv);
                        }
                    }
                    if write_burst(socket, &burst).await.is_err() {
                        break None;
                    }
                }
                () = stopping.wait() => {
                    break Some((CLOSE_RESTART, "server restarting: reconnect"));
                }
                () = &mut timer => {
                    let now = Instant::now();
                    if self.joined.is_none() && now >= join_by {
                        break Some((CLOSE_JOIN_DEADLINE, "join a room in time"));
                    }
                    if now >= ping_at {
                        if last_seen.elapsed() > idle() {
                            break Some((CLOSE_IDLE, "idle"));
                        }
                        if socket.send(Message::Ping(Default::default())).await.is_err() {
                            break None;
                        }
                        ping_at = now + ping_every();
                    }
                    let wake = if self.joined.is_none() { join_by.min(ping_at) } else { ping_at };
                    timer.as_mut().reset(wake);
                }
            }
        };
        if let Some((code, _)) = close {
            let why = match code {
                CLOSE_POLICY => "rate_limit",
                CLOSE_TOO_BIG => "too_big",
                CLOSE_UNSUPPORTED => "binary",
                CLOSE_JOIN_DEADLINE => "join_deadline",
                CLOSE_TOO_SLOW => "too_slow",
                CLOSE_IDLE => "idle",
                CLOSE_RESTART => "restart",
                CLOSE_NORMAL => "redirect",
                _ => "other",
            };
            metrics::counter!(CLOSES, "reason" => why).increment(1);
            if code == CLOSE_POLICY {
                metrics::counter!(RATE_LIMIT_CLOSES).increment(1);
            }
        }
        // The room first: the seat's absence must not wait for the linger below.
        if let Some((handle, connected)) = self.joined.take() {
            Box::pin(handle.disconnect(connected.conn)).await;
        }
        if let Some((code, reason)) = close {
            tracing::debug!(code, reason, "closing the connection");
            // Boxed: only a closing connection pays for the linger's state.
            Box::pin(close_lingering(socket, code, reason, limits)).await;
        }
    }

    /// Handle one client frame; a direct reply is returned, room answers arrive via the outbox.
    async fn on_text(&mut self, data: &str, outbox: &mut Option<Outbox>) -> Option<String> {
        let msg = match ClientMsg::parse(data) {
            Ok(msg) => msg,
            Err((code, message)) => {
                // Echo the ack id when the broken message still shows one.
                let ack = serde_json::from_str::<serde_json::Value>(data)
                    .ok()
                    .and_then(|v| v.get("ack").and_then(|a| a.as_u64()));
                return Some(error(code, message, ack));
            }
        };
        match msg {
            ClientMsg::Ping { n } => Some(text(&ServerMsg::Pong { n })),
            ClientMsg::Join { room, token, v } => {
                if self.joined.is_some() {
                    return Some(error(
                        ErrorCode::BadMessage,
                        "already joined: open another connection for another room",
                        None,
                    ));
                }
                let handle = match cluster::find_room(&self.state, &room).await {
                    Ok(handle) => handle,
                    Err(Located::Unknown) => {
                        return Some(error(
                            ErrorCode::UnknownRoom,
                            format!("no room `{room}`"),
                            None,
                        ));
                    }
                    Err(Located::Unavailable(why)) => {
                        tracing::warn!(room = %room, error = %why, "cannot locate the room");
                        return Some(error(
                            ErrorCode::Unavailable,
                            "the database is unavailable: retry",
                            None,
                        ));
                    }
                    Err(Located::Elsewhere(base)) => {
                        self.redirected = true;
                        let url = cluster::ws_url(&base);
                        return Some(text(&ServerMsg::Redirect { room, url }));
                    }
                };
                let (tx, rx) = outbox::channel(self.state.room_config.outbox.max(2));
                match handle.connect(token, v, tx).await {
                    Ok(connected) => {
                        // The task runs inside its `ws` span.
                        tracing::Span::current().record("room", room.as_str());
                        tracing::debug!(seat = ?connected.seat, "joined");
                        self.joined = Some((handle, connected));
                        *outbox = Some(rx);
                        None
                    }
                    Err(e) => {
                        if e.code == ErrorCode::RateLimited {
                            metrics::counter!(CLIENT_LIMITED, "what" => "reconnects").increment(1);
                        }
                        Some(error(e.code, e.message, None))
                    }
                }
            }
            ClientMsg::Chat { text, phrase } => {
                let Some((handle, connected)) = &self.joined else {
                    return Some(error(ErrorCode::NotJoined, "join a room first", None));
                };
                metrics::counter!(CHAT_MESSAGES).increment(1);
                match handle.chat(connected.conn, text, phrase).await {
                    Ok(()) => None,
                    Err(e) => Some(error(e.code, e.message, None)),
                }
            }
            ClientMsg::Act { ack, action } => self.forward(ack, Some(action)).await,
            ClientMsg::Resign { ack } => self.forward(ack, None).await,
        }
    }

    async fn forward(&mut self, ack: u64, action: Option<serde_json::Value>) -> Option<String> {
        let Some((handle, connected)) = &self.joined else {
            return Some(error(ErrorCode::NotJoined, "join a room first", Some(ack)));
        };
        let received = Instant::now();
        match handle.act(connected.conn, ack, action).await {
            Ok(()) => {
                // The answer comes through the outbox. The rate limit bounds this map; a client
                // that reuses an ack id before its answer simply measures from the later frame.
                if self.pending.len() >= 1024 {
                    // Answers never came (cannot happen with the room as it is): forget them.
                    self.pending.clear();
                }
                self.pending.retain(|(id, _)| *id != ack);
                self.pending.push((ack, received));
                None
            }
            Err(e) => {
                metrics::histogram!(ACT_LATENCY).record(received.elapsed());
                Some(error(e.code, e.message, Some(ack)))
            }
        }
    }
}

/// Writes an encoded burst of text frames (`textframe`) to the socket in one write, behind what
/// tungstenite still owes the client (the pong to a ping it read).
async fn write_burst(socket: &mut Socket, burst: &[u8]) -> Result<(), ()> {
    socket.flush().await.map_err(|_| ())?;
    socket.get_mut().write_all(burst).await.map_err(|_| ())
}

/// Sends the close frame, then lingers (`linger`): the write side is shut and what the client still
/// sends is read and dropped for at most `limits.close_linger_ms` and `close_linger_bytes`, so that a
/// client still writing (an oversized frame's payload, a flood) reads the close code, not a reset.
async fn close_lingering(
    socket: &mut Socket,
    code: u16,
    reason: &'static str,
    limits: &crate::config::LimitsSection,
) {
    let frame = Message::Close(Some(CloseFrame {
        code: code.into(),
        reason: Utf8Bytes::from_static(reason),
    }));
    let lingered = tokio::time::timeout(Duration::from_millis(limits.close_linger_ms), async {
        // What the library still owes the client (the pong to the last ping read) goes first: after
        // the close frame it would send it after the close. A client that does not read (too slow)
        // may never take the close frame: the time bound ends that wait too.
        if socket.flush().await.is_err() || socket.send(frame).await.is_err() {
            return Lingered::Closed;
        }
        linger::shut_and_drain(socket.get_mut(), limits.close_linger_bytes).await
    })
    .await;
    match lingered {
        Ok(Lingered::Closed) => {}
        Ok(Lingered::BytesSpent) => {
            metrics::counter!(LINGER_CUT, "bound" => "bytes").increment(1);
        }
        Err(_) => metrics::counter!(LINGER_CUT, "bound" => "time").increment(1),
    }
}
