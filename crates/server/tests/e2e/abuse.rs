//! Issue 18: no single client can deny the server to everyone else. Each test plays one attack
//! against a real server on port 0 over real sockets, with small configured limits so that it stays
//! quick, and checks what the attacker sees (a 429/503/413 or a close code with a stable `code`),
//! that another client is unaffected, and the counter in `/metrics`.

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::SinkExt;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

use crate::support::*;

/// One request with `extra` header lines (each ending in `\r\n`); status, lower-cased head, body.
async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    extra: &str,
    body: &str,
) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).await.expect("connects");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{extra}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    // A body the server refuses early may not be read at all: a failed write is its answer.
    let _ = stream.write_all(body.as_bytes()).await;
    let mut raw = Vec::new();
    let _ = tokio::time::timeout(WAIT, stream.read_to_end(&mut raw))
        .await
        .expect("an answer in time");
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, rest) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, head.to_ascii_lowercase(), rest.to_owned())
}

/// `POST /rooms` as the client `ip` behind the trusted proxy (this test's loopback address).
async fn create_as(addr: SocketAddr, ip: &str, body: Value) -> (u16, Value) {
    let (status, _, body) = request(
        addr,
        "POST",
        "/rooms",
        &format!("X-Forwarded-For: {ip}\r\n"),
        &body.to_string(),
    )
    .await;
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

/// A server that believes the loopback proxy's `X-Forwarded-For`, so one test plays many clients.
fn behind_proxy() -> server::Config {
    let mut config = test_config();
    config.server.trusted_proxies = vec!["127.0.0.1".parse().unwrap()];
    config
}

#[tokio::test]
async fn a_room_flood_is_rate_limited_per_client_and_forwarded_for_only_counts_behind_a_trusted_proxy()
 {
    let mut config = behind_proxy();
    config.limits.rest_write_burst = 3;
    config.limits.rest_write_per_minute = 1;
    let addr = start(config).await;
    let series = r#"fourkings_rate_limited_total{kind="write"}"#;
    let before = metric(addr, series).await;
    for _ in 0..3 {
        let (status, v) = create_as(addr, "198.51.100.1", json!({"game": "chaturaji"})).await;
        assert_eq!(status, 200, "{v}");
    }
    let (status, head, body) = request(
        addr,
        "POST",
        "/rooms",
        "X-Forwarded-For: 198.51.100.1\r\n",
        r#"{"game":"chaturaji"}"#,
    )
    .await;
    assert_eq!(status, 429, "{body}");
    assert!(head.contains("retry-after: "), "{head}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["error"]["code"], "rate_limited");
    // Another client is not held by the first one's bucket.
    let (status, v) = create_as(addr, "198.51.100.2", json!({"game": "chaturaji"})).await;
    assert_eq!(status, 200, "{v}");
    assert!(metric(addr, series).await >= before + 1.0);

    // Without a trusted proxy the header is the client's own word: a fresh one per request does not
    // buy a fresh bucket.
    let mut config = test_config();
    config.limits.rest_write_burst = 3;
    config.limits.rest_write_per_minute = 1;
    let addr = start(config).await;
    let statuses: Vec<u16> = futures_util::future::join_all((0..5).map(|i| async move {
        create_as(
            addr,
            &format!("198.51.100.{i}"),
            json!({"game": "chaturaji"}),
        )
        .await
        .0
    }))
    .await;
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        3,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 429).count(),
        2,
        "{statuses:?}"
    );
}

#[tokio::test]
async fn one_client_holds_a_bounded_number_of_open_lobbies() {
    let mut config = behind_proxy();
    config.limits.max_open_lobbies_per_client = 2;
    let addr = start(config).await;
    let series = r#"fourkings_client_limited_total{what="lobbies"}"#;
    let before = metric(addr, series).await;
    let mut hosts = Vec::new();
    for _ in 0..2 {
        let (status, v) = create_as(addr, "198.51.100.7", json!({"game": "chaturaji"})).await;
        assert_eq!(status, 200, "{v}");
        hosts.push((
            v["room"].as_str().unwrap().to_owned(),
            v["host_token"].as_str().unwrap().to_owned(),
        ));
    }
    let (status, v) = create_as(addr, "198.51.100.7", json!({"game": "chaturaji"})).await;
    assert_eq!(status, 429, "{v}");
    assert_eq!(v["error"]["code"], "client_limit");
    assert!(metric(addr, series).await >= before + 1.0);
    // Others still create rooms.
    let (status, v) = create_as(addr, "198.51.100.8", json!({"game": "chaturaji"})).await;
    assert_eq!(status, 200, "{v}");
    // A lobby whose game started is no longer a lobby: its host may open another.
    let (room, token) = &hosts[0];
    let (status, v) = host(addr, room, "start", token).await;
    assert_eq!(status, 200, "{v}");
    let (status, v) = create_as(addr, "198.51.100.7", json!({"game": "chaturaji"})).await;
    assert_eq!(status, 200, "{v}");
}

