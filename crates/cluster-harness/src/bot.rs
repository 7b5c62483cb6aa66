//! One seat's client in a cluster run: it connects to a random node, follows redirects, plays a random
//! legal action from each current `view` after a short think, and records every ack and every action
//! it saw. When its connection breaks (closed, refused, or silent: a paused node sends nothing, not
//! even pings) it reconnects to a random node with its seat token and last `v`, and resends the action
//! still waiting for its ack with the SAME ack id: the server must ack it once and apply it once.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

use crate::checker::{Acked, Seen, Segment};
use testkit::http::split_url;
use testkit::rest::call;

/// A connection attempt that has not been welcomed (or redirected) by then is abandoned: a paused
/// node completes TCP handshakes from its backlog and then says nothing.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// After this many redirects in a row, slow down: the owner the nodes point at is not answering yet
/// (a killed node's lease still runs; its restarted self redirects to its own URL until then).
const REDIRECTS_BEFORE_BACKOFF: u32 = 3;

/// What every seat client shares.
#[derive(Debug)]
pub struct Ctx {
    /// Each node's public URL (`http://ip:port`) and REST address, by node index.
    pub nodes: Vec<(String, SocketAddr)>,
    /// Mean think time before an action.
    pub think: Duration,
    /// No frame at all (the nodes ping every few hundred ms) for this long: the connection is dead.
    pub silence: Duration,
    /// No event in the room for this long while connected: rejoin (a stuck room shows up as
    /// `watchdog_rejoins` in the report instead of hanging the run).
    pub watchdog: Duration,
}

/// The WebSocket URL for a room on a node, from the node's base URL (`ws://ip:port`) or a redirect's
/// (`ws://ip:port/ws`, maybe with a query). The room id rides in the query so that a load balancer can
/// hash on it (docs/cluster/nginx.conf); the server ignores the query.
/// A node's `http://` public URL works too (`ws://` is put in its place).
pub fn ws_url(base: &str, room: &str) -> String {
    let base = base.split('?').next().unwrap_or(base).trim_end_matches('/');
    let base = base.strip_suffix("/ws").unwrap_or(base);
    let base = if let Some(rest) = base.strip_prefix("http://") {
        format!("ws://{rest}")
    } else if let Some(rest) = base.strip_prefix("https://") {
        format!("wss://{rest}")
    } else {
        base.to_owned()
    };
    format!("{base}/ws?room={room}")
}

/// One seat to play.
#[derive(Debug, Clone)]
pub struct SeatPlan {
    pub room: String,
    pub token: String,
    /// The room's host token, held by one client per room: it asks for a rematch after each game.
    pub host_token: Option<String>,
    pub seed: u64,
}

/// Everything one seat's client measured and recorded.
#[derive(Debug, Default)]
pub struct SeatReport {
    pub seen: Seen,
    /// Connection lost → welcomed again, microseconds.
    pub reconnects_us: Vec<u64>,
    pub sessions: u64,
    pub redirects: u64,
    pub actions_sent: u64,
    pub resends: u64,
    /// Resends answered with an ack.
    pub resends_acked: u64,
    pub events: u64,
    pub watchdog_rejoins: u64,
    pub errors: BTreeMap<String, u64>,
}

/// An action to send when its think time is over.
#[derive(Debug)]
struct Planned {
    at: Instant,
    /// The view's version: the action is sent only if nothing happened since (a newer view follows).
    v: Option<u64>,
    action: Value,
    /// A resend keeps its ack id.
    ack: Option<u64>,
}

/// How a session with one node ended.
enum End {
    Redirect(String),
    Lost,
    Rejoin,
    Stopped,
}

struct SeatClient {
    ctx: Arc<Ctx>,
    plan: SeatPlan,
    rng: StdRng,
    report: SeatReport,
    v: Option<u64>,
    next_ack: u64,
    /// Sent, not yet acked or refused.
    pending: Option<(u64, Value)>,
    resent: Option<u64>,
    /// The latest view: its version and legal actions. Kept because it may arrive before the ack of
    /// the previous action (a Chaturaji turn has several actions): the decision waits for the ack.
    view: Option<(Option<u64>, Vec<Value>)>,
    planned: Option<Planned>,
    lost_at: Option<Instant>,
}

