//! The room actor: one task owns the seats, the game, the timers and the event history.
//!
//! Shape (as in mini-redis): `select!` over the command channel and one `sleep_until` for the
//! earliest deadline (turn timer, or a disconnected human's grace period). Every state change becomes
//! one numbered event, serialized once and pushed to every connection's bounded outbox with
//! `try_send`: a connection that cannot keep up is dropped, never waited for.
//!
//! Persistence: every change is appended to the room's [`ActionLog`] and the actor awaits its
//! durability before changing its state, acknowledging or broadcasting (the writer group-commits
//! across rooms, so one room waiting does not hold up the others). A game action is applied to a clone
//! of the game and the clone replaces the game only once the log kept the action, so a refused append
//! leaves the room exactly as its log says.
//!
//! This file holds the room's state and its run loop; the rest is split by concern:
//! - `commands`: joining, and the host's orders (settings, CPU seats, start) behind one token check;
//! - `moderation`: the host's orders about people (unseat, lock, hand a seat to the CPU, mute, hide);
//! - `chat`: chat messages, their limits and who reads them (never logged: not part of the game);
//! - `play`: human and CPU actions, the dice, handing turns to the CPU, and the log-before-ack rule;
//! - `timers`: turn deadlines, a disconnected human's grace period, the idle close;
//! - `fanout`: connections, events, seat views, snapshots and the bounded outboxes;
//! - `persist`: the log records and the rebuild of a room by replaying them.

mod chat;
mod commands;
mod fanout;
mod moderation;
mod persist;
mod play;
mod timers;

pub use persist::{StoredRoom, restore};

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use tokio::runtime::Handle;
use tokio::time::Instant;

use protocol::{Actor, ErrorCode, Event, Seat};

use crate::bot_pool::BotPool;
use crate::chat::{ChatLog, RateWindow};
use crate::dice::DiceStream;
use crate::game::{TableAction, TableGame};
use crate::handle::{Cmd, Queued, RoomError, RoomHandle};
use crate::history::History;
use crate::lane::OnCpuLane;
use crate::log::{ActionLog, EntryKind, LogEntry, LogError};
use crate::outbox::OutboxSender;
use crate::queue;
use crate::record::RecordedAction;
use crate::seats::SeatState;
use crate::{RoomConfig, RoomSettings};
use persist::RoomRecord;
use secrets::hash_secret;
use timers::sleep_until_opt;

/// Create a room: its first log record (settings and the host token's hash) is made durable, then
/// its actor starts. The room lives while some handle to it does.
pub async fn create(
    id: String,
    settings: RoomSettings,
    host_token: &str,
    config: Arc<RoomConfig>,
    log: Arc<dyn ActionLog>,
    bot: Arc<BotPool>,
) -> Result<RoomHandle, RoomError> {
    let (tx, rx) = queue::channel(config.commands.max(1));
    let mut room = Room::new(
        Arc::from(id),
        settings,
        hash_secret(host_token),
        config,
        log,
        bot,
        &tx,
    );
    let created = RoomRecord::created(&room.settings, &room.host_hash);
    room.append_room(created).await?;
    Ok(room.start_actor(tx, rx))
}

/// A watcher of the room: a seat's connection or a spectator.
struct Sub {
    conn: u64,
    seat: Option<Seat>,
    tx: OutboxSender,
    /// The highest ack id this connection has sent: ids must increase per connection, so a resend
    /// the seat no longer remembers is refused (`stale_ack`) rather than applied again.
    highest_ack: Option<u64>,
    chat_rate: RateWindow,
}

/// The game being played (or just finished) in the room.
struct Running {
    game: TableGame,
    first: Seat,
    dice: Option<DiceStream>,
    /// Every applied action in order, with who made it: the snapshot's action list and the game
    /// record. Kept as the rules' own values (a few bytes each, not JSON trees), so a long game
    /// costs little memory; JSON is made only for a snapshot or the record.
    played: Vec<Played>,
    /// Seats whose human the CPU played for at some point (the result is still theirs).
    cpu_finished: [bool; 4],
    /// Unix milliseconds.
    started_at: u64,
    /// Identifies the current turn; a new value restarts the turn timer.
    turn: Option<(Seat, u64)>,
    /// The current turn's deadline (monotonic, and unix milliseconds for the wire).
    deadline: Option<(Instant, u64)>,
    /// The seat to act ran out of time: the CPU finishes its turn.
    timed_out: bool,
    /// The event version a CPU move is being computed for.
    bot_pending: Option<u64>,
    /// The rest of a CPU turn already decided (Chaturaji plans whole turns), valid only while the
    /// room is still at the event version it was made for.
    plan: Option<BotPlan>,
    over: bool,
}

/// One applied action, as the room keeps it.
#[derive(Debug, Clone)]
struct Played {
    seat: Seat,
    by: Actor,
    action: TableAction,
}

impl Played {
    fn recorded(&self, seq: usize) -> RecordedAction {
        RecordedAction {
            seq: seq as u64,
            seat: self.seat,
            by: self.by,
            action: self.action.to_json(),
        }
    }
}

