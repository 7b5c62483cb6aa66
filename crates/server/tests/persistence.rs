//! Persistence for real: the BUILT server binary on a SQLite file, `kill -9`ed mid-game and started
//! again (clients resume with their seat tokens, nothing lost or repeated, same dice stream), a lobby
//! room and a rated game across restarts, and a PostgreSQL outage through a TCP proxy the test owns.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

#[allow(dead_code)]
#[path = "e2e/support.rs"]
mod support;

// The store tests' harness (fresh PostgreSQL databases, the TCP proxy); it allows its own dead code.
#[path = "../../store/tests/common/mod.rs"]
mod common;

#[allow(dead_code)]
mod play;
mod process;

use play::{MidGame, Seen, play, play_to_end, pump, reach_mid_game};
use process::ServerProc;
use support::{Client, create_room, host, http, post};

/// The server binary on the SQLite file and spool in `dir`.
fn start_server(dir: &Path) -> ServerProc {
    ServerProc::start(&[
        (
            "FOURKINGS_DATABASE__URL",
            format!("sqlite://{}/fourkings.db", dir.display()),
        ),
        (
            "FOURKINGS_DATABASE__SPOOL_PATH",
            format!("{}/log-spool.jsonl", dir.display()),
        ),
        // The rating test expects the filled seats at level 1 (`cpu:easy`).
        ("FOURKINGS_BOTS__FILL_LEVEL", "1".into()),
        // The seat plays its first legal action, which may be a pass: count the game all the same.
        ("FOURKINGS_RATINGS__MIN_MOVES", "0".into()),
    ])
}

/// How the first server process ends mid-game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// `kill -9`: a crash; nothing runs.
    Kill9,
    /// SIGTERM: clients get close 1012 (service restart) and the process exits 0.
    Term,
}

/// Checks every dice throw of a finished Chaturaji game against the revealed seed and its commit.
fn assert_dice_follow_the_seed(actions: &[Value], commit: &str, seed: &str) {
    let throws: Vec<[u8; 2]> = actions
        .iter()
        .filter(|a| a["type"] == "roll")
        .map(|a| serde_json::from_value(a["dice"].clone()).unwrap())
        .collect();
    assert!(!throws.is_empty());
    let expected = room::dice::verify(seed, commit, 1, 6, throws.len()).expect("seed matches");
    assert_eq!(
        throws, expected,
        "the throws are the seed's stream, in order"
    );
}

