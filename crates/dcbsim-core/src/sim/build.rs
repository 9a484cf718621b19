//! Building the network from a [`SimConfig`], with the checks only the whole network
//! can make.

use super::Simulation;
use crate::cc::{CpInit, ReactionPointKind, RpInit, SchemeConfig};
use crate::config::{Action, ConfigError, CpPlacement, FlowKind, NodeKind, PortRef, SimConfig, TimelineEntry};
use crate::fairshare::Paths;
use crate::monitor::Sampler;
use crate::net::{Host, Port, Routes};
use crate::rng::Rng;
use crate::samples::{FlowColumns, SampleLayout};
use crate::sched::{Event, EventQueue};
use crate::traffic::{Flow, Source};
use crate::transport::{EcnMarking, Transport};
use crate::units::Time;
use std::sync::Arc;

/// The ports of a network and how to find them.
struct Wiring {
    ports: Vec<Port>,
    names: Arc<[String]>,
    ports_of: Vec<Vec<(u32, u32)>>,
}

/// Events carry indices in 28 bits; refuse networks too large for them.
fn check_sizes(config: &SimConfig) -> Result<(), ConfigError> {
    let too_many = |what: &str, n: usize| {
        (n > crate::sched::MAX_ID).then(|| ConfigError::new(what, format!("at most {} entries", crate::sched::MAX_ID)))
    };
    let checks = [
        ("topology.links", config.links.len() * 2),
        ("flows", config.flows.len()),
        ("arrivals", config.arrivals.len() + config.flows.len()),
        ("timeline", config.timeline.len() + 2 * config.flows.len()),
    ];
    match checks.into_iter().find_map(|(what, n)| too_many(what, n)) {
        Some(err) => Err(err),
        None => Ok(()),
    }
}

/// The ports of `config`'s network, named as in `names` when given (the names of a
/// run built from the same configuration, shared rather than made again).
fn wire(config: &SimConfig, seed: u64, names: Option<&Arc<[String]>>) -> Result<Wiring, ConfigError> {
    let n = config.nodes.len();
    // Sized up front: grown by doubling, a run of 100,000 hosts kept a fifth of its
    // ports' room spare, and held both copies while growing.
    let mut ports = Vec::with_capacity(2 * config.links.len());
    let mut made = Vec::with_capacity(if names.is_some() { 0 } else { 2 * config.links.len() });
    let mut ports_of = vec![Vec::new(); n];
    let mut joined = std::collections::HashSet::with_capacity(config.links.len());
    for (i, link) in config.links.iter().enumerate() {
        // Named only on an error (a fabric has hundreds of thousands of links).
        let path = || format!("topology.links[{i}]");
        if link.a >= n || link.b >= n || link.a == link.b {
            return Err(ConfigError::new(path(), "a link joins two different existing nodes"));
        }
        if link.rate.0 == 0 {
            return Err(ConfigError::new(format!("{}.rate_gbps", path()), "capacity must be > 0"));
        }
        let (a, b) = (config.nodes[link.a].name.as_str(), config.nodes[link.b].name.as_str());
        let delay = link.delay.sample(&mut Rng::stream_of(seed, &["link:", a, "-", b]));
        if !joined.insert((link.a.min(link.b), link.a.max(link.b))) {
            return Err(ConfigError::new(path(), "two links join the same pair of nodes"));
        }
        for (from, to) in [(link.a, link.b), (link.b, link.a)] {
            let is_host = config.nodes[from].kind == NodeKind::Host;
            let mut port = Port::new(from as u32, to as u32, is_host, link.rate, delay, link.buffer);
            if !is_host {
                port.set_priorities(link.priorities);
                port.set_frame_service(link.frame_service.unwrap_or_default());
            }
            ports_of[from].push((ports.len() as u32, to as u32));
            if names.is_none() {
                made.push(format!("{}:{}", config.nodes[from].name, config.nodes[to].name));
            }
            ports.push(port);
        }
    }
    let names = names.cloned().unwrap_or_else(|| made.into());
    let mut w = Wiring { ports, names, ports_of };
    // A link's two ports are made one after the other, so each port's reverse is its
    // pair (a lookup among the peer's ports would be quadratic on a large switch).
    for p in 0..w.ports.len() {
        let back = p ^ 1;
        debug_assert_eq!((w.ports[back].node, w.ports[back].peer), (w.ports[p].peer, w.ports[p].node));
        w.ports[p].reverse = back as u32;
    }
    for (i, node) in config.nodes.iter().enumerate() {
        if node.kind == NodeKind::Host && w.ports_of[i].len() != 1 {
            let msg = format!("host \"{}\" must have exactly one link (it has {})", node.name, w.ports_of[i].len());
            return Err(ConfigError::new("topology", msg));
        }
    }
    Ok(w)
}

