//! Opening stores: the backend comes from the URL scheme; SQLite needs no setup.

mod common;

use sqlx::Connection;
use store::{Backend, StoreError};

#[tokio::test]
async fn sqlite_file_and_folder_are_created_on_first_start_in_wal_mode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data").join("nested").join("fourkings.db");
    let url = format!("sqlite://{}", path.display());
    let store = store::open(&url).await.unwrap();
    assert_eq!(store.backend(), Backend::Sqlite);
    assert!(path.exists());
    store.create_player("Ann").await.unwrap();
    store.close().await;

    let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(mode, "wal");
    conn.close().await.unwrap();

    // Reopening keeps the data and does not re-run the migrations.
    let store = store::open(&url).await.unwrap();
    let board = store
        .leaderboard(rating::Pool::Chaturaji, Default::default())
        .await
        .unwrap();
    assert!(board.is_empty());
    assert!(store.player("cpu:easy").await.unwrap().is_some());
    store.close().await;
}

/// `PRAGMA synchronous` of a pooled connection: 2 = FULL, 1 = NORMAL.
async fn synchronous_of(options: &store::OpenOptions) -> i64 {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("sync.db").display());
    let store = store::SqliteStore::open(&url, options).await.unwrap();
    let level = sqlx::query_scalar("PRAGMA synchronous")
        .fetch_one(store.pool())
        .await
        .unwrap();
    store.pool().close().await;
    level
}

#[tokio::test]
async fn sqlite_fsyncs_every_commit_unless_the_operator_chooses_normal() {
    assert_eq!(synchronous_of(&store::OpenOptions::default()).await, 2);
    let normal = store::OpenOptions {
        sqlite_sync: store::SqliteSync::Normal,
        ..Default::default()
    };
    assert_eq!(synchronous_of(&normal).await, 1);
}

#[tokio::test]
async fn postgres_url_opens_a_postgres_store() {
    let Some(db) = common::TestDb::postgres().await else {
        return;
    };
    let store = db.open().await;
    assert_eq!(store.backend(), Backend::Postgres);
    store.ping().await.unwrap();
    store.close().await;
    // Opening an already migrated database again is fine.
    let again = db.open().await;
    again.ping().await.unwrap();
    again.close().await;
    db.cleanup().await;
}

#[tokio::test]
async fn unknown_schemes_are_refused() {
    for url in ["mysql://localhost/x", "data/fourkings.db", ""] {
        assert!(matches!(
            store::open(url).await,
            Err(StoreError::UnsupportedUrl(_))
        ));
    }
}

#[tokio::test]
async fn unreachable_postgres_is_a_transient_error() {
    // Port 1 on loopback: nothing listens there.
    let options = store::OpenOptions {
        max_connections: 1,
        acquire_timeout: std::time::Duration::from_millis(300),
        ..Default::default()
    };
    let err = store::open_with("postgres://postgres@127.0.0.1:1/x", &options)
        .await
        .unwrap_err();
    assert!(err.is_transient(), "{err}");
}
