//! Static shortest-path routing, computed once before the run.
//!
//! Paths minimise the hop count and never pass through a host. Among equal paths the
//! port with the lowest index wins, so routes are deterministic.

use std::collections::VecDeque;

/// Marks "no route".
pub const NO_ROUTE: u32 = u32::MAX;

/// The next-hop table: for each node and destination, the egress port to use.
#[derive(Clone, Debug)]
pub struct Routes {
    nodes: usize,
    next_port: Vec<u32>,
}

impl Routes {
    /// Computes routes towards every node.
    ///
    /// `ports_of[n]` lists node `n`'s egress ports as `(port index, peer node)`;
    /// `is_host[n]` tells whether `n` is a host (hosts do not forward).
    pub fn compute(ports_of: &[Vec<(u32, u32)>], is_host: &[bool]) -> Routes {
        let nodes = ports_of.len();
        let mut next_port = vec![NO_ROUTE; nodes * nodes];
        let mut dist = vec![u32::MAX; nodes];
        let mut frontier = VecDeque::new();
        for dst in 0..nodes {
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
            for n in 0..nodes {
                if n == dst || dist[n] == u32::MAX {
                    continue;
                }
                let best = ports_of[n]
                    .iter()
                    .filter(|&&(_, peer)| {
                        let p = peer as usize;
                        dist[p] != u32::MAX && dist[p] + 1 == dist[n] && (p == dst || !is_host[p])
                    })
                    .map(|&(port, _)| port)
                    .min();
                if let Some(port) = best {
                    next_port[n * nodes + dst] = port;
                }
            }
        }
        Routes { nodes, next_port }
    }

    /// The egress port of `node` towards `dst`, or [`NO_ROUTE`].
    #[inline]
    pub fn next_port(&self, node: u32, dst: u32) -> u32 {
        self.next_port[node as usize * self.nodes + dst as usize]
    }

    /// Follows the route from `src` to `dst`, returning the ports crossed, or `None`
    /// when `dst` cannot be reached.
    pub fn path(&self, src: u32, dst: u32, peer_of: impl Fn(u32) -> u32) -> Option<Vec<u32>> {
        let mut path = Vec::new();
        let mut node = src;
        while node != dst {
            let port = self.next_port(node, dst);
            if port == NO_ROUTE || path.len() > self.nodes {
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
        let ports = vec![
            vec![(0, 1)],
            vec![(1, 0), (2, 2), (3, 4)],
            vec![(4, 1), (5, 3), (6, 4)],
            vec![(7, 2)],
            vec![(8, 1), (9, 2)],
        ];
        (ports, vec![true, false, false, true, false])
    }

    #[test]
    fn shortest_path_with_lowest_port_tie_break() {
        let (ports, hosts) = diamond();
        let r = Routes::compute(&ports, &hosts);
        let peer = |p: u32| ports.iter().flatten().find(|&&(q, _)| q == p).unwrap().1;
        assert_eq!(r.path(0, 3, peer), Some(vec![0, 2, 5]));
        assert_eq!(r.path(3, 0, peer), Some(vec![7, 4, 1]));
    }

    #[test]
    fn hosts_do_not_forward() {
        // s0 - h1 - s2: s2 is unreachable from s0.
        let ports = vec![vec![(0, 1)], vec![(1, 0), (2, 2)], vec![(3, 1)]];
        let r = Routes::compute(&ports, &[false, true, false]);
        assert_eq!(r.next_port(0, 2), NO_ROUTE);
        assert_eq!(r.next_port(0, 1), 0);
    }
}
