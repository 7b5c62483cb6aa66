//! Checking a finished game's record without trusting the server (issue 5, "provably fair dice"):
//!
//! 1. the revealed seed hashes to the dice commit published at the start (`sha256(seed)`, hex);
//! 2. every dice throw in the log is the next throw of the seed's stream, derived exactly as
//!    [`crate::dice`] documents (ChaCha20 from the seed, two `random_range(lo..=hi)` per throw), with
//!    the faces `lo..=hi` the game asks for when the replay reaches the throw;
//! 3. every action replays through the rules in order, by the seat the record names;
//! 4. the replayed game ends exactly where the log ends, with the recorded outcome.
//!
//! The report lists every disagreement with the place it was found (the action's `seq`, expected
//! against found). A wrong dice face does not stop the replay (the logged faces are what was played,
//! and later throws can still be checked), but anything that makes the rest of the log meaningless
//! (a gap in the sequence, an unreadable or illegal action, a throw where a move was due) stops it
//! there.

use std::fmt;

use protocol::{Actor, GameKind, Seat};
use serde::Serialize;
use serde_json::Value;

use crate::dice::DiceStream;
use crate::game::{TableAction, TableGame};
use crate::record::{GameRecordDoc, RECORD_FORMAT};

/// What [`verify_record`] found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerifyReport {
    pub game_id: String,
    pub game: GameKind,
    /// Actions of the log that replayed through the rules.
    pub replayed: usize,
    /// Actions in the log.
    pub actions: usize,
    /// Dice throws compared with the seed's stream.
    pub throws_checked: usize,
    /// Every disagreement, in the order found; empty when the record is sound.
    pub problems: Vec<Problem>,
}

impl VerifyReport {
    /// Whether everything matches.
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// One way a record disagrees with its seed or with the rules.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "problem", rename_all = "snake_case")]
pub enum Problem {
    /// The `format` field is not one this verifier knows.
    BadFormat { expected: String, found: String },
    /// The house rules do not start a game.
    BadOptions { message: String },
    /// A game with dice lacks its commit or seed (or a game without dice has one).
    DiceFields { message: String },
    /// The revealed seed is not 32 bytes of hex.
    BadSeed { found: String },
    /// `sha256(seed)` is not the published commit.
    BadCommit { computed: String, committed: String },
    /// The action at position `index` does not carry seq `index`.
    BadSeq { index: usize, found: u64 },
    /// The logged action is not an action of this game.
    BadAction { seq: u64, message: String },
    /// The record names another seat than the one the replay says acted.
    WrongSeat {
        seq: u64,
        expected: Seat,
        found: Seat,
    },
    /// A dice throw not made by the room, or a move made by the room.
    WrongActor {
        seq: u64,
        expected: Actor,
        found: Actor,
    },
    /// The game was waiting for the room's throw, the log holds something else.
    MissingThrow {
        seq: u64,
        expected: [u8; 2],
        found: Value,
    },
    /// A dice throw where the game was not waiting for one.
    UnexpectedThrow { seq: u64, found: [u8; 2] },
    /// The `throw`-th throw (from 1) of the seed is not what the log says was thrown.
    DiceMismatch {
        seq: u64,
        throw: usize,
        expected: [u8; 2],
        found: [u8; 2],
    },
    /// The rules refuse the action.
    IllegalAction {
        seq: u64,
        code: String,
        message: String,
    },
    /// The game was over before this action.
    ActionAfterEnd { seq: u64 },
    /// The log ends but the game does not.
    Unfinished { to_act: Seat },
    /// The replayed outcome is not the recorded one.
    OutcomeMismatch { expected: Value, found: Value },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::BadFormat { expected, found } => {
                write!(f, "format: expected `{expected}`, found `{found}`")
            }
            Problem::BadOptions { message } => write!(f, "options: {message}"),
            Problem::DiceFields { message } => write!(f, "dice: {message}"),
            Problem::BadSeed { found } => {
                write!(f, "dice seed `{found}` is not 64 hex digits (32 bytes)")
            }
            Problem::BadCommit {
                computed,
                committed,
            } => write!(
                f,
                "dice commit: sha256(seed) is {computed}, the published commit is {committed}"
            ),
            Problem::BadSeq { index, found } => {
                write!(
                    f,
                    "action #{index}: expected seq {index}, found seq {found}"
                )
            }
            Problem::BadAction { seq, message } => {
                write!(f, "seq {seq}: not an action of this game: {message}")
            }
            Problem::WrongSeat {
                seq,
                expected,
                found,
            } => write!(f, "seq {seq}: expected seat {expected}, found {found}"),
            Problem::WrongActor {
                seq,
                expected,
                found,
            } => write!(
                f,
                "seq {seq}: expected an action by the {}, found one by the {}",
                actor_name(*expected),
                actor_name(*found)
            ),
            Problem::MissingThrow {
                seq,
                expected,
                found,
            } => write!(
                f,
                "seq {seq}: expected the dice throw {expected:?}, found the action {found}"
            ),
            Problem::UnexpectedThrow { seq, found } => {
                write!(
                    f,
                    "seq {seq}: a dice throw {found:?} where no throw was due"
                )
            }
            Problem::DiceMismatch {
                seq,
                throw,
                expected,
                found,
            } => write!(
                f,
                "seq {seq}: throw #{throw} of the seed is {expected:?}, the log says {found:?}"
            ),
            Problem::IllegalAction { seq, code, message } => {
                write!(f, "seq {seq}: illegal action ({code}): {message}")
            }
            Problem::ActionAfterEnd { seq } => write!(f, "seq {seq}: the game was already over"),
            Problem::Unfinished { to_act } => {
                write!(f, "the log ends but the game goes on ({to_act} to act)")
            }
            Problem::OutcomeMismatch { expected, found } => write!(
                f,
                "outcome: the replay ends with {expected}, the record says {found}"
            ),
        }
    }
}

