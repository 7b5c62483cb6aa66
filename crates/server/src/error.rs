//! One REST error type: `{"error":{"code","message"}}` with a status from the code.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use protocol::{ApiErrorBody, ErrorCode};
use room::RoomError;

#[derive(Debug)]
pub struct ApiError(pub RoomError);

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError(RoomError::new(code, message))
    }
}

impl From<RoomError> for ApiError {
    fn from(e: RoomError) -> Self {
        ApiError(e)
    }
}

pub fn status_of(code: ErrorCode) -> StatusCode {
    use ErrorCode::*;
    match code {
        BadJson | UnknownType | BadMessage | BadOptions | BadRequest => StatusCode::BAD_REQUEST,
        BadToken => StatusCode::FORBIDDEN,
        UnknownRoom | NotFound => StatusCode::NOT_FOUND,
        WrongGame => StatusCode::UNPROCESSABLE_ENTITY,
        BadRecord => StatusCode::INTERNAL_SERVER_ERROR,
        RoomFull | SeatTaken | GameRunning | GameOver | NoGame | NotYourTurn | IllegalAction
        | NotJoined | Spectator => StatusCode::CONFLICT,
        TooManyRooms | TooManyConnections | Unavailable => StatusCode::SERVICE_UNAVAILABLE,
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        crate::telemetry::error_sent(self.0.code);
        let body = protocol::ApiError {
            error: ApiErrorBody {
                code: self.0.code,
                message: self.0.message,
                details: self.0.details,
            },
        };
        (status_of(self.0.code), Json(body)).into_response()
    }
}
