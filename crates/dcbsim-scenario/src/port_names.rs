//! Port names that cannot silently miss. A port `node:peer` is the egress of `node`
//! toward `peer`; naming it the wrong way round (`r0:sw0` for `sw0:r0`) names a real
//! port that the experiment's traffic never crosses, and the congestion point, the
//! monitored queue or the timeline change would do nothing. Each key naming a port
//! must name one that carries what the key acts on:
//!
//! | key | the port must carry |
//! |-----|---------------------|
//! | `scheme.congestion_points` | data of a flow that heeds notifications (not only constant-rate flows; acknowledgements are not sampled) |
//! | `monitor.ports`, `timeline[].port`, `ets.ports` | any frame: data or TCP acknowledgements |
//! | `timeline[].link` | any frame, in either direction |
//! | `transport.ecn_k_kb` (by port) | data of a DCTCP flow (only ECN-capable frames are marked) |
//! | `pfc.ports`, `pfc.xoff_kb`/`xon_kb`/`headroom_kb` (by port) | a lossless priority's frames arriving from `peer` (PFC names an ingress by the switch's port toward the upstream node) |
//!
//! A flow counts on the ports of every shortest path between its hosts (see
//! [`crate::crossing`]), whether it sends from the start, from a timeline entry or as
//! an arrival source's flow. When the reverse port fits, the error asks
//! "did you mean" it.

use crate::crossing::{self, ACK, CONTROLLED, Crossing, DATA, ECT};
use crate::doc::{Node, Value};
use crate::error::ScenarioError;
use dcbsim_core::config::{NodeKind, SimConfig};

/// What a key does at the port it names.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Use {
    /// A congestion point: samples data frames, notifies their sources.
    CongestionPoint,
    /// ECN marking at a DCTCP threshold.
    Marking,
    /// A queue watched, a rate changed, classes scheduled: any frame counts.
    Frames,
    /// Both directions of a link: any frame, either way.
    Link,
    /// A PFC ingress named by the switch's port toward the upstream node.
    PfcIngress,
}

/// One port name found in the document.
struct Named<'a> {
    key: String,
    name: &'a str,
    node: &'a Node,
    usage: Use,
}

/// Refuses any port name of the document whose port does not carry what its key acts on.
pub fn check(doc: &Node, file: &str, config: &SimConfig) -> Result<(), ScenarioError> {
    let named = named_ports(doc);
    if named.is_empty() {
        return Ok(());
    }
    let crossing = Crossing::of(config);
    let net = Ports { config, crossing: &crossing };
    for n in named {
        let Some((a, b)) = net.resolve(n.name) else { continue };
        if let Some(msg) = net.problem(n.usage, a, b) {
            return Err(ScenarioError::new(file, &n.node.at, n.key, msg));
        }
    }
    Ok(())
}

/// The value at `path` (table keys only).
fn at<'a>(doc: &'a Node, path: &[&str]) -> Option<&'a Node> {
    path.iter().try_fold(doc, |node, key| match &node.value {
        Value::Table(entries) => entries.iter().find(|e| e.key == *key).map(|e| &e.node),
        _ => None,
    })
}

/// The strings of a string or a list of strings.
fn strings(node: &Node) -> Vec<(&str, &Node)> {
    match &node.value {
        Value::Str(s) => vec![(s.as_str(), node)],
        Value::Array(items) => {
            items.iter().filter_map(|n| if let Value::Str(s) = &n.value { Some((s.as_str(), n)) } else { None }).collect()
        }
        _ => Vec::new(),
    }
}

/// Every port name of the document, with its key and what the key does there.
fn named_ports(doc: &Node) -> Vec<Named<'_>> {
    let mut out = Vec::new();
    let mut list = |path: &[&str], usage: Use| {
        if let Some(node) = at(doc, path) {
            let key = path.join(".");
            let all = matches!(&node.value, Value::Str(s) if s == "all");
            out.extend(strings(node).into_iter().filter(|_| !all).map(|(name, node)| Named { key: key.clone(), name, node, usage }));
        }
    };
    list(&["scheme", "congestion_points"], Use::CongestionPoint);
    list(&["monitor", "ports"], Use::Frames);
    list(&["ets", "ports"], Use::Frames);
    list(&["pfc", "ports"], Use::PfcIngress);
    let mut by_port = |path: &[&str], usage: Use| {
        if let Some(Value::Table(entries)) = at(doc, path).map(|n| &n.value) {
            let key = path.join(".");
            out.extend(entries.iter().map(|e| Named { key: format!("{key}.{}", e.key), name: &e.key, node: &e.node, usage }));
        }
    };
    by_port(&["transport", "ecn_k_kb"], Use::Marking);
    for k in ["xoff_kb", "xon_kb", "headroom_kb"] {
        by_port(&["pfc", k], Use::PfcIngress);
    }
    if let Some(Value::Array(entries)) = at(doc, &["timeline"]).map(|n| &n.value) {
        for (i, entry) in entries.iter().enumerate() {
            for (k, usage) in [("port", Use::Frames), ("link", Use::Link)] {
                if let Some(node @ Node { value: Value::Str(name), .. }) = at(entry, &[k]) {
                    out.push(Named { key: format!("timeline[{i}].{k}"), name, node, usage });
                }
            }
        }
    }
    out
}

