//! The directory of rooms: a map from id to handle. The lock guards only the map (never held across
//! an `.await`); each room's state lives in its own actor.
//!
//! Creating a room takes a [`Slot`] first: the global cap (`server.max_rooms`) counts rooms being
//! built as well as rooms held, so simultaneous creations cannot pass it. Each room remembers the
//! client that created it, for the per-client cap on open lobbies; one creation per client at a time
//! counts them ([`Registry::creating`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use room::RoomHandle;

/// How stale the count of open rooms may get: a closed room is forgotten at most this long after
/// its actor stopped (sooner when the global cap is near, or its creator creates again). Sweeping
/// on every call would make each creation and each `/healthz` cost O(rooms).
const SWEEP_EVERY: Duration = Duration::from_secs(1);

#[derive(Debug, Default)]
pub struct Registry {
    inner: Mutex<Inner>,
    /// Per client, the lock a creation holds while it counts the client's lobbies and takes its
    /// slot (see [`Registry::creating`]); an entry lives while a creation holds or awaits it.
    creating: Mutex<HashMap<IpAddr, Arc<tokio::sync::Mutex<()>>>>,
}

/// One creation under way for a client (see [`Registry::creating`]).
#[derive(Debug)]
pub struct Creating<'a> {
    registry: &'a Registry,
    client: IpAddr,
    _turn: tokio::sync::OwnedMutexGuard<()>,
}

impl Drop for Creating<'_> {
    fn drop(&mut self) {
        let mut creating = self.registry.creating.lock().expect("creating lock");
        // The map's reference and this guard's: no other creation of the client holds or awaits
        // the lock (they take theirs under the map's lock, as this check does).
        if creating
            .get(&self.client)
            .is_some_and(|turn| Arc::strong_count(turn) == 2)
        {
            creating.remove(&self.client);
        }
    }
}

#[derive(Debug, Default)]
struct Inner {
    /// In id order: the room list pages through it by id.
    rooms: BTreeMap<String, Entry>,
    /// The rooms each client created, so that its cap is counted over its own rooms only.
    by_creator: HashMap<IpAddr, BTreeSet<String>>,
    /// Slots taken by creations still under way, in total and by client.
    pending: usize,
    pending_by: HashMap<IpAddr, usize>,
    swept: Option<Instant>,
}

#[derive(Debug)]
struct Entry {
    handle: RoomHandle,
    creator: Option<IpAddr>,
}

impl Inner {
    /// Forget rooms whose actor stopped (idle or expired).
    fn sweep(&mut self) {
        let by_creator = &mut self.by_creator;
        self.rooms.retain(|id, e| {
            let open = e.handle.is_open();
            if !open {
                forget_creation(by_creator, e.creator, id);
            }
            open
        });
        self.swept = Some(Instant::now());
    }

    fn sweep_if_stale(&mut self) {
        if self.swept.is_none_or(|at| at.elapsed() >= SWEEP_EVERY) {
            self.sweep();
        }
    }

    fn insert(&mut self, id: String, handle: RoomHandle, creator: Option<IpAddr>) {
        if let Some(client) = creator {
            self.by_creator
                .entry(client)
                .or_default()
                .insert(id.clone());
        }
        if let Some(old) = self.rooms.insert(id.clone(), Entry { handle, creator }) {
            if old.creator != creator {
                forget_creation(&mut self.by_creator, old.creator, &id);
            }
        }
    }
}

