//! The read side of the store over REST: leaderboards, player profiles, finished games' records,
//! their PGN4 export and their replay, and the lists of a room's and a player's finished games.
//! Everything here is public and read-only.

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use protocol::{
    ErrorCode, FinishedGameBody, GameKind, GameListEntry, GameListRating, GameListSeat,
    GameRatingChange, Leaderboard, LeaderboardRow, PlayerGames, PlayerInfo, PlayerProfile,
    PoolRatingInfo, RatingHistory, RatingHistoryEntry, RatingValue, RoomGames,
};
use rating::Pool;
use room::game::TableGame;
use room::record::GameRecordDoc;
use serde::Deserialize;
use store::{HistoryQuery, LeaderboardQuery, StoreError};
use utoipa::IntoParams;

use crate::app::AppState;
use crate::error::ApiError;

/// Rows a leaderboard page may hold at most.
const MAX_LIMIT: i64 = 200;
/// Rating-history lines a profile may hold at most.
const MAX_HISTORY: i64 = 500;

fn store_error(e: StoreError) -> ApiError {
    tracing::error!(error = %e, "store read failed");
    ApiError::new(ErrorCode::Unavailable, "the database is unavailable; retry")
}

fn query<T>(q: Result<Query<T>, QueryRejection>) -> Result<T, ApiError> {
    q.map(|Query(q)| q)
        .map_err(|e| ApiError::new(ErrorCode::BadRequest, e.body_text()))
}

/// A page's `limit` and `offset`, checked.
fn page(
    limit: Option<i64>,
    offset: Option<i64>,
    default: i64,
    max: i64,
) -> Result<(i64, i64), ApiError> {
    let limit = limit.unwrap_or(default);
    if !(1..=max).contains(&limit) {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            format!("limit must be 1 to {max}, got {limit}"),
        ));
    }
    let offset = offset.unwrap_or(0);
    if offset < 0 {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            format!("offset must not be negative, got {offset}"),
        ));
    }
    Ok((limit, offset))
}

/// `rows` were read with one more than `limit`: the extra row says a next page exists.
fn next_page<T>(rows: &mut Vec<T>, limit: i64, offset: i64) -> Option<i64> {
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    more.then_some(offset + limit)
}

fn parse_pool(pool: &str) -> Result<Pool, ApiError> {
    pool.parse()
        .map_err(|e: rating::UnknownPool| ApiError::new(ErrorCode::BadRequest, e.to_string()))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LeaderboardParams {
    /// `chaturaji`, `fourchess_teams` or `fourchess_ffa`.
    pool: String,
    /// Rows per page, 1..=200 (default 50).
    limit: Option<i64>,
    /// Rows skipped (default 0); the answer's `next_offset` is the next page's.
    offset: Option<i64>,
}

/// The established players of one rating pool (at least `ratings.provisional_games` rated games,
/// sigma at most `ratings.provisional_sigma`, a rated game in the pool within
/// `ratings.leaderboard_active_days`), best first by `display = round(1000 + 40·(mu − 3·sigma))`.
/// Provisional players and CPU levels (fixed anchors) are not listed.
#[utoipa::path(get, path = "/leaderboard", params(LeaderboardParams),
    responses((status = 200, body = Leaderboard), (status = 400, body = protocol::ApiError)))]
