//! `fourkings-loadgen`: a dev tool that loads a running server over loopback as players would.
//! May depend on `testkit` only among the workspace's crates (it speaks the wire as text, like a
//! foreign client); the crate's second binary, `fourkings-abuse` (src/abuse), probes its limits.
//!
//! It opens N rooms × 4 seats against a running server over loopback, plays real
//! legal moves (picked from each seat's `view`) at a set cadence per room, and reports connections held,
//! actions per second, act→event latency percentiles and the server's memory per connection.
//!
//! Bounded: it stops after `--seconds` (and every connection it opened closes). One process may hold
//! at most 20,000 open files, so `--procs N` runs N copies of itself (each with its share of the
//! rooms): they connect, report `ready`, and start playing together when the parent says `go`, so the
//! server's memory is measured with every connection held; the parent merges their reports.
//!
//! Measuring notes: the rooms' cadences are spread evenly over the cadence period (all rooms acting
//! in the same millisecond would measure a burst, not a rate), and every seat keeps its own latency
//! samples (no shared lock on the measuring path). The window opens once every room is started and
//! its first seat holds its decision; the rate counts the actions sent inside it and answered (a
//! late answer is awaited a second), per second of the window, so a server that keeps up shows the
//! offered rate, rooms × 1000 / cadence.
//!
//! `--cpu-rooms M` also opens M rooms of four CPU players (no connections) and starts them just before
//! play, to measure humans' latency while bots play beside them; how many log entries the server
//! committed during play shows how much the CPU rooms did meanwhile.
#![forbid(unsafe_code)]

use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use clap::Parser;
use futures_util::{SinkExt, StreamExt};
use rand::seq::IndexedRandom;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use testkit::percentile;
use testkit::rest::{call, create_room, get_text, open_room, room_options, room_phase};

#[derive(Debug, Clone, Parser)]
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
    /// Opening the rooms and holding every connection may take this many seconds; past it, play
    /// starts with the connections held so far and the report says how many are missing. (It was six
    /// times `--seconds`: 120 s for a 20 s run, which the setup of 19,900 connections can pass on a
    /// slower or busy machine.)
    #[arg(long, default_value_t = 600)]
    setup_secs: u64,
    /// `chaturaji` or `fourchess`.
    #[arg(long, default_value = "fourchess")]
    game: String,
    /// The server's process id, to report its memory (VmRSS) per connection.
    #[arg(long)]
    server_pid: Option<u32>,
    /// Processes to spread the connections over (each may hold fewer than 20,000 files).
    #[arg(long, default_value_t = 1)]
    procs: usize,
    /// Rooms of four CPU players (no connections) started beside the measured ones.
    #[arg(long, default_value_t = 0)]
    cpu_rooms: usize,
    /// Game of the CPU rooms.
    #[arg(long, default_value = "chaturaji")]
    cpu_game: String,
    /// Level of the CPU players in the CPU rooms (1 easy, 2 medium, 3 hard).
    #[arg(long, default_value_t = 2)]
    cpu_level: u8,
    /// Let every room act at the same instant of each cadence period (how earlier versions of this
    /// generator scheduled: a burst every period instead of an even rate). For comparison only.
    #[arg(long)]
    aligned: bool,
    /// Four-player chess: each game of the measured rooms ends after this many plies (the host
    /// seat asks for a rematch), so a soak plays many games per room.
    #[arg(long)]
    move_limit: Option<u32>,
    /// Every this many seconds of play, print the actions so far, the server's RSS and its heap
    /// (`/metrics`, jemalloc builds); 0 = never. One process only (`--procs 1`).
    #[arg(long, default_value_t = 0)]
    sample_secs: u64,
    /// After play, wait up to this many seconds for every room to close (start the server with a
    /// short `FOURKINGS_ROOMS__IDLE_CLOSE_MS`), then compare the heap with its start; 0 = don't.
    #[arg(long, default_value_t = 0)]
    close_wait_secs: u64,
    /// Play the whole run (rooms, play, close wait) this many times against the same server: with
    /// `--close-wait-secs`, whether a second load leaves more behind than the first did.
    #[arg(long, default_value_t = 1)]
    rounds: u32,
    /// Once every connection is held (and the server's memory read), keep them idle this many
    /// seconds before play starts: time to read or profile an idle server (e.g. a heap profile).
    #[arg(long, default_value_t = 0)]
    hold_secs: u64,
    /// Internal: this process is one of `--procs` children; its first room's global index.
    #[arg(long, hide = true)]
    child_offset: Option<usize>,
    /// Internal: total rooms over all children (to spread the cadences).
    #[arg(long, hide = true)]
    total_rooms: Option<usize>,
}

