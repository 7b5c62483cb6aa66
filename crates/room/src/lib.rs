//! Rooms: one tokio actor per table owns its game, seats, timers, CPU players, dice and events.
//! May depend on `rules`, `bots`, `rating`, `protocol` and `secrets`, never on `store` or `server`:
//! persistence is the [`log::ActionLog`] port it is handed (the server's is over the store).
//!
//! One tokio task per table owns its game; everyone else holds a cloneable [`RoomHandle`]
//! (a bounded `mpsc` sender). No locks around game state and no `.await` on I/O inside the actor:
//! connections get pre-serialized frames through bounded outboxes, and a full outbox drops that
//! connection instead of blocking the room.
#![forbid(unsafe_code)]

mod actor;
pub mod bot;
pub mod bot_pool;
mod chat;
pub mod dice;
pub mod game;
mod handle;
pub mod history;
pub mod lane;
pub mod log;
pub mod outbox;
mod queue;
pub mod record;
pub mod replay;
mod seats;
pub mod selfplay;
pub mod verify;

/// Counter: seat connections that came back within `RoomConfig::connection_settle`, so that
/// neither their drop nor their return was announced.
pub const QUICK_RECONNECTS: &str = "fourkings_quick_reconnects_total";

pub use actor::{StoredRoom, create, restore};
pub use handle::{Connected, RoomError, RoomHandle};

use std::time::Duration;

use game::TableOptions;
use protocol::{GameKind, TurnTime};

/// Server-wide room behaviour (from the configuration).
#[derive(Debug, Clone)]
pub struct RoomConfig {
    /// Events kept for resuming clients.
    pub history: usize,
    /// Bytes of event text kept for resuming clients, at most (the newest event is always kept).
    pub history_bytes: usize,
    /// The length of one second of the turn timer (tests shorten it to milliseconds).
    pub turn_second: Duration,
    /// How long a disconnected human keeps control of the seat before the CPU plays for it.
    pub grace: Duration,
    /// Pause before a CPU move is applied, so people can follow the game.
    pub cpu_delay: Duration,
    /// Frames a connection may have queued before it is dropped as too slow.
    pub outbox: usize,
    /// Commands queued for a room before senders wait.
    pub commands: usize,
    /// Acknowledged ack ids remembered per seat (for re-acking resent actions).
    pub acks_kept: usize,
    /// A room nobody has been connected to for this long closes (its memory is freed and the store
    /// marks it closed: it is not rebuilt after a restart).
    pub idle_close: Duration,
    /// The same for a room where no game has started (a lobby): a shorter time, so that lobbies
    /// opened and left (or created in bulk) leave memory soon. The shorter of the two applies.
    pub lobby_idle: Duration,
    /// Connections one seat may open per minute; past it a join is refused with `rate_limited`.
    pub reconnects_per_minute: usize,
    /// How long a seat's last connection must stay gone before the room announces the drop: a
    /// reload or a reconnect within it is announced to no one.
    pub connection_settle: Duration,
    pub chat: ChatConfig,
    /// Where rooms of four CPU players run (see [`lane`]); `None`: every room stays where it was
    /// created.
    pub lanes: Option<lane::Lanes>,
}

/// The bounds of a room's chat.
#[derive(Debug, Clone)]
pub struct ChatConfig {
    /// Write each line to the server's log (target `fourkings::chat`) so that it outlives the room.
    pub keep: bool,
    /// Characters of free text after trimming, at most.
    pub max_chars: usize,
    /// Chat messages one connection may send per `rate_period`; past it `chat_too_fast`.
    pub rate_messages: usize,
    pub rate_period: Duration,
    /// Recent lines kept per channel (for the snapshot and resuming clients).
    pub recent: usize,
}

impl Default for ChatConfig {
    fn default() -> Self {
        ChatConfig {
            keep: false,
            max_chars: 200,
            rate_messages: 5,
            rate_period: Duration::from_secs(10),
            recent: 50,
        }
    }
}

impl Default for RoomConfig {
    fn default() -> Self {
        RoomConfig {
            history: 64,
            history_bytes: 16 * 1024,
            turn_second: Duration::from_secs(1),
            grace: Duration::from_secs(20),
            cpu_delay: Duration::from_millis(400),
            outbox: 256,
            commands: 64,
            acks_kept: 64,
            idle_close: Duration::from_secs(3600),
            lobby_idle: Duration::from_secs(600),
            reconnects_per_minute: 30,
            connection_settle: Duration::from_secs(1),
            chat: ChatConfig::default(),
            lanes: None,
        }
    }
}

/// What the host chose for the room.
#[derive(Debug, Clone, PartialEq)]
pub struct RoomSettings {
    /// The game and its complete, validated house rules.
    pub options: TableOptions,
    pub turn_time: TurnTime,
    pub rated: bool,
    pub public: bool,
    /// Spectators may write in their own channel.
    pub spectator_chat: bool,
}

impl RoomSettings {
    pub fn game(&self) -> GameKind {
        self.options.kind()
    }
}
