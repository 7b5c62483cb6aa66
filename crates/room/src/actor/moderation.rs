//! The host's orders about people, behind the token check of [`Room::host`]: free a seat before a
//! game (a lobby can be squatted), lock the room, hand an absent player's seat to the CPU for the
//! rest of a game (they keep their place in the standings), mute a seat's chat, hide a line.
//!
//! Seat changes (unseat, lock, handover, mute) go through the room's log like every other seat
//! change, so a restarted room has them; hiding a line does not (chat itself is never logged).

use protocol::{ChatChannel, ControlReason, ErrorCode, Event, Phase, RoomInfo, Seat, ServerMsg};

use super::Room;
use super::fanout::frame;
use super::persist::RoomRecord;
use crate::handle::RoomError;
use crate::seats::SeatState;

/// Removed players' token hashes kept (to tell them why); older ones just become unknown tokens.
const REMOVED_KEPT: usize = 64;

impl Room {
    /// Whether the seat's chat is muted now.
    pub(super) fn is_muted(&self, seat: Seat) -> bool {
        self.muted[seat.index()].is_some_and(|until| {
            let over = self.game.as_ref().is_some_and(|g| g.over);
            self.game_no < until || (self.game_no == until && !over)
        })
    }

    /// Frees the seat: a human's token is remembered as removed, their connections watch on.
    pub(super) fn free_seat(&mut self, seat: Seat) {
        let old = std::mem::replace(&mut self.seats[seat.index()], SeatState::Empty);
        if let SeatState::Human(h) = old {
            self.removed.push(h.token_hash);
            if self.removed.len() > REMOVED_KEPT {
                self.removed.remove(0);
            }
        }
        self.muted[seat.index()] = None;
        for sub in self.subs.iter_mut().filter(|s| s.seat == Some(seat)) {
            sub.seat = None;
        }
    }

    pub(super) async fn unseat(&mut self, seat: Seat) -> Result<RoomInfo, RoomError> {
        if self.phase() == Phase::Playing {
            return Err(RoomError::new(
                ErrorCode::GameRunning,
                "a seat is freed only before a game: hand an absent player's seat to the CPU instead",
            ));
        }
        if matches!(self.seats[seat.index()], SeatState::Empty) {
            return Err(RoomError::new(
                ErrorCode::SeatEmpty,
                format!("{seat} is empty"),
            ));
        }
        self.append_room(RoomRecord::Unseated { seat }).await?;
        // The event first, while the removed player's connections still count as the seat's: they
        // read it as "you were removed", everyone else as "the seat is free".
        self.emit(Event::Unseated { seat });
        self.free_seat(seat);
        Ok(self.info())
    }

    pub(super) async fn lock(&mut self, locked: bool) -> Result<RoomInfo, RoomError> {
        if self.locked != locked {
            self.append_room(RoomRecord::Locked { locked }).await?;
            self.locked = locked;
            self.emit(Event::Locked { locked });
        }
        Ok(self.info())
    }

    pub(super) async fn handover(&mut self, seat: Seat) -> Result<RoomInfo, RoomError> {
        match &self.game {
            None => return Err(RoomError::new(ErrorCode::NoGame, "no game is running")),
            Some(g) if g.over => {
                return Err(RoomError::new(ErrorCode::GameOver, "the game is over"));
            }
            Some(_) => {}
        }
        let human = match &self.seats[seat.index()] {
            SeatState::Human(h) => h,
            SeatState::Empty => {
                return Err(RoomError::new(
                    ErrorCode::SeatEmpty,
                    format!("{seat} is empty"),
                ));
            }
            SeatState::Cpu { .. } => {
                return Err(RoomError::new(
                    ErrorCode::BadMessage,
                    format!("the CPU already plays {seat}"),
                ));
            }
        };
        if human.handed_over {
            return Ok(self.info());
        }
        if human.conns > 0 {
            return Err(RoomError::new(
                ErrorCode::PlayerPresent,
                format!(
                    "{seat}'s player is connected: only an absent player's seat is handed over"
                ),
            ));
        }
        let game_no = self.game_no;
        self.append_room(RoomRecord::Handover { seat, game_no })
            .await?;
        let h = self.seats[seat.index()]
            .human_mut()
            .expect("a human, above");
        h.handed_over = true;
        h.cpu_playing = true;
        self.emit(Event::Control {
            seat,
            cpu: true,
            reason: ControlReason::Host,
        });
        self.drive().await;
        Ok(self.info())
    }

    pub(super) async fn mute(&mut self, seat: Seat, muted: bool) -> Result<RoomInfo, RoomError> {
        if !matches!(self.seats[seat.index()], SeatState::Human(_)) {
            return Err(RoomError::new(
                ErrorCode::SeatEmpty,
                format!("no person holds {seat}"),
            ));
        }
        if self.is_muted(seat) == muted {
            return Ok(self.info());
        }
        // Until the end of the game being played, or between games until the end of the next one.
        let until_game = muted.then(|| match self.phase() {
            Phase::Playing => self.game_no,
            Phase::Lobby | Phase::Finished => self.game_no + 1,
        });
        self.append_room(RoomRecord::Muted { seat, until_game })
            .await?;
        self.muted[seat.index()] = until_game;
        self.emit(Event::Muted { seat, muted });
        Ok(self.info())
    }

    pub(super) fn hide(&mut self, id: u64) -> Result<RoomInfo, RoomError> {
        let channel = self.chat.hide(id).ok_or_else(|| {
            RoomError::new(ErrorCode::NotFound, format!("no recent chat line {id}"))
        })?;
        if self.config.chat.keep {
            tracing::info!(target: "fourkings::chat", room = %self.id, id, "chat line hidden by the host");
        }
        let f = frame(&ServerMsg::ChatHidden { id });
        self.send_where(f, |s| channel == ChatChannel::Players || s.seat.is_none());
        Ok(self.info())
    }
}
