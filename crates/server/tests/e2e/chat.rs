//! Chat in a room over real WebSockets: who reads what, the limits (length, characters, rate,
//! phrase ids, a muted seat, the spectators' channel), the host hiding a line, the snapshot, and chat
//! never reaching the room's log or the game's record.

use std::net::SocketAddr;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::support::*;

/// A lobby with Ann and Bo connected and one spectator; (room, host token, Ann, Bo, spectator).
async fn lobby(addr: SocketAddr, body: Value) -> (String, String, Client, Client, Client) {
    let (room, host) = create_room(addr, body).await;
    let (_, ann_token) = join_seat(addr, &room, "Ann").await;
    let (_, bo_token) = join_seat(addr, &room, "Bo").await;
    let mut ann = Client::connect(addr).await;
    ann.join(&room, Some(&ann_token), None).await;
    let mut bo = Client::connect(addr).await;
    bo.join(&room, Some(&bo_token), None).await;
    let mut watcher = Client::connect(addr).await;
    watcher.join(&room, None, None).await;
    (room, host, ann, bo, watcher)
}

fn is_chat(m: &Value) -> bool {
    m["t"] == "chat"
}

/// The next chat line or error (events on the way are skipped).
async fn chat_or_error(c: &mut Client) -> Value {
    c.until(|m| is_chat(m) || m["t"] == "error").await
}

/// Sends a ping and reads up to its pong: what came before it (nothing of `pred` must be there).
async fn nothing_before_pong(c: &mut Client, n: u64, pred: impl Fn(&Value) -> bool) {
    c.send(json!({"t": "ping", "n": n})).await;
    let m = c.until(|m| m["t"] == "pong" || pred(m)).await;
    assert_eq!(m["t"], "pong", "nothing expected before the pong: {m}");
}

async fn expect_error(c: &mut Client, msg: Value, code: &str) {
    c.send(msg.clone()).await;
    let m = chat_or_error(c).await;
    assert_eq!(m["t"], "error", "{msg} must be refused: {m}");
    assert_eq!(m["code"], code, "{msg}: {m}");
}

#[tokio::test]
async fn lines_reach_everyone_cleaned_and_bad_ones_are_refused() {
    let mut config = test_config();
    // This test is about the rules for a message, not the rate.
    config.chat.rate_messages = 1000;
    let addr = start(config).await;
    let (_, _, mut ann, mut bo, mut watcher) = lobby(addr, json!({"game": "fourchess"})).await;

    ann.send(json!({"t": "chat", "text": "  hi \u{202E}all\u{7}\nthere  "}))
        .await;
    for c in [&mut ann, &mut bo, &mut watcher] {
        let line = chat_or_error(c).await;
        assert!(is_chat(&line), "{line}");
        assert_eq!(
            line["text"], "hi all there",
            "control and bidi characters removed"
        );
        assert_eq!(line["channel"], "players");
        assert_eq!(line["seat"], "red");
        assert_eq!(line["name"], "Ann");
        assert!(line.get("phrase").is_none());
    }

    bo.send(json!({"t": "chat", "phrase": "good_luck"})).await;
    for c in [&mut ann, &mut bo, &mut watcher] {
        let line = chat_or_error(c).await;
        assert_eq!(line["phrase"], "good_luck", "{line}");
        assert_eq!(line["seat"], "blue");
        assert!(line.get("text").is_none());
    }

    // 200 characters after trimming are fine, 201 are not.
    let longest = format!("   {}   ", "é".repeat(200));
    ann.send(json!({"t": "chat", "text": longest})).await;
    let line = chat_or_error(&mut ann).await;
    assert_eq!(
        line["text"].as_str().unwrap().chars().count(),
        200,
        "{line}"
    );
    chat_or_error(&mut bo).await;
    chat_or_error(&mut watcher).await;
    expect_error(
        &mut ann,
        json!({"t": "chat", "text": "é".repeat(201)}),
        "chat_too_long",
    )
    .await;
    expect_error(
        &mut ann,
        json!({"t": "chat", "text": " \u{202E}\u{1b} "}),
        "chat_empty",
    )
    .await;
    expect_error(
        &mut ann,
        json!({"t": "chat", "phrase": "gg_ez"}),
        "unknown_phrase",
    )
    .await;
    expect_error(
        &mut ann,
        json!({"t": "chat", "text": "hi", "phrase": "hello"}),
        "bad_message",
    )
    .await;
    expect_error(&mut ann, json!({"t": "chat"}), "bad_message").await;
    // Nothing refused reached anyone.
    nothing_before_pong(&mut bo, 1, is_chat).await;
    nothing_before_pong(&mut watcher, 2, is_chat).await;
}

