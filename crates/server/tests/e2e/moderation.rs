//! The host's orders about seats over REST: unseat and lock a lobby (with and without the host
//! token), a removed player's token refused, both kept across a restart, and an absent player's seat
//! handed to the CPU, which plays it to the end of the game.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::games::play_seat;
use crate::support::*;

async fn order(
    addr: std::net::SocketAddr,
    room: &str,
    what: &str,
    token: Option<&str>,
    body: Value,
) -> (u16, Value) {
    post(addr, &format!("/rooms/{room}/{what}"), token, body).await
}

fn code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or("")
}

/// Joins with `token`; the error's code when the join is refused.
async fn join_refused(addr: std::net::SocketAddr, room: &str, token: &str) -> String {
    let mut c = Client::connect(addr).await;
    c.send(json!({"t": "join", "room": room, "token": token}))
        .await;
    let m = c.until(|m| m["t"] == "welcome" || m["t"] == "error").await;
    assert_eq!(m["t"], "error", "the token must be refused: {m}");
    m["code"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn the_host_unseats_a_player_and_locks_the_lobby() {
    let addr = start(test_config()).await;
    let (room, host_token) = create_room(addr, json!({"game": "fourchess", "public": true})).await;
    join_seat(addr, &room, "Ann").await;
    let (_, squatter) = join_seat(addr, &room, "Squatter").await;
    let mut bo = Client::connect(addr).await;
    bo.join(&room, Some(&squatter), None).await;

    for token in [None, Some("0123456789abcdef0123456789abcdef")] {
        let (status, body) = order(addr, &room, "unseat", token, json!({"seat": "blue"})).await;
        assert_eq!((status, code(&body)), (403, "bad_token"), "{body}");
        let (status, body) = order(addr, &room, "lock", token, json!({})).await;
        assert_eq!((status, code(&body)), (403, "bad_token"), "{body}");
    }
    let (_, info) = http(addr, "GET", &format!("/rooms/{room}"), None, None).await;
    assert_eq!(
        info["seats"][1]["name"], "Squatter",
        "nothing changed: {info}"
    );
    assert_eq!(info["locked"], false);

    let (status, info) = order(
        addr,
        &room,
        "unseat",
        Some(&host_token),
        json!({"seat": "blue"}),
    )
    .await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["seats"][1]["kind"], "empty");
    // The removed player hears it on their connection, which watches on.
    let event = bo.until(|m| is_event(m, "unseated")).await;
    assert_eq!(event["event"]["seat"], "blue");
    bo.send(json!({"t": "act", "ack": 1, "action": {"type": "move", "from": "h2", "to": "h3"}}))
        .await;
    let refused = bo.until(|m| m["t"] == "error").await;
    assert_eq!(refused["code"], "spectator", "{refused}");
    bo.send(json!({"t": "chat", "phrase": "hello"})).await;
    assert_eq!(bo.until(|m| m["t"] == "error").await["code"], "chat_closed");
    // Their token is refused from then on, with the reason.
    assert_eq!(join_refused(addr, &room, &squatter).await, "unseated");

    let (status, body) = order(
        addr,
        &room,
        "unseat",
        Some(&host_token),
        json!({"seat": "green"}),
    )
    .await;
    assert_eq!((status, code(&body)), (409, "seat_empty"), "{body}");
    let (status, body) = order(
        addr,
        &room,
        "unseat",
        Some(&host_token),
        json!({"seat": "purple"}),
    )
    .await;
    assert_eq!(status, 400, "{body}");

    let (status, info) = order(addr, &room, "lock", Some(&host_token), json!({})).await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["locked"], true);
    assert!(
        listed_rooms(addr, "").await.contains(&room),
        "a locked room is still listed"
    );
    let (status, body) = post(
        addr,
        &format!("/rooms/{room}/join"),
        None,
        json!({"name": "Late"}),
    )
    .await;
    assert_eq!((status, code(&body)), (409, "room_locked"), "{body}");
    let (status, info) = order(addr, &room, "unlock", Some(&host_token), json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(info["locked"], false);
    let (seat, _) = join_seat(addr, &room, "Cy").await;
    assert_eq!(seat, "blue", "the freed seat is taken again");

    // During a game a seat is not freed.
    let (status, _) = host(addr, &room, "start", &host_token).await;
    assert_eq!(status, 200);
    let (status, body) = order(
        addr,
        &room,
        "unseat",
        Some(&host_token),
        json!({"seat": "blue"}),
    )
    .await;
    assert_eq!((status, code(&body)), (409, "game_running"), "{body}");

    let (_, _, metrics) = http_raw(addr, "GET", "/metrics", None, None).await;
    for order in ["unseat", "lock", "unlock", "handover", "mute", "hide"] {
        let series = format!("fourkings_host_orders_total{{order=\"{order}\"}}");
        assert!(metrics.contains(&series), "{series} in /metrics");
    }
}

crate::for_both_backends!(unseat_and_lock_survive_a_restart);

async fn unseat_and_lock_survive_a_restart(store: Arc<dyn store::Store>) {
    let config = test_config();
    let app = server::Application::build_with_store(config.clone(), store.clone())
        .await
        .expect("binds");
    let addr = app.addr();
    let trigger = app.shutdown_trigger();
    let running = tokio::spawn(app.run());
    let (room, host_token) = create_room(addr, json!({"game": "chaturaji"})).await;
    join_seat(addr, &room, "Ann").await;
    let (_, removed) = join_seat(addr, &room, "Bo").await;
    join_seat(addr, &room, "Cy").await;
    let (status, _) = order(
        addr,
        &room,
        "unseat",
        Some(&host_token),
        json!({"seat": "blue"}),
    )
    .await;
    assert_eq!(status, 200);
    let (status, _) = order(addr, &room, "lock", Some(&host_token), json!({})).await;
    assert_eq!(status, 200);
    trigger.trigger();
    tokio::time::timeout(Duration::from_secs(20), running)
        .await
        .expect("stops in time")
        .unwrap()
        .expect("stops cleanly");

    let addr = start_with_store(config, store).await;
    let (status, info) = http(addr, "GET", &format!("/rooms/{room}"), None, None).await;
    assert_eq!(status, 200, "the room is rebuilt: {info}");
    assert_eq!(info["seats"][0]["name"], "Ann");
    assert_eq!(info["seats"][1]["kind"], "empty", "{info}");
    assert_eq!(info["seats"][2]["name"], "Cy");
    assert_eq!(info["locked"], true);
    let (status, body) = post(
        addr,
        &format!("/rooms/{room}/join"),
        None,
        json!({"name": "Late"}),
    )
    .await;
    assert_eq!((status, code(&body)), (409, "room_locked"), "{body}");
    assert_eq!(join_refused(addr, &room, &removed).await, "unseated");
}

#[tokio::test]
async fn an_absent_players_seat_is_handed_to_the_cpu_and_played_to_the_end() {
    let addr = start(test_config()).await;
    let (room, host_token) = create_room(
        addr,
        json!({"game": "chaturaji", "options": {"round_limit": 3}}),
    )
    .await;
    let (_, ann) = join_seat(addr, &room, "Ann").await;
    let (_, bo) = join_seat(addr, &room, "Bo").await;
    let (status, body) = order(
        addr,
        &room,
        "handover",
        Some(&host_token),
        json!({"seat": "blue"}),
    )
    .await;
    assert_eq!((status, code(&body)), (409, "no_game"), "{body}");
    let (status, _) = host(addr, &room, "start", &host_token).await;
    assert_eq!(status, 200);

    // Bo is here: his seat is not handed over.
    let mut bo_conn = Client::connect(addr).await;
    bo_conn.join(&room, Some(&bo), None).await;
    let (status, body) = order(
        addr,
        &room,
        "handover",
        Some(&host_token),
        json!({"seat": "blue"}),
    )
    .await;
    assert_eq!((status, code(&body)), (409, "player_present"), "{body}");
    drop(bo_conn);
    let mut watcher = Client::connect(addr).await;
    watcher.join(&room, None, None).await;
    // Wait until the room saw Bo leave.
    let mut gone = false;
    for _ in 0..100 {
        let (_, info) = http(addr, "GET", &format!("/rooms/{room}"), None, None).await;
        if info["seats"][1]["connected"] == false {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(gone, "Bo's connection closed");

    let (status, body) = order(addr, &room, "handover", None, json!({"seat": "blue"})).await;
    assert_eq!((status, code(&body)), (403, "bad_token"), "{body}");
    let (status, body) = order(
        addr,
        &room,
        "handover",
        Some(&host_token),
        json!({"seat": "green"}),
    )
    .await;
    assert_eq!(status, 400, "a CPU seat is not handed over: {body}");
    let (status, info) = order(
        addr,
        &room,
        "handover",
        Some(&host_token),
        json!({"seat": "blue"}),
    )
    .await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["seats"][1]["handed_over"], true, "{info}");
    assert_eq!(info["seats"][1]["cpu_playing"], true);
    let control = watcher.until(|m| is_event(m, "control")).await;
    assert_eq!(control["event"]["reason"], "host", "{control}");

    // Bo comes back: the seat stays the CPU's, his actions are refused.
    let mut back = Client::connect(addr).await;
    back.join(&room, Some(&bo), None).await;
    back.send(json!({"t": "resign", "ack": 1})).await;
    let refused = back.until(|m| m["t"] == "error").await;
    assert_eq!(refused["code"], "handed_over", "{refused}");

    // Ann plays her seat; the CPU plays Bo's and the others to the end.
    let (over, _) = play_seat(addr, room.clone(), ann).await;
    let standings = over["event"]["outcome"]["standings"].as_array().unwrap();
    assert!(standings.iter().any(|s| s["seat"] == "blue"), "{over}");
    let record = game_record(addr, &format!("{room}-1")).await["record"].clone();
    let blue = &record["seats"][1];
    assert_eq!(
        blue["name"], "Bo",
        "Bo keeps his place in the standings: {record}"
    );
    assert_eq!(blue["cpu_finished"], true, "{record}");
    let actions = record["actions"].as_array().unwrap();
    assert!(
        actions
            .iter()
            .any(|a| a["seat"] == "blue" && a["by"] == "cpu"),
        "the CPU played Bo's seat"
    );
    assert!(
        !actions
            .iter()
            .any(|a| a["seat"] == "blue" && a["by"] == "human")
    );

    // The next game is Bo's again (he is connected: no CPU).
    let (status, info) = host(addr, &room, "rematch", &host_token).await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["seats"][1]["cpu_playing"], false, "{info}");
    assert!(info["seats"][1].get("handed_over").is_none());
}
