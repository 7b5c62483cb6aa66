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
//! leaves the room exactly as its log says. `persist` holds the log records and the rebuild by replay.

mod persist;

pub use persist::{StoredRoom, restore};

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;

use protocol::{
    Actor, ChangeSettings, ControlReason, ErrorCode, ErrorMsg, Event, EventMsg, GameSnapshot,
    Joined, Phase, RoomInfo, Seat, SeatView, ServerMsg, Snapshot,
};

use crate::bot::level_of;
use crate::bot_pool::{BotPool, Job, Thought};
use crate::dice::DiceStream;
use crate::game::{TableAction, TableGame};
use crate::handle::{Cmd, Connected, Reply, RoomError, RoomHandle};
use crate::history::History;
use crate::log::{ActionLog, EntryKind, LogEntry, LogError};
use crate::record::RecordedAction;
use crate::seats::{Human, SeatState, new_token};
use crate::{RoomConfig, RoomSettings};
use persist::{GameEntry, RoomRecord};
use store::hash_secret;

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
    let (tx, rx) = mpsc::channel(config.commands.max(1));
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
    tx: mpsc::Sender<Arc<str>>,
}

/// The game being played (or just finished) in the room.
struct Running {
    game: TableGame,
    first: Seat,
    dice: Option<DiceStream>,
    /// Every applied action, in order (the replay log).
    actions: Vec<Value>,
    /// The same actions with who made them, for the game record.
    recorded: Vec<RecordedAction>,
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

/// The remaining actions of a CPU turn, for the state at version `v`.
struct BotPlan {
    v: u64,
    seat: Seat,
    actions: Vec<TableAction>,
}

struct Room {
    id: Arc<str>,
    settings: RoomSettings,
    /// `store::hash_secret` of the host token: the log keeps only the hash, so a rebuilt room checks
    /// tokens the same way.
    host_hash: String,
    config: Arc<RoomConfig>,
    log: Arc<dyn ActionLog>,
    bot: Arc<BotPool>,
    /// To send CPU moves back to ourselves without keeping the room alive.
    me: mpsc::WeakSender<Cmd>,
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
    /// The log fenced the room out (cluster mode: another node owns it now) or the server told it
    /// to stop: the actor ends after the command at hand and closes every connection.
    stopped: bool,
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

fn unix_ms(at: Instant) -> u64 {
    let from_now = at.saturating_duration_since(Instant::now());
    (SystemTime::now() + from_now)
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn frame(msg: &ServerMsg) -> Arc<str> {
    Arc::from(serde_json::to_string(msg).expect("protocol types always serialize"))
}

impl Room {
    fn new(
        id: Arc<str>,
        settings: RoomSettings,
        host_hash: String,
        config: Arc<RoomConfig>,
        log: Arc<dyn ActionLog>,
        bot: Arc<BotPool>,
        tx: &mpsc::Sender<Cmd>,
    ) -> Room {
        Room {
            id,
            settings,
            host_hash,
            history: History::new(config.history),
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
            stopped: false,
        }
    }

    fn start_actor(self, tx: mpsc::Sender<Cmd>, rx: mpsc::Receiver<Cmd>) -> RoomHandle {
        let handle = RoomHandle {
            id: self.id.clone(),
            tx,
        };
        tokio::spawn(self.run(rx));
        handle
    }

    async fn run(mut self, mut rx: mpsc::Receiver<Cmd>) {
        // A rebuilt room may have a CPU or a dice throw to play.
        self.drive().await;
        loop {
            if self.stopped {
                // Close the command channel before the outboxes, so that a connection that sees its
                // outbox end also sees the room gone (and says "reconnect elsewhere", not "too slow").
                rx.close();
                self.subs.clear();
                tracing::info!(room = %self.id, "room stopped: another node serves it now");
                return;
            }
            let wake = self.next_wake();
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(cmd) => self.handle(cmd).await,
                    None => break,
                },
                _ = sleep_until_opt(wake) => {
                    if self.idle_expired() {
                        self.log.room_closed(&self.id);
                        break;
                    }
                    self.on_timer().await;
                }
            }
        }
        tracing::debug!(room = %self.id, "room closed");
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

    // ---------------------------------------------------------------- commands

    async fn handle(&mut self, cmd: Cmd) {
        match cmd {
            Cmd::Info(reply) => {
                let _ = reply.send(self.info());
            }
            Cmd::Join {
                name,
                player_id,
                reply,
            } => {
                let result = self.join(name, player_id).await;
                let _ = reply.send(result);
            }
            Cmd::Settings {
                host,
                change,
                reply,
            } => {
                let result = match self.check_host(&host) {
                    Ok(()) => self.change_settings(change).await,
                    Err(e) => Err(e),
                };
                let _ = reply.send(result);
            }
            Cmd::SeatCpu {
                host,
                seat,
                level,
                reply,
            } => {
                let result = match self.check_host(&host) {
                    Ok(()) => self.seat_cpu(seat, level).await,
                    Err(e) => Err(e),
                };
                let _ = reply.send(result);
            }
            Cmd::Start {
                host,
                rematch,
                reply,
            } => {
                let result = match self.check_host(&host) {
                    Ok(()) => self.start(rematch).await,
                    Err(e) => Err(e),
                };
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
            Cmd::BotMove { v, seat, actions } => self.bot_move(v, seat, actions).await,
            Cmd::Rated { game_id, changes } => {
                self.emit(Event::Rated { game_id, changes });
            }
            Cmd::Stop => self.stopped = true,
        }
    }

    fn check_host(&self, token: &str) -> Result<(), RoomError> {
        // Tokens are 128 random bits: comparing their hashes whole is exact and leaks nothing useful.
        if hash_secret(token) == self.host_hash {
            Ok(())
        } else {
            Err(RoomError::new(
                ErrorCode::BadToken,
                "not this room's host token",
            ))
        }
    }

    fn phase(&self) -> Phase {
        match &self.game {
            None => Phase::Lobby,
            Some(g) if g.over => Phase::Finished,
            Some(_) => Phase::Playing,
        }
    }

    fn info(&self) -> RoomInfo {
        RoomInfo {
            id: self.id.to_string(),
            game: self.settings.game,
            options: self.settings.options.clone(),
            turn_time: self.settings.turn_time,
            rated: self.settings.rated,
            public: self.settings.public,
            phase: self.phase(),
            game_no: self.game_no,
            seats: std::array::from_fn(|i| self.seats[i].occupant()),
            v: self.v,
        }
    }

    async fn join(&mut self, name: String, player_id: Option<String>) -> Result<Joined, RoomError> {
        let name = name.trim().to_owned();
        if name.is_empty() || name.chars().count() > 32 {
            return Err(RoomError::new(
                ErrorCode::BadMessage,
                "a display name has 1 to 32 characters",
            ));
        }
        let Some(seat) = Seat::ALL
            .into_iter()
            .find(|s| matches!(self.seats[s.index()], SeatState::Empty))
        else {
            return Err(RoomError::new(
                ErrorCode::RoomFull,
                "all four seats are taken",
            ));
        };
        let token = new_token();
        let token_hash = hash_secret(&token);
        self.append_room(RoomRecord::Joined {
            seat,
            name: name.clone(),
            token_hash: token_hash.clone(),
            player_id: player_id.clone(),
        })
        .await?;
        self.seats[seat.index()] =
            SeatState::Human(Human::new(name.clone(), token_hash, player_id));
        self.emit(Event::SeatTaken { seat, name });
        Ok(Joined {
            seat,
            seat_token: token,
        })
    }

    async fn change_settings(&mut self, change: ChangeSettings) -> Result<RoomInfo, RoomError> {
        if self.phase() == Phase::Playing {
            return Err(RoomError::new(
                ErrorCode::GameRunning,
                "house rules change only while no game is running",
            ));
        }
        let mut next = self.settings.clone();
        if let Some(options) = change.options {
            next.options =
                TableGame::normalize_options(next.game, &options).map_err(|details| RoomError {
                    code: ErrorCode::BadOptions,
                    message: format!("{} problem(s) with the house rules", details.len()),
                    details,
                })?;
        }
        if let Some(t) = change.turn_time {
            next.turn_time = t;
        }
        if let Some(r) = change.rated {
            next.rated = r;
        }
        if let Some(p) = change.public {
            next.public = p;
        }
        self.append_room(RoomRecord::settings(&next)).await?;
        self.settings = next;
        self.emit(Event::SettingsChanged {
            options: self.settings.options.clone(),
            turn_time: self.settings.turn_time,
            rated: self.settings.rated,
            public: self.settings.public,
        });
        Ok(self.info())
    }

    async fn seat_cpu(&mut self, seat: Seat, level: u8) -> Result<RoomInfo, RoomError> {
        if !matches!(self.seats[seat.index()], SeatState::Empty) {
            return Err(RoomError::new(
                ErrorCode::SeatTaken,
                format!("{seat} is not free"),
            ));
        }
        if !(1..=crate::bot::MAX_LEVEL).contains(&level) {
            return Err(RoomError::new(
                ErrorCode::BadMessage,
                format!("CPU level must be 1..={}", crate::bot::MAX_LEVEL),
            ));
        }
        self.append_room(RoomRecord::Cpu { seat, level }).await?;
        self.seats[seat.index()] = SeatState::Cpu { level };
        self.emit(Event::CpuSeated { seat, level });
        self.drive().await;
        Ok(self.info())
    }

    async fn start(&mut self, rematch: bool) -> Result<RoomInfo, RoomError> {
        let first = match (&self.game, rematch) {
            (Some(g), _) if !g.over => {
                return Err(RoomError::new(ErrorCode::GameRunning, "a game is running"));
            }
            (Some(g), true) => g.game.next_first_seat(g.first),
            (None, false) => Seat::Red,
            (None, true) => {
                return Err(RoomError::new(
                    ErrorCode::NoGame,
                    "no game to rematch yet: start one",
                ));
            }
            (Some(_), false) => {
                return Err(RoomError::new(
                    ErrorCode::GameOver,
                    "this room already played: ask for a rematch",
                ));
            }
        };
        let game = TableGame::new(self.settings.game, &self.settings.options, first).map_err(
            |details| RoomError {
                code: ErrorCode::BadOptions,
                message: "the house rules do not validate".into(),
                details,
            },
        )?;
        let dice = game.dice_faces().map(|_| DiceStream::from_os());
        // The seed goes into the server's log (never to clients before the end), so that a rebuilt
        // room continues the same dice stream.
        let started_at = now_ms();
        self.append_room(RoomRecord::Started {
            game_no: self.game_no + 1,
            first,
            seed: dice.as_ref().map(DiceStream::reveal),
            at: started_at,
        })
        .await?;
        self.begin_game(game, first, dice, started_at, true);
        self.refresh_turn();
        let running = self.game.as_ref().expect("just set");
        self.emit(Event::GameStarted {
            game_no: self.game_no,
            game: self.settings.game,
            first,
            options: self.settings.options.clone(),
            dice_commit: running.dice.as_ref().map(DiceStream::commit),
        });
        self.drive().await;
        Ok(self.info())
    }

    /// Sets up the next game (shared by `start` and the rebuild): empty seats get CPU players.
    fn begin_game(
        &mut self,
        game: TableGame,
        first: Seat,
        dice: Option<DiceStream>,
        started_at: u64,
        announce: bool,
    ) {
        // Every empty seat gets a CPU player (medium unless configured otherwise).
        let level = self.bot.config().fill_level;
        for seat in Seat::ALL {
            if matches!(self.seats[seat.index()], SeatState::Empty) {
                self.seats[seat.index()] = SeatState::Cpu { level };
                if announce {
                    self.emit(Event::CpuSeated { seat, level });
                }
            }
        }
        self.game_no += 1;
        self.game = Some(Running {
            game,
            first,
            dice,
            actions: Vec::new(),
            recorded: Vec::new(),
            cpu_finished: [false; 4],
            started_at,
            turn: None,
            deadline: None,
            timed_out: false,
            bot_pending: None,
            plan: None,
            over: false,
        });
    }

    async fn connect(
        &mut self,
        token: Option<String>,
        last_v: Option<u64>,
        outbox: mpsc::Sender<Arc<str>>,
        reply: Reply<Connected>,
    ) {
        let seat = match &token {
            None => None,
            Some(token) => {
                let hash = hash_secret(token);
                let found = Seat::ALL.into_iter().find(
                    |s| matches!(&self.seats[s.index()], SeatState::Human(h) if h.token_hash == hash),
                );
                match found {
                    Some(seat) => Some(seat),
                    None => {
                        let _ = reply.send(Err(RoomError::new(
                            ErrorCode::BadToken,
                            "no seat in this room has that token",
                        )));
                        return;
                    }
                }
            }
        };
        // Tell everyone else first, so the welcome below already counts these events.
        if let Some(seat) = seat {
            let human = self.seats[seat.index()].human_mut().expect("found above");
            human.conns += 1;
            human.away_since = None;
            let first_conn = human.conns == 1;
            let was_cpu = std::mem::replace(&mut human.cpu_playing, false);
            if first_conn {
                self.emit(Event::Connection {
                    seat,
                    connected: true,
                });
            }
            if was_cpu {
                self.emit(Event::Control {
                    seat,
                    cpu: false,
                    reason: ControlReason::Returned,
                });
            }
        }
        let conn = self.next_conn;
        self.next_conn += 1;
        let missed = last_v
            .filter(|&since| since > self.resume_floor)
            .and_then(|since| self.history.since(since, self.v));
        let welcome = ServerMsg::Welcome {
            room: self.id.to_string(),
            seat,
            v: self.v,
            snapshot: match missed {
                Some(_) => None,
                None => Some(Box::new(self.snapshot())),
            },
        };
        // A fresh outbox holds at least the welcome; if the missed events overflow it, the client
        // simply gets dropped and resyncs with a snapshot next time.
        let mut ok = outbox.try_send(frame(&welcome)).is_ok();
        for f in missed.into_iter().flatten() {
            ok = ok && outbox.try_send(f).is_ok();
        }
        self.subs.push(Sub {
            conn,
            seat,
            tx: outbox,
        });
        self.empty_since = None;
        let _ = reply.send(Ok(Connected { conn, seat }));
        if !ok {
            self.drop_conns(vec![conn]);
        }
        if let Some(seat) = seat {
            self.send_view_to(seat, Some(conn));
        }
        self.drive().await;
    }

    fn disconnect(&mut self, conn: u64) {
        self.drop_conns(vec![conn]);
    }

    /// Forget connections (closed, or too slow); a seat whose last connection went starts its grace
    /// period. Dropping a connection may emit events, which may drop more slow connections.
    fn drop_conns(&mut self, mut conns: Vec<u64>) {
        while let Some(conn) = conns.pop() {
            let Some(i) = self.subs.iter().position(|s| s.conn == conn) else {
                continue;
            };
            let sub = self.subs.swap_remove(i);
            if self.subs.is_empty() {
                self.empty_since = Some(Instant::now());
            }
            let Some(seat) = sub.seat else { continue };
            let Some(human) = self.seats[seat.index()].human_mut() else {
                continue;
            };
            human.conns = human.conns.saturating_sub(1);
            if human.conns == 0 {
                human.away_since = Some(Instant::now());
                conns.extend(self.emit_collect(Event::Connection {
                    seat,
                    connected: false,
                }));
            }
        }
    }

    // ---------------------------------------------------------------- game actions

    async fn human_act(&mut self, conn: u64, ack: u64, action: Option<Value>) {
        let result = self.try_human_act(conn, ack, action).await;
        if let Err(e) = result {
            self.send_to(
                conn,
                frame(&ServerMsg::Error(ErrorMsg {
                    code: e.code,
                    message: e.message,
                    ack: Some(ack),
                    details: e.details,
                })),
            );
        }
    }

    async fn try_human_act(
        &mut self,
        conn: u64,
        ack: u64,
        action: Option<Value>,
    ) -> Result<(), RoomError> {
        let sub = self
            .subs
            .iter()
            .find(|s| s.conn == conn)
            .ok_or_else(|| RoomError::new(ErrorCode::NotJoined, "join a room first"))?;
        let seat = sub.seat.ok_or_else(|| {
            RoomError::new(
                ErrorCode::Spectator,
                "spectators cannot act: join with a seat token",
            )
        })?;
        if let Some(v) = self.seats[seat.index()]
            .human_mut()
            .and_then(|h| h.acked(ack))
        {
            // Already applied: acknowledge again, never apply twice.
            self.send_to(conn, frame(&ServerMsg::Ack { ack, v }));
            return Ok(());
        }
        let running = self
            .game
            .as_ref()
            .ok_or_else(|| RoomError::new(ErrorCode::NoGame, "no game has started yet"))?;
        if running.over {
            return Err(RoomError::new(ErrorCode::GameOver, "the game is over"));
        }
        let action = match action {
            None => TableGame::resign(running.game.kind(), seat),
            Some(value) => {
                if running.game.to_act() != Some(seat) {
                    return Err(RoomError::new(
                        ErrorCode::NotYourTurn,
                        match running.game.to_act() {
                            Some(s) => format!("it is {s}'s turn"),
                            None => "nobody is to act".into(),
                        },
                    ));
                }
                running
                    .game
                    .parse_action(&value)
                    .map_err(|m| RoomError::new(ErrorCode::BadMessage, m))?
            }
        };
        let v = self.play(seat, Actor::Human, action, Some(ack)).await?;
        let keep = self.config.acks_kept;
        if let Some(h) = self.seats[seat.index()].human_mut() {
            h.remember_ack(ack, v, keep);
        }
        self.send_to(conn, frame(&ServerMsg::Ack { ack, v }));
        self.drive().await;
        Ok(())
    }

    /// A CPU decision (or the next step of a decided turn) arrives for the state at version `v`.
    async fn bot_move(&mut self, v: u64, seat: Seat, actions: Vec<TableAction>) {
        let Some(running) = self.game.as_mut() else {
            return;
        };
        if running.bot_pending == Some(v) {
            running.bot_pending = None;
        }
        // A move computed for an older state is stale: something happened since.
        if v != self.v || running.over || running.game.to_act() != Some(seat) {
            self.bot
                .stats()
                .stale
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            tracing::debug!(room = %self.id, %seat, v, now = self.v, "stale CPU move discarded");
            self.drive().await;
            return;
        }
        let mut actions = actions.into_iter();
        match actions.next() {
            Some(action) => match self.play(seat, Actor::Cpu, action, None).await {
                Ok(_) => {
                    // The rest of the turn is played one action at a time, with the CPU pause
                    // between, while nothing else happens in the room.
                    let rest: Vec<TableAction> = actions.collect();
                    let v = self.v;
                    if let Some(running) = self.game.as_mut() {
                        running.plan = (!rest.is_empty()).then_some(BotPlan {
                            v,
                            seat,
                            actions: rest,
                        });
                    }
                }
                // Not recorded: the game did not move; `retry_at` drives it again.
                Err(e) if e.code == ErrorCode::Unavailable => {}
                Err(e) => {
                    tracing::error!(room = %self.id, %seat, error = %e, "the CPU chose an illegal action");
                }
            },
            None => tracing::error!(room = %self.id, %seat, "the CPU found no action"),
        }
        self.drive().await;
    }

    /// Apply one action: rules first (on a copy of the game), then the log (before anyone hears of
    /// it), and only once the log kept it the copy becomes the game and the event goes out. Returns
    /// the event's version. `dice` is the dice stream after a throw, committed with the throw.
    async fn play_with(
        &mut self,
        seat: Seat,
        by: Actor,
        action: TableAction,
        ack: Option<u64>,
        dice: Option<DiceStream>,
    ) -> Result<u64, RoomError> {
        let running = self.game.as_ref().expect("checked by callers");
        let mut next = running.game.clone();
        let action_json = action.to_json();
        let applied = next.apply(action).map_err(|(code, message)| {
            RoomError::new(ErrorCode::IllegalAction, format!("{code}: {message}"))
        })?;
        let at = now_ms();
        let entry = LogEntry {
            room: self.id.to_string(),
            game_no: self.game_no,
            seq: running.actions.len() as u64,
            kind: if by == Actor::Room {
                EntryKind::Dice
            } else {
                EntryKind::Action
            },
            payload: GameEntry {
                seat,
                by,
                action: action_json.clone(),
                ack,
                at,
            }
            .to_value(),
        };
        if let Err(e) = self.log.append(entry).await {
            // Not durable: the game stays as it was (the copy is dropped) and nothing is acknowledged.
            tracing::error!(room = %self.id, error = %e, "action log failed");
            self.retry_at = Some(Instant::now() + std::time::Duration::from_millis(500));
            self.on_log_error(&e);
            return Err(unavailable(&e));
        }
        let cpu_for_human =
            by == Actor::Cpu && matches!(self.seats[seat.index()], SeatState::Human(_));
        let running = self.game.as_mut().expect("still there");
        running.game = next;
        if let Some(dice) = dice {
            running.dice = Some(dice);
        }
        running.cpu_finished[seat.index()] |= cpu_for_human;
        running.recorded.push(RecordedAction {
            seq: running.actions.len() as u64,
            seat,
            by,
            action: action_json.clone(),
        });
        running.actions.push(action_json.clone());
        let state = running.game.public_state();
        let outcome = running.game.outcome_json();
        self.refresh_turn();
        let v = self.emit(Event::Acted {
            seat,
            by,
            action: action_json,
            applied,
            state,
        });
        if let Some(outcome) = outcome {
            let running = self.game.as_mut().expect("still there");
            running.over = true;
            running.deadline = None;
            let dice_seed = running.dice.as_ref().map(DiceStream::reveal);
            self.emit(Event::GameOver { outcome, dice_seed });
            self.record_finished(at);
        }
        Ok(v)
    }

    async fn play(
        &mut self,
        seat: Seat,
        by: Actor,
        action: TableAction,
        ack: Option<u64>,
    ) -> Result<u64, RoomError> {
        self.play_with(seat, by, action, ack, None).await
    }

    /// After any change: throw the dice when a turn needs them, then hand the turn to the CPU if the
    /// seat to act is played by it, and show the seat to act its legal actions.
    async fn drive(&mut self) {
        self.retry_at = None;
        if self.stopped {
            return;
        }
        loop {
            let Some(running) = self.game.as_mut() else {
                return;
            };
            if running.over {
                return;
            }
            let Some(seat) = running.game.to_act() else {
                return;
            };
            let Some((lo, hi)) = running.game.wants_roll() else {
                break;
            };
            // Throw on a copy of the stream: it advances only if the throw is recorded.
            let mut stream = running
                .dice
                .clone()
                .expect("a game with dice has a dice stream");
            let dice = stream.throw(lo, hi);
            let roll = running.game.roll(dice);
            if let Err(e) = self
                .play_with(seat, Actor::Room, roll, None, Some(stream))
                .await
            {
                if e.code != ErrorCode::Unavailable {
                    tracing::error!(room = %self.id, error = %e, "the rules refused a dice throw");
                }
                return;
            }
        }
        self.schedule_bot();
    }

    fn cpu_in_charge(&self, seat: Seat) -> bool {
        let timed_out = self.game.as_ref().is_some_and(|g| g.timed_out);
        timed_out
            || match &self.seats[seat.index()] {
                SeatState::Cpu { .. } => true,
                SeatState::Human(h) => h.cpu_playing,
                SeatState::Empty => true,
            }
    }

    /// The level the CPU plays `seat` at: a CPU seat's own, or the takeover level for a human's.
    fn cpu_level(&self, seat: Seat) -> bots::Level {
        let wire = match &self.seats[seat.index()] {
            SeatState::Cpu { level } => *level,
            SeatState::Empty => self.bot.config().fill_level,
            SeatState::Human(_) => self.bot.config().takeover_level,
        };
        level_of(wire).unwrap_or_default()
    }

    /// Hand the turn to the CPU when it plays the seat to act: the next step of a plan made for
    /// this very state, or a fresh decision from the pool. Either way the move is sent back to the
    /// room after the CPU pause (thinking overlaps the pause) and checked for staleness there.
    fn schedule_bot(&mut self) {
        let v = self.v;
        let Some(seat) = self
            .game
            .as_ref()
            .filter(|g| !g.over)
            .and_then(|g| g.game.to_act())
        else {
            return;
        };
        if !self.cpu_in_charge(seat) {
            return;
        }
        let level = self.cpu_level(seat);
        let running = self.game.as_mut().expect("checked");
        if running.bot_pending == Some(v) {
            return;
        }
        running.bot_pending = Some(v);
        let planned = running
            .plan
            .take()
            .filter(|p| p.v == v && p.seat == seat)
            .map(|p| p.actions);
        let me = self.me.clone();
        let delay = self.config.cpu_delay;
        let started = Instant::now();
        let decision = match planned {
            Some(actions) => Decision::Planned(actions),
            None => Decision::Thinking(self.bot.submit(Job {
                game: running.game.clone(),
                seat,
                level,
                seed: rand::random(),
            })),
        };
        tokio::spawn(async move {
            let actions = match decision {
                Decision::Planned(actions) => actions,
                // Every queued decision is answered (release builds abort on a panic), so an
                // empty answer is only a safety net: the room logs it.
                Decision::Thinking(rx) => rx
                    .await
                    .map(|t: Thought| t.plan.actions)
                    .unwrap_or_default(),
            };
            tokio::time::sleep_until(started + delay).await;
            if let Some(me) = me.upgrade() {
                let _ = me.send(Cmd::BotMove { v, seat, actions }).await;
            }
        });
    }

    /// Recompute whose turn it is; a new turn gets a fresh deadline and its own human in charge.
    fn refresh_turn(&mut self) {
        let limit = self.settings.turn_time.seconds();
        let second = self.config.turn_second;
        let Some(running) = self.game.as_mut() else {
            return;
        };
        let turn = running.game.turn_id();
        if turn != running.turn {
            running.turn = turn;
            running.timed_out = false;
            running.deadline = match (turn, limit) {
                (Some(_), Some(secs)) => {
                    let at = Instant::now() + second * secs as u32;
                    Some((at, unix_ms(at)))
                }
                _ => None,
            };
        }
    }

    // ---------------------------------------------------------------- timers

    fn idle_expired(&self) -> bool {
        self.empty_since
            .is_some_and(|since| since + self.config.idle_close <= Instant::now())
    }

    fn next_wake(&self) -> Option<Instant> {
        let mut wake: Option<Instant> = None;
        let mut consider = |t: Instant| wake = Some(wake.map_or(t, |w| w.min(t)));
        if let Some(since) = self.empty_since {
            consider(since + self.config.idle_close);
        }
        if let Some(g) = &self.game {
            if !g.over && !g.timed_out {
                if let Some((at, _)) = g.deadline {
                    consider(at);
                }
            }
        }
        if let Some(at) = self.retry_at {
            consider(at);
        }
        for seat in &self.seats {
            if let SeatState::Human(h) = seat {
                if let (Some(since), false) = (h.away_since, h.cpu_playing) {
                    consider(since + self.config.grace);
                }
            }
        }
        wake
    }

    async fn on_timer(&mut self) {
        let now = Instant::now();
        if let Some(g) = self.game.as_mut() {
            if !g.over && !g.timed_out && g.deadline.is_some_and(|(at, _)| at <= now) {
                // Out of time: the CPU plays the rest of this turn for the seat.
                g.timed_out = true;
            }
        }
        let grace = self.config.grace;
        for seat in Seat::ALL {
            let Some(h) = self.seats[seat.index()].human_mut() else {
                continue;
            };
            if !h.cpu_playing && h.away_since.is_some_and(|since| since + grace <= now) {
                h.cpu_playing = true;
                self.emit(Event::Control {
                    seat,
                    cpu: true,
                    reason: ControlReason::Away,
                });
            }
        }
        self.drive().await;
    }

    // ---------------------------------------------------------------- events and views

    /// Number, serialize (once), remember and broadcast an event; returns its version.
    fn emit(&mut self, event: Event) -> u64 {
        let dropped = self.emit_collect(event);
        self.drop_conns(dropped);
        self.v
    }

    /// As [`Room::emit`], returning the connections found too slow instead of dropping them.
    fn emit_collect(&mut self, event: Event) -> Vec<u64> {
        self.v += 1;
        let (to_act, deadline) = match &self.game {
            Some(g) if !g.over => (g.game.to_act(), g.deadline.map(|(_, ms)| ms)),
            _ => (None, None),
        };
        let msg = ServerMsg::Event(EventMsg {
            v: self.v,
            to_act,
            deadline,
            event,
        });
        let f = frame(&msg);
        self.history.push(self.v, f.clone());
        let mut slow = Vec::new();
        for sub in &self.subs {
            if sub.tx.try_send(f.clone()).is_err() {
                slow.push(sub.conn);
            }
        }
        let v = self.v;
        // The seat to act sees its legal actions right after the event that gave it the turn.
        if let Some(seat) = to_act {
            if self.seats[seat.index()]
                .human_mut()
                .is_some_and(|h| h.conns > 0)
            {
                slow.extend(self.view_frames_to(seat, v, None));
            }
        }
        slow
    }

    /// Send the seat's view to its connections (or only to `only`); returns the ones that overflowed.
    fn view_frames_to(&self, seat: Seat, v: u64, only: Option<u64>) -> Vec<u64> {
        let Some(g) = self.game.as_ref().filter(|g| !g.over) else {
            return Vec::new();
        };
        if g.game.to_act() != Some(seat) || g.game.wants_roll().is_some() {
            return Vec::new();
        }
        let legal = g
            .game
            .show_legal_moves()
            .then(|| g.game.legal_actions_json());
        let f = frame(&ServerMsg::View(SeatView { v, seat, legal }));
        self.subs
            .iter()
            .filter(|s| s.seat == Some(seat) && only.is_none_or(|c| c == s.conn))
            .filter(|s| s.tx.try_send(f.clone()).is_err())
            .map(|s| s.conn)
            .collect()
    }

    fn send_view_to(&mut self, seat: Seat, only: Option<u64>) {
        let slow = self.view_frames_to(seat, self.v, only);
        self.drop_conns(slow);
    }

    fn send_to(&mut self, conn: u64, f: Arc<str>) {
        let slow = self
            .subs
            .iter()
            .find(|s| s.conn == conn)
            .is_some_and(|s| s.tx.try_send(f).is_err());
        if slow {
            self.drop_conns(vec![conn]);
        }
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            room: self.info(),
            game: self.game.as_ref().map(|g| GameSnapshot {
                game_no: self.game_no,
                first: g.first,
                options: g.game.options_json(),
                actions: g.actions.clone(),
                state: g.game.public_state(),
                to_act: if g.over { None } else { g.game.to_act() },
                deadline: if g.over {
                    None
                } else {
                    g.deadline.map(|(_, ms)| ms)
                },
                dice_commit: g.dice.as_ref().map(DiceStream::commit),
                outcome: g.game.outcome_json(),
                dice_seed: if g.over {
                    g.dice.as_ref().map(DiceStream::reveal)
                } else {
                    None
                },
            }),
        }
    }
}

/// Where a CPU move comes from.
enum Decision {
    Planned(Vec<TableAction>),
    Thinking(tokio::sync::oneshot::Receiver<Thought>),
}

async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
