//! The checker: what the database's log says against what every client saw and was told.
//!
//! Invariants (each must count 0):
//! - **lost**: an action the client got an `ack` for that is not in the room's log (same seat, same
//!   ack id, same action);
//! - **duplicated**: one (room, seat, ack id) in the log more than once: a resend applied twice;
//! - **gaps**: a game's log whose seqs are not exactly 0, 1, …, n-1, or a room whose `last_seq` is not
//!   the number of entries it holds;
//! - **forks**: a run of actions a client saw (a snapshot's actions, then the `acted` events after
//!   it) that is not the log at those positions: a node told a client something that is not durable;
//! - **epochs written by two nodes**, rows written outside any fence (no writer), and an epoch older
//!   than an earlier row's later in the same game (a fenced-out writer that still wrote).
//!
//! Pure: rows and records in, a verdict out, so it is tested on made-up histories below.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::Value;

/// One `room_log` row.
#[derive(Debug, Clone, PartialEq)]
pub struct LogRow {
    pub room: String,
    pub game_no: i32,
    pub seq: i64,
    pub payload: Value,
    /// Unix ms the writer stamped.
    pub at: i64,
    pub writer_node: Option<String>,
    pub writer_epoch: Option<i64>,
}

/// A run of consecutive actions of one game as a client saw them, from position `start` of the
/// game's log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Segment {
    pub game_no: u32,
    pub start: u64,
    pub actions: Vec<Value>,
}

/// An action the server acknowledged to a client.
#[derive(Debug, Clone, PartialEq)]
pub struct Acked {
    pub ack: u64,
    pub action: Value,
}

/// What one seat's client recorded, for the checker.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Seen {
    pub room: String,
    /// The seat's name on the wire (`red`, …), once a welcome said it.
    pub seat: Option<String>,
    pub acks: Vec<Acked>,
    pub segments: Vec<Segment>,
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub acked: usize,
    pub lost: usize,
    pub duplicated: usize,
    pub gaps: usize,
    pub last_seq_mismatches: usize,
    pub segments: usize,
    pub events_checked: usize,
    pub forks: usize,
    pub epochs_by_two_nodes: usize,
    pub unattributed_rows: usize,
    pub epoch_regressions: usize,
    /// The first few problems, spelled out.
    pub examples: Vec<String>,
}

impl Verdict {
    pub fn ok(&self) -> bool {
        self.lost == 0
            && self.duplicated == 0
            && self.gaps == 0
            && self.last_seq_mismatches == 0
            && self.forks == 0
            && self.epochs_by_two_nodes == 0
            && self.unattributed_rows == 0
            && self.epoch_regressions == 0
    }

    fn example(&mut self, text: String) {
        if self.examples.len() < 12 {
            self.examples.push(text);
        }
    }
}

type GameKey = (String, i32);

