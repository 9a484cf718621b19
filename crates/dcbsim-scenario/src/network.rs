//! `[run]`, `[topology]`, `[scheme]` and `[monitor]`: the network and the scheme.

use crate::doc::{Node, Value};
use crate::estimate::{Limits, NetworkCounts};
use crate::reader::{Result, Table};
use dcbsim_core::cc::SchemeConfig;
use dcbsim_core::config::{CpPlacement, LinkSpec, NodeKind, PortRef, RoutingSpec};
use dcbsim_core::dist::TimeDist;
use dcbsim_core::param::ParamValue;
use dcbsim_core::topology::{self, LinkDefaults, Topology};
use dcbsim_core::units::{Bytes, Rate, Time};

/// What `[run]` says.
pub struct RunSection {
    /// Display name of the run.
    pub name: Option<String>,
    /// Simulated duration.
    pub duration: Time,
    /// Duration in ms as written (for messages).
    pub duration_ms: f64,
    /// Seed.
    pub seed: u64,
    /// Sampling period.
    pub sample_interval: Time,
    /// Default frame size.
    pub frame_bytes: u32,
    /// Notification frame size.
    pub notification_bytes: u32,
    /// Generation latency of each notification.
    pub notification_latency: TimeDist,
    /// Whether FIFO switch ports are departure-timed (`departure_timing`).
    pub departure_timing: bool,
    /// Threads to run on (`threads`; 0: every core).
    pub threads: usize,
}

const RUN_KEYS: &[&str] = &[
    "name",
    "duration_ms",
    "seed",
    "sample_interval_us",
    "frame_bytes",
    "notification_bytes",
    "notification_latency_us",
    "departure_timing",
    "threads",
];

/// Reads `[run]`.
pub fn read_run(run: &Table) -> Result<RunSection> {
    let duration_ms = run.required("duration_ms", run.positive("duration_ms")?)?;
    let section = RunSection {
        name: run.string("name")?.map(|(s, _)| s.to_string()),
        duration: Time::from_ms_f64(duration_ms),
        duration_ms,
        seed: run.integer("seed", 0, i64::MAX)?.unwrap_or(1) as u64,
        sample_interval: Time::from_us_f64(run.positive("sample_interval_us")?.unwrap_or(1000.0)),
        frame_bytes: run.integer("frame_bytes", 64, 9216)?.unwrap_or(1500) as u32,
        notification_bytes: run.integer("notification_bytes", 64, 1500)?.unwrap_or(64) as u32,
        notification_latency: run.time_dist_us("notification_latency_us")?.unwrap_or(TimeDist::Fixed(Time::ZERO)),
        departure_timing: run.boolean("departure_timing")?.unwrap_or(true),
        threads: run.integer("threads", 0, 1024)?.unwrap_or(1) as usize,
    };
    if section.sample_interval > section.duration {
        return Err(match run.get("sample_interval_us") {
            Some(node) => run.error("sample_interval_us", Some(node), "must not exceed the run's duration"),
            None => {
                let msg = format!(
                    "{duration_ms} ms is shorter than the sample interval (1000 µs by default); lengthen the run or set run.sample_interval_us"
                );
                run.error("duration_ms", run.get("duration_ms"), msg)
            }
        });
    }
    run.finish(RUN_KEYS)?;
    Ok(section)
}

/// The network read from `[topology]`, with where each link's buffer was set.
pub struct Network {
    /// Nodes and links.
    pub topology: Topology,
    /// Per link: the key path and node of its buffer setting, for later checks.
    pub buffer_keys: Vec<(String, Option<Node>)>,
    /// ECMP or lowest-port routing (`ecmp`, `ecmp_seed`).
    pub routing: RoutingSpec,
}

const KINDS: &[&str] = &["dumbbell", "parking_lot", "many_to_one", "incast", "leaf_spine", "fat_tree", "generic"];
const COMMON: &[&str] = &["kind", "rate_gbps", "delay_us", "buffer_kb", "priorities", "frame_service_us", "ecmp", "ecmp_seed"];

