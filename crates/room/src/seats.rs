//! Who holds each seat. A human who drops keeps the seat: the CPU only plays for it after the grace
//! period, and hands it back the moment the human returns with the seat token.

use std::collections::VecDeque;

use tokio::time::Instant;

use protocol::Occupant;

#[derive(Debug)]
pub enum SeatState {
    Empty,
    Human(Human),
    Cpu { level: u8 },
}

#[derive(Debug)]
pub struct Human {
    pub name: String,
    /// `secrets::hash_secret` of the seat token: the room's log keeps only the hash.
    pub token_hash: String,
    /// The player's identity when the joiner proved one (`player_id` + secret); `None`: a guest.
    pub player_id: Option<String>,
    /// Open connections holding the seat token (a player may have two tabs).
    pub conns: u32,
    /// When the last connection dropped: the CPU takes over at `away_since + grace`.
    pub away_since: Option<Instant>,
    /// Whether the room last told everyone the seat is connected. A drop is announced only once it
    /// has lasted `connection_settle`, so a seat that drops and comes straight back (a reload, a
    /// reconnect loop) is announced neither time.
    pub shown_connected: bool,
    /// The CPU plays for the seat now.
    pub cpu_playing: bool,
    /// The host handed the seat to the CPU for the rest of the game: a return does not take it back.
    pub handed_over: bool,
    /// Recently acknowledged (ack id, event version), so a resent ack id is re-acked, not re-applied.
    pub acks: VecDeque<(u64, u64)>,
    /// When the seat's connections of the last minute came (the reconnect rate limit).
    pub recent_connects: VecDeque<Instant>,
}

impl Human {
    pub fn new(name: String, token_hash: String, player_id: Option<String>) -> Human {
        Human {
            name,
            token_hash,
            player_id,
            conns: 0,
            // Never connected yet: counts as away from the moment the seat is taken.
            away_since: Some(Instant::now()),
            shown_connected: false,
            cpu_playing: false,
            handed_over: false,
            acks: VecDeque::new(),
            recent_connects: VecDeque::new(),
        }
    }

    /// Counts a connection of this seat, unless it already came `per_minute` times in the last
    /// minute: a seat holder reconnecting in a loop would announce itself to everyone each time.
    pub fn admit_connect(&mut self, per_minute: usize, now: Instant) -> bool {
        let minute = std::time::Duration::from_secs(60);
        while self
            .recent_connects
            .front()
            .is_some_and(|at| *at + minute <= now)
        {
            self.recent_connects.pop_front();
        }
        if self.recent_connects.len() >= per_minute.max(1) {
            return false;
        }
        self.recent_connects.push_back(now);
        true
    }

    pub fn acked(&self, ack: u64) -> Option<u64> {
        self.acks.iter().find(|(a, _)| *a == ack).map(|(_, v)| *v)
    }

    pub fn remember_ack(&mut self, ack: u64, v: u64, keep: usize) {
        if self.acks.len() >= keep.max(1) {
            self.acks.pop_front();
        }
        self.acks.push_back((ack, v));
    }
}

impl SeatState {
    pub fn occupant(&self, muted: bool) -> Occupant {
        match self {
            SeatState::Empty => Occupant::Empty,
            SeatState::Human(h) => Occupant::Human {
                name: h.name.clone(),
                connected: h.shown_connected,
                cpu_playing: h.cpu_playing,
                handed_over: h.handed_over,
                muted,
            },
            SeatState::Cpu { level } => Occupant::Cpu { level: *level },
        }
    }

    pub fn human_mut(&mut self) -> Option<&mut Human> {
        match self {
            SeatState::Human(h) => Some(h),
            _ => None,
        }
    }
}
