//! Fairness of a run from its samples: each flow's delivered throughput against its
//! weighted max-min fair share at the same sample.
//!
//! At each sample where two flows or more have a share, Jain's index and the min/max
//! ratio of `throughput / share` over those flows; per flow, the root-mean-square
//! deviation of its throughput from its share over the samples where it has one (and
//! relative to its mean share there), and that mean share; pooled over every (flow,
//! sample) with a share, the same deviation. Beside them, the samples at which each
//! flow was sending (its rate above zero), from which its active time follows.
//!
//! The samples come in blocks (all flows, a run of samples), flow by flow, so that a
//! run whose samples do not fit in memory is taken a block at a time.

/// One flow's sums over the samples so far.
#[derive(Clone, Copy, Debug, Default)]
struct FlowSums {
    /// Σ (throughput − share)² over the samples where the flow has a share.
    squares: f64,
    /// Σ share over those samples.
    shares: f64,
    /// How many samples those are.
    with_share: u64,
    /// First and last sample at which the flow's rate was above zero.
    sending: Option<(u64, u64)>,
}

/// The measures of one flow (see the module).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowFairness {
    /// Root-mean-square deviation of throughput from share, bits/s (`None`: the flow
    /// never had a share).
    pub rms_bps: Option<f64>,
    /// That deviation over the flow's mean share.
    pub rms_rel: Option<f64>,
    /// The flow's mean share over the samples where it has one, bits/s.
    pub mean_share_bps: Option<f64>,
    /// First and last sample at which the flow was sending (`None`: at none, or its
    /// rate was not given).
    pub sending: Option<(u64, u64)>,
}

/// The measures of a run (see the module).
#[derive(Clone, Debug, PartialEq)]
pub struct Fairness {
    /// Jain's index of `throughput / share`, mean over the samples with two flows
    /// sharing or more (`None`: no such sample).
    pub jain: Option<f64>,
    /// The min/max ratio of `throughput / share`, mean over the same samples.
    pub min_max: Option<f64>,
    /// Deviation from the share pooled over every (flow, sample) with one, bits/s.
    pub share_rms_bps: Option<f64>,
    /// That deviation over the mean share of those (flow, sample)s.
    pub share_rms_rel: Option<f64>,
    /// Per flow, in the order given.
    pub flows: Vec<FlowFairness>,
}

/// The sums of one sample over the flows with a share, within a block.
#[derive(Clone, Copy, Debug)]
struct SampleSums {
    sum: f64,
    squares: f64,
    min: f64,
    max: f64,
    sharing: u32,
}

impl SampleSums {
    const EMPTY: SampleSums = SampleSums { sum: 0.0, squares: 0.0, min: f64::INFINITY, max: f64::NEG_INFINITY, sharing: 0 };
}

/// Sums over a run's samples from which [`Fairness`] follows; see the module.
///
/// ```
/// use dcbsim_core::fairness::FairnessSums;
///
/// let mut sums = FairnessSums::new(2);
/// sums.begin_block(2);
/// sums.add_flow(0, &[2.0, 1.0], &[2.0, 2.0], None);
/// sums.add_flow(1, &[1.0, 1.0], &[1.0, 1.0], None);
/// sums.end_block();
/// let f = sums.fairness();
/// // Sample 0: throughput / share [1, 1]; sample 1: [0.5, 1].
/// assert_eq!(f.min_max, Some(0.75));
/// assert_eq!(f.flows[0].rms_bps, Some(0.5f64.sqrt()));
/// ```
#[derive(Clone, Debug)]
pub struct FairnessSums {
    flows: Vec<FlowSums>,
    /// Samples before the current block.
    first_sample: u64,
    /// The current block's samples, by sample.
    block: Vec<SampleSums>,
    /// Σ Jain's index and Σ min/max over the samples with two flows sharing or more,
    /// and how many those are.
    jain: f64,
    min_max: f64,
    sharing_samples: u64,
}