/// Reads `ecmp` (true by default) and `ecmp_seed` (the run's seed by default).
fn read_routing(t: &Table) -> Result<RoutingSpec> {
    let ecmp = t.boolean("ecmp")?.unwrap_or(true);
    let hash_seed = t.integer("ecmp_seed", 0, i64::MAX)?.map(|s| s as u64);
    if hash_seed.is_some() && !ecmp {
        return Err(t.error("ecmp_seed", t.get("ecmp_seed"), "is for ECMP; remove it or set ecmp = true"));
    }
    Ok(RoutingSpec { ecmp, hash_seed })
}

fn gbps(t: &Table, key: &str, default: Rate) -> Result<Rate> {
    Ok(t.positive(key)?.map_or(default, Rate::from_gbps_f64))
}

fn link_defaults(t: &Table) -> Result<LinkDefaults> {
    Ok(LinkDefaults {
        rate: gbps(t, "rate_gbps", Rate::from_gbps(10))?,
        delay: t.time_dist_us("delay_us")?.unwrap_or(TimeDist::Fixed(Time::from_us(1))),
        buffer: Bytes((t.positive("buffer_kb")?.unwrap_or(128.0) * 1024.0).round() as u64),
        priorities: t.integer("priorities", 1, 8)?.unwrap_or(1) as u8,
        frame_service: t.positive("frame_service_us")?.map(Time::from_us_f64),
    })
}

fn count(t: &Table, key: &str) -> Result<usize> {
    Ok(t.required(key, t.integer(key, 1, 100_000)?)? as usize)
}

/// Reads `[topology]`. A named kind's size is checked against `limits` from its
/// counts, before its nodes and links are made.
pub fn read_topology(t: &Table, limits: &Limits) -> Result<Network> {
    let kind = t.required("kind", t.choice("kind", KINDS)?)?;
    let routing = read_routing(t)?;
    if kind == "generic" {
        return read_generic(t, routing);
    }
    let d = link_defaults(t)?;
    let loop_delay = t.time_dist_us("feedback_loop_delay_us")?;
    if loop_delay.is_some() && !matches!(kind, "dumbbell" | "incast") {
        let node = t.get("feedback_loop_delay_us");
        return Err(t.error("feedback_loop_delay_us", node, "is for dumbbell and incast; set delay_us per hop instead"));
    }
    let (mut topology, extra): (Topology, &[&str]) = match kind {
        "dumbbell" => {
            let senders = count(t, "senders")?;
            let receivers = t.integer("receivers", 1, 100_000)?.unwrap_or(1) as usize;
            let bottleneck = gbps(t, "bottleneck_gbps", d.rate)?;
            let switches = 1 + (receivers > 1) as usize;
            let links = senders + receivers + switches - 1;
            let key = if senders >= receivers { "senders" } else { "receivers" };
            check_counts(t, limits, key, (senders + receivers + switches, links, switches, switches))?;
            (topology::dumbbell(senders, receivers, bottleneck, &d), &["senders", "receivers", "bottleneck_gbps"])
        }
        "parking_lot" => (topology::parking_lot(gbps(t, "trunk_gbps", d.rate)?, &d), &["trunk_gbps"]),
        "many_to_one" => {
            let (tors, hosts) = (count(t, "tors")?, count(t, "hosts_per_tor")?);
            let uplink = gbps(t, "uplink_gbps", d.rate)?;
            let uplink_buffer = t.positive("uplink_buffer_kb")?.map_or(d.buffer, |kb| Bytes((kb * 1024.0).round() as u64));
            let keys: &[&str] = &["tors", "hosts_per_tor", "uplink_gbps", "uplink_buffer_kb"];
            let key = if tors >= hosts { "tors" } else { "hosts_per_tor" };
            check_counts(t, limits, key, (1 + tors + tors * hosts, tors + tors * hosts, 1 + tors, tors))?;
            (topology::many_to_one(tors, hosts, uplink, uplink_buffer, &d), keys)
        }
        "leaf_spine" => (read_leaf_spine(t, &d, limits)?, &["leaves", "spines", "hosts_per_leaf", "uplink_gbps", "oversubscription"]),
        "fat_tree" => {
            let k = fat_tree_k(t)?;
            let (half, hosts) = (k / 2, k * k * k / 4);
            check_counts(t, limits, "k", (5 * half * half + hosts, 3 * hosts, 5 * half * half, k * half))?;
            (topology::fat_tree(k, &d), &["k"])
        }
        _ => {
            let servers = count(t, "servers")?;
            check_counts(t, limits, "servers", (servers + 2, servers + 1, 1, 1))?;
            (topology::incast(servers, &d), &["servers"])
        }
    };
    if let Some(total) = loop_delay {
        set_source_loop(&mut topology, total);
    }
    let allowed: Vec<&str> = COMMON.iter().chain(extra).chain(&["feedback_loop_delay_us"]).copied().collect();
    t.finish(&allowed)?;
    let buffer = (t.key_path("buffer_kb"), t.get("buffer_kb").cloned());
    let mut buffer_keys = vec![buffer; topology.links.len()];
    if kind == "many_to_one" && t.get("uplink_buffer_kb").is_some() {
        // The ToR–fabric links are each ToR's first.
        let uplink = (t.key_path("uplink_buffer_kb"), t.get("uplink_buffer_kb").cloned());
        let per_tor = topology.links.len() / count(t, "tors")?;
        for k in (0..topology.links.len()).step_by(per_tor) {
            buffer_keys[k] = uplink.clone();
        }
    }
    Ok(Network { topology, buffer_keys, routing })
}

