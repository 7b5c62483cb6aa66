//! The `fourkings` node processes of a cluster run: started on a port chosen before start (a node's
//! public URL is part of its configuration), signalled, restarted as new incarnations on the same
//! address. Each incarnation's output (logs, panics) goes to its own file in the run's directory.

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process};

/// How long a node may take to say where it listens (migrations on a loaded machine included).
const START_TIMEOUT: Duration = Duration::from_secs(90);

/// What every node of the run shares.
#[derive(Debug, Clone)]
pub struct NodeEnv {
    pub server_bin: PathBuf,
    pub database_url: String,
    pub lease_ttl_ms: u64,
    pub renew_ms: u64,
    pub dir: PathBuf,
    pub rust_log: String,
}

#[derive(Debug)]
pub struct Node {
    pub index: usize,
    /// Where it listens and where clients reach it (the same address: loopback, or its namespace's).
    pub addr: SocketAddr,
    /// The network namespace it runs in, if any.
    pub netns: Option<String>,
    child: Option<Child>,
    pub incarnations: u32,
    env: NodeEnv,
}

/// A free loopback port now (bound, then released for the node to take).
pub fn free_port() -> anyhow::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

impl Node {
    pub fn new(index: usize, addr: SocketAddr, netns: Option<String>, env: NodeEnv) -> Node {
        Node {
            index,
            addr,
            netns,
            child: None,
            incarnations: 0,
            env,
        }
    }

    /// `cluster.public_url`: the node's own base URL (clients get `ws://…/ws` from it in a redirect).
    pub fn public_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn log_path(&self, incarnation: u32) -> PathBuf {
        self.env
            .dir
            .join(format!("node{}.{incarnation}.log", self.index))
    }

    /// Starts a new incarnation and waits until it listens.
    pub fn start(&mut self) -> anyhow::Result<()> {
        anyhow::ensure!(self.child.is_none(), "node {} is running", self.index);
        self.incarnations += 1;
        // The server logs to stdout (and panics to stderr): both go to the incarnation's file.
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log_path(self.incarnations))?;
        let mut log_out = log.try_clone()?;
        let mut command = match &self.netns {
            Some(ns) => {
                let mut c = Command::new("ip");
                // `ip netns exec` execs the server in place: the child's pid is the server's.
                c.args(["netns", "exec", ns]).arg(&self.env.server_bin);
                c
            }
            None => Command::new(&self.env.server_bin),
        };
        let spool = self.env.dir.join(format!("node{}-spool.jsonl", self.index));
        command
            .env_remove("DATABASE_URL")
            .env("FOURKINGS_SERVER__LISTEN", self.addr.to_string())
            .env("FOURKINGS_DATABASE__URL", &self.env.database_url)
            .env("FOURKINGS_DATABASE__SPOOL_PATH", spool)
            .env("FOURKINGS_CLUSTER__ENABLED", "true")
            // Every client of the harness comes from loopback: no per-client limit may bind.
            .env("FOURKINGS_LIMITS__REST_WRITE_BURST", "100000")
            .env("FOURKINGS_LIMITS__REST_READ_BURST", "100000")
            .env("FOURKINGS_LIMITS__MAX_OPEN_LOBBIES_PER_CLIENT", "100000")
            .env("FOURKINGS_LIMITS__MAX_CONNECTIONS_PER_IP", "100000")
            .env("FOURKINGS_CLUSTER__PUBLIC_URL", self.public_url())
            .env(
                "FOURKINGS_CLUSTER__LEASE_TTL_MS",
                self.env.lease_ttl_ms.to_string(),
            )
            .env("FOURKINGS_CLUSTER__RENEW_MS", self.env.renew_ms.to_string())
            // Shorter than the lease, as the configuration requires: a node the harness stops
            // (SIGSTOP) inside a transaction releases its row locks before its lease runs out.
            .env(
                "FOURKINGS_DATABASE__PG_IDLE_IN_TRANSACTION_MS",
                (self.env.lease_ttl_ms * 2 / 3).max(1).to_string(),
            )
            // Pings every 500 ms let a client tell a paused or cut-off node from a quiet room.
            .env("FOURKINGS_TIMERS__PING_INTERVAL_MS", "500")
            // Humans keep their seats through every failover (no CPU takeover noise in the log).
            .env("FOURKINGS_TIMERS__GRACE_MS", "120000")
            .env("RUST_LOG", &self.env.rust_log)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log);
        let mut child = command
            .spawn()
            .map_err(|e| anyhow::anyhow!("cannot start {}: {e}", self.env.server_bin.display()))?;
        let stdout = child.stdout.take().expect("piped");
        let (tx, rx) = std::sync::mpsc::channel();
        // Read stdout for the process's whole life so that it never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if line.starts_with("fourkings listening on ") {
                    let _ = tx.send(());
                }
                let _ = writeln!(log_out, "{line}");
            }
        });
        let began = Instant::now();
        loop {
            if rx.recv_timeout(Duration::from_millis(100)).is_ok() {
                break;
            }
            if let Some(status) = child.try_wait()? {
                anyhow::bail!(
                    "node {} exited at start ({status}); see {}",
                    self.index,
                    self.log_path(self.incarnations).display()
                );
            }
            if began.elapsed() > START_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                anyhow::bail!("node {} did not start in time", self.index);
            }
        }
        self.child = Some(child);
        Ok(())
    }

    pub fn running(&self) -> bool {
        self.child.is_some()
    }

    pub fn signal(&self, signal: Signal) -> anyhow::Result<()> {
        let child = self
            .child
            .as_ref()
            .ok_or_else(|| anyhow::anyhow!("node {} is not running", self.index))?;
        kill_process(Pid::from_child(child), signal)?;
        Ok(())
    }

    /// SIGKILL: no shutdown code runs.
    pub fn kill9(&mut self) -> anyhow::Result<()> {
        if let Some(mut child) = self.child.take() {
            // A stopped process dies of SIGKILL too.
            child.kill()?;
            child.wait()?;
        }
        Ok(())
    }

    /// SIGTERM and wait for the exit (a stuck drain is killed after `limit`).
    pub fn drain(&mut self, limit: Duration) -> anyhow::Result<ExitStatus> {
        self.signal(Signal::TERM)?;
        let mut child = self.child.take().expect("signalled above");
        let began = Instant::now();
        loop {
            if let Some(status) = child.try_wait()? {
                return Ok(status);
            }
            if began.elapsed() > limit {
                child.kill()?;
                child.wait()?;
                anyhow::bail!("node {} did not drain within {limit:?}", self.index);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
