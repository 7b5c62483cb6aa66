//! `fourkings-loadgen`: opens N rooms × 4 seats against a running server over loopback, plays real
//! legal moves (picked from each seat's `view`) at a set cadence per room, and reports connections held,
//! actions per second, act→event latency percentiles and the server's memory per connection.
//!
//! Bounded: it stops after `--seconds` (and every connection it opened closes). The per-process open
//! file limit caps one process near 20,000 sockets, so run several processes (each with its own rooms)
//! to go past a few thousand connections: the server counts them all.
#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use clap::Parser;
use futures_util::{SinkExt, StreamExt};
use rand::seq::IndexedRandom;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Mutex;
use tokio_tungstenite::tungstenite::Message;

#[derive(Debug, Parser)]
#[command(about = "Load generator for a running fourkings server (loopback only)")]
struct Args {
    /// The server's address (loopback).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Rooms to open; each gets four seated connections.
    #[arg(long, default_value_t = 10)]
    rooms: usize,
    /// Each room plays one action per this many milliseconds.
    #[arg(long, default_value_t = 1000)]
    cadence_ms: u64,
    /// Stop after this many seconds of play.
    #[arg(long, default_value_t = 20)]
    seconds: u64,
    /// `chaturaji` or `fourchess`.
    #[arg(long, default_value = "fourchess")]
    game: String,
    /// The server's process id, to report its memory (VmRSS) per connection.
    #[arg(long)]
    server_pid: Option<u32>,
}

#[derive(Debug, Default)]
struct Stats {
    actions: AtomicU64,
    connections: AtomicUsize,
    errors: AtomicU64,
    latencies_us: Mutex<Vec<u64>>,
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> anyhow::Result<Value> {
    let mut stream = TcpStream::connect(addr).await?;
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await?;
    let raw = String::from_utf8(raw)?;
    let (head, rest) = raw
        .split_once("\r\n\r\n")
        .ok_or_else(|| anyhow::anyhow!("no response"))?;
    if !head.starts_with("HTTP/1.1 200") {
        anyhow::bail!("{method} {path}: {head} {rest}");
    }
    Ok(serde_json::from_str(rest)?)
}

/// One seat: join, act on every current view after the room's cadence, measure act→event.
async fn seat(
    args: Arc<Args>,
    stats: Arc<Stats>,
    room: String,
    token: String,
    host_token: Option<String>,
    next_slot: Arc<Mutex<Instant>>,
    stop: Instant,
) -> anyhow::Result<()> {
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws", args.addr)).await?;
    ws.send(Message::Text(
        json!({"t": "join", "room": room, "token": token})
            .to_string()
            .into(),
    ))
    .await?;
    stats.connections.fetch_add(1, Ordering::Relaxed);
    let cadence = Duration::from_millis(args.cadence_ms);
    let mut v = 0u64;
    let mut my_seat = String::new();
    let mut sent: Option<(u64, Instant)> = None;
    let mut ack = 0u64;
    let mut view: Option<Value> = None;
    loop {
        let remaining = stop.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            break;
        }
        // Act when a current view is there and it is this room's slot.
        if let (Some(w), None) = (&view, &sent) {
            if w["v"].as_u64() == Some(v) {
                let slot = {
                    let mut next = next_slot.lock().await;
                    let slot = (*next).max(Instant::now());
                    *next = slot + cadence;
                    slot
                };
                tokio::time::sleep_until(slot.into()).await;
                let legal = w["legal"].as_array().cloned().unwrap_or_default();
                let action = legal.choose(&mut rand::rng()).cloned();
                view = None;
                if let Some(action) = action {
                    ack += 1;
                    sent = Some((ack, Instant::now()));
                    ws.send(Message::Text(
                        json!({"t": "act", "ack": ack, "action": action})
                            .to_string()
                            .into(),
                    ))
                    .await?;
                }
                continue;
            }
        }
        let msg = match tokio::time::timeout(remaining, ws.next()).await {
            Err(_) => break,
            Ok(None) => break,
            Ok(Some(msg)) => msg?,
        };
        let Message::Text(text) = msg else { continue };
        let m: Value = serde_json::from_str(&text)?;
        match m["t"].as_str().unwrap_or("") {
            "welcome" => {
                v = m["v"].as_u64().unwrap_or(0);
                my_seat = m["seat"].as_str().unwrap_or("").to_owned();
            }
            "event" => {
                v = m["v"].as_u64().unwrap_or(v);
                let e = &m["event"];
                if e["e"] == "acted" && e["by"] == "human" && e["seat"] == my_seat.as_str() {
                    if let Some((_, at)) = sent.take() {
                        stats
                            .latencies_us
                            .lock()
                            .await
                            .push(at.elapsed().as_micros() as u64);
                        stats.actions.fetch_add(1, Ordering::Relaxed);
                    }
                }
                if e["e"] == "game_over" {
                    if let Some(host_token) = &host_token {
                        let _ = http(
                            args.addr,
                            "POST",
                            &format!("/rooms/{room}/rematch"),
                            Some(host_token),
                            "{}",
                        )
                        .await;
                    }
                }
            }
            "view" => view = Some(m),
            "error" => {
                stats.errors.fetch_add(1, Ordering::Relaxed);
                sent = None;
            }
            _ => {}
        }
    }
    let _ = ws.close(None).await;
    Ok(())
}

