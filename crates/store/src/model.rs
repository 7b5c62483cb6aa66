//! The plain data the store reads and writes.

use rating::{Established, GameResult, Pool, Rating};
use rules::Seat;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Milliseconds since the Unix epoch: every time in the store.
pub type Millis = i64;

/// The current wall-clock time in [`Millis`].
pub fn now_millis() -> Millis {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as Millis)
        .unwrap_or(0)
}

/// A player: anonymous, identified by a device secret, or one of the fixed CPU identities.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub id: String,
    pub display_name: String,
    pub is_cpu: bool,
    pub created_at: Millis,
}

/// A freshly created player and its secret. The secret is shown exactly once: the store keeps only
/// its SHA-256.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPlayer {
    pub player: Player,
    pub secret: String,
}

/// Where a room is in its life; rooms in `Lobby` or `Playing` are rebuilt at start-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoomState {
    Lobby,
    Playing,
    Finished,
    Closed,
}

impl RoomState {
    pub const fn as_str(self) -> &'static str {
        match self {
            RoomState::Lobby => "lobby",
            RoomState::Playing => "playing",
            RoomState::Finished => "finished",
            RoomState::Closed => "closed",
        }
    }

    pub fn parse(s: &str) -> Option<RoomState> {
        [
            RoomState::Lobby,
            RoomState::Playing,
            RoomState::Finished,
            RoomState::Closed,
        ]
        .into_iter()
        .find(|st| st.as_str() == s)
    }

    /// Whether the room still has to be rebuilt after a restart.
    pub const fn is_unfinished(self) -> bool {
        matches!(self, RoomState::Lobby | RoomState::Playing)
    }
}

/// A room as created by a host. The store hashes `host_token` and never keeps it in clear.
#[derive(Debug, Clone, PartialEq)]
pub struct NewRoom {
    pub id: String,
    /// `chaturaji` or `fourchess`.
    pub game_kind: String,
    pub options: Value,
    pub host_token: String,
    pub settings: Value,
}

/// A stored room.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Room {
    pub id: String,
    pub game_kind: String,
    pub options: Value,
    pub settings: Value,
    pub state: RoomState,
    pub created_at: Millis,
    pub updated_at: Millis,
}

/// A room in the lobby or playing, with what a restarted server needs to tell a live room from a
/// stale one without loading its log.
#[derive(Debug, Clone, PartialEq)]
pub struct UnfinishedRoom {
    pub room: Room,
    /// When the room's newest log record was written (its creation when it has none).
    pub last_activity: Millis,
    /// Whether its newest game started and has no recorded result: a game in progress (or one that
    /// ended just before a crash and is still to be recorded).
    pub game_running: bool,
}

/// What a log entry records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// An accepted player or CPU action.
    Action,
    /// A dice throw made by the room's RNG.
    Dice,
}

impl EntryKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            EntryKind::Action => "action",
            EntryKind::Dice => "dice",
        }
    }

    pub fn parse(s: &str) -> Option<EntryKind> {
        match s {
            "action" => Some(EntryKind::Action),
            "dice" => Some(EntryKind::Dice),
            _ => None,
        }
    }
}

/// One entry of a room's append-only log, keyed by (room, game number, seq).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogEntry {
    pub room_id: String,
    pub game_no: i32,
    pub seq: i64,
    pub kind: EntryKind,
    pub payload: Value,
    pub at: Millis,
}

impl LogEntry {
    /// Whether `other` is the same entry (a retry): same key, kind and payload. The time is not
    /// compared: a retry may carry a later time.
    pub fn same_as(&self, other: &LogEntry) -> bool {
        self.room_id == other.room_id
            && self.game_no == other.game_no
            && self.seq == other.seq
            && self.kind == other.kind
            && self.payload == other.payload
    }

    /// What appending `self` is when `stored` holds its key already: a retry or a conflict.
    pub fn outcome_against(&self, stored: &LogEntry) -> AppendOutcome {
        if stored.same_as(self) {
            AppendOutcome::Duplicate
        } else {
            AppendOutcome::SeqConflict
        }
    }
}

/// What happened to one entry of an append batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppendOutcome {
    /// Newly written.
    Inserted,
    /// The identical entry was already there: a harmless retry.
    Duplicate,
    /// A different entry already holds this (room, game, seq).
    SeqConflict,
}

/// One seat of a finished game: who sat there (a human's id, or a CPU identity such as `cpu:hard`) and
/// whether a CPU finished the game for them (they still get the result).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatPlayer {
    pub player_id: String,
    pub cpu_finished: bool,
}

/// A finished game, written once together with its rating updates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FinishedGame {
    pub id: String,
    pub room_id: String,
    pub game_no: i32,
    pub pool: Pool,
    /// `None`: a rated game, it moves its players' ratings. Otherwise why it moves none (it is
    /// recorded all the same).
    pub unrated: Option<UnratedReason>,
    pub options: Value,
    pub first_seat: Seat,
    /// Hex sha256 of the dice seed, published at the start.
    pub dice_commit: Option<String>,
    /// The dice seed, revealed at the end.
    pub revealed_seed: Option<String>,
    /// Seats in the order Red, Blue, Yellow, Green.
    pub seats: [SeatPlayer; 4],
    pub result: GameResult,
    pub standings: Value,
    /// The full record (actions, events, …) as the room serialises it.
    pub record: Value,
    pub finished_at: Millis,
}

