//! The axum application: shared state, the router, and binding.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::middleware::{from_fn, from_fn_with_state, map_response};
use axum::routing::{get, post, put};
use tokio::net::TcpListener;

use room::RoomConfig;
use room::bot_pool::BotPool;
use room::lane::CpuLane;
use room::log::ActionLog;
use store::{LogWriter, Store};

use crate::cluster::ClusterNode;
use crate::config::Config;
use crate::listen::Gate;
use crate::persist::{Appender, StoreLog};
use crate::registry::Registry;
use crate::shutdown::{DrainHooks, ShutdownTrigger, Stopping};
use crate::telemetry::Connections;
use crate::throttle::RestLimits;
use crate::{
    client, cluster, fdlimit, listen, logging, openapi, persist, records, rest, shutdown,
    telemetry, throttle, web, ws,
};

/// What every handler shares: one pointer, because every WebSocket connection keeps a copy for its
/// whole life (the fields side by side were 144 bytes of each idle connection).
#[derive(Debug, Clone)]
pub struct AppState(Arc<Shared>);

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

#[derive(Debug)]
pub struct Shared {
    pub config: Arc<Config>,
    pub room_config: Arc<RoomConfig>,
    pub registry: Arc<Registry>,
    /// The CPU players' worker pool, shared by every room.
    pub bot: Arc<BotPool>,
    /// Base of invite links, e.g. `http://127.0.0.1:8080`.
    pub base_url: Arc<str>,
    /// Open WebSocket connections (metrics, and the shutdown waits for them).
    pub connections: Arc<Connections>,
    /// Becomes true when the server stops: connections close with 1012.
    pub stopping: Stopping,
    pub store: Arc<dyn Store>,
    /// The group-commit writer every room's log goes through (single node; none in cluster mode).
    pub writer: Option<LogWriter>,
    /// What rooms persist through (over `writer` or `cluster`, and `store`).
    pub log: Arc<dyn ActionLog>,
    /// Cluster mode: this node's lease, the rooms it holds, its fenced writer.
    pub cluster: Option<Arc<ClusterNode>>,
    /// Per-client REST rate limits.
    pub rest_limits: Arc<RestLimits>,
}

/// Every route of the server.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/healthz", get(rest::healthz))
        .route("/metrics", get(telemetry::serve))
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
        .route("/rooms/{id}/unseat", post(rest::unseat))
        .route("/rooms/{id}/lock", post(rest::lock))
        .route("/rooms/{id}/unlock", post(rest::unlock))
        .route("/rooms/{id}/handover", post(rest::handover))
        .route("/rooms/{id}/mute", post(rest::mute))
        .route("/rooms/{id}/hide", post(rest::hide))
        .route("/rooms/{id}/positions", get(rest::positions))
        .route("/rooms/{id}/games", get(records::room_games))
        .route("/leaderboard", get(records::leaderboard))
        .route("/players/{id}", get(records::player))
        .route("/players/{id}/history", get(records::history))
        .route("/players/{id}/games", get(records::player_games))
        .route("/games/{id}", get(records::game))
        .route("/games/{id}/pgn4", get(records::pgn4))
        .route("/games/{id}/positions", get(records::game_positions))
        .route("/ws", get(ws::upgrade))
        .fallback(crate::web::serve)
        // Outermost last: the span, the security headers, the probe reserve, who the client is,
        // its rate limits, the request deadline, the body limit.
        .layer(DefaultBodyLimit::max(state.config.limits.max_body_bytes))
        .layer(from_fn_with_state(
            Duration::from_millis(state.config.server.request_timeout_ms),
            listen::request_deadline,
        ))
        .layer(from_fn_with_state(state.clone(), throttle::limit))
        .layer(from_fn_with_state(state.clone(), client::identify))
        .layer(from_fn(listen::probes_only))
        .layer(map_response(web::security_headers))
        .layer(from_fn(logging::request_span))
        .with_state(state)
}

/// A bound, not yet serving server.
#[derive(Debug)]
pub struct Application {
    listener: TcpListener,
    addr: SocketAddr,
    public_url: String,
    router: Router,
    connections: Arc<Connections>,
    gate: Arc<Gate>,
    header_timeout: Duration,
    trigger: ShutdownTrigger,
    stopping: Stopping,
    shutdown_timeout: Duration,
    drain_hooks: DrainHooks,
    /// The runtime of the tables of four CPU players; stopped when the application is dropped.
    _cpu_lane: Option<CpuLane>,
}

