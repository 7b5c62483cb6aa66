//! Prometheus metrics, served by our own `GET /metrics` (no second port to open).
//!
//! Counters and histograms are recorded where things happen (connections in `ws.rs`, REST errors in
//! `error.rs`, the store's writer, the CPU players); gauges that describe the rooms (rooms by phase,
//! seats by occupant) are sampled from the room registry at each scrape, so the room actor needs no
//! hooks. The recorder is process-wide (the `metrics` facade has one global recorder): several
//! servers in one test process share it, so their tests look at increases, not absolute values.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use metrics::{Unit, counter, describe_counter, describe_gauge, describe_histogram, gauge};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tokio::sync::Notify;

use protocol::{ErrorCode, Occupant, Phase};

use crate::app::AppState;

pub const CONNECTIONS: &str = "fourkings_connections";
pub const ROOMS: &str = "fourkings_rooms";
pub const SEATS: &str = "fourkings_seats";
pub const ACTIONS: &str = "fourkings_actions_total";
pub const ACT_LATENCY: &str = "fourkings_act_latency_seconds";
pub const BOT_THINK: &str = "fourkings_bot_think_seconds";
pub const STORE_WRITE: &str = "fourkings_store_write_seconds";
pub const STORE_QUEUE: &str = "fourkings_store_queue_depth";
pub const STORE_COMMITS: &str = "fourkings_store_commits_total";
pub const STORE_COMMITTED: &str = "fourkings_store_committed_entries_total";
pub const STORE_COMMIT_DELAYS: &str = "fourkings_store_commit_delays_total";
pub const STORE_CHECKPOINTS: &str = "fourkings_store_checkpoints_total";
pub const STORE_CHECKPOINT_TIME: &str = "fourkings_store_checkpoint_seconds";
pub const STORE_WAL_PAGES: &str = "fourkings_store_wal_pages";
pub const STORE_LOG_TAIL: &str = "fourkings_store_log_tail_entries";
pub const STORE_LOG_MERGED: &str = "fourkings_store_log_merged_entries_total";
pub const STORE_LOG_MERGE_TIME: &str = "fourkings_store_log_merge_seconds";
pub const ERRORS: &str = "fourkings_errors_total";
pub const CLOSES: &str = "fourkings_ws_closes_total";
pub const RATE_LIMIT_CLOSES: &str = "fourkings_rate_limit_closes_total";
pub const LINGER_CUT: &str = "fourkings_ws_linger_cut_total";
pub const TCP_CONNECTIONS: &str = "fourkings_tcp_connections";
pub const REFUSED_CONNECTIONS: &str = "fourkings_refused_connections_total";
pub const HTTP_TIMEOUTS: &str = "fourkings_http_timeouts_total";
pub const RATE_LIMITED: &str = "fourkings_rate_limited_total";
pub const CLIENT_LIMITED: &str = "fourkings_client_limited_total";
pub const CLUSTER_FENCED: &str = "fourkings_cluster_fenced_appends_total";
pub const CLUSTER_CLAIMS: &str = "fourkings_cluster_claims_total";
pub const CLUSTER_REDIRECTS: &str = "fourkings_cluster_redirects_total";
pub const CLUSTER_LEASE_LOST: &str = "fourkings_cluster_lease_lost_total";
pub const CHAT_MESSAGES: &str = "fourkings_chat_messages_total";
pub const HOST_ORDERS: &str = "fourkings_host_orders_total";
pub const HEAP_ALLOCATED: &str = "fourkings_heap_allocated_bytes";
pub const HEAP_RESIDENT: &str = "fourkings_heap_resident_bytes";
pub const HEAP_THREAD_CACHES: &str = "fourkings_heap_thread_cache_bytes";

/// Histogram buckets in seconds: from half a millisecond (an act on an idle server) to a CPU thinking
/// for seconds.
const BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// The process-wide Prometheus recorder, installed on first use.
pub fn handle() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), BUCKETS)
            .expect("buckets are not empty")
            .build_recorder();
        let handle = recorder.handle();
        // Fails only if something else installed a recorder first; /metrics then stays empty.
        if metrics::set_global_recorder(recorder).is_err() {
            tracing::warn!("a metrics recorder was already installed; /metrics will be empty");
        }
        describe();
        zero();
        // Histograms buffer samples until upkeep folds them in; a thread, not a task, because tests
        // start servers on many short-lived runtimes.
        let upkeep = handle.clone();
        std::thread::Builder::new()
            .name("metrics-upkeep".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(Duration::from_secs(5));
                    upkeep.run_upkeep();
                }
            })
            .expect("spawn the metrics upkeep thread");
        handle
    })
}

