//! The read side over REST against a real store (a SQLite file and a fresh PostgreSQL database):
//! finished games are recorded from real, fully played game records, then the leaderboard, a
//! profile, a game's record and its PGN4 are read over HTTP and checked against what was recorded.

use std::collections::HashMap;
use std::sync::Arc;

use protocol::{FinishedGameBody, GameKind, Leaderboard, PlayerProfile, Seat};
use rating::{GameResult, Pool, Rating, TeamResult};
use room::record::GameRecordDoc;
use room::selfplay::play_record;
use room::verify::verify_record;
use rules::fourchess;
use serde_json::{Value, json};
use store::{FinishedGame, NewRoom, RatingChange, Recorded, SeatPlayer, Store};

use crate::support::{http, http_raw, start_with_store, test_config};

crate::for_both_backends!(records_are_served_over_rest);

/// What the rules' outcome says about the seats, as the store rates it.
fn result_of(pool: Pool, outcome: &Value) -> GameResult {
    let places: [u8; 4] = std::array::from_fn(|i| {
        outcome["standings"][i]["place"]
            .as_u64()
            .expect("a place per seat") as u8
    });
    if !pool.is_teams() {
        return GameResult::Places(places);
    }
    GameResult::Teams(if places == [1; 4] {
        TeamResult::Draw
    } else if places[0] == 1 {
        TeamResult::RedYellowWin
    } else {
        TeamResult::BlueGreenWin
    })
}

fn pool_of(doc: &GameRecordDoc) -> Pool {
    match (doc.game, doc.options["mode"].as_str()) {
        (GameKind::Chaturaji, _) => Pool::Chaturaji,
        (GameKind::Fourchess, Some("teams")) => Pool::FourchessTeams,
        (GameKind::Fourchess, _) => Pool::FourchessFfa,
    }
}

/// Records a played game as `room`'s game `game_no`, seats held by `players` (Red, Blue, Yellow,
/// Green); the record as stored and the rating changes it caused.
pub(crate) async fn record(
    store: &Arc<dyn Store>,
    mut doc: GameRecordDoc,
    room: &str,
    game_no: u32,
    players: [&str; 4],
    finished_at: i64,
) -> (GameRecordDoc, Vec<RatingChange>) {
    doc.game_id = format!("{room}-{game_no}");
    doc.room = room.into();
    doc.game_no = game_no;
    doc.rated = true;
    doc.finished_at = finished_at as u64;
    for (seat, player) in doc.seats.iter_mut().zip(players) {
        seat.player_id = Some(player.into());
        seat.name = player.into();
    }
    let pool = pool_of(&doc);
    let game = FinishedGame {
        id: doc.game_id.clone(),
        room_id: room.into(),
        game_no: game_no as i32,
        pool,
        unrated: None,
        options: doc.options.clone(),
        first_seat: doc.first,
        dice_commit: doc.dice_commit.clone(),
        revealed_seed: doc.dice_seed.clone(),
        seats: players.map(|p| SeatPlayer {
            player_id: p.into(),
            cpu_finished: false,
        }),
        result: result_of(pool, &doc.outcome),
        standings: doc.outcome["standings"].clone(),
        record: serde_json::to_value(&doc).unwrap(),
        finished_at,
    };
    let Recorded::Written { rating_changes } = store.record_game(&game).await.unwrap() else {
        panic!("{} recorded twice", game.id);
    };
    (doc, rating_changes)
}

/// Ratings cross JSON as decimal text: equal to the last bit is not promised, to 1e-9 is.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

async fn get<T: serde::de::DeserializeOwned>(addr: std::net::SocketAddr, path: &str) -> T {
    let (status, body) = http(addr, "GET", path, None, None).await;
    assert_eq!(status, 200, "{path}: {body}");
    serde_json::from_value(body).unwrap_or_else(|e| panic!("{path}: {e}"))
}

async fn error_code(addr: std::net::SocketAddr, path: &str) -> (u16, String) {
    let (status, body) = http(addr, "GET", path, None, None).await;
    let code = body["error"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("{path}: not an error body: {body}"));
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty())
    );
    (status, code.to_owned())
}

