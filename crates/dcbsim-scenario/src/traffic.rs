//! `[[flows]]`, `[[arrivals]]` and `[[timeline]]`.

use crate::Limits;
use crate::doc::Node;
use crate::kinds;
use crate::network::{RunSection, port_ref, scheme_value};
use crate::reader::{Result, Table};
use dcbsim_core::cc::{Aimd, SchemeConfig};
use dcbsim_core::config::{Action, ArrivalSpec, FlowKind, FlowSpec, NodeKind, TimelineEntry};
use dcbsim_core::topology::Topology;
use dcbsim_core::units::{Rate, Time};
use std::collections::{HashMap, HashSet};

const FLOW_KEYS: &[&str] = &[
    "name",
    "src",
    "dst",
    "kind",
    "rate_gbps",
    "rate_mbps",
    "max_rate_gbps",
    "max_rate_mbps",
    "frame_bytes",
    "jitter",
    "priority",
    "weight",
    "transport",
    "scheme",
    "start_ms",
    "stop_ms",
    "aimd",
    "pairing",
];

/// The flow's own AIMD setting, `aimd = { a = 1.5, b = 0.8 }` (DCC).
fn aimd(t: &Table) -> Result<Option<Aimd>> {
    let Some(sub) = t.table("aimd")? else { return Ok(None) };
    let a = sub.required("a", sub.positive("a")?)?;
    let (b, node) = sub.required("b", sub.number("b")?)?;
    sub.finish(&["a", "b"])?;
    let setting = Aimd { a, b };
    setting.check().map_err(|m| sub.error("b", Some(node), m))?;
    Ok(Some(setting))
}

/// The spread of the gaps between frames, in [0, 1).
fn jitter(t: &Table) -> Result<f64> {
    match t.number("jitter")? {
        Some((x, _)) if (0.0..1.0).contains(&x) => Ok(x),
        Some((x, node)) => Err(t.error("jitter", Some(node), format!("must be in [0, 1) (got {x})"))),
        None => Ok(0.0),
    }
}

/// The flows of the scenario, and for each the index of the `[[flows]]` entry it
/// came from (a glob makes several).
pub struct Flows {
    /// One spec per flow.
    pub specs: Vec<FlowSpec>,
    /// Index of the `[[flows]]` entry of each flow.
    pub origin: Vec<usize>,
    /// The name given to each `[[flows]]` entry (or None).
    pub group_names: Vec<Option<String>>,
}

/// Hosts named by `pattern`: a name, or a prefix ending in `*`.
fn hosts(t: &Table, key: &str, pattern: &str, node: &Node, topo: &Topology) -> Result<Vec<usize>> {
    let is_host = |i: &usize| topo.nodes[*i].kind == NodeKind::Host;
    let found: Vec<usize> = match pattern.strip_suffix('*') {
        Some(prefix) => (0..topo.nodes.len()).filter(|i| topo.nodes[*i].name.starts_with(prefix) && is_host(i)).collect(),
        None => topo.index(pattern).into_iter().collect(),
    };
    if found.is_empty() {
        let names: Vec<&str> = topo.nodes.iter().filter(|n| n.kind == NodeKind::Host).map(|n| n.name.as_str()).take(12).collect();
        return Err(t.error(key, Some(node), format!("no host matches \"{pattern}\"; hosts are: {}…", names.join(", "))));
    }
    if let Some(&sw) = found.iter().find(|i| !is_host(i)) {
        return Err(t.error(key, Some(node), format!("\"{}\" is a switch; flows run between hosts", topo.nodes[sw].name)));
    }
    Ok(found)
}

/// The hosts named by `key`: a name, a prefix glob `name*`, or a list of these.
fn endpoints(t: &Table, key: &str, topo: &Topology) -> Result<Vec<usize>> {
    let patterns = t.required(key, t.strings(key)?)?;
    if patterns.is_empty() {
        return Err(t.error(key, t.get(key), "must name at least one host (a name, a glob such as \"s*\", or a list of them)"));
    }
    let mut found = Vec::new();
    for (pattern, node) in patterns {
        found.extend(hosts(t, key, pattern, node, topo)?);
    }
    Ok(found)
}

/// The source–destination pairs of an entry (`src`, `dst`: names, globs or lists;
/// `pairing`: how they meet).
/// `made` flows exist already (see [`crate::pairing::pair`]).
fn pairs(t: &Table, run: &RunSection, topo: &Topology, made: u64, limits: &Limits) -> Result<Vec<(usize, usize)>> {
    let sources = endpoints(t, "src", topo)?;
    let sinks = endpoints(t, "dst", topo)?;
    crate::pairing::pair(t, sources, sinks, run.seed, topo, made, limits)
}