/// Polls until the store has recorded the game; returns its record.
async fn recorded_game(store: &std::sync::Arc<dyn store::Store>, id: &str) -> store::GameRecord {
    for _ in 0..200 {
        if let Some(g) = store.game(id).await.unwrap() {
            return g;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("game {id} was never recorded");
}

/// Joins with the seat token and the version seen before a restart: a snapshot must come, and its
/// game must be exactly the one the client saw (every acked action, nothing more, nothing repeated).
async fn resume_after_restart(
    addr: SocketAddr,
    room: &str,
    token: &str,
    before: &Seen,
    last_v: u64,
) -> (Client, Value) {
    let mut c = Client::connect(addr).await;
    let welcome = c.join(room, Some(token), Some(last_v)).await;
    let snapshot = welcome["snapshot"].clone();
    assert!(
        snapshot.is_object(),
        "a resume across a restart gets a snapshot: {welcome}"
    );
    assert!(
        welcome["v"].as_u64().unwrap() > last_v,
        "versions continue higher"
    );
    let game = &snapshot["game"];
    assert_eq!(game["actions"].as_array().unwrap(), &before.actions);
    assert_eq!(
        game["dice_commit"].as_str().map(str::to_owned),
        before.dice_commit
    );
    (c, snapshot)
}

async fn stop_mid_game(game: Value, stop: Stop) {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(dir.path());
    let addr = server.addr;
    let MidGame {
        room,
        token,
        client: mut c,
        seen,
        mut next_ack,
        acked,
        ..
    } = reach_mid_game(addr, addr, &game).await;
    // Red is to act and everything the client saw is acknowledged: stop the server right now.
    let last_v = c.v;
    match stop {
        Stop::Kill9 => server.kill9(),
        Stop::Term => {
            server.term();
            assert_eq!(
                c.closed_with().await,
                Some(1012),
                "clients are told to reconnect (service restart)"
            );
            let status = server.wait_exit();
            assert!(status.success(), "a graceful stop exits 0: {status}");
        }
    }

    let server = start_server(dir.path());
    let addr = server.addr;
    let (mut c, snapshot) = resume_after_restart(addr, &room, &token, &seen, last_v).await;
    assert_eq!(snapshot["room"]["seats"][0]["name"], "Ann");
    assert_eq!(snapshot["game"]["to_act"], "red");
    // An action acknowledged before the crash and resent with its ack id is acked, not re-applied.
    let (old_ack, old_action) = acked[0].clone();
    c.send(json!({"t": "act", "ack": old_ack, "action": old_action}))
        .await;
    let mut after = Seen {
        actions: seen.actions.clone(),
        dice_commit: seen.dice_commit.clone(),
        ..Seen::default()
    };
    pump(&mut c, &mut after, |_, m| {
        assert_ne!(m["t"], "error", "{m}");
        m["t"] == "ack" && m["ack"] == old_ack
    })
    .await;
    assert_eq!(after.actions, seen.actions, "nothing applied twice");

    // The game goes on from there to its end.
    play_to_end(&mut c, &mut after, &mut next_ack).await;
    let over = after.game_over.clone().unwrap();
    if let Some(commit) = &after.dice_commit {
        // The dice before and after the restart are one stream: the seed committed at the start.
        assert_dice_follow_the_seed(&after.actions, commit, over["dice_seed"].as_str().unwrap());
    }
    // The server records the finished game right after `game_over`.

    // The finished game is in the database with every action, once.
    let store = open_beside(&dir).await;
    let record = recorded_game(&store, &format!("{room}-1")).await;
    let actions: Vec<Value> = record.game.record["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["action"].clone())
        .collect();
    assert_eq!(actions, after.actions);
    let log = store.load_log(&room, 1).await.unwrap();
    assert_eq!(log.len(), after.actions.len(), "one log entry per action");
    store.close().await;
    server.kill9();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_chaturaji_game_resumes_with_the_same_dice() {
    stop_mid_game(
        json!({"game": "chaturaji", "options": {"round_limit": 3}}),
        Stop::Kill9,
    )
    .await;
}

/// Issue #8: SIGTERM mid-game, start again on the same database, the client resumes its game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_mid_chaturaji_game_then_restart_resumes_it() {
    stop_mid_game(
        json!({"game": "chaturaji", "options": {"round_limit": 3}}),
        Stop::Term,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_fourchess_game_resumes_where_it_stopped() {
    stop_mid_game(
        json!({"game": "fourchess", "options": {"mode": "ffa", "move_limit": 24}}),
        Stop::Kill9,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lobby_survives_a_restart_and_a_rated_game_rates_once() {
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(dir.path());
    let addr = server.addr;
    let (status, player) = post(addr, "/players", None, json!({"display_name": "Ann"})).await;
    assert_eq!(status, 200, "{player}");
    let player_id = player["player_id"].as_str().unwrap().to_owned();
    let secret = player["secret"].as_str().unwrap().to_owned();
    let (room, host_token) = create_room(
        addr,
        json!({"game": "chaturaji", "rated": true, "options": {"round_limit": 1}}),
    )
    .await;
    let (status, joined) = post(
        addr,
        &format!("/rooms/{room}/join"),
        None,
        json!({"name": "Ann", "player_id": player_id, "player_secret": secret}),
    )
    .await;
    assert_eq!(status, 200, "{joined}");
    let token = joined["seat_token"].as_str().unwrap().to_owned();
    let (status, v) = post(
        addr,
        &format!("/rooms/{room}/cpu"),
        Some(&host_token),
        json!({"seat": "blue", "level": 2}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    server.kill9();

    let server = start_server(dir.path());
    let addr = server.addr;
    let (status, info) = http(addr, "GET", &format!("/rooms/{room}"), None, None).await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["phase"], "lobby");
    assert_eq!(
        info["seats"][0],
        json!({"kind": "human", "name": "Ann", "connected": false, "cpu_playing": false})
    );
    assert_eq!(info["seats"][1], json!({"kind": "cpu", "level": 2}));
    assert_eq!(info["seats"][2], json!({"kind": "empty"}));
    // A wrong player secret is refused and takes no seat.
    let (status, err) = post(
        addr,
        &format!("/rooms/{room}/join"),
        None,
        json!({"name": "Eve", "player_id": player_id, "player_secret": "0".repeat(64)}),
    )
    .await;
    assert_eq!((status, &err["error"]["code"]), (403, &json!("bad_token")));
    // The seat token and the host token still work.
    let mut c = Client::connect(addr).await;
    c.join(&room, Some(&token), None).await;
    let (status, v) = host(addr, &room, "start", &host_token).await;
    assert_eq!(status, 200, "{v}");
    let mut seen = Seen::default();
    let mut next_ack = 1;
    play_to_end(&mut c, &mut seen, &mut next_ack).await;
    pump(&mut c, &mut seen, |s, _| s.rated.is_some()).await;
    let rated = seen.rated.clone().unwrap();
    assert_eq!(rated["game_id"], format!("{room}-1"));
    let mut players: Vec<&str> = rated["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["player_id"].as_str().unwrap())
        .collect();
    players.sort_unstable();
    assert_eq!(
        players,
        ["cpu:easy", "cpu:easy", "cpu:medium", player_id.as_str()],
        "one change per seat"
    );
    server.kill9();

    // A restart rebuilds the finished room and offers its game for recording again: written once.
    let server = start_server(dir.path());
    let (status, _) = http(server.addr, "GET", &format!("/rooms/{room}"), None, None).await;
    assert_eq!(status, 200);
    tokio::time::sleep(Duration::from_millis(500)).await;
    server.kill9();
    let store = open_beside(&dir).await;
    let profile = store.profile(&player_id, 10).await.unwrap().unwrap();
    assert_eq!(profile.history.len(), 1, "rated exactly once");
    assert_eq!(profile.ratings.len(), 1);
    assert_eq!(profile.ratings[0].games, 1);
    store.close().await;
}

/// A restart rebuilds the rooms that live (a game in progress, a lobby active within
/// `rooms.lobby_idle_ms`) and closes the expired ones without rebuilding them (abuse #1: a room
/// flood must not be rebuilt at every start).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_rebuilds_live_rooms_and_closes_expired_lobbies() {
    let dir = tempfile::tempdir().unwrap();
    let idle = ("FOURKINGS_ROOMS__LOBBY_IDLE_MS", "1500".to_owned());
    let start = |dir: &Path| {
        let mut env = vec![
            (
                "FOURKINGS_DATABASE__URL",
                format!("sqlite://{}/fourkings.db", dir.display()),
            ),
            (
                "FOURKINGS_DATABASE__SPOOL_PATH",
                format!("{}/log-spool.jsonl", dir.display()),
            ),
        ];
        env.push(idle.clone());
        ServerProc::start(&env)
    };
    let server = start(dir.path());
    let addr = server.addr;
    let (stale, _) = create_room(addr, json!({"game": "chaturaji"})).await;
    let (playing, host_token) = create_room(addr, json!({"game": "chaturaji"})).await;
    let (status, joined) = post(
        addr,
        &format!("/rooms/{playing}/join"),
        None,
        json!({"name": "Ann"}),
    )
    .await;
    assert_eq!(status, 200, "{joined}");
    let (status, v) = host(addr, &playing, "start", &host_token).await;
    assert_eq!(status, 200, "{v}");
    server.kill9();
    // Both rooms are older than a lobby may idle; only the one with a game in progress lives on.
    tokio::time::sleep(Duration::from_millis(2000)).await;
    let server = start(dir.path());
    let addr = server.addr;
    let (status, info) = http(addr, "GET", &format!("/rooms/{playing}"), None, None).await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["phase"], "playing");
    let (status, err) = http(addr, "GET", &format!("/rooms/{stale}"), None, None).await;
    assert_eq!(
        (status, &err["error"]["code"]),
        (404, &json!("unknown_room"))
    );
    server.kill9();
    let store = open_beside(&dir).await;
    assert_eq!(
        store.room(&stale).await.unwrap().unwrap().state,
        store::RoomState::Closed,
        "marked closed, not left to be loaded at the next start"
    );
    store.close().await;
}

async fn readyz(addr: SocketAddr) -> (u16, Value) {
    http(addr, "GET", "/readyz", None, None).await
}

async fn wait_readyz(addr: SocketAddr, want: u16) -> Value {
    for _ in 0..300 {
        let (status, body) = readyz(addr).await;
        if status == want {
            return body;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("/readyz never answered {want}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_outage_mid_game_loses_nothing_and_records_once() {
    let Some(db) = common::TestDb::postgres().await else {
        return;
    };
    let (prefix, upstream, rest) = common::split_pg_url(db.url());
    let proxy = common::Proxy::start(upstream).await;
    let dir = tempfile::tempdir().unwrap();
    let mut config = support::test_config();
    config.database.url = format!("{prefix}127.0.0.1:{}{rest}", proxy.port);
    config.database.spool_path = format!("{}/log-spool.jsonl", dir.path().display());
    config.database.write_timeout_ms = 500;
    config.database.connect_timeout_ms = 1000;
    config.ratings.min_moves = 0;
    let addr = support::start(config).await;
    assert_eq!(readyz(addr).await.0, 200);

    let (_, player) = post(addr, "/players", None, json!({"display_name": "Ann"})).await;
    let player_id = player["player_id"].as_str().unwrap().to_owned();
    let (room, host_token) = create_room(
        addr,
        json!({"game": "chaturaji", "rated": true, "options": {"round_limit": 2}}),
    )
    .await;
    let (status, joined) = post(
        addr,
        &format!("/rooms/{room}/join"),
        None,
        json!({"name": "Ann", "player_id": player_id, "player_secret": player["secret"]}),
    )
    .await;
    assert_eq!(status, 200, "{joined}");
    let token = joined["seat_token"].as_str().unwrap();
    let mut c = Client::connect(addr).await;
    c.join(&room, Some(token), None).await;
    assert_eq!(host(addr, &room, "start", &host_token).await.0, 200);
    let mut seen = Seen::default();
    let mut next_ack = 1;
    play(&mut c, &mut seen, &mut next_ack, 1).await;

    // Cut the database: the game goes on (from the spool) and the server says it is not ready.
    proxy.cut().await;
    play_to_end(&mut c, &mut seen, &mut next_ack).await;
    let body = wait_readyz(addr, 503).await;
    assert_eq!(body["ready"], false, "{body}");
    assert!(body["reason"].is_string(), "{body}");
    assert!(
        seen.rated.is_none(),
        "nothing is rated before the result is in the database"
    );

    // Restore: the spool drains, the finished game is recorded and rated once.
    proxy.restore().await;
    wait_readyz(addr, 200).await;
    pump(&mut c, &mut seen, |s, _| s.rated.is_some()).await;

    let store = db.open().await;
    let log = store.load_log(&room, 1).await.unwrap();
    let logged: Vec<Value> = log.iter().map(|e| e.payload["action"].clone()).collect();
    assert_eq!(
        logged, seen.actions,
        "every acked action and throw reached the database, in order"
    );
    let record = recorded_game(&store, &format!("{room}-1")).await;
    assert_eq!(
        record.rating_changes.len(),
        4,
        "Ann and three CPU seats, each its own participant"
    );
    let profile = store.profile(&player_id, 10).await.unwrap().unwrap();
    assert_eq!(profile.history.len(), 1, "rated exactly once");
    store.close().await;
    db.cleanup().await;
}

/// The nice values of the server's SQLite connection threads (Linux: field 19 of a thread's stat).
fn sqlite_thread_nices(pid: u32) -> Vec<i64> {
    let mut nices = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .flatten()
    {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if !comm.starts_with("sqlx-sqlite") {
            continue;
        }
        let stat = std::fs::read_to_string(task.path().join("stat")).unwrap_or_default();
        // The command name in parentheses may hold spaces: count fields after its closing one.
        let after = &stat[stat.rfind(')').map_or(0, |i| i + 2)..];
        if let Some(nice) = after.split(' ').nth(16).and_then(|n| n.parse().ok()) {
            nices.push(nice);
        }
    }
    nices
}

/// A room of four CPU players runs on the CPU lane at nice 19 (`room::lane`); a database
/// connection opened for it (here: marking the room closed, after the pool let its idle connections
/// go) must not inherit that priority, or it would then serve every human at nice 19.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn database_work_of_a_cpu_lane_room_runs_at_the_servers_priority() {
    let dir = tempfile::tempdir().unwrap();
    let mut env = vec![
        (
            "FOURKINGS_DATABASE__URL",
            format!("sqlite://{}/fourkings.db", dir.path().display()),
        ),
        (
            "FOURKINGS_DATABASE__SPOOL_PATH",
            format!("{}/log-spool.jsonl", dir.path().display()),
        ),
    ];
    env.push(("FOURKINGS_DATABASE__POOL_IDLE_MS", "100".into()));
    env.push(("FOURKINGS_ROOMS__LOBBY_IDLE_MS", "1500".into()));
    let server = ServerProc::start(&env);
    let addr = server.addr;
    let (room, host_token) = create_room(addr, json!({"game": "chaturaji"})).await;
    for seat in ["red", "blue", "yellow", "green"] {
        let (status, v) = post(
            addr,
            &format!("/rooms/{room}/cpu"),
            Some(&host_token),
            json!({"seat": seat, "level": 1}),
        )
        .await;
        assert_eq!(status, 200, "{v}");
    }
    assert_eq!(
        support::metric(addr, "fourkings_rooms_on_cpu_lane").await,
        1.0
    );
    // The lobby closes when idle; the pool has let its idle connections go by then.
    let mut closed = false;
    for _ in 0..200 {
        if support::metric(addr, "fourkings_rooms_on_cpu_lane").await == 0.0 {
            closed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(closed, "the idle lobby closed");
    // Marking it closed in the database follows the room's end.
    let store = open_beside(&dir).await;
    let mut marked = false;
    for _ in 0..200 {
        let row = store
            .room(&room)
            .await
            .unwrap()
            .expect("the room is stored");
        if row.state == store::RoomState::Closed {
            marked = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(marked, "the room was marked closed");
    let nices = sqlite_thread_nices(server.child.id());
    assert!(!nices.is_empty(), "the server has SQLite threads");
    assert!(
        nices.iter().all(|n| *n == 0),
        "SQLite connection threads at nice {nices:?}"
    );
}

/// The server's database, opened to read beside the running server (nothing written, so nothing
/// meets the server's own writer).
async fn open_beside(dir: &tempfile::TempDir) -> std::sync::Arc<dyn store::Store> {
    let url = format!("sqlite://{}/fourkings.db", dir.path().display());
    store::open_to_read(&url).await.unwrap()
}
