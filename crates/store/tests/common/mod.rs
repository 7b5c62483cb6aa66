//! Test harness shared by the store's integration tests: a fresh database per test (a SQLite file in a
//! temp dir, or a new PostgreSQL database `fk_test_<random>` on the server at `FK_TEST_PG`), and
//! a TCP proxy that can cut and restore the connection to PostgreSQL.

#![allow(dead_code)]

use std::sync::Arc;

use sqlx::Connection;
use store::{OpenOptions, Store};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

/// The PostgreSQL server the tests use, without a database name. Its variable is not `FOURKINGS_…`:
/// every `FOURKINGS_*` variable is server configuration, and the servers the tests start would refuse
/// an unknown section.
pub fn pg_base() -> String {
    std::env::var("FK_TEST_PG")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432".to_owned())
        .trim_end_matches('/')
        .to_owned()
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

#[derive(Debug)]
pub enum TestDb {
    Sqlite { dir: tempfile::TempDir, url: String },
    Postgres { name: String, url: String },
}

impl TestDb {
    pub fn sqlite() -> TestDb {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}/db/fourkings.db", dir.path().display());
        TestDb::Sqlite { dir, url }
    }

    /// A fresh PostgreSQL database, or `None` (with a loud message) when the server is down outside CI.
    /// In CI (`CI=true`) a missing server fails the test.
    pub async fn postgres() -> Option<TestDb> {
        let base = pg_base();
        let mut admin = match sqlx::PgConnection::connect(&format!("{base}/postgres")).await {
            Ok(c) => c,
            Err(e) if !in_ci() => {
                // Straight to the stderr handle: libtest captures `eprintln!` of passing tests.
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "\n!!!!!!!! SKIPPING PostgreSQL test: cannot connect to {base} ({e}).\n\
                     !!!!!!!! Start PostgreSQL or set FK_TEST_PG; in CI this fails.\n"
                );
                return None;
            }
            Err(e) => panic!("PostgreSQL at {base} is required in CI: {e}"),
        };
        let name = format!("fk_test_{:016x}", rand::random::<u64>());
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut admin)
            .await
            .unwrap();
        admin.close().await.unwrap();
        let url = format!("{base}/{name}");
        Some(TestDb::Postgres { name, url })
    }

    pub fn url(&self) -> &str {
        match self {
            TestDb::Sqlite { url, .. } | TestDb::Postgres { url, .. } => url,
        }
    }

    pub async fn open(&self) -> Arc<dyn Store> {
        store::open(self.url()).await.unwrap()
    }

    pub async fn open_with(&self, options: &OpenOptions) -> Arc<dyn Store> {
        store::open_with(self.url(), options).await.unwrap()
    }

    /// Drops the PostgreSQL database (the temp dir of SQLite goes on drop).
    pub async fn cleanup(self) {
        if let TestDb::Postgres { name, .. } = self {
            let base = pg_base();
            if let Ok(mut admin) = sqlx::PgConnection::connect(&format!("{base}/postgres")).await {
                let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                    .execute(&mut admin)
                    .await;
                let _ = admin.close().await;
            }
        }
    }
}

/// Runs a generic test body against a fresh database of each backend.
#[macro_export]
macro_rules! for_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let db = $crate::common::TestDb::sqlite();
                    let store = db.open().await;
                    super::$name(store.clone()).await;
                    store.close().await;
                    db.cleanup().await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let Some(db) = $crate::common::TestDb::postgres().await else { return };
                    let store = db.open().await;
                    super::$name(store.clone()).await;
                    store.close().await;
                    db.cleanup().await;
                }
            )*
        }
    };
}

/// A TCP proxy in front of a real server.
/// - `cut()` drops every open connection and refuses new ones (accepted and closed at once): the
///   database is plainly unreachable.
/// - `stall()` keeps every connection open but forwards nothing, and holds new ones the same way: a
///   silent network cut, where nothing errors and only timeouts help.
/// - `restore()` ends both (stalled connections are dropped) and lets connections through again.
#[derive(Debug)]
pub struct Proxy {
    pub port: u16,
    mode: Arc<tokio::sync::watch::Sender<Mode>>,
    links: Arc<Mutex<Vec<JoinHandle<()>>>>,
    acceptor: JoinHandle<()>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Open,
    Cut,
    Stalled,
}

impl Proxy {
    pub async fn start(upstream: String) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let mode = Arc::new(tokio::sync::watch::channel(Mode::Open).0);
        let links: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let acceptor = {
            let mode = mode.clone();
            let links = links.clone();
            tokio::spawn(async move {
                loop {
                    let Ok((mut client, _)) = listener.accept().await else {
                        continue;
                    };
                    let mut watch = mode.subscribe();
                    let current = *watch.borrow_and_update();
                    let link = match current {
                        Mode::Cut => {
                            drop(client);
                            continue;
                        }
                        Mode::Stalled => tokio::spawn(async move {
                            let _held = client;
                            std::future::pending::<()>().await;
                        }),
                        Mode::Open => {
                            let upstream = upstream.clone();
                            tokio::spawn(async move {
                                let Ok(mut server) = TcpStream::connect(&upstream).await else {
                                    return;
                                };
                                let stalled = tokio::select! {
                                    _ = tokio::io::copy_bidirectional(&mut client, &mut server) => false,
                                    r = watch.wait_for(|m| *m == Mode::Stalled) => r.is_ok(),
                                };
                                if stalled {
                                    // Keep both sockets open and silent until restored.
                                    std::future::pending::<()>().await;
                                }
                            })
                        }
                    };
                    links.lock().await.push(link);
                }
            })
        };
        Proxy {
            port,
            mode,
            links,
            acceptor,
        }
    }

    async fn drop_links(&self) {
        for link in self.links.lock().await.drain(..) {
            link.abort();
        }
    }

    pub async fn cut(&self) {
        self.mode.send_replace(Mode::Cut);
        self.drop_links().await;
    }

    pub fn stall(&self) {
        self.mode.send_replace(Mode::Stalled);
    }

    pub async fn restore(&self) {
        self.mode.send_replace(Mode::Open);
        self.drop_links().await;
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.acceptor.abort();
    }
}

/// Splits a PostgreSQL URL into the part before the host (`postgres://user@`), `host:port` and the
/// rest (`/db?…`), to point the same URL at a proxy.
pub fn split_pg_url(url: &str) -> (String, String, String) {
    let scheme_end = url.find("://").map(|i| i + 3).unwrap_or(0);
    let host_start = url[scheme_end..]
        .rfind('@')
        .map(|i| scheme_end + i + 1)
        .unwrap_or(scheme_end);
    let host_end = url[host_start..]
        .find('/')
        .map(|i| host_start + i)
        .unwrap_or(url.len());
    let mut host = url[host_start..host_end].to_owned();
    if !host.contains(':') {
        host.push_str(":5432");
    }
    (
        url[..host_start].to_owned(),
        host,
        url[host_end..].to_owned(),
    )
}
