//! The store test suite: every body here runs against a fresh SQLite file and a fresh PostgreSQL
//! database (see `for_both_backends!`).

mod common;

use std::sync::Arc;

use rating::{CpuLevel, Established, GameResult, Pool, Rating, TeamResult, anchor, rate};
use rules::Seat;
use serde_json::json;
use store::{
    AppendError, AppendOutcome, Durable, EntryKind, FinishedGame, HistoryQuery, LeaderboardQuery,
    LogEntry, LogWriter, NewRoom, PlayerGamesQuery, Recorded, RoomGamesQuery, RoomState,
    SeatPlayer, Store, StoreError, UnratedReason, WriterConfig,
};

for_both_backends!(
    players_are_created_authenticated_and_renamed,
    cpu_identities_exist_and_never_sign_in,
    rooms_are_created_updated_and_listed_when_unfinished,
    unfinished_rooms_tell_their_last_activity_and_running_game_and_close_in_one_go,
    log_is_loaded_per_room_and_game_in_seq_order,
    duplicate_append_is_ok_and_different_payload_is_a_seq_conflict,
    append_to_an_unknown_room_fails_and_writes_nothing,
    finishing_a_game_is_one_idempotent_transaction,
    concurrent_finishes_of_one_game_record_it_once,
    teams_game_rates_partners_together_and_cpu_finished_humans_get_the_result,
    every_cpu_seat_is_its_own_participant_at_the_levels_anchor,
    one_identity_in_two_seats_of_a_rated_game_is_refused,
    unrated_game_is_recorded_without_rating_changes,
    leaderboard_lists_established_active_humans_only,
    profile_lists_ratings_and_history_newest_first,
    rating_history_pages_one_pool_newest_first,
    game_record_reads_back_exactly,
    room_games_page_newest_first_with_seats_and_standings,
    player_games_page_newest_first_with_the_players_rating_change,
    writer_group_commits_many_concurrent_rooms,
    writer_commit_delay_gathers_entries_that_come_one_at_a_time,
    writer_reports_seq_conflicts_and_accepts_retries,
    writer_refuses_only_the_bad_entry_of_a_batch,
);

fn room(id: &str) -> NewRoom {
    NewRoom {
        id: id.to_owned(),
        game_kind: "chaturaji".to_owned(),
        options: json!({"dice": "standard", "turn_timer_s": 60}),
        host_token: format!("host-token-{id}"),
        settings: json!({"seats": ["human", "cpu:easy", "empty", "empty"]}),
    }
}

fn entry(room: &str, game_no: i32, seq: i64, payload: serde_json::Value) -> LogEntry {
    LogEntry {
        room_id: room.to_owned(),
        game_no,
        seq,
        kind: if seq % 3 == 0 {
            EntryKind::Dice
        } else {
            EntryKind::Action
        },
        payload,
        at: 1_700_000_000_000 + seq,
    }
}

fn seat(id: &str) -> SeatPlayer {
    SeatPlayer {
        player_id: id.to_owned(),
        cpu_finished: false,
    }
}

fn finished(
    id: &str,
    room: &str,
    game_no: i32,
    pool: Pool,
    seats: [SeatPlayer; 4],
    result: GameResult,
    at: i64,
) -> FinishedGame {
    FinishedGame {
        id: id.to_owned(),
        room_id: room.to_owned(),
        game_no,
        pool,
        unrated: None,
        options: json!({"points_to_win": 0}),
        first_seat: Seat::Blue,
        dice_commit: Some("ab".repeat(32)),
        revealed_seed: Some("0011223344556677".to_owned()),
        seats,
        result,
        standings: json!([{"seat": "red", "place": 1, "points": 30}]),
        record: json!({"actions": [{"seq": 1, "move": "e2-e3"}], "why": "checkmate"}),
        finished_at: at,
    }
}

/// Every player with a rated game, however provisional.
fn everyone() -> LeaderboardQuery {
    LeaderboardQuery {
        established: Established {
            min_games: 1,
            max_sigma: f64::INFINITY,
        },
        ..LeaderboardQuery::default()
    }
}

async fn four_humans(store: &Arc<dyn Store>) -> Vec<String> {
    let mut ids = Vec::new();
    for name in ["Ann", "Bob", "Cy", "Di"] {
        ids.push(store.create_player(name).await.unwrap().player.id);
    }
    ids
}

async fn players_are_created_authenticated_and_renamed(store: Arc<dyn Store>) {
    let new = store.create_player("  Ann  ").await.unwrap();
    assert_eq!(new.player.display_name, "Ann");
    assert!(!new.player.is_cpu);
    let other = store.create_player("Bob").await.unwrap();
    assert_ne!(new.player.id, other.player.id);
    assert_ne!(new.secret, other.secret);

    let me = store
        .authenticate_player(&new.player.id, &new.secret)
        .await
        .unwrap();
    assert_eq!(me, Some(new.player.clone()));
    assert_eq!(
        store
            .authenticate_player(&new.player.id, &other.secret)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .authenticate_player("p_nobody", &new.secret)
            .await
            .unwrap(),
        None
    );

    let renamed = store.rename_player(&new.player.id, "Annie").await.unwrap();
    assert_eq!(renamed.display_name, "Annie");
    assert_eq!(
        store
            .player(&new.player.id)
            .await
            .unwrap()
            .unwrap()
            .display_name,
        "Annie"
    );
    assert!(matches!(
        store.rename_player(&new.player.id, " ").await,
        Err(StoreError::InvalidName(_))
    ));
    assert!(matches!(
        store.rename_player("p_nobody", "X").await,
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        store.create_player(&"x".repeat(40)).await,
        Err(StoreError::InvalidName(_))
    ));
}

