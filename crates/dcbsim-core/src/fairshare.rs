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
pub fn weighted_max_min(capacity: &[f64], paths: &Paths, weight: &[f64], demand: &[f64], share: &mut [f64]) {
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
}