#[tokio::test]
async fn past_five_messages_in_ten_seconds_one_is_dropped_and_the_connection_stays() {
    let addr = start(test_config()).await;
    let (_, _, mut ann, mut bo, _watcher) = lobby(addr, json!({"game": "chaturaji"})).await;
    for i in 0..5 {
        ann.send(json!({"t": "chat", "text": format!("message {i}")}))
            .await;
        let line = chat_or_error(&mut ann).await;
        assert!(is_chat(&line), "message {i} within the rate: {line}");
    }
    expect_error(
        &mut ann,
        json!({"t": "chat", "text": "one too many"}),
        "chat_too_fast",
    )
    .await;
    // The connection is kept, and the other seat's own allowance is untouched.
    nothing_before_pong(&mut ann, 1, |m| m["t"] == "error").await;
    for _ in 0..5 {
        bo.until(is_chat).await;
    }
    nothing_before_pong(&mut bo, 2, is_chat).await;
    bo.send(json!({"t": "chat", "phrase": "oops"})).await;
    assert!(is_chat(&chat_or_error(&mut bo).await));
}

#[tokio::test]
async fn the_spectators_channel_is_shut_until_the_host_opens_it_and_players_never_read_it() {
    let addr = start(test_config()).await;
    let (room, host, mut ann, _bo, mut watcher) = lobby(addr, json!({"game": "fourchess"})).await;
    expect_error(
        &mut watcher,
        json!({"t": "chat", "text": "pick e4!"}),
        "chat_closed",
    )
    .await;
    // Spectators read the players' channel.
    ann.send(json!({"t": "chat", "phrase": "hello"})).await;
    assert_eq!(watcher.until(is_chat).await["phrase"], "hello");

    let settings = format!("/rooms/{room}/settings");
    let body = r#"{"spectator_chat": true}"#;
    let (status, info) = http(addr, "PUT", &settings, Some("not-the-host"), Some(body)).await;
    assert_eq!(status, 403, "{info}");
    let (status, info) = http(addr, "PUT", &settings, Some(&host), Some(body)).await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["spectator_chat"], true);

    let mut other = Client::connect(addr).await;
    other.join(&room, None, None).await;
    watcher.send(json!({"t": "chat", "text": "nice"})).await;
    for c in [&mut watcher, &mut other] {
        let line = c.until(is_chat).await;
        assert_eq!(line["channel"], "spectators", "{line}");
        assert_eq!(line["text"], "nice");
        assert!(line.get("seat").is_none() && line.get("name").is_none());
    }
    ann.until(|m| is_event(m, "settings_changed")).await;
    nothing_before_pong(&mut ann, 1, is_chat).await;
    // A player reloading does not get the spectators' lines in the snapshot; a spectator does.
    let (_, cy_token) = join_seat(addr, &room, "Cy").await;
    let mut cy = Client::connect(addr).await;
    let welcome = cy.join(&room, Some(&cy_token), None).await;
    let seen: Vec<&str> = welcome["snapshot"]["chat"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["channel"].as_str().unwrap())
        .collect();
    assert_eq!(seen, vec!["players"], "{welcome}");
    let mut late = Client::connect(addr).await;
    let welcome = late.join(&room, None, None).await;
    assert_eq!(welcome["snapshot"]["chat"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn the_host_mutes_a_seat_and_hides_a_line_for_everyone() {
    let addr = start(test_config()).await;
    let (room, host, mut ann, mut bo, mut watcher) =
        lobby(addr, json!({"game": "fourchess"})).await;
    bo.send(json!({"t": "chat", "text": "rude words"})).await;
    let id = bo.until(is_chat).await["id"].as_u64().unwrap();
    ann.until(is_chat).await;
    watcher.until(is_chat).await;

    let hide = json!({ "id": id });
    let (status, _) = post(addr, &format!("/rooms/{room}/hide"), None, hide.clone()).await;
    assert_eq!(status, 403);
    let (status, body) = post(
        addr,
        &format!("/rooms/{room}/hide"),
        Some(&host),
        hide.clone(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    for c in [&mut ann, &mut bo, &mut watcher] {
        let m = c.until(|m| m["t"] == "chat_hidden").await;
        assert_eq!(m["id"], id);
    }
    let (status, body) = post(addr, &format!("/rooms/{room}/hide"), Some(&host), hide).await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["error"]["code"], "not_found");
    // A reload no longer shows it.
    let mut late = Client::connect(addr).await;
    let welcome = late.join(&room, None, None).await;
    assert!(welcome["snapshot"].get("chat").is_none(), "{welcome}");

    let mute = json!({"seat": "blue"});
    let (status, _) = post(
        addr,
        &format!("/rooms/{room}/mute"),
        Some("nope"),
        mute.clone(),
    )
    .await;
    assert_eq!(status, 403);
    let (status, info) = post(addr, &format!("/rooms/{room}/mute"), Some(&host), mute).await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["seats"][1]["muted"], true, "{info}");
    let event = bo.until(|m| is_event(m, "muted")).await;
    assert_eq!(event["event"]["seat"], "blue");
    expect_error(&mut bo, json!({"t": "chat", "phrase": "thanks"}), "muted").await;
    ann.send(json!({"t": "chat", "phrase": "thanks"})).await;
    assert_eq!(bo.until(is_chat).await["seat"], "red", "others still talk");
    let (status, body) = post(
        addr,
        &format!("/rooms/{room}/mute"),
        Some(&host),
        json!({"seat": "green"}),
    )
    .await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (409, json!("seat_empty"))
    );

    // Unmuted, Bo talks again.
    let (status, _) = post(
        addr,
        &format!("/rooms/{room}/mute"),
        Some(&host),
        json!({"seat": "blue", "muted": false}),
    )
    .await;
    assert_eq!(status, 200);
    bo.send(json!({"t": "chat", "phrase": "thanks"})).await;
    assert_eq!(chat_or_error(&mut bo).await["t"], "chat");
}

crate::for_both_backends!(chat_is_in_the_snapshot_but_never_in_the_log_or_the_record);

async fn chat_is_in_the_snapshot_but_never_in_the_log_or_the_record(store: Arc<dyn store::Store>) {
    let addr = start_with_store(test_config(), store.clone()).await;
    let (room, host_token) = create_room(
        addr,
        json!({"game": "chaturaji", "options": {"round_limit": 1}}),
    )
    .await;
    let (_, token) = join_seat(addr, &room, "Ann").await;
    let mut ann = Client::connect(addr).await;
    ann.join(&room, Some(&token), None).await;
    let secret = "a secret plan only for chat";
    ann.send(json!({"t": "chat", "text": secret})).await;
    ann.until(is_chat).await;
    let (status, _) = host(addr, &room, "start", &host_token).await;
    assert_eq!(status, 200);
    ann.send(json!({"t": "chat", "phrase": "good_game"})).await;
    ann.until(is_chat).await;

    // A reload (no version: a snapshot) keeps the chat, oldest first.
    let mut again = Client::connect(addr).await;
    let welcome = again.join(&room, Some(&token), None).await;
    let chat = welcome["snapshot"]["chat"].as_array().unwrap();
    assert_eq!(chat.len(), 2, "{welcome}");
    assert_eq!(chat[0]["text"], secret);
    assert_eq!(chat[1]["phrase"], "good_game");
    // A resume without a snapshot gets the recent lines again, after the missed events.
    let v = again.v;
    drop(again);
    let mut resumed = Client::connect(addr).await;
    let welcome = resumed.join(&room, Some(&token), Some(v)).await;
    if welcome.get("snapshot").is_none() {
        let line = resumed.until(is_chat).await;
        assert_eq!(line["text"], secret);
    }

    // Ann resigns; the CPUs finish the one round.
    ann.send(json!({"t": "resign", "ack": 1})).await;
    ann.until(|m| is_event(m, "game_over")).await;
    let game = format!("/games/{room}-1");
    let mut record = Value::Null;
    for _ in 0..100 {
        let (status, body) = http(addr, "GET", &game, None, None).await;
        if status == 200 {
            record = body;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(record.is_object(), "the game is recorded");
    let text = record.to_string();
    assert!(
        !text.contains(secret) && !text.contains("good_game"),
        "{text}"
    );
    for game_no in [0, 1] {
        for entry in store.load_log(&room, game_no).await.unwrap() {
            let payload = entry.payload.to_string();
            assert!(
                !payload.contains(secret) && !payload.contains("good_game"),
                "chat in the log: {payload}"
            );
        }
    }
}