#[tokio::test]
async fn the_global_room_cap_holds_when_many_clients_create_at_once() {
    let mut config = behind_proxy();
    config.server.max_rooms = 5;
    let addr = start(config).await;
    // 8 clients, 3 rooms each, all at once.
    let statuses: Vec<u16> = futures_util::future::join_all((0..24).map(|i| async move {
        create_as(
            addr,
            &format!("198.51.100.{}", i % 8),
            json!({"game": "chaturaji"}),
        )
        .await
        .0
    }))
    .await;
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        5,
        "{statuses:?}"
    );
    assert!(
        statuses.iter().all(|s| *s == 200 || *s == 503),
        "{statuses:?}"
    );
    let (_, health) = http(addr, "GET", "/healthz", None, None).await;
    assert_eq!(health["rooms"], 5);
}

#[tokio::test]
async fn a_huge_body_is_refused_unread_and_error_details_are_capped() {
    let options: serde_json::Map<String, Value> = (0..2000)
        .map(|i| (format!("unknown_{i}"), json!(1)))
        .collect();
    let huge = json!({"game": "chaturaji", "options": options}).to_string();
    assert!(huge.len() > 16 * 1024);
    let addr = start(test_config()).await;
    let (status, _, body) = request(addr, "POST", "/rooms", "", &huge).await;
    assert_eq!(status, 413, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["error"]["code"], "body_too_large");

    // Under a larger body limit, 2000 problems are answered with the first 20 and a count.
    let mut config = test_config();
    config.limits.max_body_bytes = 1 << 20;
    let addr = start(config).await;
    let (status, _, body) = request(addr, "POST", "/rooms", "", &huge).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.len() < 8 * 1024, "{} bytes", body.len());
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["error"]["code"], "bad_options");
    assert_eq!(v["error"]["details"].as_array().unwrap().len(), 20);
    let message = v["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("2000") && message.contains("1980 more"),
        "{message}"
    );
}

