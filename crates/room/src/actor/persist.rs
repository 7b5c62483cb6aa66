//! What a room writes to its log, and how a room is rebuilt from it after a restart.
//!
//! The room's own log (game number 0) holds [`RoomRecord`]s: `created` first (settings and the host
//! token's hash), then seats taken (name, seat token hash, player id), CPU seats, settings changes,
//! the host's orders about seats (unseat, lock, hand a seat to the CPU, mute) and game starts (game number, first seat, and the dice seed, kept server-side so that a rebuilt room
//! continues the same dice stream). Game `n` has its own log of [`GameEntry`]s, one per applied action
//! and dice throw, with the client's ack id for human actions.
//!
//! The rebuild replays every record in order through the rules (checking every logged dice throw
//! against the seed's stream), so the rebuilt room is exactly the room that acknowledged its last
//! action. What is not in the log is not restored on purpose: connections (every human starts
//! disconnected, the grace period runs from the restart), turn timers (restart with a full turn) and
//! the event history (a new incarnation of the room numbers its events from a new base).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use protocol::{Actor, Seat, TurnTime};

use super::{Played, Room, now_ms};
use crate::bot_pool::BotPool;
use crate::dice::DiceStream;
use crate::game::{TableGame, TableOptions};
use crate::handle::{Cmd, RoomHandle};
use crate::log::ActionLog;
use crate::queue;
use crate::record::{GameRecordDoc, RECORD_FORMAT, RecordSeat};
use crate::seats::{Human, SeatState};
use crate::{RoomConfig, RoomSettings};

/// One record of a room's own log (game number 0).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub(crate) enum RoomRecord {
    Created {
        game: protocol::GameKind,
        options: Value,
        turn_time: TurnTime,
        rated: bool,
        public: bool,
        #[serde(default)]
        spectator_chat: bool,
        host_token_hash: String,
    },
    Joined {
        seat: Seat,
        name: String,
        token_hash: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        player_id: Option<String>,
    },
    Cpu {
        seat: Seat,
        level: u8,
    },
    Settings {
        options: Value,
        turn_time: TurnTime,
        rated: bool,
        public: bool,
        #[serde(default)]
        spectator_chat: bool,
    },
    /// The host freed the seat (before a game).
    Unseated {
        seat: Seat,
    },
    Locked {
        locked: bool,
    },
    /// The host handed the seat to the CPU for the rest of game `game_no`.
    Handover {
        seat: Seat,
        game_no: u32,
    },
    /// The seat's chat is muted until game `until_game` ends (`None`: unmuted).
    Muted {
        seat: Seat,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        until_game: Option<u32>,
    },
    Started {
        game_no: u32,
        first: Seat,
        /// Hex dice seed (games with dice). Never sent to clients before the game ends.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seed: Option<String>,
        /// Unix milliseconds.
        at: u64,
    },
}

impl RoomRecord {
    pub(crate) fn created(settings: &RoomSettings, host_token_hash: &str) -> RoomRecord {
        RoomRecord::Created {
            game: settings.game(),
            options: settings.options.to_json(),
            turn_time: settings.turn_time,
            rated: settings.rated,
            public: settings.public,
            spectator_chat: settings.spectator_chat,
            host_token_hash: host_token_hash.to_owned(),
        }
    }

    pub(crate) fn settings(settings: &RoomSettings) -> RoomRecord {
        RoomRecord::Settings {
            options: settings.options.to_json(),
            turn_time: settings.turn_time,
            rated: settings.rated,
            public: settings.public,
            spectator_chat: settings.spectator_chat,
        }
    }

    pub(crate) fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("log records always serialize")
    }
}

/// One applied action of a game's log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct GameEntry {
    pub seat: Seat,
    pub by: Actor,
    /// `TableAction::to_json`, dice throws and resignations included.
    pub action: Value,
    /// The client's ack id (human actions): a resend after a restart is re-acked, not re-applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack: Option<u64>,
    /// Unix milliseconds.
    pub at: u64,
}

impl GameEntry {
    pub(crate) fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("log entries always serialize")
    }
}

/// A room as the store holds it: the payloads of its own log and of each game's log, in seq order.
#[derive(Debug, Clone, Default)]
pub struct StoredRoom {
    pub id: String,
    pub room_log: Vec<Value>,
    pub games: BTreeMap<u32, Vec<Value>>,
}

/// The fixed rating identity and display name of a CPU level.
fn cpu_identity(level: u8) -> (String, String) {
    let i = usize::from(level.clamp(1, 3) - 1);
    let id = rating::CPU_PLAYERS[i];
    let name = id.trim_start_matches("cpu:");
    (id.to_owned(), format!("CPU ({name})"))
}