/// The network's ports and what crosses them.
struct Ports<'a> {
    config: &'a SimConfig,
    crossing: &'a Crossing,
}

impl Ports<'_> {
    /// The nodes of port name `node:peer` (already checked to name a link).
    fn resolve(&self, name: &str) -> Option<(usize, usize)> {
        let (a, b) = name.split_once(':')?;
        let index = |n: &str| self.config.nodes.iter().position(|s| s.name == n);
        Some((index(a)?, index(b)?))
    }

    fn name(&self, a: usize, b: usize) -> String {
        format!("{}:{}", self.config.nodes[a].name, self.config.nodes[b].name)
    }

    fn is_switch(&self, n: usize) -> bool {
        self.config.nodes[n].kind == NodeKind::Switch
    }

    /// The lossless priorities' bits.
    fn lossless(&self) -> u16 {
        (self.config.pfc.lossless as u16) << 8
    }

    /// Whether port `a → b` carries what `usage` acts on.
    fn fits(&self, usage: Use, a: usize, b: usize) -> bool {
        match usage {
            Use::CongestionPoint => self.crossing.at(a, b) & CONTROLLED != 0,
            Use::Marking => self.crossing.at(a, b) & ECT != 0,
            Use::Frames => self.crossing.at(a, b) & (DATA | ACK) != 0,
            Use::Link => (self.crossing.at(a, b) | self.crossing.at(b, a)) & (DATA | ACK) != 0,
            Use::PfcIngress => self.crossing.at(b, a) & self.lossless() != 0,
        }
    }

    /// Why port `a → b` does not fit `usage`, with a hint when `b:a` does; None if it fits.
    fn problem(&self, usage: Use, a: usize, b: usize) -> Option<String> {
        if self.fits(usage, a, b) {
            return None;
        }
        let (name, bits) = (self.name(a, b), self.crossing.at(a, b));
        let what = match usage {
            Use::CongestionPoint if bits & DATA != 0 => {
                format!("only constant-rate flows cross \"{name}\", and they do not heed a congestion point's notifications")
            }
            Use::CongestionPoint if bits & ACK != 0 => {
                format!("only TCP acknowledgements cross \"{name}\", and a congestion point samples data frames")
            }
            Use::CongestionPoint => format!("no flow's data crosses \"{name}\", so a congestion point there would never act"),
            Use::Marking => format!("no DCTCP flow's data crosses \"{name}\" (ECN marks only ECN-capable data frames)"),
            Use::Frames => format!("no traffic crosses \"{name}\" (neither a flow's data nor TCP acknowledgements)"),
            Use::Link => format!("no traffic crosses the link \"{name}\" in either direction"),
            Use::PfcIngress => self.pfc_problem(a, b),
        };
        let hint = (usage != Use::Link && self.reverse_fits(usage, a, b)).then(|| format!("; did you mean \"{}\"?", self.name(b, a)));
        Some(what + hint.as_deref().unwrap_or(""))
    }

    /// Whether the reverse port `b → a` fits `usage` and may be named where `a → b` was.
    fn reverse_fits(&self, usage: Use, a: usize, b: usize) -> bool {
        let must_be_switch = matches!(usage, Use::CongestionPoint | Use::Marking | Use::PfcIngress);
        (!must_be_switch || self.is_switch(b)) && self.fits(usage, b, a)
    }

    fn pfc_problem(&self, a: usize, b: usize) -> String {
        let (sw, up) = (&self.config.nodes[a].name, &self.config.nodes[b].name);
        let lossless = mask_list(crossing::priorities(self.lossless()));
        let from = crossing::priorities(self.crossing.at(b, a));
        let seen = if from == 0 { String::new() } else { format!(" (only priorities {})", mask_list(from)) };
        format!(
            "PFC at \"{sw}:{up}\" watches the frames {sw} receives from {up}, and none of a lossless priority ({lossless}) arrives that way{seen}"
        )
    }
}

/// The priorities of `mask`, as "0, 3".
fn mask_list(mask: u8) -> String {
    (0..8).filter(|q| mask & (1 << q) != 0).map(|q: u8| q.to_string()).collect::<Vec<_>>().join(", ")
}