impl FairnessSums {
    /// Sums over no samples yet of `flows` flows.
    pub fn new(flows: usize) -> FairnessSums {
        FairnessSums {
            flows: vec![FlowSums::default(); flows],
            first_sample: 0,
            block: Vec::new(),
            jain: 0.0,
            min_max: 0.0,
            sharing_samples: 0,
        }
    }

    /// Number of flows.
    pub fn flow_count(&self) -> usize {
        self.flows.len()
    }

    /// Starts a block of the next `samples` samples; each flow follows with
    /// [`FairnessSums::add_flow`], then [`FairnessSums::end_block`].
    pub fn begin_block(&mut self, samples: usize) {
        self.block.clear();
        self.block.resize(samples, SampleSums::EMPTY);
    }

    /// Adds flow `flow`'s throughput and share (bits/s) at each sample of the block,
    /// and its rate if known (`None`: its sending samples are not recorded). Each slice
    /// holds one value per sample of the block; values past the block are ignored.
    pub fn add_flow(&mut self, flow: usize, throughput: &[f64], share: &[f64], rate: Option<&[f64]>) {
        let sums = &mut self.flows[flow];
        for ((sample, &t), &f) in self.block.iter_mut().zip(throughput).zip(share) {
            if f > 0.0 {
                let deviation = t - f;
                sums.squares += deviation * deviation;
                sums.shares += f;
                sums.with_share += 1;
                let x = t / f;
                sample.sum += x;
                sample.squares += x * x;
                sample.min = sample.min.min(x);
                sample.max = sample.max.max(x);
                sample.sharing += 1;
            }
        }
        let Some(rate) = rate else { return };
        let n = self.block.len().min(rate.len());
        let first = rate[..n].iter().position(|&r| r > 0.0);
        let last = rate[..n].iter().rposition(|&r| r > 0.0);
        if let (Some(first), Some(last)) = (first, last) {
            let (first, last) = (self.first_sample + first as u64, self.first_sample + last as u64);
            sums.sending = Some(sums.sending.map_or((first, last), |(was, _)| (was, last)));
        }
    }

    /// Ends the block: each of its samples with two flows sharing or more counts.
    pub fn end_block(&mut self) {
        for s in &self.block {
            if s.sharing < 2 {
                continue;
            }
            let denominator = s.sharing as f64 * s.squares;
            self.jain += if denominator > 0.0 { s.sum * s.sum / denominator } else { 1.0 };
            self.min_max += if s.max > 0.0 { s.min / s.max } else { 0.0 };
            self.sharing_samples += 1;
        }
        self.first_sample += self.block.len() as u64;
        self.block.clear();
    }

