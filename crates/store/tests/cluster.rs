//! Leases and fencing on a real PostgreSQL (issue #9): who may claim a room, and that a node which
//! lost its room or its lease can never write to it again.

mod common;

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use store::cluster::{Appended, Claim, Cluster, Fence, LeaseConfig};
use store::{EntryKind, LogEntry, NewRoom, OpenOptions, Store, StoreError};

use common::TestDb;

const SHORT: LeaseConfig = LeaseConfig {
    ttl: Duration::from_millis(400),
    renew_every: Duration::from_millis(100),
};

async fn setup(rooms: &[&str], lease: LeaseConfig) -> Option<(TestDb, Arc<dyn Store>, Cluster)> {
    let db = TestDb::postgres().await?;
    let store = db.open().await;
    for id in rooms {
        store
            .create_room(&NewRoom {
                id: (*id).to_owned(),
                game_kind: "chaturaji".into(),
                options: json!({}),
                host_token: "host".into(),
                settings: json!({}),
            })
            .await
            .unwrap();
    }
    let cluster = Cluster::open(db.url(), &OpenOptions::default(), lease)
        .await
        .unwrap();
    Some((db, store, cluster))
}

fn entry(room: &str, seq: i64) -> LogEntry {
    LogEntry {
        room_id: room.to_owned(),
        game_no: 1,
        seq,
        kind: EntryKind::Action,
        payload: json!({ "n": seq }),
        at: 0,
    }
}

fn claimed(claim: Claim) -> (Fence, i64) {
    match claim {
        Claim::Claimed { fence, last_seq } => (fence, last_seq),
        other => panic!("expected a claim, got {other:?}"),
    }
}

#[tokio::test]
async fn cluster_mode_refuses_sqlite() {
    let err = Cluster::open(
        "sqlite://data/x.db",
        &OpenOptions::default(),
        LeaseConfig::default(),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, StoreError::ClusterNeedsPostgres(_)), "{err}");
    assert!(err.to_string().contains("needs PostgreSQL"));
}

#[tokio::test]
async fn a_room_has_one_owner_until_its_lease_expires() {
    let Some((db, _store, cluster)) = setup(&["r1"], SHORT).await else {
        return;
    };
    let a = cluster.register_node("http://a").await.unwrap();
    let b = cluster.register_node("http://b").await.unwrap();
    let (fence_a, last) = claimed(cluster.claim_room(&a, "r1").await.unwrap());
    assert_eq!((fence_a.epoch, last), (1, 0));
    // B is redirected to A while A's lease holds.
    assert_eq!(
        cluster.claim_room(&b, "r1").await.unwrap(),
        Claim::OwnedBy {
            node_id: a.clone(),
            public_url: "http://a".into()
        }
    );
    assert_eq!(cluster.owner("r1").await.unwrap().unwrap().node_id, a);
    assert_eq!(
        cluster.claim_room(&b, "nope").await.unwrap(),
        Claim::NoSuchRoom
    );
    // A stops renewing; B keeps its own lease alive and takes the room under a higher epoch.
    tokio::time::sleep(SHORT.ttl + Duration::from_millis(200)).await;
    assert!(
        !cluster.renew(&a).await.unwrap(),
        "an expired lease is never revived"
    );
    let b = cluster.register_node("http://b2").await.unwrap();
    let (fence_b, _) = claimed(cluster.claim_room(&b, "r1").await.unwrap());
    assert_eq!(fence_b.epoch, 2);
    assert_eq!(
        cluster.rooms_owned_by(&b).await.unwrap(),
        vec!["r1".to_owned()]
    );
    db.cleanup().await;
}

