//! What a joiner and the host may ask of the room: take a seat, change the house rules, seat a CPU
//! player, start a game, and (in `moderation`) the orders about people. The host token is checked in
//! one place, [`Room::host`], for every order.
//! Each change is made durable in the room's log before the room changes, answers or tells anyone.

use protocol::{ChangeSettings, ErrorCode, Event, Joined, Phase, RoomInfo, Seat};

use super::persist::RoomRecord;
use super::{Room, Running, now_ms};
use crate::dice::DiceStream;
use crate::game::{TableGame, TableOptions};
use crate::handle::{HostOrder, RoomError};
use crate::seats::{Human, SeatState};
use secrets::{hash_secret, new_token};

impl Room {
    /// A host's order: the one place that checks the host token.
    pub(super) async fn host(
        &mut self,
        token: &str,
        order: HostOrder,
    ) -> Result<RoomInfo, RoomError> {
        // Tokens are 128 random bits: comparing their hashes whole is exact and leaks nothing useful.
        if hash_secret(token) != self.host_hash {
            return Err(RoomError::new(
                ErrorCode::BadToken,
                "not this room's host token",
            ));
        }
        match order {
            HostOrder::Settings(change) => self.change_settings(change).await,
            HostOrder::SeatCpu { seat, level } => self.seat_cpu(seat, level).await,
            HostOrder::Start { rematch } => self.start(rematch).await,
            HostOrder::Unseat { seat } => self.unseat(seat).await,
            HostOrder::Lock(locked) => self.lock(locked).await,
            HostOrder::Handover { seat } => self.handover(seat).await,
            HostOrder::Mute { seat, muted } => self.mute(seat, muted).await,
            HostOrder::Hide { id } => self.hide(id),
        }
    }

    pub(super) async fn join(
        &mut self,
        name: String,
        player_id: Option<String>,
    ) -> Result<Joined, RoomError> {
        let name = protocol::name::display_name(&name)
            .map_err(|why| RoomError::new(ErrorCode::BadMessage, why.to_string()))?;
        if self.locked {
            return Err(RoomError::new(
                ErrorCode::RoomLocked,
                "the host locked this room: no more joins",
            ));
        }
        // One identity, one seat in a rated room: a player holding several seats could hand
        // themselves the results (resigning the others).
        if self.settings.rated
            && let Some(id) = &player_id
            && self
                .seats
                .iter()
                .any(|s| matches!(s, SeatState::Human(h) if h.player_id.as_ref() == Some(id)))
        {
            return Err(RoomError::new(
                ErrorCode::AlreadySeated,
                "this player already holds a seat in this rated room (one player, one seat)",
            ));
        }
        let Some(seat) = Seat::ALL
            .into_iter()
            .find(|s| matches!(self.seats[s.index()], SeatState::Empty))
        else {
            return Err(RoomError::new(
                ErrorCode::RoomFull,
                "all four seats are taken",
            ));
        };
        let token = new_token();
        let token_hash = hash_secret(&token);
        self.append_room(RoomRecord::Joined {
            seat,
            name: name.clone(),
            token_hash: token_hash.clone(),
            player_id: player_id.clone(),
        })
        .await?;
        self.seats[seat.index()] =
            SeatState::Human(Human::new(name.clone(), token_hash, player_id));
        self.emit(Event::SeatTaken { seat, name });
        Ok(Joined {
            seat,
            seat_token: token,
        })
    }

    async fn change_settings(&mut self, change: ChangeSettings) -> Result<RoomInfo, RoomError> {
        if self.phase() == Phase::Playing {
            return Err(RoomError::new(
                ErrorCode::GameRunning,
                "house rules change only while no game is running",
            ));
        }
        let mut next = self.settings.clone();
        if let Some(options) = change.options {
            next.options =
                TableOptions::normalize(next.game(), &options).map_err(|details| RoomError {
                    code: ErrorCode::BadOptions,
                    message: format!("{} problem(s) with the house rules", details.len()),
                    details,
                })?;
        }
        if let Some(t) = change.turn_time {
            next.turn_time = t;
        }
        if let Some(r) = change.rated {
            next.rated = r;
        }
        if let Some(p) = change.public {
            next.public = p;
        }
        if let Some(c) = change.spectator_chat {
            next.spectator_chat = c;
        }
        self.append_room(RoomRecord::settings(&next)).await?;
        self.settings = next;
        self.emit(Event::SettingsChanged {
            options: self.settings.options.to_json(),
            turn_time: self.settings.turn_time,
            rated: self.settings.rated,
            public: self.settings.public,
            spectator_chat: self.settings.spectator_chat,
        });
        Ok(self.info())
    }

