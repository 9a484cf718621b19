//! Plain Ethernet: no congestion points, and the fixed-rate reaction point that plain
//! Ethernet sources and constant background flows keep.

use super::{CongestionPoint, CpInit, Feedback, ReactionPoint, RpInit, Scheme};
use crate::param::{Param, Params};
use crate::rng::Rng;
use crate::units::{Rate, Time};

/// Plain Ethernet (`scheme.name = "none"`): no congestion points, no parameters; each
/// flow sends at its own rate (line rate unless the flow gives one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Plain;

impl Params for Plain {
    const TABLE: &'static [Param<Self>] = &[];
}

impl Scheme for Plain {
    type Cp = NoCp;
    type Rp = FixedRate;
    type Params = Plain;
    const NAMES: &'static [&'static str] = &["none"];

    fn params_mut(&mut self) -> &mut Plain {
        self
    }
    fn congestion_point(&self, _init: CpInit, _rng: Rng) -> Option<NoCp> {
        None
    }
    fn reaction_point(&self, init: RpInit, _rng: Rng) -> FixedRate {
        FixedRate::new(init.initial_rate)
    }
}

/// The congestion point of a scheme without one: no value of it exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoCp {}

impl CongestionPoint for NoCp {
    fn on_arrival(&mut self, _arrival: &super::Arrival, _out: &mut Vec<super::Notify>) {
        match *self {}
    }
}

/// A reaction point that holds its rate whatever the network says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixedRate {
    rate: Rate,
}

impl FixedRate {
    /// A source that always sends at `rate`.
    pub fn new(rate: Rate) -> FixedRate {
        FixedRate { rate }
    }
}

impl ReactionPoint for FixedRate {
    fn rate(&self) -> Rate {
        self.rate
    }
    fn timer(&self) -> Option<Time> {
        None
    }
    fn on_feedback(&mut self, _now: Time, _cpid: u32, _feedback: &Feedback) -> bool {
        false
    }
    fn reacts(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignores_feedback() {
        let mut rp = FixedRate::new(Rate::from_mbps(100));
        let changed = rp.on_feedback(Time::ZERO, 0, &Feedback::quantized(63));
        assert!(!changed);
        assert_eq!(rp.rate(), Rate::from_mbps(100));
        assert_eq!(rp.timer(), None);
    }
}