fn actor_name(actor: Actor) -> &'static str {
    match actor {
        Actor::Human => "player",
        Actor::Cpu => "CPU",
        Actor::Room => "room",
    }
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "game {} ({}): {} of {} actions replayed, {} dice throws checked: ",
            self.game_id,
            match self.game {
                GameKind::Chaturaji => "chaturaji",
                GameKind::Fourchess => "fourchess",
            },
            self.replayed,
            self.actions,
            self.throws_checked
        )?;
        if self.ok() {
            f.write_str("everything matches")
        } else {
            write!(f, "{} problem(s)", self.problems.len())
        }
    }
}

/// Checks a record: the dice commit, every throw, every action, the outcome. See the module docs.
pub fn verify_record(doc: &GameRecordDoc) -> VerifyReport {
    let (report, _) = replay(doc);
    report
}

/// Replays a record through the rules: the report, and the game as far as the replay got (so
/// callers can export it, e.g. as PGN4), or `None` when the options do not even start a game.
pub fn replay(doc: &GameRecordDoc) -> (VerifyReport, Option<TableGame>) {
    let mut report = VerifyReport {
        game_id: doc.game_id.clone(),
        game: doc.game,
        replayed: 0,
        actions: doc.actions.len(),
        throws_checked: 0,
        problems: Vec::new(),
    };
    if doc.format != RECORD_FORMAT {
        report.problems.push(Problem::BadFormat {
            expected: RECORD_FORMAT.into(),
            found: doc.format.clone(),
        });
    }
    let mut game = match TableGame::from_stored(doc.game, &doc.options, doc.first) {
        Ok(game) => game,
        Err(problems) => {
            report.problems.push(Problem::BadOptions {
                message: problems
                    .iter()
                    .map(|p| format!("{} {}: {}", p.option, p.code, p.message))
                    .collect::<Vec<_>>()
                    .join("; "),
            });
            return (report, None);
        }
    };
    let mut dice = check_dice(doc, game.dice_faces().is_some(), &mut report.problems);
    let mut throws = 0;
    let mut stopped = false;
    for (index, logged) in doc.actions.iter().enumerate() {
        let seq = logged.seq;
        if seq != index as u64 {
            report.problems.push(Problem::BadSeq { index, found: seq });
            stopped = true;
            break;
        }
        let action = match TableAction::from_json(doc.game, &logged.action) {
            Ok(action) => action,
            Err(message) => {
                report.problems.push(Problem::BadAction { seq, message });
                stopped = true;
                break;
            }
        };
        let Some(to_act) = game.to_act() else {
            report.problems.push(Problem::ActionAfterEnd { seq });
            stopped = true;
            break;
        };
        // The seat an action is for: the resigning seat for a resignation (any live seat may
        // resign at any time), the seat to act for everything else.
        let expected_seat = action.resigning().unwrap_or(to_act);
        if logged.seat != expected_seat {
            report.problems.push(Problem::WrongSeat {
                seq,
                expected: expected_seat,
                found: logged.seat,
            });
            stopped = true;
            break;
        }
        match (game.wants_roll(), action.as_roll()) {
            (Some((lo, hi)), Some(found)) => {
                throws += 1;
                if logged.by != Actor::Room {
                    report.problems.push(Problem::WrongActor {
                        seq,
                        expected: Actor::Room,
                        found: logged.by,
                    });
                }
                // The stream advances once per throw the game asked for, whatever the log says,
                // so one bad face does not shift every later comparison.
                if let Some(stream) = dice.as_mut() {
                    let expected = stream.throw(lo, hi);
                    report.throws_checked += 1;
                    if expected != found {
                        report.problems.push(Problem::DiceMismatch {
                            seq,
                            throw: throws,
                            expected,
                            found,
                        });
                    }
                }
            }
            (Some((lo, hi)), None) if action.resigning().is_none() => {
                let expected = match dice.as_mut() {
                    Some(stream) => stream.throw(lo, hi),
                    None => [0, 0],
                };
                report.problems.push(Problem::MissingThrow {
                    seq,
                    expected,
                    found: logged.action.clone(),
                });
                stopped = true;
                break;
            }
            (None, Some(found)) => {
                report
                    .problems
                    .push(Problem::UnexpectedThrow { seq, found });
                stopped = true;
                break;
            }
            _ => {
                if logged.by == Actor::Room {
                    // A player or the CPU: either is fine, the room only throws dice.
                    report.problems.push(Problem::WrongActor {
                        seq,
                        expected: Actor::Human,
                        found: Actor::Room,
                    });
                }
            }
        }
        if let Err((code, message)) = game.apply(action) {
            report.problems.push(Problem::IllegalAction {
                seq,
                code: code.into(),
                message,
            });
            stopped = true;
            break;
        }
        report.replayed += 1;
    }
    if !stopped {
        match (game.to_act(), game.outcome_json()) {
            (Some(to_act), _) => report.problems.push(Problem::Unfinished { to_act }),
            (None, Some(expected)) if expected != doc.outcome => {
                report.problems.push(Problem::OutcomeMismatch {
                    expected,
                    found: doc.outcome.clone(),
                })
            }
            _ => {}
        }
    }
    (report, Some(game))
}

