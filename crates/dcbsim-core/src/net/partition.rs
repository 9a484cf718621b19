//! Splitting a network into parts for a parallel engine.
//!
//! Each part is run by one thread; a frame that crosses from one part to another is
//! handed over at a window barrier, so a crossing link must delay its frames (its
//! propagation delay is what lets the receiving part run a window ahead), and the
//! smallest delay over crossing links — the lookahead — bounds the window.
//!
//! The split is made of groups that must not be cut: a host with its switch (a host's
//! events are its switch port's partners; cutting there would cut the busiest links)
//! and the two ends of a zero-delay link. Groups are weighed by their link ends, as
//! events are roughly proportional to ports. Multi-rooted fabrics split best along
//! their top tier: removing the switches farthest from any host (a fat-tree's cores, a
//! leaf-spine's spines) leaves natural clusters (pods, leaves) whose only cut links
//! are those to the top tier. Graphs without such a tier (a chain or ring of switches
//! with hosts) are cut into contiguous equal-weight runs of a breadth-first order.
//!
//! Everything is ordered by node index, never by hashing, so the same network always
//! gives the same split.

use crate::units::Time;

#[cfg(test)]
#[path = "partition_tests.rs"]
mod tests;

/// What the partitioner reads of one full-duplex link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CutLink {
    /// One end's node index.
    pub a: u32,
    /// The other end's node index.
    pub b: u32,
    /// The smallest propagation delay a frame can see in one direction; zero (as for a
    /// delay drawn from a distribution that can give zero) keeps the ends together.
    pub delay: Time,
}

/// A split of a network's nodes into parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partitioning {
    /// Per node, its part (`0..parts`).
    pub part_of: Vec<u16>,
    /// How many parts, every one non-empty: fewer than asked when the network has
    /// fewer useful pieces (never more threads than there is work to split).
    pub parts: usize,
    /// The smallest delay of a link whose ends lie in different parts; `Time::NEVER`
    /// when none cross.
    pub lookahead: Time,
}

/// Splits the network of `is_host` (per node) and `links` into at most `parts` parts
/// of about equal weight (link ends) with few crossing links.
///
/// A host lies in the part of its switch and a zero-delay link is never cut. Every
/// node index in `links` must be below `is_host.len()`.
pub fn partition(is_host: &[bool], links: &[CutLink], parts: usize) -> Partitioning {
    let groups = Groups::new(is_host, links);
    // u16 part ids; asking for none means one.
    let asked = parts.clamp(1, 1 << 16);
    let group_part = if asked == 1 || groups.count() < 2 { vec![0; groups.count()] } else { split(&groups, asked) };
    finish(&groups, &group_part, links)
}

/// Nodes glued into groups that are never cut, with each group's weight and links.
struct Groups {
    /// Per node, its group (groups numbered in order of their first node).
    of: Vec<usize>,
    /// Per group, its weight: the link ends of its nodes.
    weight: Vec<u64>,
    /// Per group, whether it holds a host.
    has_host: Vec<bool>,
    /// Per group, the groups it links to, ascending, without repeats, with how many
    /// links join them.
    adj: Vec<Vec<(usize, u64)>>,
}

impl Groups {
    /// Glues hosts to their neighbours and zero-delay link ends, then numbers, weighs
    /// and links the groups.
    fn new(is_host: &[bool], links: &[CutLink]) -> Groups {
        let n = is_host.len();
        let mut uf = UnionFind::new(n);
        for l in links {
            let (a, b) = (l.a as usize, l.b as usize);
            if is_host[a] || is_host[b] || l.delay == Time::ZERO {
                uf.union(a, b);
            }
        }
        let of = uf.numbered();
        let count = of.iter().max().map_or(0, |&g| g + 1);
        let mut weight = vec![0; count];
        let mut has_host = vec![false; count];
        for (node, &g) in of.iter().enumerate() {
            has_host[g] |= is_host[node];
        }
        let mut pairs = Vec::new();
        for l in links {
            let (ga, gb) = (of[l.a as usize], of[l.b as usize]);
            weight[ga] += 1;
            weight[gb] += 1;
            if ga != gb {
                pairs.push((ga, gb));
                pairs.push((gb, ga));
            }
        }
        Groups { of, weight, has_host, adj: adjacency(count, pairs) }
    }

    /// How many groups.
    fn count(&self) -> usize {
        self.weight.len()
    }
}

