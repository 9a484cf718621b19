//! Flow sizes from distributions, Poisson arrival sources and dynamic flow kinds.

use dcbsim_core::config::{FlowKind, OffTime};
use dcbsim_core::dist::SizeDist;
use dcbsim_core::units::Rate;
use dcbsim_scenario::load_str;

fn scenario(body: &str) -> String {
    format!("[run]\nduration_ms = 10.0\n[topology]\nkind = \"dumbbell\"\nsenders = 3\n{body}")
}

#[test]
fn finite_flows_take_sizes_from_distributions() {
    let text = scenario(
        "[[flows]]\nsrc = \"s0\"\ndst = \"r0\"\nkind = \"finite\"\nsize_bytes = { uniform = [1250, 62500000] }\n\
         [[flows]]\nsrc = \"s1\"\ndst = \"r0\"\nkind = \"finite\"\nsize_kb = { pareto = [10, 1.1] }\n\
         [[flows]]\nsrc = \"s2\"\ndst = \"r0\"\nkind = \"finite\"\nsize_bytes = \"websearch\"\n",
    );
    let s = load_str(&text, "t.toml", &[]).unwrap();
    let sizes: Vec<&FlowKind> = s.config.flows.iter().map(|f| &f.kind).collect();
    assert_eq!(sizes[0], &FlowKind::Finite { size: SizeDist::Uniform { low: 1250, high: 62_500_000 } });
    assert_eq!(sizes[1], &FlowKind::Finite { size: SizeDist::Pareto { mean: 10_240.0, shape: 1.1 } });
    assert_eq!(sizes[2], &FlowKind::Finite { size: SizeDist::web_search() });
}

#[test]
fn arrival_sources_expand_per_pair() {
    let text = scenario(
        "[[arrivals]]\nname = \"short\"\nsrc = \"s*\"\ndst = \"r0\"\nrate_per_s = 200.0\nsize_bytes = \"websearch\"\nstop_ms = 8.0\n",
    );
    let s = load_str(&text, "t.toml", &[]).unwrap();
    let names: Vec<&str> = s.config.arrivals.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["short0", "short1", "short2"]);
    assert_eq!(s.config.arrivals[1].rate_per_s, 200.0);
}

#[test]
fn dynamic_sources_read_their_defaults_and_loads() {
    let text = scenario(
        "[[flows]]\nsrc = \"s0\"\ndst = \"r0\"\nkind = \"on_off\"\nload_mbps = 500\n\
         [[flows]]\nsrc = \"s1\"\ndst = \"r0\"\nkind = \"on_off\"\nload_gbps = 1\nburst_bytes = 1500\noff = \"fixed\"\n\
         [[flows]]\nsrc = \"s2\"\ndst = \"r0\"\nkind = \"poisson\"\nload_gbps = 2.0\nsize_kb = { pareto = [10, 1.1] }\n\
         [[arrivals]]\nname = \"a\"\nsrc = \"s0\"\ndst = \"r0\"\nload_mbps = 100\nsize_bytes = 1250\n",
    );
    let s = load_str(&text, "t.toml", &[]).unwrap();
    let kinds: Vec<&FlowKind> = s.config.flows.iter().map(|f| &f.kind).collect();
    assert_eq!(kinds[0], &FlowKind::OnOff { burst: 10_240, load: Rate::from_mbps(500), off: OffTime::Exponential });
    assert_eq!(kinds[1], &FlowKind::OnOff { burst: 1500, load: Rate::from_gbps(1), off: OffTime::Fixed });
    let FlowKind::Poisson { rate_per_s, size } = kinds[2] else { panic!("{:?}", kinds[2]) };
    assert_eq!(size, &SizeDist::Pareto { mean: 10_240.0, shape: 1.1 });
    assert!((rate_per_s - 2e9 / (8.0 * 10_240.0)).abs() < 1e-9);
    assert!((s.config.arrivals[0].rate_per_s - 10_000.0).abs() < 1e-9);
}