async fn open_room(args: &Args) -> anyhow::Result<(String, String, Vec<String>)> {
    let options = if args.game == "fourchess" {
        json!({"mode": "ffa"})
    } else {
        json!({})
    };
    let created = http(
        args.addr,
        "POST",
        "/rooms",
        None,
        &json!({"game": args.game, "options": options}).to_string(),
    )
    .await?;
    let room = created["room"].as_str().unwrap_or_default().to_owned();
    let host_token = created["host_token"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let mut tokens = Vec::new();
    for i in 0..4 {
        let joined = http(
            args.addr,
            "POST",
            &format!("/rooms/{room}/join"),
            None,
            &json!({"name": format!("load{i}")}).to_string(),
        )
        .await?;
        tokens.push(joined["seat_token"].as_str().unwrap_or_default().to_owned());
    }
    Ok((room, host_token, tokens))
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Arc::new(Args::parse());
    anyhow::ensure!(
        args.addr.ip().is_loopback(),
        "the load generator only targets loopback addresses"
    );
    let stats = Arc::new(Stats::default());
    let rss_before = args.server_pid.and_then(rss_kib);
    let setup_until = Instant::now() + Duration::from_secs(args.seconds.max(1) * 4);
    let mut rooms = Vec::new();
    for _ in 0..args.rooms {
        anyhow::ensure!(Instant::now() < setup_until, "setup took too long");
        rooms.push(open_room(&args).await?);
    }
    let stop = Instant::now() + Duration::from_secs(args.seconds) + Duration::from_secs(5);
    let mut tasks = Vec::new();
    for (room, host_token, tokens) in &rooms {
        let slot = Arc::new(Mutex::new(Instant::now()));
        for (i, token) in tokens.iter().enumerate() {
            tasks.push(tokio::spawn(seat(
                args.clone(),
                stats.clone(),
                room.clone(),
                token.clone(),
                (i == 0).then(|| host_token.clone()),
                slot.clone(),
                stop,
            )));
        }
    }
    // Start every room once its seats are connected.
    while stats.connections.load(Ordering::Relaxed) < rooms.len() * 4 && Instant::now() < stop {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let held = stats.connections.load(Ordering::Relaxed);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss_held = args.server_pid.and_then(rss_kib);
    for (room, host_token, _) in &rooms {
        http(
            args.addr,
            "POST",
            &format!("/rooms/{room}/start"),
            Some(host_token),
            "{}",
        )
        .await?;
    }
    let began = Instant::now();
    stats.latencies_us.lock().await.clear();
    stats.actions.store(0, Ordering::Relaxed);
    for task in tasks {
        let _ = task.await;
    }
    let elapsed = began.elapsed().as_secs_f64();
    let mut lat = std::mem::take(&mut *stats.latencies_us.lock().await);
    lat.sort_unstable();
    let actions = stats.actions.load(Ordering::Relaxed);
    println!("rooms {}  connections held {held}", rooms.len());
    println!(
        "actions {actions} in {elapsed:.1} s = {:.1} actions/s  (errors {})",
        actions as f64 / elapsed,
        stats.errors.load(Ordering::Relaxed)
    );
    println!(
        "act->event latency ms: p50 {:.2}  p95 {:.2}  p99 {:.2}  max {:.2}",
        percentile(&lat, 0.50),
        percentile(&lat, 0.95),
        percentile(&lat, 0.99),
        percentile(&lat, 1.0)
    );
    if let (Some(before), Some(after)) = (rss_before, rss_held) {
        println!(
            "server RSS {before} KiB -> {after} KiB with the connections held: {:.1} KiB per connection",
            (after.saturating_sub(before)) as f64 / held.max(1) as f64
        );
    }
    Ok(())
}