fn describe() {
    describe_gauge!(CONNECTIONS, "Open WebSocket connections.");
    describe_gauge!(
        HEAP_ALLOCATED,
        Unit::Bytes,
        "Heap bytes the server holds, from the allocator's statistics (jemalloc builds only)."
    );
    describe_gauge!(
        HEAP_RESIDENT,
        Unit::Bytes,
        "Bytes of RAM the allocator keeps for the heap (jemalloc builds only)."
    );
    describe_gauge!(
        HEAP_THREAD_CACHES,
        Unit::Bytes,
        "Of the allocated heap, freed objects the threads' caches keep for reuse (jemalloc builds only)."
    );
    describe_gauge!(
        ROOMS,
        "Rooms held in memory, by phase (lobby, playing, finished)."
    );
    describe_gauge!(
        room::lane::ROOMS_ON_CPU_LANE,
        "Rooms of four CPU players running on the CPU lane (rooms.cpu_lane: a runtime thread of their own at nice 19)."
    );
    describe_gauge!(
        SEATS,
        "Seats of open rooms by occupant: human (connected), away (human disconnected, within the grace period), cpu (a CPU player, or the CPU playing for an absent human), empty."
    );
    describe_counter!(ACTIONS, "Player actions acknowledged to WebSocket clients.");
    describe_histogram!(
        ACT_LATENCY,
        Unit::Seconds,
        "From an act frame received to its ack (or error) leaving the server."
    );
    describe_histogram!(
        BOT_THINK,
        Unit::Seconds,
        "Time a CPU player took to choose an action."
    );
    describe_histogram!(
        STORE_WRITE,
        Unit::Seconds,
        "One group-commit transaction of the action log."
    );
    describe_gauge!(STORE_QUEUE, "Action log entries waiting for the writer.");
    describe_counter!(
        STORE_COMMITS,
        "Group commits of the action log (entries per commit: committed entries / commits)."
    );
    describe_counter!(
        STORE_COMMITTED,
        "Action log entries written by group commits."
    );
    describe_counter!(
        STORE_COMMIT_DELAYS,
        "Group commits that waited database.commit_delay_us for more entries (the log was busy)."
    );
    describe_counter!(
        STORE_CHECKPOINTS,
        "SQLite WAL checkpoints run in the background, by mode (passive, restart)."
    );
    describe_histogram!(
        STORE_CHECKPOINT_TIME,
        Unit::Seconds,
        "One background SQLite WAL checkpoint, by mode."
    );
    describe_gauge!(
        STORE_WAL_PAGES,
        "Pages in the SQLite WAL at the last checkpoint."
    );
    describe_gauge!(
        STORE_LOG_TAIL,
        "SQLite: action log entries in the tail, not yet moved into the room-keyed log."
    );
    describe_counter!(
        STORE_LOG_MERGED,
        "SQLite: action log entries moved from the tail into the room-keyed log."
    );
    describe_histogram!(
        STORE_LOG_MERGE_TIME,
        Unit::Seconds,
        "SQLite: one move of rooms' entries from the log's tail (appends wait for it)."
    );
    describe_counter!(
        ERRORS,
        "Errors sent to clients (WebSocket and REST), by code."
    );
    describe_counter!(
        CLOSES,
        "WebSocket connections closed by the server, by reason."
    );
    describe_counter!(
        RATE_LIMIT_CLOSES,
        "WebSocket connections closed for exceeding the rate limit."
    );
    describe_counter!(
        LINGER_CUT,
        "WebSocket closes whose linger (limits.close_linger_ms, close_linger_bytes) ran out while the \
         client still sent, by the bound reached: the socket was closed with input unread."
    );
    describe_gauge!(
        TCP_CONNECTIONS,
        "Open TCP connections (HTTP and WebSocket), probe reserve included."
    );
    describe_counter!(
        room::bot_pool::BOT_OVERLOAD,
        "CPU decisions answered greedily under overload, by reason: queue_full (bots.queue), waited (past bots.max_wait_ms), late (no answer from the pool by bots.max_wait_ms + 110% of the level's think time: the room played greedily itself)."
    );
    describe_counter!(
        REFUSED_CONNECTIONS,
        "TCP connections refused at accept, by reason: client_limit (limits.max_connections_per_ip), full (past the ceiling and the probe reserve), accept_error (e.g. out of descriptors)."
    );
    describe_counter!(
        HTTP_TIMEOUTS,
        "HTTP connections or requests ended by a timeout: header (server.header_timeout_ms), request (server.request_timeout_ms)."
    );
    describe_counter!(
        RATE_LIMITED,
        "REST requests refused with 429 rate_limited, by bucket (write, read)."
    );
    describe_counter!(
        CLIENT_LIMITED,
        "Requests refused because the client holds as much as one client may: lobbies (limits.max_open_lobbies_per_client), connections (a WebSocket past the per-IP cap), reconnects (a seat reconnecting too often)."
    );
    describe_counter!(
        room::QUICK_RECONNECTS,
        "Seat connections that came back within rooms.connection_settle_ms: neither the drop nor the return was announced to the room."
    );
    describe_counter!(
        CHAT_MESSAGES,
        "Chat messages received from WebSocket clients (refused ones are also counted in fourkings_errors_total by code)."
    );
    describe_counter!(
        HOST_ORDERS,
        "Host orders about people that the room carried out, by order (unseat, lock, unlock, handover, mute, unmute, hide)."
    );
    describe_counter!(
        CLUSTER_FENCED,
        "Cluster mode: log entries the database refused because this node no longer owns the room (another node claimed it, or this node's lease ran out)."
    );
    describe_counter!(
        CLUSTER_CLAIMS,
        "Cluster mode: rooms this node took over (created, or claimed and rebuilt from the log)."
    );
    describe_counter!(
        CLUSTER_REDIRECTS,
        "Cluster mode: requests and joins sent to the node that serves the room."
    );
    describe_counter!(
        CLUSTER_LEASE_LOST,
        "Cluster mode: times this node found its lease expired and started again as a new incarnation."
    );
}

