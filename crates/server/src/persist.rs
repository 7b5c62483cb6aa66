//! The server's side of persistence: the rooms' [`ActionLog`] over the store's group-commit
//! [`LogWriter`], finished games recorded (idempotently, retried through outages), and the rebuild of
//! every unfinished room at start-up.
//!
//! Seats of humans who joined without a player identity are recorded under the fixed `guest` player
//! (migration 0002), and a game with such a seat moves no rating: one shared identity for many people
//! would be a meaningless rating. Rated games need every human seat to carry a player id, each a
//! different one, and every human seat to have played (`ratings.min_moves`); a game that misses one
//! of these is recorded unrated with the reason ([`UnratedReason`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::oneshot;

use protocol::{GameKind, RatingValue, Seat};
use rating::{GameResult, Pool, TeamResult};
use room::bot_pool::BotPool;
use room::log::{ActionLog, EntryKind, LogEntry, LogError, LogFuture, Rated};
use room::record::GameRecordDoc;
use room::{RoomConfig, StoredRoom};
use store::{
    FinishedGame, LogWriter, Recorded, RoomState, SeatPlayer, Store, StoreError, UnratedReason,
};

use crate::cluster::ClusterNode;
use crate::registry::Registry;

/// The identity of every seat whose human did not give one.
pub const GUEST_PLAYER: &str = "guest";

/// The rooms' log: appends go through the writer (durable before the room hears back), finished
/// games straight to the store.
#[derive(Debug, Clone)]
pub struct StoreLog {
    pub store: Arc<dyn Store>,
    pub writer: Appender,
    /// `ratings.min_moves`: own moves every human seat needs for a rated game to count.
    pub min_moves: u32,
    /// Per room, the signal that its latest finished game is recorded: game n+1 is written only
    /// after game n, so it is rated from game n's results even when an outage made both wait.
    pub recorded: Arc<RecordOrder>,
    /// The server's runtime, where every database call runs, whichever runtime the calling room is
    /// on: a database driver may start a connection thread from the calling thread, and a thread
    /// inherits its creator's priority, so a connection opened from the CPU lane (nice 19, see
    /// `room::lane`) would serve everyone at nice 19.
    pub home: tokio::runtime::Handle,
}

/// Per room, a receiver that resolves when the room's last game handed to `record_game` is written
/// (or given up). The room hands its games over in game order, so a chain of these keeps that order.
#[derive(Debug, Default)]
pub struct RecordOrder(std::sync::Mutex<HashMap<String, oneshot::Receiver<()>>>);

impl RecordOrder {
    /// Makes `finished` the room's latest recording; returns the one before it, to wait for.
    fn follow(&self, room: &str, finished: oneshot::Receiver<()>) -> Option<oneshot::Receiver<()>> {
        self.lock().insert(room.to_owned(), finished)
    }

    /// The room closed: nothing more of it to order; the map gives back the capacity of a busier
    /// moment once it is mostly empty ([`store::sparse`]).
    fn forget(&self, room: &str) {
        let mut rooms = self.lock();
        rooms.remove(room);
        store::sparse::give_back(&mut *rooms);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Receiver<()>>> {
        self.0.lock().expect("record order lock")
    }
}

/// Where room log entries go.
#[derive(Debug, Clone)]
pub enum Appender {
    /// Single node: the group-commit writer, durable in the database or, during an outage, the spool.
    Spooling(LogWriter),
    /// Cluster mode: fenced appends under the room's lease, never a spool.
    Fenced(Arc<ClusterNode>),
}

/// The store's form of a room's log entry.
pub fn store_entry(entry: LogEntry) -> store::LogEntry {
    store::LogEntry {
        room_id: entry.room,
        game_no: entry.game_no as i32,
        seq: entry.seq as i64,
        kind: match entry.kind {
            EntryKind::Action => store::EntryKind::Action,
            EntryKind::Dice => store::EntryKind::Dice,
        },
        payload: entry.payload,
        at: store::now_millis(),
    }
}

impl ActionLog for StoreLog {
    fn append(&self, entry: LogEntry) -> LogFuture<Result<(), LogError>> {
        match &self.writer {
            Appender::Spooling(writer) => {
                let writer = writer.clone();
                let entry = store_entry(entry);
                Box::pin(async move {
                    writer
                        .append(entry)
                        .await
                        .map(|_| ())
                        .map_err(|e| LogError::Unavailable(e.to_string()))
                })
            }
            Appender::Fenced(node) => {
                let node = node.clone();
                Box::pin(async move { node.append(entry).await })
            }
        }
    }

    fn record_game(&self, doc: GameRecordDoc) -> LogFuture<Rated> {
        let store = self.store.clone();
        let min_moves = self.min_moves;
        // Taken now, in the order the room calls (its game order), not when the future first runs.
        let (done, finished) = oneshot::channel();
        let previous = self.recorded.follow(&doc.room, finished);
        let recording = self.home.spawn(async move {
            if let Some(previous) = previous {
                // An error only means the earlier recording was dropped: nothing to wait for.
                let _ = previous.await;
            }
            let rated = record_until_done(store, doc, min_moves).await;
            let _ = done.send(());
            rated
        });
        // A join error: the server's runtime is stopping, which cuts a recording short wherever it
        // runs.
        Box::pin(async move { recording.await.unwrap_or_default() })
    }

