//! Named topology builders: dumbbell, parking lot, many-to-one and incast, and the
//! multi-rooted fabrics of [`fabric`] (leaf-spine, k-ary fat-tree).
//!
//! Each builder returns the nodes and links of a [`Topology`]; flows are added by the
//! caller. Node names are fixed by the builder (documented on each) so scenario files
//! can name hosts and ports.

use crate::config::{LinkSpec, NodeKind, NodeSpec};
use crate::dist::TimeDist;
use crate::units::{Bytes, Rate, Time};

pub mod fabric;
pub use fabric::{fat_tree, leaf_spine};

/// Link settings shared by a builder's links.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkDefaults {
    /// Capacity of host links.
    pub rate: Rate,
    /// Propagation delay of every link.
    pub delay: TimeDist,
    /// Buffer of every switch egress port.
    pub buffer: Bytes,
    /// Priority classes at switch ports.
    pub priorities: u8,
    /// Optional per-frame service time at switch ports.
    pub frame_service: Option<Time>,
}

/// Nodes and links, ready for a [`crate::config::SimConfig`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Topology {
    /// Nodes, hosts and switches.
    pub nodes: Vec<NodeSpec>,
    /// Full-duplex links.
    pub links: Vec<LinkSpec>,
    /// Each name's first node, for the nodes added by [`Topology::add_node`] (a
    /// lookup by name then costs no scan of every node: reading a scenario that names
    /// 100,000 hosts one by one took 100,000 scans).
    by_name: std::collections::HashMap<String, usize>,
}

impl Topology {
    /// Adds a node; returns its index.
    pub fn add_node(&mut self, name: String, kind: NodeKind) -> usize {
        let i = self.nodes.len();
        self.by_name.entry(name.clone()).or_insert(i);
        self.nodes.push(NodeSpec { name, kind });
        i
    }

    fn node(&mut self, name: String, kind: NodeKind) -> usize {
        self.add_node(name, kind)
    }

    fn host(&mut self, name: String) -> usize {
        self.node(name, NodeKind::Host)
    }

    fn switch(&mut self, name: &str) -> usize {
        self.node(name.to_string(), NodeKind::Switch)
    }

    fn switches(&mut self, names: impl Iterator<Item = String>) -> Vec<usize> {
        names.map(|name| self.node(name, NodeKind::Switch)).collect()
    }

    fn link(&mut self, a: usize, b: usize, rate: Rate, d: &LinkDefaults) {
        self.links.push(LinkSpec {
            a,
            b,
            rate,
            delay: d.delay,
            buffer: d.buffer,
            priorities: d.priorities,
            frame_service: d.frame_service,
        });
    }

    /// Index of the node called `name` (the first, if several are).
    pub fn index(&self, name: &str) -> Option<usize> {
        // The map holds every node when all came through `add_node` with distinct
        // names; else (nodes pushed directly, or a name used twice) the nodes are scanned.
        if self.by_name.len() == self.nodes.len() {
            return self.by_name.get(name).copied().filter(|&i| self.nodes[i].name == name);
        }
        self.nodes.iter().position(|n| n.name == name)
    }
}

/// A dumbbell: senders `s0..`, receivers `r0..`.
///
/// With one receiver: `s* → sw0 → r0`, the bottleneck is port `sw0:r0`. With more:
/// `s* → sw0 ⇒ sw1 → r*`, the bottleneck is `sw0:sw1`.
pub fn dumbbell(senders: usize, receivers: usize, bottleneck: Rate, d: &LinkDefaults) -> Topology {
    let mut t = Topology::default();
    let left = t.switch("sw0");
    let right = if receivers > 1 {
        let right = t.switch("sw1");
        t.link(left, right, bottleneck, d);
        right
    } else {
        left
    };
    for i in 0..senders {
        let s = t.host(format!("s{i}"));
        t.link(s, left, d.rate, d);
    }
    for i in 0..receivers {
        let r = t.host(format!("r{i}"));
        let rate = if receivers > 1 { d.rate } else { bottleneck };
        t.link(right, r, rate, d);
    }
    t
}

/// The parking lot of the SMCC (Fig. 14) and DSM (Fig. 4) papers: switches
/// `c1 — c2 — c3`; `s1`, `s2`, `s3` attach to `c1`, `s4` to `c2`; `r3` attaches to
/// `c2`, `r1`, `r2`, `r4` to `c3`. So `s1→r1` and `s2→r2` cross both bottlenecks
/// (`c1:c2` and `c2:c3`), `s3→r3` only the first and `s4→r4` only the second.
pub fn parking_lot(trunk: Rate, d: &LinkDefaults) -> Topology {
    let mut t = Topology::default();
    let c = [t.switch("c1"), t.switch("c2"), t.switch("c3")];
    t.link(c[0], c[1], trunk, d);
    t.link(c[1], c[2], trunk, d);
    for (name, at) in [("s1", 0), ("s2", 0), ("s3", 0), ("s4", 1), ("r1", 2), ("r2", 2), ("r3", 1), ("r4", 2)] {
        let h = t.host(name.to_string());
        t.link(h, c[at], d.rate, d);
    }
    t
}