pub async fn leaderboard(
    State(state): State<AppState>,
    params: Result<Query<LeaderboardParams>, QueryRejection>,
) -> Result<Json<Leaderboard>, ApiError> {
    let params = query(params)?;
    let pool = parse_pool(&params.pool)?;
    let (limit, offset) = page(params.limit, params.offset, 50, MAX_LIMIT)?;
    let ratings = &state.config.ratings;
    let active_since = match ratings.leaderboard_active_days {
        0 => 0,
        days => store::now_millis() - i64::from(days) * 86_400_000,
    };
    let mut rows = state
        .store
        .leaderboard(
            pool,
            LeaderboardQuery {
                established: ratings.established(),
                active_since,
                limit: limit + 1,
                offset,
            },
        )
        .await
        .map_err(store_error)?;
    let next_offset = next_page(&mut rows, limit, offset);
    Ok(Json(Leaderboard {
        pool,
        rows: rows
            .into_iter()
            .map(|row| LeaderboardRow {
                rank: row.rank,
                player_id: row.player_id,
                display_name: row.display_name,
                is_cpu: row.is_cpu,
                display: row.display,
                mu: row.rating.mu,
                sigma: row.rating.sigma,
                games: row.games,
            })
            .collect(),
        next_offset,
        min_games: ratings.provisional_games,
        max_sigma: ratings.provisional_sigma,
        active_days: ratings.leaderboard_active_days,
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ProfileParams {
    /// Rating-history lines, newest first, 0..=500 (default 50).
    history: Option<i64>,
}

fn history_entry(h: store::HistoryEntry) -> RatingHistoryEntry {
    RatingHistoryEntry {
        pool: h.pool,
        game_id: h.game_id,
        games: h.games,
        before: RatingValue::from(h.before),
        after: RatingValue::from(h.after),
        at: h.at,
    }
}

/// A player's ratings in every pool they played (marked `provisional` until established) and their
/// latest rating changes, newest first. A CPU level shows its fixed anchor in every pool.
#[utoipa::path(get, path = "/players/{id}", params(("id" = String, Path), ProfileParams),
    responses((status = 200, body = PlayerProfile), (status = 404, body = protocol::ApiError)))]
pub async fn player(
    State(state): State<AppState>,
    Path(id): Path<String>,
    params: Result<Query<ProfileParams>, QueryRejection>,
) -> Result<Json<PlayerProfile>, ApiError> {
    let history = query(params)?.history.unwrap_or(50);
    if !(0..=MAX_HISTORY).contains(&history) {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            format!("history must be 0 to {MAX_HISTORY}, got {history}"),
        ));
    }
    let profile = state
        .store
        .profile(&id, history)
        .await
        .map_err(store_error)?
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound, format!("no player `{id}`")))?;
    let established = state.config.ratings.established();
    let ratings = if rating::is_cpu_player(&id) {
        Pool::ALL
            .into_iter()
            .filter_map(|pool| {
                rating::anchor_of(pool, &id).map(|anchor| PoolRatingInfo {
                    pool,
                    rating: RatingValue::from(anchor),
                    games: 0,
                    provisional: false,
                })
            })
            .collect()
    } else {
        profile
            .ratings
            .into_iter()
            .map(|r| PoolRatingInfo {
                pool: r.pool,
                provisional: !established.holds(&r.rating, r.games),
                rating: RatingValue::from(r.rating),
                games: r.games,
            })
            .collect()
    };
    Ok(Json(PlayerProfile {
        player: PlayerInfo {
            id: profile.player.id,
            display_name: profile.player.display_name,
            is_cpu: profile.player.is_cpu,
            created_at: profile.player.created_at,
        },
        ratings,
        history: profile.history.into_iter().map(history_entry).collect(),
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HistoryParams {
    /// `chaturaji`, `fourchess_teams` or `fourchess_ffa`.
    pool: String,
    /// Lines per page, 1..=500 (default 100).
    limit: Option<i64>,
    /// Lines skipped, newest first (default 0); the answer's `next_offset` is the next page's.
    offset: Option<i64>,
}

/// One page of a player's rating history in one pool, newest first: what the profile's chart draws.
#[utoipa::path(get, path = "/players/{id}/history", params(("id" = String, Path), HistoryParams),
    responses((status = 200, body = RatingHistory), (status = 400, body = protocol::ApiError),
              (status = 404, body = protocol::ApiError)))]
pub async fn history(
    State(state): State<AppState>,
    Path(id): Path<String>,
    params: Result<Query<HistoryParams>, QueryRejection>,
) -> Result<Json<RatingHistory>, ApiError> {
    let params = query(params)?;
    let pool = parse_pool(&params.pool)?;
    let (limit, offset) = page(params.limit, params.offset, 100, MAX_HISTORY)?;
    if state
        .store
        .player(&id)
        .await
        .map_err(store_error)?
        .is_none()
    {
        return Err(ApiError::new(
            ErrorCode::NotFound,
            format!("no player `{id}`"),
        ));
    }
    let mut entries = state
        .store
        .rating_history(
            &id,
            HistoryQuery {
                pool,
                limit: limit + 1,
                offset,
            },
        )
        .await
        .map_err(store_error)?;
    let next_offset = next_page(&mut entries, limit, offset);
    Ok(Json(RatingHistory {
        player_id: id,
        pool,
        entries: entries.into_iter().map(history_entry).collect(),
        next_offset,
    }))
}

async fn load_game(state: &AppState, id: &str) -> Result<store::GameRecord, ApiError> {
    state
        .store
        .game(id)
        .await
        .map_err(store_error)?
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound, format!("no finished game `{id}`")))
}