#[tokio::test]
async fn the_room_list_comes_in_bounded_pages_and_reads_are_rate_limited() {
    let mut config = behind_proxy();
    config.limits.rooms_page_default = 2;
    config.limits.rooms_page_max = 3;
    config.limits.rest_read_burst = 6;
    config.limits.rest_read_per_minute = 1;
    let addr = start(config).await;
    let mut created = Vec::new();
    for i in 0..5 {
        let (status, v) = create_as(
            addr,
            &format!("198.51.100.{i}"),
            json!({"game": "chaturaji", "public": true}),
        )
        .await;
        assert_eq!(status, 200, "{v}");
        created.push(v["room"].as_str().unwrap().to_owned());
    }
    // A private room is never listed.
    create_as(addr, "198.51.100.9", json!({"game": "chaturaji"})).await;
    created.sort();
    let mut listed = Vec::new();
    let mut query = String::new();
    let mut pages = 0;
    loop {
        let (status, page) = http(addr, "GET", &format!("/rooms{query}"), None, None).await;
        assert_eq!(status, 200, "{page}");
        pages += 1;
        let rooms = page["rooms"].as_array().unwrap();
        assert!(rooms.len() <= 2, "{page}");
        listed.extend(rooms.iter().map(|r| r["id"].as_str().unwrap().to_owned()));
        match page["next"].as_str() {
            Some(next) => query = format!("?after={next}"),
            None => break,
        }
    }
    assert_eq!(listed, created);
    assert_eq!(pages, 3);
    let (status, v) = http(addr, "GET", "/rooms?limit=4", None, None).await;
    assert_eq!(status, 400, "{v}");
    assert_eq!(v["error"]["code"], "bad_request");
    // 4 reads so far, a burst of 6: two more pass, the one after is refused; probes are not limited.
    for _ in 0..2 {
        let (status, _) = http(addr, "GET", "/rooms?limit=3", None, None).await;
        assert_eq!(status, 200);
    }
    let (status, v) = http(addr, "GET", "/rooms", None, None).await;
    assert_eq!(status, 429, "{v}");
    assert_eq!(v["error"]["code"], "rate_limited");
    let (status, _) = http(addr, "GET", "/healthz", None, None).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn player_identities_are_rate_limited_per_client() {
    let mut config = test_config();
    config.limits.rest_write_burst = 2;
    config.limits.rest_write_per_minute = 1;
    let addr = start(config).await;
    for _ in 0..2 {
        let (status, v) = post(addr, "/players", None, json!({"display_name": "Ann"})).await;
        assert_eq!(status, 200, "{v}");
    }
    let (status, v) = post(addr, "/players", None, json!({"display_name": "Ann"})).await;
    assert_eq!(status, 429, "{v}");
    assert_eq!(v["error"]["code"], "rate_limited");
}

#[tokio::test]
async fn static_files_answer_get_and_head_only_with_the_security_headers() {
    let addr = start(test_config()).await;
    for method in ["PUT", "POST", "TRACE", "DELETE"] {
        let (status, head, body) = request(addr, method, "/index.html", "", "").await;
        assert_eq!(status, 405, "{method}: {body}");
        assert!(head.contains("allow: get, head"), "{head}");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["error"]["code"], "method_not_allowed");
    }
    let (status, head, body) = request(addr, "GET", "/", "", "").await;
    assert_eq!(status, 200);
    assert!(body.contains("<html"), "{body}");
    for header in [
        "content-security-policy: default-src 'self'",
        "frame-ancestors 'none'",
        "x-content-type-options: nosniff",
        "referrer-policy: no-referrer",
        "x-frame-options: deny",
    ] {
        assert!(head.contains(header), "{header} missing in {head}");
    }
    let (status, _, body) = request(addr, "HEAD", "/", "", "").await;
    assert_eq!(status, 200);
    assert!(body.is_empty(), "{body}");
    let (status, head, _) = request(addr, "GET", "/favicon.ico", "", "").await;
    assert_eq!(status, 200);
    assert!(head.contains("content-type: image/x-icon"), "{head}");
}

/// Whether the server closed `stream` within `within` (EOF or reset on read).
async fn closed_by_server(stream: &mut TcpStream, within: Duration) -> bool {
    let mut buf = [0u8; 1024];
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => continue,
        }
    }
}