/// `rows` is the whole log (any order); `last_seq` each room's `rooms.last_seq`.
pub fn check(rows: &[LogRow], last_seq: &BTreeMap<String, Option<i64>>, seen: &[Seen]) -> Verdict {
    let mut verdict = Verdict::default();
    let mut games: BTreeMap<GameKey, Vec<&LogRow>> = BTreeMap::new();
    for row in rows {
        games
            .entry((row.room.clone(), row.game_no))
            .or_default()
            .push(row);
    }
    for rows in games.values_mut() {
        rows.sort_by_key(|r| r.seq);
    }

    // Gaps, and what the writers' epochs say.
    let mut per_room: BTreeMap<&str, i64> = BTreeMap::new();
    let mut writers: BTreeMap<(&str, i64), BTreeSet<&str>> = BTreeMap::new();
    for ((room, game_no), rows) in &games {
        *per_room.entry(room).or_default() += rows.len() as i64;
        if rows.iter().enumerate().any(|(i, r)| r.seq != i as i64) {
            verdict.gaps += 1;
            let seqs: Vec<i64> = rows.iter().map(|r| r.seq).take(20).collect();
            verdict.example(format!("gap: room {room} game {game_no} seqs {seqs:?}"));
        }
        let mut newest = i64::MIN;
        for r in rows {
            match (&r.writer_node, r.writer_epoch) {
                (Some(node), Some(epoch)) => {
                    writers.entry((room, epoch)).or_default().insert(node);
                    if epoch < newest {
                        verdict.epoch_regressions += 1;
                        verdict.example(format!(
                            "epoch regression: room {room} game {game_no} seq {} written under epoch {epoch} after epoch {newest}",
                            r.seq
                        ));
                    }
                    newest = newest.max(epoch);
                }
                _ => {
                    verdict.unattributed_rows += 1;
                    verdict.example(format!(
                        "row without a writer: room {room} game {game_no} seq {}",
                        r.seq
                    ));
                }
            }
        }
    }
    for ((room, epoch), nodes) in &writers {
        if nodes.len() > 1 {
            verdict.epochs_by_two_nodes += 1;
            verdict.example(format!("room {room} epoch {epoch} written by {nodes:?}"));
        }
    }
    for (room, last) in last_seq {
        let held = per_room.get(room.as_str()).copied().unwrap_or(0);
        if last.unwrap_or(0) != held {
            verdict.last_seq_mismatches += 1;
            verdict.example(format!(
                "room {room}: last_seq {last:?} but the log holds {held} entries"
            ));
        }
    }

    // Every (room, seat, ack id) in the log, to find acks that are missing or there twice.
    let mut by_ack: HashMap<(&str, &str, u64), Vec<&LogRow>> = HashMap::new();
    for ((room, game_no), rows) in &games {
        if *game_no == 0 {
            continue;
        }
        for r in rows {
            if let (Some(seat), Some(ack)) = (r.payload["seat"].as_str(), r.payload["ack"].as_u64())
            {
                by_ack.entry((room, seat, ack)).or_default().push(r);
            }
        }
    }
    for ((room, seat, ack), rows) in &by_ack {
        if rows.len() > 1 {
            verdict.duplicated += rows.len() - 1;
            verdict.example(format!(
                "duplicated: room {room} seat {seat} ack {ack} written {} times",
                rows.len()
            ));
        }
    }
    for client in seen {
        for acked in &client.acks {
            verdict.acked += 1;
            let found = client
                .seat
                .as_deref()
                .and_then(|seat| by_ack.get(&(client.room.as_str(), seat, acked.ack)));
            let kept =
                found.is_some_and(|rows| rows.iter().any(|r| r.payload["action"] == acked.action));
            if !kept {
                verdict.lost += 1;
                verdict.example(format!(
                    "lost: room {} seat {:?} ack {} ({}) is not in the log",
                    client.room, client.seat, acked.ack, acked.action
                ));
            }
        }
        // Forks: every run of actions a client saw is the log at those positions.
        for segment in &client.segments {
            verdict.segments += 1;
            let log = games
                .get(&(client.room.clone(), segment.game_no as i32))
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            for (i, action) in segment.actions.iter().enumerate() {
                verdict.events_checked += 1;
                let at = segment.start as usize + i;
                let logged = log.get(at).map(|r| &r.payload["action"]);
                if logged != Some(action) {
                    verdict.forks += 1;
                    verdict.example(format!(
                        "fork: room {} game {} position {at}: a client saw {action}, the log holds {}",
                        client.room,
                        segment.game_no,
                        logged.map_or("nothing".to_owned(), Value::to_string)
                    ));
                    break;
                }
            }
        }
    }
    verdict
}

