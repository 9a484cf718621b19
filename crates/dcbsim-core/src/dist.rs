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
