//! The directory of rooms: a map from id to handle. The lock guards only the map (never held across
//! an `.await`); each room's state lives in its own actor.
//!
//! Creating a room takes a [`Slot`] first: the global cap (`server.max_rooms`) counts rooms being
//! built as well as rooms held, so simultaneous creations cannot pass it. Each room remembers the
//! client that created it, for the per-client cap on open lobbies.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

use room::RoomHandle;

#[derive(Debug, Default)]
pub struct Registry {
    inner: Mutex<Inner>,
    /// Held while one creation counts its client's lobbies and takes its slot, so that two
    /// creations by the same client cannot both pass the per-client cap.
    pub creating: tokio::sync::Mutex<()>,
}

#[derive(Debug, Default)]
struct Inner {
    rooms: HashMap<String, Entry>,
    /// Slots taken by creations still under way, in total and by client.
    pending: usize,
    pending_by: HashMap<IpAddr, usize>,
}

#[derive(Debug)]
struct Entry {
    handle: RoomHandle,
    creator: Option<IpAddr>,
}

impl Inner {
    /// Forget rooms whose actor stopped (idle or expired).
    fn prune(&mut self) {
        self.rooms.retain(|_, e| e.handle.is_open());
    }
}

/// A place under `server.max_rooms` for a room being created; given back unless [`Slot::fill`]ed.
#[derive(Debug)]
pub struct Slot<'a> {
    registry: &'a Registry,
    creator: IpAddr,
    filled: bool,
}

impl Slot<'_> {
    /// The room is built: it takes the slot's place.
    pub fn fill(mut self, id: String, handle: RoomHandle) {
        let mut inner = self.registry.inner.lock().expect("registry lock");
        Self::release(&mut inner, self.creator);
        inner.rooms.insert(
            id,
            Entry {
                handle,
                creator: Some(self.creator),
            },
        );
        self.filled = true;
    }

    fn release(inner: &mut Inner, creator: IpAddr) {
        inner.pending -= 1;
        if let Some(n) = inner.pending_by.get_mut(&creator) {
            *n -= 1;
            if *n == 0 {
                inner.pending_by.remove(&creator);
            }
        }
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        if !self.filled {
            let mut inner = self.registry.inner.lock().expect("registry lock");
            Self::release(&mut inner, self.creator);
        }
    }
}

impl Registry {
    pub fn get(&self, id: &str) -> Option<RoomHandle> {
        // A room whose actor stopped (idle) is gone.
        self.inner
            .lock()
            .expect("registry lock")
            .rooms
            .get(id)
            .filter(|e| e.handle.is_open())
            .map(|e| e.handle.clone())
    }

    /// A fresh room id, not used by any room held now (the store's primary key refuses the
    /// astronomically unlikely clash with an older room).
    pub fn fresh_id(&self) -> String {
        let inner = self.inner.lock().expect("registry lock");
        loop {
            let id = secrets::new_token()[..10].to_owned();
            if !inner.rooms.contains_key(&id) {
                return id;
            }
        }
    }

    /// A room not created through a slot (rebuilt at start, claimed in cluster mode).
    pub fn insert(&self, id: String, handle: RoomHandle) {
        self.inner.lock().expect("registry lock").rooms.insert(
            id,
            Entry {
                handle,
                creator: None,
            },
        );
    }

    /// A slot for a room `creator` is creating, if rooms held and being built stay under `max`.
    pub fn reserve(&self, max: usize, creator: IpAddr) -> Option<Slot<'_>> {
        let mut inner = self.inner.lock().expect("registry lock");
        inner.prune();
        if inner.rooms.len() + inner.pending >= max {
            return None;
        }
        inner.pending += 1;
        *inner.pending_by.entry(creator).or_default() += 1;
        Some(Slot {
            registry: self,
            creator,
            filled: false,
        })
    }

    /// The open rooms `creator` created, and how many more it is creating now.
    pub fn created_by(&self, creator: IpAddr) -> (Vec<RoomHandle>, usize) {
        let mut inner = self.inner.lock().expect("registry lock");
        inner.prune();
        let rooms = inner
            .rooms
            .values()
            .filter(|e| e.creator == Some(creator))
            .map(|e| e.handle.clone())
            .collect();
        (rooms, inner.pending_by.get(&creator).copied().unwrap_or(0))
    }

    /// Every open room, in id order.
    pub fn all(&self) -> Vec<(String, RoomHandle)> {
        let mut inner = self.inner.lock().expect("registry lock");
        inner.prune();
        let mut rooms: Vec<_> = inner
            .rooms
            .iter()
            .map(|(id, e)| (id.clone(), e.handle.clone()))
            .collect();
        rooms.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        rooms
    }

    /// Open rooms (closed ones are forgotten on the way).
    pub fn len(&self) -> usize {
        let mut inner = self.inner.lock().expect("registry lock");
        inner.prune();
        inner.rooms.len()
    }
}