/// The settings a flow and an arrival source share: rates, frames, priority, times.
fn template(t: &Table, run: &RunSection, kind: FlowKind) -> Result<FlowSpec> {
    let start = t.non_negative("start_ms")?.unwrap_or(0.0);
    let stop = t.positive("stop_ms")?;
    if let Some(stop) = stop.filter(|&s| s <= start) {
        return Err(t.error("stop_ms", t.get("stop_ms"), format!("must be after start_ms ({stop} <= {start})")));
    }
    Ok(FlowSpec {
        name: String::new(),
        src: 0,
        dst: 0,
        kind,
        rate: t.rate("rate")?,
        max_rate: t.rate("max_rate")?,
        frame_bytes: t.integer("frame_bytes", 64, 9216)?.map_or(run.frame_bytes, |b| b as u32),
        jitter: jitter(t)?,
        priority: t.integer("priority", 0, 7)?.unwrap_or(0) as u8,
        aimd: aimd(t)?,
        weight: 1.0,
        transport: crate::kinds::transport(t)?,
        scheme: flow_scheme(t)?,
        start: Time::from_ms_f64(start),
        stop: stop.map(Time::from_ms_f64),
    })
}

/// The scheme a flow runs instead of the run's (`scheme`), by its static name.
fn flow_scheme(t: &Table) -> Result<Option<&'static str>> {
    let names = SchemeConfig::names();
    let chosen = t.choice("scheme", &names)?;
    Ok(chosen.and_then(|c| names.iter().copied().find(|&n| n == c)))
}

/// The weight of each of `n` flows: one number for all, or one per flow.
fn weights(t: &Table, n: usize) -> Result<Vec<f64>> {
    match t.positives("weight")? {
        None => Ok(vec![1.0; n]),
        Some(w) if w.len() == 1 => Ok(vec![w[0]; n]),
        Some(w) if w.len() == n => Ok(w),
        Some(w) => Err(t.error("weight", t.get("weight"), format!("{} weights for {n} flows; give one, or one per flow", w.len()))),
    }
}

/// One `[[flows]]` entry: its source–destination pairs, a weight per pair, and the
/// settings they share.
type FlowEntry = (Vec<(usize, usize)>, Vec<f64>, FlowSpec);

fn read_flow(t: &Table, run: &RunSection, topo: &Topology, lines: &[Option<Rate>], made: u64, limits: &Limits) -> Result<FlowEntry> {
    let pairs = pairs(t, run, topo, made, limits)?;
    let sources: Vec<usize> = pairs.iter().map(|&(s, _)| s).collect();
    let kind = kinds::read_kind(t, &sources, topo, lines)?;
    let spec = template(t, run, kind)?;
    if spec.kind == FlowKind::Constant && spec.rate.is_none() {
        return Err(t.error("rate_gbps", None, "a constant flow needs rate_gbps or rate_mbps"));
    }
    check_rate_below_line(t, &spec, &sources, topo, lines)?;
    let weights = weights(t, pairs.len())?;
    t.finish(&[FLOW_KEYS, kinds::KEYS].concat())?;
    Ok((pairs, weights, spec))
}

/// Each node's line rate: that of its first link (a host has one NIC).
fn line_rates(topo: &Topology) -> Vec<Option<Rate>> {
    let mut lines = vec![None; topo.nodes.len()];
    for link in &topo.links {
        for end in [link.a, link.b] {
            lines[end].get_or_insert(link.rate);
        }
    }
    lines
}

/// A flow's `rate_gbps`/`rate_mbps` must not exceed its source host's line rate.
fn check_rate_below_line(t: &Table, spec: &FlowSpec, sources: &[usize], topo: &Topology, lines: &[Option<Rate>]) -> Result<()> {
    let Some(rate) = spec.rate else { return Ok(()) };
    for &src in sources {
        if let Some(line) = lines[src].filter(|&line| rate > line) {
            let key = if t.has("rate_gbps") { "rate_gbps" } else { "rate_mbps" };
            let (name, gbps) = (&topo.nodes[src].name, line.as_f64() / 1e9);
            let msg = format!("{} Gb/s is above the line rate of \"{name}\" ({gbps} Gb/s)", rate.as_f64() / 1e9);
            return Err(t.error(key, t.get(key), msg));
        }
    }
    Ok(())
}

