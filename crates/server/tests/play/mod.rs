//! Playing a seat for the tests that run the server binary: what a client saw, a seat that plays its
//! first legal action at each of its turns, and a join that follows cluster redirects.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::support::{Client, create_room, host, is_event, join_seat};

/// What one client saw of the current game.
#[derive(Debug, Default)]
pub struct Seen {
    /// Every `acted` action, in order.
    pub actions: Vec<Value>,
    pub dice_commit: Option<String>,
    pub game_over: Option<Value>,
    pub rated: Option<Value>,
    /// The last `view` for our seat (its version and legal actions), not yet answered.
    pub view: Option<Value>,
}

impl Seen {
    pub fn note(&mut self, m: &Value) {
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
pub async fn pump(c: &mut Client, seen: &mut Seen, mut done: impl FnMut(&Seen, &Value) -> bool) {
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

/// Sends `action` under the next ack id and reads (noting) until it is acknowledged; an `error`
/// fails the test. Returns the ack id.
pub async fn act(c: &mut Client, seen: &mut Seen, next_ack: &mut u64, action: Value) -> u64 {
    let ack = *next_ack;
    *next_ack += 1;
    c.send(json!({"t": "act", "ack": ack, "action": action}))
        .await;
    pump(c, seen, |_, m| {
        assert_ne!(m["t"], "error", "{m}");
        m["t"] == "ack" && m["ack"] == ack
    })
    .await;
    ack
}

/// Plays the seat's first legal action at each of its turns until `acks` actions were acknowledged
/// (or the game ended), then waits for the seat's next turn. Returns the acked (ack id, action)s.
pub async fn play(
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
        let ack = act(c, seen, next_ack, action.clone()).await;
        acked.push((ack, action));
    }
    if seen.game_over.is_none() {
        pump(c, seen, |s, _| s.view.is_some() || s.game_over.is_some()).await;
    }
    acked
}

/// Plays until the game is over.
pub async fn play_to_end(c: &mut Client, seen: &mut Seen, next_ack: &mut u64) {
    while seen.game_over.is_none() {
        play(c, seen, next_ack, 1).await;
    }
}

/// A room whose human seat (red) has three acknowledged actions and is to act again, game not over.
pub struct MidGame {
    pub room: String,
    pub token: String,
    pub client: Client,
    /// The node the client plays on (after redirects).
    pub served_by: SocketAddr,
    pub seen: Seen,
    pub next_ack: u64,
    pub acked: Vec<(u64, Value)>,
}

/// Starts games (REST on `addr`; the seat joins through `ws`, following redirects) until one reaches
/// the point where the test stops a server. The dice are random and red plays its first legal action
/// blindly, so a short game can end (red's king taken) before red acted three times; such a room
/// proves nothing about a restart and is left, not asserted on.
pub async fn reach_mid_game(addr: SocketAddr, ws: SocketAddr, game: &Value) -> MidGame {
    for _ in 0..8 {
        let (room, host_token) = create_room(addr, game.clone()).await;
        let (seat, token) = join_seat(addr, &room, "Ann").await;
        assert_eq!(seat, "red");
        let (mut client, _, served_by) = join_following(ws, &room, Some(&token), None).await;
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
                served_by,
                seen,
                next_ack,
                acked,
            };
        }
    }
    panic!("eight games in a row ended before red's third action");
}

/// A WebSocket to `addr`, or `None` if it cannot be opened within a few seconds (the node is down,
/// or paused: its kernel accepts the connection but nobody answers the upgrade).
pub async fn try_connect(addr: SocketAddr) -> Option<Client> {
    let url = format!("ws://{addr}/ws");
    match tokio::time::timeout(
        Duration::from_secs(3),
        tokio_tungstenite::connect_async(url),
    )
    .await
    {
        Ok(Ok((ws, _))) => Some(Client { ws, v: 0 }),
        _ => None,
    }
}

/// Joins `room` through the node at `entry` as a client does in cluster mode: a `redirect` is
/// followed to the node it names; a node that cannot be reached (or is `unavailable`) sends the
/// client back to `entry` after a pause. Returns the client, its welcome and the node serving it.
pub async fn join_following(
    entry: SocketAddr,
    room: &str,
    token: Option<&str>,
    v: Option<u64>,
) -> (Client, Value, SocketAddr) {
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut target = entry;
    // What the last attempt got, for the failure message.
    let mut last = String::from("nothing yet");
    loop {
        assert!(
            Instant::now() < deadline,
            "no node served room {room} within 90 s; the last attempt: {last}"
        );
        let Some(mut c) = try_connect(target).await else {
            last = format!("no WebSocket to {target} within 3 s");
            target = entry;
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        };
        let mut join = json!({ "t": "join", "room": room });
        if let Some(token) = token {
            join["token"] = json!(token);
        }
        if let Some(v) = v {
            join["v"] = json!(v);
        }
        c.send(join).await;
        let answer = loop {
            match c.next().await {
                Some(m) if matches!(m["t"].as_str(), Some("welcome" | "redirect" | "error")) => {
                    break Some(m);
                }
                Some(_) => {}
                None => break None,
            }
        };
        last = match &answer {
            Some(m) => format!("{target} answered {m}"),
            None => format!("{target} closed the connection without answering"),
        };
        match answer {
            Some(m) if m["t"] == "welcome" => return (c, m, target),
            Some(m) if m["t"] == "redirect" => {
                assert_eq!(m["room"], room, "{m}");
                assert_eq!(
                    c.closed_with().await,
                    Some(1000),
                    "a redirect closes normally"
                );
                let url = m["url"].as_str().expect("a url");
                target = url
                    .strip_prefix("ws://")
                    .and_then(|u| u.strip_suffix("/ws"))
                    .and_then(|a| a.parse().ok())
                    .unwrap_or_else(|| panic!("a ws://host:port/ws URL: {url}"));
            }
            Some(m) => {
                assert_eq!(m["code"], "unavailable", "{m}");
                target = entry;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            None => {
                target = entry;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
}
