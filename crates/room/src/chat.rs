//! A room's chat memory: the recent lines of each channel (what a snapshot and a resuming client
//! get), and the per-connection rate window. Chat never enters the room's log or a game record: it
//! is talk about the game, not the game, and a restarted room starts with an empty chat.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

use protocol::{ChatChannel, ChatLine};

/// The recent lines of both channels, bounded per channel.
#[derive(Debug)]
pub(crate) struct ChatLog {
    players: VecDeque<ChatLine>,
    spectators: VecDeque<ChatLine>,
    keep: usize,
    next_id: u64,
}

impl ChatLog {
    pub(crate) fn new(keep: usize) -> ChatLog {
        ChatLog {
            players: VecDeque::new(),
            spectators: VecDeque::new(),
            keep,
            next_id: 1,
        }
    }

    pub(crate) fn next_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn channel(&mut self, channel: ChatChannel) -> &mut VecDeque<ChatLine> {
        match channel {
            ChatChannel::Players => &mut self.players,
            ChatChannel::Spectators => &mut self.spectators,
        }
    }

    pub(crate) fn push(&mut self, line: ChatLine) {
        let keep = self.keep;
        let lines = self.channel(line.channel);
        lines.push_back(line);
        while lines.len() > keep {
            lines.pop_front();
        }
    }

    /// Removes the line; its channel, or `None` when no kept line has that id.
    pub(crate) fn hide(&mut self, id: u64) -> Option<ChatChannel> {
        for channel in [ChatChannel::Players, ChatChannel::Spectators] {
            let lines = self.channel(channel);
            if let Some(i) = lines.iter().position(|l| l.id == id) {
                lines.remove(i);
                return Some(channel);
            }
        }
        None
    }

    /// What a reader may see, oldest first: spectators read both channels, seats only the players'.
    pub(crate) fn readable(&self, spectator: bool) -> Vec<ChatLine> {
        let mut lines: Vec<ChatLine> = self.players.iter().cloned().collect();
        if spectator {
            lines.extend(self.spectators.iter().cloned());
            lines.sort_by_key(|l| l.id);
        }
        lines
    }
}

/// When a connection's last chat messages came: at most `max` per `period`.
#[derive(Debug, Default)]
pub(crate) struct RateWindow(VecDeque<Instant>);

impl RateWindow {
    /// Counts a message unless `max` already came within the last `period`.
    pub(crate) fn admit(&mut self, max: usize, period: Duration, now: Instant) -> bool {
        while self.0.front().is_some_and(|at| *at + period <= now) {
            self.0.pop_front();
        }
        if self.0.len() >= max.max(1) {
            return false;
        }
        self.0.push_back(now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(log: &mut ChatLog, channel: ChatChannel) -> u64 {
        let id = log.next_id();
        log.push(ChatLine {
            id,
            channel,
            seat: None,
            name: None,
            text: Some(format!("line {id}")),
            phrase: None,
            at: 0,
        });
        id
    }

    #[test]
    fn channels_are_bounded_and_spectators_read_both() {
        let mut log = ChatLog::new(2);
        let first = line(&mut log, ChatChannel::Players);
        let spectators = line(&mut log, ChatChannel::Spectators);
        line(&mut log, ChatChannel::Players);
        line(&mut log, ChatChannel::Players);
        let seat_view: Vec<u64> = log.readable(false).iter().map(|l| l.id).collect();
        assert_eq!(seat_view, vec![3, 4], "the oldest player line left");
        assert!(!seat_view.contains(&first));
        let all: Vec<u64> = log.readable(true).iter().map(|l| l.id).collect();
        assert_eq!(all, vec![spectators, 3, 4]);
        assert_eq!(log.hide(3), Some(ChatChannel::Players));
        assert_eq!(log.hide(3), None);
        assert_eq!(log.readable(false).len(), 1);
    }

    #[test]
    fn the_rate_window_slides() {
        let mut w = RateWindow::default();
        let t = Instant::now();
        let period = Duration::from_secs(10);
        for _ in 0..5 {
            assert!(w.admit(5, period, t));
        }
        assert!(!w.admit(5, period, t + Duration::from_secs(9)));
        assert!(w.admit(5, period, t + Duration::from_secs(10)));
    }
}
