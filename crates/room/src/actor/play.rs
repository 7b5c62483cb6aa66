//! Game flow: what happens when a human or the CPU acts, and what the room does next on its own
//! (dice throws, handing the turn to the CPU).
//!
//! The log-before-ack rule lives in [`Room::play_with`]: an action is applied to a copy of the game,
//! appended to the log and awaited; only once the log kept it does the copy become the game, the
//! actor acknowledge it and the event go out. A refused append leaves the room as its log says.

use serde_json::Value;
use tokio::time::Instant;

use protocol::{Actor, ErrorCode, ErrorMsg, Event, Seat, ServerMsg};

use super::fanout::frame;
use super::persist::GameEntry;
use super::{BotPlan, Played, Room, now_ms, unavailable};
use crate::bot::{greedy_plan, level_of};
use crate::bot_pool::{BOT_OVERLOAD, Job, Table, Thought};
use crate::dice::DiceStream;
use crate::game::{TableAction, TableGame};
use crate::handle::{Cmd, RoomError};
use crate::log::{EntryKind, LogEntry};
use crate::seats::SeatState;

impl Room {
    pub(super) async fn human_act(&mut self, conn: u64, ack: u64, action: Option<Value>) {
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
            .iter_mut()
            .find(|s| s.conn == conn)
            .ok_or_else(|| RoomError::new(ErrorCode::NotJoined, "join a room first"))?;
        let seat = sub.seat.ok_or_else(|| {
            RoomError::new(
                ErrorCode::Spectator,
                "spectators cannot act: join with a seat token",
            )
        })?;
        if matches!(&self.seats[seat.index()], SeatState::Human(h) if h.handed_over) {
            return Err(RoomError::new(
                ErrorCode::HandedOver,
                "the host handed this seat to the CPU for the rest of the game",
            ));
        }
        let stale = sub.highest_ack.is_some_and(|highest| ack <= highest);
        if !stale {
            sub.highest_ack = Some(ack);
        }
        if let Some(v) = self.seats[seat.index()]
            .human_mut()
            .and_then(|h| h.acked(ack))
        {
            // Already applied: acknowledge again, never apply twice.
            self.send_to(conn, frame(&ServerMsg::Ack { ack, v }));
            return Ok(());
        }
        if stale {
            // At or below this connection's highest id and no longer remembered: it may have been
            // applied, so it never is (again).
            return Err(RoomError::new(
                ErrorCode::StaleAck,
                "ack ids must increase on a connection: this one is not above the highest sent",
            ));
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

    /// The pool did not answer a decision by its deadline: the room plays the greedy move itself
    /// (microseconds), so the table goes on; the late search's answer, if it comes, is dropped.
    pub(super) async fn bot_late(&mut self, v: u64, seat: Seat) {
        let actions = if self.cpu_move_is_current(v, seat)
            && let Some(running) = self.game.as_ref()
        {
            metrics::counter!(BOT_OVERLOAD, "reason" => "late").increment(1);
            tracing::warn!(room = %self.id, %seat, "the CPU's search did not answer in time; playing greedily");
            greedy_plan(&running.game, seat, rand::random()).actions
        } else {
            Vec::new()
        };
        self.bot_move(v, seat, actions).await;
    }

    /// Whether a CPU move computed for state `v` still applies: a move computed for an older state
    /// is stale (something happened since).
    fn cpu_move_is_current(&self, v: u64, seat: Seat) -> bool {
        self.game
            .as_ref()
            .is_some_and(|r| v == self.v && !r.over && r.game.to_act() == Some(seat))
    }

    /// A CPU decision (or the next step of a decided turn) arrives for the state at version `v`.
    pub(super) async fn bot_move(&mut self, v: u64, seat: Seat, actions: Vec<TableAction>) {
        let Some(running) = self.game.as_mut() else {
            return;
        };
        if running.bot_pending == Some(v) {
            running.bot_pending = None;
        }
        if !self.cpu_move_is_current(v, seat) {
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
        let played = Played {
            seat,
            by,
            action: action.clone(),
        };
        let applied = next.apply(action).map_err(|(code, message)| {
            RoomError::new(ErrorCode::IllegalAction, format!("{code}: {message}"))
        })?;
        let at = now_ms();
        let entry = LogEntry {
            room: self.id.to_string(),
            game_no: self.game_no,
            seq: running.played.len() as u64,
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
        running.played.push(played);
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
    pub(super) async fn drive(&mut self) {
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
        let table = if self.cpu_only() {
            Table::CpuOnly
        } else {
            Table::WithHumans
        };
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
        // The pool answers within `max_wait` plus the level's cap when its thread gets the CPU; in
        // the idle class on a saturated machine it may not, and the room does not wait for it.
        let bots = self.bot.config();
        let deadline = started + bots.max_wait + bots.max_time(level).mul_f64(LATE_DECISION_FACTOR);
        let decision = match planned {
            Some(actions) => Decision::Planned(actions),
            None => Decision::Thinking(self.bot.submit(Job {
                game: running.game.clone(),
                seat,
                level,
                seed: rand::random(),
                table,
            })),
        };
        tokio::spawn(async move {
            let actions = match decision {
                Decision::Planned(actions) => actions,
                // Every queued decision is answered (release builds abort on a panic), so an
                // empty answer is only a safety net: the room logs it.
                Decision::Thinking(rx) => match tokio::time::timeout_at(deadline, rx).await {
                    Ok(answer) => answer.map(|t: Thought| t.plan.actions).unwrap_or_default(),
                    Err(_) => {
                        if let Some(me) = me.upgrade() {
                            let _ = me.send(Box::new(Cmd::BotLate { v, seat })).await;
                        }
                        return;
                    }
                },
            };
            tokio::time::sleep_until(started + delay).await;
            if let Some(me) = me.upgrade() {
                let _ = me.send(Box::new(Cmd::BotMove { v, seat, actions })).await;
            }
        });
    }
}

/// A decision not answered by `max_wait` + this × the level's cap is played greedily by the room
/// (the pool measures a decision over 110% of its cap as over budget).
const LATE_DECISION_FACTOR: f64 = 1.1;

/// Where a CPU move comes from.
enum Decision {
    Planned(Vec<TableAction>),
    Thinking(tokio::sync::oneshot::Receiver<Thought>),
}
