//! The wire of fourkings: every WebSocket message and REST body as serde types, and the one rule for
//! display names ([`name`]). May depend on `rules` and `rating` (whose types some messages name) and
//! on no other fourkings crate; `room`, `store`, `server` and the end-to-end tests use it.
//!
//! `docs/protocol.md` documents each message with a JSON example, and a test parses every example
//! into these types.
//!
//! Game-specific payloads (house rules, actions, what an action did, standings) are carried as JSON
//! values produced by the rules crate's own serde types, so this crate knows no rules.
#![forbid(unsafe_code)]

pub mod chat;
pub mod name;
mod rest;
mod ws;

pub use chat::{ChatChannel, ChatLine, Phrase};
pub use rest::*;
pub use ws::*;

pub use rules::Seat;

/// Largest text frame a client may send; a bigger one closes the connection with 1009.
pub const MAX_FRAME_BYTES: usize = 4096;

/// The game a room plays.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum GameKind {
    Chaturaji,
    Fourchess,
}

impl GameKind {
    pub fn name(self) -> &'static str {
        match self {
            GameKind::Chaturaji => "chaturaji",
            GameKind::Fourchess => "fourchess",
        }
    }
}

/// The host's turn time limit. On expiry the CPU plays that turn for the seat.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TurnTime {
    #[default]
    None,
    #[serde(rename = "30s")]
    S30,
    #[serde(rename = "60s")]
    S60,
}

impl TurnTime {
    /// The limit in (timer) seconds; the server scales a second by its configuration (tests shorten it).
    pub fn seconds(self) -> Option<u64> {
        match self {
            TurnTime::None => None,
            TurnTime::S30 => Some(30),
            TurnTime::S60 => Some(60),
        }
    }
}

