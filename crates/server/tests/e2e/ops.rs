//! Operations: `/metrics` after a short game, and the graceful shutdown (close 1012, drain hooks,
//! timeout) on an in-process server. The SIGTERM test of the real binary is in `restart.rs`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use crate::games::play_seat;
use crate::support::*;
use server::Application;

/// The value of the series `series` (name with its labels exactly as rendered, e.g.
/// `fourkings_rooms{state="finished"}`) in a Prometheus text exposition.
pub fn series(text: &str, series: &str) -> Option<f64> {
    text.lines().filter(|l| !l.starts_with('#')).find_map(|l| {
        l.strip_prefix(series)?
            .strip_prefix(' ')?
            .trim()
            .parse()
            .ok()
    })
}

/// The sum of a series over all its labels (e.g. the bot pool's per-level histograms).
pub fn series_sum(text: &str, name: &str) -> Option<f64> {
    let values: Vec<f64> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let rest = l.strip_prefix(name)?;
            let value = match rest.strip_prefix('{') {
                Some(labelled) => labelled.split_once("} ")?.1,
                None => rest.strip_prefix(' ')?,
            };
            value.trim().parse().ok()
        })
        .collect();
    (!values.is_empty()).then(|| values.iter().sum())
}

async fn scrape(addr: SocketAddr) -> String {
    let (status, body) = http(addr, "GET", "/metrics", None, None).await;
    assert_eq!(status, 200);
    match body {
        Value::String(text) => text,
        other => panic!("not the text format: {other}"),
    }
}

