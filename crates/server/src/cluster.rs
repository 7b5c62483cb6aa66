//! Cluster mode in the server (docs/cluster.md): this node's incarnation and lease, the rooms it
//! holds with their fences, the group-commit writer that appends every room's log through
//! `Cluster::fenced_append_many`, and the routing of a request for a room: served here, claimed and
//! rebuilt here, or redirected to the node that serves it.
//!
//! There is no spool here on purpose: an entry is acknowledged only once the database took it under
//! the room's fence. Without the database nothing is acknowledged; with a lost fence the room's actor
//! stops and its clients reconnect to whoever owns the room now.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use room::RoomHandle;
use room::log::{LogEntry, LogError};
use store::cluster::{Appended, Claim, Cluster, Fence};
use store::{PgStore, StoreError};

use crate::app::AppState;
use crate::persist;
use crate::registry::Registry;
use crate::shutdown::Stopping;
use crate::telemetry::{CLUSTER_CLAIMS, CLUSTER_FENCED, CLUSTER_LEASE_LOST, CLUSTER_REDIRECTS};

/// Most entries written in one group commit.
const MAX_BATCH: usize = 2048;

/// Most orphaned rooms one node takes per sweep: several live nodes share a dead one's rooms instead
/// of the first to look taking them all.
const ADOPT_PER_SWEEP: i64 = 32;

/// A room this node holds: its fence and how many entries its log holds.
#[derive(Debug, Clone)]
struct Held {
    fence: Fence,
    last_seq: i64,
}

struct Request {
    entry: store::LogEntry,
    reply: oneshot::Sender<Result<(), LogError>>,
}

/// This node in the cluster. One per server, shared by the handlers and the rooms' log.
#[derive(Debug)]
pub struct ClusterNode {
    cluster: Cluster,
    /// This node's base URL (`cluster.public_url`).
    public_url: String,
    /// The current incarnation; a new one after a lost lease.
    id: RwLock<String>,
    /// False from the moment the lease is known lost until a new incarnation is registered.
    lease_ok: std::sync::atomic::AtomicBool,
    held: Mutex<HashMap<String, Held>>,
    /// Claims on this node one at a time: two joins racing for the same unheld room must not both
    /// rebuild it (the loser would find "owned by me" and give the room up under the winner).
    claiming: tokio::sync::Mutex<()>,
    tx: mpsc::Sender<Request>,
    write_timeout: Duration,
}

impl std::fmt::Debug for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Request")
            .field("entry", &self.entry)
            .finish()
    }
}

/// Where a room is served, for a request that addresses it.
#[derive(Debug)]
pub enum Located {
    /// No such room (or it closed).
    Unknown,
    /// Another node serves it: its base URL.
    Elsewhere(String),
    /// The database cannot answer now.
    Unavailable(String),
}

impl ClusterNode {
    /// Registers a new incarnation and starts the group-commit writer.
    pub async fn start(
        store: &PgStore,
        config: &crate::Config,
    ) -> Result<Arc<ClusterNode>, StoreError> {
        let cluster = Cluster::on(store, config.lease_config());
        let public_url = config.cluster.public_url.trim_end_matches('/').to_owned();
        let id = cluster.register_node(&public_url).await?;
        tracing::info!(node = %id, url = %public_url, "cluster mode: node registered");
        let (tx, rx) = mpsc::channel(65_536);
        let node = Arc::new(ClusterNode {
            cluster,
            public_url,
            id: RwLock::new(id),
            lease_ok: std::sync::atomic::AtomicBool::new(true),
            held: Mutex::new(HashMap::new()),
            claiming: tokio::sync::Mutex::new(()),
            tx,
            write_timeout: Duration::from_millis(config.database.write_timeout_ms),
        });
        let pacer = store::Pacer::new(Duration::from_micros(config.database.commit_delay_us));
        tokio::spawn(write_loop(Arc::downgrade(&node), rx, pacer));
        Ok(node)
    }

    pub fn node_id(&self) -> String {
        self.id.read().expect("node id lock").clone()
    }

