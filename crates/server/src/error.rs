//! One REST error type: `{"error":{"code","message"}}` with a status from the code; a `redirect`
//! (cluster mode) also carries the URL, as `Location` and in the body.

use axum::Json;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use protocol::{ApiErrorBody, ErrorCode};
use room::RoomError;

#[derive(Debug)]
pub struct ApiError(pub RoomError, pub Option<String>);

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError(RoomError::new(code, message), None)
    }

    /// At most `max` problems in `details`; the message says how many were left out, so a request
    /// with thousands of bad keys gets a small answer.
    pub fn capped(mut self, max: usize) -> ApiError {
        let details = &mut self.0.details;
        if details.len() > max {
            let left_out = details.len() - max;
            details.truncate(max);
            self.0.message = format!(
                "{} (the first {max} listed, {left_out} more left out)",
                self.0.message
            );
        }
        self
    }

    /// 307 to `url` (the same request on the node that serves the room).
    pub fn redirect(message: impl Into<String>, url: String) -> ApiError {
        ApiError(RoomError::new(ErrorCode::Redirect, message), Some(url))
    }
}

impl From<RoomError> for ApiError {
    fn from(e: RoomError) -> Self {
        ApiError(e, None)
    }
}

pub fn status_of(code: ErrorCode) -> StatusCode {
    use ErrorCode::*;
    match code {
        BadJson | UnknownType | BadMessage | BadOptions | BadRequest | ChatTooLong | ChatEmpty
        | UnknownPhrase => StatusCode::BAD_REQUEST,
        BadToken | Unseated | Muted | ChatClosed | HandedOver => StatusCode::FORBIDDEN,
        UnknownRoom | NotFound => StatusCode::NOT_FOUND,
        WrongGame => StatusCode::UNPROCESSABLE_ENTITY,
        BadRecord => StatusCode::INTERNAL_SERVER_ERROR,
        RoomFull | SeatTaken | GameRunning | GameOver | NoGame | NotYourTurn | IllegalAction
        | NotJoined | Spectator | AlreadySeated | StaleAck | RoomLocked | SeatEmpty
        | PlayerPresent => StatusCode::CONFLICT,
        TooManyRooms | TooManyConnections | Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        Redirect => StatusCode::TEMPORARY_REDIRECT,
        RateLimited | ClientLimit | ChatTooFast => StatusCode::TOO_MANY_REQUESTS,
        BodyTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        RequestTimeout => StatusCode::REQUEST_TIMEOUT,
        MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
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
            url: self.1.clone(),
        };
        let mut response = (status_of(self.0.code), Json(body)).into_response();
        if let Some(url) = self.1.and_then(|u| header::HeaderValue::from_str(&u).ok()) {
            response.headers_mut().insert(header::LOCATION, url);
        }
        response
    }
}
