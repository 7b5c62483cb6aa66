//! The room's command queue: many senders (the handles held by REST handlers and connections, and
//! the room's own CPU and rating tasks through weak senders), one receiver (the room's task).
//! Bounded: a sender waits while `capacity` commands are queued, so a flood of requests is held
//! back at its sources instead of growing the room's memory.
//!
//! Not tokio's `mpsc`, for the outbox's reason (outbox.rs): that channel keeps its shared state
//! padded to cache lines and allocates its slots 32 at a time, 1,088 bytes per room, idle or not
//! (docs/benchmarks.md, idle connections). Here the commands wait in a `VecDeque` that grows with
//! what is queued, behind a mutex taken briefly by one sender or the room at a time.

use std::collections::VecDeque;
use std::future::poll_fn;
use std::pin::pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Poll, Waker};

use tokio::sync::Notify;

/// Commands a drained queue may keep room for; more capacity is given back.
const KEEP_CAPACITY: usize = 4;

/// A new queue holding at most `capacity` commands (at least 1).
pub fn channel<T>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Shared {
        capacity: capacity.max(1),
        state: Mutex::new(State {
            queue: VecDeque::new(),
            receiver: None,
            senders: 1,
            closed: false,
        }),
        space: Notify::new(),
    });
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver { shared },
    )
}

struct Shared<T> {
    capacity: usize,
    state: Mutex<State<T>>,
    /// Senders waiting for space in a full queue. Every one of them is woken when a command leaves
    /// a full queue (or the queue closes) and looks again: the queue is rarely full, and no wake
    /// can be lost to a sender that gave up waiting. Unlike tokio's semaphore, waiting senders are
    /// not served in order: a connection has at most one command in flight, none waits for long.
    space: Notify,
}

struct State<T> {
    queue: VecDeque<T>,
    /// The receiver waiting for a command.
    receiver: Option<Waker>,
    /// Strong senders alive: once the last one is gone and the queue is empty, the receiver ends.
    senders: usize,
    /// The receiver closed or dropped its end: nothing more is accepted.
    closed: bool,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // Nothing panics while holding the lock; a poisoned one still holds consistent data.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wake_receiver(&self, mut state: MutexGuard<'_, State<T>>) {
        let waker = state.receiver.take();
        drop(state);
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The queue is closed: the room is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed;

/// A sending end; the receiver sees the end of the queue when every one of them is dropped.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

impl<T> Sender<T> {
    /// Queues `value`, waiting while the queue is full; `Err` once the receiver is gone or closed.
    pub async fn send(&self, value: T) -> Result<(), Closed> {
        loop {
            // Registered before looking, so that a command leaving the full queue after the look
            // wakes this sender.
            let mut space = pin!(self.shared.space.notified());
            space.as_mut().enable();
            {
                let mut state = self.shared.lock();
                if state.closed {
                    return Err(Closed);
                }
                if state.queue.len() < self.shared.capacity {
                    state.queue.push_back(value);
                    self.shared.wake_receiver(state);
                    return Ok(());
                }
            }
            space.await;
        }
    }

    /// True once the receiver is gone or closed.
    pub fn is_closed(&self) -> bool {
        self.shared.lock().closed
    }

    /// A sender that does not keep the queue open.
    pub fn downgrade(&self) -> WeakSender<T> {
        WeakSender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.shared.lock().senders += 1;
        Sender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.senders -= 1;
        if state.senders == 0 {
            self.shared.wake_receiver(state);
        }
    }
}

impl<T> std::fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

/// A sender that does not keep the queue open: it can become a sender while another one lives.
pub struct WeakSender<T> {
    shared: Arc<Shared<T>>,
}

impl<T> WeakSender<T> {
    /// A sender, or `None` once every sender is gone.
    pub fn upgrade(&self) -> Option<Sender<T>> {
        let mut state = self.shared.lock();
        if state.senders == 0 {
            return None;
        }
        state.senders += 1;
        Some(Sender {
            shared: self.shared.clone(),
        })
    }
}

impl<T> Clone for WeakSender<T> {
    fn clone(&self) -> Self {
        WeakSender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> std::fmt::Debug for WeakSender<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WeakSender").finish_non_exhaustive()
    }
}

/// The receiving end: the room's task.
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
}