#[tokio::test]
async fn appends_are_fenced_by_owner_epoch_sequence_and_lease() {
    let Some((db, _store, cluster)) = setup(&["r1"], SHORT).await else {
        return;
    };
    let a = cluster.register_node("http://a").await.unwrap();
    let (fence, _) = claimed(cluster.claim_room(&a, "r1").await.unwrap());
    assert_eq!(
        cluster
            .fenced_append(&fence, 0, &[entry("r1", 0), entry("r1", 1)])
            .await
            .unwrap(),
        Appended::Written { last_seq: 2 }
    );
    // A stale expected sequence (a lost race with itself) is refused and writes nothing.
    assert_eq!(
        cluster
            .fenced_append(&fence, 1, &[entry("r1", 2)])
            .await
            .unwrap(),
        Appended::Fenced
    );
    // A wrong epoch is refused.
    let forged = Fence {
        epoch: fence.epoch + 1,
        ..fence.clone()
    };
    assert_eq!(
        cluster
            .fenced_append(&forged, 2, &[entry("r1", 2)])
            .await
            .unwrap(),
        Appended::Fenced
    );
    // The owner's own lease running out fences it even before anyone else claims the room: a paused
    // node that wakes up cannot write.
    tokio::time::sleep(SHORT.ttl + Duration::from_millis(200)).await;
    assert_eq!(
        cluster
            .fenced_append(&fence, 2, &[entry("r1", 2)])
            .await
            .unwrap(),
        Appended::Fenced
    );
    let audit = cluster.audit_log("r1").await.unwrap();
    assert_eq!(audit.len(), 2);
    assert!(
        audit
            .iter()
            .all(|r| r.writer_node.as_deref() == Some(a.as_str()) && r.writer_epoch == Some(1))
    );
    db.cleanup().await;
}

#[tokio::test]
async fn a_paused_owner_is_fenced_after_failover_and_the_log_has_no_fork() {
    let Some((db, _store, cluster)) = setup(&["r1"], SHORT).await else {
        return;
    };
    let a = cluster.register_node("http://a").await.unwrap();
    let (fence_a, _) = claimed(cluster.claim_room(&a, "r1").await.unwrap());
    cluster
        .fenced_append(&fence_a, 0, &[entry("r1", 0)])
        .await
        .unwrap();
    // A is "paused" past its lease; B claims, replays (last_seq 1) and goes on.
    tokio::time::sleep(SHORT.ttl + Duration::from_millis(200)).await;
    let b = cluster.register_node("http://b").await.unwrap();
    let (fence_b, last) = claimed(cluster.claim_room(&b, "r1").await.unwrap());
    assert_eq!((fence_b.epoch, last), (2, 1));
    assert_eq!(
        cluster
            .fenced_append(&fence_b, 1, &[entry("r1", 1)])
            .await
            .unwrap(),
        Appended::Written { last_seq: 2 }
    );
    // A wakes up and tries to write what it believes is next: every attempt is rejected.
    let mut rejected = 0;
    for expected in [1, 2] {
        if cluster
            .fenced_append(&fence_a, expected, &[entry("r1", expected)])
            .await
            .unwrap()
            == Appended::Fenced
        {
            rejected += 1;
        }
    }
    assert_eq!(rejected, 2);
    let audit = cluster.audit_log("r1").await.unwrap();
    let writers: Vec<_> = audit
        .iter()
        .map(|r| {
            (
                r.seq,
                r.writer_node.clone().unwrap(),
                r.writer_epoch.unwrap(),
            )
        })
        .collect();
    assert_eq!(writers, vec![(0, a.clone(), 1), (1, b.clone(), 2)]);
    db.cleanup().await;
}