/// Checks the commit and seed fields; the seed's dice stream when there is a seed to regenerate
/// throws from (even when the commit disagrees: the report then also shows whether the throws
/// followed the revealed seed).
fn check_dice(
    doc: &GameRecordDoc,
    has_dice: bool,
    problems: &mut Vec<Problem>,
) -> Option<DiceStream> {
    if !has_dice {
        if doc.dice_commit.is_some() || doc.dice_seed.is_some() {
            problems.push(Problem::DiceFields {
                message: "a game without dice has a dice commit or seed".into(),
            });
        }
        return None;
    }
    let (Some(commit), Some(seed_hex)) = (&doc.dice_commit, &doc.dice_seed) else {
        problems.push(Problem::DiceFields {
            message: "a game with dice needs both `dice_commit` and `dice_seed`".into(),
        });
        return None;
    };
    let seed: Option<[u8; 32]> = hex::decode(seed_hex)
        .ok()
        .and_then(|bytes| bytes.try_into().ok());
    let Some(seed) = seed else {
        problems.push(Problem::BadSeed {
            found: seed_hex.clone(),
        });
        return None;
    };
    let stream = DiceStream::from_seed(seed);
    let computed = stream.commit();
    if !computed.eq_ignore_ascii_case(commit) {
        problems.push(Problem::BadCommit {
            computed,
            committed: commit.clone(),
        });
    }
    Some(stream)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selfplay::play_record;
    use serde_json::json;

    fn chaturaji(move_seed: u64) -> GameRecordDoc {
        play_record(
            GameKind::Chaturaji,
            &json!({}),
            Seat::Blue,
            [move_seed as u8; 32],
            move_seed,
        )
        .unwrap()
    }

    fn fourchess(mode: &str, move_seed: u64) -> GameRecordDoc {
        play_record(
            GameKind::Fourchess,
            &json!({"mode": mode, "move_limit": 160}),
            Seat::Red,
            [0; 32],
            move_seed,
        )
        .unwrap()
    }

    /// Index of the `n`-th (from 0) dice throw in the record.
    fn nth_throw(doc: &GameRecordDoc, n: usize) -> usize {
        doc.actions
            .iter()
            .enumerate()
            .filter(|(_, a)| a.action["type"] == "roll")
            .nth(n)
            .unwrap()
            .0
    }

    #[test]
    fn played_games_of_both_kinds_verify() {
        for doc in [
            chaturaji(1),
            chaturaji(2),
            fourchess("teams", 3),
            fourchess("ffa", 4),
        ] {
            let report = verify_record(&doc);
            assert!(report.ok(), "{report}: {:?}", report.problems);
            assert_eq!(report.replayed, doc.actions.len());
            assert!(report.actions > 10, "a real game: {report}");
            // The outcome really was compared: a game over with standings.
            assert!(doc.outcome["standings"].as_array().unwrap().len() == 4);
            if doc.game == GameKind::Chaturaji {
                let rolls = doc
                    .actions
                    .iter()
                    .filter(|a| a.action["type"] == "roll")
                    .count();
                assert!(rolls > 4);
                assert_eq!(report.throws_checked, rolls);
            } else {
                assert_eq!(report.throws_checked, 0);
            }
        }
    }

    /// The other cube face that moves the same class of piece (1 and 5, 4 and 6), if any.
    fn twin(face: u8) -> Option<u8> {
        match face {
            1 => Some(5),
            5 => Some(1),
            4 => Some(6),
            6 => Some(4),
            _ => None,
        }
    }

    #[test]
    fn a_changed_dice_face_is_reported_at_its_throw() {
        let mut doc = chaturaji(5);
        // The most devious tamper: a face that moves the same pieces, so the game stays legal.
        let (throw, at) = (3..)
            .map(|n| (n, nth_throw(&doc, n)))
            .find(|&(_, at)| {
                doc.actions[at].action["dice"][0]
                    .as_u64()
                    .and_then(|f| twin(f as u8))
                    .is_some()
            })
            .unwrap();
        let logged: [u8; 2] =
            serde_json::from_value(doc.actions[at].action["dice"].clone()).unwrap();
        let changed = [twin(logged[0]).unwrap(), logged[1]];
        doc.actions[at].action = json!({"type": "roll", "dice": changed});
        let report = verify_record(&doc);
        assert_eq!(
            report.problems,
            vec![Problem::DiceMismatch {
                seq: at as u64,
                throw: throw + 1,
                expected: logged,
                found: changed,
            }]
        );
        assert_eq!(report.replayed, doc.actions.len());
        assert!(report.to_string().ends_with("1 problem(s)"));
    }

    #[test]
    fn a_changed_seed_breaks_the_commit_and_the_first_throw() {
        let mut doc = chaturaji(6);
        let seed = doc.dice_seed.clone().unwrap();
        let mut bytes = hex::decode(&seed).unwrap();
        bytes[0] ^= 1;
        doc.dice_seed = Some(hex::encode(&bytes));
        let report = verify_record(&doc);
        let Problem::BadCommit {
            computed,
            committed,
        } = &report.problems[0]
        else {
            panic!("{:?}", report.problems);
        };
        assert_eq!(committed, doc.dice_commit.as_ref().unwrap());
        assert_ne!(computed, committed);
        // The throws no longer follow the (changed) seed; the first disagreement is at the first
        // throw whose faces differ.
        assert!(matches!(report.problems[1], Problem::DiceMismatch { .. }));

        // A seed that is not hex at all.
        doc.dice_seed = Some("zz".into());
        assert_eq!(
            verify_record(&doc).problems[0],
            Problem::BadSeed { found: "zz".into() }
        );
    }

    #[test]
    fn a_swapped_action_is_reported_where_the_order_breaks() {
        // Four-player chess: swap the moves at seq 10 and 11 (two different seats).
        let mut doc = fourchess("teams", 7);
        let (a, b) = (
            doc.actions[10].action.clone(),
            doc.actions[11].action.clone(),
        );
        doc.actions[10].action = b;
        doc.actions[11].action = a;
        let report = verify_record(&doc);
        assert_eq!(report.replayed, 10);
        let Problem::IllegalAction { seq, .. } = &report.problems[0] else {
            panic!("{:?}", report.problems);
        };
        assert_eq!(*seq, 10);
        assert_eq!(report.problems.len(), 1);

        // Chaturaji: swap a throw with the move after it: a move where the throw was due.
        let mut doc = chaturaji(8);
        // A throw followed by a move of the same turn (a throw with no usable die passes the turn).
        let at = (2..)
            .map(|n| nth_throw(&doc, n))
            .find(|&at| doc.actions[at + 1].action["type"] != "roll")
            .unwrap();
        doc.actions.swap(at, at + 1);
        doc.actions[at].seq = at as u64;
        doc.actions[at + 1].seq = at as u64 + 1;
        let report = verify_record(&doc);
        let Problem::MissingThrow {
            seq,
            expected,
            found,
        } = &report.problems[0]
        else {
            panic!("{:?}", report.problems);
        };
        assert_eq!(*seq, at as u64);
        assert_eq!(found, &doc.actions[at].action);
        assert_eq!(json!(expected), doc.actions[at + 1].action["dice"]);
    }

    #[test]
    fn a_changed_outcome_is_reported() {
        let mut doc = fourchess("ffa", 9);
        let replayed = doc.outcome.clone();
        doc.outcome["standings"][0]["points"] = json!(999);
        let report = verify_record(&doc);
        assert_eq!(
            report.problems,
            vec![Problem::OutcomeMismatch {
                expected: replayed,
                found: doc.outcome.clone(),
            }]
        );
    }

    #[test]
    fn structural_tampering_is_reported_at_its_place() {
        let good = chaturaji(10);

        let mut doc = good.clone();
        doc.actions.truncate(doc.actions.len() - 1);
        let report = verify_record(&doc);
        assert!(matches!(report.problems[..], [Problem::Unfinished { .. }]));

        let mut doc = good.clone();
        doc.actions.remove(4);
        assert_eq!(
            verify_record(&doc).problems[0],
            Problem::BadSeq { index: 4, found: 5 }
        );

        let mut doc = good.clone();
        let seat = doc.actions[1].seat;
        doc.actions[1].seat = seat.next();
        assert_eq!(
            verify_record(&doc).problems[0],
            Problem::WrongSeat {
                seq: 1,
                expected: seat,
                found: seat.next(),
            }
        );

        let mut doc = good.clone();
        doc.actions[2].action = json!({"type": "fly"});
        assert!(matches!(
            verify_record(&doc).problems[0],
            Problem::BadAction { seq: 2, .. }
        ));

        let mut doc = good.clone();
        doc.format = "other/1".into();
        assert!(matches!(
            verify_record(&doc).problems[..],
            [Problem::BadFormat { .. }]
        ));

        let mut doc = good;
        let mut extra = doc.actions.last().unwrap().clone();
        extra.seq += 1;
        doc.actions.push(extra);
        assert!(matches!(
            verify_record(&doc).problems[..],
            [Problem::ActionAfterEnd { .. }]
        ));
    }
}