fn port_index(w: &Wiring, r: PortRef) -> Option<u32> {
    w.ports_of.get(r.node)?.iter().find(|&&(_, peer)| peer as usize == r.peer).map(|&(p, _)| p)
}

fn find_port(w: &Wiring, r: PortRef, path: &str) -> Result<u32, ConfigError> {
    port_index(w, r).ok_or_else(|| ConfigError::new(path, "no link joins these two nodes"))
}

/// A flow may run the run's scheme, or another without congestion points of its own
/// (whose reaction point needs nothing at the switches that another scheme placed).
fn check_flow_scheme(config: &SimConfig, name: Option<&str>) -> Result<(), String> {
    let Some(name) = name.filter(|&n| n != config.scheme.name()) else { return Ok(()) };
    let free: Vec<&str> =
        SchemeConfig::names().into_iter().filter(|&n| SchemeConfig::by_name(n).is_some_and(|s| !s.has_congestion_points())).collect();
    match SchemeConfig::by_name(name) {
        Some(s) if !s.has_congestion_points() => Ok(()),
        Some(_) => Err(format!(
            "\"{name}\" needs its congestion points at the switches, which run {}'s; a flow may run {} or one of: {}",
            config.scheme.name(),
            config.scheme.name(),
            free.join(", ")
        )),
        None => Err(format!("unknown scheme \"{name}\"; allowed: {}", SchemeConfig::names().join(", "))),
    }
}

/// Adds the defaults of every scheme a flow names and the configuration does not hold,
/// so that [`SimConfig::scheme_for`] finds each.
fn complete_flow_schemes(config: &mut SimConfig) {
    let named: Vec<&'static str> = config.flows.iter().chain(config.arrivals.iter().map(|a| &a.flow)).filter_map(|f| f.scheme).collect();
    for name in named {
        let held = name == config.scheme.name() || config.flow_schemes.iter().any(|s| s.name() == name);
        if let (false, Some(s)) = (held, SchemeConfig::by_name(name)) {
            config.flow_schemes.push(s);
        }
    }
}

/// Whether any flow's scheme has switches add in-band telemetry.
fn any_telemetry(config: &SimConfig) -> bool {
    let flows = config.flows.iter().chain(config.arrivals.iter().map(|a| &a.flow));
    std::iter::once(&config.scheme).chain(flows.map(|f| config.scheme_for(f.scheme))).any(|s| s.acks().is_some_and(|a| a.telemetry))
}

