//! A connection's outbox: the bounded queue of pre-serialized frames from its room to the
//! connection's task. One sender (the room, which never waits: `try_send`, and a full outbox drops
//! the connection) and one receiver (the connection).
//!
//! Not tokio's `mpsc`: that channel allocates its shared state padded to cache lines (512 bytes)
//! and its slots 32 at a time, up front, keeping two blocks once 32 frames went through — 1.6 KiB
//! per connection for a queue that holds a few frames at a time (docs/benchmarks.md, the heap
//! profile of idle connections). Here the frames wait in a `VecDeque` that grows with what is
//! queued and is given back once drained, behind a mutex that only these two ever take, briefly.

use std::collections::VecDeque;
use std::future::poll_fn;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Poll, Waker};

/// A frame, serialized once and shared by every outbox it goes to.
pub type Frame = Arc<str>;

/// Frames a drained queue may keep room for; more capacity is given back (a burst of a snapshot
/// and missed events must not stay allocated for the connection's life).
const KEEP_CAPACITY: usize = 8;

/// A new outbox holding at most `capacity` frames (at least 1).
pub fn channel(capacity: usize) -> (OutboxSender, Outbox) {
    let shared = Arc::new(Shared {
        capacity: capacity.max(1),
        state: Mutex::new(State {
            frames: VecDeque::new(),
            waker: None,
            sender: true,
            receiver: true,
        }),
    });
    (
        OutboxSender {
            shared: shared.clone(),
        },
        Outbox { shared },
    )
}

struct Shared {
    capacity: usize,
    state: Mutex<State>,
}

struct State {
    frames: VecDeque<Frame>,
    /// The receiver waiting for a frame.
    waker: Option<Waker>,
    /// Whether the sender and the receiver are still there.
    sender: bool,
    receiver: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while holding the lock; a poisoned one still holds consistent data.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Why a frame was not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendError {
    /// `capacity` frames are waiting: the connection does not read fast enough.
    Full,
    /// The connection is gone.
    Closed,
}

/// The room's end.
pub struct OutboxSender {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for OutboxSender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutboxSender").finish_non_exhaustive()
    }
}

impl OutboxSender {
    /// Queues a frame without waiting.
    pub fn try_send(&self, frame: Frame) -> Result<(), SendError> {
        let mut state = self.shared.lock();
        if !state.receiver {
            return Err(SendError::Closed);
        }
        if state.frames.len() >= self.shared.capacity {
            return Err(SendError::Full);
        }
        state.frames.push_back(frame);
        let waker = state.waker.take();
        drop(state);
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }
}

impl Drop for OutboxSender {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.sender = false;
        let waker = state.waker.take();
        drop(state);
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The connection's end.
pub struct Outbox {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Outbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outbox").finish_non_exhaustive()
    }
}

impl Outbox {
    /// The next frame; `None` once the queue is empty and the room dropped its end (the room closed
    /// or dropped this connection).
    pub async fn recv(&mut self) -> Option<Frame> {
        poll_fn(|cx| {
            let mut state = self.shared.lock();
            if let Some(frame) = pop(&mut state) {
                return Poll::Ready(Some(frame));
            }
            if !state.sender {
                return Poll::Ready(None);
            }
            match &mut state.waker {
                Some(waker) => waker.clone_from(cx.waker()),
                None => state.waker = Some(cx.waker().clone()),
            }
            Poll::Pending
        })
        .await
    }

    /// The next frame if one is queued now.
    pub fn try_recv(&mut self) -> Option<Frame> {
        pop(&mut self.shared.lock())
    }
}

fn pop(state: &mut State) -> Option<Frame> {
    let frame = state.frames.pop_front()?;
    if state.frames.is_empty() && state.frames.capacity() > KEEP_CAPACITY {
        state.frames.shrink_to(KEEP_CAPACITY);
    }
    Some(frame)
}

impl Drop for Outbox {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.receiver = false;
        // Nobody will read them.
        state.frames = VecDeque::new();
        state.waker = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(text: &str) -> Frame {
        Arc::from(text)
    }

    #[tokio::test]
    async fn frames_arrive_in_order_and_the_end_follows_the_last() {
        let (tx, mut rx) = channel(4);
        tx.try_send(f("a")).unwrap();
        tx.try_send(f("b")).unwrap();
        assert_eq!(rx.recv().await.as_deref(), Some("a"));
        assert_eq!(rx.try_recv().as_deref(), Some("b"));
        assert_eq!(rx.try_recv(), None);
        tx.try_send(f("c")).unwrap();
        drop(tx);
        assert_eq!(
            rx.recv().await.as_deref(),
            Some("c"),
            "queued before the drop"
        );
        assert_eq!(rx.recv().await, None);
    }

    #[tokio::test]
    async fn a_full_outbox_refuses_and_a_gone_receiver_closes() {
        let (tx, mut rx) = channel(2);
        tx.try_send(f("a")).unwrap();
        tx.try_send(f("b")).unwrap();
        assert_eq!(tx.try_send(f("c")), Err(SendError::Full));
        assert_eq!(rx.recv().await.as_deref(), Some("a"));
        tx.try_send(f("c")).unwrap();
        drop(rx);
        assert_eq!(tx.try_send(f("d")), Err(SendError::Closed));
    }

    #[tokio::test]
    async fn a_waiting_receiver_is_woken_by_a_frame_and_by_the_drop() {
        let (tx, mut rx) = channel(2);
        let waiting = tokio::spawn(async move {
            let first = rx.recv().await;
            let end = rx.recv().await;
            (first, end)
        });
        tokio::task::yield_now().await;
        tx.try_send(f("a")).unwrap();
        tokio::task::yield_now().await;
        drop(tx);
        let (first, end) = waiting.await.unwrap();
        assert_eq!(first.as_deref(), Some("a"));
        assert_eq!(end, None);
    }

    #[test]
    fn a_drained_queue_gives_back_what_a_burst_took() {
        let (tx, mut rx) = channel(256);
        for i in 0..200 {
            tx.try_send(f(&i.to_string())).unwrap();
        }
        while rx.try_recv().is_some() {}
        assert!(rx.shared.lock().frames.capacity() <= KEEP_CAPACITY);
    }
}