impl FinishedGame {
    pub fn is_rated(&self) -> bool {
        self.unrated.is_none()
    }
}

/// Why a finished game moved no rating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnratedReason {
    /// The room was not a rated room (its host chose a casual game).
    Casual,
    /// A human seat had no player identity (a guest).
    Guest,
    /// One player identity held several seats.
    SameIdentity,
    /// The game ended before it counted: a human seat made no move of its own (as chess.com aborts
    /// a game before both players moved), or fewer moves than `ratings.min_moves` were played.
    TooShort,
}

impl UnratedReason {
    pub const ALL: [UnratedReason; 4] = [
        UnratedReason::Casual,
        UnratedReason::Guest,
        UnratedReason::SameIdentity,
        UnratedReason::TooShort,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            UnratedReason::Casual => "casual",
            UnratedReason::Guest => "guest",
            UnratedReason::SameIdentity => "same_identity",
            UnratedReason::TooShort => "too_short",
        }
    }

    pub fn parse(s: &str) -> Option<UnratedReason> {
        UnratedReason::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

/// One seat's rating change from one rated game. Every seat is its own participant: a CPU seat
/// takes part with its level's fixed anchor (`before == after`, `games == 0`), so two CPU seats of
/// one level are two changes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatingChange {
    pub player_id: String,
    /// The seat (one; a list for the shape of the records of older versions, where one identity
    /// could hold several seats).
    pub seats: Vec<Seat>,
    pub before: Rating,
    pub after: Rating,
    /// Rated games in this pool, this one included (0 for a CPU anchor).
    pub games: i64,
}

/// The answer of [`crate::Store::record_game`].
#[derive(Debug, Clone, PartialEq)]
pub enum Recorded {
    /// The game and its rating updates were written in one transaction.
    Written { rating_changes: Vec<RatingChange> },
    /// A game with this id was already recorded; nothing changed.
    AlreadyRecorded,
}

/// A finished game read back, with the rating changes it caused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    pub game: FinishedGame,
    pub rating_changes: Vec<RatingChange>,
}

/// Which rows a leaderboard shows: established players only (never CPU anchors), who played a rated
/// game in the pool since `active_since`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LeaderboardQuery {
    pub established: Established,
    /// Unix milliseconds; 0 lists every established player however long ago they played.
    pub active_since: Millis,
    pub limit: i64,
    pub offset: i64,
}

impl Default for LeaderboardQuery {
    fn default() -> Self {
        LeaderboardQuery {
            established: Established::default(),
            active_since: 0,
            limit: 50,
            offset: 0,
        }
    }
}

/// A page of one player's rating history in one pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryQuery {
    pub pool: Pool,
    pub limit: i64,
    pub offset: i64,
}

/// One leaderboard row; rows are sorted by the conservative estimate `mu - 3·sigma`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeaderboardRow {
    /// 1-based position (offset included).
    pub rank: i64,
    pub player_id: String,
    pub display_name: String,
    pub is_cpu: bool,
    pub rating: Rating,
    /// [`Rating::display`].
    pub display: i32,
    pub games: i64,
}

/// A player's rating in one pool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoolRating {
    pub pool: Pool,
    pub rating: Rating,
    pub display: i32,
    pub games: i64,
    /// Unix milliseconds of the last rated game in the pool.
    pub updated_at: Millis,
}

/// One line of a player's rating history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryEntry {
    pub pool: Pool,
    pub game_id: String,
    /// Rated games in the pool after this one (1 for the first).
    pub games: i64,
    pub before: Rating,
    pub after: Rating,
    pub at: Millis,
}

/// A player's profile: ratings per pool and the latest rating history, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub player: Player,
    pub ratings: Vec<PoolRating>,
    pub history: Vec<HistoryEntry>,
}

/// One finished game as a list shows it (a room's games, a player's recent games): who sat where,
/// the standings and when, without the record's actions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameSummary {
    pub id: String,
    pub room_id: String,
    pub game_no: i32,
    pub pool: Pool,
    pub unrated: Option<UnratedReason>,
    /// The record's `seats` as stored (Red, Blue, Yellow, Green: name, player id, CPU level), read
    /// out of the record by the database so the actions never cross the wire.
    pub seats: Value,
    /// The rules' standings (seat, place, points), as stored beside the record.
    pub standings: Value,
    pub finished_at: Millis,
    /// A player's list only: that player's rating change in this game, if it was rated for them.
    pub rating: Option<(Rating, Rating)>,
}

/// A page of one room's finished games, newest (highest game number) first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoomGamesQuery {
    /// Only games numbered below this one (the previous page's last); `None` from the newest.
    pub before: Option<i32>,
    pub limit: i64,
}

/// A page of one player's finished games, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerGamesQuery {
    /// Only games finished before this `(finished_at, id)` (the previous page's last); `None`
    /// from the newest.
    pub before: Option<(Millis, String)>,
    pub limit: i64,
}
