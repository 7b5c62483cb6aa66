//! The full record of one finished game: what the store keeps (`FinishedGame::record`), what
//! `GET /games/{id}` serves and what `fourkings verify RECORD.json` checks.
//!
//! Everything needed to check a game without trusting the server is here: the house rules, the first
//! seat, every action in order (dice throws included, as the room's own `roll` actions), the committed
//! dice hash and the revealed seed. A verifier recomputes `sha256(seed)`, regenerates every throw from
//! the seed as `crate::dice` documents, replays every action through the rules and compares the outcome.

use protocol::{Actor, GameKind, Seat};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The `format` field of every record this server writes.
pub const RECORD_FORMAT: &str = "fourkings-record/1";

/// One finished game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameRecordDoc {
    /// Always [`RECORD_FORMAT`].
    pub format: String,
    /// The store's id of the finished game (`{room}-{game_no}`).
    pub game_id: String,
    pub room: String,
    pub game_no: u32,
    pub game: GameKind,
    /// The complete house rules the game was played with.
    pub options: Value,
    pub first: Seat,
    pub rated: bool,
    /// Seats in the order Red, Blue, Yellow, Green.
    pub seats: [RecordSeat; 4],
    /// Hex `sha256(seed)`, published when the game started (games with dice only).
    pub dice_commit: Option<String>,
    /// The hex seed, revealed at the end.
    pub dice_seed: Option<String>,
    /// Every applied action in order, dice throws included.
    pub actions: Vec<RecordedAction>,
    /// The rules' outcome (standings, points) as `game_over` carried it.
    pub outcome: Value,
    /// Unix milliseconds.
    pub started_at: u64,
    pub finished_at: u64,
}

/// Who held a seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordSeat {
    pub seat: Seat,
    /// The display name, or the CPU's name (e.g. `CPU (medium)`).
    pub name: String,
    /// The player's id (a human's device identity, or a fixed CPU identity such as `cpu:medium`).
    pub player_id: Option<String>,
    /// Set when a CPU held the seat from the start.
    pub cpu_level: Option<u8>,
    /// A human whose seat the CPU finished (away past the grace period, or gone): the result is
    /// still theirs.
    pub cpu_finished: bool,
}

/// One applied action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedAction {
    /// Position in the game's log, from 0.
    pub seq: u64,
    /// The seat the action was for.
    pub seat: Seat,
    /// Who chose it: the seat's human, the CPU, or the room (dice throws).
    pub by: Actor,
    /// The action exactly as the room logged it (`TableAction::to_json`).
    pub action: Value,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_round_trips_through_json() {
        let seat = |seat: Seat, name: &str| RecordSeat {
            seat,
            name: name.into(),
            player_id: None,
            cpu_level: Some(2),
            cpu_finished: false,
        };
        let doc = GameRecordDoc {
            format: RECORD_FORMAT.into(),
            game_id: "abc-1".into(),
            room: "abc".into(),
            game_no: 1,
            game: GameKind::Chaturaji,
            options: serde_json::json!({}),
            first: Seat::Red,
            rated: false,
            seats: [
                seat(Seat::Red, "a"),
                seat(Seat::Blue, "b"),
                seat(Seat::Yellow, "c"),
                seat(Seat::Green, "d"),
            ],
            dice_commit: Some("00".into()),
            dice_seed: Some("11".into()),
            actions: vec![RecordedAction {
                seq: 0,
                seat: Seat::Red,
                by: Actor::Room,
                action: serde_json::json!({"roll": [1, 2]}),
            }],
            outcome: serde_json::json!({"standings": []}),
            started_at: 1,
            finished_at: 2,
        };
        let text = serde_json::to_string(&doc).unwrap();
        let back: GameRecordDoc = serde_json::from_str(&text).unwrap();
        assert_eq!(back, doc);
        assert!(text.contains("\"format\":\"fourkings-record/1\""));
    }
}
