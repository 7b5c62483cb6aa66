//! REST handlers. Only the host token changes a room (`Authorization: Bearer <host_token>`).

use axum::Json;
use axum::extract::rejection::JsonRejection;
use std::net::IpAddr;

use axum::extract::{Extension, OriginalUri, Path, Query, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use protocol::{
    ChangeSettings, CreatePlayer, CreateRoom, CreatedPlayer, CreatedRoom, ErrorCode, Health,
    HideMessage, JoinRoom, Joined, MuteSeat, Readiness, RoomInfo, RoomList, SeatCpu, SeatOrder,
};
use room::game::TableOptions;
use room::{RoomError, RoomHandle, RoomSettings};
use store::StoreError;

use crate::app::AppState;
use crate::client::ClientIp;
use crate::cluster::{self, Located};
use crate::error::ApiError;
use crate::registry::Slot;
use crate::telemetry::{CLIENT_LIMITED, HOST_ORDERS};

type ApiResult<T> = Result<Json<T>, ApiError>;

fn body<T>(body: Result<Json<T>, JsonRejection>) -> Result<T, ApiError> {
    body.map(|Json(b)| b).map_err(|e| match e {
        // Past `limits.max_body_bytes` (the router's body limit): nothing more is read.
        e if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            ApiError::new(ErrorCode::BodyTooLarge, "the request body is too large")
        }
        JsonRejection::JsonSyntaxError(_) | JsonRejection::MissingJsonContentType(_) => {
            ApiError::new(ErrorCode::BadJson, e.body_text())
        }
        _ => ApiError::new(ErrorCode::BadMessage, e.body_text()),
    })
}

fn host_token(headers: &HeaderMap) -> Result<String, ApiError> {
    headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned)
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::BadToken,
                "send the host token as `Authorization: Bearer <token>`",
            )
        })
}

/// The room if this node serves it (cluster mode: claimed here if nobody does); a 307 to the same
/// request on the node that serves it otherwise.
async fn room(state: &AppState, id: &str, uri: &Uri) -> Result<RoomHandle, ApiError> {
    cluster::find_room(state, id).await.map_err(|at| match at {
        Located::Unknown => ApiError::new(ErrorCode::UnknownRoom, format!("no room `{id}`")),
        Located::Unavailable(why) => {
            tracing::warn!(room = %id, error = %why, "cannot locate the room");
            ApiError::new(ErrorCode::Unavailable, "the database is unavailable")
        }
        Located::Elsewhere(base) => {
            let path = uri.path_and_query().map_or(uri.path(), |p| p.as_str());
            ApiError::redirect(
                format!("room {id} is served by another node"),
                format!("{base}{path}"),
            )
        }
    })
}

#[utoipa::path(get, path = "/healthz", responses((status = 200, body = Health)))]
pub async fn healthz(State(state): State<AppState>) -> Json<Health> {
    Json(Health {
        status: "ok".into(),
        rooms: state.registry.len(),
    })
}

/// Ready to serve: the database answers and the log writer writes straight to it. During a database
/// outage games go on (accepted actions wait in the local spool) but the server is not ready: 503
/// with the reason.
#[utoipa::path(get, path = "/readyz",
    responses((status = 200, body = Readiness), (status = 503, body = Readiness)))]
pub async fn readyz(State(state): State<AppState>) -> (StatusCode, Json<Readiness>) {
    let ping = tokio::time::timeout(std::time::Duration::from_secs(2), state.store.ping()).await;
    let database_error = match ping {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(format!("database: {e}")),
        Err(_) => Some("database: no answer to a ping within 2 s".to_owned()),
    };
    let (writer_ready, spooled, writer_problem) = match (&state.writer, &state.cluster) {
        (Some(writer), _) => {
            let health = writer.health();
            let problem = (!health.ready).then(|| {
                format!(
                    "log writer: {} entries wait in the spool ({})",
                    health.spooled,
                    health
                        .last_error
                        .as_deref()
                        .unwrap_or("database unreachable")
                )
            });
            (health.ready, health.spooled, problem)
        }
        (None, Some(node)) => {
            let ok = node.lease_ok();
            let problem = (!ok).then(|| "cluster: lease lost, registering again".to_owned());
            (ok, 0, problem)
        }
        (None, None) => (true, 0, None),
    };
    let reason = database_error.clone().or(writer_problem);
    let body = Readiness {
        ready: reason.is_none(),
        database: database_error.is_none(),
        writer: writer_ready,
        spooled,
        reason,
    };
    let status = if body.ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, Json(body))
}

