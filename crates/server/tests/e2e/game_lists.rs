//! A room's and a player's finished games over REST (`GET /rooms/{id}/games`,
//! `GET /players/{id}/games`) and the replay of a game stored as the server always stored them
//! (`GET /games/{id}/positions`), against a real SQLite file and a fresh PostgreSQL database.

use std::sync::Arc;

use protocol::{GameKind, GamePositions, PlayerGames, RoomGames, Seat};
use room::selfplay::play_record;
use serde_json::{Value, json};
use store::{NewRoom, Store};

use crate::records::record;
use crate::support::{http, start_with_store, test_config};

crate::for_both_backends!(finished_games_are_listed_per_room_and_player_and_replay);

async fn get<T: serde::de::DeserializeOwned>(addr: std::net::SocketAddr, path: &str) -> T {
    let (status, body) = http(addr, "GET", path, None, None).await;
    assert_eq!(status, 200, "{path}: {body}");
    serde_json::from_value(body).unwrap_or_else(|e| panic!("{path}: {e}"))
}

async fn finished_games_are_listed_per_room_and_player_and_replay(store: Arc<dyn Store>) {
    let mut ids = Vec::new();
    for name in ["Ann", "Bob", "Cy", "Di"] {
        ids.push(store.create_player(name).await.unwrap().player.id);
    }
    let [ann, bob, cy, di] = [&ids[0], &ids[1], &ids[2], &ids[3]].map(String::as_str);
    for (room, kind) in [("r-chat", "chaturaji"), ("r-chess", "fourchess")] {
        store
            .create_room(&NewRoom {
                id: room.into(),
                game_kind: kind.into(),
                options: json!({}),
                host_token: format!("host-{room}"),
                settings: json!({}),
            })
            .await
            .unwrap();
    }
    // Five real games written straight into the store, as every version of the server wrote them.
    let mut at = 1_700_000_000_000i64;
    let mut games = Vec::new();
    for n in 1..=3u32 {
        let doc = play_record(
            GameKind::Chaturaji,
            &json!({}),
            Seat::Red,
            [n as u8; 32],
            u64::from(n),
        )
        .unwrap();
        at += 60_000;
        games.push(record(&store, doc, "r-chat", n, [ann, bob, cy, "cpu:easy"], at).await);
    }
    for (n, mode, players) in [
        (1, "teams", [bob, ann, di, cy]),
        (2, "ffa", [di, cy, bob, ann]),
    ] {
        let options = json!({"mode": mode, "move_limit": 120});
        let doc = play_record(GameKind::Fourchess, &options, Seat::Red, [0; 32], 7 + n).unwrap();
        at += 60_000;
        games.push(record(&store, doc, "r-chess", n as u32, players, at).await);
    }
    let addr = start_with_store(test_config(), store.clone()).await;

    // ---- the replay of each stored game: every action, the rules' outcome at the end ----
    for (doc, _) in &games {
        let positions: GamePositions =
            get(addr, &format!("/games/{}/positions", doc.game_id)).await;
        assert_eq!(positions.total, doc.actions.len() as u64);
        assert_eq!(positions.steps.len(), doc.actions.len());
        for (step, action) in positions.steps.iter().zip(&doc.actions) {
            assert_eq!(
                (step.seq, step.seat, &step.action),
                (action.seq, action.seat, &action.action)
            );
        }
        // The final state is the one the verifier's own replay of the record reaches.
        let (report, game) = room::verify::replay(doc);
        assert!(report.ok(), "{report}");
        let last = positions.steps.last().unwrap();
        assert_eq!(last.state, game.unwrap().public_state());
        for (i, standing) in doc.outcome["standings"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            assert_eq!(standing["seat"], json!(Seat::ALL[i]));
            assert_eq!(last.state["points"][i], standing["points"]);
        }
    }

    // ---- a room's games, the latest first, paged ----
    let room: RoomGames = get(addr, "/rooms/r-chat/games").await;
    assert_eq!(room.room, "r-chat");
    let numbers: Vec<u32> = room.games.iter().map(|g| g.game_no).collect();
    assert_eq!(numbers, [3, 2, 1]);
    assert_eq!(room.next_cursor, None);
    for g in &room.games {
        let (doc, _) = games.iter().find(|(d, _)| d.game_id == g.game_id).unwrap();
        assert_eq!((g.room.as_str(), g.game), ("r-chat", GameKind::Chaturaji));
        assert_eq!(g.finished_at, doc.finished_at as i64);
        assert_eq!(g.unrated_reason, None);
        let names: Vec<&str> = g.seats.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, [ann, bob, cy, "cpu:easy"]);
        let standings = doc.outcome["standings"].as_array().unwrap();
        let mut winners = Vec::new();
        for (seat, standing) in g.seats.iter().zip(standings) {
            assert_eq!(json!(seat.seat), standing["seat"]);
            assert_eq!(json!(seat.place), standing["place"]);
            assert_eq!(json!(seat.points), standing["points"]);
            if standing["place"] == 1 {
                winners.push(seat.seat);
            }
        }
        assert_eq!(g.winners, winners);
        assert!(!g.winners.is_empty());
        assert_eq!(g.rating, None, "a room's list names no one player's rating");
    }
    let first: RoomGames = get(addr, "/rooms/r-chat/games?limit=2").await;
    assert_eq!(first.games, room.games[..2]);
    let cursor = first.next_cursor.expect("a second page");
    let second: RoomGames = get(
        addr,
        &format!("/rooms/r-chat/games?limit=2&cursor={cursor}"),
    )
    .await;
    assert_eq!(second.games, room.games[2..]);
    assert_eq!(second.next_cursor, None);

    // ---- a player's games, newest first, with their rating change; paged ----
    let mine: PlayerGames = get(addr, &format!("/players/{ann}/games")).await;
    let listed: Vec<&str> = mine.games.iter().map(|g| g.game_id.as_str()).collect();
    let newest_first: Vec<&str> = games
        .iter()
        .rev()
        .map(|(d, _)| d.game_id.as_str())
        .collect();
    assert_eq!(listed, newest_first);
    for g in &mine.games {
        let (_, changes) = games.iter().find(|(d, _)| d.game_id == g.game_id).unwrap();
        let change = changes.iter().find(|c| c.player_id == ann).unwrap();
        let rating = g.rating.as_ref().expect("rated games");
        assert_eq!(rating.before.display, change.before.display());
        assert_eq!(rating.after.display, change.after.display());
        assert!(g.seats.iter().any(|s| s.player_id.as_deref() == Some(ann)));
    }
    let mut paged = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            None => format!("/players/{ann}/games?limit=2"),
            Some(c) => format!("/players/{ann}/games?limit=2&cursor={c}"),
        };
        let page: PlayerGames = get(addr, &path).await;
        assert!(page.games.len() <= 2);
        paged.extend(page.games);
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(paged, mine.games);
    let di_games: PlayerGames = get(addr, &format!("/players/{di}/games")).await;
    assert_eq!(
        di_games.games.len(),
        2,
        "Di played the two chess games only"
    );

    // ---- errors: stable codes, nothing served ----
    let ann_games = format!("/players/{ann}/games");
    for (path, status, code) in [
        ("/rooms/nope/games".to_owned(), 404, "unknown_room"),
        ("/rooms/r-chat/games?limit=0".to_owned(), 400, "bad_request"),
        (
            "/rooms/r-chat/games?limit=101".to_owned(),
            400,
            "bad_request",
        ),
        (
            "/rooms/r-chat/games?cursor=later".to_owned(),
            400,
            "bad_request",
        ),
        ("/players/nope/games".to_owned(), 404, "not_found"),
        (format!("{ann_games}?limit=many"), 400, "bad_request"),
        (format!("{ann_games}?cursor=12"), 400, "bad_request"),
        (format!("{ann_games}?cursor=x:r-chat-1"), 400, "bad_request"),
        (format!("{ann_games}?cursor=12:"), 400, "bad_request"),
        ("/games/nope/positions".to_owned(), 404, "not_found"),
    ] {
        let (got, body): (u16, Value) = http(addr, "GET", &path, None, None).await;
        assert_eq!(
            (got, body["error"]["code"].as_str()),
            (status, Some(code)),
            "{path}: {body}"
        );
    }
}