async fn cpu_identities_exist_and_never_sign_in(store: Arc<dyn Store>) {
    for id in rating::CPU_PLAYERS {
        let p = store.player(id).await.unwrap().unwrap();
        assert!(p.is_cpu, "{id}");
        assert_eq!(store.authenticate_player(id, "").await.unwrap(), None);
        assert!(matches!(
            store.rename_player(id, "Mallory").await,
            Err(StoreError::NotFound { .. })
        ));
    }
}

async fn rooms_are_created_updated_and_listed_when_unfinished(store: Arc<dyn Store>) {
    let a = store.create_room(&room("ra")).await.unwrap();
    assert_eq!(a.state, RoomState::Lobby);
    assert_eq!(a.options, room("ra").options);
    store.create_room(&room("rb")).await.unwrap();
    store.create_room(&room("rc")).await.unwrap();
    assert!(
        store.create_room(&room("ra")).await.is_err(),
        "duplicate room id"
    );

    assert!(
        store
            .authenticate_host("ra", "host-token-ra")
            .await
            .unwrap()
    );
    assert!(
        !store
            .authenticate_host("ra", "host-token-rb")
            .await
            .unwrap()
    );
    assert!(
        !store
            .authenticate_host("nope", "host-token-ra")
            .await
            .unwrap()
    );

    let opts = json!({"dice": "loaded", "turn_timer_s": 30});
    let b = store
        .update_room("rb", &opts, &json!({"seats": []}), RoomState::Playing)
        .await
        .unwrap();
    assert_eq!(b.state, RoomState::Playing);
    assert_eq!(b.options, opts);
    store
        .update_room("rc", &json!({}), &json!({}), RoomState::Finished)
        .await
        .unwrap();
    assert!(matches!(
        store
            .update_room("nope", &json!({}), &json!({}), RoomState::Closed)
            .await,
        Err(StoreError::NotFound { .. })
    ));

    let unfinished: Vec<String> = store
        .unfinished_rooms()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.room.id)
        .collect();
    assert_eq!(unfinished.len(), 2);
    assert!(unfinished.contains(&"ra".to_owned()) && unfinished.contains(&"rb".to_owned()));
    assert_eq!(store.room("rb").await.unwrap().unwrap(), b);
    assert_eq!(store.room("nope").await.unwrap(), None);
}

/// What a restart chooses by: the newest log record's time, and whether the newest game with
/// actions has no recorded result yet.
async fn unfinished_rooms_tell_their_last_activity_and_running_game_and_close_in_one_go(
    store: Arc<dyn Store>,
) {
    for id in ["quiet", "playing", "done", "gone"] {
        store.create_room(&room(id)).await.unwrap();
    }
    // `playing`: game 2 started (the room's own log, game 0, records each start), game 1 recorded
    // (below) and game 2 has no action yet; `done`: game 1 started, played and recorded.
    let started = |n: u32| json!({"t": "started", "game_no": n, "first": "red", "at": 1});
    store
        .append(&[
            entry("playing", 0, 1, json!({"t": "created"})),
            entry("playing", 0, 2, started(1)),
            entry("playing", 1, 1, json!({"move": 1})),
            entry("playing", 0, 4, started(2)),
            entry("done", 0, 1, json!({"t": "created"})),
            entry("done", 0, 2, started(1)),
            entry("done", 1, 1, json!({"move": 1})),
        ])
        .await
        .unwrap();
    let ids = four_humans(&store).await;
    let seats = std::array::from_fn(|i| seat(&ids[i]));
    let result = GameResult::Places([1, 2, 3, 4]);
    for room_id in ["done", "playing"] {
        let id = format!("{room_id}-1");
        let mut game = finished(&id, room_id, 1, Pool::Chaturaji, seats.clone(), result, 1);
        game.unrated = Some(UnratedReason::Guest);
        store.record_game(&game).await.unwrap();
    }
    store.close_rooms(&["gone".to_owned()]).await.unwrap();

    let rooms = store.unfinished_rooms().await.unwrap();
    let by_id = |id: &str| rooms.iter().find(|r| r.room.id == id).cloned();
    assert!(by_id("gone").is_none(), "a closed room is not unfinished");
    let quiet = by_id("quiet").unwrap();
    assert_eq!(
        quiet.last_activity, quiet.room.created_at,
        "no record: its creation"
    );
    assert!(!quiet.game_running);
    let playing = by_id("playing").unwrap();
    assert_eq!(
        playing.last_activity, 1_700_000_000_004,
        "its newest record"
    );
    assert!(playing.game_running, "game 2 started and is not recorded");
    let done = by_id("done").unwrap();
    assert_eq!(done.last_activity, 1_700_000_000_002);
    assert!(!done.game_running, "its newest game is recorded");

    // Closing many at once: unknown and already closed ids change nothing.
    let changed = store
        .close_rooms(&["quiet".into(), "done".into(), "gone".into(), "nope".into()])
        .await
        .unwrap();
    assert_eq!(changed, 2);
    let left: Vec<String> = store
        .unfinished_rooms()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.room.id)
        .collect();
    assert_eq!(left, ["playing"]);
    assert_eq!(
        store.room("quiet").await.unwrap().unwrap().state,
        RoomState::Closed
    );
}

