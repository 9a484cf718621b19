//! What every scheme of the registry gets checked for, with no test of its own: whole
//! runs that conserve frames and repeat bit for bit, every parameter refusing values of
//! the wrong type or range, and every parameter changed during a run.

use dcbsim_core::cc::{ParamError, ParamValue, SchemeConfig};
use dcbsim_core::config::{Action, FlowKind, FlowSpec, LinkSpec, NodeKind, NodeSpec, SimConfig, TimelineEntry};
use dcbsim_core::report::RunReport;
use dcbsim_core::sim::Simulation;
use dcbsim_core::units::{Bytes, Rate, Time};

/// Four greedy senders and one constant one, 1 Gb/s each, into one 1 Gb/s port of a
/// 100 KB buffer, under `scheme`.
fn incast(scheme: SchemeConfig, duration: Time) -> SimConfig {
    let mut cfg = SimConfig::new(duration);
    cfg.scheme = scheme;
    let host = |name: String| NodeSpec { name, kind: NodeKind::Host };
    cfg.nodes.push(NodeSpec { name: "sw0".into(), kind: NodeKind::Switch });
    cfg.nodes.push(host("r0".into()));
    let link = |a, b| LinkSpec {
        a,
        b,
        rate: Rate::from_gbps(1),
        delay: Time::from_us(2).into(),
        buffer: Bytes::from_kb(100),
        priorities: 1,
        frame_service: None,
    };
    cfg.links.push(link(0, 1));
    for i in 0..5 {
        cfg.nodes.push(host(format!("s{i}")));
        cfg.links.push(link(i + 2, 0));
        let kind = if i == 4 { FlowKind::Constant } else { FlowKind::Greedy };
        let rate = (i == 4).then(|| Rate::from_mbps(100));
        cfg.flows.push(FlowSpec { rate, frame_bytes: 1500, ..FlowSpec::new(&format!("f{i}"), i + 2, 1, kind) });
    }
    cfg
}

fn run(cfg: SimConfig, seed: u64) -> RunReport {
    let mut report = Simulation::new(cfg, seed).expect("a runnable configuration").run();
    report.wall_seconds = 0.0;
    report
}

fn assert_conserved(name: &str, r: &RunReport) {
    for f in &r.flows {
        assert_eq!(f.sent_frames, f.delivered_frames + f.dropped_frames + f.in_network_frames, "{name}: flow {}", f.name);
    }
}

fn every_scheme() -> impl Iterator<Item = (&'static str, SchemeConfig)> {
    SchemeConfig::names().into_iter().map(|name| (name, SchemeConfig::by_name(name).expect("a listed name")))
}

#[test]
fn every_scheme_conserves_frames_and_repeats_bit_for_bit() {
    for (name, scheme) in every_scheme() {
        let a = run(incast(scheme.clone(), Time::from_ms(10)), 7);
        assert_conserved(name, &a);
        assert!(a.flows.iter().all(|f| f.delivered_frames > 0), "{name}: every flow gets through");
        let b = run(incast(scheme, Time::from_ms(10)), 7);
        assert_eq!(format!("{a:?}"), format!("{b:?}"), "{name}: the same seed repeats");
    }
}

#[test]
fn every_parameter_refuses_values_of_the_wrong_type_or_range() {
    for (name, scheme) in every_scheme() {
        for param in scheme.parameter_names() {
            for bad in [ParamValue::Number(f64::NAN), ParamValue::Text("?".into()), ParamValue::Number(-1e300)] {
                match scheme.clone().set_param_alone(&param, &bad) {
                    Err(ParamError::Type { .. } | ParamError::Range { .. }) => {}
                    // Only a finite number is in doubt: a parameter of any sign takes it.
                    Ok(()) if bad == ParamValue::Number(-1e300) => {}
                    other => panic!("{name}: {param} = {bad:?} gave {other:?}"),
                }
            }
        }
    }
}

#[test]
fn every_parameter_changes_during_a_run() {
    for (name, scheme) in every_scheme() {
        for (param, value) in scheme.parameter_examples() {
            let mut cfg = incast(scheme.clone(), Time::from_ms(4));
            let change = Action::SchemeParam { name: param.clone(), value: value.clone() };
            cfg.timeline.push(TimelineEntry { at: Time::from_ms(2), action: change });
            match Simulation::new(cfg, 3) {
                Ok(sim) => assert_conserved(name, &sim.run()),
                // Only a change that puts thresholds out of order is refused, as it is
                // when set before the run.
                Err(e) => {
                    let alone = scheme.clone().set_param(&param, &value);
                    assert!(matches!(alone, Err(ParamError::Inconsistent(_))), "{name}: {param} = {value:?}: {e}");
                }
            }
        }
    }
}