    fn room_closed(&self, room: &str) {
        self.recorded.forget(room);
        // Cluster mode: nothing more is written for the room from now on; it is given up in the
        // database only once it is marked closed, so that no node's sweep adopts it meanwhile.
        let release = match &self.writer {
            Appender::Fenced(node) => node.forget_room(room).map(|fence| (node.clone(), fence)),
            Appender::Spooling(_) => None,
        };
        let store = self.store.clone();
        let id = room.to_owned();
        self.home.spawn(async move {
            let closed = async {
                if let Some(r) = store.room(&id).await? {
                    store
                        .update_room(&id, &r.options, &r.settings, RoomState::Closed)
                        .await?;
                }
                Ok::<(), StoreError>(())
            };
            if let Err(e) = closed.await {
                // Harmless: the room is rebuilt at the next start (or adopted by a live node) and
                // closes again when idle.
                tracing::warn!(room = %id, error = %e, "could not mark the room closed");
            }
            if let Some((node, fence)) = release {
                node.release_room(&fence).await;
            }
        });
    }
}

/// Writes a finished game, retrying while the database is unreachable: the result is never lost, and
/// the store's idempotency (by game id) keeps it from being written twice. Answers the rating changes
/// of a rated game written now.
async fn record_until_done(store: Arc<dyn Store>, doc: GameRecordDoc, min_moves: u32) -> Rated {
    let game = match finished_game(&doc, min_moves) {
        Ok(game) => game,
        Err(e) => {
            tracing::error!(game = %doc.game_id, error = %e, "cannot build the finished game");
            return None;
        }
    };
    let mut delay = Duration::from_millis(100);
    loop {
        match store.record_game(&game).await {
            Ok(Recorded::Written { rating_changes }) => {
                tracing::info!(game = %game.id, unrated = ?game.unrated, "game recorded");
                if !game.is_rated() {
                    return None;
                }
                return Some(
                    rating_changes
                        .into_iter()
                        .map(|c| protocol::RatingChange {
                            player_id: c.player_id,
                            seats: c.seats,
                            before: RatingValue::from(c.before),
                            after: RatingValue::from(c.after),
                        })
                        .collect(),
                );
            }
            Ok(Recorded::AlreadyRecorded) => return None,
            Err(e) if e.is_transient() => {
                tracing::warn!(game = %game.id, error = %e, "recording the game: retrying");
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(Duration::from_secs(2));
            }
            Err(e) => {
                tracing::error!(game = %game.id, error = %e, "the store refused the finished game");
                return None;
            }
        }
    }
}

/// The rating pool of a game: the kind, and for four-player chess the mode.
pub fn pool_of(game: GameKind, options: &serde_json::Value) -> Pool {
    match game {
        GameKind::Chaturaji => Pool::Chaturaji,
        GameKind::Fourchess if options["mode"] == "teams" => Pool::FourchessTeams,
        GameKind::Fourchess => Pool::FourchessFfa,
    }
}

/// Why a rated room's finished game moves no rating, if it does not: a guest seat, one identity in
/// several seats, or a human seat that made fewer than `min_moves` moves of its own.
pub fn unrated_reason(doc: &GameRecordDoc, min_moves: u32) -> Option<UnratedReason> {
    if !doc.rated {
        return Some(UnratedReason::Casual);
    }
    let humans: Vec<&room::record::RecordSeat> =
        doc.seats.iter().filter(|s| s.cpu_level.is_none()).collect();
    if humans.iter().any(|s| s.player_id.is_none()) {
        return Some(UnratedReason::Guest);
    }
    let ids: std::collections::HashSet<&str> = humans
        .iter()
        .filter_map(|s| s.player_id.as_deref())
        .collect();
    if ids.len() < humans.len() {
        return Some(UnratedReason::SameIdentity);
    }
    let own_moves = |seat: Seat| {
        doc.actions
            .iter()
            .filter(|a| a.seat == seat && a.by == protocol::Actor::Human)
            .filter(|a| a.action["type"] == "move")
            .count()
    };
    if humans
        .iter()
        .any(|s| own_moves(s.seat) < min_moves as usize)
    {
        return Some(UnratedReason::TooShort);
    }
    None
}

/// The store's view of a finished game, from the room's record.
fn finished_game(doc: &GameRecordDoc, min_moves: u32) -> Result<FinishedGame, String> {
    let pool = pool_of(doc.game, &doc.options);
    let places: [u8; 4] = std::array::from_fn(|i| {
        doc.outcome["standings"][i]["place"]
            .as_u64()
            .and_then(|p| u8::try_from(p).ok())
            .unwrap_or(0)
    });
    let result = if pool.is_teams() {
        let red = places[Seat::Red.index()];
        let blue = places[Seat::Blue.index()];
        GameResult::Teams(match red.cmp(&blue) {
            std::cmp::Ordering::Less => TeamResult::RedYellowWin,
            std::cmp::Ordering::Equal => TeamResult::Draw,
            std::cmp::Ordering::Greater => TeamResult::BlueGreenWin,
        })
    } else {
        GameResult::Places(places)
    };
    result.validate().map_err(|e| e.to_string())?;
    Ok(FinishedGame {
        id: doc.game_id.clone(),
        room_id: doc.room.clone(),
        game_no: doc.game_no as i32,
        pool,
        unrated: unrated_reason(doc, min_moves),
        options: doc.options.clone(),
        first_seat: doc.first,
        dice_commit: doc.dice_commit.clone(),
        revealed_seed: doc.dice_seed.clone(),
        seats: std::array::from_fn(|i| SeatPlayer {
            player_id: doc.seats[i]
                .player_id
                .clone()
                .unwrap_or_else(|| GUEST_PLAYER.to_owned()),
            cpu_finished: doc.seats[i].cpu_finished,
        }),
        result,
        standings: doc.outcome["standings"].clone(),
        record: serde_json::to_value(doc).map_err(|e| e.to_string())?,
        finished_at: doc.finished_at as i64,
    })
}

/// A room's whole log as the rebuild needs it; `None` when the room holds no record (created in the
/// rooms table, but its first record never became durable: nobody got it).
pub async fn load_room(store: &Arc<dyn Store>, id: &str) -> Result<Option<StoredRoom>, StoreError> {
    let room_log = store.load_log(id, 0).await?;
    if room_log.is_empty() {
        return Ok(None);
    }
    let mut games = BTreeMap::new();
    let last = store.last_game_no(id).await?.unwrap_or(0);
    for n in 1..=last {
        let entries = store.load_log(id, n).await?;
        games.insert(n as u32, entries.into_iter().map(|e| e.payload).collect());
    }
    Ok(Some(StoredRoom {
        id: id.to_owned(),
        room_log: room_log.into_iter().map(|e| e.payload).collect(),
        games,
    }))
}

/// What a start did with the rooms the store holds open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recovered {
    /// Rooms rebuilt: a game in progress, or active within `lobby_idle`.
    pub rebuilt: usize,
    /// Rooms that went idle past `lobby_idle` while the server was down (lobbies nobody came back
    /// to, finished games): marked closed, never rebuilt.
    pub expired: usize,
}