#[tokio::test]
async fn silent_and_slowloris_connections_are_swept() {
    let mut config = test_config();
    config.server.header_timeout_ms = 300;
    let addr = start(config).await;
    let series = r#"fourkings_http_timeouts_total{kind="header"}"#;
    let before = metric(addr, series).await;
    let mut silent = TcpStream::connect(addr).await.unwrap();
    let mut slow = TcpStream::connect(addr).await.unwrap();
    let trickle = async {
        for b in b"GET /healthz HTTP/1.1\r\nHost: x\r\n" {
            if slow.write_all(&[*b]).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    // The trickle would take 3.4 s; the header timeout ends it long before.
    let _ = tokio::time::timeout(Duration::from_secs(1), trickle).await;
    assert!(closed_by_server(&mut silent, Duration::from_secs(3)).await);
    assert!(closed_by_server(&mut slow, Duration::from_secs(3)).await);
    assert!(metric(addr, series).await >= before + 2.0);
    // A keep-alive connection idle past the timeout is closed too.
    let mut kept = TcpStream::connect(addr).await.unwrap();
    kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    assert!(closed_by_server(&mut kept, Duration::from_secs(3)).await);
}

#[tokio::test]
async fn one_client_ip_holds_a_bounded_number_of_connections() {
    let mut config = test_config();
    config.limits.max_connections_per_ip = 4;
    let addr = start(config).await;
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(TcpStream::connect(addr).await.unwrap());
    }
    let (status, _, body) = request(addr, "GET", "/healthz", "", "").await;
    assert_eq!(status, 429, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["error"]["code"], "client_limit");
    drop(held.pop());
    // The freed place is noticed asynchronously.
    for attempt in 0.. {
        let (status, _, _) = request(addr, "GET", "/healthz", "", "").await;
        if status == 200 {
            break;
        }
        assert!(attempt < 100, "a freed place is never reused");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn the_probes_answer_when_clients_hold_every_connection() {
    let mut config = test_config();
    config.limits.max_connections = 8;
    config.limits.probe_reserve = 3;
    let addr = start(config).await;
    let mut held = Vec::new();
    for _ in 0..8 {
        held.push(TcpStream::connect(addr).await.unwrap());
    }
    // Let the server accept them all before probing.
    tokio::time::sleep(Duration::from_millis(100)).await;
    for probe in ["/healthz", "/readyz", "/metrics"] {
        let (status, _, body) = request(addr, "GET", probe, "", "").await;
        assert_eq!(status, 200, "{probe}: {body}");
    }
    let (status, _, body) = request(addr, "GET", "/rooms", "", "").await;
    assert_eq!(status, 503, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["error"]["code"], "too_many_connections");
}

#[tokio::test]
async fn a_websocket_that_does_not_join_in_time_is_closed_with_4003() {
    let mut config = test_config();
    config.timers.join_timeout_ms = 300;
    let addr = start(config).await;
    let (room, _) = create_room(addr, json!({"game": "chaturaji"})).await;
    let mut idle = Client::connect(addr).await;
    let mut joined = Client::connect(addr).await;
    joined.join(&room, None, None).await;
    assert_eq!(idle.closed_with().await, Some(4003));
    // The one that joined stays.
    joined.send(json!({"t": "ping", "n": 7})).await;
    let pong = joined.until(|m| m["t"] == "pong").await;
    assert_eq!(pong["n"], 7);
}

#[tokio::test]
async fn a_binary_frame_closes_with_1003() {
    let addr = start(test_config()).await;
    let mut client = Client::connect(addr).await;
    client
        .ws
        .send(Message::Binary(vec![0u8; 1000].into()))
        .await
        .unwrap();
    assert_eq!(client.closed_with().await, Some(1003));
}

#[tokio::test]
async fn a_ping_burst_ends_in_a_clean_1008() {
    let mut config = test_config();
    config.limits.rate_messages = 20;
    let addr = start(config).await;
    let series = r#"fourkings_ws_closes_total{reason="rate_limit"}"#;
    let before = metric(addr, series).await;
    let mut client = Client::connect(addr).await;
    // 150 pings without reading a thing.
    for _ in 0..150 {
        if client
            .ws
            .feed(Message::Ping(Default::default()))
            .await
            .is_err()
        {
            break;
        }
    }
    let _ = client.ws.flush().await;
    assert_eq!(client.closed_with().await, Some(1008));
    assert!(metric(addr, series).await >= before + 1.0);
}

#[tokio::test]
async fn binary_frames_count_against_the_rate_limit_too() {
    let mut config = test_config();
    config.limits.rate_messages = 3;
    let addr = start(config).await;
    let mut client = Client::connect(addr).await;
    // Three pongs (unsolicited, allowed by the protocol) use the budget up: the next frame closes.
    for _ in 0..3 {
        client
            .ws
            .send(Message::Pong(Default::default()))
            .await
            .unwrap();
    }
    client.send(json!({"t": "ping", "n": 1})).await;
    let (_, code) = client.drain_until_close().await;
    assert_eq!(code, Some(1008));
}

#[tokio::test]
async fn every_metric_is_served_from_the_start() {
    // A process of its own: in this test binary other servers have long recorded everything.
    let dir = tempfile::tempdir().unwrap();
    let server = crate::process::ServerProc::start(&[
        (
            "FOURKINGS_DATABASE__URL",
            format!("sqlite://{}/fourkings.db", dir.path().display()),
        ),
        (
            "FOURKINGS_DATABASE__SPOOL_PATH",
            format!("{}/spool.jsonl", dir.path().display()),
        ),
    ]);
    let (status, body) = http(server.addr, "GET", "/metrics", None, None).await;
    assert_eq!(status, 200);
    let text = body.as_str().unwrap();
    for series in [
        "fourkings_connections 0",
        "fourkings_tcp_connections ",
        r#"fourkings_ws_closes_total{reason="rate_limit"} 0"#,
        r#"fourkings_ws_closes_total{reason="join_deadline"} 0"#,
        r#"fourkings_rate_limited_total{kind="write"} 0"#,
        r#"fourkings_client_limited_total{what="lobbies"} 0"#,
        r#"fourkings_refused_connections_total{reason="client_limit"} 0"#,
        r#"fourkings_http_timeouts_total{kind="header"} 0"#,
        r#"fourkings_errors_total{code="rate_limited"} 0"#,
        "fourkings_rate_limit_closes_total 0",
        "fourkings_actions_total 0",
    ] {
        assert!(text.contains(series), "{series} missing:\n{text}");
    }
    server.kill9();
}

/// Send `ack` with the seat's first legal action; returns the answer (ack or error) and the seat's
/// next view with legal actions (it may arrive before or after the ack), or `None` when the game
/// ends first: the CPU seats can take red's king and finish the game without red.
async fn act_first_legal(red: &mut Client, view: &Value, ack: u64) -> Option<(Value, Value)> {
    red.send(json!({"t": "act", "ack": ack, "action": view["legal"][0]}))
        .await;
    let mut answer = None;
    let mut next_view: Option<Value> = None;
    loop {
        let m = red.next().await.expect("open");
        if m["t"] == "view"
            && m["seat"] == "red"
            && m["legal"].as_array().is_some_and(|l| !l.is_empty())
        {
            next_view = Some(m);
        } else if (m["t"] == "ack" || m["t"] == "error") && m["ack"] == ack {
            answer = Some(m);
        } else if is_event(&m, "game_over") {
            return None;
        }
        match (&answer, &next_view) {
            // Refused: nothing changed, the view stands.
            (Some(a), _) if a["t"] == "error" => return Some((a.clone(), view.clone())),
            (Some(a), Some(v)) if v["v"].as_u64() >= a["v"].as_u64() => {
                return Some((a.clone(), v.clone()));
            }
            _ => {}
        }
    }
}

/// One try of the resent-ack scenario in a fresh room: `None` when the CPU seats ended the game
/// before red had played its three actions (about one game in a hundred).
async fn resent_acks_in_a_fresh_room(addr: SocketAddr) -> Option<()> {
    let (room, host_token) = create_room(addr, json!({"game": "chaturaji"})).await;
    let (_, token) = join_seat(addr, &room, "Ann").await;
    let mut red = Client::connect(addr).await;
    red.join(&room, Some(&token), None).await;
    host(addr, &room, "start", &host_token).await;
    let mut view = red
        .until(|m| {
            m["t"] == "view"
                && m["seat"] == "red"
                && m["legal"].as_array().is_some_and(|l| !l.is_empty())
        })
        .await;
    let mut acked = Vec::new();
    for ack in 1..=3 {
        let (answer, next) = act_first_legal(&mut red, &view, ack).await?;
        assert_eq!(answer["t"], "ack", "{answer}");
        acked.push(answer["v"].as_u64().unwrap());
        view = next;
    }
    // Ack 1 has left the seat's memory (it keeps 2): resent with a legal action, it is refused.
    // (Refused before the rules see it, so the game's state does not matter from here on.)
    let (answer, _) = act_first_legal(&mut red, &view, 1).await?;
    assert_eq!(answer["t"], "error", "{answer}");
    assert_eq!(answer["code"], "stale_ack");
    // Ack 3 is still remembered: re-acked with its version, not applied again.
    red.send(json!({"t": "act", "ack": 3, "action": view["legal"][0]}))
        .await;
    let again = red.until(|m| m["ack"] == 3).await;
    assert_eq!(again["t"], "ack", "{again}");
    assert_eq!(again["v"].as_u64(), Some(acked[2]));
    // A higher id plays on: it is red's turn, the view above is red's current one.
    red.send(json!({"t": "act", "ack": 4, "action": view["legal"][0]}))
        .await;
    let answer = red.until(|m| m["ack"] == 4).await;
    assert_eq!(answer["t"], "ack", "{answer}");
    Some(())
}

#[tokio::test]
async fn a_resent_ack_id_below_the_highest_is_never_applied_again() {
    let mut config = test_config();
    config.rooms.acks_kept = 2;
    let addr = start(config).await;
    let mut tries = 0;
    while resent_acks_in_a_fresh_room(addr).await.is_none() {
        tries += 1;
        assert!(
            tries < 5,
            "the CPU seats ended five games before red's three actions"
        );
    }
}

#[tokio::test]
async fn seat_names_and_player_names_follow_one_rule() {
    let addr = start(test_config()).await;
    let (room, _) = create_room(addr, json!({"game": "chaturaji"})).await;
    for bad in [
        "A\u{0}nn",
        "A\u{1b}[31mnn",
        "A\u{7}nn",
        "A\nnn",
        "A\u{202E}nn",
        "An\u{200B}n",
        "\u{FEFF}Ann",
    ] {
        let (status, v) = post(
            addr,
            &format!("/rooms/{room}/join"),
            None,
            json!({"name": bad}),
        )
        .await;
        assert_eq!(
            (status, v["error"]["code"].as_str()),
            (400, Some("bad_message")),
            "seat {bad:?}: {v}"
        );
        let (status, v) = post(addr, "/players", None, json!({"display_name": bad})).await;
        assert_eq!(
            (status, v["error"]["code"].as_str()),
            (400, Some("bad_message")),
            "player {bad:?}: {v}"
        );
    }
    let (status, v) = post(
        addr,
        &format!("/rooms/{room}/join"),
        None,
        json!({"name": " Zoë "}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    let (status, v) = post(addr, "/players", None, json!({"display_name": " Zoë "})).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["display_name"], "Zoë");
}

#[tokio::test]
async fn a_lobby_nobody_joined_expires_before_the_idle_time_of_a_game() {
    let mut config = test_config();
    config.rooms.lobby_idle_ms = 150;
    let addr = start(config).await;
    let (lobby, _) = create_room(addr, json!({"game": "chaturaji"})).await;
    let (game, host_token) = create_room(addr, json!({"game": "chaturaji"})).await;
    let (status, v) = host(addr, &game, "start", &host_token).await;
    assert_eq!(status, 200, "{v}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (status, body) = http(addr, "GET", &format!("/rooms/{lobby}"), None, None).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (404, &json!("unknown_room"))
    );
    // A game nobody watches keeps `rooms.idle_close_ms` (an hour by default).
    let (status, _) = http(addr, "GET", &format!("/rooms/{game}"), None, None).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_seat_reconnecting_in_a_loop_is_refused_past_its_rate() {
    let mut config = test_config();
    config.rooms.reconnects_per_minute = 3;
    let addr = start(config).await;
    let series = r#"fourkings_client_limited_total{what="reconnects"}"#;
    let before = metric(addr, series).await;
    let (room, _) = create_room(addr, json!({"game": "chaturaji"})).await;
    let (_, token) = join_seat(addr, &room, "Ann").await;
    for _ in 0..3 {
        let mut seat = Client::connect(addr).await;
        seat.join(&room, Some(&token), None).await;
    }
    let mut seat = Client::connect(addr).await;
    seat.send(json!({"t": "join", "room": room, "token": token}))
        .await;
    let refused = seat
        .until(|m| m["t"] == "welcome" || m["t"] == "error")
        .await;
    assert_eq!(refused["code"], "rate_limited", "{refused}");
    assert!(metric(addr, series).await >= before + 1.0);
    // A spectator is not a seat: it still joins.
    let mut watcher = Client::connect(addr).await;
    watcher.join(&room, None, None).await;
}

/// Point 9: a seat that drops and comes straight back (a reload, a reconnect loop) is announced to
/// no one; a drop that lasts `rooms.connection_settle_ms` is announced once, and so is the return.
#[tokio::test]
async fn a_seat_reconnecting_at_once_is_not_announced_and_a_real_drop_is_announced_once() {
    let mut config = test_config();
    config.rooms.connection_settle_ms = 400;
    let addr = start(config).await;
    let quick = "fourkings_quick_reconnects_total";
    let before = metric(addr, quick).await;
    let (room, _) = create_room(addr, json!({"game": "chaturaji"})).await;
    let (_, token) = join_seat(addr, &room, "Ann").await;
    let mut ann = Client::connect(addr).await;
    ann.join(&room, Some(&token), None).await;
    let mut watcher = Client::connect(addr).await;
    watcher.join(&room, None, None).await;
    for _ in 0..10 {
        drop(ann);
        ann = Client::connect(addr).await;
        ann.join(&room, Some(&token), None).await;
    }
    // A marker: the watcher's next event is Bob taking a seat, not one of the twenty blips.
    join_seat(addr, &room, "Bob").await;
    let next = watcher.until(|m| m["t"] == "event").await;
    assert_eq!(next["event"]["e"], "seat_taken", "{next}");
    // A real drop is announced, once.
    drop(ann);
    let next = watcher.until(|m| m["t"] == "event").await;
    assert_eq!(
        (&next["event"]["e"], &next["event"]["connected"]),
        (&json!("connection"), &json!(false)),
        "{next}"
    );
    // (A new connection may even be admitted before the server has seen the old one close: then
    // there was no drop at all.)
    assert!(metric(addr, quick).await >= before + 1.0);
    let mut ann = Client::connect(addr).await;
    ann.join(&room, Some(&token), None).await;
    let back = watcher.until(|m| m["t"] == "event").await;
    assert_eq!(
        (&back["event"]["e"], &back["event"]["connected"]),
        (&json!("connection"), &json!(true)),
        "{back}"
    );
}
