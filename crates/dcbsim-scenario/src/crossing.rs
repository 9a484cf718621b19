//! Which frames may cross each port: the data of every flow (named flows, the incast's
//! server flows and each arrival source's flows) along its route, and the TCP
//! acknowledgements back along the reverse route.
//!
//! A flow is counted on every shortest path between its hosts, not only on the one the
//! engine's routes pick: a port some route may use is never refused. Notification and
//! PAUSE frames are not counted: they exist only where data is.

use dcbsim_core::config::{FlowKind, FlowSpec, NodeKind, SimConfig};
use dcbsim_core::transport::Transport;
use std::collections::{BTreeMap, HashMap};

/// Data frames of any flow.
pub const DATA: u16 = 1;
/// Data frames of a flow whose reaction point heeds notifications (any but a constant-rate flow).
pub const CONTROLLED: u16 = 2;
/// Data frames of an ECN-capable (DCTCP) flow.
pub const ECT: u16 = 4;
/// TCP acknowledgements.
pub const ACK: u16 = 8;

/// The bit of 802.1p priority `p` (data and acknowledgements carry their flow's).
pub fn priority_bit(p: u8) -> u16 {
    1 << (8 + (p & 7))
}

/// The priorities of `bits` as a mask (bit q: priority q).
pub fn priorities(bits: u16) -> u8 {
    (bits >> 8) as u8
}

/// What crosses each directed port `node → peer`.
pub struct Crossing {
    ports: HashMap<(usize, usize), u16>,
}

/// One stream of frames: from `src` to `dst`, of the kinds in `bits`.
struct Demand {
    src: usize,
    dst: usize,
    bits: u16,
}

/// The demands of one flow: its data, and its acknowledgements when it runs TCP.
fn demands_of(f: &FlowSpec, out: &mut Vec<Demand>) {
    let prio = priority_bit(f.priority);
    let mut data = DATA | prio;
    if f.kind != FlowKind::Constant {
        data |= CONTROLLED;
    }
    if f.transport == Transport::Dctcp {
        data |= ECT;
    }
    out.push(Demand { src: f.src, dst: f.dst, bits: data });
    if f.transport != Transport::None {
        out.push(Demand { src: f.dst, dst: f.src, bits: ACK | prio });
    }
}

impl Crossing {
    /// What the flows and arrival sources of `config` send across each port.
    pub fn of(config: &SimConfig) -> Crossing {
        let mut demands = Vec::new();
        let templates = config.arrivals.iter().map(|a| &a.flow);
        for f in config.flows.iter().chain(templates) {
            demands_of(f, &mut demands);
        }
        let net = Net::new(config);
        let mut by_anchor: BTreeMap<usize, Vec<Demand>> = BTreeMap::new();
        for d in demands {
            by_anchor.entry(net.anchor[d.dst]).or_default().push(d);
        }
        let mut crossing = Crossing { ports: HashMap::new() };
        for (anchor, demands) in by_anchor {
            net.spread(anchor, &demands, &mut crossing.ports);
        }
        crossing
    }

    /// The kinds of frames crossing port `node → peer` (0: none).
    pub fn at(&self, node: usize, peer: usize) -> u16 {
        self.ports.get(&(node, peer)).copied().unwrap_or(0)
    }
}

/// The network as the routes see it: neighbours, hosts (which do not forward), and
/// each node's anchor (a host with one link, to a switch, is reached through it).
struct Net {
    adj: Vec<Vec<usize>>,
    is_host: Vec<bool>,
    anchor: Vec<usize>,
}

impl Net {
    fn new(config: &SimConfig) -> Net {
        let n = config.nodes.len();
        let mut adj = vec![Vec::new(); n];
        for l in &config.links {
            adj[l.a].push(l.b);
            adj[l.b].push(l.a);
        }
        let is_host: Vec<bool> = config.nodes.iter().map(|s| s.kind == NodeKind::Host).collect();
        let anchor = (0..n)
            .map(|d| match adj[d].as_slice() {
                [w] if is_host[d] && !is_host[*w] => *w,
                _ => d,
            })
            .collect();
        Net { adj, is_host, anchor }
    }

    /// Hop counts towards `target`, through switches only (and hosts as endpoints).
    fn distances(&self, target: usize) -> Vec<u32> {
        let mut dist = vec![u32::MAX; self.adj.len()];
        dist[target] = 0;
        let mut frontier = std::collections::VecDeque::from([target]);
        while let Some(u) = frontier.pop_front() {
            if u != target && self.is_host[u] {
                continue;
            }
            for &v in &self.adj[u] {
                if dist[v] == u32::MAX {
                    dist[v] = dist[u] + 1;
                    frontier.push_back(v);
                }
            }
        }
        dist
    }

    /// Marks the ports on every shortest path from each demand's source to `anchor`,
    /// then the last hop from the anchor down to a leaf destination.
    fn spread(&self, anchor: usize, demands: &[Demand], ports: &mut HashMap<(usize, usize), u16>) {
        let dist = self.distances(anchor);
        let mut seen = vec![0u16; self.adj.len()];
        let mut work: Vec<(usize, u16)> = Vec::new();
        for d in demands.iter().filter(|d| dist[d.src] != u32::MAX) {
            work.push((d.src, d.bits));
            if d.dst != anchor {
                *ports.entry((anchor, d.dst)).or_default() |= d.bits;
            }
        }
        while let Some((u, bits)) = work.pop() {
            let new = bits & !seen[u];
            if new == 0 || u == anchor {
                continue;
            }
            seen[u] |= new;
            for &v in &self.adj[u] {
                if dist[v] != u32::MAX && dist[v] + 1 == dist[u] && (v == anchor || !self.is_host[v]) {
                    *ports.entry((u, v)).or_default() |= new;
                    work.push((v, new));
                }
            }
        }
    }
}
