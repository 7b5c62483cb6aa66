//! `fourkings-abuse`: the project's own abuse probes (issue 18, docs/security.md). Against a running
//! server on loopback, it plays each attack for a bounded time from its own loopback address
//! (127.0.0.2, so that the per-client limits tell it from the legitimate client) while
//! `fourkings-loadgen` plays real games from 127.0.0.1 beside it, and prints the legitimate client's
//! act→event latency with each attack against the same run with no attack.
//!
//! Every attack is bounded in time (`--seconds`) and in count (`--max-sockets`); nothing leaves the
//! loopback interface.

use std::net::{IpAddr, SocketAddr};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::Parser;
use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::Message;

#[derive(Debug, Clone, Parser)]
#[command(about = "Abuse probes against a running fourkings server (loopback only)")]
struct Args {
    /// The server's address (loopback).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// The attacker's own loopback address (any of 127.0.0.0/8 on Linux).
    #[arg(long, default_value = "127.0.0.2")]
    from: IpAddr,
    /// Seconds each attack (and each measurement beside it) lasts.
    #[arg(long, default_value_t = 8)]
    seconds: u64,
    /// Rooms the legitimate client plays (four seats each).
    #[arg(long, default_value_t = 2)]
    rooms: usize,
    /// Sockets an attack that holds connections opens at most.
    #[arg(long, default_value_t = 400)]
    max_sockets: usize,
    /// Only these attacks (comma-separated names); all by default.
    #[arg(long)]
    only: Option<String>,
}

/// What an attack saw: requests or frames sent, and how the server answered them.
#[derive(Debug, Default)]
struct Tally {
    sent: AtomicU64,
    refused: AtomicU64,
    closed: AtomicU64,
    bytes_in: AtomicU64,
}

impl Tally {
    fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }

    fn line(&self) -> String {
        format!(
            "sent {}  refused {}  closed by server {}  answer bytes {}",
            self.sent.load(Ordering::Relaxed),
            self.refused.load(Ordering::Relaxed),
            self.closed.load(Ordering::Relaxed),
            self.bytes_in.load(Ordering::Relaxed)
        )
    }
}

const ATTACKS: [&str; 10] = [
    "room-flood",
    "big-body",
    "list-flood",
    "player-flood",
    "slowloris",
    "idle-ws",
    "binary-flood",
    "big-frames",
    "ping-flood",
    "reconnect-churn",
];

async fn connect(args: &Args) -> std::io::Result<TcpStream> {
    let socket = match args.from {
        IpAddr::V4(_) => TcpSocket::new_v4()?,
        IpAddr::V6(_) => TcpSocket::new_v6()?,
    };
    socket.bind(SocketAddr::new(args.from, 0))?;
    socket.connect(args.addr).await
}

/// One HTTP/1.1 request; the status (0 when the connection failed) and the answer's size.
async fn request(args: &Args, method: &str, path: &str, body: &str) -> (u16, usize) {
    let Ok(mut stream) = connect(args).await else {
        return (0, 0);
    };
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        args.addr,
        body.len()
    );
    if stream.write_all(head.as_bytes()).await.is_err() {
        return (0, 0);
    }
    let _ = stream.write_all(body.as_bytes()).await;
    let mut raw = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut raw)).await;
    let status = std::str::from_utf8(&raw[..raw.len().min(16)])
        .ok()
        .and_then(|s| s.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, raw.len())
}

/// Requests in a loop from `workers` tasks until `until`.
async fn flood(
    args: &Args,
    tally: &Tally,
    until: Instant,
    workers: usize,
    method: &str,
    path: &str,
    body: String,
) {
    let body = Arc::new(body);
    futures_util::future::join_all((0..workers).map(|_| {
        let body = body.clone();
        async move {
            while Instant::now() < until {
                let (status, bytes) = request(args, method, path, &body).await;
                Tally::add(&tally.sent, 1);
                Tally::add(&tally.bytes_in, bytes as u64);
                if status != 200 {
                    Tally::add(&tally.refused, 1);
                    if status == 0 {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                }
            }
        }
    }))
    .await;
}

async fn websocket(args: &Args) -> Option<tokio_tungstenite::WebSocketStream<TcpStream>> {
    let stream = connect(args).await.ok()?;
    let (ws, _) = tokio_tungstenite::client_async(format!("ws://{}/ws", args.addr), stream)
        .await
        .ok()?;
    Some(ws)
}

/// Sockets held open, each driven by `hold` until `until`; at most `--max-sockets`.
async fn hold_sockets<F, Fut>(args: &Args, tally: &Tally, until: Instant, hold: F)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let mut held = Vec::new();
    while held.len() < args.max_sockets && Instant::now() < until {
        held.push(hold());
        Tally::add(&tally.sent, 1);
    }
    let closed = futures_util::future::join_all(held).await;
    Tally::add(&tally.closed, closed.iter().filter(|c| **c).count() as u64);
}

