//! The OpenAPI document of the REST API, served at `/openapi.json`.

use axum::Json;
use utoipa::OpenApi;

use crate::{records, rest};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "fourkings",
        description = "Rooms for Chaturaji and four-player chess. The game itself runs over the WebSocket at /ws (see docs/protocol.md). Finished games, ratings and leaderboards are read here; every game record can be checked with `fourkings verify` (see GET /games/{id})."
    ),
    paths(
        rest::healthz,
        rest::readyz,
        rest::create_player,
        rest::create_room,
        rest::list_rooms,
        rest::get_room,
        rest::change_settings,
        rest::join,
        rest::seat_cpu,
        rest::start,
        rest::rematch,
        rest::unseat,
        rest::lock,
        rest::unlock,
        rest::handover,
        rest::mute,
        rest::hide,
        rest::positions,
        records::leaderboard,
        records::player,
        records::history,
        records::game,
        records::pgn4,
        records::game_positions,
        records::room_games,
        records::player_games
    )
)]
pub struct ApiDoc;

pub async fn serve() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}
