//! Hop counts towards many destinations at once, for the next-hop table: one
//! breadth-first search per batch of [`BATCH`] destinations, each destination a bit of
//! a word per node, so a level of the search passes over the links once for the whole
//! batch rather than once per destination.

/// Destinations searched at once: the bits of a word.
pub(super) const BATCH: usize = 64;

/// Not reached.
const FAR: u32 = u32::MAX;

/// The state of a batch search, reused from batch to batch.
pub(super) struct BatchSearch {
    /// Per node and destination of the batch, the hop count (`level[n * BATCH + j]`).
    level: Vec<u32>,
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
}

impl BatchSearch {
    /// A search over `nodes` nodes.
    pub fn new(nodes: usize) -> BatchSearch {
        BatchSearch {
            level: vec![FAR; nodes * BATCH],
            seen: vec![0; nodes],
            front: vec![0; nodes],
            next: vec![0; nodes],
            own: vec![0; nodes],
            fronts: Vec::new(),
            touched: Vec::new(),
        }
    }

    /// Hop counts towards each node of `batch` (at most [`BATCH`]) over `links`
    /// (`links[n]`: `(port, peer)` of node `n`), hosts other than the destination
    /// itself not forwarding: what a breadth-first search from each would find.
    pub fn run(&mut self, links: &[Vec<(u32, u32)>], is_host: &[bool], batch: &[usize]) {
        debug_assert!(batch.len() <= BATCH);
        self.level.fill(FAR);
        self.seen.fill(0);
        self.own.fill(0);
        self.fronts.clear();
        for (j, &dst) in batch.iter().enumerate() {
            let bit = 1u64 << j;
            self.level[dst * BATCH + j] = 0;
            self.seen[dst] |= bit;
            self.own[dst] |= bit;
            if self.front[dst] == 0 {
                self.fronts.push(dst);
            }
            self.front[dst] |= bit;
        }
        let mut depth = 0;
        while !self.fronts.is_empty() {
            depth += 1;
            self.spread(links, is_host);
            self.settle(depth);
        }
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
            let mut bits = new;
            while bits != 0 {
                self.level[n * BATCH + bits.trailing_zeros() as usize] = depth;
                bits &= bits - 1;
            }
        }
    }

    /// The destinations (bits) towards which node `n`'s link to `peer` lies on a
    /// shortest path: `peer` is one hop nearer, and forwards or is the destination.
    /// (Bits of a destination that is `n` itself or out of reach are meaningless.)
    pub fn on_path(&self, n: usize, peer: usize, is_host: &[bool]) -> u64 {
        let (at, next) = (&self.level[n * BATCH..][..BATCH], &self.level[peer * BATCH..][..BATCH]);
        // Eight destinations at a time, each a byte: a form the compiler turns into
        // vector compares.
        let mut mask = 0u64;
        for (chunk, (at, next)) in at.chunks_exact(8).zip(next.chunks_exact(8)).enumerate() {
            let bits = (0..8).fold(0u64, |bits, j| bits | (((next[j].wrapping_add(1) == at[j]) as u64) << j));
            mask |= bits << (8 * chunk);
        }
        if is_host[peer] { mask & self.own[peer] } else { mask }
    }

    /// The destinations among the first `len` of the batch that node `n` reaches and
    /// is not itself (bits).
    pub fn routed(&self, n: usize, len: usize) -> u64 {
        let levels = &self.level[n * BATCH..][..len];
        levels.iter().enumerate().fold(0, |bits, (j, &level)| bits | (((level != 0 && level != FAR) as u64) << j))
    }
}