/// A finished game's full record and the rating changes it caused.
///
/// The record holds everything needed to check the game without trusting this server: the house
/// rules, the first seat, every action in order (each dice throw is the room's `roll` action), the
/// `dice_commit` published when the game started and the `dice_seed` revealed at its end, and the
/// outcome. To check it, save this body and run `fourkings verify FILE.json`: it recomputes
/// `hex(sha256(seed))` against `dice_commit`, regenerates every throw from the seed
/// (`rand_chacha::ChaCha20Rng::from_seed(seed)` (rand 0.9); for each turn that starts with a throw,
/// in order, two draws `rng.random_range(lo..=hi)` for die 0 then die 1, with `lo..=hi` = `1..=6`
/// for `cube` dice and `2..=5` for `long` dice), replays every action through the rules and compares
/// the outcome, and says exactly where the record disagrees.
#[utoipa::path(get, path = "/games/{id}", params(("id" = String, Path)),
    responses((status = 200, body = FinishedGameBody), (status = 404, body = protocol::ApiError)))]
pub async fn game(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<FinishedGameBody>, ApiError> {
    let stored = load_game(&state, &id).await?;
    Ok(Json(FinishedGameBody {
        record: stored.game.record,
        rating_changes: stored
            .rating_changes
            .into_iter()
            .map(|c| GameRatingChange {
                player_id: c.player_id,
                seats: c.seats,
                before: RatingValue::from(c.before),
                after: RatingValue::from(c.after),
            })
            .collect(),
        unrated_reason: stored.game.unrated.map(|r| r.as_str().to_owned()),
    }))
}

/// A four-player chess game as chess.com-compatible PGN4 (`text/plain`). Chaturaji games have no
/// PGN4: 422 `wrong_game`.
#[utoipa::path(get, path = "/games/{id}/pgn4", params(("id" = String, Path)),
    responses((status = 200, body = String, content_type = "text/plain"),
              (status = 404, body = protocol::ApiError),
              (status = 422, body = protocol::ApiError)))]
pub async fn pgn4(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let stored = load_game(&state, &id).await?;
    let bad_record = |why: String| {
        tracing::error!(game = %id, %why, "a stored record does not replay");
        ApiError::new(
            ErrorCode::BadRecord,
            format!("the stored record of `{id}` does not replay: {why}"),
        )
    };
    let doc: GameRecordDoc =
        serde_json::from_value(stored.game.record).map_err(|e| bad_record(e.to_string()))?;
    if doc.game != GameKind::Fourchess {
        return Err(ApiError::new(
            ErrorCode::WrongGame,
            format!(
                "`{id}` is a {} game; PGN4 is for four-player chess",
                doc.game.name()
            ),
        ));
    }
    let (report, game) = room::verify::replay(&doc);
    if let Some(problem) = report.problems.first() {
        return Err(bad_record(problem.to_string()));
    }
    let Some(TableGame::Fourchess { game, .. }) = game else {
        return Err(bad_record("not a four-player chess game".into()));
    };
    Ok((
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        rules::fourchess::export_pgn4(&game),
    )
        .into_response())
}