#[test]
fn bad_sizes_and_arrivals_are_named() {
    for (body, words) in [
        ("[[flows]]\nsrc = \"s0\"\ndst = \"r0\"\nkind = \"finite\"\nsize_bytes = { normal = [1, 2] }\n", "unknown distribution"),
        ("[[flows]]\nsrc = \"s0\"\ndst = \"r0\"\nkind = \"finite\"\nsize_kb = { pareto = [10, 0.5] }\n", "Pareto shape > 1"),
        ("[[flows]]\nsrc = \"s0\"\ndst = \"r0\"\nsize_kb = 5\n", "only for kind = \"finite\""),
        ("[[arrivals]]\nname = \"a\"\nsrc = \"s0\"\ndst = \"r0\"\nsize_kb = 5\n", "arrivals[0].rate_per_s: is required"),
        ("[[arrivals]]\nname = \"a\"\nsrc = \"s0\"\ndst = \"r0\"\nrate_per_s = 5\n", "arrivals[0].size_kb: is required"),
    ] {
        let e = load_str(&scenario(body), "t.toml", &[]).unwrap_err().to_string();
        assert!(e.contains(words), "{e}");
    }
}

#[test]
fn per_scheme_tables_apply_to_the_scheme_that_runs() {
    let text = scenario(
        "[scheme]\nname = \"smcc\"\n[scheme.qcn]\nq_eq_kb = 64.0\n[scheme.smcc]\nr_a_mbps = 128.0\n[[flows]]\nsrc = \"s*\"\ndst = \"r0\"\n",
    );
    let smcc = load_str(&text, "t.toml", &[]).unwrap();
    assert_eq!(smcc.config.scheme.name(), "smcc");
    let qcn = load_str(&text, "t.toml", &["scheme.name=qcn".into()]).unwrap();
    let dcbsim_core::cc::SchemeConfig::Qcn(dcbsim_core::cc::Qcn { params, .. }) = &qcn.config.scheme else { panic!() };
    assert_eq!(params.q_eq, 64 * 1024);
    let bad = text.replace("r_a_mbps", "r_q_mbps");
    let e = load_str(&bad, "t.toml", &[]).unwrap_err().to_string();
    assert!(e.contains("scheme.smcc.r_q_mbps: unknown parameter"), "{e}");
}

#[test]
fn threshold_changes_are_checked_in_the_order_they_apply() {
    let base = "[run]\nduration_ms = 10.0\n[topology]\nkind = \"dumbbell\"\nsenders = 2\nrate_gbps = 1.0\nbuffer_kb = 200.0\n\
                [scheme]\nname = \"ecm\"\n[[flows]]\nsrc = [\"s0\", \"s1\"]\ndst = \"r0\"\n";
    // Raising Q_sc first, then Q_mc above the old Q_sc, passes through no disorder.
    let raise =
        "[[timeline]]\nat_ms = 2.0\nparam = \"q_sc_kb\"\nvalue = 190.0\n[[timeline]]\nat_ms = 4.0\nparam = \"q_mc_kb\"\nvalue = 150.0\n";
    let s = dcbsim_scenario::load_str(&format!("{base}{raise}"), "t.toml", &[]).expect("each change in range");
    assert!(s.build(1).is_ok(), "in order, the thresholds stay ordered");
    // The other way round, Q_mc above Q_sc at 2 ms: refused at that entry's value.
    let wrong =
        "[[timeline]]\nat_ms = 4.0\nparam = \"q_sc_kb\"\nvalue = 190.0\n[[timeline]]\nat_ms = 2.0\nparam = \"q_mc_kb\"\nvalue = 150.0\n";
    let e = dcbsim_scenario::load_str(&format!("{base}{wrong}"), "t.toml", &[]).expect_err("a disorder at 2 ms").to_string();
    assert!(e.starts_with("t.toml:20:9: timeline[1].value: q_mc_kb: thresholds must satisfy q_eq < q_mc < q_sc"), "{e}");
}
