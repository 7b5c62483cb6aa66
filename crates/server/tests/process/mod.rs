//! The server binary as a separate process, for tests that crash, pause or stop it.
//!
//! Each process's log lines are printed by the test that started it, prefixed with the node's
//! process id, through `eprintln!`: libtest captures them with the test's own output and shows them
//! only when the test fails, so a failure comes with what every node did.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The server binary in its own process; killed with SIGKILL on drop.
pub struct ServerProc {
    pub child: Child,
    pub addr: SocketAddr,
}

impl ServerProc {
    /// Starts the binary on port 0 with test timers and `env` (the database at least); returns
    /// once it says where it listens.
    pub fn start(env: &[(&str, String)]) -> ServerProc {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fourkings"))
            .env_remove("DATABASE_URL")
            .env("FOURKINGS_SERVER__LISTEN", "127.0.0.1:0")
            .env("FOURKINGS_TIMERS__CPU_DELAY_MS", "0")
            .env("FOURKINGS_TIMERS__GRACE_MS", "60000")
            .env("FOURKINGS_TIMERS__PING_INTERVAL_MS", "60000")
            .env("FOURKINGS_TIMERS__IDLE_TIMEOUT_MS", "180000")
            // The cluster's claims, adoptions and releases, for the log a failure prints.
            .env("RUST_LOG", "warn,server::cluster=info")
            .env("NO_COLOR", "1")
            // Tests play many clients from one address.
            .env("FOURKINGS_LIMITS__REST_WRITE_BURST", "10000")
            .env("FOURKINGS_LIMITS__REST_READ_BURST", "10000")
            .env("FOURKINGS_LIMITS__MAX_OPEN_LOBBIES_PER_CLIENT", "10000")
            .env("FOURKINGS_LIMITS__MAX_CONNECTIONS_PER_IP", "10000")
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server binary starts");
        let pid = child.id();
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        let (tx, rx) = std::sync::mpsc::channel();
        // Keep reading both pipes for the process's whole life, so that it never blocks on a full
        // pipe. The threads inherit the test's output capture.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                eprintln!("[node {pid}] {line}");
                if let Some(rest) = line.strip_prefix("fourkings listening on ") {
                    let addr = rest.split(": open").next().unwrap_or("").to_owned();
                    let _ = tx.send(addr);
                }
            }
        });
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("[node {pid}] {line}");
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("the server says where it listens")
            .parse()
            .expect("an address");
        ServerProc { child, addr }
    }

    /// SIGKILL: no shutdown code runs.
    pub fn kill9(mut self) {
        self.child.kill().expect("kill -9");
        self.child.wait().expect("reaped");
    }

    /// SIGTERM: the graceful stop begins (the process closes its sockets, then exits).
    pub fn term(&self) {
        let sent = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success());
    }

    /// How the process exited; panics if it is still running 15 s from now (its own limit,
    /// `server.shutdown_timeout_ms`, is 10 s).
    pub fn wait_exit(mut self) -> std::process::ExitStatus {
        let deadline = std::time::Instant::now() + Duration::from_secs(15);
        loop {
            if let Some(status) = self.child.try_wait().expect("waitable") {
                return status;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "still running 15 s after SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for ServerProc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
