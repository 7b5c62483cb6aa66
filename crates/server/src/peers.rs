//! Asking the other nodes of a cluster: `GET /rooms` on any node lists the public rooms of every live
//! node, because a room's seats and phase live only in its owner's memory. Each peer is asked at its
//! `cluster.public_url` with a short timeout; a peer that does not answer in time is left out of the
//! list (and logged) rather than holding the answer up.
//!
//! Plain `http://` only: nodes talk to each other inside the deployment's network. An `https://`
//! public URL is skipped with a warning (its node still serves its own rooms and redirects).

use std::time::Duration;

use axum::body::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper::Request;
use hyper::header::HOST;
use serde::de::DeserializeOwned;
use tokio::net::TcpStream;

/// Largest answer read from a peer: a list of many thousands of rooms fits.
const MAX_BODY: usize = 64 * 1024 * 1024;

/// `GET {base}{path}` on a peer, its JSON body parsed, within `timeout`.
pub async fn get_json<T: DeserializeOwned>(
    base: &str,
    path: &str,
    timeout: Duration,
) -> Result<T, String> {
    tokio::time::timeout(timeout, get(base, path))
        .await
        .map_err(|_| format!("no answer within {timeout:?}"))?
}

async fn get<T: DeserializeOwned>(base: &str, path: &str) -> Result<T, String> {
    let rest = base
        .strip_prefix("http://")
        .ok_or_else(|| format!("only http:// peers can be asked, not {base}"))?;
    let (authority, prefix) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let address = if authority.contains(':') {
        authority.to_owned()
    } else {
        format!("{authority}:80")
    };
    let stream = TcpStream::connect(&address)
        .await
        .map_err(|e| format!("connect {address}: {e}"))?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(|e| e.to_string())?;
    tokio::spawn(async move {
        // Ends when the answer has been read (or the peer hangs up); nothing to report.
        let _ = connection.await;
    });
    let request = Request::get(format!("{prefix}{path}"))
        .header(HOST, authority)
        .body(Empty::<Bytes>::new())
        .map_err(|e| e.to_string())?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| e.to_string())?;
    let status = response.status();
    let body = Limited::new(response.into_body(), MAX_BODY)
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    if !status.is_success() {
        return Err(format!("status {status}"));
    }
    serde_json::from_slice(&body).map_err(|e| format!("not the expected JSON: {e}"))
}