async fn records_are_served_over_rest(store: Arc<dyn Store>) {
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

    // Six real games, each finished one minute after the other.
    let mut at = 1_700_000_000_000i64;
    let mut games: Vec<(GameRecordDoc, Vec<RatingChange>)> = Vec::new();
    for n in 1..=3u32 {
        let doc = play_record(
            GameKind::Chaturaji,
            &json!({}),
            Seat::ALL[n as usize],
            [n as u8; 32],
            u64::from(n),
        )
        .unwrap();
        at += 60_000;
        games.push(record(&store, doc, "r-chat", n, [ann, bob, cy, "cpu:easy"], at).await);
    }
    for (n, mode, players) in [
        (1, "teams", [ann, bob, cy, di]),
        (2, "ffa", [di, cy, bob, ann]),
        (3, "teams", [bob, ann, di, cy]),
    ] {
        let options = json!({"mode": mode, "move_limit": 200});
        let doc = play_record(GameKind::Fourchess, &options, Seat::Red, [0; 32], 40 + n).unwrap();
        at += 60_000;
        games.push(record(&store, doc, "r-chess", n as u32, players, at).await);
    }
    // Each player's rating and game count per pool after all of it, from what record_game answered.
    let mut expected: HashMap<(String, Pool), (Rating, i64)> = HashMap::new();
    for (doc, changes) in &games {
        for change in changes {
            expected.insert(
                (change.player_id.clone(), pool_of(doc)),
                (change.after, change.games),
            );
        }
    }

    // Three games make nobody established under the default rule: list everyone with a game here.
    let mut config = test_config();
    config.ratings.provisional_games = 1;
    config.ratings.provisional_sigma = 9.0;
    let addr = start_with_store(config, store.clone()).await;

    // ---- leaderboard ----
    let board: Leaderboard = get(addr, "/leaderboard?pool=chaturaji").await;
    assert_eq!(board.pool, Pool::Chaturaji);
    let mut players: Vec<&str> = board.rows.iter().map(|r| r.player_id.as_str()).collect();
    players.sort();
    let mut humans = vec![ann, bob, cy];
    humans.sort();
    assert_eq!(
        players, humans,
        "humans only: CPU levels are anchors, not ranked"
    );
    for (i, row) in board.rows.iter().enumerate() {
        assert_eq!(row.rank, i as i64 + 1);
        let (rating, games) = expected[&(row.player_id.clone(), Pool::Chaturaji)];
        assert!(close(row.mu, rating.mu) && close(row.sigma, rating.sigma));
        assert_eq!(row.games, 3);
        assert_eq!(games, 3);
        assert_eq!(row.display, rating.display());
        assert!(!row.is_cpu);
    }
    for pair in board.rows.windows(2) {
        let key = |r: &protocol::LeaderboardRow| r.mu - 3.0 * r.sigma;
        assert!(key(&pair[0]) >= key(&pair[1]), "sorted best first");
    }
    assert_eq!((board.min_games, board.next_offset), (1, None));
    let page: Leaderboard = get(addr, "/leaderboard?pool=chaturaji&limit=1&offset=1").await;
    assert_eq!(page.rows.len(), 1);
    assert_eq!(page.rows[0], board.rows[1]);
    assert_eq!(page.rows[0].rank, 2);
    assert_eq!(page.next_offset, Some(2));
    let teams: Leaderboard = get(addr, "/leaderboard?pool=fourchess_teams").await;
    assert_eq!(teams.rows.len(), 4);
    assert!(teams.rows.iter().all(|r| r.games == 2));

    // ---- a profile: ratings per pool, history newest first ----
    let profile: PlayerProfile = get(addr, &format!("/players/{ann}")).await;
    assert_eq!(profile.player.id, ann);
    assert_eq!(profile.player.display_name, "Ann");
    let mut pools: Vec<Pool> = profile.ratings.iter().map(|r| r.pool).collect();
    pools.sort();
    assert_eq!(pools, Pool::ALL.to_vec());
    for r in &profile.ratings {
        let (rating, games) = expected[&(ann.to_owned(), r.pool)];
        assert!(close(r.rating.mu, rating.mu) && close(r.rating.sigma, rating.sigma));
        assert_eq!(r.games, games);
    }
    let newest_first: Vec<String> = games.iter().rev().map(|(d, _)| d.game_id.clone()).collect();
    let history_ids: Vec<String> = profile.history.iter().map(|h| h.game_id.clone()).collect();
    assert_eq!(history_ids, newest_first, "Ann played every game");
    for pair in profile.history.windows(2) {
        assert!(pair[0].at > pair[1].at);
    }
    for pool in Pool::ALL {
        let lines: Vec<_> = profile.history.iter().filter(|h| h.pool == pool).collect();
        for pair in lines.windows(2) {
            // The newer game started from where the older one left the rating.
            assert_eq!(pair[0].before, pair[1].after);
        }
    }
    let short: PlayerProfile = get(addr, &format!("/players/{ann}?history=2")).await;
    assert_eq!(short.history, profile.history[..2]);

    // ---- a game's record verifies, with its rating changes ----
    let (chat_doc, chat_changes) = &games[0];
    let body: FinishedGameBody = get(addr, &format!("/games/{}", chat_doc.game_id)).await;
    assert_eq!(body.record, serde_json::to_value(chat_doc).unwrap());
    let served: GameRecordDoc = serde_json::from_value(body.record.clone()).unwrap();
    let report = verify_record(&served);
    assert!(report.ok(), "{report}: {:?}", report.problems);
    assert!(report.throws_checked > 0);
    assert_eq!(body.rating_changes.len(), 4);
    for change in chat_changes {
        let served = body
            .rating_changes
            .iter()
            .find(|c| c.player_id == change.player_id)
            .unwrap();
        assert_eq!(served.seats, change.seats);
        assert!(close(served.before.mu, change.before.mu));
        assert!(close(served.before.sigma, change.before.sigma));
        assert!(close(served.after.mu, change.after.mu));
        assert!(close(served.after.sigma, change.after.sigma));
    }

    // ---- PGN4 of the chess games reads back into the same game ----
    for (doc, _) in &games[3..] {
        let (status, head, text) = http_raw(
            addr,
            "GET",
            &format!("/games/{}/pgn4", doc.game_id),
            None,
            None,
        )
        .await;
        assert_eq!(status, 200, "{text}");
        assert!(head.contains("content-type: text/plain"), "{head}");
        let variant = if pool_of(doc) == Pool::FourchessTeams {
            "Teams"
        } else {
            "FFA"
        };
        assert!(text.contains(&format!("[Variant \"{variant}\"]")), "{text}");
        let options: fourchess::Options = serde_json::from_value(doc.options.clone()).unwrap();
        let imported =
            fourchess::import_pgn4(&text, options).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(
            serde_json::to_value(imported.outcome()).unwrap(),
            doc.outcome
        );
        // Every move (and resignation) of the record is in the PGN4.
        assert_eq!(imported.record().len(), doc.actions.len());
    }

    // ---- errors ----
    let chat_id = &chat_doc.game_id;
    for (path, status, code) in [
        (format!("/games/{chat_id}/pgn4"), 422, "wrong_game"),
        ("/games/nope".to_owned(), 404, "not_found"),
        ("/games/nope/pgn4".to_owned(), 404, "not_found"),
        ("/players/nope".to_owned(), 404, "not_found"),
        (format!("/players/{ann}?history=-1"), 400, "bad_request"),
        ("/leaderboard".to_owned(), 400, "bad_request"),
        ("/leaderboard?pool=chess".to_owned(), 400, "bad_request"),
        (
            "/leaderboard?pool=chaturaji&limit=0".to_owned(),
            400,
            "bad_request",
        ),
        (
            "/leaderboard?pool=chaturaji&limit=many".to_owned(),
            400,
            "bad_request",
        ),
        (
            "/leaderboard?pool=chaturaji&offset=-1".to_owned(),
            400,
            "bad_request",
        ),
    ] {
        assert_eq!(
            error_code(addr, &path).await,
            (status, code.to_owned()),
            "{path}"
        );
    }
}
