//! `fourkings healthcheck`: exit 0 when the server answers `GET /healthz` with 200, else 1. The Docker
//! image's HEALTHCHECK runs it, so the slim image needs no curl.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;

#[derive(Debug, Args)]
pub struct HealthcheckArgs {
    /// The server's address; default: the configured `server.listen` (a wildcard address is asked
    /// on loopback).
    #[arg(long)]
    pub addr: Option<SocketAddr>,
    /// A TOML file layered over config/default.toml, as for `serve`.
    #[arg(long)]
    pub config: Option<std::path::PathBuf>,
    /// Give up after this many milliseconds.
    #[arg(long, default_value_t = 3000)]
    pub timeout_ms: u64,
}

pub fn run(args: &HealthcheckArgs) -> anyhow::Result<()> {
    let addr = match args.addr {
        Some(addr) => addr,
        None => {
            let config = server::Config::load(args.config.as_deref())?;
            let listen: SocketAddr = config.server.listen.parse()?;
            loopback_for(listen)
        }
    };
    let timeout = Duration::from_millis(args.timeout_ms.max(1));
    let mut stream =
        TcpStream::connect_timeout(&addr, timeout).with_context(|| format!("connect to {addr}"))?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    write!(
        stream,
        "GET /healthz HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )?;
    let mut response = String::new();
    stream.read_to_string(&mut response)?;
    let status = response.lines().next().unwrap_or("");
    if status.split(' ').nth(1) != Some("200") {
        bail!("{addr}/healthz answered {status:?}");
    }
    println!("ok: {addr}/healthz");
    Ok(())
}

/// A server listening on every interface is reachable on loopback.
fn loopback_for(listen: SocketAddr) -> SocketAddr {
    let ip = match listen.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, listen.port())
}