/// A store failure as the client sees it: a bad request for bad input, `unavailable` otherwise.
fn store_error(e: StoreError) -> ApiError {
    match e {
        StoreError::InvalidName(why) => ApiError::new(
            ErrorCode::BadMessage,
            format!("invalid display name: {why}"),
        ),
        e => {
            tracing::warn!(error = %e, "store request failed");
            ApiError::new(ErrorCode::Unavailable, "the database is unavailable")
        }
    }
}

/// A new anonymous player for this device: keep the secret (it is shown once) and join rooms with
/// `player_id` + `player_secret` so that rated games count for this player.
#[utoipa::path(post, path = "/players", request_body = CreatePlayer,
    responses((status = 200, body = CreatedPlayer), (status = 400, body = protocol::ApiError)))]
pub async fn create_player(
    State(state): State<AppState>,
    req: Result<Json<CreatePlayer>, JsonRejection>,
) -> ApiResult<CreatedPlayer> {
    let req = body(req)?;
    // The store applies the one rule for every display name (`protocol::name`, seat names too);
    // `store_error` answers its refusal with `bad_message`.
    let new = state
        .store
        .create_player(&req.display_name)
        .await
        .map_err(store_error)?;
    Ok(Json(CreatedPlayer {
        player_id: new.player.id,
        secret: new.secret,
        display_name: new.player.display_name,
    }))
}

/// Create a room: the answer carries the room id, an invite link and the secret host token.
#[utoipa::path(post, path = "/rooms", request_body = CreateRoom,
    responses((status = 200, body = CreatedRoom), (status = 400, body = protocol::ApiError)))]
pub async fn create_room(
    State(state): State<AppState>,
    Extension(ClientIp(client)): Extension<ClientIp>,
    req: Result<Json<CreateRoom>, JsonRejection>,
) -> ApiResult<CreatedRoom> {
    let req = body(req)?;
    let max_details = state.config.limits.max_error_details;
    let options = TableOptions::normalize(req.game, &req.options).map_err(|details| {
        ApiError::from(RoomError {
            code: ErrorCode::BadOptions,
            message: format!("{} problem(s) with the house rules", details.len()),
            details,
        })
        .capped(max_details)
    })?;
    let settings = RoomSettings {
        options,
        turn_time: req.turn_time,
        rated: req.rated,
        public: req.public,
        spectator_chat: req.spectator_chat,
    };
    let slot = take_slot(&state, client).await?;
    let host_token = secrets::new_token();
    let id = state.registry.fresh_id();
    // The room row first (the log refers to it), then the room's first log record.
    state
        .store
        .create_room(&store::NewRoom {
            id: id.clone(),
            game_kind: settings.game().name().to_owned(),
            options: settings.options.to_json(),
            host_token: host_token.clone(),
            settings: serde_json::json!({
                "turn_time": settings.turn_time,
                "rated": settings.rated,
                "public": settings.public,
                "spectator_chat": settings.spectator_chat,
            }),
        })
        .await
        .map_err(store_error)?;
    // Cluster mode: this node owns the room before its first record is written.
    let claimed = match &state.cluster {
        Some(node) => Some((
            node,
            cluster::claim_new(node, &id).await.map_err(store_error)?,
        )),
        None => None,
    };
    let created = room::create(
        id.clone(),
        settings,
        &host_token,
        state.room_config.clone(),
        state.log.clone(),
        state.bot.clone(),
    )
    .await;
    match (created, claimed) {
        (Ok(handle), None) => slot.fill(id.clone(), handle),
        // Cluster mode: the room's first record is written; the room is handed back so that the
        // first request for it claims it wherever it lands. Behind a balancer that hashes on the
        // room id that is the node all its later requests go to, so they need no redirect.
        (Ok(handle), Some((node, fence))) => {
            handle.stop().await;
            cluster::hand_back_new(node, &fence).await;
        }
        (Err(e), Some((node, fence))) => {
            cluster::unclaim(node, &fence);
            return Err(e.into());
        }
        (Err(e), None) => return Err(e.into()),
    }
    Ok(Json(CreatedRoom {
        invite: format!("{}/?room={id}", state.base_url),
        room: id,
        host_token,
    }))
}

