//! Who hears what: connections come (welcome with a snapshot or the missed events) and go (a seat's
//! last connection starts its grace period), every change goes out as one numbered event serialized
//! once, and the seat to act gets its view. Outboxes are bounded: a full one drops its connection.

use std::sync::Arc;

use tokio::time::Instant;

use protocol::{
    ControlReason, ErrorCode, Event, EventMsg, GameSnapshot, Phase, RoomInfo, Seat, ServerMsg,
    Snapshot,
};

use super::{Room, Sub};
use crate::QUICK_RECONNECTS;
use crate::dice::DiceStream;
use crate::handle::{Connected, Reply, RoomError};
use crate::outbox::OutboxSender;
use crate::seats::SeatState;
use secrets::hash_secret;

/// A message serialized once, to be shared by every outbox it goes to.
pub(super) fn frame(msg: &ServerMsg) -> Arc<str> {
    Arc::from(serde_json::to_string(msg).expect("protocol types always serialize"))
}

impl Room {
    pub(super) fn phase(&self) -> Phase {
        match &self.game {
            None => Phase::Lobby,
            Some(g) if g.over => Phase::Finished,
            Some(_) => Phase::Playing,
        }
    }

    pub(super) fn info(&self) -> RoomInfo {
        RoomInfo {
            id: self.id.to_string(),
            game: self.settings.game(),
            options: self.settings.options.to_json(),
            turn_time: self.settings.turn_time,
            rated: self.settings.rated,
            public: self.settings.public,
            spectator_chat: self.settings.spectator_chat,
            locked: self.locked,
            phase: self.phase(),
            game_no: self.game_no,
            seats: std::array::from_fn(|i| self.seats[i].occupant(self.is_muted(Seat::ALL[i]))),
            v: self.v,
        }
    }

    pub(super) async fn connect(
        &mut self,
        token: Option<String>,
        last_v: Option<u64>,
        outbox: OutboxSender,
        reply: Reply<Connected>,
    ) {
        let seat = match &token {
            None => None,
            Some(token) => {
                let hash = hash_secret(token);
                let found = Seat::ALL.into_iter().find(
                    |s| matches!(&self.seats[s.index()], SeatState::Human(h) if h.token_hash == hash),
                );
                match found {
                    Some(seat) => Some(seat),
                    None if self.removed.contains(&hash) => {
                        let _ = reply.send(Err(RoomError::new(
                            ErrorCode::Unseated,
                            "the host removed this seat's player: the token no longer holds a seat",
                        )));
                        return;
                    }
                    None => {
                        let _ = reply.send(Err(RoomError::new(
                            ErrorCode::BadToken,
                            "no seat in this room has that token",
                        )));
                        return;
                    }
                }
            }
        };
        // Tell everyone else first, so the welcome below already counts these events.
        if let Some(seat) = seat {
            let human = self.seats[seat.index()].human_mut().expect("found above");
            if !human.admit_connect(self.config.reconnects_per_minute, Instant::now()) {
                let _ = reply.send(Err(RoomError::new(
                    ErrorCode::RateLimited,
                    "this seat reconnects too often: wait a little before joining again",
                )));
                return;
            }
            if human.conns == 0 && human.shown_connected {
                // Back before the drop was announced: neither is.
                metrics::counter!(QUICK_RECONNECTS).increment(1);
            }
            human.conns += 1;
            human.away_since = None;
            let announce = !std::mem::replace(&mut human.shown_connected, true);
            // A seat the host handed to the CPU stays the CPU's until the game ends.
            let was_cpu = !human.handed_over && std::mem::replace(&mut human.cpu_playing, false);
            if announce {
                self.emit(Event::Connection {
                    seat,
                    connected: true,
                });
            }
            if was_cpu {
                self.emit(Event::Control {
                    seat,
                    cpu: false,
                    reason: ControlReason::Returned,
                });
            }
        }
        let conn = self.next_conn;
        self.next_conn += 1;
        let missed = last_v
            .filter(|&since| since > self.resume_floor)
            .and_then(|since| self.history.since(since, self.v));
        let welcome = ServerMsg::Welcome {
            room: self.id.to_string(),
            seat,
            v: self.v,
            snapshot: match missed {
                Some(_) => None,
                None => Some(Box::new(self.snapshot(seat))),
            },
        };
        let resumed = missed.is_some();
        // A fresh outbox holds at least the welcome; if the missed events overflow it, the client
        // simply gets dropped and resyncs with a snapshot next time.
        let mut ok = outbox.try_send(frame(&welcome)).is_ok();
        for f in missed.into_iter().flatten() {
            ok = ok && outbox.try_send(f).is_ok();
        }
        // Chat is not in the event history: a resuming client gets the recent lines again, as many
        // as fit (lines that do not are only talk; dropping the connection for them would loop).
        if resumed && ok {
            for line in self.chat.readable(seat.is_none()) {
                if outbox.try_send(frame(&ServerMsg::Chat(line))).is_err() {
                    break;
                }
            }
        }
        self.subs.push(Sub {
            conn,
            seat,
            tx: outbox,
            highest_ack: None,
            chat_rate: Default::default(),
        });
        self.empty_since = None;
        let _ = reply.send(Ok(Connected { conn, seat }));
        if !ok {
            self.drop_conns(vec![conn]);
        }
        if let Some(seat) = seat {
            self.send_view_to(seat, Some(conn));
        }
        self.drive().await;
    }

    pub(super) fn disconnect(&mut self, conn: u64) {
        self.drop_conns(vec![conn]);
    }