async fn log_is_loaded_per_room_and_game_in_seq_order(store: Arc<dyn Store>) {
    store.create_room(&room("r1")).await.unwrap();
    store.create_room(&room("r2")).await.unwrap();
    // Interleaved rooms and games, written out of seq order across batches.
    let mut batch = Vec::new();
    for seq in [3, 1, 2] {
        batch.push(entry("r1", 1, seq, json!({"n": seq})));
        batch.push(entry("r2", 1, seq, json!({"other": seq})));
        batch.push(entry("r1", 2, seq, json!({"game2": seq})));
    }
    let outcomes = store.append(&batch).await.unwrap();
    assert!(
        outcomes.iter().all(|o| *o == AppendOutcome::Inserted),
        "{outcomes:?}"
    );
    store
        .append(&[entry("r1", 1, 4, json!({"n": 4}))])
        .await
        .unwrap();

    let log = store.load_log("r1", 1).await.unwrap();
    let seqs: Vec<i64> = log.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [1, 2, 3, 4]);
    assert_eq!(log[2], entry("r1", 1, 3, json!({"n": 3})));
    assert_eq!(log[2].kind, EntryKind::Dice);
    assert_eq!(store.load_log("r1", 2).await.unwrap().len(), 3);
    assert_eq!(store.load_log("r1", 3).await.unwrap(), vec![]);
    assert_eq!(store.last_game_no("r1").await.unwrap(), Some(2));
    assert_eq!(store.last_game_no("r2").await.unwrap(), Some(1));
    assert_eq!(store.last_game_no("zz").await.unwrap(), None);
}

async fn duplicate_append_is_ok_and_different_payload_is_a_seq_conflict(store: Arc<dyn Store>) {
    store.create_room(&room("r1")).await.unwrap();
    let first = entry("r1", 1, 1, json!({"move": "d2-d3", "x": [1, 2]}));
    assert_eq!(
        store.append(std::slice::from_ref(&first)).await.unwrap(),
        [AppendOutcome::Inserted]
    );
    // A retry (later time, same content) is harmless.
    let mut retry = first.clone();
    retry.at += 500;
    let conflict = entry("r1", 1, 1, json!({"move": "e2-e3"}));
    let fresh = entry("r1", 1, 2, json!({"move": "a7-a6"}));
    let outcomes = store
        .append(&[retry, conflict, fresh.clone(), fresh.clone()])
        .await
        .unwrap();
    assert_eq!(
        outcomes,
        [
            AppendOutcome::Duplicate,
            AppendOutcome::SeqConflict,
            AppendOutcome::Inserted,
            AppendOutcome::Duplicate
        ]
    );
    // The conflict did not overwrite, and the rest of the batch went in.
    assert_eq!(store.load_log("r1", 1).await.unwrap(), vec![first, fresh]);
    // Same payload but another kind is a conflict too.
    let mut other_kind = entry("r1", 1, 2, json!({"move": "a7-a6"}));
    other_kind.kind = EntryKind::Dice;
    assert_eq!(
        store.append(&[other_kind]).await.unwrap(),
        [AppendOutcome::SeqConflict]
    );
}

async fn append_to_an_unknown_room_fails_and_writes_nothing(store: Arc<dyn Store>) {
    store.create_room(&room("r1")).await.unwrap();
    let err = store
        .append(&[entry("r1", 1, 1, json!(1)), entry("ghost", 1, 1, json!(1))])
        .await
        .unwrap_err();
    assert!(!err.is_transient(), "{err}");
    assert_eq!(
        store.load_log("r1", 1).await.unwrap(),
        vec![],
        "one transaction: nothing written"
    );
}

async fn finishing_a_game_is_one_idempotent_transaction(store: Arc<dyn Store>) {
    let p = four_humans(&store).await;
    store.create_room(&room("r1")).await.unwrap();
    let game = finished(
        "g1",
        "r1",
        1,
        Pool::Chaturaji,
        [seat(&p[0]), seat(&p[1]), seat(&p[2]), seat(&p[3])],
        GameResult::Places([1, 1, 3, 4]),
        1000,
    );
    let Recorded::Written { rating_changes } = store.record_game(&game).await.unwrap() else {
        panic!("first record must write");
    };
    assert_eq!(rating_changes.len(), 4);
    let change = |i: usize| rating_changes.iter().find(|c| c.player_id == p[i]).unwrap();
    for i in 0..4 {
        assert_eq!(change(i).before, Rating::INITIAL);
        assert_eq!(change(i).games, 1);
    }
    assert!(change(0).after.mu > 25.0 && change(3).after.mu < 25.0);
    assert!(
        (change(0).after.mu - change(1).after.mu).abs() < 1e-9,
        "shared first place"
    );

    let board = store
        .leaderboard(Pool::Chaturaji, everyone())
        .await
        .unwrap();
    assert_eq!(board.len(), 4);

    // The second call changes nothing, even with different content.
    let mut again = game.clone();
    again.result = GameResult::Places([4, 3, 2, 1]);
    assert_eq!(
        store.record_game(&again).await.unwrap(),
        Recorded::AlreadyRecorded
    );
    assert_eq!(
        store
            .leaderboard(Pool::Chaturaji, everyone())
            .await
            .unwrap(),
        board
    );
    let record = store.game("g1").await.unwrap().unwrap();
    assert_eq!(record.game, game);
    // Ratings of other pools are untouched.
    assert_eq!(
        store
            .leaderboard(Pool::FourchessFfa, everyone())
            .await
            .unwrap(),
        vec![]
    );

    // An invalid result is refused before anything is written.
    let bad = finished(
        "g2",
        "r1",
        2,
        Pool::Chaturaji,
        game.seats.clone(),
        GameResult::Places([1, 1, 2, 4]),
        2000,
    );
    assert!(matches!(
        store.record_game(&bad).await,
        Err(StoreError::InvalidResult(_))
    ));
    assert_eq!(store.game("g2").await.unwrap(), None);
    // An unknown player fails the whole transaction: no game row is left behind.
    let ghost = finished(
        "g3",
        "r1",
        3,
        Pool::Chaturaji,
        [seat(&p[0]), seat("p_ghost"), seat(&p[2]), seat(&p[3])],
        GameResult::Places([1, 2, 3, 4]),
        3000,
    );
    assert!(store.record_game(&ghost).await.is_err());
    assert_eq!(store.game("g3").await.unwrap(), None);
    assert_eq!(
        store
            .profile(&p[0], 10)
            .await
            .unwrap()
            .unwrap()
            .history
            .len(),
        1
    );
}

