//! Static shortest-path routing, computed once before the run.
//!
//! Paths minimise the hop count and never pass through a host. Among equal next hops
//! the port with the lowest index wins, or, with ECMP, a hash of the flow and the node
//! picks one: every frame of a flow (and every notification about it) takes the same
//! hop at a node, so a flow's path is static and its frames never reorder.
//!
//! Only forwarding nodes (switches, and hosts with other than one port) have a row of
//! the next-hop table, and routes lead to hosts alone (every frame ends at one): a
//! host hanging off a single switch is reached through that switch's column, and its
//! switch sends down its port; other hosts have a column of their own; a switch
//! without hosts has none (a route towards it is [`NO_ROUTE`]). The hop counts come from breadth-first searches over
//! the links between the other nodes, 64 destinations at a time (`route_search.rs`),
//! and a node's destinations are split by the links on their shortest paths, so that
//! each set of next hops is made once per node and batch. An incast of 100,000
//! servers on one switch costs one search and one entry; a k = 64 fat-tree (65,536
//! hosts, 5,120 switches) a table of 5,120 x 2,048 (its edge switches).

use super::route_search::{BATCH, BatchSearch};
use crate::config::{LinkSpec, NodeKind, NodeSpec};
#[cfg(test)]
use std::collections::VecDeque;
use std::sync::Arc;

/// Marks "no route".
pub const NO_ROUTE: u32 = u32::MAX;

/// A table entry at or above this (and not [`NO_ROUTE`]) names an ECMP group.
const GROUP: u32 = 1 << 31;

/// Equal-cost next hops: the ports of each group, chosen among by a flow hash.
#[derive(Clone, Debug, Default)]
struct Groups {
    /// Each group's `(first, count)` in `ports`.
    spans: Vec<(u32, u32)>,
    ports: Vec<u32>,
}

/// [`Groups`] once built, shared like the rest of [`Routes`].
#[derive(Clone, Debug)]
struct SharedGroups {
    spans: Arc<[(u32, u32)]>,
    ports: Arc<[u32]>,
}

/// Where each distinct set of next hops was stored, while the table is built.
type GroupIndex = std::collections::HashMap<Vec<u32>, u32>;

impl Groups {
    /// The table entry for next hops `ports` (one port: the port itself); a set
    /// seen before (in `index`) is stored once.
    fn entry(&mut self, index: &mut GroupIndex, ports: &[u32]) -> u32 {
        match ports {
            [] => NO_ROUTE,
            [one] => *one,
            _ => {
                // Looked up by slice first: most entries repeat a set already stored.
                if let Some(&g) = index.get(ports) {
                    return GROUP | g;
                }
                self.spans.push((self.ports.len() as u32, ports.len() as u32));
                self.ports.extend_from_slice(ports);
                let g = self.spans.len() as u32 - 1;
                index.insert(ports.to_vec(), g);
                GROUP | g
            }
        }
    }
}

