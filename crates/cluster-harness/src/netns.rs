//! Network namespaces for the network faults (root only). The harness builds, and removes at the end:
//!
//! - one *hub* namespace where the harness itself runs (clients, faults, checker);
//! - one namespace per node, joined to the hub by two veth pairs: `front` (clients: node side
//!   10.77.i.2, hub side 10.77.i.1) and `back` (its database link: 10.78.i.2 ↔ 10.78.i.1).
//!
//! Addresses exist only inside those namespaces (a private range, no routes, no forwarding); the host's
//! own network is never addressed. The database stays where it is: this process relays a Unix socket
//! (the file system is shared across namespaces) to PostgreSQL, and the hub listens on port 5432 and
//! relays into that socket. Cutting a node's network is taking its `front` and `back` links down;
//! cutting only its database link is taking `back` down.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;

use rustix::process::{Pid, Signal, kill_process};
use tokio::net::{TcpListener, TcpStream, UnixListener, UnixStream};

use crate::Args;
use crate::faults::Fault;

/// The port every node listens on inside its own namespace.
const NODE_PORT: u16 = 8080;
const PG_PORT: u16 = 5432;

fn ip(args: &[&str]) -> anyhow::Result<()> {
    let status = Command::new("ip").args(args).status()?;
    anyhow::ensure!(status.success(), "ip {} failed", args.join(" "));
    Ok(())
}

/// The names and addresses of one run's namespaces.
#[derive(Debug, Clone)]
pub struct Layout {
    prefix: String,
}

impl Layout {
    fn new() -> Layout {
        Layout {
            prefix: format!("fk{}", std::process::id()),
        }
    }

    pub fn from_hub(hub: &str) -> Layout {
        Layout {
            prefix: hub.trim_end_matches("hub").to_owned(),
        }
    }

    fn hub(&self) -> String {
        format!("{}hub", self.prefix)
    }

    pub fn node_ns(&self, i: usize) -> String {
        format!("{}n{i}", self.prefix)
    }

    pub fn node_addr(&self, i: usize) -> SocketAddr {
        SocketAddr::from(([10, 77, i as u8, 2], NODE_PORT))
    }

    /// The node reaches PostgreSQL through its `back` link, at the hub's relay. The user comes from
    /// `pg` (`postgres://user@host:port`).
    pub fn node_database_url(&self, i: usize, pg: &str, database: &str) -> String {
        format!("{}10.78.{i}.1:{PG_PORT}/{database}", user_part(pg))
    }

    fn build(&self, nodes: usize) -> anyhow::Result<()> {
        let hub = self.hub();
        ip(&["netns", "add", &hub])?;
        ip(&["-n", &hub, "link", "set", "lo", "up"])?;
        for i in 0..nodes {
            let ns = self.node_ns(i);
            ip(&["netns", "add", &ns])?;
            ip(&["-n", &ns, "link", "set", "lo", "up"])?;
            for (link, net) in [("front", 77), ("back", 78)] {
                let hub_end = format!("{}{i}", &link[..1]);
                ip(&[
                    "link", "add", &hub_end, "netns", &hub, "type", "veth", "peer", "name", link,
                    "netns", &ns,
                ])?;
                ip(&[
                    "-n",
                    &hub,
                    "addr",
                    "add",
                    &format!("10.{net}.{i}.1/24"),
                    "dev",
                    &hub_end,
                ])?;
                ip(&["-n", &hub, "link", "set", &hub_end, "up"])?;
                ip(&[
                    "-n",
                    &ns,
                    "addr",
                    "add",
                    &format!("10.{net}.{i}.2/24"),
                    "dev",
                    link,
                ])?;
                ip(&["-n", &ns, "link", "set", link, "up"])?;
            }
        }
        Ok(())
    }

    /// Kills whatever still runs in the namespaces (only processes this run started live there), then
    /// deletes them; deleting a namespace deletes its veth ends.
    fn teardown(&self, nodes: usize) {
        let names: Vec<String> = (0..nodes)
            .map(|i| self.node_ns(i))
            .chain([self.hub()])
            .collect();
        for ns in &names {
            if let Ok(out) = Command::new("ip").args(["netns", "pids", ns]).output() {
                for pid in String::from_utf8_lossy(&out.stdout).split_whitespace() {
                    if let Some(pid) = pid.parse().ok().and_then(Pid::from_raw) {
                        let _ = kill_process(pid, Signal::KILL);
                    }
                }
            }
            let _ = Command::new("ip").args(["netns", "del", ns]).status();
        }
    }
}

/// `postgres://user@` (or `postgres://user:pw@`, or `postgres://`) of a PostgreSQL base URL.
fn user_part(pg: &str) -> String {
    let rest = pg.split_once("://").map_or(pg, |(_, r)| r);
    match rest.rsplit_once('@') {
        Some((user, _)) => format!("postgres://{user}@"),
        None => "postgres://".to_owned(),
    }
}

