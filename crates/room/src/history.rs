//! The short per-room history of serialized events, so a reconnecting client gets what it missed
//! instead of a full snapshot when it was away only briefly.
//!
//! Bounded twice: at most `cap` frames and at most `max_bytes` of frame text (the newest frame is
//! always kept). A long event (a four-player chess position after a big move) must not make a
//! thousand rooms hold megabytes each: past either bound a resuming client gets a snapshot instead.

use std::collections::VecDeque;
use std::sync::Arc;

#[derive(Debug)]
pub struct History {
    cap: usize,
    max_bytes: usize,
    /// Sum of the kept frames' lengths.
    bytes: usize,
    /// (version, frame) in increasing version order, consecutive.
    frames: VecDeque<(u64, Arc<str>)>,
}

impl History {
    pub fn new(cap: usize, max_bytes: usize) -> History {
        History {
            cap: cap.max(1),
            max_bytes,
            bytes: 0,
            frames: VecDeque::new(),
        }
    }

    pub fn push(&mut self, v: u64, frame: Arc<str>) {
        debug_assert!(self.frames.back().is_none_or(|(last, _)| *last + 1 == v));
        self.bytes += frame.len();
        self.frames.push_back((v, frame));
        while self.frames.len() > self.cap || (self.bytes > self.max_bytes && self.frames.len() > 1)
        {
            let (_, old) = self.frames.pop_front().expect("more than one frame");
            self.bytes -= old.len();
        }
    }

    /// Bytes of frame text held now.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The frames after version `since` up to `now`, or none when some of them are no longer kept
    /// (or `since` is from the future, e.g. another server incarnation): the caller sends a snapshot.
    pub fn since(&self, since: u64, now: u64) -> Option<Vec<Arc<str>>> {
        if since > now {
            return None;
        }
        if since == now {
            return Some(Vec::new());
        }
        let first = self.frames.front()?.0;
        if first > since + 1 {
            return None;
        }
        Some(
            self.frames
                .iter()
                .filter(|(v, _)| *v > since)
                .map(|(_, f)| f.clone())
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_missed_frames_or_asks_for_a_snapshot() {
        let mut h = History::new(3, usize::MAX);
        for v in 1..=5 {
            h.push(v, Arc::from(format!("e{v}")));
        }
        let got = h.since(3, 5).unwrap();
        assert_eq!(got.iter().map(|f| &**f).collect::<Vec<_>>(), ["e4", "e5"]);
        assert_eq!(h.since(2, 5).unwrap().len(), 3);
        assert!(h.since(1, 5).is_none(), "e2 was evicted");
        assert!(h.since(9, 5).is_none());
        assert_eq!(h.since(5, 5).unwrap().len(), 0);
    }

    #[test]
    fn the_byte_bound_evicts_old_frames_but_keeps_the_newest() {
        let mut h = History::new(100, 10);
        for v in 1..=4 {
            h.push(v, Arc::from("abcd"));
        }
        // 4 bytes each, at most 10 bytes: the two newest stay.
        assert_eq!(h.bytes(), 8);
        assert_eq!(h.since(2, 4).unwrap().len(), 2);
        assert!(h.since(1, 4).is_none(), "v2 went over the byte bound");
        h.push(5, Arc::from("a frame longer than the bound"));
        assert_eq!(h.since(4, 5).unwrap().len(), 1, "the newest frame is kept");
        assert_eq!(h.bytes(), 29);
    }
}