/// Rebuilds the live rooms from the store (single node): every room with a game in progress, and
/// lobbies and finished rooms active within `lobby_idle` (a lobby left alone that long would have
/// expired had the server been up). The rest are marked closed without loading their logs, so a
/// start costs what the live rooms cost, not what the database has piled up. Call it once the
/// writer has drained its spool, so the logs are complete. A room whose log cannot be replayed is
/// reported and left out.
pub async fn recover(
    store: &Arc<dyn Store>,
    registry: &Registry,
    config: Arc<RoomConfig>,
    log: Arc<dyn ActionLog>,
    bot: Arc<BotPool>,
) -> Result<Recovered, StoreError> {
    let lobby_idle = i64::try_from(config.lobby_idle.as_millis()).unwrap_or(i64::MAX);
    let fresh_since = store::now_millis().saturating_sub(lobby_idle);
    let (live, stale): (Vec<_>, Vec<_>) = store
        .unfinished_rooms()
        .await?
        .into_iter()
        .partition(|r| r.game_running || r.last_activity >= fresh_since);
    let stale: Vec<String> = stale.into_iter().map(|r| r.room.id).collect();
    store.close_rooms(&stale).await?;
    let mut rebuilt = 0;
    for row in live {
        let id = row.room.id;
        let Some(stored) = load_room(store, &id).await? else {
            continue;
        };
        match room::restore(stored, config.clone(), log.clone(), bot.clone()) {
            Ok(handle) => {
                registry.insert(id, handle);
                rebuilt += 1;
            }
            Err(e) => tracing::error!(room = %id, error = %e, "cannot rebuild the room"),
        }
    }
    Ok(Recovered {
        rebuilt,
        expired: stale.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_record_order_gives_its_memory_back_once_the_rooms_closed() {
        let order = RecordOrder::default();
        let rooms: Vec<String> = (0..1000).map(|i| format!("room{i}")).collect();
        for room in &rooms {
            let (_done, finished) = oneshot::channel();
            assert!(order.follow(room, finished).is_none());
        }
        let busiest = order.lock().capacity();
        assert!(busiest >= 1000);
        for room in &rooms[..990] {
            order.forget(room);
        }
        // Ten rooms left: the map holds about what they need, not the thousand's capacity.
        let left = order.lock().capacity();
        assert!(
            left <= 64,
            "capacity {left} after 990 of {busiest} rooms closed"
        );
        assert_eq!(order.lock().len(), 10);
        // The chain still works for the rooms left.
        let (_done, finished) = oneshot::channel();
        assert!(order.follow(&rooms[995], finished).is_some());
    }
}