/// Refuses, at `key`, a network of `(nodes, links, routers, route columns)` too large
/// for `limits`: checked from the counts, before a node is made.
fn check_counts(t: &Table, limits: &Limits, key: &str, counts: (usize, usize, usize, usize)) -> Result<()> {
    let (nodes, links, routers, columns) = counts;
    let counts = NetworkCounts { nodes: nodes as f64, links: links as f64, routers: routers as f64, columns: columns as f64 };
    match limits.check_network(&counts) {
        Some(msg) => Err(t.error(key, t.get(key), msg)),
        None => Ok(()),
    }
}

/// A leaf-spine: its sizes, and its uplink rate given directly or by oversubscription.
fn read_leaf_spine(t: &Table, d: &LinkDefaults, limits: &Limits) -> Result<Topology> {
    let (leaves, spines, hosts) = (count(t, "leaves")?, count(t, "spines")?, count(t, "hosts_per_leaf")?);
    let key = if leaves >= spines { "leaves" } else { "spines" };
    check_counts(t, limits, key, (leaves + spines + leaves * hosts, leaves * spines + leaves * hosts, leaves + spines, leaves))?;
    let uplink = match (t.positive("uplink_gbps")?, t.positive("oversubscription")?) {
        (Some(_), Some(_)) => {
            let node = t.get("oversubscription");
            return Err(t.error("oversubscription", node, "give uplink_gbps or oversubscription, not both"));
        }
        (Some(gbps), None) => Rate::from_gbps_f64(gbps),
        (None, ratio) => topology::fabric::leaf_spine_uplink(hosts, spines, ratio.unwrap_or(1.0), d.rate),
    };
    if uplink.0 == 0 {
        return Err(t.error("oversubscription", t.get("oversubscription"), "leaves an uplink rate of 0"));
    }
    Ok(topology::leaf_spine(leaves, spines, hosts, uplink, d))
}

/// A fat-tree's `k`: even, 2 to 64 (65,536 hosts).
fn fat_tree_k(t: &Table) -> Result<usize> {
    let k = t.required("k", t.integer("k", 2, 64)?)? as usize;
    if k % 2 == 1 {
        return Err(t.error(
            "k",
            t.get("k"),
            format!("must be even (got {k}); a k-ary fat-tree splits each pod's k switches in two halves"),
        ));
    }
    Ok(k)
}

/// Sets the delay of every source-side link (senders of a dumbbell, servers of an
/// incast) to half the feedback loop: the loop from the congestion point back to the
/// source and forward again crosses that link twice.
fn set_source_loop(topology: &mut Topology, total: TimeDist) {
    let half = match total {
        TimeDist::Fixed(t) => TimeDist::Fixed(Time(t.0 / 2)),
        TimeDist::Uniform { low, high } => TimeDist::Uniform { low: Time(low.0 / 2), high: Time(high.0 / 2) },
        TimeDist::Exponential { mean } => TimeDist::Exponential { mean: Time(mean.0 / 2) },
    };
    let is_source = |n: &str| n.starts_with('s') && !n.starts_with("sw") || n.starts_with("srv");
    let nodes = &topology.nodes;
    for link in topology.links.iter_mut() {
        if is_source(&nodes[link.a].name) || is_source(&nodes[link.b].name) {
            link.delay = half;
        }
    }
}