/// What one process measured.
#[derive(Debug, Default)]
struct Report {
    held: usize,
    /// Joins that failed during the setup (the server refused or closed them).
    join_failures: u64,
    /// How long opening the rooms and holding the connections took (the slowest process).
    setup_secs: f64,
    actions: u64,
    errors: u64,
    unanswered: u64,
    elapsed: f64,
    latencies_us: Vec<u64>,
    /// The generator's own CPU during play, in clock ticks (to show it is not the bottleneck).
    cpu_ticks: u64,
}

impl Report {
    fn to_json(&self) -> Value {
        json!({"held": self.held, "join_failures": self.join_failures, "setup_secs": self.setup_secs,
               "actions": self.actions, "errors": self.errors,
               "unanswered": self.unanswered, "elapsed": self.elapsed, "latencies_us": self.latencies_us,
               "cpu_ticks": self.cpu_ticks})
    }

    fn from_json(v: &Value) -> Report {
        Report {
            held: v["held"].as_u64().unwrap_or(0) as usize,
            join_failures: v["join_failures"].as_u64().unwrap_or(0),
            setup_secs: v["setup_secs"].as_f64().unwrap_or(0.0),
            actions: v["actions"].as_u64().unwrap_or(0),
            errors: v["errors"].as_u64().unwrap_or(0),
            unanswered: v["unanswered"].as_u64().unwrap_or(0),
            elapsed: v["elapsed"].as_f64().unwrap_or(0.0),
            latencies_us: v["latencies_us"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_u64).collect())
                .unwrap_or_default(),
            cpu_ticks: v["cpu_ticks"].as_u64().unwrap_or(0),
        }
    }

    fn merge(&mut self, other: Report) {
        self.held += other.held;
        self.join_failures += other.join_failures;
        self.setup_secs = self.setup_secs.max(other.setup_secs);
        self.actions += other.actions;
        self.errors += other.errors;
        self.unanswered += other.unanswered;
        self.elapsed = self.elapsed.max(other.elapsed);
        self.latencies_us.extend(other.latencies_us);
        self.cpu_ticks += other.cpu_ticks;
    }
}

#[derive(Debug, Default)]
struct Counters {
    connections: AtomicUsize,
    /// Joins that failed (the first one's error is printed).
    join_failures: AtomicUsize,
    errors: AtomicU64,
    /// Actions whose `acted` event came back (for the samples during play).
    acted: AtomicU64,
    /// Actions sent inside the window whose answer had not come a second after it.
    unanswered: AtomicU64,
    /// Seats that got their first `view` (a decision) since their room started: one per started room.
    deciding: AtomicUsize,
}

/// The server's CPU time so far (user + system), in clock ticks of 10 ms.
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces: count the fields after its closing parenthesis,
    // where utime and stime are the 12th and 13th.
    let mut fields = stat.rsplit_once(')')?.1.split_whitespace().skip(11);
    Some(fields.next()?.parse::<u64>().ok()? + fields.next()?.parse::<u64>().ok()?)
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Connects to `url` and joins the seat; a `redirect` (cluster mode: another node serves the room) is
/// followed to the node it names, a few hops at most. Returns the socket and the `welcome`.
async fn join(url: &str, room: &str, token: &str) -> anyhow::Result<(Ws, Value)> {
    let mut url = url.to_owned();
    for _ in 0..4 {
        let (mut ws, _) = tokio_tungstenite::connect_async(url.as_str()).await?;
        let join = json!({"t": "join", "room": room, "token": token});
        ws.send(Message::Text(join.to_string().into())).await?;
        let answer = loop {
            match ws.next().await {
                Some(Ok(Message::Text(text))) => break serde_json::from_str::<Value>(&text)?,
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(e.into()),
                None => anyhow::bail!("{url}: closed before answering the join"),
            }
        };
        match answer["t"].as_str() {
            Some("welcome") => return Ok((ws, answer)),
            Some("redirect") => {
                url = answer["url"]
                    .as_str()
                    .ok_or_else(|| anyhow::anyhow!("a redirect without a url: {answer}"))?
                    .to_owned();
            }
            _ => anyhow::bail!("{url}: join refused: {answer}"),
        }
    }
    anyhow::bail!("room {room}: too many redirects")
}