/// A finished game action by action, each with what it did and the public state after it,
/// replayed on the server through the rules from the stored record (what the replay page
/// `/?game={id}` shows). Paged like `GET /rooms/{id}/positions`.
#[utoipa::path(get, path = "/games/{id}/positions", params(("id" = String, Path), crate::rest::PositionsParams),
    responses((status = 200, body = protocol::GamePositions), (status = 400, body = protocol::ApiError),
              (status = 404, body = protocol::ApiError), (status = 500, body = protocol::ApiError)))]
pub async fn game_positions(
    State(state): State<AppState>,
    Path(id): Path<String>,
    params: Result<Query<crate::rest::PositionsParams>, QueryRejection>,
) -> Result<Json<protocol::GamePositions>, ApiError> {
    let (from, limit) = crate::rest::positions_page(params)?;
    let stored = load_game(&state, &id).await?;
    let doc: GameRecordDoc = serde_json::from_value(stored.game.record).map_err(|e| {
        tracing::error!(game = %id, error = %e, "a stored record does not read");
        ApiError::new(
            ErrorCode::BadRecord,
            format!("the stored record of `{id}` does not read: {e}"),
        )
    })?;
    let log = room::replay::GameLog::of_record(&doc);
    Ok(Json(
        crate::rest::replay_page(doc.room, log, from, limit).await?,
    ))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct GamesParams {
    /// Games per page: `limits.games_page_default` (20) when absent, at most
    /// `limits.games_page_max` (100).
    limit: Option<usize>,
    /// The previous page's `next_cursor`; absent for the newest games.
    cursor: Option<String>,
}

fn games_limit(state: &AppState, limit: Option<usize>) -> Result<usize, ApiError> {
    let limits = &state.config.limits;
    let limit = limit.unwrap_or(limits.games_page_default);
    if limit == 0 || limit > limits.games_page_max {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            format!("limit must be 1 to {}, got {limit}", limits.games_page_max),
        ));
    }
    Ok(limit)
}

fn bad_cursor(cursor: &str) -> ApiError {
    ApiError::new(
        ErrorCode::BadRequest,
        format!("`{cursor}` is not a cursor of this list (pass a page's `next_cursor`)"),
    )
}

/// The parts of a stored record's seat and of a standing that a list shows; anything else the
/// record holds is not read.
#[derive(Deserialize)]
struct ListedSeat {
    seat: protocol::Seat,
    #[serde(default)]
    name: String,
    #[serde(default)]
    player_id: Option<String>,
}

#[derive(Deserialize)]
struct ListedStanding {
    seat: protocol::Seat,
    place: u8,
    #[serde(default)]
    points: i64,
}

fn list_entry(g: store::GameSummary) -> Result<GameListEntry, ApiError> {
    let bad = |e: serde_json::Error| {
        tracing::error!(game = %g.id, error = %e, "a stored game does not list");
        ApiError::new(
            ErrorCode::BadRecord,
            format!("the stored game `{}` does not read: {e}", g.id),
        )
    };
    let seats: Vec<ListedSeat> = serde_json::from_value(g.seats.clone()).map_err(bad)?;
    let standings: Vec<ListedStanding> =
        serde_json::from_value(g.standings.clone()).map_err(bad)?;
    let standing = |seat| standings.iter().find(|s| s.seat == seat);
    Ok(GameListEntry {
        game: match g.pool {
            Pool::Chaturaji => GameKind::Chaturaji,
            Pool::FourchessTeams | Pool::FourchessFfa => GameKind::Fourchess,
        },
        seats: seats
            .into_iter()
            .map(|s| GameListSeat {
                place: standing(s.seat).map_or(0, |x| x.place),
                points: standing(s.seat).map_or(0, |x| x.points),
                seat: s.seat,
                name: s.name,
                player_id: s.player_id,
            })
            .collect(),
        winners: standings
            .iter()
            .filter(|s| s.place == 1)
            .map(|s| s.seat)
            .collect(),
        rating: g.rating.map(|(before, after)| GameListRating {
            before: RatingValue::from(before),
            after: RatingValue::from(after),
        }),
        unrated_reason: g.unrated.map(|r| r.as_str().to_owned()),
        game_id: g.id,
        room: g.room_id,
        game_no: g.game_no.max(0) as u32,
        pool: g.pool,
        finished_at: g.finished_at,
    })
}