/// A place for `client`'s new room: under the global cap (`server.max_rooms`, 503 `too_many_rooms`)
/// and under its own cap of open lobbies (`limits.max_open_lobbies_per_client`, 429 `client_limit`).
async fn take_slot(state: &AppState, client: IpAddr) -> Result<Slot<'_>, ApiError> {
    let _one_at_a_time = state.registry.creating(client).await;
    let (theirs, pending) = state.registry.created_by(client);
    let phases = futures_util::future::join_all(
        theirs
            .iter()
            .map(|room| tokio::time::timeout(std::time::Duration::from_millis(500), room.info())),
    )
    .await;
    // A room too busy to answer counts as a lobby: the cap errs on the side of holding.
    let lobbies = pending
        + phases
            .into_iter()
            .filter(|p| !matches!(p, Ok(Ok(info)) if info.phase != protocol::Phase::Lobby))
            .count();
    let max = state.config.limits.max_open_lobbies_per_client;
    if lobbies >= max {
        metrics::counter!(CLIENT_LIMITED, "what" => "lobbies").increment(1);
        return Err(ApiError::new(
            ErrorCode::ClientLimit,
            format!(
                "this client holds {lobbies} open lobbies, the most one client may (start a game in one, or let them expire)"
            ),
        ));
    }
    state
        .registry
        .reserve(state.config.server.max_rooms, client)
        .ok_or_else(|| ApiError::new(ErrorCode::TooManyRooms, "the server holds too many rooms"))
}

/// Which rooms `GET /rooms` lists: one page of them, in id order.
#[derive(Debug, Default, serde::Deserialize, utoipa::IntoParams)]
pub struct ListScope {
    /// `node`: only the rooms served by the node asked (what nodes of a cluster ask each other).
    /// By default a cluster node lists the rooms of every live node.
    pub scope: Option<String>,
    /// Rooms per page: `limits.rooms_page_default` when absent, at most `limits.rooms_page_max`.
    pub limit: Option<usize>,
    /// The cursor: the `next` of the previous page (rooms with a greater id follow).
    pub after: Option<String>,
}

/// How long a cluster node waits for each other node's rooms before listing without them.
const PEER_LIST_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(1500);

/// The public rooms (invite-only rooms are never listed); in cluster mode those of every live node.
/// One page at a time: `next` is the cursor of the following page.
#[utoipa::path(get, path = "/rooms", params(ListScope),
    responses((status = 200, body = RoomList), (status = 400, body = protocol::ApiError),
              (status = 429, body = protocol::ApiError)))]
pub async fn list_rooms(
    State(state): State<AppState>,
    Query(query): Query<ListScope>,
) -> ApiResult<RoomList> {
    let limits = &state.config.limits;
    let limit = query.limit.unwrap_or(limits.rooms_page_default);
    if limit == 0 || limit > limits.rooms_page_max {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            format!("`limit` must be 1 to {}", limits.rooms_page_max),
        ));
    }
    let after = query.after.unwrap_or_default();
    // Room ids are URL-safe tokens; anything else is no cursor this server gave out.
    if !after
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            "`after` is not a room id: pass the `next` of the previous page",
        ));
    }
    // One more than a page, to know whether another follows.
    let mut rooms = Vec::new();
    let mut more = false;
    let mut cursor = after.clone();
    'pages: loop {
        // Rooms in steps of a page, so that a list of the first rooms does not copy all of them.
        let step = state.registry.after(&cursor, limit + 1);
        let Some((last, _)) = step.last() else { break };
        cursor = last.clone();
        for (_, handle) in step {
            if rooms.len() > limit {
                break 'pages;
            }
            if let Ok(info) = handle.info().await {
                if info.public {
                    rooms.push(info);
                }
            }
        }
    }
    if let Some(node) = state
        .cluster
        .as_ref()
        .filter(|_| query.scope.as_deref() != Some("node"))
    {
        match node.peers().await {
            Ok(peers) => {
                let path = format!("/rooms?scope=node&limit={limit}&after={after}");
                let asked = peers.iter().map(|url| {
                    let path = &path;
                    async move {
                        let answer =
                            crate::peers::get_json::<RoomList>(url, path, PEER_LIST_TIMEOUT).await;
                        (url, answer)
                    }
                });
                for (url, answer) in futures_util::future::join_all(asked).await {
                    match answer {
                        Ok(list) => {
                            // A peer with more than a page: the merged list has more too.
                            more |= list.next.is_some();
                            rooms.extend(list.rooms);
                        }
                        Err(e) => {
                            tracing::warn!(peer = %url, error = %e, "cluster: a node's rooms are left out of the list")
                        }
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "cluster: listing this node's rooms only"),
        }
    }
    rooms.sort_by(|a, b| a.id.cmp(&b.id));
    // A room changing hands can be answered by two nodes for a moment.
    rooms.dedup_by(|a, b| a.id == b.id);
    more |= rooms.len() > limit;
    rooms.truncate(limit);
    let next = rooms.last().filter(|_| more).map(|r| r.id.clone());
    Ok(Json(RoomList { rooms, next }))
}

#[utoipa::path(get, path = "/rooms/{id}", params(("id" = String, Path)),
    responses((status = 200, body = RoomInfo), (status = 404, body = protocol::ApiError)))]