    /// Whether this node holds a lease it believes valid.
    pub fn lease_ok(&self) -> bool {
        self.lease_ok.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn hold(&self, fence: Fence, last_seq: i64) {
        let room = fence.room_id.clone();
        self.held
            .lock()
            .expect("held lock")
            .insert(room, Held { fence, last_seq });
    }

    /// Forgets the room if it is still held under `fence` (a newer claim stays).
    fn forget(&self, fence: &Fence) {
        let mut held = self.held.lock().expect("held lock");
        if held.get(&fence.room_id).is_some_and(|h| h.fence == *fence) {
            held.remove(&fence.room_id);
        }
    }

    /// Forgets the room and gives it up in the database if this node still owns it under `fence`
    /// (in the background: nothing waits for it).
    fn give_back(&self, fence: &Fence) {
        self.forget(fence);
        let cluster = self.cluster.clone();
        let fence = fence.clone();
        tokio::spawn(async move { release_in_db(&cluster, &fence).await });
    }

    /// Appends one room entry under the room's fence; resolves once the database took it.
    pub async fn append(&self, entry: LogEntry) -> Result<(), LogError> {
        let (reply, answer) = oneshot::channel();
        let entry = persist::store_entry(entry);
        self.tx
            .send(Request { entry, reply })
            .await
            .map_err(|_| LogError::Unavailable("the cluster writer has stopped".into()))?;
        answer
            .await
            .map_err(|_| LogError::Unavailable("the cluster writer has stopped".into()))?
    }

    /// A room closed (idle): this node stops writing for it at once. The caller marks it closed in
    /// the database, then [`ClusterNode::release_room`] gives it up, in that order, so that no
    /// node's sweep adopts a room that is only closing.
    pub fn forget_room(&self, room: &str) -> Option<Fence> {
        let held = self.held.lock().expect("held lock").remove(room)?;
        Some(held.fence)
    }

    /// Gives a room this node no longer serves up in the database, if it still owns it under `fence`.
    pub async fn release_room(&self, fence: &Fence) {
        release_in_db(&self.cluster, fence).await;
    }

    /// The public URLs of the other live nodes (for lists that span the cluster).
    pub async fn peers(&self) -> Result<Vec<String>, StoreError> {
        let me = self.node_id();
        Ok(self
            .cluster
            .live_nodes()
            .await?
            .into_iter()
            .filter(|(id, url)| *id != me && *url != self.public_url)
            .map(|(_, url)| url)
            .collect())
    }

    /// SIGTERM: gives up every room and ends the lease, so other nodes claim the rooms at once.
    pub async fn drain(&self) {
        let id = self.node_id();
        self.lease_ok
            .store(false, std::sync::atomic::Ordering::Relaxed);
        self.held.lock().expect("held lock").clear();
        match self.cluster.release_node(&id).await {
            Ok(rooms) => tracing::info!(node = %id, rooms, "cluster: released every room"),
            Err(e) => {
                tracing::warn!(node = %id, error = %e, "cluster: could not release the rooms; they move when the lease expires");
            }
        }
    }

    /// One group commit: every room's entries in one fenced statement, all in one transaction.
    async fn write(&self, batch: Vec<Request>) {
        // Group by room, keeping each room's order.
        let mut rooms: Vec<(String, Vec<Request>)> = Vec::new();
        for req in batch {
            match rooms.iter_mut().find(|(r, _)| *r == req.entry.room_id) {
                Some((_, reqs)) => reqs.push(req),
                None => rooms.push((req.entry.room_id.clone(), vec![req])),
            }
        }
        let mut batches = Vec::new();
        let mut waiting = Vec::new();
        {
            let held = self.held.lock().expect("held lock");
            for (room, reqs) in rooms {
                match held.get(&room) {
                    Some(h) => {
                        let entries = reqs.iter().map(|r| r.entry.clone()).collect();
                        batches.push((h.fence.clone(), h.last_seq, entries));
                        waiting.push(reqs);
                    }
                    None => {
                        // Not (or no longer) held here: nothing may be written for it.
                        metrics::counter!(CLUSTER_FENCED).increment(reqs.len() as u64);
                        for r in reqs {
                            let _ = r.reply.send(Err(LogError::Fenced(format!(
                                "room {room} is not held here"
                            ))));
                        }
                    }
                }
            }
        }
        if batches.is_empty() {
            return;
        }
        let results = match self.append_many(&batches).await {
            Ok(results) => results,
            Err(e) if !e.is_transient() && batches.len() > 1 => {
                // One room's entries refused (a bug, not an outage) must not fail the others:
                // write room by room.
                let mut results = Vec::with_capacity(batches.len());
                for b in &batches {
                    results.push(
                        self.append_many(std::slice::from_ref(b))
                            .await
                            .map(|mut r| r.pop().unwrap_or(Appended::Fenced)),
                    );
                }
                self.settle(batches, waiting, results);
                return;
            }
            Err(e) => {
                tracing::warn!(error = %e, "cluster: log write failed; nothing acknowledged");
                let why = e.to_string();
                for reqs in waiting {
                    for r in reqs {
                        let _ = r.reply.send(Err(LogError::Unavailable(why.clone())));
                    }
                }
                return;
            }
        };
        self.settle(batches, waiting, results.into_iter().map(Ok).collect());
    }

    async fn append_many(
        &self,
        batches: &[(Fence, i64, Vec<store::LogEntry>)],
    ) -> Result<Vec<Appended>, StoreError> {
        let started = Instant::now();
        let written =
            tokio::time::timeout(self.write_timeout, self.cluster.fenced_append_many(batches))
                .await;
        metrics::histogram!(crate::telemetry::STORE_WRITE).record(started.elapsed());
        match written {
            Ok(r) => r,
            // A write that may or may not have committed: the room's next append finds `last_seq`
            // moved and is fenced, which stops the room; its next owner replays whatever is there.
            Err(_) => Err(StoreError::Io(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!(
                    "no answer from the database within {:?}",
                    self.write_timeout
                ),
            ))),
        }
    }