/// When play stops; unset until every room is started and its first seat has its decision.
type Stop = Arc<OnceLock<Instant>>;

/// How long after the window a seat still waits for the answer to an action it sent inside it.
const LAST_ANSWER: Duration = Duration::from_secs(1);

/// WebSocket handshakes and joins in flight at once, per process. Thousands at once on a busy
/// machine left some waiting longer than the server's header timeout or join deadline, and the server
/// rightly closed them (`fourkings_http_timeouts_total`, `join_deadline` closes): the setup of
/// 19,900 connections then held ~18,000.
static JOINING: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(64);

/// One seat: join, act on every current view at the room's slot, measure act→event. Returns the
/// latencies it measured (microseconds).
async fn seat(
    args: Arc<Args>,
    counters: Arc<Counters>,
    room: String,
    token: String,
    host_token: Option<String>,
    next_slot: Arc<Mutex<Instant>>,
    stop: Stop,
) -> anyhow::Result<Vec<u64>> {
    let joined = {
        let _turn = JOINING.acquire().await?;
        join(&format!("ws://{}/ws", args.addr), &room, &token).await
    };
    let (mut ws, welcome) = match joined {
        Ok(joined) => joined,
        Err(e) => {
            if counters.join_failures.fetch_add(1, Ordering::Relaxed) == 0 {
                eprintln!("a join failed (the first; the report counts them): {e:#}");
            }
            return Err(e);
        }
    };
    counters.connections.fetch_add(1, Ordering::Relaxed);
    let cadence = Duration::from_millis(args.cadence_ms);
    let mut latencies = Vec::new();
    let mut v = welcome["v"].as_u64().unwrap_or(0);
    let mut my_seat = welcome["seat"].as_str().unwrap_or("").to_owned();
    let mut sent: Option<Instant> = None;
    let mut ack = 0u64;
    let mut view: Option<Value> = None;
    let mut decided = false;
    loop {
        let remaining = match stop.get() {
            // After the window, only the answer to an action sent inside it is awaited.
            Some(stop) => {
                let until = if sent.is_some() {
                    *stop + LAST_ANSWER
                } else {
                    *stop
                };
                let left = until.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    if sent.is_some() {
                        counters.unanswered.fetch_add(1, Ordering::Relaxed);
                    }
                    break;
                }
                left
            }
            None => Duration::from_millis(200),
        };
        // Act when play has begun, a current view is there and it is this room's slot: never after
        // the window, so that every room offers the same actions per second of it.
        if let (Some(w), None, Some(stop)) = (&view, &sent, stop.get()) {
            if w["v"].as_u64() == Some(v) {
                let slot = {
                    let mut next = next_slot.lock().expect("not poisoned");
                    let slot = (*next).max(Instant::now());
                    *next = slot + cadence;
                    slot
                };
                if slot >= *stop {
                    break;
                }
                tokio::time::sleep_until(slot.into()).await;
                let legal = w["legal"].as_array().cloned().unwrap_or_default();
                let action = legal.choose(&mut rand::rng()).cloned();
                view = None;
                if let Some(action) = action {
                    ack += 1;
                    let text = json!({"t": "act", "ack": ack, "action": action}).to_string();
                    sent = Some(Instant::now());
                    ws.send(Message::Text(text.into())).await?;
                }
                continue;
            }
        }
        let msg = match tokio::time::timeout(remaining, ws.next()).await {
            Err(_) => continue,
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
                    if let Some(at) = sent.take() {
                        latencies.push(at.elapsed().as_micros() as u64);
                        counters.acted.fetch_add(1, Ordering::Relaxed);
                    }
                }
                if e["e"] == "game_over" {
                    if let Some(host_token) = &host_token {
                        let _ = call(
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
            "view" => {
                if !decided {
                    decided = true;
                    counters.deciding.fetch_add(1, Ordering::Relaxed);
                }
                view = Some(m);
            }
            "error" => {
                counters.errors.fetch_add(1, Ordering::Relaxed);
                sent = None;
            }
            _ => {}
        }
    }
    let _ = ws.close(None).await;
    Ok(latencies)
}

/// Rooms of four CPU players, started; returns their ids. Opened many at a time, so that their games
/// start close together and overlap the humans' measured minute.
async fn open_cpu_rooms(args: &Args) -> anyhow::Result<Vec<String>> {
    let began = Instant::now();
    let rooms: anyhow::Result<Vec<String>> = futures_util::stream::iter(0..args.cpu_rooms)
        .map(|_| open_cpu_room(args))
        .buffer_unordered(64)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect();
    if args.cpu_rooms > 0 {
        println!(
            "CPU rooms opened and started in {:.1} s",
            began.elapsed().as_secs_f64()
        );
    }
    rooms
}

async fn open_cpu_room(args: &Args) -> anyhow::Result<String> {
    let (room, host_token) = create_room(args.addr, &args.cpu_game).await?;
    for seat in ["red", "green", "yellow", "blue"] {
        call(
            args.addr,
            "POST",
            &format!("/rooms/{room}/cpu"),
            Some(&host_token),
            &json!({"seat": seat, "level": args.cpu_level}).to_string(),
        )
        .await?;
    }
    call(
        args.addr,
        "POST",
        &format!("/rooms/{room}/start"),
        Some(&host_token),
        "{}",
    )
    .await?;
    Ok(room)
}

/// This process's rooms, connected and waiting for the start.
struct Prepared {
    rooms: Vec<(String, String, Vec<String>)>,
    slots: Vec<Arc<Mutex<Instant>>>,
    tasks: Vec<tokio::task::JoinHandle<anyhow::Result<Vec<u64>>>>,
    counters: Arc<Counters>,
    stop: Stop,
    held: usize,
    setup_secs: f64,
}

async fn prepare(args: Arc<Args>) -> anyhow::Result<Prepared> {
    let setup_began = Instant::now();
    let setup_until = setup_began + Duration::from_secs(args.setup_secs);
    let mut rooms = Vec::new();
    for _ in 0..args.rooms {
        anyhow::ensure!(
            Instant::now() < setup_until,
            "opening the rooms took longer than --setup-secs {}",
            args.setup_secs
        );
        let room = open_room(args.addr, &args.game).await?;
        if let Some(limit) = args.move_limit {
            let mut options = room_options(&args.game);
            options["move_limit"] = json!(limit);
            call(
                args.addr,
                "PUT",
                &format!("/rooms/{}/settings", room.0),
                Some(&room.1),
                &json!({ "options": options }).to_string(),
            )
            .await?;
        }
        rooms.push(room);
    }
    let counters = Arc::new(Counters::default());
    let stop: Stop = Arc::new(OnceLock::new());
    let mut tasks = Vec::new();
    let mut slots = Vec::new();
    for (room, host_token, tokens) in &rooms {
        let slot = Arc::new(Mutex::new(Instant::now()));
        slots.push(slot.clone());
        for (i, token) in tokens.iter().enumerate() {
            tasks.push(tokio::spawn(seat(
                args.clone(),
                counters.clone(),
                room.clone(),
                token.clone(),
                (i == 0).then(|| host_token.clone()),
                slot.clone(),
                stop.clone(),
            )));
        }
    }
    // Until every seat is held or its join failed (a failed join is not tried again).
    while counters.connections.load(Ordering::Relaxed)
        + counters.join_failures.load(Ordering::Relaxed)
        < rooms.len() * 4
        && Instant::now() < setup_until
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let held = counters.connections.load(Ordering::Relaxed);
    Ok(Prepared {
        setup_secs: setup_began.elapsed().as_secs_f64(),
        rooms,
        slots,
        tasks,
        counters,
        stop,
        held,
    })
}

/// The server's heap in KiB, from its `/metrics` (jemalloc builds).
#[derive(Debug, Clone, Copy)]
struct HeapKib {
    allocated: u64,
    resident: u64,
    /// Of `allocated`, freed objects parked in the threads' caches.
    thread_caches: u64,
}

impl HeapKib {
    /// What the program holds: the allocator's figure without its threads' caches.
    fn held(self) -> u64 {
        self.allocated.saturating_sub(self.thread_caches)
    }
}

async fn heap_kib(addr: SocketAddr) -> Option<HeapKib> {
    let text = get_text(addr, "/metrics").await.ok()?;
    let kib = |name: &str| metric(&text, name).map(|b| (b / 1024.0) as u64);
    Some(HeapKib {
        allocated: kib("fourkings_heap_allocated_bytes")?,
        resident: kib("fourkings_heap_resident_bytes")?,
        thread_caches: kib("fourkings_heap_thread_cache_bytes").unwrap_or(0),
    })
}

/// The value of an unlabelled metric in a `/metrics` text.
fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines().find_map(|l| {
        l.strip_prefix(name)?
            .strip_prefix(' ')?
            .trim()
            .parse::<f64>()
            .ok()
    })
}