/// Many-to-one (SMCC §5.5): `tors` ToR switches `tor0..` under one fabric switch
/// `fab`, each with `hosts_per_tor` hosts `h{tor}_{i}`; ToR–fabric links at `uplink`,
/// their ports (both ends) with `uplink_buffer`.
pub fn many_to_one(tors: usize, hosts_per_tor: usize, uplink: Rate, uplink_buffer: Bytes, d: &LinkDefaults) -> Topology {
    let mut t = Topology::default();
    let fab = t.switch("fab");
    let up = LinkDefaults { buffer: uplink_buffer, ..*d };
    for k in 0..tors {
        let tor = t.node(format!("tor{k}"), NodeKind::Switch);
        t.link(tor, fab, uplink, &up);
        for i in 0..hosts_per_tor {
            let h = t.host(format!("h{k}_{i}"));
            t.link(h, tor, d.rate, d);
        }
    }
    t
}

/// Incast: servers `srv0..` and one `client`, all under switch `sw0`; the
/// bottleneck is `sw0:client`.
pub fn incast(servers: usize, d: &LinkDefaults) -> Topology {
    let mut t = Topology::default();
    let sw = t.switch("sw0");
    let client = t.host("client".to_string());
    t.link(sw, client, d.rate, d);
    for i in 0..servers {
        let s = t.host(format!("srv{i}"));
        t.link(s, sw, d.rate, d);
    }
    t
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// 10 Gb/s, 1 µs, 128 KB, one class: the builders' tests' link settings.
    pub(crate) fn defaults() -> LinkDefaults {
        LinkDefaults {
            rate: Rate::from_gbps(10),
            delay: Time::from_us(1).into(),
            buffer: Bytes::from_kb(128),
            priorities: 1,
            frame_service: None,
        }
    }

    fn linked(t: &Topology, a: &str, b: &str) -> Option<Rate> {
        let (a, b) = (t.index(a)?, t.index(b)?);
        t.links.iter().find(|l| (l.a, l.b) == (a, b) || (l.a, l.b) == (b, a)).map(|l| l.rate)
    }

    #[test]
    fn dumbbell_with_one_receiver_has_one_switch() {
        let t = dumbbell(5, 1, Rate::from_gbps(1), &defaults());
        assert_eq!(t.nodes.len(), 7);
        assert_eq!(t.links.len(), 6);
        assert_eq!(linked(&t, "sw0", "r0"), Some(Rate::from_gbps(1)));
        assert_eq!(linked(&t, "s4", "sw0"), Some(Rate::from_gbps(10)));
    }

    #[test]
    fn dumbbell_with_receivers_has_a_trunk() {
        let t = dumbbell(3, 3, Rate::from_gbps(1), &defaults());
        assert_eq!(linked(&t, "sw0", "sw1"), Some(Rate::from_gbps(1)));
        assert_eq!(linked(&t, "sw1", "r2"), Some(Rate::from_gbps(10)));
        assert_eq!(t.nodes.len(), 8);
    }

    #[test]
    fn parking_lot_places_hosts_as_the_papers() {
        let t = parking_lot(Rate::from_gbps(10), &defaults());
        assert!(linked(&t, "c1", "c2").is_some() && linked(&t, "c2", "c3").is_some());
        assert!(linked(&t, "s3", "c1").is_some() && linked(&t, "r3", "c2").is_some());
        assert!(linked(&t, "s4", "c2").is_some() && linked(&t, "r4", "c3").is_some());
        assert_eq!(t.nodes.len(), 11);
    }

    #[test]
    fn many_to_one_and_incast_sizes() {
        let t = many_to_one(4, 4, Rate::from_gbps(1), Bytes::from_kb(4096), &defaults());
        assert_eq!(t.links[0].buffer, Bytes::from_kb(4096));
        assert_eq!(t.links[1].buffer, defaults().buffer);
        assert_eq!(t.nodes.len(), 1 + 4 + 16);
        assert_eq!(t.links.len(), 4 + 16);
        assert!(linked(&t, "h3_3", "tor3").is_some());
        let t = incast(16, &defaults());
        assert_eq!(t.nodes.len(), 18);
        assert!(linked(&t, "sw0", "client").is_some());
    }
}
