//! REST: create / get / list, house rules validation, host-only changes, seats, start, OpenAPI.

use serde_json::json;

use crate::support::*;

#[tokio::test]
async fn create_get_list_public_and_invite_only_rooms() {
    let addr = start(test_config()).await;
    let (status, created) = post(
        addr,
        "/rooms",
        None,
        json!({"game": "chaturaji", "options": {"dice": "long"}, "turn_time": "30s", "rated": true, "public": true}),
    )
    .await;
    assert_eq!(status, 200);
    let public = created["room"].as_str().unwrap();
    assert!(
        created["invite"]
            .as_str()
            .unwrap()
            .ends_with(&format!("?room={public}"))
    );
    assert_eq!(created["host_token"].as_str().unwrap().len(), 32);
    let (private, _) = create_room(addr, json!({"game": "fourchess"})).await;

    let (status, info) = http(addr, "GET", &format!("/rooms/{public}"), None, None).await;
    assert_eq!(status, 200);
    let info: protocol::RoomInfo = serde_json::from_value(info).unwrap();
    assert_eq!(info.options["dice"], "long");
    // Every option is filled in from the spec's defaults.
    assert_eq!(info.options["round_limit"], 30);
    assert_eq!(info.options["boat_triumph"], true);
    assert_eq!(info.turn_time, protocol::TurnTime::S30);
    assert!(info.rated && info.public);
    assert_eq!(info.phase, protocol::Phase::Lobby);

    assert_eq!(
        listed_rooms(addr, "").await,
        [public],
        "invite-only room {private} is not listed"
    );

    let (status, health) = http(addr, "GET", "/healthz", None, None).await;
    assert_eq!((status, &health["status"]), (200, &json!("ok")));
    assert_eq!(health["rooms"], 2);
}

#[tokio::test]
async fn every_house_rule_problem_is_listed() {
    let addr = start(test_config()).await;
    let (status, body) = post(
        addr,
        "/rooms",
        None,
        json!({"game": "chaturaji", "options": {"dice": "hex", "round_limit": 0, "colour": "red", "boat_triumph": "yes"}}),
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], "bad_options");
    let mut problems: Vec<(String, String)> = body["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["option"].as_str().unwrap().to_owned(),
                d["code"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    problems.sort();
    assert_eq!(
        problems,
        [
            ("boat_triumph".into(), "bad_value".into()),
            ("colour".into(), "unknown_option".into()),
            ("dice".into(), "bad_value".into()),
            ("round_limit".into(), "out_of_range".into()),
        ]
    );
    // Four-player chess options are checked by the four-player chess engine.
    let (status, body) = post(
        addr,
        "/rooms",
        None,
        json!({"game": "fourchess", "options": {"mode": "solo", "move_limit": 0}}),
    )
    .await;
    assert_eq!(status, 400);
    let options: Vec<&str> = body["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["option"].as_str().unwrap())
        .collect();
    assert_eq!(options, ["mode", "move_limit"]);
    // Not JSON, and unknown game.
    let (status, body) = http(addr, "POST", "/rooms", None, Some("{nope")).await;
    assert_eq!((status, &body["error"]["code"]), (400, &json!("bad_json")));
    let (status, body) = post(addr, "/rooms", None, json!({"game": "go"})).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (400, &json!("bad_message"))
    );
}

#[tokio::test]
async fn only_the_host_changes_the_room() {
    let addr = start(test_config()).await;
    let (room, host_token) = create_room(addr, json!({"game": "chaturaji"})).await;
    let path = format!("/rooms/{room}/settings");
    let change =
        json!({"options": {"throne_points": true}, "turn_time": "60s", "public": true}).to_string();

    let (status, body) = http(addr, "PUT", &path, None, Some(&change)).await;
    assert_eq!((status, &body["error"]["code"]), (403, &json!("bad_token")));
    let (status, body) = http(addr, "PUT", &path, Some("not-the-host"), Some(&change)).await;
    assert_eq!((status, &body["error"]["code"]), (403, &json!("bad_token")));
    let (_, seat_token) = join_seat(addr, &room, "Ann").await;
    let (status, _) = http(addr, "PUT", &path, Some(&seat_token), Some(&change)).await;
    assert_eq!(status, 403, "a seat token is not a host token");

    let (status, info) = http(addr, "PUT", &path, Some(&host_token), Some(&change)).await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["options"]["throne_points"], true);
    assert_eq!(info["turn_time"], "60s");
    assert_eq!(info["public"], true);

    let bad = json!({"options": {"round_limit": 201}}).to_string();
    let (status, body) = http(addr, "PUT", &path, Some(&host_token), Some(&bad)).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (400, &json!("bad_options"))
    );

    for what in ["start", "rematch"] {
        let (status, body) = host(addr, &room, what, "wrong").await;
        assert_eq!(
            (status, &body["error"]["code"]),
            (403, &json!("bad_token")),
            "{what}"
        );
    }
    let (status, body) = host(addr, &room, "rematch", &host_token).await;
    assert_eq!((status, &body["error"]["code"]), (409, &json!("no_game")));
    let (status, body) = post(
        addr,
        &format!("/rooms/{room}/cpu"),
        Some(&host_token),
        json!({"seat": "red", "level": 2}),
    )
    .await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (409, &json!("seat_taken")),
        "Ann sits at red"
    );
    let (status, info) = post(
        addr,
        &format!("/rooms/{room}/cpu"),
        Some(&host_token),
        json!({"seat": "yellow", "level": "hard"}),
    )
    .await;
    assert_eq!(status, 200);
    // Levels may be given by name; answers carry the number.
    assert_eq!(info["seats"][2], json!({"kind": "cpu", "level": 3}));

    let (status, info) = host(addr, &room, "start", &host_token).await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["phase"], "playing");
    // Every empty seat got a CPU player.
    assert_eq!(info["seats"][1], json!({"kind": "cpu", "level": 2}));
    assert_eq!(info["seats"][3], json!({"kind": "cpu", "level": 2}));
    let (status, body) = http(addr, "PUT", &path, Some(&host_token), Some(&change)).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (409, &json!("game_running"))
    );
    let (status, body) = host(addr, &room, "start", &host_token).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (409, &json!("game_running"))
    );
}

