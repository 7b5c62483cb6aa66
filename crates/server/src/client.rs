//! Who a request comes from, for the per-client limits: the peer's IP address, or, when the peer is
//! one of `server.trusted_proxies`, the client its `X-Forwarded-For` names. A header from anyone else
//! is ignored, so a client cannot pick a fresh identity per request.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{Request, State};
use axum::http::HeaderMap;
use axum::middleware::Next;
use axum::response::Response;

use crate::app::AppState;

/// The TCP peer of a request's connection, set by the accept loop (`listen`) on every request.
#[derive(Debug, Clone, Copy)]
pub struct Peer {
    pub addr: SocketAddr,
    /// Accepted past the connection ceiling, from the probe reserve: only the probes answer.
    pub probes_only: bool,
}

/// The client a request counts against (set by [`identify`] for every handler).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientIp(pub IpAddr);

/// The client behind `peer`: the rightmost `X-Forwarded-For` entry that is not a trusted proxy
/// (each proxy appends the address it got the request from, so entries left of the first untrusted
/// one may be forged by the client). The peer itself when it is not trusted or the header says
/// nothing usable.
pub fn client_ip(peer: IpAddr, headers: &HeaderMap, trusted: &[IpAddr]) -> IpAddr {
    if !trusted.contains(&peer) {
        return peer;
    }
    let entries: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .collect();
    for entry in entries.into_iter().rev() {
        match entry.trim().parse::<IpAddr>() {
            Ok(ip) if trusted.contains(&ip) => continue,
            Ok(ip) => return ip,
            // A garbled entry: nothing to its left can be trusted.
            Err(_) => break,
        }
    }
    peer
}

/// Middleware: attaches the [`ClientIp`] of every request. Requests that did not come through the
/// accept loop (none in the server; tests calling the router directly) count as one unknown client.
pub async fn identify(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let peer = req
        .extensions()
        .get::<Peer>()
        .map_or(IpAddr::from([0, 0, 0, 0]), |p| p.addr.ip());
    let ip = client_ip(peer, req.headers(), &state.config.server.trusted_proxies);
    req.extensions_mut().insert(ClientIp(ip));
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(xff: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in xff {
            h.append("x-forwarded-for", v.parse().unwrap());
        }
        h
    }

    #[test]
    fn forwarded_for_counts_only_behind_a_trusted_proxy() {
        let proxy: IpAddr = "10.0.0.5".parse().unwrap();
        let client: IpAddr = "203.0.113.7".parse().unwrap();
        let h = headers(&["198.51.100.1, 203.0.113.7"]);
        // Untrusted peer: its header is ignored.
        assert_eq!(client_ip(client, &h, &[]), client);
        assert_eq!(client_ip(proxy, &h, &[]), proxy);
        // Trusted proxy: the rightmost entry; what the client wrote to its left is not believed.
        assert_eq!(client_ip(proxy, &h, &[proxy]), client);
        // Chains of trusted proxies are skipped; several headers read as one list.
        let inner: IpAddr = "10.0.0.6".parse().unwrap();
        let h = headers(&["203.0.113.7", "10.0.0.6"]);
        assert_eq!(client_ip(proxy, &h, &[proxy, inner]), client);
        // Nothing usable: the proxy itself.
        assert_eq!(client_ip(proxy, &headers(&["junk"]), &[proxy]), proxy);
        assert_eq!(client_ip(proxy, &HeaderMap::new(), &[proxy]), proxy);
    }
}
