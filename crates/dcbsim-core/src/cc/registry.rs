//! The one list of schemes. A scheme is a file in `cc/` and a line here; the macro
//! (`scheme.rs`) makes the enums the engine holds and their dispatch from this list.

use super::scheme::Scheme;
use super::{AckInfo, Acks, Arrival, CongestionPoint, CpInit, Feedback, Notify, ReactionPoint, ReceiverAnswer, RpInit};
use super::{afqcn, dcc, dcqcn, dsm, ecm, fixed, fqcn, hpcc, qcn, smcc, threshold, timely};
use crate::param::{ParamError, ParamValue};
use crate::rng::Rng;
use crate::units::{Rate, Time};

schemes! {
    /// Plain Ethernet: no congestion points; each flow keeps its own fixed rate.
    Plain(fixed::Plain),
    /// QCN (802.1Qau) and its variants QCN-Timer, QCN-AIMD and QCN-T.
    Qcn(qcn::Qcn),
    /// FQCN: QCN whose congestion point notifies every overrated flow.
    Fqcn(fqcn::Fqcn),
    /// AF-QCN: QCN with a fairness term in the sampled frame's feedback.
    AfQcn(afqcn::AfQcn),
    /// BCN/ECM.
    Ecm(ecm::EcmParams),
    /// SMCC.
    Smcc(smcc::SmccParams),
    /// DSM.
    Dsm(dsm::DsmParams),
    /// Differentiated AIMD (DCC).
    Dcc(dcc::DccParams),
    /// DCQCN: RED-like ECN marking at switches, CNPs from receivers.
    Dcqcn(dcqcn::DcqcnParams),
    /// Threshold notification: one bit above `K`, AIMD on the rate.
    Threshold(threshold::ThresholdParams),
    /// HPCC: a window steered by in-band telemetry, per-frame acknowledgements.
    Hpcc(hpcc::HpccParams),
    /// TIMELY: a rate steered by the RTT's gradient, per-segment completions.
    Timely(timely::TimelyParams),
}

impl Default for SchemeConfig {
    fn default() -> Self {
        SchemeConfig::Plain(fixed::Plain)
    }
}

impl ReactionPointKind {
    /// A reaction point that holds `rate` whatever the network says (a constant flow).
    pub fn fixed(rate: Rate) -> ReactionPointKind {
        ReactionPointKind::Plain(fixed::FixedRate::new(rate))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_parameter_table_is_sound() {
        assert_eq!(SchemeConfig::table_faults(), Vec::<String>::new());
        assert!(crate::param::table_faults::<crate::transport::TcpParams>().is_empty());
    }

    #[test]
    fn every_name_builds_its_scheme() {
        for name in SchemeConfig::names() {
            let scheme = SchemeConfig::by_name(name).expect("a listed name");
            assert_eq!(scheme.name(), name);
            assert!(scheme.check().is_ok(), "{name}: the defaults are consistent");
        }
        assert!(SchemeConfig::by_name("nope").is_none());
    }

    #[test]
    fn every_parameter_name_is_taken_by_its_scheme() {
        for name in SchemeConfig::names() {
            let scheme = SchemeConfig::by_name(name).unwrap();
            for param in scheme.parameter_names() {
                let err = scheme.clone().set_param_alone(&param, &ParamValue::Text("?".into()));
                assert!(!matches!(err, Err(ParamError::Unknown { .. })), "{name}: {param} is listed but unknown");
            }
            let err = scheme.clone().set_param_alone("no_such_parameter", &ParamValue::Number(1.0)).unwrap_err();
            assert!(matches!(err, ParamError::Unknown { .. }), "{name}: {err}");
        }
    }
}

#[cfg(test)]
mod size_tests {
    use super::*;

    /// Every flow holds a [`ReactionPointKind`], as large as the largest scheme's
    /// reaction point (272 bytes before HPCC and TIMELY came, and after): a scheme with
    /// a large state boxes it (HPCC's hop records).
    #[test]
    fn reaction_points_stay_small() {
        let size = std::mem::size_of::<ReactionPointKind>();
        assert!(size <= 272, "{size} bytes");
    }
}