/// Entries the server's action log has committed, as `/metrics` counts them.
async fn logged_entries(addr: SocketAddr) -> Option<u64> {
    let text = get_text(addr, "/metrics").await.ok()?;
    metric(&text, "fourkings_store_committed_entries_total").map(|n| n as u64)
}

/// Open rooms as `/metrics` counts them (every phase).
async fn open_rooms(addr: SocketAddr) -> Option<u64> {
    let text = get_text(addr, "/metrics").await.ok()?;
    Some(
        text.lines()
            .filter(|l| l.starts_with("fourkings_rooms{"))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum::<f64>() as u64,
    )
}

/// One sample line: seconds of play, actions, the server's RSS and heap.
async fn sample_line(args: &Args, began: Instant, acted: u64) -> String {
    let rss = args.server_pid.and_then(rss_kib).unwrap_or(0);
    let heap = heap_kib(args.addr).await;
    let (alloc, held, resident) = heap.map_or((0, 0, 0), |h| (h.allocated, h.held(), h.resident));
    format!(
        "sample t {:.0} s  actions {acted}  rss {rss} KiB  heap allocated {alloc} KiB (without thread caches {held})  resident {resident} KiB",
        began.elapsed().as_secs_f64()
    )
}

async fn play(args: &Args, p: Prepared) -> anyhow::Result<Report> {
    // Every room is started, and its first seat holds its decision, before the window opens: the
    // rate is then the steady one (1,000 serial starts take about a second, which counted as play).
    for (room, host_token, _) in &p.rooms {
        call(
            args.addr,
            "POST",
            &format!("/rooms/{room}/start"),
            Some(host_token),
            "{}",
        )
        .await?;
    }
    let deciding_until = Instant::now() + Duration::from_secs(30);
    while p.counters.deciding.load(Ordering::Relaxed) < p.rooms.len()
        && Instant::now() < deciding_until
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let began = Instant::now();
    // Spread the rooms' first actions evenly over one cadence period, across all processes.
    let offset = args.child_offset.unwrap_or(0);
    let total = args.total_rooms.unwrap_or(args.rooms).max(1);
    let cadence = Duration::from_millis(args.cadence_ms);
    for (i, slot) in p.slots.iter().enumerate() {
        let phase = if args.aligned {
            Duration::ZERO
        } else {
            cadence.mul_f64(((offset + i) % total) as f64 / total as f64)
        };
        *slot.lock().expect("not poisoned") = began + phase;
    }
    let _ = p.stop.set(began + Duration::from_secs(args.seconds));
    let sampler = (args.sample_secs > 0).then(|| {
        let args = args.clone();
        let counters = p.counters.clone();
        tokio::spawn(async move {
            let every = Duration::from_secs(args.sample_secs);
            while began.elapsed() < Duration::from_secs(args.seconds) {
                let acted = counters.acted.load(Ordering::Relaxed);
                println!("{}", sample_line(&args, began, acted).await);
                tokio::time::sleep(every).await;
            }
        })
    });
    // The server's CPU per action is measured from here (every room started) to the end of play, so
    // that neither the setup nor the starts count; on a busy machine it stays meaningful where
    // latencies do not. One process only (children do not know the server).
    let cpu_from = args.server_pid.and_then(cpu_ticks);
    let own_cpu_from = cpu_ticks(std::process::id());
    let logged_from = logged_entries(args.addr).await;
    let acted_from = p.counters.acted.load(Ordering::Relaxed);
    let mut report = Report {
        held: p.held,
        setup_secs: p.setup_secs,
        join_failures: p.counters.join_failures.load(Ordering::Relaxed) as u64,
        ..Report::default()
    };
    for task in p.tasks {
        if let Ok(Ok(latencies)) = task.await {
            report.latencies_us.extend(latencies);
        }
    }
    if let Some(sampler) = sampler {
        sampler.abort();
    }
    // The rate is over the window: the actions sent inside it and answered, per second of it.
    report.elapsed = args.seconds as f64;
    if let (Some(from), Some(to)) = (own_cpu_from, cpu_ticks(std::process::id())) {
        report.cpu_ticks = to - from;
    }
    if let (Some(from), Some(to)) = (cpu_from, args.server_pid.and_then(cpu_ticks)) {
        let acted = p.counters.acted.load(Ordering::Relaxed) - acted_from;
        let seconds = (to - from) as f64 / 100.0;
        println!(
            "server CPU during play: {seconds:.2} s for {acted} actions = {:.3} ms per action",
            seconds * 1000.0 / acted.max(1) as f64
        );
    }
    // Every action of any room is one log entry (a dice throw another): beside the humans' actions,
    // what the CPU rooms did during play (against a run without them).
    if let (Some(from), Some(to)) = (logged_from, logged_entries(args.addr).await) {
        let acted = p.counters.acted.load(Ordering::Relaxed) - acted_from;
        println!(
            "log entries during play: {} (the humans' actions {acted})",
            to - from
        );
    }
    report.actions = report.latencies_us.len() as u64;
    report.errors = p.counters.errors.load(Ordering::Relaxed);
    report.unanswered = p.counters.unanswered.load(Ordering::Relaxed);
    Ok(report)
}

