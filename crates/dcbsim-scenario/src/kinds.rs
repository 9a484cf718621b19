//! The `kind` of a `[[flows]]` entry and the keys only some kinds take; the rate of
//! a Poisson process given as arrivals per second or as a load.

use crate::reader::{Result, Table};
use dcbsim_core::config::{FlowKind, OffTime};
use dcbsim_core::dist::SizeDist;
use dcbsim_core::topology::Topology;
use dcbsim_core::transport::Transport;
use dcbsim_core::units::Rate;

/// The kinds a flow may be.
const KINDS: &[&str] = &["greedy", "constant", "finite", "on_off", "poisson"];

/// Keys that only some kinds take, with those kinds.
const KIND_KEYS: &[(&str, &[&str])] = &[
    ("size_kb", &["finite", "poisson"]),
    ("size_bytes", &["finite", "poisson"]),
    ("burst_kb", &["on_off"]),
    ("burst_bytes", &["on_off"]),
    ("off", &["on_off"]),
    ("load_gbps", &["on_off", "poisson"]),
    ("load_mbps", &["on_off", "poisson"]),
    ("rate_per_s", &["poisson"]),
];

/// The keys of [`KIND_KEYS`], for the list of allowed keys.
pub const KEYS: &[&str] = &["size_kb", "size_bytes", "burst_kb", "burst_bytes", "off", "load_gbps", "load_mbps", "rate_per_s"];

/// The ON burst of the FQCN paper's ON-OFF sources: 10 KB.
const DEFAULT_BURST: u64 = 10 * 1024;

/// Reads `kind` and the keys that go with it; `sources` are the entry's source hosts
/// (an ON-OFF load must be below each one's line rate, `lines` by node).
pub fn read_kind(t: &Table, sources: &[usize], topo: &Topology, lines: &[Option<Rate>]) -> Result<FlowKind> {
    let kind = t.choice("kind", KINDS)?.unwrap_or("greedy");
    for (key, kinds) in KIND_KEYS {
        if t.has(key) && !kinds.contains(&kind) {
            let which: Vec<String> = kinds.iter().map(|k| format!("kind = \"{k}\"")).collect();
            return Err(t.error(key, t.get(key), format!("is only for {}", which.join(" or "))));
        }
    }
    Ok(match kind {
        "finite" => {
            FlowKind::Finite { size: t.size()?.ok_or_else(|| t.error("size_kb", None, "a finite flow needs size_kb or size_bytes"))? }
        }
        "on_off" => on_off(t, sources, topo, lines)?,
        "poisson" => {
            let size = t.size()?.ok_or_else(|| t.error("size_kb", None, "a poisson flow needs size_kb or size_bytes"))?;
            FlowKind::Poisson { rate_per_s: arrival_rate(t, &size)?, size }
        }
        "constant" => FlowKind::Constant,
        _ => FlowKind::Greedy,
    })
}

/// An ON-OFF source: `burst_kb`/`burst_bytes`, `load_gbps`/`load_mbps`, `off`.
fn on_off(t: &Table, sources: &[usize], topo: &Topology, lines: &[Option<Rate>]) -> Result<FlowKind> {
    let burst = match (t.positive("burst_kb")?, t.positive("burst_bytes")?) {
        (Some(_), Some(_)) => return Err(t.error("burst_bytes", t.get("burst_bytes"), "give burst_kb or burst_bytes, not both")),
        (Some(kb), None) => ("burst_kb", (kb * 1024.0).round()),
        (None, Some(b)) => ("burst_bytes", b.round()),
        (None, None) => ("burst_kb", DEFAULT_BURST as f64),
    };
    if burst.1 < 1.0 || burst.1 >= 1e18 {
        return Err(t.error(burst.0, t.get(burst.0), "must be at least 1 byte and below 10^18 bytes"));
    }
    let load = t.rate("load")?.ok_or_else(|| t.error("load_gbps", None, "an on_off flow needs load_gbps or load_mbps"))?;
    check_below_line_rate(t, load, sources, topo, lines)?;
    let off = match t.choice("off", &["exponential", "fixed"])? {
        Some("fixed") => OffTime::Fixed,
        _ => OffTime::Exponential,
    };
    Ok(FlowKind::OnOff { burst: burst.1 as u64, load, off })
}

/// An ON-OFF load must be below the line rate of every source host (else no OFF
/// period could meet it).
fn check_below_line_rate(t: &Table, load: Rate, sources: &[usize], topo: &Topology, lines: &[Option<Rate>]) -> Result<()> {
    for &src in sources {
        if let Some(line) = lines[src].filter(|&line| load >= line) {
            let key = if t.has("load_gbps") { "load_gbps" } else { "load_mbps" };
            let msg = format!(
                "must be below the line rate of \"{}\" ({} Gb/s): the bursts go at line rate, so no OFF period can meet {} Gb/s",
                topo.nodes[src].name,
                line.as_f64() / 1e9,
                load.as_f64() / 1e9
            );
            return Err(t.error(key, t.get(key), msg));
        }
    }
    Ok(())
}

/// Arrivals per second: `rate_per_s`, or `load_gbps`/`load_mbps` divided by 8 times
/// the mean `size` (exactly one of them).
pub fn arrival_rate(t: &Table, size: &SizeDist) -> Result<f64> {
    let per_s = t.positive("rate_per_s")?;
    let load = t.rate("load")?;
    match (per_s, load) {
        (Some(_), Some(_)) => {
            let key = if t.has("load_gbps") { "load_gbps" } else { "load_mbps" };
            Err(t.error(key, t.get(key), "give rate_per_s or a load (load_gbps, load_mbps), not both"))
        }
        (Some(r), None) => Ok(r),
        (None, Some(load)) => Ok(size.arrivals_per_s(load)),
        (None, None) => Err(t.error("rate_per_s", None, "is required (or give the load as load_gbps or load_mbps)")),
    }
}

/// The flow's transport, named by `transport` (default none).
pub fn transport(t: &Table) -> Result<Transport> {
    Ok(t.choice("transport", Transport::NAMES)?.and_then(Transport::by_name).unwrap_or_default())
}