/// Who occupies a seat, as everyone sees it (tokens are never shown).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Occupant {
    Empty,
    Human {
        name: String,
        /// A WebSocket connection holds the seat now.
        connected: bool,
        /// The CPU plays for the seat now (its human is away past the grace period, or ran out of time).
        cpu_playing: bool,
        /// The host handed the seat to the CPU for the rest of this game: the human's return does not
        /// take it back (the result is still theirs).
        #[serde(default, skip_serializing_if = "is_false")]
        handed_over: bool,
        /// The host muted the seat's chat (until the end of the current or, between games, the next game).
        #[serde(default, skip_serializing_if = "is_false")]
        muted: bool,
    },
    Cpu {
        level: u8,
    },
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Why an error was sent; stable codes that clients may match on.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The frame is not JSON, or not a JSON object.
    BadJson,
    /// The object's `t` names no message.
    UnknownType,
    /// A known message with missing or malformed fields.
    BadMessage,
    /// `act`/`resign` before a successful `join`.
    NotJoined,
    /// A spectator (no seat token) tried to act.
    Spectator,
    /// The action's seat is not the one to act.
    NotYourTurn,
    /// The rules refuse the action; `message` says why (the rules' own code first).
    IllegalAction,
    /// Unknown seat or host token.
    BadToken,
    /// All four seats are taken.
    RoomFull,
    /// The game is over; start a rematch.
    GameOver,
    /// No game has started in this room yet.
    NoGame,
    /// The request needs a room with no game running.
    GameRunning,
    /// No room with that id.
    UnknownRoom,
    /// House rules or room settings that do not validate; `details` lists every problem.
    BadOptions,
    /// The chosen seat is not free.
    SeatTaken,
    /// The server is at its room limit.
    TooManyRooms,
    /// The server holds as many WebSockets as it may (`limits.max_connections`); try again later.
    TooManyConnections,
    /// The room is shutting down, or could not record the action; retry.
    Unavailable,
    /// No player or finished game with that id.
    NotFound,
    /// A query parameter is missing or out of range; `message` says which.
    BadRequest,
    /// The request needs the other game (e.g. PGN4, which only four-player chess has).
    WrongGame,
    /// A stored game record does not replay through the rules (the server's fault, not the client's).
    BadRecord,
    /// Cluster mode: another node serves this room; the answer's `url` names it (REST: status 307 with
    /// `Location`, the same path on that node).
    Redirect,
    /// A rated room: this player identity already holds one of its seats (one identity, one seat).
    AlreadySeated,
    /// This client (its IP address, or its `X-Forwarded-For` behind a trusted proxy) sent more
    /// requests of this kind than `limits.rest_*` allow; REST answers 429 with `Retry-After`.
    RateLimited,
    /// This client holds as much of something as one client may (open lobbies, connections); REST
    /// answers 429. Close some first.
    ClientLimit,
    /// The request body is larger than `limits.max_body_bytes`; 413.
    BodyTooLarge,
    /// The request was not complete within `server.request_timeout_ms`; 408.
    RequestTimeout,
    /// The path answers only other methods (static files: GET and HEAD); 405.
    MethodNotAllowed,
    /// An `act`/`resign` whose ack id is not above the highest this connection has used: it is never
    /// applied. Ack ids must increase per connection (a resend of an id still remembered is re-acked).
    StaleAck,
    /// A chat message over `chat.max_chars` characters after trimming; it is dropped.
    ChatTooLong,
    /// A chat message with no text left after trimming and removing control characters.
    ChatEmpty,
    /// More chat messages than `chat.rate_messages` per `chat.rate_period_ms` from one connection; the
    /// message is dropped, the connection kept.
    ChatTooFast,
    /// The host muted this seat's chat.
    Muted,
    /// A spectator wrote while the room's `spectator_chat` setting is off.
    ChatClosed,
    /// A chat `phrase` id that is not one of the quick phrases.
    UnknownPhrase,
    /// The host removed this seat's player: the seat token no longer plays or watches the seat.
    Unseated,
    /// The host locked the room: no more joins.
    RoomLocked,
    /// The order needs an occupied seat and this one is empty.
    SeatEmpty,
    /// The seat's player is connected: only an absent player's seat is handed to the CPU.
    PlayerPresent,
    /// The host handed this seat to the CPU for the rest of the game: it no longer acts.
    HandedOver,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadJson => "bad_json",
            ErrorCode::UnknownType => "unknown_type",
            ErrorCode::BadMessage => "bad_message",
            ErrorCode::NotJoined => "not_joined",
            ErrorCode::Spectator => "spectator",
            ErrorCode::NotYourTurn => "not_your_turn",
            ErrorCode::IllegalAction => "illegal_action",
            ErrorCode::BadToken => "bad_token",
            ErrorCode::RoomFull => "room_full",
            ErrorCode::GameOver => "game_over",
            ErrorCode::NoGame => "no_game",
            ErrorCode::GameRunning => "game_running",
            ErrorCode::UnknownRoom => "unknown_room",
            ErrorCode::BadOptions => "bad_options",
            ErrorCode::SeatTaken => "seat_taken",
            ErrorCode::TooManyRooms => "too_many_rooms",
            ErrorCode::TooManyConnections => "too_many_connections",
            ErrorCode::Unavailable => "unavailable",
            ErrorCode::NotFound => "not_found",
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::WrongGame => "wrong_game",
            ErrorCode::BadRecord => "bad_record",
            ErrorCode::Redirect => "redirect",
            ErrorCode::AlreadySeated => "already_seated",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::ClientLimit => "client_limit",
            ErrorCode::BodyTooLarge => "body_too_large",
            ErrorCode::RequestTimeout => "request_timeout",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::StaleAck => "stale_ack",
            ErrorCode::ChatTooLong => "chat_too_long",
            ErrorCode::ChatEmpty => "chat_empty",
            ErrorCode::ChatTooFast => "chat_too_fast",
            ErrorCode::Muted => "muted",
            ErrorCode::ChatClosed => "chat_closed",
            ErrorCode::UnknownPhrase => "unknown_phrase",
            ErrorCode::Unseated => "unseated",
            ErrorCode::RoomLocked => "room_locked",
            ErrorCode::SeatEmpty => "seat_empty",
            ErrorCode::PlayerPresent => "player_present",
            ErrorCode::HandedOver => "handed_over",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem with submitted house rules.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct OptionProblem {
    pub option: String,
    pub code: String,
    pub message: String,
}
