//! The CPID rule shared by BCN/ECM, SMCC and DSM: a source accepts an increase only
//! from the congestion point that caused its last decrease.

/// Remembers which congestion point last made the source slow down.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpidRule {
    last_decrease: Option<u32>,
}

impl CpidRule {
    /// Whether a change of sign `change` (bits/s, any scale) from congestion point
    /// `cpid` may apply; a decrease is always accepted and recorded.
    pub fn admit(&mut self, cpid: u32, change: f64) -> bool {
        if change < 0.0 {
            self.last_decrease = Some(cpid);
            return true;
        }
        self.last_decrease.is_none_or(|c| c == cpid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn increases_follow_the_last_decrease() {
        let mut rule = CpidRule::default();
        assert!(rule.admit(7, 1.0), "no decrease yet: any CP may raise");
        assert!(rule.admit(3, -1.0));
        assert!(!rule.admit(7, 1.0));
        assert!(rule.admit(3, 1.0));
        assert!(rule.admit(7, -1.0));
        assert!(!rule.admit(3, 1.0));
    }
}