fn check_flows(config: &SimConfig, routes: &Routes, w: &Wiring) -> Result<(), ConfigError> {
    let n = config.nodes.len();
    let templates = config.arrivals.iter().map(|a| ("arrivals", &a.flow));
    for (i, (key, f)) in config.flows.iter().map(|f| ("flows", f)).chain(templates).enumerate() {
        let i = if key == "flows" { i } else { i - config.flows.len() };
        let group = key;
        for (key, node) in [("src", f.src), ("dst", f.dst)] {
            if node >= n || config.nodes[node].kind != NodeKind::Host {
                return Err(ConfigError::new(format!("{group}[{i}].{key}"), "must name a host"));
            }
        }
        if f.src == f.dst {
            return Err(ConfigError::new(format!("{group}[{i}].dst"), "must differ from src"));
        }
        let peer_of = |p: u32| w.ports[p as usize].peer;
        if routes.path(f.src as u32, f.dst as u32, 0, peer_of).is_none() {
            let msg = format!("no path from \"{}\" to \"{}\"", config.nodes[f.src].name, config.nodes[f.dst].name);
            return Err(ConfigError::new(format!("{group}[{i}].dst"), msg));
        }
        if f.frame_bytes == 0 {
            return Err(ConfigError::new(format!("{group}[{i}].frame_bytes"), "must be > 0"));
        }
        if !(f.weight.is_finite() && f.weight > 0.0) {
            return Err(ConfigError::new(format!("{group}[{i}].weight"), "must be a finite number > 0"));
        }
        if f.transport != Transport::None && !matches!(f.kind, FlowKind::Greedy | FlowKind::Finite { .. }) {
            let msg = "only greedy and finite flows run over a transport; allowed here: none";
            return Err(ConfigError::new(format!("{group}[{i}].transport"), msg));
        }
        check_flow_scheme(config, f.scheme).map_err(|m| ConfigError::new(format!("{group}[{i}].scheme"), m))?;
    }
    for (i, a) in config.arrivals.iter().enumerate() {
        if !(a.rate_per_s.is_finite() && a.rate_per_s > 0.0) {
            return Err(ConfigError::new(format!("arrivals[{i}].rate_per_s"), "must be > 0"));
        }
        a.size.check().map_err(|m| ConfigError::new(format!("arrivals[{i}].size_bytes"), m))?;
    }
    Ok(())
}

/// The scheme's configuration after each timeline entry that changes a parameter, by
/// the entry's index in the run's timeline.
pub(super) type SchemeChanges = Vec<(u32, SchemeConfig)>;

/// The run's timeline: each flow's own start and stop, then the configured entries,
/// sorted by time (stable, so list order breaks ties); with it, the scheme's
/// configuration after each entry that changes a parameter, by entry index. The
/// changes are checked here in the order they apply, each with those before it in
/// force, so that applying one during the run cannot fail.
fn timeline(config: &SimConfig) -> Result<(Vec<TimelineEntry>, SchemeChanges), ConfigError> {
    let mut entries = Vec::new();
    for (flow, f) in config.flows.iter().enumerate() {
        entries.push((None, TimelineEntry { at: f.start, action: Action::FlowStart { flow } }));
        if let Some(stop) = f.stop {
            entries.push((None, TimelineEntry { at: stop, action: Action::FlowStop { flow } }));
        }
    }
    for (i, e) in config.timeline.iter().enumerate() {
        if e.at > config.duration {
            return Err(ConfigError::new(format!("timeline[{i}].at_ms"), "is after the end of the run"));
        }
        let flow = match e.action {
            Action::FlowStart { flow } | Action::FlowStop { flow } | Action::FlowMaxRate { flow, .. } => Some(flow),
            _ => None,
        };
        if flow.is_some_and(|f| f >= config.flows.len()) {
            return Err(ConfigError::new(format!("timeline[{i}].flow"), "no such flow"));
        }
        entries.push((Some(i), e.clone()));
    }
    entries.sort_by_key(|(_, e)| e.at);
    let mut scheme = config.scheme.clone();
    let mut changes = Vec::new();
    for (k, (i, e)) in entries.iter().enumerate() {
        if let (Some(i), Action::SchemeParam { name, value }) = (i, &e.action) {
            let error = |m: crate::param::ParamError| ConfigError::new(format!("timeline[{i}].value"), format!("{name}: {m}"));
            scheme.set_param_alone(name, value).map_err(error)?;
            scheme.check().map_err(error)?;
            changes.push((k as u32, scheme.clone()));
        }
    }
    Ok((entries.into_iter().map(|(_, e)| e).collect(), changes))
}

fn cp_ports(config: &SimConfig, w: &Wiring) -> Result<Vec<u32>, ConfigError> {
    match &config.congestion_points {
        CpPlacement::AllSwitchPorts => Ok((0..w.ports.len() as u32).filter(|&p| !w.ports[p as usize].is_host).collect()),
        CpPlacement::Ports(list) => {
            list.iter().enumerate().map(|(i, &r)| find_port(w, r, &format!("scheme.congestion_points[{i}]"))).collect()
        }
    }
}

