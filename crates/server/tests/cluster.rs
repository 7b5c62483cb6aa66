//! Cluster mode for real (issue #9): BUILT server binaries as separate node processes on port 0, on
//! one fresh PostgreSQL database per test. A room made on one node is redirected to from another and
//! played on its owner; `kill -9` of the owner moves the room (after the lease) to the node the
//! client reaches, with every acknowledged action present once and resent ack ids re-acked; a paused
//! owner is fenced when it wakes (its refused writes are counted) and its clients are closed; a
//! drained node's rooms are claimed at once; SQLite is refused.

use std::net::SocketAddr;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

#[allow(dead_code)]
#[path = "e2e/support.rs"]
mod support;

// The store tests' harness (fresh PostgreSQL databases); it allows its own dead code.
#[path = "../../store/tests/common/mod.rs"]
mod common;

#[allow(dead_code)]
mod play;
mod process;

use common::TestDb;
use play::{MidGame, Seen, join_following, play, reach_mid_game};
use process::ServerProc;
use store::OpenOptions;
use store::cluster::{Cluster, LeaseConfig};
use support::{Client, create_room, host, http_raw, is_event, listed_rooms};

/// A short lease, so that a dead owner's rooms move within seconds.
const SHORT: (u64, u64) = (1500, 500);
/// A lease no test outlives: a room claimed under it was released, not expired.
const LONG: (u64, u64) = (120_000, 40_000);

fn chaturaji() -> Value {
    json!({"game": "chaturaji"})
}

/// One cluster node on `db`, its public URL naming the port it bound.
fn node(db: &TestDb, lease: (u64, u64)) -> ServerProc {
    node_with(db, lease, &[])
}

/// A cluster node with more settings (`extra` comes last, so it overrides).
fn node_with(db: &TestDb, (ttl, renew): (u64, u64), extra: &[(&str, String)]) -> ServerProc {
    let mut env = vec![
        ("FOURKINGS_DATABASE__URL", db.url().to_owned()),
        ("FOURKINGS_DATABASE__MAX_CONNECTIONS", "4".into()),
        ("FOURKINGS_CLUSTER__ENABLED", "true".into()),
        ("FOURKINGS_CLUSTER__PUBLIC_URL", "http://127.0.0.1:0".into()),
        ("FOURKINGS_CLUSTER__LEASE_TTL_MS", ttl.to_string()),
        ("FOURKINGS_CLUSTER__RENEW_MS", renew.to_string()),
        // Shorter than the lease, as the configuration requires.
        (
            "FOURKINGS_DATABASE__PG_IDLE_IN_TRANSACTION_MS",
            (ttl * 2 / 3).to_string(),
        ),
        ("FOURKINGS_BOTS__EASY_MS", "2".into()),
        ("FOURKINGS_BOTS__MEDIUM_MS", "2".into()),
    ];
    env.extend_from_slice(extra);
    ServerProc::start(&env)
}