/// The remaining actions of a CPU turn, for the state at version `v`.
struct BotPlan {
    v: u64,
    seat: Seat,
    actions: Vec<TableAction>,
}

struct Room {
    id: Arc<str>,
    settings: RoomSettings,
    /// `secrets::hash_secret` of the host token: the log keeps only the hash, so a rebuilt room checks
    /// tokens the same way.
    host_hash: String,
    config: Arc<RoomConfig>,
    log: Arc<dyn ActionLog>,
    bot: Arc<BotPool>,
    /// To send CPU moves back to ourselves without keeping the room alive.
    me: queue::WeakSender<Queued>,
    v: u64,
    history: History,
    seats: [SeatState; 4],
    subs: Vec<Sub>,
    next_conn: u64,
    game_no: u32,
    game: Option<Running>,
    /// Since when no connection watches the room (it closes after `idle_close`).
    empty_since: Option<Instant>,
    /// The next seq of the room's own log (game number 0).
    room_seq: u64,
    /// A resume from this version or older gets a snapshot: the events before it belong to an
    /// earlier incarnation of the room (before a restart) that the history does not hold.
    resume_floor: u64,
    /// An append failed: try driving the game again at this time.
    retry_at: Option<Instant>,
    /// The host locked the room: no more joins.
    locked: bool,
    /// Seat token hashes of humans the host removed (the newest few): such a token is told
    /// `unseated` rather than "unknown token".
    removed: Vec<String>,
    /// Per seat: muted until the game with this number ends.
    muted: [Option<u32>; 4],
    chat: ChatLog,
    /// The log fenced the room out (cluster mode: another node owns it now) or the server told it
    /// to stop: the actor ends after the command at hand and closes every connection.
    stopped: bool,
    /// Held while the actor runs on the CPU lane (four CPU seats; see [`crate::lane`]).
    on_cpu_lane: Option<OnCpuLane>,
}

/// How an actor's loop begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arrival {
    /// A new or rebuilt room: it may have a CPU move or a dice throw to play first.
    Started,
    /// The room moved from another runtime (see [`crate::lane`]) between two commands: nothing
    /// is pending that the loop would not see.
    Moved,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn unavailable(e: &LogError) -> RoomError {
    RoomError::new(
        ErrorCode::Unavailable,
        format!("the change could not be recorded: {e}"),
    )
}

impl Room {
    fn new(
        id: Arc<str>,
        settings: RoomSettings,
        host_hash: String,
        config: Arc<RoomConfig>,
        log: Arc<dyn ActionLog>,
        bot: Arc<BotPool>,
        tx: &queue::Sender<Queued>,
    ) -> Room {
        Room {
            id,
            settings,
            host_hash,
            history: History::new(config.history, config.history_bytes),
            chat: ChatLog::new(config.chat.recent),
            config,
            log,
            bot,
            me: tx.downgrade(),
            v: 0,
            seats: std::array::from_fn(|_| SeatState::Empty),
            subs: Vec::new(),
            next_conn: 1,
            game_no: 0,
            game: None,
            empty_since: Some(Instant::now()),
            room_seq: 0,
            resume_floor: 0,
            retry_at: None,
            locked: false,
            removed: Vec::new(),
            muted: [None; 4],
            stopped: false,
            on_cpu_lane: None,
        }
    }

    fn start_actor(self, tx: queue::Sender<Queued>, rx: queue::Receiver<Queued>) -> RoomHandle {
        let handle = RoomHandle {
            id: self.id.clone(),
            tx,
        };
        tokio::spawn(self.run(rx, Arrival::Started));
        handle
    }

    /// The actor's loop. What a command or a timer does is awaited in a box of its own (allocated
    /// per command, freed after it): inline, the largest of those futures (a join, an action
    /// waiting for the log) would be part of every idle room's task for its whole life.
    ///
    /// An `async move` block rather than an `async fn`: an `async fn` keeps its arguments in the
    /// task twice (as arguments, then moved into the body's locals), and the room is most of an idle
    /// room's task; the block's captured room is used where it lies (hence clippy's
    /// `manual_async_fn` is allowed here: the `async fn` it suggests is the larger task).
    #[allow(clippy::manual_async_fn)]
    fn run(
        mut self,
        mut rx: queue::Receiver<Queued>,
        arrival: Arrival,
    ) -> impl Future<Output = ()> + Send {
        async move {
            if arrival == Arrival::Started {
                // A rebuilt room may have a CPU or a dice throw to play.
                Box::pin(self.drive()).await;
            }
            loop {
                if self.stopped {
                    // Close the command channel before the outboxes, so that a connection that sees its
                    // outbox end also sees the room gone (and says "reconnect elsewhere", not "too slow").
                    rx.close();
                    self.subs.clear();
                    tracing::info!(room = %self.id, "room stopped: another node serves it now");
                    return;
                }
                // Seated CPU players or a freed seat may have changed where the room belongs: the
                // actor moves, and its loop goes on there.
                if let Some(lane) = self.lane_change() {
                    lane.spawn(self.run(rx, Arrival::Moved));
                    return;
                }
                let wake = self.next_wake();
                tokio::select! {
                    cmd = rx.recv() => match cmd {
                        Some(cmd) => Box::pin(self.handle(*cmd)).await,
                        None => break,
                    },
                    _ = sleep_until_opt(wake) => {
                        if self.idle_expired() {
                            self.log.room_closed(&self.id);
                            break;
                        }
                        Box::pin(self.on_timer()).await;
                    }
                }
            }
            tracing::debug!(room = %self.id, "room closed");
        }
    }

