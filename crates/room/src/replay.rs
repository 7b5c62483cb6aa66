//! A game's positions after each of its actions, computed by replaying the game's log through the
//! rules: what `GET /rooms/{id}/positions` serves. The rules live on the server, so a client that
//! shows "the board after move 12" or builds a move list with check marks after a reload asks here
//! instead of re-deriving anything.

use protocol::{GameKind, PositionStep, Seat};
use serde_json::Value;

use crate::game::TableGame;
use crate::record::{GameRecordDoc, RecordedAction};

/// The log of the room's current (or just finished) game.
#[derive(Debug, Clone, PartialEq)]
pub struct GameLog {
    pub game_no: u32,
    pub kind: GameKind,
    /// The complete house rules of the game.
    pub options: Value,
    pub first: Seat,
    /// Every applied action in order, with its seat and author.
    pub actions: Vec<RecordedAction>,
}

impl GameLog {
    /// A finished game's log, from its stored record: every record this server ever wrote carries
    /// the house rules, the first seat and every action, so games recorded before the replay
    /// viewer existed replay as well.
    pub fn of_record(doc: &GameRecordDoc) -> GameLog {
        GameLog {
            game_no: doc.game_no,
            kind: doc.game,
            options: doc.options.clone(),
            first: doc.first,
            actions: doc.actions.clone(),
        }
    }
}

/// What a replay gives: the public state before the first action and the steps asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct Replayed {
    pub start: Value,
    pub steps: Vec<PositionStep>,
}

/// Replays `log` and returns the steps `from .. from + limit` (each with what its action did and the
/// public state after it). A log the rules refuse is the server's own fault: the error says where.
pub fn replay(log: &GameLog, from: u64, limit: usize) -> Result<Replayed, String> {
    let mut game = TableGame::from_stored(log.kind, &log.options, log.first)
        .map_err(|p| format!("the game's house rules do not load: {p:?}"))?;
    let start = game.public_state();
    let end = from.saturating_add(limit as u64);
    let mut steps = Vec::new();
    for recorded in log.actions.iter().take_while(|a| a.seq < end) {
        let action = game
            .parse_logged(&recorded.action)
            .map_err(|e| format!("seq {}: {e}", recorded.seq))?;
        let applied = game
            .apply(action)
            .map_err(|(code, e)| format!("seq {}: {code}: {e}", recorded.seq))?;
        if recorded.seq >= from {
            steps.push(PositionStep {
                seq: recorded.seq,
                seat: recorded.seat,
                by: recorded.by,
                action: recorded.action.clone(),
                applied,
                state: game.public_state(),
            });
        }
    }
    Ok(Replayed { start, steps })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::TableOptions;
    use protocol::Actor;
    use serde_json::json;

    fn log(kind: GameKind, options: Value, actions: &[(Seat, Value)]) -> GameLog {
        GameLog {
            game_no: 1,
            kind,
            options: TableOptions::normalize(kind, &options).unwrap().to_json(),
            first: Seat::Red,
            actions: actions
                .iter()
                .enumerate()
                .map(|(i, (seat, action))| RecordedAction {
                    seq: i as u64,
                    seat: *seat,
                    by: Actor::Human,
                    action: action.clone(),
                })
                .collect(),
        }
    }

    /// The positions are the rules' own: the same states, applied effects and checks as playing the
    /// actions on a game directly (F.9: the queen on the long diagonal checks Blue's king).
    #[test]
    fn four_player_chess_steps_are_the_rules_states_after_each_move() {
        let moves = [
            (Seat::Red, json!({"type": "move", "from": "h2", "to": "h3"})),
            (
                Seat::Blue,
                json!({"type": "move", "from": "b7", "to": "c7"}),
            ),
            (
                Seat::Yellow,
                json!({"type": "move", "from": "g13", "to": "g12"}),
            ),
            (
                Seat::Green,
                json!({"type": "move", "from": "m8", "to": "l8"}),
            ),
        ];
        let log = log(GameKind::Fourchess, json!({}), &moves);
        let mut direct =
            TableGame::from_stored(GameKind::Fourchess, &log.options, Seat::Red).unwrap();
        let start = direct.public_state();
        let mut expected = Vec::new();
        for (_, a) in &moves {
            let applied = direct.apply(direct.parse_logged(a).unwrap()).unwrap();
            expected.push((applied, direct.public_state()));
        }
        let all = replay(&log, 0, 100).unwrap();
        assert_eq!(all.start, start);
        assert_eq!(all.steps.len(), 4);
        for (step, (applied, state)) in all.steps.iter().zip(&expected) {
            assert_eq!(&step.applied, applied);
            assert_eq!(&step.state, state);
        }
        assert_eq!(all.steps[1].seat, Seat::Blue);
        // A window: from 2, at most 1.
        let part = replay(&log, 2, 1).unwrap();
        assert_eq!(part.steps.len(), 1);
        assert_eq!(part.steps[0].seq, 2);
        assert_eq!(part.steps[0].state, expected[2].1);
        // Past the end: nothing, no error.
        assert!(replay(&log, 9, 10).unwrap().steps.is_empty());
    }

    /// F.9: Red's f-pawn opens the queen's diagonal g1–a7 onto Blue's king; the state after that move
    /// (and only that one) names Blue in check.
    #[test]
    fn four_player_chess_states_name_the_kings_in_check() {
        let moves = [
            (Seat::Red, json!({"type": "move", "from": "h2", "to": "h3"})),
            (
                Seat::Blue,
                json!({"type": "move", "from": "b6", "to": "c6"}),
            ),
            (
                Seat::Yellow,
                json!({"type": "move", "from": "g13", "to": "g12"}),
            ),
            (
                Seat::Green,
                json!({"type": "move", "from": "m8", "to": "l8"}),
            ),
            (Seat::Red, json!({"type": "move", "from": "f2", "to": "f3"})),
        ];
        let r = replay(&log(GameKind::Fourchess, json!({}), &moves), 0, 10).unwrap();
        assert_eq!(r.start["checks"], json!([]));
        let checks: Vec<&Value> = r.steps.iter().map(|s| &s.state["checks"]).collect();
        assert_eq!(
            checks,
            [
                &json!([]),
                &json!([]),
                &json!([]),
                &json!([]),
                &json!(["blue"])
            ]
        );
        assert_eq!(r.steps[4].applied["move"]["checks"], json!(["blue"]));
    }

    #[test]
    fn chaturaji_steps_carry_the_throw_and_the_dice_state() {
        let log = log(
            GameKind::Chaturaji,
            json!({}),
            &[
                (Seat::Red, json!({"type": "roll", "dice": [1, 3]})),
                (
                    Seat::Red,
                    json!({"type": "move", "die": 0, "from": "a2", "to": "a3"}),
                ),
            ],
        );
        let r = replay(&log, 0, 10).unwrap();
        assert_eq!(r.steps.len(), 2);
        assert_eq!(r.steps[0].state["dice"][0]["face"], 1);
        assert_eq!(r.steps[1].state["dice"][0]["state"], "used");
        assert!(
            r.steps[1].state["position"]
                .as_str()
                .unwrap()
                .contains("rP")
        );
    }

    #[test]
    fn an_action_the_rules_refuse_is_reported_with_its_seq() {
        let log = log(
            GameKind::Fourchess,
            json!({}),
            &[(Seat::Red, json!({"type": "move", "from": "h2", "to": "h9"}))],
        );
        let err = replay(&log, 0, 10).unwrap_err();
        assert!(err.starts_with("seq 0:"), "{err}");
    }
}