/// A room log's house rules, as `RoomRecord::created` or `settings` wrote them.
fn stored_options(
    room: &str,
    game: protocol::GameKind,
    options: &Value,
) -> Result<TableOptions, String> {
    TableOptions::from_json(game, options)
        .map_err(|p| format!("room {room}: house rules refused: {p:?}"))
}

/// Rebuilds a room from its log and starts its actor. Finished games found on the way are handed to
/// [`ActionLog::record_game`] again (it is idempotent), so a result that was not yet recorded when the
/// server stopped is recorded now.
pub fn restore(
    stored: StoredRoom,
    config: Arc<RoomConfig>,
    log: Arc<dyn ActionLog>,
    bot: Arc<BotPool>,
) -> Result<RoomHandle, String> {
    let mut records = stored.room_log.iter().map(|v| {
        serde_json::from_value::<RoomRecord>(v.clone())
            .map_err(|e| format!("room {}: bad log record {v}: {e}", stored.id))
    });
    let Some(RoomRecord::Created {
        game,
        options,
        turn_time,
        rated,
        public,
        spectator_chat,
        host_token_hash,
    }) = records.next().transpose()?
    else {
        return Err(format!(
            "room {}: the log does not start with `created`",
            stored.id
        ));
    };
    let settings = RoomSettings {
        options: stored_options(&stored.id, game, &options)?,
        turn_time,
        rated,
        public,
        spectator_chat,
    };
    let (tx, rx) = queue::channel(config.commands.max(1));
    let mut room = Room::new(
        Arc::from(stored.id.as_str()),
        settings,
        host_token_hash,
        config,
        log,
        bot,
        &tx,
    );
    room.room_seq = stored.room_log.len() as u64;
    for record in records {
        match record? {
            RoomRecord::Created { .. } => {
                return Err(format!("room {}: a second `created` record", stored.id));
            }
            RoomRecord::Joined {
                seat,
                name,
                token_hash,
                player_id,
            } => {
                room.seats[seat.index()] =
                    SeatState::Human(Human::new(name, token_hash, player_id));
            }
            RoomRecord::Cpu { seat, level } => {
                room.seats[seat.index()] = SeatState::Cpu { level };
            }
            RoomRecord::Settings {
                options,
                turn_time,
                rated,
                public,
                spectator_chat,
            } => {
                room.settings.options = stored_options(&stored.id, room.settings.game(), &options)?;
                room.settings.turn_time = turn_time;
                room.settings.rated = rated;
                room.settings.public = public;
                room.settings.spectator_chat = spectator_chat;
            }
            RoomRecord::Unseated { seat } => room.free_seat(seat),
            RoomRecord::Locked { locked } => room.locked = locked,
            RoomRecord::Handover { seat, game_no } => {
                if game_no == room.game_no
                    && let Some(h) = room.seats[seat.index()].human_mut()
                {
                    h.handed_over = true;
                    h.cpu_playing = true;
                }
            }
            RoomRecord::Muted { seat, until_game } => room.muted[seat.index()] = until_game,
            RoomRecord::Started {
                game_no,
                first,
                seed,
                at,
            } => {
                if game_no != room.game_no + 1 {
                    return Err(format!(
                        "room {}: game {game_no} starts after game {}",
                        stored.id, room.game_no
                    ));
                }
                let game = TableGame::new(&room.settings.options, first)
                    .map_err(|p| format!("room {}: house rules refused: {p:?}", stored.id))?;
                let dice = match seed {
                    Some(hex_seed) => {
                        let seed: [u8; 32] = hex::decode(&hex_seed)
                            .ok()
                            .and_then(|b| b.try_into().ok())
                            .ok_or_else(|| format!("room {}: bad dice seed", stored.id))?;
                        Some(DiceStream::from_seed(seed))
                    }
                    None => None,
                };
                room.begin_game(game, first, dice, at, false);
                let empty = Vec::new();
                let entries = stored.games.get(&game_no).unwrap_or(&empty);
                room.replay_game(entries)
                    .map_err(|e| format!("room {} game {game_no}: {e}", stored.id))?;
            }
        }
    }
    // A new incarnation: event versions continue from a base above any earlier one (the time in
    // milliseconds), and a resume from before it gets a snapshot.
    room.v = now_ms().max(room.v);
    room.resume_floor = room.v;
    for seat in room.seats.iter_mut() {
        if let Some(h) = seat.human_mut() {
            for ack in h.acks.iter_mut() {
                ack.1 = room.v;
            }
        }
    }
    room.refresh_turn();
    Ok(room.start_actor(tx, rx))
}