async fn concurrent_finishes_of_one_game_record_it_once(store: Arc<dyn Store>) {
    let p = four_humans(&store).await;
    store.create_room(&room("r1")).await.unwrap();
    let seats = [seat(&p[0]), seat(&p[1]), seat(&p[2]), seat(&p[3])];
    // Several games, each finished by 6 racing calls (say a retry racing the original).
    for g in 1..=5 {
        let game = finished(
            &format!("g{g}"),
            "r1",
            g,
            Pool::FourchessFfa,
            seats.clone(),
            GameResult::Places([2, 1, 4, 3]),
            1000 + i64::from(g),
        );
        let tasks: Vec<_> = (0..6)
            .map(|_| {
                let store = store.clone();
                let game = game.clone();
                tokio::spawn(async move { store.record_game(&game).await })
            })
            .collect();
        let mut written = 0;
        for t in tasks {
            match t.await.unwrap() {
                Ok(Recorded::Written { .. }) => written += 1,
                Ok(Recorded::AlreadyRecorded) => {}
                Err(e) => panic!("game {g}: {e}"),
            }
        }
        assert_eq!(written, 1, "game {g}");
    }
    let profile = store.profile(&p[1], 10).await.unwrap().unwrap();
    assert_eq!(profile.ratings[0].games, 5);
    assert_eq!(profile.history.len(), 5);
    // Another id for a game number already recorded is an error, not a silent no-op.
    let clash = finished(
        "other",
        "r1",
        3,
        Pool::FourchessFfa,
        seats,
        GameResult::Places([1, 2, 3, 4]),
        9000,
    );
    assert!(matches!(
        store.record_game(&clash).await,
        Err(StoreError::GameNumberTaken { game_no: 3, .. })
    ));
}

async fn teams_game_rates_partners_together_and_cpu_finished_humans_get_the_result(
    store: Arc<dyn Store>,
) {
    let p = four_humans(&store).await;
    store.create_room(&room("r1")).await.unwrap();
    // Red+Yellow (Ann and cpu:hard) beat Blue+Green (Bob, whose seat the CPU finished, and Cy).
    let mut seats = [seat(&p[0]), seat(&p[1]), seat("cpu:hard"), seat(&p[2])];
    seats[1].cpu_finished = true;
    let game = finished(
        "t1",
        "r1",
        1,
        Pool::FourchessTeams,
        seats,
        GameResult::Teams(TeamResult::RedYellowWin),
        1000,
    );
    let Recorded::Written { rating_changes } = store.record_game(&game).await.unwrap() else {
        panic!()
    };
    let after = |id: &str| {
        rating_changes
            .iter()
            .find(|c| c.player_id == id)
            .unwrap()
            .after
    };
    assert!(after(&p[0]).mu > 25.0);
    assert_eq!(
        after("cpu:hard"),
        anchor(Pool::FourchessTeams, CpuLevel::Hard),
        "an anchor does not move"
    );
    assert!(
        after(&p[1]).mu < 25.0,
        "the human whose seat the CPU finished still loses"
    );
    assert!(after(&p[2]).mu < 25.0);
    let profile = store.profile(&p[1], 10).await.unwrap().unwrap();
    assert_eq!(profile.ratings.len(), 1);
    assert_eq!(profile.ratings[0].pool, Pool::FourchessTeams);
    assert_eq!(profile.ratings[0].rating, after(&p[1]));
    let cpu = store.profile("cpu:hard", 10).await.unwrap().unwrap();
    assert_eq!(cpu.ratings, vec![], "anchors are not stored ratings");
    assert_eq!(cpu.history, vec![]);
    let record = store.game("t1").await.unwrap().unwrap();
    assert!(record.game.seats[1].cpu_finished);
}

async fn every_cpu_seat_is_its_own_participant_at_the_levels_anchor(store: Arc<dyn Store>) {
    let ann = store.create_player("Ann").await.unwrap().player.id;
    store.create_room(&room("r1")).await.unwrap();
    let seats = [
        seat("cpu:easy"),
        seat(&ann),
        seat("cpu:easy"),
        seat("cpu:easy"),
    ];
    let game = finished(
        "g1",
        "r1",
        1,
        Pool::Chaturaji,
        seats,
        GameResult::Places([2, 1, 3, 4]),
        1000,
    );
    let Recorded::Written { rating_changes } = store.record_game(&game).await.unwrap() else {
        panic!()
    };
    assert_eq!(rating_changes.len(), 4, "one change per seat");
    let easy = anchor(Pool::Chaturaji, CpuLevel::Easy);
    for (i, seat) in [(0, Seat::Red), (2, Seat::Yellow), (3, Seat::Green)] {
        let c = &rating_changes[i];
        assert_eq!(
            (c.player_id.as_str(), c.seats.as_slice()),
            ("cpu:easy", &[seat][..])
        );
        assert_eq!((c.before, c.after, c.games), (easy, easy, 0));
    }
    // Ann beat three opponents of easy strength: exactly the update against three such humans.
    let expected = rate([easy, Rating::INITIAL, easy, easy], &game.result).unwrap();
    assert_eq!(rating_changes[1].after, expected[1]);
    assert_eq!(rating_changes[1].games, 1);
    let record = store.game("g1").await.unwrap().unwrap();
    assert_eq!(record.rating_changes, rating_changes);
}

