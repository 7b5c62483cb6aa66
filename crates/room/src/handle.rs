//! The cloneable handle through which REST handlers and connections talk to a room's actor.

use std::sync::Arc;

use serde_json::Value;
use tokio::sync::oneshot;

use protocol::{ChangeSettings, ErrorCode, Joined, OptionProblem, RoomInfo, Seat};

use crate::outbox::OutboxSender;
use crate::queue;

/// A refused request, with the stable code clients see.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct RoomError {
    pub code: ErrorCode,
    pub message: String,
    pub details: Vec<OptionProblem>,
}

impl RoomError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> RoomError {
        RoomError {
            code,
            message: message.into(),
            details: Vec::new(),
        }
    }

    fn gone() -> RoomError {
        RoomError::new(ErrorCode::Unavailable, "the room is closed")
    }
}

/// A connection registered with a room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Connected {
    pub conn: u64,
    pub seat: Option<Seat>,
}

pub(crate) type Reply<T> = oneshot::Sender<Result<T, RoomError>>;

#[derive(Debug)]
pub(crate) enum Cmd {
    Info(oneshot::Sender<RoomInfo>),
    GameLog(oneshot::Sender<Option<crate::replay::GameLog>>),
    Join {
        name: String,
        player_id: Option<String>,
        reply: Reply<Joined>,
    },
    /// An order only the host may give; the actor checks `token` once for all of them.
    Host {
        token: String,
        order: HostOrder,
        reply: Reply<RoomInfo>,
    },
    Connect {
        token: Option<String>,
        last_v: Option<u64>,
        outbox: OutboxSender,
        reply: Reply<Connected>,
    },
    Disconnect {
        conn: u64,
    },
    Act {
        conn: u64,
        ack: u64,
        /// `None`: resign.
        action: Option<Value>,
    },
    /// A chat message from a connection; a refusal is an `error` through its outbox.
    Chat {
        conn: u64,
        text: Option<String>,
        phrase: Option<String>,
    },
    BotMove {
        v: u64,
        seat: Seat,
        /// The actions to apply in order (the first now, the rest one by one after the pause).
        actions: Vec<crate::game::TableAction>,
    },
    /// The pool did not answer the CPU decision for state `v` by its deadline.
    BotLate {
        v: u64,
        seat: Seat,
    },
    /// A finished rated game was recorded: announce the rating changes.
    Rated {
        game_id: String,
        changes: Vec<protocol::RatingChange>,
    },
    /// Stop serving the room (cluster mode: this node lost it); connections are closed.
    Stop,
}

/// What the host may order (with the host token).
#[derive(Debug)]
pub(crate) enum HostOrder {
    Settings(ChangeSettings),
    SeatCpu {
        seat: Seat,
        level: u8,
    },
    Start {
        rematch: bool,
    },
    /// Free an occupied seat before a game (the removed human's token stops working).
    Unseat {
        seat: Seat,
    },
    /// Lock (`true`: no more joins) or unlock the room.
    Lock(bool),
    /// Hand an absent human's seat to the CPU for the rest of the running game.
    Handover {
        seat: Seat,
    },
    /// Mute (or unmute) a seat's chat.
    Mute {
        seat: Seat,
        muted: bool,
    },
    /// Hide a chat line for everyone.
    Hide {
        id: u64,
    },
}

/// A command as it waits in the room's queue. Boxed: a queued command takes 8 bytes of the queue's
/// buffer where the largest command is ~70, and the buffer keeps some capacity once drained.
pub(crate) type Queued = Box<Cmd>;

#[derive(Debug, Clone)]
pub struct RoomHandle {
    pub(crate) id: Arc<str>,
    pub(crate) tx: queue::Sender<Queued>,
}

impl RoomHandle {
    pub fn id(&self) -> &str {
        &self.id
    }

    /// False once the room's actor has stopped.
    pub fn is_open(&self) -> bool {
        !self.tx.is_closed()
    }

    /// Queues a command; `Err` when the room is gone.
    async fn send(&self, cmd: Cmd) -> Result<(), RoomError> {
        self.tx
            .send(Box::new(cmd))
            .await
            .map_err(|_| RoomError::gone())
    }

    async fn ask<T>(&self, make: impl FnOnce(Reply<T>) -> Cmd) -> Result<T, RoomError> {
        let (reply, rx) = oneshot::channel();
        self.send(make(reply)).await?;
        rx.await.map_err(|_| RoomError::gone())?
    }

