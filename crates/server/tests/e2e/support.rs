//! A real server on port 0, the REST calls over testkit's HTTP client, and real WebSocket clients.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use server::{Application, Config};

pub const WAIT: Duration = Duration::from_secs(10);

/// Defaults for tests: port 0, no CPU pause, short timers.
pub fn test_config() -> Config {
    let mut config = Config::defaults();
    config.server.listen = "127.0.0.1:0".into();
    config.timers.cpu_delay_ms = 0;
    config.timers.grace_ms = 60_000;
    // Server pings would keep a stuck test's reads alive; keep them out of the way.
    config.timers.ping_interval_ms = 60_000;
    config.timers.idle_timeout_ms = 180_000;
    // One test plays many clients from one address: the per-client limits are set high here, and
    // the tests of the limits (abuse.rs) set them low.
    config.limits.rest_write_burst = 10_000;
    config.limits.rest_read_burst = 10_000;
    config.limits.max_open_lobbies_per_client = 10_000;
    config.limits.max_connections_per_ip = 10_000;
    // Quick CPU players: the levels keep their algorithms, with tiny budgets.
    config.bots.easy_ms = 2;
    config.bots.medium_ms = 2;
    config.bots.hard_ms = 2;
    // Every test server gets its own SQLite file and spool in a fresh folder.
    let dir = tempfile::tempdir().expect("a temp dir").keep();
    config.database.url = format!("sqlite://{}/fourkings.db", dir.display());
    config.database.spool_path = format!("{}/log-spool.jsonl", dir.display());
    config
}

pub async fn start(config: Config) -> SocketAddr {
    let app = Application::build(config).await.expect("binds");
    let addr = app.addr();
    tokio::spawn(app.run());
    addr
}

/// A server reading and writing `store` (the test keeps it to insert data).
pub async fn start_with_store(config: Config, store: Arc<dyn store::Store>) -> SocketAddr {
    let app = Application::build_with_store(config, store)
        .await
        .expect("binds");
    let addr = app.addr();
    tokio::spawn(app.run());
    addr
}

/// The value of one series in `/metrics` (0 when absent, so a test fails on its absence by
/// asserting an increase).
pub async fn metric(addr: SocketAddr, series: &str) -> f64 {
    let (status, body) = http(addr, "GET", "/metrics", None, None).await;
    assert_eq!(status, 200);
    let text = body.as_str().unwrap_or_default().to_owned();
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or(0.0)
}

/// One HTTP/1.1 request with `Connection: close`; the status and the JSON body.
pub async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> (u16, Value) {
    let (status, _, payload) = http_raw(addr, method, path, token, body).await;
    let value = serde_json::from_str(&payload).unwrap_or(Value::String(payload));
    (status, value)
}

