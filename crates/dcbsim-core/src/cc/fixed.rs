//! The fixed-rate reaction point: plain Ethernet sources and background traffic.

use super::{Feedback, ParamValue, ReactionPoint};
use crate::units::{Rate, Time};

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
    fn set_param(&mut self, _name: &str, _value: &ParamValue) {}
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
