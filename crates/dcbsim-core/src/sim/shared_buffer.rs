//! PFC's dynamic threshold: the switches' shared buffers, and the X_off they give an
//! ingress port (α times the buffer still free, as shared-buffer switch chips do).

use super::Simulation;
use crate::config::{NodeKind, SimConfig};
use crate::net::Port;

/// Each switch's shared buffer and the lossless bytes it holds.
#[derive(Clone, Debug)]
pub struct SharedBuffers {
    /// α of the dynamic threshold.
    alpha: f64,
    /// Per node: the shared buffer (zero for hosts).
    size: Vec<u64>,
    /// Per node: the lossless bytes held (accounted to an ingress port).
    used: Vec<u64>,
    /// X_on sits this far below the dynamic X_off (two MTUs).
    xon_gap: u64,
}

impl SharedBuffers {
    /// The shared buffers of `config`'s switches, if the dynamic threshold is on.
    pub fn new(config: &SimConfig, ports: &[Port], mtu: u32) -> Option<SharedBuffers> {
        let alpha = config.pfc.alpha?;
        let mut size = vec![0u64; config.nodes.len()];
        for p in ports {
            if config.nodes[p.node as usize].kind == NodeKind::Switch {
                size[p.node as usize] += p.buffer;
            }
        }
        if let Some(b) = config.pfc.shared_buffer {
            size.iter_mut().zip(&config.nodes).filter(|(_, n)| n.kind == NodeKind::Switch).for_each(|(s, _)| *s = b.0);
        }
        Some(SharedBuffers { alpha, used: vec![0; size.len()], size, xon_gap: 2 * mtu as u64 })
    }

    /// The X_off and X_on of an ingress port of `switch` now.
    fn thresholds(&self, switch: usize) -> (u64, u64) {
        let free = self.size[switch].saturating_sub(self.used[switch]);
        let xoff = (self.alpha * free as f64) as u64;
        (xoff, xoff.saturating_sub(self.xon_gap))
    }
}

impl Simulation {
    /// Under the dynamic threshold, sets the X_off and X_on of ingress port `ingress`
    /// (the upstream's port) from its switch's free shared buffer.
    #[inline]
    pub(super) fn refresh_thresholds(&mut self, ingress: u32) {
        let Some(shared) = &self.pfc.shared else { return };
        let port = &mut self.ports[ingress as usize];
        let (xoff, xon) = shared.thresholds(port.peer as usize);
        let pfc = port.pfc_mut();
        (pfc.xoff, pfc.xon) = (xoff, xon);
    }

    /// `bytes` arrived over `ingress` are held (`held`) or released at its switch.
    #[inline]
    pub(super) fn account_shared(&mut self, ingress: u32, bytes: u32, held: bool) {
        let Some(shared) = &mut self.pfc.shared else { return };
        let switch = self.ports[ingress as usize].peer as usize;
        let used = &mut shared.used[switch];
        *used = if held { *used + bytes as u64 } else { *used - bytes as u64 };
    }
}