    /// Answers each room's requests from its outcome.
    fn settle(
        &self,
        batches: Vec<(Fence, i64, Vec<store::LogEntry>)>,
        waiting: Vec<Vec<Request>>,
        results: Vec<Result<Appended, StoreError>>,
    ) {
        for (((fence, _, _), reqs), result) in batches.into_iter().zip(waiting).zip(results) {
            match result {
                Ok(Appended::Written { last_seq }) => {
                    if let Some(h) = self
                        .held
                        .lock()
                        .expect("held lock")
                        .get_mut(&fence.room_id)
                        .filter(|h| h.fence == fence)
                    {
                        h.last_seq = last_seq;
                    }
                    for r in reqs {
                        let _ = r.reply.send(Ok(()));
                    }
                }
                Ok(Appended::Fenced) => {
                    tracing::warn!(room = %fence.room_id, epoch = fence.epoch, "cluster: append fenced out; the room stops here");
                    metrics::counter!(CLUSTER_FENCED).increment(reqs.len() as u64);
                    // If this node still owns the room (only the sequence moved, after a write that
                    // timed out but committed), give it up so that the next join claims and replays it.
                    self.give_back(&fence);
                    for r in reqs {
                        let _ = r
                            .reply
                            .send(Err(LogError::Fenced("another node owns the room".into())));
                    }
                }
                Err(e) => {
                    let why = e.to_string();
                    for r in reqs {
                        let _ = r.reply.send(Err(LogError::Unavailable(why.clone())));
                    }
                }
            }
        }
    }

    /// Stops every room (their connections close with 1012) and forgets every fence.
    async fn drop_all_rooms(&self, registry: &Registry) {
        self.held.lock().expect("held lock").clear();
        for (_, handle) in registry.all() {
            handle.stop().await;
        }
    }
}

/// Gives the room up in the database if `fence` still owns it; a failure only delays the next claim
/// until the lease runs out, so it is logged, not returned.
async fn release_in_db(cluster: &Cluster, fence: &Fence) {
    if let Err(e) = cluster.release_room(fence).await {
        tracing::warn!(room = %fence.room_id, error = %e, "could not release the room");
    }
}

async fn write_loop(
    node: std::sync::Weak<ClusterNode>,
    mut rx: mpsc::Receiver<Request>,
    mut pacer: store::Pacer,
) {
    while let Some(first) = rx.recv().await {
        let batch = pacer.gather(&mut rx, first, MAX_BATCH, true).await;
        let Some(node) = node.upgrade() else { return };
        node.write(batch).await;
    }
}

