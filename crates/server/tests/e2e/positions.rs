//! `GET /rooms/{id}/positions`: the game action by action, replayed on the server, equal to what
//! the `acted` events carried live (what a reloaded page builds its move list and past boards from).

use serde_json::{Value, json};

use crate::support::*;

/// Start a CPU-only game in a new room, watch it to the end; (room id, the `acted` events, in order).
async fn watched_cpu_game(addr: std::net::SocketAddr, body: Value) -> (String, Vec<Value>) {
    let (room, host_token) = create_room(addr, body).await;
    let mut watcher = Client::connect(addr).await;
    watcher.join(&room, None, None).await;
    let (status, info) = host(addr, &room, "start", &host_token).await;
    assert_eq!(status, 200, "{info}");
    let mut acted = Vec::new();
    loop {
        let m = watcher.next().await.expect("open until the game ends");
        if is_event(&m, "acted") {
            acted.push(m["event"].clone());
        }
        if is_event(&m, "game_over") {
            return (room, acted);
        }
    }
}

fn assert_steps_match(steps: &[Value], acted: &[Value], from: usize) {
    for (i, step) in steps.iter().enumerate() {
        let live = &acted[from + i];
        assert_eq!(step["seq"], json!(from + i));
        for field in ["seat", "by", "action", "applied", "state"] {
            assert_eq!(step[field], live[field], "seq {} {field}", from + i);
        }
    }
}

#[tokio::test]
async fn positions_replay_the_game_exactly_as_it_was_played_both_games() {
    let addr = start(test_config()).await;
    for body in [
        json!({"game": "chaturaji", "options": {"round_limit": 2}}),
        json!({"game": "fourchess", "options": {"move_limit": 12}}),
    ] {
        let (room, acted) = watched_cpu_game(addr, body.clone()).await;
        assert!(acted.len() >= 8, "{body}: only {} actions", acted.len());
        let (status, all) =
            http(addr, "GET", &format!("/rooms/{room}/positions"), None, None).await;
        assert_eq!(status, 200, "{all}");
        assert_eq!(all["game_no"], 1);
        assert_eq!(all["game"], body["game"]);
        assert_eq!(all["total"], json!(acted.len()));
        let steps = all["steps"].as_array().unwrap();
        assert_eq!(steps.len(), acted.len());
        assert_steps_match(steps, &acted, 0);
        if body["game"] == "fourchess" {
            // Every four-player chess state names the kings in check (none at the start).
            assert_eq!(all["start"]["checks"], json!([]));
            assert!(steps.iter().all(|s| s["state"]["checks"].is_array()));
        } else {
            assert_eq!(all["start"]["points"], json!([0, 0, 0, 0]));
        }
        // A page from the middle.
        let (status, page) = http(
            addr,
            "GET",
            &format!("/rooms/{room}/positions?from=3&limit=2"),
            None,
            None,
        )
        .await;
        assert_eq!(status, 200, "{page}");
        assert_eq!(page["steps"].as_array().unwrap().len(), 2);
        assert_steps_match(page["steps"].as_array().unwrap(), &acted, 3);
        assert_eq!(page["start"], all["start"]);
    }
}

#[tokio::test]
async fn positions_refuse_bad_paging_rooms_without_a_game_and_unknown_rooms() {
    let addr = start(test_config()).await;
    let (room, _) = create_room(addr, json!({"game": "fourchess"})).await;
    let (status, err) = http(addr, "GET", &format!("/rooms/{room}/positions"), None, None).await;
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (409, Some("no_game")),
        "{err}"
    );
    for query in ["limit=0", "limit=1001", "from=-1", "limit=x"] {
        let (status, err) = http(
            addr,
            "GET",
            &format!("/rooms/{room}/positions?{query}"),
            None,
            None,
        )
        .await;
        assert_eq!(
            (status, err["error"]["code"].as_str()),
            (400, Some("bad_request")),
            "{query}: {err}"
        );
    }
    let (status, err) = http(addr, "GET", "/rooms/nosuchroom/positions", None, None).await;
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (404, Some("unknown_room")),
        "{err}"
    );
}

/// The replay of a finished game (`GET /games/{id}/positions`, from the stored record) is the game
/// exactly as it was played: every step equal to the live `acted` event, after the room is gone
/// from the server's mind as well as before; the final points are the recorded outcome's.
#[tokio::test]
async fn finished_games_replay_from_the_store_exactly_as_played_both_games() {
    let addr = start(test_config()).await;
    for body in [
        json!({"game": "chaturaji", "options": {"round_limit": 2}}),
        json!({"game": "fourchess", "options": {"move_limit": 12}}),
    ] {
        let (room, acted) = watched_cpu_game(addr, body.clone()).await;
        let game = format!("{room}-1");
        let record = game_record(addr, &game).await["record"].clone();
        assert!(record.is_object(), "{game}: no record");
        let (status, all) =
            http(addr, "GET", &format!("/games/{game}/positions"), None, None).await;
        assert_eq!(status, 200, "{all}");
        assert_eq!(
            (all["room"].as_str(), all["game_no"].as_u64()),
            (Some(room.as_str()), Some(1))
        );
        assert_eq!(all["game"], body["game"]);
        assert_eq!(all["first"], record["first"]);
        assert_eq!(all["total"], json!(acted.len()));
        let steps = all["steps"].as_array().unwrap();
        assert_eq!(steps.len(), acted.len());
        assert_steps_match(steps, &acted, 0);
        // The same start and steps as the live room's own replay.
        let (_, live) = http(addr, "GET", &format!("/rooms/{room}/positions"), None, None).await;
        assert_eq!(all["start"], live["start"]);
        assert_eq!(all["steps"], live["steps"]);
        // The last state's points are the recorded standings' points.
        let last = &steps.last().unwrap()["state"];
        for standing in record["outcome"]["standings"].as_array().unwrap() {
            let seat = ["red", "blue", "yellow", "green"]
                .iter()
                .position(|s| standing["seat"] == *s)
                .unwrap();
            assert_eq!(last["points"][seat], standing["points"], "{standing}");
        }
        // Paged.
        let (status, page) = http(
            addr,
            "GET",
            &format!("/games/{game}/positions?from=2&limit=3"),
            None,
            None,
        )
        .await;
        assert_eq!(status, 200, "{page}");
        assert_steps_match(page["steps"].as_array().unwrap(), &acted, 2);
        assert_eq!(page["steps"].as_array().unwrap().len(), 3);
    }
    for (path, status, code) in [
        ("/games/nope-1/positions", 404, "not_found"),
        ("/games/nope-1/positions?limit=0", 400, "bad_request"),
        ("/games/nope-1/positions?limit=1001", 400, "bad_request"),
        ("/games/nope-1/positions?from=x", 400, "bad_request"),
    ] {
        let (got, err) = http(addr, "GET", path, None, None).await;
        assert_eq!(
            (got, err["error"]["code"].as_str()),
            (status, Some(code)),
            "{path}: {err}"
        );
    }
}
