//! The real `fourkings` binary and SIGTERM: every client gets close 1012 (service restart), the
//! process exits 0 within `server.shutdown_timeout_ms`, and its JSON log lines about the room carry
//! the room id.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::*;

/// The server process and every line it printed (stdout: the banner and the JSON logs).
struct Server {
    child: Child,
    addr: SocketAddr,
    lines: Arc<Mutex<Vec<String>>>,
    /// Reads the server's stdout into `lines` until the pipe closes (the process exited).
    reader: Option<std::thread::JoinHandle<()>>,
    /// Its own database and spool: the default `data/fourkings.db` would sit in the source tree and
    /// be shared with any other server started from the same directory (two of them migrating one
    /// file at once fail with "table players already exists").
    _data: tempfile::TempDir,
}

impl Server {
    fn start(envs: &[(&str, &str)]) -> Server {
        let data = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_fourkings"))
            .arg("serve")
            .env_remove("DATABASE_URL")
            .env(
                "FOURKINGS_DATABASE__URL",
                format!("sqlite://{}/fourkings.db", data.path().display()),
            )
            .env(
                "FOURKINGS_DATABASE__SPOOL_PATH",
                format!("{}/spool.jsonl", data.path().display()),
            )
            .env("FOURKINGS_SERVER__LISTEN", "127.0.0.1:0")
            .env("FOURKINGS_TIMERS__CPU_DELAY_MS", "0")
            .env("FOURKINGS_TIMERS__PING_INTERVAL_MS", "60000")
            .env("FOURKINGS_TIMERS__IDLE_TIMEOUT_MS", "180000")
            .env_remove("RUST_LOG")
            .envs(envs.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the binary starts");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn({
            let lines = lines.clone();
            // Keep reading so the server never blocks on a full pipe.
            move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if let Some(rest) = line.strip_prefix("fourkings listening on ") {
                        let addr: SocketAddr =
                            rest.split(": open").next().unwrap().parse().unwrap();
                        let _ = addr_tx.send(addr);
                    }
                    lines.lock().unwrap().push(line);
                }
            }
        });
        let addr = addr_rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the server prints its address");
        Server {
            child,
            addr,
            lines,
            reader: Some(reader),
            _data: data,
        }
    }

    fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits for the exit; its status and how long it took. Every line the process printed is in
    /// `lines` when this returns (the reader may still be behind when the process exits).
    fn wait_exit(&mut self, limit: Duration) -> (std::process::ExitStatus, Duration) {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let took = start.elapsed();
                if let Some(reader) = self.reader.take() {
                    reader.join().expect("the stdout reader ends with the pipe");
                }
                return (status, took);
            }
            if start.elapsed() > limit {
                let _ = self.child.kill();
                panic!("still running {limit:?} after the signal");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn json_lines(&self) -> Vec<Value> {
        self.lines
            .lock()
            .unwrap()
            .iter()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// The `room` of a JSON log line: a field of the event, or of one of its spans.
fn room_of(line: &Value) -> Option<&str> {
    line["fields"]["room"].as_str().or_else(|| {
        line["spans"]
            .as_array()?
            .iter()
            .find_map(|s| s["room"].as_str())
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_closes_clients_with_1012_and_exits_0_in_time() {
    let timeout_ms = 5_000;
    let mut server = Server::start(&[
        ("FOURKINGS_SERVER__SHUTDOWN_TIMEOUT_MS", "5000"),
        ("FOURKINGS_LOG__FORMAT", "json"),
        ("FOURKINGS_LOG__FILTER", "info,server=debug,room=debug"),
    ]);
    let addr = server.addr;

    // Four players and a spectator; the game starts and the first player moves.
    let (room, host_token) = create_room(
        addr,
        json!({"game": "fourchess", "options": {"mode": "teams"}}),
    )
    .await;
    let mut players = Vec::new();
    for name in ["Ann", "Bo", "Cy", "Di"] {
        let (_, token) = join_seat(addr, &room, name).await;
        let mut c = Client::connect(addr).await;
        c.join(&room, Some(&token), None).await;
        players.push(c);
    }
    let mut watcher = Client::connect(addr).await;
    watcher.join(&room, None, None).await;
    let (status, v) = host(addr, &room, "start", &host_token).await;
    assert_eq!(status, 200, "{v}");
    let view = players[0].until(|m| m["t"] == "view").await;
    let action = view["legal"][0].clone();
    players[0]
        .send(json!({"t": "act", "ack": 1, "action": action}))
        .await;
    players[0].until(|m| m["t"] == "ack").await;

    server.signal("TERM");
    let mut clients: Vec<&mut Client> = players.iter_mut().collect();
    clients.push(&mut watcher);
    for c in clients {
        let (_, code) = c.drain_until_close().await;
        assert_eq!(code, Some(1012), "close code: service restart");
    }
    let (status, took) = server.wait_exit(Duration::from_millis(timeout_ms + 5_000));
    assert!(status.success(), "{status:?}");
    assert!(took < Duration::from_millis(timeout_ms), "{took:?}");

    // The log: JSON lines; every connection's close and every request about the room carry its id.
    let lines = server.json_lines();
    assert!(lines.len() > 10, "{lines:?}");
    let closes: Vec<&Value> = lines
        .iter()
        .filter(|l| l["fields"]["message"] == "closing the connection")
        .collect();
    assert_eq!(closes.len(), 5, "{closes:?}");
    for line in closes {
        assert_eq!(line["fields"]["code"], 1012);
        assert_eq!(room_of(line), Some(room.as_str()), "{line}");
    }
    let joins = lines
        .iter()
        .filter(|l| l["fields"]["message"] == "joined")
        .inspect(|l| assert_eq!(room_of(l), Some(room.as_str()), "{l}"))
        .count();
    assert_eq!(joins, 5);
    let requests = lines
        .iter()
        .filter(|l| {
            l["fields"]["message"] == "request"
                && l["span"]["path"]
                    .as_str()
                    .is_some_and(|p| p.starts_with("/rooms/"))
        })
        .inspect(|l| assert_eq!(room_of(l), Some(room.as_str()), "{l}"))
        .count();
    assert!(requests >= 5, "join ×4 and start");
    assert!(
        lines.iter().any(|l| l["fields"]["message"] == "stopped"),
        "the shutdown is logged"
    );
}
