//! One run: the nodes, the rooms and their seat clients, the faults in their slots, then the checker's
//! verdict and the figures.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use testkit::percentile;
use testkit::rest::{call, open_room};
use tokio::sync::watch;

use crate::Args;
use crate::bot::{self, Ctx, SeatPlan, SeatReport};
use crate::checker;
use crate::db::Db;
use crate::faults::{self, Fault};
use crate::inject::{FaultRecord, inject};
use crate::netns;
use crate::nodes::{self, Node, NodeEnv};

/// The whole run; `Ok(false)` when an invariant failed.
pub async fn run(args: Args) -> anyhow::Result<bool> {
    let mut faults = Fault::parse_list(&args.faults)?;
    let root = rustix::process::geteuid().is_root();
    let use_netns = match args.netns.as_str() {
        "auto" => root,
        "on" => true,
        "off" => false,
        other => anyhow::bail!("--netns is auto, on or off, not {other}"),
    };
    if use_netns && args.inside_hub.is_none() {
        // Build the namespaces, then run everything below inside the hub namespace.
        return netns::run_outside(&args).await;
    }
    if let Some(socket) = &args.hub_relay {
        netns::spawn_hub_relay(socket.clone()).await?;
    }
    if !use_netns {
        let skipped: Vec<&str> = faults
            .iter()
            .filter(|f| f.needs_netns())
            .map(|f| f.name())
            .collect();
        if !skipped.is_empty() {
            println!(
                "notice: skipping {} (network namespaces need root; --netns {})",
                skipped.join(", "),
                args.netns
            );
        }
        faults.retain(|f| !f.needs_netns());
    }
    anyhow::ensure!(args.nodes >= 2, "a cluster needs at least 2 nodes");
    anyhow::ensure!(
        args.renew_ms < args.lease_ttl_ms,
        "renew must be shorter than the lease"
    );
    let mut rng = StdRng::seed_from_u64(args.seed);
    let ttl = Duration::from_millis(args.lease_ttl_ms);
    let silence = Duration::from_millis(args.silence_ms);
    // A fault lasts up to two leases; then the lease runs out, clients notice, rooms are claimed.
    let needs = ttl * 3 + silence + Duration::from_secs(3);
    let plan = faults::schedule(
        &faults,
        Duration::from_secs(args.seconds),
        Duration::from_secs(5),
        needs.min(Duration::from_secs(15)),
        needs,
        &mut rng,
    )?;

    let dir = std::env::temp_dir().join(format!(
        "fourkings-cluster-{}-{}",
        args.seed,
        std::process::id()
    ));
    std::fs::create_dir_all(&dir)?;
    let db = Db::create(&args.pg).await?;
    let outcome = run_with(&args, &plan, &dir, db, &mut rng).await;
    match &outcome {
        Ok(true) if !args.keep => {
            let _ = std::fs::remove_dir_all(&dir);
        }
        _ => println!("nodes' logs kept in {}", dir.display()),
    }
    outcome
}

