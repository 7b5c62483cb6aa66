//! REST bodies (JSON). Errors are `{"error":{"code","message"}}` ([`ApiError`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::{ErrorCode, GameKind, Occupant, OptionProblem, TurnTime};

/// `POST /rooms`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateRoom {
    pub game: GameKind,
    /// House rules: any subset of the game's options table; the rest take the spec's defaults.
    #[serde(default = "empty_object")]
    #[schema(value_type = Object)]
    pub options: Value,
    #[serde(default)]
    pub turn_time: TurnTime,
    #[serde(default)]
    pub rated: bool,
    /// Listed in `GET /rooms` when true; invite-only otherwise.
    #[serde(default)]
    pub public: bool,
    /// Spectators may write in their own chat channel (which only spectators read).
    #[serde(default)]
    pub spectator_chat: bool,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

/// Answer to `POST /rooms`: keep `host_token` secret (it changes the room).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CreatedRoom {
    pub room: String,
    /// A link to share with the players.
    pub invite: String,
    pub host_token: String,
}

/// `PUT /rooms/{id}/settings` (host token): any field left out keeps its value.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangeSettings {
    /// The complete new house rules (options left out take the spec's defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_time: Option<TurnTime>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rated: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spectator_chat: Option<bool>,
}

/// `POST /rooms/{id}/unseat` and `POST /rooms/{id}/handover` (host token): the seat the order is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatOrder {
    #[schema(value_type = String, example = "blue")]
    pub seat: crate::Seat,
}

/// `POST /rooms/{id}/mute` (host token): mute (or, with `muted: false`, unmute) a seat's chat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MuteSeat {
    #[schema(value_type = String, example = "blue")]
    pub seat: crate::Seat,
    #[serde(default = "yes")]
    pub muted: bool,
}

fn yes() -> bool {
    true
}

/// `POST /rooms/{id}/hide` (host token): hide a chat line for everyone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HideMessage {
    /// The line's `id` (from its `chat` message).
    pub id: u64,
}

/// `POST /rooms/{id}/join`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct JoinRoom {
    pub name: String,
    /// A player id from `POST /players`, with its secret: the seat plays under this identity (rated
    /// games move its rating). Without them the seat is a guest's: its games are recorded, unrated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_secret: Option<String>,
}

/// `POST /players`: a new anonymous player identity for this device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreatePlayer {
    pub display_name: String,
}

/// Answer to `POST /players`: keep `secret` on the device; it is shown only once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CreatedPlayer {
    pub player_id: String,
    pub secret: String,
    pub display_name: String,
}

/// Answer to `POST /rooms/{id}/join`: keep `seat_token` secret (it plays the seat).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Joined {
    #[schema(value_type = String, example = "red")]
    pub seat: crate::Seat,
    pub seat_token: String,
}

/// `POST /rooms/{id}/cpu` (host token): seat a CPU player at a level in a free seat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatCpu {
    #[schema(value_type = String, example = "green")]
    pub seat: crate::Seat,
    /// 1 easy, 2 medium, 3 hard; the names `"easy"`, `"medium"`, `"hard"` are accepted too (the
    /// answer always shows the number).
    #[serde(default = "default_level", deserialize_with = "cpu_level")]
    #[schema(value_type = u8, example = 3)]
    pub level: u8,
}

fn default_level() -> u8 {
    2
}

/// A CPU level as a number or as its name. Numbers pass as they are (the room checks the range);
/// unknown names are refused here.
fn cpu_level<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u8, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum NumberOrName {
        Number(u8),
        Name(String),
    }
    match NumberOrName::deserialize(d)? {
        NumberOrName::Number(n) => Ok(n),
        NumberOrName::Name(name) => match name.as_str() {
            "easy" => Ok(1),
            "medium" => Ok(2),
            "hard" => Ok(3),
            _ => Err(serde::de::Error::custom(format!(
                "unknown CPU level `{name}` (1..=3, easy, medium, hard)"
            ))),
        },
    }
}

/// Where a room is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Seats are being filled; no game yet.
    Lobby,
    Playing,
    /// A game ended; the host may start a rematch.
    Finished,
}

/// A room as anyone may see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RoomInfo {
    pub id: String,
    pub game: GameKind,
    #[schema(value_type = Object)]
    pub options: Value,
    pub turn_time: TurnTime,
    pub rated: bool,
    pub public: bool,
    /// Spectators may write in their own channel.
    #[serde(default)]
    pub spectator_chat: bool,
    /// The host locked the room: `POST /rooms/{id}/join` answers `room_locked`.
    #[serde(default)]
    pub locked: bool,
    pub phase: Phase,
    /// Games started in this room so far.
    pub game_no: u32,
    /// In seat order red, blue, yellow, green.
    pub seats: [Occupant; 4],
    /// The room's current event version.
    pub v: u64,
}