/// Plays the seat until `stop` turns true; returns what it recorded.
pub async fn play(ctx: Arc<Ctx>, plan: SeatPlan, mut stop: watch::Receiver<bool>) -> SeatReport {
    let mut client = SeatClient {
        rng: StdRng::seed_from_u64(plan.seed),
        report: SeatReport {
            seen: Seen {
                room: plan.room.clone(),
                ..Seen::default()
            },
            ..SeatReport::default()
        },
        ctx,
        plan,
        v: None,
        next_ack: 1,
        pending: None,
        resent: None,
        view: None,
        planned: None,
        lost_at: None,
    };
    let mut target: Option<String> = None;
    let mut redirects_in_a_row = 0u32;
    while !*stop.borrow() {
        let url = match target.take() {
            Some(url) => url,
            None => {
                let i = client.rng.random_range(0..client.ctx.nodes.len());
                client.ctx.nodes[i].0.clone()
            }
        };
        let end = client.session(&url, &mut stop).await;
        let pause = match end {
            End::Stopped => break,
            End::Redirect(to) => {
                client.report.redirects += 1;
                redirects_in_a_row += 1;
                target = Some(to);
                (redirects_in_a_row > REDIRECTS_BEFORE_BACKOFF).then_some(200..600)
            }
            End::Lost => {
                redirects_in_a_row = 0;
                client.lost_at.get_or_insert_with(Instant::now);
                Some(50..300)
            }
            End::Rejoin => {
                client.report.watchdog_rejoins += 1;
                None
            }
        };
        if let Some(ms) = pause {
            let ms = client.rng.random_range(ms);
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(ms)) => {}
                _ = stop.changed() => {}
            }
        }
    }
    client.report
}

impl SeatClient {
    fn error(&mut self, code: &str) {
        *self.report.errors.entry(code.to_owned()).or_default() += 1;
    }

    async fn session(&mut self, base: &str, stop: &mut watch::Receiver<bool>) -> End {
        let url = ws_url(base, &self.plan.room);
        let connected =
            tokio::time::timeout(CONNECT_TIMEOUT, tokio_tungstenite::connect_async(url)).await;
        let Ok(Ok((mut ws, _))) = connected else {
            return End::Lost;
        };
        self.report.sessions += 1;
        let mut join = json!({"t": "join", "room": self.plan.room, "token": self.plan.token});
        if let Some(v) = self.v {
            join["v"] = json!(v);
        }
        if ws
            .send(Message::Text(join.to_string().into()))
            .await
            .is_err()
        {
            return End::Lost;
        }
        let opened = Instant::now();
        let mut welcomed = false;
        let mut last_frame = Instant::now();
        let mut last_event = Instant::now();
        loop {
            let mut wake = last_frame + self.ctx.silence;
            if !welcomed {
                wake = wake.min(opened + CONNECT_TIMEOUT);
            }
            wake = wake.min(last_event + self.ctx.watchdog);
            if let Some(p) = &self.planned {
                wake = wake.min(p.at);
            }
            tokio::select! {
                _ = stop.changed() => {
                    let _ = ws.close(None).await;
                    return End::Stopped;
                }
                msg = ws.next() => {
                    let text = match msg {
                        None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return End::Lost,
                        Some(Ok(Message::Text(text))) => text,
                        Some(Ok(_)) => {
                            last_frame = Instant::now();
                            continue;
                        }
                    };
                    last_frame = Instant::now();
                    let Ok(m) = serde_json::from_str::<Value>(&text) else {
                        self.error("unparsable_frame");
                        continue;
                    };
                    let t = m["t"].as_str().unwrap_or("");
                    if t == "event" {
                        last_event = last_frame;
                    }
                    if t == "welcome" {
                        welcomed = true;
                        last_event = last_frame;
                    }
                    if let Some(end) = self.on_frame(t, &m, &mut ws).await {
                        return end;
                    }
                }
                () = tokio::time::sleep_until(wake) => {
                    let now = Instant::now();
                    if now >= last_frame + self.ctx.silence || (!welcomed && now >= opened + CONNECT_TIMEOUT) {
                        return End::Lost;
                    }
                    if now >= last_event + self.ctx.watchdog {
                        return End::Rejoin;
                    }
                    if self.planned.as_ref().is_some_and(|p| now >= p.at) {
                        let p = self.planned.take().expect("checked");
                        if !self.send_planned(p, &mut ws).await {
                            return End::Lost;
                        }
                    }
                }
            }
        }
    }

