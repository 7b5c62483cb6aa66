//! The REST calls of the load generator and the cluster fault harness: a JSON call that follows a
//! cluster node's `307` to the room's owner by itself and gives up on a node that never answers, and
//! the rooms they open.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};

use crate::http::{Response, request, split_url};

/// A REST call that hangs this long is abandoned (a paused node accepts TCP but never answers).
const HTTP_TIMEOUT: Duration = Duration::from_secs(10);
/// A node redirects to the owner, which answers; a longer chain is a loop (an owner that is not there
/// any more, pointing at itself) and is given up.
const MAX_REDIRECTS: usize = 4;

async fn request_in_time(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> anyhow::Result<Response> {
    tokio::time::timeout(HTTP_TIMEOUT, request(addr, method, path, token, body))
        .await
        .map_err(|_| anyhow::anyhow!("{method} {path} on {addr}: no answer"))?
        .map_err(Into::into)
}

/// One REST call; a `307`/`308` is followed to its `Location` (same method, same body). Returns the
/// JSON body of the final `200`.
pub async fn call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> anyhow::Result<Value> {
    let (addr, r) = follow(addr, method, path, token, body).await?;
    if r.status != 200 {
        anyhow::bail!("{method} {path} on {addr}: {} {}", r.head, r.body);
    }
    Ok(serde_json::from_str(&r.body)?)
}

/// A room's phase (`lobby`, `playing`, …), or `None` once the room is gone (`404`: a room that
/// finished and closed while it was being played against).
pub async fn room_phase(addr: SocketAddr, room: &str) -> anyhow::Result<Option<String>> {
    let path = format!("/rooms/{room}");
    let (addr, r) = follow(addr, "GET", &path, None, "").await?;
    match r.status {
        200 => {
            let info: Value = serde_json::from_str(&r.body)?;
            Ok(info["phase"].as_str().map(str::to_owned))
        }
        404 => Ok(None),
        _ => anyhow::bail!("GET {path} on {addr}: {} {}", r.head, r.body),
    }
}

/// Sends a request and follows `307`/`308` to their `Location` (same method, same body); returns the
/// node that gave the final answer and that answer.
async fn follow(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> anyhow::Result<(SocketAddr, Response)> {
    let mut addr = addr;
    let mut path = path.to_owned();
    for _ in 0..=MAX_REDIRECTS {
        let r = request_in_time(addr, method, &path, token, body).await?;
        if r.status == 307 || r.status == 308 {
            let location = r
                .header("location")
                .ok_or_else(|| anyhow::anyhow!("{method} {path}: {} without Location", r.status))?;
            match split_url(location) {
                Some((to, to_path)) => (addr, path) = (to, to_path),
                // A relative Location stays on the same node.
                None if location.starts_with('/') => path = location.to_owned(),
                None => anyhow::bail!("{method} {path}: cannot follow Location {location}"),
            }
            continue;
        }
        return Ok((addr, r));
    }
    anyhow::bail!("{method} {path}: more than {MAX_REDIRECTS} redirects")
}

/// A GET whose answer is not JSON (e.g. `/metrics`), on one node (no redirects).
pub async fn get_text(addr: SocketAddr, path: &str) -> anyhow::Result<String> {
    let r = request_in_time(addr, "GET", path, None, "").await?;
    anyhow::ensure!(r.status == 200, "GET {path} on {addr}: {}", r.head);
    Ok(r.body)
}

/// House rules the generated rooms use: four-player chess is played free-for-all.
pub fn room_options(game: &str) -> Value {
    if game == "fourchess" {
        json!({"mode": "ffa"})
    } else {
        json!({})
    }
}

/// Creates a room; returns its id and host token.
pub async fn create_room(addr: SocketAddr, game: &str) -> anyhow::Result<(String, String)> {
    let created = call(
        addr,
        "POST",
        "/rooms",
        None,
        &json!({"game": game, "options": room_options(game)}).to_string(),
    )
    .await?;
    let room = created["room"].as_str().unwrap_or_default().to_owned();
    let host_token = created["host_token"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    Ok((room, host_token))
}

/// A room with its four seats taken: (room, host token, the seats' tokens in seat order).
pub async fn open_room(
    addr: SocketAddr,
    game: &str,
) -> anyhow::Result<(String, String, Vec<String>)> {
    let (room, host_token) = create_room(addr, game).await?;
    let mut tokens = Vec::new();
    for i in 0..4 {
        let joined = call(
            addr,
            "POST",
            &format!("/rooms/{room}/join"),
            None,
            &json!({"name": format!("load{i}")}).to_string(),
        )
        .await?;
        tokens.push(joined["seat_token"].as_str().unwrap_or_default().to_owned());
    }
    Ok((room, host_token, tokens))
}
