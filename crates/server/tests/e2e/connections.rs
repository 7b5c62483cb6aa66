//! Reconnection, the CPU covering an absent human, turn timers, acks, limits, slow clients, spectators.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::*;

/// A Chaturaji room with one human at Red and CPU players elsewhere; the human's client is joined.
async fn red_vs_cpus(
    config: server::Config,
    options: Value,
) -> (std::net::SocketAddr, String, String, String, Client) {
    let addr = start(config).await;
    let (room, host_token) = create_room(addr, options).await;
    let (seat, token) = join_seat(addr, &room, "Ann").await;
    assert_eq!(seat, "red");
    let mut red = Client::connect(addr).await;
    red.join(&room, Some(&token), None).await;
    (addr, room, host_token, token, red)
}

/// Wait until Red is shown its legal actions (its turn, after the throw); returns the view.
async fn red_turn(red: &mut Client) -> Value {
    red.until(|m| m["t"] == "view" && m["seat"] == "red").await
}

#[tokio::test]
async fn a_client_that_reconnects_mid_game_gets_its_seat_and_missed_events() {
    let mut config = test_config();
    config.rooms.history = 8;
    let (addr, room, host_token, token, mut red) =
        red_vs_cpus(config, json!({"game": "chaturaji"})).await;
    let mut watcher = Client::connect(addr).await;
    watcher.join(&room, None, None).await;
    host(addr, &room, "start", &host_token).await;
    red_turn(&mut red).await;
    let seen = red.v;
    drop(red);
    watcher
        .until(|m| is_event(m, "connection") && m["event"]["connected"] == false)
        .await;

    // Back within the grace period, with the last version seen: the missed events, no snapshot.
    let mut red = Client::connect(addr).await;
    red.v = seen;
    let welcome = red.join(&room, Some(&token), Some(seen)).await;
    assert_eq!(welcome["seat"], "red");
    assert!(welcome.get("snapshot").is_none(), "{welcome}");
    let v_now = welcome["v"].as_u64().unwrap();
    assert!(v_now > seen, "the disconnection and the return are events");
    red.v = seen;
    let disconnected = red.next().await.unwrap();
    assert!(is_event(&disconnected, "connection"), "{disconnected}");
    assert_eq!(disconnected["event"]["connected"], false);
    // It is still Red's turn: the seat plays on.
    let view = red_turn(&mut red).await;
    let action = view["legal"][0].clone();
    red.send(json!({"t": "act", "ack": 1, "action": action}))
        .await;
    let ack = red.until(|m| m["t"] == "ack" || m["t"] == "error").await;
    assert_eq!(ack["t"], "ack", "{ack}");

    // From too far back (history keeps 8 events), a full snapshot instead.
    let mut again = Client::connect(addr).await;
    let welcome = again.join(&room, Some(&token), Some(1)).await;
    let snapshot: protocol::Snapshot =
        serde_json::from_value(welcome["snapshot"].clone()).expect("a snapshot");
    let game = snapshot.game.expect("the game is in the snapshot");
    assert!(!game.actions.is_empty());
    assert!(game.dice_commit.is_some() && game.dice_seed.is_none());
    assert_eq!(snapshot.room.phase, protocol::Phase::Playing);
}