pub async fn get_room(
    State(state): State<AppState>,
    Path(id): Path<String>,
    OriginalUri(uri): OriginalUri,
) -> ApiResult<RoomInfo> {
    Ok(Json(room(&state, &id, &uri).await?.info().await?))
}

/// Change house rules and room settings while no game is running (host token).
#[utoipa::path(put, path = "/rooms/{id}/settings", params(("id" = String, Path)),
    request_body = ChangeSettings,
    responses((status = 200, body = RoomInfo), (status = 400, body = protocol::ApiError),
              (status = 403, body = protocol::ApiError), (status = 409, body = protocol::ApiError)))]
pub async fn change_settings(
    State(state): State<AppState>,
    Path(id): Path<String>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    req: Result<Json<ChangeSettings>, JsonRejection>,
) -> ApiResult<RoomInfo> {
    let handle = room(&state, &id, &uri).await?;
    let host = host_token(&headers)?;
    let req = body(req)?;
    let max_details = state.config.limits.max_error_details;
    let info = handle
        .change_settings(host, req)
        .await
        .map_err(|e| ApiError::from(e).capped(max_details))?;
    Ok(Json(info))
}

/// Take the first free seat with a display name; the answer carries the secret seat token. With
/// `player_id` and `player_secret` (from `POST /players`) the seat plays under that identity; a wrong
/// secret is `bad_token`.
#[utoipa::path(post, path = "/rooms/{id}/join", params(("id" = String, Path)),
    request_body = JoinRoom,
    responses((status = 200, body = Joined), (status = 409, body = protocol::ApiError)))]
pub async fn join(
    State(state): State<AppState>,
    Path(id): Path<String>,
    OriginalUri(uri): OriginalUri,
    req: Result<Json<JoinRoom>, JsonRejection>,
) -> ApiResult<Joined> {
    let handle = room(&state, &id, &uri).await?;
    let req = body(req)?;
    let player_id = match (req.player_id, req.player_secret) {
        (None, None) => None,
        (Some(player), Some(secret)) => {
            let found = state
                .store
                .authenticate_player(&player, &secret)
                .await
                .map_err(store_error)?;
            match found {
                Some(p) => Some(p.id),
                None => {
                    return Err(ApiError::new(
                        ErrorCode::BadToken,
                        "unknown player or wrong player secret",
                    ));
                }
            }
        }
        _ => {
            return Err(ApiError::new(
                ErrorCode::BadMessage,
                "send `player_id` and `player_secret` together",
            ));
        }
    };
    Ok(Json(handle.join(req.name, player_id).await?))
}

/// Seat a CPU player at a level in a free seat (host token).
#[utoipa::path(post, path = "/rooms/{id}/cpu", params(("id" = String, Path)),
    request_body = SeatCpu,
    responses((status = 200, body = RoomInfo), (status = 409, body = protocol::ApiError)))]
pub async fn seat_cpu(
    State(state): State<AppState>,
    Path(id): Path<String>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    req: Result<Json<SeatCpu>, JsonRejection>,
) -> ApiResult<RoomInfo> {
    let handle = room(&state, &id, &uri).await?;
    let host = host_token(&headers)?;
    let req = body(req)?;
    Ok(Json(handle.seat_cpu(host, req.seat, req.level).await?))
}