/// Renews the lease every `cluster.renew_ms` until the server stops. An expired lease is never
/// revived: the node drops every room and registers again as a new incarnation. A node that cannot
/// reach the database for a whole TTL drops its rooms too, as the others will take them.
pub async fn renew_loop(node: Arc<ClusterNode>, registry: Arc<Registry>, mut stopping: Stopping) {
    let lease = node.cluster.lease();
    let mut tick = tokio::time::interval(lease.renew_every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last_ok = Instant::now();
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            () = stopping.wait() => return,
        }
        let id = node.node_id();
        if !node.lease_ok() {
            match node.cluster.register_node(&node.public_url).await {
                Ok(new_id) => {
                    tracing::info!(old = %id, node = %new_id, "cluster: registered as a new incarnation");
                    *node.id.write().expect("node id lock") = new_id;
                    node.lease_ok
                        .store(true, std::sync::atomic::Ordering::Relaxed);
                    last_ok = Instant::now();
                }
                Err(e) => tracing::warn!(error = %e, "cluster: cannot register yet"),
            }
            continue;
        }
        let renewed = tokio::time::timeout(lease.renew_every, node.cluster.renew(&id)).await;
        let lost = match renewed {
            Ok(Ok(true)) => {
                last_ok = Instant::now();
                false
            }
            Ok(Ok(false)) => {
                tracing::warn!(node = %id, "cluster: the lease had expired; dropping every room");
                true
            }
            Ok(Err(e)) if last_ok.elapsed() >= lease.ttl => {
                tracing::warn!(node = %id, error = %e, "cluster: no renewal for a whole lease; dropping every room");
                true
            }
            Err(_) if last_ok.elapsed() >= lease.ttl => {
                tracing::warn!(node = %id, "cluster: no renewal for a whole lease; dropping every room");
                true
            }
            Ok(Err(e)) => {
                tracing::warn!(node = %id, error = %e, "cluster: lease renewal failed; retrying");
                false
            }
            Err(_) => {
                tracing::warn!(node = %id, "cluster: lease renewal timed out; retrying");
                false
            }
        };
        if lost {
            metrics::counter!(CLUSTER_LEASE_LOST).increment(1);
            node.lease_ok
                .store(false, std::sync::atomic::Ordering::Relaxed);
            node.drop_all_rooms(&registry).await;
            // Register again at the next tick (or at once, if the database answers).
            tick.reset_immediately();
        }
    }
}

/// Takes over rooms that still have a game to serve and that nobody validly owns (their node died or
/// drained), a few per lease renewal, without waiting for a client to ask for them: a game of CPUs,
/// or of players who are away, goes on after its node is gone, and its turn timers keep running.
/// This is the cluster's counterpart of the single-node rebuild at start.
pub async fn adopt_loop(state: AppState, mut stopping: Stopping) {
    let Some(node) = state.cluster.clone() else {
        return;
    };
    let mut tick = tokio::time::interval(node.cluster.lease().renew_every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            () = stopping.wait() => return,
        }
        if !node.lease_ok() {
            continue;
        }
        let orphans = match node.cluster.orphaned_rooms(ADOPT_PER_SWEEP).await {
            Ok(orphans) => orphans,
            Err(e) => {
                tracing::debug!(error = %e, "cluster: cannot look for orphaned rooms now");
                continue;
            }
        };
        for id in orphans {
            if stopping.is_stopping() {
                return;
            }
            match find_room(&state, &id).await {
                Ok(_) => tracing::info!(room = %id, "cluster: adopted a room nobody served"),
                // Another node was quicker, or the room ended: nothing to do.
                Err(Located::Elsewhere(_) | Located::Unknown) => {}
                Err(Located::Unavailable(why)) => {
                    tracing::debug!(room = %id, why, "cluster: could not adopt the room now");
                    break;
                }
            }
        }
    }
}

/// A public URL whose port is 0 names the port the server actually bound (a node listening on port 0).
pub fn with_port(public_url: &str, port: u16) -> String {
    let Some((scheme, rest)) = public_url.split_once("://") else {
        return public_url.to_owned();
    };
    let end = rest.find('/').unwrap_or(rest.len());
    match rest[..end].strip_suffix(":0") {
        Some(host) => format!("{scheme}://{host}:{port}{}", &rest[end..]),
        None => public_url.to_owned(),
    }
}

/// `http(s)://host…` → the WebSocket URL clients are redirected to.
pub fn ws_url(public_url: &str) -> String {
    let base = if let Some(rest) = public_url.strip_prefix("https://") {
        format!("wss://{rest}")
    } else if let Some(rest) = public_url.strip_prefix("http://") {
        format!("ws://{rest}")
    } else {
        public_url.to_owned()
    };
    format!("{base}/ws")
}