/// Sets each switch port's ECN marking threshold (none unless some flow runs DCTCP:
/// nothing else is ECN-capable).
fn ecn_thresholds(config: &SimConfig, w: &mut Wiring) -> Result<(), ConfigError> {
    let templates = config.arrivals.iter().map(|a| &a.flow);
    if !config.flows.iter().chain(templates).any(|f| f.transport == Transport::Dctcp) {
        return Ok(());
    }
    match &config.tcp.ecn {
        EcnMarking::ByCapacity | EcnMarking::All(_) => {
            for port in w.ports.iter_mut().filter(|p| !p.is_host) {
                port.ecn_threshold = match &config.tcp.ecn {
                    EcnMarking::All(k) => k.0,
                    _ => EcnMarking::default_threshold(port.rate()).0,
                };
            }
        }
        EcnMarking::Ports(list) => {
            for (i, &(r, k)) in list.iter().enumerate() {
                let p = find_port(w, r, &format!("transport.ecn_k_kb[{i}]"))?;
                w.ports[p as usize].ecn_threshold = k.0;
            }
        }
    }
    Ok(())
}

/// Checks the incast application's flows: existing, over a transport, one client.
fn check_incast(config: &SimConfig) -> Result<(), ConfigError> {
    let Some(app) = &config.incast else { return Ok(()) };
    if app.flows.is_empty() || app.sru == 0 {
        return Err(ConfigError::new("incast", "needs at least one server and an SRU > 0"));
    }
    for &f in &app.flows {
        let Some(spec) = config.flows.get(f) else { return Err(ConfigError::new("incast", "no such flow")) };
        if spec.transport == Transport::None || spec.kind != FlowKind::Greedy {
            return Err(ConfigError::new("incast.transport", "incast servers need a transport; allowed: tcp, dctcp"));
        }
        if spec.frame_bytes != config.flows[app.flows[0]].frame_bytes {
            return Err(ConfigError::new("incast.frame_bytes", "every server sends frames of one size"));
        }
    }
    Ok(())
}

fn monitored_ports(config: &SimConfig, w: &Wiring) -> Result<Vec<u32>, ConfigError> {
    match &config.monitor.ports {
        None => Ok((0..w.ports.len() as u32).filter(|&p| !w.ports[p as usize].is_host).collect()),
        Some(list) => list.iter().enumerate().map(|(i, &r)| find_port(w, r, &format!("monitor.ports[{i}]"))).collect(),
    }
}

/// The columns of a sample: the monitored switch ports by index (each once), then
/// per configured flow its series, with a window over a transport and α with DCTCP.
fn sample_layout(config: &SimConfig, w: &Wiring) -> Result<SampleLayout, ConfigError> {
    let mut ports: Vec<u32> = monitored_ports(config, w)?.into_iter().filter(|&p| !w.ports[p as usize].is_host).collect();
    ports.sort_unstable();
    ports.dedup();
    let flows = config
        .flows
        .iter()
        .map(|f| FlowColumns {
            cwnd: f.transport != crate::transport::Transport::None,
            alpha: f.transport == crate::transport::Transport::Dctcp,
            acked: config.scheme_for(f.scheme).acks().is_some()
                && f.transport == crate::transport::Transport::None
                && f.kind != FlowKind::Constant,
            delivered_only: false,
        })
        .collect();
    Ok(SampleLayout { ports, flows })
}

/// The ON-OFF and Poisson sources of the configured flows, each with its own stream
/// `source:<flow name>`, and for each configured flow the index of its source.
fn dynamic_sources(config: &SimConfig, flows: &[Flow], seed: u64) -> (Vec<Source>, Vec<Option<u32>>) {
    let mut sources = Vec::new();
    let mut source_of = vec![None; config.flows.len()];
    for (i, spec) in config.flows.iter().enumerate() {
        if !matches!(spec.kind, FlowKind::OnOff { .. } | FlowKind::Poisson { .. }) {
            continue;
        }
        let rng = Rng::stream(seed, &format!("source:{}", spec.name));
        if let Some(source) = Source::new(spec, i as u32, flows[i].line_rate, rng) {
            source_of[i] = Some(sources.len() as u32);
            sources.push(source);
        }
    }
    (sources, source_of)
}