#[tokio::test]
async fn the_cpu_plays_an_absent_humans_seat_and_hands_it_back() {
    let mut config = test_config();
    config.timers.grace_ms = 150;
    let (addr, room, host_token, token, mut red) =
        red_vs_cpus(config, json!({"game": "chaturaji"})).await;
    let mut watcher = Client::connect(addr).await;
    watcher.join(&room, None, None).await;
    host(addr, &room, "start", &host_token).await;
    red_turn(&mut red).await;
    drop(red);

    let control = watcher.until(|m| is_event(m, "control")).await;
    assert_eq!(
        control["event"],
        json!({"e": "control", "seat": "red", "cpu": true, "reason": "away"})
    );
    let played = watcher
        .until(|m| {
            is_event(m, "acted") && m["event"]["seat"] == "red" && m["event"]["by"] != "room"
        })
        .await;
    assert_eq!(played["event"]["by"], "cpu");

    let mut red = Client::connect(addr).await;
    let welcome = red.join(&room, Some(&token), None).await;
    let over_already = !welcome["snapshot"]["game"]["outcome"].is_null();
    let back = watcher.until(|m| is_event(m, "control")).await;
    assert_eq!(
        back["event"],
        json!({"e": "control", "seat": "red", "cpu": false, "reason": "returned"})
    );
    // Red's next turn waits for Red: no CPU move for Red while Red is back. (The dice are random and
    // the CPUs capture kings, so the game may end before Red returns or before Red's turn comes
    // round: then there is no turn left to take over.)
    if !over_already {
        red.until(|m| (m["t"] == "view" && m["seat"] == "red") || is_event(m, "game_over"))
            .await;
    }
    let quiet = tokio::time::timeout(
        Duration::from_millis(400),
        watcher.until(|m| {
            is_event(m, "acted") && m["event"]["seat"] == "red" && m["event"]["by"] == "cpu"
        }),
    )
    .await;
    assert!(
        quiet.is_err(),
        "the CPU played for a human who is back: {quiet:?}"
    );
}

#[tokio::test]
async fn when_the_turn_timer_runs_out_the_cpu_plays_that_turn() {
    let mut config = test_config();
    config.timers.turn_second_ms = 10; // "30 s" lasts 300 ms
    let (addr, room, host_token, _token, mut red) =
        red_vs_cpus(config, json!({"game": "chaturaji", "turn_time": "30s"})).await;
    host(addr, &room, "start", &host_token).await;
    let mut deadline = None;
    red.until(|m| {
        if m["t"] == "event" {
            deadline = m["deadline"].as_u64();
        }
        m["t"] == "view"
    })
    .await;
    let started = std::time::Instant::now();
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let deadline = deadline.expect("the event that gave Red the turn says its deadline");
    assert!(
        deadline + 50 >= now_ms && deadline <= now_ms + 400,
        "{deadline} vs {now_ms}"
    );
    // Red does nothing: the CPU plays Red's turn when the deadline passes.
    red.until(|m| is_event(m, "acted") && m["event"]["seat"] == "red" && m["event"]["by"] == "cpu")
        .await;
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(150),
        "too early: {waited:?}"
    );
}

#[tokio::test]
async fn a_resent_ack_id_is_acknowledged_again_never_applied_twice() {
    let (addr, room, host_token, _token, mut red) =
        red_vs_cpus(test_config(), json!({"game": "chaturaji"})).await;
    let mut watcher = Client::connect(addr).await;
    watcher.join(&room, None, None).await;
    host(addr, &room, "start", &host_token).await;
    let view = red_turn(&mut red).await;
    let act = json!({"t": "act", "ack": 42, "action": view["legal"][0]});
    for _ in 0..3 {
        red.send(act.clone()).await;
    }
    let mut acks = Vec::new();
    while acks.len() < 3 {
        let m = red.next().await.unwrap();
        assert_ne!(m["t"], "error", "{m}");
        if m["t"] == "ack" {
            acks.push(m["v"].as_u64().unwrap());
        }
    }
    assert_eq!(acks[0], acks[1]);
    assert_eq!(acks[1], acks[2]);
    // Every copy was handled before the third ack; count the human actions up to now.
    let (_, info) = http(addr, "GET", &format!("/rooms/{room}"), None, None).await;
    let now = info["v"].as_u64().unwrap();
    let mut human_actions = 0;
    while watcher.v < now {
        let m = watcher.next().await.unwrap();
        if is_event(&m, "acted") && m["event"]["by"] == "human" {
            human_actions += 1;
        }
    }
    assert_eq!(human_actions, 1);
}

