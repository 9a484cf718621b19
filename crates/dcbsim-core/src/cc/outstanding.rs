//! What a source whose frames are acknowledged one by one has outstanding, and its
//! retransmission timer: the part of RoCE's go-back-N that lives at the source (the
//! receiver's half, and the going back itself, are the engine's: `sim/acks.rs`).
//!
//! The timer is lazy: it is armed once for `rto` after the oldest unacknowledged byte
//! was last seen to move, and when it fires early (progress came meanwhile) it re-arms
//! for the rest, so acknowledgements do not each make an event.

use crate::param::ParamError;
use crate::units::Time;

/// The shortest retransmission timeout a scheme takes: below a microsecond a timer
/// would fire, and send the flow back, faster than frames cross any link.
pub const MIN_RTO: Time = Time::from_us(1);

/// Refuses a timeout below [`MIN_RTO`].
pub fn check_rto(rto: Time) -> Result<(), ParamError> {
    if rto < MIN_RTO {
        return Err(ParamError::Inconsistent(format!("rto_us must be at least 1 (got {})", rto.as_secs_f64() * 1e6)));
    }
    Ok(())
}

/// Bytes sent and acknowledged, and the retransmission timer.
#[derive(Clone, Debug)]
pub struct Outstanding {
    /// The end of the bytes sent (the next frame's start).
    pub sent: u64,
    /// The end of the bytes the receiver holds in order.
    pub acked: u64,
    /// The retransmission timeout.
    rto: Time,
    /// When the acknowledged end last moved (or the first byte went out).
    progress: Time,
    /// When the timer event is due.
    armed: Option<Time>,
    /// A timeout asks the engine to go back to this byte.
    go_back: Option<u64>,
}

impl Outstanding {
    /// Nothing sent yet; a timeout of `rto`.
    pub fn new(rto: Time) -> Outstanding {
        Outstanding { sent: 0, acked: 0, rto, progress: Time::ZERO, armed: None, go_back: None }
    }

    /// A new timeout, from the next arming on.
    pub fn set_rto(&mut self, rto: Time) {
        self.rto = rto;
    }

    /// Bytes sent and not acknowledged.
    pub fn in_flight(&self) -> u64 {
        self.sent.saturating_sub(self.acked)
    }

    /// A frame of `bytes` went out at `now`; true when the timer was armed by it.
    pub fn on_sent(&mut self, now: Time, bytes: u32) -> bool {
        if self.in_flight() == 0 {
            self.progress = now;
        }
        self.sent += bytes as u64;
        if self.armed.is_none() {
            self.armed = Some(now + self.rto);
            return true;
        }
        false
    }

    /// The receiver holds `cumulative` bytes in order (an acknowledgement at `now`).
    pub fn on_ack(&mut self, now: Time, cumulative: u64) {
        if cumulative > self.acked {
            self.acked = cumulative.min(self.sent);
            self.progress = now;
        }
    }

    /// The source goes back to byte `to` (a NACK or a timeout).
    pub fn on_go_back(&mut self, now: Time, to: u64) {
        self.sent = to;
        self.acked = self.acked.min(to);
        self.progress = now;
    }

    /// When the timer wants [`Outstanding::on_timer`].
    pub fn timer(&self) -> Option<Time> {
        self.armed
    }

    /// The timer fired: re-armed for the rest if there was progress within `rto`,
    /// disarmed if nothing is outstanding, else a timeout (taken by
    /// [`Outstanding::take_go_back`]).
    pub fn on_timer(&mut self, now: Time) {
        if self.in_flight() == 0 {
            self.armed = None;
            return;
        }
        let due = self.progress + self.rto;
        if now < due {
            self.armed = Some(due);
            return;
        }
        self.go_back = Some(self.acked);
        self.armed = Some(now + self.rto);
    }

    /// The byte a timeout sends the source back to, once.
    pub fn take_go_back(&mut self) -> Option<u64> {
        self.go_back.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_timer_fires_only_after_rto_without_progress() {
        let mut o = Outstanding::new(Time::from_us(100));
        assert!(o.on_sent(Time::ZERO, 1000));
        assert!(!o.on_sent(Time::from_us(1), 1000));
        assert_eq!(o.timer(), Some(Time::from_us(100)));
        o.on_ack(Time::from_us(50), 1000);
        o.on_timer(Time::from_us(100));
        assert_eq!((o.timer(), o.take_go_back()), (Some(Time::from_us(150)), None));
        o.on_timer(Time::from_us(150));
        assert_eq!(o.take_go_back(), Some(1000));
        o.on_go_back(Time::from_us(150), 1000);
        assert_eq!(o.in_flight(), 0);
        o.on_timer(Time::from_us(250));
        assert_eq!(o.timer(), None);
    }
}