    /// Forget connections (closed, or too slow); a seat whose last connection went starts its grace
    /// period. Dropping a connection may emit events, which may drop more slow connections.
    fn drop_conns(&mut self, mut conns: Vec<u64>) {
        while let Some(conn) = conns.pop() {
            let Some(i) = self.subs.iter().position(|s| s.conn == conn) else {
                continue;
            };
            let sub = self.subs.swap_remove(i);
            if self.subs.is_empty() {
                self.empty_since = Some(Instant::now());
            }
            let Some(seat) = sub.seat else { continue };
            let Some(human) = self.seats[seat.index()].human_mut() else {
                continue;
            };
            human.conns = human.conns.saturating_sub(1);
            if human.conns == 0 {
                // Announced by the timer once the drop has lasted `connection_settle`.
                human.away_since = Some(Instant::now());
            }
        }
    }

    /// Announce the seats whose drop has lasted `connection_settle` (or whose grace is over, so
    /// that the drop is told before the CPU takes the seat over).
    pub(super) fn announce_drops(&mut self, now: Instant) {
        let settle = self.config.connection_settle.min(self.config.grace);
        for seat in Seat::ALL {
            let Some(h) = self.seats[seat.index()].human_mut() else {
                continue;
            };
            if h.conns == 0
                && h.shown_connected
                && h.away_since.is_some_and(|at| at + settle <= now)
            {
                h.shown_connected = false;
                self.emit(Event::Connection {
                    seat,
                    connected: false,
                });
            }
        }
    }

    /// Number, serialize (once), remember and broadcast an event; returns its version.
    pub(super) fn emit(&mut self, event: Event) -> u64 {
        let dropped = self.emit_collect(event);
        self.drop_conns(dropped);
        self.v
    }

    /// As [`Room::emit`], returning the connections found too slow instead of dropping them.
    fn emit_collect(&mut self, event: Event) -> Vec<u64> {
        self.v += 1;
        let (to_act, deadline) = match &self.game {
            Some(g) if !g.over => (g.game.to_act(), g.deadline.map(|(_, ms)| ms)),
            _ => (None, None),
        };
        let msg = ServerMsg::Event(EventMsg {
            v: self.v,
            to_act,
            deadline,
            event,
        });
        let f = frame(&msg);
        self.history.push(self.v, f.clone());
        let mut slow = Vec::new();
        for sub in &self.subs {
            if sub.tx.try_send(f.clone()).is_err() {
                slow.push(sub.conn);
            }
        }
        let v = self.v;
        // The seat to act sees its legal actions right after the event that gave it the turn.
        if let Some(seat) = to_act {
            if self.seats[seat.index()]
                .human_mut()
                .is_some_and(|h| h.conns > 0)
            {
                slow.extend(self.view_frames_to(seat, v, None));
            }
        }
        slow
    }

    /// Send the seat's view to its connections (or only to `only`); returns the ones that overflowed.
    fn view_frames_to(&self, seat: Seat, v: u64, only: Option<u64>) -> Vec<u64> {
        let Some(g) = self.game.as_ref().filter(|g| !g.over) else {
            return Vec::new();
        };
        if g.game.to_act() != Some(seat) || g.game.wants_roll().is_some() {
            return Vec::new();
        }
        let legal = g.game.show_legal_moves().then(|| g.game.legal_actions());
        let f: Arc<str> = Arc::from(protocol::view_frame(v, seat, legal.as_deref()));
        self.subs
            .iter()
            .filter(|s| s.seat == Some(seat) && only.is_none_or(|c| c == s.conn))
            .filter(|s| s.tx.try_send(f.clone()).is_err())
            .map(|s| s.conn)
            .collect()
    }

    fn send_view_to(&mut self, seat: Seat, only: Option<u64>) {
        let slow = self.view_frames_to(seat, self.v, only);
        self.drop_conns(slow);
    }

    /// Send one frame to the connections `to` accepts (no event number: chat and its hiding).
    pub(super) fn send_where(&mut self, f: Arc<str>, to: impl Fn(&Sub) -> bool) {
        let slow: Vec<u64> = self
            .subs
            .iter()
            .filter(|s| to(s))
            .filter(|s| s.tx.try_send(f.clone()).is_err())
            .map(|s| s.conn)
            .collect();
        self.drop_conns(slow);
    }

    pub(super) fn send_to(&mut self, conn: u64, f: Arc<str>) {
        let slow = self
            .subs
            .iter()
            .find(|s| s.conn == conn)
            .is_some_and(|s| s.tx.try_send(f).is_err());
        if slow {
            self.drop_conns(vec![conn]);
        }
    }

    /// The current (or just finished) game's log, for `GET /rooms/{id}/positions`.
    pub(super) fn game_log(&self) -> Option<crate::replay::GameLog> {
        self.game.as_ref().map(|g| crate::replay::GameLog {
            game_no: self.game_no,
            kind: g.game.kind(),
            options: g.game.options_json(),
            first: g.first,
            actions: g
                .played
                .iter()
                .enumerate()
                .map(|(i, p)| p.recorded(i))
                .collect(),
        })
    }

    fn snapshot(&self, seat: Option<Seat>) -> Snapshot {
        Snapshot {
            chat: self.chat.readable(seat.is_none()),
            room: self.info(),
            game: self.game.as_ref().map(|g| GameSnapshot {
                game_no: self.game_no,
                first: g.first,
                options: g.game.options_json(),
                actions: g.played.iter().map(|p| p.action.to_json()).collect(),
                state: g.game.public_state(),
                to_act: if g.over { None } else { g.game.to_act() },
                deadline: if g.over {
                    None
                } else {
                    g.deadline.map(|(_, ms)| ms)
                },
                dice_commit: g.dice.as_ref().map(DiceStream::commit),
                outcome: g.game.outcome_json(),
                dice_seed: if g.over {
                    g.dice.as_ref().map(DiceStream::reveal)
                } else {
                    None
                },
            }),
        }
    }
}