/// A node frozen (SIGSTOP, a paused VM) between two statements of a group commit keeps its rooms'
/// rows locked. PostgreSQL ends such a session after `pg_idle_in_transaction`, so the node taking the
/// room over when the frozen node's lease has run out claims it instead of waiting for as long as the
/// frozen node sleeps (a cluster test once hung there for 10 s).
#[tokio::test]
async fn a_node_frozen_inside_a_transaction_does_not_hold_its_rooms_locked() {
    let Some((db, _store, cluster)) = setup(&["r1"], SHORT).await else {
        return;
    };
    let options = OpenOptions {
        pg_idle_in_transaction: Duration::from_millis(300),
        ..Default::default()
    };
    let frozen_node = store::PgStore::open(db.url(), &options).await.unwrap();
    let a = cluster.register_node("http://a").await.unwrap();
    let (fence, _) = claimed(cluster.claim_room(&a, "r1").await.unwrap());
    // Node a's commit, stopped after its fenced update of the room's row: the row stays locked.
    let mut tx = frozen_node.pool().begin().await.unwrap();
    sqlx::query("UPDATE rooms SET last_seq = 1 WHERE id = $1 AND owner_epoch = $2")
        .bind("r1")
        .bind(fence.epoch)
        .execute(&mut *tx)
        .await
        .unwrap();
    // Past a's lease, node b claims the room, within a bound that a lock held for ever would break.
    tokio::time::sleep(SHORT.ttl + Duration::from_millis(100)).await;
    let b = cluster.register_node("http://b").await.unwrap();
    let claim = tokio::time::timeout(Duration::from_secs(5), cluster.claim_room(&b, "r1"))
        .await
        .expect("the frozen transaction's lock was released");
    let (fence_b, last) = claimed(claim.unwrap());
    // Epoch 2, and the frozen update was rolled back, never committed.
    assert_eq!((fence_b.epoch, last), (2, 0));
    assert!(tx.commit().await.is_err(), "the frozen session was ended");
    db.cleanup().await;
}

#[tokio::test]
async fn racing_claims_have_exactly_one_winner_per_epoch() {
    let Some((db, _store, cluster)) = setup(&["r1"], LeaseConfig::default()).await else {
        return;
    };
    let mut nodes = Vec::new();
    for i in 0..8 {
        nodes.push(
            cluster
                .register_node(&format!("http://n{i}"))
                .await
                .unwrap(),
        );
    }
    let mut tasks = Vec::new();
    for node in nodes {
        let cluster = cluster.clone();
        tasks.push(tokio::spawn(async move {
            cluster.claim_room(&node, "r1").await.unwrap()
        }));
    }
    let mut winners = Vec::new();
    for t in tasks {
        if let Claim::Claimed { fence, .. } = t.await.unwrap() {
            winners.push(fence);
        }
    }
    assert_eq!(winners.len(), 1, "{winners:?}");
    assert_eq!(winners[0].epoch, 1);
    db.cleanup().await;
}

#[tokio::test]
async fn a_drained_node_releases_its_rooms_at_once() {
    let Some((db, _store, cluster)) = setup(&["r1", "r2"], LeaseConfig::default()).await else {
        return;
    };
    let a = cluster.register_node("http://a").await.unwrap();
    let b = cluster.register_node("http://b").await.unwrap();
    claimed(cluster.claim_room(&a, "r1").await.unwrap());
    claimed(cluster.claim_room(&a, "r2").await.unwrap());
    assert_eq!(cluster.release_node(&a).await.unwrap(), 2);
    // No waiting for the 6 s lease: B takes both rooms now, under new epochs.
    let (f1, _) = claimed(cluster.claim_room(&b, "r1").await.unwrap());
    let (f2, _) = claimed(cluster.claim_room(&b, "r2").await.unwrap());
    assert_eq!((f1.epoch, f2.epoch), (2, 2));
    assert!(!cluster.renew(&a).await.unwrap());
    db.cleanup().await;
}

#[tokio::test]
async fn group_commit_across_rooms_keeps_going_when_one_room_is_fenced() {
    let Some((db, _store, cluster)) = setup(&["r1", "r2", "r3"], LeaseConfig::default()).await
    else {
        return;
    };
    let a = cluster.register_node("http://a").await.unwrap();
    let (f1, _) = claimed(cluster.claim_room(&a, "r1").await.unwrap());
    let (f2, _) = claimed(cluster.claim_room(&a, "r2").await.unwrap());
    let (f3, _) = claimed(cluster.claim_room(&a, "r3").await.unwrap());
    let out = cluster
        .fenced_append_many(&[
            (f1, 0, vec![entry("r1", 0)]),
            // r2 is fenced: wrong expected sequence.
            (f2, 5, vec![entry("r2", 0)]),
            (f3, 0, vec![entry("r3", 0), entry("r3", 1)]),
        ])
        .await
        .unwrap();
    assert_eq!(
        out,
        vec![
            Appended::Written { last_seq: 1 },
            Appended::Fenced,
            Appended::Written { last_seq: 2 }
        ]
    );
    assert_eq!(cluster.audit_log("r1").await.unwrap().len(), 1);
    assert!(cluster.audit_log("r2").await.unwrap().is_empty());
    assert_eq!(cluster.audit_log("r3").await.unwrap().len(), 2);
    db.cleanup().await;
}