fn signal(p: &ServerProc, sig: &str) {
    let sent = Command::new("kill")
        .args([sig, &p.child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
}

/// Stops the node and returns once every one of its threads is stopped. `kill -STOP` returns when
/// the signal is sent, not when it has taken effect: a thread running on the other core goes on
/// until the kernel next preempts it, and on a busy machine the node could still read and record
/// the frame a test sends right after.
fn pause(p: &ServerProc) {
    signal(p, "-STOP");
    let tasks = format!("/proc/{}/task", p.child.id());
    let stopped = |task: std::fs::DirEntry| {
        let stat = std::fs::read_to_string(task.path().join("stat")).unwrap_or_default();
        // The state follows the parenthesised command name: T (stopped) or t (traced).
        matches!(
            stat.rsplit_once(") ")
                .and_then(|(_, rest)| rest.chars().next()),
            Some('T' | 't') | None
        )
    };
    for _ in 0..1000 {
        let all = std::fs::read_dir(&tasks)
            .expect("the node's threads")
            .flatten()
            .all(stopped);
        if all {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("node {} did not stop within 5 s of SIGSTOP", p.child.id());
}

/// A counter of the node's `/metrics` (0 when it was never incremented).
async fn metric(addr: SocketAddr, name: &str) -> f64 {
    let (status, _, body) = http_raw(addr, "GET", "/metrics", None, None).await;
    assert_eq!(status, 200);
    body.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
        .unwrap_or(0.0)
}

async fn cluster(db: &TestDb) -> Cluster {
    Cluster::open(db.url(), &OpenOptions::default(), LeaseConfig::default())
        .await
        .expect("the cluster tables")
}

/// The room's log holds every game's entries once, in a gapless sequence, and no epoch was written
/// by two nodes. Returns the epochs, in log order.
async fn assert_log_is_sound(db: &TestDb, room: &str) -> Vec<i64> {
    let rows = cluster(db).await.audit_log(room).await.unwrap();
    let mut next_seq = std::collections::BTreeMap::new();
    let mut writers = std::collections::BTreeMap::new();
    let mut epochs = Vec::new();
    for r in &rows {
        let expected = next_seq.entry(r.game_no).or_insert(0);
        assert_eq!(r.seq, *expected, "game {} has a gap or a repeat", r.game_no);
        *expected += 1;
        let epoch = r.writer_epoch.expect("fenced appends name their epoch");
        let node = r.writer_node.clone().expect("and their node");
        assert_eq!(
            writers.entry(epoch).or_insert_with(|| node.clone()),
            &node,
            "epoch {epoch} written by two nodes"
        );
        if epochs.last() != Some(&epoch) {
            epochs.push(epoch);
        }
    }
    epochs
}

/// The acknowledged (ack id, action)s of the seat are each in game 1's log exactly once.
async fn assert_acked_once(db: &TestDb, room: &str, acked: &[(u64, Value)]) {
    let store = db.open().await;
    let log = store.load_log(room, 1).await.unwrap();
    for (ack, action) in acked {
        let found: Vec<_> = log
            .iter()
            .filter(|e| e.payload["ack"].as_u64() == Some(*ack))
            .collect();
        assert_eq!(found.len(), 1, "ack {ack} is in the log once");
        assert_eq!(&found[0].payload["action"], action);
    }
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_nodes_redirect_to_the_owner_and_a_killed_owner_is_replaced() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    let n1 = node(&db, SHORT);
    let n2 = node(&db, SHORT);

    // A room made on node 2 is handed back at once: the first node asked for it claims it (node 1
    // here, as a balancer hashing on the room id would choose). Asked on node 2 again: REST answers
    // 307 to the same path on node 1.
    let (lobby, host_token) = create_room(n2.addr, chaturaji()).await;
    let (status, _, body) = http_raw(n1.addr, "GET", &format!("/rooms/{lobby}"), None, None).await;
    assert_eq!(status, 200, "{body}");
    let (status, head, body) =
        http_raw(n2.addr, "GET", &format!("/rooms/{lobby}"), None, None).await;
    let on_n1 = format!("http://{}/rooms/{lobby}", n1.addr);
    assert_eq!(status, 307, "{body}");
    assert!(head.contains(&format!("\r\nlocation: {on_n1}")), "{head}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["error"]["code"], "redirect");
    assert_eq!(body["url"], on_n1.as_str());
    let (status, body) = host(n2.addr, &lobby, "cpu", &host_token).await;
    assert_eq!(status, 307, "{body}");
    assert_eq!(body["url"], format!("{on_n1}/cpu"));
    // Lists, leaderboards and room creation are answered by any node; the list spans the nodes (a
    // new room is listed once a node serves it: here its host's first request claims it).
    let (public, _) = create_room(n1.addr, json!({"game": "chaturaji", "public": true})).await;
    let (mine, _) = create_room(n1.addr, json!({"game": "fourchess", "public": true})).await;
    for (room, on) in [(&public, n1.addr), (&mine, n2.addr)] {
        let (status, _, body) = http_raw(on, "GET", &format!("/rooms/{room}"), None, None).await;
        assert_eq!(status, 200, "{body}");
    }
    for path in ["/rooms", "/leaderboard?pool=chaturaji"] {
        let (status, _, body) = http_raw(n2.addr, "GET", path, None, None).await;
        assert_eq!(status, 200, "{path}: {body}");
    }
    let mut both = vec![public.clone(), mine.clone()];
    both.sort();
    for (asked, scope, listed) in [
        (n1.addr, "", both.clone()),
        (n2.addr, "", both),
        (n2.addr, "?scope=node", vec![mine]),
    ] {
        assert_eq!(
            listed_rooms(asked, scope).await,
            listed,
            "GET /rooms{scope} on {asked}: invite-only rooms never listed"
        );
    }
    // A WebSocket join on node 2 gets a `redirect` to node 1, then a normal close.
    let mut c = Client::connect(n2.addr).await;
    c.send(json!({"t": "join", "room": lobby})).await;
    let m = c.next().await.expect("an answer");
    assert_eq!(
        m,
        json!({"t": "redirect", "room": lobby, "url": format!("ws://{}/ws", n1.addr)})
    );
    assert_eq!(c.closed_with().await, Some(1000));

    // A game made on node 1, its seat joining through node 2, played on node 1.
    let MidGame {
        room,
        token,
        client: mut c,
        served_by,
        seen,
        mut next_ack,
        acked,
    } = reach_mid_game(n1.addr, n2.addr, &chaturaji()).await;
    assert_eq!(served_by, n1.addr, "the redirect was followed to the owner");
    let last_v = c.v;

    // kill -9 of the owner: after its lease, node 2 claims the room and rebuilds it from the log.
    n1.kill9();
    let _ = c.drain_until_close().await;
    let (mut c, welcome, served_by) =
        join_following(n2.addr, &room, Some(&token), Some(last_v)).await;
    assert_eq!(served_by, n2.addr);
    let game = &welcome["snapshot"]["game"];
    assert_eq!(
        game["actions"].as_array().unwrap(),
        &seen.actions,
        "every acknowledged action, once, nothing else"
    );
    assert_eq!(game["to_act"], "red");

    // The last action, resent with its ack id after the failover: acknowledged again, not applied.
    let mut after = Seen {
        actions: seen.actions.clone(),
        dice_commit: seen.dice_commit.clone(),
        ..Seen::default()
    };
    let (old_ack, old_action) = acked.last().cloned().unwrap();
    c.send(json!({"t": "act", "ack": old_ack, "action": old_action}))
        .await;
    let answer = loop {
        let m = c.next().await.expect("connection open");
        after.note(&m);
        if m["t"] == "ack" || m["t"] == "error" || is_event(&m, "acted") {
            break m;
        }
    };
    assert_eq!(answer["t"], "ack", "{answer}");
    assert_eq!(answer["ack"], old_ack);

    // The game goes on on node 2 (unless the dice end it first).
    let more = play(&mut c, &mut after, &mut next_ack, 2).await;
    assert!(more.len() == 2 || after.game_over.is_some());

    let epochs = assert_log_is_sound(&db, &room).await;
    assert_eq!(
        epochs,
        vec![1, 2, 3],
        "node 1 created the room under epoch 1 and served it under 2 (claimed by the first request after the creation handed it back), node 2 under 3"
    );
    let all: Vec<_> = acked.iter().chain(&more).cloned().collect();
    assert_acked_once(&db, &room, &all).await;
    drop((c, n2));
    db.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_owner_is_fenced_when_it_wakes_and_closes_its_clients() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    let n1 = node(&db, SHORT);
    let n2 = node(&db, SHORT);
    let MidGame {
        room,
        token,
        client: mut c,
        seen,
        next_ack,
        acked,
        ..
    } = reach_mid_game(n1.addr, n1.addr, &chaturaji()).await;
    // A game of CPU players on node 1 too: it writes whenever it runs.
    let (busy, busy_host) = create_room(
        n1.addr,
        json!({"game": "chaturaji", "options": {"round_limit": 200}}),
    )
    .await;
    let (status, v) = host(n1.addr, &busy, "start", &busy_host).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        metric(n1.addr, "fourkings_cluster_fenced_appends_total").await,
        0.0
    );

    pause(&n1);
    // Red's next action reaches the paused node: it will try to record it when it wakes.
    let view = seen.view.clone().expect("red is to act");
    let action = view["legal"][0].clone();
    c.send(json!({"t": "act", "ack": next_ack, "action": action}))
        .await;
    // Past the lease, node 2 claims the room for the returning seat.
    let (mut c2, welcome, served_by) = join_following(n2.addr, &room, Some(&token), None).await;
    assert_eq!(served_by, n2.addr);
    assert_eq!(
        welcome["snapshot"]["game"]["actions"].as_array().unwrap(),
        &seen.actions,
        "the action sent to the paused node was never recorded"
    );

    signal(&n1, "-CONT");
    // The woken node cannot write: the room stops there and its client is told to reconnect.
    let (msgs, code) = c.drain_until_close().await;
    assert_eq!(code, Some(1012), "{msgs:?}");
    assert!(
        msgs.iter().all(|m| m["t"] != "ack"),
        "nothing acknowledged after the lease: {msgs:?}"
    );
    // What stopped it: its writes refused under the room's fence, or, when its lease renewal ran
    // before any room wrote (it depends on which task the woken runtime polls first), every room
    // dropped at once.
    let fenced = metric(n1.addr, "fourkings_cluster_fenced_appends_total").await;
    let lease_lost = metric(n1.addr, "fourkings_cluster_lease_lost_total").await;
    assert!(
        fenced > 0.0 || lease_lost > 0.0,
        "the woken node's writes were refused ({fenced}) or it gave its rooms up ({lease_lost})"
    );

    // The same action, sent to the new owner with the same ack id, is applied there once.
    c2.until(|m| m["t"] == "view").await;
    c2.send(json!({"t": "act", "ack": next_ack, "action": action}))
        .await;
    let answer = c2.until(|m| m["t"] == "ack" || m["t"] == "error").await;
    assert_eq!(answer["t"], "ack", "{answer}");
    let epochs = assert_log_is_sound(&db, &room).await;
    // Epoch 1: the creation; 2: node 1 serving it; 3: node 2 after the failover.
    assert_eq!(epochs, vec![1, 2, 3]);
    let mut all = acked.clone();
    all.push((next_ack, action));
    assert_acked_once(&db, &room, &all).await;
    drop((c2, n1, n2));
    db.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drained_node_gives_its_rooms_up_at_once() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    // A lease no test outlives: node 2 can only take the room because node 1 released it.
    let n1 = node(&db, LONG);
    let n2 = node(&db, LONG);
    let MidGame {
        room,
        token,
        client: mut c,
        seen,
        mut next_ack,
        ..
    } = reach_mid_game(n1.addr, n1.addr, &chaturaji()).await;
    let last_v = c.v;
    n1.term();
    assert_eq!(
        c.closed_with().await,
        Some(1012),
        "clients are told to reconnect"
    );
    assert!(n1.wait_exit().success(), "a drain exits 0");

    let (mut c, welcome, served_by) =
        join_following(n2.addr, &room, Some(&token), Some(last_v)).await;
    assert_eq!(served_by, n2.addr, "claimed by the node asked, no redirect");
    assert_eq!(
        welcome["snapshot"]["game"]["actions"].as_array().unwrap(),
        &seen.actions
    );
    // Node 2 writes under the next epoch.
    let mut after = Seen {
        actions: seen.actions.clone(),
        ..Seen::default()
    };
    let more = play(&mut c, &mut after, &mut next_ack, 1).await;
    assert!(more.len() == 1 || after.game_over.is_some());
    if !more.is_empty() {
        assert_eq!(assert_log_is_sound(&db, &room).await, vec![1, 2, 3]);
    }
    drop(c);
    drop(n2);
    db.cleanup().await;
}

/// The pause before each CPU move in [`a_dead_nodes_game_is_adopted_without_anyone_asking`]: the
/// server's default (`timers.cpu_delay_ms`), not the 0 of the other tests. Four CPUs without a
/// pause end a Chaturaji game in 2 to 4 s (46 to 176 log entries seen), less than a busy machine can
/// take between the game's first entries and node 1's kill, or between the kill and node 2's sweep:
/// the game was over, nobody had anything to adopt, and the test timed out. Paced, the shortest game
/// lasts over 10 s while the test needs a few seconds.
const CPU_PACE_MS: u64 = 400;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_nodes_game_is_adopted_without_anyone_asking() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    let paced = [("FOURKINGS_TIMERS__CPU_DELAY_MS", CPU_PACE_MS.to_string())];
    let n1 = node_with(&db, SHORT, &paced);
    let n2 = node_with(&db, SHORT, &paced);
    // Opened before the game starts: nothing slow stands between the game's first entries and the
    // kill.
    let db_cluster = cluster(&db).await;
    let store = db.open().await;
    // Four CPU players on node 1; nobody watches the room.
    let (room, host_token) = create_room(
        n1.addr,
        json!({"game": "chaturaji", "options": {"round_limit": 200}}),
    )
    .await;
    let (status, v) = host(n1.addr, &room, "start", &host_token).await;
    assert_eq!(status, 200, "{v}");
    let log = || async { db_cluster.audit_log(&room).await.unwrap() };
    let before = wait_for(|| async { (log().await.len() > 4).then_some(()) }).await;
    assert!(before.is_some(), "the CPU game is being written on node 1");

    let on_n1 = db_cluster
        .owner(&room)
        .await
        .unwrap()
        .expect("node 1 owns it");
    n1.kill9();
    let game_id = format!("{room}-1");
    assert!(
        store.game(&game_id).await.unwrap().is_none(),
        "the game was still being played when node 1 died ({} entries)",
        log().await.len()
    );
    // After node 1's lease runs out, node 2 sweeps the room up by itself and the game goes on: node 2
    // writes to its log under its own epoch. (Until then node 1's lease still names it the owner.)
    let moved = wait_for(|| async {
        let owner = db_cluster
            .owner(&room)
            .await
            .unwrap()
            .filter(|o| o.node_id != on_n1.node_id)?;
        log()
            .await
            .iter()
            .any(|r| {
                r.writer_node.as_ref() == Some(&owner.node_id)
                    && r.writer_epoch == Some(owner.epoch)
            })
            .then_some(owner)
    })
    .await
    .expect("the game moved to node 2 and went on");
    let (status, _, body) = http_raw(n2.addr, "GET", &format!("/rooms/{room}"), None, None).await;
    assert_eq!(status, 200, "node 2 serves it: {body}");
    assert_eq!(moved.epoch, 3, "creation, node 1, then node 2");
    assert_eq!(assert_log_is_sound(&db, &room).await, vec![1, 2, 3]);
    assert_eq!(metric(n2.addr, "fourkings_cluster_claims_total").await, 1.0);
    store.close().await;
    drop(n2);
    db.cleanup().await;
}

/// Polls `probe` every 100 ms for up to 20 s.
async fn wait_for<T, F, Fut>(probe: F) -> Option<T>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    for _ in 0..200 {
        if let Some(found) = probe().await {
            return Some(found);
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    None
}

#[test]
fn cluster_mode_refuses_sqlite_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_fourkings"))
        .env_remove("DATABASE_URL")
        .env("FOURKINGS_SERVER__LISTEN", "127.0.0.1:0")
        .env(
            "FOURKINGS_DATABASE__URL",
            format!("sqlite://{}/fourkings.db", dir.path().display()),
        )
        .env("FOURKINGS_CLUSTER__ENABLED", "true")
        .env("FOURKINGS_CLUSTER__PUBLIC_URL", "http://127.0.0.1:8080")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("the binary runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cluster.enabled needs a PostgreSQL database.url"),
        "{stderr}"
    );
    assert!(
        !dir.path().join("fourkings.db").exists(),
        "refused before opening anything"
    );
}