/// Start the game; every empty seat gets a CPU player (host token).
#[utoipa::path(post, path = "/rooms/{id}/start", params(("id" = String, Path)),
    responses((status = 200, body = RoomInfo), (status = 409, body = protocol::ApiError)))]
pub async fn start(
    State(state): State<AppState>,
    Path(id): Path<String>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
) -> ApiResult<RoomInfo> {
    let handle = room(&state, &id, &uri).await?;
    let host = host_token(&headers)?;
    Ok(Json(handle.start(host, false).await?))
}

/// Start the next game in the same room, first seat rotated unless the house rules fix it.
#[utoipa::path(post, path = "/rooms/{id}/rematch", params(("id" = String, Path)),
    responses((status = 200, body = RoomInfo), (status = 409, body = protocol::ApiError)))]
pub async fn rematch(
    State(state): State<AppState>,
    Path(id): Path<String>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
) -> ApiResult<RoomInfo> {
    let handle = room(&state, &id, &uri).await?;
    let host = host_token(&headers)?;
    Ok(Json(handle.start(host, true).await?))
}

/// Actions a `GET /rooms/{id}/positions` (or `GET /games/{id}/positions`) page may hold at most.
pub(crate) const MAX_POSITIONS: usize = 1000;
/// A host order about people went through: count it.
fn carried_out(order: &'static str, info: RoomInfo) -> ApiResult<RoomInfo> {
    metrics::counter!(HOST_ORDERS, "order" => order).increment(1);
    Ok(Json(info))
}

/// Free an occupied seat before a game (host token): the seat can be taken again, and a removed
/// player's seat token is refused with `unseated` (they are told why).
#[utoipa::path(post, path = "/rooms/{id}/unseat", params(("id" = String, Path)),
    request_body = SeatOrder,
    responses((status = 200, body = RoomInfo), (status = 403, body = protocol::ApiError),
              (status = 409, body = protocol::ApiError)))]
pub async fn unseat(
    State(state): State<AppState>,
    Path(id): Path<String>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    req: Result<Json<SeatOrder>, JsonRejection>,
) -> ApiResult<RoomInfo> {
    let handle = room(&state, &id, &uri).await?;
    let host = host_token(&headers)?;
    let req = body(req)?;
    carried_out("unseat", handle.unseat(host, req.seat).await?)
}

/// Lock the room (host token): no more joins (`room_locked`); seated players and spectators stay.
#[utoipa::path(post, path = "/rooms/{id}/lock", params(("id" = String, Path)),
    responses((status = 200, body = RoomInfo), (status = 403, body = protocol::ApiError)))]
pub async fn lock(
    State(state): State<AppState>,
    Path(id): Path<String>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
) -> ApiResult<RoomInfo> {
    let handle = room(&state, &id, &uri).await?;
    let host = host_token(&headers)?;
    carried_out("lock", handle.lock(host, true).await?)
}

/// Unlock the room (host token): free seats can be joined again.
#[utoipa::path(post, path = "/rooms/{id}/unlock", params(("id" = String, Path)),
    responses((status = 200, body = RoomInfo), (status = 403, body = protocol::ApiError)))]
pub async fn unlock(
    State(state): State<AppState>,
    Path(id): Path<String>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
) -> ApiResult<RoomInfo> {
    let handle = room(&state, &id, &uri).await?;
    let host = host_token(&headers)?;
    carried_out("unlock", handle.lock(host, false).await?)
}

/// Hand an absent player's seat to the CPU for the rest of the running game (host token): the CPU
/// plays it to the end, the player keeps the seat's place in the standings, and their return does
/// not take it back (`handed_over`).
#[utoipa::path(post, path = "/rooms/{id}/handover", params(("id" = String, Path)),
    request_body = SeatOrder,
    responses((status = 200, body = RoomInfo), (status = 403, body = protocol::ApiError),
              (status = 409, body = protocol::ApiError)))]
pub async fn handover(
    State(state): State<AppState>,
    Path(id): Path<String>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    req: Result<Json<SeatOrder>, JsonRejection>,
) -> ApiResult<RoomInfo> {
    let handle = room(&state, &id, &uri).await?;
    let host = host_token(&headers)?;
    let req = body(req)?;
    carried_out("handover", handle.handover(host, req.seat).await?)
}