    /// Four CPU players and no seat a human could take: nobody waits on this table's latency.
    fn cpu_only(&self) -> bool {
        self.seats
            .iter()
            .all(|s| matches!(s, SeatState::Cpu { .. }))
    }

    /// The runtime the actor must move to, when its seats no longer match where it runs: four CPU
    /// seats belong on the CPU lane, anything else at home.
    fn lane_change(&mut self) -> Option<Handle> {
        let lanes = self.config.lanes.as_ref()?;
        match (self.cpu_only(), self.on_cpu_lane.is_some()) {
            (true, false) => {
                let (lane, mark) = lanes.enter_cpu_lane();
                self.on_cpu_lane = Some(mark);
                Some(lane.clone())
            }
            (false, true) => {
                self.on_cpu_lane = None;
                Some(lanes.home().clone())
            }
            _ => None,
        }
    }

    /// Appends a record to the room's own log and waits until it is durable.
    async fn append_room(&mut self, record: RoomRecord) -> Result<(), RoomError> {
        let entry = LogEntry {
            room: self.id.to_string(),
            game_no: 0,
            seq: self.room_seq,
            kind: EntryKind::Action,
            payload: record.to_value(),
        };
        if let Err(e) = self.log.append(entry).await {
            self.on_log_error(&e);
            return Err(unavailable(&e));
        }
        self.room_seq += 1;
        Ok(())
    }

    /// A fenced append means another node owns the room now: stop before doing anything else.
    fn on_log_error(&mut self, e: &LogError) {
        if matches!(e, LogError::Fenced(_)) {
            self.stopped = true;
        }
    }

    /// One command from a handle (or from the room's own CPU tasks), to the file that serves it.
    async fn handle(&mut self, cmd: Cmd) {
        match cmd {
            Cmd::Info(reply) => {
                let _ = reply.send(self.info());
            }
            Cmd::GameLog(reply) => {
                let _ = reply.send(self.game_log());
            }
            Cmd::Join {
                name,
                player_id,
                reply,
            } => {
                let result = self.join(name, player_id).await;
                let _ = reply.send(result);
            }
            Cmd::Host {
                token,
                order,
                reply,
            } => {
                let result = self.host(&token, order).await;
                let _ = reply.send(result);
            }
            Cmd::Connect {
                token,
                last_v,
                outbox,
                reply,
            } => self.connect(token, last_v, outbox, reply).await,
            Cmd::Disconnect { conn } => self.disconnect(conn),
            Cmd::Act { conn, ack, action } => self.human_act(conn, ack, action).await,
            Cmd::Chat { conn, text, phrase } => self.chat(conn, text, phrase),
            Cmd::BotMove { v, seat, actions } => self.bot_move(v, seat, actions).await,
            Cmd::BotLate { v, seat } => self.bot_late(v, seat).await,
            Cmd::Rated { game_id, changes } => {
                self.emit(Event::Rated { game_id, changes });
            }
            Cmd::Stop => self.stopped = true,
        }
    }
}

#[cfg(test)]
mod tests {
    use protocol::{GameKind, TurnTime};

    use super::*;
    use crate::bot::BotConfig;
    use crate::log::MemoryLog;

    #[test]
    fn an_idle_rooms_task_holds_its_room_once() {
        let config = Arc::new(RoomConfig::default());
        let (tx, rx) = queue::channel(config.commands.max(1));
        let settings = RoomSettings {
            options: crate::game::TableOptions::normalize(
                GameKind::Chaturaji,
                &serde_json::json!({}),
            )
            .unwrap(),
            turn_time: TurnTime::None,
            rated: false,
            public: false,
            spectator_chat: false,
        };
        let room = Room::new(
            Arc::from("r"),
            settings,
            String::new(),
            config,
            Arc::new(MemoryLog::default()),
            BotPool::new(BotConfig::default()),
            &tx,
        );
        let room_bytes = std::mem::size_of::<Room>();
        let task = room.run(rx, Arrival::Started);
        let task_bytes = std::mem::size_of_val(&task);
        // The room, the command receiver, the sleep and the select's state; not a second room.
        assert!(
            task_bytes < room_bytes + room_bytes / 2,
            "the room's task is {task_bytes} bytes for a room of {room_bytes}"
        );
    }
}
