//! The axum application: shared state, the router, and binding.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post, put};
use tokio::net::TcpListener;

use room::RoomConfig;
use room::bot::{Bot, SimpleBot};
use room::log::ActionLog;
use store::{LogWriter, Store};

use crate::config::Config;
use crate::persist::StoreLog;
use crate::registry::Registry;
use crate::{openapi, persist, rest, ws};

/// What every handler shares.
#[derive(Debug, Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub room_config: Arc<RoomConfig>,
    pub registry: Arc<Registry>,
    pub bot: Arc<dyn Bot>,
    /// Base of invite links, e.g. `http://127.0.0.1:8080`.
    pub base_url: Arc<str>,
    pub store: Arc<dyn Store>,
    /// The group-commit writer every room's log goes through.
    pub writer: LogWriter,
    /// What rooms persist through (over `writer` and `store`).
    pub log: Arc<dyn ActionLog>,
}

/// Every route of the server.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/healthz", get(rest::healthz))
        .route("/readyz", get(rest::readyz))
        .route("/players", post(rest::create_player))
        .route("/openapi.json", get(openapi::serve))
        .route("/rooms", post(rest::create_room).get(rest::list_rooms))
        .route("/rooms/{id}", get(rest::get_room))
        .route("/rooms/{id}/settings", put(rest::change_settings))
        .route("/rooms/{id}/join", post(rest::join))
        .route("/rooms/{id}/cpu", post(rest::seat_cpu))
        .route("/rooms/{id}/start", post(rest::start))
        .route("/rooms/{id}/rematch", post(rest::rematch))
        .route("/ws", get(ws::upgrade))
        .fallback(crate::web::serve)
        .with_state(state)
}

/// A bound, not yet serving server.
#[derive(Debug)]
pub struct Application {
    listener: TcpListener,
    addr: SocketAddr,
    public_url: String,
    router: Router,
}

impl Application {
    pub async fn build(config: Config) -> anyhow::Result<Application> {
        let listener = TcpListener::bind(&config.server.listen).await?;
        let addr = listener.local_addr()?;
        let base_url = if config.server.public_url.is_empty() {
            format!("http://{addr}")
        } else {
            config.server.public_url.trim_end_matches('/').to_owned()
        };
        let public_url = base_url.clone();
        let store = store::open_with(&config.database.url, &config.open_options()).await?;
        let (writer, _task) = LogWriter::start(store.clone(), config.writer_config()).await?;
        // What a previous run left in the spool goes into the database before the logs are read.
        if writer.health().spooled > 0 {
            tracing::info!("draining the log spool left by the previous run");
            writer.wait_for(|h| h.spooled == 0).await;
        }
        let log: Arc<dyn ActionLog> = Arc::new(StoreLog {
            store: store.clone(),
            writer: writer.clone(),
        });
        let state = AppState {
            room_config: Arc::new(config.room_config()),
            config: Arc::new(config),
            registry: Arc::new(Registry::default()),
            bot: Arc::new(SimpleBot),
            base_url: base_url.into(),
            store,
            writer,
            log,
        };
        let restored = persist::recover(
            &state.store,
            &state.registry,
            state.room_config.clone(),
            state.log.clone(),
            state.bot.clone(),
        )
        .await?;
        if restored > 0 {
            tracing::info!(
                rooms = restored,
                "rebuilt the unfinished rooms from the database"
            );
        }
        Ok(Application {
            listener,
            addr,
            public_url,
            router: router(state),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL people open (the configured public URL, or the bound address).
    pub fn public_url(&self) -> &str {
        &self.public_url
    }

    pub async fn run(self) -> std::io::Result<()> {
        axum::serve(self.listener, self.router)
            .with_graceful_shutdown(shutdown_signal())
            .await
    }
}

async fn shutdown_signal() {
    let _ = tokio::signal::ctrl_c().await;
}