#[tokio::test]
async fn orphaned_rooms_are_games_in_progress_of_dead_or_drained_nodes() {
    // A lease long enough that set-up on a loaded machine does not outlive it.
    let lease = LeaseConfig {
        ttl: Duration::from_millis(2000),
        renew_every: Duration::from_millis(250),
    };
    let rooms = ["alive", "dead", "drained", "closed", "lobby", "finished"];
    let Some((db, store, cluster)) = setup(&rooms, lease).await else {
        return;
    };
    let a = cluster.register_node("http://a").await.unwrap();
    let b = cluster.register_node("http://b").await.unwrap();
    let c = cluster.register_node("http://c").await.unwrap();
    // Every room but "lobby" has a game started (its log has entries of game 1).
    for (room, node) in [
        ("alive", &a),
        ("dead", &b),
        ("drained", &c),
        ("closed", &c),
        ("lobby", &c),
        ("finished", &c),
    ] {
        let (fence, _) = claimed(cluster.claim_room(node, room).await.unwrap());
        let entries: Vec<LogEntry> = if room == "lobby" {
            vec![LogEntry {
                game_no: 0,
                ..entry(room, 0)
            }]
        } else {
            vec![entry(room, 0), entry(room, 1)]
        };
        assert_eq!(
            cluster.fenced_append(&fence, 0, &entries).await.unwrap(),
            Appended::Written {
                last_seq: entries.len() as i64
            }
        );
    }
    let room = store.room("closed").await.unwrap().unwrap();
    store
        .update_room(
            "closed",
            &room.options,
            &room.settings,
            store::RoomState::Closed,
        )
        .await
        .unwrap();
    let cpu = || store::SeatPlayer {
        player_id: "cpu:easy".into(),
        cpu_finished: false,
    };
    store
        .record_game(&store::FinishedGame {
            id: "finished-1".into(),
            room_id: "finished".into(),
            game_no: 1,
            pool: rating::Pool::Chaturaji,
            unrated: Some(store::UnratedReason::Casual),
            options: json!({}),
            first_seat: rules::Seat::Red,
            dice_commit: None,
            revealed_seed: None,
            seats: [cpu(), cpu(), cpu(), cpu()],
            result: rating::GameResult::Places([1, 2, 3, 4]),
            standings: json!([]),
            record: json!({}),
            finished_at: 0,
        })
        .await
        .unwrap();
    // C drains: of its rooms only the one with a game still running is an orphan.
    cluster.release_node(&c).await.unwrap();
    assert_eq!(
        cluster.orphaned_rooms(10).await.unwrap(),
        vec!["drained".to_owned()]
    );
    // B dies (stops renewing) while A lives on.
    for _ in 0..10 {
        tokio::time::sleep(lease.renew_every).await;
        assert!(cluster.renew(&a).await.unwrap());
    }
    let mut orphans = cluster.orphaned_rooms(10).await.unwrap();
    orphans.sort();
    assert_eq!(orphans, vec!["dead".to_owned(), "drained".to_owned()]);
    assert_eq!(cluster.orphaned_rooms(1).await.unwrap().len(), 1);
    let live: Vec<String> = cluster
        .live_nodes()
        .await
        .unwrap()
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(live, vec![a.clone()]);
    // Claiming an orphan takes it off the list.
    claimed(cluster.claim_room(&a, "dead").await.unwrap());
    assert_eq!(
        cluster.orphaned_rooms(10).await.unwrap(),
        vec!["drained".to_owned()]
    );
    db.cleanup().await;
}