/// `--hold-secs` (its callers skip it at 0): say that the connections are held, then wait with
/// them idle.
async fn hold(args: &Args) {
    println!(
        "every connection held: idle for {} s before play",
        args.hold_secs
    );
    std::io::stdout().flush().ok();
    tokio::time::sleep(Duration::from_secs(args.hold_secs)).await;
}

/// A child: prepare, say `ready <held>`, wait for `go` on stdin, play, print `report <json>`.
async fn child(args: Arc<Args>) -> anyhow::Result<()> {
    let prepared = prepare(args.clone()).await?;
    println!("ready {}", prepared.held);
    std::io::stdout().flush()?;
    let line = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line).map(|_| line)
    })
    .await??;
    anyhow::ensure!(line.trim() == "go", "expected `go`, got {line:?}");
    let report = play(&args, prepared).await?;
    println!("report {}", report.to_json());
    Ok(())
}

/// Run `procs` children over the rooms; every child's report merged. `read` is called once every
/// connection is held, and again after `--hold-secs`.
fn run_children(args: &Args, mut read: impl FnMut()) -> anyhow::Result<Report> {
    let procs = args.procs.max(1);
    let exe = std::env::current_exe()?;
    let mut children = Vec::new();
    let mut offset = 0;
    for i in 0..procs {
        let rooms = args.rooms / procs + usize::from(i < args.rooms % procs);
        let child = Command::new(&exe)
            .args([
                "--addr",
                &args.addr.to_string(),
                "--rooms",
                &rooms.to_string(),
                "--cadence-ms",
                &args.cadence_ms.to_string(),
                "--seconds",
                &args.seconds.to_string(),
                "--setup-secs",
                &args.setup_secs.to_string(),
                "--game",
                &args.game,
                "--child-offset",
                &offset.to_string(),
                "--total-rooms",
                &args.rooms.to_string(),
            ])
            .args(args.aligned.then_some("--aligned"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        offset += rooms;
        children.push(child);
    }
    let mut outputs = Vec::new();
    for child in &mut children {
        let stdout = child.stdout.take().expect("piped");
        let mut lines = std::io::BufReader::new(stdout).lines();
        let ready = lines
            .next()
            .transpose()?
            .ok_or_else(|| anyhow::anyhow!("a child ended early"))?;
        anyhow::ensure!(ready.starts_with("ready "), "child said {ready:?}");
        outputs.push(lines);
    }
    // Every connection of every child is held now.
    read();
    if args.hold_secs > 0 {
        tokio::runtime::Handle::current().block_on(hold(args));
        read();
    }
    for child in &mut children {
        writeln!(child.stdin.as_mut().expect("piped"), "go")?;
    }
    let mut report = Report::default();
    for lines in &mut outputs {
        for line in lines.by_ref() {
            if let Some(json) = line?.strip_prefix("report ") {
                report.merge(Report::from_json(&serde_json::from_str(json)?));
            }
        }
    }
    for mut child in children {
        anyhow::ensure!(child.wait()?.success(), "a child failed");
    }
    Ok(report)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Arc::new(Args::parse());
    anyhow::ensure!(
        args.addr.ip().is_loopback(),
        "the load generator only targets loopback addresses"
    );
    if args.child_offset.is_some() {
        return child(args).await;
    }
    for round in 1..=args.rounds {
        if args.rounds > 1 {
            println!("round {round}");
        }
        play_round(&args).await?;
    }
    Ok(())
}

/// Open the rooms, play, report, and (with `--close-wait-secs`) wait for the rooms to close.
async fn play_round(args: &Arc<Args>) -> anyhow::Result<()> {
    let heap_start = heap_kib(args.addr).await;
    if let Some(h) = heap_start {
        println!(
            "heap at start: allocated {} KiB (without thread caches {})  resident {} KiB",
            h.allocated,
            h.held(),
            h.resident
        );
    }
    // With child processes the CPU rooms open before anything is measured; with one process just
    // before play (below).
    let mut cpu_rooms = if args.procs > 1 {
        open_cpu_rooms(args).await?
    } else {
        Vec::new()
    };
    let rss_before = args.server_pid.and_then(rss_kib);
    let heap_before = heap_kib(args.addr).await;
    // The server's memory with every connection held, then (with `--hold-secs`) after they idled.
    let mut readings: Vec<(Option<u64>, Option<HeapKib>)> = Vec::new();
    let mut report = if args.procs > 1 {
        let args = args.clone();
        let readings = &mut readings;
        tokio::task::block_in_place(|| {
            run_children(&args, || {
                readings.push((
                    args.server_pid.and_then(rss_kib),
                    tokio::runtime::Handle::current().block_on(heap_kib(args.addr)),
                ))
            })
        })?
    } else {
        let prepared = prepare(args.clone()).await?;
        tokio::time::sleep(Duration::from_millis(500)).await;
        readings.push((args.server_pid.and_then(rss_kib), heap_kib(args.addr).await));
        if args.hold_secs > 0 {
            hold(args).await;
            readings.push((args.server_pid.and_then(rss_kib), heap_kib(args.addr).await));
        }
        // Started just before play, so that their games overlap the measured minute (and not the
        // humans' setup, however long that takes).
        cpu_rooms = open_cpu_rooms(args).await?;
        play(args, prepared).await?
    };
    let mut cpu_playing = 0;
    for room in &cpu_rooms {
        // A room already gone finished its game and closed (short idle-close settings).
        let phase = room_phase(args.addr, room).await?;
        cpu_playing += usize::from(phase.as_deref() == Some("playing"));
    }
    report.latencies_us.sort_unstable();
    let lat = &report.latencies_us;
    println!(
        "rooms {}  connections held {} of {}  (processes {}, set up in {:.1} s)",
        args.rooms,
        report.held,
        args.rooms * 4,
        args.procs.max(1),
        report.setup_secs
    );
    if report.held < args.rooms * 4 {
        println!(
            "connections NOT held: {} (joins that failed: {}; the rest were still joining when --setup-secs {} passed)",
            args.rooms * 4 - report.held,
            report.join_failures,
            args.setup_secs
        );
    }
    if !cpu_rooms.is_empty() {
        println!(
            "CPU rooms {} ({} level {}), still playing at the end: {cpu_playing}",
            cpu_rooms.len(),
            args.cpu_game,
            args.cpu_level
        );
    }
    println!(
        "actions {} in the {:.1} s window = {:.1} actions/s  (errors {}, unanswered a second after the window {})",
        report.actions,
        report.elapsed,
        report.actions as f64 / report.elapsed.max(1e-9),
        report.errors,
        report.unanswered
    );
    let generator_cpu = report.cpu_ticks as f64 / 100.0;
    println!(
        "generator CPU during play: {generator_cpu:.2} s over {:.1} s ({:.1}% of a core)",
        report.elapsed,
        generator_cpu * 100.0 / report.elapsed.max(1e-9)
    );
    println!(
        "act->event latency ms: p50 {:.2}  p95 {:.2}  p99 {:.2}  max {:.2}",
        percentile(lat, 0.50),
        percentile(lat, 0.95),
        percentile(lat, 0.99),
        percentile(lat, 1.0)
    );
    for (i, (rss_held, heap_held)) in readings.into_iter().enumerate() {
        let when = if i == 0 {
            "with the connections held".to_owned()
        } else {
            format!("after {} s idle", args.hold_secs)
        };
        if let (Some(before), Some(after)) = (rss_before, rss_held) {
            println!(
                "server RSS {before} KiB -> {after} KiB {when}: {:.1} KiB per connection",
                (after.saturating_sub(before)) as f64 / report.held.max(1) as f64
            );
        }
        if let (Some(before), Some(after)) = (heap_before, heap_held) {
            println!(
                "server heap allocated {} KiB -> {} KiB {when}: {:.2} KiB per connection (resident {} KiB)",
                before.allocated,
                after.allocated,
                (after.allocated.saturating_sub(before.allocated)) as f64
                    / report.held.max(1) as f64,
                after.resident
            );
        }
    }
    if args.close_wait_secs > 0 {
        let until = Instant::now() + Duration::from_secs(args.close_wait_secs);
        let mut open = open_rooms(args.addr).await;
        while open != Some(0) && Instant::now() < until {
            tokio::time::sleep(Duration::from_secs(1)).await;
            open = open_rooms(args.addr).await;
        }
        // A few seconds more for the allocator's background purge.
        tokio::time::sleep(Duration::from_secs(3)).await;
        let rss = args.server_pid.and_then(rss_kib).unwrap_or(0);
        let growth = |a: u64, b: u64| (b as f64 - a as f64) * 100.0 / a.max(1) as f64;
        match (heap_start, heap_kib(args.addr).await) {
            (Some(h0), Some(h1)) => println!(
                "after the rooms closed (open rooms {}): heap allocated {} -> {} KiB ({:+.1}%), without thread caches {} -> {} KiB ({:+.1}%)  resident {} -> {} KiB  rss {rss} KiB",
                open.map_or("?".to_owned(), |n| n.to_string()),
                h0.allocated,
                h1.allocated,
                growth(h0.allocated, h1.allocated),
                h0.held(),
                h1.held(),
                growth(h0.held(), h1.held()),
                h0.resident,
                h1.resident
            ),
            _ => println!(
                "after the rooms closed: no heap figures (not a jemalloc build?), rss {rss} KiB"
            ),
        }
    }
    Ok(())
}
