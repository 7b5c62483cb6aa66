//! The short per-room history of serialized events, so a reconnecting client gets what it missed
//! instead of a full snapshot when it was away only briefly.

use std::collections::VecDeque;
use std::sync::Arc;

#[derive(Debug)]
pub struct History {
    cap: usize,
    /// (version, frame) in increasing version order, consecutive.
    frames: VecDeque<(u64, Arc<str>)>,
}

impl History {
    pub fn new(cap: usize) -> History {
        History {
            cap: cap.max(1),
            frames: VecDeque::new(),
        }
    }

    pub fn push(&mut self, v: u64, frame: Arc<str>) {
        if self.frames.len() == self.cap {
            self.frames.pop_front();
        }
        debug_assert!(self.frames.back().is_none_or(|(last, _)| *last + 1 == v));
        self.frames.push_back((v, frame));
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
        let mut h = History::new(3);
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
}