fn forget_creation(
    by_creator: &mut HashMap<IpAddr, BTreeSet<String>>,
    creator: Option<IpAddr>,
    id: &str,
) {
    let Some(client) = creator else { return };
    if let Some(ids) = by_creator.get_mut(&client) {
        ids.remove(id);
        if ids.is_empty() {
            by_creator.remove(&client);
        }
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
        inner.insert(id, handle, Some(self.creator));
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
        self.inner
            .lock()
            .expect("registry lock")
            .insert(id, handle, None);
    }

    /// Waits until no other creation of `client` is under way, and holds that until dropped, so that
    /// two creations by one client cannot both pass its cap. Per client, not one lock for all:
    /// counting a client's lobbies asks each of its rooms for its phase, which takes as long as its
    /// busiest room takes to answer, and a client holding many busy rooms must not hold up every
    /// other client's creations meanwhile (issue 20: a load generator opening 1,000 CPU rooms made
    /// another client's creation wait 70–140 ms instead of under 1 ms).
    pub async fn creating(&self, client: IpAddr) -> Creating<'_> {
        let turn = {
            let mut creating = self.creating.lock().expect("creating lock");
            // A creation cancelled while it waited (its client went away) left an entry that
            // nobody holds or awaits: forget those too (the map holds only creations under way).
            creating.retain(|_, turn| Arc::strong_count(turn) > 1);
            creating.entry(client).or_default().clone()
        };
        Creating {
            registry: self,
            client,
            _turn: turn.lock_owned().await,
        }
    }

    /// A slot for a room `creator` is creating, if rooms held and being built stay under `max`.
    pub fn reserve(&self, max: usize, creator: IpAddr) -> Option<Slot<'_>> {
        let mut inner = self.inner.lock().expect("registry lock");
        if inner.rooms.len() + inner.pending >= max {
            // At the cap, closed rooms must not hold places: count again before refusing.
            inner.sweep();
            if inner.rooms.len() + inner.pending >= max {
                return None;
            }
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
        let Inner {
            rooms,
            by_creator,
            pending_by,
            ..
        } = &mut *inner;
        let mut theirs = Vec::new();
        if let Some(ids) = by_creator.get_mut(&creator) {
            ids.retain(|id| match rooms.get(id) {
                Some(e) if e.handle.is_open() => {
                    theirs.push(e.handle.clone());
                    true
                }
                Some(_) => {
                    rooms.remove(id);
                    false
                }
                None => false,
            });
            if ids.is_empty() {
                by_creator.remove(&creator);
            }
        }
        (theirs, pending_by.get(&creator).copied().unwrap_or(0))
    }

    /// Every open room, in id order.
    pub fn all(&self) -> Vec<(String, RoomHandle)> {
        let mut inner = self.inner.lock().expect("registry lock");
        inner.sweep_if_stale();
        inner
            .rooms
            .iter()
            .filter(|(_, e)| e.handle.is_open())
            .map(|(id, e)| (id.clone(), e.handle.clone()))
            .collect()
    }

    /// Up to `n` open rooms with an id greater than `after`, in id order: one step of paging
    /// through the rooms without copying all of them.
    pub fn after(&self, after: &str, n: usize) -> Vec<(String, RoomHandle)> {
        use std::ops::Bound;
        let inner = self.inner.lock().expect("registry lock");
        inner
            .rooms
            .range::<str, _>((Bound::Excluded(after), Bound::Unbounded))
            .filter(|(_, e)| e.handle.is_open())
            .take(n)
            .map(|(id, e)| (id.clone(), e.handle.clone()))
            .collect()
    }

    /// Open rooms, give or take those closed since the last sweep (at most [`SWEEP_EVERY`] ago).
    pub fn len(&self) -> usize {
        let mut inner = self.inner.lock().expect("registry lock");
        inner.sweep_if_stale();
        inner.rooms.len()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use protocol::{GameKind, TurnTime};
    use room::bot::BotConfig;
    use room::bot_pool::BotPool;
    use room::game::TableOptions;
    use room::log::MemoryLog;
    use room::{RoomConfig, RoomSettings};

    use super::*;

    const ANN: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 1));
    const BOB: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 2));

    /// A lobby that nobody joins closes after `lobby_idle`.
    async fn lobby(id: &str, lobby_idle: Duration) -> RoomHandle {
        let settings = RoomSettings {
            options: TableOptions::normalize(GameKind::Chaturaji, &serde_json::json!({})).unwrap(),
            turn_time: TurnTime::None,
            rated: false,
            public: true,
            spectator_chat: false,
        };
        let config = Arc::new(RoomConfig {
            lobby_idle,
            ..RoomConfig::default()
        });
        let bots = BotPool::new(BotConfig::default());
        room::create(
            id.into(),
            settings,
            "host",
            config,
            Arc::new(MemoryLog::default()),
            bots,
        )
        .await
        .unwrap()
    }

    async fn until_closed(handle: &RoomHandle) {
        tokio::time::timeout(Duration::from_secs(10), async {
            while handle.is_open() {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await
        .expect("the idle lobby closes");
    }

    #[tokio::test]
    async fn a_client_counts_only_its_own_open_rooms() {
        let registry = Registry::default();
        let short = lobby("a1", Duration::from_millis(50)).await;
        registry
            .reserve(10, ANN)
            .unwrap()
            .fill("a1".into(), short.clone());
        let long = lobby("a2", Duration::from_secs(600)).await;
        registry.reserve(10, ANN).unwrap().fill("a2".into(), long);
        let bobs = lobby("b1", Duration::from_secs(600)).await;
        registry.reserve(10, BOB).unwrap().fill("b1".into(), bobs);
        let _creating = registry.reserve(10, ANN).unwrap();

        let (theirs, pending) = registry.created_by(ANN);
        assert_eq!((theirs.len(), pending), (2, 1));
        until_closed(&short).await;
        let (theirs, pending) = registry.created_by(ANN);
        assert_eq!(
            theirs.iter().map(|h| h.id().to_owned()).collect::<Vec<_>>(),
            ["a2"]
        );
        assert_eq!(pending, 1);
        // The closed room is forgotten by the whole directory, not only by its creator's list.
        assert!(registry.get("a1").is_none());
        assert_eq!(registry.all().len(), 2);
        assert_eq!(registry.created_by(BOB).0.len(), 1);
    }

    #[tokio::test]
    async fn one_clients_creations_wait_for_each_other_not_for_another_clients() {
        let registry = Registry::default();
        let wait = Duration::from_millis(100);
        let ann = registry.creating(ANN).await;
        let bob = tokio::time::timeout(wait, registry.creating(BOB))
            .await
            .expect("Bob's creation is not held up by Ann's");
        let second = registry.creating(ANN);
        tokio::pin!(second);
        assert!(
            tokio::time::timeout(wait, &mut second).await.is_err(),
            "Ann's second creation waits for her first"
        );
        drop(ann);
        let second = tokio::time::timeout(wait, second)
            .await
            .expect("and goes on once it is done");
        drop((second, bob));
        assert!(
            registry.creating.lock().unwrap().is_empty(),
            "no lock is kept for a client that creates nothing"
        );
        // A creation given up while it waited leaves nothing behind once another one comes.
        let ann = registry.creating(ANN).await;
        let mut given_up = Box::pin(registry.creating(ANN));
        assert!(tokio::time::timeout(wait, &mut given_up).await.is_err());
        drop(ann);
        drop(given_up);
        drop(registry.creating(BOB).await);
        assert!(registry.creating.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn at_the_cap_a_closed_room_gives_its_place_at_once() {
        let registry = Registry::default();
        let short = lobby("a1", Duration::from_millis(50)).await;
        registry
            .reserve(2, ANN)
            .unwrap()
            .fill("a1".into(), short.clone());
        let long = lobby("a2", Duration::from_secs(600)).await;
        registry.reserve(2, BOB).unwrap().fill("a2".into(), long);
        // Count once now, so that the next count is not yet due on its own.
        assert_eq!(registry.len(), 2);
        assert!(registry.reserve(2, BOB).is_none(), "the cap holds");
        until_closed(&short).await;
        assert!(
            registry.reserve(2, BOB).is_some(),
            "the closed room's place is free"
        );
    }

    #[tokio::test]
    async fn rooms_are_paged_in_id_order_without_closed_ones() {
        let registry = Registry::default();
        for id in ["c", "a", "d", "b"] {
            registry.insert(id.into(), lobby(id, Duration::from_secs(600)).await);
        }
        let closing = lobby("bb", Duration::from_millis(50)).await;
        registry.insert("bb".into(), closing.clone());
        until_closed(&closing).await;
        let ids =
            |v: Vec<(String, RoomHandle)>| v.into_iter().map(|(id, _)| id).collect::<Vec<_>>();
        assert_eq!(ids(registry.after("", 2)), ["a", "b"]);
        assert_eq!(ids(registry.after("b", 2)), ["c", "d"]);
        assert_eq!(ids(registry.after("d", 2)), Vec::<String>::new());
        assert_eq!(ids(registry.all()), ["a", "b", "c", "d"]);
    }
}