/// Per group, its neighbours ascending with the number of links to each, from the
/// (directed) pairs: sorting makes the order independent of the links' order.
fn adjacency(count: usize, mut pairs: Vec<(usize, usize)>) -> Vec<Vec<(usize, u64)>> {
    pairs.sort_unstable();
    let mut adj: Vec<Vec<(usize, u64)>> = vec![Vec::new(); count];
    for (a, b) in pairs {
        match adj[a].last_mut() {
            Some((last, n)) if *last == b => *n += 1,
            _ => adj[a].push((b, 1)),
        }
    }
    adj
}

/// A union-find over node indices, by size with path halving.
struct UnionFind {
    parent: Vec<usize>,
    size: Vec<usize>,
}

impl UnionFind {
    /// Every node alone.
    fn new(n: usize) -> UnionFind {
        UnionFind { parent: (0..n).collect(), size: vec![1; n] }
    }

    /// The representative of `x`'s set.
    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    /// Joins the sets of `a` and `b`.
    fn union(&mut self, a: usize, b: usize) {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        if self.size[a] < self.size[b] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b] = a;
        self.size[a] += self.size[b];
    }

    /// Per node, its set's number, sets numbered in order of their first node (so the
    /// numbering depends on the sets only, not on the order of the unions).
    fn numbered(mut self) -> Vec<usize> {
        let n = self.parent.len();
        let mut number = vec![usize::MAX; n];
        let mut next = 0;
        (0..n)
            .map(|x| {
                let root = self.find(x);
                if number[root] == usize::MAX {
                    number[root] = next;
                    next += 1;
                }
                number[root]
            })
            .collect()
    }
}

/// Per group, its part, for `asked` ≥ 2 parts and at least two groups: by clusters
/// below the top tier when two or more have links (a node without links is no work
/// worth a thread), else contiguously.
fn split(groups: &Groups, asked: usize) -> Vec<usize> {
    let top = top_tier(groups);
    let clusters = clusters_below(groups, &top);
    if useful(groups, &clusters) >= 2 { by_clusters(groups, &top, &clusters, asked) } else { contiguous(groups, asked) }
}

/// Per group, whether it is in the top tier: the groups farthest (in hops) from a
/// group with a host, when that is farther than zero. A fat-tree's cores, a
/// leaf-spine's spines; nothing in a network whose switches all have hosts.
fn top_tier(groups: &Groups) -> Vec<bool> {
    let sources: Vec<usize> = (0..groups.count()).filter(|&g| groups.has_host[g]).collect();
    let dist = hops_from(groups, &sources);
    let far = dist.iter().copied().filter(|&d| d != usize::MAX).max().unwrap_or(0);
    dist.iter().map(|&d| far > 0 && d == far).collect()
}

/// Per group, its hops from the nearest of `sources` (`usize::MAX` if unreachable).
fn hops_from(groups: &Groups, sources: &[usize]) -> Vec<usize> {
    let mut dist = vec![usize::MAX; groups.count()];
    let mut queue = std::collections::VecDeque::new();
    for &s in sources {
        dist[s] = 0;
        queue.push_back(s);
    }
    while let Some(g) = queue.pop_front() {
        for &(h, _) in &groups.adj[g] {
            if dist[h] == usize::MAX {
                dist[h] = dist[g] + 1;
                queue.push_back(h);
            }
        }
    }
    dist
}

/// The connected components of the groups not in `top`, each ascending, in order of
/// their first group.
fn clusters_below(groups: &Groups, top: &[bool]) -> Vec<Vec<usize>> {
    let mut seen = top.to_vec();
    let mut clusters = Vec::new();
    for start in 0..groups.count() {
        if seen[start] {
            continue;
        }
        seen[start] = true;
        let mut cluster = vec![start];
        let mut i = 0;
        while i < cluster.len() {
            for &(h, _) in &groups.adj[cluster[i]] {
                if !seen[h] {
                    seen[h] = true;
                    cluster.push(h);
                }
            }
            i += 1;
        }
        cluster.sort_unstable();
        clusters.push(cluster);
    }
    clusters
}

/// How many of `clusters` weigh anything.
fn useful(groups: &Groups, clusters: &[Vec<usize>]) -> usize {
    clusters.iter().filter(|c| c.iter().any(|&g| groups.weight[g] > 0)).count()
}

