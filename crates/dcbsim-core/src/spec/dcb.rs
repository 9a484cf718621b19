//! PFC and ETS settings, as the engine takes them.

use super::PortRef;
use crate::units::Bytes;

/// The largest pause a frame can ask for (the quanta field is 16 bits).
pub const MAX_QUANTA: u16 = u16::MAX;

/// PFC (802.1Qbb) settings. PFC is off while [`PfcSpec::lossless`] is zero.
#[derive(Clone, Debug, PartialEq)]
pub struct PfcSpec {
    /// Lossless priorities: bit q set makes 802.1p priority q lossless.
    pub lossless: u8,
    /// Ingress bytes per priority above which a switch pauses the upstream port.
    pub xoff: Bytes,
    /// Ingress bytes at or below which it resumes it (`None`: X_off − 2 MTU).
    pub xon: Option<Bytes>,
    /// Headroom above X_off (`None`: from the link's rate and delay, see
    /// [`crate::net::pfc::headroom`]).
    pub headroom: Option<Bytes>,
    /// Pause quanta each XOFF asks for (512 bit times each).
    pub quanta: u16,
    /// The switch ingress ports with PFC, named by the switch's port toward the
    /// upstream node (`None`: every switch port).
    pub ports: Option<Vec<PortRef>>,
    /// Per-port X_off, overriding [`PfcSpec::xoff`].
    pub xoff_ports: Vec<(PortRef, Bytes)>,
    /// Per-port X_on, overriding [`PfcSpec::xon`].
    pub xon_ports: Vec<(PortRef, Bytes)>,
    /// Per-port headroom, overriding [`PfcSpec::headroom`].
    pub headroom_ports: Vec<(PortRef, Bytes)>,
    /// The dynamic threshold: with `Some(α)`, an ingress port's X_off is α times the
    /// switch's shared buffer still free (X_on two MTUs below), instead of the static
    /// X_off.
    pub alpha: Option<f64>,
    /// Each switch's shared buffer under the dynamic threshold (`None`: the sum of its
    /// egress ports' buffers).
    pub shared_buffer: Option<Bytes>,
}

impl Default for PfcSpec {
    fn default() -> Self {
        PfcSpec {
            lossless: 0,
            xoff: Bytes(40 * 1024),
            xon: None,
            headroom: None,
            quanta: MAX_QUANTA,
            ports: None,
            xoff_ports: Vec::new(),
            xon_ports: Vec::new(),
            headroom_ports: Vec::new(),
            alpha: None,
            shared_buffer: None,
        }
    }
}

/// ETS (802.1Qaz) settings: weighted service between traffic classes at switch
/// egress ports. Priorities without a weight stay strict priority (served first).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EtsSpec {
    /// Per 802.1p priority, its ETS weight (0: strict priority). All zero: ETS off.
    pub weights: [u32; 8],
    /// The switch egress ports with ETS (`None`: every switch port).
    pub ports: Option<Vec<PortRef>>,
}

impl EtsSpec {
    /// Whether any priority has a weight.
    pub fn is_on(&self) -> bool {
        self.weights.iter().any(|&w| w > 0)
    }
}