/// `GET /rooms`: one page of the public rooms, in id order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RoomList {
    pub rooms: Vec<RoomInfo>,
    /// More rooms follow: ask again with `after=<next>` (absent on the last page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// Every REST error: `{"error":{"code":"bad_options","message":"…","details":[…]}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ApiError {
    pub error: ApiErrorBody,
    /// With code `redirect` (cluster mode): the same request's URL on the node that serves the room.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ApiErrorBody {
    pub code: ErrorCode,
    pub message: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<OptionProblem>,
}

/// `GET /healthz`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Health {
    pub status: String,
    pub rooms: usize,
}

/// A rating as shown to people: the Weng-Lin `mu` and `sigma`, and `display` =
/// `round(1000 + 40·(mu − 3·sigma))`, the number leaderboards sort by.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RatingValue {
    pub mu: f64,
    pub sigma: f64,
    pub display: i32,
}

impl From<rating::Rating> for RatingValue {
    fn from(r: rating::Rating) -> RatingValue {
        RatingValue {
            mu: r.mu,
            sigma: r.sigma,
            display: r.display(),
        }
    }
}

/// One row of `GET /leaderboard`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct LeaderboardRow {
    /// 1-based place on the whole board (the offset included).
    pub rank: i64,
    pub player_id: String,
    pub display_name: String,
    /// Always false: CPU levels are fixed anchors, not ranked players.
    pub is_cpu: bool,
    /// `round(1000 + 40·(mu − 3·sigma))`: rows are sorted by it, best first.
    pub display: i32,
    pub mu: f64,
    pub sigma: f64,
    /// Rated games in this pool.
    pub games: i64,
}

/// `GET /leaderboard?pool=…`: the established players of one rating pool, best first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Leaderboard {
    /// `chaturaji`, `fourchess_teams` or `fourchess_ffa`.
    #[schema(value_type = String, example = "chaturaji")]
    pub pool: rating::Pool,
    pub rows: Vec<LeaderboardRow>,
    /// The offset of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<i64>,
    /// Who is listed: rated games in the pool at least (`ratings.provisional_games`) …
    pub min_games: i64,
    /// … sigma at most (`ratings.provisional_sigma`) …
    pub max_sigma: f64,
    /// … and a rated game in the pool within this many days (`ratings.leaderboard_active_days`;
    /// 0: any time).
    pub active_days: u32,
}

/// A player as anyone may see it (the secret is never shown).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PlayerInfo {
    pub id: String,
    pub display_name: String,
    pub is_cpu: bool,
    /// Unix milliseconds.
    pub created_at: i64,
}

/// A player's rating in one pool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PoolRatingInfo {
    #[schema(value_type = String, example = "chaturaji")]
    pub pool: rating::Pool,
    pub rating: RatingValue,
    /// Rated games in the pool (0 for a CPU level's anchor).
    pub games: i64,
    /// Too few games or too uncertain to be compared yet: shown marked, kept off the leaderboard.
    pub provisional: bool,
}

/// One rating change in a player's history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RatingHistoryEntry {
    #[schema(value_type = String, example = "chaturaji")]
    pub pool: rating::Pool,
    /// The finished game (`GET /games/{game_id}`).
    pub game_id: String,
    /// Rated games in the pool after this one (1 for the first).
    pub games: i64,
    pub before: RatingValue,
    pub after: RatingValue,
    /// Unix milliseconds (the game's end).
    pub at: i64,
}

/// `GET /players/{id}`: ratings per pool and the latest rating changes, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PlayerProfile {
    pub player: PlayerInfo,
    pub ratings: Vec<PoolRatingInfo>,
    pub history: Vec<RatingHistoryEntry>,
}

/// `GET /players/{id}/history?pool=…`: one page of a player's rating history in one pool, newest
/// first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RatingHistory {
    pub player_id: String,
    #[schema(value_type = String, example = "chaturaji")]
    pub pool: rating::Pool,
    pub entries: Vec<RatingHistoryEntry>,
    /// The offset of the next (older) page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<i64>,
}

/// One seat's rating change from one game (a CPU seat's anchor does not move: `before == after`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GameRatingChange {
    pub player_id: String,
    /// The seat (one; older records may list several for one identity).
    #[schema(value_type = Vec<String>)]
    pub seats: Vec<crate::Seat>,
    pub before: RatingValue,
    pub after: RatingValue,
}

/// `GET /games/{id}`: a finished game's full record and the rating changes it caused.
///
/// `record` is the room's record (`format: "fourkings-record/1"`): game kind, complete house rules,
/// first seat, seats, the published `dice_commit` and revealed `dice_seed`, every action in order
/// (dice throws included as the room's `roll` actions) and the outcome. Check it with
/// `fourkings verify FILE.json` (this whole body or the bare record).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FinishedGameBody {
    #[schema(value_type = Object)]
    pub record: Value,
    pub rating_changes: Vec<GameRatingChange>,
    /// Why the game moved no rating (`casual`, `guest`, `same_identity`, `too_short`); absent for
    /// a rated game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unrated_reason: Option<String>,
}