#[tokio::test]
async fn a_flood_closes_with_1008_and_an_oversized_frame_with_1009() {
    let mut config = test_config();
    config.limits.rate_messages = 10;
    config.limits.rate_period_ms = 20_000;
    let addr = start(config).await;
    let mut c = Client::connect(addr).await;
    for n in 0..30 {
        c.send(json!({"t": "ping", "n": n})).await;
    }
    let (msgs, code) = c.drain_until_close().await;
    assert_eq!(code, Some(1008));
    assert_eq!(
        msgs.len(),
        10,
        "the burst is allowed, then the connection closes"
    );
    assert!(msgs.iter().all(|m| m["t"] == "pong"));

    let mut c = Client::connect(addr).await;
    c.send_text(format!(
        "{{\"t\":\"ping\",\"pad\":\"{}\"}}",
        "x".repeat(5000)
    ))
    .await;
    assert_eq!(c.closed_with().await, Some(1009));
}

#[tokio::test]
async fn a_frame_longer_than_the_read_buffer_but_within_the_limit_is_read_whole() {
    let addr = start(test_config()).await;
    let mut c = Client::connect(addr).await;
    // About sixteen times the connection's 256-byte read buffer, under `max_frame_bytes` (4,096):
    // the buffer grows for it, and the frames after it still parse.
    // Padded with whitespace: a ping has no other field to carry the length.
    c.send_text(format!("{{\"t\":\"ping\",\"n\":3{}}}", " ".repeat(4000)))
        .await;
    c.send(json!({"t": "ping", "n": 4})).await;
    assert_eq!(c.until(|m| m["t"] == "pong").await["n"], 3);
    assert_eq!(c.until(|m| m["t"] == "pong").await["n"], 4);
}

#[tokio::test]
async fn a_client_that_never_reads_does_not_slow_the_others() {
    let mut config = test_config();
    config.limits.outbox_frames = 16;
    let addr = start(config).await;
    let (room, host_token) = create_room(
        addr,
        json!({"game": "chaturaji", "options": {"round_limit": 10}}),
    )
    .await;
    // This spectator joins and then never reads again.
    let mut sleeper = Client::connect(addr).await;
    sleeper.join(&room, None, None).await;
    let mut reader = Client::connect(addr).await;
    reader.join(&room, None, None).await;
    let begun = std::time::Instant::now();
    host(addr, &room, "start", &host_token).await;
    // An all-CPU game runs to its end for the reader; every event arrives in order (checked by
    // `Client::next`).
    // The dice are random, so a game can end early (one king left); rematch until the sleeper has
    // been sent far more events than its 16-frame outbox holds.
    let mut over = reader.until(|m| is_event(m, "game_over")).await;
    while over["v"].as_u64().unwrap() <= 40 {
        let (status, body) = host(addr, &room, "rematch", &host_token).await;
        assert_eq!(status, 200, "{body}");
        over = reader.until(|m| is_event(m, "game_over")).await;
    }
    assert!(begun.elapsed() < Duration::from_secs(30));
    // The sleeper either still has everything queued, in order, or was dropped as too slow and
    // must reconnect (close 4001).
    let (msgs, code) = sleeper
        .drain_until_close_or(|m| is_event(m, "game_over"))
        .await;
    if let Some(code) = code {
        assert_eq!(code, 4001, "{msgs:?}");
    }
}

#[tokio::test]
async fn spectators_watch_without_a_seat() {
    let addr = start(test_config()).await;
    let (room, host_token) = create_room(
        addr,
        json!({"game": "chaturaji", "options": {"round_limit": 2}}),
    )
    .await;
    host(addr, &room, "start", &host_token).await;
    let mut late = Client::connect(addr).await;
    let welcome = late.join(&room, None, None).await;
    assert!(welcome["seat"].is_null());
    let snapshot: protocol::Snapshot = serde_json::from_value(welcome["snapshot"].clone()).unwrap();
    assert_eq!(snapshot.room.seats[0], protocol::Occupant::Cpu { level: 2 });
    assert!(snapshot.game.is_some());
    if snapshot.room.phase == protocol::Phase::Finished {
        assert!(snapshot.game.unwrap().outcome.is_some());
    } else {
        late.until(|m| is_event(m, "game_over")).await;
    }
    late.send(json!({"t": "resign", "ack": 1})).await;
    let refused = late.until(|m| m["t"] == "error").await;
    assert_eq!(refused["code"], "spectator");
}

