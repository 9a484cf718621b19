//! Random quantities drawn from a run's named streams: link delays drawn at set-up,
//! notification latencies drawn per notification.

use crate::rng::Rng;
use crate::units::Time;

/// A duration, fixed or random.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeDist {
    /// Always this long.
    Fixed(Time),
    /// Uniform in [low, high].
    Uniform {
        /// Smallest value.
        low: Time,
        /// Largest value.
        high: Time,
    },
    /// Exponential with this mean.
    Exponential {
        /// The mean.
        mean: Time,
    },
}

impl From<Time> for TimeDist {
    fn from(t: Time) -> TimeDist {
        TimeDist::Fixed(t)
    }
}

impl TimeDist {
    /// One value. A fixed duration draws no random number.
    pub fn sample(&self, rng: &mut Rng) -> Time {
        match *self {
            TimeDist::Fixed(t) => t,
            TimeDist::Uniform { low, high } => Time(low.0 + (rng.uniform() * (high.0 - low.0) as f64) as u64),
            TimeDist::Exponential { mean } => Time(rng.exponential(mean.0 as f64).min(u64::MAX as f64 / 2.0) as u64),
        }
    }

    /// The mean value.
    pub fn mean(&self) -> Time {
        match *self {
            TimeDist::Fixed(t) | TimeDist::Exponential { mean: t } => t,
            TimeDist::Uniform { low, high } => Time(low.0 + (high.0 - low.0) / 2),
        }
    }

    /// Whether every draw is zero.
    pub fn is_zero(&self) -> bool {
        matches!(*self, TimeDist::Fixed(Time(0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_stays_in_range_with_the_right_mean() {
        let d = TimeDist::Uniform { low: Time::from_us(400), high: Time::from_us(800) };
        let mut rng = Rng::stream(1, "d");
        let draws: Vec<Time> = (0..20_000).map(|_| d.sample(&mut rng)).collect();
        assert!(draws.iter().all(|t| (Time::from_us(400)..=Time::from_us(800)).contains(t)));
        let mean = draws.iter().map(|t| t.0 as f64).sum::<f64>() / draws.len() as f64;
        assert!((mean / 1e6 - 600.0).abs() < 3.0, "{mean}");
        assert_eq!(d.mean(), Time::from_us(600));
    }

    #[test]
    fn exponential_has_its_mean_and_fixed_draws_nothing() {
        let mut rng = Rng::stream(2, "d");
        let d = TimeDist::Exponential { mean: Time::from_us(10) };
        let mean = (0..50_000).map(|_| d.sample(&mut rng).0 as f64).sum::<f64>() / 50_000.0;
        assert!((mean / 1e6 - 10.0).abs() < 0.2, "{mean}");
        let before = rng.clone();
        assert_eq!(TimeDist::Fixed(Time(5)).sample(&mut rng), Time(5));
        assert_eq!(rng, before);
    }
}

/// The DCTCP paper's web-search flow sizes (Alizadeh et al., "Data Center TCP (DCTCP)",
/// SIGCOMM 2010, Fig. 4): (bytes, cumulative fraction), linearly interpolated.
pub const WEB_SEARCH: &[(f64, f64)] = &[
    (0.0, 0.0),
    (10_000.0, 0.15),
    (20_000.0, 0.20),
    (30_000.0, 0.30),
    (50_000.0, 0.40),
    (80_000.0, 0.53),
    (200_000.0, 0.60),
    (1_000_000.0, 0.70),
    (2_000_000.0, 0.80),
    (5_000_000.0, 0.90),
    (10_000_000.0, 0.97),
    (30_000_000.0, 1.00),
];

/// A size in bytes, fixed or random.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    /// Always this many bytes.
    Fixed(u64),
    /// Uniform in [low, high] bytes.
    Uniform {
        /// Smallest size.
        low: u64,
        /// Largest size.
        high: u64,
    },
    /// Exponential with this mean.
    Exponential {
        /// Mean size, bytes.
        mean: f64,
    },
    /// Pareto with this mean and shape (> 1).
    Pareto {
        /// Mean size, bytes.
        mean: f64,
        /// Shape α.
        shape: f64,
    },
    /// An empirical CDF: (bytes, cumulative fraction) points, increasing, ending at 1.
    Empirical(Vec<(f64, f64)>),
}

impl From<crate::units::Bytes> for SizeDist {
    fn from(b: crate::units::Bytes) -> SizeDist {
        SizeDist::Fixed(b.0)
    }
}

impl SizeDist {
    /// The web-search distribution.
    pub fn web_search() -> SizeDist {
        SizeDist::Empirical(WEB_SEARCH.to_vec())
    }

    /// One size, at least one byte. A fixed size draws no random number.
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let bytes = match self {
            SizeDist::Fixed(n) => return (*n).max(1),
            SizeDist::Uniform { low, high } => *low as f64 + rng.uniform() * (high - low) as f64,
            SizeDist::Exponential { mean } => rng.exponential(*mean),
            SizeDist::Pareto { mean, shape } => {
                let scale = mean * (shape - 1.0) / shape;
                scale / (1.0 - rng.uniform()).powf(1.0 / shape)
            }
            SizeDist::Empirical(points) => interpolate(points, rng.uniform()),
        };
        (bytes.round() as u64).max(1)
    }

    /// The mean size, bytes.
    pub fn mean(&self) -> f64 {
        match self {
            SizeDist::Fixed(n) => *n as f64,
            SizeDist::Uniform { low, high } => (*low + *high) as f64 / 2.0,
            SizeDist::Exponential { mean } | SizeDist::Pareto { mean, .. } => *mean,
            SizeDist::Empirical(points) => points.windows(2).map(|w| (w[1].1 - w[0].1) * (w[0].0 + w[1].0) / 2.0).sum(),
        }
    }

    /// Arrivals per second at which sizes from this distribution offer `load`:
    /// `load / (8 · mean size)`.
    pub fn arrivals_per_s(&self, load: crate::units::Rate) -> f64 {
        load.as_f64() / (8.0 * self.mean())
    }

    /// Checks the parameters; the message says what is allowed.
    pub fn check(&self) -> Result<(), String> {
        let ok = match self {
            SizeDist::Fixed(n) => *n > 0,
            SizeDist::Uniform { low, high } => 0 < *low && low <= high,
            SizeDist::Exponential { mean } => *mean > 0.0,
            SizeDist::Pareto { mean, shape } => *mean > 0.0 && *shape > 1.0,
            SizeDist::Empirical(p) => {
                p.len() >= 2 && p.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1) && p.last().is_some_and(|l| l.1 == 1.0)
            }
        };
        if ok { Ok(()) } else { Err("sizes must be > 0, uniform low <= high, Pareto shape > 1, a CDF increasing to 1".into()) }
    }
}

/// The size at cumulative fraction `u` of an empirical CDF.
fn interpolate(points: &[(f64, f64)], u: f64) -> f64 {
    let i = points.partition_point(|&(_, c)| c < u).clamp(1, points.len() - 1);
    let ((x0, c0), (x1, c1)) = (points[i - 1], points[i]);
    if c1 <= c0 { x1 } else { x0 + (x1 - x0) * (u - c0) / (c1 - c0) }
}

#[cfg(test)]
mod size_tests {
    use super::*;

