//! The axum application: shared state, the router, and binding.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post, put};
use tokio::net::TcpListener;

use room::RoomConfig;
use room::bot::{Bot, SimpleBot};

use crate::config::Config;
use crate::registry::Registry;
use crate::{openapi, records, rest, ws};

/// What every handler shares.
#[derive(Debug, Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub room_config: Arc<RoomConfig>,
    pub registry: Arc<Registry>,
    pub bot: Arc<dyn Bot>,
    /// Base of invite links, e.g. `http://127.0.0.1:8080`.
    pub base_url: Arc<str>,
    /// Players, ratings and finished games (`[database] url`).
    pub store: Arc<dyn store::Store>,
}

/// Every route of the server.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/healthz", get(rest::healthz))
        .route("/openapi.json", get(openapi::serve))
        .route("/rooms", post(rest::create_room).get(rest::list_rooms))
        .route("/rooms/{id}", get(rest::get_room))
        .route("/rooms/{id}/settings", put(rest::change_settings))
        .route("/rooms/{id}/join", post(rest::join))
        .route("/rooms/{id}/cpu", post(rest::seat_cpu))
        .route("/rooms/{id}/start", post(rest::start))
        .route("/rooms/{id}/rematch", post(rest::rematch))
        .route("/leaderboard", get(records::leaderboard))
        .route("/players/{id}", get(records::player))
        .route("/games/{id}", get(records::game))
        .route("/games/{id}/pgn4", get(records::pgn4))
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
    /// Opens the configured database (migrating it) and binds.
    pub async fn build(config: Config) -> anyhow::Result<Application> {
        let store = store::open(&config.database.url).await?;
        Application::build_with_store(config, store).await
    }

    /// Binds, serving from a store the caller opened (tests share it to insert data).
    pub async fn build_with_store(
        config: Config,
        store: Arc<dyn store::Store>,
    ) -> anyhow::Result<Application> {
        let listener = TcpListener::bind(&config.server.listen).await?;
        let addr = listener.local_addr()?;
        let base_url = if config.server.public_url.is_empty() {
            format!("http://{addr}")
        } else {
            config.server.public_url.trim_end_matches('/').to_owned()
        };
        let public_url = base_url.clone();
        let state = AppState {
            room_config: Arc::new(config.room_config()),
            config: Arc::new(config),
            registry: Arc::new(Registry::default()),
            bot: Arc::new(SimpleBot),
            base_url: base_url.into(),
            store,
        };
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
