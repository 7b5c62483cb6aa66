//! Persistence for real: the BUILT server binary on a SQLite file, `kill -9`ed mid-game and started
//! again (clients resume with their seat tokens, nothing lost or repeated, same dice stream), a lobby
//! room and a rated game across restarts, and a PostgreSQL outage through a TCP proxy the test owns.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

#[allow(dead_code)]
#[path = "e2e/support.rs"]
mod support;

// The store tests' harness (fresh PostgreSQL databases, the TCP proxy); it allows its own dead code.
#[path = "../../store/tests/common/mod.rs"]
mod common;

use support::{Client, create_room, host, http, is_event, post};

/// The server binary running on the database in `dir`; killed with SIGKILL on drop.
struct ServerProc {
    child: Child,
    addr: SocketAddr,
}

impl ServerProc {
    fn start(dir: &Path) -> ServerProc {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fourkings"))
            .env_remove("DATABASE_URL")
            .env("FOURKINGS_SERVER__LISTEN", "127.0.0.1:0")
            .env(
                "FOURKINGS_DATABASE__URL",
                format!("sqlite://{}/fourkings.db", dir.display()),
            )
            .env(
                "FOURKINGS_DATABASE__SPOOL_PATH",
                format!("{}/log-spool.jsonl", dir.display()),
            )
            .env("FOURKINGS_TIMERS__CPU_DELAY_MS", "0")
            .env("FOURKINGS_TIMERS__GRACE_MS", "60000")
            // The rating test expects the filled seats at level 1 (`cpu:easy`).
            .env("FOURKINGS_BOTS__FILL_LEVEL", "1")
            .env("FOURKINGS_TIMERS__PING_INTERVAL_MS", "60000")
            .env("FOURKINGS_TIMERS__IDLE_TIMEOUT_MS", "180000")
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the server binary starts");
        let stdout = child.stdout.take().expect("piped");
        let (tx, rx) = std::sync::mpsc::channel();
        // Keep reading stdout for the process's whole life, so that it never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(rest) = line.strip_prefix("fourkings listening on ") {
                    let addr = rest.split(": open").next().unwrap_or("").to_owned();
                    let _ = tx.send(addr);
                }
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("the server says where it listens")
            .parse()
            .expect("an address");
        ServerProc { child, addr }
    }

    /// SIGKILL: no shutdown code runs.
    fn kill9(mut self) {
        self.child.kill().expect("kill -9");
        self.child.wait().expect("reaped");
    }

    /// SIGTERM: the graceful stop begins (the process closes its sockets, then exits).
    fn term(&self) {
        let sent = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success());
    }

    /// How the process exited; panics if it is still running 15 s from now (its own limit,
    /// `server.shutdown_timeout_ms`, is 10 s).
    fn wait_exit(mut self) -> std::process::ExitStatus {
        let deadline = std::time::Instant::now() + Duration::from_secs(15);
        loop {
            if let Some(status) = self.child.try_wait().expect("waitable") {
                return status;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "still running 15 s after SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// How the first server process ends mid-game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// `kill -9`: a crash; nothing runs.
    Kill9,
    /// SIGTERM: clients get close 1012 (service restart) and the process exits 0.
    Term,
}

impl Drop for ServerProc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What one client saw of the current game.
#[derive(Debug, Default)]
struct Seen {
    /// Every `acted` action, in order.
    actions: Vec<Value>,
    dice_commit: Option<String>,
    game_over: Option<Value>,
    rated: Option<Value>,
    /// The last `view` for our seat (its version and legal actions), not yet answered.
    view: Option<Value>,
}

impl Seen {
    fn note(&mut self, m: &Value) {
        if is_event(m, "game_started") {
            self.dice_commit = m["event"]["dice_commit"].as_str().map(str::to_owned);
        } else if is_event(m, "acted") {
            self.actions.push(m["event"]["action"].clone());
            self.view = None;
        } else if is_event(m, "game_over") {
            self.game_over = Some(m["event"].clone());
            self.view = None;
        } else if is_event(m, "rated") {
            self.rated = Some(m["event"].clone());
        } else if m["t"] == "view" {
            self.view = Some(m.clone());
        }
    }
}

/// Reads messages (noting them) until `done` holds.
async fn pump(c: &mut Client, seen: &mut Seen, mut done: impl FnMut(&Seen, &Value) -> bool) {
    // What was already seen may satisfy it (a `view` arrives before the `ack` of the action that led
    // to it).
    if done(seen, &Value::Null) {
        return;
    }
    loop {
        let m = c.next().await.expect("connection open");
        seen.note(&m);
        if done(seen, &m) {
            return;
        }
    }
}

/// Plays the seat's first legal action at each of its turns until `acks` actions were acknowledged
/// (or the game ended), then waits for the seat's next turn. Returns the acked (ack id, action)s.
async fn play(
    c: &mut Client,
    seen: &mut Seen,
    next_ack: &mut u64,
    acks: usize,
) -> Vec<(u64, Value)> {
    let mut acked = Vec::new();
    while acked.len() < acks && seen.game_over.is_none() {
        pump(c, seen, |s, _| s.view.is_some() || s.game_over.is_some()).await;
        let Some(view) = seen.view.take() else { break };
        let action = view["legal"][0].clone();
        let ack = *next_ack;
        *next_ack += 1;
        c.send(json!({"t": "act", "ack": ack, "action": action}))
            .await;
        pump(c, seen, |_, m| {
            assert_ne!(m["t"], "error", "{m}");
            m["t"] == "ack" && m["ack"] == ack
        })
        .await;
        acked.push((ack, action));
    }
    if seen.game_over.is_none() {
        pump(c, seen, |s, _| s.view.is_some() || s.game_over.is_some()).await;
    }
    acked
}

/// Plays until the game is over.
async fn play_to_end(c: &mut Client, seen: &mut Seen, next_ack: &mut u64) {
    while seen.game_over.is_none() {
        play(c, seen, next_ack, 1).await;
    }
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

/// A room whose human seat (red) has three acknowledged actions and is to act again, game not over.
struct MidGame {
    room: String,
    token: String,
    client: Client,
    seen: Seen,
    next_ack: u64,
    acked: Vec<(u64, Value)>,
}

/// Starts games until one reaches the point where the test stops the server. The dice are random and
/// red plays its first legal action blindly, so a short game can end (red's king taken) before red
/// acted three times; such a room proves nothing about a restart and is left, not asserted on.
async fn reach_mid_game(addr: SocketAddr, game: &Value) -> MidGame {
    for _ in 0..8 {
        let (room, host_token) = create_room(addr, game.clone()).await;
        let (seat, token) = support::join_seat(addr, &room, "Ann").await;
        assert_eq!(seat, "red");
        let mut client = Client::connect(addr).await;
        client.join(&room, Some(&token), None).await;
        let (status, v) = host(addr, &room, "start", &host_token).await;
        assert_eq!(status, 200, "{v}");
        let mut seen = Seen::default();
        let mut next_ack = 1;
        let acked = play(&mut client, &mut seen, &mut next_ack, 3).await;
        if seen.game_over.is_none() {
            assert_eq!(acked.len(), 3);
            return MidGame {
                room,
                token,
                client,
                seen,
                next_ack,
                acked,
            };
        }
    }
    panic!("eight games in a row ended before red's third action");
}

async fn stop_mid_game(game: Value, stop: Stop) {
    let dir = tempfile::tempdir().unwrap();
    let server = ServerProc::start(dir.path());
    let addr = server.addr;
    let MidGame {
        room,
        token,
        client: mut c,
        seen,
        mut next_ack,
        acked,
    } = reach_mid_game(addr, &game).await;
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

    let server = ServerProc::start(dir.path());
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
    let store = store::open(&format!("sqlite://{}/fourkings.db", dir.path().display()))
        .await
        .unwrap();
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
    let server = ServerProc::start(dir.path());
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

    let server = ServerProc::start(dir.path());
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
    assert_eq!(players, ["cpu:easy", "cpu:medium", player_id.as_str()]);
    server.kill9();

    // A restart rebuilds the finished room and offers its game for recording again: written once.
    let server = ServerProc::start(dir.path());
    let (status, _) = http(server.addr, "GET", &format!("/rooms/{room}"), None, None).await;
    assert_eq!(status, 200);
    tokio::time::sleep(Duration::from_millis(500)).await;
    server.kill9();
    let store = store::open(&format!("sqlite://{}/fourkings.db", dir.path().display()))
        .await
        .unwrap();
    let profile = store.profile(&player_id, 10).await.unwrap().unwrap();
    assert_eq!(profile.history.len(), 1, "rated exactly once");
    assert_eq!(profile.ratings.len(), 1);
    assert_eq!(profile.ratings[0].games, 1);
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
    assert_eq!(record.rating_changes.len(), 2, "Ann and cpu:easy");
    let profile = store.profile(&player_id, 10).await.unwrap().unwrap();
    assert_eq!(profile.history.len(), 1, "rated exactly once");
    store.close().await;
    db.cleanup().await;
}