/// The `host:port` of a PostgreSQL base URL, when it is an IP address.
fn pg_addr(pg: &str) -> Option<SocketAddr> {
    let rest = pg.split_once("://").map_or(pg, |(_, r)| r);
    let host = rest.rsplit_once('@').map_or(rest, |(_, h)| h);
    host.split('/').next()?.parse().ok()
}

/// The links a fault takes down in the node's namespace.
pub fn links_for(fault: Fault) -> &'static [&'static str] {
    if fault == Fault::DbCut {
        &["back"]
    } else {
        &["front", "back"]
    }
}

pub fn set_links(ns: &str, links: &[&str], up: bool) -> anyhow::Result<()> {
    for link in links {
        ip(&[
            "-n",
            ns,
            "link",
            "set",
            link,
            if up { "up" } else { "down" },
        ])?;
    }
    Ok(())
}

async fn pipe<A, B>(mut a: A, mut b: B)
where
    A: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    B: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let _ = tokio::io::copy_bidirectional(&mut a, &mut b).await;
}

/// In the hub: port 5432 relayed into the Unix socket the outer process serves.
pub async fn spawn_hub_relay(socket: PathBuf) -> anyhow::Result<()> {
    let listener = TcpListener::bind(("0.0.0.0", PG_PORT)).await?;
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let socket = socket.clone();
            tokio::spawn(async move {
                if let Ok(unix) = UnixStream::connect(&socket).await {
                    pipe(tcp, unix).await;
                }
            });
        }
    });
    Ok(())
}

/// Outside: the Unix socket relayed to PostgreSQL.
fn spawn_outer_relay(socket: &Path, pg: SocketAddr) -> anyhow::Result<()> {
    let listener = UnixListener::bind(socket)?;
    tokio::spawn(async move {
        while let Ok((unix, _)) = listener.accept().await {
            tokio::spawn(async move {
                if let Ok(tcp) = TcpStream::connect(pg).await {
                    pipe(unix, tcp).await;
                }
            });
        }
    });
    Ok(())
}

/// Builds the namespaces and the relay, runs the harness again inside the hub namespace, and removes
/// everything afterwards, whatever happened.
pub async fn run_outside(args: &Args) -> anyhow::Result<bool> {
    let pg = pg_addr(&args.pg).ok_or_else(|| {
        anyhow::anyhow!(
            "--pg must name an IP address and port with network namespaces: {}",
            args.pg
        )
    })?;
    let layout = Layout::new();
    let dir = std::env::temp_dir().join(format!("{}-relay", layout.prefix));
    std::fs::create_dir_all(&dir)?;
    let socket = dir.join("pg.sock");
    let _ = std::fs::remove_file(&socket);
    let built = layout.build(args.nodes);
    let outcome = match built {
        Ok(()) => {
            spawn_outer_relay(&socket, pg)?;
            let server_bin = std::fs::canonicalize(&args.server_bin)
                .map_err(|e| anyhow::anyhow!("server binary {}: {e}", args.server_bin.display()))?;
            let exe = std::env::current_exe()?;
            let mut child = Command::new("ip");
            child
                .args(["netns", "exec", &layout.hub()])
                .arg(exe)
                .args(std::env::args_os().skip(1))
                .arg("--server-bin")
                .arg(server_bin)
                .args([
                    "--pg",
                    &format!("{}127.0.0.1:{PG_PORT}", user_part(&args.pg)),
                ])
                .args(["--inside-hub", &layout.hub()])
                .arg("--hub-relay")
                .arg(&socket);
            let status = tokio::task::spawn_blocking(move || child.status()).await??;
            Ok(status.success())
        }
        Err(e) => Err(e),
    };
    layout.teardown(args.nodes);
    let _ = std::fs::remove_dir_all(&dir);
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_addresses() {
        let layout = Layout::from_hub("fk42hub");
        assert_eq!(layout.node_ns(2), "fk42n2");
        assert_eq!(layout.node_addr(1), "10.77.1.2:8080".parse().unwrap());
        assert_eq!(
            layout.node_database_url(0, "postgres://postgres@127.0.0.1:5432", "db"),
            "postgres://postgres@10.78.0.1:5432/db"
        );
        assert_eq!(
            user_part("postgres://u:pw@10.0.0.1:5432"),
            "postgres://u:pw@"
        );
        assert_eq!(user_part("postgres://127.0.0.1:5432"), "postgres://");
        assert_eq!(
            pg_addr("postgres://postgres@127.0.0.1:5432/x"),
            Some("127.0.0.1:5432".parse().unwrap())
        );
        assert_eq!(pg_addr("postgres://db.example:5432"), None);
    }
}
