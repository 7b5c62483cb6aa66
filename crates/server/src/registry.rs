//! The directory of rooms: a map from id to handle. The lock guards only the map (never held across
//! an `.await`); each room's state lives in its own actor.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use room::RoomHandle;

#[derive(Debug, Default)]
pub struct Registry {
    rooms: Mutex<HashMap<String, RoomHandle>>,
    /// Rooms left after the last sweep of closed ones.
    swept_at: AtomicUsize,
}

impl Registry {
    pub fn get(&self, id: &str) -> Option<RoomHandle> {
        // A room whose actor stopped (idle) is gone.
        self.rooms
            .lock()
            .expect("registry lock")
            .get(id)
            .filter(|h| h.is_open())
            .cloned()
    }

    /// A fresh room id, not used by any room held now (the store's primary key refuses the
    /// astronomically unlikely clash with an older room).
    pub fn fresh_id(&self) -> String {
        let rooms = self.rooms.lock().expect("registry lock");
        loop {
            let id = room::new_token()[..10].to_owned();
            if !rooms.contains_key(&id) {
                return id;
            }
        }
    }

    pub fn insert(&self, id: String, handle: RoomHandle) {
        let mut rooms = self.rooms.lock().expect("registry lock");
        // A closed room's handle still holds its command channel: forget closed rooms now and then
        // (when the map has doubled since the last sweep), so a server that opens rooms all day
        // does not keep every closed one's channel. Amortized O(1) per insert.
        if rooms.len() >= 2 * self.swept_at.load(Ordering::Relaxed).max(64) {
            rooms.retain(|_, h| h.is_open());
            self.swept_at.store(rooms.len(), Ordering::Relaxed);
        }
        rooms.insert(id, handle);
    }

    pub fn all(&self) -> Vec<RoomHandle> {
        let mut rooms = self.rooms.lock().expect("registry lock");
        rooms.retain(|_, h| h.is_open());
        rooms.values().cloned().collect()
    }

    /// Open rooms (closed ones are forgotten on the way).
    pub fn len(&self) -> usize {
        let mut rooms = self.rooms.lock().expect("registry lock");
        rooms.retain(|_, h| h.is_open());
        rooms.len()
    }
}