/// Collects `items` into a vector sized for `n` of them up front (collecting fallible
/// items grows the vector by doubling: at 100,000 flows, a quarter of its room spare).
fn collect_sized<T, E>(n: usize, items: impl Iterator<Item = Result<T, E>>) -> Result<Vec<T>, E> {
    let mut out = Vec::with_capacity(n);
    for item in items {
        out.push(item?);
    }
    Ok(out)
}

impl Simulation {
    /// Builds the network; fails when the configuration cannot run.
    pub fn new(config: SimConfig, seed: u64) -> Result<Simulation, ConfigError> {
        Simulation::build(Arc::new(config), seed, None)
    }

    /// Another run of `first`'s configuration and seed, not started, sharing with it
    /// what no run changes (the configuration, the timeline, the flows' paths, the
    /// routes, the ports' names)
    /// instead of holding copies: the parts of a split run (`parallel/`).
    pub(super) fn like(first: &Simulation) -> Simulation {
        Simulation::build(first.config.clone(), first.seed, Some(first)).expect("the same configuration built before")
    }

    /// [`Simulation::new`], taking what it shares from `like` when given.
    fn build(mut config: Arc<SimConfig>, seed: u64, like: Option<&Simulation>) -> Result<Simulation, ConfigError> {
        if config.duration.0 == 0 {
            return Err(ConfigError::new("run.duration_ms", "must be > 0"));
        }
        if config.monitor.sample_interval.0 == 0 {
            return Err(ConfigError::new("run.sample_interval_us", "must be > 0"));
        }
        check_sizes(&config)?;
        let mut w = wire(&config, seed, like.map(|l| &l.port_names))?;
        let is_host: Vec<bool> = config.nodes.iter().map(|n| n.kind == NodeKind::Host).collect();
        let routes = match like {
            Some(like) => like.routes.clone(),
            None => Routes::compute(&w.ports_of, &is_host, config.routing.ecmp_salt(seed)),
        };
        check_flows(&config, &routes, &w)?;
        let (timeline, scheme_changes) = match like {
            Some(like) => (like.changes.timeline.clone(), like.changes.scheme.clone()),
            None => {
                complete_flow_schemes(Arc::make_mut(&mut config));
                let (timeline, changes) = timeline(&config)?;
                (timeline.into(), changes)
            }
        };
        config.tcp.check().map_err(|m| ConfigError::new("transport", m))?;
        check_incast(&config)?;
        ecn_thresholds(&config, &mut w)?;
        {
            let ports_of = &w.ports_of;
            let find = |r: PortRef, key: &str| -> Result<u32, ConfigError> {
                ports_of
                    .get(r.node)
                    .and_then(|l| l.iter().find(|&&(_, peer)| peer as usize == r.peer))
                    .map(|&(p, _)| p)
                    .ok_or_else(|| ConfigError::new(key, "no link joins these two nodes"))
            };
            super::pfc::configure(&config, &mut w.ports, find)?;
        }
        let pfc_on = config.pfc.lossless != 0;
        let shared =
            if pfc_on { super::shared_buffer::SharedBuffers::new(&config, &w.ports, super::pfc::frame_limit(&config)) } else { None };
        if config.ets.is_on() {
            let ets: Vec<u32> = match &config.ets.ports {
                None => (0..w.ports.len() as u32).filter(|&p| !w.ports[p as usize].is_host).collect(),
                Some(list) => {
                    list.iter().enumerate().map(|(i, &r)| find_port(&w, r, &format!("ets.ports[{i}]"))).collect::<Result<_, _>>()?
                }
            };
            for p in ets {
                if w.ports[p as usize].is_host {
                    return Err(ConfigError::new("ets.ports", "names a host's port; ETS runs at switch egress ports"));
                }
                w.ports[p as usize].set_ets(&config.ets.weights);
            }
        }
        config.scheme.check().map_err(|m| ConfigError::new(format!("scheme.{}", config.scheme.name()), m.to_string()))?;
        let largest_frame = config.flows.iter().map(|f| f.frame_bytes as u64).max().unwrap_or(1000);
        let stream = config.scheme.cp_stream();
        for p in cp_ports(&config, &w)? {
            let port = &w.ports[p as usize];
            let init = CpInit { capacity: port.rate(), buffer: port.buffer, cpid: p, frame_bytes: largest_frame };
            let rng = Rng::stream(seed, &format!("{stream}:{}", w.names[p as usize]));
            let cp = config.scheme.congestion_point(init, rng).map(Box::new);
            if cp.is_some() && config.scheme.marks_ecn() {
                // The congestion point decides every mark: the port asks it about each
                // ECN-capable frame that finds a queue.
                w.ports[p as usize].ecn_threshold = 0;
            }
            w.ports[p as usize].cp = cp;
        }
        let cnm_rngs = (0..w.ports.len())
            .map(|p| Rng::stream(seed, &format!("cnm:{}", w.names[p])))
            .filter(|_| !config.notification_latency.is_zero())
            .collect();
        let mut hosts = vec![None; config.nodes.len()];
        for (node, ports) in w.ports_of.iter().enumerate() {
            if is_host[node] {
                hosts[node] = Some(Host::new(ports[0].0));
            }
        }
        let telemetry = any_telemetry(&config);
        if telemetry {
            for port in w.ports.iter_mut().filter(|p| !p.is_host) {
                port.telemetry = true;
            }
        }
        let flows = config.flows.iter().enumerate().map(|(i, spec)| {
            let line_rate = w.ports[w.ports_of[spec.src][0].0 as usize].rate();
            let initial_rate = spec.rate.unwrap_or(line_rate);
            let rp = match &spec.kind {
                FlowKind::Constant => ReactionPointKind::fixed(initial_rate),
                _ => {
                    let scheme = config.scheme_for(spec.scheme);
                    let mut init = RpInit::of(spec, line_rate, i as u32);
                    let ends = (spec.src as u32, spec.dst as u32, i as u32);
                    init.base_rtt = super::acks::base_rtt(&routes, &w.ports, ends, spec.frame_bytes, scheme.acks());
                    scheme.reaction_point(init, Rng::stream(seed, &format!("rp:{}", spec.name)))
                }
            };
            if spec.jitter < 0.0 || spec.jitter >= 1.0 {
                return Err(ConfigError::new(format!("flows[{i}].jitter"), "must be in [0, 1)"));
            }
            super::sources::check(i, spec, line_rate)?;
            Ok(Flow::new(spec, rp, line_rate, Rng::stream(seed, &format!("flow:{}", spec.name))))
        });
        let flows = collect_sized(config.flows.len(), flows)?;
        let paths = match like {
            Some(like) => like.fair.paths(),
            None => {
                let mut paths = Paths::new();
                for (i, f) in config.flows.iter().enumerate() {
                    let peer_of = |p: u32| w.ports[p as usize].peer;
                    paths.push(&routes.path(f.src as u32, f.dst as u32, i as u32, peer_of).expect("checked above"));
                }
                Arc::new(paths)
            }
        };
        let frame_bytes = config.flows.iter().map(|f| f.frame_bytes).max().unwrap_or(1500);
        let fair = super::fair::FairShares::new(paths, w.ports.len(), frame_bytes);
        let (sources, source_of) = dynamic_sources(&config, &flows, seed);
        let interval = config.monitor.sample_interval;
        let samples = (config.duration.0 / interval.0) as usize;
        let sampler = Sampler::new(interval, sample_layout(&config, &w)?, samples);
        let mut queue = EventQueue::new();
        for (entry, e) in timeline.iter().enumerate() {
            queue.push(e.at, Event::Timeline { entry: entry as u32 });
        }
        if samples > 0 {
            queue.push(interval, Event::Sample);
        }
        let mut sim = Simulation {
            ports: w.ports,
            port_names: w.names,
            hosts,
            routes,
            weights: config.flows.iter().map(|f| f.weight).collect(),
            fair,
            flows,
            queue,
            sampler,
            watched: Vec::new(),
            notes: super::Notifications {
                out: Vec::with_capacity(16),
                latency_rngs: cnm_rngs,
                pending: Vec::new(),
                free_slots: Vec::new(),
                receiver_answer: config.scheme.receiver_answer(),
                bytes: config.notification_bytes,
            },
            apps: super::Apps {
                generators: config.arrivals.iter().map(|a| super::arrivals::Generator::new(a.clone(), seed)).collect(),
                conns: Vec::new(),
                incast: None,
                sources,
                source_of,
                ack_bytes: config.tcp.ack_bytes,
            },
            pfc: super::PfcState { on: pfc_on, shared, mtu: super::pfc::frame_limit(&config) },
            tracing: super::Tracing { traces: Vec::new(), trace_of: Vec::new(), traced: false },
            changes: super::Changes { timeline, scheme: scheme_changes },
            acking: super::acks::Acking::new(telemetry),
            fetch_ahead: false,
            early_flows: Vec::new(),
            hops: Vec::new(),
            now: crate::units::Time::ZERO,
            early_limit: crate::units::Time::ZERO,
            events: 0,
            shared_events: 0,
            wall_seconds: 0.0,
            seed,
            part: None,
            #[cfg(feature = "part-profile")]
            profile: None,
            config,
        };
        for f in 0..sim.config.flows.len() {
            let acks = sim.config.scheme_for(sim.config.flows[f].scheme).acks();
            sim.acking.register(f as u32, acks);
        }
        sim.start_transports();
        sim.start_arrivals();
        sim.set_departure_timing(sim.config.departure_timing);
        sim.fetch_ahead = outgrows_caches(sim.ports.len(), sim.flows.len());
        sim.hops = vec![super::hops::Hop::NONE; sim.ports.len()];
        Ok(sim)
    }
}

