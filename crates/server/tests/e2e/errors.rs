//! Every WebSocket error code, each answered with an `error` while the connection carries on.

use serde_json::json;

use crate::support::*;

async fn expect_error(c: &mut Client, code: &str, ack: Option<u64>) {
    let m = c.until(|m| m["t"] == "error").await;
    assert_eq!(m["code"], code, "{m}");
    assert_eq!(m["ack"].as_u64(), ack, "{m}");
}

#[tokio::test]
async fn every_error_code_and_the_connection_carries_on() {
    let addr = start(test_config()).await;
    let (room, host_token) = create_room(
        addr,
        json!({"game": "chaturaji", "options": {"round_limit": 5}}),
    )
    .await;
    let (_, red) = join_seat(addr, &room, "Ann").await;
    let (_, blue) = join_seat(addr, &room, "Bo").await;

    let mut c = Client::connect(addr).await;
    c.send_text("{not json".into()).await;
    expect_error(&mut c, "bad_json", None).await;
    c.send_text("[1,2]".into()).await;
    expect_error(&mut c, "bad_json", None).await;
    c.send(json!({"t": "dance"})).await;
    expect_error(&mut c, "unknown_type", None).await;
    c.send(json!({"t": "act", "ack": 3})).await;
    expect_error(&mut c, "bad_message", Some(3)).await;
    c.send(json!({"t": "act", "ack": 4, "action": {"type": "end_turn"}}))
        .await;
    expect_error(&mut c, "not_joined", Some(4)).await;
    c.send(json!({"t": "join", "room": "nosuchroom"})).await;
    expect_error(&mut c, "unknown_room", None).await;
    c.send(json!({"t": "join", "room": room, "token": "0123"}))
        .await;
    expect_error(&mut c, "bad_token", None).await;
    // Still usable: ping, then join as a spectator.
    c.send(json!({"t": "ping", "n": 9})).await;
    let pong = c.until(|m| m["t"] == "pong").await;
    assert_eq!(pong["n"], 9);
    c.join(&room, None, None).await;
    c.send(json!({"t": "act", "ack": 5, "action": {"type": "end_turn"}}))
        .await;
    expect_error(&mut c, "spectator", Some(5)).await;

    let mut r = Client::connect(addr).await;
    r.join(&room, Some(&red), None).await;
    r.send(json!({"t": "act", "ack": 1, "action": {"type": "end_turn"}}))
        .await;
    expect_error(&mut r, "no_game", Some(1)).await;

    let mut b = Client::connect(addr).await;
    b.join(&room, Some(&blue), None).await;
    let (status, _) = host(addr, &room, "start", &host_token).await;
    assert_eq!(status, 200);
    // One of the two humans is to act first (a seat whose throw is unusable passes at once).
    let first = tokio::select! {
        _ = r.until(|m| m["t"] == "view") => 0,
        _ = b.until(|m| m["t"] == "view") => 1,
    };
    let (r, b) = if first == 0 {
        (&mut r, &mut b)
    } else {
        (&mut b, &mut r)
    };
    b.send(json!({"t": "act", "ack": 2, "action": {"type": "end_turn"}}))
        .await;
    expect_error(b, "not_your_turn", Some(2)).await;
    // A move no piece can make, and an action of the wrong shape.
    r.send(json!({"t": "act", "ack": 3, "action": {"type": "move", "die": 0, "from": "e4", "to": "e5"}}))
        .await;
    expect_error(r, "illegal_action", Some(3)).await;
    r.send(json!({"t": "act", "ack": 4, "action": {"type": "fly"}}))
        .await;
    expect_error(r, "bad_message", Some(4)).await;
    r.send(json!({"t": "act", "ack": 5, "action": {"type": "roll", "dice": [6, 6]}}))
        .await;
    expect_error(r, "bad_message", Some(5)).await;

    // Resigning twice is refused by the rules (both humans are never both passed over before
    // they resign: the round limit is far enough); after the round limit the game is over.
    r.send(json!({"t": "resign", "ack": 6})).await;
    let ack = r.until(|m| m["t"] == "ack").await;
    assert_eq!(ack["ack"], 6);
    r.send(json!({"t": "resign", "ack": 7})).await;
    expect_error(r, "illegal_action", Some(7)).await;
    b.send(json!({"t": "resign", "ack": 8})).await;
    b.until(|m| m["t"] == "ack").await;
    r.until(|m| is_event(m, "game_over")).await;
    r.send(json!({"t": "act", "ack": 9, "action": {"type": "end_turn"}}))
        .await;
    expect_error(r, "game_over", Some(9)).await;
}