async fn one_identity_in_two_seats_of_a_rated_game_is_refused(store: Arc<dyn Store>) {
    let ann = store.create_player("Ann").await.unwrap().player.id;
    store.create_room(&room("r1")).await.unwrap();
    let game = finished(
        "g1",
        "r1",
        1,
        Pool::Chaturaji,
        [seat(&ann), seat(&ann), seat("cpu:easy"), seat("cpu:easy")],
        GameResult::Places([1, 2, 3, 4]),
        1000,
    );
    assert!(matches!(
        store.record_game(&game).await,
        Err(StoreError::SameIdentity(id)) if id == ann
    ));
    assert_eq!(store.game("g1").await.unwrap(), None, "nothing written");
    // Recorded as what it is, an unrated game, it is kept.
    let mut unrated = game.clone();
    unrated.unrated = Some(UnratedReason::SameIdentity);
    assert!(store.record_game(&unrated).await.is_ok());
    assert_eq!(store.game("g1").await.unwrap().unwrap().game, unrated);
}

async fn unrated_game_is_recorded_without_rating_changes(store: Arc<dyn Store>) {
    let p = four_humans(&store).await;
    store.create_room(&room("r1")).await.unwrap();
    let mut game = finished(
        "u1",
        "r1",
        1,
        Pool::Chaturaji,
        [seat(&p[0]), seat(&p[1]), seat(&p[2]), seat(&p[3])],
        GameResult::Places([1, 2, 3, 4]),
        1000,
    );
    game.unrated = Some(UnratedReason::Guest);
    assert_eq!(
        store.record_game(&game).await.unwrap(),
        Recorded::Written {
            rating_changes: vec![]
        }
    );
    assert_eq!(
        store.profile(&p[0], 10).await.unwrap().unwrap().ratings,
        vec![]
    );
    assert_eq!(store.game("u1").await.unwrap().unwrap().game, game);
}

async fn leaderboard_lists_established_active_humans_only(store: Arc<dyn Store>) {
    let p = four_humans(&store).await;
    store.create_room(&room("r1")).await.unwrap();
    // Ann wins every game against Bob and cpu:hard; Cy plays only the first one.
    for g in 0..3 {
        let fourth = if g == 0 {
            p[2].clone()
        } else {
            "cpu:medium".to_owned()
        };
        let game = finished(
            &format!("g{g}"),
            "r1",
            g + 1,
            Pool::Chaturaji,
            [seat(&p[0]), seat(&p[1]), seat("cpu:hard"), seat(&fourth)],
            GameResult::Places([1, 3, 2, 4]),
            1000 + i64::from(g),
        );
        store.record_game(&game).await.unwrap();
    }
    let board = store
        .leaderboard(Pool::Chaturaji, everyone())
        .await
        .unwrap();
    let ids: Vec<&str> = board.iter().map(|r| r.player_id.as_str()).collect();
    assert_eq!(
        ids,
        [p[0].as_str(), p[1].as_str(), p[2].as_str()],
        "humans only, never a CPU anchor: {board:?}"
    );
    assert_eq!(board[0].rank, 1);
    assert_eq!(board[0].games, 3);
    assert_eq!(board[0].display, board[0].rating.display());
    assert!(
        board
            .windows(2)
            .all(|w| w[0].rating.conservative() >= w[1].rating.conservative())
    );
    let ids = |rows: Vec<store::LeaderboardRow>| -> Vec<String> {
        rows.into_iter().map(|r| r.player_id).collect()
    };

    // The default rule (10 games, sigma ≤ 4.5): nobody here is established yet.
    let default = store
        .leaderboard(Pool::Chaturaji, LeaderboardQuery::default())
        .await
        .unwrap();
    assert_eq!(default, vec![]);
    let min2 = LeaderboardQuery {
        established: Established {
            min_games: 2,
            max_sigma: f64::INFINITY,
        },
        ..everyone()
    };
    let two_games = ids(store.leaderboard(Pool::Chaturaji, min2).await.unwrap());
    assert_eq!(two_games, [p[0].clone(), p[1].clone()]);
    // Cy (one game) is the least sure: a sigma bound just below Cy's leaves Cy out.
    let sure = LeaderboardQuery {
        established: Established {
            min_games: 1,
            max_sigma: board[2].rating.sigma - 1e-6,
        },
        ..everyone()
    };
    assert!(board[2].rating.sigma > board[0].rating.sigma);
    assert_eq!(
        ids(store.leaderboard(Pool::Chaturaji, sure).await.unwrap()),
        two_games
    );
    // Only players with a rated game since `active_since`.
    let hour = 3_600_000;
    let lately = |since| LeaderboardQuery {
        active_since: since,
        ..everyone()
    };
    let now = store::now_millis();
    assert_eq!(
        store
            .leaderboard(Pool::Chaturaji, lately(now - hour))
            .await
            .unwrap()
            .len(),
        3
    );
    assert_eq!(
        store
            .leaderboard(Pool::Chaturaji, lately(now + hour))
            .await
            .unwrap(),
        vec![]
    );

    let page2 = LeaderboardQuery {
        limit: 2,
        offset: 1,
        ..everyone()
    };
    let rows = store.leaderboard(Pool::Chaturaji, page2).await.unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].rank, 2);
    assert_eq!(rows[0].player_id, board[1].player_id);
}