/// The ECMP hash of `flow` at `node`: a SplitMix64 finaliser over both and the salt,
/// so the choices at successive nodes are independent (no polarisation).
#[inline]
fn ecmp_hash(salt: u64, flow: u32, node: u32) -> u64 {
    let mut z = salt ^ ((flow as u64) << 32 | node as u64);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Where the routes towards one destination are read.
#[derive(Clone, Copy, Debug)]
struct Toward {
    /// The destination's column of the table: its own, or for a host hanging off a
    /// single switch, that switch's.
    column: u32,
    /// That switch, for such a host ([`NO_ROUTE`]: none), which sends down `down`.
    leaf_of: u32,
    /// The switch's port to the host.
    down: u32,
}

/// The next-hop table: for each forwarding node and destination, the egress port to use.
///
/// Never changed once computed, its tables are shared behind `Arc` by the clones
/// (the parts of a split run hold one table between them); an `Arc<[T]>` is read as
/// a `Vec<T>` is, through one pointer, so a lookup costs the same.
#[derive(Clone, Debug)]
pub struct Routes {
    nodes: usize,
    /// Each node's row in `next_port`, or [`NO_ROUTE`] for a single-port host.
    row_of: Arc<[u32]>,
    /// Each single-port host's one port (else [`NO_ROUTE`]).
    host_port: Arc<[u32]>,
    is_host: Arc<[bool]>,
    /// Per destination node, its column and, for a host off a single switch, that
    /// switch and its port down.
    toward: Arc<[Toward]>,
    /// Columns of the table: the destinations that are not hosts off a single switch.
    columns: usize,
    /// Per row and column: a port, an ECMP group (`GROUP | g`) or [`NO_ROUTE`].
    next_port: Arc<[u32]>,
    groups: SharedGroups,
    /// The ECMP hash's salt (from the run's seed or `routing.hash_seed`).
    salt: u64,
}

/// Breadth-first hop counts towards `dst` (hosts other than `dst` do not forward):
/// the search per destination that [`BatchSearch`] makes for many at once.
#[cfg(test)]
fn distances(ports_of: &[Vec<(u32, u32)>], is_host: &[bool], dst: usize, dist: &mut [u32], frontier: &mut VecDeque<usize>) {
    dist.fill(u32::MAX);
    dist[dst] = 0;
    frontier.clear();
    frontier.push_back(dst);
    while let Some(n) = frontier.pop_front() {
        if n != dst && is_host[n] {
            continue;
        }
        for &(_, peer) in &ports_of[n] {
            let peer = peer as usize;
            if dist[peer] == u32::MAX {
                dist[peer] = dist[n] + 1;
                frontier.push_back(peer);
            }
        }
    }
}

/// The ports of `n` on a shortest path towards `dst`, given the distances, in the
/// order of `ports`, into `out` (empty when there is none).
#[cfg(test)]
fn best_ports(ports: &[(u32, u32)], is_host: &[bool], dist: &[u32], n: usize, dst: usize, out: &mut Vec<u32>) {
    out.clear();
    if n == dst || dist[n] == u32::MAX {
        return;
    }
    let on_path = |&&(_, peer): &&(u32, u32)| {
        let p = peer as usize;
        dist[p] != u32::MAX && dist[p] + 1 == dist[n] && (p == dst || !is_host[p])
    };
    out.extend(ports.iter().filter(on_path).map(|&(port, _)| port));
}

/// The lowest port of `n` on a shortest path towards `dst`, given the distances.
#[cfg(test)]
fn best_port(ports: &[(u32, u32)], is_host: &[bool], dist: &[u32], n: usize, dst: usize) -> u32 {
    let mut out = Vec::new();
    best_ports(ports, is_host, dist, n, dst, &mut out);
    out.into_iter().min().unwrap_or(NO_ROUTE)
}

/// Splits the destinations `all` (bits) into `classes` that each of `masks` holds
/// whole or not at all: the destinations of a class have their shortest paths over
/// the same links (in a fabric a switch's destinations fall into a few such classes).
fn split_by_masks(all: u64, masks: &[u64], classes: &mut Vec<u64>) {
    classes.clear();
    if all != 0 {
        classes.push(all);
    }
    for &mask in masks {
        for c in 0..classes.len() {
            let (inside, outside) = (classes[c] & mask, classes[c] & !mask);
            if inside != 0 && outside != 0 {
                classes[c] = inside;
                classes.push(outside);
            }
        }
    }
}

/// Whether `n` is a host with a single link, to a switch (reached through that switch).
fn leaf_switch(ports_of: &[Vec<(u32, u32)>], is_host: &[bool], n: usize) -> Option<usize> {
    match ports_of[n].as_slice() {
        [(_, peer)] if is_host[n] && !is_host[*peer as usize] => Some(*peer as usize),
        _ => None,
    }
}

impl Routes {
    /// Computes routes towards every node.
    ///
    /// `ports_of[n]` lists node `n`'s egress ports as `(port index, peer node)`;
    /// `is_host[n]` tells whether `n` is a host (hosts do not forward). With `ecmp`
    /// (the hash's salt), equal-cost next hops form groups a flow hash picks from;
    /// without, the lowest port wins.
    ///
    /// The table has a row per forwarding node and a column per switch with hosts and
    /// per host not off a single switch (such a host is reached through its switch's
    /// column): searches and table both grow with the switches, not the hosts. Routes
    /// lead to hosts only. A host
    /// off a single switch is never on a path to anything else, so the searches leave
    /// out the links to such hosts.
    pub fn compute(ports_of: &[Vec<(u32, u32)>], is_host: &[bool], ecmp: Option<u64>) -> Routes {
        let nodes = ports_of.len();
        let forwards = |n: usize| !is_host[n] || ports_of[n].len() != 1;
        let mut row_of = vec![NO_ROUTE; nodes];
        let routers: Vec<usize> = (0..nodes).filter(|&n| forwards(n)).collect();
        for (row, &n) in routers.iter().enumerate() {
            row_of[n] = row as u32;
        }
        let host_port: Vec<u32> = (0..nodes).map(|n| if forwards(n) { NO_ROUTE } else { ports_of[n][0].0 }).collect();
        let leaves: Vec<Option<usize>> = (0..nodes).map(|n| leaf_switch(ports_of, is_host, n)).collect();
        let targets = Self::columns_of(is_host, &leaves);
        let toward = Self::toward(ports_of, &leaves, &targets);
        // Each node's links to other than hosts off a single switch, lowest port first.
        let inner_ports = |ports: &Vec<(u32, u32)>| {
            let mut inner: Vec<(u32, u32)> = ports.iter().copied().filter(|&(_, p)| leaves[p as usize].is_none()).collect();
            inner.sort_unstable();
            inner
        };
        let inner: Vec<Vec<(u32, u32)>> = ports_of.iter().map(inner_ports).collect();
        let columns = targets.len();
        let mut next_port = vec![NO_ROUTE; routers.len() * columns];
        let (mut groups, mut index, mut best) = (Groups::default(), GroupIndex::new(), Vec::new());
        let (mut masks, mut classes) = (Vec::new(), Vec::new());
        let mut search = BatchSearch::new(nodes);
        for (b, batch) in targets.chunks(BATCH).enumerate() {
            search.run(&inner, is_host, batch);
            for (row, &n) in routers.iter().enumerate() {
                masks.clear();
                masks.extend(inner[n].iter().map(|&(_, peer)| search.on_path(n, peer as usize, is_host)));
                let cells = &mut next_port[row * columns + b * BATCH..][..batch.len()];
                // The destinations whose next hops are the same ports, found once each.
                split_by_masks(search.routed(n), &masks, &mut classes);
                for &class in &classes {
                    let j = class.trailing_zeros();
                    let on_path = inner[n].iter().zip(&masks).filter(|&(_, &mask)| mask >> j & 1 == 1);
                    best.clear();
                    best.extend(on_path.map(|(&(port, _), _)| port));
                    best.truncate(if ecmp.is_some() { best.len() } else { 1 });
                    let entry = groups.entry(&mut index, &best);
                    let mut bits = class;
                    while bits != 0 {
                        cells[bits.trailing_zeros() as usize] = entry;
                        bits &= bits - 1;
                    }
                }
            }
        }
        Routes {
            nodes,
            row_of: row_of.into(),
            host_port: host_port.into(),
            is_host: is_host.into(),
            toward: toward.into(),
            columns,
            next_port: next_port.into(),
            groups: SharedGroups { spans: groups.spans.into(), ports: groups.ports.into() },
            salt: ecmp.unwrap_or(0),
        }
    }

    /// The nodes that have a column, in node order: the hosts that are not off a
    /// single switch, and the switches that hosts hang off. Only hosts are ever
    /// destinations (flows, notifications and acknowledgements all end at hosts), so a
    /// switch without hosts of its own needs none (a k = 64 fat-tree: 2,048 columns
    /// for its edge switches, not 5,120).
    fn columns_of(is_host: &[bool], leaves: &[Option<usize>]) -> Vec<usize> {
        let mut has_column: Vec<bool> = (0..leaves.len()).map(|d| is_host[d] && leaves[d].is_none()).collect();
        for &switch in leaves.iter().flatten() {
            has_column[switch] = true;
        }
        (0..leaves.len()).filter(|&d| has_column[d]).collect()
    }

    /// Per destination, where its routes are read (see [`Toward`]): `targets` are the
    /// nodes with a column, in column order.
    fn toward(ports_of: &[Vec<(u32, u32)>], leaves: &[Option<usize>], targets: &[usize]) -> Vec<Toward> {
        let mut column_of = vec![NO_ROUTE; leaves.len()];
        for (column, &d) in targets.iter().enumerate() {
            column_of[d] = column as u32;
        }
        let mut down = vec![NO_ROUTE; leaves.len()];
        for (switch, ports) in ports_of.iter().enumerate() {
            for &(q, p) in ports.iter().filter(|&&(_, p)| leaves[p as usize] == Some(switch)) {
                down[p as usize] = down[p as usize].min(q);
            }
        }
        let at = |d: usize| match leaves[d] {
            Some(switch) => Toward { column: column_of[switch], leaf_of: switch as u32, down: down[d] },
            None => Toward { column: column_of[d], leaf_of: NO_ROUTE, down: NO_ROUTE },
        };
        (0..leaves.len()).map(at).collect()
    }

    /// The bytes the table of a network of `nodes` and `links` takes (for estimates).
    pub fn table_bytes(nodes: &[NodeSpec], links: &[LinkSpec]) -> usize {
        let mut degree = vec![0usize; nodes.len()];
        let mut peer = vec![0usize; nodes.len()];
        for l in links {
            degree[l.a] += 1;
            degree[l.b] += 1;
            (peer[l.a], peer[l.b]) = (l.b, l.a);
        }
        let is_host: Vec<bool> = nodes.iter().map(|n| n.kind != NodeKind::Switch).collect();
        let routers = (0..nodes.len()).filter(|&n| !is_host[n] || degree[n] != 1).count();
        // Each host's one switch, as `leaf_switch` finds it from the ports.
        let leaves: Vec<Option<usize>> =
            (0..nodes.len()).map(|n| (is_host[n] && degree[n] == 1 && !is_host[peer[n]]).then_some(peer[n])).collect();
        let columns = Self::columns_of(&is_host, &leaves).len();
        routers * columns * 4 + nodes.len() * (9 + std::mem::size_of::<Toward>())
    }

    /// The egress port of `node` towards `dst` for a frame of `flow`, or [`NO_ROUTE`].
    /// A single-port host answers with its one port (whether `dst` lies beyond it is for
    /// [`Routes::path`]).
    #[inline(always)]
    pub fn next_port(&self, node: u32, dst: u32, flow: u32) -> u32 {
        let row = match self.row_of[node as usize] {
            NO_ROUTE => return self.host_port[node as usize],
            row => row as usize,
        };
        let toward = self.toward[dst as usize];
        if toward.leaf_of == node {
            return toward.down;
        }
        // A switch without hosts (never a destination) has no column: its NO_ROUTE
        // column lies beyond the table, found by the index's own bounds check.
        let Some(&entry) = self.next_port.get(row * self.columns + toward.column as usize) else {
            return NO_ROUTE;
        };
        if entry < GROUP || entry == NO_ROUTE {
            return entry;
        }
        self.group_port(entry, node, flow)
    }

    /// The port of ECMP group entry `entry` that `flow` takes at `node`.
    #[inline(never)]
    fn group_port(&self, entry: u32, node: u32, flow: u32) -> u32 {
        let (first, count) = self.groups.spans[(entry & !GROUP) as usize];
        let pick = ((ecmp_hash(self.salt, flow, node) >> 32) * count as u64) >> 32;
        self.groups.ports[(first + pick as u32) as usize]
    }

    /// How many ECMP groups the table holds (zero without ECMP or equal-cost paths).
    pub fn ecmp_groups(&self) -> usize {
        self.groups.spans.len()
    }

    /// Follows the route of `flow` from `src` to `dst`, returning the ports crossed,
    /// or `None` when `dst` cannot be reached.
    pub fn path(&self, src: u32, dst: u32, flow: u32, peer_of: impl Fn(u32) -> u32) -> Option<Vec<u32>> {
        let mut path = Vec::new();
        let mut node = src;
        while node != dst {
            let transit_host = node != src && self.is_host[node as usize];
            let port = self.next_port(node, dst, flow);
            if port == NO_ROUTE || transit_host || path.len() > self.nodes {
                return None;
            }
            path.push(port);
            node = peer_of(port);
        }
        Some(path)
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    /// h0 - s1 - s2 - h3, and a second path s1 - s4 - s2.
    fn diamond() -> (Vec<Vec<(u32, u32)>>, Vec<bool>) {
        let ports = vec![vec![(0, 1)], vec![(1, 0), (2, 2), (3, 4)], vec![(4, 1), (5, 3), (6, 4)], vec![(7, 2)], vec![(8, 1), (9, 2)]];
        (ports, vec![true, false, false, true, false])
    }

    #[test]
    fn shortest_path_with_lowest_port_tie_break() {
        let (ports, hosts) = diamond();
        let r = Routes::compute(&ports, &hosts, None);
        let peer = |p: u32| ports.iter().flatten().find(|&&(q, _)| q == p).unwrap().1;
        assert_eq!(r.path(0, 3, 0, peer), Some(vec![0, 2, 5]));
        assert_eq!(r.path(3, 0, 0, peer), Some(vec![7, 4, 1]));
    }

    #[test]
    fn hosts_do_not_forward() {
        // s0 - h1 - s2: s2 is unreachable from s0.
        let ports = vec![vec![(0, 1)], vec![(1, 0), (2, 2)], vec![(3, 1)]];
        let r = Routes::compute(&ports, &[false, true, false], None);
        assert_eq!(r.next_port(0, 2, 0), NO_ROUTE);
        assert_eq!(r.next_port(0, 1, 0), 0);
    }

    /// The table of the all-pairs search this module replaced: a breadth-first search
    /// towards every node, a full row for every node.
    fn naive(ports_of: &[Vec<(u32, u32)>], is_host: &[bool]) -> Vec<Vec<u32>> {
        let n = ports_of.len();
        let (mut dist, mut frontier) = (vec![0; n], VecDeque::new());
        let mut table = vec![vec![NO_ROUTE; n]; n];
        for dst in 0..n {
            distances(ports_of, is_host, dst, &mut dist, &mut frontier);
            for (node, row) in table.iter_mut().enumerate() {
                row[dst] = best_port(&ports_of[node], is_host, &dist, node, dst);
            }
        }
        table
    }

    /// A random network of `n` nodes: a few switches, hosts hanging off them (some on
    /// two switches, some on a host), and random switch links.
    fn random_network(n: usize, mut x: u64) -> (Vec<Vec<(u32, u32)>>, Vec<bool>) {
        let mut next = move |m: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % m as u64) as usize
        };
        let switches = 1 + next(n / 2);
        let is_host: Vec<bool> = (0..n).map(|i| i >= switches).collect();
        let mut ports: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
        let mut port = 0u32;
        let mut link = |ports: &mut Vec<Vec<(u32, u32)>>, a: usize, b: usize| {
            ports[a].push((port, b as u32));
            ports[b].push((port + 1, a as u32));
            port += 2;
        };
        for _ in 0..switches + next(2 * switches + 1) {
            let (a, b) = (next(switches), next(switches));
            if a != b {
                link(&mut ports, a, b);
            }
        }
        for h in switches..n {
            match next(8) {
                0 => link(&mut ports, h, switches + next(n - switches)),
                1 => {
                    link(&mut ports, h, next(switches));
                    link(&mut ports, h, next(switches));
                }
                _ => link(&mut ports, h, next(switches)),
            }
        }
        (ports, is_host)
    }

    #[test]
    fn same_routes_as_the_all_pairs_search() {
        for seed in 1..300u64 {
            let n = 2 + (seed as usize % 23);
            let (ports, hosts) = random_network(n, seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
            let fast = Routes::compute(&ports, &hosts, None);
            let slow = naive(&ports, &hosts);
            let peer = |p: u32| ports.iter().flatten().find(|&&(q, _)| q == p).unwrap().1;
            for (src, row) in slow.iter().enumerate() {
                // Routes lead to hosts (a switch without hosts has no column).
                for (dst, &next) in row.iter().enumerate().filter(|&(dst, _)| hosts[dst]) {
                    if fast.row_of[src] != NO_ROUTE {
                        assert_eq!(fast.next_port(src as u32, dst as u32, 0), next, "seed {seed}: {src} -> {dst}");
                    }
                    let expected = naive_path(&slow, &hosts, &peer, src, dst);
                    assert_eq!(fast.path(src as u32, dst as u32, 0, peer), expected, "seed {seed}: path {src} -> {dst}");
                }
            }
        }
    }

    #[test]
    fn same_routes_across_batches_of_destinations() {
        // Networks with more switches than one search batch holds.
        let networks = (1..100u64).map(|seed| (seed, random_network(300, seed.wrapping_mul(0xD1B5_4A32_D192_ED03) | 1)));
        let large = networks.filter(|(_, (_, hosts))| hosts.iter().filter(|&&h| !h).count() > 2 * super::BATCH);
        let large: Vec<_> = large.take(5).collect();
        assert_eq!(large.len(), 5);
        for (seed, (ports, hosts)) in large {
            let (fast, slow) = (Routes::compute(&ports, &hosts, None), naive(&ports, &hosts));
            for (src, row) in slow.iter().enumerate().filter(|&(src, _)| fast.row_of[src] != NO_ROUTE) {
                for (dst, &next) in row.iter().enumerate().filter(|&(dst, _)| hosts[dst]) {
                    assert_eq!(fast.next_port(src as u32, dst as u32, 0), next, "seed {seed}: {src} -> {dst}");
                }
            }
        }
    }

    /// The path the all-pairs table gives from `src` to `dst`, never through a host.
    fn naive_path(slow: &[Vec<u32>], hosts: &[bool], peer: &impl Fn(u32) -> u32, src: usize, dst: usize) -> Option<Vec<u32>> {
        let (mut node, mut path) = (src, Vec::new());
        while node != dst {
            let p = slow[node][dst];
            if p == NO_ROUTE || (node != src && hosts[node]) || path.len() > slow.len() {
                return None;
            }
            path.push(p);
            node = peer(p) as usize;
        }
        Some(path)
    }

    #[test]
    fn a_large_incast_costs_one_row() {
        let servers = 100_000;
        let mut ports = vec![Vec::new(); servers + 2];
        for h in 1..servers + 2 {
            ports[0].push((2 * h as u32, h as u32));
            ports[h].push((2 * h as u32 + 1, 0));
        }
        let hosts: Vec<bool> = (0..servers + 2).map(|i| i > 0).collect();
        let r = Routes::compute(&ports, &hosts, None);
        // One row (the switch) and one column (the switch: every server hangs off it).
        assert_eq!((r.next_port.len(), r.columns), (1, 1));
        assert_eq!(r.next_port(0, 7, 0), 14);
        assert_eq!(r.path(5, 9, 0, |p| if p % 2 == 1 { 0 } else { p / 2 }), Some(vec![11, 18]));
    }

    #[test]
    fn a_fabric_table_grows_with_its_switches_not_its_hosts() {
        // Two spines (0, 1), four leaves (2..6), ten hosts on each leaf.
        let (spines, leaves, per_leaf) = (2, 4, 10);
        let n = spines + leaves + leaves * per_leaf;
        let mut ports = vec![Vec::new(); n];
        let mut port = 0u32;
        let mut link = |a: usize, b: usize| {
            ports[a].push((port, b as u32));
            ports[b].push((port + 1, a as u32));
            port += 2;
        };
        for leaf in spines..spines + leaves {
            for spine in 0..spines {
                link(leaf, spine);
            }
            for h in 0..per_leaf {
                link(leaf, spines + leaves + (leaf - spines) * per_leaf + h);
            }
        }
        let hosts: Vec<bool> = (0..n).map(|i| i >= spines + leaves).collect();
        for ecmp in [None, Some(3)] {
            let r = Routes::compute(&ports, &hosts, ecmp);
            // A row per switch, a column per leaf: the spines have no hosts.
            assert_eq!((r.next_port.len(), r.columns), (6 * 4, 4));
            assert_eq!(r.next_port(2, 0, 5), NO_ROUTE);
            let slow = naive(&ports, &hosts);
            let peer = peer_in(&ports);
            for src in 0..n {
                for dst in spines + leaves..n {
                    let path = r.path(src as u32, dst as u32, 5, &peer);
                    if ecmp.is_none() {
                        assert_eq!(path, naive_path(&slow, &hosts, &peer, src, dst), "{src} -> {dst}");
                    } else {
                        let hops = naive_path(&slow, &hosts, &peer, src, dst).map(|p| p.len());
                        assert_eq!(path.map(|p| p.len()), hops, "{src} -> {dst}: a shortest path");
                    }
                }
            }
        }
    }

    /// h0 - s1, then four spines s2..s5 between s1 and s6, then s6 - h7.
    #[test]
    fn the_estimated_table_is_the_table_built() {
        use crate::topology::{dumbbell, fabric, incast, tests::defaults};
        use crate::units::Rate;
        let d = defaults();
        let networks = [
            dumbbell(5, 1, Rate::from_gbps(10), &d),
            dumbbell(3, 2, Rate::from_gbps(10), &d),
            incast(8, &d),
            fabric::leaf_spine(4, 2, 3, Rate::from_gbps(40), &d),
            fabric::fat_tree(4, &d),
            fabric::fat_tree(8, &d),
        ];
        for t in networks {
            let mut ports_of = vec![Vec::new(); t.nodes.len()];
            for (i, l) in t.links.iter().enumerate() {
                ports_of[l.a].push((2 * i as u32, l.b as u32));
                ports_of[l.b].push((2 * i as u32 + 1, l.a as u32));
            }
            let is_host: Vec<bool> = t.nodes.iter().map(|n| n.kind == NodeKind::Host).collect();
            let r = Routes::compute(&ports_of, &is_host, None);
            let built = r.next_port.len() * 4 + t.nodes.len() * (9 + std::mem::size_of::<Toward>());
            assert_eq!(Routes::table_bytes(&t.nodes, &t.links), built, "{} nodes", t.nodes.len());
        }
    }

    fn four_paths() -> (Vec<Vec<(u32, u32)>>, Vec<bool>) {
        let mut ports: Vec<Vec<(u32, u32)>> = vec![Vec::new(); 8];
        let mut port = 0;
        let mut link = |a: usize, b: usize| {
            ports[a].push((port, b as u32));
            ports[b].push((port + 1, a as u32));
            port += 2;
        };
        link(0, 1);
        for spine in 2..6 {
            link(1, spine);
            link(spine, 6);
        }
        link(6, 7);
        let hosts = (0..8).map(|n| n == 0 || n == 7).collect();
        (ports, hosts)
    }

    fn peer_in(ports: &[Vec<(u32, u32)>]) -> impl Fn(u32) -> u32 + '_ {
        |p: u32| ports.iter().flatten().find(|&&(q, _)| q == p).unwrap().1
    }

    #[test]
    fn ecmp_spreads_flows_evenly_over_equal_paths() {
        let (ports, hosts) = four_paths();
        let r = Routes::compute(&ports, &hosts, Some(7));
        // s1 and s6 each reach the other side over four spines (routes lead to
        // hosts: the spines' routes towards each other, over s1 or s6, are not made).
        assert_eq!(r.ecmp_groups(), 2);
        let mut per_spine = [0u32; 4];
        for flow in 0..1000 {
            let path = r.path(0, 7, flow, peer_in(&ports)).expect("a path");
            assert_eq!(path.len(), 4);
            per_spine[peer_in(&ports)(path[1]) as usize - 2] += 1;
        }
        for n in per_spine {
            assert!((225..=275).contains(&n), "{per_spine:?}: each spine within 10 % of 250");
        }
    }

    #[test]
    fn ecmp_paths_are_fixed_by_flow_and_salt() {
        let (ports, hosts) = four_paths();
        let (a, b) = (Routes::compute(&ports, &hosts, Some(7)), Routes::compute(&ports, &hosts, Some(7)));
        let other = Routes::compute(&ports, &hosts, Some(8));
        let paths = |r: &Routes| (0..64).map(|f| r.path(0, 7, f, peer_in(&ports))).collect::<Vec<_>>();
        assert_eq!(paths(&a), paths(&b));
        assert_ne!(paths(&a), paths(&other), "another salt, other paths");
        for flow in 0..64 {
            assert_eq!(a.next_port(1, 7, flow), a.next_port(1, 7, flow));
        }
    }

    #[test]
    fn without_ecmp_the_lowest_port_wins() {
        let (ports, hosts) = four_paths();
        let r = Routes::compute(&ports, &hosts, None);
        assert_eq!(r.ecmp_groups(), 0);
        for flow in 0..16 {
            assert_eq!(r.path(0, 7, flow, peer_in(&ports)).expect("a path")[1], 2);
        }
    }
}