/// Clusters to parts by longest processing time (heaviest first, each to the lightest
/// part), then each top-tier group to a light part among those holding most of its
/// links, so the top tier evens out what the clusters left uneven.
fn by_clusters(groups: &Groups, top: &[bool], clusters: &[Vec<usize>], asked: usize) -> Vec<usize> {
    let parts = asked.min(useful(groups, clusters));
    let mut part = vec![usize::MAX; groups.count()];
    let mut load = vec![0u64; parts];
    let cluster_weight = |c: &Vec<usize>| c.iter().map(|&g| groups.weight[g]).sum::<u64>();
    let mut order: Vec<usize> = (0..clusters.len()).collect();
    // Stable: equal weights keep the clusters' order (of their first node).
    order.sort_by_key(|&c| std::cmp::Reverse(cluster_weight(&clusters[c])));
    for c in order {
        let p = lightest(&load, 0..parts);
        load[p] += cluster_weight(&clusters[c]);
        for &g in &clusters[c] {
            part[g] = p;
        }
    }
    let mut tops: Vec<usize> = (0..groups.count()).filter(|&g| top[g]).collect();
    tops.sort_by_key(|&g| std::cmp::Reverse(groups.weight[g]));
    for g in tops {
        let p = top_part(groups, g, &part, &load);
        load[p] += groups.weight[g];
        part[g] = p;
    }
    part
}

/// The part for top-tier group `g`: the lightest of the parts holding at least half
/// as many of its links as the part holding most (ties to the part holding more, then
/// the lower index). The half keeps a switch with its neighbours when they are mostly
/// in one part, and lets balance decide when they are spread about evenly.
fn top_part(groups: &Groups, g: usize, part: &[usize], load: &[u64]) -> usize {
    let mut links = vec![0u64; load.len()];
    for &(h, n) in &groups.adj[g] {
        if part[h] != usize::MAX {
            links[part[h]] += n;
        }
    }
    let most = links.iter().copied().max().unwrap_or(0);
    (0..load.len()).filter(|&p| 2 * links[p] >= most).min_by_key(|&p| (load[p], std::cmp::Reverse(links[p]), p)).unwrap_or(0)
}

/// The lightest of `candidates`, ties to the lowest index.
fn lightest(load: &[u64], candidates: impl Iterator<Item = usize>) -> usize {
    candidates.min_by_key(|&p| (load[p], p)).unwrap_or(0)
}

/// Groups in a breadth-first order cut into contiguous runs of about equal weight:
/// each group goes to the part its weight's midpoint falls in. Parts are capped at
/// total / heaviest group, so no part is left empty or far lighter than the rest.
fn contiguous(groups: &Groups, asked: usize) -> Vec<usize> {
    let total: u64 = groups.weight.iter().sum();
    let heaviest = groups.weight.iter().copied().max().unwrap_or(1).max(1);
    let parts = (asked as u64).min(total / heaviest).max(1);
    let mut part = vec![0; groups.count()];
    let mut before = 0u64;
    for g in breadth_first(groups) {
        let w = groups.weight[g];
        // Twice the midpoint, to stay in integers.
        part[g] = ((2 * before + w) * parts / (2 * total.max(1))).min(parts - 1) as usize;
        before += w;
    }
    part
}

/// Every group once, component by component (in order of first group), each
/// breadth-first from a far end (the last group reached from its first group), so a
/// prefix is a ball at one end: a chain's prefixes are runs, a ring's halves arcs.
fn breadth_first(groups: &Groups) -> Vec<usize> {
    let mut placed = vec![false; groups.count()];
    let mut order = Vec::with_capacity(groups.count());
    for start in 0..groups.count() {
        if placed[start] {
            continue;
        }
        let far = *bfs(groups, start).last().unwrap_or(&start);
        for g in bfs(groups, far) {
            placed[g] = true;
            order.push(g);
        }
    }
    order
}

/// The groups reachable from `start`, breadth-first, neighbours ascending.
fn bfs(groups: &Groups, start: usize) -> Vec<usize> {
    let mut seen = vec![false; groups.count()];
    seen[start] = true;
    let mut order = vec![start];
    let mut i = 0;
    while i < order.len() {
        for &(h, _) in &groups.adj[order[i]] {
            if !seen[h] {
                seen[h] = true;
                order.push(h);
            }
        }
        i += 1;
    }
    order
}

/// Maps group parts to node parts, renumbers parts in order of their first node (a
/// canonical numbering), counts them and finds the lookahead.
fn finish(groups: &Groups, group_part: &[usize], links: &[CutLink]) -> Partitioning {
    let mut number: Vec<Option<u16>> = vec![None; group_part.iter().max().map_or(0, |&p| p + 1)];
    let mut parts = 0;
    let part_of: Vec<u16> = groups
        .of
        .iter()
        .map(|&g| {
            *number[group_part[g]].get_or_insert_with(|| {
                parts += 1;
                (parts - 1) as u16
            })
        })
        .collect();
    let lookahead = links.iter().filter(|l| part_of[l.a as usize] != part_of[l.b as usize]).map(|l| l.delay).min().unwrap_or(Time::NEVER);
    Partitioning { part_of, parts: parts.max(1), lookahead }
}
