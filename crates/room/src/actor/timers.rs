//! Time in the room: the turn deadline (out of time, the CPU finishes the turn), a disconnected
//! human's grace period (then the CPU plays for the seat), the retry after a failed append, and the
//! idle close. The run loop sleeps until [`Room::next_wake`].

use std::time::{SystemTime, UNIX_EPOCH};

use tokio::time::Instant;

use protocol::{ControlReason, Event, Seat};

use super::Room;
use crate::seats::SeatState;

impl Room {
    /// Recompute whose turn it is; a new turn gets a fresh deadline and its own human in charge.
    pub(super) fn refresh_turn(&mut self) {
        let limit = self.settings.turn_time.seconds();
        let second = self.config.turn_second;
        let Some(running) = self.game.as_mut() else {
            return;
        };
        let turn = running.game.turn_id();
        if turn != running.turn {
            running.turn = turn;
            running.timed_out = false;
            running.deadline = match (turn, limit) {
                (Some(_), Some(secs)) => {
                    let at = Instant::now() + second * secs as u32;
                    Some((at, unix_ms(at)))
                }
                _ => None,
            };
        }
    }

    /// How long the room may stay without a connection: a lobby (no game started) less long.
    fn idle_limit(&self) -> std::time::Duration {
        match self.game {
            None => self.config.lobby_idle.min(self.config.idle_close),
            Some(_) => self.config.idle_close,
        }
    }

    pub(super) fn idle_expired(&self) -> bool {
        self.empty_since
            .is_some_and(|since| since + self.idle_limit() <= Instant::now())
    }

    pub(super) fn next_wake(&self) -> Option<Instant> {
        let mut wake: Option<Instant> = None;
        let mut consider = |t: Instant| wake = Some(wake.map_or(t, |w| w.min(t)));
        if let Some(since) = self.empty_since {
            consider(since + self.idle_limit());
        }
        if let Some(g) = &self.game {
            if !g.over && !g.timed_out {
                if let Some((at, _)) = g.deadline {
                    consider(at);
                }
            }
        }
        if let Some(at) = self.retry_at {
            consider(at);
        }
        for seat in &self.seats {
            if let SeatState::Human(h) = seat {
                if let (Some(since), false) = (h.away_since, h.cpu_playing) {
                    consider(since + self.config.grace);
                }
                if let (Some(since), true, 0) = (h.away_since, h.shown_connected, h.conns) {
                    consider(since + self.config.connection_settle);
                }
            }
        }
        wake
    }

    pub(super) async fn on_timer(&mut self) {
        let now = Instant::now();
        if let Some(g) = self.game.as_mut() {
            if !g.over && !g.timed_out && g.deadline.is_some_and(|(at, _)| at <= now) {
                // Out of time: the CPU plays the rest of this turn for the seat.
                g.timed_out = true;
            }
        }
        self.announce_drops(now);
        let grace = self.config.grace;
        for seat in Seat::ALL {
            let Some(h) = self.seats[seat.index()].human_mut() else {
                continue;
            };
            if !h.cpu_playing && h.away_since.is_some_and(|since| since + grace <= now) {
                h.cpu_playing = true;
                self.emit(Event::Control {
                    seat,
                    cpu: true,
                    reason: ControlReason::Away,
                });
            }
        }
        self.drive().await;
    }
}

/// The wall-clock time (unix milliseconds, for the wire) of a monotonic instant.
fn unix_ms(at: Instant) -> u64 {
    let from_now = at.saturating_duration_since(Instant::now());
    (SystemTime::now() + from_now)
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

pub(super) async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