async fn run_with(
    args: &Args,
    plan: &[(Duration, Fault)],
    dir: &std::path::Path,
    mut db: Db,
    rng: &mut StdRng,
) -> anyhow::Result<bool> {
    let env = NodeEnv {
        server_bin: args.server_bin.clone(),
        database_url: db.url.clone(),
        lease_ttl_ms: args.lease_ttl_ms,
        renew_ms: args.renew_ms,
        dir: dir.to_owned(),
        rust_log: args.node_log.clone(),
    };
    let hub = args.inside_hub.as_deref().map(netns::Layout::from_hub);
    let mut nodes = Vec::new();
    for i in 0..args.nodes {
        let node = match &hub {
            Some(layout) => {
                let mut env = env.clone();
                env.database_url = layout.node_database_url(i, &args.pg, &db.name);
                Node::new(i, layout.node_addr(i), Some(layout.node_ns(i)), env)
            }
            None => {
                let addr = SocketAddr::from(([127, 0, 0, 1], nodes::free_port()?));
                Node::new(i, addr, None, env.clone())
            }
        };
        nodes.push(node);
    }
    for node in &mut nodes {
        tokio::task::block_in_place(|| node.start())?;
    }
    let ctx = Arc::new(Ctx {
        nodes: nodes.iter().map(|n| (n.public_url(), n.addr)).collect(),
        think: Duration::from_millis(args.think_ms),
        silence: Duration::from_millis(args.silence_ms),
        watchdog: (Duration::from_millis(args.lease_ttl_ms) * 3).max(Duration::from_secs(10)),
    });
    println!(
        "cluster run: {} nodes, {} rooms x 4 seats ({}), lease {}/{} ms, seed {}, {} s{}",
        args.nodes,
        args.rooms,
        args.game,
        args.lease_ttl_ms,
        args.renew_ms,
        args.seed,
        args.seconds,
        if hub.is_some() {
            ", nodes in network namespaces"
        } else {
            ", nodes on loopback"
        }
    );

    // Rooms, made through random nodes.
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut rooms = Vec::new();
    let mut tasks = Vec::new();
    for _ in 0..args.rooms {
        let addr = ctx.nodes.choose(rng).expect("nodes").1;
        let (room, host_token, tokens) = open_room(addr, &args.game).await?;
        for (i, token) in tokens.into_iter().enumerate() {
            let plan = SeatPlan {
                room: room.clone(),
                token,
                host_token: (i == 0).then(|| host_token.clone()),
                seed: rng.random(),
            };
            tasks.push(tokio::spawn(bot::play(ctx.clone(), plan, stop_rx.clone())));
        }
        rooms.push((room, host_token));
    }
    for (room, host_token) in &rooms {
        let addr = ctx.nodes.choose(rng).expect("nodes").1;
        call(
            addr,
            "POST",
            &format!("/rooms/{room}/start"),
            Some(host_token),
            "{}",
        )
        .await?;
    }
    let began = Instant::now();

    let mut records = Vec::new();
    for (at, fault) in plan {
        tokio::time::sleep_until((began + *at).into()).await;
        let record = inject(*fault, &mut nodes, &mut db, args, rng, began).await?;
        println!(
            "  +{:5.1} s  {:<6} node {} (owned {} rooms)  {}",
            record.at.as_secs_f64(),
            record.fault.name(),
            record.node,
            record.rooms.len(),
            record.note
        );
        records.push(record);
    }
    tokio::time::sleep_until((began + Duration::from_secs(args.seconds)).into()).await;
    let _ = stop_tx.send(true);
    let mut reports = Vec::new();
    for task in tasks {
        reports.push(task.await?);
    }

    let (via_owner, via_other) = redirect_latency(&nodes, &rooms, &mut db, rng).await;
    for node in &mut nodes {
        if node.running() {
            let _ = tokio::task::block_in_place(|| node.drain(Duration::from_secs(15)));
        }
    }

    let rows = db.log().await?;
    let last_seq = db.last_seqs().await?;
    let seen: Vec<checker::Seen> = reports.iter().map(|r| r.seen.clone()).collect();
    let verdict = checker::check(&rows, &last_seq, &seen);
    let mut failovers: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    let mut unrecovered = 0;
    for record in &records {
        for (room, ms) in checker::failover_ms(&rows, record.at_ms, &record.rooms) {
            match ms {
                Some(ms) => failovers
                    .entry(record.fault.name())
                    .or_default()
                    .push(ms as u64 * 1000),
                None => {
                    unrecovered += 1;
                    println!(
                        "room {room} wrote nothing after the {} fault",
                        record.fault.name()
                    );
                }
            }
        }
    }
    // A paused owner must be fenced: the database refused what it tried to write, or it found its
    // lease gone before trying (which of the two comes first on SIGCONT is a race inside the node),
    // and in either case it wrote nothing after waking.
    let paused: Vec<&FaultRecord> = records.iter().filter(|r| r.fault == Fault::Stop).collect();
    let paused_written: i64 = paused
        .iter()
        .map(|r| r.written_after_resume.unwrap_or(1))
        .sum();
    let paused_ok = paused_written == 0
        && paused
            .iter()
            .all(|r| r.fenced_after.unwrap_or(0) + r.lease_lost_after.unwrap_or(0) > 0);

    print_clients(&reports);
    println!("invariants:");
    let line = |name: &str, n: usize, extra: String| {
        println!(
            "  {name:<44} {n:>6}{}",
            if extra.is_empty() {
                String::new()
            } else {
                format!("   ({extra})")
            }
        );
    };
    line(
        "acknowledged actions lost",
        verdict.lost,
        format!("of {} acked", verdict.acked),
    );
    line(
        "acknowledged actions duplicated",
        verdict.duplicated,
        String::new(),
    );
    line(
        "gaps in a room's seq",
        verdict.gaps,
        format!("last_seq mismatches {}", verdict.last_seq_mismatches),
    );
    line(
        "forks (a client's stream not the log)",
        verdict.forks,
        format!(
            "{} runs, {} actions checked",
            verdict.segments, verdict.events_checked
        ),
    );
    line(
        "epochs written by two nodes",
        verdict.epochs_by_two_nodes,
        format!(
            "rows without a writer {}, epoch regressions {}",
            verdict.unattributed_rows, verdict.epoch_regressions
        ),
    );
    line(
        "rooms with no commit after a fault",
        unrecovered,
        String::new(),
    );
    if !paused.is_empty() {
        line(
            "rows a paused owner wrote after SIGCONT",
            paused_written as usize,
            String::new(),
        );
        let show = |n: Option<u64>| n.map_or("?".to_owned(), |n| n.to_string());
        println!(
            "  {:<44} {:>6}   (must be > 0 in sum: the database refused it, or it stopped itself)",
            "paused owner fenced (appends refused / lease lost)",
            paused
                .iter()
                .map(|r| format!("{}/{}", show(r.fenced_after), show(r.lease_lost_after)))
                .collect::<Vec<_>>()
                .join(",")
        );
    }
    for example in &verdict.examples {
        println!("    {example}");
    }
    println!("figures:");
    let mut all: Vec<u64> = failovers.values().flatten().copied().collect();
    all.sort_unstable();
    print_percentiles("failover, fault -> first new commit (ms)", &all);
    for (kind, samples) in &mut failovers {
        samples.sort_unstable();
        print_percentiles(&format!("  {kind}"), samples);
    }
    let mut reconnects: Vec<u64> = reports
        .iter()
        .flat_map(|r| r.reconnects_us.iter().copied())
        .collect();
    reconnects.sort_unstable();
    print_percentiles("client reconnect, lost -> welcome (ms)", &reconnects);
    print_percentiles("join via the owner (ms)", &via_owner);
    print_percentiles("join via another node, redirected (ms)", &via_other);
    println!(
        "  one redirect adds (p50 difference)              {:.2} ms",
        percentile(&via_other, 0.5) - percentile(&via_owner, 0.5)
    );
    let ok = verdict.ok() && unrecovered == 0 && paused_ok;
    println!("RESULT: {}", if ok { "PASS" } else { "FAIL" });
    if ok && !args.keep {
        db.drop_database().await?;
    } else {
        println!("database kept: {}", db.url);
    }
    Ok(ok)
}