#[tokio::test]
async fn a_fifth_person_finds_the_room_full_and_unknown_rooms_are_404() {
    let addr = start(test_config()).await;
    let (room, _) = create_room(addr, json!({"game": "fourchess"})).await;
    let mut seats = Vec::new();
    for name in ["A", "B", "C", "D"] {
        seats.push(join_seat(addr, &room, name).await.0);
    }
    assert_eq!(seats, ["red", "blue", "yellow", "green"]);
    let (status, body) = post(
        addr,
        &format!("/rooms/{room}/join"),
        None,
        json!({"name": "E"}),
    )
    .await;
    assert_eq!((status, &body["error"]["code"]), (409, &json!("room_full")));
    let (status, body) = http(addr, "GET", "/rooms/nosuchroom", None, None).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (404, &json!("unknown_room"))
    );
}

#[tokio::test]
async fn openapi_document_lists_every_route() {
    let addr = start(test_config()).await;
    let (status, doc) = http(addr, "GET", "/openapi.json", None, None).await;
    assert_eq!(status, 200);
    let paths = doc["paths"].as_object().unwrap();
    for path in [
        "/healthz",
        "/rooms",
        "/rooms/{id}",
        "/rooms/{id}/settings",
        "/rooms/{id}/join",
        "/rooms/{id}/cpu",
        "/rooms/{id}/start",
        "/rooms/{id}/rematch",
        "/rooms/{id}/positions",
        "/leaderboard",
        "/players/{id}",
        "/games/{id}",
        "/games/{id}/pgn4",
    ] {
        assert!(paths.contains_key(path), "{path} missing");
    }
    assert!(doc["components"]["schemas"]["CreateRoom"].is_object());
}

#[tokio::test]
async fn the_room_limit_is_enforced() {
    let mut config = test_config();
    config.server.max_rooms = 1;
    let addr = start(config).await;
    create_room(addr, json!({"game": "chaturaji"})).await;
    let (status, body) = post(addr, "/rooms", None, json!({"game": "chaturaji"})).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (503, &json!("too_many_rooms"))
    );
}

#[tokio::test]
async fn a_room_nobody_watches_closes_after_the_idle_time() {
    let mut config = test_config();
    config.rooms.idle_close_ms = 150;
    let addr = start(config).await;
    let (kept, _) = create_room(addr, json!({"game": "chaturaji"})).await;
    let (idle, _) = create_room(addr, json!({"game": "chaturaji"})).await;
    // A watcher keeps `kept` open.
    let mut watcher = Client::connect(addr).await;
    watcher.join(&kept, None, None).await;
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    let (status, body) = http(addr, "GET", &format!("/rooms/{idle}"), None, None).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (404, &json!("unknown_room"))
    );
    let (status, _) = http(addr, "GET", &format!("/rooms/{kept}"), None, None).await;
    assert_eq!(status, 200);
    let (_, health) = http(addr, "GET", "/healthz", None, None).await;
    assert_eq!(health["rooms"], 1);
}
