//! How an entry's sources meet its destinations: matched lists, all to all, or a
//! random permutation.

use crate::Limits;
use crate::reader::{Result, Table};
use dcbsim_core::rng::Rng;
use dcbsim_core::topology::Topology;

/// The values `pairing` takes.
pub const PAIRINGS: &[&str] = &["matched", "all_to_all", "permutation"];

/// The source–destination pairs of `sources` and `sinks` under the entry's `pairing`:
///
/// - `matched` (default): one source to every destination, every source to one
///   destination, or the two lists element by element;
/// - `all_to_all`: every source to every destination but itself;
/// - `permutation`: each source to one destination, each destination used once, none
///   to itself, drawn from the run's seed (the classic random-permutation workload).
///
/// `made` flows exist already; if the pairs would take the run's flows beyond what
/// `limits` allow, the entry is refused before any pair is made.
pub fn pair(
    t: &Table,
    sources: Vec<usize>,
    sinks: Vec<usize>,
    seed: u64,
    topo: &Topology,
    made: u64,
    limits: &Limits,
) -> Result<Vec<(usize, usize)>> {
    let dst_node = t.get("dst").expect("read before pairing");
    let pairing = t.choice("pairing", PAIRINGS)?.unwrap_or("matched");
    let total = made.saturating_add(count(pairing, &sources, &sinks, topo.nodes.len()));
    if total > limits.max_flows() {
        let key = if t.has("pairing") { "pairing" } else { "dst" };
        return Err(t.error(key, t.get(key), limits.too_many_flows(total)));
    }
    let pairs: Vec<(usize, usize)> = match pairing {
        "all_to_all" => sources.iter().flat_map(|&s| sinks.iter().filter(move |&&d| d != s).map(move |&d| (s, d))).collect(),
        "permutation" => permutation(t, &sources, sinks, seed)?,
        _ => match (sources.len(), sinks.len()) {
            (_, 1) => sources.iter().map(|&s| (s, sinks[0])).collect(),
            (1, _) => sinks.iter().map(|&d| (sources[0], d)).collect(),
            (a, b) if a == b => sources.into_iter().zip(sinks).collect(),
            (a, b) => {
                let msg = format!("{a} sources and {b} destinations cannot be paired; set pairing = \"all_to_all\" or \"permutation\"");
                return Err(t.error("dst", Some(dst_node), msg));
            }
        },
    };
    if pairs.is_empty() {
        return Err(t.error("dst", Some(dst_node), "pairs no source with a destination other than itself"));
    }
    if let Some(&(s, _)) = pairs.iter().find(|(s, d)| s == d) {
        return Err(t.error("dst", Some(dst_node), format!("a flow from \"{}\" to itself", topo.nodes[s].name)));
    }
    Ok(pairs)
}

/// How many pairs `pairing` makes of `sources` and `sinks` (at most; pairings that
/// cannot be made count as the longer list), counted without making them. `nodes`
/// bounds the node indices.
fn count(pairing: &str, sources: &[usize], sinks: &[usize], nodes: usize) -> u64 {
    let (s, d) = (sources.len() as u64, sinks.len() as u64);
    if pairing != "all_to_all" {
        return s.max(d);
    }
    // Every source meets every destination but itself.
    let mut as_sink = vec![0u64; nodes];
    for &n in sinks {
        as_sink[n] += 1;
    }
    let itself: u64 = sources.iter().map(|&n| as_sink[n]).sum();
    s * d - itself
}

/// A random one-to-one pairing without self-pairs: a seeded shuffle of `sinks`,
/// redrawn until no source meets itself (a few draws on average).
fn permutation(t: &Table, sources: &[usize], mut sinks: Vec<usize>, seed: u64) -> Result<Vec<(usize, usize)>> {
    if sources.len() != sinks.len() {
        let msg = format!("a permutation needs as many destinations as sources ({} and {})", sources.len(), sinks.len());
        return Err(t.error("pairing", t.get("pairing"), msg));
    }
    let mut rng = Rng::stream(seed, &format!("pairing:{}", t.key_path("")));
    for _ in 0..1000 {
        for i in (1..sinks.len()).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            sinks.swap(i, j);
        }
        if sources.iter().zip(&sinks).all(|(s, d)| s != d) {
            return Ok(sources.iter().copied().zip(sinks).collect());
        }
    }
    Err(t.error("pairing", t.get("pairing"), "no permutation pairs every source with another host"))
}