impl Room {
    /// Applies a game's logged actions to the game just begun, without events.
    fn replay_game(&mut self, entries: &[Value]) -> Result<(), String> {
        let keep = self.config.acks_kept;
        let mut last_at = self.game.as_ref().map_or(0, |g| g.started_at);
        for (seq, payload) in entries.iter().enumerate() {
            let entry: GameEntry = serde_json::from_value(payload.clone())
                .map_err(|e| format!("bad entry {seq}: {e}"))?;
            let running = self.game.as_mut().expect("begun by the caller");
            if running.over {
                return Err(format!("entry {seq} after the end of the game"));
            }
            let action = running
                .game
                .parse_logged(&entry.action)
                .map_err(|e| format!("entry {seq}: {e}"))?;
            if entry.by == Actor::Room {
                // The throw must be the seed's next throw: the same stream continues after the rebuild.
                let (lo, hi) = running
                    .game
                    .wants_roll()
                    .ok_or_else(|| format!("entry {seq}: a dice throw where none is due"))?;
                let faces = running
                    .dice
                    .as_mut()
                    .ok_or_else(|| format!("entry {seq}: a dice throw without dice"))?
                    .throw(lo, hi);
                if running.game.roll(faces) != action {
                    return Err(format!("entry {seq}: the throw is not the seed's"));
                }
            }
            running.played.push(Played {
                seat: entry.seat,
                by: entry.by,
                action: action.clone(),
            });
            running
                .game
                .apply(action)
                .map_err(|(code, m)| format!("entry {seq}: the rules refuse it: {code}: {m}"))?;
            let is_human_seat = matches!(self.seats[entry.seat.index()], SeatState::Human(_));
            running.cpu_finished[entry.seat.index()] |= entry.by == Actor::Cpu && is_human_seat;
            running.over = running.game.outcome_json().is_some();
            last_at = entry.at;
            if let (Some(ack), Some(h)) = (entry.ack, self.seats[entry.seat.index()].human_mut()) {
                h.remember_ack(ack, 0, keep);
            }
        }
        if self.game.as_ref().is_some_and(|g| g.over) {
            self.record_finished(last_at);
        }
        Ok(())
    }

    /// The finished game's record goes to the log's `record_game`; a rated game's rating changes
    /// come back as a `rated` event.
    pub(super) fn record_finished(&self, finished_at: u64) {
        let Some(running) = self.game.as_ref() else {
            return;
        };
        let game_id = format!("{}-{}", self.id, self.game_no);
        let seats = std::array::from_fn(|i| {
            let seat = Seat::ALL[i];
            match &self.seats[i] {
                SeatState::Human(h) => RecordSeat {
                    seat,
                    name: h.name.clone(),
                    player_id: h.player_id.clone(),
                    cpu_level: None,
                    cpu_finished: running.cpu_finished[i],
                },
                SeatState::Cpu { level } => {
                    let (id, name) = cpu_identity(*level);
                    RecordSeat {
                        seat,
                        name,
                        player_id: Some(id),
                        cpu_level: Some(*level),
                        cpu_finished: false,
                    }
                }
                SeatState::Empty => {
                    // Cannot happen: a game starts with every seat filled. Record it as level 1.
                    let (id, name) = cpu_identity(1);
                    RecordSeat {
                        seat,
                        name,
                        player_id: Some(id),
                        cpu_level: Some(1),
                        cpu_finished: false,
                    }
                }
            }
        });
        let doc = GameRecordDoc {
            format: RECORD_FORMAT.to_owned(),
            game_id: game_id.clone(),
            room: self.id.to_string(),
            game_no: self.game_no,
            game: running.game.kind(),
            options: running.game.options_json(),
            first: running.first,
            rated: self.settings.rated,
            seats,
            dice_commit: running.dice.as_ref().map(DiceStream::commit),
            dice_seed: running.dice.as_ref().map(DiceStream::reveal),
            actions: running
                .played
                .iter()
                .enumerate()
                .map(|(seq, p)| p.recorded(seq))
                .collect(),
            outcome: running.game.outcome_json().unwrap_or(Value::Null),
            started_at: running.started_at,
            finished_at,
        };
        let recording = self.log.record_game(doc);
        let me = self.me.clone();
        tokio::spawn(async move {
            let Some(changes) = recording.await else {
                return;
            };
            if let Some(me) = me.upgrade() {
                let _ = me.send(Box::new(Cmd::Rated { game_id, changes })).await;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_keep_their_shape() {
        let r = RoomRecord::Joined {
            seat: Seat::Blue,
            name: "Bo".into(),
            token_hash: "ab".into(),
            player_id: None,
        };
        assert_eq!(
            r.to_value(),
            serde_json::json!({"t": "joined", "seat": "blue", "name": "Bo", "token_hash": "ab"})
        );
        assert_eq!(
            serde_json::from_value::<RoomRecord>(r.to_value()).unwrap(),
            r
        );
        assert_eq!(cpu_identity(2).0, "cpu:medium");
    }
}