#[tokio::test]
async fn metrics_after_a_short_game() {
    let addr = start(test_config()).await;
    // One human (red) against three CPU players, 12 plies: red acts 3 times, the CPU 9 times.
    let (room, host_token) = create_room(
        addr,
        json!({"game": "fourchess", "options": {"mode": "teams", "move_limit": 12}}),
    )
    .await;
    let (seat, token) = join_seat(addr, &room, "Ann").await;
    assert_eq!(seat, "red");
    for cpu in ["blue", "yellow", "green"] {
        let (status, v) = post(
            addr,
            &format!("/rooms/{room}/cpu"),
            Some(&host_token),
            json!({"seat": cpu, "level": 1}),
        )
        .await;
        assert_eq!(status, 200, "{v}");
    }
    let player = tokio::spawn(play_seat(addr, room.clone(), token));
    // Start once the human is connected, so that the CPU does not play red.
    loop {
        let (_, info) = http(addr, "GET", &format!("/rooms/{room}"), None, None).await;
        if info["seats"][0]["connected"] == true {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let (status, v) = host(addr, &room, "start", &host_token).await;
    assert_eq!(status, 200, "{v}");
    // A game that reaches its 12 plies is three actions of red's and nine of the CPU's; the easy
    // CPU players can also end it sooner (a mate), and the checks below then count what was played.
    let (over, acked) = player.await.unwrap();
    let to_the_limit = over["event"]["outcome"]["reason"]["reason"] == "move_limit";
    if to_the_limit {
        assert_eq!(acked, 3, "{over}");
    } else {
        assert!((1..=3).contains(&acked), "{acked}: {over}");
    }
    let acked = acked as f64;
    // Three CPU moves after each of red's, but perhaps the last one's.
    let cpu_moves = if to_the_limit {
        9.0
    } else {
        3.0 * (acked - 1.0)
    };

    // Errors by code: one on the WebSocket, one over REST.
    let mut bad = Client::connect(addr).await;
    bad.send_text("not json".into()).await;
    let err = bad.next().await.unwrap();
    assert_eq!(err["code"], "bad_json");
    let (status, _) = http(addr, "GET", "/rooms/nosuchroom", None, None).await;
    assert_eq!(status, 404);
    // A rate-limit close: more frames than `rate_messages` at once.
    let mut spam = Client::connect(addr).await;
    let limit = test_config().limits.rate_messages;
    for n in 0..=limit {
        spam.send(json!({"t": "ping", "n": n})).await;
    }
    let (_, code) = spam.drain_until_close().await;
    assert_eq!(code, Some(1008));

    // The human's connection is gone once its seat shows as disconnected.
    loop {
        let (_, info) = http(addr, "GET", &format!("/rooms/{room}"), None, None).await;
        if info["seats"][0]["connected"] == false {
            assert_eq!(info["phase"], "finished");
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let text = scrape(addr).await;
    let get = |s: &str| series(&text, s).unwrap_or_else(|| panic!("no {s} in:\n{text}"));
    // Gauges sampled from this server's rooms: exact.
    assert_eq!(get(r#"fourkings_rooms{state="lobby"}"#), 0.0);
    assert_eq!(get(r#"fourkings_rooms{state="playing"}"#), 0.0);
    assert_eq!(get(r#"fourkings_rooms{state="finished"}"#), 1.0);
    assert_eq!(get(r#"fourkings_seats{occupant="human"}"#), 0.0);
    assert_eq!(get(r#"fourkings_seats{occupant="away"}"#), 1.0);
    assert_eq!(get(r#"fourkings_seats{occupant="cpu"}"#), 3.0);
    assert_eq!(get(r#"fourkings_seats{occupant="empty"}"#), 0.0);
    // Counters and histograms are process-wide (other tests run servers in this process too): at
    // least what this test did.
    assert!(get("fourkings_connections") >= 1.0, "`bad` is still open");
    assert!(get("fourkings_actions_total") >= acked);
    let acts = get("fourkings_act_latency_seconds_count");
    assert!(acts >= acked);
    let act_sum = get("fourkings_act_latency_seconds_sum");
    assert!(
        act_sum > 0.0 && act_sum / acts < 5.0,
        "mean act latency {act_sum}/{acts}"
    );
    assert_eq!(
        get(r#"fourkings_act_latency_seconds_bucket{le="+Inf"}"#),
        acts
    );
    let bot_thoughts = series_sum(&text, "fourkings_bot_think_seconds_count")
        .unwrap_or_else(|| panic!("no bot think time in:\n{text}"));
    assert!(bot_thoughts >= cpu_moves, "{bot_thoughts}");
    assert!(get(r#"fourkings_errors_total{code="bad_json"}"#) >= 1.0);
    assert!(get(r#"fourkings_errors_total{code="unknown_room"}"#) >= 1.0);
    assert!(get("fourkings_rate_limit_closes_total") >= 1.0);
    assert!(get(r#"fourkings_ws_closes_total{reason="rate_limit"}"#) >= 1.0);
    assert!(text.contains("# TYPE fourkings_act_latency_seconds histogram"));
    assert!(text.contains("# HELP fourkings_seats "));
    assert!(text.contains("# HELP fourkings_rooms_on_cpu_lane "));
    assert!(text.contains("# HELP fourkings_bot_overload_total "));
    assert!(series(&text, r#"fourkings_bot_overload_total{reason="late"}"#).is_some());
}

#[tokio::test]
async fn shutdown_closes_every_socket_with_1012_and_waits_for_the_drain_hooks() {
    let mut config = test_config();
    config.server.shutdown_timeout_ms = 5_000;
    let mut app = Application::build(config).await.unwrap();
    let addr = app.addr();
    let drained = Arc::new(AtomicBool::new(false));
    app.on_shutdown({
        let drained = drained.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            drained.store(true, Ordering::SeqCst);
        }
    });
    let trigger = app.shutdown_trigger();
    let server = tokio::spawn(app.run());

    let (room, _host) = create_room(addr, json!({"game": "chaturaji"})).await;
    let (_, token) = join_seat(addr, &room, "Ann").await;
    let mut player = Client::connect(addr).await;
    player.join(&room, Some(&token), None).await;
    let mut watcher = Client::connect(addr).await;
    watcher.join(&room, None, None).await;
    // Not joined to any room: closed the same way.
    let mut idle = Client::connect(addr).await;
    idle.send(json!({"t": "ping", "n": 1})).await;
    assert_eq!(idle.next().await.unwrap()["t"], "pong");

    trigger.trigger();
    for client in [&mut player, &mut watcher, &mut idle] {
        let (_, code) = client.drain_until_close().await;
        assert_eq!(code, Some(1012));
    }
    let result = tokio::time::timeout(WAIT, server).await.unwrap().unwrap();
    result.expect("a clean shutdown");
    assert!(drained.load(Ordering::SeqCst), "run() waited for the hook");
    // No longer accepting.
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

#[tokio::test]
async fn shutdown_that_overruns_its_timeout_is_an_error() {
    let mut config = test_config();
    config.server.shutdown_timeout_ms = 300;
    let mut app = Application::build(config).await.unwrap();
    app.on_shutdown(std::future::pending());
    let trigger = app.shutdown_trigger();
    let started = tokio::time::Instant::now();
    let server = tokio::spawn(app.run());
    trigger.trigger();
    let err = tokio::time::timeout(WAIT, server)
        .await
        .unwrap()
        .unwrap()
        .expect_err("the hook never finishes");
    assert_eq!(err.kind(), std::io::ErrorKind::TimedOut);
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_secs(3),
        "{took:?}"
    );
}
