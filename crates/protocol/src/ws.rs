//! WebSocket messages: JSON text frames tagged by `"t"`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::chat::ChatLine;
use crate::{ErrorCode, GameKind, OptionProblem, RatingValue, RoomInfo, Seat};

/// Client → server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMsg {
    /// Join a room: with a seat token to play that seat, without one to watch. `v` is the last event
    /// version the client holds (resume); the server then sends only what was missed when it still can.
    Join {
        room: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        v: Option<u64>,
    },
    /// Play an action for the connection's seat. `ack` is the client's id for it: the server answers
    /// `ack` once applied, and a resent `ack` id is acknowledged again, never applied twice.
    Act { ack: u64, action: Value },
    /// Resign the connection's seat (at any time, not only on its turn).
    Resign { ack: u64 },
    /// Say something in the room: free `text`, or a quick `phrase` id (exactly one of the two). A
    /// seat writes in the players' channel, a spectator in the spectators' channel (when the room
    /// allows it). Everyone it reaches gets a `chat` message, the writer too; a refusal is an `error`.
    Chat {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        phrase: Option<String>,
    },
    /// Keep-alive at the application level (WebSocket ping frames work too).
    Ping {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        n: Option<u64>,
    },
}

impl ClientMsg {
    /// Parse a text frame, telling apart broken JSON, an unknown `t` and a malformed known message.
    pub fn parse(text: &str) -> Result<ClientMsg, (ErrorCode, String)> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| (ErrorCode::BadJson, e.to_string()))?;
        let Some(t) = value.get("t").and_then(Value::as_str) else {
            return Err((
                ErrorCode::BadJson,
                "expected a JSON object with a string field `t`".into(),
            ));
        };
        if !matches!(t, "join" | "act" | "resign" | "chat" | "ping") {
            return Err((
                ErrorCode::UnknownType,
                format!("unknown message type `{t}`"),
            ));
        }
        serde_json::from_value(value).map_err(|e| (ErrorCode::BadMessage, e.to_string()))
    }

    /// The client's ack id, if the message carries one (echoed in an error about it).
    pub fn ack(&self) -> Option<u64> {
        match self {
            ClientMsg::Act { ack, .. } | ClientMsg::Resign { ack } => Some(*ack),
            _ => None,
        }
    }
}

/// Server → client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum ServerMsg {
    /// Answer to `join`. With `snapshot`, the client replaces its whole state; without one, the events
    /// after the client's `v` follow at once, in order.
    Welcome {
        room: String,
        /// The seat this connection plays, or none for a spectator.
        seat: Option<Seat>,
        /// The room's current event version.
        v: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        snapshot: Option<Box<Snapshot>>,
    },
    /// One numbered state change, the same bytes for every watcher.
    Event(EventMsg),
    /// Only for the connection of the seat to act, after the event that gave it the turn.
    View(SeatView),
    /// The action with this ack id was applied; `v` is the version of its event.
    Ack { ack: u64, v: u64 },
    /// A rejected message; the connection and the room carry on.
    Error(ErrorMsg),
    Pong {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        n: Option<u64>,
    },
    /// A chat line, to everyone its channel reaches. Not a numbered event: chat is not part of the
    /// game. A resuming client gets the recent lines again after its missed events (dedupe by `id`).
    Chat(ChatLine),
    /// The host hid the line with this id: remove it.
    ChatHidden { id: u64 },
    /// Cluster mode: another node serves `room`. The server closes the connection normally (1000)
    /// after this message; the client connects to `url` (a `ws://` or `wss://` URL ending in `/ws`)
    /// and sends the same `join` again.
    Redirect { room: String, url: String },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorMsg {
    pub code: ErrorCode,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack: Option<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<OptionProblem>,
}

/// The envelope of every state change: its version, whose turn it is after it, and that turn's
/// deadline (unix milliseconds; none without a turn time limit or when nobody is to act).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventMsg {
    pub v: u64,
    pub to_act: Option<Seat>,
    pub deadline: Option<u64>,
    pub event: Event,
}

/// Who made a game action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Actor {
    /// The seat's human.
    Human,
    /// The CPU: a CPU seat, a human away past the grace period, or a turn timer that ran out.
    Cpu,
    /// The room itself: the dice throw at the start of a Chaturaji turn.
    Room,
}

/// Why the CPU took a seat over or gave it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ControlReason {
    /// The human was disconnected longer than the grace period.
    Away,
    /// The human reconnected with the seat token.
    Returned,
    /// The host handed the absent human's seat to the CPU for the rest of the game.
    Host,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "e", rename_all = "snake_case")]