async fn profile_lists_ratings_and_history_newest_first(store: Arc<dyn Store>) {
    let p = four_humans(&store).await;
    store.create_room(&room("r1")).await.unwrap();
    let seats = || [seat(&p[0]), seat(&p[1]), seat(&p[2]), seat(&p[3])];
    store
        .record_game(&finished(
            "a",
            "r1",
            1,
            Pool::Chaturaji,
            seats(),
            GameResult::Places([1, 2, 3, 4]),
            1000,
        ))
        .await
        .unwrap();
    store
        .record_game(&finished(
            "b",
            "r1",
            2,
            Pool::FourchessFfa,
            seats(),
            GameResult::Places([4, 3, 2, 1]),
            2000,
        ))
        .await
        .unwrap();
    store
        .record_game(&finished(
            "c",
            "r1",
            3,
            Pool::Chaturaji,
            seats(),
            GameResult::Places([1, 2, 3, 4]),
            3000,
        ))
        .await
        .unwrap();

    let profile = store.profile(&p[0], 10).await.unwrap().unwrap();
    assert_eq!(profile.player.display_name, "Ann");
    let pools: Vec<Pool> = profile.ratings.iter().map(|r| r.pool).collect();
    assert_eq!(pools, [Pool::Chaturaji, Pool::FourchessFfa]);
    assert_eq!(profile.ratings[0].games, 2);
    let games: Vec<&str> = profile.history.iter().map(|h| h.game_id.as_str()).collect();
    assert_eq!(games, ["c", "b", "a"]);
    // The history chains: each Chaturaji game starts where the previous one ended.
    assert_eq!(profile.history[0].before, profile.history[2].after);
    assert_eq!(profile.history[0].after, profile.ratings[0].rating);
    assert_eq!(
        store
            .profile(&p[0], 1)
            .await
            .unwrap()
            .unwrap()
            .history
            .len(),
        1
    );
    assert_eq!(store.profile("p_nobody", 10).await.unwrap(), None);
}

async fn rating_history_pages_one_pool_newest_first(store: Arc<dyn Store>) {
    let p = four_humans(&store).await;
    store.create_room(&room("r1")).await.unwrap();
    let seats = || [seat(&p[0]), seat(&p[1]), seat(&p[2]), seat(&p[3])];
    for (n, pool) in [
        Pool::Chaturaji,
        Pool::FourchessFfa,
        Pool::Chaturaji,
        Pool::Chaturaji,
    ]
    .into_iter()
    .enumerate()
    {
        let game = finished(
            &format!("g{n}"),
            "r1",
            n as i32 + 1,
            pool,
            seats(),
            GameResult::Places([1, 2, 3, 4]),
            1000 + n as i64,
        );
        store.record_game(&game).await.unwrap();
    }
    let page = |limit, offset| HistoryQuery {
        pool: Pool::Chaturaji,
        limit,
        offset,
    };
    let all = store.rating_history(&p[0], page(10, 0)).await.unwrap();
    let got: Vec<(&str, i64)> = all.iter().map(|h| (h.game_id.as_str(), h.games)).collect();
    assert_eq!(
        got,
        [("g3", 3), ("g2", 2), ("g0", 1)],
        "one pool, newest first"
    );
    assert_eq!(
        all[0].before, all[1].after,
        "each game starts where the previous ended"
    );
    let second = store.rating_history(&p[0], page(1, 1)).await.unwrap();
    assert_eq!(second, all[1..2].to_vec());
    assert_eq!(
        store.rating_history(&p[0], page(5, 3)).await.unwrap(),
        vec![]
    );
    assert_eq!(
        store.rating_history("p_nobody", page(5, 0)).await.unwrap(),
        vec![]
    );
}

async fn game_record_reads_back_exactly(store: Arc<dyn Store>) {
    let p = four_humans(&store).await;
    store.create_room(&room("r1")).await.unwrap();
    let game = finished(
        "g1",
        "r1",
        7,
        Pool::FourchessFfa,
        [seat(&p[3]), seat(&p[2]), seat(&p[1]), seat(&p[0])],
        GameResult::Places([2, 2, 1, 4]),
        123_456,
    );
    let Recorded::Written { rating_changes } = store.record_game(&game).await.unwrap() else {
        panic!()
    };
    let record = store.game("g1").await.unwrap().unwrap();
    assert_eq!(record.game, game);
    assert_eq!(record.rating_changes, rating_changes);
    assert_eq!(store.game("nope").await.unwrap(), None);
}

/// A finished game whose record carries its seats (names, ids) as the room writes them.
fn with_seats(mut game: FinishedGame, names: [&str; 4]) -> FinishedGame {
    let seats: Vec<_> = Seat::ALL
        .iter()
        .zip(names)
        .zip(&game.seats)
        .map(|((s, name), p)| json!({"seat": s.name(), "name": name, "player_id": p.player_id}))
        .collect();
    game.record["seats"] = json!(seats);
    game
}