    async fn seat_cpu(&mut self, seat: Seat, level: u8) -> Result<RoomInfo, RoomError> {
        if !matches!(self.seats[seat.index()], SeatState::Empty) {
            return Err(RoomError::new(
                ErrorCode::SeatTaken,
                format!("{seat} is not free"),
            ));
        }
        if !(1..=crate::bot::MAX_LEVEL).contains(&level) {
            return Err(RoomError::new(
                ErrorCode::BadMessage,
                format!("CPU level must be 1..={}", crate::bot::MAX_LEVEL),
            ));
        }
        self.append_room(RoomRecord::Cpu { seat, level }).await?;
        self.seats[seat.index()] = SeatState::Cpu { level };
        self.emit(Event::CpuSeated { seat, level });
        self.drive().await;
        Ok(self.info())
    }

    async fn start(&mut self, rematch: bool) -> Result<RoomInfo, RoomError> {
        let first = match (&self.game, rematch) {
            (Some(g), _) if !g.over => {
                return Err(RoomError::new(ErrorCode::GameRunning, "a game is running"));
            }
            (Some(g), true) => g.game.next_first_seat(g.first),
            (None, false) => Seat::Red,
            (None, true) => {
                return Err(RoomError::new(
                    ErrorCode::NoGame,
                    "no game to rematch yet: start one",
                ));
            }
            (Some(_), false) => {
                return Err(RoomError::new(
                    ErrorCode::GameOver,
                    "this room already played: ask for a rematch",
                ));
            }
        };
        let game = TableGame::new(&self.settings.options, first).map_err(|details| RoomError {
            code: ErrorCode::BadOptions,
            message: "the house rules do not validate".into(),
            details,
        })?;
        let dice = game.dice_faces().map(|_| DiceStream::from_os());
        // The seed goes into the server's log (never to clients before the end), so that a rebuilt
        // room continues the same dice stream.
        let started_at = now_ms();
        self.append_room(RoomRecord::Started {
            game_no: self.game_no + 1,
            first,
            seed: dice.as_ref().map(DiceStream::reveal),
            at: started_at,
        })
        .await?;
        self.begin_game(game, first, dice, started_at, true);
        self.refresh_turn();
        let running = self.game.as_ref().expect("just set");
        self.emit(Event::GameStarted {
            game_no: self.game_no,
            game: self.settings.game(),
            first,
            options: self.settings.options.to_json(),
            dice_commit: running.dice.as_ref().map(DiceStream::commit),
        });
        self.drive().await;
        Ok(self.info())
    }

    /// Sets up the next game (shared by `start` and the rebuild): empty seats get CPU players.
    pub(super) fn begin_game(
        &mut self,
        game: TableGame,
        first: Seat,
        dice: Option<DiceStream>,
        started_at: u64,
        announce: bool,
    ) {
        // Every empty seat gets a CPU player (medium unless configured otherwise).
        let level = self.bot.config().fill_level;
        for seat in Seat::ALL {
            // A seat handed to the CPU was handed for one game: the next is the human's again.
            if let Some(h) = self.seats[seat.index()].human_mut()
                && std::mem::take(&mut h.handed_over)
                && h.conns > 0
            {
                h.cpu_playing = false;
                if announce {
                    self.emit(Event::Control {
                        seat,
                        cpu: false,
                        reason: protocol::ControlReason::Returned,
                    });
                }
            }
            if matches!(self.seats[seat.index()], SeatState::Empty) {
                self.seats[seat.index()] = SeatState::Cpu { level };
                if announce {
                    self.emit(Event::CpuSeated { seat, level });
                }
            }
        }
        self.game_no += 1;
        self.game = Some(Running {
            game,
            first,
            dice,
            played: Vec::new(),
            cpu_finished: [false; 4],
            started_at,
            turn: None,
            deadline: None,
            timed_out: false,
            bot_pending: None,
            plan: None,
            over: false,
        });
    }
}