pub enum Event {
    /// A person took a free seat.
    SeatTaken { seat: Seat, name: String },
    /// The host put a CPU player in a seat.
    CpuSeated { seat: Seat, level: u8 },
    /// A seat's human connected or disconnected (the seat stays theirs).
    Connection { seat: Seat, connected: bool },
    /// The CPU started (`cpu: true`) or stopped playing for a human's seat.
    Control {
        seat: Seat,
        cpu: bool,
        reason: ControlReason,
    },
    /// The host changed the room's settings (no game running).
    SettingsChanged {
        options: Value,
        turn_time: crate::TurnTime,
        rated: bool,
        public: bool,
        #[serde(default)]
        spectator_chat: bool,
    },
    /// The host removed the seat's occupant before a game: the seat is free, and a removed human's
    /// seat token no longer works (`unseated`).
    Unseated { seat: Seat },
    /// The host locked (no more joins) or unlocked the room.
    Locked { locked: bool },
    /// The host muted (or unmuted) the seat's chat.
    Muted { seat: Seat, muted: bool },
    /// A game started: its number in the room, first seat, house rules and (Chaturaji) the hex
    /// sha256 of the dice seed, revealed in `game_over`.
    GameStarted {
        game_no: u32,
        game: GameKind,
        first: Seat,
        options: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dice_commit: Option<String>,
    },
    /// A game action was applied. `action` is the rules' action, `applied` what it did (the rules'
    /// `Applied`); `state` the public state after it (scores, dice, …, per game).
    Acted {
        seat: Seat,
        by: Actor,
        action: Value,
        applied: Value,
        state: Value,
    },
    /// The game ended: standings (per seat place and points, and why) and the revealed dice seed.
    GameOver {
        outcome: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dice_seed: Option<String>,
    },
    /// A rated game was recorded and moved these players' ratings (after `game_over`, once the
    /// result is in the database). `game_id` is the record's id (`{room}-{game_no}`).
    Rated {
        game_id: String,
        changes: Vec<RatingChange>,
    },
}

/// One player's rating change from one rated game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatingChange {
    /// The player's id, or a fixed CPU identity (`cpu:easy`, `cpu:medium`, `cpu:hard`).
    pub player_id: String,
    /// The seats this player held (a CPU level may hold several).
    pub seats: Vec<Seat>,
    pub before: RatingValue,
    pub after: RatingValue,
}

/// A seat's private view: what it may do now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeatView {
    pub v: u64,
    pub seat: Seat,
    /// Legal actions, or none when the house rules hide them (`show_legal_moves` off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legal: Option<Vec<Value>>,
}

/// The text of a `view` frame, written straight from the actions' own `Serialize` (the room passes
/// the rules' action values: no JSON tree is built per legal move, and a view is sent after every
/// action). The same text as `ServerMsg::View(SeatView { .. })` holding those actions as JSON.
pub fn view_frame<A: Serialize>(v: u64, seat: Seat, legal: Option<&[A]>) -> String {
    #[derive(Serialize)]
    #[serde(tag = "t", rename = "view")]
    struct View<'a, A> {
        v: u64,
        seat: Seat,
        #[serde(skip_serializing_if = "Option::is_none")]
        legal: Option<&'a [A]>,
    }
    serde_json::to_string(&View { v, seat, legal }).expect("actions serialize to JSON")
}

#[cfg(test)]
mod view_frame_tests {
    use super::*;

    #[test]
    fn view_frame_is_the_view_message() {
        #[derive(Serialize)]
        struct Move {
            from: &'static str,
            to: &'static str,
        }
        let moves = [
            Move {
                from: "d2",
                to: "d4",
            },
            Move {
                from: "e2",
                to: "e3",
            },
        ];
        let as_json: Vec<Value> = moves
            .iter()
            .map(|m| serde_json::to_value(m).unwrap())
            .collect();
        for legal in [Some(&moves[..]), Some(&moves[..0]), None] {
            let msg = ServerMsg::View(SeatView {
                v: 7,
                seat: Seat::Blue,
                legal: legal.map(|l| as_json[..l.len()].to_vec()),
            });
            assert_eq!(
                view_frame(7, Seat::Blue, legal),
                serde_json::to_string(&msg).unwrap()
            );
        }
    }
}

/// Everything a client needs to draw the room from scratch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub room: RoomInfo,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<GameSnapshot>,
    /// The recent chat lines this connection may read, oldest first (at most `chat.recent` per
    /// channel; hidden lines left out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chat: Vec<ChatLine>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameSnapshot {
    pub game_no: u32,
    pub first: Seat,
    pub options: Value,
    /// Every action applied so far, in order (with `first` and `options` this replays the game).
    pub actions: Vec<Value>,
    /// The public state now (board, scores, dice, …, per game).
    pub state: Value,
    pub to_act: Option<Seat>,
    pub deadline: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dice_commit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dice_seed: Option<String>,
}