fn print_percentiles(name: &str, sorted_us: &[u64]) {
    println!(
        "  {name:<46} p50 {:8.1}  p95 {:8.1}  max {:8.1}  (n={})",
        percentile(sorted_us, 0.5),
        percentile(sorted_us, 0.95),
        percentile(sorted_us, 1.0),
        sorted_us.len()
    );
}

fn print_clients(reports: &[SeatReport]) {
    let sum = |f: fn(&SeatReport) -> u64| reports.iter().map(f).sum::<u64>();
    let mut errors: BTreeMap<&str, u64> = BTreeMap::new();
    for r in reports {
        for (code, n) in &r.errors {
            *errors.entry(code).or_default() += n;
        }
    }
    println!(
        "clients: {} seats; actions sent {}, acked {}; events {}; sessions {}, redirects {}, \
         resends {} (acked {}), watchdog rejoins {}; errors {:?}",
        reports.len(),
        sum(|r| r.actions_sent),
        sum(|r| r.seen.acks.len() as u64),
        sum(|r| r.events),
        sum(|r| r.sessions),
        sum(|r| r.redirects),
        sum(|r| r.resends),
        sum(|r| r.resends_acked),
        sum(|r| r.watchdog_rejoins),
        errors
    );
}

/// Spectator joins of the same rooms through their owner and through another node (one redirect):
/// the welcome's latency each way, microseconds, sorted.
async fn redirect_latency(
    nodes: &[Node],
    rooms: &[(String, String)],
    db: &mut Db,
    rng: &mut StdRng,
) -> (Vec<u64>, Vec<u64>) {
    let mut via_owner = Vec::new();
    let mut via_other = Vec::new();
    for _round in 0..3 {
        for (room, _) in rooms.iter().take(20) {
            let Ok(Some(owner)) = db.owner_url(room).await else {
                continue;
            };
            let others: Vec<&Node> = nodes
                .iter()
                .filter(|n| n.running() && n.public_url() != owner)
                .collect();
            let Some(other) = others.choose(rng) else {
                continue;
            };
            let other = other.public_url();
            // Alternate the order so neither way always warms the other's path.
            let mut ways = [(owner.clone(), false), (other, true)];
            ways.shuffle(rng);
            for (base, redirected) in ways {
                if let Ok((took, was)) = bot::spectator_join(&base, room).await {
                    if was == redirected {
                        let us = took.as_micros() as u64;
                        if redirected {
                            via_other.push(us);
                        } else {
                            via_owner.push(us);
                        }
                    }
                }
            }
        }
    }
    via_owner.sort_unstable();
    via_other.sort_unstable();
    (via_owner, via_other)
}
