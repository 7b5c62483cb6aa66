//! One fault on a node that owns rooms, its repair, and what the node's own counters said about it.

use std::net::SocketAddr;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rustix::process::Signal;

use crate::Args;
use crate::db::Db;
use crate::faults::Fault;
use crate::netns;
use crate::nodes::Node;

/// What happened at one fault.
#[derive(Debug)]
pub struct FaultRecord {
    pub fault: Fault,
    pub node: usize,
    pub at: Duration,
    pub at_ms: i64,
    pub rooms: Vec<String>,
    pub fenced_after: Option<u64>,
    /// SIGSTOP: the paused incarnation's own verdict (it found its lease expired and dropped its
    /// rooms), and the rows it wrote after SIGCONT (must be none).
    pub lease_lost_after: Option<u64>,
    pub written_after_resume: Option<i64>,
    pub note: String,
}

fn unix_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The sum of a counter's samples in a Prometheus text page.
fn counter(page: &str, name: &str) -> Option<u64> {
    let mut found = None;
    for line in page.lines().filter(|l| !l.starts_with('#')) {
        let Some(rest) = line.strip_prefix(name) else {
            continue;
        };
        if !(rest.starts_with(' ') || rest.starts_with('{')) {
            continue;
        }
        if let Some(value) = rest
            .split_whitespace()
            .last()
            .and_then(|v| v.parse::<f64>().ok())
        {
            *found.get_or_insert(0) += value as u64;
        }
    }
    found
}

const FENCED_METRIC: &str = "fourkings_cluster_fenced_appends_total";
const LEASE_LOST_METRIC: &str = "fourkings_cluster_lease_lost_total";

/// A node's fenced appends and lost leases so far.
async fn fence_counters(addr: SocketAddr) -> Option<(u64, u64)> {
    let page = testkit::rest::get_text(addr, "/metrics").await.ok()?;
    Some((
        counter(&page, FENCED_METRIC).unwrap_or(0),
        counter(&page, LEASE_LOST_METRIC).unwrap_or(0),
    ))
}

/// One fault on a node that owns rooms (a random one among them), and its repair.
pub async fn inject(
    fault: Fault,
    nodes: &mut [Node],
    db: &mut Db,
    args: &Args,
    rng: &mut StdRng,
    began: Instant,
) -> anyhow::Result<FaultRecord> {
    let mut owners = Vec::new();
    for node in nodes.iter().filter(|n| n.running()) {
        let rooms = db.rooms_owned_by(&node.public_url()).await?;
        owners.push((node.index, rooms));
    }
    owners.shuffle(rng);
    // The node with rooms, if any has some (a fault on an empty node tests nothing).
    owners.sort_by_key(|(_, rooms)| rooms.is_empty());
    let (index, rooms) = owners
        .into_iter()
        .next()
        .ok_or_else(|| anyhow::anyhow!("no node is running"))?;
    let ttl = Duration::from_millis(args.lease_ttl_ms);
    let at = began.elapsed();
    let at_ms = unix_ms();
    let node = &mut nodes[index];
    let mut fenced_after = None;
    let mut lease_lost_after = None;
    let mut written_after_resume = None;
    let note = match fault {
        Fault::Kill9 => {
            tokio::task::block_in_place(|| node.kill9())?;
            tokio::time::sleep(Duration::from_millis(500)).await;
            tokio::task::block_in_place(|| node.start())?;
            format!("killed; restarted as incarnation {}", node.incarnations)
        }
        Fault::Stop => {
            let before = fence_counters(node.addr).await.unwrap_or((0, 0));
            let incarnation = db.live_node_id(&node.public_url()).await?;
            node.signal(Signal::STOP)?;
            let paused = ttl * 2 + Duration::from_millis(500);
            tokio::time::sleep(paused).await;
            let resumed_ms = unix_ms();
            node.signal(Signal::CONT)?;
            // What it had queued while paused is refused by the fence, or it finds its lease gone.
            let deadline = Instant::now() + Duration::from_secs(15);
            let mut after = before;
            while Instant::now() < deadline {
                after = fence_counters(node.addr).await.unwrap_or(before);
                if after.0 > before.0 || after.1 > before.1 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            // Let whatever it still had in flight land (or be refused) before counting its rows.
            tokio::time::sleep(ttl).await;
            written_after_resume = match &incarnation {
                Some(id) => Some(db.rows_written_by_since(id, resumed_ms).await?),
                None => None,
            };
            fenced_after = Some(after.0.saturating_sub(before.0));
            lease_lost_after = Some(after.1.saturating_sub(before.1));
            format!(
                "paused {:.1} s; after SIGCONT: appends refused {}, lease lost {}, rows written {}",
                paused.as_secs_f64(),
                after.0.saturating_sub(before.0),
                after.1.saturating_sub(before.1),
                written_after_resume.map_or("?".into(), |n| n.to_string())
            )
        }
        Fault::Drain => {
            let status = tokio::task::block_in_place(|| node.drain(Duration::from_secs(15)))?;
            tokio::task::block_in_place(|| node.start())?;
            format!(
                "SIGTERM: exit {}; restarted as incarnation {}",
                status.code().map_or("signal".into(), |c| c.to_string()),
                node.incarnations
            )
        }
        Fault::NetCut | Fault::DbCut => {
            let ns = node
                .netns
                .clone()
                .ok_or_else(|| anyhow::anyhow!("{} needs network namespaces", fault.name()))?;
            let cut = ttl * 2 + Duration::from_millis(500);
            let links = netns::links_for(fault);
            netns::set_links(&ns, links, false)?;
            tokio::time::sleep(cut).await;
            netns::set_links(&ns, links, true)?;
            tokio::time::sleep(Duration::from_secs(2)).await;
            let fenced = fence_counters(node.addr).await.map(|c| c.0);
            fenced_after = fenced;
            format!(
                "{} cut for {:.1} s; fenced appends so far: {}",
                if fault == Fault::NetCut {
                    "network"
                } else {
                    "database link"
                },
                cut.as_secs_f64(),
                fenced.map_or("?".into(), |n| n.to_string())
            )
        }
    };
    Ok(FaultRecord {
        fault,
        node: index,
        at,
        at_ms,
        rooms,
        fenced_after,
        lease_lost_after,
        written_after_resume,
        note,
    })
}

#[cfg(test)]
mod tests {
    use super::counter;

    #[test]
    fn counters_are_read_from_the_metrics_page() {
        let page = "# TYPE fourkings_cluster_fenced_appends_total counter\n\
                    fourkings_cluster_fenced_appends_total 3\n\
                    fourkings_cluster_fenced_appends_total_other 9\n\
                    fourkings_x{a=\"b\"} 1\n";
        assert_eq!(
            counter(page, "fourkings_cluster_fenced_appends_total"),
            Some(3)
        );
        let labelled = "c{room=\"a\"} 2\nc{room=\"b\"} 5\n";
        assert_eq!(counter(labelled, "c"), Some(7));
        assert_eq!(counter(page, "missing"), None);
    }
}