impl Simulation {
    /// Connections for the configured flows over a transport, and the incast
    /// application's first request.
    fn start_transports(&mut self) {
        let app = self.config.incast.clone();
        for f in 0..self.config.flows.len() {
            let serves = app.as_ref().is_some_and(|a| a.flows.contains(&f));
            let sru = app.as_ref().filter(|_| serves).map(|a| a.sru);
            self.attach_conn(f as u32, self.config.flows[f].transport, sru);
        }
        let Some(app) = app else { return };
        let conns = app.flows.iter().map(|&f| self.flows[f].conn).collect();
        let mss = self.flows[app.flows[0]].frame_bytes as u64;
        self.apps.incast = Some(super::incast::Incast {
            conns,
            segments: app.sru.div_ceil(mss) as u32,
            sru: app.sru,
            limit: app.blocks,
            requested: 0,
            done: 0,
            started: Time::ZERO,
            timeouts_before: 0,
            blocks: Vec::new(),
            jitter: app.response_jitter,
            rng: crate::rng::Rng::stream(self.seed, "incast"),
        });
        let id = self.incast_source_id();
        self.queue.push(app.start, Event::Source { source: id, generation: 0 });
    }
}

/// Whether ports and flows together take more than [`FETCH_AHEAD_ABOVE`] bytes, where
/// reading the next event's state ahead, and prefetching that of the events after it
/// and of the flow a NIC serves next, pays; below it the reads cost more than the
/// cache misses they hide (docs/speed.md). A part of a split run counts its own: the
/// ports of its nodes and the flows it sends or receives.
pub(super) fn outgrows_caches(ports: usize, flows: usize) -> bool {
    ports * std::mem::size_of::<crate::net::Port>() + flows * std::mem::size_of::<crate::traffic::Flow>() > FETCH_AHEAD_ABOVE
}

/// The bytes of ports and flows above which the loop fetches ahead: a second-level
/// cache here. Incast runs of 128 to 512 senders (180-530 KB) took 0.91-0.96 of the
/// time without fetching, 1,024 as long (1.05 MB), 2,048 1.09 times as long; on two
/// threads, k = 8 DCTCP's parts (210 KB) 0.90, k = 16's (1.7 MB) 1.21 (docs/speed.md).
const FETCH_AHEAD_ABOVE: usize = 1 << 20;