const ARRIVAL_KEYS: &[&str] = &[
    "name",
    "src",
    "dst",
    "rate_per_s",
    "load_gbps",
    "load_mbps",
    "size_kb",
    "size_bytes",
    "rate_gbps",
    "rate_mbps",
    "max_rate_gbps",
    "max_rate_mbps",
    "frame_bytes",
    "jitter",
    "priority",
    "weight",
    "transport",
    "scheme",
    "start_ms",
    "stop_ms",
    "aimd",
    "pairing",
];

/// Reads every `[[arrivals]]` entry: one Poisson source per source–destination pair.
/// `made` flows exist already: each source counts as one more against `limits`.
pub fn read_arrivals(tables: &[Table], run: &RunSection, topo: &Topology, made: u64, limits: &Limits) -> Result<Vec<ArrivalSpec>> {
    let mut out: Vec<ArrivalSpec> = Vec::new();
    let mut taken = HashSet::new();
    for t in tables {
        let (name, name_node) = t.required("name", t.string("name")?)?;
        let pairs = pairs(t, run, topo, made + out.len() as u64, limits)?;
        let size = t.required("size_kb", t.size()?)?;
        let rate_per_s = kinds::arrival_rate(t, &size)?;
        let mut flow = template(t, run, FlowKind::Finite { size: size.clone() })?;
        flow.weight = t.positive("weight")?.unwrap_or(1.0);
        t.finish(ARRIVAL_KEYS)?;
        for (k, &(src, dst)) in pairs.iter().enumerate() {
            let name = if pairs.len() > 1 { format!("{name}{k}") } else { name.to_string() };
            if !taken.insert(name.clone()) {
                return Err(t.error("name", Some(name_node), format!("arrival source \"{name}\" is named twice")));
            }
            let flow = FlowSpec { name: name.clone(), src, dst, ..flow.clone() };
            out.push(ArrivalSpec { name, rate_per_s, size: size.clone(), flow });
        }
    }
    Ok(out)
}

/// Reads every `[[flows]]` entry, expanding globs; refuses entries that would make
/// more flows than `limits` allow before making them.
pub fn read_flows(tables: &[Table], run: &RunSection, topo: &Topology, limits: &Limits) -> Result<Flows> {
    let mut flows = Flows { specs: Vec::new(), origin: Vec::new(), group_names: Vec::new() };
    let (mut taken, mut tried) = (HashSet::new(), HashMap::new());
    let lines = line_rates(topo);
    let mut entries: HashMap<&str, usize> = HashMap::new();
    for (i, t) in tables.iter().enumerate() {
        let given = t.string("name")?;
        if let Some((name, node)) = given {
            // An entry's name names its flows as a group (in the timeline): two entries
            // of one name would make that ambiguous.
            if let Some(first) = entries.insert(name, i) {
                return Err(t.error(
                    "name",
                    Some(node),
                    format!("\"{name}\" names flows[{first}] too; give each [[flows]] entry its own name"),
                ));
            }
        }
        let (pairs, weights, spec) = read_flow(t, run, topo, &lines, flows.specs.len() as u64, limits)?;
        let several = pairs.len() > 1;
        for (k, (src, dst)) in pairs.into_iter().enumerate() {
            let name = match given {
                Some((n, _)) if several => format!("{n}{k}"),
                Some((n, _)) => n.to_string(),
                None => format!("{}-{}", topo.nodes[src].name, topo.nodes[dst].name),
            };
            if let Some((_, node)) = given.filter(|_| taken.contains(&name)) {
                return Err(t.error("name", Some(node), format!("flow name \"{name}\" is used twice")));
            }
            let name = unique(&taken, &mut tried, name);
            taken.insert(name.clone());
            flows.specs.push(FlowSpec { name, src, dst, weight: weights[k], ..spec.clone() });
            flows.origin.push(i);
        }
        flows.group_names.push(given.map(|(n, _)| n.to_string()));
    }
    check_some_flow_starts(tables, &flows, run)?;
    Ok(flows)
}

/// At least one flow must start before the run ends (a shortened run may leave some
/// that never start, but a run with none is a mistake).
fn check_some_flow_starts(tables: &[Table], flows: &Flows, run: &RunSection) -> Result<()> {
    let end = Time::from_ms_f64(run.duration_ms);
    match flows.specs.iter().position(|f| f.start < end) {
        None if !flows.specs.is_empty() => {
            let t = &tables[flows.origin[0]];
            let msg = format!("every flow starts at or after the end of the run (duration_ms = {}), so none would send", run.duration_ms);
            Err(t.error("start_ms", t.get("start_ms"), msg))
        }
        _ => Ok(()),
    }
}

