//! Hop counts towards many destinations at once, for the next-hop table: one
//! breadth-first search per batch of [`BATCH`] destinations, each destination a bit of
//! a word per node, so a level of the search passes over the links once for the whole
//! batch rather than once per destination.

/// Destinations searched at once: the bits of a word.
pub(super) const BATCH: usize = 64;

/// The state of a batch search, reused from batch to batch.
pub(super) struct BatchSearch {
    /// Per node, the destinations that have reached it.
    seen: Vec<u64>,
    /// Per node, the destinations that reached it at the last level.
    front: Vec<u64>,
    /// Per node, the destinations reaching it at the level being searched.
    next: Vec<u64>,
    /// Per node, its own bit if it is a destination of the batch.
    own: Vec<u64>,
    /// The nodes with a non-empty `front`, and those touched at the next level.
    fronts: Vec<usize>,
    touched: Vec<usize>,
    /// Every arrival as found, level by level: (node, depth, destinations first
    /// reaching the node at that depth).
    found: Vec<(u32, u32, u64)>,
    /// Per node, where its arrivals start in `arrivals` (and the next node's end).
    starts: Vec<u32>,
    /// The arrivals grouped by node, each node's by increasing depth: (depth,
    /// destinations). A node has one per level at which some destination reaches it
    /// (a few in a fabric), where a hop count per destination took 64 words a node.
    arrivals: Vec<(u32, u64)>,
}

impl BatchSearch {
    /// A search over `nodes` nodes.
    pub fn new(nodes: usize) -> BatchSearch {
        BatchSearch {
            seen: vec![0; nodes],
            front: vec![0; nodes],
            next: vec![0; nodes],
            own: vec![0; nodes],
            fronts: Vec::new(),
            touched: Vec::new(),
            found: Vec::new(),
            starts: vec![0; nodes + 1],
            arrivals: Vec::new(),
        }
    }

    /// Hop counts towards each node of `batch` (at most [`BATCH`]) over `links`
    /// (`links[n]`: `(port, peer)` of node `n`), hosts other than the destination
    /// itself not forwarding: what a breadth-first search from each would find.
    pub fn run(&mut self, links: &[Vec<(u32, u32)>], is_host: &[bool], batch: &[usize]) {
        debug_assert!(batch.len() <= BATCH);
        self.seen.fill(0);
        self.own.fill(0);
        self.fronts.clear();
        self.found.clear();
        for (j, &dst) in batch.iter().enumerate() {
            let bit = 1u64 << j;
            self.seen[dst] |= bit;
            self.own[dst] |= bit;
            if self.front[dst] == 0 {
                self.fronts.push(dst);
            }
            self.front[dst] |= bit;
        }
        self.found.extend(self.fronts.iter().map(|&dst| (dst as u32, 0, self.own[dst])));
        let mut depth = 0;
        while !self.fronts.is_empty() {
            depth += 1;
            self.spread(links, is_host);
            self.settle(depth);
        }
        self.group_by_node();
    }

    /// Every node of the front passes its destinations to its peers (a host only its
    /// own: it does not forward).
    fn spread(&mut self, links: &[Vec<(u32, u32)>], is_host: &[bool]) {
        self.touched.clear();
        for &n in &self.fronts {
            let mut reach = std::mem::take(&mut self.front[n]);
            if is_host[n] {
                reach &= self.own[n];
            }
            if reach == 0 {
                continue;
            }
            for &(_, peer) in &links[n] {
                let peer = peer as usize;
                if reach & !self.seen[peer] & !self.next[peer] == 0 {
                    continue;
                }
                if self.next[peer] == 0 {
                    self.touched.push(peer);
                }
                self.next[peer] |= reach & !self.seen[peer];
            }
        }
    }

    /// The destinations new at each touched node are reached at `depth`.
    fn settle(&mut self, depth: u32) {
        self.fronts.clear();
        for &n in &self.touched {
            let new = std::mem::take(&mut self.next[n]);
            self.seen[n] |= new;
            self.front[n] = new;
            self.fronts.push(n);
            self.found.push((n as u32, depth, new));
        }
    }

    /// Groups the arrivals by node (a counting sort: found level by level, each
    /// node's stay in order of depth).
    fn group_by_node(&mut self) {
        self.starts.fill(0);
        for &(n, _, _) in &self.found {
            self.starts[n as usize + 1] += 1;
        }
        for n in 1..self.starts.len() {
            self.starts[n] += self.starts[n - 1];
        }
        self.arrivals.clear();
        self.arrivals.resize(self.found.len(), (0, 0));
        for &(n, depth, bits) in &self.found {
            let at = &mut self.starts[n as usize];
            self.arrivals[*at as usize] = (depth, bits);
            *at += 1;
        }
        // Each start moved to its node's end, the next node's start: shift back.
        for n in (1..self.starts.len()).rev() {
            self.starts[n] = self.starts[n - 1];
        }
        self.starts[0] = 0;
    }

    /// Node `n`'s arrivals, by increasing depth.
    fn arrivals_at(&self, n: usize) -> &[(u32, u64)] {
        &self.arrivals[self.starts[n] as usize..self.starts[n + 1] as usize]
    }

    /// The destinations (bits) towards which node `n`'s link to `peer` lies on a
    /// shortest path: `peer` is one hop nearer, and forwards or is the destination.
    /// (Bits of a destination that is `n` itself or out of reach are meaningless.)
    pub fn on_path(&self, n: usize, peer: usize, is_host: &[bool]) -> u64 {
        let nearer = self.arrivals_at(peer);
        let mut mask = 0u64;
        let mut k = 0;
        // The destinations reaching `n` at depth d and `peer` at d - 1.
        for &(depth, bits) in self.arrivals_at(n) {
            while k < nearer.len() && nearer[k].0 + 1 < depth {
                k += 1;
            }
            if k < nearer.len() && nearer[k].0 + 1 == depth {
                mask |= bits & nearer[k].1;
            }
        }
        if is_host[peer] { mask & self.own[peer] } else { mask }
    }

    /// The destinations of the batch that node `n` reaches and is not itself (bits).
    pub fn routed(&self, n: usize) -> u64 {
        self.seen[n] & !self.own[n]
    }
}