async fn attack(name: &str, args: &Args, tally: &Tally) {
    let until = Instant::now() + Duration::from_secs(args.seconds);
    let left = || until.saturating_duration_since(Instant::now());
    match name {
        "room-flood" => {
            flood(
                args,
                tally,
                until,
                8,
                "POST",
                "/rooms",
                r#"{"game":"chaturaji","public":true}"#.into(),
            )
            .await
        }
        "big-body" => {
            // ~1.4 MB of unknown option keys.
            let keys: Vec<String> = (0..100_000).map(|i| format!("\"k{i}\":1")).collect();
            let body = format!(r#"{{"game":"chaturaji","options":{{{}}}}}"#, keys.join(","));
            flood(args, tally, until, 12, "POST", "/rooms", body).await
        }
        "list-flood" => flood(args, tally, until, 6, "GET", "/rooms", String::new()).await,
        "player-flood" => {
            flood(
                args,
                tally,
                until,
                8,
                "POST",
                "/players",
                r#"{"display_name":"Mallory"}"#.into(),
            )
            .await
        }
        "slowloris" => {
            hold_sockets(args, tally, until, || async {
                let Ok(mut s) = connect(args).await else {
                    return true;
                };
                for b in b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "
                    .iter()
                    .cycle()
                {
                    if Instant::now() >= until {
                        return false;
                    }
                    if s.write_all(&[*b]).await.is_err() {
                        return true;
                    }
                    tokio::time::sleep(Duration::from_millis(500).min(left())).await;
                }
                false
            })
            .await
        }
        "idle-ws" => {
            hold_sockets(args, tally, until, || async {
                let Some(mut ws) = websocket(args).await else {
                    return true;
                };
                // Answers pings (the library does), never joins.
                matches!(
                    tokio::time::timeout(left(), ws.next()).await,
                    Ok(None | Some(Ok(Message::Close(_))) | Some(Err(_)))
                )
            })
            .await
        }
        "binary-flood" | "big-frames" | "ping-flood" => {
            let frame = match name {
                "binary-flood" => Message::Binary(vec![0u8; 60 * 1024].into()),
                "big-frames" => Message::Text("x".repeat(100 * 1024).into()),
                _ => Message::Ping(Default::default()),
            };
            futures_util::future::join_all((0..4).map(|_| {
                let frame = frame.clone();
                async move {
                    while Instant::now() < until {
                        let Some(mut ws) = websocket(args).await else {
                            tokio::time::sleep(Duration::from_millis(10)).await;
                            continue;
                        };
                        while Instant::now() < until {
                            Tally::add(&tally.sent, 1);
                            if ws.send(frame.clone()).await.is_err() {
                                Tally::add(&tally.closed, 1);
                                break;
                            }
                        }
                    }
                }
            }))
            .await;
        }
        "reconnect-churn" => {
            // A seat of its own in a room of its own, reconnected as fast as the server lets it.
            let Some((room, token)) = own_seat(args).await else {
                eprintln!("reconnect-churn: could not take a seat");
                return;
            };
            while Instant::now() < until {
                let Some(mut ws) = websocket(args).await else {
                    continue;
                };
                Tally::add(&tally.sent, 1);
                let join = format!(r#"{{"t":"join","room":"{room}","token":"{token}"}}"#);
                if ws.send(Message::Text(join.into())).await.is_err() {
                    continue;
                }
                match tokio::time::timeout(Duration::from_secs(1), ws.next()).await {
                    Ok(Some(Ok(Message::Text(t)))) if t.contains("\"welcome\"") => {}
                    _ => Tally::add(&tally.refused, 1),
                }
            }
        }
        other => eprintln!("unknown attack {other}"),
    }
}

/// A room created and joined by the attacker: (room, seat token).
async fn own_seat(args: &Args) -> Option<(String, String)> {
    let created = body(args, "POST", "/rooms", r#"{"game":"chaturaji"}"#).await?;
    let room = created["room"].as_str()?.to_owned();
    let joined = body(
        args,
        "POST",
        &format!("/rooms/{room}/join"),
        r#"{"name":"Mallory"}"#,
    )
    .await?;
    Some((room, joined["seat_token"].as_str()?.to_owned()))
}

async fn body(args: &Args, method: &str, path: &str, body: &str) -> Option<serde_json::Value> {
    let stream = connect(args).await.ok()?;
    let answer = testkit::http::request_over(stream, args.addr, method, path, None, body)
        .await
        .ok()?;
    serde_json::from_str(&answer.body).ok()
}

/// The legitimate client: `fourkings-loadgen` beside this process; its act→event p50/p99 line.
fn legit(args: &Args) -> std::thread::JoinHandle<String> {
    let exe = std::env::current_exe().expect("own path");
    let loadgen = exe.with_file_name("fourkings-loadgen");
    let (addr, rooms, seconds) = (args.addr, args.rooms, args.seconds);
    std::thread::spawn(move || {
        let out = Command::new(loadgen)
            .args(["--addr", &addr.to_string(), "--rooms", &rooms.to_string()])
            .args([
                "--seconds",
                &seconds.saturating_sub(1).max(1).to_string(),
                "--cadence-ms",
                "200",
            ])
            .output();
        match out {
            Ok(out) => {
                let text = String::from_utf8_lossy(&out.stdout).into_owned();
                let latency = text
                    .lines()
                    .find(|l| l.starts_with("act->event"))
                    .unwrap_or("");
                let actions = text
                    .lines()
                    .find(|l| l.starts_with("actions"))
                    .unwrap_or("");
                if latency.is_empty() {
                    format!(
                        "loadgen failed: {}",
                        String::from_utf8_lossy(&out.stderr).trim()
                    )
                } else {
                    format!("{latency}  |  {actions}")
                }
            }
            Err(e) => format!("loadgen did not start: {e}"),
        }
    })
}

async fn healthz_ms(args: &Args) -> String {
    let started = Instant::now();
    // From the legitimate address: the probe an operator's monitor would send.
    let Ok(s) = TcpStream::connect(args.addr).await else {
        return "healthz: no connection".into();
    };
    let probe = testkit::http::request_over(s, args.addr, "GET", "/healthz", None, "");
    match tokio::time::timeout(Duration::from_secs(5), probe).await {
        Ok(Ok(answer)) if answer.status == 200 => {
            format!(
                "healthz 200 in {:.1} ms",
                started.elapsed().as_secs_f64() * 1000.0
            )
        }
        _ => "healthz: no 200 within 5 s".into(),
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    anyhow::ensure!(
        args.addr.ip().is_loopback() && args.from.is_loopback(),
        "loopback only"
    );
    let chosen: Vec<&str> = match &args.only {
        Some(list) => list.split(',').collect(),
        None => ATTACKS.to_vec(),
    };
    println!(
        "no attack: {}",
        tokio::task::block_in_place(|| legit(&args).join()).unwrap_or_default()
    );
    for name in chosen {
        let tally = Tally::default();
        let measured = legit(&args);
        // Let the legitimate client seat its rooms before the attack starts.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let probe = async {
            tokio::time::sleep(Duration::from_secs(args.seconds / 2)).await;
            healthz_ms(&args).await
        };
        let ((), health) = tokio::join!(attack(name, &args, &tally), probe);
        let legit = tokio::task::block_in_place(|| measured.join()).unwrap_or_default();
        println!(
            "{name}: {legit}\n    attacker: {}  |  mid-attack {health}",
            tally.line()
        );
        // Let the server sweep what the attack left before the next one.
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    Ok(())
}
