//! The directory of rooms: a map from id to handle. The lock guards only the map (never held across
//! an `.await`); each room's state lives in its own actor.

use std::collections::HashMap;
use std::sync::Mutex;

use room::RoomHandle;

#[derive(Debug, Default)]
pub struct Registry {
    rooms: Mutex<HashMap<String, RoomHandle>>,
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

    /// Insert under a fresh id unless the server holds `max` rooms already.
    pub fn insert_with(
        &self,
        max: usize,
        make: impl FnOnce(String) -> RoomHandle,
    ) -> Option<RoomHandle> {
        let mut rooms = self.rooms.lock().expect("registry lock");
        rooms.retain(|_, h| h.is_open());
        if rooms.len() >= max {
            return None;
        }
        let id = loop {
            let id = room::new_token()[..10].to_owned();
            if !rooms.contains_key(&id) {
                break id;
            }
        };
        let handle = make(id.clone());
        rooms.insert(id, handle.clone());
        Some(handle)
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
