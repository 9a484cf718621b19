//! Multi-rooted data-centre fabrics: a two-tier leaf-spine and a three-tier k-ary
//! fat-tree. Their equal-cost paths are what ECMP spreads flows over.

use super::{LinkDefaults, Topology};
use crate::units::Rate;

/// A leaf-spine (two-tier Clos): spines `spine0..`, leaves `leaf0..`, each leaf
/// linked to every spine at `uplink`, and `hosts_per_leaf` hosts `h{leaf}_{i}` under
/// each leaf at the host rate.
///
/// A leaf's oversubscription is `hosts_per_leaf · rate / (spines · uplink)`. Ports:
/// `leaf{i}:spine{j}` up, `spine{j}:leaf{i}` down, `leaf{i}:h{i}_{k}` to a host.
pub fn leaf_spine(leaves: usize, spines: usize, hosts_per_leaf: usize, uplink: Rate, d: &LinkDefaults) -> Topology {
    let mut t = Topology::default();
    let spine = t.switches((0..spines).map(|j| format!("spine{j}")));
    let leaf = t.switches((0..leaves).map(|i| format!("leaf{i}")));
    for &l in &leaf {
        for &s in &spine {
            t.link(l, s, uplink, d);
        }
    }
    for (i, &l) in leaf.iter().enumerate() {
        for k in 0..hosts_per_leaf {
            let h = t.host(format!("h{i}_{k}"));
            t.link(h, l, d.rate, d);
        }
    }
    t
}

/// The uplink rate that gives a leaf-spine the `oversubscription` asked for: the
/// hosts' bandwidth under a leaf over that of its uplinks.
pub fn leaf_spine_uplink(hosts_per_leaf: usize, spines: usize, oversubscription: f64, host_rate: Rate) -> Rate {
    Rate::from_bps_f64(hosts_per_leaf as f64 * host_rate.as_f64() / (spines as f64 * oversubscription))
}

/// A k-ary fat-tree (Al-Fares et al., SIGCOMM 2008), `k` even: `k` pods, each of
/// `k/2` edge switches `edge{p}_{e}` and `k/2` aggregation switches `agg{p}_{a}` wired
/// all-to-all; `(k/2)²` core switches `core{c}`, aggregation switch `a` of every pod
/// linked to cores `a·k/2 .. (a+1)·k/2`; `k/2` hosts `h{p}_{e}_{i}` under each edge
/// switch: `k³/4` hosts in all, every link at the host rate (full bisection).
pub fn fat_tree(k: usize, d: &LinkDefaults) -> Topology {
    let half = k / 2;
    let mut t = Topology::default();
    let core = t.switches((0..half * half).map(|c| format!("core{c}")));
    for p in 0..k {
        let agg = t.switches((0..half).map(|a| format!("agg{p}_{a}")));
        let edge = t.switches((0..half).map(|e| format!("edge{p}_{e}")));
        for (a, &g) in agg.iter().enumerate() {
            for &c in &core[a * half..(a + 1) * half] {
                t.link(g, c, d.rate, d);
            }
            for &e in &edge {
                t.link(e, g, d.rate, d);
            }
        }
        for (e, &sw) in edge.iter().enumerate() {
            for i in 0..half {
                let h = t.host(format!("h{p}_{e}_{i}"));
                t.link(h, sw, d.rate, d);
            }
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::NodeKind;
    use crate::topology::tests::defaults;

    fn degree(t: &Topology, name: &str) -> usize {
        let n = t.index(name).expect("a node");
        t.links.iter().filter(|l| l.a == n || l.b == n).count()
    }

    fn hosts(t: &Topology) -> usize {
        t.nodes.iter().filter(|n| n.kind == NodeKind::Host).count()
    }

    #[test]
    fn leaf_spine_wires_every_leaf_to_every_spine() {
        let t = leaf_spine(4, 2, 8, Rate::from_gbps(40), &defaults());
        assert_eq!(hosts(&t), 32);
        assert_eq!(t.nodes.len(), 32 + 6);
        assert_eq!(t.links.len(), 4 * 2 + 32);
        assert_eq!(degree(&t, "spine1"), 4);
        assert_eq!(degree(&t, "leaf3"), 2 + 8);
        assert_eq!(degree(&t, "h3_7"), 1);
        let up = t.links.iter().find(|l| t.nodes[l.b].name == "spine0").expect("an uplink");
        assert_eq!(up.rate, Rate::from_gbps(40));
    }

    #[test]
    fn oversubscription_sets_the_uplink() {
        let up = leaf_spine_uplink(16, 4, 2.0, Rate::from_gbps(10));
        assert_eq!(up, Rate::from_gbps(20));
    }

    #[test]
    fn fat_tree_of_k_8_has_the_textbook_counts() {
        let t = fat_tree(8, &defaults());
        assert_eq!(hosts(&t), 128);
        assert_eq!(t.nodes.len() - 128, 16 + 8 * 8, "(k/2)² cores, k pods of k switches");
        assert_eq!(t.links.len(), 128 + 8 * 16 + 8 * 16, "hosts, edge–agg, agg–core");
        assert_eq!(degree(&t, "core15"), 8, "a core reaches every pod once");
        assert_eq!(degree(&t, "agg7_3"), 8);
        assert_eq!(degree(&t, "edge0_0"), 8);
        assert!(t.index("h7_3_3").is_some());
    }

    #[test]
    fn fat_tree_cores_reach_one_aggregation_switch_per_pod() {
        let t = fat_tree(4, &defaults());
        let core = t.index("core3").expect("core3");
        let mut peers: Vec<&str> = t.links.iter().filter(|l| l.b == core).map(|l| t.nodes[l.a].name.as_str()).collect();
        peers.sort();
        assert_eq!(peers, ["agg0_1", "agg1_1", "agg2_1", "agg3_1"]);
    }
}
