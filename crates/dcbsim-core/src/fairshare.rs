//! The weighted max-min fair share of each flow, by progressive filling.
//!
//! Every flow with a demand rises at a speed proportional to its weight until it meets
//! its demand or crosses a port with no capacity left; flows frozen there keep their
//! share and the others go on. The engine computes it at each sample (when something
//! changed) from the ports' current capacities and the flows' current demands, so a
//! run reports each flow's measured rate beside the share a fair scheme would give it.

/// The flows' paths, as lists of egress-port indices, stored flat.
#[derive(Clone, Debug, Default)]
pub struct Paths {
    ports: Vec<u32>,
    starts: Vec<usize>,
}

impl Paths {
    /// An empty set of paths.
    pub fn new() -> Paths {
        Paths { ports: Vec::new(), starts: vec![0] }
    }

    /// Adds the next flow's path.
    pub fn push(&mut self, path: &[u32]) {
        self.ports.extend_from_slice(path);
        self.starts.push(self.ports.len());
    }

    /// The path of flow `i`.
    pub fn get(&self, i: usize) -> &[u32] {
        &self.ports[self.starts[i]..self.starts[i + 1]]
    }

    /// Number of flows.
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// Whether there are no flows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Fills `share` (bits/s) with the weighted max-min fair share of each flow, given
/// each port's capacity (bits/s), each flow's path, weight (> 0) and demand (bits/s;
/// 0 for a flow that is not sending, `f64::INFINITY` for no limit).
///
/// Each round raises the unfrozen flows to the lowest level (share per unit weight)
/// at which a port fills or a flow meets its demand, and freezes the flows there. A
/// port keeps its capacity left and its unfrozen flows' weight, updated as flows
/// freeze, and lists its flows, so a round costs one pass over the ports plus the
/// flows it freezes: a fat-tree's 16,000 flows with hundreds of distinct levels take
/// milliseconds, not seconds.
pub fn weighted_max_min(capacity: &[f64], paths: &Paths, weight: &[f64], demand: &[f64], share: &mut [f64]) {
    let n = paths.len();
    share.iter_mut().for_each(|s| *s = 0.0);
    let mut ports = PortState::new(capacity, paths, weight, demand);
    let mut frozen: Vec<bool> = (0..n).map(|i| demand[i] <= 0.0).collect();
    let mut by_demand: Vec<u32> = (0..n as u32).filter(|&i| !frozen[i as usize]).collect();
    let per_weight = |i: u32| demand[i as usize] / weight[i as usize];
    by_demand.sort_by(|&a, &b| per_weight(a).total_cmp(&per_weight(b)).then(a.cmp(&b)));
    let (mut next, mut left) = (0, by_demand.len());
    let mut tight = Vec::new();
    while left > 0 {
        while next < by_demand.len() && frozen[by_demand[next] as usize] {
            next += 1;
        }
        let demand_level = by_demand.get(next).map_or(f64::INFINITY, |&i| per_weight(i));
        let level = ports.lowest_level().min(demand_level);
        if !level.is_finite() {
            // Unfrozen flows cross no port and have no demand limit: nothing bounds them.
            (0..n).filter(|&i| !frozen[i]).for_each(|i| share[i] = demand[i]);
            return;
        }
        ports.tight_at(level, &mut tight);
        let before = left;
        let mut freeze = |i: usize, ports: &mut PortState| {
            if !frozen[i] {
                frozen[i] = true;
                share[i] = (weight[i] * level).min(demand[i]);
                ports.remove(paths.get(i), weight[i], share[i]);
                left -= 1;
            }
        };
        for &p in &tight {
            for k in ports.start[p]..ports.start[p + 1] {
                freeze(ports.members[k] as usize, &mut ports);
            }
        }
        while next < by_demand.len() && per_weight(by_demand[next]) <= level * (1.0 + 1e-12) {
            freeze(by_demand[next] as usize, &mut ports);
            next += 1;
        }
        if left == before {
            (0..n).filter(|&i| !frozen[i]).for_each(|i| share[i] = weight[i] * level);
            return;
        }
    }
}

/// Per port: capacity left, weight and count of the unfrozen flows crossing it, and
/// (flat, by port) the flows crossing it.
struct PortState {
    left: Vec<f64>,
    weight: Vec<f64>,
    unfrozen: Vec<u32>,
    start: Vec<usize>,
    members: Vec<u32>,
}

impl PortState {
    fn new(capacity: &[f64], paths: &Paths, weight: &[f64], demand: &[f64]) -> PortState {
        let m = capacity.len();
        let mut s =
            PortState { left: capacity.to_vec(), weight: vec![0.0; m], unfrozen: vec![0; m], start: vec![0; m + 1], members: Vec::new() };
        for i in (0..paths.len()).filter(|&i| demand[i] > 0.0) {
            for &p in paths.get(i) {
                s.weight[p as usize] += weight[i];
                s.unfrozen[p as usize] += 1;
                s.start[p as usize + 1] += 1;
            }
        }
        for p in 0..m {
            s.start[p + 1] += s.start[p];
        }
        let mut fill = s.start.clone();
        s.members = vec![0; s.start[m]];
        for i in (0..paths.len()).filter(|&i| demand[i] > 0.0) {
            for &p in paths.get(i) {
                s.members[fill[p as usize]] = i as u32;
                fill[p as usize] += 1;
            }
        }
        s
    }