/// One HTTP/1.1 request with `Connection: close`; the status, the head (lower-cased) and the body.
pub async fn http_raw(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> (u16, String, String) {
    let answer = testkit::http::request(addr, method, path, token, body.unwrap_or(""))
        .await
        .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
    (answer.status, answer.head.to_ascii_lowercase(), answer.body)
}

pub async fn post(addr: SocketAddr, path: &str, token: Option<&str>, body: Value) -> (u16, Value) {
    http(addr, "POST", path, token, Some(&body.to_string())).await
}

/// Create a room; (room id, host token).
pub async fn create_room(addr: SocketAddr, body: Value) -> (String, String) {
    let (status, v) = post(addr, "/rooms", None, body).await;
    assert_eq!(status, 200, "{v}");
    (
        v["room"].as_str().unwrap().to_owned(),
        v["host_token"].as_str().unwrap().to_owned(),
    )
}

/// The ids `GET /rooms{query}` lists, in its order.
pub async fn listed_rooms(addr: SocketAddr, query: &str) -> Vec<String> {
    let (status, list) = http(addr, "GET", &format!("/rooms{query}"), None, None).await;
    assert_eq!(status, 200, "{list}");
    list["rooms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Take a seat; (seat name, seat token).
pub async fn join_seat(addr: SocketAddr, room: &str, name: &str) -> (String, String) {
    let (status, v) = post(
        addr,
        &format!("/rooms/{room}/join"),
        None,
        json!({ "name": name }),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    (
        v["seat"].as_str().unwrap().to_owned(),
        v["seat_token"].as_str().unwrap().to_owned(),
    )
}

/// A finished game's document from `GET /games/{id}`, once written (just after its `game_over`).
pub async fn game_record(addr: SocketAddr, game_id: &str) -> Value {
    for _ in 0..100 {
        let (status, body) = http(addr, "GET", &format!("/games/{game_id}"), None, None).await;
        if status == 200 {
            return body;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("game {game_id} was not recorded in time");
}

pub async fn host(addr: SocketAddr, room: &str, what: &str, token: &str) -> (u16, Value) {
    post(
        addr,
        &format!("/rooms/{room}/{what}"),
        Some(token),
        json!({}),
    )
    .await
}

pub struct Client {
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// The last event version seen.
    pub v: u64,
}

impl Client {
    pub async fn connect(addr: SocketAddr) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
            .await
            .expect("upgrades");
        Client { ws, v: 0 }
    }

    pub async fn send(&mut self, msg: Value) {
        self.send_text(msg.to_string()).await;
    }

    pub async fn send_text(&mut self, text: String) {
        self.ws
            .send(Message::Text(text.into()))
            .await
            .expect("sends");
    }

    /// The next JSON message (tracking event versions), or `None` when the connection closed.
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            let msg = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .expect("a message in time")?;
            match msg.ok()? {
                Message::Text(t) => {
                    let v: Value = serde_json::from_str(&t).expect("server sends JSON");
                    // Every server message parses into the protocol types.
                    serde_json::from_value::<protocol::ServerMsg>(v.clone())
                        .unwrap_or_else(|e| panic!("{e}: {v}"));
                    match v["t"].as_str() {
                        Some("event") => {
                            let n = v["v"].as_u64().unwrap();
                            assert_eq!(n, self.v + 1, "events arrive in order without gaps: {v}");
                            self.v = n;
                        }
                        // A snapshot is the state at the welcome's `v`. Without one (a resume)
                        // the missed events (the client's `v`+1 … the welcome's `v`) follow, so
                        // the client stays at the version it resumed from (`join`).
                        Some("welcome") if !v["snapshot"].is_null() => {
                            self.v = v["v"].as_u64().unwrap();
                        }
                        _ => {}
                    }
                    return Some(v);
                }
                Message::Close(_) => return None,
                _ => continue,
            }
        }
    }

    /// Read until a message satisfies `pred`; returns it.
    pub async fn until(&mut self, mut pred: impl FnMut(&Value) -> bool) -> Value {
        loop {
            let msg = self.next().await.expect("connection open");
            if pred(&msg) {
                return msg;
            }
        }
    }

    /// Join and return the welcome.
    pub async fn join(&mut self, room: &str, token: Option<&str>, v: Option<u64>) -> Value {
        let mut msg = json!({ "t": "join", "room": room });
        if let Some(token) = token {
            msg["token"] = json!(token);
        }
        if let Some(v) = v {
            msg["v"] = json!(v);
            // A resume: the missed events follow the welcome from `v`+1 on (`next`).
            self.v = v;
        }
        self.send(msg).await;
        let welcome = self
            .until(|m| m["t"] == "welcome" || m["t"] == "error")
            .await;
        assert_eq!(welcome["t"], "welcome", "{welcome}");
        welcome
    }

    /// Read every message until the connection closes; the messages and the close code.
    pub async fn drain_until_close(&mut self) -> (Vec<Value>, Option<u16>) {
        let mut msgs = Vec::new();
        loop {
            let msg = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .expect("closes in time");
            match msg {
                Some(Ok(Message::Text(t))) => msgs.push(serde_json::from_str(&t).unwrap()),
                Some(Ok(Message::Close(frame))) => {
                    return (msgs, frame.map(|f| u16::from(f.code)));
                }
                None | Some(Err(_)) => return (msgs, None),
                Some(Ok(_)) => {}
            }
        }
    }

    /// Read until `stop` matches a message (no close) or the connection closes (its code).
    pub async fn drain_until_close_or(
        &mut self,
        stop: impl Fn(&Value) -> bool,
    ) -> (Vec<Value>, Option<u16>) {
        let mut msgs = Vec::new();
        loop {
            let msg = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .expect("a message in time");
            match msg {
                Some(Ok(Message::Text(t))) => {
                    let m: Value = serde_json::from_str(&t).unwrap();
                    let done = stop(&m);
                    msgs.push(m);
                    if done {
                        return (msgs, None);
                    }
                }
                Some(Ok(Message::Close(frame))) => {
                    return (msgs, frame.map(|f| u16::from(f.code)));
                }
                None | Some(Err(_)) => return (msgs, None),
                Some(Ok(_)) => {}
            }
        }
    }

    /// Wait for the close frame and return its code.
    pub async fn closed_with(&mut self) -> Option<u16> {
        loop {
            let msg = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .expect("closes in time");
            match msg {
                Some(Ok(Message::Close(Some(frame)))) => return Some(u16::from(frame.code)),
                Some(Ok(Message::Close(None))) | None | Some(Err(_)) => return None,
                Some(Ok(_)) => continue,
            }
        }
    }
}

pub fn is_event(m: &Value, e: &str) -> bool {
    m["t"] == "event" && m["event"]["e"] == e
}