/// The labels of `HOST_ORDERS`.
pub const HOST_ORDER_NAMES: [&str; 7] = [
    "unseat", "lock", "unlock", "handover", "mute", "unmute", "hide",
];

/// WebSocket close reasons (`CLOSES`' label), as `ws` names them.
pub const CLOSE_REASONS: [&str; 9] = [
    "rate_limit",
    "too_big",
    "binary",
    "too_slow",
    "idle",
    "join_deadline",
    "restart",
    "redirect",
    "other",
];

/// Every metric with its labels, at 0 from the start: a scrape (and an alert on a rate) sees each
/// series before its first event, not only after it.
fn zero() {
    gauge!(CONNECTIONS).set(0.0);
    gauge!(TCP_CONNECTIONS).set(0.0);
    gauge!(STORE_QUEUE).set(0.0);
    gauge!(room::lane::ROOMS_ON_CPU_LANE).set(0.0);
    for phase in ["lobby", "playing", "finished"] {
        gauge!(ROOMS, "state" => phase).set(0.0);
    }
    for occupant in ["human", "away", "cpu", "empty"] {
        gauge!(SEATS, "occupant" => occupant).set(0.0);
    }
    for order in HOST_ORDER_NAMES {
        counter!(HOST_ORDERS, "order" => order).absolute(0);
    }
    for name in [
        ACTIONS,
        CHAT_MESSAGES,
        RATE_LIMIT_CLOSES,
        room::QUICK_RECONNECTS,
        CLUSTER_FENCED,
        CLUSTER_CLAIMS,
        CLUSTER_REDIRECTS,
        CLUSTER_LEASE_LOST,
        STORE_COMMITS,
        STORE_COMMITTED,
        STORE_COMMIT_DELAYS,
    ] {
        counter!(name).absolute(0);
    }
    for reason in CLOSE_REASONS {
        counter!(CLOSES, "reason" => reason).absolute(0);
    }
    // The store may have checkpointed before the recorder was installed: register, never reset.
    for mode in ["passive", "restart"] {
        counter!(STORE_CHECKPOINTS, "mode" => mode).increment(0);
    }
    counter!(STORE_LOG_MERGED).increment(0);
    for bound in ["time", "bytes"] {
        counter!(LINGER_CUT, "bound" => bound).absolute(0);
    }
    for reason in room::bot_pool::BOT_OVERLOAD_REASONS {
        counter!(room::bot_pool::BOT_OVERLOAD, "reason" => reason).absolute(0);
    }
    for reason in ["client_limit", "full", "accept_error"] {
        counter!(REFUSED_CONNECTIONS, "reason" => reason).absolute(0);
    }
    for kind in ["header", "request"] {
        counter!(HTTP_TIMEOUTS, "kind" => kind).absolute(0);
    }
    for kind in crate::throttle::Kind::ALL {
        counter!(RATE_LIMITED, "kind" => kind.label()).absolute(0);
    }
    for what in ["lobbies", "connections", "reconnects"] {
        counter!(CLIENT_LIMITED, "what" => what).absolute(0);
    }
    for code in [
        ErrorCode::RateLimited,
        ErrorCode::ClientLimit,
        ErrorCode::BodyTooLarge,
        ErrorCode::RequestTimeout,
        ErrorCode::TooManyRooms,
        ErrorCode::TooManyConnections,
        ErrorCode::StaleAck,
        ErrorCode::ChatTooLong,
        ErrorCode::ChatEmpty,
        ErrorCode::ChatTooFast,
        ErrorCode::Muted,
        ErrorCode::ChatClosed,
        ErrorCode::UnknownPhrase,
        ErrorCode::Unseated,
        ErrorCode::RoomLocked,
    ] {
        counter!(ERRORS, "code" => code.as_str()).absolute(0);
    }
}