impl Application {
    /// Opens the configured database (migrating it) and binds. In cluster mode the node registers
    /// and shares the store's PostgreSQL pool for the cluster tables.
    pub async fn build(config: Config) -> anyhow::Result<Application> {
        if !config.cluster.enabled {
            let store = store::open_with(&config.database.url, &config.open_options()).await?;
            return Application::build_with_store(config, store).await;
        }
        let url = &config.database.url;
        if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
            return Err(store::StoreError::ClusterNeedsPostgres(url.clone()).into());
        }
        let pg = store::PgStore::open(url, &config.open_options()).await?;
        Application::assemble(config, Arc::new(pg.clone()), Some(pg)).await
    }

    /// Binds, serving from a store the caller opened (tests share it to insert data). In cluster
    /// mode the cluster tables get their own pool.
    pub async fn build_with_store(
        config: Config,
        store: Arc<dyn store::Store>,
    ) -> anyhow::Result<Application> {
        let pg = if config.cluster.enabled {
            Some(store::PgStore::open(&config.database.url, &config.open_options()).await?)
        } else {
            None
        };
        Application::assemble(config, store, pg).await
    }

    /// `pg`: cluster mode, over this PostgreSQL pool.
    async fn assemble(
        mut config: Config,
        store: Arc<dyn store::Store>,
        pg: Option<store::PgStore>,
    ) -> anyhow::Result<Application> {
        let listener = TcpListener::bind(&config.server.listen).await?;
        let addr = listener.local_addr()?;
        // Registered after binding: a node listening on port 0 (tests) names its real port.
        config.cluster.public_url = cluster::with_port(&config.cluster.public_url, addr.port());
        let node = match pg {
            Some(pg) => Some(ClusterNode::start(&pg, &config).await?),
            None => None,
        };
        let base_url = if config.server.public_url.is_empty() {
            format!("http://{addr}")
        } else {
            config.server.public_url.trim_end_matches('/').to_owned()
        };
        let public_url = base_url.clone();
        // Install the metrics recorder before anything records (the bot pool does).
        telemetry::handle();
        let bot = BotPool::new(config.bot_config());
        let cpu_lane = if config.rooms.cpu_lane {
            Some(CpuLane::start()?)
        } else {
            None
        };
        let limits = &config.limits;
        let ceiling = fdlimit::connection_ceiling(
            limits.max_connections,
            fdlimit::open_files(),
            limits.probe_reserve,
        );
        tracing::info!(max_connections = ceiling, "connection ceiling");
        let connections = Arc::new(Connections::with_ceiling(ceiling));
        let gate = Arc::new(Gate::new(
            ceiling,
            limits.probe_reserve,
            limits.max_connections_per_ip,
            config.server.trusted_proxies.clone(),
        ));
        let header_timeout = Duration::from_millis(config.server.header_timeout_ms);
        let rest_limits = Arc::new(RestLimits::new(limits));
        let (trigger, stopping) = shutdown::channel();
        let shutdown_timeout = Duration::from_millis(config.server.shutdown_timeout_ms);
        let mut drain_hooks = DrainHooks::default();
        let (writer, appender) = match &node {
            // Cluster mode never spools: a spool on one node would fork the games others take over.
            Some(node) => (None, Appender::Fenced(node.clone())),
            None => {
                let (writer, _task) =
                    LogWriter::start(store.clone(), config.writer_config()).await?;
                // What a previous run left in the spool goes into the database before the logs are
                // read.
                if writer.health().spooled > 0 {
                    tracing::info!("draining the log spool left by the previous run");
                    writer.wait_for(|h| h.spooled == 0).await;
                }
                (Some(writer.clone()), Appender::Spooling(writer))
            }
        };
        let log: Arc<dyn ActionLog> = Arc::new(StoreLog {
            store: store.clone(),
            writer: appender,
            min_moves: config.ratings.min_moves,
            recorded: Default::default(),
            home: tokio::runtime::Handle::current(),
        });
        let state = AppState(Arc::new(Shared {
            room_config: Arc::new(RoomConfig {
                lanes: cpu_lane.as_ref().map(CpuLane::lanes),
                ..config.room_config()
            }),
            config: Arc::new(config),
            registry: Arc::new(Registry::default()),
            bot,
            base_url: base_url.into(),
            connections: connections.clone(),
            stopping: stopping.clone(),
            store,
            writer,
            log,
            cluster: node.clone(),
            rest_limits: rest_limits.clone(),
        }));
        tokio::spawn(throttle::forget_idle_clients(rest_limits, stopping.clone()));
        match node {
            Some(node) => {
                // Rooms are not rebuilt at start: another node may be serving them. They are claimed
                // when someone asks for them, or swept up once nobody validly owns them.
                tokio::spawn(cluster::renew_loop(
                    node.clone(),
                    state.registry.clone(),
                    stopping.clone(),
                ));
                tokio::spawn(cluster::adopt_loop(state.clone(), stopping.clone()));
                drain_hooks
                    .0
                    .push(Box::pin(async move { node.drain().await }));
            }
            None => {
                let restored = persist::recover(
                    &state.store,
                    &state.registry,
                    state.room_config.clone(),
                    state.log.clone(),
                    state.bot.clone(),
                )
                .await?;
                if restored.rebuilt + restored.expired > 0 {
                    tracing::info!(
                        rooms = restored.rebuilt,
                        expired = restored.expired,
                        "rebuilt the live rooms from the database, closed the expired ones"
                    );
                }
            }
        }
        Ok(Application {
            listener,
            addr,
            public_url,
            router: router(state),
            connections,
            gate,
            header_timeout,
            trigger,
            stopping,
            shutdown_timeout,
            drain_hooks,
            _cpu_lane: cpu_lane,
        })
    }

    /// Work the shutdown waits for after every connection is closed (e.g. the action log writer
    /// draining its queue), within `server.shutdown_timeout_ms`.
    pub fn on_shutdown(&mut self, hook: impl std::future::Future<Output = ()> + Send + 'static) {
        self.drain_hooks.0.push(Box::pin(hook));
    }

    /// Stops the server from code, as SIGTERM does.
    pub fn shutdown_trigger(&self) -> ShutdownTrigger {
        self.trigger.clone()
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL people open (the configured public URL, or the bound address).
    pub fn public_url(&self) -> &str {
        &self.public_url
    }

    /// Serves until SIGTERM/SIGINT (or the trigger), then shuts down gracefully: an error if that
    /// took longer than `server.shutdown_timeout_ms`.
    pub async fn run(self) -> std::io::Result<()> {
        let trigger = self.trigger.clone();
        let signals = tokio::spawn(async move {
            shutdown::signal().await;
            trigger.trigger();
        });
        let mut stopping = self.stopping.clone();
        let mut serving = tokio::spawn(listen::serve(
            self.listener,
            self.router,
            self.gate,
            self.header_timeout,
            self.stopping.clone(),
        ));
        // The trigger also ends `serving` at once, and this select was seen to take the listener's
        // branch with the stop already set, although biased towards the stop (about 1 run in 50 of
        // `restart::sigterm_closes_clients_with_1012…`; the runtime was then dropped under the open
        // connections, which saw no close frame). So an ended listener is asked why it ended.
        let ended = tokio::select! {
            biased;
            () = stopping.wait() => None,
            result = &mut serving => Some(result),
        };
        signals.abort();
        let ended = match ended {
            // The listener failed on its own: nothing to drain.
            Some(result) if !self.stopping.is_stopping() => {
                return result.map_err(std::io::Error::other);
            }
            ended => ended,
        };
        let open = self.connections.count();
        tracing::info!(
            connections = open,
            "stopping: closing connections with 1012"
        );
        let timeout = self.shutdown_timeout;
        let started = tokio::time::Instant::now();
        // The listener stops accepting at once; HTTP requests in flight finish.
        let served = match ended {
            Some(result) => Ok(result),
            None => tokio::time::timeout(timeout, serving).await,
        };
        let left = timeout.saturating_sub(started.elapsed());
        let finished = shutdown::finish(&self.connections, self.drain_hooks, left).await;
        match (served, finished) {
            (Ok(_), Ok(())) => {
                tracing::info!(elapsed_ms = started.elapsed().as_millis() as u64, "stopped");
                Ok(())
            }
            (_, Err(e)) => Err(std::io::Error::new(std::io::ErrorKind::TimedOut, e)),
            (Err(_), Ok(())) => Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                shutdown::ShutdownTimeout(timeout, self.connections.count()),
            )),
        }
    }
}