/// For each room a fault hit: milliseconds from the fault to the room's first log row written after
/// it (`None`: no row since). `rooms` are the rooms the faulted node owned at `fault_ms`.
pub fn failover_ms(rows: &[LogRow], fault_ms: i64, rooms: &[String]) -> Vec<(String, Option<i64>)> {
    rooms
        .iter()
        .map(|room| {
            let first = rows
                .iter()
                .filter(|r| &r.room == room && r.at > fault_ms)
                .map(|r| r.at - fault_ms)
                .min();
            (room.clone(), first)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn row(room: &str, game_no: i32, seq: i64, payload: Value, node: &str, epoch: i64) -> LogRow {
        LogRow {
            room: room.into(),
            game_no,
            seq,
            payload,
            at: 1000 + seq,
            writer_node: Some(node.into()),
            writer_epoch: Some(epoch),
        }
    }

    fn mv(to: &str) -> Value {
        json!({"type": "move", "from": "h2", "to": to})
    }

    fn act(seat: &str, to: &str, ack: Option<u64>) -> Value {
        let mut p = json!({"seat": seat, "by": "human", "action": mv(to), "at": 1});
        if let Some(ack) = ack {
            p["ack"] = json!(ack);
        }
        p
    }

    /// A room with its own log (2 entries) and a game of three actions, two of them red's acked ones;
    /// the owner changed from n1 (epoch 1) to n2 (epoch 2) after the first action.
    fn history() -> (Vec<LogRow>, BTreeMap<String, Option<i64>>, Vec<Seen>) {
        let rows = vec![
            row("r", 0, 0, json!({"t": "created"}), "n1", 1),
            row("r", 0, 1, json!({"t": "started"}), "n1", 1),
            row("r", 1, 0, act("red", "h3", Some(1)), "n1", 1),
            row("r", 1, 1, act("blue", "b3", Some(1)), "n2", 2),
            row("r", 1, 2, act("red", "h4", Some(2)), "n2", 2),
        ];
        let last = BTreeMap::from([("r".to_owned(), Some(5))]);
        let red = Seen {
            room: "r".into(),
            seat: Some("red".into()),
            acks: vec![
                Acked {
                    ack: 1,
                    action: mv("h3"),
                },
                Acked {
                    ack: 2,
                    action: mv("h4"),
                },
            ],
            segments: vec![
                Segment {
                    game_no: 1,
                    start: 0,
                    actions: vec![mv("h3")],
                },
                Segment {
                    game_no: 1,
                    start: 0,
                    actions: vec![mv("h3"), mv("b3"), mv("h4")],
                },
            ],
        };
        (rows, last, vec![red])
    }

    #[test]
    fn a_clean_history_passes() {
        let (rows, last, seen) = history();
        let v = check(&rows, &last, &seen);
        assert!(v.ok(), "{v:?}");
        assert_eq!((v.acked, v.segments, v.events_checked), (2, 2, 4));
    }

    #[test]
    fn an_acked_action_missing_from_the_log_is_lost() {
        let (mut rows, mut last, seen) = history();
        rows.pop();
        last.insert("r".into(), Some(4));
        let v = check(&rows, &last, &seen);
        assert_eq!(v.lost, 1, "{v:?}");
        // The client also saw it as an event: that event is now a fork.
        assert_eq!(v.forks, 1);
    }

    #[test]
    fn an_ack_for_another_action_is_lost() {
        let (rows, last, mut seen) = history();
        seen[0].acks[1].action = mv("h5");
        assert_eq!(check(&rows, &last, &seen).lost, 1);
    }

    #[test]
    fn a_resend_applied_twice_is_duplicated() {
        let (mut rows, mut last, seen) = history();
        rows.push(row("r", 1, 3, act("red", "h4", Some(2)), "n2", 2));
        last.insert("r".into(), Some(6));
        let v = check(&rows, &last, &seen);
        assert_eq!(v.duplicated, 1, "{v:?}");
        assert!(!v.ok());
    }

    #[test]
    fn holes_and_a_wrong_last_seq_are_gaps() {
        let (mut rows, last, seen) = history();
        rows.remove(3);
        let v = check(&rows, &last, &seen);
        assert_eq!((v.gaps, v.last_seq_mismatches), (1, 1), "{v:?}");
    }

    #[test]
    fn an_event_the_log_does_not_hold_is_a_fork() {
        let (rows, last, mut seen) = history();
        // A paused owner told the client about a move that never became durable.
        seen[0].segments.push(Segment {
            game_no: 1,
            start: 1,
            actions: vec![mv("b3"), mv("e4")],
        });
        let v = check(&rows, &last, &seen);
        assert_eq!(v.forks, 1, "{v:?}");
        // Past the end of the log is a fork too.
        seen[0].segments = vec![Segment {
            game_no: 2,
            start: 0,
            actions: vec![mv("h3")],
        }];
        assert_eq!(check(&rows, &last, &seen).forks, 1);
    }

    #[test]
    fn one_epoch_from_two_writers_or_an_older_epoch_later_fails() {
        let (mut rows, last, seen) = history();
        rows[4].writer_node = Some("n3".into());
        let v = check(&rows, &last, &seen);
        assert_eq!(v.epochs_by_two_nodes, 1, "{v:?}");
        let (mut rows, last, seen) = history();
        rows[4].writer_epoch = Some(1);
        rows[4].writer_node = Some("n1".into());
        let v = check(&rows, &last, &seen);
        assert_eq!(v.epoch_regressions, 1, "{v:?}");
        let (mut rows, last, seen) = history();
        rows[2].writer_node = None;
        assert_eq!(check(&rows, &last, &seen).unattributed_rows, 1);
    }

    #[test]
    fn failover_is_the_first_row_after_the_fault() {
        let (rows, _, _) = history();
        // Rows are at 1000 + seq.
        let f = failover_ms(&rows, 1000, &["r".into(), "other".into()]);
        assert_eq!(f, vec![("r".into(), Some(1)), ("other".into(), None)]);
    }
}