/// The room's handle if this node serves it (single node: if it exists). In cluster mode a room
/// nobody validly owns is claimed and rebuilt from its log here; one another node owns is
/// `Elsewhere`.
pub async fn find_room(state: &AppState, id: &str) -> Result<RoomHandle, Located> {
    if let Some(handle) = state.registry.get(id) {
        return Ok(handle);
    }
    let Some(node) = &state.cluster else {
        return Err(Located::Unknown);
    };
    let unavailable = |e: StoreError| Located::Unavailable(e.to_string());
    let _claiming = node.claiming.lock().await;
    if let Some(handle) = state.registry.get(id) {
        return Ok(handle);
    }
    match state.store.room(id).await.map_err(unavailable)? {
        Some(row) if row.state.is_unfinished() => {}
        _ => return Err(Located::Unknown),
    }
    if !node.lease_ok() {
        return Err(Located::Unavailable(
            "this node is rejoining the cluster".into(),
        ));
    }
    for _ in 0..5 {
        let me = node.node_id();
        match node
            .cluster
            .claim_room(&me, id)
            .await
            .map_err(unavailable)?
        {
            Claim::Claimed { fence, last_seq } => return adopt(state, node, fence, last_seq).await,
            Claim::NoSuchRoom => return Err(Located::Unknown),
            Claim::OwnedBy { node_id, .. } if node_id == me => {
                // The database says this node owns the room, but nothing serves it here (its
                // actor was fenced by a moved sequence, or ended): give it up and claim it again,
                // which replays the log.
                if let Some(owner) = node.cluster.owner(id).await.map_err(unavailable)? {
                    if owner.node_id == me {
                        let fence = Fence {
                            room_id: id.to_owned(),
                            node_id: me,
                            epoch: owner.epoch,
                        };
                        node.cluster
                            .release_room(&fence)
                            .await
                            .map_err(unavailable)?;
                    }
                }
            }
            // The owner's lease ran out between the claim and the lookup: try again.
            Claim::OwnedBy { public_url, .. } if public_url.is_empty() => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Claim::OwnedBy { public_url, .. } => {
                metrics::counter!(CLUSTER_REDIRECTS).increment(1);
                return Err(Located::Elsewhere(public_url));
            }
        }
    }
    Err(Located::Unavailable(
        "the room's owner is changing; retry".into(),
    ))
}

/// Rebuilds a room just claimed from its log and serves it.
async fn adopt(
    state: &AppState,
    node: &ClusterNode,
    fence: Fence,
    last_seq: i64,
) -> Result<RoomHandle, Located> {
    let id = fence.room_id.clone();
    // Held before the rebuild: the rebuilt room may append at once (a dice throw, a CPU move).
    node.hold(fence.clone(), last_seq);
    let give_up = |why: Located| {
        node.give_back(&fence);
        why
    };
    let stored = match persist::load_room(&state.store, &id).await {
        Ok(Some(stored)) => stored,
        Ok(None) => return Err(give_up(Located::Unknown)),
        Err(e) => return Err(give_up(Located::Unavailable(e.to_string()))),
    };
    match room::restore(
        stored,
        state.room_config.clone(),
        state.log.clone(),
        state.bot.clone(),
    ) {
        Ok(handle) => {
            tracing::info!(room = %id, epoch = fence.epoch, last_seq, "cluster: claimed the room and rebuilt it from its log");
            metrics::counter!(CLUSTER_CLAIMS).increment(1);
            state.registry.insert(id, handle.clone());
            Ok(handle)
        }
        Err(e) => {
            tracing::error!(room = %id, error = %e, "cannot rebuild the claimed room");
            Err(give_up(Located::Unknown))
        }
    }
}

/// A room just created in the database: this node claims it before writing its first record.
pub async fn claim_new(node: &ClusterNode, id: &str) -> Result<Fence, StoreError> {
    let me = node.node_id();
    match node.cluster.claim_room(&me, id).await? {
        Claim::Claimed { fence, last_seq } => {
            node.hold(fence.clone(), last_seq);
            metrics::counter!(CLUSTER_CLAIMS).increment(1);
            Ok(fence)
        }
        other => Err(StoreError::Corrupt(format!(
            "a new room could not be claimed by this node: {other:?}"
        ))),
    }
}

/// A room just created and recorded: this node stops writing for it and gives it up in the
/// database before the creation is answered, so the first request for it (on any node) claims it.
pub async fn hand_back_new(node: &ClusterNode, fence: &Fence) {
    node.forget(fence);
    node.release_room(fence).await;
}

/// The room could not be created after its claim: give it back.
pub fn unclaim(node: &ClusterNode, fence: &Fence) {
    node.give_back(fence);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_zero_names_the_bound_port() {
        assert_eq!(
            with_port("http://127.0.0.1:0", 4242),
            "http://127.0.0.1:4242"
        );
        assert_eq!(with_port("http://h:0/x", 1), "http://h:1/x");
        assert_eq!(with_port("http://h:8080", 1), "http://h:8080");
        assert_eq!(with_port("http://h:80/a:0", 1), "http://h:80/a:0");
    }

    #[test]
    fn websocket_urls_follow_the_scheme() {
        assert_eq!(ws_url("http://10.0.0.2:8080"), "ws://10.0.0.2:8080/ws");
        assert_eq!(
            ws_url("https://n1.example.org/games"),
            "wss://n1.example.org/games/ws"
        );
    }
}