/// `rows` were read with one more than `limit`: the extra row says a next page exists.
fn more<T>(rows: &mut Vec<T>, limit: usize) -> bool {
    let more = rows.len() > limit;
    rows.truncate(limit);
    more
}

/// A room's finished games, the latest first: game number, when, who sat where, the standings and
/// the winners, each with its replay (`/?game={game_id}`).
#[utoipa::path(get, path = "/rooms/{id}/games", params(("id" = String, Path), GamesParams),
    responses((status = 200, body = RoomGames), (status = 400, body = protocol::ApiError),
              (status = 404, body = protocol::ApiError)))]
pub async fn room_games(
    State(state): State<AppState>,
    Path(id): Path<String>,
    params: Result<Query<GamesParams>, QueryRejection>,
) -> Result<Json<RoomGames>, ApiError> {
    let params = query(params)?;
    let limit = games_limit(&state, params.limit)?;
    let before = match &params.cursor {
        None => None,
        Some(c) => Some(c.parse::<i32>().map_err(|_| bad_cursor(c))?),
    };
    if state.store.room(&id).await.map_err(store_error)?.is_none() {
        return Err(ApiError::new(
            ErrorCode::UnknownRoom,
            format!("no room `{id}`"),
        ));
    }
    let mut rows = state
        .store
        .room_games(
            &id,
            store::RoomGamesQuery {
                before,
                limit: limit as i64 + 1,
            },
        )
        .await
        .map_err(store_error)?;
    let next_cursor = more(&mut rows, limit)
        .then(|| rows.last().map(|g| g.game_no.to_string()))
        .flatten();
    Ok(Json(RoomGames {
        room: id,
        games: rows.into_iter().map(list_entry).collect::<Result<_, _>>()?,
        next_cursor,
    }))
}

/// The finished games a player held a seat in, newest first, with their rating change in each
/// rated one: what the profile lists, each linking to its replay (`/?game={game_id}`).
#[utoipa::path(get, path = "/players/{id}/games", params(("id" = String, Path), GamesParams),
    responses((status = 200, body = PlayerGames), (status = 400, body = protocol::ApiError),
              (status = 404, body = protocol::ApiError)))]
pub async fn player_games(
    State(state): State<AppState>,
    Path(id): Path<String>,
    params: Result<Query<GamesParams>, QueryRejection>,
) -> Result<Json<PlayerGames>, ApiError> {
    let params = query(params)?;
    let limit = games_limit(&state, params.limit)?;
    // `{finished_at}:{game id}` of the previous page's last game.
    let before = match &params.cursor {
        None => None,
        Some(c) => {
            let (at, game) = c.split_once(':').ok_or_else(|| bad_cursor(c))?;
            let at = at.parse::<i64>().map_err(|_| bad_cursor(c))?;
            if game.is_empty() {
                return Err(bad_cursor(c));
            }
            Some((at, game.to_owned()))
        }
    };
    if state
        .store
        .player(&id)
        .await
        .map_err(store_error)?
        .is_none()
    {
        return Err(ApiError::new(
            ErrorCode::NotFound,
            format!("no player `{id}`"),
        ));
    }
    let mut rows = state
        .store
        .player_games(
            &id,
            store::PlayerGamesQuery {
                before,
                limit: limit as i64 + 1,
            },
        )
        .await
        .map_err(store_error)?;
    let next_cursor = more(&mut rows, limit)
        .then(|| rows.last().map(|g| format!("{}:{}", g.finished_at, g.id)))
        .flatten();
    Ok(Json(PlayerGames {
        player_id: id,
        games: rows.into_iter().map(list_entry).collect::<Result<_, _>>()?,
        next_cursor,
    }))
}