/// An error sent to a client.
pub fn error_sent(code: ErrorCode) {
    counter!(ERRORS, "code" => code.as_str()).increment(1);
}

/// `GET /metrics`: the Prometheus text format.
pub async fn serve(State(state): State<AppState>) -> impl IntoResponse {
    sample_rooms(&state).await;
    if let Some(heap) = crate::heap::sample() {
        gauge!(HEAP_ALLOCATED).set(heap.allocated as f64);
        gauge!(HEAP_RESIDENT).set(heap.resident as f64);
        gauge!(HEAP_THREAD_CACHES).set(heap.thread_caches as f64);
    }
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        handle().render(),
    )
}

/// Rooms by phase and seats by occupant, asked of every open room.
async fn sample_rooms(state: &AppState) {
    let rooms = state.registry.all();
    let infos = futures_util::future::join_all(rooms.iter().map(|(_, room)| {
        // A room busy for longer than this is left out of this sample rather than delaying it.
        tokio::time::timeout(Duration::from_millis(500), room.info())
    }))
    .await;
    let mut phases = [0u32; 3];
    let mut seats = [0u32; 4];
    for info in infos.into_iter().flatten().flatten() {
        phases[match info.phase {
            Phase::Lobby => 0,
            Phase::Playing => 1,
            Phase::Finished => 2,
        }] += 1;
        for seat in &info.seats {
            seats[match seat {
                Occupant::Human {
                    cpu_playing: true, ..
                }
                | Occupant::Cpu { .. } => 2,
                Occupant::Human {
                    connected: true, ..
                } => 0,
                Occupant::Human { .. } => 1,
                Occupant::Empty => 3,
            }] += 1;
        }
    }
    for (phase, n) in ["lobby", "playing", "finished"].into_iter().zip(phases) {
        gauge!(ROOMS, "state" => phase).set(n);
    }
    for (occupant, n) in ["human", "away", "cpu", "empty"].into_iter().zip(seats) {
        gauge!(SEATS, "occupant" => occupant).set(n);
    }
}

/// Open WebSocket connections, counted for `/metrics` and for the shutdown (which waits for them),
/// and held under the server's ceiling (`fdlimit`).
#[derive(Debug)]
pub struct Connections {
    open: AtomicUsize,
    closed: Notify,
    ceiling: usize,
}

impl Default for Connections {
    fn default() -> Connections {
        Connections::with_ceiling(usize::MAX)
    }
}

impl Connections {
    pub fn with_ceiling(ceiling: usize) -> Connections {
        Connections {
            open: AtomicUsize::new(0),
            closed: Notify::new(),
            ceiling,
        }
    }

    /// No more WebSockets may be accepted. Checked before the upgrade, so a burst of simultaneous
    /// upgrades may pass it by a few; the descriptor reserve covers that.
    pub fn full(&self) -> bool {
        self.count() >= self.ceiling
    }

    pub fn ceiling(&self) -> usize {
        self.ceiling
    }

    /// Count one connection for as long as the guard lives.
    pub fn open(self: &Arc<Self>) -> ConnectionGuard {
        self.open.fetch_add(1, Ordering::SeqCst);
        gauge!(CONNECTIONS).increment(1.0);
        ConnectionGuard(self.clone())
    }

    pub fn count(&self) -> usize {
        self.open.load(Ordering::SeqCst)
    }

    /// Returns once no connection is open.
    pub async fn all_closed(&self) {
        loop {
            let notified = self.closed.notified();
            if self.count() == 0 {
                return;
            }
            notified.await;
        }
    }
}

#[derive(Debug)]
pub struct ConnectionGuard(Arc<Connections>);

impl Drop for ConnectionGuard {
    fn drop(&mut self) {
        gauge!(CONNECTIONS).decrement(1.0);
        if self.0.open.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.closed.notify_waiters();
        }
    }
}