    /// The measures over the samples added so far.
    pub fn fairness(&self) -> Fairness {
        let mean = |sum: f64, n: u64| (n > 0).then(|| sum / n as f64);
        let flows = self
            .flows
            .iter()
            .map(|s| {
                let rms = mean(s.squares, s.with_share).map(f64::sqrt);
                let share = mean(s.shares, s.with_share);
                FlowFairness { rms_bps: rms, rms_rel: rms.zip(share).map(|(r, m)| r / m), mean_share_bps: share, sending: s.sending }
            })
            .collect();
        let with_share: u64 = self.flows.iter().map(|s| s.with_share).sum();
        let pooled = mean(self.flows.iter().map(|s| s.squares).sum(), with_share).map(f64::sqrt);
        let mean_share = mean(self.flows.iter().map(|s| s.shares).sum(), with_share).unwrap_or(0.0);
        Fairness {
            jain: mean(self.jain, self.sharing_samples),
            min_max: mean(self.min_max, self.sharing_samples),
            share_rms_bps: pooled,
            share_rms_rel: pooled.filter(|_| mean_share > 0.0).map(|p| p / mean_share),
            flows,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The measures of (flows × samples) rows, in blocks of `block` samples.
    fn measures(throughput: &[&[f64]], share: &[&[f64]], rate: Option<&[&[f64]]>, block: usize) -> Fairness {
        let samples = throughput[0].len();
        let mut sums = FairnessSums::new(throughput.len());
        for a in (0..samples).step_by(block) {
            let b = (a + block).min(samples);
            sums.begin_block(b - a);
            for i in 0..throughput.len() {
                sums.add_flow(i, &throughput[i][a..b], &share[i][a..b], rate.map(|r| &r[i][a..b]));
            }
            sums.end_block();
        }
        sums.fairness()
    }

    #[test]
    fn measures_by_hand() {
        let f = measures(&[&[2.0, 1.0, 5.0], &[1.0, 1.0, 3.0]], &[&[2.0, 2.0, 0.0], &[1.0, 1.0, 3.0]], None, 3);
        // Sample 0: [1, 1] (Jain 1, min/max 1); sample 1: [0.5, 1] (0.9, 0.5); sample 2
        // has one flow with a share and does not count.
        assert!((f.jain.unwrap() - 0.95).abs() < 1e-12);
        assert!((f.min_max.unwrap() - 0.75).abs() < 1e-12);
        assert!((f.flows[0].rms_bps.unwrap() - 0.5f64.sqrt()).abs() < 1e-12);
        assert_eq!(f.flows[1].rms_bps, Some(0.0));
        assert_eq!(f.flows[0].mean_share_bps, Some(2.0));
        assert_eq!(f.flows[1].mean_share_bps, Some(5.0 / 3.0));
        assert!((f.share_rms_bps.unwrap() - 0.2f64.sqrt()).abs() < 1e-12);
        assert!((f.share_rms_rel.unwrap() - 0.2f64.sqrt() / (9.0 / 5.0)).abs() < 1e-12);
    }

    fn refs(v: &[Vec<f64>]) -> Vec<&[f64]> {
        v.iter().map(|r| r.as_slice()).collect()
    }

    #[test]
    fn blocks_give_the_measures_of_the_whole() {
        let thr: Vec<Vec<f64>> = (0..5).map(|i| (0..37).map(|k| ((i * 7 + k * 3) % 11) as f64).collect()).collect();
        let share: Vec<Vec<f64>> = (0..5).map(|i| (0..37).map(|k| ((i + k) % 4) as f64).collect()).collect();
        let rate: Vec<Vec<f64>> = (0..5).map(|i| (0..37).map(|k| (k > i && k < 30 + i) as u8 as f64).collect()).collect();
        let whole = measures(&refs(&thr), &refs(&share), Some(&refs(&rate)), 37);
        for block in [1, 5, 36] {
            let parts = measures(&refs(&thr), &refs(&share), Some(&refs(&rate)), block);
            let sending = |f: &Fairness| f.flows.iter().map(|f| f.sending).collect::<Vec<_>>();
            assert_eq!(sending(&parts), sending(&whole));
            assert!((parts.jain.unwrap() - whole.jain.unwrap()).abs() < 1e-12);
            assert!((parts.share_rms_bps.unwrap() - whole.share_rms_bps.unwrap()).abs() < 1e-12);
        }
        assert_eq!(whole.flows[2].sending, Some((3, 31)));
    }

    #[test]
    fn no_share_and_no_sending_give_none() {
        let f = measures(&[&[0.0, 0.0], &[1.0, 0.0]], &[&[0.0, 0.0], &[1.0, 0.0]], Some(&[&[0.0, 0.0], &[1.0, 0.0]]), 2);
        assert_eq!((f.jain, f.min_max), (None, None));
        assert_eq!(f.flows[0], FlowFairness { rms_bps: None, rms_rel: None, mean_share_bps: None, sending: None });
        assert_eq!(f.flows[1].sending, Some((0, 0)));
        assert_eq!(f.share_rms_bps, Some(0.0));
    }

    #[test]
    fn all_zero_throughput_is_fair_by_jain_and_zero_by_min_max() {
        let f = measures(&[&[0.0], &[0.0]], &[&[1.0], &[1.0]], None, 1);
        assert_eq!((f.jain, f.min_max), (Some(1.0), Some(0.0)));
    }
}