#[tokio::test]
async fn only_allowed_origins_may_open_a_websocket() {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut config = test_config();
    config.server.allowed_origins = vec!["https://fourkings.example".into()];
    let addr = start(config).await;
    let with_origin = |origin: &str| {
        let mut request = format!("ws://{addr}/ws").into_client_request().unwrap();
        request
            .headers_mut()
            .insert("Origin", origin.parse().unwrap());
        request
    };
    let refused = tokio_tungstenite::connect_async(with_origin("https://evil.example")).await;
    match refused {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status(), 403)
        }
        other => panic!("expected a 403, got {:?}", other.map(|_| ())),
    }
    let (mut ws, _) = tokio_tungstenite::connect_async(with_origin("https://fourkings.example"))
        .await
        .expect("an allowed origin upgrades");
    use futures_util::{SinkExt, StreamExt};
    ws.send(tokio_tungstenite::tungstenite::Message::Text(
        json!({"t": "ping", "n": 1}).to_string().into(),
    ))
    .await
    .unwrap();
    let pong = ws.next().await.unwrap().unwrap();
    assert!(pong.to_text().unwrap().contains("pong"));
    // Clients that send no Origin (not browsers) are not subject to the list.
    Client::connect(addr).await;
}

#[tokio::test]
async fn a_dead_connection_is_swept_and_its_seat_becomes_away() {
    let mut config = test_config();
    config.timers.ping_interval_ms = 50;
    config.timers.idle_timeout_ms = 200;
    let addr = start(config).await;
    let (room, _) = create_room(addr, json!({"game": "fourchess"})).await;
    let (_, token) = join_seat(addr, &room, "Ann").await;
    let mut watcher = Client::connect(addr).await;
    watcher.join(&room, None, None).await;
    // This client joins, then goes silent: it never reads, so it never answers the server's pings.
    let mut silent = Client::connect(addr).await;
    silent.join(&room, Some(&token), None).await;
    let gone = watcher
        .until(|m| is_event(m, "connection") && m["event"]["connected"] == false)
        .await;
    assert_eq!(gone["event"]["seat"], "red");
    // The server ended the connection: reading it now yields the queued pings and then its end
    // (the close frame 4002, or a broken pipe when the client answers a ping after the close).
    let mut code = None;
    let ended = tokio::time::timeout(WAIT, async {
        while let Some(msg) = futures_util::StreamExt::next(&mut silent.ws).await {
            match msg {
                Ok(tokio_tungstenite::tungstenite::Message::Close(frame)) => {
                    code = frame.map(|f| u16::from(f.code));
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
    })
    .await;
    assert!(ended.is_ok());
    assert!(code.is_none() || code == Some(4002), "{code:?}");
}

#[tokio::test]
async fn past_the_connection_ceiling_an_upgrade_gets_503_until_a_connection_closes() {
    let mut config = test_config();
    config.limits.max_connections = 2;
    let addr = start(config).await;
    let first = Client::connect(addr).await;
    let _second = Client::connect(addr).await;
    match tokio_tungstenite::connect_async(format!("ws://{addr}/ws")).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status(), 503);
            let body: serde_json::Value =
                serde_json::from_slice(response.body().as_deref().unwrap_or_default()).unwrap();
            assert_eq!(body["error"]["code"], "too_many_connections");
        }
        other => panic!("expected a 503, got {:?}", other.map(|_| ())),
    }
    // REST is not a WebSocket: it still answers.
    let (status, _) = http(addr, "GET", "/healthz", None, None).await;
    assert_eq!(status, 200);
    drop(first);
    // The server notices the close asynchronously: retry for a while.
    for attempt in 0.. {
        match tokio_tungstenite::connect_async(format!("ws://{addr}/ws")).await {
            Ok(_) => break,
            Err(e) => {
                assert!(attempt < 200, "a freed slot is never reused: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
        }
    }
}

/// A WebSocket client on a bare TCP socket, for what a library client will not do: send a frame's
/// header without its payload, write a whole oversized frame before reading anything, and tell the
/// server's orderly end (EOF) from a reset.
struct RawWs(tokio::net::TcpStream);

/// What a [`RawWs`] read until the connection ended.
#[derive(Debug)]
struct Ending {
    /// The opcodes of the server's frames, in order.
    opcodes: Vec<u8>,
    /// The close frame's code.
    close: Option<u16>,
    /// The connection ended with EOF (the server shut its side in order), not a reset.
    orderly: bool,
}

impl RawWs {
    async fn connect(addr: std::net::SocketAddr) -> RawWs {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut socket = tokio::net::TcpStream::connect(addr).await.unwrap();
        let request = format!(
            "GET /ws HTTP/1.1\r\nHost: {addr}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        );
        socket.write_all(request.as_bytes()).await.unwrap();
        // The answer's head a byte at a time: nothing after it may be taken with it.
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            head.push(socket.read_u8().await.unwrap());
        }
        let head = String::from_utf8_lossy(&head);
        assert!(head.starts_with("HTTP/1.1 101"), "{head}");
        assert!(
            head.contains("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="),
            "the RFC 6455 example key's answer: {head}"
        );
        RawWs(socket)
    }

    /// A client frame's header: final, `opcode`, masked with a zero key (the payload goes as is).
    fn header(opcode: u8, len: usize) -> Vec<u8> {
        let mut header = vec![0x80 | opcode];
        match len {
            0..=125 => header.push(0x80 | len as u8),
            126..=0xffff => {
                header.push(0x80 | 126);
                header.extend_from_slice(&(len as u16).to_be_bytes());
            }
            _ => {
                header.push(0x80 | 127);
                header.extend_from_slice(&(len as u64).to_be_bytes());
            }
        }
        header.extend_from_slice(&[0; 4]);
        header
    }

    /// A whole client frame.
    fn frame(opcode: u8, len: usize) -> Vec<u8> {
        let mut frame = Self::header(opcode, len);
        frame.resize(frame.len() + len, b'x');
        frame
    }

    /// Everything the server sends until the connection ends, parsed into frames.
    async fn read_to_end(&mut self) -> Ending {
        use tokio::io::AsyncReadExt;
        let mut raw = Vec::new();
        let mut chunk = [0u8; 4096];
        let orderly = loop {
            match tokio::time::timeout(WAIT, self.0.read(&mut chunk))
                .await
                .expect("the server ends the connection in time")
            {
                Ok(0) => break true,
                Ok(n) => raw.extend_from_slice(&chunk[..n]),
                Err(_) => break false,
            }
        };
        let (mut opcodes, mut close) = (Vec::new(), None);
        let mut rest = &raw[..];
        while rest.len() >= 2 {
            let (opcode, short) = (rest[0] & 0x0f, usize::from(rest[1] & 0x7f));
            let (len, at) = match short {
                126 => (usize::from(u16::from_be_bytes([rest[2], rest[3]])), 4),
                127 => (
                    u64::from_be_bytes(rest[2..10].try_into().unwrap()) as usize,
                    10,
                ),
                len => (len, 2),
            };
            let payload = &rest[at..at + len];
            if opcode == 0x8 && len >= 2 {
                close = Some(u16::from_be_bytes([payload[0], payload[1]]));
            }
            opcodes.push(opcode);
            rest = &rest[at + len..];
        }
        Ending {
            opcodes,
            close,
            orderly,
        }
    }
}

const TEXT: u8 = 0x1;
const BINARY: u8 = 0x2;
const PING: u8 = 0x9;

/// Issue 18, point 8: a frame over `limits.max_frame_bytes`, whatever its size, is refused on its
/// header: the server closes with 1009 without waiting for a payload that never comes, and ends the
/// connection in order.
#[tokio::test]
async fn an_oversized_frame_is_refused_on_its_header_before_its_payload() {
    use tokio::io::AsyncWriteExt;
    let mut config = test_config();
    // Nothing but the frame may close these connections.
    config.timers.join_timeout_ms = 600_000;
    let addr = start(config).await;
    for len in [5 << 10, 100 << 10, 20 << 20] {
        let mut ws = RawWs::connect(addr).await;
        ws.0.write_all(&RawWs::header(TEXT, len)).await.unwrap();
        let end = ws.read_to_end().await;
        assert_eq!(
            (end.close, end.orderly),
            (Some(1009), true),
            "{len}: {end:?}"
        );
    }
}

/// Issue 18, point 8: a client that writes everything (an oversized frame's whole payload, a binary
/// frame, a burst of pings) before it reads anything reads the close code and then an orderly end,
/// not a reset: after its close frame the server reads and drops what the client still sends.
#[tokio::test]
async fn a_client_that_writes_everything_before_reading_sees_the_close_code_not_a_reset() {
    use tokio::io::AsyncWriteExt;
    let mut config = test_config();
    config.limits.rate_messages = 20;
    config.timers.join_timeout_ms = 600_000;
    let addr = start(config).await;
    let pings: Vec<u8> = (0..150).flat_map(|_| RawWs::frame(PING, 0)).collect();
    for (what, bytes, code) in [
        ("5 KiB text", RawWs::frame(TEXT, 5 << 10), 1009),
        ("100 KiB text", RawWs::frame(TEXT, 100 << 10), 1009),
        ("20 MiB text", RawWs::frame(TEXT, 20 << 20), 1009),
        ("1 KB binary", RawWs::frame(BINARY, 1000), 1003),
        ("60 KB binary", RawWs::frame(BINARY, 60_000), 1009),
        ("150 pings", pings, 1008),
    ] {
        let mut ws = RawWs::connect(addr).await;
        let written = ws.0.write_all(&bytes).await;
        let end = ws.read_to_end().await;
        assert!(
            written.is_ok() && end.close == Some(code) && end.orderly,
            "{what}: written {written:?}, {end:?}"
        );
        assert_eq!(
            end.opcodes.last(),
            Some(&0x8),
            "{what}: the close comes last"
        );
        if code == 1008 {
            // Pongs for the burst allowed (20, and the library's answer to the one that closed), then
            // nothing for the other 129.
            let pongs = &end.opcodes[..end.opcodes.len() - 1];
            assert!(pongs.iter().all(|op| *op == 0xA), "{what}: {end:?}");
            assert!(pongs.len() <= 21, "{what}: {end:?}");
        }
    }
}

/// The linger after a close is bounded in bytes (`limits.close_linger_bytes`) and in time
/// (`limits.close_linger_ms`): a client that keeps sending, or keeps its side open, is cut off, and
/// the cut is counted.
#[tokio::test]
async fn the_linger_after_a_close_is_bounded_in_bytes_and_time() {
    use tokio::io::AsyncWriteExt;
    let mut config = test_config();
    config.limits.close_linger_bytes = 64 << 10;
    config.limits.close_linger_ms = 600_000;
    let addr = start(config).await;
    let series = r#"fourkings_ws_linger_cut_total{bound="bytes"}"#;
    let before = metric(addr, series).await;
    let mut ws = RawWs::connect(addr).await;
    // 64 MiB: more than the kernel buffers between the two hold, so the server must read to take it.
    let written = ws.0.write_all(&RawWs::frame(TEXT, 64 << 20)).await;
    assert!(written.is_err(), "the server read 64 MiB after its close");
    assert!(metric(addr, series).await >= before + 1.0);

    let mut config = test_config();
    config.limits.close_linger_ms = 100;
    let addr = start(config).await;
    let series = r#"fourkings_ws_linger_cut_total{bound="time"}"#;
    let before = metric(addr, series).await;
    let mut ws = RawWs::connect(addr).await;
    ws.0.write_all(&RawWs::header(TEXT, 5 << 10)).await.unwrap();
    // The client reads the close and the end, but never closes its own side: the linger's time runs out.
    let end = ws.read_to_end().await;
    assert_eq!(end.close, Some(1009), "{end:?}");
    for attempt in 0.. {
        if metric(addr, series).await >= before + 1.0 {
            break;
        }
        assert!(attempt < 200, "the linger never ends");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