    /// The level at which port `p` fills, or infinity when no unfrozen flow crosses it.
    fn level(&self, p: usize) -> f64 {
        match self.unfrozen[p] {
            0 => f64::INFINITY,
            _ => self.left[p].max(0.0) / self.weight[p],
        }
    }

    fn lowest_level(&self) -> f64 {
        (0..self.left.len()).map(|p| self.level(p)).fold(f64::INFINITY, f64::min)
    }

    /// The ports that fill at `level` (within rounding), into `out`.
    fn tight_at(&self, level: f64, out: &mut Vec<usize>) {
        out.clear();
        out.extend((0..self.left.len()).filter(|&p| self.level(p) <= level * (1.0 + 1e-12)));
    }

    /// A flow of `weight` along `path` freezes at `share`.
    fn remove(&mut self, path: &[u32], weight: f64, share: f64) {
        for &p in path {
            let p = p as usize;
            self.left[p] -= share;
            self.weight[p] -= weight;
            self.unfrozen[p] -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(list: &[&[u32]]) -> Paths {
        let mut p = Paths::new();
        list.iter().for_each(|x| p.push(x));
        p
    }

    fn shares(capacity: &[f64], list: &[&[u32]], weight: &[f64], demand: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; list.len()];
        weighted_max_min(capacity, &paths(list), weight, demand, &mut out);
        out
    }

    #[test]
    fn equal_flows_split_a_bottleneck() {
        let s = shares(&[10.0, 10.0], &[&[0, 1], &[0, 1], &[0, 1], &[0, 1]], &[1.0; 4], &[f64::INFINITY; 4]);
        assert_eq!(s, vec![2.5; 4]);
    }

    #[test]
    fn a_light_flow_keeps_its_demand_and_the_rest_is_shared() {
        // FQCN Fig. 6a: 3 static flows and ON-OFF flows of 1 and 5 Gb/s into 10 Gb/s.
        let inf = f64::INFINITY;
        let s = shares(&[10.0], &[&[0], &[0], &[0], &[0], &[0]], &[1.0; 5], &[inf, inf, inf, 1.0, 5.0]);
        assert_eq!(s, vec![2.25, 2.25, 2.25, 1.0, 2.25]);
    }

    #[test]
    fn weights_and_a_capped_flow() {
        // FQCN Fig. 8: weights 4:3:2:1 on 10 Gb/s, then flow 0 capped at 1 Gb/s: the
        // other 9 Gb/s go 3:2:1.
        let inf = f64::INFINITY;
        let w = [4.0, 3.0, 2.0, 1.0];
        assert_eq!(shares(&[10.0], &[&[0u32][..]; 4], &w, &[inf; 4]), vec![4.0, 3.0, 2.0, 1.0]);
        assert_eq!(shares(&[10.0], &[&[0u32][..]; 4], &w, &[1.0, inf, inf, inf]), vec![1.0, 4.5, 3.0, 1.5]);
    }

    #[test]
    fn parking_lot_is_max_min_not_proportional() {
        // Two links of 10: flow 0 crosses both, flows 1 and 2 one each, and flow 3 shares
        // link 1 with flow 2 ... link 0: {0, 1}; link 1: {0, 2, 3}.
        let s = shares(&[10.0, 10.0], &[&[0, 1], &[0], &[1], &[1]], &[1.0; 4], &[f64::INFINITY; 4]);
        let third = 10.0 / 3.0;
        assert!((s[0] - third).abs() < 1e-9 && (s[2] - third).abs() < 1e-9 && (s[3] - third).abs() < 1e-9);
        assert!((s[1] - (10.0 - third)).abs() < 1e-9);
    }

    #[test]
    fn idle_flows_get_nothing() {
        let s = shares(&[10.0], &[&[0], &[0]], &[1.0; 2], &[0.0, f64::INFINITY]);
        assert_eq!(s, vec![0.0, 10.0]);
    }

    /// The first implementation, one pass over every flow per round: the reference.
    /// Fills `share` (bits/s) with the weighted max-min fair share of each flow, given
    /// each port's capacity (bits/s), each flow's path, weight (> 0) and demand (bits/s;
    /// 0 for a flow that is not sending, `f64::INFINITY` for no limit).
    fn reference(capacity: &[f64], paths: &Paths, weight: &[f64], demand: &[f64], share: &mut [f64]) {
        let n = paths.len();
        let mut frozen: Vec<bool> = (0..n).map(|i| demand[i] <= 0.0).collect();
        share.iter_mut().for_each(|s| *s = 0.0);
        let mut used = vec![0.0; capacity.len()];
        let mut weights = vec![0.0; capacity.len()];
        loop {
            used.iter_mut().for_each(|u| *u = 0.0);
            weights.iter_mut().for_each(|w| *w = 0.0);
            for i in 0..n {
                for &p in paths.get(i) {
                    if frozen[i] {
                        used[p as usize] += share[i];
                    } else {
                        weights[p as usize] += weight[i];
                    }
                }
            }
            // The level (share per unit weight) at which the next flow freezes.
            let port_level = |p: usize| if weights[p] > 0.0 { (capacity[p] - used[p]).max(0.0) / weights[p] } else { f64::INFINITY };
            let mut level = (0..capacity.len()).map(port_level).fold(f64::INFINITY, f64::min);
            for i in (0..n).filter(|&i| !frozen[i]) {
                level = level.min(demand[i] / weight[i]);
            }
            if !level.is_finite() {
                // Unfrozen flows cross no port and have no demand limit: nothing bounds them.
                for i in 0..n {
                    if !frozen[i] {
                        share[i] = demand[i];
                    }
                }
                return;
            }
            let tight = |p: &u32| port_level(*p as usize) <= level * (1.0 + 1e-12);
            let mut any = false;
            for i in 0..n {
                if frozen[i] {
                    continue;
                }
                share[i] = weight[i] * level;
                if demand[i] / weight[i] <= level * (1.0 + 1e-12) || paths.get(i).iter().any(tight) {
                    share[i] = share[i].min(demand[i]);
                    frozen[i] = true;
                    any = true;
                }
            }
            if !any || frozen.iter().all(|&f| f) {
                return;
            }
        }
    }

    #[test]
    fn the_same_shares_as_the_reference_on_random_networks() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for _ in 0..300 {
            let ports = 1 + next(12) as usize;
            let capacity: Vec<f64> = (0..ports).map(|_| (1 + next(100)) as f64).collect();
            let flows = 1 + next(40) as usize;
            let list: Vec<Vec<u32>> = (0..flows).map(|_| (0..next(4)).map(|_| next(ports as u64) as u32).collect()).collect();
            let list: Vec<Vec<u32>> = list
                .into_iter()
                .map(|mut p| {
                    p.sort();
                    p.dedup();
                    p
                })
                .collect();
            let weight: Vec<f64> = (0..flows).map(|_| (1 + next(4)) as f64).collect();
            let demand: Vec<f64> = (0..flows)
                .map(|_| match next(4) {
                    0 => 0.0,
                    1 => (1 + next(50)) as f64,
                    _ => f64::INFINITY,
                })
                .collect();
            let refs: Vec<&[u32]> = list.iter().map(|p| p.as_slice()).collect();
            let fast = shares(&capacity, &refs, &weight, &demand);
            let mut slow = vec![0.0; flows];
            reference(&capacity, &paths(&refs), &weight, &demand, &mut slow);
            for (a, b) in fast.iter().zip(&slow) {
                assert!(a == b || (a - b).abs() <= 1e-9 * b.abs().max(1.0), "{fast:?} vs {slow:?}");
            }
        }
    }
}