    fn mean_of(d: &SizeDist, n: usize) -> f64 {
        let mut rng = Rng::stream(4, "sizes");
        (0..n).map(|_| d.sample(&mut rng) as f64).sum::<f64>() / n as f64
    }

    #[test]
    fn web_search_matches_its_cdf_and_mean() {
        let d = SizeDist::web_search();
        let mut rng = Rng::stream(9, "ws");
        let draws: Vec<u64> = (0..100_000).map(|_| d.sample(&mut rng)).collect();
        let below = |x: u64| draws.iter().filter(|&&s| s <= x).count() as f64 / draws.len() as f64;
        assert!((below(10_000) - 0.15).abs() < 0.01);
        assert!((below(1_000_000) - 0.70).abs() < 0.01);
        assert!(draws.iter().all(|&s| s <= 30_000_000));
        // The mean of the interpolated CDF: 1.71 MB, 13.7 Mbit (the DSM paper quotes 10 Mbit).
        assert!((d.mean() - 1_711_250.0).abs() < 1.0, "{}", d.mean());
        assert!((mean_of(&d, 200_000) / d.mean() - 1.0).abs() < 0.03);
    }

    #[test]
    fn uniform_pareto_and_exponential_have_their_means() {
        for d in [
            SizeDist::Uniform { low: 1250, high: 62_500_000 },
            SizeDist::Pareto { mean: 10_240.0, shape: 1.6 },
            SizeDist::Exponential { mean: 5000.0 },
        ] {
            let tolerance = if matches!(d, SizeDist::Pareto { .. }) { 0.1 } else { 0.02 };
            assert!((mean_of(&d, 400_000) / d.mean() - 1.0).abs() < tolerance, "{d:?}");
        }
        assert!(SizeDist::Pareto { mean: 1.0, shape: 1.0 }.check().is_err());
        assert!(SizeDist::Uniform { low: 5, high: 1 }.check().is_err());
        assert!(SizeDist::web_search().check().is_ok());
    }
}
