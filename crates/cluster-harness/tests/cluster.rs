//! A short run of the cluster fault harness against the real server binary and the local PostgreSQL:
//! 3 nodes, 6 rooms of 4 seat clients, one `kill -9` and one SIGSTOP past the lease. The harness's own
//! checker decides (exit status); this test also makes sure the run did play and did measure.
//!
//! The server binary: `SERVER_BIN_FOR_CLUSTER_TEST` (`scripts/test` points it at the binary its `cargo test`
//! builds for the server's integration tests), else `cargo build -p fourkings`.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn pg_base() -> String {
    std::env::var("FK_TEST_PG").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432".to_owned())
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

fn postgres_up() -> bool {
    let base = pg_base();
    let host = base.rsplit('@').next().unwrap_or("127.0.0.1:5432");
    let host = host.split('/').next().unwrap_or(host);
    host.parse()
        .ok()
        .and_then(|addr| std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok())
        .is_some()
}

fn server_bin() -> PathBuf {
    if let Ok(bin) = std::env::var("SERVER_BIN_FOR_CLUSTER_TEST") {
        return bin.into();
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let status = Command::new(cargo)
        .current_dir(&root)
        .args(["build", "--locked", "-p", "fourkings", "--bin", "fourkings"])
        .status()
        .expect("cargo runs");
    assert!(status.success(), "the server binary builds");
    // The harness binary lives in the same target directory as the server's.
    let harness = PathBuf::from(env!("CARGO_BIN_EXE_fourkings-cluster-harness"));
    harness.with_file_name("fourkings")
}

/// The number at the end of the line that starts with `name` (after trimming).
fn figure(out: &str, name: &str) -> Option<u64> {
    out.lines()
        .map(str::trim)
        .find(|l| l.starts_with(name))
        .and_then(|l| l[name.len()..].split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

#[test]
fn a_short_cluster_run_with_a_kill_and_a_pause_loses_nothing() {
    if !postgres_up() {
        assert!(!in_ci(), "PostgreSQL at {} is required in CI", pg_base());
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "\n!!!!!!!! SKIPPING the cluster harness test: no PostgreSQL at {}\n",
            pg_base()
        );
        return;
    }
    let bin = server_bin();
    let mut child = Command::new(env!("CARGO_BIN_EXE_fourkings-cluster-harness"))
        .arg("--server-bin")
        .arg(&bin)
        .args(["--pg", &pg_base()])
        .args(["--rooms", "6", "--seconds", "48", "--seed", "7"])
        .args(["--faults", "kill9,stop", "--netns", "off"])
        .args(["--lease-ttl-ms", "1500", "--renew-ms", "500"])
        .args(["--silence-ms", "1500", "--think-ms", "100"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the harness starts");
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        let _ = stdout.read_to_string(&mut out);
        out
    });
    // 48 s of play, node starts, the checker: minutes are plenty even on a loaded machine.
    let deadline = Instant::now() + Duration::from_secs(600);
    let status = loop {
        if let Some(status) = child.try_wait().expect("waitable") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the harness did not finish within 10 minutes");
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let out = reader.join().expect("reader");
    println!("{out}");
    assert!(status.success(), "the harness failed:\n{out}");
    assert!(out.contains("RESULT: PASS"), "{out}");
    for invariant in [
        "acknowledged actions lost",
        "acknowledged actions duplicated",
        "gaps in a room's seq",
        "forks (a client's stream not the log)",
        "epochs written by two nodes",
        "rooms with no commit after a fault",
        "rows a paused owner wrote after SIGCONT",
    ] {
        assert_eq!(figure(&out, invariant), Some(0), "{invariant}:\n{out}");
    }
    // The paused owner: the database refused its appends or it found its lease gone by itself
    // (a race inside the node on SIGCONT), and it wrote nothing after waking.
    let fenced = out
        .lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix("paused owner fenced (appends refused / lease lost)"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|v| v.split_once('/'))
        .and_then(|(a, b)| Some(a.parse::<u64>().ok()? + b.parse::<u64>().ok()?));
    assert!(
        fenced.is_some_and(|n| n > 0),
        "the paused owner was fenced:\n{out}"
    );
    // It played: thousands of checked actions, acks, and a failover measured for each fault.
    let acked = out
        .split("acked ")
        .nth(1)
        .and_then(|s| s.split(';').next())
        .and_then(|n| n.trim().parse::<u64>().ok());
    assert!(acked.is_some_and(|n| n > 50), "actions were acked:\n{out}");
    for fault in ["kill9", "stop"] {
        assert!(
            samples(&out, fault).is_some_and(|n| n > 0),
            "a failover measured after {fault}:\n{out}"
        );
    }
}

/// The sample count (`(n=…)`) of the figure line that starts with `name`.
fn samples(out: &str, name: &str) -> Option<u64> {
    out.lines()
        .map(str::trim)
        .filter(|l| l.split_whitespace().next() == Some(name) && l.contains("p50"))
        .find_map(|l| l.split("(n=").nth(1)?.trim_end_matches(')').parse().ok())
}
