//! Named, seeded random streams.
//!
//! Every random number comes from an [`Rng`] made for one component by
//! [`Rng::stream`]`(run seed, component name)`. Streams are independent of one
//! another, so adding a flow does not change the numbers another component sees.
//! The generator is PCG-XSL-RR 128/64 ("PCG64"), written here so that results do not
//! depend on the version of an outside crate.

const MULTIPLIER: u128 = 0x2360_ed05_1fc6_5da4_4385_df64_9fcc_f645;

/// A PCG64 random stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    state: u128,
    increment: u128,
}

/// SplitMix64: a good mixer to turn small seeds into well-spread words.
fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// FNV-1a, 64 bits, of the parts one after another: a stable hash of a component's
/// name (the parts' concatenation).
fn fnv1a(parts: &[&str]) -> u64 {
    let bytes = parts.iter().flat_map(|part| part.bytes());
    bytes.fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

impl Rng {
    /// The stream of component `name` in a run seeded with `seed`.
    pub fn stream(seed: u64, name: &str) -> Rng {
        Rng::stream_of(seed, &[name])
    }

    /// [`Rng::stream`] of the name the parts make one after another, without making
    /// it (a fabric's links each name a stream).
    pub fn stream_of(seed: u64, name: &[&str]) -> Rng {
        let mut mix = seed ^ fnv1a(name).rotate_left(17);
        let words: [u64; 4] = std::array::from_fn(|_| splitmix64(&mut mix));
        let state = ((words[0] as u128) << 64) | words[1] as u128;
        let increment = (((words[2] as u128) << 64) | words[3] as u128) | 1;
        let mut rng = Rng { state: 0, increment };
        rng.step();
        rng.state = rng.state.wrapping_add(state);
        rng.step();
        rng
    }

    fn step(&mut self) {
        self.state = self.state.wrapping_mul(MULTIPLIER).wrapping_add(self.increment);
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.step();
        let rot = (self.state >> 122) as u32;
        let xored = ((self.state >> 64) as u64) ^ (self.state as u64);
        xored.rotate_right(rot)
    }

    /// A float uniform in [0, 1), with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A float uniform in [lo, hi).
    pub fn uniform_range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.uniform() < p
    }

    /// An exponential variate with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_name_give_the_same_stream() {
        let mut a = Rng::stream(7, "flow:f1");
        let mut b = Rng::stream(7, "flow:f1");
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn names_and_seeds_separate_streams() {
        let first = |seed, name| Rng::stream(seed, name).next_u64();
        assert_ne!(first(7, "flow:f1"), first(7, "flow:f2"));
        assert_ne!(first(7, "flow:f1"), first(8, "flow:f1"));
    }

    #[test]
    fn a_name_in_parts_is_the_same_stream() {
        let (mut a, mut b) = (Rng::stream(9, "link:s1-h2"), Rng::stream_of(9, &["link:", "s1", "-", "h2"]));
        assert!((0..8).all(|_| a.next_u64() == b.next_u64()));
    }

    #[test]
    fn uniform_has_the_right_mean() {
        let mut rng = Rng::stream(1, "test");
        let n = 100_000;
        let mean = (0..n).map(|_| rng.uniform()).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.005, "mean {mean}");
    }

    #[test]
    fn uniform_range_stays_in_range() {
        let mut rng = Rng::stream(3, "jitter");
        for _ in 0..10_000 {
            let x = rng.uniform_range(0.85, 1.15);
            assert!((0.85..1.15).contains(&x));
        }
    }
}