impl<T> Receiver<T> {
    /// The next command; `None` once the queue is empty and every sender is gone, or it is closed.
    pub async fn recv(&mut self) -> Option<T> {
        poll_fn(|cx| {
            let mut state = self.shared.lock();
            if state.closed {
                return Poll::Ready(None);
            }
            if let Some(value) = state.queue.pop_front() {
                let was_full = state.queue.len() + 1 == self.shared.capacity;
                if state.queue.is_empty() && state.queue.capacity() > KEEP_CAPACITY {
                    state.queue.shrink_to(KEEP_CAPACITY);
                }
                drop(state);
                if was_full {
                    self.shared.space.notify_waiters();
                }
                return Poll::Ready(Some(value));
            }
            if state.senders == 0 {
                return Poll::Ready(None);
            }
            match &mut state.receiver {
                Some(waker) => waker.clone_from(cx.waker()),
                None => state.receiver = Some(cx.waker().clone()),
            }
            Poll::Pending
        })
        .await
    }

    /// Refuses every command from now on; the queued ones are dropped (their askers see the room
    /// gone), and waiting senders are told.
    pub fn close(&mut self) {
        let queued = {
            let mut state = self.shared.lock();
            state.closed = true;
            state.receiver = None;
            std::mem::take(&mut state.queue)
        };
        // Dropped outside the lock: a command's drop may take other locks (a reply, an outbox).
        drop(queued);
        self.shared.space.notify_waiters();
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.close();
    }
}

impl<T> std::fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Receiver").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn commands_arrive_in_order_and_the_end_follows_the_last_sender() {
        let (tx, mut rx) = channel(4);
        let tx2 = tx.clone();
        tx.send(1).await.unwrap();
        tx2.send(2).await.unwrap();
        drop(tx);
        assert_eq!(rx.recv().await, Some(1));
        tx2.send(3).await.unwrap();
        drop(tx2);
        assert_eq!(rx.recv().await, Some(2));
        assert_eq!(
            rx.recv().await,
            Some(3),
            "queued before the last sender went"
        );
        assert_eq!(rx.recv().await, None);
    }

    #[tokio::test]
    async fn a_full_queue_holds_its_senders_until_a_command_leaves() {
        let (tx, mut rx) = channel(2);
        tx.send(1).await.unwrap();
        tx.send(2).await.unwrap();
        let waiting = {
            let tx = tx.clone();
            tokio::spawn(async move { tx.send(3).await })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(
            !waiting.is_finished(),
            "the queue is full: the sender waits"
        );
        assert_eq!(rx.recv().await, Some(1));
        waiting.await.unwrap().unwrap();
        assert_eq!(rx.recv().await, Some(2));
        assert_eq!(rx.recv().await, Some(3));
    }

    #[tokio::test]
    async fn a_sender_that_gives_up_waiting_takes_no_wake_from_the_others() {
        let (tx, mut rx) = channel(1);
        tx.send(0).await.unwrap();
        // One waiter gives up (its future dropped while waiting), one keeps waiting.
        let gave_up = tokio::time::timeout(Duration::from_millis(20), tx.send(1)).await;
        assert!(gave_up.is_err());
        let waiting = {
            let tx = tx.clone();
            tokio::spawn(async move { tx.send(2).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(rx.recv().await, Some(0));
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("woken")
            .unwrap()
            .unwrap();
        assert_eq!(rx.recv().await, Some(2));
    }

    #[tokio::test]
    async fn a_closed_or_dropped_receiver_refuses_and_frees_waiting_senders() {
        let (tx, mut rx) = channel(1);
        tx.send(1).await.unwrap();
        let waiting = {
            let tx = tx.clone();
            tokio::spawn(async move { tx.send(2).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        rx.close();
        assert_eq!(waiting.await.unwrap(), Err(Closed));
        assert!(tx.is_closed());
        assert_eq!(rx.recv().await, None, "queued commands were dropped");
        let (tx, rx) = channel::<u8>(1);
        drop(rx);
        assert_eq!(tx.send(1).await, Err(Closed));
    }

    #[tokio::test]
    async fn a_weak_sender_does_not_keep_the_queue_open() {
        let (tx, mut rx) = channel(4);
        let weak = tx.downgrade();
        weak.upgrade().unwrap().send(1).await.unwrap();
        drop(tx);
        assert!(weak.upgrade().is_none());
        assert_eq!(rx.recv().await, Some(1));
        assert_eq!(rx.recv().await, None);
    }

    #[test]
    fn an_idle_queue_is_small() {
        // What a room pays for its queue while nobody sends: the shared state, and no slots.
        assert!(
            std::mem::size_of::<Shared<Box<u8>>>() <= 128,
            "{}",
            std::mem::size_of::<Shared<Box<u8>>>()
        );
        let (tx, _rx) = channel::<Box<u8>>(64);
        assert_eq!(tx.shared.lock().queue.capacity(), 0);
    }
}