    /// Sends a planned action (a fresh one only if its view is still current).
    async fn send_planned<S>(&mut self, p: Planned, ws: &mut S) -> bool
    where
        S: SinkExt<Message> + Unpin,
    {
        let ack = match p.ack {
            Some(ack) => ack,
            None => {
                if p.v != self.v || self.pending.is_some() {
                    return true;
                }
                let ack = self.next_ack;
                self.next_ack += 1;
                self.pending = Some((ack, p.action.clone()));
                self.report.actions_sent += 1;
                ack
            }
        };
        let act = json!({"t": "act", "ack": ack, "action": p.action});
        ws.send(Message::Text(act.to_string().into())).await.is_ok()
    }

    async fn on_frame<S>(&mut self, t: &str, m: &Value, ws: &mut S) -> Option<End>
    where
        S: SinkExt<Message> + Unpin,
    {
        match t {
            "welcome" => {
                if let Some(lost) = self.lost_at.take() {
                    self.report
                        .reconnects_us
                        .push(lost.elapsed().as_micros() as u64);
                }
                self.report.seen.seat = m["seat"].as_str().map(str::to_owned);
                self.v = m["v"].as_u64();
                self.planned = None;
                self.view = None;
                if let Some(game) = m["snapshot"]["game"].as_object() {
                    self.report.seen.segments.push(Segment {
                        game_no: game.get("game_no").and_then(Value::as_u64).unwrap_or(0) as u32,
                        start: 0,
                        actions: game
                            .get("actions")
                            .and_then(Value::as_array)
                            .cloned()
                            .unwrap_or_default(),
                    });
                }
                // Whatever was sent and not answered goes again with its ack id: the new owner
                // either finds it in the log (ack again) or never got it (apply it now).
                if let Some((ack, action)) = self.pending.clone() {
                    self.report.resends += 1;
                    self.resent = Some(ack);
                    let act = json!({"t": "act", "ack": ack, "action": action});
                    if ws
                        .send(Message::Text(act.to_string().into()))
                        .await
                        .is_err()
                    {
                        return Some(End::Lost);
                    }
                }
            }
            "redirect" => {
                let url = m["url"].as_str().unwrap_or_default().to_owned();
                return Some(if split_url(&url).is_some() {
                    End::Redirect(url)
                } else {
                    self.error("bad_redirect");
                    End::Lost
                });
            }
            "event" => {
                self.report.events += 1;
                self.v = m["v"].as_u64().or(self.v);
                let e = &m["event"];
                match e["e"].as_str().unwrap_or("") {
                    "game_started" => self.report.seen.segments.push(Segment {
                        game_no: e["game_no"].as_u64().unwrap_or(0) as u32,
                        start: 0,
                        actions: Vec::new(),
                    }),
                    "acted" => {
                        if let Some(segment) = self.report.seen.segments.last_mut() {
                            segment.actions.push(e["action"].clone());
                        }
                    }
                    "game_over" => {
                        if let Some(host) = self.plan.host_token.clone() {
                            self.rematch(host);
                        }
                    }
                    _ => {}
                }
            }
            "view" => {
                let legal = m["legal"].as_array().cloned().unwrap_or_default();
                self.view = Some((m["v"].as_u64(), legal));
                // A newer view replaces a decision not sent yet.
                if self.planned.as_ref().is_some_and(|p| p.ack.is_none()) {
                    self.planned = None;
                }
                self.decide();
            }
            "ack" => {
                let ack = m["ack"].as_u64();
                if let Some((pending, action)) = self.pending.clone() {
                    if Some(pending) == ack {
                        self.pending = None;
                        self.report.seen.acks.push(Acked {
                            ack: pending,
                            action,
                        });
                        if self.resent.take() == Some(pending) {
                            self.report.resends_acked += 1;
                        }
                        self.decide();
                    }
                }
            }
            "error" => {
                let code = m["code"].as_str().unwrap_or("unknown").to_owned();
                self.error(&code);
                let ack = m["ack"].as_u64();
                match (&self.pending, ack) {
                    (Some((pending, action)), Some(ack)) if *pending == ack => {
                        if code == "unavailable" {
                            // Not durable yet (the database is out of reach): the same action with
                            // the same ack id again in a while.
                            self.planned = Some(Planned {
                                at: Instant::now() + Duration::from_millis(500),
                                v: None,
                                action: action.clone(),
                                ack: Some(ack),
                            });
                        } else {
                            // Refused (the game moved on while we were away): never acked, never
                            // applied; the next view brings a fresh decision.
                            self.pending = None;
                            self.resent = None;
                            self.decide();
                        }
                    }
                    (_, None) => {
                        // The join itself was refused (e.g. `unavailable` while the room moves):
                        // try again, elsewhere.
                        return Some(End::Lost);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        None
    }

    /// Picks a random legal action of the current view, to send after a think time, when nothing is
    /// waiting for its answer.
    fn decide(&mut self) {
        if self.pending.is_some() || self.planned.is_some() {
            return;
        }
        let Some((v, legal)) = &self.view else { return };
        if *v != self.v {
            return;
        }
        let v = *v;
        let Some(action) = legal.choose(&mut self.rng).cloned() else {
            return;
        };
        let mean = self.ctx.think.as_millis() as u64;
        let think = self.rng.random_range(0..=mean.saturating_mul(2));
        self.planned = Some(Planned {
            at: Instant::now() + Duration::from_millis(think),
            v,
            action,
            ack: None,
        });
    }

    /// The host asks for the next game, from any node (REST follows the redirect to the owner).
    fn rematch(&mut self, host_token: String) {
        let i = self.rng.random_range(0..self.ctx.nodes.len());
        let nodes: Vec<SocketAddr> = self.ctx.nodes.iter().map(|n| n.1).collect();
        let room = self.plan.room.clone();
        tokio::spawn(async move {
            for attempt in 0..10 {
                tokio::time::sleep(Duration::from_millis(300)).await;
                let addr = nodes[(i + attempt) % nodes.len()];
                let path = format!("/rooms/{room}/rematch");
                if call(addr, "POST", &path, Some(&host_token), "{}")
                    .await
                    .is_ok()
                {
                    return;
                }
            }
        });
    }
}

/// A spectator's join (no seat token) on `base`, following at most one redirect: how long until the
/// welcome, and whether it was redirected.
pub async fn spectator_join(base: &str, room: &str) -> anyhow::Result<(Duration, bool)> {
    let began = Instant::now();
    let mut url = base.to_owned();
    for hop in 0..2 {
        let (mut ws, _) = tokio::time::timeout(
            CONNECT_TIMEOUT,
            tokio_tungstenite::connect_async(ws_url(&url, room)),
        )
        .await??;
        let join = json!({"t": "join", "room": room});
        ws.send(Message::Text(join.to_string().into())).await?;
        loop {
            let msg = tokio::time::timeout(CONNECT_TIMEOUT, ws.next())
                .await?
                .ok_or_else(|| anyhow::anyhow!("closed before the welcome"))??;
            let Message::Text(text) = msg else { continue };
            let m: Value = serde_json::from_str(&text)?;
            match m["t"].as_str() {
                Some("welcome") => {
                    let _ = ws.close(None).await;
                    return Ok((began.elapsed(), hop == 1));
                }
                Some("redirect") => {
                    url = m["url"].as_str().unwrap_or_default().to_owned();
                    break;
                }
                Some("error") => anyhow::bail!("join refused: {m}"),
                _ => {}
            }
        }
    }
    anyhow::bail!("redirected twice")
}

#[cfg(test)]
mod tests {
    use super::ws_url;

    #[test]
    fn the_room_rides_in_the_query() {
        for base in [
            "ws://127.0.0.1:7000",
            "ws://127.0.0.1:7000/",
            "ws://127.0.0.1:7000/ws",
            "ws://127.0.0.1:7000/ws?room=old",
            "http://127.0.0.1:7000",
        ] {
            assert_eq!(ws_url(base, "abc"), "ws://127.0.0.1:7000/ws?room=abc");
        }
    }
}