async fn room_games_page_newest_first_with_seats_and_standings(store: Arc<dyn Store>) {
    let p = four_humans(&store).await;
    store.create_room(&room("r1")).await.unwrap();
    store.create_room(&room("r2")).await.unwrap();
    let seats = || [seat(&p[0]), seat(&p[1]), seat(&p[2]), seat("cpu:easy")];
    for n in 1..=3 {
        let mut game = finished(
            &format!("r1-{n}"),
            "r1",
            n,
            Pool::Chaturaji,
            seats(),
            GameResult::Places([1, 2, 3, 4]),
            1_000 + i64::from(n),
        );
        if n == 2 {
            game.unrated = Some(UnratedReason::Casual);
        }
        store
            .record_game(&with_seats(game, ["Ann", "Bob", "Cy", "CPU (easy)"]))
            .await
            .unwrap();
    }
    let other = finished(
        "r2-1",
        "r2",
        1,
        Pool::Chaturaji,
        seats(),
        GameResult::Places([1, 2, 3, 4]),
        5,
    );
    store
        .record_game(&with_seats(other, ["a", "b", "c", "d"]))
        .await
        .unwrap();

    let all = store
        .room_games(
            "r1",
            RoomGamesQuery {
                before: None,
                limit: 10,
            },
        )
        .await
        .unwrap();
    let ids: Vec<&str> = all.iter().map(|g| g.id.as_str()).collect();
    assert_eq!(ids, ["r1-3", "r1-2", "r1-1"]);
    assert_eq!(all[0].game_no, 3);
    assert_eq!(all[0].room_id, "r1");
    assert_eq!(all[0].pool, Pool::Chaturaji);
    assert_eq!(all[0].finished_at, 1_003);
    assert_eq!(all[0].seats[0]["name"], "Ann");
    assert_eq!(all[0].seats[3]["player_id"], "cpu:easy");
    assert_eq!(
        all[0].standings,
        json!([{"seat": "red", "place": 1, "points": 30}])
    );
    assert_eq!(all[0].unrated, None);
    assert_eq!(all[1].unrated, Some(UnratedReason::Casual));
    assert!(all.iter().all(|g| g.rating.is_none()));
    // The next page starts below the previous page's last game number.
    let page = store
        .room_games(
            "r1",
            RoomGamesQuery {
                before: Some(3),
                limit: 1,
            },
        )
        .await
        .unwrap();
    assert_eq!(page, all[1..2]);
    assert!(
        store
            .room_games(
                "r1",
                RoomGamesQuery {
                    before: Some(1),
                    limit: 10
                }
            )
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        store
            .room_games(
                "nope",
                RoomGamesQuery {
                    before: None,
                    limit: 10
                }
            )
            .await
            .unwrap()
            .is_empty()
    );
}

async fn player_games_page_newest_first_with_the_players_rating_change(store: Arc<dyn Store>) {
    let p = four_humans(&store).await;
    store.create_room(&room("r1")).await.unwrap();
    // Two games finish at the same millisecond: the id orders them, and a page boundary between
    // them loses neither.
    let plan = [
        ("r1-1", 1, 100, [&p[0], &p[1], &p[2], &p[3]], None),
        (
            "r1-2",
            2,
            200,
            [&p[1], &p[0], &p[2], &p[3]],
            Some(UnratedReason::Casual),
        ),
        ("r1-3", 3, 200, [&p[0], &p[1], &p[2], &p[3]], None),
        (
            "r1-4",
            4,
            300,
            [&p[1], &p[2], &p[3], &p[2]],
            Some(UnratedReason::SameIdentity),
        ),
    ];
    let mut changes = std::collections::HashMap::new();
    for (id, n, at, players, unrated) in plan {
        let mut game = finished(
            id,
            "r1",
            n,
            Pool::FourchessFfa,
            players.map(|x| seat(x)),
            GameResult::Places([1, 2, 3, 4]),
            at,
        );
        game.unrated = unrated;
        let written = store
            .record_game(&with_seats(game, ["w", "x", "y", "z"]))
            .await
            .unwrap();
        if let Recorded::Written { rating_changes } = written {
            changes.insert(id, rating_changes);
        }
    }
    let ann = &p[0];
    let all = store
        .player_games(
            ann,
            PlayerGamesQuery {
                before: None,
                limit: 10,
            },
        )
        .await
        .unwrap();
    let ids: Vec<&str> = all.iter().map(|g| g.id.as_str()).collect();
    assert_eq!(
        ids,
        ["r1-3", "r1-2", "r1-1"],
        "Ann's games only, newest first"
    );
    let mine = |id: &str| {
        changes[id]
            .iter()
            .find(|c| &c.player_id == ann)
            .map(|c| (c.before, c.after))
    };
    assert_eq!(all[0].rating, mine("r1-3"));
    assert!(all[0].rating.is_some());
    assert_eq!(all[1].rating, None, "a casual game moves no rating");
    assert_eq!(all[2].rating, mine("r1-1"));
    assert_eq!(all[0].seats[1]["name"], "x");
    // Page by page, one game each: the same games in the same order.
    let mut paged = Vec::new();
    let mut before = None;
    loop {
        let page = store
            .player_games(
                ann,
                PlayerGamesQuery {
                    before: before.clone(),
                    limit: 1,
                },
            )
            .await
            .unwrap();
        let Some(last) = page.last() else { break };
        before = Some((last.finished_at, last.id.clone()));
        paged.extend(page);
    }
    assert_eq!(paged, all);
    // Cy held two seats of game 4 (an older version's game): listed once.
    let cy = store
        .player_games(
            &p[2],
            PlayerGamesQuery {
                before: None,
                limit: 10,
            },
        )
        .await
        .unwrap();
    assert_eq!(cy.iter().filter(|g| g.id == "r1-4").count(), 1);
    assert!(
        store
            .player_games(
                "nobody",
                PlayerGamesQuery {
                    before: None,
                    limit: 10
                }
            )
            .await
            .unwrap()
            .is_empty()
    );
}