const GENERIC_KEYS: &[&str] = &["kind", "hosts", "switches", "links", "ecmp", "ecmp_seed"];
const LINK_KEYS: &[&str] = &["a", "b", "rate_gbps", "delay_us", "buffer_kb", "priorities", "frame_service_us"];

fn read_generic(t: &Table, routing: RoutingSpec) -> Result<Network> {
    let mut topology = Topology::default();
    for (key, kind) in [("hosts", NodeKind::Host), ("switches", NodeKind::Switch)] {
        for (name, node) in t.strings(key)?.unwrap_or_default() {
            if name.is_empty() || name.contains(':') || name.contains('*') {
                return Err(t.error(key, Some(node), format!("\"{name}\" is not a valid node name (no ':' or '*')")));
            }
            if topology.index(name).is_some() {
                return Err(t.error(key, Some(node), format!("node \"{name}\" is listed twice")));
            }
            topology.add_node(name.to_string(), kind);
        }
    }
    let mut buffer_keys = Vec::new();
    for link in t.tables("links")? {
        let end = |key: &str| -> Result<usize> {
            let (name, node) = link.required(key, link.string(key)?)?;
            topology.index(name).ok_or_else(|| link.error(key, Some(node), format!("unknown node \"{name}\"")))
        };
        let (a, b) = (end("a")?, end("b")?);
        let d = link_defaults(&link)?;
        let rate = link.required("rate_gbps", link.positive("rate_gbps")?)?;
        let spec = LinkSpec {
            a,
            b,
            rate: Rate::from_gbps_f64(rate),
            delay: d.delay,
            buffer: d.buffer,
            priorities: d.priorities,
            frame_service: d.frame_service,
        };
        link.finish(LINK_KEYS)?;
        buffer_keys.push((link.key_path("buffer_kb"), link.get("buffer_kb").cloned()));
        topology.links.push(spec);
    }
    t.finish(GENERIC_KEYS)?;
    Ok(Network { topology, buffer_keys, routing })
}

/// Resolves a port name `node:peer`.
pub fn port_ref(t: &Table, key: &str, name: &str, node: &Node, topo: &Topology) -> Result<PortRef> {
    let bad = |msg: String| t.error(key, Some(node), msg);
    let (a, b) = name.split_once(':').ok_or_else(|| bad(format!("\"{name}\" is not a port name (node:peer)")))?;
    let index = |n: &str| topo.index(n).ok_or_else(|| bad(format!("unknown node \"{n}\" in port \"{name}\"")));
    let (a, b) = (index(a)?, index(b)?);
    if !topo.links.iter().any(|l| (l.a, l.b) == (a, b) || (l.a, l.b) == (b, a)) {
        return Err(bad(format!("no link joins the two nodes of port \"{name}\"")));
    }
    Ok(PortRef { node: a, peer: b })
}

fn port_list(t: &Table, key: &str, topo: &Topology) -> Result<Option<Vec<PortRef>>> {
    match t.strings(key)? {
        None => Ok(None),
        Some(list) => list.iter().map(|&(name, node)| port_ref(t, key, name, node, topo)).collect::<Result<_>>().map(Some),
    }
}

/// The ports listed under `key`, each on a switch (a host's NIC has no congestion point).
fn switch_ports(t: &Table, key: &str, topo: &Topology) -> Result<Vec<PortRef>> {
    let ports = port_list(t, key, topo)?.unwrap_or_default();
    for (i, port) in ports.iter().enumerate() {
        if topo.nodes[port.node].kind == NodeKind::Host {
            let node = match t.get(key).map(|n| &n.value) {
                Some(Value::Array(items)) => items.get(i),
                _ => t.get(key),
            };
            let (host, peer) = (&topo.nodes[port.node].name, &topo.nodes[port.peer]);
            let hint = if peer.kind == NodeKind::Switch { format!("; did you mean \"{}:{host}\"?", peer.name) } else { String::new() };
            let msg = format!("\"{host}:{}\" is a host's port; congestion points sit on switch ports{hint}", peer.name);
            return Err(t.error(key, node, msg));
        }
    }
    Ok(ports)
}

