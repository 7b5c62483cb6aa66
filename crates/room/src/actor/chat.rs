//! Chat messages: who may write where, the limits (rate per connection, length and characters of
//! free text, known phrase ids, a muted seat), and who reads a line. A seat writes in the players'
//! channel, which everyone reads; a spectator writes, when the room allows it, in the spectators'
//! channel, which only spectators read. Refusals go back to the writer as `error` frames; nothing
//! is logged (chat is not part of the game, and never in its record).

use protocol::chat::{TextProblem, clean_text};
use protocol::{ChatChannel, ChatLine, ErrorCode, ErrorMsg, Phrase, ServerMsg};
use tokio::time::Instant;

use super::fanout::frame;
use super::{Room, now_ms};
use crate::handle::RoomError;
use crate::seats::SeatState;

impl Room {
    pub(super) fn chat(&mut self, conn: u64, text: Option<String>, phrase: Option<String>) {
        if let Err(e) = self.try_chat(conn, text, phrase) {
            self.send_to(
                conn,
                frame(&ServerMsg::Error(ErrorMsg {
                    code: e.code,
                    message: e.message,
                    ack: None,
                    details: e.details,
                })),
            );
        }
    }

    fn try_chat(
        &mut self,
        conn: u64,
        text: Option<String>,
        phrase: Option<String>,
    ) -> Result<(), RoomError> {
        let limits = self.config.chat.clone();
        let sub = self
            .subs
            .iter_mut()
            .find(|s| s.conn == conn)
            .ok_or_else(|| RoomError::new(ErrorCode::NotJoined, "join a room first"))?;
        // Every message counts, refused ones too: a flood of bad messages is a flood all the same.
        if !sub
            .chat_rate
            .admit(limits.rate_messages, limits.rate_period, Instant::now())
        {
            return Err(RoomError::new(
                ErrorCode::ChatTooFast,
                format!(
                    "at most {} chat messages per {} s: this one was dropped",
                    limits.rate_messages,
                    limits.rate_period.as_secs()
                ),
            ));
        }
        let seat = sub.seat;
        let channel = match seat {
            Some(_) => ChatChannel::Players,
            None if self.settings.spectator_chat => ChatChannel::Spectators,
            None => {
                return Err(RoomError::new(
                    ErrorCode::ChatClosed,
                    "spectators read the chat; the host has not opened the spectators' channel",
                ));
            }
        };
        if seat.is_some_and(|s| self.is_muted(s)) {
            return Err(RoomError::new(
                ErrorCode::Muted,
                "the host muted this seat's chat",
            ));
        }
        let (text, phrase) = match (text, phrase) {
            (Some(text), None) => {
                let text = clean_text(&text, limits.max_chars).map_err(|p| match p {
                    TextProblem::Empty => {
                        RoomError::new(ErrorCode::ChatEmpty, "the message has no text")
                    }
                    TextProblem::TooLong => RoomError::new(
                        ErrorCode::ChatTooLong,
                        format!("a chat message has at most {} characters", limits.max_chars),
                    ),
                })?;
                (Some(text), None)
            }
            (None, Some(id)) => {
                let phrase = Phrase::from_id(&id).ok_or_else(|| {
                    RoomError::new(
                        ErrorCode::UnknownPhrase,
                        format!(
                            "unknown phrase `{id}`; the phrases are {}",
                            Phrase::ALL.map(Phrase::id).join(", ")
                        ),
                    )
                })?;
                (None, Some(phrase))
            }
            _ => {
                return Err(RoomError::new(
                    ErrorCode::BadMessage,
                    "send exactly one of `text` and `phrase`",
                ));
            }
        };
        let name = seat.and_then(|s| match &self.seats[s.index()] {
            SeatState::Human(h) => Some(h.name.clone()),
            _ => None,
        });
        let line = ChatLine {
            id: self.chat.next_id(),
            channel,
            seat,
            name,
            text,
            phrase,
            at: now_ms(),
        };
        if limits.keep {
            tracing::info!(target: "fourkings::chat", room = %self.id, id = line.id,
                channel = ?line.channel, seat = ?line.seat, name = line.name.as_deref(),
                text = line.text.as_deref(), phrase = line.phrase.map(Phrase::id), "chat");
        }
        let f = frame(&ServerMsg::Chat(line.clone()));
        self.chat.push(line);
        self.send_where(f, |s| channel == ChatChannel::Players || s.seat.is_none());
        Ok(())
    }
}