/// One seat of a game in a list: who held it and where they finished.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GameListSeat {
    #[schema(value_type = String, example = "red")]
    pub seat: crate::Seat,
    /// The name the seat played under (a CPU's name, e.g. `CPU (medium)`).
    pub name: String,
    /// The player's id (a human's identity, or a fixed CPU identity); absent for a guest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_id: Option<String>,
    /// 1 = first; partners of four-player chess Teams share their place.
    pub place: u8,
    pub points: i64,
}

/// One finished game in a list (`GET /rooms/{id}/games`, `GET /players/{id}/games`). Its replay is
/// the page `/?game={game_id}`, its record `GET /games/{game_id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GameListEntry {
    pub game_id: String,
    pub room: String,
    pub game_no: u32,
    pub game: GameKind,
    #[schema(value_type = String, example = "chaturaji")]
    pub pool: rating::Pool,
    /// Why the game moved no rating (`casual`, `guest`, `same_identity`, `too_short`); absent for
    /// a rated game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unrated_reason: Option<String>,
    /// Unix milliseconds.
    pub finished_at: i64,
    /// Red, Blue, Yellow, Green.
    pub seats: Vec<GameListSeat>,
    /// The seats placed first (both partners of a winning team; every seat of a drawn one).
    #[schema(value_type = Vec<String>)]
    pub winners: Vec<crate::Seat>,
    /// `GET /players/{id}/games` only: that player's rating change in this game, when it moved it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<GameListRating>,
}

/// A player's rating before and after one game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GameListRating {
    pub before: RatingValue,
    pub after: RatingValue,
}

/// `GET /rooms/{id}/games`: a page of the room's finished games, the latest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RoomGames {
    pub room: String,
    pub games: Vec<GameListEntry>,
    /// The next (older) page's `cursor`; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// `GET /players/{id}/games`: a page of the finished games the player held a seat in, newest
/// first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PlayerGames {
    pub player_id: String,
    pub games: Vec<GameListEntry>,
    /// The next (older) page's `cursor`; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// `GET /readyz`: 200 with `ready: true` when the database answers and the action log writes
/// straight to it; 503 with `ready: false` and the reason otherwise (e.g. during a database outage,
/// while accepted actions wait in the local spool).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Readiness {
    pub ready: bool,
    /// Whether the database answered a ping just now.
    pub database: bool,
    /// Whether the log writer is writing to the database (nothing waiting in the spool).
    pub writer: bool,
    /// Log entries waiting in the spool for the database.
    pub spooled: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_levels_are_numbers_or_names() {
        let level = |body: &str| serde_json::from_str::<SeatCpu>(body).map(|s| s.level);
        assert_eq!(level(r#"{"seat":"red","level":3}"#).unwrap(), 3);
        assert_eq!(level(r#"{"seat":"red","level":"hard"}"#).unwrap(), 3);
        assert_eq!(level(r#"{"seat":"red","level":"easy"}"#).unwrap(), 1);
        assert_eq!(level(r#"{"seat":"red"}"#).unwrap(), 2, "medium by default");
        assert!(level(r#"{"seat":"red","level":"expert"}"#).is_err());
        assert!(level(r#"{"seat":"red","level":-1}"#).is_err());
    }
}

/// `GET /rooms/{id}/positions?from=K&limit=N`: the room's current (or just finished) game, action
/// by action from seq `from`, each with what it did and the public state after it, computed by the
/// server replaying the game's log through the rules. A client builds its move list from it after a
/// reload and shows the board as it was after any action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GamePositions {
    pub room: String,
    pub game_no: u32,
    pub game: GameKind,
    #[schema(value_type = String, example = "red")]
    pub first: crate::Seat,
    /// The public state before the first action (the start position).
    #[schema(value_type = Object)]
    pub start: Value,
    /// How many actions the game has so far (the next action's seq).
    pub total: u64,
    /// Actions `from` .. `from + limit` (fewer at the end of the game).
    pub steps: Vec<PositionStep>,
}

/// One applied action of [`GamePositions`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PositionStep {
    /// Position in the game's log, from 0 (the snapshot's `actions` index).
    pub seq: u64,
    #[schema(value_type = String, example = "red")]
    pub seat: crate::Seat,
    /// `human`, `cpu` or `room` (the dice throw), as in the `acted` event.
    #[schema(value_type = String, example = "human")]
    pub by: crate::Actor,
    /// The rules' action, as the `acted` event and the snapshot carry it.
    #[schema(value_type = Object)]
    pub action: Value,
    /// The rules' `Applied`: what the action did (captures, checks, promotions, eliminations).
    #[schema(value_type = Object)]
    pub applied: Value,
    /// The public state after the action (as `acted` carries it).
    #[schema(value_type = Object)]
    pub state: Value,
}