/// Reads `[scheme]`: its name, where its congestion points sit, and its parameters.
pub fn read_scheme(t: Option<&Table>, topo: &Topology) -> Result<(SchemeConfig, CpPlacement, Vec<SchemeConfig>)> {
    let Some(t) = t else { return Ok((SchemeConfig::default(), CpPlacement::AllSwitchPorts, Vec::new())) };
    let names = SchemeConfig::names();
    let name = t.choice("name", &names)?.unwrap_or("none");
    let mut scheme = SchemeConfig::by_name(name).expect("a listed name");
    let placement = match t.get("congestion_points").map(|n| &n.value) {
        Some(Value::Str(s)) if s == "all" => CpPlacement::AllSwitchPorts,
        Some(_) => CpPlacement::Ports(switch_ports(t, "congestion_points", topo)?),
        None => CpPlacement::AllSwitchPorts,
    };
    // The keys are all set before their order is checked (ECM's thresholds can only
    // be raised together); a disorder is reported at the last key written.
    let mut last = None;
    let mut others = Vec::new();
    for (key, node) in t.rest() {
        if names.contains(&key) {
            // `[scheme.<name>]`: parameters of that scheme, applied when it is the one run
            // or the one a flow runs (`flows[].scheme`).
            let sub = Table::new(t.file(), &t.key_path(key), node)?;
            let mut other = SchemeConfig::by_name(key).expect("a listed name");
            let mut last_sub = None;
            for (param, value_node) in sub.rest() {
                let value = scheme_value(&sub, param, param, value_node)?;
                other.set_param_alone(param, &value).map_err(|m| sub.error(param, Some(value_node), m.to_string()))?;
                if key == name {
                    scheme.set_param_alone(param, &value).map_err(|m| sub.error(param, Some(value_node), m.to_string()))?;
                }
                last_sub = Some((param, value_node));
            }
            if let (Err(m), Some((param, value_node))) = (other.check(), last_sub) {
                return Err(sub.error(param, Some(value_node), m.to_string()));
            }
            others.push(other);
            continue;
        }
        let value = scheme_value(t, key, key, node)?;
        scheme.set_param_alone(key, &value).map_err(|m| t.error(key, Some(node), m.to_string()))?;
        last = Some((key, node));
    }
    if let Err(m) = scheme.check() {
        let (key, node) = last.map_or(("name", t.get("name")), |(key, node)| (key, Some(node)));
        return Err(t.error(key, node, m.to_string()));
    }
    Ok((scheme, placement, others))
}

/// The value of scheme (or transport) parameter `param`, written at `key` of `t`: a number (finite,
/// and surviving its unit's conversion), a boolean or a string.
pub fn scheme_value(t: &Table, key: &str, param: &str, node: &Node) -> Result<ParamValue> {
    let value = param_value(node).ok_or_else(|| t.error(key, Some(node), "must be a number, a boolean or a string"))?;
    if let ParamValue::Number(x) = value {
        if !x.is_finite() {
            return Err(t.error(key, Some(node), format!("{param} must be a finite number (got {x})")));
        }
        let named = |m: String| if key == param { m } else { format!("{param}: {m}") };
        crate::units::check(param, x).map_err(|m| t.error(key, Some(node), named(m)))?;
    }
    Ok(value)
}

/// A scheme parameter's value, as the core takes it.
pub fn param_value(node: &Node) -> Option<ParamValue> {
    match &node.value {
        Value::Int(i) => Some(ParamValue::Number(*i as f64)),
        Value::Float(f) => Some(ParamValue::Number(*f)),
        Value::Bool(b) => Some(ParamValue::Bool(*b)),
        Value::Str(s) => Some(ParamValue::Text(s.clone())),
        _ => None,
    }
}

/// Reads `[monitor]`: the ports whose queue is sampled.
pub fn read_monitor(t: Option<&Table>, topo: &Topology) -> Result<Option<Vec<PortRef>>> {
    let Some(t) = t else { return Ok(None) };
    let ports = port_list(t, "ports", topo)?;
    t.finish(&["ports"])?;
    Ok(ports)
}