/// Mute a seat's chat until the end of the game (between games: of the next one), or unmute it
/// with `muted: false` (host token).
#[utoipa::path(post, path = "/rooms/{id}/mute", params(("id" = String, Path)),
    request_body = MuteSeat,
    responses((status = 200, body = RoomInfo), (status = 403, body = protocol::ApiError),
              (status = 409, body = protocol::ApiError)))]
pub async fn mute(
    State(state): State<AppState>,
    Path(id): Path<String>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    req: Result<Json<MuteSeat>, JsonRejection>,
) -> ApiResult<RoomInfo> {
    let handle = room(&state, &id, &uri).await?;
    let host = host_token(&headers)?;
    let req = body(req)?;
    let order = if req.muted { "mute" } else { "unmute" };
    carried_out(order, handle.mute(host, req.seat, req.muted).await?)
}

/// Hide a recent chat line for everyone (host token); `not_found` if it is no longer kept.
#[utoipa::path(post, path = "/rooms/{id}/hide", params(("id" = String, Path)),
    request_body = HideMessage,
    responses((status = 200, body = RoomInfo), (status = 403, body = protocol::ApiError),
              (status = 404, body = protocol::ApiError)))]
pub async fn hide(
    State(state): State<AppState>,
    Path(id): Path<String>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    req: Result<Json<HideMessage>, JsonRejection>,
) -> ApiResult<RoomInfo> {
    let handle = room(&state, &id, &uri).await?;
    let host = host_token(&headers)?;
    let req = body(req)?;
    carried_out("hide", handle.hide(host, req.id).await?)
}

#[derive(Debug, Default, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PositionsParams {
    /// The first action's seq (default 0).
    pub from: Option<u64>,
    /// Actions per page, 1..=1000 (default 1000).
    pub limit: Option<usize>,
}

/// The current (or just finished) game action by action, each with what it did and the public
/// state after it, replayed on the server through the rules.
#[utoipa::path(get, path = "/rooms/{id}/positions", params(("id" = String, Path), PositionsParams),
    responses((status = 200, body = protocol::GamePositions), (status = 400, body = protocol::ApiError),
              (status = 404, body = protocol::ApiError), (status = 409, body = protocol::ApiError)))]
pub async fn positions(
    State(state): State<AppState>,
    Path(id): Path<String>,
    OriginalUri(uri): OriginalUri,
    params: Result<Query<PositionsParams>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<protocol::GamePositions> {
    let (from, limit) = positions_page(params)?;
    let log = room(&state, &id, &uri)
        .await?
        .game_log()
        .await?
        .ok_or_else(|| ApiError::new(ErrorCode::NoGame, "no game has started in this room"))?;
    Ok(Json(replay_page(id, log, from, limit).await?))
}

/// A positions page's `from` and `limit`, checked.
pub(crate) fn positions_page(
    params: Result<Query<PositionsParams>, axum::extract::rejection::QueryRejection>,
) -> Result<(u64, usize), ApiError> {
    let Query(params) = params.map_err(|e| ApiError::new(ErrorCode::BadRequest, e.body_text()))?;
    let limit = params.limit.unwrap_or(MAX_POSITIONS);
    if !(1..=MAX_POSITIONS).contains(&limit) {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            format!("limit must be from 1 to {MAX_POSITIONS}, got {limit}"),
        ));
    }
    Ok((params.from.unwrap_or(0), limit))
}

/// Replays `log` through the rules and answers its steps `from .. from + limit`.
pub(crate) async fn replay_page(
    room: String,
    log: room::replay::GameLog,
    from: u64,
    limit: usize,
) -> Result<protocol::GamePositions, ApiError> {
    // A few hundred actions through the rules: off the async threads all the same.
    let (game_no, game, first, total) =
        (log.game_no, log.kind, log.first, log.actions.len() as u64);
    let replayed = tokio::task::spawn_blocking(move || room::replay::replay(&log, from, limit))
        .await
        .map_err(|e| ApiError::new(ErrorCode::Unavailable, format!("replay failed: {e}")))?
        .map_err(|e| {
            tracing::error!(%room, game_no, error = %e, "a game's log does not replay");
            ApiError::new(ErrorCode::BadRecord, e)
        })?;
    Ok(protocol::GamePositions {
        room,
        game_no,
        game,
        first,
        start: replayed.start,
        total,
        steps: replayed.steps,
    })
}
