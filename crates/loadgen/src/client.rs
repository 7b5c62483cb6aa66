//! What every client of the load generator and of the cluster harness shares: a small HTTP/1.1 client
//! for the REST calls (it follows a cluster node's `307` to the room's owner by itself), room setup,
//! and percentiles.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A REST call that hangs this long is abandoned (a paused node accepts TCP but never answers).
const HTTP_TIMEOUT: Duration = Duration::from_secs(10);
/// A node redirects to the owner, which answers; a longer chain is a loop (an owner that is not there
/// any more, pointing at itself) and is given up.
const MAX_REDIRECTS: usize = 4;

/// `http://host:port/...` or `ws://host:port/...` (what a node puts in `Location` and in a WebSocket
/// `redirect`): the address, and the path with its query. Only literal IP addresses: the harness and
/// the load generator never resolve names.
pub fn split_url(url: &str) -> Option<(SocketAddr, String)> {
    let rest = ["http://", "ws://", "https://", "wss://"]
        .iter()
        .find_map(|scheme| url.strip_prefix(scheme))?;
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    Some((host.parse().ok()?, path.to_owned()))
}

/// One REST call; a `307`/`308` is followed to its `Location` (same method, same body). Returns the
/// JSON body of the final `200`.
pub async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> anyhow::Result<Value> {
    let mut addr = addr;
    let mut path = path.to_owned();
    for _ in 0..=MAX_REDIRECTS {
        let (head, rest) =
            tokio::time::timeout(HTTP_TIMEOUT, http_once(addr, method, &path, token, body))
                .await
                .map_err(|_| anyhow::anyhow!("{method} {path} on {addr}: no answer"))??;
        let status = head.split_whitespace().nth(1).unwrap_or("");
        if status == "307" || status == "308" {
            let location = head
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("location")
                        .then(|| value.trim().to_owned())
                })
                .ok_or_else(|| anyhow::anyhow!("{method} {path}: {status} without Location"))?;
            match split_url(&location) {
                Some((to, to_path)) => (addr, path) = (to, to_path),
                // A relative Location stays on the same node.
                None if location.starts_with('/') => path = location,
                None => anyhow::bail!("{method} {path}: cannot follow Location {location}"),
            }
            continue;
        }
        if status != "200" {
            anyhow::bail!("{method} {path} on {addr}: {head} {rest}");
        }
        return Ok(serde_json::from_str(&rest)?);
    }
    anyhow::bail!("{method} {path}: more than {MAX_REDIRECTS} redirects")
}

/// A GET whose answer is not JSON (e.g. `/metrics`), on one node (no redirects).
pub async fn get_text(addr: SocketAddr, path: &str) -> anyhow::Result<String> {
    let (head, body) = tokio::time::timeout(HTTP_TIMEOUT, http_once(addr, "GET", path, None, ""))
        .await
        .map_err(|_| anyhow::anyhow!("GET {path} on {addr}: no answer"))??;
    anyhow::ensure!(
        head.starts_with("HTTP/1.1 200"),
        "GET {path} on {addr}: {head}"
    );
    Ok(body)
}

/// The response head (status line and headers) and body of one request.
async fn http_once(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> anyhow::Result<(String, String)> {
    let mut stream = TcpStream::connect(addr).await?;
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await?;
    let raw = String::from_utf8(raw)?;
    let (head, rest) = raw
        .split_once("\r\n\r\n")
        .ok_or_else(|| anyhow::anyhow!("no response"))?;
    Ok((head.to_owned(), rest.to_owned()))
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
    let created = http(
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
        let joined = http(
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

/// The `p` quantile (0..=1) of sorted microsecond samples, in milliseconds (nearest rank).
pub fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_into_address_and_path() {
        let (addr, path) = split_url("ws://127.0.0.1:9001/ws").unwrap();
        assert_eq!(addr, "127.0.0.1:9001".parse().unwrap());
        assert_eq!(path, "/ws");
        let (addr, path) = split_url("http://10.77.1.2:80/rooms/ab/join?x=1").unwrap();
        assert_eq!(addr, "10.77.1.2:80".parse().unwrap());
        assert_eq!(path, "/rooms/ab/join?x=1");
        assert_eq!(split_url("ws://10.0.0.1:5").unwrap().1, "/");
        assert!(split_url("ws://example.org/ws").is_none());
        assert!(split_url("/rooms/ab").is_none());
    }

    #[test]
    fn percentiles_are_nearest_rank_in_ms() {
        let s: Vec<u64> = (1..=100).map(|ms| ms * 1000).collect();
        assert_eq!(percentile(&s, 0.5), 51.0);
        assert_eq!(percentile(&s, 1.0), 100.0);
        assert!(percentile(&[], 0.5).is_nan());
    }
}