    async fn host(&self, token: String, order: HostOrder) -> Result<RoomInfo, RoomError> {
        self.ask(|reply| Cmd::Host {
            token,
            order,
            reply,
        })
        .await
    }

    pub async fn info(&self) -> Result<RoomInfo, RoomError> {
        let (reply, rx) = oneshot::channel();
        self.send(Cmd::Info(reply)).await?;
        rx.await.map_err(|_| RoomError::gone())
    }

    /// The log of the current (or just finished) game; `None` before the first game.
    pub async fn game_log(&self) -> Result<Option<crate::replay::GameLog>, RoomError> {
        let (reply, rx) = oneshot::channel();
        self.send(Cmd::GameLog(reply)).await?;
        rx.await.map_err(|_| RoomError::gone())
    }

    /// Take the first free seat, as a guest (`player_id: None`) or as a player whose secret the
    /// caller has checked.
    pub async fn join(&self, name: String, player_id: Option<String>) -> Result<Joined, RoomError> {
        self.ask(|reply| Cmd::Join {
            name,
            player_id,
            reply,
        })
        .await
    }

    pub async fn change_settings(
        &self,
        host: String,
        change: ChangeSettings,
    ) -> Result<RoomInfo, RoomError> {
        self.host(host, HostOrder::Settings(change)).await
    }

    pub async fn seat_cpu(
        &self,
        host: String,
        seat: Seat,
        level: u8,
    ) -> Result<RoomInfo, RoomError> {
        self.host(host, HostOrder::SeatCpu { seat, level }).await
    }

    /// Start the first game (`rematch: false`) or the next one (`rematch: true`).
    pub async fn start(&self, host: String, rematch: bool) -> Result<RoomInfo, RoomError> {
        self.host(host, HostOrder::Start { rematch }).await
    }

    /// The host's orders about seats and chat (see [`HostOrder`]), with the host token.
    pub async fn unseat(&self, host: String, seat: Seat) -> Result<RoomInfo, RoomError> {
        self.host(host, HostOrder::Unseat { seat }).await
    }

    pub async fn lock(&self, host: String, locked: bool) -> Result<RoomInfo, RoomError> {
        self.host(host, HostOrder::Lock(locked)).await
    }

    pub async fn handover(&self, host: String, seat: Seat) -> Result<RoomInfo, RoomError> {
        self.host(host, HostOrder::Handover { seat }).await
    }

    pub async fn mute(&self, host: String, seat: Seat, muted: bool) -> Result<RoomInfo, RoomError> {
        self.host(host, HostOrder::Mute { seat, muted }).await
    }

    pub async fn hide(&self, host: String, id: u64) -> Result<RoomInfo, RoomError> {
        self.host(host, HostOrder::Hide { id }).await
    }

    /// Register a connection: with a seat token it plays that seat, without one it watches. The
    /// room sends `welcome` and everything after through `outbox`; when the room drops the sender
    /// (too slow, or closing) the connection must close.
    pub async fn connect(
        &self,
        token: Option<String>,
        last_v: Option<u64>,
        outbox: OutboxSender,
    ) -> Result<Connected, RoomError> {
        self.ask(|reply| Cmd::Connect {
            token,
            last_v,
            outbox,
            reply,
        })
        .await
    }

    /// Ends the room's actor after the command at hand and closes its connections (cluster mode:
    /// this node lost its lease, so another node will serve the room). Nothing is written.
    pub async fn stop(&self) {
        let _ = self.send(Cmd::Stop).await;
    }

    pub async fn disconnect(&self, conn: u64) {
        let _ = self.send(Cmd::Disconnect { conn }).await;
    }

    /// Say something (free text or a phrase id) from the connection; refusals arrive as `error`
    /// frames through its outbox, the line itself as a `chat` frame.
    pub async fn chat(
        &self,
        conn: u64,
        text: Option<String>,
        phrase: Option<String>,
    ) -> Result<(), RoomError> {
        self.send(Cmd::Chat { conn, text, phrase }).await
    }

    /// Play an action (`Some`) or resign (`None`) for the connection's seat; the answer (`ack` or
    /// `error`) arrives through the connection's outbox.
    pub async fn act(&self, conn: u64, ack: u64, action: Option<Value>) -> Result<(), RoomError> {
        self.send(Cmd::Act { conn, ack, action }).await
    }
}