async fn start_writer(store: &Arc<dyn Store>) -> (LogWriter, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let (writer, _task) = LogWriter::start(
        store.clone(),
        WriterConfig::new(dir.path().join("spool.jsonl")),
    )
    .await
    .unwrap();
    (writer, dir)
}

async fn writer_group_commits_many_concurrent_rooms(store: Arc<dyn Store>) {
    const ROOMS: usize = 100;
    const ACTIONS: i64 = 10;
    for r in 0..ROOMS {
        store.create_room(&room(&format!("r{r}"))).await.unwrap();
    }
    let (writer, _dir) = start_writer(&store).await;
    let tasks: Vec<_> = (0..ROOMS)
        .map(|r| {
            let writer = writer.clone();
            tokio::spawn(async move {
                // A room appends its actions one after another, each after the previous one's ack.
                for seq in 1..=ACTIONS {
                    let e = entry(&format!("r{r}"), 1, seq, json!({"room": r, "seq": seq}));
                    assert_eq!(writer.append(e).await, Ok(Durable::Database));
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    for r in [0, ROOMS / 2, ROOMS - 1] {
        let log = store.load_log(&format!("r{r}"), 1).await.unwrap();
        assert_eq!(log.len(), ACTIONS as usize);
        assert!(
            log.iter()
                .zip(1..)
                .all(|(e, seq)| e.seq == seq && e.payload["room"] == r)
        );
    }
    let health = writer.health();
    assert!(health.ready);
    assert_eq!(health.committed_entries, (ROOMS as u64) * ACTIONS as u64);
    assert!(
        health.committed_batches < health.committed_entries,
        "group commit batches concurrent appends: {health:?}"
    );
}

async fn writer_commit_delay_gathers_entries_that_come_one_at_a_time(store: Arc<dyn Store>) {
    store.create_room(&room("r1")).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (writer, _task) = LogWriter::start(
        store.clone(),
        WriterConfig {
            commit_delay: std::time::Duration::from_millis(20),
            ..WriterConfig::new(dir.path().join("spool.jsonl"))
        },
    )
    .await
    .unwrap();
    // One entry every 2 ms for a second, each sent without waiting for the one before: alone in
    // its commit unless the writer waits for company (a commit takes well under 2 ms here).
    const ENTRIES: i64 = 500;
    let mut every = tokio::time::interval(std::time::Duration::from_millis(2));
    let mut appends = Vec::new();
    for seq in 1..=ENTRIES {
        every.tick().await;
        let writer = writer.clone();
        appends.push(tokio::spawn(async move {
            writer.append(entry("r1", 1, seq, json!(seq))).await
        }));
    }
    for a in appends {
        assert_eq!(a.await.unwrap(), Ok(Durable::Database));
    }
    assert_eq!(
        store.load_log("r1", 1).await.unwrap().len(),
        ENTRIES as usize
    );
    let health = writer.health();
    assert_eq!(health.committed_entries, ENTRIES as u64);
    // The first 250 ms measure the rate (500 a second: 10 expected in 20 ms) and commit at once.
    let per_commit = health.committed_entries as f64 / health.committed_batches as f64;
    assert!(
        per_commit >= 2.0,
        "{per_commit:.2} entries per commit: {health:?}"
    );
}

async fn writer_reports_seq_conflicts_and_accepts_retries(store: Arc<dyn Store>) {
    store.create_room(&room("r1")).await.unwrap();
    let (writer, _dir) = start_writer(&store).await;
    let e = entry("r1", 1, 1, json!({"move": "a"}));
    assert_eq!(writer.append(e.clone()).await, Ok(Durable::Database));
    assert_eq!(
        writer.append(e.clone()).await,
        Ok(Durable::Database),
        "retry is idempotent"
    );
    assert_eq!(
        writer.append(entry("r1", 1, 1, json!({"move": "b"}))).await,
        Err(AppendError::SeqConflict {
            room_id: "r1".into(),
            game_no: 1,
            seq: 1
        })
    );
    assert_eq!(store.load_log("r1", 1).await.unwrap(), vec![e]);
}

async fn writer_refuses_only_the_bad_entry_of_a_batch(store: Arc<dyn Store>) {
    store.create_room(&room("r1")).await.unwrap();
    let (writer, _dir) = start_writer(&store).await;
    // Queue good and bad entries together so that they share a batch.
    let appends: Vec<_> = (1..=20)
        .map(|seq| {
            let writer = writer.clone();
            let room = if seq == 7 { "ghost" } else { "r1" };
            tokio::spawn(async move { writer.append(entry(room, 1, seq, json!(seq))).await })
        })
        .collect();
    let mut refused = 0;
    for (i, a) in appends.into_iter().enumerate() {
        match a.await.unwrap() {
            Ok(Durable::Database) => {}
            Err(AppendError::Rejected(_)) if i == 6 => refused += 1,
            other => panic!("entry {}: {other:?}", i + 1),
        }
    }
    assert_eq!(refused, 1);
    assert_eq!(store.load_log("r1", 1).await.unwrap().len(), 19);
    assert!(writer.is_ready());
}