/// `name`, or if it is taken the first of `name-2`, `name-3`, … that is not. `tried`
/// keeps, per name, the suffix to try next, so that a million flows of one name cost a
/// million tries, not half a million each.
fn unique(taken: &HashSet<String>, tried: &mut HashMap<String, u64>, name: String) -> String {
    if !taken.contains(&name) {
        return name;
    }
    let next = tried.entry(name.clone()).or_insert(2);
    loop {
        let candidate = format!("{name}-{next}");
        *next += 1;
        if !taken.contains(&candidate) {
            return candidate;
        }
    }
}

const TIMELINE_KEYS: &[&str] =
    &["at_ms", "port", "link", "rate_gbps", "flow", "action", "max_rate_gbps", "max_rate_mbps", "param", "value"];

/// The flows a timeline entry names: one flow, or every flow of a `[[flows]]` entry.
fn named_flows(t: &Table, flows: &Flows) -> Result<Vec<usize>> {
    let (name, node) = t.required("flow", t.string("flow")?)?;
    let exact: Vec<usize> = flows.specs.iter().position(|f| f.name == name).into_iter().collect();
    if !exact.is_empty() {
        return Ok(exact);
    }
    let group = flows.group_names.iter().position(|g| g.as_deref() == Some(name));
    let members: Vec<usize> = match group {
        Some(g) => (0..flows.specs.len()).filter(|&i| flows.origin[i] == g).collect(),
        None => Vec::new(),
    };
    if members.is_empty() {
        let names: Vec<&str> = flows.specs.iter().map(|f| f.name.as_str()).take(12).collect();
        return Err(t.error("flow", Some(node), format!("no flow \"{name}\"; flows are: {}", names.join(", "))));
    }
    Ok(members)
}

/// Reads every `[[timeline]]` entry.
pub fn read_timeline(
    tables: &[Table],
    run: &RunSection,
    topo: &Topology,
    flows: &Flows,
    scheme: &SchemeConfig,
) -> Result<Vec<TimelineEntry>> {
    let mut entries = Vec::new();
    for t in tables {
        let at_ms = t.required("at_ms", t.non_negative("at_ms")?)?;
        if at_ms > run.duration_ms {
            let msg = format!("is after the end of the run (duration_ms = {})", run.duration_ms);
            return Err(t.error("at_ms", t.get("at_ms"), msg));
        }
        let at = Time::from_ms_f64(at_ms);
        let groups = ["port", "link", "flow", "param"].iter().filter(|k| t.has(k)).count();
        if groups != 1 {
            return Err(t.error("at_ms", None, "needs exactly one of port, link, flow or param"));
        }
        let mut push = |action| entries.push(TimelineEntry { at, action });
        if let Some(key) = ["port", "link"].into_iter().find(|k| t.has(k)) {
            let (name, node) = t.required(key, t.string(key)?)?;
            let port = port_ref(t, key, name, node, topo)?;
            let rate = Rate::from_gbps_f64(t.required("rate_gbps", t.positive("rate_gbps")?)?);
            push(Action::PortRate { port, rate });
            if key == "link" {
                push(Action::PortRate { port: dcbsim_core::config::PortRef { node: port.peer, peer: port.node }, rate });
            }
        } else if t.has("flow") {
            let members = named_flows(t, flows)?;
            let cap = t.rate("max_rate")?;
            let action = t.choice("action", &["start", "stop"])?;
            for flow in members {
                match (action, cap) {
                    (Some("start"), None) => push(Action::FlowStart { flow }),
                    (Some(_), None) => push(Action::FlowStop { flow }),
                    (None, Some(rate)) => push(Action::FlowMaxRate { flow, rate: Some(rate) }),
                    _ => return Err(t.error("action", None, "give action = \"start\"/\"stop\" or max_rate_gbps/max_rate_mbps")),
                }
            }
        } else {
            let (name, _) = t.required("param", t.string("param")?)?;
            let node = t.required("value", t.get("value"))?;
            let value = scheme_value(t, "value", name, node)?;
            // The type and range here; the order of thresholds when the run is built,
            // with the changes before this one in force (see `Simulation::new`).
            scheme.clone().set_param_alone(name, &value).map_err(|m| t.error("value", Some(node), format!("{name}: {m}")))?;
            push(Action::SchemeParam { name: name.to_string(), value });
        }
        t.finish(TIMELINE_KEYS)?;
    }
    Ok(entries)
}
